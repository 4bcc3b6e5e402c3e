"""The launcher of one confined command: it starts bubblewrap in the sample's cgroups as the sample's uid, and takes
the whole sandbox down with it when the eval dies.

It is a fresh, single-threaded Python (``-I -S``: no site, no environment, standard library only) that stays between
the eval and bubblewrap as a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every process of the sandbox whose parent
dies is handed to it, not to the host's init. It asks the kernel for SIGTERM when the eval dies (``PR_SET_PDEATHSIG``)
and exits at once if the eval is already gone; on that signal it SIGKILLs its children, and each process handed to it
after, until none is left. SIGTERM and SIGCHLD stay blocked and are taken with ``sigwaitinfo`` (a Python signal
handler would run only after a blocking ``wait`` returned, so a SIGTERM landing just before that call left the
sandbox running until it ended by itself: the killed-eval test saw it about once in 500 starts). Its one fork
writes its pid into each cgroup's ``cgroup.procs`` (so bubblewrap and everything below start inside), drops to the
sample's uid and gid with no supplementary groups, asks for SIGKILL when the launcher dies (set after the uid change,
which would clear it; exit at once if the launcher is already gone), then ``exec``\\ s bubblewrap. The launcher exits
with bubblewrap's status, after killing whatever of the sandbox is left.

Why a launcher that stays: bubblewrap's ``--die-with-parent`` is set by the sandbox's first process *after* its
``clone``, with no check that bubblewrap is still there; an eval killed in that window (a few microseconds) used to
leave the sandbox running, re-parented to init (seen in CI). Now that process is re-parented to the launcher, which
kills it. So no sandbox outlives a killed eval, even one killed in its first milliseconds.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LAUNCHER = """
import ctypes, os, resource, signal, sys
parent, uid, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
command = sys.argv[4 + n :]
found = [os.path.join(d, command[0]) for d in os.environ["PATH"].split(":") if "/" not in command[0]]
program = next((p for p in found if os.access(p, os.X_OK)), command[0])
prctl, me, dying = ctypes.CDLL(None, use_errno=True).prctl, os.getpid(), []

def kill_children():
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/" + entry + "/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                    os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})  # taken by sigwaitinfo, never lost
if prctl(36, 1, 0, 0, 0) != 0 or prctl(1, signal.SIGTERM, 0, 0, 0) != 0 or os.getppid() != parent:
    os._exit(125)
child = os.fork()
if child == 0:
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for group in sys.argv[4 : 4 + n]:
        with open(os.path.join(group, "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))
    if uid:
        os.setgroups([])
        os.setresgid(int(uid), int(uid), int(uid))
        os.setresuid(int(uid), int(uid), int(uid))
    if prctl(1, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != me:
        os._exit(125)
    os.execv(program, command)
status, left = None, True
while left:
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            left = False
            break
        if pid == 0:
            break
        if pid == child:
            status = os.waitstatus_to_exitcode(wait_status)
            kill_children()
    if dying:
        kill_children()
    if left:
        woke = signal.sigtimedwait({signal.SIGTERM, signal.SIGCHLD}, 0.2) if dying else signal.sigwaitinfo(
            {signal.SIGTERM, signal.SIGCHLD}
        )
        if woke is not None and woke.si_signo == signal.SIGTERM:
            dying.append(signal.SIGTERM)
if status is None or dying:
    os._exit(125)
if status < 0:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(-status, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    os.kill(me, -status)
    status = 128 - status
os._exit(status)
"""
"""The launcher's program (``PR_SET_CHILD_SUBREAPER`` = 36, ``PR_SET_PDEATHSIG`` = 1; exit code 125 when the eval
died first, bubblewrap's code otherwise, and bubblewrap's signal re-raised when one killed it); argv: eval pid, uid or
"", the number of cgroup directories, those directories, then the command."""


def launcher_argv(cgroups: list[Path], uid: int | None) -> list[str]:
    """The prefix that starts a command in ``cgroups`` as ``uid`` (None: as this process's), tied to this process."""
    head = [sys.executable, "-I", "-S", "-c", LAUNCHER, str(os.getpid()), "" if uid is None else str(uid)]
    return [*head, str(len(cgroups)), *map(str, cgroups)]
