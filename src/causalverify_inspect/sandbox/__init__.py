"""Sandboxes for model-written R (CausalVerify paper §4, App. C; upstream ran the code on the host).

Two serve Exp B: the Docker image in ``sandboxes/r`` (:mod:`.docker`) and ``confined``, bubblewrap on the host for
machines without a Docker engine (:mod:`.environment`). The confined sandbox runs every command with:

- an empty environment: nothing of the host process's environment (API keys) exists anywhere inside, and the
  command is the namespace's pid 1, so no host-started process can be read or traced (:mod:`.confine`);
- no network (a fresh network namespace with only loopback), its own PID, IPC and UTS namespaces;
- a read-only view of ``/usr`` and the few ``/etc`` entries R needs; no home, no repository; size-capped private
  ``/tmp`` and ``/dev/shm``; one writable dir, ``/workdir``, holding only the files the task wrote there;
- per-process limits (``prlimit``: CPU seconds, address space, file size, open files, no core dumps) and
  whole-sample limits (memory, processes, work dir bytes and files: :mod:`.limits`);
- a wall-clock timeout that kills the whole tree; stdout and stderr captured with their first and last halves kept;
- cleanup that cannot fail the eval and a sweep of what killed evals left (:mod:`.cleanup`).
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
