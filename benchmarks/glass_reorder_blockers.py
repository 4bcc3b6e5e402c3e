"""What keeps GSM bases from a reorder twin (issue 31 item 1): the safe graph's ceiling, rule by rule.

For every base of a source, the setup's glued sentences (``operators.reorder.glued``) form blocks that move
together; an order other than the original exists exactly when some block does not depend on the block right
before it (then the two can trade places). For each base that has none, this reads which rule families of
``reference_rules`` hold each pair of neighbouring blocks together, and prints:

* bases with fewer than two setup sentences, setups glued into one block, reorderable setups and blocked ones;
* per rule family: blocked bases it alone blocks at some boundary (dropping that rule alone would let them
  reorder) and blocked bases where it holds at least one boundary;
* the back markers (``back_marker``) that alone block a boundary, with their counts, and ``--examples N`` blocked
  bases of each family it alone blocks, so a reader can judge whether that rule could safely give way.

"Reorderable" counts setups the graph admits another order for; the build's coverage is a little lower (a draw
whose "also" cannot go, or whose pronoun cannot become the name, is refused). ``--corpus DIR`` (repeatable) prints
instead what a ``glass-build`` corpus holds: bases with a reorder twin, reorder twins, and the share of them that
are one swap of two neighbouring sentences. ``--sample N --seed S`` prints instead N seeded blocked bases with at
least three setup sentences, numbered, with the rules holding each boundary: the sheet a careful reader fills in
to say which of them have a natural order that keeps the meaning (what the graph could still reach); ``--kind
blocked-two`` draws blocked two-sentence setups instead, ``--kind glued`` setups glued into one block.
``--orders`` enumerates the orders the graph admits and counts the bases that admit only single adjacent swaps.

    .venv/bin/python benchmarks/glass_reorder_blockers.py [--source gsm8k/test.jsonl] [--examples 3]
    .venv/bin/python benchmarks/glass_reorder_blockers.py --corpus DIR_BEFORE --corpus DIR_AFTER
    .venv/bin/python benchmarks/glass_reorder_blockers.py --sample 40 --seed 37 [--kind glued]
    .venv/bin/python benchmarks/glass_reorder_blockers.py --orders
"""

from __future__ import annotations

import argparse
import random
from collections import Counter, defaultdict
from itertools import permutations
from pathlib import Path

from glass_inspect.corpus.contract import read_pool
from glass_inspect.corpus.operators import back_references, glued, repairable_people, segment
from glass_inspect.corpus.operators.reorder import RULES, _prose, back_marker, reference_rules
from glass_inspect.corpus.sources import Problem, load_source

DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "data" / "gsm8k" / "test.jsonl"


def boundary_rules(text: str) -> list[dict[str, set[int]]] | None:
    """Per pair of neighbouring blocks of ``text``'s setup, the rule families holding the later block after the
    earlier one, each with the later block's sentences it holds (empty: the two may trade places); None when the
    setup has fewer than two sentences."""
    seg = segment(text)
    setup = seg.setup
    if len(setup) < 2:
        return None
    rules = reference_rules(setup, people=repairable_people(text), query=" ".join(seg.sentences[seg.query :]))
    glue = glued(setup)
    blocks: list[list[int]] = []
    for i in range(len(setup)):
        if i in glue and blocks:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    out: list[dict[str, set[int]]] = []
    for earlier, later in zip(blocks, blocks[1:], strict=False):
        held: dict[str, set[int]] = defaultdict(set)
        for j in later:
            for rule, before in rules[j].items():
                if before & set(earlier):
                    held[rule].add(j)
        out.append(dict(held))
    return out


def single_swap(order: list[int]) -> bool:
    """Whether ``order`` is the identity with one pair of neighbouring sentences swapped."""
    moved = [k for k, i in enumerate(order) if i != k]
    return len(moved) == 2 and moved[1] == moved[0] + 1


def admitted_orders(text: str, longest: int = 8) -> list[list[int]] | None:
    """Every setup order other than the original that the graph admits (``back_references`` and ``glued``, as the
    operator draws them), by enumeration; None for a setup of fewer than two or more than ``longest`` sentences."""
    seg = segment(text)
    setup = seg.setup
    if not 2 <= len(setup) <= longest:
        return None
    deps = back_references(setup, people=repairable_people(text), query=" ".join(seg.sentences[seg.query :]))
    glue = glued(setup)
    out = []
    for order in map(list, permutations(range(len(setup)))):
        at = {i: k for k, i in enumerate(order)}
        if order != sorted(order) and all(
            all(at[d] < at[j] for d in deps[j]) and (j not in glue or at[j] == at[j - 1] + 1) for j in deps
        ):
            out.append(order)
    return out


def order_freedom(problems: list[Problem]) -> str:
    """How much freedom the graph leaves the bases it reorders: bases with another order, those whose every
    other order is one swap of two neighbouring sentences (a twin of theirs can only be a single swap), and the
    orders admitted in all."""
    admitted = [orders for p in problems if (orders := admitted_orders(p.text))]
    swap_only = sum(all(single_swap(o) for o in orders) for orders in admitted)
    total = sum(map(len, admitted))
    return (
        f"{len(admitted)} bases with another order (setups of 2-8 sentences); {swap_only} = "
        f"{swap_only / max(len(admitted), 1):.1%} of them admit only single adjacent swaps; {total} orders admitted"
    )


def corpus_reorders(corpus: str) -> str:
    """Bases with a reorder twin, reorder twins, and single adjacent swaps among them, in a built corpus."""
    pool = read_pool(corpus)
    bases = sum(r.role == "base" for r in pool)
    reorders = [r for r in pool if r.operator == "sentence_reorder"]
    covered = len({r.base_id for r in reorders})
    swaps = sum(single_swap(r.changes["order"]) for r in reorders)
    return (
        f"{corpus}: {covered} of {bases} bases = {covered / bases:.1%} with a reorder twin; {len(reorders)} reorder "
        f"twins, {swaps} = {swaps / max(len(reorders), 1):.1%} single adjacent swaps"
    )


# the kinds of no-reorder setup a reading sheet draws from (``setup_kind``)
SHEET_KINDS = ("blocked", "blocked-two", "glued")


def setup_kind(text: str) -> str | None:
    """Which kind of setup without another order ``text`` has: "blocked" (three or more setup sentences, every
    boundary held), "blocked-two" (two setup sentences, held), "glued" (two or more setup sentences glued into
    one block); None when it has another order or fewer than two setup sentences."""
    return _kind(boundary_rules(text), len(segment(text).setup))


def _kind(boundaries: list[dict[str, set[int]]] | None, sentences: int) -> str | None:
    """``setup_kind`` of a setup of ``sentences`` setup sentences whose ``boundary_rules`` are ``boundaries``."""
    if boundaries is None:
        return None
    if not boundaries:
        return "glued"
    if not all(boundaries):
        return None
    return "blocked" if sentences >= 3 else "blocked-two"


def reading_sheet(problems: list[Problem], n: int, seed: int, kind: str = "blocked") -> str:
    """``n`` bases of ``kind`` (``setup_kind``; by default blocked bases with at least three setup sentences),
    drawn with ``seed`` (in source order), each with its numbered setup and, per boundary between neighbouring
    blocks, the rule families holding it (a glued setup: its one block)."""
    if kind not in SHEET_KINDS:
        raise ValueError(f"a reading sheet draws from one of {SHEET_KINDS}, not {kind!r}")
    read = [(p, boundary_rules(p.text)) for p in problems]
    drawn_from = [(p, b or []) for p, b in read if _kind(b, len(segment(p.text).setup)) == kind]
    picked = sorted(random.Random(seed).sample(range(len(drawn_from)), min(n, len(drawn_from))))
    lines = [f"# {len(picked)} of {len(drawn_from)} {kind} bases (seed {seed})"]
    for k in picked:
        problem, boundaries = drawn_from[k]
        seg = segment(problem.text)
        lines.append(f"\n## {problem.base_id}")
        lines += [f"  [{i}] {sentence}" for i, sentence in enumerate(seg.setup)]
        lines.append(f"  Q: {' '.join(seg.sentences[seg.query :])}")
        held = "; ".join(", ".join(f"{rule} {sorted(js)}" for rule, js in sorted(b.items())) for b in boundaries)
        lines.append(f"  held: {held}" if boundaries else "  held: glued into one block")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", default=str(DEFAULT_SOURCE), help="GSM8K-layout JSONL (default: the shared test set)"
    )
    parser.add_argument(
        "--examples", type=int, default=0, help="blocked bases to print per rule that alone blocks them"
    )
    parser.add_argument("--limit", type=int, default=None, help="read only the first N problems")
    parser.add_argument("--corpus", action="append", default=[], help="a glass-build corpus to count instead")
    parser.add_argument("--sample", type=int, default=0, help="print N seeded blocked bases for a reader instead")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample")
    parser.add_argument(
        "--orders", action="store_true", help="count the bases whose every admitted order is a single swap instead"
    )
    parser.add_argument(
        "--kind", choices=SHEET_KINDS, default="blocked", help="the setups --sample draws from (setup_kind)"
    )
    args = parser.parse_args()
    if args.corpus:
        for corpus in args.corpus:
            print(corpus_reorders(corpus))
        return
    problems, _ = load_source("gsm", args.source, limit=args.limit)
    if args.sample:
        print(reading_sheet(problems, args.sample, args.seed, args.kind))
        return
    if args.orders:
        print(order_freedom(problems))
        return
    kinds: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    involved: Counter[str] = Counter()
    markers: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for problem in problems:
        boundaries = boundary_rules(problem.text)
        if boundaries is None:
            kinds["fewer than two setup sentences"] += 1
        elif not boundaries:
            kinds["setup glued into one block"] += 1
        elif not all(boundaries):
            kinds["reorderable"] += 1
        else:
            kinds["blocked"] += 1
            sole = [b for b in boundaries if len(b) == 1]
            alone.update({rule for b in sole for rule in b})
            kinds["blocked by one rule at some boundary"] += bool(sole)
            involved.update({rule for b in boundaries for rule in b})
            for rule in {rule for b in sole for rule in b}:
                if len(examples.setdefault(rule, [])) < args.examples:
                    examples[rule].append(problem.text)
            setup = segment(problem.text).setup
            words = {back_marker(_prose(setup[j], False)) for b in sole for j in b.get("marker", ())}
            markers.update({w.lower() for w in words if w})
    print(f"bases {len(problems)}: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items()))
    print(f"{'rule':<10} {'alone blocks':>12} {'holds a boundary':>17}   (of {kinds['blocked']} blocked bases)")
    for rule in RULES:
        print(f"{rule:<10} {alone[rule]:>12} {involved[rule]:>17}")
    print("back markers that alone block a boundary:", ", ".join(f"{w} {n}" for w, n in markers.most_common(25)))
    for rule, texts in examples.items():
        if texts:
            print(f"\n# {rule} alone blocks:")
            print("\n".join(f"  {text}" for text in texts))


if __name__ == "__main__":
    main()
