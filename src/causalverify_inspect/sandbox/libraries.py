"""The host R libraries the confined sandbox shows its programs: the folders the host's ``R_LIBS`` names.

R reads extra package libraries from the environment variable ``R_LIBS`` (R's own, documented in ``?.libPaths``),
so a library built beside the system's R (``R CMD INSTALL -l <dir> <package>``: fixest, rdrobust ... from source
on a Debian host) is made visible to the confined sandbox by starting the eval with ``R_LIBS=<dir>``. Inside, each
library sits read-only at its host path showing only its installed packages (the folders holding ``DESCRIPTION``
and ``Meta/package.rds``; nothing else of the folder is reachable), and the command's ``R_LIBS`` names it. A
library under ``/usr`` is visible already and is not bound again; a folder that does not exist is left out, as R
leaves it out, and so is the temp dir or a folder above it, which holds the sandboxes' work dirs (a program could
shape its own work dir as a package for another sample to be shown). As root each sample runs as a uid of its own,
so a library must be readable by others, and every folder above it searchable: the sandbox choice refuses one that
is not, with one sentence, before the first sample (:func:`unreadable_library`). The sandbox choice asks the
host's R for its packages with these same libraries (and no user library, as inside), so the packages
``r_environment`` records are the ones the programs see.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

HOST_VARIABLE = "R_LIBS"
SYSTEM_TREE = Path("/usr")
"""Bound read-only for every command already (:mod:`.confine`): a library below it needs no bind of its own."""


def host_r_libraries(environ: Mapping[str, str] = os.environ) -> tuple[Path, ...]:
    """The existing folders of ``R_LIBS`` in ``environ`` (default: this process's), resolved, in order, each once;
    not the temp dir nor a folder above it (see module)."""
    work_dirs = Path(tempfile.gettempdir()).resolve()
    found: list[Path] = []
    for entry in environ.get(HOST_VARIABLE, "").split(os.pathsep):
        path = Path(entry).resolve() if entry.strip() else None
        if path is not None and path.is_dir() and path not in found and not work_dirs.is_relative_to(path):
            found.append(path)
    return tuple(found)


def unreadable_library(libraries: tuple[Path, ...]) -> str | None:
    """Why a sample's own uid could not read one of ``libraries`` (a folder above it not searchable by others, or
    the library not readable), or None: when this process is root, which gives each sample a uid of its own."""
    if os.geteuid() != 0:
        return None
    for library in libraries:
        for folder in [library, *library.parents]:
            mode = folder.stat().st_mode
            needed = stat.S_IXOTH | (stat.S_IROTH if folder == library else 0)
            if mode & needed != needed:
                return (
                    f"{HOST_VARIABLE} names {library}, which the confined sandbox cannot read: {folder} is mode "
                    f"{stat.filemode(mode)} and the sandbox runs as a uid of its own (make it o+rx, or move the library)"
                )
    return None


def installed_packages(library: Path) -> list[Path]:
    """The installed R packages of ``library``: its folders holding ``DESCRIPTION`` and ``Meta/package.rds``."""
    return sorted(
        p for p in library.iterdir() if (p / "DESCRIPTION").is_file() and (p / "Meta" / "package.rds").is_file()
    )


def library_binds(libraries: tuple[Path, ...]) -> list[str]:
    """bubblewrap's read-only binds of every installed package of ``libraries`` outside ``/usr``, at its own path."""
    argv: list[str] = []
    for library in libraries:
        if library.is_relative_to(SYSTEM_TREE):
            continue
        for package in installed_packages(library):
            argv += ["--ro-bind", str(package), str(package)]
    return argv


def library_environment(libraries: tuple[Path, ...]) -> dict[str, str]:
    """The command's ``R_LIBS`` naming ``libraries`` (nothing when there are none)."""
    return {HOST_VARIABLE: os.pathsep.join(map(str, libraries))} if libraries else {}
