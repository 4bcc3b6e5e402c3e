"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""

from causalverify_inspect.sandbox import ConfinedSandboxEnvironment  # noqa: F401
from causalverify_inspect.scorers import exp_a_scorer, exp_b_scorer  # noqa: F401
from causalverify_inspect.task import exp_a, exp_b  # noqa: F401
