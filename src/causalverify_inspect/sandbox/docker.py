"""The Docker sandbox of Exp B: its compose file (``sandboxes/r``, shipped in the wheel) and the R packages it has."""

from __future__ import annotations

from pathlib import Path

DOCKER_COMPOSE = Path(__file__).resolve().parent.parent / "sandbox_r" / "compose.yaml"
"""``sandbox_r`` is a link to the repository's ``sandboxes/r``, copied into the wheel as package data."""

DOCKER_R_PACKAGES = ("fixest", "AER", "ivreg", "rdrobust", "rddensity", "estimatr", "sandwich", "lmtest", "data.table",
                     "dplyr", "broom", "plm", "car", "ggplot2", "tibble", "stargazer", "rdd", "readr")
"""R packages the Docker image (sandboxes/r/Dockerfile) installs: the ones upstream's models reached for."""
