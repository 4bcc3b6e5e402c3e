"""Code-block and estimate extraction on hand-made responses and R printouts (paper §4, App. C.2-C.3)."""

import pytest

from causalverify_inspect.extraction import (ExtractorReplyError, extract_estimate, extract_r_code, has_numbers,
                                             parse_extractor_reply)

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


@pytest.mark.parametrize(
    ("stdout", "family", "value", "source"),
    [
        (LM_DID, "DID", -0.23866, "table"),
        (FEOLS_IV, "IV", 0.217518, "table"),
        (RDROBUST, "RDD", 0.254, "table"),
        ("Naive OLS estimate: 0.81\n2SLS estimate: 0.2175\n", "IV", 0.2175, "labelled"),
        ("First-stage coefficient on z: 0.61\nIV estimate = 0.30\n", "IV", 0.30, "labelled"),
        ("Average abnormal return: -2.01%\n", "EVENT_STUDY", -0.0201, "labelled"),
        (" (Intercept)      treated         post treat_x_post \n  0.50  0.49  0.40 -0.2387 \n", "DID", -0.2387,
         "named_vector"),
        ("sample estimates:\nmean of x \n0.2787259 \n", "EVENT_STUDY", 0.2787259, "t_test"),
        ("Estimate: \u22120.25\n", "RDD", -0.25, "labelled"),
    ],
)
def test_estimate_is_read_family_aware(stdout, family, value, source):
    found = extract_estimate(stdout, family)
    assert found is not None
    assert found.value == pytest.approx(value)
    assert found.source == source


def test_labelled_window_is_kept_for_event_studies():
    found = extract_estimate("CAR[-1,+1]: -0.0402\n", "EVENT_STUDY")
    assert found.value == pytest.approx(-0.0402)
    assert found.window == (-1, 1)


def test_standard_errors_p_values_and_pre_trends_are_not_estimates():
    stdout = "Std. Error: 0.05\np-value: 0.001\nPre-trend estimate: 0.01\nN = 1600\n"
    assert extract_estimate(stdout, "DID") is None


def test_event_time_coefficients_are_not_the_did_term():
    stdout = "treated:period_2  0.05 0.03 1.2 0.2\n"
    assert extract_estimate(stdout, "DID") is None


def test_estimate_written_as_words_is_not_a_number():
    assert extract_estimate("The effect is about zero point three.\n", "DID") is None
    assert not has_numbers("The effect is about zero point three.")


def test_extractor_reply_parsing():
    reply = '{"effect": -0.2387, "rationale": "row treat_x_post"}'
    assert parse_extractor_reply(reply) == (-0.2387, "row treat_x_post")
    assert parse_extractor_reply('```json\n{"effect": null, "rationale": "none"}\n```') == (None, "none")
    assert parse_extractor_reply('{"effect": "0.31"}')[0] == pytest.approx(0.31)


@pytest.mark.parametrize("reply", ["0.3", '{"effect": "about 0.3"}', '{"value": 0.3}', '{"effect": true}', "sorry"])
def test_extractor_reply_that_is_not_a_number_raises(reply):
    with pytest.raises(ExtractorReplyError):
        parse_extractor_reply(reply)


def test_arithmetic_result_and_trailing_statistics():
    assert extract_estimate("DID = (1.0890 - 0.5248) - (0.4151 - 0.0048) = 0.1539\n", "DID").value == 0.1539
    assert extract_estimate("DID = ( 0.769 - 0.6323 ) - ( 0.4259 - 0.0373 )\n", "DID") is None
    found = extract_estimate("CAR[-1,+1] (market-adjusted): -0.058774, t=-30.327, p=0.0000\n", "EVENT_STUDY")
    assert found.value == -0.058774 and found.window == (-1, 1)
    assert extract_estimate("Number of stocks with estimated models: 80\n", "EVENT_STUDY") is None
