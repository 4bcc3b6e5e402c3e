"""Frail: estimands and fragility predictors over glass_inspect eval logs."""
