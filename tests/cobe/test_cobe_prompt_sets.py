"""Prompt sets: a user's own respondent (tier_prompts) and judge (judge_prompts) texts loaded from files in the
documented format, used in the run, and named with their hash in the log."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import cobe_dataset, load_records
from cobe_inspect.prompts import (
    DEFAULT_TIER_PROMPTS,
    TIER_TEMPLATES,
    load_judge_prompts,
    load_tier_templates,
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


# The layout a user fills with the paper's exact texts (App. E and App. D.2); the wording here is a stand-in.
TIER_FILE = """\
tier1: |-
  $story

  $query
D: |-
  $story

  PAPER-D rewrite, had $intervention.
E: |-
  $story

  PAPER-E instead of $original, $intervened.
H1: |-
  Original story: $story
  Rewrite prompt: PAPER-H1 counterfactual scenario in which $intervened. Keep prior facts.
H2: |-
  Original story: $story
  PAPER-H2 steps. Rewrite prompt: $request
"""

JUDGE_FILE = """\
E0: |-
  PAPER-Q0 Criterion: every connector fits.
  Rewrite: $response_text
  Reply T or F.
E1: |-
  PAPER-Q1 Criterion: "$eq1" still holds.
  Rewrite: $response_text
E2: |-
  PAPER-Q2 Criterion: "$eq2" no longer holds.
  Rewrite: $response_text
"""


def test_a_tier_prompt_file_in_the_documented_format_is_used(tmp_path):
    path = tmp_path / "paper_tiers.yaml"
    path.write_text(TIER_FILE, encoding="utf-8")
    prompts = load_tier_templates(path)
    assert prompts.name == "paper_tiers.yaml" and prompts.sha256 != load_tier_templates(None).sha256
    assert prompts.templates["F"] == TIER_TEMPLATES["F"]  # keys the file leaves out keep our wording
    record = load_records()[0]
    d = next(iter(cobe_dataset(tier=2, phrasings="D", prompts=prompts)))
    assert d.input == f"{record.story}\n\nPAPER-D rewrite, had {record.pieces['Intervention']}."
    h1 = next(iter(cobe_dataset(tier=3, prompts=prompts)))
    assert h1.input.startswith(f"Original story: {record.story}\nRewrite prompt: PAPER-H1")
    assert next(iter(cobe_dataset(tier=1, prompts=prompts))).input == f"{record.story}\n\n{record.queries[0]}"


def test_a_tier_prompt_that_needs_a_field_names_the_records_without_it(tmp_path):
    path = tmp_path / "paper_tiers.yaml"
    path.write_text(TIER_FILE, encoding="utf-8")
    data = tmp_path / "published.json"
    record = {
        "Core Set ID": 1,
        "Variation ID": 1,
        "Story": "It rained, so the match was off.",
        "Query": ["Rewrite the original text, based on what would have happened instead had it been dry."],
        "Illustrative answer (not scored)": "It was dry, so the match went ahead.",
        "Evaluation criteria": ["There was a match.", "It rained. The match was off."],
    }
    data.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"phrasing\(s\) H1 need the field\(s\) 'Intervened event'.*1v1"):
        cobe_dataset(str(data), tier=3, prompts=load_tier_templates(path))
    # the H2 entry uses $request, built from the intervention clause the record's query states
    h2 = next(iter(cobe_dataset(str(data), tier=4, prompts=load_tier_templates(path))))
    assert h2.input.endswith("Rewrite prompt: Rewrite the original story as it would read had it been dry.")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"Z": "$story"}, "unknown key"),
        ({"D": "$story had $intervention and $outcome"}, r"unknown placeholder\(s\) \$outcome"),
        ({"H1": "Rewrite the story in which $intervened."}, r"never shows the story \(\$story\)"),
        ({"tier1": "$story"}, r"never shows the query \(\$query\)"),
        ({"D": ""}, "non-empty string"),
    ],
)
def test_bad_tier_prompt_files(tmp_path, content, message):
    path = tmp_path / "tiers.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"^Tier prompt file '.*" + message):
        load_tier_templates(path)


def test_a_judge_prompt_file_in_the_documented_format_drives_the_judge_and_is_named_in_the_log(scripted, tmp_path):
    judge_path, tier_path = tmp_path / "paper_judge.yaml", tmp_path / "paper_tiers.yaml"
    judge_path.write_text(JUDGE_FILE, encoding="utf-8")
    tier_path.write_text(TIER_FILE, encoding="utf-8")
    grader = scripted(lambda prompt: "F" if prompt.startswith("PAPER-Q2") else "T", name="judge")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"judge_prompts": str(judge_path), "tier_prompts": str(tier_path), "tier": 2, "phrasings": "D"},
        model=scripted("A rewrite."),
        model_roles={"grader": grader},
        limit=2,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    assert sorted(p.split(" ")[0] for p in grader.prompts) == [
        "PAPER-Q0",
        "PAPER-Q1",
        "PAPER-Q1",
        "PAPER-Q2",
        "PAPER-Q2",
    ]
    assert log.results.scores[0].metrics["E2_failure"].value == 1
    judge = log.eval.metadata["judge"]
    assert judge["prompts"] == {"name": "paper_judge.yaml", "sha256": load_judge_prompts(judge_path).sha256}
    assert log.eval.metadata["respondent_prompts"]["name"] == "paper_tiers.yaml"
    assert log.samples[0].scores["cobe_judge"].metadata["judge_prompts"].startswith("paper_judge.yaml sha256:")
    assert "PAPER-D rewrite" in log.samples[0].input


def test_default_prompt_sets_are_named_and_stable():
    assert load_tier_templates(None).name == DEFAULT_TIER_PROMPTS
    assert load_judge_prompts(None).sha256 == load_judge_prompts(None).sha256
    assert len(load_judge_prompts(None).sha256) == 64
