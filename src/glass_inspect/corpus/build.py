"""Building a GlassGSM / GlassMATH corpus (§3.1-3.3, §7 steps 1-3) with no model call (``glass-build``).

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
* a base whose query asks about money without naming anything of its setup ("how much do you have to pay?",
  ``operators.distract.open_money_query``) gets no distractor stating money (a price could join the bill);
  counted in corpus.json ``counts.guards``;
* every manifest also holds one identity twin per base (the placebo of §7 step 8), on top of the ``m``;
* the doses are resamples of one pool (seeded per base and dose), so a twin can appear at several doses.

The pool holds every base, its identity twin and every twin used by some manifest. Outputs are written to a
temporary directory and renamed into place, so a failed build never leaves a half-built DIR; identical inputs
and seed give byte-identical files.

The command line is ``glass_inspect.corpus.cli``; reading the sources is ``sources.py``, the built-in corpus
``builtin.py``.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError
from glass_inspect.corpus.audit import distractor_filter, structural_audit
from glass_inspect.corpus.contract import (
    CORPUS_SCHEMA,
    DEFAULT_DOSES,
    IDENTITY,
    TWIN_FAMILIES,
    PairRecord,
    TextRecord,
    check_out_dir,
    write_corpus_dir,
)
from glass_inspect.corpus.operators import (
    NEEDS_ADJUDICATION,
    Twin,
    adjudicated_reorder,
    derive_seed,
    donor_run,
    entity_rename,
    identity,
    irrelevant_context,
    mentions_money,
    open_money_query,
    segment,
    sentence_reorder,
    setup_sentence,
)
from glass_inspect.corpus.sources import Problem, load_source, source_sha

_SHORT = {"entity_rename": "rename", "sentence_reorder": "reorder"}
REORDER_MODES = ("graph", "adjudicated")


def _surface_flags(twin: Twin) -> tuple[str, ...]:
    return (NEEDS_ADJUDICATION,) if twin.changes.get(NEEDS_ADJUDICATION) else ()


# ------------------------------------------------------------------------------------------------ twins


class _Candidates:
    """The candidate twins of one base: surface families eagerly, distractors per injection size lazily."""

    def __init__(
        self,
        p: Problem,
        donors: Sequence[tuple[str, Sequence[str]]],
        seed: int,
        k: int,
        m: int,
        tex: bool,
        stats: dict[str, Counter],
        reorder: str = "graph",
    ):
        self.p, self.donors, self.seed, self.tries, self.tex, self.stats = p, donors, seed, m, tex, stats
        reorder_op = adjudicated_reorder if reorder == "adjudicated" else sentence_reorder
        self.by_family: dict[str, list[tuple[str, Twin]]] = {
            "entity_rename": self._distinct(
                "entity_rename", k, lambda s: entity_rename(p.text, s, tex=tex, answer=p.answer)
            ),
            # MATH: no graph reordering (a hand audit found most MATH reorders defective: procedures, dialogue,
            # LaTeX environments, examples before definitions); counted as bases without a reorder twin. The
            # adjudicated route reorders MATH too (the adjudicator drops what changes the answer).
            "sentence_reorder": []
            if tex and reorder == "graph"
            else self._distinct("sentence_reorder", k, lambda s: reorder_op(p.text, s, tex=tex)),
        }
        if tex and reorder == "graph":
            self.stats["no_twin"]["sentence_reorder"] += 1
        self.by_size: dict[int, list[tuple[str, Twin, tuple[str, ...]]]] = {}
        self.accept = distractor_filter(p.text, p.answer, tex=tex)
        if open_money_query(p.text, tex):
            # the query asks about money without naming what is paid for: no distractor may state money
            self.stats["guards"]["open_money_query"] += 1
            audit_ok = self.accept
            self.accept = lambda s: audit_ok(s) and not mentions_money(s, tex)

    def _distinct(self, family: str, k: int, make) -> list[tuple[str, Twin]]:
        out: list[tuple[str, Twin]] = []
        seen = {self.p.text}
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
                twin = irrelevant_context(
                    self.p.text, size, self.donors, seed, exclude=self.p.base_id, tex=self.tex, accept=self.accept
                )
                if twin is None:
                    break
                if twin.text in seen:
                    continue
                seen.add(twin.text)
                self.stats["candidates"]["irrelevant_context"] += 1
                verdict = structural_audit(self.p.text, twin.changes["inserted"], self.p.answer, tex=self.tex)
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
    common: dict[str, Any] = dict(
        base_id=p.base_id,
        answer=p.answer,
        complexity_score=p.complexity,
        category=p.category,
        suite=suite,
        level=p.level,
    )
    if twin is None:
        return TextRecord(
            text_id=text_id, role="base", operator="base", injection_size=0, seed=0, text=p.text, **common
        )
    return TextRecord(
        text_id=text_id,
        role="twin",
        operator=twin.operator,
        injection_size=twin.injection_size,
        seed=twin.seed,
        text=twin.text,
        changes=twin.changes,
        audit_flags=list(flags),
        **common,
    )


def _gather_donors(
    problems: list[Problem], suite: str, donor_sources: Sequence[str | Path], own_donors: bool, split: str
) -> tuple[list[tuple[str, tuple[str, ...]]], dict[str, Any]]:
    """The problems that lend distractor sentences, as (donor id, setup sentences) (the source's own problems when
    ``own_donors``, then each of ``donor_sources``; those lending none left out), and corpus.json's
    ``counts.donors``."""
    tex = suite == "math"
    donor_problems = list(problems) if own_donors else []
    donor_info: list[dict[str, Any]] = []
    donors = [(q.base_id, donor_run(segment(q.text, tex).setup, tex)) for q in donor_problems]
    for extra in donor_sources:
        donor_suite, path = _donor_spec(str(extra), suite)
        more, _ = load_source(donor_suite, path, split=split, skip_bad_rows=True)
        tag = f"donor{len(donor_info)}"
        donors += [(f"{tag}-{q.base_id}", _lend(q.text, donor_suite, tex)) for q in more]
        donor_info.append(
            {"suite": donor_suite, "path": Path(path).name, "sha256": source_sha(path), "problems": len(more)}
        )
        donor_problems += more
    donors = [(i, s) for i, s in donors if s]
    counts = {
        "own_problems": own_donors,
        "problems": len(donor_problems),
        "lending": len(donors),
        "sentences": sum(len(s) for _, s in donors),
        "extra_sources": donor_info,
    }
    return donors, counts


def _base_records(
    p: Problem,
    suite: str,
    cands: _Candidates,
    seed: int,
    doses: Sequence[int],
    manifests: dict[int, list[PairRecord]],
    sizes_used: dict[int, Counter],
    stats: dict[str, Counter],
) -> list[TextRecord]:
    """The pool records of one base: itself, its identity twin and every twin a manifest uses, in candidate order;
    its pairs of each dose go into ``manifests``, the injection sizes they use into ``sizes_used``."""
    twins: dict[str, tuple[Twin, tuple[str, ...]]] = {
        i: (t, _surface_flags(t)) for f in TWIN_FAMILIES[:2] for i, t in cands.by_family[f]
    }
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
    records = [_record(p, suite, p.base_id, None), _record(p, suite, f"{p.base_id}-identity", identity(p.text))]
    return records + [_record(p, suite, i, *twins[i]) for i in twins if i in used]  # candidate order: deterministic


def build_corpus(
    suite: str,
    source: str | Path,
    out: str | Path,
    *,
    limit: int | None = None,
    seed: int = 0,
    doses: Sequence[int] = DEFAULT_DOSES,
    surface_twins: int = 10,
    max_distractors: int = 20,
    split: str = "test",
    hub_config: str | None = None,
    skip_bad_rows: bool = False,
    overwrite: bool = False,
    source_label: str | None = None,
    donor_sources: Sequence[str | Path] = (),
    own_donors: bool | None = None,
    reorder: str = "graph",
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
        donor_sources: Sources whose setup sentences serve as distractors (GSM8K train for both suites);
            ``gsm:PATH`` lends GSM8K sentences to a MATH build (currency written out). Recorded in corpus.json
            by name and sha256.
        own_donors: Whether the source's own problems lend distractors too. Default: only when no
            ``donor_sources`` are given, so a build from a test set with train donors never splices in
            sentences of other test problems (which the model also meets as bases); corpus.json
            ``counts.donors.own_problems`` says which.
        reorder: ``graph`` (the constraint graph's safe orders, ``operators.reorder``) or ``adjudicated`` (every
            order the certain graph admits, each twin flagged ``needs_adjudication``: the corpus is evaluated
            only after ``noop_audit`` + ``glass-build audit``; ``operators.adjudicated``).
    """
    if reorder not in REORDER_MODES:
        raise SuiteInputError(f"reorder {reorder!r}: choose {' or '.join(REORDER_MODES)}.")
    doses = tuple(sorted({int(d) for d in doses}))
    if not doses or doses[0] < 1:
        raise SuiteInputError(f"doses must be positive integers, got {doses!r}.")
    out = check_out_dir(out, overwrite)
    problems, skipped = load_source(
        suite, str(source), split=split, hub_config=hub_config, limit=limit, skip_bad_rows=skip_bad_rows
    )
    tex = suite == "math"
    if own_donors is None:
        own_donors = not donor_sources
    donors, donor_counts = _gather_donors(problems, suite, donor_sources, own_donors, split)
    stats: dict[str, Counter] = defaultdict(Counter)
    pool: list[TextRecord] = []
    manifests: dict[int, list[PairRecord]] = {m: [] for m in doses}
    sizes_used: dict[int, Counter] = {m: Counter() for m in doses}
    for p in problems:
        cands = _Candidates(p, donors, seed, surface_twins, max_distractors, tex, stats, reorder)
        pool += _base_records(p, suite, cands, seed, doses, manifests, sizes_used, stats)
    counts = _counts(problems, skipped, pool, manifests, sizes_used, stats)
    counts["donors"] = donor_counts
    info = {
        "schema": CORPUS_SCHEMA,
        "suite": suite,
        "seed": seed,
        "doses": list(doses),
        "audited": False,
        "source": {"path": source_label or str(source), "sha256": source_sha(str(source)), "split": split},
        "params": {
            "limit": limit,
            "surface_twins": surface_twins,
            "max_distractors": max_distractors,
            "own_donors": own_donors,
            "reorder": reorder,
            "skip_bad_rows": skip_bad_rows,
        },
        "counts": counts,
        "skipped_rows": skipped,
    }
    return write_corpus_dir(out, pool, manifests, info, overwrite)


def _counts(problems, skipped, pool, manifests, sizes_used, stats) -> dict[str, Any]:
    twins = [r for r in pool if r.role == "twin"]
    per_base = Counter(r.base_id for r in twins if r.operator != IDENTITY)
    pairs = {
        f"m{m}": dict(sorted(Counter(p.operator for p in rows).items()), total=len(rows))
        for m, rows in manifests.items()
    }
    flagged = Counter(f for r in twins for f in r.audit_flags)
    return {
        "bases": len(problems),
        "skipped_rows": len(skipped),
        "candidates": dict(sorted(stats["candidates"].items())),
        "bases_without_candidates": {f: stats["no_twin"][f] for f in TWIN_FAMILIES},
        "structural_audit": {
            "dropped": dict(sorted(stats["audit_dropped"].items())),
            "flagged_candidates": dict(sorted(stats["audit_flagged"].items())),
            "flagged_in_pool": dict(sorted(flagged.items())),
        },
        "pool_twins": dict(sorted(Counter(r.operator for r in twins).items())),
        "needs_adjudication": flagged[NEEDS_ADJUDICATION],
        "unique_twins_per_base": round(sum(per_base.values()) / len(problems), 3),
        "pairs": pairs,
        "family_shares": {f"m{m}": _shares_of(rows) for m, rows in manifests.items()},
        "coverage": {f: round(1 - stats["no_twin"][f] / len(problems), 4) for f in TWIN_FAMILIES},
        "distractor_diversity": _diversity(twins, manifests),
        "guards": {"open_money_query_bases": stats["guards"]["open_money_query"]},
        "injection_sizes": {f"m{m}": dict(sorted(c.items(), key=lambda kv: int(kv[0]))) for m, c in sizes_used.items()},
    }


def _donor_spec(spec: str, suite: str) -> tuple[str, str]:
    """``"gsm:PATH"`` / ``"math:PATH"`` / ``PATH`` (the target's suite) -> (donor suite, path)."""
    head, sep, rest = spec.partition(":")
    return (head, rest) if sep and head in ("gsm", "math") else (suite, spec)


def _lend(text: str, donor_suite: str, tex: bool) -> tuple[str, ...]:
    """The distractor sentences a donor problem lends to a target of LaTeX-ness ``tex``. A GSM donor lent to a
    MATH target has its currency written out (``$12`` -> ``12 dollars``) so that no ``$`` opens a maths span;
    a sentence still holding a ``$`` is not lent."""
    if donor_suite == "gsm" and tex:
        text = write_out_currency(text)
        run = donor_run(segment(text, False).setup, False)
        return tuple(itertools.takewhile(lambda s: "$" not in s and setup_sentence(s, True), run))
    return donor_run(segment(text, donor_suite == "math").setup, donor_suite == "math")


# a dollar amount: "$16", "$1,000", "$2.50", "$.40", "$1.5 million"; only groups of three digits after a comma
# belong to the number ("for $16, and" keeps its comma outside); a malformed one ("$1,20") is left as it is
_DOLLARS = re.compile(
    r"\$\s?(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?![\d]|,\d)|(?=\.\d))(?P<frac>\.\d+)?(?P<scale>\s(?:thousand|million|billion)\b)?"
    r"(?P<bill>(?=\s(?:bills?|notes?|coins?|gift cards?|checks?|cheques?|fees?|gifts?|coupons?|vouchers?|"
    r"deposits?|donations?|tips?|fines?|tickets?|prizes?|bonus(?:es)?|payments?|purchases?|discounts?|credits?|"
    r"charges?|orders?|budgets?|items?|loans?|rebates?|refunds?|allowances?|salary|wages?|pet fees?)\b))?"
    r"(?P<unit>\s+dollars?\b)?"
)


def write_out_currency(text: str) -> str:
    """GSM currency written out for a LaTeX target: ``$16`` -> ``16 dollars``, ``$1`` -> ``1 dollar``, ``$.40`` ->
    ``0.40 dollars``, ``$1.5 million`` -> ``1.5 million dollars``, ``$20 bills`` / ``a $200 check`` ->
    ``20-dollar bills`` / ``a 200-dollar check``, ``a $500,000 house`` -> ``a 500,000-dollar house``, ``$8 dollars``
    -> ``8 dollars``; a comma after the amount that does not open a group of three digits stays after it (``$16,
    and`` -> ``16 dollars, and``)."""

    def sub(m: re.Match) -> str:
        amount = (m.group("num") or "0") + (m.group("frac") or "")
        adjective = re.search(r"\b(?:a|an)\s+$", m.string[max(0, m.start() - 4) : m.start()], re.I)
        if m.group("bill") is not None or (adjective and not m.group("unit")):  # "a $500,000 house"
            return f"{amount}{m.group('scale') or ''}-dollar"
        unit = "dollar" if amount == "1" and not m.group("scale") else "dollars"
        return f"{amount}{m.group('scale') or ''} {unit}"

    return _DOLLARS.sub(sub, text)


def _shares_of(rows: Sequence[PairRecord]) -> dict[str, Any]:
    """Share of each twin family among the non-identity pairs of one manifest, over all bases and over the bases
    that have twins of every family (where the mix must be the uniform one)."""
    mixed = [p for p in rows if p.operator != IDENTITY]
    fams = defaultdict(set)
    for p in mixed:
        fams[p.base_id].add(p.operator)
    full = [p for p in mixed if len(fams[p.base_id]) == len(TWIN_FAMILIES)]

    def share(ps: list) -> dict[str, float]:
        return {f: round(sum(p.operator == f for p in ps) / len(ps), 4) if ps else 0.0 for f in TWIN_FAMILIES}

    return {
        "all": share(mixed),
        "bases_with_every_family": share(full),
        "bases_with_every_family_n": len({p.base_id for p in full}),
    }


def _diversity(twins: Sequence[TextRecord], manifests: dict[int, list[PairRecord]]) -> dict[str, Any]:
    """Distinct injected sentences and the largest share of the uses one sentence serves (pool twins, and the
    pairs of all manifests)."""
    inserted = {r.text_id: r.changes.get("inserted", []) for r in twins if r.operator == "irrelevant_context"}
    out: dict[str, Any] = {}
    for label, ids in (
        ("pool", list(inserted)),
        ("manifests", [p.twin_id for rows in manifests.values() for p in rows if p.twin_id in inserted]),
    ):
        uses = Counter(s for i in ids for s in inserted[i])
        total = sum(uses.values())
        top = uses.most_common(1)
        out[label] = {
            "uses": total,
            "distinct": len(uses),
            "max_uses": top[0][1] if top else 0,
            "max_share": round(top[0][1] / total, 5) if total else 0.0,
        }
    return out
