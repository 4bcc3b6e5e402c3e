"""The on-disk contract of a GlassGSM / GlassMATH corpus (a ``glass-build`` output directory).

Layout (schema version ``CORPUS_SCHEMA``)::

    DIR/corpus.json            {"schema": 1, "suite": "gsm"|"math", "seed": int, "doses": [1,3,5,7,9],
                                "source": {"path": str, "sha256": str}, "counts": {...}, "audited": bool,
                                "params": {...}}  (counts: per family and dose, unique twins per base, audit
                                drops and flags by reason, skipped source rows; see glass_inspect.corpus.build)
    DIR/pool.jsonl             one TextRecord per line: every base problem and every twin (the pool)
    DIR/manifests/m{m}.jsonl   one PairRecord per line: the (base, twin) pairs of dose m (§3.2 multi-operator mix:
                               about m twins per base, shared across the families; resamples of one pool)

Identity twins (the placebo of §7 step 8) live in the pool with ``operator == "identity"`` and in every
manifest that includes them (``glass-build`` puts one per base in each manifest, on top of the m mix twins);
their text equals the base text on purpose.

The upstream LabeledPair JSONL of §3.4 is read and written by ``glass_inspect.corpus.labeled_pairs``
(``glass-build export-pairs`` / ``import-pairs``).

The sample metadata of the glass eval tasks is ``TextRecord.sample_metadata()``; Frail reads it back from logs.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError
from causal_suite.fields import NUMBER, check_range, check_type
from causal_suite.files import write_text_atomic
from causal_suite.jsonl import iter_jsonl, read_json
from causal_suite.params import comma_list

CORPUS_SCHEMA = 1
METADATA_VERSION = 1
IDENTITY = "identity"  # the placebo twin family (§7 step 8): the base text unchanged
TWIN_FAMILIES = ("entity_rename", "sentence_reorder", "irrelevant_context")  # the perturbing families (§3.1)
FAMILIES = (*TWIN_FAMILIES, IDENTITY)
DEFAULT_DOSES = (1, 3, 5, 7, 9)  # the doses m of §3.2: twins per base in each manifest


def parse_doses(doses: str | int | list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """``"1,3,5"``, ``5`` or ``[1, 3]`` -> sorted unique doses; a clear error for anything else."""
    try:
        parsed = sorted({int(d) for d in comma_list(doses)})
    except ValueError:
        raise SuiteInputError(f"doses {doses!r} is not a list of integers such as 1,3,5,7,9.") from None
    if not parsed:
        raise SuiteInputError("doses is empty: name at least one dose, such as 1,3,5,7,9.")
    return tuple(parsed)


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
    audit_flags: list[str] = field(default_factory=list)  # structural-audit flags kept, not dropped (§3.3 item 5)

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


#: The JSON type of each field of the two record kinds (see causal_suite.fields.check_type).
FIELD_TYPES: dict[type, dict[str, Any]] = {
    TextRecord: {
        "text_id": str,
        "base_id": str,
        "role": str,
        "operator": str,
        "injection_size": int,
        "seed": int,
        "text": str,
        "answer": str,
        "complexity_score": NUMBER,
        "category": str,
        "suite": str,
        "level": (int, type(None)),
        "changes": dict,
        "audit_flags": list,
    },
    PairRecord: {"base_id": str, "twin_id": str, "operator": str, "injection_size": int, "dose": int},
}


def _read_jsonl(path: Path, cls: type) -> list:
    """The records of a pool or manifest file, each field type-checked, ``complexity_score`` in [0, 1] and
    ``injection_size`` at least 0."""
    if not path.exists():
        raise SuiteInputError(f"corpus file '{path}' does not exist: build a corpus with `glass-build`.")
    rows = []
    types = FIELD_TYPES[cls]
    for lineno, raw in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        missing = [n for n in types if n not in raw and _required(cls, n)]
        if missing:
            raise SuiteInputError(f"{where}: record lacks field(s) {', '.join(sorted(missing))}.")
        values = {k: check_type(v, k, where, types[k]) for k, v in raw.items() if k in types}
        check_range(values["injection_size"], "injection_size", where, 0)
        if "complexity_score" in values:
            check_range(values["complexity_score"], "complexity_score", where, 0, 1)
        rows.append(cls(**values))
    return rows


def _required(cls: Any, name: str) -> bool:
    f = cls.__dataclass_fields__[name]
    return f.default is MISSING and f.default_factory is MISSING


def json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"


def write_jsonl(path: Path, records: list) -> None:
    """Write dataclass records atomically, one JSON object a line, keys sorted."""
    # shallow rows: asdict's deep copy is slow
    write_text_atomic(path, (json_line({f.name: getattr(r, f.name) for f in fields(r)}) for r in records))


def write_json(path: Path, obj: Any) -> None:
    """Write a JSON document atomically, keys sorted (byte-identical for identical content)."""
    write_text_atomic(path, [json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1) + "\n"])


def check_out_dir(out: str | Path, overwrite: bool) -> Path:
    """``out`` as a Path, refused early (before any work) when it is a non-empty directory and not ``overwrite``."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise SuiteInputError(f"output directory '{out}' is not empty: choose another or pass --force.")
    return out


def write_corpus_dir(
    out: Path, pool: list[TextRecord], manifests: dict[int, list[PairRecord]], info: dict[str, Any], overwrite: bool
) -> Path:
    """Write a whole corpus (pool.jsonl, manifests/m{m}.jsonl, corpus.json) into a temporary sibling directory,
    then rename it to ``out``: a failure never leaves a half-written corpus. An ``out`` that became non-empty
    meanwhile is an error unless ``overwrite``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        write_jsonl(tmp / "pool.jsonl", pool)
        for m, rows in manifests.items():
            write_jsonl(manifest_path(tmp, m), rows)
        write_json(tmp / "corpus.json", info)
        if out.exists():
            if not overwrite and any(out.iterdir()):
                raise SuiteInputError(f"output directory '{out}' appeared during the build; nothing was written.")
            shutil.rmtree(out)
        os.chmod(tmp, 0o755)
        tmp.replace(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


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
    info = read_json(path)
    if not isinstance(info, dict):
        raise SuiteInputError(f"{path} should hold a JSON object, not a {type(info).__name__}.")
    if info.get("schema") != CORPUS_SCHEMA:
        raise SuiteInputError(f"{path}: schema {info.get('schema')!r} is not the supported {CORPUS_SCHEMA}.")
    for i, dose in enumerate(check_type(info.get("doses", []), "doses", str(path), list)):
        check_type(dose, f"doses[{i}]", str(path), int)
    return info
