"""Shared infrastructure of the causal-reasoning suite: the offline default model, the demo runner and
the clear-error helpers used by the three benchmark packages."""
