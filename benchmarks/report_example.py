"""Regenerate ``docs/report_example/``: ``causal-suite report`` over scripted runs of every benchmark and over Exp B
replays of upstream's cached responses for the two models in ``../shared`` (real numbers, upstream's published
levels beside them).

    .venv/bin/python benchmarks/report_example.py                      # ~5 minutes on 2 cores
    .venv/bin/python benchmarks/report_example.py --logs runs/example  # keep the logs; reuse them next time

The scripted runs are ``benchmarks/first_hour.py``'s (a glass model that solves most bases and breaks on some
twins, a CoBe judge that fails some checks, an Exp B model with the calibration arm): their numbers show the
figures, not a model. The replays run each cached response's R code in the confined sandbox on a seeded
stratified subset of the scenarios (``-T subset``), so they need R and bubblewrap, and the shared data; without
them only the scripted runs are drawn. The logs go to a temporary folder (or ``--logs``); the figures (PNG at
``--dpi``, 150 to keep the committed set small, and one PDF to show the vector format), their CSVs and
``report.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "causalverify"
EXP_B = SHARED / "experiments" / "exp_b"
REPLAYED = ("claude-opus-4-6", "moonshot-v1-128k")
SUBSET = 8  # scenarios per replay, two of each design family (seeded, stratified)


def first_hour() -> Any:
    """``benchmarks/first_hour.py``, loaded by path (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location("first_hour", ROOT / "benchmarks" / "first_hour.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def replays(log_dir: Path, subset: int) -> None:
    """Exp B replays of each shared upstream model's cached responses (R run in the confined sandbox)."""
    from inspect_ai import eval

    for slug in REPLAYED:
        [log] = eval(
            "causalverify_inspect/exp_b",
            task_args={
                "scenarios": str(SHARED),
                "responses": str(EXP_B / "outputs"),
                "responses_model": slug,
                "es_windows": "cumulative",
                "sandbox": "confined",
                "subset": subset,
            },
            model="scripted/replay",
            display="none",
            log_dir=str(log_dir),
        )
        print(f"replay {slug}: {log.status}, {len(log.samples or [])} samples", file=sys.stderr)


def published_args() -> list[str]:
    """``--published`` with upstream's score CSV, where the shared data has it."""
    csv = EXP_B / "l2b_plus_scores_canonical_judge_v2.csv"
    return ["--published", str(csv)] if csv.is_file() else []


def run_all(folder: Path) -> list[str]:
    """The scripted runs and, where R, bubblewrap and the shared data are here, the replays; logs under
    ``folder/logs``. Returns the report's ``--published`` arguments."""
    first_hour().scripted_logs(folder, full=False)
    if not (EXP_B.is_dir() and all(shutil.which(p) for p in ("Rscript", "bwrap", "prlimit"))):
        return []
    replays(folder / "logs", SUBSET)
    return published_args()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report_example")
    parser.add_argument("--logs", type=Path, default=None, help="keep the runs here; reuse them if already there")
    parser.add_argument("--dpi", type=int, default=150, help="PNG resolution of the committed set (default 150)")
    args = parser.parse_args(argv)
    from causal_suite.cli import main as suite

    with tempfile.TemporaryDirectory() as scratch:
        logs = args.logs or Path(scratch) / "runs"
        published = run_all(logs) if not (logs / "logs").is_dir() else published_args()
        shutil.rmtree(args.out, ignore_errors=True)
        report = ["report", str(logs / "logs"), *published]
        code = suite([*report, "--out", str(args.out), "--format", "png", "--dpi", str(args.dpi)])
        sample = Path(scratch) / "formats"
        code = code or suite([*report, "--out", str(sample), "--format", "pdf"])
        if (sample / "glass_break_rate_by_dose.pdf").exists():
            shutil.copy(sample / "glass_break_rate_by_dose.pdf", args.out)
    return code


if __name__ == "__main__":
    sys.exit(main())
