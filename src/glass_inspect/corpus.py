"""The on-disk contract of a GlassGSM / GlassMATH corpus (a ``glass-build`` output directory).

Layout (schema version ``CORPUS_SCHEMA``)::

    DIR/corpus.json            {"schema": 1, "suite": "gsm"|"math", "seed": int, "doses": [1,3,5,7,9],
                                "source": {"path": str, "sha256": str}, "counts": {...}, "audited": bool}
    DIR/pool.jsonl             one TextRecord per line: every base problem and every twin (the pool)
    DIR/manifests/m{m}.jsonl   one PairRecord per line: the (base, twin) pairs of dose m (§3.2 multi-operator mix:
                               about m twins per base, shared across the families; resamples of one pool)

Identity twins (the placebo of §7 step 8) live in the pool with ``operator == "identity"`` and in every
manifest that includes them; their text equals the base text on purpose.

The sample metadata of the glass eval tasks is ``TextRecord.sample_metadata()``; Frail reads it back from logs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError

CORPUS_SCHEMA = 1
METADATA_VERSION = 1
FAMILIES = ("entity_rename", "sentence_reorder", "irrelevant_context", "identity")


@dataclass(frozen=True)
class TextRecord:
    """One prompt text of the pool: a base problem (``role == "base"``) or one of its twins."""

    text_id: str
    base_id: str
    role: str  # "base" | "twin"
    operator: str  # "base" | one of FAMILIES
    injection_size: int  # sentences injected (irrelevant_context); 0 otherwise
    seed: int
    text: str
    answer: str  # gold final answer, normalised by glass_inspect.answers
    complexity_score: float  # declared complexity C in [0, 1] (§3.1)
    category: str  # "gsm" or the MATH subject
    suite: str  # "gsm" | "math"
    level: int | None = None  # MATH level 1-5
    changes: dict[str, Any] = field(default_factory=dict)  # what the operator changed

    def sample_metadata(self) -> dict[str, Any]:
        """The versioned sample-metadata contract (DESIGN.md) that Frail depends on."""
        return {
            "metadata_version": METADATA_VERSION,
            "text_id": self.text_id,
            "base_id": self.base_id,
            "role": self.role,
            "operator": self.operator,
            "injection_size": self.injection_size,
            "complexity_score": self.complexity_score,
            "category": self.category,
            "suite": self.suite,
            "level": self.level,
            "answer": self.answer,
        }


@dataclass(frozen=True)
class PairRecord:
    """One (base, twin) observation of a dose manifest."""

    base_id: str
    twin_id: str
    operator: str
    injection_size: int
    dose: int


def _read_jsonl(path: Path, cls: type) -> list:
    if not path.exists():
        raise SuiteInputError(f"corpus file '{path}' does not exist: build a corpus with `glass-build`.")
    rows = []
    names = set(cls.__dataclass_fields__)
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SuiteInputError(f"{path}, line {lineno}: not valid JSON ({exc.msg}).") from exc
            missing = [n for n in names if n not in raw and _required(cls, n)]
            if missing:
                raise SuiteInputError(f"{path}, line {lineno}: record lacks field(s) {', '.join(sorted(missing))}.")
            rows.append(cls(**{k: v for k, v in raw.items() if k in names}))
    return rows


def _required(cls: type, name: str) -> bool:
    from dataclasses import MISSING

    f = cls.__dataclass_fields__[name]
    return f.default is MISSING and f.default_factory is MISSING


def write_jsonl(path: Path, records: list) -> None:
    """Write dataclass records atomically (temp file, then rename): nothing is half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(asdict(r), ensure_ascii=False, sort_keys=True) + "\n")
    tmp.replace(path)


def read_pool(corpus: str | Path) -> list[TextRecord]:
    return _read_jsonl(Path(corpus) / "pool.jsonl", TextRecord)


def manifest_path(corpus: str | Path, dose: int) -> Path:
    return Path(corpus) / "manifests" / f"m{dose}.jsonl"


def read_manifest(corpus: str | Path, dose: int) -> list[PairRecord]:
    return _read_jsonl(manifest_path(corpus, dose), PairRecord)


def read_corpus_info(corpus: str | Path) -> dict[str, Any]:
    path = Path(corpus) / "corpus.json"
    if not path.exists():
        raise SuiteInputError(f"'{corpus}' is not a glass corpus (no corpus.json): build one with `glass-build`.")
    info = json.loads(path.read_text(encoding="utf-8"))
    if info.get("schema") != CORPUS_SCHEMA:
        raise SuiteInputError(f"{path}: schema {info.get('schema')!r} is not the supported {CORPUS_SCHEMA}.")
    return info


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
