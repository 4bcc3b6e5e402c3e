"""Per-sample overhead of the confined sandbox against bare Rscript on the same R code (issue 7, 'Must show').

    .venv/bin/python benchmarks/causalverify_sandbox_overhead.py [--repeats 3]

Counts wall seconds per sample. Runs a small DID regression script (base R, 1600-row CSV) --repeats times each way
after one warm-up, interleaved in one process: bare `Rscript` in a temp dir (baseline) and the confined sandbox
(write the files, bwrap + prlimit + Rscript, clean up); prints medians, spread and the ratio. Needs Rscript, bwrap,
prlimit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from causalverify_inspect.sandbox import ConfinedLimits, ConfinedSandboxEnvironment

SCRIPT = """d <- read.csv("data.csv")
m <- lm(y ~ treated + post + treat_x_post, data = d)
cat("Estimate:", coef(m)[["treat_x_post"]], "\\n")
"""


def write_inputs(folder: Path) -> None:
    rng = np.random.default_rng(0)
    unit, period = np.meshgrid(np.arange(200), np.arange(1, 9), indexing="ij")
    treated, post = (unit.ravel() < 100).astype(int), (period.ravel() >= 5).astype(int)
    y = 0.5 * treated + 0.4 * post - 0.25 * treated * post + rng.normal(0, 0.5, treated.size)
    pd.DataFrame({"unit_id": unit.ravel(), "period": period.ravel(), "treated": treated, "post": post,
                  "treat_x_post": treated * post, "y": y.round(4)}).to_csv(folder / "data.csv", index=False)
    (folder / "analysis.R").write_text(SCRIPT)


def bare(folder: Path) -> float:
    started = time.monotonic()
    subprocess.run(["Rscript", "--vanilla", "analysis.R"], cwd=folder, check=True, capture_output=True, timeout=60)
    return time.monotonic() - started


async def confined(folder: Path) -> float:
    box = ConfinedSandboxEnvironment(ConfinedLimits())
    started = time.monotonic()
    for name in ("data.csv", "analysis.R"):
        await box.write_file(name, (folder / name).read_bytes())
    result = await box.exec(["Rscript", "--vanilla", "analysis.R"], timeout=60)
    seconds = time.monotonic() - started
    assert result.success, result.stderr
    await ConfinedSandboxEnvironment.sample_cleanup("bench", None, {"default": box}, False)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"wall seconds per sample; {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_inputs(folder)
        bare(folder)
        asyncio.run(confined(folder))  # warm-ups
        bare_times, boxed_times = [], []
        for _ in range(args.repeats):  # interleaved, so load changes on a shared machine hit both arms
            bare_times.append(bare(folder))
            boxed_times.append(asyncio.run(confined(folder)))
    b, c = statistics.median(bare_times), statistics.median(boxed_times)
    print(f"bare Rscript   median {b:.3f} s (min {min(bare_times):.3f}, max {max(bare_times):.3f})")
    print(f"confined       median {c:.3f} s (min {min(boxed_times):.3f}, max {max(boxed_times):.3f})")
    print(f"ratio confined/bare {c / b:.2f}x; overhead {1000 * (c - b):.0f} ms per sample ({args.repeats} repeats)")


if __name__ == "__main__":
    main()
