"""``causal-suite report``: figures checked by the numbers they plot, on scripted runs of every benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

from causal_suite.cli import main as cli_main
from causal_suite.errors import SuiteInputError
from causal_suite.figures import RATE_LIMITS
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


@pytest.fixture
def drawn(monkeypatch):
    """The matplotlib figures the report saves, by file name (each is written through a hidden temp file)."""
    import matplotlib.figure

    saved: dict[str, matplotlib.figure.Figure] = {}
    original = matplotlib.figure.Figure.savefig

    def spy(fig, fname, *args, **kwargs):
        saved[Path(fname).name.split(".tmp-")[0].lstrip(".") + Path(fname).suffix] = fig
        return original(fig, fname, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    return saved


def test_glass_suites_and_families_are_drawn_in_their_own_panels(glass_log, scripted, tmp_path, drawn):
    """GlassGSM and GlassMATH of one model: one panel per (suite, family), one label per run, axes named."""
    from glass_inspect.task import glassmath

    task = glassmath(families="irrelevant_context", doses="1,3")
    by_prompt = {s.input: s.metadata for s in task.dataset}

    def reply(prompt: str) -> str:
        meta = by_prompt[max((text for text in by_prompt if text in prompt), key=len)]
        return f"\\boxed{{{meta['answer']}}}"  # solves everything: break rate 0

    eval(task, model=scripted(reply), epochs=1, limit=40, display="none", log_dir=str(tmp_path / "math"))
    figures = build_report([str(glass_log), str(tmp_path / "math")], tmp_path / "out")
    data = figures["glass_break_rate_by_dose"].data
    labels = data.groupby("suite")["model"].unique().to_dict()
    assert {suite: len(names) for suite, names in labels.items()} == {"glassgsm": 1, "glassmath": 1}
    gsm_label, math_label = labels["glassgsm"][0], labels["glassmath"][0]
    assert gsm_label != math_label and gsm_label.startswith("mockllm/model #")  # two runs of one model
    axes = [ax for ax in drawn["glass_break_rate_by_dose.png"].axes if ax.get_visible()]
    titles = [ax.get_title() for ax in axes]
    assert titles == ["glassgsm: entity_rename", "glassgsm: irrelevant_context", "glassmath: irrelevant_context"]
    for ax in axes:
        run, other = (gsm_label, math_label) if ax.get_title().startswith("glassgsm") else (math_label, gsm_label)
        assert run in ax.get_legend_handles_labels()[1] and other not in ax.get_legend_handles_labels()[1]
        assert list(ax.get_xticks()) == [1, 3] and ax.get_ylim() == RATE_LIMITS
        assert "dose m" in ax.get_xlabel() and "break rate" in ax.get_ylabel() and ax.get_legend() is None
    assert "distractor" in axes[1].get_xlabel() and "rename" in axes[0].get_xlabel()
    assert drawn["glass_break_rate_by_dose.png"].legends  # one legend, outside the panels
    assert (data[data["suite"] == "glassmath"]["break_rate"] == 0.0).all()


def test_formats_dpi_labels_and_no_data_panels(glass_log, scripted, tmp_path, drawn):
    """PNG at the dpi asked for plus PDF and SVG; --label names the run; a figure with nothing to plot is a panel
    that says why, and the printed count is the figures written."""
    from PIL import Image

    from glass_inspect.task import glassgsm

    unsolved = tmp_path / "unsolved"
    eval(glassgsm(doses="1"), model=scripted("no idea"), epochs=1, limit=8, display="none", log_dir=str(unsolved))
    out = tmp_path / "out"
    figures = build_report([str(unsolved)], out, formats=("png", "pdf", "svg"), dpi=150, labels=["baseline"])
    assert figures["glass_break_rate_by_dose"].data.empty
    for suffix in ("png", "pdf", "svg"):
        assert (out / f"glass_break_rate_by_dose.{suffix}").stat().st_size > 1000
    assert (out / "glass_break_rate_by_dose.csv").read_text().startswith("model,suite,family,dose,break_rate")
    assert round(Image.open(out / "glass_break_rate_by_dose.png").info["dpi"][0]) == 150
    texts = [t.get_text() for ax in drawn["glass_break_rate_by_dose.png"].axes for t in ax.texts]
    assert any("no data" in t and "break rate is undefined" in t for t in texts)
    assert "(no data: no run solved a base problem" in (out / "report.md").read_text()
    built = build_report([str(glass_log)], tmp_path / "labelled", labels=["glass-run"])
    assert set(built["glass_break_rate_by_dose"].data["model"]) == {"glass-run"}
    with pytest.raises(SuiteInputError, match="2 --label given for 1 readable logs"):
        build_report([str(glass_log)], tmp_path / "x", labels=["a", "b"])


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
    assert cli_main(["report", str(glass_log), "--out", str(tmp_path / "r"), "--format", "png,svg"]) == 0
    assert "report: 1 figures (0 of them 'no data' panels) written as png, svg" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "glass_break_rate_by_dose.csv",
        "glass_break_rate_by_dose.png",
        "glass_break_rate_by_dose.svg",
        "report.md",
    ]
    for bad in (["--format", "png,gif"], ["--dpi", "12"]):
        with pytest.raises(SystemExit):
            cli_main(["report", str(glass_log), "--out", str(tmp_path / "r"), *bad])
    with pytest.raises(Exception, match="neither an .eval log"):
        build_report([str(tmp_path / "missing.txt")], tmp_path / "x")
