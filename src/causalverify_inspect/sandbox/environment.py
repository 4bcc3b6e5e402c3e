"""The inspect sandbox type ``confined``: one private, limited work dir per sample; commands run under bubblewrap.

Per sample: a work dir ``<tmp>/cv-confined-<eval token>-<token>`` (a size- and inode-capped tmpfs where the host
allows mounts), a cgroup bounding the memory and process count of all the sample's processes (where the host
allows one; else a watcher, see :mod:`.limits`), and, when the host process runs as root, a uid of its own: one no
account and no process has, reserved for the sample's life (:mod:`.uids`). Cleanup never
raises: it kills what is left of the sample, found by its cgroup and by its work dir (the processes whose mounts
hold it), never by uid alone; unmounts, removes the tree iteratively, and reports failures as warnings.
``task_init`` sweeps what killed evals left behind (:mod:`.cleanup`: decided by each eval's lock).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Literal, overload

from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from pydantic import BaseModel

from causal_suite.errors import SuiteInputError
from causalverify_inspect.sandbox.cleanup import owner_token, processes_holding, remove_tree, sweep_stale
from causalverify_inspect.sandbox.confine import WORKDIR, run_confined
from causalverify_inspect.sandbox.limits import (
    CGROUP_PREFIX,
    ConfinedLimits,
    Quota,
    SampleCgroup,
    SampleGuard,
    mount_workdir_quota,
    unmount,
)
from causalverify_inspect.sandbox.uids import allocate_uid, release_uid

SANDBOX_NAME = "confined"
logger = logging.getLogger(__name__)


def bwrap_available() -> bool:
    """True when bubblewrap and prlimit exist on this host."""
    return shutil.which("bwrap") is not None and shutil.which("prlimit") is not None


def sample_name() -> str:
    """``cv-confined-<eval token>-<token>``: unique, and tells a later sweep which eval's lock decides its fate."""
    return f"{CGROUP_PREFIX}{owner_token()}-{secrets.token_hex(6)}"


@sandboxenv(name=SANDBOX_NAME)
class ConfinedSandboxEnvironment(SandboxEnvironment):
    """inspect sandbox type ``confined`` (see module)."""

    eval_groups: dict[ConfinedLimits, SampleCgroup | None] = {}
    """The eval-wide cgroup (the memory budget) of each configuration this process runs, made by ``task_init`` (which
    inspect calls once per configuration for the whole run, as ``task_cleanup`` at its end)."""

    def __init__(self, limits: ConfinedLimits, eval_group: SampleCgroup | None = None) -> None:
        """One sample's sandbox; its cgroup goes below ``eval_group`` (the eval-wide budget) where one is given."""
        super().__init__()
        name = sample_name()
        self.workdir = Path(tempfile.gettempdir()) / name
        self.workdir.mkdir(mode=0o700)
        auto = limits.enforcement == "auto"
        self.guard = SampleGuard(
            limits,
            self.workdir,
            cgroup=SampleCgroup.create(name, Quota.of_sample(limits), eval_group) if auto else None,
            workdir_quota=auto and mount_workdir_quota(self.workdir, limits),
            budget=eval_group,
        )
        self.uid: int | None
        self._uid_lock: int | None
        self.uid, self._uid_lock = allocate_uid() if os.geteuid() == 0 else (None, None)
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
        limits = config if isinstance(config, ConfinedLimits) else ConfinedLimits()
        if limits.enforcement == "auto" and limits not in cls.eval_groups:
            cls.eval_groups[limits] = SampleCgroup.create(
                f"{CGROUP_PREFIX}{owner_token()}-eval-{secrets.token_hex(4)}", eval_quota(limits), nest=True
            )

    @classmethod
    async def task_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None, cleanup: bool) -> None:
        limits = config if isinstance(config, ConfinedLimits) else ConfinedLimits()
        group = cls.eval_groups.pop(limits, None)
        if group is not None:
            group.remove()

    @classmethod
    def default_concurrency(cls) -> int | None:
        """Samples inspect runs at once in this sandbox without ``--max-sandboxes`` (also what the eval-wide memory
        budget is sized for by default): two per CPU this process may use, as inspect's docker sandbox."""
        return 2 * len(os.sched_getaffinity(0))

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        limits = config if isinstance(config, ConfinedLimits) else ConfinedLimits()
        return {"default": cls(limits, cls.eval_groups.get(limits))}

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
            ("uid", self._release_uid),
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
        for pid in processes_holding(self.workdir, quota=self.guard.workdir_quota):
            with contextlib.suppress(OSError):
                os.kill(pid, 9)

    def _release_uid(self) -> None:
        if self._uid_lock is not None and self.uid is not None:  # allocated together
            release_uid(self.uid, self._uid_lock)
            self._uid_lock = None

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

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
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


def eval_quota(limits: ConfinedLimits) -> Quota:
    """The eval-wide cgroup's quota: ``eval_memory_bytes`` (default: concurrency x per-sample memory), and the
    per-sample processes and CPUs times the concurrency."""
    samples = ConfinedSandboxEnvironment.default_concurrency() or 1
    memory = limits.eval_memory_bytes or samples * limits.memory_bytes
    return Quota(memory, samples * limits.processes, limits.cpus * samples if limits.cpus else None)
