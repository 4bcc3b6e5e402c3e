"""exp_b end to end in Docker (issue 16): reference solutions of all four families, hostile programs, a replay of
upstream's responses; the limits of the compose files checked from inside a running container.

Needs a Docker engine >= 24.0.6, Compose v2 and the Debian image (``bash .ci/docker.sh up`` on a Debian machine, or
``bash sandboxes/r/build.sh debian`` with an engine running); skips with the reason otherwise (fails in CI, where
``CAUSAL_SUITE_REQUIRE_DOCKER=1``). Each eval prints one line per sample with its exec time (run with ``-s``).
"""

from __future__ import annotations

import json
import math
import shutil
import zipfile

import pytest
from inspect_ai import eval
from test_cv_task import (
    FILES,
    REFERENCE_R,
    REPLAY_SLUG,
    agreeing_cells,
    answer,
    by_file,
    replay_upstream,
    scenario_dir,  # noqa: F401 (a fixture)
    scores_by_id,
)

from causalverify_inspect.task import exp_b

pytestmark = pytest.mark.needs_docker
CANARY = {"OPENAI_API_KEY": "sk-canary-docker-4b1d9e", "ANTHROPIC_API_KEY": "sk-ant-canary-docker-0c7f3a"}
GiB, MiB = 1024**3, 1024**2

LIMITS_SH = r"""
for i in $(seq 12); do dd if=/dev/zero of=/tmp/f$i bs=1M count=32 2>/dev/null; done
echo "tmp_bytes $(du -sb /tmp | cut -f1)"
for i in $(seq 12); do dd if=/dev/zero of=/dev/shm/f$i bs=1M count=8 2>/dev/null; done
echo "shm_bytes $(du -sb /dev/shm | cut -f1)"
mkdir -p big; for i in $(seq 12); do dd if=/dev/zero of=big/f$i bs=1M count=50 2>/dev/null; done
echo "work_bytes $(du -sb . | cut -f1)"; rm -rf big
mkdir -p many; (cd many && for i in $(seq 12000); do : > f$i 2>/dev/null || break; done)
echo "work_files $(find . | wc -l)"; rm -rf many
(dd if=/dev/zero of=fsz bs=1M count=300 2>/dev/null); echo "file_bytes $(stat -c %s fsz)"; rm -f fsz
n=0; for i in $(seq 300); do eval "exec $((i + 9))>/dev/null" 2>/dev/null || break; n=$i; done; echo "open_files $n"
echo "core_limit $(ulimit -c)"; sh -c 'kill -SEGV $$'; echo "core_files $(ls | grep -c '^core')"
echo "caps $(grep CapEff /proc/self/status | cut -f2) nnp $(grep NoNewPrivs /proc/self/status | cut -f2)"
echo "user $(id -u) pid1 $(tr '\0' ' ' < /proc/1/cmdline)"
"""

HOSTILE = {
    "loop": "while (TRUE) {}",
    "fork_bomb": 'system("b(){ b | b & }; b")\nSys.sleep(3)\n'
    'cat("processes", length(dir("/proc", pattern = "^[0-9]+$")), "\\n")',
    "memory_bomb": 'x <- numeric(4e8)\nx[] <- 1\ncat("survived\\n")',
    # three workers of 960 MB: each under the container's 2 GiB, together above it
    "memory_workers": "system(\"for i in 1 2 3; do Rscript --vanilla -e 'x <- numeric(1.2e8); x[] <- 1; "
    'Sys.sleep(3); cat(\\"alive\\\\n\\")\' & done; wait")\n'
    'f <- c("/sys/fs/cgroup/memory/memory.max_usage_in_bytes", "/sys/fs/cgroup/memory.peak")\n'
    'cat("peak_bytes", readLines(f[file.exists(f)][1]), "\\n")',
    "network": 'for (h in c("127.0.0.1", "172.17.0.1", "10.0.0.1")) cat(h, tryCatch({\n'
    '  con <- socketConnection(h, 80, open = "r+", timeout = 3); close(con); "connected"},\n'
    '  error = function(e) "refused", warning = function(w) conditionMessage(w)), "\\n")\n'
    'cat("dns", tryCatch(length(utils::nsl("localhost.localdomain")), error = function(e) "failed"), "\\n")',
    "write_outside": 'for (p in c("../escape.txt", "/home/ruser/escape.txt", "/etc/escape.txt",\n'
    '           "/usr/lib/R/escape.txt", "/var/tmp/escape.txt", "/escape.txt"))\n'
    "  cat(p, suppressWarnings(tryCatch(\n"
    '  file.create(p), error = function(e) FALSE)), "\\n")',
    "huge_output": 'for (i in 1:150000) cat(strrep("x", 100), "\\n")\ncat("Estimate: 1\\n")',
    "environ": 'print(Sys.getenv())\nfor (f in Sys.glob("/proc/[0-9]*/environ")) try(cat(f, rawToChar(readBin(f, '
    '"raw", 1e5)), "\\n"))\nsystem("cat /proc/1/environ /proc/self/environ | tr \'\\\\0\' \'\\\\n\'")',
    "limits": f'writeLines({json.dumps(LIMITS_SH)}, "limits.sh")\nsystem("bash limits.sh 2>&1")',
}


def report(log) -> dict[str, dict]:
    """One line per sample (id, exit code, exec seconds, levels) on stdout; returns {id: cv_run record}."""
    runs = {}
    print(
        f"\n[docker] {log.eval.task} sandbox={log.eval.metadata['sandbox']} "
        f"image={log.eval.metadata['r_environment']['image']} status={log.status}"
    )
    for sample in sorted(log.samples, key=lambda s: str(s.id)):
        run = sample.store.get("cv_run", {})
        runs[str(sample.id)] = run
        score = next(iter(sample.scores.values()))
        levels = (
            {k: v if math.isnan(v) else int(v) for k, v in score.value.items() if k in ("L2b", "L2b_plus")}
            if isinstance(score.value, dict)
            else score.value
        )
        print(
            f"[docker]   {sample.id:<16} exit={run.get('exit_code')!s:<5} timed_out={run.get('timed_out')!s:<5} "
            f"exec={run.get('seconds', 0):6.2f} s  {levels}  {score.explanation[:70]!r}"
        )
    return runs


@pytest.fixture
def hostile_dir(scenario_dir):
    """The four scenarios t1-t4 plus one DID copy per hostile program (data/<name>.csv routes the scripted reply)."""
    doc = json.loads((scenario_dir / "scenarios.json").read_text())
    did = doc["scenarios"][0]
    for name in HOSTILE:
        shutil.copy(scenario_dir / did["data_file"], scenario_dir / f"data/{name}.csv")
        doc["scenarios"].append({**did, "scenario_id": name, "data_file": f"data/{name}.csv"})
    (scenario_dir / "scenarios.json").write_text(json.dumps(doc))
    return scenario_dir


def test_reference_solutions_pass_in_docker_for_every_family(scenario_dir, scripted, tmp_path):
    model = scripted(by_file({f: answer(code) for f, code in REFERENCE_R.items()}))
    log = eval(
        exp_b(scenarios=str(scenario_dir), sandbox="auto", timeout=60),
        model=model,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    runs = report(log)
    assert log.status == "success"
    env = log.eval.metadata["r_environment"]
    assert env["sandbox"] in ("docker", "docker-debian") and env["requested"] == "auto" and env["engine"]
    assert {sid: s.value["L2b_plus"] for sid, s in scores_by_id(log).items()} == {"t1": 1, "t2": 1, "t3": 1, "t4": 1}
    assert all(run["exit_code"] == 0 for run in runs.values())


def test_hostile_programs_are_contained_in_docker(hostile_dir, scripted, tmp_path, monkeypatch):
    for key, value in CANARY.items():
        monkeypatch.setenv(key, value)
    replies = {FILES[f]: answer(code) for f, code in REFERENCE_R.items()}
    replies.update({f"data/{name}.csv": answer(code) for name, code in HOSTILE.items()})
    log = eval(
        exp_b(scenarios=str(hostile_dir), sandbox="docker-debian", timeout=30),
        model=scripted(replies),
        display="none",
        log_dir=str(tmp_path / "logs"),
        max_sandboxes=4,
    )[0]
    runs = report(log)
    assert log.status == "success"
    scores = scores_by_id(log)
    # honest samples beside the hostile ones score as alone
    assert [scores[t].value["L2b_plus"] for t in ("t1", "t2", "t3", "t4")] == [1, 1, 1, 1]
    assert runs["loop"]["timed_out"] and scores["loop"].explanation == "timed out"
    assert int(runs["fork_bomb"]["stdout"].split("processes")[1].split()[0]) <= 64
    assert runs["memory_bomb"]["exit_code"] == 137 and not runs["memory_bomb"]["timed_out"]
    assert "survived" not in runs["memory_bomb"]["stdout"]
    workers = runs["memory_workers"]["stdout"]
    assert workers.count("alive") < 3 and int(workers.split("peak_bytes")[1].split()[0]) <= 2 * GiB
    net = runs["network"]["stdout"]
    assert "connected" not in net and net.count("\n") >= 3, net
    assert "TRUE" not in runs["write_outside"]["stdout"] and runs["write_outside"]["stdout"].count("FALSE") == 6
    # inspect's docker exec keeps the first 10 MiB of each stream; the estimate printed after them is lost
    assert len(runs["huge_output"]["stdout"]) <= 10 * MiB + 64
    huge = scores["huge_output"]  # the reader abstains on an output this long: the extractor's, or unscored with why
    assert (huge.value["L2b_plus"] == 0) if isinstance(huge.value, dict) else bool(huge.metadata.get("extraction"))
    environ = runs["environ"]["stdout"] + runs["environ"]["stderr"]
    assert "PATH" in environ and not any(v in environ for v in CANARY.values())
    with zipfile.ZipFile(log.location) as archive:  # nor anywhere in the log
        assert not any(v.encode() in archive.read(n) for n in archive.namelist() for v in CANARY.values())
    got = dict(line.split(" ", 1) for line in runs["limits"]["stdout"].splitlines() if " " in line)
    assert int(got["tmp_bytes"]) <= 256 * MiB + 4096 and int(got["shm_bytes"]) <= 64 * MiB + 4096
    assert int(got["work_bytes"]) <= 512 * MiB and int(got["work_files"]) <= 10_000
    assert int(got["file_bytes"]) <= 256 * MiB and int(got["open_files"]) <= 256
    assert got["core_limit"] == "0" and got["core_files"] == "0"
    assert got["caps"].startswith("0000000000000000 nnp 1")
    assert got["user"].startswith("10001 pid1 /sbin/docker-init") or got["user"].startswith("10001 pid1 /dev/init")


@pytest.mark.shared_data
def test_replayed_upstream_responses_in_docker_agree_with_published_scores(shared_dir, tmp_path):
    log, root = replay_upstream(shared_dir, "docker-debian", tmp_path)
    report(log)
    assert log.status == "success"
    assert log.eval.metadata["profile"] == "debian" and log.eval.metadata["replayed_model"] == REPLAY_SLUG
    assert agreeing_cells(log, root, REPLAY_SLUG) >= 2
