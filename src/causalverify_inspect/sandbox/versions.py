"""R and package versions of the environment that runs Exp B, and the version pins of the ``upstream`` profile.

Upstream's printed output fixes which versions its scoring environment had: rdrobust >= 3.0 ("RD Effect" tables;
4.0 prints ``summary()`` only through auto-print, so under upstream's ``suppressMessages({...})`` wrapper every
table but the last vanishes), rddensity 2.x, and the fixest of that time (0.12 or 0.13). There is no CRAN here to
install those versions, so a pin is a declared range: the sandbox choice asks the environment which versions it
has, records them in ``r_environment`` beside the pins, names on the console every reference package whose version
lies outside its pin, and each score whose program loaded such a package says so in its metadata
(``packages_outside_pin``). The score itself is as the run went: the flag marks the cells whose printed output may
differ from upstream's, for a replay to read apart.
"""

from __future__ import annotations

import re

from causalverify_inspect.sandbox import docker

R_VERSIONS_QUERY = (
    "ip <- installed.packages(); cat('R', paste(R.version$major, R.version$minor, sep = '.'), sep = '\\t'); "
    "cat('\\n'); cat(paste(ip[, 'Package'], ip[, 'Version'], sep = '\\t'), sep = '\\n')"
)
"""R code printing ``R<TAB>version`` and then ``package<TAB>version`` for every installed package."""

VERSION_PINS: dict[str, dict[str, tuple[str, str]]] = {
    "upstream": {"rdrobust": ("3.0", "4.0"), "rddensity": ("2.0", "3.0"), "fixest": ("0.12", "0.14")},
}
"""Per profile, ``package: (lowest, first excluded)`` versions consistent with upstream's printed output."""

IMAGE_QUERY_SECONDS = 120


def parse_r_versions(stdout: str) -> dict[str, str]:
    """``{package: version}`` (R's own under ``"R"``) from the output of :data:`R_VERSIONS_QUERY`."""
    return dict(line.split("\t", 1) for line in stdout.splitlines() if line.count("\t") == 1)


def image_r_versions(image: str) -> dict[str, str] | None:
    """The versions in a present Docker image (a throwaway container without network), or None when it cannot
    answer."""
    argv = ["docker", "run", "--rm", "--network", "none", "--entrypoint", "Rscript", image, "--vanilla", "-e"]
    result = docker._run([*argv, R_VERSIONS_QUERY], timeout=IMAGE_QUERY_SECONDS)
    if result is None or result.returncode != 0:
        return None
    return parse_r_versions(result.stdout) or None


def version_key(version: str) -> tuple[int, ...]:
    """An R package version as integers (``"1.2-10"`` -> (1, 2, 10))."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def pin_text(profile: str) -> dict[str, str]:
    """The pins of ``profile`` as ``{package: ">=3.0, <4.0"}`` (empty for a profile without pins)."""
    return {p: f">={low}, <{high}" for p, (low, high) in VERSION_PINS.get(profile, {}).items()}


def outside_pins(profile: str, versions: dict[str, str]) -> dict[str, str]:
    """``{package: version}`` of the present packages whose version lies outside ``profile``'s pin."""
    outside = {}
    for package, (low, high) in VERSION_PINS.get(profile, {}).items():
        have = versions.get(package)
        if have is not None and not version_key(low) <= version_key(have) < version_key(high):
            outside[package] = have
    return outside
