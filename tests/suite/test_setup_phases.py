"""scripts/phases.sh: the setup's phase timer (the rows of benchmarks/first_run.sh's table) passes its command's
exit status through, so `set -e` and `|| ...` in scripts/setup.sh still see a failed step."""

from __future__ import annotations

import subprocess
from pathlib import Path

PHASES = Path(__file__).resolve().parents[2] / "scripts" / "phases.sh"


def run_bash(script: str, times: Path | None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"} | ({"CAUSAL_SUITE_TIMES": str(times)} if times else {})
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {PHASES}; {script}"], capture_output=True, text=True, env=env
    )


def test_each_phase_appends_its_wall_and_cpu_seconds(tmp_path):
    times = tmp_path / "times.tsv"
    done = run_bash('phase "one step" sleep 0.2; phase "background" true & wait $!; echo ran', times)
    assert done.returncode == 0 and done.stdout == "ran\n"
    rows = [line.split("\t") for line in times.read_text().splitlines()]
    assert [r[0] for r in rows] == ["one step", "background"]
    assert float(rows[0][1]) >= 0.2 and all(float(r[2]) >= 0 for r in rows)


def test_a_failed_command_fails_its_phase_timed_or_not(tmp_path):
    for times in (tmp_path / "times.tsv", None):
        stopped = run_bash('phase "bad" false; echo not reached', times)
        assert stopped.returncode == 1 and "not reached" not in stopped.stdout
        caught = run_bash('phase "bad" false || echo "caught $?"', times)
        assert caught.returncode == 0 and caught.stdout == "caught 1\n"
    assert (tmp_path / "times.tsv").read_text().count("bad\t") == 2  # a failed phase still records its time
