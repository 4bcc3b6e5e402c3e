"""The task contract, over every task the suite's benchmarks register (``causal_suite.registration``): each builds
offline from its built-in data with its defaults, carries the version its package's ``eval.yaml`` lists, and its
package README has the sections every benchmark README has, with a changelog whose entries are dated and name the
task's current version."""

from __future__ import annotations

import re
import socket
from importlib import resources

import pytest
from inspect_ai import Task

from causal_suite.eval_meta import eval_metadata, task_version
from causal_suite.inspect_compat import registry_find, registry_info
from causal_suite.registration import Benchmark, benchmarks
from causal_suite.scores import is_unscored

SECTIONS = (
    "Usage",
    "Parameters",
    "Dataset",
    "Scoring",
    "How to read the numbers",
    "Differences from the paper",
    "Changelog",
)
DATED_ENTRY = re.compile(r"- (\d{4})-(\d{2})-(\d{2}), \S")


def _tasks() -> list[tuple[Benchmark, str]]:
    return [(b, task.__name__) for b in benchmarks() for task in b.tasks]


TASKS = _tasks()


def _readme(package: str) -> str:
    return resources.files(package).joinpath("README.md").read_text(encoding="utf-8")


def _missing_sections(readme: str) -> list[str]:
    """The common sections a README lacks (its ``## `` headings)."""
    headings = re.findall(r"(?m)^## (.+)$", readme)
    return [s for s in SECTIONS if s not in headings]


def _changelog(readme: str) -> list[str]:
    """The top-level entries (lines starting with ``- ``) of a README's ``## Changelog`` section."""
    section = readme.split("\n## Changelog\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


@pytest.fixture
def no_network(monkeypatch):
    """Any connection attempt fails the test: a task must build from the data it ships."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a task tried to reach the network while building: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_the_registration_declares_every_registered_task(capsys):
    """What inspect registers for each package is what its SUITE_BENCHMARK declares, nothing left out."""
    declared = {f"{b.package}/{name}" for b, name in TASKS}
    packages = {b.package for b in benchmarks()}
    registered = {registry_info(t).name for t in registry_find(lambda i: i.type == "task")}
    assert declared == {name for name in registered if name.split("/")[0] in packages}
    assert packages == {"cobe_inspect", "glass_inspect", "causalverify_inspect"}
    with capsys.disabled():
        print(f"\ntask contract covers {len(declared)} tasks: {', '.join(sorted(declared))}")


@pytest.mark.parametrize(("benchmark", "name"), TASKS, ids=[f"{b.package}/{n}" for b, n in TASKS])
def test_each_task_builds_offline_with_its_version(benchmark, name, no_network):
    [task_fn] = [t for t in benchmark.tasks if t.__name__ == name]
    task = task_fn()
    assert isinstance(task, Task) and len(task.dataset) > 0 and task.scorer
    version = task_version(benchmark.package, name)
    assert re.fullmatch(r"[1-9]\d*-[A-Z]", version)
    assert str(task.version) == version


NEEDS = {"exp_b": (pytest.mark.needs_r, pytest.mark.needs_bwrap)}  # R run in the confined sandbox
ROLES = ("grader", "extractor")  # judge roles a task may call: scripted too


@pytest.mark.parametrize(
    ("benchmark", "name"),
    [pytest.param(b, n, id=f"{b.package}/{n}", marks=NEEDS.get(n, ())) for b, n in TASKS],
)
def test_each_task_runs_one_sample_offline_with_a_scripted_model(benchmark, name, scripted, tmp_path, no_network):
    from inspect_ai import eval

    args = {"sandbox": "confined"} if "sandbox" in benchmark.parameters()[name] else {}
    [log] = eval(
        f"{benchmark.package}/{name}",
        task_args=args,
        model=scripted("The answer is 3."),
        model_roles={role: scripted("T", name=role) for role in ROLES},
        limit=1,
        epochs=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert log.eval.task_version == task_version(benchmark.package, name) and len(log.samples) == 1
    score = next(iter(log.samples[0].scores.values()), None)  # the first scorer's, as causal_suite.unscored reads
    assert score is not None, "the sample was not scored"
    assert not is_unscored(score.value) or score.reason, "the sample is unscored without a reason"


@pytest.mark.parametrize("package", sorted({b.package for b in benchmarks()}))
def test_each_package_readme_has_the_sections_and_a_dated_changelog(package):
    readme = _readme(package)
    missing = _missing_sections(readme)
    assert not missing, f"{package}/README.md lacks the sections {missing}"
    entries = _changelog(readme)
    undated = [e[:60] for e in entries if not DATED_ENTRY.match(e)]
    assert entries and not undated, f"{package}/README.md: changelog entries without a date: {undated}"
    for entry in entries:
        year, month, day = map(int, DATED_ENTRY.match(entry).groups())  # type: ignore[union-attr]
        assert 2026 <= year and 1 <= month <= 12 and 1 <= day <= 31
    for listed in eval_metadata(package)["tasks"]:
        assert any(listed["version"] in e for e in entries), f"{package}: no changelog entry for {listed}"


def test_the_contract_fails_an_undated_entry_and_a_missing_section():
    readme = "# x\n\n## Usage\n\n## Changelog\n\n- 2026-12-01, 1-B: fine\n- 1-A: first release\n"
    entries = _changelog(readme)
    assert [bool(DATED_ENTRY.match(e)) for e in entries] == [True, False]
    assert _missing_sections(readme)[0] == "Parameters"
