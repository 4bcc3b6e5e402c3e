"""glass-build: sources, manifests (§3.2), determinism, bad input, LabeledPair round trip (§3.4), built-ins."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from glass_inspect.corpus import FAMILIES, read_corpus_info, read_manifest, read_pool
from glass_inspect.corpus.build import build_corpus
from glass_inspect.corpus.builtin import default_corpus
from glass_inspect.corpus.cli import main
from glass_inspect.corpus.labeled_pairs import import_labeled_pairs, read_labeled_pairs, write_labeled_pairs
from glass_inspect.corpus.operators import segment
from glass_inspect.corpus.sources import load_source

DOSES = (1, 3, 5, 7, 9)


def builtin(suite: str) -> str:
    return str(resources.files("glass_inspect.corpus").joinpath(f"data/{suite}_builtin.jsonl"))


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("suite", ["gsm", "math"])
def test_cli_builds_the_builtin_corpus(suite, tmp_path, capsys):
    out = tmp_path / suite
    assert main(["--suite", suite, "--source", builtin(suite), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert sorted(_files(out)) == ["corpus.json", *[f"manifests/m{m}.jsonl" for m in DOSES], "pool.jsonl"]
    info = read_corpus_info(out)
    pool = read_pool(out)
    bases = [r for r in pool if r.role == "base"]
    assert info["suite"] == suite and info["counts"]["bases"] == len(bases) >= 30
    assert info["source"]["sha256"] == sha256_file(builtin(suite))
    assert {r.operator for r in pool if r.role == "twin"} <= set(FAMILIES)
    assert len({r.text_id for r in pool}) == len(pool)
    texts = {r.text_id: r for r in pool}
    for r in pool:
        if r.role == "twin" and r.operator != "identity":
            assert r.text != texts[r.base_id].text and r.answer == texts[r.base_id].answer
    if suite == "math":
        assert {r.complexity_score for r in bases} == {0.05, 0.275, 0.5, 0.725, 0.95}
    else:
        assert all(0.05 <= r.complexity_score <= 0.95 for r in bases)


def test_manifest_composition_per_dose(tmp_path):
    out = build_corpus("gsm", builtin("gsm"), tmp_path / "c")
    pool = {r.text_id: r for r in read_pool(out)}
    bases = [r.base_id for r in pool.values() if r.role == "base"]
    info = read_corpus_info(out)
    for m in DOSES:
        pairs = read_manifest(out, m)
        assert info["counts"]["pairs"][f"m{m}"]["total"] == len(pairs)
        per_base: dict[str, Counter] = defaultdict(Counter)
        sizes: dict[str, set] = defaultdict(set)
        for p in pairs:
            twin = pool[p.twin_id]
            assert p.dose == m and twin.base_id == p.base_id and twin.operator == p.operator
            assert twin.injection_size == p.injection_size
            per_base[p.base_id][p.operator] += 1
            if p.operator == "irrelevant_context":
                sizes[p.base_id].add(p.injection_size)
        for b in bases:
            counts = per_base[b]
            assert counts.pop("identity") == 1  # one placebo per base, on top of the m
            assert sum(counts.values()) == m  # the built-in problems always have enough candidates
            assert len(sizes[b]) <= 1 and sizes[b] <= set(DOSES)  # one injection size per base and dose
        # an even split whenever each family present has enough distinct candidates
        for b in bases:
            have = Counter(pool[t].operator for t in pool if pool[t].base_id == b and pool[t].role == "twin")
            if m == 9 and have["entity_rename"] >= 3 and have["sentence_reorder"] >= 3:
                assert per_base[b] == Counter(entity_rename=3, sentence_reorder=3, irrelevant_context=3)


def test_injection_size_follows_the_family_share(tmp_path):
    out = build_corpus("gsm", builtin("gsm"), tmp_path / "c", doses=(9,))
    pool = {r.text_id: r for r in read_pool(out)}
    for rows in _group(read_manifest(out, 9)).values():
        context = [p for p in rows if p.operator == "irrelevant_context"]
        families = {p.operator for p in rows} - {"identity"}
        if len(families) == 1:  # no name, no admissible reordering: all 9 twins are distractors of size 9
            assert [p.injection_size for p in context] == [9] * 9
        assert all(len(pool[p.twin_id].changes["inserted"]) == p.injection_size for p in context)


def _group(pairs):
    out = defaultdict(list)
    for p in pairs:
        out[p.base_id].append(p)
    return out


def test_same_command_twice_gives_byte_identical_outputs(tmp_path):
    args = ["--suite", "math", "--source", builtin("math"), "--seed", "3", "--doses", "1,5"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert main([*args[:-4], "--seed", "4", "--doses", "1,5", "--out", str(tmp_path / "c")]) == 0
    assert _files(tmp_path / "a")["pool.jsonl"] != _files(tmp_path / "c")["pool.jsonl"]


def _write(path: Path, rows: list) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


GOOD_GSM = {"question": "Ann has 3 pens. She buys 2 more. How many pens does she have?", "answer": "3+2=5\n#### 5"}
GOOD_MATH = {"problem": "What is $2+3$?", "solution": "It is $\\boxed{5}$.", "level": "Level 1", "type": "Algebra"}


@pytest.mark.parametrize(
    ("suite", "bad", "message"),
    [
        ("gsm", {"question": "How many?", "answer": "it is 5"}, "record 2: field 'answer' has no '#### <number>'"),
        ("gsm", {"answer": "#### 5"}, "record 2: field 'question' is missing"),
        ("gsm", {"question": "How many?", "answer": "#### five"}, "record 2: field 'answer' ends in a non-numeric"),
        ("math", {**GOOD_MATH, "solution": "It is 5."}, "record 2: field 'solution' has no \\\\boxed"),
        ("math", {**GOOD_MATH, "level": "Level ?"}, "record 2: field 'level' is 'Level \\?'"),
        ("math", {k: v for k, v in GOOD_MATH.items() if k != "type"}, "record 2: field 'type'"),
    ],
)
def test_bad_rows_stop_with_file_record_and_field_or_are_skipped(suite, bad, message, tmp_path):
    good = GOOD_GSM if suite == "gsm" else GOOD_MATH
    src = _write(tmp_path / "src.jsonl", [good, bad, good])
    out = tmp_path / "out"
    with pytest.raises(SuiteInputError, match=f"src.jsonl, {message}"):
        build_corpus(suite, src, out)
    assert not out.exists() and not list(tmp_path.glob(".out*"))  # nothing half-written
    assert main(["--suite", suite, "--source", src, "--out", str(out)]) == 2
    assert not out.exists()
    build_corpus(suite, src, out, skip_bad_rows=True)
    info = read_corpus_info(out)
    assert info["counts"]["bases"] == 2 and info["counts"]["skipped_rows"] == 1
    assert info["skipped_rows"][0]["record"] == 2


def test_other_source_layouts_and_errors(tmp_path):
    import datasets  # a core dependency: a missing one must fail here, not skip

    rows = [json.loads(line) for line in Path(builtin("gsm")).read_text(encoding="utf-8").splitlines()[:4]]
    (tmp_path / "list.json").write_text(json.dumps(rows), encoding="utf-8")
    datasets.Dataset.from_list(rows).to_parquet(str(tmp_path / "rows.parquet"))
    datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)}).save_to_disk(str(tmp_path / "saved"))
    expected = [p.text for p in load_source("gsm", builtin("gsm"), limit=4)[0]]
    for src in ("list.json", "rows.parquet", "saved"):
        assert [p.text for p in load_source("gsm", str(tmp_path / src))[0]] == expected
    with pytest.raises(SuiteInputError, match="no split 'train'"):
        load_source("gsm", str(tmp_path / "saved"), split="train")
    with pytest.raises(SuiteInputError, match="does not exist"):
        load_source("gsm", str(tmp_path / "missing.jsonl"))
    (tmp_path / "broken.jsonl").write_text('{"question": "x"\n', encoding="utf-8")
    with pytest.raises(SuiteInputError, match="broken.jsonl, line 1: not valid JSON"):
        load_source("gsm", str(tmp_path / "broken.jsonl"))
    with pytest.raises(SuiteInputError, match="unknown suite"):
        load_source("physics", builtin("gsm"))


def test_existing_output_is_refused_unless_forced(tmp_path):
    out = tmp_path / "c"
    build_corpus("gsm", builtin("gsm"), out, limit=3, doses=(1,))
    with pytest.raises(SuiteInputError, match="not empty"):
        build_corpus("gsm", builtin("gsm"), out, limit=3, doses=(1,))
    build_corpus("gsm", builtin("gsm"), out, limit=4, doses=(1,), overwrite=True)
    assert read_corpus_info(out)["counts"]["bases"] == 4


def test_labeled_pair_round_trip(tmp_path):
    out = build_corpus("gsm", builtin("gsm"), tmp_path / "c", limit=6, doses=(1, 3))
    files = []
    for m in (1, 3):
        path = tmp_path / f"gsm_m{m}_multiop_mix_ours_labeled_pairs.jsonl"
        assert write_labeled_pairs(out, m, path) == len(read_manifest(out, m))
        files.append(path)
    row = read_labeled_pairs(files[1])[0]
    assert {
        "base_id",
        "twin_id",
        "operator",
        "category",
        "complexity",
        "complexity_score",
        "base_text",
        "twin_text",
        "delta_per_model",
        "delta_mean",
        "d_obs",
        "d_wc",
        "y_base_mean",
    } <= set(row)
    context = [r for r in read_labeled_pairs(files[1]) if r["family"] == "irrelevant_context"]
    assert context and all(r["operator"] == f"math_irrelevant_context_m{r['injection_size']}" for r in context)
    back = import_labeled_pairs(files, "gsm", tmp_path / "back")
    original = {(r.text_id, r.text, r.answer, r.operator, r.injection_size) for r in read_pool(out)}
    imported = {(r.text_id, r.text, r.answer, r.operator, r.injection_size) for r in read_pool(back)}
    assert imported == {t for t in original if t[0] in {x[0] for x in imported}}
    assert len(imported) == len({p.twin_id for m in (1, 3) for p in read_manifest(out, m)}) + 6
    for m in (1, 3):
        assert read_manifest(back, m) == read_manifest(out, m)


def test_labeled_pairs_without_answers_take_them_from_the_source(tmp_path):
    out = build_corpus("gsm", builtin("gsm"), tmp_path / "c", limit=3, doses=(1,))
    write_labeled_pairs(out, 1, tmp_path / "up_m1_.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "up_m1_.jsonl").read_text().splitlines()]
    upstream = [{k: v for k, v in r.items() if k not in ("dose", "answer", "injection_size")} for r in rows]
    path = tmp_path / "gsmic_adv_m1_multiop_mix_4omini_labeled_pairs.jsonl"
    _write(path, upstream)
    with pytest.raises(SuiteInputError, match="has no 'answer'"):
        import_labeled_pairs([path], "gsm", tmp_path / "d")
    back = import_labeled_pairs([path], "gsm", tmp_path / "d", answers_source=builtin("gsm"))
    assert {r.answer for r in read_pool(back)} == {r.answer for r in read_pool(out)}
    assert {p.dose for p in read_manifest(back, 1)} == {1}  # dose stamped from the file name


def test_default_corpus_is_cached_and_keyed(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSAL_SUITE_CACHE", str(tmp_path / "cache"))
    first = default_corpus("math")
    assert first.parent == tmp_path / "cache" / "glass" and read_corpus_info(first)["suite"] == "math"
    stamp = (first / "pool.jsonl").stat().st_mtime_ns
    assert default_corpus("math") == first and (first / "pool.jsonl").stat().st_mtime_ns == stamp
    assert read_corpus_info(first)["source"]["path"] == "builtin:data/math_builtin.jsonl"
    # the built-in MATH corpus borrows its distractors from the built-in GSM problems (as full MATH builds from GSM8K)
    reference = build_corpus(
        "math",
        builtin("math"),
        tmp_path / "ref",
        source_label="builtin:data/math_builtin.jsonl",
        donor_sources=[f"gsm:{builtin('gsm')}"],
        own_donors=False,
    )
    assert _files(first) == _files(reference)
    with pytest.raises(SuiteInputError, match="unknown suite"):
        default_corpus("physics")


REAL = [("gsm", "data/gsm8k/test.jsonl"), ("math", "data/hendrycks_math/test.jsonl")]


@pytest.mark.shared_data
@pytest.mark.parametrize(("suite", "path"), REAL)
def test_build_on_a_slice_of_the_real_test_sets(suite, path, shared_dir, tmp_path):
    out = tmp_path / suite
    # as documented: distractors lent by GSM8K train problems only (the default with --donors)
    train = shared_dir / "data/gsm8k/train.jsonl"
    donors = ["--donors", f"gsm:{train}"] if suite == "math" else ["--donors", str(train)]
    assert (
        main(["--suite", suite, "--source", str(shared_dir / path), "--out", str(out), "--limit", "20", *donors]) == 0
    )
    info = read_corpus_info(out)
    pool = read_pool(out)
    assert info["counts"]["bases"] == 20 and info["counts"]["skipped_rows"] == 0
    texts = {r.text_id: r for r in pool}
    for m in DOSES:
        pairs = read_manifest(out, m)
        assert sum(p.operator == "identity" for p in pairs) == 20
        # about m twins per base
        assert len(pairs) - 20 >= 0.9 * 20 * m
        assert len({p.base_id for p in pairs if p.operator != "identity"}) == 20
        for p in pairs:
            twin = texts[p.twin_id]
            if p.operator == "irrelevant_context":
                assert all("?" not in s for s in twin.changes["inserted"])
                assert twin.text.endswith(segment_query_tail(texts[p.base_id].text, suite))
    lent = {d for r in pool if r.operator == "irrelevant_context" for d in r.changes["donors"]}
    assert lent and all(d.startswith("donor0-") for d in lent)  # no test problem lends a sentence
    assert info["counts"]["donors"]["own_problems"] is False
    if suite == "gsm":
        assert texts["gsm-0"].answer == "18"
        assert info["counts"]["distractor_diversity"]["pool"]["distinct"] > 0
    else:
        assert {r.level for r in pool} <= {1, 2, 3, 4, 5} and texts["math-0"].answer == "2"
        assert info["counts"]["donors"]["extra_sources"][0]["suite"] == "gsm"
        lent = [s for r in pool if r.operator == "irrelevant_context" for s in r.changes["inserted"]]
        assert lent and not any("$" in s for s in lent)  # currency written out: no maths span opened


def segment_query_tail(text: str, suite: str) -> str:
    """The base text from its query sentence on (what every distractor twin must end with)."""
    seg = segment(text, suite == "math")
    return text[text.index(seg.sentences[seg.query]) :]


def test_show_prints_twins_beside_their_bases(tmp_path, capsys):
    out = build_corpus("gsm", builtin("gsm"), tmp_path / "c", limit=5, doses=(3,))
    assert main(["show", str(out), "--n", "2"]) == 0
    text = capsys.readouterr().out
    for family in ("entity_rename", "irrelevant_context", "identity"):
        assert text.count(f"=== {family} ") == 2
    assert text.count("BASE: ") == text.count("TWIN: ") >= 6


def test_gsm_currency_is_written_out_for_a_math_target():
    from glass_inspect.corpus.build import _lend

    # the audit's "for 16, dollars": only groups of three digits after a comma belong to the amount
    lent = _lend("Mia sold 30 cups for $16, then 5 more for $2. A typo: $1,20 here. How much?", "gsm", True)
    assert lent == ("Mia sold 30 cups for 16 dollars, then 5 more for 2 dollars.",)

    from glass_inspect.corpus.build import write_out_currency

    assert write_out_currency("He buys a hat for $16, a bag for $1,250, and a pen for $2.50.") == (
        "He buys a hat for 16 dollars, a bag for 1,250 dollars, and a pen for 2.50 dollars."
    )
    assert write_out_currency("It pays $.40 each; ten $20 bills; a $1.5 million house.") == (
        "It pays 0.40 dollars each; ten 20-dollar bills; a 1.5 million-dollar house."
    )
    assert write_out_currency("A typo: $1,20 here.") == "A typo: $1,20 here."  # left as it is: never lent
    assert (
        write_out_currency("One orange costs $1 and a comb $1.5.")
        == "One orange costs 1 dollar and a comb 1.5 dollars."
    )
    # the final MATH audit: an amount before a noun is an adjective, and "$8 dollars" says dollars once
    assert write_out_currency("He cashed a $200 check and paid a $100.00 pet fee.") == (
        "He cashed a 200-dollar check and paid a 100.00-dollar pet fee."
    )
    assert write_out_currency("Ann gave him $8 dollars.") == "Ann gave him 8 dollars."
    assert write_out_currency("James sells a $500,000 house for $600,000.") == (
        "James sells a 500,000-dollar house for 600,000 dollars."
    )


def test_open_money_query_bases_get_no_money_distractors(tmp_path):
    laptop = "The price of a laptop is $1000. If you get a 20% discount, how much do you have to pay?"
    rows = [
        {"question": laptop, "answer": "1000*0.8=800\n#### 800"},
        {"question": "Tom has 3 pens. Tom buys 2 more. How many pens does Tom have?", "answer": "#### 5"},
    ]
    donors = [
        "A shirt costs $20 and a hat costs $12. The shop is 3 miles away.",
        "A van carries 8 crates. Each crate weighs 30 kilograms.",
        "A pond holds 300 fish. Each fish eats 2 flakes a day.",
        "Ravi pays $5 for a kite. The kite flies 40 meters high.",
        "A train has 12 cars. Each car has 4 doors.",
        "A garden has 9 rows of roses.",
        "A bakery sells 50 rolls for $1 each.",
        "A tree is 14 meters tall.",
        "A ship carries 400 boxes.",
        "A road is 6 kilometers long.",
    ]
    src = _write(tmp_path / "src.jsonl", rows)
    donor_file = _write(tmp_path / "donors.jsonl", [{"question": d + " How many?", "answer": "#### 1"} for d in donors])
    out = build_corpus("gsm", src, tmp_path / "c", donor_sources=[donor_file], doses=(9,))
    info = read_corpus_info(out)
    assert info["counts"]["guards"] == {"open_money_query_bases": 1}
    twins = [r for r in read_pool(out) if r.operator == "irrelevant_context"]
    lent = [s for r in twins if r.base_id == "gsm-0" for s in r.changes["inserted"]]
    assert lent and not any("$" in s or "pays" in s or "sells" in s for s in lent)
    assert any("$" in s for r in twins if r.base_id == "gsm-1" for s in r.changes["inserted"])


def test_donors_are_the_given_sources_unless_own_donors_is_asked_for(tmp_path):
    rows = [
        {"question": "Ann has 4 pens. Ann buys 3 cups. How many pens does Ann have?", "answer": "#### 4"},
        {"question": "A farm has 30 goats. A barn holds 9 bales. How many goats are there?", "answer": "#### 30"},
    ]
    src = _write(tmp_path / "src.jsonl", rows)
    train = _write(
        tmp_path / "train.jsonl",
        [{"question": f"A road is {k} kilometers long. How long?", "answer": "#### 1"} for k in range(11, 15)],
    )

    def lenders(out: Path) -> set[str]:
        pool = read_pool(out)
        return {d.split("-")[0] for r in pool if r.operator == "irrelevant_context" for d in r.changes["donors"]}

    train_only = main(["--suite", "gsm", "--source", src, "--out", str(tmp_path / "a"), "--donors", train])
    assert train_only == 0 and lenders(tmp_path / "a") == {"donor0"}
    assert read_corpus_info(tmp_path / "a")["counts"]["donors"]["own_problems"] is False
    argv = ["--suite", "gsm", "--source", src, "--out", str(tmp_path / "b"), "--donors", train, "--own-donors"]
    assert main(argv) == 0 and lenders(tmp_path / "b") == {"donor0", "gsm"}
    assert read_corpus_info(tmp_path / "b")["counts"]["donors"]["own_problems"] is True
    # no --donors: the source's own problems are the only donors, and corpus.json says so
    assert main(["--suite", "gsm", "--source", src, "--out", str(tmp_path / "c")]) == 0
    assert read_corpus_info(tmp_path / "c")["counts"]["donors"]["own_problems"] is True
    with pytest.raises(SystemExit) as stopped:  # the flag of versions before 3-A: the default now
        main(["--suite", "gsm", "--source", src, "--out", str(tmp_path / "d"), "--no-own-donors"])
    assert stopped.value.code == 2


def test_builtin_math_borrows_distractors_from_the_builtin_gsm_problems(tmp_path):
    from glass_inspect.corpus.build import write_out_currency
    from glass_inspect.corpus.builtin import build_builtin

    out = build_builtin("math", tmp_path / "m")
    info = read_corpus_info(out)
    assert info["params"]["own_donors"] is False
    assert info["counts"]["donors"]["extra_sources"] == [
        {"suite": "gsm", "path": "gsm_builtin.jsonl", "sha256": sha256_file(builtin("gsm")), "problems": 33}
    ]
    gsm_sentences = {
        s for p in load_source("gsm", builtin("gsm"))[0] for s in segment(write_out_currency(p.text)).sentences
    }
    lent = [s for r in read_pool(out) if r.operator == "irrelevant_context" for s in r.changes["inserted"]]
    assert lent and set(lent) <= gsm_sentences
    assert info["counts"]["coverage"]["irrelevant_context"] == 1.0
    # the same build twice is byte-identical; the gsm built-in is unchanged (its own problems lend)
    assert _files(out) == _files(build_builtin("math", tmp_path / "m2"))
    assert read_corpus_info(build_builtin("gsm", tmp_path / "g"))["params"]["own_donors"] is True


def test_an_unknown_reorder_route_is_refused_before_reading(tmp_path):
    with pytest.raises(SuiteInputError, match="reorder 'loose': choose graph or adjudicated"):
        build_corpus("gsm", tmp_path / "missing.jsonl", tmp_path / "out", reorder="loose")
    assert not (tmp_path / "out").exists()
