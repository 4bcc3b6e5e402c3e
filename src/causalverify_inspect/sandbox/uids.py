"""Per-sample uids of the confined sandbox (when the eval runs as root): each is one no account and no process has,
reserved for the sample's life by an exclusive ``flock`` on ``<tmp>/cv-confined-uids/<uid>``, so two samples of any
evals sharing ``/tmp`` never get the same one. The owner removes the file before releasing the lock; an allocator
that locked a file since removed sees its inode gone and tries another uid.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import secrets
import tempfile
from pathlib import Path

from causalverify_inspect.sandbox.limits import CGROUP_PREFIX

UID_BASE, UID_SPAN = 200_000, 1_000_000


def uid_locks() -> Path:
    """The folder of the uid reservations (one lock file per uid in use by a sample)."""
    locks = Path(tempfile.gettempdir()) / f"{CGROUP_PREFIX}uids"
    locks.mkdir(mode=0o700, exist_ok=True)
    return locks


def allocate_uid() -> tuple[int, int]:
    """A uid for one sample (so its process limit counts only its own processes) and the descriptor of the lock
    that reserves it: no account has it, no process runs as it, and no other sample of any eval holds its lock."""
    locks = uid_locks()
    for _ in range(100):
        uid = UID_BASE + secrets.randbelow(UID_SPAN)
        with contextlib.suppress(KeyError):
            pwd.getpwuid(uid)
            continue
        fd = os.open(locks / str(uid), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            current = os.stat(locks / str(uid)).st_ino == os.fstat(fd).st_ino  # not unlinked by its last owner
        except OSError:
            current = False
        if current and not uid_in_use(uid):
            return uid, fd
        if current:  # ours, but a process outside any sample runs as it: drop the reservation again
            with contextlib.suppress(OSError):
                (locks / str(uid)).unlink()
        os.close(fd)
    raise RuntimeError("confined sandbox: found no free uid in 100 tries")


def uid_in_use(uid: int) -> bool:
    """Whether any process on this host has ``uid`` as its real, effective, saved or filesystem uid.

    Read from each ``/proc/<pid>/status`` (its ``Uid:`` line), not from the owner of ``/proc/<pid>``: the kernel
    shows a process that is not dumpable (one that just changed its uid, before its next ``exec``) as root's.
    """
    wanted = str(uid)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
            line = next((line for line in fh if line.startswith("Uid:")), "")
            if wanted in line.split()[1:]:
                return True
    return False


def release_uid(uid: int, lock: int) -> None:
    """Remove the uid's lock file, then release it (an allocator that opened the old file sees it unlinked)."""
    with contextlib.suppress(OSError):
        (uid_locks() / str(uid)).unlink()
    os.close(lock)
