"""The ``extractor`` role's reply (paper App. C.3): the JSON object in a model reply and its effect (a number or
null).
"""

from __future__ import annotations

import json
import re

from causalverify_inspect.extraction.numbers import NUM


def reply_json_object(reply: str) -> dict | None:
    """The JSON object in a model reply (from its first ``{`` to its last ``}``, so code fences and prose around it
    are ignored), or None when there is no such object (or it nests too deeply for Python's parser)."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        doc = json.loads(reply[start : end + 1])
    except (json.JSONDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


class ExtractorReplyError(ValueError):
    """The extractor's reply is not a JSON effect (a number or null)."""


def parse_extractor_reply(reply: str) -> tuple[float | None, str]:
    """``(effect or None, rationale)`` from the extractor's JSON reply; raise ExtractorReplyError otherwise."""
    doc = reply_json_object(reply)
    if doc is None or "effect" not in doc:
        raise ExtractorReplyError(f"extractor reply is not a JSON object with 'effect': {reply[:200]!r}")
    effect, rationale = doc["effect"], str(doc.get("rationale", ""))
    if effect is None:
        return None, rationale
    if isinstance(effect, bool) or not isinstance(effect, (int, float, str)):
        raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
    if isinstance(effect, str):
        if not re.fullmatch(rf"\s*{NUM}\s*", effect):
            raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
        effect = float(effect.strip().replace("\u2212", "-"))
    return float(effect), rationale
