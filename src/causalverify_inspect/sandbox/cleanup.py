"""Cleanup of the confined sandbox that cannot fail an eval.

A sample's work dir is whatever its program left there: thousands of nested directories, directories without
permissions, links pointing out of it. :func:`remove_tree` removes it with a bounded number of open descriptors and
no recursion, never following a link. :func:`sweep_stale` removes what an earlier eval that was killed left behind
(work dirs, their quota mounts, cgroups and their processes). Staleness is decided by a lock, not by a process id
(which means nothing across pid namespaces): every eval process holds an exclusive ``flock`` on its own
``<tmp>/cv-confined-<token>.lock`` for as long as it lives, and names everything it makes
``cv-confined-<token>-...``; the kernel drops the lock when the process dies, however it dies. The sweep removes
only what belongs to a token whose lock it can take; a name whose lock file does not exist is not ours to judge and
is left alone (except names of older versions, ``cv-confined-<pid>-...``, judged by that pid as those versions did;
tokens never consist of digits only).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import secrets
import stat
import tempfile
from pathlib import Path

from causalverify_inspect.sandbox.confine import WORKDIR
from causalverify_inspect.sandbox.limits import (
    CGROUP_PREFIX,
    SampleCgroup,
    cgroup_dir,
    cgroup_mounts,
    cgroup_parents,
    mounted_under,
    own_cgroup_paths,
    unmount,
)


def remove_tree(root: Path) -> None:
    """Delete ``root`` and everything below it, iteratively and without following links.

    Each pass empties the top directory: files and links are unlinked; a subdirectory's own subdirectories are
    first moved up into ``root`` (so the depth seen never exceeds two), then it is emptied and removed.
    """
    try:
        top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    try:
        os.chmod(top, 0o700)
        while names := os.listdir(top):
            for name in names:
                if not _is_dir(name, top):
                    os.unlink(name, dir_fd=top)
                    continue
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
                try:
                    os.chmod(sub, 0o700)
                    for child in os.listdir(sub):
                        if _is_dir(child, sub):
                            os.rename(child, f".rm-{secrets.token_hex(8)}", src_dir_fd=sub, dst_dir_fd=top)
                        else:
                            os.unlink(child, dir_fd=sub)
                finally:
                    os.close(sub)
                os.rmdir(name, dir_fd=top)
    finally:
        os.close(top)
    os.rmdir(root)


def _is_dir(name: str, dir_fd: int) -> bool:
    return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)


_OWNER: dict[int, tuple[str, int]] = {}
"""This process's owner token and the descriptor holding its lock, by pid (a forked child makes its own)."""


def owner_token() -> str:
    """This eval process's token; the first call creates ``<tmp>/cv-confined-<token>.lock`` and locks it for life."""
    if os.getpid() not in _OWNER:
        token = f"e{secrets.token_hex(6)}"  # never all digits: older versions read such a name as a pid
        fd = os.open(lock_path(token), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        _OWNER[os.getpid()] = (token, fd)
        atexit.register(_release_owner, os.getpid())
    return _OWNER[os.getpid()][0]


def _release_owner(pid: int) -> None:
    """At a normal exit (everything of the eval cleaned up): remove this process's lock file, still holding it."""
    if os.getpid() == pid and pid in _OWNER:
        with contextlib.suppress(OSError):
            lock_path(_OWNER[pid][0]).unlink()


def lock_path(token: str) -> Path:
    return Path(tempfile.gettempdir()) / f"{CGROUP_PREFIX}{token}.lock"


def owner_gone(name: str) -> bool:
    """Whether the eval that made ``cv-confined-<token>[-...]`` has ended: its lock file exists and is not held.
    (The check takes the lock for a moment; the sweep's removal follows while it is released, which is safe: a
    dead token is never reused.)"""
    token = name[len(CGROUP_PREFIX) :].split("-")[0].removesuffix(".lock")
    if token.isdigit():  # ``cv-confined-<pid>-...``, made by a version before the locks: its owner's pid decides
        return not Path(f"/proc/{token}").exists()
    try:
        fd = os.open(lock_path(token), os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False  # no lock file: not made by an eval of this kind, or not on this /tmp
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def sweep_stale() -> list[str]:
    """Remove work dirs, mounts and cgroups of evals that no longer run, then their lock files; returns what was
    removed."""
    removed: list[str] = []
    base = Path(tempfile.gettempdir())
    gone: set[Path] = set()
    with contextlib.suppress(OSError):
        for path in base.glob(f"{CGROUP_PREFIX}*"):
            if not owner_gone(path.name):
                continue
            if path.suffix == ".lock":
                gone.add(path)
                continue
            for point in sorted(mounted_under(path), key=lambda p: len(p.parts), reverse=True):
                unmount(point)
            with contextlib.suppress(OSError):
                remove_tree(path)
                removed.append(str(path))
    mounts, own = cgroup_mounts(), own_cgroup_paths()
    for controller in ("unified", "memory", "pids"):
        if controller not in mounts or controller not in own:
            continue
        for candidate in cgroup_parents(cgroup_dir(mounts[controller], own[controller])):
            with contextlib.suppress(OSError):
                for group in candidate.glob(f"{CGROUP_PREFIX}*"):
                    if group.is_dir() and owner_gone(group.name):
                        for inner in [*group.glob(f"{CGROUP_PREFIX}*"), group]:  # an eval's: its samples first
                            SampleCgroup([inner], 2 if controller == "unified" else 1).remove()
                        removed.append(str(group))
    for path in gone:
        with contextlib.suppress(OSError):
            path.unlink()
    return removed


def processes_holding(workdir: Path, quota: bool) -> list[int]:
    """The processes whose mount table binds ``workdir`` on /workdir (a sandbox of this sample, whatever its uid or
    pid namespace): the same device, and the dir itself as the mount's root (the quota tmpfs's root, with a quota)."""
    try:
        device = os.stat(workdir).st_dev
    except OSError:
        return []
    wanted = f"{os.major(device)}:{os.minor(device)}"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError, IndexError):
            for line in Path(f"/proc/{entry}/mountinfo").read_text().splitlines():
                fields = line.split()
                root_ok = fields[3] == "/" if quota else fields[3].endswith(f"/{workdir.name}")
                if fields[4] == str(WORKDIR) and fields[2] == wanted and root_ok:
                    found.append(int(entry))
                    break
    return found
