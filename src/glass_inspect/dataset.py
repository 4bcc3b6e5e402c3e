"""The datasets of the glass tasks: for ``glassgsm`` / ``glassmath`` the unique prompt texts over the chosen doses'
manifests (§3.2, §7 step 8); for ``noop_audit`` one adjudication prompt per distinct twin (``audit_samples``).

A base or twin that several dose manifests share is one sample, answered once; its ``doses`` metadata lists the
manifests it belongs to (``base_doses`` for a base). Identity twins repeat their base's text on purpose and
always stay samples of their own. Should two other pool records carry the same text, the first (in pool order)
is the sample and the others ride along in its ``same_text`` metadata (a list of their metadata), so that every
manifest pair still gets its Y without a second model call.

Sample id = the pool ``text_id``; metadata = ``TextRecord.sample_metadata()`` (the versioned contract) plus the
keys ``doses`` and ``same_text``. Everything is validated before any model is called.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Dataset, MemoryDataset, Sample

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from causal_suite.params import comma_list
from glass_inspect.corpus.audit import noop_prompts
from glass_inspect.corpus.contract import (
    IDENTITY,
    TWIN_FAMILIES,
    PairRecord,
    TextRecord,
    manifest_path,
    read_corpus_info,
    read_manifest,
    read_pool,
)


@dataclass(frozen=True)
class GlassSelection:
    """What a run covers: the corpus, its suite, the doses and the twin families (identity included or not)."""

    corpus: Path
    suite: str
    doses: tuple[int, ...]
    families: tuple[str, ...]
    identity: bool


def parse_families(families: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Twin families to include (default: every non-identity family); identity twins have their own switch."""
    if families is None:
        return TWIN_FAMILIES
    chosen = tuple(dict.fromkeys(comma_list(families)))
    unknown = [f for f in chosen if f not in TWIN_FAMILIES]
    if unknown or not chosen:
        raise SuiteInputError(
            f"families {families!r}: choose from {', '.join(TWIN_FAMILIES)} (identity twins: use identity=true)."
        )
    return chosen


def selected_pairs(selection: GlassSelection, pool: dict[str, TextRecord]) -> dict[int, list[PairRecord]]:
    """The chosen doses' manifest pairs of the chosen families, each validated against the pool."""
    info = read_corpus_info(selection.corpus)
    if info.get("suite") != selection.suite:
        raise SuiteInputError(
            f"{selection.corpus}/corpus.json: suite is {info.get('suite')!r}, but this task evaluates "
            f"{selection.suite!r}: pass a {selection.suite} corpus."
        )
    available = [int(d) for d in info.get("doses", [])]
    missing = [d for d in selection.doses if d not in available]
    if missing:
        raise SuiteInputError(
            f"{selection.corpus}: dose(s) {missing} are not in this corpus (it has {available}): choose among those."
        )
    wanted = set(selection.families) | ({IDENTITY} if selection.identity else set())
    chosen: dict[int, list[PairRecord]] = {}
    for dose in selection.doses:
        path = manifest_path(selection.corpus, dose)
        pairs = read_manifest(selection.corpus, dose)
        for n, pair in enumerate(pairs, 1):
            _check_pair(path, n, pair, dose, pool)
        chosen[dose] = [p for p in pairs if p.operator in wanted]
    return chosen


def _check_pair(path: Path, n: int, pair: PairRecord, dose: int, pool: dict[str, TextRecord]) -> None:
    where = f"{path}, record {n}"
    for field in ("base_id", "twin_id"):
        text_id = getattr(pair, field)
        if text_id not in pool:
            raise SuiteInputError(f"{where}: field {field} names text id {text_id!r}, which is not in pool.jsonl.")
    base, twin = pool[pair.base_id], pool[pair.twin_id]
    if base.role != "base":
        raise SuiteInputError(f"{where}: field base_id names {pair.base_id!r}, whose pool role is {base.role!r}.")
    if twin.role != "twin" or twin.base_id != pair.base_id or twin.operator != pair.operator:
        raise SuiteInputError(
            f"{where}: field twin_id names {pair.twin_id!r}, which the pool records as a {twin.role} of "
            f"{twin.base_id!r} by {twin.operator!r}, not a {pair.operator!r} twin of {pair.base_id!r}."
        )
    if pair.dose != dose:
        raise SuiteInputError(f"{where}: field dose is {pair.dose}, but the file is the manifest of dose {dose}.")


def load_pool(corpus: Path) -> dict[str, TextRecord]:
    """The pool by text id; an empty pool or a duplicate id is an error."""
    pool: dict[str, TextRecord] = {}
    for n, rec in enumerate(read_pool(corpus), 1):
        if rec.text_id in pool:
            raise SuiteInputError(f"{corpus}/pool.jsonl, record {n}: field text_id {rec.text_id!r} is a duplicate.")
        pool[rec.text_id] = rec
    if not pool:
        raise SuiteInputError(f"{corpus}/pool.jsonl holds no records: build the corpus again with `glass-build`.")
    return pool


def build_samples(pool: dict[str, TextRecord], pairs: dict[int, list[PairRecord]]) -> list[Sample]:
    """One sample per unique prompt text (identity twins always separate), in pool order."""
    doses: dict[str, set[int]] = defaultdict(set)
    for dose, dose_pairs in pairs.items():
        for p in dose_pairs:
            doses[p.base_id].add(dose)
            doses[p.twin_id].add(dose)
    samples: dict[str, Sample] = {}
    by_text: dict[str, str] = {}
    for text_id, rec in pool.items():
        if text_id not in doses:
            continue
        meta = rec.sample_metadata() | {"doses": sorted(doses[text_id])}
        owner = None if rec.operator == IDENTITY else by_text.get(rec.text)
        if owner is not None:
            samples[owner].metadata["same_text"].append(meta)  # type: ignore[index]  # built below with metadata
            continue
        meta["same_text"] = []
        if rec.operator != IDENTITY:
            by_text[rec.text] = text_id
        samples[text_id] = Sample(id=text_id, input=rec.text, target=rec.answer, metadata=meta)
    return list(samples.values())


def glass_dataset(selection: GlassSelection) -> tuple[Dataset, dict[str, Any]]:
    """The eval dataset and the ``glass`` task metadata (corpus, suite, manifests with sha256) of a selection."""
    pool = load_pool(selection.corpus)
    pairs = selected_pairs(selection, pool)
    samples = build_samples(pool, pairs)
    if not samples:
        raise SuiteInputError(
            f"{selection.corpus}: no pairs of families {list(selection.families)} in doses {list(selection.doses)}."
        )
    manifests = [
        {"dose": d, "path": str(path), "sha256": sha256_file(path)}
        for d, path in ((d, manifest_path(selection.corpus, d)) for d in selection.doses)
    ]
    pool_path = selection.corpus / "pool.jsonl"
    meta = {
        "corpus": str(selection.corpus),
        "suite": selection.suite,
        "doses": list(selection.doses),
        "families": list(selection.families),
        "identity": selection.identity,
        "pool": {"path": str(pool_path), "sha256": sha256_file(pool_path)},
        "manifests": manifests,
        "pairs": sum(len(p) for p in pairs.values()),
        "samples": len(samples),
    }
    name = f"glass{selection.suite}"
    return MemoryDataset(samples, name=name, location=str(selection.corpus)), meta


def audit_samples(pool: list[TextRecord]) -> list[Sample]:
    """One sample per distinct adjudication prompt (id = the first twin's text id): twins with identical base,
    twin text and gold (duplicate problems in a source) are adjudicated once."""
    samples: dict[str, Sample] = {}
    records = {r.text_id: r for r in pool}
    for text_id, prompt in noop_prompts(pool).items():
        if prompt not in samples:
            r = records[text_id]
            samples[prompt] = Sample(
                id=text_id,
                input=prompt,
                target=r.answer,
                metadata={"text_id": text_id, "base_id": r.base_id, "operator": r.operator},
            )
    return list(samples.values())
