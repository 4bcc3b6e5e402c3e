"""The launcher of one confined command: joins the sample's cgroups, drops to the sample's uid, and dies with the eval.

It is a fresh, single-threaded Python (``-I -S``: no site, no environment, standard library only) that does in order:
write its pid into each cgroup's ``cgroup.procs`` (so bubblewrap and everything below start inside), drop to the
sample's uid and gid with no supplementary groups, ask the kernel to SIGKILL it when its parent (this eval) dies
(``PR_SET_PDEATHSIG``, set after the uid change, which would clear it), exit at once if the eval is already gone (it
died before that), then ``exec`` bubblewrap (not set-uid, so the death signal survives the ``exec``; bubblewrap's
``--die-with-parent`` carries it on to the sandbox). So no sandbox outlives a killed eval, even one killed in its
first milliseconds.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LAUNCHER = """
import ctypes, os, sys
parent, uid, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
command = sys.argv[4 + n :]
found = [os.path.join(d, command[0]) for d in os.environ["PATH"].split(":") if "/" not in command[0]]
program = next((p for p in found if os.access(p, os.X_OK)), command[0])  # before the uid change: no imports after
for group in sys.argv[4 : 4 + n]:
    with open(os.path.join(group, "cgroup.procs"), "w") as procs:
        procs.write(str(os.getpid()))
if uid:
    os.setgroups([])
    os.setresgid(int(uid), int(uid), int(uid))
    os.setresuid(int(uid), int(uid), int(uid))
if ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0) != 0 or os.getppid() != parent:
    os._exit(125)
os.execv(program, command)
"""
"""The launcher's program (``PR_SET_PDEATHSIG`` = 1, ``SIGKILL`` = 9; exit code 125 when the eval died first); argv:
eval pid, uid or "", the number of cgroup directories, those directories, then the command."""


def launcher_argv(cgroups: list[Path], uid: int | None) -> list[str]:
    """The prefix that starts a command in ``cgroups`` as ``uid`` (None: as this process's), tied to this process."""
    head = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(os.getpid()), "" if uid is None else str(uid)]
    return [*head, str(len(cgroups)), *map(str, cgroups)]
