"""inspect-ai entry point: importing registers the suite's model providers (offline Gemma, scripted)."""

from causal_suite.offline_model import offline  # noqa: F401
from causal_suite.scripted_model import scripted  # noqa: F401
from causal_suite.unscored import UnscoredReport  # noqa: F401  (prints each suite task's unscored count at its end)
