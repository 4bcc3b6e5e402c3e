"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

# ruff: noqa: F401
from glass_inspect.audit import noop_audit
from glass_inspect.scorers import glass_match, modal_answer
from glass_inspect.task import glassgsm, glassmath
