"""Answer extraction and normalisation on tables of real-looking completions (GSM and MATH), failures included."""

from __future__ import annotations

import time

import pytest

from glass_inspect.answers import answers_match, extract_answer, final_answer, last_boxed, normalize_answer

GSM_COMPLETIONS = [
    # (completion, normalised final answer)
    ("She sells 16 - 3 - 4 = 9 eggs.\n9 * 2 = 18\nANSWER: 18", "18"),
    ("Total cost: 2 * $1,250 = $2,500.\nANSWER: $2,500", "2500"),
    ("ANSWER: 1,234,567", "1234567"),
    ("The price drops by $3.50 each day.\nANSWER: 3.50", "3.5"),
    ("ANSWER: 0.75", "0.75"),
    ("ANSWER: 3/4", "0.75"),
    ("ANSWER: 1/3", "1/3"),
    ("He ends up 5 dollars short, so the balance is -5.\nANSWER: -5", "-5"),
    ("ANSWER: \u221212", "-12"),  # unicode minus
    ("ANSWER: 40%", "40"),
    ("ANSWER: 7 hours", "7"),
    ("ANSWER: 12.5 km/h", "12.5"),
    ("ANSWER: 18.", "18"),
    ("ANSWER:\n\n42", "42"),
    ("**ANSWER:** 42", "42"),
    ("Final answer: 64 marbles", "64"),
    ("The final answer is 100.", "100"),
    ("So the answer is $15.", "15"),
    ("Step 1: 3 + 4 = 7\nStep 2: 7 * 2 = 14\n#### 14", "14"),
    ("Therefore she needs \\boxed{26} cups.", "26"),
    ("We get 10 first, but checking again gives 12.\nANSWER: 12\n", "12"),
    ("So 5 apples plus 3 pears gives 8 fruits in total.", "8"),  # last-number fallback
    ("Answer: 2,000 - 500 = 1,500", "2000"),  # the first number after the marker is taken
    ("ANSWER: 007", "7"),
    ("ANSWER: -0", "0"),
    ("ANSWER: 5.000", "5"),
]

GSM_NO_ANSWER = [
    "",
    "I am not sure how to solve this problem.",
    "ANSWER: I don't know",
    "ANSWER: none of the above",
]

MATH_COMPLETIONS = [
    ("Thus the probability is $\\boxed{\\frac{1}{2}}$.", "1/2"),
    ("So $x = \\boxed{\\dfrac{3}{4}}$.", "3/4"),
    ("\\boxed{\\tfrac12}", "1/2"),
    ("ANSWER: \\boxed{0.5}", "1/2"),
    ("The side is $\\boxed{2\\sqrt{2}}$.", "2*sqrt(2)"),
    ("\\boxed{\\sqrt{8}}", "2*sqrt(2)"),
    ("\\boxed{\\frac{\\sqrt{2}}{2}}", "sqrt(2)/2"),
    ("\\boxed{\\frac{1}{\\sqrt{2}}}", "sqrt(2)/2"),
    ("\\boxed{\\sqrt[3]{27}}", "3"),
    ("\\boxed{(-\\infty, 5]}", "(-oo,5]"),
    ("\\boxed{\\left[ 1, 2 \\right)}", "[1,2)"),
    ("\\boxed{(3, -4)}", "(3,-4)"),
    ("The angle is $\\boxed{30^\\circ}$.", "30"),
    ("\\boxed{45^{\\circ}}", "45"),
    ("\\boxed{x = 5}", "5"),
    ("\\boxed{y = 2x + 3}", "2*x + 3"),
    ("\\boxed{\\text{(C)}}", "C"),
    ("\\boxed{\\textbf{(B)}}", "B"),
    ("\\boxed{\\text{Monday}}", "monday"),
    ("\\boxed{10,000}", "10000"),
    ("\\boxed{1, -2}", "-2,1"),
    ("\\boxed{-2, 1}", "-2,1"),
    ("\\boxed{5\\text{ cm}}", "5"),
    ("\\boxed{12 \\text{ inches}^2}", "12"),  # square units dropped
    ("\\boxed{25\\%}", "25"),
    ("\\boxed{\\$12.50}", "25/2"),
    ("\\boxed{3+4i}", "3 + 4*I"),
    ("\\boxed{\\frac{\\pi}{2}}", "pi/2"),
    ("\\boxed{2^{10}}", "1024"),
    ("\\boxed{\\frac{a+b}{2}}", "a/2 + b/2"),
    ("First $\\boxed{3}$ then correcting: $\\boxed{4}$", "4"),  # the last box wins
    ("\\boxed{\\frac{\\frac{1}{2}}{3}}", "1/6"),  # nested braces
    ("\\boxed 7", "7"),
    ("ANSWER: $\\frac{5}{6}$", "5/6"),
    ("The final answer is $\\frac{2}{3}$.", "2/3"),
    ("\\boxed{1 \\pm \\sqrt{2}}", "1\\pm\\sqrt{2}"),  # not an expression sympy reads: kept as text
    ("\\boxed{9^{9^{9}}}", "9^{9^{9}}"),  # a tower is never evaluated
]

MATH_NO_ANSWER = [
    "",
    "Let me think about this problem. The sum of the angles is 180 degrees.",  # no box, no marker
    "\\boxed{}",
    "The answer is \\boxed{",  # unbalanced
]


@pytest.mark.parametrize(("completion", "expected"), GSM_COMPLETIONS)
def test_gsm_final_answers(completion, expected):
    assert final_answer(completion, "gsm") == expected


@pytest.mark.parametrize("completion", GSM_NO_ANSWER)
def test_gsm_no_answer(completion):
    assert final_answer(completion, "gsm") is None


@pytest.mark.parametrize(("completion", "expected"), MATH_COMPLETIONS)
def test_math_final_answers(completion, expected):
    assert final_answer(completion, "math") == expected


@pytest.mark.parametrize("completion", MATH_NO_ANSWER)
def test_math_no_answer(completion):
    assert final_answer(completion, "math") is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("\\frac{\\sqrt{6}+\\sqrt{2}}{4}", "\\frac{\\sqrt{2}(1+\\sqrt{3})}{4}", True),  # symbolic equivalence
        ("\\frac{1}{2}", "0.5", True),
        ("\\frac{1}{3}", "0.333", False),  # no tolerance: exact answers only
        ("(1, 2]", "(1, 2)", False),  # brackets matter
        ("(\\frac{1}{2}, 3)", "(0.5, 3)", True),
        ("\\text{Monday}", "monday", True),
        ("\\text{Monday}", "Tuesday", False),
        ("x^2 + 2x + 1", "(x+1)^2", True),
        ("2", "\\sqrt{4}", True),
    ],
)
def test_math_answers_match(a, b, same):
    assert answers_match(normalize_answer(a, "math"), normalize_answer(b, "math"), "math") is same


def test_gsm_match_is_numeric_equality_and_none_never_matches():
    assert answers_match(normalize_answer("$1,000.00", "gsm"), normalize_answer("1000", "gsm"), "gsm")
    assert not answers_match(normalize_answer("1000", "gsm"), normalize_answer("100", "gsm"), "gsm")
    assert not answers_match(None, "5", "gsm") and not answers_match(None, None, "math")


def test_gold_answers_normalise_like_model_answers():
    assert normalize_answer("#### 1,080", "gsm") == "1080"
    assert normalize_answer("\\dfrac{14}{2}", "math") == normalize_answer("7", "math") == "7"


def test_extract_prefers_the_requested_marker_over_earlier_boxes():
    text = "Trying $\\boxed{41}$ first, but that is off by one.\nANSWER: \\boxed{42}"
    assert extract_answer(text, "math") == "42"
    assert extract_answer("Try \\boxed{41}.\nANSWER: 42", "gsm") == "42"
    assert last_boxed("\\boxed{\\frac{1}{2}} and \\fbox{3}") == "3"


def test_hostile_answers_are_text_not_code():
    evil = "\\boxed{__import__('os').system('echo hi')}"
    assert final_answer(evil, "math") == "__import__('os').system('echohi')"  # compared as text, never run
    start = time.perf_counter()
    assert final_answer("\\boxed{9^{9^{9^{9}}}}", "math") == "9^{9^{9^{9}}}"
    assert time.perf_counter() - start < 2


def test_unknown_suite_is_rejected():
    with pytest.raises(ValueError, match="unknown suite"):
        final_answer("ANSWER: 3", "gsm8k")


@pytest.mark.shared_data
def test_real_gsm8k_and_math_gold_answers(shared_dir):
    """Every GSM8K test gold normalises to a number its own solution text reproduces; MATH likewise on a sample."""
    import json

    gsm = [json.loads(line) for line in (shared_dir / "data" / "gsm8k" / "test.jsonl").open(encoding="utf-8")]
    assert len(gsm) == 1319
    for row in gsm:
        gold = normalize_answer(row["answer"].split("####")[-1], "gsm")
        assert gold is not None and final_answer(row["answer"], "gsm") == gold, row["answer"][-80:]
    lines = (shared_dir / "data" / "hendrycks_math" / "test.jsonl").read_text(encoding="utf-8").splitlines()
    misses = []
    for line in lines[::25]:
        row = json.loads(line)
        gold = normalize_answer(row["answer"], "math")
        if gold is None or not answers_match(final_answer(row["solution"], "math"), gold, "math"):
            misses.append(row["answer"])
    assert len(misses) <= 1, misses  # a solution's prose may restate "the answer is ..." after its box
