"""Per-benchmark metadata files: each benchmark package ships an ``eval.yaml`` beside its ``task.py`` (title,
paper, and one entry per task with its version), read here; each ``Task(version=...)`` comes from it.

Version scheme (the one inspect_evals uses): ``"<N>-<L>"``, e.g. ``"1-A"``. ``N`` is the comparability version:
bump it when results of the new version are not comparable with the old (scoring, data, prompts, defaults
that change a score). ``L`` is the interface letter: bump it (A -> B) when the task's parameters or log layout
change but scores stay comparable; it goes back to ``A`` when ``N`` is bumped. Each bump gets a changelog entry
in the package README.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

import yaml

VERSION = re.compile(r"[1-9][0-9]*-[A-Z]")
METADATA_FILE = "eval.yaml"


@functools.cache
def eval_metadata(package: str) -> dict[str, Any]:
    """The parsed ``eval.yaml`` of a package, checked: a ``tasks`` list whose entries have a ``name`` and a
    ``version`` in the scheme above (a malformed file is a packaging bug, so it raises ``ValueError``)."""
    text = resources.files(package).joinpath(METADATA_FILE).read_text(encoding="utf-8")
    meta = yaml.safe_load(text)
    tasks = meta.get("tasks") if isinstance(meta, dict) else None
    if not isinstance(tasks, list) or not tasks:
        raise ValueError(f"{package}/{METADATA_FILE}: no 'tasks' list.")
    for entry in tasks:
        version = str(entry.get("version", "")) if isinstance(entry, dict) else ""
        if not isinstance(entry, dict) or not entry.get("name") or not VERSION.fullmatch(version):
            raise ValueError(f"{package}/{METADATA_FILE}: task entry {entry!r} needs a name and a version like 1-A.")
    return meta


def task_version(package: str, task: str) -> str:
    """The version of one task of a package, from its ``eval.yaml``."""
    for entry in eval_metadata(package)["tasks"]:
        if entry["name"] == task:
            return str(entry["version"])
    raise ValueError(f"{package}/{METADATA_FILE} has no entry for task {task!r}.")
