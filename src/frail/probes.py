"""Base probes for the ``text_probe`` protocol (§2 "Two protocols, never merged"; §7 Step 4): statistics of
repeated solver draws on the base prompt alone (no twin is ever run), a model-access input that the ``text``
protocol does not have.

Features of one base, from its n scored draws (a draw's answer is the normalised answer of the ``glass_match``
scorer, grouped into the same answer with ``glass_inspect.answers.answers_match`` as the modal vote does; a draw
with no extractable answer is its own "no answer" category):

* ``accuracy``: fraction of draws correct;
* ``modal_share``: share of draws giving the most frequent answer category;
* ``answer_entropy``: Shannon entropy (nats) of the answer categories' shares;
* ``distinct_answers``: number of answer categories (no answer counting as one) / n;
* ``no_answer_rate``: fraction of draws with no answer.

Mean output tokens are not a feature: token usage is whatever the provider reports (absent for some, and shared by
the texts folded into one sample), so it is not a reliable per-draw quantity of a glass log.

File format (``frail probes --out base_probes.json``; JSON, written atomically)::

    {"format": "frail-base-probes", "version": 1,
     "solver": "<model name>",            # the scoring model whose draws these are
     "sources": ["<log or pair file>"],   # the inputs, as given
     "n_samples": 5,                      # draws per base (null when unknown: the from-pairs fallback)
     "features": ["accuracy", ...],       # the feature names every base carries
     "probes": {"<base_id>": {"accuracy": 0.8, ...}}}

Collection rules (``collect_probes_from_logs``): inspect keeps one EvalSample per (sample id, epoch), and each
holds that draw's ``glass_match`` score, or all the draws of the prompt when they were made inside the sample
(``-T layout=sample``; ``frail.logs.score_draws`` reads both); the draws of a base sample are those of its id, and they also
apply to a base riding along in the sample's ``same_text`` metadata. A base with an unscored draw (a machinery
failure) gets no probes, as its reduced Y is unscored too. A base scored in several logs takes the draws of the
first log that has it (pooling would give it more draws than the others). All bases must have the same number of
draws: entropy and the distinct-answer share are bounded by the draw count (entropy ≤ log n), so features from
different counts are not comparable and such logs are refused. Logs of two solvers and non-glass logs are refused.

``probes_from_pairs`` is the fallback when only pair files exist: ``accuracy`` from each base's
``y_base_epoch_mean`` (the other features need the per-draw answers), ``n_samples`` null.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, require
from causal_suite.files import sha256_file, write_text_atomic
from causal_suite.jsonl import read_json
from causal_suite.logs import LogReader
from frail.logs import SCORER, sample_contract, score_draws
from frail.pairs import PairObservation, require_one_solver
from glass_inspect.answers import answer_groups, answers_match

FORMAT = "frail-base-probes"
VERSION = 1
PROBE_FEATURES = ("accuracy", "modal_share", "answer_entropy", "distinct_answers", "no_answer_rate")
PAIR_FEATURES = ("accuracy",)
_FIELDS = ("solver", "sources", "n_samples", "features", "probes")


@dataclass
class ProbeSet:
    """The probes of one solver: features per base id, with where they came from."""

    solver: str
    sources: list[str]
    n_samples: int | None
    features: list[str]
    probes: dict[str, dict[str, float]]
    counts: dict[str, int] = field(default_factory=dict)  # collection exclusions (not written to the file)
    path: str | None = None  # the file it was read from
    sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "solver": self.solver,
            "sources": self.sources,
            "n_samples": self.n_samples,
            "features": self.features,
            "probes": self.probes,
        }

    def frame(self, base_ids: Iterable[str]) -> pd.DataFrame:
        """The feature matrix of ``base_ids`` (rows in that order); refuses base ids the file lacks."""
        ids = list(base_ids)
        missing = [b for b in ids if b not in self.probes]
        if missing:
            shown = ", ".join(repr(b) for b in missing[:3])
            raise SuiteInputError(
                f"probe file '{self.path}' lacks {len(missing)} of the {len(ids)} bases of the pairs (e.g. {shown}): "
                "collect probes for every base with `frail probes`."
            )
        return pd.DataFrame(
            [[self.probes[b][f] for f in self.features] for b in ids], index=ids, columns=self.features, dtype=float
        )

    def record(self, base_ids: Iterable[str]) -> dict[str, Any]:
        """What summary.json records: the file, its sha256, the solver and the coverage of the pairs' bases."""
        ids = set(base_ids)
        return {
            "path": self.path,
            "sha256": self.sha256,
            "solver": self.solver,
            "n_samples": self.n_samples,
            "features": self.features,
            "coverage": {
                "pair_bases": len(ids),
                "covered": len(ids & set(self.probes)),
                "probe_bases": len(self.probes),
            },
        }


@dataclass
class ProbeStandardiser:
    """Centre and scale the probe features with the training fold's mean and sd (saved with a text_probe model)."""

    features: list[str]
    mean: list[float]
    sd: list[float]

    @classmethod
    def fit(cls, train: pd.DataFrame) -> ProbeStandardiser:
        sd = train.std(axis=0, ddof=0).to_numpy(dtype=float)
        return cls(list(train.columns), train.mean(axis=0).to_list(), np.where(sd > 0, sd, 1.0).tolist())

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        values = frame[self.features].to_numpy(dtype=float)
        return ((values - np.array(self.mean)) / np.array(self.sd)).astype(np.float32)


def draw_features(answers: list[str | None], correct: list[float], suite: str) -> dict[str, float]:
    """The probe features of one base from its draws' normalised answers (None: no answer) and correctness."""
    n = len(answers)
    sizes = [len(g) for g in answer_groups(answers, lambda a, b: answers_match(a, b, suite))]  # the modal vote's groups
    shares = np.array(sizes, dtype=float) / n
    return {
        "accuracy": float(sum(correct)) / n,
        "modal_share": float(shares.max()),
        "answer_entropy": float(-(shares * np.log(shares)).sum()) + 0.0,
        "distinct_answers": len(sizes) / n,
        "no_answer_rate": sum(a is None for a in answers) / n,
    }


@dataclass
class _Draws:
    suite: str
    bases: list[str]
    answers: list[str | None] = field(default_factory=list)
    correct: list[float] = field(default_factory=list)
    unscored: bool = False


def _read_draws(path: Path) -> tuple[str, dict[str, _Draws]]:
    """(solver, the base draws of each sample id) of one glass log."""
    with LogReader(path) as reader:
        return reader.header.eval.model, _base_draws(path, reader)


def _base_draws(path: Path, reader: LogReader) -> dict[str, _Draws]:
    log = reader.header
    if log.status != "success":
        raise SuiteInputError(f"log '{path}' has status '{log.status}': only completed glass runs can be probed.")
    if not any(r.scorer == SCORER for r in (log.reductions or [])):
        raise SuiteInputError(f"log '{path}' is not from a glass task: it has no per-sample '{SCORER}' scores.")
    draws: dict[str, _Draws] = {}
    for sample in reader.samples(inputs=False):
        meta = sample_contract(path, sample)
        bases = [m["base_id"] for m in [meta, *meta.get("same_text", [])] if m.get("role") == "base"]
        if not bases:
            continue
        entry = draws.setdefault(str(sample.id), _Draws(suite=str(meta.get("suite") or ""), bases=bases))
        drawn = score_draws((sample.scores or {}).get(SCORER))
        if drawn is None:
            entry.unscored = True
            continue
        entry.answers.extend(answer for answer, _ in drawn)
        entry.correct.extend(correct for _, correct in drawn)
    return draws


def collect_probes_from_logs(paths: list[str | Path]) -> ProbeSet:
    """The base probes of one solver's glass logs (rules: module docstring)."""
    if not paths:
        raise SuiteInputError("no eval logs given: pass one or more glass .eval logs.")
    solver: str | None = None
    probes: dict[str, dict[str, float]] = {}
    origin: dict[str, tuple[int, str]] = {}  # base -> (draws, log)
    counts: Counter[str] = Counter()
    for p in paths:
        path = Path(p)
        log_solver, draws = _read_draws(path)
        if solver is not None and log_solver != solver:
            raise SuiteInputError(
                f"log '{path}' was scored by '{log_solver}' but an earlier log by '{solver}': probes are per solver."
            )
        solver = log_solver
        for entry in draws.values():
            if entry.unscored:
                counts["excluded_unscored_bases"] += len(entry.bases)
                continue
            for base in entry.bases:
                if base in probes:
                    counts["bases_already_probed"] += 1
                    continue
                probes[base] = draw_features(entry.answers, entry.correct, entry.suite)
                origin[base] = (len(entry.answers), str(path))
    if not probes:
        raise SuiteInputError(f"the logs ({', '.join(map(str, paths))}) hold no scored base sample to probe.")
    by_count = {n: (b, log) for b, (n, log) in origin.items()}
    if len(by_count) > 1:
        (n1, (b1, l1)), (n2, (b2, l2)) = sorted(by_count.items())[:2]
        raise SuiteInputError(
            f"the logs give bases different draw counts ({n1} for {b1!r} in '{l1}', {n2} for {b2!r} in '{l2}'): "
            "answer entropy and distinct-answer share are not comparable across draw counts; probe every base "
            "with the same number of epochs."
        )
    assert solver is not None
    return ProbeSet(
        solver=solver,
        sources=[str(p) for p in paths],
        n_samples=next(iter(by_count)),
        features=list(PROBE_FEATURES),
        probes=dict(sorted(probes.items())),
        counts=dict(counts),
    )


def probes_from_pairs(rows: list[PairObservation], sources: Iterable[str | Path] = ()) -> ProbeSet:
    """The fallback probes of pair rows: ``accuracy`` = each base's ``y_base_epoch_mean``; n_samples unknown."""
    rows = require_one_solver(rows)
    accuracy: dict[str, float] = {}
    lacking: list[str] = []
    for r in rows:
        if r.y_base_epoch_mean is None:
            if r.base_id not in lacking:
                lacking.append(r.base_id)
        elif accuracy.setdefault(r.base_id, r.y_base_epoch_mean) != r.y_base_epoch_mean:
            raise SuiteInputError(
                f"base {r.base_id!r} has different y_base_epoch_mean values across its pair rows: the pairs mix runs."
            )
    if lacking:
        n_bases = len({r.base_id for r in rows})
        raise SuiteInputError(
            f"the pair rows carry no y_base_epoch_mean for {len(lacking)} of {n_bases} bases (e.g. {lacking[0]!r}): "
            "probes from pairs need each base's epoch-mean accuracy; collect them from the glass logs instead."
        )
    solver = next((r.solver for r in rows if r.solver), None)
    if solver is None:
        raise SuiteInputError(
            "the pair rows name no solver (fields 'solver' / 'delta_per_model'): a probe file "
            "records whose draws it holds."
        )
    return ProbeSet(
        solver=solver,
        sources=[str(s) for s in sources],
        n_samples=None,
        features=list(PAIR_FEATURES),
        probes={b: {"accuracy": float(v)} for b, v in sorted(accuracy.items())},
    )


def write_probes(path: str | Path, probes: ProbeSet) -> Path:
    return write_text_atomic(path, json.dumps(probes.to_json(), indent=1, ensure_ascii=False) + "\n")


def read_probes(path: str | Path) -> ProbeSet:
    """Read and validate a base-probe file; every defect fails in one sentence naming the file, base and field."""
    p = require_file(path, "probe file")
    raw = read_json(p, f"probe file '{p}'")
    if not isinstance(raw, dict):
        raise SuiteInputError(f"probe file '{p}' does not hold a JSON object.")
    if raw.get("format") != FORMAT:
        raise SuiteInputError(f"probe file '{p}': field 'format' is {raw.get('format')!r}, not {FORMAT!r}.")
    if raw.get("version") != VERSION:
        raise SuiteInputError(
            f"probe file '{p}': field 'version' is {raw.get('version')!r}; this Frail reads {VERSION}."
        )
    missing = [k for k in _FIELDS if k not in raw]
    if missing:
        raise SuiteInputError(f"probe file '{p}' lacks field(s) {', '.join(missing)}.")
    features, probes, n = raw["features"], raw["probes"], raw["n_samples"]
    if not isinstance(raw["solver"], str) or not raw["solver"]:
        raise SuiteInputError(f"probe file '{p}': field 'solver' must name the scoring model.")
    if not isinstance(raw["sources"], list) or not all(isinstance(s, str) for s in raw["sources"]):
        raise SuiteInputError(f"probe file '{p}': field 'sources' must be a list of file names.")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise SuiteInputError(f"probe file '{p}': field 'n_samples' must be a positive integer or null, got {n!r}.")
    if (
        not isinstance(features, list)
        or not features
        or not all(isinstance(f, str) for f in features)
        or len(set(features)) != len(features)
    ):
        raise SuiteInputError(f"probe file '{p}': field 'features' must be a non-empty list of distinct names.")
    if not isinstance(probes, dict) or not probes:
        raise SuiteInputError(f"probe file '{p}': field 'probes' must map base ids to their features.")
    for base, values in probes.items():
        if not isinstance(values, dict):
            raise SuiteInputError(f"probe file '{p}', base {base!r}: the entry must map feature names to numbers.")
        for name in features:
            require(values, name, f"probe file '{p}', base {base!r}", NUMBER)
    return ProbeSet(
        solver=raw["solver"],
        sources=raw["sources"],
        n_samples=n,
        features=list(features),
        probes={b: {f: float(v[f]) for f in features} for b, v in probes.items()},
        path=str(p),
        sha256=sha256_file(p),
    )
