"""The confined sandbox against hostile code: no host secret is reachable, limits hold for the sample as a whole,
cleanup cannot fail, nothing outlives a cancelled command, and the scorer trusts only the sandbox's own checks."""

import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from causalverify_inspect.sandbox import ConfinedLimits, ConfinedSandboxEnvironment
from causalverify_inspect.sandbox.cleanup import lock_path, remove_tree, sweep_stale
from causalverify_inspect.sandbox.confine import Capture
from causalverify_inspect.sandbox.limits import CGROUP_PREFIX, Quota, SampleCgroup

CANARIES = {"OPENAI_API_KEY": "sk-canary-0penai-93f1c2", "ANTHROPIC_API_KEY": "sk-ant-canary-7d2e4b"}
SMALL = dict(
    cpu_seconds=20,
    memory_bytes=768 * 1024**2,
    processes=48,
    file_bytes=16 * 1024**2,
    output_bytes=64 * 1024,
    tmp_bytes=32 * 1024**2,
    shm_bytes=16 * 1024**2,
    workdir_bytes=48 * 1024**2,
    workdir_files=500,
)
needs_sandbox = [pytest.mark.needs_r, pytest.mark.needs_bwrap]
MODES = ["auto", "watch"]

LEAK_R = {
    "Sys.getenv": "print(Sys.getenv())",
    "environ of every pid": 'for (f in Sys.glob("/proc/[0-9]*/environ")) try(print(readBin(f, "raw", 1e5)))\n'
    'for (f in Sys.glob("/proc/[0-9]*/environ")) try(cat(rawToChar(readBin(f, "raw", 1e5))))',
}
LEAK_SH = {
    "memory of every pid": r"""for p in /proc/[0-9]*; do grep -E '\[(stack|heap)\]' $p/maps 2>/dev/null |
  while read range rest; do s=${range%-*}; e=${range#*-}
    dd if=$p/mem bs=4096 skip=$((0x$s/4096)) count=$(((0x$e-0x$s)/4096)) 2>/dev/null > /tmp/m
    echo "$p: read $(wc -c < /tmp/m) bytes"; tr '\0' '\n' < /tmp/m | grep -a -E 'API_KEY|sk-'; done; done""",
    "ps e": "ps axeww 2>&1; ls -la /proc 2>&1",
    "shell env": "env; cat /proc/self/environ /proc/1/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n'",
    "ptrace pid 1": "timeout 3 strace -f -p 1 2>&1 | head -5; timeout 5 gdb -p 1 -batch -ex 'info proc' 2>&1 | head;"
    "echo attempted ptrace",
}


@pytest.fixture(params=MODES)
def box(request):
    env = ConfinedSandboxEnvironment(ConfinedLimits(**SMALL, enforcement=request.param))
    yield env
    env.close()


@pytest.fixture
def auto_box():
    env = ConfinedSandboxEnvironment(ConfinedLimits(**SMALL))
    yield env
    env.close()


async def run_r(box, code: str, timeout: int = 30):
    await box.write_file("t.R", code)
    return await box.exec(["Rscript", "--vanilla", "t.R"], timeout=timeout)


@pytest.mark.parametrize("name", [*LEAK_R, *LEAK_SH])
@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_no_program_can_print_the_host_api_keys(auto_box, monkeypatch, name):
    for key, value in CANARIES.items():
        monkeypatch.setenv(key, value)
    if name in LEAK_SH:
        await auto_box.write_file("leak.sh", LEAK_SH[name])
    result = await run_r(auto_box, LEAK_R.get(name, 'system("sh leak.sh")'))
    seen = result.stdout + result.stderr
    assert len(seen) > 20, seen  # the program did run and print something
    for value in CANARIES.values():
        assert value not in seen


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_the_sandbox_sees_only_its_own_processes(auto_box):
    result = await run_r(
        auto_box,
        'cat(sort(as.integer(dir("/proc", pattern = "^[0-9]+$"))), "\\n")\n'
        'cat(readLines("/proc/1/cmdline", warn = FALSE), "\\n")',
    )
    pids = result.stdout.split("\n")[0].split()
    assert pids[0] == "1" and len(pids) <= 3, result.stdout  # R itself as pid 1, maybe its readers
    assert "bwrap" not in result.stdout and "python" not in result.stdout


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_forked_workers_share_one_memory_limit(box):
    # five workers of ~400 MB each: each under the per-process cap, together 2.6 times the sample's 768 MiB
    await box.write_file("worker.R", 'x <- numeric(5e7); x[] <- 1; Sys.sleep(4); cat("alive\\n")')
    started = time.monotonic()
    result = await run_r(box, 'system("for i in 1 2 3 4 5; do Rscript --vanilla worker.R & done; wait")', timeout=60)
    assert result.stdout.count("alive") < 5
    assert time.monotonic() - started < 50
    assert "memory limit" in result.stderr, result.stderr[-400:]


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
@pytest.mark.parametrize("mount", ["/tmp", "/dev/shm"])
async def test_tmp_and_shm_are_size_capped(auto_box, mount):
    code = (
        f'for (i in 1:12) try(writeBin(raw(8e6), paste0("{mount}/f", i)), silent = TRUE)\n'
        f'cat(sum(file.size(Sys.glob("{mount}/f*"))), "\\n")'
    )
    result = await run_r(auto_box, code)
    written = int(result.stdout.split()[0])
    cap = SMALL["tmp_bytes"] if mount == "/tmp" else SMALL["shm_bytes"]
    assert written <= cap < 12 * 8e6


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_work_dir_bytes_are_capped_for_the_sample(box):
    # ten files of 8 MB: each under the 16 MiB file limit, together above the 48 MiB work dir quota
    code = 'for (i in 1:10) { writeBin(raw(8e6), paste0("big", i, ".bin")); Sys.sleep(0.3) }\ncat("wrote all\\n")'
    await run_r(box, code)
    total = sum(p.stat().st_size for p in box.workdir.glob("big*.bin"))
    slack = 8e6 if box.limits.enforcement == "watch" else 0  # one more file may land between two polls
    assert total <= SMALL["workdir_bytes"] + slack < 80e6


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_work_dir_file_count_is_capped(box):
    code = 'for (i in 1:3000) { file.create(paste0("f", i)); if (i %% 200 == 0) Sys.sleep(0.25) }\ncat("made all\\n")'
    await run_r(box, code)
    slack = 400 if box.limits.enforcement == "watch" else 0
    assert len(os.listdir(box.workdir)) <= SMALL["workdir_files"] + slack < 3000


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_process_count_is_capped_for_the_sample(box):
    result = await run_r(box, 'system("for i in $(seq 200); do sleep 5 & done; wait; echo all-forked")', timeout=30)
    assert "all-forked" not in result.stdout


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_cancelled_command_leaves_no_process(auto_box):
    await auto_box.write_file("t.R", 'system("sleep 301.5 &"); Sys.sleep(300)')
    task = asyncio.ensure_future(auto_box.exec(["Rscript", "--vanilla", "t.R"], timeout=60))
    await asyncio.sleep(2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.5)
    assert _processes_with_args("sleep\x00301.5") == []


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_deep_nesting_is_cleaned_up_without_error():
    env = ConfinedSandboxEnvironment(ConfinedLimits(**SMALL))
    await run_r(
        env,
        'for (i in 1:2100) { dir.create("d"); setwd("d") }; file.create("leaf"); Sys.chmod(".", "000")\ncat("deep\\n")',
    )
    workdir = env.workdir
    env.close()
    assert not workdir.exists()


def test_remove_tree_handles_depth_links_and_permissions(tmp_path):
    root = tmp_path / "w"
    outside = tmp_path / "keep.txt"
    outside.write_text("keep")
    _deep(root, 2500)  # deeper than Python's recursion limit, and past PATH_MAX as one path
    (root / "link").symlink_to(tmp_path)
    (root / "file_link").symlink_to(outside)
    (root / "locked").mkdir()
    (root / "locked" / "x").write_text("x")
    (root / "locked").chmod(0)
    remove_tree(root)
    assert not root.exists() and outside.read_text() == "keep"


def _deep(root: Path, depth: int) -> None:
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


HOLD_LOCK = (
    "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); "
    "print('locked', flush=True); time.sleep(60)"
)


def test_sweep_decides_by_the_owning_evals_lock_not_by_pid():
    base = Path(tempfile.gettempdir())
    dead, live, alien = (f"{secrets.token_hex(6)}" for _ in range(3))
    lock_path(dead).touch()  # an eval that ended: its lock file stays, nobody holds it
    made = {token: base / f"{CGROUP_PREFIX}{token}-sample" for token in (dead, live, alien, str(2**22 + 12345))}
    for path in made.values():
        (path / "sub").mkdir(parents=True)
    # the live owner runs in a pid namespace of its own: its pid means nothing here, its lock does
    holder = subprocess.Popen(
        ["unshare", "--pid", "--fork", sys.executable, "-c", HOLD_LOCK, str(lock_path(live))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        removed = sweep_stale()
        assert str(made[dead]) in removed and not made[dead].exists() and not lock_path(dead).exists()
        assert made[live].exists() and lock_path(live).exists()  # a live eval's sample is never touched
        assert made[alien].exists()  # no lock file: not ours to judge
        assert not made[str(2**22 + 12345)].exists()  # an older version's name, its pid gone
    finally:
        holder.kill()
        holder.wait()
        for path in made.values():
            remove_tree(path)
        lock_path(live).unlink(missing_ok=True)


def test_stale_cgroups_are_swept_where_the_host_allows_them():
    token = secrets.token_hex(6)
    lock_path(token).touch()
    quota = Quota.of_sample(ConfinedLimits())
    group = SampleCgroup.create(f"{CGROUP_PREFIX}{token}-eval", quota, nest=True)
    if group is None:
        pytest.skip("this host allows no cgroup of our own (the watcher enforces the sample limits)")
    sample = SampleCgroup.create(f"{CGROUP_PREFIX}{token}-sample", quota, parent=group)
    assert sample is not None and all(d.parent in group.dirs for d in sample.dirs)
    removed = sweep_stale()
    assert all(str(d) in removed for d in group.dirs)
    assert not any(d.exists() for d in group.dirs + sample.dirs)


def test_capture_keeps_the_first_and_last_halves():
    capture = Capture(cap=20)
    for chunk in (b"HEAD-", b"x" * 1000, b"-the-estimate"):
        capture.add(chunk)
    text = capture.text("stdout")
    assert text.startswith("HEAD-xxxxx") and text.endswith("e-estimate")
    assert "998 of 1018 bytes dropped" in text


def _processes_with_args(args: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and Path(f"/proc/{pid}/cmdline").read_text().startswith(args):
                found.append(pid)
        except OSError:
            pass
    return found


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_the_eval_log_never_holds_the_host_api_keys(monkeypatch, scripted, tmp_path):
    import zipfile

    from inspect_ai import eval

    from causalverify_inspect.task import exp_b

    for key, value in CANARIES.items():
        monkeypatch.setenv(key, value)
    spy = (
        "print(Sys.getenv()); system(\"cat /proc/1/environ /proc/*/environ | tr '\\\\0' '\\\\n'; ps axeww\")\n"
        'cat("Estimate: 0.1\\n")'
    )
    reply = f"## 1. Identification strategy\nDID.\n\n## 2. R code\n```r\n{spy}\n```\n"
    log = eval(
        exp_b(ids="did_easy_01", sandbox="confined", timeout=20),
        model=scripted(reply),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success"
    run = log.samples[0].store["cv_run"]
    assert "R_HOME" in run["stdout"] and run["exit_code"] == 0  # the spy ran and its output was logged
    with zipfile.ZipFile(log.location) as archive:
        logged = b"".join(archive.read(name) for name in archive.namelist())
    for value in CANARIES.values():
        assert value.encode() not in logged
