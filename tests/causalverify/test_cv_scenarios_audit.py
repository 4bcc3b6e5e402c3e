"""Consistency audit: the built-in set passes; planted text/data mismatches are caught; upstream's known defects."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios import CanonicalEstimate, load_scenarios
from causalverify_inspect.scenarios.consistency import audit_or_raise, audit_scenario, audit_scenarios


@pytest.fixture(scope="module")
def builtin(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CAUSAL_SUITE_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield {s.scenario_id: s for s in load_scenarios(None)}


def _checks(scenario, data=None) -> Counter:
    return Counter(f.check for f in audit_scenario(scenario, data))


def _edit(s, field: str, old: str, new: str):
    text = getattr(s, field)
    assert old in text, (s.scenario_id, old)
    return dataclasses.replace(s, **{field: text.replace(old, new)})


def test_builtin_set_passes(builtin):
    assert audit_scenarios(builtin.values()) == []


def test_text_naming_a_missing_column(builtin):
    s = _edit(builtin["did_easy_01"], "data_description", "`y` (", "`y` and `size_group` (")
    (finding,) = audit_scenario(s)
    assert finding.check == "missing_column" and "size_group" in finding.detail


def test_undescribed_column_and_wrong_size(builtin):
    s = builtin["iv_easy_01"]
    assert _checks(s, s.load_data().assign(extra_col=1.0)) == {"undescribed_column": 1}
    assert _checks(_edit(s, "data_description", "cross-section of 2000", "cross-section of 200")) == {"size": 1}


def test_wrong_treatment_timing_in_text_or_data(builtin):
    s = builtin["did_easy_01"]
    assert _checks(_edit(s, "data_description", "start of period 6", "start of period 5")) == {"timing": 1}
    data = s.load_data()
    shifted = data.assign(post=(data.period >= 7).astype(int))
    shifted = shifted.assign(treat_x_post=shifted.post * shifted.treated)
    assert [f.detail for f in audit_scenario(s, shifted)] == ["text says treatment starts in period 6, data: period 7"]
    silent = _edit(
        _edit(s, "data_description", "at the start of period 6", "at some point"),
        "data_description",
        "from period 6 onward",
        "afterwards",
    )
    assert [f.detail for f in audit_scenario(silent)] == ["text does not say when treatment starts (data: period 6)"]


@pytest.mark.parametrize("sid", ["rdd_easy_01", "rdd_medium_03"])
def test_wrong_cutoff_side(builtin, sid):
    s = builtin[sid]
    side, flipped = ("at or above", "below") if s.design["treated_side"] == "above" else ("below", "at or above")
    findings = audit_scenario(_edit(s, "data_description", f"is {side}", f"is {flipped}"))
    assert [f.check for f in findings] == ["cutoff"] and "rows disagree" in findings[0].detail


def test_wrong_or_missing_cutoff_value(builtin):
    s = builtin["rdd_easy_01"]  # age 65
    assert _checks(_edit(s, "data_description", "at or above 65", "at or above 66")) == {"cutoff": 1}
    bare = dataclasses.replace(
        s,
        research_question="Does insurance change visits?",
        data_description="Columns: `running_var` (age), `treated` (insured), `y` (visits).",
    )
    assert sorted(f.detail for f in audit_scenario(bare)) == [
        "text does not state the cutoff value",
        "text does not state which side of the cutoff is treated",
    ]


def test_instrument_type(builtin):
    binary = builtin["iv_easy_01"]
    assert binary.design["instrument_type"] == "binary"
    wrong = _edit(binary, "data_description", "a binary indicator", "a continuous score")
    assert [f.detail for f in audit_scenario(wrong)] == ["text calls z continuous, data: binary"]
    unstated = _edit(binary, "data_description", "a binary indicator equal to 1 if", "1 if")
    assert _checks(unstated) == {"instrument_type": 1}


def test_event_study_scale_and_window(builtin):
    s = builtin["es_easy_01"]
    assert _checks(
        s.__class__(
            **{
                **s.__dict__,
                "research_question": "How did prices react?",
                "data_description": s.data_description.replace("daily abnormal", "abnormal"),
            }
        )
    ) == {"effect_scale": 1}
    assert _checks(_edit(s, "data_description", "days 0 to +10", "days 0 to +15")) == {"event_window": 1}


def test_flipped_signs(builtin):
    s = builtin["did_easy_01"]
    assert s.true_effect > 0
    assert _checks(dataclasses.replace(s, direction="negative")) == {"sign": 1}
    flipped_gt = {
        **s.ground_truth,
        "conclusion_direction": "negative",
        "conclusion_detail": s.ground_truth["conclusion_detail"].replace("raises", "lowers"),
    }
    assert _checks(dataclasses.replace(s, ground_truth=flipped_gt)) == {"sign": 2}
    c = s.canonical
    wrong_canonical = dataclasses.replace(s, canonical=CanonicalEstimate(-c.estimate, c.se, c.n, c.spec))
    assert _checks(wrong_canonical) == {"sign": 1}


def test_signed_main_effect_must_match_in_both_directions(builtin):
    positive = builtin["did_easy_01"]
    negative = next(s for s in builtin.values() if s.true_effect < 0)

    def with_main_effect(s, text):
        return dataclasses.replace(s, ground_truth={**s.ground_truth, "main_effect": text})

    assert _checks(with_main_effect(positive, "-0.3 log points")) == {"sign": 1}
    assert _checks(with_main_effect(negative, "+0.3 log points")) == {"sign": 1}
    assert _checks(with_main_effect(negative, "\u22120.3 log points")) == Counter()
    assert _checks(with_main_effect(negative, "0.3 log points fewer")) == Counter()  # unsigned: no claim


def test_audit_or_raise_lists_findings(builtin):
    bad = dataclasses.replace(builtin["did_easy_02"], direction="positive")
    assert bad.true_effect < 0
    with pytest.raises(SuiteInputError, match=r"1 finding\(s\): did_easy_02 \[sign\]"):
        audit_or_raise([builtin["did_easy_01"], bad])


@pytest.mark.shared_data
def test_upstream_known_defects_are_found(shared_dir):
    upstream = load_scenarios(shared_dir / "data/causalverify")
    findings = audit_scenarios(upstream)
    by_check: dict[str, set] = {}
    for f in findings:
        by_check.setdefault(f.check, set()).add(f.scenario_id)
    print(
        f"upstream audit: {len(findings)} findings in {len({f.scenario_id for f in findings})} scenarios: "
        + ", ".join(f"{k} {len(v)}" for k, v in sorted(by_check.items()))
    )
    assert {"s09", "s10", "s17", "s18"} <= by_check["missing_column"]  # size_group, treat_x_announce, ...
    assert {"s01", "s02", "s03"} <= by_check["timing"]  # text: period 4, data: period 5
    assert {"s27", "s85", "s100"} <= by_check["cutoff"]  # s27 treated 'below'; s85+ state no 0.5 cutoff
    sign_fixed = {"s86", "s88", "s90", "s92", "s94", "s97", "s99"}  # texts still describe a negative effect
    assert sign_fixed | {"s46", "s82"} <= by_check["sign"]  # s46, s82: canonical sign differs from the DGP
    assert {"s31", "s45"} <= by_check["size"]  # "200 observations" are units; the files have 1600 rows
    assert len(by_check["effect_scale"]) == 24  # every ES text asks for CARs, the canonical is per-day
