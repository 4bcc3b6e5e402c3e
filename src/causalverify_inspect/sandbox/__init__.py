"""Sandboxes for model-written R (CausalVerify paper §4, App. C; upstream ran the code on the host).

Two serve Exp B: the Docker image in ``sandboxes/r`` (:mod:`.docker`) and ``confined``, bubblewrap on the host for
machines without a Docker engine (:mod:`.environment`). The confined sandbox runs every command with:

- an empty environment: nothing of the host process's environment (API keys) exists anywhere inside, and the
  command is the namespace's pid 1, so no host-started process can be read or traced (:mod:`.confine`);
- no network (a fresh network namespace with only loopback), its own PID, IPC and UTS namespaces, and no new user
  namespaces inside (``--disable-userns``, where bubblewrap and the kernel allow it);
- a seccomp filter refusing what R never needs: tracing, bpf, perf events, the key store, io_uring, mounts,
  namespaces, modules, kexec... (:mod:`.seccomp`);
- a read-only view of ``/usr`` without any Python installation or this suite's files, and the few ``/etc``
  entries R needs, plus the installed packages of the host R libraries that ``R_LIBS`` names, read-only
  (:mod:`.libraries`); no home, no repository; bubblewrap's root and ``/dev`` read-only; size-capped private ``/tmp``
  and ``/dev/shm``; one writable dir, ``/workdir``, holding only the files the task wrote there;
- per-process limits (``prlimit``: CPU seconds, address space, file size, open files, no core dumps) and
  whole-sample limits (memory, processes, work dir bytes and files, optionally CPUs), inside an eval-wide memory
  budget (:mod:`.limits`);
- a wall-clock limit kept on the host side that kills the whole tree, so nothing inside can extend it, with the
  output printed until then kept; stdout and stderr captured with their first and last halves kept;
- a launcher that starts bubblewrap in the cgroups as the sample's uid (checked free and reserved) and stays as
  its subreaper, killing the whole sandbox when the eval dies (:mod:`.launch`), so no sandbox outlives a killed
  eval;
- cleanup that cannot fail the eval, by cgroup and work dir, and a sweep of what killed evals left, decided by
  each eval's lock (:mod:`.cleanup`).
"""

from causalverify_inspect.sandbox.confine import NOTE_PREFIX, WORKDIR, bwrap_argv, run_confined, without_sandbox_notes
from causalverify_inspect.sandbox.docker import DOCKER_COMPOSE, DOCKER_R_PACKAGES
from causalverify_inspect.sandbox.environment import SANDBOX_NAME, ConfinedSandboxEnvironment, bwrap_available
from causalverify_inspect.sandbox.limits import ConfinedLimits

__all__ = [
    "DOCKER_COMPOSE",
    "DOCKER_R_PACKAGES",
    "NOTE_PREFIX",
    "SANDBOX_NAME",
    "WORKDIR",
    "ConfinedLimits",
    "ConfinedSandboxEnvironment",
    "bwrap_argv",
    "bwrap_available",
    "run_confined",
    "without_sandbox_notes",
]
