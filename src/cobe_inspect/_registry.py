"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

from causal_suite.inspect_compat import register_bare_scorers
from cobe_inspect.scorers import cobe_judge
from cobe_inspect.task import cobe  # noqa: F401

register_bare_scorers(cobe_judge)  # so that `inspect score LOG` finds it
