"""A confined local sandbox for model-written R, registered with inspect as ``confined``.

CausalVerify executes the R code a model writes (paper §4, App. C); upstream ran it on the host from its repository
root. Here every command runs under bubblewrap with:

- no network (fresh network namespace: only a loopback interface, no route out);
- a read-only view of the system (``/usr`` and the few ``/etc`` entries R needs), nothing else of the host: no
  home directory, no repository, no ``/root``, a private empty ``/tmp``;
- a private writable work dir (``/workdir`` inside) that holds only the files the task writes into it;
- its own PID namespace, so background processes die with the command;
- resource limits set with ``prlimit`` inside the namespace: CPU seconds, address space, processes, file size, open
  files, no core dumps; a wall-clock timeout kills the whole process tree;
- stdout and stderr captured and capped (the head is kept, the rest counted and dropped).

When the host process runs as root, each sample's commands run under their own unused uid (so the process limit
counts only that sample's processes and nothing of the host is writable or owned by it); otherwise they run under
the current uid. The Docker image in ``sandboxes/r/`` is the default sandbox; this one serves machines without a
Docker engine (see ``sandboxes/r/README.md``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal, Union, overload

from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from pydantic import BaseModel

from causal_suite.errors import SuiteInputError

SANDBOX_NAME = "confined"
WORKDIR = PurePosixPath("/workdir")
"""The work dir as the sandboxed command sees it (its current directory)."""

_RO_SYSTEM = ("/usr",)
_RO_ETC = ("/etc/R", "/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/fonts")
_USR_LINKS = ("lib", "lib64", "bin", "sbin")
_SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


class ConfinedLimits(BaseModel, frozen=True):
    """Per-command resource limits of the confined sandbox (the sandbox's inspect config)."""

    cpu_seconds: int = 300
    memory_bytes: int = 2 * 1024**3
    processes: int = 64
    file_bytes: int = 256 * 1024**2
    open_files: int = 256
    output_bytes: int = 1024**2
    """Bytes kept of each of stdout and stderr; the rest is counted and dropped."""


@dataclass
class _Stream:
    head: bytearray
    total: int = 0


def bwrap_available() -> bool:
    """True when bubblewrap and prlimit exist on this host."""
    return shutil.which("bwrap") is not None and shutil.which("prlimit") is not None


def bwrap_argv(workdir: Path, cwd: PurePosixPath, limits: ConfinedLimits, env: dict[str, str]) -> list[str]:
    """The bubblewrap + prlimit prefix that confines one command (the command's argv follows it)."""
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
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
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", str(workdir), str(WORKDIR)]
    argv += ["--chdir", str(cwd), "--clearenv"]
    base_env = {"PATH": _SAFE_PATH, "HOME": str(WORKDIR), "TMPDIR": "/tmp", "LANG": "C.UTF-8",
                "OMP_NUM_THREADS": "1", "R_LIBS_USER": "/nonexistent"}
    for key, value in {**base_env, **env}.items():
        argv += ["--setenv", key, value]
    argv += ["--", "prlimit", f"--cpu={limits.cpu_seconds}", f"--as={limits.memory_bytes}",
             f"--nproc={limits.processes}", f"--fsize={limits.file_bytes}", f"--nofile={limits.open_files}",
             "--core=0", "--"]
    return argv


def _as_user(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


async def _pump(stream: asyncio.StreamReader, into: _Stream, cap: int) -> None:
    while chunk := await stream.read(65536):
        room = cap - len(into.head)
        if room > 0:
            into.head += chunk[:room]
        into.total += len(chunk)


NOTE_PREFIX = "[sandbox:"
"""Lines the sandbox appends to captured output (truncation, signals); not the program's output."""


def without_sandbox_notes(text: str) -> str:
    """``text`` without the lines this sandbox appended to it."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(NOTE_PREFIX))


def _decode(stream: _Stream, name: str) -> str:
    text = bytes(stream.head).decode("utf-8", errors="replace")
    dropped = stream.total - len(stream.head)
    if dropped > 0:
        text += f"\n{NOTE_PREFIX} {name} truncated, {dropped} of {stream.total} bytes dropped]\n"
    return text


async def run_confined(
    cmd: list[str],
    workdir: Path,
    *,
    cwd: PurePosixPath = WORKDIR,
    limits: ConfinedLimits = ConfinedLimits(),
    timeout: float | None = None,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    uid: int | None = None,
) -> ExecResult[str]:
    """Run ``cmd`` confined, with ``workdir`` as its only writable directory; raise TimeoutError after ``timeout`` s.

    The whole process tree is killed on timeout (process group + PID namespace). Output beyond
    ``limits.output_bytes`` per stream is dropped and the drop noted at the end of the stream.
    """
    argv = _as_user(uid) + bwrap_argv(workdir, cwd, limits, env or {}) + list(cmd)
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    out, err = _Stream(bytearray()), _Stream(bytearray())
    pumps = asyncio.gather(_pump(proc.stdout, out, limits.output_bytes), _pump(proc.stderr, err, limits.output_bytes))
    if input is not None:
        proc.stdin.write(input.encode() if isinstance(input, str) else input)
        proc.stdin.close()
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.gather(pumps, proc.wait())), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        _kill_tree(proc.pid)
        await proc.wait()
        pumps.cancel()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise TimeoutError(f"confined command exceeded its wall-clock limit of {timeout} s") from None
    code = proc.returncode
    stderr = _decode(err, "stderr")
    if code is not None and code < 0:
        stderr += f"{NOTE_PREFIX} killed by signal {signal.Signals(-code).name}]\n"
    return ExecResult(success=code == 0, returncode=code if code is not None else -1,
                      stdout=_decode(out, "stdout"), stderr=stderr)


def _kill_tree(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@sandboxenv(name=SANDBOX_NAME)
class ConfinedSandboxEnvironment(SandboxEnvironment):
    """inspect sandbox type ``confined``: one private work dir per sample, commands run under bubblewrap."""

    def __init__(self, limits: ConfinedLimits) -> None:
        super().__init__()
        self.limits = limits
        self.workdir = Path(tempfile.mkdtemp(prefix="cv-confined-"))
        self.uid = _fresh_uid() if os.geteuid() == 0 else None
        self._own(self.workdir)

    @classmethod
    def config_deserialize(cls, config: dict) -> BaseModel:
        return ConfinedLimits(**config)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        if not bwrap_available():
            raise SuiteInputError(
                "The 'confined' sandbox needs bubblewrap (bwrap) and prlimit on PATH: install the 'bubblewrap' and "
                "'util-linux' packages, or use sandbox='docker'.")

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        limits = config if isinstance(config, ConfinedLimits) else ConfinedLimits()
        return {"default": cls(limits)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        for environment in environments.values():
            shutil.rmtree(environment.as_type(cls).workdir, ignore_errors=True)

    def default_polling_interval(self) -> float:
        return 0.2

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        """Run ``cmd`` confined (``user`` is ignored: commands always run unprivileged; no retry on timeout)."""
        inner_cwd = WORKDIR / self._relative(cwd or ".")
        return await run_confined(cmd, self.workdir, cwd=inner_cwd, limits=self.limits, timeout=timeout,
                                  input=input, env=env, uid=self.uid)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        path = self.workdir / self._relative(file)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        path.write_bytes(data)
        for part in [path, *path.relative_to(self.workdir).parents]:
            self._own(self.workdir / part)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> Union[str, bytes]:
        path = self.workdir / self._relative(file)
        if path.is_symlink():
            raise PermissionError(f"'{file}' is a symbolic link; the confined sandbox does not follow links out.")
        data = path.read_bytes()
        return data.decode("utf-8") if text else data

    def _relative(self, file: str) -> PurePosixPath:
        """``file`` relative to the work dir; absolute paths must lie under /workdir; no '..' escapes."""
        path = PurePosixPath(file)
        if path.is_absolute():
            if not path.is_relative_to(WORKDIR):
                raise PermissionError(f"'{file}' is outside the confined sandbox's work dir {WORKDIR}.")
            path = path.relative_to(WORKDIR)
        if ".." in path.parts:
            raise PermissionError(f"'{file}' escapes the confined sandbox's work dir.")
        return path

    def _own(self, path: Path) -> None:
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)


def _fresh_uid() -> int:
    """An unused uid for one sample, so its process limit counts only its own processes."""
    return 200_000 + secrets.randbelow(1_000_000)


DOCKER_R_PACKAGES = ("fixest", "AER", "ivreg", "rdrobust", "rddensity", "estimatr", "sandwich", "lmtest", "data.table",
                     "dplyr", "broom", "plm", "car", "ggplot2", "tibble", "stargazer", "rdd", "readr")
"""R packages the Docker image (sandboxes/r/Dockerfile) installs: the ones upstream's models reached for."""
