"""The No-Op audit of §3.3: structural checks on hand-made twins, and the noop_audit task end to end."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from glass_inspect.corpus import read_corpus_info, read_manifest, read_pool
from glass_inspect.corpus.audit import (
    DROP_ANSWER,
    DROP_CAPTURE,
    DROP_ENTITY,
    DROP_NOT_SETUP,
    DROP_QUANTITY,
    DROP_QUESTION,
    DROP_VARIABLE,
    FLAG_UNITS,
    apply_audit,
    maths_symbols,
    proper_nouns,
    structural_audit,
)
from glass_inspect.corpus.build import build_corpus
from glass_inspect.corpus.cli import main
from glass_inspect.scorers import parse_verdict
from glass_inspect.task import noop_audit

BASE = "On Monday, Tom has 3 apples. He buys 4 more apples. How many apples does Tom have?"


@pytest.mark.parametrize(
    ("injected", "answer", "drops", "flags"),
    [
        ("Tom runs 5 miles every day.", "7", (DROP_ENTITY,), ()),  # reuses the target's name
        ("On Monday, Ravi runs 5 miles.", "7", (), ()),  # calendar words are not proper nouns
        ("Ravi owns seven bikes.", "7", (DROP_ANSWER,), ()),  # the gold answer as a number word
        ("Ravi owns 7 bikes.", "7", (DROP_ANSWER,), ()),
        ("Ravi owns 17 bikes and 70 cars.", "7", (), ()),  # digits of the answer are not the answer
        ("A cake is cut into halves; 1/2 of it is eaten.", "\\frac{1}{2}", (DROP_ANSWER,), ()),
        ("Why is Ravi late?", "7", (DROP_QUESTION, DROP_NOT_SETUP), ()),
        ("Ravi picks 5 apples from a tree.", "7", (DROP_QUANTITY,), ()),  # same counted noun: drop
        ("Ravi pays $5 for a tree.", "7", (), ()),
        ("Ravi walks 3 miles. Find the answer.", "7", (DROP_NOT_SETUP,), ()),  # an instruction
        ("Ravi walks for 3 hours.", "7", (), ()),
        ("Ravi owns 5 bikes. Tom wonders why?", "7", (DROP_ENTITY, DROP_QUESTION, DROP_NOT_SETUP), ()),
    ],
)
def test_structural_checks(injected, answer, drops, flags):
    verdict = structural_audit(BASE, injected, answer)
    assert verdict.drops == drops
    assert verdict.flags == flags


def test_unit_compatible_dimensions_are_flagged():
    base = "A ticket costs $5 and the ride lasts 20 minutes. How much do 3 tickets cost?"
    assert structural_audit(base, "Ravi pays 12 dollars for lunch.", "15").flags == (FLAG_UNITS,)
    assert structural_audit(base, "The walk took 2 hours.", "15").flags == (FLAG_UNITS,)
    assert structural_audit(base, "The rope is 9 meters long.", "15").flags == ()
    # sentence lists give the same verdict as the joined text
    assert structural_audit(base, ["Ravi pays 12 dollars.", "Why?"], "15").drops == (DROP_QUESTION, DROP_NOT_SETUP)


def test_maths_symbols_of_the_target_may_not_be_redefined():
    base = "Let $f(x) = x^2 + 1$. Find $f(3)$."
    # every letter of a maths span counts, implicit products included; command names and \\text{} do not
    assert maths_symbols("Let $f(x) = 5x$ and $\\text{cm}$ and $\\frac{a}{b}$ and $3i$.") == {"f", "x", "a", "b", "i"}
    assert maths_symbols("Solve $ax+bx=c$.") == {"a", "b", "c", "x"}
    assert structural_audit(base, ["A box holds $x$ pens and 3 cups."], "10", tex=True).drops == (DROP_VARIABLE,)
    assert structural_audit("Find $ax+1$ if $a=2$.", ["A box holds $x$ pens and 3 cups."], "10", tex=True).drops == (
        DROP_VARIABLE,
    )
    assert structural_audit(base, ["A box holds $y$ pens and 3 cups."], "10", tex=True).drops == ()
    assert structural_audit(base, ["Suppose $y = 2$."], "10", tex=True).drops == (DROP_NOT_SETUP,)
    assert structural_audit(base, ["A square has side $4$."], "10", tex=True).drops == ()


def test_proper_nouns_skip_calendar_words_and_maths():
    assert proper_nouns("In March, Priya met Mr. Okafor in Lisbon. How many?") == {"Priya", "Okafor", "Lisbon"}
    assert proper_nouns("Let $X$ be Real. Find $X$.", tex=True) == {"Real"}


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("The numbers are unchanged.\nVERDICT: PRESERVES", "preserves"),
        ("verdict: changes", "changes"),
        ("**VERDICT:** CHANGES", "changes"),
        ("VERDICT: PRESERVES\nVERDICT: CHANGES", None),  # two verdicts: ambiguous
        ("It preserves the answer.", None),
        ("VERDICT: MAYBE", None),
        ("", None),
    ],
)
def test_parse_verdict_is_strict(reply, verdict):
    assert parse_verdict(reply) == verdict


@pytest.fixture
def small_corpus(tmp_path):
    src = resources.files("glass_inspect.corpus").joinpath("data/gsm_builtin.jsonl")
    return build_corpus("gsm", str(src), tmp_path / "corpus", limit=3, doses=(1, 3))


def _twin_of(prompt: str) -> str:
    return re.search(r"REWRITTEN PROBLEM:\n(.*?)\n\nCORRECT FINAL ANSWER", prompt, re.S).group(1)


def test_noop_audit_end_to_end_with_scripted_adjudicator(small_corpus, scripted, tmp_path):
    pool_bytes = (small_corpus / "pool.jsonl").read_bytes()
    twins = [r for r in read_pool(small_corpus) if r.role == "twin" and r.operator != "identity"]
    changed, garbled = twins[0], twins[1]

    def reply(prompt: str) -> str:
        twin = _twin_of(prompt)
        if twin == changed.text:
            return "The added sentence changes the count.\nVERDICT: CHANGES"
        if twin == garbled.text:
            return "I am not sure what you mean."
        return "Only the surface changed.\nVERDICT: PRESERVES"

    adjudicator = scripted(reply)
    under_test = scripted("must not be called")
    [log] = eval(
        noop_audit(corpus=str(small_corpus)),
        model=under_test,
        model_roles={"adjudicator": adjudicator},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and len(log.samples) == len(twins)
    assert under_test.prompts == []
    # the unparsable twin was asked 1 + 2 retries times, every other twin once
    assert len(adjudicator.prompts) == len(twins) + 2
    by_id = {s.id: s for s in log.samples}
    assert by_id[garbled.text_id].scores["noop_verdict"].answer is None
    assert by_id[changed.text_id].scores["noop_verdict"].value == 0.0
    assert by_id[twins[2].text_id].scores["noop_verdict"].value == 1.0
    first = adjudicator.prompts[0]
    assert "ORIGINAL PROBLEM:" in first and "CORRECT FINAL ANSWER TO THE ORIGINAL PROBLEM:" in first

    out = tmp_path / "audited"
    assert main(["audit", log.location, "--pool", str(small_corpus), "--out", str(out)]) == 0
    kept = {r.text_id for r in read_pool(out)}
    assert changed.text_id not in kept and garbled.text_id not in kept
    assert {t.text_id for t in twins[2:]} <= kept
    assert all(p.twin_id in kept for m in (1, 3) for p in read_manifest(out, m))
    info = read_corpus_info(out)
    assert info["audited"] is True
    assert info["counts"]["noop_audit"]["dropped"] == {"noop_changes": 1, "noop_unparsable": 1}
    assert (small_corpus / "pool.jsonl").read_bytes() == pool_bytes  # the raw pool is never modified
    assert not read_corpus_info(small_corpus)["audited"]

    # the log belongs to this pool only
    other = build_corpus(
        "gsm",
        str(resources.files("glass_inspect.corpus").joinpath("data/gsm_builtin.jsonl")),
        tmp_path / "other",
        limit=4,
        doses=(1,),
    )
    with pytest.raises(SuiteInputError, match="different pool"):
        apply_audit(log.location, other, tmp_path / "audited2")
    assert not (tmp_path / "audited2").exists()


def test_noop_audit_defaults_to_the_model_under_evaluation(small_corpus, scripted, tmp_path):
    model = scripted("VERDICT: PRESERVES")
    [log] = eval(noop_audit(corpus=str(small_corpus)), model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success" and len(model.prompts) == len(log.samples) > 0
    assert log.eval.metadata["pool_sha256"] == sha256_file(small_corpus / "pool.jsonl")
    assert log.results.scores[0].metrics["mean"].value == 1.0


def test_identical_prompts_are_adjudicated_once():
    from glass_inspect.corpus import TextRecord
    from glass_inspect.dataset import audit_samples

    def rec(text_id, base_id, role, operator, text):
        return TextRecord(
            text_id=text_id,
            base_id=base_id,
            role=role,
            operator=operator,
            injection_size=0,
            seed=0,
            text=text,
            answer="5",
            complexity_score=0.5,
            category="gsm",
            suite="gsm",
        )

    pool = [
        rec("a", "a", "base", "base", "Ann has 5 pens. How many pens?"),
        rec("b", "b", "base", "base", "Ann has 5 pens. How many pens?"),  # a duplicate problem
        rec("a-r", "a", "twin", "entity_rename", "Mei has 5 pens. How many pens?"),
        rec("b-r", "b", "twin", "entity_rename", "Mei has 5 pens. How many pens?"),
        rec("a-i", "a", "twin", "identity", "Ann has 5 pens. How many pens?"),
    ]
    samples = audit_samples(pool)
    assert [s.id for s in samples] == ["a-r"]
    assert "Mei has 5 pens" in samples[0].input and samples[0].target == "5"


def test_distractors_are_setup_only_and_cannot_capture_the_question():
    # instructions, figures and "the answer" are not setup
    base = "Ann has 3 pens. How many pens does she have?"
    for bad in ("Simplify the fraction 6/8.", "The figure shows 4 squares.", "The answer can be written as 2 numbers."):
        assert DROP_NOT_SETUP in structural_audit(base, bad, "3").drops
    # a bare "she" in the query: no person, name or pronoun may come before it
    assert DROP_CAPTURE in structural_audit(base, "A nurse works 8 hours.", "3").drops
    assert DROP_CAPTURE in structural_audit(base, "Rita bakes 8 cakes.", "3").drops
    assert structural_audit(base, "A van carries 8 crates.", "3").drops == ()
    # a noun the query points at ("the farmer") may not reappear
    base = "A farmer has 900 eggs. How much will the farmer earn?"
    assert DROP_CAPTURE in structural_audit(base, "A trader buys wheat from a farmer for $20.", "3").drops


def test_proper_nouns_start_after_sentence_ends_and_display_maths():
    assert proper_nouns("Mary buys 3 bags of M&Ms. They cost $2 each.") == {"Mary"}
    assert proper_nouns("Let \\[x = 1.\\] Then $y = 2$.", tex=True) == set()
    assert "Boston" in proper_nouns("Ann flies to Boston twice.")


def test_capture_guard_knows_agent_nouns_the_old_list_missed():
    # hand audit: "A juggler ..." right before "how much money does he make", "A blacksmith ..." before "he"
    base = "Ravi collects garbage from 3 buildings. How much money does he make in a week?"
    for person in ("A juggler can juggle 16 balls.", "A blacksmith makes 12 horseshoes a day.", "2 cellists play."):
        assert DROP_CAPTURE in structural_audit(base, person, "90").drops, person
    for thing in ("A computer has 16 keys.", "A pond holds 300 liters of water.", "A box is 3 inches longer."):
        assert DROP_CAPTURE not in structural_audit(base, thing, "90").drops, thing


def test_adjudicated_reorder_route_end_to_end(scripted, tmp_path):
    from glass_inspect.corpus.builtin import build_builtin
    from glass_inspect.task import glassgsm

    raw = tmp_path / "raw"
    argv = ["--suite", "gsm", "--source", str(_builtin_gsm()), "--out", str(raw), "--limit", "16", "--doses", "9"]
    assert main([*argv, "--reorder", "adjudicated"]) == 0
    same = build_builtin("gsm", tmp_path / "same", reorder="adjudicated", limit=16, doses=(9,))
    assert read_pool(raw) == read_pool(same)
    info = read_corpus_info(raw)
    reorders = [r for r in read_pool(raw) if r.operator == "sentence_reorder"]
    assert info["params"]["reorder"] == "adjudicated" and reorders
    assert all(r.audit_flags == ["needs_adjudication"] for r in reorders)
    assert info["counts"]["needs_adjudication"] == len(reorders)
    # the eval refuses the unadjudicated corpus, naming both commands
    with pytest.raises(SuiteInputError, match=r"noop_audit .*glass-build audit"):
        glassgsm(corpus=str(raw))

    # a scripted adjudicator drops every other reorder twin, keeps the rest
    moved = {r.text for r in sorted(reorders, key=lambda r: r.text_id)[::2]}
    assert moved and len(moved) < len(reorders)

    def reply(prompt: str) -> str:
        return "VERDICT: CHANGES" if _twin_of(prompt) in moved else "VERDICT: PRESERVES"

    [log] = eval(
        noop_audit(corpus=str(raw)),
        model=scripted("must not be called"),
        model_roles={"adjudicator": scripted(reply)},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    audited = tmp_path / "audited"
    assert main(["audit", log.location, "--pool", str(raw), "--out", str(audited)]) == 0
    kept = [r for r in read_pool(audited) if r.operator == "sentence_reorder"]
    assert {r.text for r in kept} == {r.text for r in reorders} - moved
    assert read_corpus_info(audited)["counts"]["noop_audit"]["dropped"] == {"noop_changes": len(moved)}
    task = glassgsm(corpus=str(audited), doses="9")
    assert not moved & {s.input for s in task.dataset}
    assert any(s.metadata["operator"] == "sentence_reorder" for s in task.dataset)


def _builtin_gsm():
    return resources.files("glass_inspect.corpus").joinpath("data/gsm_builtin.jsonl")
