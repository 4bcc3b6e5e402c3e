"""The comparison and per-family tables of ``frail report`` share the report's mean ± sd over seeds and its text."""

import pytest

from frail.comparison import (
    aggregate_family,
    aggregate_method_cells,
    comparison_block,
    comparison_markdown,
    family_markdown,
    format_mean_sd,
    mean_sd,
)


def test_mean_sd_over_the_finite_seeds_and_its_text():
    assert mean_sd([0.2, None, float("nan"), 0.4]) == {
        "mean": pytest.approx(0.3),
        "sd": pytest.approx(0.1414, abs=1e-4),
        "n": 2,
    }
    assert mean_sd([None]) == {"mean": None, "sd": None, "n": 0}
    assert format_mean_sd(mean_sd([0.2, 0.4])) == "0.300 ± 0.141"
    assert format_mean_sd(mean_sd([0.25])) == "0.250 (one seed)"
    assert format_mean_sd(mean_sd([])) == format_mean_sd(None) == "n/a"


def test_one_seed_reads_the_same_in_the_comparison_table_as_in_the_rest_of_the_report():
    spearman = {"complexity": {"pi": mean_sd([0.5]), "a": mean_sd([0.4]), "d_avg": mean_sd([None])}}
    block = comparison_block(spearman, aggregate_method_cells([{"complexity": -0.9}]), ceiling=0.8)
    [row] = [line for line in comparison_markdown(block) if line.startswith("| complexity |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # raw, normalised (0.5 / 0.8), the paper's GlassGSM / GlassMATH (Table 2), a, b (absent), D_avg (none), |Corr|
    assert cells == [
        "complexity",
        "0.500 (one seed)",
        "0.625 (one seed)",
        "0.207 ± 0.060",
        "0.285 ± 0.026",
        "0.400 (one seed)",
        "n/a",
        "n/a",
        "0.900",
    ]
    family = aggregate_family([{"frail_pi": {"entity_rename": 0.3}}])
    assert family_markdown(family)[-1] == "| frail_pi | 0.300 (one seed) |"


def test_every_na_cell_of_the_comparison_table_says_why():
    spearman = {
        "amortized_irt": {"pi": mean_sd([0.5]), "a": mean_sd([0.3]), "b": mean_sd([None]), "d_avg": mean_sd([None])},
        "complexity": {"pi": mean_sd([0.2]), "a": mean_sd([0.1]), "b": mean_sd([None]), "d_avg": mean_sd([0.4])},
    }
    notes = comparison_markdown(comparison_block(spearman, {}, ceiling=None))
    notes = [line for line in notes if line.startswith("- n/a")]
    assert notes == [
        "- n/a, amortized_irt × b: its p(J, m) has one shared dose slope, no per-job b.",
        "- n/a, amortized_irt × d_avg: its p(J, m) gives π and a only.",
        "- n/a, complexity × b: no seed gave a finite ρ_S (no input for the target, a constant target or too few test "
        "jobs).",
    ]
