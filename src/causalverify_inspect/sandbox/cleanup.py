"""Cleanup of the confined sandbox that cannot fail an eval.

A sample's work dir is whatever its program left there: thousands of nested directories, directories without
permissions, links pointing out of it. :func:`remove_tree` removes it with a bounded number of open descriptors and
no recursion, never following a link. :func:`sweep_stale` removes what an earlier eval that was killed left behind
(work dirs, their quota mounts, cgroups and their processes), found by the owning process id in their names.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

from causalverify_inspect.sandbox.limits import (
    CGROUP_PREFIX,
    SampleCgroup,
    cgroup_mounts,
    own_cgroup_paths,
    cgroup_dir,
    cgroup_parents,
    mounted_under,
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


def owner_alive(name: str) -> bool:
    """Whether the process named in ``cv-confined-<pid>-...`` still exists (a live eval owns it)."""
    try:
        pid = int(name[len(CGROUP_PREFIX) :].split("-")[0])
    except ValueError:
        return True  # not one of ours: leave it
    return Path(f"/proc/{pid}").exists()


def sweep_stale() -> list[str]:
    """Remove work dirs, mounts and cgroups of evals that no longer run; returns what was removed."""
    removed: list[str] = []
    base = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for path in base.glob(f"{CGROUP_PREFIX}*"):
            if owner_alive(path.name):
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
                    if group.is_dir() and not owner_alive(group.name):
                        SampleCgroup([group], 2 if controller == "unified" else 1).remove()
                        removed.append(str(group))
    return removed
