"""The CoBe paper's published numbers (Raghavan et al., arXiv:2610.13057), shipped as ``data/paper_results.json``:
Tables 2-5 and 7, and the bar heights of Figs. 6-9 (see its ``about`` entry)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def _text() -> str:
    return resources.files("cobe_inspect").joinpath("data/paper_results.json").read_text(encoding="utf-8")


def paper_results() -> dict[str, Any]:
    """The published numbers (a fresh copy each call)."""
    return json.loads(_text())
