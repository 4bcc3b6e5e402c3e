"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

from causal_suite.inspect_compat import register_bare_scorers
from causalverify_inspect.exp_a_scorer import exp_a_scorer
from causalverify_inspect.sandbox import ConfinedSandboxEnvironment  # noqa: F401
from causalverify_inspect.scorers import exp_b_scorer
from causalverify_inspect.task import exp_a, exp_b  # noqa: F401

register_bare_scorers(exp_a_scorer, exp_b_scorer)  # so that `inspect score LOG` finds them
