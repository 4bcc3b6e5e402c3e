"""The Docker sandboxes of Exp B: their images (``sandboxes/r``, shipped in the wheel), the R packages each has, and
the probes that decide whether Docker can serve a run here (:func:`docker_problem`, used by ``exp_b``'s sandbox
choice in :mod:`causalverify_inspect.sandbox.choice`).

Three images share one set of limits (see the compose files):

- ``docker`` / profile ``full`` (default): rocker/r-ver 4.4.2 with packages from its dated CRAN snapshot
  (``compose.yaml``, image ``causalverify-r:4.4.2-1``); needs the image registry and CRAN to build.
- ``docker`` / profile ``upstream``: the same without stargazer and rdd, the package set of upstream's scoring
  environment, so replays can match the published scores (``compose.upstream.yaml``).
- ``docker-debian``: built only from Debian packages, no registry and no CRAN (``compose.debian.yaml``; base image
  from debootstrap, see ``sandboxes/r/build.sh``). Debian has no fixest, ivreg, rdrobust, rddensity, stargazer, rdd.
"""

from __future__ import annotations

import functools
import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

SANDBOX_DIR = Path(__file__).resolve().parent.parent / "sandbox_r"
"""``sandbox_r`` is a link to the repository's ``sandboxes/r``, copied into the wheel as package data."""
DOCKER_COMPOSE = SANDBOX_DIR / "compose.yaml"

ENGINE_MIN = (24, 0, 6)
"""The oldest Docker Engine inspect's docker sandbox accepts."""
COMPOSE_MIN = (2, 21, 0)
"""The oldest Compose v2 inspect's docker sandbox accepts."""
PROBE_SECONDS = 20

R_PACKAGES_UPSTREAM = (
    "fixest",
    "AER",
    "ivreg",
    "rdrobust",
    "rddensity",
    "estimatr",
    "sandwich",
    "lmtest",
    "data.table",
    "dplyr",
    "broom",
    "plm",
    "car",
    "ggplot2",
    "tibble",
    "readr",
    "tidyverse",
)
"""Upstream's scoring environment as its published runs show it (code using these ran; stargazer, rdd, lfe and did
failed to load): the ``upstream`` profile of the rocker image."""
R_PACKAGES_FULL = (*R_PACKAGES_UPSTREAM, "stargazer", "rdd")
"""The ``full`` profile (default image): upstream's set plus stargazer and rdd (rdd when the CRAN snapshot has it)."""
NOT_IN_DEBIAN = ("fixest", "ivreg", "rdrobust", "rddensity", "stargazer", "rdd")
"""Reference packages Debian does not package: what the Debian image and a Debian host's confined sandbox lack."""
DEBIAN_R_PACKAGES = tuple(p for p in R_PACKAGES_FULL if p not in NOT_IN_DEBIAN)
"""The Debian image's R packages (Debian's r-cran-* builds; sandboxes/r/Dockerfile.debian)."""
DOCKER_R_PACKAGES = R_PACKAGES_FULL
"""The reference set: packages upstream's models reached for. A run failing on one of them that its sandbox lacks
is scored ``environment``; the sandbox choice names those of them the chosen environment lacks."""


@dataclass(frozen=True)
class DockerImage:
    """One image of the Exp B sandbox: its compose file, tag, base and R packages."""

    sandbox: str
    profile: str
    compose: Path
    image: str
    base: str
    packages: tuple[str, ...]
    build_hint: str

    def lacks(self) -> list[str]:
        return [p for p in DOCKER_R_PACKAGES if p not in self.packages]


IMAGES: dict[tuple[str, str], DockerImage] = {
    ("docker", "full"): DockerImage(
        "docker",
        "full",
        SANDBOX_DIR / "compose.yaml",
        "causalverify-r:4.4.2-1",
        "rocker/r-ver:4.4.2",
        R_PACKAGES_FULL,
        "bash sandboxes/r/build.sh cran full",
    ),
    ("docker", "upstream"): DockerImage(
        "docker",
        "upstream",
        SANDBOX_DIR / "compose.upstream.yaml",
        "causalverify-r:4.4.2-1-upstream",
        "rocker/r-ver:4.4.2",
        R_PACKAGES_UPSTREAM,
        "bash sandboxes/r/build.sh cran upstream",
    ),
    ("docker-debian", "debian"): DockerImage(
        "docker-debian",
        "debian",
        SANDBOX_DIR / "compose.debian.yaml",
        "causalverify-r-debian:bookworm-1",
        "causalverify-debian-base:bookworm",
        DEBIAN_R_PACKAGES,
        "bash sandboxes/r/build.sh debian",
    ),
}


def _run(argv: list[str], timeout: float = PROBE_SECONDS) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def _version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g or 0) for g in match.groups()) if match else None


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


@dataclass(frozen=True)
class Engine:
    """What ``docker version`` and ``docker compose version`` said on this machine."""

    server: str | None = None
    compose: str | None = None
    problem: str | None = None
    """Why Docker cannot serve exp_b here (one sentence, without the fix), or None when it can."""


@functools.lru_cache(maxsize=1)
def probe_engine() -> Engine:
    """Ask the Docker CLI for the engine's and Compose's versions (cached for the process; ``cache_clear`` resets)."""
    result = _run(["docker", "version", "--format", "{{.Server.Version}}"])
    if result is None and _run(["docker", "--help"], timeout=5) is None:
        return Engine(problem="there is no docker command on this machine")
    if result is None or result.returncode != 0 or not result.stdout.strip():
        detail = (result.stderr.strip().splitlines() or [""])[-1][:200] if result is not None else "no answer"
        return Engine(problem=f"no Docker engine answers ({detail or 'docker version failed'})")
    server = result.stdout.strip()
    version = _version(server)
    if version is None or version < ENGINE_MIN:
        return Engine(
            server=server,
            problem=f"the Docker engine is {server}, older than the {_dotted(ENGINE_MIN)} "
            "that inspect's docker sandbox needs",
        )
    compose = _run(["docker", "compose", "version", "--short"])
    compose_version = _version(compose.stdout) if compose is not None and compose.returncode == 0 else None
    if compose_version is None or compose_version < COMPOSE_MIN:
        found = f"version {compose.stdout.strip()}" if compose is not None and compose_version else "none"
        return Engine(
            server=server,
            problem=f"Docker Compose v2 >= {_dotted(COMPOSE_MIN)} (`docker compose`) is missing (found {found})",
        )
    assert compose is not None  # its version was read above
    return Engine(server=server, compose=compose.stdout.strip())


def image_present(image: str) -> bool:
    result = _run(["docker", "image", "inspect", "--format", "{{.Id}}", image])
    return result is not None and result.returncode == 0


def image_buildable(spec: DockerImage) -> bool:
    """Whether ``spec`` can be built here: its base image is present, or (for a registry base) the registry answers
    for it (``docker manifest inspect``, no pull)."""
    if image_present(spec.base):
        return True
    if spec.sandbox == "docker-debian":  # its base is made by debootstrap (build.sh), never pulled
        return False
    result = _run(["docker", "manifest", "inspect", spec.base])
    return result is not None and result.returncode == 0


def docker_problem(spec: DockerImage) -> str | None:
    """Why ``spec`` cannot serve a run on this machine (one sentence, ending in what to do), or None."""
    engine = probe_engine()
    if engine.problem:
        return (
            f"sandbox '{spec.sandbox}' cannot run here: {engine.problem}; start or upgrade Docker, or use "
            "-T sandbox=confined."
        )
    if image_present(spec.image) or image_buildable(spec):
        return None
    if spec.sandbox == "docker-debian":
        return (
            f"sandbox 'docker-debian' needs the image {spec.image}, which is not present and cannot be built "
            f"without its base {spec.base}; build both with `{spec.build_hint}` (root, Debian mirror), or use "
            "-T sandbox=confined."
        )
    return (
        f"sandbox 'docker' needs the image {spec.image}, which is not present and cannot be built offline (its "
        f"base {spec.base} is not present and the image registry does not answer); build it where the registry "
        f"is reachable (`{spec.build_hint}`) and `docker save`/`docker load` it here, use "
        "-T sandbox=docker-debian, or use -T sandbox=confined."
    )


def compose_for_run(spec: DockerImage) -> Path:
    """The compose file a run uses: the image's own (inspect builds the image at task start, from cache when it can)
    or, when the image is already present, a copy without the ``build`` section so inspect neither rebuilds nor
    pulls it (an image loaded with ``docker load`` has no build cache, and its base may be unreachable)."""
    if not image_present(spec.image):
        return spec.compose
    doc = yaml.safe_load(spec.compose.read_text(encoding="utf-8"))
    for service in doc["services"].values():
        service.pop("build", None)
        service["x-local"] = True
        service["pull_policy"] = "never"
    text = f"# generated from {spec.compose} (image present: no build, no pull)\n" + yaml.safe_dump(
        doc, sort_keys=False
    )
    folder = Path(tempfile.gettempdir()) / "causalverify-compose"
    folder.mkdir(exist_ok=True)
    path = folder / f"{spec.compose.stem}-prebuilt-{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    if not path.exists():
        part = path.with_suffix(f".{hashlib.sha256(str(id(doc)).encode()).hexdigest()[:6]}.part")
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    return path
