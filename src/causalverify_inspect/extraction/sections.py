"""Headings and sections of an output (paper App. C.3): banners, framed and upper-case headings and sub-headings;
candidates under robustness, placebo, pre-trend... sections are set aside, those under a main-results heading are
marked preferred.
"""

from __future__ import annotations

import re
from dataclasses import replace

from causalverify_inspect.extraction.numbers import _TOKEN_RE, NUM
from causalverify_inspect.extraction.results import Candidate
from causalverify_inspect.extraction.vocabulary import _PRINTER_NOISE, _SECTION_EXCLUDED, _SECTION_IV, _SECTION_MAIN

_RULE_LINE = re.compile(r"^[\s=\-_*#~+\u2500\u2550]{5,}$")


_MARKED_HEADING = re.compile(
    r"^\s*(?:={2,}|-{2,}|#{1,6}(?! A tibble)(?! \u2139)(?! \u2026)|\*{3,}(?=\s*[A-Z=-]))\s*"
    r"(?P<text>[^=#*]*?[A-Za-z][^=#*]*?)\s*(?:={2,}|-{2,}|#+|\*{3,})?\s*$"
)


_BANNER = re.compile(r"^\s*(?P<mark>={2,}|-{2,}|#{2,}|\*{3,})\s*[A-Za-z].*?\s*(?P=mark)\s*$")


def _is_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    if not re.search(r"[A-Za-z]", line) or len(line) > 120:
        return False
    if _BANNER.match(line) and not _TOKEN_RE.search(re.sub(r"\([^()]*\)|\[[^\[\]]*\]", " ", line)):
        return True  # "=== Main RD Estimate (at cutoff = 0.5) ===", "--- Sensitivity ---": framed on both sides
    if _PRINTER_NOISE.match(line):
        return False
    if _MARKED_HEADING.match(line) and not re.search(rf"[:=]\s*{NUM}", line):
        return True
    prev = lines[i - 1] if i > 0 else ""
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    framed = _RULE_LINE.match(nxt) and (_RULE_LINE.match(prev) or not prev.strip())
    if framed and not _TOKEN_RE.search(re.sub(r"\d+[a-z]?\.", "", line)):
        return True
    letters = re.sub(r"[^A-Za-z]", "", line)
    return len(letters) >= 6 and letters.isupper() and len(line.split()) >= 2 and not _TOKEN_RE.search(line)


def _sections(lines: list[str]) -> tuple[list[str], set[int]]:
    """For each line, the heading above it and the sub-heading (a short line ending with ':') it sits under, joined;
    and the indices of heading lines."""
    heading, sub, out, headings = "", "", [], set()
    for i, line in enumerate(lines):
        if _is_heading(lines, i):
            heading, sub = line.strip(), ""
            headings.add(i)
        elif not line.strip():
            sub = ""
        elif re.fullmatch(r"\s*[A-Za-z][^:]{2,80}:\s*", line) and not _PRINTER_NOISE.match(line):
            sub = re.sub(r"\([^()]*\)", " ", line).strip()  # its parenthetical remark does not name the block
        out.append(f"{heading} | {sub}")
    return out, headings


def _section_filter(candidates: list[Candidate], sections: list[str], family: str) -> list[Candidate]:
    """Candidates outside robustness/placebo/pre-trend/... sections; in IV designs, a candidate that does not name
    itself the IV estimate is dropped under a first-stage, reduced-form or OLS heading; candidates under a heading
    that names the main/primary/headline result count as marked preferred."""
    kept = []
    for c in candidates:
        section = sections[c.lineno - 1] if 0 < c.lineno <= len(sections) else ""
        if _SECTION_EXCLUDED.search(section) and not c.answer_line:
            continue
        if family == "EVENT_STUDY" and c.window is not None and max(c.window) < 0:
            continue  # a pre-event window
        if family == "IV" and not c.explicit and any(p.search(section) for p in _SECTION_IV.values()):
            continue
        if _SECTION_MAIN.search(section.split(" | ", 1)[0]):
            c = replace(c, preferred=True)  # under a "Main result(s)" heading
        kept.append(c)
    return kept
