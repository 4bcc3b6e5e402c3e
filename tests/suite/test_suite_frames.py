"""expand_scores: dict scores from inspect's samples_df become numeric columns."""

import math

import pandas as pd

from causal_suite.frames import expand_scores


def test_dict_scores_become_numeric_columns():
    df = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "score_cobe_judge": [
                '{"E0": 1, "E1": 0, "E2": 1, "correct": 0}',
                {"E0": 1, "E1": 1, "E2": 1, "correct": 1},
                None,
                "not json",
            ],
            "score_glass_match": [1.0, 0.0, None, 1.0],
        }
    )
    out = expand_scores(df)
    assert "score_cobe_judge" not in out and list(out["score_glass_match"][:2]) == [1.0, 0.0]
    assert list(out["score_cobe_judge_correct"][:2]) == [0.0, 1.0]
    assert math.isnan(out["score_cobe_judge_E1"][2]) and math.isnan(out["score_cobe_judge_E1"][3])
    assert out["score_cobe_judge_E2"].dtype == float


def test_from_a_real_log(tmp_path, scripted):
    from inspect_ai import eval
    from inspect_ai.analysis import samples_df

    eval(
        "cobe_inspect/cobe",
        model=scripted("A story."),
        model_roles={"grader": scripted("T", name="grader")},
        limit=3,
        display="none",
        log_dir=str(tmp_path),
        task_args={"judge_cache": False},
    )
    out = expand_scores(samples_df(str(tmp_path)))
    assert (out["score_cobe_judge_correct"] == 1.0).all() and len(out) == 3


def test_from_a_real_log_with_unscored_samples(tmp_path, scripted):
    """samples_df gives pyarrow strings with <NA> for an unscored sample; expand_scores must take them (issue 29)."""
    from inspect_ai import eval
    from inspect_ai.analysis import samples_df

    for verdict in ("T", "no verdict here"):  # a judge reply that parses, and one that leaves the sample unscored
        eval(
            "cobe_inspect/cobe",
            model=scripted("A story."),
            model_roles={"grader": scripted(verdict, name="grader")},
            limit=2,
            display="none",
            log_dir=str(tmp_path),
            task_args={"judge_cache": False},
        )
    df = samples_df(str(tmp_path))
    column = df["score_cobe_judge"]  # the frame of the documented path: pyarrow strings, <NA> where unscored
    assert (
        str(column.dtype).endswith("[pyarrow]")
        and column.isna().sum() == 2
        and column.dropna().str.startswith("{").all()
    )
    out = expand_scores(df)
    assert len(out) == 4 and out["score_cobe_judge_correct"].dtype == float
    assert sorted(out["score_cobe_judge_correct"].isna()) == [False, False, True, True]
    assert (out["score_cobe_judge_correct"].dropna() == 1.0).all()


def test_from_a_real_log_whose_samples_are_all_unscored(tmp_path, scripted):
    """Every sample unscored (the demo's CoBe run): samples_df gives a pyarrow column of <NA> only; it is kept as an
    all-missing score column instead of raising."""
    from inspect_ai import eval
    from inspect_ai.analysis import samples_df

    eval(
        "cobe_inspect/cobe",
        model=scripted("A story."),
        model_roles={"grader": scripted("no verdict here", name="grader")},
        limit=2,
        display="none",
        log_dir=str(tmp_path),
        task_args={"judge_cache": False, "judge_retries": 0},
    )
    df = samples_df(str(tmp_path))
    assert df["score_cobe_judge"].isna().all()
    out = expand_scores(df)
    assert len(out) == 2 and out["score_cobe_judge"].isna().all()
