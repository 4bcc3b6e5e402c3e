"""One confined command: bubblewrap + prlimit, an empty environment, captured output, whole-tree kill.

Nothing of the host's environment exists inside: the process that runs bubblewrap is started with only the
variables the command needs (so bubblewrap's own ``/proc/<pid>/environ`` holds no secret), and bubblewrap runs the
command as the sandbox's pid 1 (``--as-pid-1``), so no host-started process is visible, traceable or readable from
inside. When pid 1 exits, the kernel kills everything else left in the namespace.

The wall-clock limit is kept on the host side (this process times the command and kills its whole tree), so nothing
the program does inside (trace or stop a timer, ignore signals) extends it; what the command printed up to the
limit comes with the :class:`ConfinedTimeoutError`. bubblewrap loads the :mod:`.seccomp` filter and, where it
supports ``--disable-userns``, forbids new user namespaces inside.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from inspect_ai.util import ExecResult

from causalverify_inspect.sandbox.launch import launcher_argv
from causalverify_inspect.sandbox.libraries import host_r_libraries, library_binds, library_environment
from causalverify_inspect.sandbox.limits import ConfinedLimits, SampleGuard
from causalverify_inspect.sandbox.seccomp import filter_fd

WORKDIR = PurePosixPath("/workdir")
"""The work dir as the sandboxed command sees it (its current directory)."""
NOTE_PREFIX = "[sandbox:"
"""Lines the sandbox appends to captured output (truncation, signals, limits); not the program's output."""
LAUNCH_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
"""The whole environment of the launcher and bubblewrap: nothing inherited from the host process."""

_RO_SYSTEM = ("/usr",)
_PYTHON_GLOBS = ("lib/python*", "local/lib/python*", "share/python*", "local/share/python*")
# import-graph: names, not loads (the suite's package folders, masked in the sandbox)
_SUITE_PACKAGES = ("causal_suite", "cobe_inspect", "glass_inspect", "causalverify_inspect", "frail")
_NEEDED = ("/usr/bin", "/usr/local/bin", "/usr/lib/R", "/usr/local/lib/R", "/usr/share/R", "/usr/lib/x86_64-linux-gnu")
"""What R needs under ``/usr``: no mask may cover one of these."""


@functools.cache
def masked_dirs() -> list[str]:
    """Directories of the bound system tree the program must not see, each masked by an empty read-only tmpfs:
    every Python installation under ``/usr`` (``lib/python*``, ``local/lib/python*``...), the running interpreter's
    library and site directories, and this suite's own packages where they lie under ``/usr`` (a system-wide
    install), so no Python environment, no API client and none of the suite's data (the canonical estimates of
    ``scenarios.json``) is readable inside. A directory holding something R needs is never masked."""
    found = {Path(p) for pattern in _PYTHON_GLOBS for p in Path("/usr").glob(pattern)}
    paths = sysconfig.get_paths()
    found |= {Path(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    found |= {Path(__file__).resolve().parents[2] / name for name in _SUITE_PACKAGES}
    usr = {p.resolve() for p in found if p.is_dir() and p.resolve().is_relative_to("/usr")}
    usr = {p for p in usr if not any(Path(needed).is_relative_to(p) for needed in _NEEDED)}
    return sorted(str(p) for p in usr if not any(q != p and p.is_relative_to(q) for q in usr))


_RO_ETC = ("/etc/R", "/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/fonts")
_USR_LINKS = ("lib", "lib64", "bin", "sbin")


class ConfinedTimeoutError(TimeoutError):
    """A confined command ran past its wall-clock limit and was killed from the host side; ``truncated_output``
    and ``stderr`` hold what it printed until then (each capped like a normal result)."""

    def __init__(self, timeout: float | None, stdout: str, stderr: str) -> None:
        super().__init__(f"confined command exceeded its wall-clock limit of {timeout} s")
        self.truncated_output = stdout
        self.stderr = stderr


@functools.cache
def userns_can_be_disabled() -> bool:
    """Whether this host's bubblewrap takes ``--disable-userns`` (0.8.0 and later, and a kernel allowing the user
    namespace it needs); probed once, unprivileged as the sandbox runs."""
    probe = [*launcher_argv([], 65534 if os.geteuid() == 0 else None), "bwrap", "--unshare-user", "--disable-userns"]
    probe += ["--ro-bind", "/", "/", "true"]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(probe, capture_output=True, timeout=30, env=LAUNCH_ENV, check=False).returncode == 0
    return False


def _system_binds() -> list[str]:
    """The host's system tree, read-only: ``/usr``, the top-level links into it, R's files under ``/etc``, and the
    empty tmpfs over each of :func:`masked_dirs`."""
    argv: list[str] = []
    for path in _RO_SYSTEM:
        argv += ["--ro-bind", path, path]
    for name in _USR_LINKS:
        if Path(f"/usr/{name}").exists() and Path(f"/{name}").is_symlink():
            argv += ["--symlink", f"usr/{name}", f"/{name}"]
        elif Path(f"/{name}").is_dir():
            argv += ["--ro-bind", f"/{name}", f"/{name}"]
    for path in _RO_ETC:
        if Path(path).exists():
            argv += ["--ro-bind", path, path]
    for path in masked_dirs():
        argv += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return argv


def _private_mounts(workdir: Path, limits: ConfinedLimits, libraries: tuple[Path, ...]) -> list[str]:
    """A fresh ``/proc`` and ``/dev``, size-capped tmpfs ``/dev/shm`` and ``/tmp``, the installed packages of the
    host's R ``libraries`` read-only (:mod:`.libraries`), ``workdir`` as the only writable bind; the root and
    ``/dev`` read-only once set up."""
    return [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(limits.shm_bytes),
        "--tmpfs",
        "/dev/shm",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",
        *library_binds(libraries),
        "--bind",
        str(workdir),
        str(WORKDIR),
        # bubblewrap's own root and /dev are tmpfs mounts the program could fill: read-only once set up
        "--remount-ro",
        "/",
        "--remount-ro",
        "/dev",
    ]


def _environment(env: dict[str, str], libraries: tuple[Path, ...]) -> list[str]:
    """``--setenv`` of the command's whole environment: a fixed base (with ``R_LIBS`` naming the host's R
    ``libraries``), ``env`` on top."""
    base_env = {
        "PATH": LAUNCH_ENV["PATH"],
        "HOME": str(WORKDIR),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "R_LIBS_USER": "/nonexistent",
        **library_environment(libraries),
    }
    argv: list[str] = []
    for key, value in {**base_env, **env}.items():
        argv += ["--setenv", key, value]
    return argv


def _prlimit(limits: ConfinedLimits) -> list[str]:
    """The ``prlimit`` prefix of the per-process limits (CPU, address space, processes, file size, open files)."""
    return [
        "prlimit",
        f"--cpu={limits.cpu_seconds}",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def bwrap_argv(
    workdir: Path, cwd: PurePosixPath, limits: ConfinedLimits, env: dict[str, str], seccomp_fd: int | None = None
) -> list[str]:
    """The bubblewrap + prlimit prefix that confines one command (the command's argv follows it); ``seccomp_fd``:
    a descriptor holding the seccomp filter, inherited by bubblewrap. The host's R libraries are those its
    ``R_LIBS`` names now (:func:`.libraries.host_r_libraries`)."""
    libraries = host_r_libraries()
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1"]
    if userns_can_be_disabled():
        argv += ["--unshare-user", "--disable-userns"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += _system_binds() + _private_mounts(workdir, limits, libraries)
    argv += ["--chdir", str(cwd), "--clearenv", *_environment(env, libraries)]
    return [*argv, "--", *_prlimit(limits)]


@dataclass
class Capture:
    """One output stream, capped: the first and the last ``cap // 2`` bytes are kept, the middle is counted."""

    cap: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap // 2 - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - (self.cap - self.cap // 2))]

    def text(self, name: str) -> str:
        kept = len(self.head) + len(self.tail)
        head = bytes(self.head).decode("utf-8", errors="replace")
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        if self.total <= kept:
            return head + tail
        return (
            f"{head}\n{NOTE_PREFIX} {name} truncated, {self.total - kept} of {self.total} bytes dropped here]\n{tail}"
        )


async def _pump(stream: asyncio.StreamReader, into: Capture) -> None:
    while chunk := await stream.read(65536):
        into.add(chunk)


def without_sandbox_notes(text: str) -> str:
    """``text`` without the lines this sandbox appended to it."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(NOTE_PREFIX))


async def _start(
    cmd: list[str],
    workdir: Path,
    guard: SampleGuard,
    cwd: PurePosixPath,
    env: dict[str, str],
    uid: int | None,
    with_input: bool,
) -> asyncio.subprocess.Process:
    """Start ``cmd`` under the launcher and bubblewrap, in a session of its own, with only ``LAUNCH_ENV``; the
    seccomp filter's descriptor is passed to bubblewrap and closed here once it is started."""
    seccomp = filter_fd()
    launcher = launcher_argv(guard.cgroup.dirs if guard.cgroup else [], uid)
    argv = launcher + bwrap_argv(workdir, cwd, guard.limits, env, seccomp) + list(cmd)
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if with_input else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            env=LAUNCH_ENV,
            pass_fds=() if seccomp is None else (seccomp,),
        )
    finally:
        if seccomp is not None:
            os.close(seccomp)


async def _feed(proc: asyncio.subprocess.Process, input: str | bytes) -> None:
    """Write ``input`` to the command's stdin and close it; a command that does not read it is no error."""
    assert proc.stdin is not None  # a pipe when there is input
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(input.encode() if isinstance(input, str) else input)
        await proc.stdin.drain()
        proc.stdin.close()


def _end_notes(breach: str | None, guard: SampleGuard, code: int | None) -> str:
    """The notes appended to stderr after the command ended: a breached sample limit, the memory limit reached,
    the signal that killed it."""
    notes = ""
    if breach:
        notes += f"\n{NOTE_PREFIX} {breach}; the command was killed]\n"
    elif guard.cgroup is not None and guard.cgroup.memory_limit_hit():
        shared = guard.budget is not None and guard.budget.memory_limit_hit()
        where = " or the eval-wide memory budget its samples share" if shared else ""
        notes += f"\n{NOTE_PREFIX} the sample reached its memory limit of {guard.limits.memory_bytes} bytes{where}]\n"
    if code is not None and code < 0:
        notes += f"{NOTE_PREFIX} killed by signal {signal.Signals(-code).name}]\n"
    return notes


async def run_confined(
    cmd: list[str],
    workdir: Path,
    guard: SampleGuard,
    *,
    cwd: PurePosixPath = WORKDIR,
    timeout: float | None = None,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    uid: int | None = None,
) -> ExecResult[str]:
    """Run ``cmd`` confined, with ``workdir`` as its only writable directory.

    The whole process tree is killed on timeout (then :class:`ConfinedTimeoutError` carries the output so far), on
    cancellation and when a sample limit is breached (the breach is noted at the end of stderr and the return code
    is -9). Output beyond ``limits.output_bytes`` per stream is dropped from the middle and the drop noted where it
    happened.
    """
    limits = guard.limits
    proc = await _start(cmd, workdir, guard, cwd, env or {}, uid, with_input=input is not None)
    out, err = Capture(limits.output_bytes), Capture(limits.output_bytes)
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    finished = asyncio.ensure_future(asyncio.gather(_pump(proc.stdout, out), _pump(proc.stderr, err), proc.wait()))
    watcher = asyncio.ensure_future(guard.watch(proc.pid)) if guard.needs_watch() else None
    breach, late = None, False
    try:
        if input is not None:
            await _feed(proc, input)
        waiting = {finished} | ({watcher} if watcher else set())
        done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        late = not done
        if watcher in done:
            breach = watcher.result()
    finally:
        if not finished.done():
            _kill(proc.pid, guard)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(finished), 10)
        if watcher is not None:
            watcher.cancel()
    code = proc.returncode
    stderr = err.text("stderr")
    if late:
        raise ConfinedTimeoutError(timeout, out.text("stdout"), stderr)
    stderr += _end_notes(breach, guard, code)
    return ExecResult(
        success=code == 0 and not breach,
        returncode=code if code is not None else -1,
        stdout=out.text("stdout"),
        stderr=stderr,
    )


def _kill(pid: int, guard: SampleGuard) -> None:
    """Kill everything of the sample still alive (found while the launcher still links it), then the launcher."""
    guard.kill_all(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
