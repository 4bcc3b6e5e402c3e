"""Code-block and estimate extraction (paper §4, App. C.2-C.3): hand-made printouts, the extraction corpus (R
programs' real printed output with the value each program reports, plus hand-made outputs), the abstentions the
scorer hands to the ``extractor`` role, and outputs that must not crash the reader."""

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from causalverify_inspect import scorers
from causalverify_inspect.extraction import (
    MAX_STDOUT_CHARS,
    extract,
    extract_estimate,
    extract_r_code,
    has_numbers,
    reply_json_object,
)
from causalverify_inspect.scorers import exp_b_scorer
from causalverify_inspect.store import RUN_KEY

CORPUS = Path(__file__).parent / "fixtures" / "extraction"
ANSWERED_FLOOR = 0.95
"""Share of the corpus's non-ambiguous items the deterministic reader must answer (the rest go to the extractor)."""

LM_DID = """
Call:
lm(formula = y ~ treated + post + treat_x_post, data = d)

Coefficients:
             Estimate Std. Error t value Pr(>|t|)
(Intercept)   0.50213    0.02791  17.992  < 2e-16 ***
treated       0.49120    0.03947  12.445  < 2e-16 ***
post          0.40170    0.03947  10.177  < 2e-16 ***
treat_x_post -0.23866    0.05582  -4.275 2.03e-05 ***
"""

FEOLS_IV = """
TSLS estimation - Dep. Var.: y
                  Endo.    : x
                  Instr.   : z
Second stage: Dep. Var.: y
Observations: 500
Standard-errors: Heteroskedasticity-robust
            Estimate Std. Error  t value  Pr(>|t|)
(Intercept) 0.012345   0.030000 0.411500 0.6809
fit_x       0.217518   0.119719 1.816900 0.0698 .
controls    0.001000   0.020000 0.050000 0.9600
"""

RDROBUST = """
=============================================================================
        Method     Coef. Std. Err.         z     P>|z|      [ 95% C.I. ]
=============================================================================
  Conventional     0.254     0.041     6.191     0.000     [0.174 , 0.335]
        Robust         -         -     5.227     0.000     [0.164 , 0.361]
=============================================================================
"""


# ------------------------------------------------------------------------------------------------- code blocks
def test_first_r_tagged_block_is_taken_and_counted():
    text = "## 1\n```r\nx <- 1\n```\nthen\n```R\ny <- 2\n```\n```python\nprint(1)\n```"
    blocks = extract_r_code(text)
    assert blocks.code == "x <- 1"
    assert (blocks.n_r_blocks, blocks.n_other_blocks) == (2, 1)


def test_non_r_block_and_no_block_give_no_code():
    assert extract_r_code("```python\nimport pandas as pd\nx = 1\n```").code is None
    assert extract_r_code("I would run a regression of y on x.").code is None


def test_untagged_block_counts_only_when_it_looks_like_r():
    assert extract_r_code("```\nd <- read.csv('a.csv')\n```").code == "d <- read.csv('a.csv')"
    assert extract_r_code("```\nsome prose in a fence\n```").code is None


def test_braced_r_tag_is_accepted():
    assert extract_r_code("```{r}\nlibrary(AER)\n```").code == "library(AER)"


# ------------------------------------------------------------------------------------------------- answers
@pytest.mark.parametrize(
    ("stdout", "family", "value", "rule"),
    [
        (LM_DID, "DID", -0.23866, "coef_table"),
        (FEOLS_IV, "IV", 0.217518, "coef_table"),
        (RDROBUST, "RDD", 0.254, "results_table"),
        ("Naive OLS estimate: 0.81\n2SLS estimate: 0.2175\n", "IV", 0.2175, "labelled"),
        ("First-stage coefficient on z: 0.61\nIV estimate = 0.30\n", "IV", 0.30, "labelled"),
        ("Average abnormal return: -0.0201 (-2.01%)\n", "EVENT_STUDY", -0.0201, "labelled"),
        (
            "".join(f"{n:>12} " for n in ("(Intercept)", "treated", "post", "treat_x_post"))
            + "\n"
            + "".join(f"{v:>12} " for v in ("0.5000", "0.4900", "0.4000", "-0.2387"))
            + "\n",
            "DID",
            -0.2387,
            "named_vector",
        ),
        ("sample estimates:\nmean of x \n0.2787259 \n", "EVENT_STUDY", 0.2787259, "t_test"),
        ("Estimate: \u22120.25\n", "RDD", -0.25, "answer_line"),
    ],
)
def test_estimate_is_read_family_aware(stdout, family, value, rule):
    found = extract_estimate(stdout, family)
    assert found is not None
    assert found.value == pytest.approx(value)
    assert found.source == rule


def test_rdd_slope_change_term_is_not_the_jump():
    stdout = (
        "            Estimate Std. Error t value Pr(>|t|)\n(Intercept)  6.02623    0.01917  314.41   <2e-16\n"
        "treated      1.02848    0.02836   36.27   <2e-16\nr            0.07196    0.00643   11.19   <2e-16\n"
        "treated_x_r -0.01477    0.00961   -1.54    0.124\n"
    )
    assert extract_estimate(stdout, "RDD").value == pytest.approx(1.02848)


def test_answer_records_its_provenance():
    result = extract(LM_DID, "DID")
    assert result.provenance() == {
        "rule": "coef_table",
        "line": "treat_x_post -0.23866    0.05582  -4.275 2.03e-05 ***",
        "lineno": 10,
        "reason": "only candidate",
        "n_candidates": 1,
    }


def test_labelled_window_is_kept_for_event_studies():
    found = extract_estimate("CAR[-1,+1]: -0.0402\n", "EVENT_STUDY")
    assert found.value == pytest.approx(-0.0402)
    assert found.window == (-1, 1)


def test_candidates_printing_the_same_value_count_as_one():
    stdout = LM_DID + "\nDID estimate: -0.2387 (SE 0.0558)\nEstimate: -0.23866\n"
    result = extract(stdout, "DID")
    assert result.estimate.value == pytest.approx(-0.23866) and len(result.candidates) == 3


def test_arithmetic_result_and_trailing_statistics():
    assert extract_estimate("DID = (1.0890 - 0.5248) - (0.4151 - 0.0048) = 0.1539\n", "DID").value == 0.1539
    assert extract_estimate("DID = ( 0.769 - 0.6323 ) - ( 0.4259 - 0.0373 )\n", "DID") is None
    found = extract_estimate("CAR[-1,+1] (market-adjusted): -0.058774, t=-30.327, p=0.0000\n", "EVENT_STUDY")
    assert found.value == -0.058774 and found.window == (-1, 1)
    assert extract_estimate("Number of stocks with estimated models: 80\n", "EVENT_STUDY") is None


# ------------------------------------------------------------------------------------------------- abstentions
def test_fixed_effect_counts_and_observations_are_never_estimates():
    header = (
        "OLS estimation, Dep. Var.: y\nObservations: 1,600\nFixed-effects: unit_id: 200,  period: 8\n"
        "Standard-errors: Clustered (unit_id)\n"
    )
    assert extract(header, "DID").estimate is None
    table = (
        "             Estimate Std. Error  t value  Pr(>|t|)    \n"
        "treat_x_post -3.61599   0.214765 -16.8369 < 2.2e-16 ***\n"
    )
    assert extract_estimate(header + table, "DID").value == pytest.approx(-3.61599)


def test_sample_size_on_the_estimate_line_is_not_the_estimate():
    assert extract_estimate("ATT | N=812 | est=0.041 | se=0.010\n", "DID").value == pytest.approx(0.041)
    assert extract_estimate(
        "Effect (N = 812): 0.041 (0.010), 95% CI [0.021, 0.061], p = 0.001\n", "DID"
    ).value == pytest.approx(0.041)
    assert extract("N=812 | mean=0.041\n", "DID").estimate is None  # nothing names an effect: abstain


def test_first_stage_and_naive_ols_beside_two_stage_least_squares():
    first = (
        "Call:\nlm(formula = x ~ z, data = d)\n\nCoefficients:\n            Estimate Std. Error t value Pr(>|t|)\n"
        "(Intercept)   2.9800     0.0200  149.00   <2e-16\nz             0.4100     0.0190   21.58   <2e-16\n\n"
    )
    ols = (
        "Call:\nlm(formula = y ~ x, data = d)\n\nCoefficients:\n            Estimate Std. Error t value Pr(>|t|)\n"
        "(Intercept)   3.0100     0.0500   60.20   <2e-16\nx             1.6900     0.0150  112.67   <2e-16\n\n"
    )
    iv = (
        "Call:\nivreg(formula = y ~ x | z, data = d)\n\nCoefficients:\n            Estimate Std. Error t value "
        "Pr(>|t|)\n(Intercept)   4.9900     0.2100   23.76   <2e-16\nx             1.1020     0.0700   15.74   <2e-16\n"
    )
    assert extract_estimate(first + ols + iv, "IV").value == pytest.approx(1.102)
    result = extract(first + ols, "IV")  # only the naive OLS: not the IV effect
    assert result.estimate is None and result.reason == "no candidate"
    unnamed = ols.replace("Call:\nlm(formula = y ~ x, data = d)\n\n", "") + iv.replace(
        "Call:\nivreg(formula = y ~ x | z, data = d)\n\n", ""
    )
    result = extract(unnamed, "IV")  # two x rows and nothing telling them apart
    assert result.estimate is None and result.reason == "2 candidates disagree"
    assert [line.split(": ", 1)[1].split()[:2] for line in result.candidate_lines()] == [
        ["x", "1.6900"],
        ["x", "1.1020"],
    ]


def test_percent_after_a_space_is_a_percent():
    assert extract_estimate("Average abnormal return: 0.0231 (2.31 %)\n", "EVENT_STUDY").value == pytest.approx(0.0231)
    only = extract("Average abnormal return: 2.31 %\n", "EVENT_STUDY")  # a return in percent: 0.0231, never 2.31
    assert only.estimate.value == pytest.approx(0.0231) and only.estimate.unit == pytest.approx(1e-4)
    effect = extract("Event effect: 2.31 %\n", "EVENT_STUDY")  # a percent of what: for the extractor
    assert effect.estimate is None and effect.candidates[0].value == pytest.approx(0.0231)
    assert extract("DID estimate: 2.31 %\n", "DID").estimate is None  # a percent of what depends on y's units


def test_coefficient_line_labelled_only_by_the_term():
    stdout = (
        "              Estimate  Std.Err  t    p\ntreat_x_post  0.3104    0.0521   5.96 0.000\n"
        "post          0.1880    0.0368   5.11 0.000\n"
    )
    assert extract_estimate(stdout, "DID").value == pytest.approx(0.3104)
    assert extract_estimate("treat_x_post: 0.3104\n", "DID").value == pytest.approx(0.3104)


@pytest.mark.parametrize(
    ("stdout", "family"),
    [
        ("Std. Error: 0.05\np-value: 0.001\nPre-trend estimate: 0.01\nN = 1600\n", "DID"),
        ("treated:period_2  0.05 0.03 1.2 0.2\n", "DID"),
        ("Cutoff: 70\nBandwidth: 15\nObservations left/right of cutoff: 615 / 624\n", "RDD"),
        ("CAR[-1,+1] = 0.034\nCAR[0,+10] = 0.182\n", "EVENT_STUDY"),
        ("Spec A (TWFE): 0.51\nSpec B (unit FE): 0.47\n", "DID"),
        ("Placebo estimate: 0.002\n", "DID"),
        ("The effect is about zero point three.\n", "DID"),
        ("Estimate: 0,512\n", "DID"),
    ],
)
def test_competing_or_missing_candidates_abstain(stdout, family):
    assert extract(stdout, family).estimate is None


def test_a_preferred_specification_decides():
    stdout = "Spec A (pooled): 0.51\nSpec B (preferred): 0.47\nSpec C: 0.44\n"
    assert extract_estimate(stdout, "DID").value == pytest.approx(0.47)
    assert extract_estimate("CAR[-1,+1] = 0.034\nMain window CAR[0,+10] = 0.182\n", "EVENT_STUDY").window == (0, 10)


def test_estimate_written_as_words_is_not_a_number():
    assert extract_estimate("The effect is about zero point three.\n", "DID") is None
    assert not has_numbers("The effect is about zero point three.")


# ------------------------------------------------------------------------------------------------- hostile outputs
def test_outputs_that_must_not_crash():
    big = "x " * (MAX_STDOUT_CHARS // 2 + 10)
    assert extract(big, "DID").reason.startswith("output too long")
    assert extract(big + "\nEstimate: 0.25\n", "DID").estimate.value == pytest.approx(0.25)
    five_mb = ("treat_x_post 0.31 0.05 6.2 0.000\n" * 160_000)[:5_000_000]
    assert extract(five_mb, "DID").estimate is None
    binary = bytes(range(256)).decode("latin-1") * 50 + "\n\x00\x07Estimate: 0.25\x1b[0m\n"
    assert extract(binary, "DID").estimate.value == pytest.approx(0.25)
    numbers = "\n".join(" ".join(f"{(i * 37 + j) % 1000 / 7:.4f}" for j in range(10)) for i in range(3000))
    started = time.monotonic()
    assert extract(numbers, "DID").estimate is None
    assert time.monotonic() - started < 30
    assert extract("", "DID").reason == "no candidate"
    assert extract("Model converged.\nDone.\n", "RDD").estimate is None
    assert extract("Estimate: 0.2\n" + "y" * 5000 + "\n", "DID").reason.endswith("over 4000 characters not read")
    assert extract("Estimate: NA\n", "DID").reason == "a candidate printed without a value (NA)"
    with pytest.raises(ValueError):
        extract("Estimate: 0.2\n", "SYNTHETIC_CONTROL")


# ------------------------------------------------------------------------------------------------- the corpus
def _corpus() -> list[dict]:
    items = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items


ITEMS = _corpus()


def _right(answer, truth) -> bool:
    return truth != "ambiguous" and abs(answer.value - truth) <= 0.5 * answer.unit * (1 + 1e-6) + 1e-9 * abs(truth)


def test_corpus_is_large_and_varied():
    assert len(ITEMS) >= 250
    assert len({i["style"] for i in ITEMS if i["source"] == "R"}) >= 10
    assert {i["family"] for i in ITEMS} == {"DID", "EVENT_STUDY", "IV", "RDD"}


@pytest.mark.parametrize("item", ITEMS, ids=[i["id"] for i in ITEMS])
def test_corpus_item_is_never_answered_wrong(item):
    answer = extract(item["stdout"], item["family"]).estimate
    if answer is not None:
        assert _right(answer, item["value"]), (
            f"answered {answer.value} ({answer.source}: {answer.line}), correct {item['value']}"
        )


def test_corpus_answered_share_floor():
    decided = [i for i in ITEMS if i["value"] != "ambiguous"]
    answered = sum(extract(i["stdout"], i["family"]).estimate is not None for i in decided)
    assert answered / len(decided) >= ANSWERED_FLOOR


# ------------------------------------------------------------------------------------------------- the scorer
def _state(stdout: str, family: str = "IV", canonical: float = 1.1):
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.solver import TaskState

    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id="s1",
        epoch=1,
        input="prompt",
        messages=[],
        output=ModelOutput.from_content(model="mockllm/model", content="```r\nx <- 1\n```"),
        metadata={"family": family, "canonical": canonical, "data_path": None},
    )
    state.store.set(RUN_KEY, {"code": "x <- 1", "exit_code": 0, "timed_out": False, "stdout": stdout, "stderr": ""})
    return state


async def test_scorer_records_the_rule_and_line_of_a_deterministic_answer():
    from inspect_ai.scorer import Target

    result = await exp_b_scorer()(_state(FEOLS_IV, canonical=0.2), Target(""))
    assert result.metadata["source"] == "coef_table"
    assert result.metadata["extraction"]["line"].startswith("fit_x")


async def test_scorer_hands_competing_candidates_to_the_extractor(monkeypatch, scripted):
    from inspect_ai.scorer import Target

    extractor = scripted('{"effect": 1.102, "rationale": "the 2SLS row"}')
    monkeypatch.setattr(scorers, "get_model", lambda *a, **k: extractor)
    stdout = "OLS x: 1.690\n2SLS x: 1.102\nIV without controls: 1.05\nIV (trimmed sample): 1.2\nIV estimate: 1.3\n"
    result = await exp_b_scorer()(_state(stdout), Target(""))
    assert result.metadata["source"] == "extractor" and result.value["L2b_plus"] == 1
    prompt = extractor.prompts[0]
    assert "2: 2SLS x: 1.102" in prompt and "5: IV estimate: 1.3" in prompt and "candidates disagree" in prompt
    assert "1.1\n" not in prompt.split("Printed output")[0]  # the canonical value is never shown
    assert result.metadata["extraction"]["reason"] == "2 candidates disagree"


async def test_scorer_without_extractor_leaves_the_abstention_unscored_with_its_reason():
    from inspect_ai.scorer import Target

    result = await exp_b_scorer()(_state("CAR[-1,+1] = 0.034\nCAR[0,+10] = 0.5\n", "EVENT_STUDY", 0.017), Target(""))
    assert result.reason == "extraction_unresolved" and "2 candidates disagree" in result.explanation
    assert result.metadata["extraction"]["candidate_lines"] == ["1: CAR[-1,+1] = 0.034", "2: CAR[0,+10] = 0.5"]


async def test_scorer_without_extractor_scores_an_abstention_every_candidate_decides_alike():
    from inspect_ai.scorer import Target

    stdout = "CAR[-1,+1] = 0.034\nCAR[0,+10] = 0.182\n"  # 0.017 and 0.0165 a day: both within the tolerance
    result = await exp_b_scorer()(_state(stdout, "EVENT_STUDY", 0.017), Target(""))
    assert result.value["L2b_plus"] == 1 and result.metadata["abstention"]["reason"] == "2 candidates disagree"


def test_a_reply_nested_too_deeply_holds_no_object():
    """A hostile judge or self-rating reply nested 100,000 deep is no JSON object, not a RecursionError."""
    assert reply_json_object('{"effect": ' + '{"a": ' * 100_000 + "1" + "}" * 100_001) is None
    assert reply_json_object('Here: {"effect": 0.5} done') == {"effect": 0.5}


# ------------------------------------------------------------------------------------------------- non-results
def _blocks(text: str) -> list[str]:
    """A pattern program's output split at its ``----`` lines."""
    return re.split(r"(?m)^----\n", text)


PATTERNS = _blocks((CORPUS / "nonresult_patterns.out").read_text(encoding="utf-8"))
REPORTS = _blocks((CORPUS / "report_patterns.out").read_text(encoding="utf-8"))


@pytest.mark.needs_r
@pytest.mark.parametrize("name", ["nonresult_patterns", "report_patterns"])
def test_pattern_output_is_what_the_r_program_prints(name):
    program = CORPUS / "programs" / f"{name}.R"
    printed = subprocess.run(
        ["Rscript", "--vanilla", str(program)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, "LANG": "C.UTF-8"},
    ).stdout
    assert _blocks(printed) == _blocks((CORPUS / f"{name}.out").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("block", "family", "value"),
    [
        (0, "IV", 0.2292),  # beta_IV is a label; the formula's ^2 and the robustness line are not results
        (1, "RDD", 0.3442678),  # a banner with "= 0.5" is a heading; "using default bandwidth" is a setting
        (2, "EVENT_STUDY", 0.0213),  # "across 80 IPOs" is a count
        (3, "DID", 1.3197),  # "(anticipation effect)" above a table does not discard the table
    ],
)
def test_numbers_that_are_not_results_are_never_the_answer(block, family, value):
    found = extract(PATTERNS[block], family)
    assert found.estimate is not None, found.reason
    assert found.estimate.value == pytest.approx(value)


def test_token_labels_name_the_estimate():
    block = PATTERNS[4].splitlines()
    assert extract(block[0], "DID").estimate.value == pytest.approx(0.412)  # ate_hat
    assert extract(block[1], "RDD").estimate.value == pytest.approx(1.902)  # tau_rd


def test_counts_settings_statistics_and_other_estimators_are_no_candidates():
    found = extract(PATTERNS[5], "RDD")  # counts, bandwidth, cutoff, p-value, SE, OLS, first stage, placebo
    assert found.estimate is None
    assert found.candidates == ()


def test_two_surviving_readings_abstain():
    found = extract(PATTERNS[6], "DID")
    assert found.estimate is None
    assert "disagree" in found.reason
    assert len(found.candidates) == 2


def test_a_count_on_the_estimate_line_is_blanked_but_the_window_is_kept():
    found = extract(PATTERNS[2], "EVENT_STUDY")
    assert found.estimate.window == (-1, 1)
    assert [c.text for c in found.candidates] == ["0.0213"]


# ------------------------------------------------------------------------------------- report layouts (item 2)
@pytest.mark.parametrize(
    ("block", "family", "value", "rule"),
    [
        (0, "DID", -0.7975, "results_table"),  # knitr pipe table: the "Main" row
        (1, "RDD", 1.1421, "coef_table"),  # knitr simple table: its column rules are no rows
        (3, "EVENT_STUDY", 0.0456, "results_table"),  # dplyr CAR summary: mean_car, the main window flagged
        (4, "EVENT_STUDY", 0.02841, "labelled"),  # a CAR in percent is a return: 2.841% -> 0.02841
    ],
)
def test_report_layouts_are_answered(block, family, value, rule):
    found = extract(REPORTS[block], family)
    assert found.estimate is not None, found.reason
    assert (found.estimate.value, found.estimate.source) == (pytest.approx(value), rule)


def test_instrument_and_count_on_the_estimate_line_are_settings():
    first, second = REPORTS[2].splitlines()
    assert extract(first, "IV").estimate.value == pytest.approx(-1.1748)  # "using z, 2000 observations:"
    assert extract(second, "IV").estimate.value == pytest.approx(-0.8643)  # "with instrument z (first-stage F)"
    assert extract(REPORTS[2], "IV").reason == "2 candidates disagree"


def test_a_rescaled_or_unnamed_percentage_goes_to_the_extractor():
    rescaled, unnamed = REPORTS[5].splitlines()
    assert extract(rescaled, "EVENT_STUDY").estimate is None  # "% relative to the pre-event mean"
    found = extract(unnamed, "EVENT_STUDY")  # "Event effect: 2.31%": a percent of a return or of the outcome
    assert found.estimate is None and found.reason.startswith("only a percentage")
