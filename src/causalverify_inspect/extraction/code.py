"""The R code of a response (L2a, paper App. C.2): the first ``r``-tagged fenced block, else an untagged block that
looks like R; blocks tagged with another language never count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE_RE = re.compile(r"^[ \t]*```[ \t]*(\{?[A-Za-z0-9_+-]*\}?)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)


_R_HINT_RE = re.compile(r"<-|\blibrary\(|\brequire\(|\bread\.csv\(|\bfread\(|\blm\(|\bfeols\(|\bivreg\(")


@dataclass(frozen=True)
class CodeBlocks:
    """What the response's fenced blocks hold: the R code taken (or None) and counts for the log."""

    code: str | None
    n_r_blocks: int
    n_other_blocks: int


def extract_r_code(response: str) -> CodeBlocks:
    """The R code of a response (L2a): first ``r``-tagged fenced block, else an untagged block that looks like R."""
    tagged, untagged, other = [], [], 0
    for match in _FENCE_RE.finditer(response):
        tag, body = match.group(1).strip("{}").lower(), match.group(2).strip()
        if tag == "r":
            tagged.append(body)
        elif tag == "" and _R_HINT_RE.search(body):
            untagged.append(body)
        else:
            other += 1
    blocks = tagged or untagged
    return CodeBlocks(code=blocks[0] if blocks and blocks[0] else None, n_r_blocks=len(blocks), n_other_blocks=other)
