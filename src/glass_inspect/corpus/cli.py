"""``glass-build``: the command line of the corpus tooling (no model call).

glass-build --suite gsm --source gsm8k_test.jsonl --out corpora/gsm      # build (glass_inspect.corpus.build)
glass-build audit LOG --pool DIR --out DIR2     # apply a finished noop_audit log (a filtered copy)
glass-build export-pairs DIR --out FILE --dose m                   # §3.4 LabeledPair JSONL of one dose
glass-build import-pairs FILE... --suite S --out DIR               # a corpus from LabeledPair files
glass-build show DIR [--n 10]                   # random twins of each family beside their bases
glass-build sample DIR --out PREFIX [--per-stratum 10] [--seed 0]   # hand-audit sample + verdict template
glass-build verdicts FILE.jsonl... [--corpus DIR]  # defect rates of filled verdict files (Wilson intervals)
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from causal_suite.errors import reports_input_errors
from causal_suite.files import write_text_atomic
from causal_suite.params import cli_integer
from glass_inspect.answers import SUITES
from glass_inspect.corpus.audit import apply_audit
from glass_inspect.corpus.build import REORDER_MODES, build_corpus
from glass_inspect.corpus.contract import DEFAULT_DOSES, FAMILIES, parse_doses, read_pool
from glass_inspect.corpus.hand_audit import (
    defect_table,
    draw_sample,
    format_table,
    sample_text,
    verdict_rows,
    verdict_template,
)
from glass_inspect.corpus.labeled_pairs import import_labeled_pairs, write_labeled_pairs

SUBCOMMANDS = ("audit", "export-pairs", "import-pairs", "show", "sample", "verdicts")


def show_twins(corpus: str | Path, n: int = 10, seed: int = 0) -> str:
    """``n`` random twins of each family of a corpus, each printed beside its base (for eyeballing)."""
    pool = read_pool(corpus)
    bases = {r.text_id: r for r in pool if r.role == "base"}
    rng = random.Random(seed)
    lines = []
    for family in FAMILIES:
        twins = [r for r in pool if r.operator == family]
        for r in rng.sample(twins, min(n, len(twins))):
            lines += [
                f"=== {family} {r.text_id} (size {r.injection_size}, flags {r.audit_flags or '-'})",
                f"BASE: {bases[r.base_id].text}",
                f"TWIN: {r.text}",
                f"CHANGES: {json.dumps(r.changes, ensure_ascii=False)}",
                "",
            ]
    return "\n".join(lines)


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="glass-build",
        description="Build a GlassGSM / GlassMATH corpus (no model calls). "
        "Subcommands: audit, export-pairs, import-pairs, show (see `glass-build audit -h`).",
    )
    ap.add_argument("--suite", required=True, choices=SUITES)
    ap.add_argument("--source", required=True, help="JSONL/JSON/parquet file, save_to_disk dir, or hub id")
    ap.add_argument("--out", required=True, help="output directory (must be new or empty unless --force)")
    ap.add_argument("--limit", type=cli_integer(1), default=None, help="use only the first N source records")
    ap.add_argument("--seed", type=cli_integer(0), default=0)
    ap.add_argument("--doses", default=",".join(map(str, DEFAULT_DOSES)), help="comma-separated doses m")
    ap.add_argument("--surface-twins", type=cli_integer(1), default=10, help="candidates per base for rename / reorder")
    ap.add_argument(
        "--max-distractors", type=cli_integer(1), default=20, help="distractor candidates per base and size"
    )
    ap.add_argument("--split", default="test", help="split of a dataset dir or hub dataset")
    ap.add_argument("--hub-config", default=None, help="hub dataset config (GSM8K: main)")
    ap.add_argument(
        "--skip-bad-rows",
        action="store_true",
        help="skip malformed source records (counted in corpus.json) instead of stopping",
    )
    ap.add_argument(
        "--donors",
        action="append",
        default=[],
        help="a source whose setup sentences serve as distractors (repeatable; recommended for both suites: "
        "GSM8K train, written gsm:FILE for a MATH build); with --donors the source's own problems lend none",
    )
    ap.add_argument(
        "--own-donors",
        action="store_true",
        help="let the source's own problems lend distractors beside --donors (a test set then lends sentences "
        "of its own problems, which the model also meets as bases)",
    )
    ap.add_argument(
        "--reorder",
        choices=REORDER_MODES,
        default="graph",
        help="graph: only the constraint graph's safe orders; adjudicated: every order not forbidden for certain, "
        "flagged needs_adjudication (run noop_audit and glass-build audit before evaluating; MATH reordered too)",
    )
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
        ap.add_argument("--n", type=cli_integer(1), default=10, help="twins per family")
        ap.add_argument("--seed", type=cli_integer(0), default=0)
    elif cmd == "sample":
        ap.add_argument("corpus")
        ap.add_argument(
            "--out", required=True, help="writes PREFIX.sample.txt (twins beside bases), PREFIX.verdicts.jsonl"
        )
        ap.add_argument("--per-stratum", type=cli_integer(1), default=10, help="twins per (family, dose) stratum")
        ap.add_argument("--seed", type=cli_integer(0), default=0)
    elif cmd == "verdicts":
        ap.add_argument("files", nargs="+", help="filled verdict JSONL files, pooled (glass_inspect.corpus.hand_audit)")
        ap.add_argument(
            "--corpus",
            default=None,
            help="count only rows whose twin (TWIN text of PREFIX.sample.txt) is this corpus's twin",
        )
    elif cmd == "export-pairs":
        ap.add_argument("corpus")
        ap.add_argument("--out", required=True, help="LabeledPair JSONL file to write")
        ap.add_argument("--dose", type=cli_integer(1), required=True)
    else:
        ap.add_argument("files", nargs="+", help="LabeledPair JSONL files (dose from 'dose' or _m<k>_ in the name)")
        ap.add_argument("--suite", required=True, choices=SUITES)
        ap.add_argument("--out", required=True)
        ap.add_argument("--answers", default=None, help="GSM8K / MATH source to take gold answers from")
        ap.add_argument("--force", action="store_true")
    return ap


def _run_subcommand(cmd: str, args: argparse.Namespace) -> None:
    if cmd == "show":
        print(show_twins(args.corpus, args.n, args.seed))
    elif cmd == "audit":
        drops = apply_audit(args.log, args.pool, args.out)
        print(f"wrote {args.out}; dropped by the No-Op audit: {json.dumps(drops, sort_keys=True)}")
    elif cmd == "sample":
        rows = draw_sample(args.corpus, args.per_stratum, args.seed)
        write_text_atomic(f"{args.out}.sample.txt", sample_text(rows) + "\n")
        write_text_atomic(
            f"{args.out}.verdicts.jsonl", "".join(json.dumps(v, sort_keys=True) + "\n" for v in verdict_template(rows))
        )
        print(f"wrote {len(rows)} twins to {args.out}.sample.txt and a verdict template to {args.out}.verdicts.jsonl")
    elif cmd == "verdicts":
        pooled = verdict_rows(args.files, args.corpus)
        print(format_table(defect_table(pooled.rows)))
        if args.corpus is not None:
            print(
                f"{len(pooled.rows)} rows judge twins of {args.corpus}; {pooled.superseded} judged twins it no longer has"
            )
        if pooled.disagreed:
            print(f"{pooled.disagreed} readings disagree with an earlier reading of the same twin: the stricter counts")
    elif cmd == "export-pairs":
        n = write_labeled_pairs(args.corpus, args.dose, args.out)
        print(f"wrote {n} LabeledPair rows to {args.out}")
    else:
        import_labeled_pairs(args.files, args.suite, args.out, answers_source=args.answers, overwrite=args.force)
        print(f"wrote {args.out}")


@reports_input_errors("glass-build")
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        _run_subcommand(argv[0], _sub_parser(argv[0]).parse_args(argv[1:]))
        return 0
    args = _build_parser().parse_args(argv)
    doses = parse_doses(args.doses)
    t0 = time.perf_counter()
    out = build_corpus(
        args.suite,
        args.source,
        args.out,
        limit=args.limit,
        seed=args.seed,
        doses=doses,
        surface_twins=args.surface_twins,
        max_distractors=args.max_distractors,
        split=args.split,
        hub_config=args.hub_config,
        skip_bad_rows=args.skip_bad_rows,
        overwrite=args.force,
        donor_sources=args.donors,
        own_donors=True if args.own_donors else None,
        reorder=args.reorder,
    )
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    counts = json.loads((out / "corpus.json").read_text(encoding="utf-8"))["counts"]
    print(json.dumps(counts, indent=1, sort_keys=True))
    print(f"wrote {out} in {wall:.1f} s (peak RSS {peak:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
