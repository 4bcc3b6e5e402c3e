"""The inspect sandbox type ``confined``: one private, limited work dir per sample; commands run under bubblewrap.

Per sample: a work dir ``<tmp>/cv-confined-<host pid>-<token>`` (a size- and inode-capped tmpfs where the host
allows mounts), a cgroup bounding the memory and process count of all the sample's processes (where the host
allows one; else a watcher, see :mod:`.limits`), and, when the host process runs as root, an unused uid of its own.
Cleanup never raises: it kills whatever of the sample is left, unmounts, removes the tree iteratively, and reports
failures as warnings. ``task_init`` sweeps what killed evals left behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Literal, Union, overload

from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from pydantic import BaseModel

from causal_suite.errors import SuiteInputError
from causalverify_inspect.sandbox.cleanup import remove_tree, sweep_stale
from causalverify_inspect.sandbox.confine import WORKDIR, run_confined
from causalverify_inspect.sandbox.limits import (
    CGROUP_PREFIX,
    ConfinedLimits,
    SampleCgroup,
    SampleGuard,
    mount_workdir_quota,
    unmount,
)

SANDBOX_NAME = "confined"
logger = logging.getLogger(__name__)


def bwrap_available() -> bool:
    """True when bubblewrap and prlimit exist on this host."""
    return shutil.which("bwrap") is not None and shutil.which("prlimit") is not None


def sample_name() -> str:
    """``cv-confined-<host pid>-<token>``: unique, and tells a later sweep whether its owner still runs."""
    return f"{CGROUP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"


@sandboxenv(name=SANDBOX_NAME)
class ConfinedSandboxEnvironment(SandboxEnvironment):
    """inspect sandbox type ``confined`` (see module)."""

    def __init__(self, limits: ConfinedLimits) -> None:
        super().__init__()
        name = sample_name()
        self.workdir = Path(tempfile.gettempdir()) / name
        self.workdir.mkdir(mode=0o700)
        auto = limits.enforcement == "auto"
        self.guard = SampleGuard(
            limits,
            self.workdir,
            cgroup=SampleCgroup.create(name, limits) if auto else None,
            workdir_quota=auto and mount_workdir_quota(self.workdir, limits),
        )
        self.uid = _fresh_uid() if os.geteuid() == 0 else None
        self._own(self.workdir)

    @property
    def limits(self) -> ConfinedLimits:
        return self.guard.limits

    @classmethod
    def config_deserialize(cls, config: dict) -> BaseModel:
        return ConfinedLimits(**config)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        if not bwrap_available():
            raise SuiteInputError(
                "The 'confined' sandbox needs bubblewrap (bwrap) and prlimit on PATH: install the 'bubblewrap' and "
                "'util-linux' packages, or use sandbox='docker'."
            )
        for path in sweep_stale():
            logger.warning(f"confined sandbox: removed {path}, left behind by an eval that no longer runs")

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        limits = config if isinstance(config, ConfinedLimits) else ConfinedLimits()
        return {"default": cls(limits)}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            environment.as_type(cls).close()

    def close(self) -> None:
        """Kill what is left of the sample, drop its cgroup and quota mount, remove its work dir; never raises."""
        steps = [
            ("kill", self._kill_leftovers),
            ("cgroup", self.guard.cgroup.remove if self.guard.cgroup else None),
            ("unmount", (lambda: unmount(self.workdir)) if self.guard.workdir_quota else None),
            ("remove", lambda: remove_tree(self.workdir)),
        ]
        for name, step in steps:
            if step is None:
                continue
            try:
                step()
            except Exception as exc:  # cleanup must not fail the eval; the next task_init sweeps what stays
                logger.warning(f"confined sandbox: cleanup step '{name}' of {self.workdir} failed: {exc!r}")

    def _kill_leftovers(self) -> None:
        self.guard.kill_all()
        if self.uid is not None:  # the uid is the sample's alone
            for entry in os.listdir("/proc"):
                with contextlib.suppress(OSError, ValueError):
                    if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == self.uid:
                        os.kill(int(entry), 9)

    def default_polling_interval(self) -> float:
        return 0.2

    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        """Run ``cmd`` confined (``user`` is ignored: commands always run unprivileged; no retry on timeout)."""
        inner_cwd = WORKDIR / self._relative(cwd or ".")
        return await run_confined(
            cmd, self.workdir, self.guard, cwd=inner_cwd, timeout=timeout, input=input, env=env, uid=self.uid
        )

    async def write_file(self, file: str, contents: str | bytes) -> None:
        path = self.workdir / self._relative(file)
        for parent in reversed(path.relative_to(self.workdir).parents):
            if (self.workdir / parent).is_symlink():
                raise PermissionError(
                    f"'{file}' passes through a symbolic link; the confined sandbox does not follow links out."
                )
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
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
        relative = path.relative_to(self.workdir)
        if any((self.workdir / p).is_symlink() for p in [relative, *relative.parents]):
            raise PermissionError(
                f"'{file}' is or passes through a symbolic link; the confined sandbox does not follow links out."
            )
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
            os.chown(path, self.uid, self.uid, follow_symlinks=False)


def _fresh_uid() -> int:
    """An unused uid for one sample, so its process limit counts only its own processes."""
    return 200_000 + secrets.randbelow(1_000_000)
