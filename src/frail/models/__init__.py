"""Frail's predictors: Frail-π (models/pi.py)."""
