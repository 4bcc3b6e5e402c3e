"""``causal-suite report``: figures checked by the numbers they plot, on scripted runs of every benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

from causal_suite.cli import main as cli_main
from causal_suite.report import build_report


@pytest.fixture(scope="module")
def glass_log(tmp_path_factory, scripted_factory):
    """glassgsm with a model that solves bases and placebo twins but fails every distractor twin."""

    from glass_inspect.task import glassgsm

    task = glassgsm(families="entity_rename,irrelevant_context", doses="1,3")
    by_prompt = {s.input: s.metadata for s in task.dataset}

    def reply(prompt: str) -> str:
        meta = by_prompt[max((text for text in by_prompt if text in prompt), key=len)]  # a twin may hold its base
        wrong = meta["role"] == "twin" and meta["operator"] == "irrelevant_context"
        return f"The answer is {'-1' if wrong else meta['answer']}."

    log_dir = tmp_path_factory.mktemp("glass")
    eval(task, model=scripted_factory(reply), epochs=1, limit=60, display="none", log_dir=str(log_dir))
    return log_dir


@pytest.fixture(scope="module")
def cobe_log(tmp_path_factory, scripted_factory):

    from cobe_inspect.prompts import JUDGE_TEMPLATES

    e2_opening = JUDGE_TEMPLATES["E2"].strip().splitlines()[0]

    def verdict(prompt: str) -> str:  # E2 fails every sample: accuracy 0, E2 failure rate 1
        return "F" if e2_opening in prompt else "T"

    log_dir = tmp_path_factory.mktemp("cobe")
    eval(
        "cobe_inspect/cobe",
        model=scripted_factory("A rewritten story."),
        display="none",
        limit=9,
        task_args={"judge_cache": False},
        model_roles={"grader": scripted_factory(verdict, name="grader")},
        log_dir=str(log_dir),
    )
    return log_dir


def test_glass_break_rate_by_dose_and_identity_floor(glass_log, tmp_path):
    figures = build_report([str(glass_log)], tmp_path)
    data = figures["glass_break_rate_by_dose"].data
    assert set(data["family"]) == {"entity_rename", "irrelevant_context"}
    assert set(data["dose"]) == {1, 3}
    rates = data.groupby("family")["break_rate"].mean()
    assert rates["irrelevant_context"] == 1.0 and rates["entity_rename"] == 0.0
    assert (data["identity_floor"] == 0.0).all()
    assert (tmp_path / "glass_break_rate_by_dose.png").stat().st_size > 1000
    assert "glass_break_rate_by_dose.png" in (tmp_path / "report.md").read_text()


def test_glass_suites_of_one_model_are_drawn_in_their_own_panels(glass_log, scripted, tmp_path):
    """GlassGSM and GlassMATH of one model: one panel per suite (lines of one suite never join the other's)."""
    import matplotlib.figure

    from glass_inspect.task import glassmath

    task = glassmath(families="irrelevant_context", doses="1,3")
    by_prompt = {s.input: s.metadata for s in task.dataset}

    def reply(prompt: str) -> str:
        meta = by_prompt[max((text for text in by_prompt if text in prompt), key=len)]
        return f"\\boxed{{{meta['answer']}}}"  # solves everything: break rate 0

    eval(task, model=scripted(reply), epochs=1, limit=40, display="none", log_dir=str(tmp_path / "math"))
    panels: list[tuple[str, list[str]]] = []
    original = matplotlib.figure.Figure.savefig

    def spy(fig, fname, *args, **kwargs):
        if "glass_break_rate_by_dose" in Path(fname).name:  # written through a hidden temp file
            panels.extend((ax.get_title(), ax.get_legend_handles_labels()[1]) for ax in fig.axes)
        return original(fig, fname, *args, **kwargs)

    try:
        matplotlib.figure.Figure.savefig = spy
        figures = build_report([str(glass_log), str(tmp_path / "math")], tmp_path / "out")
    finally:
        matplotlib.figure.Figure.savefig = original
    data = figures["glass_break_rate_by_dose"].data
    assert set(data["suite"]) == {"glassgsm", "glassmath"} and set(data["model"]) == {"mockllm/model"}
    assert [title.split(":")[0] for title, _ in panels] == ["glassgsm", "glassmath"]
    gsm, math_ = (labels for _, labels in panels)
    assert "entity_rename (mockllm/model)" in gsm and "entity_rename (mockllm/model)" not in math_
    assert "irrelevant_context (mockllm/model)" in math_
    assert (data[data["suite"] == "glassmath"]["break_rate"] == 0.0).all()


def test_cobe_breakdowns_and_check_failures(cobe_log, tmp_path):
    figures = build_report([str(cobe_log)], tmp_path)
    by_phrasing = figures["cobe_accuracy_by_phrasing"].data
    assert by_phrasing["n"].sum() == 9 and (by_phrasing["accuracy"] == 0.0).all()
    checks = figures["cobe_check_failures"].data.set_index("check")["failure_rate"]
    assert checks.to_dict() == {"E0": 0.0, "E1": 0.0, "E2": 1.0}
    assert figures["cobe_accuracy_by_domain"].data["n"].sum() == 9


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_exp_b_funnel_sweep_and_reliability_side_by_side(scripted, tmp_path):
    from causalverify_inspect.task import exp_b

    code = "## 2. R code\n```r\ncat('Estimate: 0.3\\n')\n```"
    for name, reply in (("runs", code), ("prose", "I would run a regression.")):

        def answer(prompt: str, reply=reply) -> str:
            return '{"method": 0.9, "specification": 0.8, "estimate": 0.75}' if "probabilities" in prompt else reply

        eval(
            exp_b(ids="did_easy_01,did_easy_02,iv_easy_01", sandbox="confined", calibration=True),
            model=scripted(answer, name=name),
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    figures = build_report([str(tmp_path / "logs")], tmp_path / "out")
    funnel = figures["exp_b_funnel"].data.set_index(["model", "family", "level"])["rate"]
    assert funnel[("mockllm/runs", "DID", "L2b")] == 1.0 and funnel[("mockllm/prose", "DID", "L2a")] == 0.0
    assert funnel[("mockllm/prose", "IV", "L1")] == 1.0
    sweep = figures["exp_b_tolerance_sweep"].data
    for _, part in sweep.groupby("model"):
        assert part.sort_values("tolerance")["L2b_plus"].is_monotonic_increasing
    reliability = figures["exp_b_reliability"].data
    assert set(reliability["bin"]) == {7} and (reliability["confidence"] == 0.75).all()


def test_cli_report_and_its_errors(glass_log, tmp_path, capsys):
    assert cli_main(["report", str(glass_log), "--out", str(tmp_path / "r")]) == 0
    assert "figures written" in capsys.readouterr().out
    with pytest.raises(Exception, match="neither an .eval log"):
        build_report([str(tmp_path / "missing.txt")], tmp_path / "x")
