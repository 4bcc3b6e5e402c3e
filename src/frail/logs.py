"""glass_inspect eval logs (+ the corpus manifests) -> (base, twin, dose) observations (§1, §3.2, §7 step 5).

Each sample of a glass log is one unique prompt text (a base or a twin); its id is the pool ``text_id`` and its
metadata is ``TextRecord.sample_metadata()``. Y(text) is the per-sample reduced score of the ``glass_match`` scorer
(modal answer over the epochs, exact match: 1.0 / 0.0); an unscored sample (NaN or missing) is excluded and counted.
Dose membership lives only in the manifests the run covered (task metadata ``{"glass": {"corpus", "suite",
"manifests": [{"dose", "path", "sha256"}]}}``); ``--corpus`` replaces the recorded corpus when the log lacks it or
the corpus moved. One observation is written per manifest row whose base and twin were both scored.

Both layouts of the draws read the same: one draw per epoch (each EvalSample's ``glass_match`` score is one draw,
``Score.answer`` / ``Score.value``) or all draws inside the sample (``-T layout=sample``: the score's metadata
``answers`` / ``correct`` lists, draw order). ``score_draws`` turns either into the draws; Y is the reduced score
in both, and ``y_base_epoch_mean`` is the fraction of the base's draws that are correct.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.files import sha256_file
from causal_suite.logs import LogReader, LogSample
from causal_suite.scores import as_float
from frail.pairs import PairObservation, operator_with_dose
from glass_inspect.corpus import (
    METADATA_VERSION,
    TextRecord,
    manifest_path,
    read_corpus_info,
    read_manifest,
    read_pool,
)

SCORER = "glass_match"
_CONTRACT_KEYS = ("metadata_version", "text_id", "base_id", "role", "operator", "complexity_score")


@dataclass
class LogScores:
    """What one or more glass logs say: Y per text id, the epoch-mean on bases, the solver, the manifests run."""

    solver: str
    y: dict[str, float] = field(default_factory=dict)
    epoch_mean: dict[str, float] = field(default_factory=dict)
    unscored: set[str] = field(default_factory=set)
    manifests: dict[int, dict[str, Any]] = field(default_factory=dict)
    corpus: str | None = None


def score_draws(score: Any) -> list[tuple[str | None, float]] | None:
    """The draws one per-epoch ``glass_match`` score holds, as (normalised answer, correct) in draw order: its own
    draw (epochs layout), or the ``answers`` / ``correct`` lists of an in-sample score; None when unscored."""
    value = as_float(score.value) if score is not None else None
    if value is None:
        return None
    meta = score.metadata or {}
    answers, correct = meta.get("answers"), meta.get("correct")
    if isinstance(answers, list) and isinstance(correct, list) and len(answers) == len(correct):
        return [(None if a is None else str(a), float(c)) for a, c in zip(answers, correct, strict=False)]
    return [(None if score.answer is None else str(score.answer), value)]


def _glass_metadata(log: Any) -> dict[str, Any] | None:
    for holder in (getattr(log.eval, "metadata", None), getattr(log, "metadata", None)):
        if isinstance(holder, dict) and isinstance(holder.get("glass"), dict):
            return holder["glass"]
    return None


def sample_contract(path: Path, sample: LogSample) -> dict[str, Any]:
    """The sample's glass metadata, checked against the contract (``glass_inspect.corpus``)."""
    meta = sample.metadata or {}
    missing = [k for k in _CONTRACT_KEYS if k not in meta]
    if missing:
        raise SuiteInputError(
            f"log '{path}', sample {sample.id!r}: metadata lacks {', '.join(missing)} (the glass sample-metadata "
            "contract): the log is not from a glass task."
        )
    if meta["metadata_version"] != METADATA_VERSION:
        raise SuiteInputError(
            f"log '{path}', sample {sample.id!r}: metadata_version {meta['metadata_version']!r} is not the "
            f"supported {METADATA_VERSION}."
        )
    return meta


def _read_one(path: Path, scores: LogScores | None) -> LogScores:
    """Header first (status, solver, task metadata, reduced scores), then the samples streamed without transcripts."""
    with LogReader(path) as reader:
        return _read_scores(path, reader, scores)


def _read_scores(path: Path, reader: LogReader, scores: LogScores | None) -> LogScores:
    log = reader.header
    if log.status != "success":
        raise SuiteInputError(f"log '{path}' has status '{log.status}': only completed glass runs can be read.")
    solver = log.eval.model
    if scores is None:
        scores = LogScores(solver=solver)
    elif solver != scores.solver:
        raise SuiteInputError(
            f"log '{path}' was scored by '{solver}' but an earlier log by '{scores.solver}': "
            "the logs mix solvers, and CCD is defined per solver."
        )
    reductions = [r for r in (log.reductions or []) if r.scorer == SCORER]
    if not reductions:
        raise SuiteInputError(f"log '{path}' is not from a glass task: it has no per-sample '{SCORER}' scores.")
    glass = _glass_metadata(log)
    if glass is not None:
        scores.corpus = scores.corpus or glass.get("corpus")
        for entry in glass.get("manifests") or []:
            scores.manifests[int(entry["dose"])] = entry
    text_ids: set[str] = set()
    per_epoch: dict[str, list[float]] = {}
    for sample in reader.samples(inputs=False):
        sample_contract(path, sample)
        text_ids.add(str(sample.id))
        draws = score_draws((sample.scores or {}).get(SCORER))
        if draws is not None:
            per_epoch.setdefault(str(sample.id), []).extend(correct for _, correct in draws)
    reduced = {str(s.sample_id): as_float(s.value) for s in reductions[0].samples}
    for text_id in text_ids:
        value = reduced.get(text_id)
        if value is None:
            if text_id not in scores.y:  # scored in another log: that score stands
                scores.unscored.add(text_id)
            continue
        previous = scores.y.get(text_id)
        if previous is not None and previous != value:
            raise SuiteInputError(f"log '{path}': text {text_id!r} has Y={value} here but Y={previous} in another log.")
        scores.y[text_id] = value
        scores.unscored.discard(text_id)
        if per_epoch.get(text_id):
            scores.epoch_mean[text_id] = sum(per_epoch[text_id]) / len(per_epoch[text_id])
    return scores


def read_glass_logs(paths: list[str | Path]) -> LogScores:
    """Read glass eval logs of one solver; refuse non-glass logs, broken contracts and mixed solvers."""
    if not paths:
        raise SuiteInputError("no eval logs given: pass one or more glass .eval logs.")
    scores = None
    for p in paths:
        scores = _read_one(Path(p), scores)
    assert scores is not None
    return scores


def _manifest_rows(corpus: Path, scores: LogScores) -> dict[int, list]:
    info = read_corpus_info(corpus)
    doses = sorted(scores.manifests) or [int(d) for d in info.get("doses", [])]
    out = {}
    for dose in doses:
        path = manifest_path(corpus, dose)
        recorded = scores.manifests.get(dose, {}).get("sha256")
        if recorded and path.exists() and sha256_file(path) != recorded:
            raise SuiteInputError(
                f"manifest '{path}' differs from the one the run covered (sha256 mismatch): pass the corpus the log was run on."
            )
        out[dose] = read_manifest(corpus, dose)
    return out


def observations_from_logs(
    log_paths: list[str | Path], corpus: str | Path | None = None
) -> tuple[list[PairObservation], dict[str, Any]]:
    """One observation per manifest (base, twin, dose) whose base and twin were both scored, and the exclusion counts."""
    scores = read_glass_logs(log_paths)
    corpus_dir = corpus or scores.corpus
    if not corpus_dir:
        raise SuiteInputError("the logs record no glass corpus: pass the corpus directory with --corpus.")
    corpus_dir = require_file(corpus_dir, "glass corpus directory")
    records = read_pool(corpus_dir)
    texts: dict[str, TextRecord] = {r.text_id: r for r in records}
    bases: dict[str, TextRecord] = {r.base_id: r for r in records if r.role == "base"}
    counts: Counter[str] = Counter()
    rows: list[PairObservation] = []
    for dose, pairs in sorted(_manifest_rows(corpus_dir, scores).items()):
        for pair in pairs:
            if pair.base_id not in bases or pair.twin_id not in texts:
                raise SuiteInputError(
                    f"manifest m{dose} of '{corpus_dir}' names base {pair.base_id!r} or twin {pair.twin_id!r}, "
                    "absent from pool.jsonl."
                )
            base, twin = bases[pair.base_id], texts[pair.twin_id]
            ids = (base.text_id, twin.text_id)
            status = [scores.y.get(t) for t in ids]
            if any(t in scores.unscored for t in ids):
                counts["excluded_unscored"] += 1
                continue
            if None in status:
                counts["excluded_not_in_logs"] += 1
                continue
            rows.append(
                PairObservation(
                    base_id=pair.base_id,
                    twin_id=pair.twin_id,
                    operator=operator_with_dose(pair.operator, dose),
                    family=pair.operator,
                    dose=dose,
                    complexity_score=base.complexity_score,
                    base_text=base.text,
                    twin_text=twin.text,
                    y_base=float(status[0]),  # type: ignore[arg-type]  # None in status was skipped above
                    y_twin=float(status[1]),  # type: ignore[arg-type]
                    category=base.category,
                    injection_size=pair.injection_size,
                    solver=scores.solver,
                    y_base_epoch_mean=scores.epoch_mean.get(base.text_id),
                )
            )
    counts["written"] = len(rows)
    counts["unscored_texts"] = len(scores.unscored)
    if not rows:
        raise SuiteInputError(
            f"no (base, twin) pair of corpus '{corpus_dir}' has both texts scored in the logs: check --corpus."
        )
    return rows, dict(counts)
