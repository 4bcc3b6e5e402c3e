"""The suite's registered tasks and their parameters, read from the one place they are written: each task
function's signature (name, type, default) and its docstring's ``Args:`` section (the help).

``causal-suite tasks`` prints them; ``scripts/param_tables.py`` writes the README parameter tables from them (between
``<!-- parameters: TASK -->`` and ``<!-- /parameters -->`` markers), and a test fails when a README table differs.
Tasks are found through the suite's inspect entry points, so no benchmark is named here.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from causal_suite.errors import SuiteInputError
from causal_suite.inspect_compat import registry_find, registry_info
from causal_suite.registration import benchmarks

TABLE_START = "<!-- parameters: {task} -->"
TABLE_END = "<!-- /parameters -->"
HELP_WIDTH = 118  # columns of ``causal-suite tasks``


@dataclass(frozen=True)
class TaskParam:
    """One task parameter: its name, annotation, default (as ``-T`` would write it) and help text."""

    name: str
    type: str
    default: str
    help: str


def suite_tasks() -> dict[str, Callable[..., Any]]:
    """Registry name -> task function of every task the suite's inspect entry points register."""
    packages = {benchmark.package for benchmark in benchmarks()}
    found = registry_find(lambda info: info.type == "task" and info.name.split("/")[0] in packages)
    return dict(sorted((registry_info(t).name, cast(Callable[..., Any], t)) for t in found))


def task_function(name: str) -> Callable[..., Any]:
    """The suite task registered as ``name`` (``glass_inspect/glassgsm``; the bare ``glassgsm`` works too)."""
    tasks = suite_tasks()
    matches = [full for full in tasks if name in (full, full.split("/")[-1])]
    if len(matches) != 1:
        raise SuiteInputError(f"No suite task is named '{name}': the tasks are {', '.join(tasks)}.")
    return tasks[matches[0]]


def _cli_value(value: Any) -> str:
    """A default as one would pass it with ``-T`` (``true``, ``1,3,5``, ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def docstring_args(doc: str) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring: parameter name -> its help, joined into one line."""
    lines = doc.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "Args:"), None)
    if start is None:
        return {}
    indent = len(lines[start]) - len(lines[start].lstrip())
    args: dict[str, list[str]] = {}
    for line in lines[start + 1 :]:
        depth = len(line) - len(line.lstrip())
        if line.strip() and depth <= indent:
            break  # the next section
        entry = re.match(r"\s*(\w+)(?: \([^)]*\))?: (.*)", line)
        if entry and depth == indent + 4:
            args[entry.group(1)] = [entry.group(2)]
        elif args and line.strip():
            args[next(reversed(args))].append(line.strip())
    return {name: " ".join(words) for name, words in args.items()}


def task_params(name: str, fn: Callable[..., Any]) -> list[TaskParam]:
    """Every parameter of task ``name`` with its help; a parameter its docstring does not describe is an error."""
    helps = docstring_args(inspect.getdoc(fn) or "")
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if p.name not in helps:
            raise SuiteInputError(f"Task '{name}': its docstring's Args section does not describe '{p.name}'.")
        annotation = p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation)
        default = "(required)" if p.default is inspect.Parameter.empty else _cli_value(p.default)
        params.append(TaskParam(p.name, annotation, default, helps[p.name]))
    return params


def task_summary(fn: Callable[..., Any]) -> str:
    """The first line of a task's docstring."""
    return (inspect.getdoc(fn) or "").splitlines()[0] if fn.__doc__ else ""


def markdown_table(params: list[TaskParam]) -> str:
    """The README parameter table of one task (generated: edit the docstring, then run scripts/param_tables.py)."""
    rows = ["| parameter | type | default | meaning |", "|---|---|---|---|"]
    for p in params:
        meaning = p.help.replace("|", "\\|")
        rows.append(f"| `{p.name}` | `{p.type.replace('|', chr(92) + '|')}` | `{p.default}` | {meaning} |")
    return "\n".join(rows)


def render_tables(readme: str) -> str:
    """``readme`` with every marked parameter table regenerated from its task's docstring."""
    tasks = suite_tasks()
    pattern = re.compile(re.escape(TABLE_START).replace(r"\{task\}", r"(\S+)") + r"\n.*?" + re.escape(TABLE_END), re.S)

    def table(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in tasks:
            raise SuiteInputError(f"README parameter table for '{name}': no suite task has that name.")
        body = markdown_table(task_params(name, tasks[name]))
        return f"{TABLE_START.format(task=name)}\n{body}\n{TABLE_END}"

    return pattern.sub(table, readme)


def list_tasks() -> int:
    """``causal-suite tasks``: each task, its one-line description and every parameter (type, default, help)."""
    for name, fn in suite_tasks().items():
        print(f"{name}: {task_summary(fn)}")
        for p in task_params(name, fn):
            line = f"{p.name} ({p.type}, default {p.default}): {p.help}"
            print(textwrap.fill(line, width=HELP_WIDTH, initial_indent="  ", subsequent_indent="      "))
    return 0
