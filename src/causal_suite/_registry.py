"""inspect-ai entry point: importing registers the suite's offline model provider."""

from causal_suite.offline_model import offline  # noqa: F401
