"""Which sandbox serves an Exp B run: ``exp_b(sandbox=...)`` resolved on this machine, recorded and announced.

- ``auto`` (default): Docker when an engine >= 24.0.6 with Compose v2 answers and an image is present or buildable
  (the CRAN image of the chosen profile first, then, for profile ``full``, the Debian image), else ``confined``.
- ``docker``, ``docker-debian``, ``confined`` (``local``): obeyed; impossible ones fail with one sentence.

The choice (sandbox, image, profile, engine, the R packages of the reference set the environment lacks, and why) is
stored in the task's metadata under ``r_environment`` and printed on the console.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field

from inspect_ai.util import SandboxEnvironmentSpec

from causal_suite.errors import SuiteInputError
from causalverify_inspect.sandbox.docker import (
    DOCKER_R_PACKAGES,
    IMAGES,
    DockerImage,
    compose_for_run,
    docker_problem,
    image_buildable,
    image_present,
    probe_engine,
)
from causalverify_inspect.sandbox.environment import SANDBOX_NAME, bwrap_available
from causalverify_inspect.sandbox.limits import ConfinedLimits

SANDBOX_CHOICES = ("auto", "docker", "docker-debian", SANDBOX_NAME, "local")
PROFILES = ("full", "upstream")


@dataclass(frozen=True)
class SandboxChoice:
    """The resolved sandbox of a run (see module)."""

    sandbox: str
    requested: str
    profile: str
    """``full``/``upstream`` (CRAN image), ``debian`` (Debian image) or ``host`` (confined: this machine's R)."""
    reason: str
    image: str | None = None
    compose: str | None = None
    engine: str | None = None
    lacks: list[str] = field(default_factory=list)

    def spec(self, timeout: int) -> SandboxEnvironmentSpec:
        if self.sandbox == SANDBOX_NAME:
            return SandboxEnvironmentSpec(SANDBOX_NAME, ConfinedLimits(cpu_seconds=max(timeout, 1) * 2))
        return SandboxEnvironmentSpec("docker", self.compose)

    def metadata(self) -> dict:
        return asdict(self)

    def message(self) -> str:
        where = (
            f"image {self.image}, profile {self.profile}, Docker {self.engine}"
            if self.image
            else "bubblewrap on this machine, its own R"
        )
        lacks = (
            f"it lacks the R packages {', '.join(self.lacks)} (code loading them fails; scored `environment`)"
            if self.lacks
            else "it has every R package of the reference set"
        )
        return f"exp_b: sandbox {self.requested} -> {self.sandbox} ({where}; {self.reason}); {lacks}."


@functools.lru_cache(maxsize=1)
def host_r_packages() -> frozenset[str] | None:
    """The R packages this machine's R has (what the confined sandbox sees), or None without Rscript."""
    if shutil.which("Rscript") is None:
        return None
    try:
        result = subprocess.run(
            ["Rscript", "--vanilla", "-e", "cat(rownames(installed.packages()), sep = '\\n')"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return frozenset(result.stdout.split()) if result.returncode == 0 else None


def _docker(spec: DockerImage, requested: str, reason: str) -> SandboxChoice:
    return SandboxChoice(
        spec.sandbox,
        requested,
        spec.profile,
        reason,
        image=spec.image,
        compose=str(compose_for_run(spec)),
        engine=probe_engine().server,
        lacks=spec.lacks(),
    )


def _confined(requested: str, reason: str) -> SandboxChoice:
    have = host_r_packages()
    lacks = list(DOCKER_R_PACKAGES) if have is None else [p for p in DOCKER_R_PACKAGES if p not in have]
    if have is None:
        reason += "; no Rscript on this machine"
    return SandboxChoice(SANDBOX_NAME, requested, "host", reason, lacks=lacks)


def _auto(profile: str) -> SandboxChoice:
    engine = probe_engine()
    candidates = [IMAGES[("docker", profile)]] + ([IMAGES[("docker-debian", "debian")]] if profile == "full" else [])
    if engine.problem is None:
        for spec in candidates:
            if image_present(spec.image):
                return _docker(spec, "auto", "image present")
        for spec in candidates:
            if image_buildable(spec):
                return _docker(spec, "auto", f"image built at task start from {spec.base}")
        why = f"no image ({' or '.join(s.image for s in candidates)}) is present or buildable offline"
    else:
        why = engine.problem
    if profile != "full":
        why += f"; profile '{profile}' is a Docker image profile, so it does not apply"
    if not bwrap_available():
        raise SuiteInputError(
            f"exp_b: no sandbox can run here: Docker cannot ({why}) and the confined sandbox needs "
            "bubblewrap and prlimit (apt-get install bubblewrap util-linux)."
        )
    return _confined("auto", why)


def choose_sandbox(requested: str, profile: str = "full") -> SandboxChoice:
    """Resolve ``exp_b``'s ``sandbox`` and ``profile`` parameters on this machine (see module); raises
    :class:`SuiteInputError` with one sentence when the explicit choice cannot run here."""
    if requested not in SANDBOX_CHOICES:
        raise SuiteInputError(
            f"exp_b: parameter 'sandbox' is {requested!r}; expected one of {', '.join(SANDBOX_CHOICES[:-1])}."
        )
    if profile not in PROFILES:
        raise SuiteInputError(f"exp_b: parameter 'profile' is {profile!r}; expected one of {', '.join(PROFILES)}.")
    if requested == "auto":
        return _auto(profile)
    if requested in (SANDBOX_NAME, "local"):
        if profile != "full":
            raise SuiteInputError(
                f"exp_b: profile '{profile}' selects a Docker image; the confined sandbox runs this "
                "machine's R (drop -T profile, or use -T sandbox=docker)."
            )
        return _confined(requested, "asked for")
    if requested == "docker-debian" and profile != "full":
        raise SuiteInputError(
            f"exp_b: the Debian image has one package set, so profile '{profile}' does not apply "
            "(Debian has no fixest, ivreg, rdrobust or rddensity); use -T sandbox=docker for it."
        )
    spec = IMAGES[(requested, "debian" if requested == "docker-debian" else profile)]
    problem = docker_problem(spec)
    if problem:
        raise SuiteInputError(f"exp_b: {problem}")
    return _docker(
        spec, requested, "image present" if image_present(spec.image) else f"image built at task start from {spec.base}"
    )


def announce(choice: SandboxChoice) -> None:
    """Say the choice on the console (stderr, before inspect's display starts)."""
    print(choice.message(), file=sys.stderr, flush=True)
