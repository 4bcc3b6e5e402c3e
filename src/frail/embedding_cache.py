"""The process-wide store of frozen text embeddings ("never pay twice"): one table per encoder key, each distinct
text of a table encoded once per process, whichever baseline, seed, protocol or report asks for it.

The key names everything the vector depends on (featurizer, encoder, maximum length, device), so two encoders
never share a table. Only frozen encoders may store here: a fine-tuned encoder's embeddings change as it trains.
``stats`` counts, per key, the texts asked for and the texts actually encoded (``benchmarks/frail_baselines.py
--part profile`` prints them; the tests check that nothing is encoded twice).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

Encode = Callable[[list[str]], np.ndarray]  # distinct texts -> (n, d) float32, rows in the texts' order


@dataclass
class CacheStats:
    """Per key: calls, texts asked for (repeats included) and texts encoded (each distinct text once)."""

    calls: int = 0
    requested: int = 0
    encoded: int = 0


_TABLES: dict[Hashable, dict[str, np.ndarray]] = {}
_STATS: dict[Hashable, CacheStats] = {}


def cached_embeddings(key: Hashable, texts: Sequence[str], encode: Encode) -> np.ndarray:
    """(len(texts), d) float32: the stored vector of each text under ``key``, after encoding (once, in one call to
    ``encode``) the distinct texts not stored yet."""
    table = _TABLES.setdefault(key, {})
    counts = _STATS.setdefault(key, CacheStats())
    missing = [t for t in dict.fromkeys(texts) if t not in table]
    counts.calls += 1
    counts.requested += len(texts)
    counts.encoded += len(missing)
    if not texts:
        return np.asarray(encode([]), dtype=np.float32)  # (0, d): the encoder knows its width
    if missing:
        table.update(zip(missing, np.asarray(encode(missing), dtype=np.float32), strict=True))
    return np.stack([table[t] for t in texts])


def stats() -> dict[Hashable, CacheStats]:
    """A copy of the counters of every key used so far in this process."""
    return {key: CacheStats(s.calls, s.requested, s.encoded) for key, s in _STATS.items()}


def clear() -> None:
    """Forget every stored vector and counter (tests and benchmarks that measure a cold start)."""
    _TABLES.clear()
    _STATS.clear()
