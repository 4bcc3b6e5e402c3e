"""Declared complexity C of a base problem (§1 CRD, §3.1, §11): external to the pipeline, fixed per problem.

* GlassMATH: the problem-setter's level 1-5, mapped linearly onto [0.05, 0.95] (1 -> 0.05, 3 -> 0.5, 5 -> 0.95).
* GlassGSM: a score computed from the problem text alone, from the three ingredients §11 names (the numbers the
  question states, operation keywords, sentences). Each ingredient is capped and scaled to [0, 1]:
  ``C = 0.05 + 0.9 * (0.5 * min(numbers, 10) / 10 + 0.25 * min(keywords, 6) / 6 + 0.25 * min(sentences, 8) / 8)``.
  It depends on nothing but the text, so a problem gets the same C in any corpus or slice.
"""

from __future__ import annotations

import re

from glass_inspect.corpus.operators import segment

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?|\b(?:half|twice|double|triple|third|quarter|dozen)\b", re.I)
_NUMBER_WORD = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundred|thousand)\b",
    re.I,
)
_KEYWORDS = re.compile(
    r"\b(?:each|every|per|times|percent|more than|less than|fewer than|remaining|rest|left|total|average|"
    r"ratio|fraction|discount|profit|split|share|twice|half)\b|%",
    re.I,
)


def gsm_complexity(text: str) -> float:
    """The GlassGSM declared complexity of a problem text, in [0.05, 0.95] (see the module docstring)."""
    numbers = len(_NUMBER.findall(text)) + len(_NUMBER_WORD.findall(text))
    keywords = len(_KEYWORDS.findall(text))
    sentences = len(segment(text).sentences)
    raw = 0.5 * min(numbers, 10) / 10 + 0.25 * min(keywords, 6) / 6 + 0.25 * min(sentences, 8) / 8
    return round(0.05 + 0.9 * raw, 6)


def math_complexity(level: int) -> float:
    """The GlassMATH declared complexity: level 1-5 -> 0.05 + 0.225 * (level - 1)."""
    if level not in (1, 2, 3, 4, 5):
        raise ValueError(f"MATH level must be 1-5, got {level!r}")
    return round(0.05 + 0.225 * (level - 1), 6)
