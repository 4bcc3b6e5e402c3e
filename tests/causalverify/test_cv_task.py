"""exp_b end to end: scripted models, real R in the confined sandbox, replay of upstream's cached responses."""

import csv
import json

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios.estimators import canonical_estimate
from causalverify_inspect.task import exp_b

# Our reference solutions (one per family): the canonical specification written in base R / AER.
REFERENCE_R = {
    "DID": 'd <- read.csv("data/did.csv")\nm <- lm(y ~ treat_x_post + factor(unit_id) + factor(period), data = d)\n'
    'cat("Estimate:", coef(m)[["treat_x_post"]], "\\n")',
    "EVENT_STUDY": 'd <- read.csv("data/es.csv")\nd$post_event <- as.numeric(d$event_day >= 0)\n'
    'm <- lm(ret ~ mkt_ret + post_event, data = d)\ncat("Estimate:", coef(m)[["post_event"]], "\\n")',
    "IV": 'library(AER)\nd <- read.csv("data/iv.csv")\nm <- ivreg(y ~ x + controls | z + controls, data = d)\n'
    "print(summary(m))",
    "RDD": 'd <- read.csv("data/rdd.csv")\ns <- subset(d, abs(running_var - 0.5) <= 0.3)\ns$r <- s$running_var - 0.5\n'
    'm <- lm(y ~ treated * r, data = s)\ncat("RD estimate:", coef(m)[["treated"]], "\\n")',
}
FILES = {"DID": "data/did.csv", "EVENT_STUDY": "data/es.csv", "IV": "data/iv.csv", "RDD": "data/rdd.csv"}


def _data(family: str, rng: np.random.Generator) -> pd.DataFrame:
    if family == "DID":
        unit, period = np.meshgrid(np.arange(30), np.arange(1, 7), indexing="ij")
        unit, period = unit.ravel(), period.ravel()
        treated, post = (unit < 15).astype(int), (period >= 4).astype(int)
        y = 0.5 * treated + 0.3 * post + 0.4 * treated * post + rng.normal(0, 0.3, unit.size)
        return pd.DataFrame(
            {
                "unit_id": unit,
                "period": period,
                "treated": treated,
                "post": post,
                "treat_x_post": treated * post,
                "y": y.round(4),
            }
        )
    if family == "EVENT_STUDY":
        stock, day = np.meshgrid(np.arange(12), np.arange(-10, 11), indexing="ij")
        mkt = rng.normal(0.0003, 0.01, stock.size)
        ret = 1.1 * mkt - 0.02 * (day.ravel() >= 0) + rng.normal(0, 0.01, stock.size)
        return pd.DataFrame(
            {"stock_id": stock.ravel(), "event_day": day.ravel(), "ret": ret.round(6), "mkt_ret": mkt.round(6)}
        )
    if family == "IV":
        z, u = rng.integers(0, 2, 300), rng.normal(size=300)
        x = 0.8 * z + 0.5 * u + rng.normal(0, 0.3, 300)
        y = 0.4 * x + 0.6 * u + rng.normal(0, 0.3, 300)
        return pd.DataFrame({"y": y.round(4), "x": x.round(4), "z": z, "controls": rng.normal(size=300).round(4)})
    r = rng.uniform(0, 1, 400)
    treated = (r >= 0.5).astype(int)
    return pd.DataFrame(
        {
            "running_var": r.round(4),
            "treated": treated,
            "y": (0.3 * r + 0.25 * treated + rng.normal(0, 0.1, 400)).round(4),
        }
    )


@pytest.fixture
def scenario_dir(tmp_path):
    """Four tiny scenarios in causalverify-data's layout (scenarios.json + data/*.csv), canonical computed."""
    rng = np.random.default_rng(7)
    records = []
    (tmp_path / "data").mkdir()
    for i, (family, data_file) in enumerate(FILES.items()):
        data = _data(family, rng)
        data.to_csv(tmp_path / data_file, index=False)
        design = {"cutoff": 0.5, "bandwidth": 0.3, "treated_side": "above"} if family == "RDD" else {}
        canon = canonical_estimate(data, family, design)
        records.append(
            {
                "scenario_id": f"t{i + 1}",
                "family": family,
                "difficulty": "easy",
                "title": f"{family} test",
                "research_question": f"What is the effect? ({family})",
                "data_description": f"columns {list(data.columns)}",
                "data_file": data_file,
                "true_effect": canon.estimate,
                "direction": "positive" if canon.estimate > 0 else "negative",
                "canonical": canon.to_dict(),
                "ground_truth": {},
                "design": design,
            }
        )
    (tmp_path / "scenarios.json").write_text(json.dumps({"generator": "test", "seed": 7, "scenarios": records}))
    return tmp_path


def answer(code: str) -> str:
    return (
        f"## 1. Identification strategy\nThe design fits.\n\n## 2. R code\n```r\n{code}\n```\n\n"
        "## 3. Expected findings\nPositive."
    )


def by_file(replies: dict[str, str]):
    return {FILES[family]: reply for family, reply in replies.items()}


def scores_by_id(log):
    return {s.id: next(iter(s.scores.values())) for s in log.samples}


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_reference_solutions_pass_l2b_plus_for_every_family(scenario_dir, scripted, tmp_path):
    model = scripted(by_file({f: answer(code) for f, code in REFERENCE_R.items()}))
    log = eval(
        exp_b(scenarios=str(scenario_dir), sandbox="confined", timeout=30),
        model=model,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success"
    scores = scores_by_id(log)
    assert {sid: s.value["L2b_plus"] for sid, s in scores.items()} == {"t1": 1, "t2": 1, "t3": 1, "t4": 1}
    for sid, s in scores.items():
        assert s.metadata["rel_error"] < 1e-4, (sid, s.explanation)
    run = next(s for s in log.samples if s.id == "t1").store["cv_run"]
    assert run["exit_code"] == 0 and "Estimate:" in run["stdout"]
    assert run["sandbox"] == "ConfinedSandboxEnvironment"
    did_prompt = next(p for p in model.prompts if "data/did.csv" in p)
    assert "treat_x_post: int64" in did_prompt and "unit_id  period" in did_prompt
    metrics = {name: m.value for es in log.results.scores for name, m in es.metrics.items()}
    assert metrics["conditional_pass"] == 1.0 and metrics["IV_L2b_plus"] == 1.0
    # short names in the log (the viewer shows EvalMetric.name): no package prefix, L2b+ first
    names = [m.name for es in log.results.scores for m in es.metrics.values()]
    assert names[0] == "L2b_plus" and {"L2b", "L2b_plus_se", "conditional_pass"} <= set(names)
    assert not any("/" in n for n in names)
    assert metrics["L2b_plus_n"] == metrics["L2b_plus_clusters"] == 4


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_a_sandbox_replaced_by_inspects_flag_fails_the_sample_with_one_sentence(scenario_dir, scripted, tmp_path):
    """``--sandbox local`` would run the R unconfined while the log's r_environment says confined: refused."""
    [log] = eval(
        exp_b(scenarios=str(scenario_dir), ids="t1", sandbox="confined", timeout=30),
        model=scripted(answer(REFERENCE_R["DID"])),
        sandbox="local",
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "error" and log.eval.sandbox.type == "local"
    assert log.eval.metadata["sandbox"] == "confined"
    message = log.samples[0].error.message
    assert "--sandbox replaced the task's R sandbox 'confined' with 'local'" in message
    assert "-T sandbox=" in message and "cv_run" not in log.samples[0].store  # nothing ran


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_hostile_samples_fail_with_reasons_and_others_score_normally(scenario_dir, scripted, tmp_path):
    model = scripted(
        by_file(
            {
                "DID": answer("while (TRUE) {}"),
                "EVENT_STUDY": answer('system("b(){ b | b & }; b", wait = TRUE)\nstop("bombed")'),
                "IV": answer(REFERENCE_R["IV"]),
                "RDD": "I would fit a local linear regression, but here is Python:\n```python\nprint(1)\n```",
            }
        )
    )
    log = eval(
        exp_b(scenarios=str(scenario_dir), sandbox="confined", timeout=10),
        model=model,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success"
    scores = scores_by_id(log)
    assert scores["t1"].value["L2b"] == 0 and scores["t1"].explanation == "timed out"
    assert scores["t2"].value["L2b"] == 0 and scores["t2"].value["fail_execution_failure"] == 1
    assert scores["t3"].value["L2b_plus"] == 1
    assert scores["t4"].value["L2a"] == 0 and scores["t4"].value["fail_no_code"] == 1


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_calibration_arm_records_confidences(scenario_dir, scripted, tmp_path):
    def reply(prompt: str) -> str:
        if "Give three probabilities" in prompt:
            return '{"method": 0.9, "specification": 0.8, "estimate": 0.7}' if "data/did.csv" in prompt else "no idea"
        return answer(REFERENCE_R["DID"] if "data/did.csv" in prompt else 'cat("Estimate: 99\\n")')

    log = eval(
        exp_b(scenarios=str(scenario_dir), ids="t1,t3", sandbox="confined", timeout=30, calibration=True),
        model=scripted(reply),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success"
    scores = scores_by_id(log)
    assert scores["t1"].value["conf_estimate"] == 0.7 and scores["t1"].value["L2b_plus"] == 1
    calib = next(es for es in log.results.scores if "ece" in es.metrics)
    assert calib.metrics["n_rated"].value == 1 and calib.metrics["n_unparsed"].value == 1
    assert calib.metrics["ece"].value == pytest.approx(0.3)


def test_bad_parameters_fail_with_one_sentence(scenario_dir, tmp_path):
    with pytest.raises(SuiteInputError, match="sandbox"):
        exp_b(scenarios=str(scenario_dir), sandbox="vm")
    with pytest.raises(SuiteInputError, match="es_windows"):
        exp_b(scenarios=str(scenario_dir), es_windows="weekly")
    with pytest.raises(SuiteInputError, match="responses_model"):
        exp_b(scenarios=str(scenario_dir), responses=str(tmp_path))
    with pytest.raises(SuiteInputError, match="t1_some-model.json"):
        exp_b(scenarios=str(scenario_dir), responses=str(tmp_path), responses_model="some/model")
    with pytest.raises(SuiteInputError, match="t9"):
        exp_b(scenarios=str(scenario_dir), ids="t9")


@pytest.mark.shared_data
@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_replayed_upstream_responses_agree_with_published_scores(shared_dir, tmp_path):
    log, root = replay_upstream(shared_dir, "confined", tmp_path)
    assert log.status == "success"
    assert agreeing_cells(log, root, REPLAY_SLUG) >= 3


REPLAY_SLUG = "moonshot-v1-128k"


def replay_upstream(shared_dir, sandbox: str, log_dir):
    """(log, upstream root) of four shared upstream responses replayed in ``sandbox`` with upstream's window rule."""
    root = shared_dir / "data" / "causalverify"
    log = eval(
        exp_b(
            scenarios=str(root),
            ids=["s02", "s12", "s19", "s26"],
            sandbox=sandbox,
            es_windows="cumulative",
            responses=str(root / "experiments/exp_b/outputs"),
            responses_model=REPLAY_SLUG,
        ),
        model="mockllm/model",
        display="none",
        log_dir=str(log_dir),
    )[0]
    return log, root


def agreeing_cells(log, root, slug: str) -> int:
    """How many replayed cells were compared with upstream's published L1..L2b+ (each must agree; cells that failed
    for a package the sandbox lacks are skipped)."""
    with (root / "experiments/exp_b/l2b_plus_scores_canonical_judge_v2.csv").open(newline="", encoding="utf-8") as f:
        published = {r["scenario_id"]: r for r in csv.DictReader(f) if r["model_slug"] == slug}
    compared = 0
    for sid, score in scores_by_id(log).items():
        assert isinstance(score.value, dict), (sid, score.explanation)
        if score.value["environment"]:
            continue
        row = published[sid]
        ours = [int(score.value[k]) for k in ("L1", "L2a", "L2b", "L2b_plus")]
        assert ours == [int(row[k]) for k in ("L1", "L2a", "L2b", "L2b_plus_v2")], (sid, score.explanation)
        compared += 1
    return compared


def test_exp_a_with_scripted_model_on_builtin_contexts(scripted, tmp_path):
    from causalverify_inspect.task import exp_a

    plans = {
        "rent arrears": "## 1. Identification strategy\nDifference-in-differences with county and quarter fixed "
        "effects.\n## 6. Expected results\nA negative effect: arrears should decline.",
        "fuel tax": "## 1. Identification strategy\nAn event study of abnormal returns.\n## 6. Expected results\n"
        "Negative: returns fall.",
        "bigger high school": "## 1. Identification strategy\nInstrumental variables: the lottery is an instrument "
        "for attendance (2SLS).\n## 6. Expected results\nNegative.",
        "merit scholarship": "## 1. Identification strategy\nRegression discontinuity at the 700-point cutoff.\n"
        "## 6. Expected results\nPositive: completion should increase.",
        "broadband": "## 1. Identification strategy\nAn event study.\n## 6. Expected results\nPositive increase.",
        "tax audits": "## 1. Identification strategy\nDifference-in-differences.\n## 6. Expected results\nPositive.",
    }
    log = eval(exp_a(), model=scripted(plans), display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success"
    metrics = {k: m.value for es in log.results.scores for k, m in es.metrics.items()}
    assert metrics["L3_n"] == 5 and metrics["L3"] == pytest.approx(4 / 5)  # broadband named the wrong design
    assert metrics["L4_n"] == 6 and metrics["L4"] == pytest.approx(5 / 6)  # the school plan got the sign wrong


def test_exp_a_labels_file_overrides_and_bad_records(tmp_path):
    from causalverify_inspect.dataset import exp_a_dataset

    contexts = tmp_path / "ctx.jsonl"
    contexts.write_text(
        json.dumps(
            {
                "paper_id": "p1",
                "research_question": "q",
                "data_description": "d",
                "institutional_context": "c",
                "method": "DID",
            }
        )
        + "\n"
    )
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps([{"paper_id": "p1", "new_method": "IV", "new_direction": "negative"}]))
    sample = exp_a_dataset(contexts, labels)[0]
    assert sample.metadata == {"method": "IV", "direction": "negative"}
    contexts.write_text(json.dumps({"paper_id": "p2", "research_question": "q"}) + "\n")
    with pytest.raises(SuiteInputError, match="data_description"):
        exp_a_dataset(contexts)


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_missing_packages_are_looked_up_in_the_sandbox_after_a_failure(scenario_dir, scripted, tmp_path):
    code = 'pk <- c("surely_absent_pkg", "ggplot2", "fixest")\nlibrary(stats)\nstop("fail")'
    log = eval(
        exp_b(scenarios=str(scenario_dir), ids="t1", sandbox="confined", timeout=20),
        model=scripted(answer(code)),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    run = log.samples[0].store["cv_run"]
    assert run["exit_code"] == 1
    import shutil
    import subprocess

    probe = subprocess.run([shutil.which("Rscript"), "-e", "library(fixest)"], capture_output=True)
    have_fixest = probe.returncode == 0
    assert run["missing_packages"] == ([] if have_fixest else ["fixest"])


def test_tasks_register_under_the_package_name():
    from inspect_ai._util.registry import registry_info

    from causalverify_inspect.task import exp_a

    assert registry_info(exp_b).name == "causalverify_inspect/exp_b"
    assert registry_info(exp_a).name == "causalverify_inspect/exp_a"
