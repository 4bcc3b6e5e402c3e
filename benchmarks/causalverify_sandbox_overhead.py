"""Per-sample overhead of the sandboxes against bare Rscript on the same R code (issues 7 and 16, 'Must show').

    .venv/bin/python benchmarks/causalverify_sandbox_overhead.py [--repeats 3] [--docker auto|debian|cran|none]

Counts wall seconds per sample. Runs a small DID regression script (base R, 1600-row CSV) --repeats times each way
after one warm-up, interleaved in one process: bare `Rscript` in a temp dir (baseline); the confined sandbox (write
the files, bwrap + prlimit + Rscript, clean up); and, when a Docker engine and an image answer, inspect's docker
sandbox on the exp_b compose file, twice: `docker exec` (write the files and run in a started container: what each R
run costs) and `docker sample` (start the container, write, run, remove it: what each exp_b sample costs). Prints
medians, spread and each arm's ratio to bare Rscript. Needs Rscript, bwrap, prlimit; Docker optional (the image's R
may differ from the host's: the Debian image has the host's Debian R 4.2.2, the CRAN image R 4.4.2).
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
from causalverify_inspect.sandbox.docker import IMAGES, compose_for_run, image_present, probe_engine

SCRIPT = """d <- read.csv("data.csv")
m <- lm(y ~ treated + post + treat_x_post, data = d)
cat("Estimate:", coef(m)[["treat_x_post"]], "\\n")
"""


def write_inputs(folder: Path) -> None:
    rng = np.random.default_rng(0)
    unit, period = np.meshgrid(np.arange(200), np.arange(1, 9), indexing="ij")
    treated, post = (unit.ravel() < 100).astype(int), (period.ravel() >= 5).astype(int)
    y = 0.5 * treated + 0.4 * post - 0.25 * treated * post + rng.normal(0, 0.5, treated.size)
    pd.DataFrame(
        {
            "unit_id": unit.ravel(),
            "period": period.ravel(),
            "treated": treated,
            "post": post,
            "treat_x_post": treated * post,
            "y": y.round(4),
        }
    ).to_csv(folder / "data.csv", index=False)
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


class DockerArms:
    """inspect's docker sandbox on an exp_b compose file: one long-lived container for the exec arm, and a fresh
    container per sample for the sample arm."""

    TASK = "cv-overhead-bench"

    def __init__(self, compose: str) -> None:
        from inspect_ai.util._sandbox.docker.docker import DockerSandboxEnvironment

        self.cls, self.config, self.loop = DockerSandboxEnvironment, compose, asyncio.new_event_loop()
        self.loop.run_until_complete(self.cls.task_init(self.TASK, self.config))
        self.running = self._start()

    def _start(self) -> dict:
        return self.loop.run_until_complete(self.cls.sample_init(self.TASK, self.config, {}))

    def _stop(self, envs: dict) -> None:
        self.loop.run_until_complete(self.cls.sample_cleanup(self.TASK, self.config, envs, False))

    async def _run(self, box, folder: Path) -> None:
        for name in ("data.csv", "analysis.R"):
            await box.write_file(name, (folder / name).read_bytes())
        result = await box.exec(["Rscript", "--vanilla", "analysis.R"], timeout=60)
        assert result.success, result.stderr

    def exec_arm(self, folder: Path) -> float:
        started = time.monotonic()
        self.loop.run_until_complete(self._run(self.running["default"], folder))
        return time.monotonic() - started

    def sample_arm(self, folder: Path) -> float:
        started = time.monotonic()
        envs = self._start()
        self.loop.run_until_complete(self._run(envs["default"], folder))
        self._stop(envs)
        return time.monotonic() - started

    def close(self) -> None:
        self._stop(self.running)
        self.loop.run_until_complete(self.cls.task_cleanup(self.TASK, self.config, True))
        self.loop.close()


def docker_compose(choice: str) -> tuple[str, str] | None:
    """(compose file, image) for the requested Docker arm, or None (printed why) when it cannot run."""
    if choice == "none":
        return None
    engine = probe_engine()
    if engine.problem:
        print(f"docker arms skipped: {engine.problem}")
        return None
    keys = {
        "debian": [("docker-debian", "debian")],
        "cran": [("docker", "full")],
        "auto": [("docker", "full"), ("docker-debian", "debian")],
    }[choice]
    for key in keys:
        if image_present(IMAGES[key].image):
            return str(compose_for_run(IMAGES[key])), IMAGES[key].image
    print(f"docker arms skipped: no image present ({', '.join(IMAGES[k].image for k in keys)})")
    return None


def summary(name: str, times: list[float], base: float | None) -> str:
    median = statistics.median(times)
    ratio = f"  ratio {median / base:5.2f}x  overhead {1000 * (median - base):6.0f} ms" if base else ""
    return f"{name:<16} median {median:.3f} s (min {min(times):.3f}, max {max(times):.3f}){ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--docker", choices=("auto", "debian", "cran", "none"), default="auto")
    args = parser.parse_args()
    print(f"wall seconds per sample; {os.cpu_count()} CPUs, Python {platform.python_version()}")
    found = docker_compose(args.docker)
    docker = DockerArms(found[0]) if found else None
    if found:
        print(f"docker: image {found[1]}, engine {probe_engine().server}")
    times: dict[str, list[float]] = {"bare Rscript": [], "confined": []}
    if docker:
        times.update({"docker exec": [], "docker sample": []})
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_inputs(folder)
            arms = {"bare Rscript": lambda: bare(folder), "confined": lambda: asyncio.run(confined(folder))}
            if docker:
                arms.update(
                    {"docker exec": lambda: docker.exec_arm(folder), "docker sample": lambda: docker.sample_arm(folder)}
                )
            for arm in arms.values():  # warm-ups
                arm()
            for _ in range(args.repeats):  # interleaved, so load changes on a shared machine hit every arm
                for name, arm in arms.items():
                    times[name].append(arm())
    finally:
        if docker:
            docker.close()
    base = statistics.median(times["bare Rscript"])
    for name, values in times.items():
        print(summary(name, values, None if name == "bare Rscript" else base))
    print(f"({args.repeats} repeats; ratio = arm median / bare Rscript median)")


if __name__ == "__main__":
    main()
