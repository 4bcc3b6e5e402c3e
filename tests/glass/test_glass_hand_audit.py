"""The rerunnable hand audit: seeded stratified sample, verdict template, defect table with Wilson intervals."""

from __future__ import annotations

import json

import pytest

from glass_inspect.corpus.build import build_corpus
from glass_inspect.corpus.builtin import BUILTIN_FILES
from glass_inspect.corpus.cli import main
from glass_inspect.corpus.hand_audit import defect_table, draw_sample, verdict_rows, wilson


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(0, 50)
    assert lo == 0.0 and 0.07 < hi < 0.072  # the rule-of-three neighbourhood
    lo, hi = wilson(5, 50)
    assert 0.04 < lo < 0.05 and 0.21 < hi < 0.22


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from importlib import resources

    out = tmp_path_factory.mktemp("c") / "gsm"
    with resources.as_file(resources.files("glass_inspect.corpus").joinpath(BUILTIN_FILES["gsm"])) as src:
        build_corpus("gsm", src, out)
    return out


def test_sample_is_seeded_stratified_and_the_verdicts_make_a_table(corpus, tmp_path, capsys):
    rows = draw_sample(corpus, 3, seed=1)
    assert [r["text_id"] for r in rows] == [r["text_id"] for r in draw_sample(corpus, 3, seed=1)]
    assert len({r["text_id"] for r in rows}) == len(rows)
    strata = {(r["family"], r["dose"]) for r in rows}
    assert {f for f, _ in strata} >= {"entity_rename", "irrelevant_context"}
    assert all(sum((r["family"], r["dose"]) == s for r in rows) <= 3 for s in strata)
    prefix = tmp_path / "s"
    assert main(["sample", str(corpus), "--out", str(prefix), "--per-stratum", "3", "--seed", "1"]) == 0
    text = (tmp_path / "s.sample.txt").read_text()
    assert text.count("BASE: ") == len(rows) and text.count("TWIN: ") == len(rows)
    template = [json.loads(line) for line in (tmp_path / "s.verdicts.jsonl").read_text().splitlines()]
    assert [v["text_id"] for v in template] == [r["text_id"] for r in rows]
    for k, v in enumerate(template):  # fill in: one answer change, one cosmetic defect, one unread
        v.update(same_answer=k != 0, natural=k != 1)
    template[-1]["same_answer"] = None
    (tmp_path / "filled.jsonl").write_text("".join(json.dumps(v) + "\n" for v in template))
    table = {t["family"]: t for t in defect_table(verdict_rows([tmp_path / "filled.jsonl"]).rows)}
    assert table["all"]["read"] == len(rows) - 1 and table["all"]["unread"] == 1
    assert table["all"]["answer_changed"] == 1 and table["all"]["any_defect"] == 2
    capsys.readouterr()
    assert main(["verdicts", str(tmp_path / "filled.jsonl")]) == 0
    assert "answer changed" in capsys.readouterr().out


def test_pooled_verdicts_count_only_the_twins_the_corpus_still_has(corpus, tmp_path, capsys):
    prefix = tmp_path / "r1"
    assert main(["sample", str(corpus), "--out", str(prefix), "--per-stratum", "2", "--seed", "4"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "r1.verdicts.jsonl").read_text().splitlines()]
    for v in rows:
        v.update(same_answer=True, natural=True)
    rows[0]["same_answer"] = False  # a defect the builder then fixed: its twin changes in the next build
    (tmp_path / "r1.verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in rows))
    sample = (tmp_path / "r1.sample.txt").read_text()
    twin_line = next(line for line in sample.splitlines() if line.startswith("TWIN: "))  # rows[0]'s twin
    # the reading of an earlier build: the first twin's text as it was then
    old = sample.replace(twin_line, twin_line + " (before the fix)", 1)
    (tmp_path / "r1.sample.txt").write_text(old)
    kept = verdict_rows([tmp_path / "r1.verdicts.jsonl"], corpus)
    assert kept.superseded == 1 and len(kept.rows) == len(rows) - 1 and kept.disagreed == 0
    assert all(r["same_answer"] for r in kept.rows)
    # without a corpus every row counts; two readings of one twin that disagree: the stricter verdict stands,
    # in either order of the files, and the disagreement is counted
    (tmp_path / "r2.verdicts.jsonl").write_text(json.dumps({**rows[1], "natural": False, "note": "stilted"}) + "\n")
    files = [tmp_path / "r1.verdicts.jsonl", tmp_path / "r2.verdicts.jsonl"]
    for order in (files, files[::-1]):
        pooled = verdict_rows(order)
        assert len(pooled.rows) == len(rows) and pooled.disagreed == 1
        assert sum(r["natural"] is False for r in pooled.rows) == 1
        assert next(r for r in pooled.rows if r["text_id"] == rows[1]["text_id"])["note"] == "stilted"
    # a reading that leaves a field unjudged does not disagree, and does not undo the other reading's verdict
    (tmp_path / "r3.verdicts.jsonl").write_text(json.dumps({**rows[2], "natural": None}) + "\n")
    pooled = verdict_rows([tmp_path / "r1.verdicts.jsonl", tmp_path / "r3.verdicts.jsonl"])
    assert pooled.disagreed == 0
    assert next(r for r in pooled.rows if r["text_id"] == rows[2]["text_id"])["natural"] is True
    capsys.readouterr()
    assert main(["verdicts", str(tmp_path / "r1.verdicts.jsonl"), "--corpus", str(corpus)]) == 0
    assert "judged twins it no longer has" in capsys.readouterr().out
    assert main(["verdicts", *map(str, files)]) == 0
    assert "1 readings disagree with an earlier reading of the same twin" in capsys.readouterr().out
    # the same id judged on two builds whose twins differ (the TWIN text of each sample file): two twins, no
    # disagreement
    (tmp_path / "r4.sample.txt").write_text(sample.replace(twin_line, twin_line + " (another build)", 1))
    (tmp_path / "r4.verdicts.jsonl").write_text(json.dumps({**rows[0], "same_answer": True}) + "\n")
    pooled = verdict_rows([tmp_path / "r1.verdicts.jsonl", tmp_path / "r4.verdicts.jsonl"])
    assert len(pooled.rows) == len(rows) + 1 and pooled.disagreed == 0
