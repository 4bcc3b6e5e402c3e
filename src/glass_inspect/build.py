"""``glass-build``: build a GlassGSM / GlassMATH corpus (§3.1-3.3, §7 steps 1-3) with no model call.

Pipeline: source rows (GSM8K ``question``/``answer`` with ``#### n``; MATH ``problem``/``solution`` (gold = last
``\\boxed{}``)/``level``/``type``) -> base problems with a declared complexity -> candidate twins per family
(``--surface-twins K`` distinct renamings and reorderings; for each injection size needed, up to
``--max-distractors M`` distractor twins, each checked by the structural audit) -> one manifest per dose ``m``:

* §3.2 multi-operator mix: per base, ``m`` twins shared as evenly as possible across the families present for it
  (entity_rename, sentence_reorder, irrelevant_context); the ``m mod F`` extra twins go to families drawn at random
  (seeded per base and dose); a family short of twins passes its shortfall on to families that have spare ones;
* a distractor twin's injection size is the available size (one of the doses) closest to that family's share of
  ``m`` (ties -> the smaller size), as upstream's resampler picks the sibling file closest to that share;
* MATH distractors come only from problems whose setup shares no maths symbol (``$x$``, ``$f$``) with the
  target, so an injected sentence never redefines one of its variables;
* every manifest also holds one identity twin per base (the placebo of §7 step 8), on top of the ``m``;
* the doses are resamples of one pool (seeded per base and dose), so a twin can appear at several doses.

The pool holds every base, its identity twin and every twin used by some manifest. Outputs are written to a
temporary directory and renamed into place, so a failed build never leaves a half-built DIR; identical inputs
and seed give byte-identical files.

Subcommands: ``glass-build audit LOG --pool DIR --out DIR2`` (apply a finished ``noop_audit`` log),
``glass-build export-pairs DIR --out FILE --dose m`` and ``glass-build import-pairs FILE... --suite S --out DIR``
(§3.4 LabeledPair JSONL), ``glass-build show DIR [--n 10]`` (random twins of each family beside their bases).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_extra
from causal_suite.jsonl import iter_jsonl, read_json
from glass_inspect.answers import SUITES, last_boxed, normalize_answer
from glass_inspect.audit import apply_audit, maths_symbols, structural_audit
from glass_inspect.complexity import gsm_complexity, math_complexity
from glass_inspect.corpus import (
    CORPUS_SCHEMA,
    FAMILIES,
    IDENTITY,
    TWIN_FAMILIES,
    PairRecord,
    TextRecord,
    read_labeled_pairs,
    read_pool,
    sha256_file,
    write_corpus_dir,
    write_labeled_pairs,
)
from glass_inspect.dataset import parse_doses
from glass_inspect.operators import (
    Twin,
    derive_seed,
    entity_rename,
    identity,
    irrelevant_context,
    segment,
    sentence_reorder,
)

DEFAULT_DOSES = (1, 3, 5, 7, 9)
BUILTIN_FILES = {"gsm": "data/gsm_builtin.jsonl", "math": "data/math_builtin.jsonl"}
_FILE_TYPES = (".jsonl", ".json", ".parquet")
_SHORT = {"entity_rename": "rename", "sentence_reorder": "reorder"}


# ------------------------------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class Problem:
    """One base problem read from a source record."""

    base_id: str
    text: str
    answer: str
    category: str
    level: int | None
    complexity: float


def _rows(source: str, split: str, hub_config: str | None) -> Iterator[tuple[int, Any]]:
    """(record number from 1, row) of a JSONL / JSON / parquet file, a saved ``datasets`` dir, or a hub id."""
    path = Path(source).expanduser()
    if path.is_dir():
        datasets = require_extra("datasets", "dev", "Reading a saved dataset")
        ds = datasets.load_from_disk(str(path))
        if isinstance(ds, datasets.DatasetDict):
            if split not in ds:
                raise SuiteInputError(f"dataset '{path}' has no split '{split}' (it has {', '.join(ds)}).")
            ds = ds[split]
        yield from enumerate(ds, 1)
    elif not path.exists():
        if "/" in source and not source.startswith((".", "/", "~")) and path.suffix not in _FILE_TYPES:
            datasets = require_extra("datasets", "dev", "Reading a hub dataset")
            yield from enumerate(datasets.load_dataset(source, hub_config, split=split), 1)
            return
        raise SuiteInputError(f"source '{source}' does not exist: pass a local file or a datasets hub id.")
    elif path.suffix == ".jsonl":
        yield from iter_jsonl(path)
    elif path.suffix == ".json":
        data = read_json(path)
        if isinstance(data, dict):
            data = data.get(split, data.get("data"))
        if not isinstance(data, list):
            raise SuiteInputError(f"{path}: expected a JSON list of records (or a dict holding one under '{split}').")
        yield from enumerate(data, 1)
    elif path.suffix == ".parquet":
        import pandas as pd

        try:
            rows = pd.read_parquet(path).to_dict(orient="records")
        except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise SuiteInputError(f"{path}: not a readable parquet file ({exc}).") from None
        yield from enumerate(rows, 1)
    else:
        raise SuiteInputError(f"source '{path}': unsupported file type (use .jsonl, .json, .parquet or a dataset dir).")


def _field(row: Any, name: str, where: str) -> str:
    value = row.get(name) if isinstance(row, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise _BadRow(f"{where}: field '{name}' is missing or empty")
    return value


class _BadRow(Exception):
    """A malformed source record (reported with its location; skipped or fatal by flag)."""


def parse_row(suite: str, row: Any, where: str, number: int) -> Problem:
    """One source record -> a Problem, or ``_BadRow`` naming the record and field."""
    if suite == "gsm":
        text, solution = _field(row, "question", where), _field(row, "answer", where)
        if "####" not in solution:
            raise _BadRow(f"{where}: field 'answer' has no '#### <number>' final answer")
        raw = solution.rsplit("####", 1)[1].strip()
        answer = normalize_answer(raw, "gsm")
        if answer is None:
            raise _BadRow(f"{where}: field 'answer' ends in a non-numeric final answer {raw!r}")
        return Problem(f"gsm-{number - 1}", text, answer, "gsm", None, gsm_complexity(text))
    text, solution = _field(row, "problem", where), _field(row, "solution", where)
    raw = last_boxed(solution)
    if raw is None:
        raise _BadRow(f"{where}: field 'solution' has no \\boxed{{}} answer")
    answer = normalize_answer(raw, "math") or raw.strip()
    level_raw = row.get("level_num", row.get("level"))
    try:
        level = int(str(level_raw).replace("Level", "").strip())
        complexity = math_complexity(level)
    except ValueError:
        raise _BadRow(f"{where}: field 'level' is {level_raw!r}, not 'Level 1'..'Level 5'") from None
    category = row.get("type") if isinstance(row.get("type"), str) else ""
    if not category:
        raise _BadRow(f"{where}: field 'type' (the MATH subject) is missing or empty")
    return Problem(f"math-{number - 1}", text, answer, category, level, complexity)


def load_source(
    suite: str, source: str, *, split: str = "test", hub_config: str | None = None, limit: int | None = None,
    skip_bad_rows: bool = False,
) -> tuple[list[Problem], list[dict[str, Any]]]:
    """Read and parse up to ``limit`` source records; a bad record stops the build unless ``skip_bad_rows``
    (then it is listed in the returned skips as ``{"record": n, "reason": ...}``)."""
    if suite not in SUITES:
        raise SuiteInputError(f"unknown suite {suite!r}: expected one of {', '.join(SUITES)}.")
    problems, skipped = [], []
    for number, row in _rows(source, split, hub_config):
        if limit is not None and number > limit:
            break
        try:
            problems.append(parse_row(suite, row, f"{source}, record {number}", number))
        except _BadRow as exc:
            if not skip_bad_rows:
                raise SuiteInputError(f"{exc} (pass --skip-bad-rows to skip and count such records).") from None
            skipped.append({"record": number, "reason": str(exc).split(": ", 1)[1]})
    if not problems:
        raise SuiteInputError(f"source '{source}' yielded no usable {suite} problem.")
    return problems, skipped


def _source_sha(source: str) -> str:
    path = Path(source).expanduser()
    if path.is_file():
        return sha256_file(path)
    if path.is_dir():
        h = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode() + b"\0" + sha256_file(f).encode())
        return h.hexdigest()
    return hashlib.sha256(f"hub:{source}".encode()).hexdigest()


# ------------------------------------------------------------------------------------------------ twins


class _Candidates:
    """The candidate twins of one base: surface families eagerly, distractors per injection size lazily."""

    def __init__(self, p: Problem, donors: Sequence[tuple[str, Sequence[str]]], seed: int, k: int, m: int,
                 tex: bool, stats: dict[str, Counter]):
        self.p, self.donors, self.seed, self.tries, self.tex, self.stats = p, donors, seed, m, tex, stats
        self.by_family: dict[str, list[tuple[str, Twin]]] = {
            "entity_rename": self._distinct("entity_rename", k, lambda s: entity_rename(p.text, s, tex=tex)),
            "sentence_reorder": self._distinct("sentence_reorder", k, lambda s: sentence_reorder(p.text, s, tex=tex)),
        }
        self.by_size: dict[int, list[tuple[str, Twin, tuple[str, ...]]]] = {}

    def _distinct(self, family: str, k: int, make) -> list[tuple[str, Twin]]:
        out, seen = [], {self.p.text}
        for attempt in range(3 * k):
            if len(out) == k:
                break
            twin = make(derive_seed(self.seed, self.p.base_id, family, attempt))
            if twin is None:
                break
            if twin.text not in seen:
                seen.add(twin.text)
                out.append((f"{self.p.base_id}-{_SHORT[family]}{len(out)}", twin))
        self.stats["candidates"][family] += len(out)
        if not out:
            self.stats["no_twin"][family] += 1
        return out

    def context(self, size: int) -> list[tuple[str, Twin, tuple[str, ...]]]:
        """Distractor twins of one injection size that pass the structural audit: (id, twin, flags)."""
        if size not in self.by_size:
            out, seen = [], {self.p.text}
            for j in range(self.tries):
                seed = derive_seed(self.seed, self.p.base_id, "irrelevant_context", size, j)
                twin = irrelevant_context(self.p.text, size, self.donors, seed, exclude=self.p.base_id, tex=self.tex)
                if twin is None:
                    break
                if twin.text in seen:
                    continue
                seen.add(twin.text)
                self.stats["candidates"]["irrelevant_context"] += 1
                verdict = structural_audit(self.p.text, twin.changes["inserted"], self.p.answer,
                                           tex=self.tex)
                self.stats["audit_dropped"].update(verdict.drops)
                self.stats["audit_flagged"].update(verdict.flags)
                if verdict.drops:
                    self.stats["audit_dropped"]["twins"] += 1
                    continue
                out.append((f"{self.p.base_id}-context{size}-{j}", twin, verdict.flags))
            self.by_size[size] = out
        return self.by_size[size]


def _shares(m: int, families: list[str], rng: random.Random) -> dict[str, int]:
    q, r = divmod(m, len(families))
    extra = set(rng.sample(families, r))
    return {f: q + (f in extra) for f in families}


def _mix(c: _Candidates, m: int, sizes: Sequence[int], rng: random.Random) -> list[tuple[str, str, int]]:
    """The (family, twin id, injection size) picks of one base at dose ``m`` (module docstring rules)."""
    families = [f for f in TWIN_FAMILIES[:2] if c.by_family[f]] + ["irrelevant_context"]
    while True:
        shares = _shares(m, families, rng)
        pools: dict[str, list[tuple[str, int]]] = {
            f: [(i, 0) for i, _ in c.by_family[f]] for f in families if f != "irrelevant_context"
        }
        if "irrelevant_context" in families:
            k = shares["irrelevant_context"]
            ranked = sorted(sizes, key=lambda s: (abs(s - k), s)) if k else []
            size = next((s for s in ranked if c.context(s)), None)
            if size is None and k:
                families.remove("irrelevant_context")
                if not families:
                    return []
                continue
            pools["irrelevant_context"] = [(i, size) for i, _, _ in c.context(size)] if size else []
        break
    picks: list[tuple[str, str, int]] = []
    spare: dict[str, list[tuple[str, int]]] = {}
    for f in families:
        order = list(pools[f])
        rng.shuffle(order)
        picks += [(f, i, s) for i, s in order[: shares[f]]]
        spare[f] = order[shares[f] :]
    short = m - len(picks)
    while short > 0 and any(spare.values()):
        for f in families:
            if short and spare[f]:
                i, s = spare[f].pop(0)
                picks.append((f, i, s))
                short -= 1
    return picks


def _record(p: Problem, suite: str, text_id: str, twin: Twin | None, flags: Sequence[str] = ()) -> TextRecord:
    common = dict(base_id=p.base_id, answer=p.answer, complexity_score=p.complexity, category=p.category,
                  suite=suite, level=p.level)
    if twin is None:
        return TextRecord(text_id=text_id, role="base", operator="base", injection_size=0, seed=0, text=p.text,
                          **common)
    return TextRecord(text_id=text_id, role="twin", operator=twin.operator, injection_size=twin.injection_size,
                      seed=twin.seed, text=twin.text, changes=twin.changes, audit_flags=list(flags), **common)


def build_corpus(
    suite: str, source: str | Path, out: str | Path, *, limit: int | None = None, seed: int = 0,
    doses: Sequence[int] = DEFAULT_DOSES, surface_twins: int = 10, max_distractors: int = 20,
    split: str = "test", hub_config: str | None = None, skip_bad_rows: bool = False, overwrite: bool = False,
    source_label: str | None = None,
) -> Path:
    """Build a corpus directory (pool.jsonl, manifests/m{m}.jsonl, corpus.json; layout in glass_inspect.corpus).

    Args:
        suite: ``gsm`` or ``math``.
        source: JSONL / JSON / parquet file, a dataset saved with ``save_to_disk``, or a datasets hub id.
        out: Output directory; must not exist unless ``overwrite``.
        limit: Use only the first ``limit`` source records.
        seed: Master seed of every operator and resampling draw.
        doses: The doses m (twins per base of each manifest); also the available injection sizes.
        surface_twins: Distinct candidates per base for entity_rename and sentence_reorder.
        max_distractors: Distractor candidates tried per base and injection size (before the audit).
        split: Split of a saved ``DatasetDict`` or hub dataset.
        hub_config: Config name of a hub dataset (``main`` for GSM8K).
        skip_bad_rows: Skip malformed records (counted in corpus.json) instead of stopping.
        overwrite: Replace an existing ``out``.
        source_label: What corpus.json names as the source (default: ``source`` as given).
    """
    doses = tuple(sorted({int(d) for d in doses}))
    if not doses or doses[0] < 1:
        raise SuiteInputError(f"doses must be positive integers, got {doses!r}.")
    out = _check_out(out, overwrite)
    problems, skipped = load_source(suite, str(source), split=split, hub_config=hub_config, limit=limit,
                                    skip_bad_rows=skip_bad_rows)
    tex = suite == "math"
    donors = [(p.base_id, segment(p.text, tex).setup) for p in problems]
    donors = [(i, s) for i, s in donors if s]
    symbols = [frozenset(maths_symbols(" ".join(s))) for _, s in donors] if tex else []
    stats: dict[str, Counter] = defaultdict(Counter)
    pool: list[TextRecord] = []
    manifests: dict[int, list[PairRecord]] = {m: [] for m in doses}
    sizes_used: dict[int, Counter] = {m: Counter() for m in doses}
    for p in problems:
        own = maths_symbols(p.text) if tex else set()
        usable = [d for d, sym in zip(donors, symbols) if not own & sym] if own else donors
        cands = _Candidates(p, usable, seed, surface_twins, max_distractors, tex, stats)
        twins = {i: (t, ()) for f in TWIN_FAMILIES[:2] for i, t in cands.by_family[f]}
        used: set[str] = set()
        for m in doses:
            rng = random.Random(derive_seed(seed, p.base_id, "mix", m))
            for family, twin_id, size in _mix(cands, m, doses, rng):
                manifests[m].append(PairRecord(p.base_id, twin_id, family, size, m))
                used.add(twin_id)
                if size:
                    sizes_used[m][str(size)] += 1
            manifests[m].append(PairRecord(p.base_id, f"{p.base_id}-identity", IDENTITY, 0, m))
        for found in cands.by_size.values():
            twins.update({i: (t, flags) for i, t, flags in found})
        if not any(cands.by_size.values()):
            stats["no_twin"]["irrelevant_context"] += 1
        pool.append(_record(p, suite, p.base_id, None))
        pool.append(_record(p, suite, f"{p.base_id}-identity", identity(p.text)))
        pool += [_record(p, suite, i, *twins[i]) for i in twins if i in used]  # candidate order: deterministic
    counts = _counts(problems, skipped, pool, manifests, sizes_used, stats)
    info = {
        "schema": CORPUS_SCHEMA, "suite": suite, "seed": seed, "doses": list(doses), "audited": False,
        "source": {"path": source_label or str(source), "sha256": _source_sha(str(source)), "split": split},
        "params": {"limit": limit, "surface_twins": surface_twins, "max_distractors": max_distractors,
                   "skip_bad_rows": skip_bad_rows},
        "counts": counts, "skipped_rows": skipped,
    }
    return write_corpus_dir(out, pool, manifests, info, overwrite)


def _check_out(out: str | Path, overwrite: bool) -> Path:
    """``out`` as a Path, refused early (before any work) when it is a non-empty directory and not ``overwrite``."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise SuiteInputError(f"output directory '{out}' is not empty: choose another or pass --force.")
    return out


def _counts(problems, skipped, pool, manifests, sizes_used, stats) -> dict[str, Any]:
    twins = [r for r in pool if r.role == "twin"]
    per_base = Counter(r.base_id for r in twins if r.operator != IDENTITY)
    pairs = {f"m{m}": dict(sorted(Counter(p.operator for p in rows).items()), total=len(rows))
             for m, rows in manifests.items()}
    flagged = Counter(f for r in twins for f in r.audit_flags)
    return {
        "bases": len(problems), "skipped_rows": len(skipped),
        "candidates": dict(sorted(stats["candidates"].items())),
        "bases_without_candidates": {f: stats["no_twin"][f] for f in TWIN_FAMILIES},
        "structural_audit": {"dropped": dict(sorted(stats["audit_dropped"].items())),
                             "flagged_candidates": dict(sorted(stats["audit_flagged"].items())),
                             "flagged_in_pool": dict(sorted(flagged.items()))},
        "pool_twins": dict(sorted(Counter(r.operator for r in twins).items())),
        "unique_twins_per_base": round(sum(per_base.values()) / len(problems), 3),
        "pairs": pairs,
        "injection_sizes": {f"m{m}": dict(sorted(c.items(), key=lambda kv: int(kv[0]))) for m, c in sizes_used.items()},
    }


# --------------------------------------------------------------------------------------------- built-ins


def _code_key(suite: str) -> str:
    h = hashlib.sha256()
    pkg = resources.files("glass_inspect")
    for name in (BUILTIN_FILES[suite], "data/names.json", "operators.py", "audit.py", "build.py",
                 "complexity.py", "corpus.py", "answers.py"):
        h.update(name.encode() + b"\0" + pkg.joinpath(name).read_bytes())
    return h.hexdigest()[:16]


def default_corpus(suite: str) -> Path:
    """The corpus of the built-in problems of ``suite``, built on first use into the cache
    (``$CAUSAL_SUITE_CACHE`` or ``~/.cache/causal-inspect-suite``), keyed by a hash of the data and code."""
    from causal_suite.offline_model import cache_dir

    if suite not in SUITES:
        raise SuiteInputError(f"unknown suite {suite!r}: expected one of {', '.join(SUITES)}.")
    target = cache_dir() / "glass" / f"{suite}-{_code_key(suite)}"
    if (target / "corpus.json").exists():
        return target
    with resources.as_file(resources.files("glass_inspect").joinpath(BUILTIN_FILES[suite])) as src:
        try:
            build_corpus(suite, src, target, source_label=f"builtin:{BUILTIN_FILES[suite]}")
        except (SuiteInputError, OSError):
            if not (target / "corpus.json").exists():  # another process may have won the race
                raise
    return target


# ------------------------------------------------------------------------------------------- LabeledPair


def import_labeled_pairs(
    files: Sequence[str | Path], suite: str, out: str | Path, *, answers_source: str | None = None,
    overwrite: bool = False,
) -> Path:
    """A corpus from §3.4 LabeledPair JSONL files (e.g. released upstream mix files, one per dose).

    The gold answer of a base is the rows' ``answer`` key, else looked up by exact base text in
    ``answers_source`` (a GSM8K / MATH source file); a base with neither is an error naming the file and base.
    """
    lookup: dict[str, Problem] = {}
    if answers_source:
        lookup = {p.text: p for p in load_source(suite, answers_source, skip_bad_rows=True)[0]}
    texts: dict[str, TextRecord] = {}
    manifests: dict[int, list[PairRecord]] = defaultdict(list)
    for f in files:
        for row in read_labeled_pairs(f):
            answer = row.get("answer") or (lookup[row["base_text"]].answer if row["base_text"] in lookup else None)
            if answer is None:
                raise SuiteInputError(f"{f}: base '{row['base_id']}' has no 'answer' and is not in --answers.")
            known = lookup.get(row["base_text"])
            level = known.level if known else None
            common = dict(base_id=row["base_id"], answer=answer, suite=suite, level=level,
                          complexity_score=float(row.get("complexity_score") or 0.0),
                          category=row.get("category") or (known.category if known else suite))
            texts.setdefault(row["base_id"], TextRecord(text_id=row["base_id"], role="base", operator="base",
                                                        injection_size=0, seed=0, text=row["base_text"], **common))
            texts.setdefault(row["twin_id"], TextRecord(text_id=row["twin_id"], role="twin", operator=row["family"],
                                                        injection_size=row["injection_size"], seed=0,
                                                        text=row["twin_text"], **common))
            manifests[row["dose"]].append(PairRecord(row["base_id"], row["twin_id"], row["family"],
                                                     row["injection_size"], row["dose"]))
    out = _check_out(out, overwrite)
    pool = list(texts.values())
    info = {"schema": CORPUS_SCHEMA, "suite": suite, "seed": None, "doses": sorted(manifests), "audited": False,
            "source": {"path": ",".join(str(f) for f in files),
                       "sha256": hashlib.sha256("".join(sha256_file(f) for f in files).encode()).hexdigest()},
            "params": {"imported": "labeled_pairs"},
            "counts": {"bases": sum(r.role == "base" for r in pool),
                       "pool_twins": dict(sorted(Counter(r.operator for r in pool if r.role == "twin").items())),
                       "pairs": {f"m{m}": len(v) for m, v in sorted(manifests.items())}},
            "skipped_rows": []}
    return write_corpus_dir(out, pool, dict(sorted(manifests.items())), info, overwrite)


def show_twins(corpus: str | Path, n: int = 10, seed: int = 0) -> str:
    """``n`` random twins of each family of a corpus, each printed beside its base (for eyeballing)."""
    pool = read_pool(corpus)
    bases = {r.text_id: r for r in pool if r.role == "base"}
    rng = random.Random(seed)
    lines = []
    for family in FAMILIES:
        twins = [r for r in pool if r.operator == family]
        for r in rng.sample(twins, min(n, len(twins))):
            lines += [f"=== {family} {r.text_id} (size {r.injection_size}, flags {r.audit_flags or '-'})",
                      f"BASE: {bases[r.base_id].text}", f"TWIN: {r.text}",
                      f"CHANGES: {json.dumps(r.changes, ensure_ascii=False)}", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- CLI


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="glass-build",
        description="Build a GlassGSM / GlassMATH corpus (no model calls). "
        "Subcommands: audit, export-pairs, import-pairs, show (see `glass-build audit -h`).",
    )
    ap.add_argument("--suite", required=True, choices=SUITES)
    ap.add_argument("--source", required=True, help="JSONL/JSON/parquet file, save_to_disk dir, or hub id")
    ap.add_argument("--out", required=True, help="output directory (must be new or empty unless --force)")
    ap.add_argument("--limit", type=int, default=None, help="use only the first N source records")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--doses", default=",".join(map(str, DEFAULT_DOSES)), help="comma-separated doses m")
    ap.add_argument("--surface-twins", type=int, default=10, help="candidates per base for rename / reorder")
    ap.add_argument("--max-distractors", type=int, default=20, help="distractor candidates per base and size")
    ap.add_argument("--split", default="test", help="split of a dataset dir or hub dataset")
    ap.add_argument("--hub-config", default=None, help="hub dataset config (GSM8K: main)")
    ap.add_argument("--skip-bad-rows", action="store_true",
                    help="skip malformed source records (counted in corpus.json) instead of stopping")
    ap.add_argument("--force", action="store_true", help="replace an existing output directory")
    return ap


def _sub_parser(cmd: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=f"glass-build {cmd}")
    if cmd == "audit":
        ap.add_argument("log", help="a finished noop_audit eval log")
        ap.add_argument("--pool", required=True, help="the corpus directory the audit ran on")
        ap.add_argument("--out", required=True, help="new directory for the filtered copy")
    elif cmd == "show":
        ap.add_argument("corpus")
        ap.add_argument("--n", type=int, default=10, help="twins per family")
        ap.add_argument("--seed", type=int, default=0)
    elif cmd == "export-pairs":
        ap.add_argument("corpus")
        ap.add_argument("--out", required=True, help="LabeledPair JSONL file to write")
        ap.add_argument("--dose", type=int, required=True)
    else:
        ap.add_argument("files", nargs="+", help="LabeledPair JSONL files (dose from 'dose' or _m<k>_ in the name)")
        ap.add_argument("--suite", required=True, choices=SUITES)
        ap.add_argument("--out", required=True)
        ap.add_argument("--answers", default=None, help="GSM8K / MATH source to take gold answers from")
        ap.add_argument("--force", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in ("audit", "export-pairs", "import-pairs", "show"):
            args = _sub_parser(argv[0]).parse_args(argv[1:])
            if argv[0] == "show":
                print(show_twins(args.corpus, args.n, args.seed))
            elif argv[0] == "audit":
                drops = apply_audit(args.log, args.pool, args.out)
                print(f"wrote {args.out}; dropped by the No-Op audit: {json.dumps(drops, sort_keys=True)}")
            elif argv[0] == "export-pairs":
                n = write_labeled_pairs(args.corpus, args.dose, args.out)
                print(f"wrote {n} LabeledPair rows to {args.out}")
            else:
                import_labeled_pairs(args.files, args.suite, args.out, answers_source=args.answers,
                                     overwrite=args.force)
                print(f"wrote {args.out}")
            return 0
        args = _build_parser().parse_args(argv)
        doses = parse_doses(args.doses)
        t0 = time.perf_counter()
        out = build_corpus(args.suite, args.source, args.out, limit=args.limit, seed=args.seed, doses=doses,
                           surface_twins=args.surface_twins, max_distractors=args.max_distractors, split=args.split,
                           hub_config=args.hub_config, skip_bad_rows=args.skip_bad_rows, overwrite=args.force)
        wall = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        counts = json.loads((out / "corpus.json").read_text(encoding="utf-8"))["counts"]
        print(json.dumps(counts, indent=1, sort_keys=True))
        print(f"wrote {out} in {wall:.1f} s (peak RSS {peak:.0f} MiB)")
        return 0
    except SuiteInputError as exc:
        print(f"glass-build: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
