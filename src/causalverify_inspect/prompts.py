"""Prompt texts of CausalVerify (our own wording; the structure follows paper §3-4, App. C-F).

Exp B asks for three sections (identification strategy, exactly one R code block, expected findings); the extractor
judge reads code + stdout and returns one number; the calibration arm asks the model to rate its own workflow on
three 0-1 scales; Exp A asks for a research plan whose identification section and expected-results section are
scored by keywords.
"""

from __future__ import annotations

import pandas as pd

from causalverify_inspect.scenarios import Scenario

EXP_B_SYSTEM = """
You are an applied econometrician. You receive a research scenario, the path of a CSV file and a preview of it.
Carry out the empirical analysis in R. Your answer must have exactly these three sections:

## 1. Identification strategy
Name the causal design you use (difference-in-differences, event study, instrumental variables or regression
discontinuity), say why it fits, and state the assumptions it rests on.

## 2. R code
Exactly one fenced block tagged r (```r ... ```). It must be a complete script: read the CSV from the path given,
estimate the treatment effect, and print the point estimate on its own line as `Estimate: <number>`. It is run
non-interactively with Rscript in a sandbox without network access; do not install packages.

## 3. Expected findings
The sign and rough size of the effect you expect, and why.
""".strip()

EXP_B_USER = """
Scenario: {title}

Question:
{research_question}

About the data:
{data_description}

CSV path (relative to the working directory): {data_file}

First five rows:
{preview}

Column types:
{column_types}

Write the analysis.
""".strip()

FAMILY_GUIDANCE = {
    "DID": "Difference-in-differences: the effect is the coefficient on the treated-by-post interaction "
    "(names such as treat_x_post, did, treated:post), not a main effect or an event-time coefficient.",
    "EVENT_STUDY": "Event study on returns with a market model: the effect is the abnormal return after the event "
    "(a post-event dummy coefficient, an average abnormal return, or a cumulative abnormal return over a stated "
    "window); not a single pre-event day.",
    "IV": "Instrumental variables: the effect is the second-stage coefficient on the instrumented regressor, not the "
    "first-stage coefficient on the instrument, not the reduced form and not plain OLS.",
    "RDD": "Sharp regression discontinuity: the effect is the jump at the cutoff (the coefficient on the treatment "
    "indicator in a local regression, or rdrobust's conventional estimate), not a slope.",
}

EXTRACTOR_SYSTEM = """
You read the printed output of an R script and report the single treatment-effect estimate it printed.
Reply with a JSON object only: {"effect": <number or null>, "rationale": "<one sentence: where you found it>"}.
Report the point estimate, never a standard error, t statistic, p-value or confidence bound. Use only a number that
appears in the output; if the output contains no treatment-effect estimate, reply with "effect": null.
When the output prints several candidates (specifications, stages, windows), report the one the script presents as
its main result.
""".strip()

EXTRACTOR_USER = """
Design: {family}
What counts as the effect: {guidance}

Script:
```r
{code}
```

Printed output:
```
{stdout}
```

Why the deterministic reader did not decide: {reason}.
Lines where it saw possible estimates (line number: text), which may also hold other statistics:
{candidates}

Which number is the treatment-effect estimate? JSON only.
""".strip()

CALIBRATION_SYSTEM = """
You are looking back at an empirical analysis you wrote earlier and the output it produced. Nobody tells you whether
it was right. Rate how likely each part is to be correct, as a probability between 0 and 1.
""".strip()

CALIBRATION_RESPONSE_CHARS, CALIBRATION_STDOUT_CHARS = 6000, 3000
"""What the calibration prompt shows at most: the response's first characters and the R output's last ones."""

CALIBRATION_USER = """
The scenario:
{research_question}

The data:
{data_description}

Your earlier answer:
{response}

What your R code printed when it ran (exit code {exit_code}):
{stdout}

Give three probabilities:
- "method": the causal design you chose is the right one for this scenario;
- "specification": the specification (fixed effects, windows, instrument, bandwidth, interaction terms) is right;
- "estimate": your printed estimate is within 20% of the true effect.

Reply with a JSON object with exactly these keys, e.g. {{"method": 0.9, "specification": 0.7, "estimate": 0.5}}.
""".strip()

EXP_A_SYSTEM = """
You are an empirical economist designing a study from a description of a setting. Work only from what you are told;
do not try to recall how any published paper did it.
""".strip()

EXP_A_USER = """
Question:
{research_question}

Data available:
{data_description}

Setting:
{institutional_context}

Write a research plan with these numbered sections:
## 1. Identification strategy - which design (DID, event study, IV, RDD or another) and why.
## 2. Treatment and comparison - what is treated, the comparison group, timing, running variable and cutoff if any.
## 3. Assumptions - what must hold and whether it is plausible here.
## 4. Threats - the two or three main threats and how you would address them.
## 5. R outline - code for the main specification and one robustness check.
## 6. Expected results - the direction you expect for the main effect (positive or negative) and why.
""".strip()


def preview_text(data: pd.DataFrame) -> tuple[str, str]:
    """(first five rows as a plain table, one ``  name: dtype`` line per column)."""
    preview = data.head(5).to_string(index=False)
    types = "\n".join(f"  {col}: {dtype}" for col, dtype in data.dtypes.items())
    return preview, types


def exp_b_prompt(scenario: Scenario) -> str:
    """The user prompt of one scenario (our wording, upstream's inputs)."""
    preview, types = preview_text(scenario.load_data())
    return EXP_B_USER.format(
        title=scenario.title,
        research_question=scenario.research_question,
        data_description=scenario.data_description,
        data_file=scenario.data_file,
        preview=preview,
        column_types=types,
    )
