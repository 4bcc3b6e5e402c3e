"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

# ruff: noqa: F401
from causal_suite.inspect_compat import register_bare_scorers
from glass_inspect.scorers import glass_match, modal_answer, noop_verdict
from glass_inspect.task import glassgsm, glassmath, noop_audit

register_bare_scorers(glass_match, noop_verdict)  # so that `inspect score LOG` finds them
