"""The confined sandbox hardened in depth (issue 26): a time limit kept on the host side, and a seccomp filter plus
no new user namespaces for what R never needs."""

import re
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
    # stop every process this program can see, and hold pid 1 under a tracer (gdb where installed)
    'system("for p in /proc/[0-9]*; do [ ${p#/proc/} = $$ ] || kill -STOP ${p#/proc/} 2>/dev/null; done")\n'
    "system(\"gdb -p 1 -batch -ex 'shell sleep 120' >/dev/null 2>&1 &\")\n"
    'system("strace -p 1 -o /dev/null >/dev/null 2>&1 &")\n'
    'cat("still here\\n")\nwhile (TRUE) {}'
)


@pytest.fixture
def box():
    env = ConfinedSandboxEnvironment(ConfinedLimits(cpu_seconds=30, memory_bytes=1024**3))
    yield env
    env.close()


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
async def test_a_program_that_stops_or_traces_the_timer_ends_at_the_limit_with_its_output(box):
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
