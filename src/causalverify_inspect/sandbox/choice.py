"""Which sandbox serves an Exp B run: ``exp_b(sandbox=...)`` resolved on this machine, recorded and announced.

- ``auto`` (default): of the environments that can run here (the CRAN image of the chosen profile and, for profile
  ``full``, the Debian image, when an engine >= 24.0.6 with Compose v2 answers and the image is present or
  buildable; ``confined`` when bubblewrap is), the one lacking the fewest packages of the profile's reference set,
  Docker on a tie; the comparison is printed.
- ``docker``, ``docker-debian``, ``confined`` (``local``): obeyed; impossible ones fail with one sentence. Profile
  ``upstream`` works for ``docker`` (its image) and ``confined`` (this machine's R, judged against upstream's set).

The choice (sandbox, image, profile, reference set, engine, the R packages of the reference set the environment
lacks, and why; the R version and the version of every reference package present, asked of this machine's R for
``confined`` (with the ``R_LIBS`` libraries the sandbox shows, recorded as ``r_libraries``) and of a present image
for Docker; the profile's version pins and the packages outside them, see
:mod:`causalverify_inspect.sandbox.versions`) is stored in the task's metadata under ``r_environment`` and printed
on the console.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from inspect_ai.util import SandboxEnvironmentSpec

from causal_suite.errors import SuiteInputError
from causalverify_inspect.sandbox.docker import (
    IMAGES,
    DockerImage,
    compose_for_run,
    docker_problem,
    image_buildable,
    image_present,
    probe_engine,
    reference_packages,
)
from causalverify_inspect.sandbox.environment import SANDBOX_NAME, bwrap_available
from causalverify_inspect.sandbox.libraries import (
    HOST_VARIABLE,
    host_r_libraries,
    library_environment,
    unreadable_library,
)
from causalverify_inspect.sandbox.limits import ConfinedLimits
from causalverify_inspect.sandbox.versions import (
    R_VERSIONS_QUERY,
    image_r_versions,
    outside_pins,
    parse_r_versions,
    pin_text,
)

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
    reference: str = "full"
    """The profile whose package set is the reference: ``full`` or ``upstream`` (see ``docker.REFERENCE_SETS``)."""
    r_version: str | None = None
    package_versions: dict[str, str] = field(default_factory=dict)
    """The version of every reference package present (confined: this machine's R; Docker: a present image's)."""
    version_pins: dict[str, str] = field(default_factory=dict)
    """The reference profile's version pins (``{package: ">=3.0, <4.0"}``; ``upstream`` only)."""
    outside_pins: dict[str, str] = field(default_factory=dict)
    """``{package: version}`` of the present reference packages whose version lies outside its pin."""
    r_libraries: list[str] = field(default_factory=list)
    """``confined``: the host's R libraries named by ``R_LIBS`` that the sandbox shows (:mod:`.libraries`)."""

    def spec(self, timeout: int) -> SandboxEnvironmentSpec:
        if self.sandbox == SANDBOX_NAME:
            return SandboxEnvironmentSpec(SANDBOX_NAME, ConfinedLimits(cpu_seconds=max(timeout, 1) * 2))
        return SandboxEnvironmentSpec("docker", self.compose)

    def metadata(self) -> dict:
        return asdict(self)

    def message(self) -> str:
        where = (
            f"image {self.image}{f' with R {self.r_version}' if self.r_version else ''}, profile {self.profile}, "
            f"Docker {self.engine}"
            if self.image
            else f"bubblewrap on this machine, its own R {self.r_version or ''}".rstrip()
            + (f" with the {HOST_VARIABLE} libraries {', '.join(self.r_libraries)}" if self.r_libraries else "")
        )
        lacks = (
            f"it lacks the R packages {', '.join(self.lacks)} of the {self.reference} reference set (code loading "
            "them fails; scored `environment`)"
            if self.lacks
            else f"it has every R package of the {self.reference} reference set"
        )
        pins = "".join(
            f"; {p} {v} lies outside the {self.reference} pin {self.version_pins[p]} (its printed output can differ "
            "from upstream's; scores say `packages_outside_pin`)"
            for p, v in self.outside_pins.items()
        )
        return f"exp_b: sandbox {self.requested} -> {self.sandbox} ({where}; {self.reason}); {lacks}{pins}."


def host_r_versions() -> dict[str, str] | None:
    """``{package: version}`` of this machine's R as the confined sandbox sees it (its system libraries and the
    ``R_LIBS`` ones it shows, no user library), with R's own version under ``"R"``, or None without Rscript."""
    return _host_r_versions(host_r_libraries())


@functools.lru_cache(maxsize=4)
def _host_r_versions(libraries: tuple[Path, ...]) -> dict[str, str] | None:
    if shutil.which("Rscript") is None:
        return None
    own = {k: v for k, v in os.environ.items() if k not in (HOST_VARIABLE, "R_LIBS_SITE", "R_LIBS_USER")}
    env = {**own, "R_LIBS_USER": "/nonexistent", **library_environment(libraries)}
    try:
        result = subprocess.run(
            ["Rscript", "--vanilla", "-e", R_VERSIONS_QUERY],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0:
        return None
    return parse_r_versions(result.stdout)


def host_r_packages() -> frozenset[str] | None:
    """The R packages this machine's R has, or None without Rscript."""
    versions = host_r_versions()
    return None if versions is None else frozenset(versions) - {"R"}


def _versions(versions: dict[str, str], reference: str) -> dict:
    """The version fields of a choice: R's version, the reference packages' versions, the pins and those outside."""
    wanted = reference_packages(reference)
    present = {p: versions[p] for p in wanted if p in versions}
    return {
        "r_version": versions.get("R"),
        "package_versions": present,
        "version_pins": pin_text(reference),
        "outside_pins": outside_pins(reference, present),
    }


def _docker(
    spec: DockerImage, requested: str, reason: str, reference: str = "full", ask_versions: bool = True
) -> SandboxChoice:
    """A Docker choice; the versions are asked of the image (a container run) when it is present and
    ``ask_versions`` (one built at task start has none recorded; ``auto`` asks only the image it chose)."""
    versions = (image_r_versions(spec.image) or {}) if ask_versions and image_present(spec.image) else {}
    return SandboxChoice(
        spec.sandbox,
        requested,
        spec.profile,
        reason,
        image=spec.image,
        compose=str(compose_for_run(spec)),
        engine=probe_engine().server,
        lacks=spec.lacks(reference),
        reference=reference,
        **_versions(versions, reference),
    )


def _confined(requested: str, reason: str, reference: str = "full") -> SandboxChoice:
    problem = unreadable_library(host_r_libraries())
    if problem:
        raise SuiteInputError(f"exp_b: {problem}.")
    have, wanted = host_r_packages(), reference_packages(reference)
    lacks = list(wanted) if have is None else [p for p in wanted if p not in have]
    if have is None:
        reason += "; no Rscript on this machine"
    versions = (host_r_versions() or {}) if have is not None else {}
    libraries = [str(p) for p in host_r_libraries()]
    return SandboxChoice(
        SANDBOX_NAME,
        requested,
        "host",
        reason,
        lacks=lacks,
        reference=reference,
        r_libraries=libraries,
        **_versions(versions, reference),
    )


def _auto(profile: str) -> SandboxChoice:
    """Of the environments that can run here, the one lacking the fewest packages of ``profile``'s reference set,
    Docker on a tie (see module); the reason states the comparison."""
    engine = probe_engine()
    images = [IMAGES[("docker", profile)]] + ([IMAGES[("docker-debian", "debian")]] if profile == "full" else [])
    options: list[SandboxChoice] = []
    specs: dict[str, DockerImage] = {}  # image -> its spec, for the chosen one's versions
    if engine.problem is None:
        for spec in images:
            present = image_present(spec.image)
            if present or image_buildable(spec):
                built = "image present" if present else f"image built at task start from {spec.base}"
                options.append(_docker(spec, "auto", built, profile, ask_versions=False))
                specs[spec.image] = spec
        why = "" if options else f"no image ({' or '.join(s.image for s in images)}) is present or buildable offline"
    else:
        why = engine.problem
    if bwrap_available():
        options.append(_confined("auto", why or "bubblewrap and this machine's R", profile))
    if not options:
        raise SuiteInputError(
            f"exp_b: no sandbox can run here: Docker cannot ({why}) and the confined sandbox needs "
            "bubblewrap and prlimit (apt-get install bubblewrap util-linux)."
        )
    best = min(options, key=lambda c: len(c.lacks))  # the first of equals: Docker, listed before confined
    if best.image in specs:
        best = _docker(specs[best.image], "auto", best.reason, profile)  # the versions of the chosen image only
    if len(options) == 1:
        return best
    compared = ", ".join(f"{c.image or c.sandbox} lacks {len(c.lacks)}" for c in options)
    return replace(best, reason=f"{best.reason}; fewest missing reference packages ({compared})")


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
        return _confined(requested, "asked for", profile)
    if requested == "docker-debian" and profile != "full":
        raise SuiteInputError(
            f"exp_b: the Debian image has one package set, so profile '{profile}' does not apply "
            "(Debian has no fixest, ivreg, rdrobust or rddensity); use -T sandbox=docker for it."
        )
    spec = IMAGES[(requested, "debian" if requested == "docker-debian" else profile)]
    problem = docker_problem(spec)
    if problem:
        raise SuiteInputError(f"exp_b: {problem}")
    built = "image present" if image_present(spec.image) else f"image built at task start from {spec.base}"
    return _docker(spec, requested, built, profile)


def announce(choice: SandboxChoice) -> None:
    """Say the choice on the console (stderr, before inspect's display starts)."""
    print(choice.message(), file=sys.stderr, flush=True)
