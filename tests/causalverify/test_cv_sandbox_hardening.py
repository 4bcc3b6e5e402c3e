"""The confined sandbox hardened in depth (issue 26): a time limit kept on the host side, and a seccomp filter plus
no new user namespaces for what R never needs."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from causalverify_inspect.sandbox import ConfinedLimits, ConfinedSandboxEnvironment
from causalverify_inspect.sandbox.confine import ConfinedTimeoutError
from causalverify_inspect.sandbox.seccomp import CLONE, CLONE3, DENIED, filter_program

SRC = Path(__file__).resolve().parents[2] / "src"
UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
needs_x86_64 = pytest.mark.skipif(filter_program() is None, reason="the seccomp filter is built for x86_64 only")

STOP_THE_TIMER = (
    'cat("printed before the limit\\n")\n'
    # hold pid 1 under a tracer (a timer running as pid 1 would stop with it), and stop every other process but
    # this shell and R, its parent
    "system(\"gdb -p 1 -batch -ex 'shell sleep 120' >/dev/null 2>&1 &\")\n"
    'system("strace -p 1 -o /dev/null >/dev/null 2>&1 &")\n'
    "Sys.sleep(1)\n"
    'system("for p in /proc/[0-9]*; do p=${p#/proc/}; [ $p = $$ ] || [ $p = $PPID ] || kill -STOP $p; done 2>/dev/null")\n'
    'cat("still here\\n")\nwhile (TRUE) {}'
)


def _require_tracers() -> None:
    """The hostile programs below attach gdb and strace (installed by .ci/run); without them they attack less."""
    missing = [tool for tool in ("gdb", "strace") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (apt-get install gdb strace; .ci/run installs them)")


@pytest.fixture
def box():
    env = ConfinedSandboxEnvironment(ConfinedLimits(cpu_seconds=30, memory_bytes=1024**3))
    yield env
    env.close()


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_a_program_that_stops_or_traces_the_timer_ends_at_the_limit_with_its_output(box):
    _require_tracers()
    await box.write_file("t.R", STOP_THE_TIMER)
    started = time.monotonic()
    with pytest.raises(ConfinedTimeoutError) as raised:
        await box.exec(["Rscript", "--vanilla", "t.R"], timeout=4)
    assert time.monotonic() - started < 4 + 3
    assert "printed before the limit" in raised.value.truncated_output
    assert "still here" in raised.value.truncated_output


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_exp_b_scores_a_timer_stopping_program_timed_out_with_its_output_kept(scripted, tmp_path):
    from inspect_ai import eval

    _require_tracers()

    from causalverify_inspect.task import exp_b

    reply = f"## 1. Identification strategy\nDID.\n\n## 2. R code\n```r\n{STOP_THE_TIMER}\n```\n"
    log = eval(
        exp_b(ids="did_easy_01", sandbox="confined", timeout=4),
        model=scripted(reply),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success"
    sample = log.samples[0]
    run = sample.store["cv_run"]
    assert run["timed_out"] and run["exit_code"] is None and run["seconds"] < 4 + 3
    assert "printed before the limit" in run["stdout"] and "timed out after 4 s" in run["stderr"]
    assert next(iter(sample.scores.values())).explanation == "timed out"


@needs_x86_64
@pytest.mark.skipif(not UNISTD.exists(), reason=f"{UNISTD} (linux-libc-dev) is absent")
def test_the_filters_system_call_numbers_are_the_kernel_headers():
    header = dict(re.findall(r"#define __NR_(\w+) (\d+)", UNISTD.read_text()))
    assert {name: str(number) for name, number in DENIED.items()} == {name: header[name] for name in DENIED}
    assert (str(CLONE), str(CLONE3)) == (header["clone"], header["clone3"])


PROBE = """
import ctypes, errno, json, sys
from causalverify_inspect.sandbox.seccomp import DENIED, CLONE3, filter_program
libc = ctypes.CDLL(None, use_errno=True)
calls = {**DENIED, "clone3": CLONE3, "getpid": 39}
def probe():
    out = {}
    for name, nr in calls.items():
        if name in ("vhangup", "reboot", "acct", "swapoff", "settimeofday") and sys.argv[1] == "none":
            continue  # harmful when they succeed unfiltered (as root)
        ctypes.set_errno(0)
        args = [ctypes.c_long(-1)] + [ctypes.c_long(0)] * 4
        out[name] = 0 if libc.syscall(ctypes.c_long(nr), *args) >= 0 else ctypes.get_errno()
    return out
if sys.argv[1] == "filter":
    program = filter_program()
    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
    buffer = ctypes.create_string_buffer(program, len(program))
    assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    assert libc.syscall(317, 1, 0, ctypes.byref(Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_char_p)))) == 0
print(json.dumps(probe()))
"""


def _probe(mode: str) -> dict[str, int]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env={"PYTHONPATH": str(SRC)}, check=True
    )
    return json.loads(done.stdout)


@needs_x86_64
def test_each_blocked_system_call_gets_eperm_and_clone3_enosys():
    import errno

    filtered, plain = _probe("filter"), _probe("none")
    assert {name: filtered[name] for name in DENIED} == dict.fromkeys(DENIED, errno.EPERM)
    assert filtered["clone3"] == errno.ENOSYS and filtered["getpid"] == 0
    # the same bogus calls fail otherwise without the filter (no such process, bad address, unknown operation)
    for name in ("ptrace", "keyctl", "io_uring_setup", "process_vm_readv"):
        assert plain[name] not in (0, errno.EPERM), (name, plain[name])


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
@needs_x86_64
async def test_inside_the_sandbox_tracing_namespaces_and_mounts_are_refused(box):
    _require_tracers()
    code = (
        'cat(grep("^(Seccomp|NoNewPrivs):", readLines("/proc/self/status"), value = TRUE), sep = "\\n")\n'
        'for (cmd in c("unshare -U true", "unshare -m true", "unshare -n true", "mount -t tmpfs x /tmp", '
        '"strace -o /dev/null true", "perl -e \'syscall(101, 16, 1, 0, 0) == -1 or die; print $!+0\'")) '
        '{ out <- suppressWarnings(system(paste(cmd, "2>&1"), intern = TRUE)); '
        'cat(cmd, "->", if (is.null(attr(out, "status"))) "ok" else "refused", out, "\\n") }\n'
        'x <- parallel::mclapply(1:2, function(i) i * 2, mc.cores = 2); cat("forked", unlist(x), "\\n")'
    )
    await box.write_file("t.R", code)
    result = await box.exec(["Rscript", "--vanilla", "t.R"], timeout=30)
    assert result.success, result.stderr
    assert "Seccomp:\t2" in result.stdout and "NoNewPrivs:\t1" in result.stdout
    for cmd in ("unshare -U true", "unshare -m true", "unshare -n true", "mount -t tmpfs x /tmp", "strace"):
        line = next(line for line in result.stdout.splitlines() if line.startswith(cmd))
        assert "-> refused" in line and ("not permitted" in line or cmd.startswith("mount")), line
    perl = next(line for line in result.stdout.splitlines() if line.startswith("perl"))
    assert perl.rstrip().endswith("-> ok 1"), perl  # ptrace(PTRACE_ATTACH, 1): errno 1, EPERM
    assert "forked 2 4" in result.stdout  # fork, as R's parallel does it, is unaffected


# ------------------------------------------------------------------------ writable mounts, budgets, quotas
def _limits(**overrides) -> ConfinedLimits:
    return ConfinedLimits(**{"cpu_seconds": 30, "memory_bytes": 512 * 1024**2, **overrides})


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_only_the_capped_mounts_are_writable(box):
    code = (
        'for (p in c("/x", "/etc/x", "/var/x", "/run/x", "/dev/x", "/usr/x", "/tmp/x", "/dev/shm/x", "x")) '
        'cat(p, tryCatch({ writeLines("1", p); "written" }, error = function(e) "refused", '
        'warning = function(w) "refused"), "\\n")\n'
        'cat("mkdir", suppressWarnings(dir.create("/newdir")), "\\n")'
    )
    await box.write_file("t.R", code)
    result = await box.exec(["Rscript", "--vanilla", "t.R"], timeout=30)
    verdicts = dict(line.split() for line in result.stdout.splitlines())
    assert verdicts == {
        **dict.fromkeys(["/x", "/etc/x", "/var/x", "/run/x", "/dev/x", "/usr/x"], "refused"),
        **dict.fromkeys(["/tmp/x", "/dev/shm/x", "x"], "written"),
        "mkdir": "FALSE",
    }


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_the_watcher_counts_tmp_and_shm_pages_as_the_samples_memory():
    # 240 MB resident + 300 MB in /tmp + 150 MB in /dev/shm: each part under the 512 MiB, together over it
    limits = _limits(tmp_bytes=400 * 1024**2, shm_bytes=200 * 1024**2, enforcement="watch")
    env = ConfinedSandboxEnvironment(limits)
    try:
        code = (
            "x <- numeric(3e7); x[] <- 1\n"
            'system("head -c 300000000 /dev/zero > /tmp/a; head -c 150000000 /dev/zero > /dev/shm/b")\n'
            'cat("all written\\n"); Sys.sleep(20)'
        )
        await env.write_file("t.R", code)
        started = time.monotonic()
        result = await env.exec(["Rscript", "--vanilla", "t.R"], timeout=40)
        assert time.monotonic() - started < 15 and not result.success
        assert "sample memory limit exceeded" in result.stderr and "in /tmp and /dev/shm" in result.stderr
    finally:
        env.close()


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_concurrent_samples_share_the_eval_wide_memory_budget():
    import asyncio

    limits = _limits(memory_bytes=1024**3, eval_memory_bytes=700 * 1024**2)
    await ConfinedSandboxEnvironment.task_init("t", limits)
    group = ConfinedSandboxEnvironment.eval_groups.get(limits)
    if group is None:
        pytest.skip("this host allows no cgroup of our own (no eval-wide budget without one)")
    envs = [(await ConfinedSandboxEnvironment.sample_init("t", limits, {}))["default"] for _ in range(2)]
    try:
        assert all(d.parent in group.dirs for env in envs for d in env.guard.cgroup.dirs)
        for env in envs:  # 480 MB each: under the 1 GiB of a sample, together over the eval's 700 MiB
            await env.write_file("t.R", 'x <- numeric(6e7); x[] <- 1; Sys.sleep(4); cat("kept\\n")')
        results = await asyncio.gather(*(env.exec(["Rscript", "--vanilla", "t.R"], timeout=40) for env in envs))
        killed = [r for r in results if "kept" not in r.stdout]
        assert killed and all("eval-wide memory budget" in r.stderr for r in killed), [r.stderr for r in results]
    finally:
        for env in envs:
            env.close()
        await ConfinedSandboxEnvironment.task_cleanup("t", limits, True)
    assert not any(d.exists() for d in group.dirs)


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_a_cpu_quota_holds_the_sample_to_its_share():
    env = ConfinedSandboxEnvironment(_limits(cpus=0.5))
    try:
        if env.guard.cgroup is None:
            pytest.skip("this host allows no cgroup of our own (no CPU quota without one)")
        code = (
            "t <- proc.time(); s <- Sys.time()\nwhile (difftime(Sys.time(), s, units = 'secs') < 3) {}\n"
            'cat((proc.time() - t)[["user.self"]], "\\n")'
        )
        await env.write_file("t.R", code)
        result = await env.exec(["Rscript", "--vanilla", "t.R"], timeout=30)
        assert float(result.stdout.split()[0]) < 3 * 0.5 + 0.4, result.stdout  # half of 3 s, plus start-up
    finally:
        env.close()


# --------------------------------------------------------------------------------- uids, cleanup, launcher
@pytest.mark.skipif(os.geteuid() != 0, reason="samples get uids of their own only when the eval runs as root")
def test_a_uid_in_use_or_reserved_is_never_handed_out(monkeypatch):
    from causalverify_inspect.sandbox import uids

    busy = uids.UID_BASE + 17
    squatter = subprocess.Popen(["setpriv", f"--reuid={busy}", "--", "sleep", "30"])
    try:
        deadline = time.monotonic() + 10
        while not uids.uid_in_use(busy) and time.monotonic() < deadline:  # setpriv may not have switched yet
            time.sleep(0.05)
        assert uids.uid_in_use(busy)
        first_free, first_lock = uids.allocate_uid()
        draws = iter([17, first_free - uids.UID_BASE, first_free - uids.UID_BASE, 23])
        monkeypatch.setattr(uids.secrets, "randbelow", lambda n: next(draws))
        uid, lock = uids.allocate_uid()  # skips the squatter's uid, then the one reserved just before
        assert uid == uids.UID_BASE + 23
        for taken, fd in ((uid, lock), (first_free, first_lock)):
            (uids.uid_locks() / str(taken)).unlink()
            os.close(fd)
    finally:
        squatter.kill()
        squatter.wait()


@pytest.mark.needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="samples get uids of their own only when the eval runs as root")
async def test_cleanup_kills_the_samples_processes_not_every_process_of_its_uid():
    import asyncio

    from causalverify_inspect.sandbox.cleanup import processes_holding

    env = ConfinedSandboxEnvironment(_limits(enforcement="watch"))  # no cgroup: the work dir finds them
    bystander = subprocess.Popen(["setpriv", f"--reuid={env.uid}", "--", "sleep", "30"])
    running = asyncio.ensure_future(env.exec(["sh", "-c", "sleep 61.5 & sleep 61.25"], timeout=60))
    try:
        await asyncio.sleep(1.5)
        inside = processes_holding(env.workdir, quota=env.guard.workdir_quota)
        assert len(inside) >= 2  # bubblewrap's init and the shell at least
        env.close()
        await asyncio.sleep(0.3)
        assert not any(Path(f"/proc/{pid}").exists() for pid in inside)
        assert bystander.poll() is None  # the same uid outside the sandbox is not the sample's
    finally:
        running.cancel()
        bystander.kill()
        bystander.wait()


KILLED_EVAL = """
import os, signal, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from launch import launcher_argv
for delay in [0, 0, 0.0002, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.02] * 8:
    if os.fork() == 0:  # an eval that starts a sandbox and is killed a moment later
        subprocess.Popen(launcher_argv([], None) + ["bwrap", "--die-with-parent", "--ro-bind", "/", "/", "sleep", "93.5"])
        time.sleep(delay)
        os.kill(os.getpid(), signal.SIGKILL)
    os.wait()
"""


@pytest.mark.needs_bwrap
def test_no_sandbox_outlives_an_eval_killed_in_its_first_milliseconds(process_cmdlines):
    sandbox_dir = SRC / "causalverify_inspect" / "sandbox"
    subprocess.run([sys.executable, "-c", KILLED_EVAL, str(sandbox_dir)], check=True, timeout=60)
    # 80 evals: a kill that lands while bubblewrap's first process has not yet asked to die with bubblewrap (about
    # 1 start in 150 before the launcher stayed as the sandbox's subreaper) left that sandbox running. A sandbox
    # whose eval died is torn down within moments (it was once still going 0.5 s after); one that escaped would
    # sleep for 93.5 s, so 10 s of waiting tells the two apart
    deadline = time.monotonic() + 10
    while (left := [c for c in process_cmdlines() if c.startswith("sleep\x0093.5")]) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert left == []


def test_the_launcher_passes_on_the_commands_status_and_leaves_nothing_behind(process_cmdlines):
    from causalverify_inspect.sandbox.launch import launcher_argv

    def run(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run([*launcher_argv([], None), *command], capture_output=True, text=True, timeout=30)

    assert (run("sh", "-c", "echo out; echo err >&2; exit 3").returncode, run("true").stdout) == (3, "")
    said = run("sh", "-c", "echo out; echo err >&2")
    assert (said.returncode, said.stdout, said.stderr) == (0, "out\n", "err\n")
    assert run("sh", "-c", "kill -SEGV $$").returncode == -11  # the signal that killed it, re-raised
    orphan = run("sh", "-c", "setsid sleep 92.5 & echo started")  # its parent gone, it is the launcher's to kill
    assert (orphan.returncode, orphan.stdout) == (0, "started\n")
    assert not [c for c in process_cmdlines() if c.startswith("sleep\x0092.5")]


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_no_python_environment_and_none_of_the_suites_data_is_visible(box):
    import causalverify_inspect
    from causalverify_inspect.sandbox.confine import masked_dirs

    data = sorted(Path(causalverify_inspect.__file__).parent.rglob("*.json"))[:3]
    assert data  # the built-in scenarios and their canonical estimates
    python_dirs = [str(p) for p in Path("/usr/lib").glob("python3*")]
    assert set(python_dirs) <= set(masked_dirs())
    seen = [*python_dirs, sys.prefix, *map(str, data)]
    code = "for (p in commandArgs(TRUE)) cat(p, length(list.files(p)), file.exists(p), '\\n')\n"
    code += 'cat("python3:", system("python3 -c 1 2>/dev/null") == 0, "\\n")'
    await box.write_file("t.R", code)
    result = await box.exec(["Rscript", "--vanilla", "t.R", *seen], timeout=30)
    for line in result.stdout.splitlines()[: len(seen)]:
        path, files, exists = line.split()
        assert files == "0" and (exists == "FALSE" or path in python_dirs), line  # absent, or an empty mask
    assert "python3: FALSE" in result.stdout


def test_a_system_wide_python_is_masked_but_nothing_r_needs(monkeypatch):
    import sysconfig

    from causalverify_inspect.sandbox import confine

    system = {"stdlib": "/usr/lib/python3.11", "purelib": "/usr/local/lib/python3.11/dist-packages"}
    system |= {"scripts": "/usr/local/bin", "data": "/usr/local", "include": "/usr/include/python3.11"}
    monkeypatch.setattr(sysconfig, "get_paths", lambda: system)
    masked = confine.masked_dirs.__wrapped__()
    assert not {"/usr", "/usr/local", "/usr/local/bin", "/usr/lib", "/usr/include"} & set(masked)
    assert all("python" in path for path in masked), masked
