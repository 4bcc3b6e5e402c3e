"""cobe-data stats: the paper's Tables 2-4 (words and sentences per story, shares by domain and graph type)."""

from __future__ import annotations

import json

import pytest
from test_cobe_dataset import GOOD

from cobe_inspect.records.convert import main
from cobe_inspect.records.stats import sentences, shares, words


def test_words_and_sentences_by_their_stated_definitions():
    assert words("The pump failed - so the basement flooded.") == 7  # the lone dash is no word
    assert words("It cost $5,000 (in 2024).") == 5
    assert sentences("It rained. The match was off! Was it? Yes") == 4
    assert sentences("It rained...  ") == 1 and sentences("") == 0


def test_shares_list_the_papers_labels_first_then_ours():
    rows = shares(["chain", "chain", "fork", "unlabeled"], {"chain": 51.0, "fork": 4.8, "hybrid": 11.9})
    assert [(r.label, r.count, r.percent, r.paper) for r in rows] == [
        ("chain", 2, 50.0, 51.0),
        ("fork", 1, 25.0, 4.8),
        ("hybrid", 0, 0.0, 11.9),
        ("unlabeled", 1, 25.0, None),
    ]


def test_stats_of_the_built_in_set(capsys):
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "  scenarios             36               2000" in out
    assert "  domains               6                7" in out
    assert (
        "  Healthcare            6       16.7      6.0" in out
        and "  Others                0        0.0     28.9" in out
    )
    assert "  chain                 6       16.7     51.0" in out and "unlabeled" not in out


def test_stats_of_records_without_tags_and_of_a_bad_file(tmp_path, capsys):
    path = tmp_path / "r.json"
    other = dict(GOOD, **{"Variation ID": 9, "Domain": "Sports"})
    path.write_text(json.dumps([{k: v for k, v in GOOD.items() if k != "Domain"}, other]), encoding="utf-8")
    assert main(["stats", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "  Others                1       50.0     28.9" in out
        and "  unlabeled             1       50.0        -" in out
    )
    assert main(["stats", str(tmp_path / "missing.json")]) == 2
    assert "cobe-data: error:" in capsys.readouterr().err


@pytest.mark.shared_data
def test_stats_of_the_converted_site_items(shared_dir, tmp_path, capsys):
    out = tmp_path / "site.jsonl"
    site = str(shared_dir / "data" / "cobe" / "cobe_site_examples.jsonl")
    assert main(["convert", site, "--query-slot", "*=A", "-o", str(out)]) == 0
    assert main(["stats", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "  scenarios             11 " in printed and "  unlabeled             11     100.0        -" in printed
