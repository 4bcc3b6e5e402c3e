"""Number tokens of printed R output (paper App. C.3): the number pattern, tokens with their printed precision
(the value of the last digit), cleaning of control bytes and progress redraws, and the blanking of numbers that
cannot be results (formulas and their powers, counts, the settings an estimate was made with) before any label is
read; the size limits of what is read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

NUM = r"[-+\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


_NUM_RE = re.compile(rf"(?<![\w.])({NUM})(%?)")


_TOKEN_RE = re.compile(rf"(?<![\w.]){NUM}(?!\w|\.\d|-[A-Za-z])")  # not "30-day" or "2SLS"


MAX_STDOUT_CHARS = 500_000


MAX_LINE_CHARS = 4000


MAX_LINES = 60_000


MAX_LINE_NUMBERS = 40


def _to_float(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def _unit(text: str) -> float:
    """The value of the last printed digit of a number token (``2.94`` -> 0.01, ``1.2e-03`` -> 1e-5)."""
    mantissa, _, exponent = text.lstrip("+-\u2212").lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    try:
        shift = int(exponent) if exponent else 0
    except ValueError:
        shift = 0
    return 10.0 ** (shift - decimals)


@dataclass(frozen=True)
class _Tok:
    start: int
    end: int
    text: str
    value: float
    percent: bool


def _tokens(line: str) -> list[_Tok]:
    out = []
    for m in _TOKEN_RE.finditer(line):
        rest = line[m.end() : m.end() + 3]
        percent = bool(re.match(r"\s?%", rest))
        try:
            value = _to_float(m.group(0))
        except ValueError:
            continue
        if math.isfinite(value):
            out.append(_Tok(m.start(), m.end(), m.group(0), value, percent))
    return out


def _clean(stdout: str) -> str:
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stdout)
    text = text.replace("\r\n", "\n")
    text = "\n".join(part.rsplit("\r", 1)[-1] for part in text.split("\n"))  # progress bars: the last redraw
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", text)


_FORMULA = re.compile(r"[\w.()]+\s*~[^:=()]*(?:\([^()]*\)[^:=()]*)*")


_POWER = re.compile(r"\^\s*\d+")


_COUNT = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\w.])|(?<![\w.\-])\d+\s+(?:[A-Z]{2,}s|[a-z]{2,}[^s\W]s)\b")


_SETTING_VALUE = re.compile(
    rf"(?i)\b(?:bandwidth|bw|cut-?off|threshold|window|kernel|lag|order|polynomial|h|k|p|c)\b"
    rf"(?:\s+h)?\s*(?:=|of)?\s*{NUM}"
)


_LATER_VALUE = re.compile(rf"[:=]\s*{NUM}")


_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _blank_non_results(line: str) -> str:
    """``line`` with the numbers that cannot be results blanked out, positions kept: model formulas and their
    powers (``y ~ x + controls^2 | z``), counts with their noun (an integer followed by a plural noun: ``80 IPOs``,
    ``2000 observations``; or ``1,200``), and
    the settings an estimate was made with when the estimate follows on the line (``using bandwidth h = 0.25:``)."""
    line = _blank(_blank(line, _FORMULA), _POWER)
    line = _blank(line, _COUNT)
    values = list(_LATER_VALUE.finditer(_blank(line, _BRACKETED)))
    if not values:
        return line
    last = values[-1]
    head = line[: last.start()]
    return _blank(head, _SETTING_VALUE) + line[last.start() :]


def _groups(line: str) -> list[tuple[int, int]]:
    """Spans of the outermost () and [] groups of a line."""
    spans, stack = [], []
    for k, ch in enumerate(line):
        if ch in "([":
            stack.append(k)
        elif ch in ")]" and stack:
            start = stack.pop()
            if not stack:
                spans.append((start, k + 1))
    return spans
