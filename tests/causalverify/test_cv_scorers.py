"""exp_b_scorer and its metrics on hand-made runs, including every failure path (paper §4, App. C.2, C.5)."""

import math

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target
from inspect_ai.solver import TaskState

from causalverify_inspect import metrics, scorers
from causalverify_inspect.metrics import calibration_summary, conditional_pass, failure_taxonomy
from causalverify_inspect.packages import environment_package, loaded_packages
from causalverify_inspect.scenarios.estimators import iv_stage_estimates
from causalverify_inspect.scorers import classify_miss, exp_b_scorer, extractor_excerpt, relative_error
from causalverify_inspect.store import CONFIDENCE_KEY, RUN_KEY


def make_state(
    run: dict | None, family="DID", canonical=-0.2, completion="## 2. R code\n```r\nx <- 1\n```", confidence=None
) -> TaskState:
    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="prompt",
        messages=[],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
        metadata={"family": family, "canonical": canonical, "data_path": None},
    )
    if run is not None:
        state.store.set(
            RUN_KEY, {"code": "x <- 1", "exit_code": 0, "timed_out": False, "stdout": "", "stderr": "", **run}
        )
    if confidence is not None:
        state.store.set(CONFIDENCE_KEY, confidence)
    return state


async def score(state, **kwargs) -> Score:
    return await exp_b_scorer(**kwargs)(state, Target(""))


async def test_correct_estimate_passes_every_level():
    result = await score(make_state({"stdout": "Estimate: -0.21\n"}))
    v = result.value
    assert (v["L1"], v["L2a"], v["L2b"], v["L2b_plus"]) == (1, 1, 1, 1)
    assert result.metadata["rel_error"] == pytest.approx(0.05)
    assert (v["tol_10"], v["tol_25"]) == (1, 1)
    assert sum(v[f"fail_{f}"] for f in metrics.FAILURES) == 0


async def test_estimate_outside_tolerance_fails_l2b_plus_and_sweeps():
    result = await score(make_state({"stdout": "Estimate: -0.35\n"}))
    v = result.value
    assert v["L2b"] == 1 and v["L2b_plus"] == 0
    assert (v["tol_50"], v["tol_75"], v["tol_100"]) == (0, 1, 1)
    assert result.metadata["failure"] == "other"


async def test_no_code_block():
    result = await score(make_state({"code": None}, completion="I would use DID."))
    assert result.value["L2a"] == 0 and result.value["fail_no_code"] == 1


async def test_empty_response_fails_l1():
    result = await score(make_state({"code": None}, completion=""))
    assert result.value["L1"] == 0 and result.value["fail_no_code"] == 1


async def test_non_zero_exit_is_an_execution_failure():
    result = await score(make_state({"exit_code": 1, "stderr": "Error: object 'dd' not found\n"}))
    assert result.value["L2b"] == 0 and result.value["fail_execution_failure"] == 1
    assert "exit code 1" in result.explanation


async def test_timeout_is_an_execution_failure():
    result = await score(make_state({"exit_code": None, "timed_out": True, "stderr": "timeout after 60 s"}))
    assert result.value["L2b"] == 0 and result.value["fail_execution_failure"] == 1
    assert result.explanation == "timed out"


async def test_missing_docker_package_is_environment():
    stderr = "Error in library(fixest) : there is no package called \u2018fixest\u2019\n"
    result = await score(make_state({"exit_code": 1, "stderr": stderr, "missing_packages": ["fixest"]}))
    assert result.value["environment"] == 1 and result.value["fail_environment"] == 1
    assert "fixest" in result.explanation


async def test_a_printed_load_error_alone_is_not_environment():
    # the program printed R's load error itself, but the sandbox's own check found the package installed
    stderr = "Error in library(fixest) : there is no package called \u2018fixest\u2019\n"
    result = await score(make_state({"exit_code": 1, "stderr": stderr, "missing_packages": []}))
    assert result.value["environment"] == 0 and result.value["fail_execution_failure"] == 1


@pytest.mark.parametrize(
    "stderr, missing, expected",
    [
        ('Error in install.packages("rdrobust", repos = "x") :\n', ["rdrobust"], "rdrobust"),
        ("there is no package called 'quantmod'", ["rdrobust"], None),  # not a package of the image
        ('Error in feols(y ~ d, data) : could not find function "feols"', ["fixest"], "fixest"),
        ('Error in d %>% mutate(x = 1) : could not find function "%>%"', ["rdrobust", "plm"], None),
        ("there is no package called \u2018plm\u2019", ["rdrobust", "plm"], "plm"),
        ("package \u2018rdd\u2019 is not available for this version of R", ["rdd"], "rdd"),
        ("Error: object 'x' not found", ["fixest"], None),
    ],
)
def test_environment_package_needs_both_the_sandbox_check_and_the_error(stderr, missing, expected):
    assert environment_package(stderr, missing) == expected


@pytest.mark.parametrize(
    "code, expected",
    [
        ("library(fixest)\nrequire('rdrobust', quietly = TRUE)", ["fixest", "rdrobust"]),
        ('requireNamespace("rddensity", quietly = TRUE); x <- plm::plm(y ~ x, d)', ["plm", "rddensity"]),
        ("pacman::p_load(fixest, data.table, char = NULL)", ["data.table", "fixest"]),
        ('install.packages(c("stargazer", "rdd"), repos = "x")', ["rdd", "stargazer"]),
        ('pk <- c("fixest", "quantmod"); invisible(lapply(pk, library, character.only = TRUE))', ["fixest"]),
        ("x <- stats::lm(y ~ d); library(AER, warn.conflicts = FALSE)", ["AER"]),
        ('cat("no packages here: 1 + 1 = 2\n")', []),
    ],
)
def test_loaded_packages(code, expected):
    assert loaded_packages(code) == expected


async def test_a_run_that_passed_without_an_image_package_is_flagged_degraded():
    result = await score(make_state({"stdout": "Estimate: -0.21\n", "missing_packages": ["rddensity"]}))
    assert result.value["L2b_plus"] == 1 and result.value["environment_degraded"] == 1
    clean = await score(make_state({"stdout": "Estimate: -0.21\n", "missing_packages": ["quantmod"]}))
    assert clean.value["environment_degraded"] == 0  # not a package of the image: nothing the reference has


def test_extractor_sees_both_ends_of_a_long_output():
    text = "HEAD " + "x" * 20_000 + " Estimate: 0.42"
    excerpt = extractor_excerpt(text)
    assert excerpt.startswith("HEAD") and excerpt.endswith("Estimate: 0.42") and len(excerpt) < 6100
    assert extractor_excerpt("short") == "short"


async def test_output_without_numbers_is_no_estimate():
    result = await score(make_state({"stdout": "Model fitted.\n"}))
    assert result.value["L2b"] == 1 and result.value["fail_no_estimate"] == 1


async def test_unresolved_without_extractor_role_is_unscored():
    result = await score(make_state({"stdout": "BP\n0.80\n"}))
    assert result.reason == "extraction_unresolved"
    assert result.value["unscored"] == 1 and math.isnan(result.value["L2b_plus"]) and math.isnan(result.value["tol_50"])
    assert result.value["L2b"] == 1  # it ran: only its estimate is unknown


async def test_an_extractor_failure_other_than_an_unbound_role_is_not_taken_for_one(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the extractor's provider failed")

    monkeypatch.setattr(scorers, "get_model", broken)
    with pytest.raises(RuntimeError, match="provider failed"):  # the sample errors; it is not decided by rule
        await score(make_state({"stdout": "BP\n0.80\n"}))


async def test_extractor_number_is_used(monkeypatch, scripted):
    extractor = scripted('{"effect": -0.19, "rationale": "coefficient on D"}')
    monkeypatch.setattr(scorers, "get_model", lambda *a, **k: extractor)
    result = await score(make_state({"stdout": "something 3 things\n"}))
    assert result.value["L2b_plus"] == 1 and result.metadata["source"] == "extractor"
    assert "-0.2" not in extractor.prompts[0]  # the canonical value is never shown


async def test_extractor_is_asked_once_per_model_and_prompt(monkeypatch, scripted):
    first, second = scripted('{"effect": -0.19, "rationale": "a"}'), scripted('{"effect": null, "rationale": "b"}')
    for extractor in (first, first, second):
        monkeypatch.setattr(scorers, "get_model", lambda *a, chosen=extractor, **k: chosen)
        result = await score(make_state({"stdout": "cached 7 things\n"}))
        assert result.metadata["source"] == ("extractor" if extractor is first else None)
    assert len(first.prompts) == 1 and len(second.prompts) == 1  # repeat asked once; another model asked anew


async def test_concurrent_identical_extractor_prompts_share_one_call(monkeypatch, scripted):
    import asyncio

    extractor = scripted('{"effect": -0.19, "rationale": "a"}')
    monkeypatch.setattr(scorers, "get_model", lambda *a, **k: extractor)
    results = await asyncio.gather(*(score(make_state({"stdout": "epochs 5 alike\n"})) for _ in range(3)))
    assert [r.metadata["source"] for r in results] == ["extractor"] * 3
    assert len(extractor.prompts) == 1


async def test_extractor_null_is_no_estimate(monkeypatch, scripted):
    monkeypatch.setattr(scorers, "get_model", lambda *a, **k: scripted('{"effect": null, "rationale": "none"}'))
    result = await score(make_state({"stdout": "BP = 0.8\n"}))
    assert result.value["fail_no_estimate"] == 1 and result.value["L2b_plus"] == 0


async def test_extractor_reply_not_a_number_is_unscored(monkeypatch, scripted):
    monkeypatch.setattr(scorers, "get_model", lambda *a, **k: scripted('{"effect": "about 0.3"}'))
    result = await score(make_state({"stdout": "BP = 0.8\n"}))
    assert result.value["unscored"] == 1 and math.isnan(result.value["L2b_plus"])
    assert result.reason == "grader_failed"


async def test_tiny_canonical_is_unscoreable():
    result = await score(make_state({"stdout": "Estimate: 0.1\n"}, canonical=1e-12))
    assert not isinstance(result.value, dict) and result.reason == "unscoreable_canonical"


def test_event_study_window_rules():
    canonical = -0.02
    assert relative_error(-0.04, canonical, "EVENT_STUDY", (-1, 1), "strict") == (pytest.approx(0.0), 2)
    assert relative_error(-0.04, canonical, "EVENT_STUDY", None, "strict")[0] == pytest.approx(1.0)
    err, k = relative_error(-0.22, canonical, "EVENT_STUDY", None, "cumulative")
    assert (err, k) == (pytest.approx(0.0), 11)
    assert relative_error(0.22, canonical, "EVENT_STUDY", None, "cumulative")[0] > 1


def test_failure_classes():
    assert classify_miss("RDD", -0.25, 0.25, 2.0, 0.5, None) == "rdd_cutoff_sign"
    assert classify_miss("EVENT_STUDY", -2.0, -0.02, 99.0, 0.5, None) == "window_scale"
    assert classify_miss("DID", 0.3, -0.2, 2.5, 0.5, None) == "wrong_coefficient"


def test_iv_first_stage_is_an_iv_stage_error(tmp_path):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 400)
    u = rng.normal(size=400)
    x = 0.6 * z + 0.5 * u + rng.normal(0, 0.3, 400)
    y = 0.2 * x + 0.6 * u + rng.normal(0, 0.3, 400)
    path = tmp_path / "iv.csv"
    pd.DataFrame({"y": y, "x": x, "z": z, "controls": rng.normal(size=400)}).to_csv(path, index=False)
    first_stage = iv_stage_estimates(str(path))["first_stage"]
    assert classify_miss("IV", first_stage, 0.2, abs(first_stage - 0.2) / 0.2, 0.5, str(path)) == "iv_stage"


def sample_score(value: dict, family="DID", sample_id="x") -> SampleScore:
    return SampleScore(score=Score(value=value), sample_id=sample_id, sample_metadata={"family": family})


def test_conditional_pass_and_taxonomy_metrics():
    base = {f"fail_{f}": 0.0 for f in metrics.FAILURES} | {"L1": 1.0, "L2a": 1.0, "environment": 0.0}
    base |= {metrics.sweep_key(t): 0.0 for t in metrics.SWEEP} | {"environment_degraded": 0.0}
    rows = [
        {**base, "L2b": 1.0, "L2b_plus": 1.0},
        {**base, "L2b": 1.0, "L2b_plus": 0.0, "fail_other": 1.0},
        {**base, "L2b": 0.0, "L2b_plus": 0.0, "fail_execution_failure": 1.0},
    ]
    scores = [sample_score(r, sample_id=f"s{i}") for i, r in enumerate(rows)]
    passed = conditional_pass()(scores)
    assert passed["conditional_pass"] == pytest.approx(0.5)
    # over the two runs that executed, two scenarios: residuals +-0.5, CR1 sqrt(2 * 0.5) / 2
    assert (passed["conditional_pass_n"], passed["conditional_pass_clusters"]) == (2, 2)
    assert passed["conditional_pass_se"] == pytest.approx(0.5)
    levels = metrics.rates()(scores)
    assert levels["L2b"] == pytest.approx(2 / 3) and (levels["L2b_n"], levels["L2b_clusters"]) == (3, 3)
    assert levels["L2b_low"] < 2 / 3 < levels["L2b_high"]
    family = metrics.by_family()(scores)
    assert family["DID_L2b_plus"] == pytest.approx(1 / 3) and family["DID_L2b_plus_n"] == 3
    taxonomy = failure_taxonomy()(scores)
    assert taxonomy["other"] == pytest.approx(1 / 3) and taxonomy["execution_failure"] == pytest.approx(1 / 3)


def test_calibration_summary_by_hand():
    out = calibration_summary([0.9, 0.9, 0.2, 0.25], [1, 0, 0, 0])
    assert out["confidence_gap"] == pytest.approx(0.9 - (0.9 + 0.2 + 0.25) / 3)
    assert out["brier"] == pytest.approx((0.01 + 0.81 + 0.04 + 0.0625) / 4)
    # bins: [0.9, 0.9] -> conf 0.9, acc 0.5; [0.2, 0.25] -> conf 0.225, acc 0
    assert out["ece"] == pytest.approx(0.5 * 0.4 + 0.5 * 0.225)
    assert out["bin9_n"] == 2 and out["bin2_acc"] == 0


async def test_calibration_keys_nan_when_reply_unparsed():
    state = make_state({"stdout": "Estimate: -0.2\n"}, confidence={"reply": "very sure", "values": None})
    result = await score(state, calibration=True)
    assert math.isnan(result.value["conf_estimate"])
    assert result.metadata["calibration_unparsed_reply"] == "very sure"


# ------------------------------------------------------------------------------------------------------- Exp A
from causalverify_inspect.exp_a_scorer import detect_direction, detect_method, exp_a_scorer  # noqa: E402

PLAN = """## 1. Identification strategy
I would use a regression discontinuity design: the running variable is the exam score and the cutoff is 700.
A difference-in-differences design is not available because there is no panel.

## 6. Expected results
I expect a positive effect: the scholarship should increase completion.
"""


def test_method_and_direction_detection():
    assert detect_method(PLAN) == "RDD"
    assert detect_direction(PLAN) == "positive"
    assert detect_method("I would simply compare means.") is None
    assert detect_direction("## 6. Expected results\nHard to say.") is None


async def test_exp_a_scorer_labels_and_unscoreable():
    def state(meta):
        return TaskState(
            model=ModelName("mockllm/model"),
            sample_id="p",
            epoch=1,
            input="x",
            messages=[],
            output=ModelOutput.from_content(model="mockllm/model", content=PLAN),
            metadata=meta,
        )

    both = await exp_a_scorer()(state({"method": "RDD", "direction": "negative"}), Target(""))
    assert both.value == {"L3": 1.0, "L4": 0.0}
    half = await exp_a_scorer()(state({"method": None, "direction": "positive"}), Target(""))
    assert math.isnan(half.value["L3"]) and half.value["L4"] == 1.0
    none = await exp_a_scorer()(state({"method": None, "direction": None}), Target(""))
    assert none.reason == "no_label"


async def test_failed_install_of_a_docker_package_the_sandbox_lacks_is_environment():
    run = {
        "exit_code": 1,
        "stderr": "Error in install.packages(pkg) : unable to install packages\n",
        "missing_packages": ["rdrobust"],
    }
    result = await score(make_state(run))
    assert result.value["fail_environment"] == 1 and "rdrobust" in result.explanation
    other = await score(make_state({**run, "stderr": "Error: object 'x' not found\n"}))
    assert other.value["fail_execution_failure"] == 1  # a non-package error stays the model's failure


async def test_sandbox_notes_are_not_read_as_output():
    stdout = "xxxx\n[sandbox: stdout truncated, 99000000 of 100000000 bytes dropped]\n"
    result = await score(make_state({"stdout": stdout}))
    assert result.value["fail_no_estimate"] == 1


async def test_a_sandbox_timeout_keeps_what_was_printed_before_it(monkeypatch):
    """Docker's sandbox raises TimeoutError at the limit with the partial output attached; the run keeps it."""
    from inspect_ai.util import ExecResult

    from causalverify_inspect import solvers

    class TimingOut:
        def as_type(self, cls):
            return self

        async def write_file(self, file, contents):
            pass

        async def exec(self, cmd, **kwargs):
            if cmd[:2] == ["Rscript", "--vanilla"]:  # the package check before the run
                return ExecResult(success=True, returncode=0, stdout="", stderr="")
            error = TimeoutError("Command timed out after 5 seconds")
            error.truncated_output = "Estimate: 0.42\n"
            raise error

    monkeypatch.setattr(solvers, "sandbox", lambda: TimingOut())
    state = make_state(None, completion="## 2. R code\n```r\ncat('Estimate: 0.42\\n'); while (TRUE) {}\n```")
    state = await solvers.run_r_block(timeout=5)(state, None)
    run = state.store.get(RUN_KEY)
    assert run["timed_out"] and run["exit_code"] is None and "Estimate: 0.42" in run["stdout"]
    result = await score(state)
    assert result.value["L2b"] == 0 and result.explanation == "timed out"


# ------------------------------------------------------------------ abstentions a program provokes (issue 26)
def _answer_lines(values) -> str:
    return "".join(f"Estimate: {v:.4f}\n" for v in values)


@pytest.mark.parametrize(
    "stdout, why",
    [
        ("Estimate: 0.9\nEstimate: 0.8\n", "every one of the 2 candidates is outside"),  # a wrong estimate twice
        (_answer_lines(0.5 + i / 10_000 for i in range(10_000)), "every one of the 10000 candidates is outside"),
        (_answer_lines(-1 + i / 5_000 for i in range(10_000)), "answer lines (Estimate: <number>) print different"),
        ("Estimate: 0.9 " + "x" * 5000 + "\n", None),  # its only number on a line too long to read
        ("treat_x_post 0.31 0.05 6.2 0.000\n" * 20_000, "too long to read whole and prints no answer line"),
    ],
    ids=["wrong-twice", "10000-wrong", "10000-spanning-the-answer", "4000-char-line", "too-long-no-answer"],
)
async def test_a_provoked_abstention_without_extractor_is_a_failure_in_the_metric(stdout, why):
    result = await score(make_state({"stdout": stdout}))
    assert isinstance(result.value, dict), result.explanation  # scored: it stays in every metric
    assert result.value["L2b"] == 1 and result.value["L2b_plus"] == 0
    if why is None:
        assert result.value["fail_no_estimate"] == 1 and "abstention" not in result.metadata
    else:
        assert why in result.metadata["abstention"]["decided_by"] and why in result.explanation


async def test_an_abstention_whose_candidates_all_pass_is_scored_as_passing():
    result = await score(make_state({"stdout": "ATT (spec A): -0.21\nATT (spec B): -0.19\n"}))
    assert result.value["L2b_plus"] == 1 and result.metadata["abstention"]["n_candidates"] == 2


async def test_an_unclear_abstention_stays_unscored_with_its_reason_recorded():
    result = await score(make_state({"stdout": "ATT (spec A): -0.21\nATT (spec B): -0.9\n"}))
    assert result.reason == "extraction_unresolved" and "2 candidates disagree" in result.explanation
    assert result.metadata["abstention"] == {"reason": "2 candidates disagree", "n_candidates": 2, "decided_by": None}


async def test_an_estimate_beside_a_long_line_or_in_a_huge_output_is_still_read():
    long_line = await score(make_state({"stdout": "Estimate: -0.21\n" + "y" * 5000 + "\n"}))
    assert long_line.value["L2b_plus"] == 1 and "1 line(s) over 4000" in long_line.metadata["extraction"]["reason"]
    huge = await score(make_state({"stdout": "x 1 2 3\n" * 80_000 + "Estimate: -0.21\n"}))
    assert huge.value["L2b_plus"] == 1 and "answer lines only" in huge.metadata["extraction"]["reason"]


@pytest.mark.parametrize(
    "code, expected",
    [
        ('# library("fixest")\nmessage("there is no package called \'fixest\'")', []),
        ('cat("library(fixest); rdrobust::rdrobust")\nlibrary(AER) # library(plm)', ["AER"]),
        ('x <- "a # not a comment"; library("sandwich")', ["sandwich"]),
        ('s <- "esc \\" library(fixest) "; pk <- c("fixest"); lapply(pk, library, character.only = TRUE)', ["fixest"]),
    ],
)
def test_loaded_packages_ignores_comments_and_strings(code, expected):
    assert loaded_packages(code) == expected


async def test_a_commented_load_and_a_printed_fake_error_are_the_programs_own_failure():
    code = '# library("fixest")\nmessage("Error: there is no package called \'fixest\'")\nstop("own bug")'
    run = {"code": code, "exit_code": 1, "stderr": "Error: there is no package called 'fixest'\nError: own bug\n"}
    run["missing_packages"] = loaded_packages(code)  # what the solver asks the sandbox about
    result = await score(make_state(run))
    assert result.value["fail_execution_failure"] == 1 and result.value["environment"] == 0


def test_unscored_runs_keep_their_levels_are_out_of_l2b_plus_and_bound_the_headline():
    base = {k: 0.0 for k in ("L1", "L2a", "L2b", "environment", "environment_degraded")}
    base |= {f"fail_{f}": 0.0 for f in metrics.FAILURES} | {metrics.sweep_key(t): 0.0 for t in metrics.SWEEP}
    ran = base | {"L1": 1.0, "L2a": 1.0, "L2b": 1.0}
    samples = [
        sample_score(ran | {"L2b_plus": 1.0, "unscored": 0.0}, sample_id="a"),
        sample_score(ran | {"L2b_plus": 0.0, "unscored": 0.0, "fail_wrong_coefficient": 1.0}, sample_id="b"),
        sample_score(ran | {"L2b_plus": math.nan, "unscored": 1.0}, sample_id="c"),
        sample_score(ran | {"L2b_plus": math.nan, "unscored": 1.0}, sample_id="d"),
        sample_score(base | {"L1": 1.0, "L2a": 1.0, "L2b_plus": 0.0, "unscored": 0.0}, sample_id="e"),  # failed
    ]
    out = metrics.rates()(samples)
    assert out["L2b_plus"] == 1 / 3 and out["L2b_plus_n"] == 3  # over the scored samples
    assert out["L2b_plus_unscored_as_0"] == 0.2 and out["L2b_plus_unscored_as_1"] == 0.6
    assert out["unscored_share"] == 0.4 and out["unscored_n"] == 2
    # the unscored runs exited 0: their L2b is known and counts (over scored runs only it would read 2/3)
    assert out["L2b"] == 0.8 and out["L2b_n"] == 5 and out["L2a_n"] == 5 and out["L1_n"] == 5
    assert list(out)[0] == "L2b_plus"  # the headline still leads
    assert metrics.failure_taxonomy()(samples)["wrong_coefficient"] == 1 / 3
    assert metrics.conditional_pass()(samples)["conditional_pass_n"] == 2  # scored runs that executed


async def test_a_score_names_the_loaded_packages_whose_version_is_outside_the_pin():
    state = make_state({"stdout": "Estimate: -0.21\n", "packages": ["rdrobust", "dplyr"]})
    pins = {"rdrobust": "4.0.0", "fixest": "0.11.2"}
    result = await score(state, reference="upstream", outside_pins=pins)
    assert result.metadata["packages_outside_pin"] == {"rdrobust": "4.0.0"}  # fixest is not loaded
    assert result.value["L2b_plus"] == 1  # scored as it ran
    assert (await score(state, reference="upstream")).metadata["packages_outside_pin"] == {}


def test_the_environment_shares_are_over_every_run_as_l2b_is():
    """A run whose estimate stayed unknown exited 0: it is no environment failure and counts in the shares."""
    base = {k: 0.0 for k in ("L1", "L2a", "L2b", "environment", "environment_degraded")}
    base |= {f"fail_{f}": 0.0 for f in metrics.FAILURES} | {metrics.sweep_key(t): 0.0 for t in metrics.SWEEP}
    failed = base | {"L1": 1.0, "L2a": 1.0, "L2b_plus": 0.0, "unscored": 0.0, "environment": 1.0}
    degraded = base | {"L1": 1.0, "L2a": 1.0, "L2b": 1.0, "L2b_plus": 1.0, "unscored": 0.0}
    unknown = base | {"L1": 1.0, "L2a": 1.0, "L2b": 1.0, "L2b_plus": math.nan, "unscored": 1.0}
    degraded |= {"environment_degraded": 1.0, "tol_50": 1.0}
    samples = [sample_score(v, sample_id=i) for i, v in (("a", failed), ("b", degraded), ("c", unknown))]
    out = metrics.rates()(samples)
    assert out["environment"] == pytest.approx(1 / 3) and out["environment_degraded"] == pytest.approx(1 / 3)
    assert out["tol_50"] == 0.5  # the sweep stays over the scored runs
