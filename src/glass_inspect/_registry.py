"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

# ruff: noqa: F401
from glass_inspect.scorers import glass_match, modal_answer
from glass_inspect.task import glassgsm, glassmath, noop_audit
