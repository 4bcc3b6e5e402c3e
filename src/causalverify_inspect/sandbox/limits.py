"""Whole-sample resource limits of the confined sandbox.

Per-process ``prlimit`` caps (CPU seconds, address space, file size, open files) are not enough: five forked workers
of 1.5 GB each stay under a 2 GB per-process cap. The limits here hold for a sample as a whole, whatever it forks:

- **memory and process count**: a cgroup per sample (cgroup v2 ``memory.max``/``pids.max``, or v1 ``memory`` and
  ``pids`` hierarchies) that every command of the sample joins before it starts. The kernel charges the sample's
  tmpfs pages (``/tmp``, ``/dev/shm``, the work dir) to it too. Needs a writable cgroup tree (root, or a delegated
  subtree).
- **the eval as a whole**: the sample cgroups of one eval sit in an eval-wide cgroup (made by the environment's
  ``task_init``) whose memory limit is the budget its samples share (``eval_memory_bytes``); ``cpus`` adds a CPU
  quota per sample (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``).
- **work dir bytes and files**: a size- and inode-capped tmpfs mounted on the sample's work dir (needs root).
- **fallback** where the host allows neither: :class:`SampleGuard` polls the sample's processes (resident memory
  plus the pages of its private ``/tmp`` and ``/dev/shm``, count) and the work dir (bytes, files) every
  ``POLL_SECONDS`` and kills the command tree when one goes over; the overshoot is bounded by what can be allocated
  or written between two polls (plus the per-process caps).

``/tmp`` and ``/dev/shm`` inside the sandbox are size-capped tmpfs mounts either way, and bubblewrap's own root and
``/dev`` are read-only (see ``confine.bwrap_argv``): every writable mount has a cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

POLL_SECONDS = 0.2
CGROUP_PREFIX = "cv-confined-"
"""Name prefix of our cgroups, work dirs and locks: ``cv-confined-<eval token>-...`` (see :mod:`.cleanup`)."""


class ConfinedLimits(BaseModel, frozen=True):
    """Resource limits of the confined sandbox (its inspect config). Per process: cpu, file, open files; per
    sample (all its processes together): memory, processes, work dir bytes and files; per mount: tmp, shm."""

    cpu_seconds: int = 300
    memory_bytes: int = 2 * 1024**3
    processes: int = 64
    file_bytes: int = 256 * 1024**2
    open_files: int = 256
    output_bytes: int = 1024**2
    """Bytes kept of each of stdout and stderr (its first and last halves); the middle is counted and dropped."""
    tmp_bytes: int = 256 * 1024**2
    shm_bytes: int = 64 * 1024**2
    workdir_bytes: int = 512 * 1024**2
    workdir_files: int = 10_000
    cpus: float | None = None
    """CPU quota of the sample as a whole (1.5: one and a half cores' time), through its cgroup; None: no quota."""
    eval_memory_bytes: int | None = None
    """Memory of all the eval's samples together: a parent cgroup holding every sample's, where cgroups are
    available. None: the sandbox's concurrency (``ConfinedSandboxEnvironment.default_concurrency``, what inspect runs
    at once without ``--max-sandboxes``) times ``memory_bytes``."""
    enforcement: Literal["auto", "watch"] = "auto"
    """``auto``: the kernel enforces the sample limits where the host allows (cgroup, tmpfs quota), the watcher the
    rest; ``watch``: the watcher alone (hosts without cgroup or mount rights; also how the fallback is tested)."""


# ------------------------------------------------------------------------------------------------------ cgroups
V1_CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000


@dataclass(frozen=True)
class Quota:
    """What one cgroup limits: memory bytes (no swap), processes, and optionally CPUs (a CFS quota)."""

    memory_bytes: int
    processes: int
    cpus: float | None = None

    @classmethod
    def of_sample(cls, limits: ConfinedLimits) -> Quota:
        return cls(limits.memory_bytes, limits.processes, limits.cpus)

    def controllers(self) -> list[str]:
        return ["memory", "pids"] + (["cpu"] if self.cpus else [])


def cgroup_mounts() -> dict[str, tuple[Path, str]]:
    """Controller ('memory', 'pids', 'cpu' or 'unified') -> (mount point, mount root) from /proc/self/mountinfo."""
    mounts: dict[str, tuple[Path, str]] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields, kinds = left.split(), right.split()
            if len(fields) < 5 or len(kinds) < 3:
                continue
            if kinds[0] == "cgroup2":
                mounts.setdefault("unified", (Path(fields[4]), fields[3]))
            elif kinds[0] == "cgroup":
                for option in kinds[2].split(","):
                    if option in V1_CONTROLLERS:
                        mounts.setdefault(option, (Path(fields[4]), fields[3]))
    return mounts


def own_cgroup_paths() -> dict[str, str]:
    """Controller ('memory', 'pids', 'cpu', 'unified') -> this process's cgroup path, from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers == "":
                paths["unified"] = path
            for name in controllers.split(","):
                if name in V1_CONTROLLERS:
                    paths[name] = path
    return paths


def cgroup_dir(mount: tuple[Path, str], own: str) -> Path:
    point, root = mount
    relative = own[len(root) :] if own.startswith(root) else own
    return point / relative.lstrip("/")


def cgroup_parents(own: Path) -> list[Path]:
    """Where a sample cgroup may go: below our own cgroup, or beside it (cgroup v2 allows controllers only in
    cgroups without processes of their own, so a child of our own cgroup works only at the root)."""
    return [own, own.parent]


def _write(path: Path, value: str) -> None:
    path.write_text(value)


@dataclass
class SampleCgroup:
    """One sample's cgroup(s): ``dirs`` are the cgroup directories every command of the sample joins."""

    dirs: list[Path]
    version: int

    @classmethod
    def create(cls, name: str, quota: Quota, parent: SampleCgroup | None = None, nest: bool = False):
        """A new cgroup with ``quota`` below ``parent`` (None: below or beside our own cgroup), or None where the
        host does not allow one. ``nest``: it will hold cgroups, not processes (v2 then hands its controllers on)."""
        if parent is not None:
            if parent.version == 2:
                return _try_v2(parent.dirs[0] / name, quota, nest)
            return _try_v1([d / name for d in parent.dirs], quota)
        mounts, own = cgroup_mounts(), own_cgroup_paths()
        if "unified" in mounts and "unified" in own:
            for place in cgroup_parents(cgroup_dir(mounts["unified"], own["unified"])):
                group = _try_v2(place / name, quota, nest)
                if group is not None:
                    return group
        if all(c in mounts and c in own for c in quota.controllers()):
            return _try_v1([cgroup_dir(mounts[c], own[c]) / name for c in quota.controllers()], quota)
        return None

    def pids(self) -> list[int]:
        found: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
        return sorted(found)

    def memory_limit_hit(self) -> bool:
        """Whether the kernel had to stop the group at its memory limit (an OOM kill, a failed charge, or, for a
        v1 parent whose children were charged, its peak usage at the limit)."""
        d = self.dirs[0]
        with contextlib.suppress(OSError, ValueError):
            if self.version == 2:
                events = dict(line.split() for line in (d / "memory.events").read_text().splitlines())
                return int(events.get("oom_kill", 0)) > 0 or int(events.get("max", 0)) > 0
            control = dict(line.split() for line in (d / "memory.oom_control").read_text().splitlines())
            peak, limit = (int((d / f"memory.{f}").read_text()) for f in ("max_usage_in_bytes", "limit_in_bytes"))
            return int(control.get("oom_kill", 0)) > 0 or int((d / "memory.failcnt").read_text()) > 0 or peak >= limit
        return False

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup (repeated until none is left or a few rounds have passed)."""
        for _ in range(20):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                if self.version == 2:
                    _write(self.dirs[0] / "cgroup.kill", "1")

    def remove(self) -> None:
        self.kill_all()
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy while the last killed processes exit
                    time.sleep(0.02)


def _try_v2(path: Path, quota: Quota, nest: bool) -> SampleCgroup | None:
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        if not set(quota.controllers()) <= set((path / "cgroup.controllers").read_text().split()):
            raise OSError("a controller is not delegated")
        _write(path / "memory.max", str(quota.memory_bytes))
        with contextlib.suppress(OSError):
            _write(path / "memory.swap.max", "0")
        _write(path / "pids.max", str(quota.processes))
        if quota.cpus:
            _write(path / "cpu.max", f"{round(quota.cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
        if nest:
            _write(path / "cgroup.subtree_control", " ".join(f"+{c}" for c in quota.controllers()))
        return SampleCgroup([path], 2)
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None


def _try_v1(paths: list[Path], quota: Quota) -> SampleCgroup | None:
    made: list[Path] = []
    try:
        for path in paths:
            path.mkdir()
            made.append(path)
        memory, pids = paths[:2]
        _write(memory / "memory.limit_in_bytes", str(quota.memory_bytes))
        with contextlib.suppress(OSError):  # only where swap accounting is on
            _write(memory / "memory.memsw.limit_in_bytes", str(quota.memory_bytes))
        _write(pids / "pids.max", str(quota.processes))
        if quota.cpus:
            _write(paths[2] / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(paths[2] / "cpu.cfs_quota_us", str(round(quota.cpus * CPU_PERIOD_US)))
        return SampleCgroup(paths, 1)
    except OSError:
        for path in reversed(made):
            with contextlib.suppress(OSError):
                path.rmdir()
        return None


# ------------------------------------------------------------------------------------------ work dir quota
def mount_workdir_quota(workdir: Path, limits: ConfinedLimits) -> bool:
    """Mount a tmpfs of ``workdir_bytes`` and ``workdir_files`` inodes on ``workdir``; False where not allowed."""
    if os.geteuid() != 0:
        return False
    options = f"size={limits.workdir_bytes},nr_inodes={limits.workdir_files},mode=0700,nosuid,nodev"
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "cv-workdir", str(workdir)], capture_output=True, check=False
    )
    return result.returncode == 0


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


def mounted_under(prefix: Path) -> list[Path]:
    """Mount points at or below ``prefix`` (from /proc/self/mountinfo)."""
    points = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            point = Path(line.split()[4])
            if point == prefix or prefix in point.parents:
                points.append(point)
    return points


# --------------------------------------------------------------------------------------------------- watcher
def descendants(root: int) -> list[int]:
    """``root`` and every process below it (from the parent links in /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, []))
    return out


def resident_bytes(pids: list[int]) -> int:
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
    return total


def private_tmpfs_bytes(pids: list[int]) -> int:
    """Bytes used in the private ``/tmp`` and ``/dev/shm`` mounts the processes ``pids`` see (memory, for tmpfs),
    each mount counted once; the host's own mounts (seen by the launcher outside the sandbox) are not counted."""
    host = set()
    for path in ("/", "/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            host.add(os.stat(path).st_dev)
    used: dict[int, int] = {}
    for pid in pids:
        for inner in ("tmp", "dev/shm"):
            path = f"/proc/{pid}/root/{inner}"
            with contextlib.suppress(OSError):
                device = os.stat(path).st_dev
                if device not in host and device not in used:
                    fs = os.statvfs(path)
                    used[device] = (fs.f_blocks - fs.f_bfree) * fs.f_frsize
    return sum(used.values())


def tree_usage(root: Path, stop_after_files: int) -> tuple[int, int]:
    """(bytes, files) under ``root``, without following links; stops counting past ``stop_after_files``."""
    size = files = 0
    stack = [root]
    while stack and files <= stop_after_files:
        with contextlib.suppress(OSError):
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    files += 1
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        else:
                            size += entry.stat(follow_symlinks=False).st_blocks * 512
    return size, files


@dataclass
class SampleGuard:
    """The sample limits of one sample and how each is enforced (kernel where possible, else polling)."""

    limits: ConfinedLimits
    workdir: Path
    cgroup: SampleCgroup | None = None
    workdir_quota: bool = False
    budget: SampleCgroup | None = None
    """The eval-wide cgroup holding ``cgroup`` (the memory budget all samples of the eval share), if any."""
    breaches: list[str] = field(default_factory=list)

    async def watch(self, root_pid: int) -> str:
        """Poll what the kernel does not enforce; return the first breach found (runs until cancelled)."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            breach = await asyncio.to_thread(self._check, root_pid)
            if breach:
                self.breaches.append(breach)
                return breach

    def needs_watch(self) -> bool:
        return self.cgroup is None or not self.workdir_quota

    def _check(self, root_pid: int) -> str | None:
        if self.cgroup is None:
            pids = descendants(root_pid)[1:]  # below the launcher, which is the eval's
            if len(pids) > self.limits.processes + 2:  # + bubblewrap's own processes
                return f"sample process limit exceeded ({len(pids)} > {self.limits.processes})"
            rss, tmpfs = resident_bytes(pids), private_tmpfs_bytes(pids)
            if rss + tmpfs > self.limits.memory_bytes:
                return (
                    f"sample memory limit exceeded ({rss} bytes resident + {tmpfs} in /tmp and /dev/shm > "
                    f"{self.limits.memory_bytes})"
                )
        if not self.workdir_quota:
            size, files = tree_usage(self.workdir, self.limits.workdir_files)
            if files > self.limits.workdir_files:
                return f"work dir file limit exceeded (over {self.limits.workdir_files} files)"
            if size > self.limits.workdir_bytes:
                return f"work dir size limit exceeded ({size} > {self.limits.workdir_bytes} bytes)"
        return None

    def kill_all(self, root_pid: int | None = None) -> None:
        """Kill every process of the sample: the cgroup's, else those below ``root_pid``."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if root_pid is not None:
            for pid in reversed(descendants(root_pid)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
