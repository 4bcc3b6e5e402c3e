"""frail's log reader against real inspect logs: a tiny glass corpus, a tiny @task carrying the glass sample-metadata
contract and a `glass_match` scorer, answered by a scripted model."""

import json

import pytest
from inspect_ai import Epochs, Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, mean, scorer
from inspect_ai.solver import generate

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from frail.cli import main
from frail.logs import observations_from_logs
from frail.pairs import read_pairs
from glass_inspect.corpus import PairRecord, TextRecord, manifest_path, write_jsonl


def text(tid, base, role, op, body, size=0, c=0.4):
    return TextRecord(
        text_id=tid,
        base_id=base,
        role=role,
        operator=op,
        injection_size=size,
        seed=0,
        text=f"[{body}] Count the things.",
        answer="7",
        complexity_score=c,
        category="gsm",
        suite="gsm",
    )


POOL = [
    text("b1", "b1", "base", "base", "b1"),
    text("b1-t1", "b1", "twin", "entity_rename", "b1-t1"),
    text("b1-t2", "b1", "twin", "irrelevant_context", "b1-t2", size=1),
    text("b1-id", "b1", "twin", "identity", "b1"),
    text("b2", "b2", "base", "base", "b2", c=0.8),
    text("b2-t1", "b2", "twin", "sentence_reorder", "b2-t1", c=0.8),
    text("b3", "b3", "base", "base", "b3"),
    text("b3-t1", "b3", "twin", "entity_rename", "b3-t1"),
]
MANIFESTS = {
    1: [
        PairRecord("b1", "b1-t1", "entity_rename", 0, 1),
        PairRecord("b2", "b2-t1", "sentence_reorder", 0, 1),
        PairRecord("b3", "b3-t1", "entity_rename", 0, 1),
    ],
    3: [
        PairRecord("b1", "b1-t2", "irrelevant_context", 1, 3),
        PairRecord("b1", "b1-id", "identity", 0, 3),
        PairRecord("b2", "b2-t1", "sentence_reorder", 0, 3),
    ],
}
# b1 solved, its renamed twin broken; b2 unsolved; b3-t1 gets no answer -> unscored
REPLIES = {"[b1-t1]": "6", "[b1-t2]": "7", "[b1]": "7", "[b2-t1]": "7", "[b2]": "5", "[b3-t1]": "??", "[b3]": "7"}


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "corpus"
    write_jsonl(root / "pool.jsonl", POOL)
    for dose, rows in MANIFESTS.items():
        write_jsonl(manifest_path(root, dose), rows)
    (root / "corpus.json").write_text(
        json.dumps(
            {
                "schema": 1,
                "suite": "gsm",
                "seed": 0,
                "doses": [1, 3],
                "source": {"path": "x", "sha256": "0"},
                "counts": {},
                "audited": False,
            }
        )
    )
    return root


@scorer(metrics=[mean()], name="glass_match")
def glass_match():
    async def score(state, target):
        answer = state.output.completion.strip()
        if answer == "??":
            return Score.unscored(reason="no final answer found")
        return Score(value=1.0 if answer == target.text else 0.0, answer=answer)

    return score


@scorer(metrics=[mean()], name="match_other")
def other_scorer():
    async def score(state, target):
        return Score(value=1.0)

    return score


def glass_task(corpus, with_metadata=True, with_contract=True, score=glass_match):
    samples = [
        Sample(
            id=r.text_id,
            input=r.text,
            target=r.answer,
            metadata=r.sample_metadata() if with_contract else {"text_id": r.text_id},
        )
        for r in POOL
    ]
    manifests = [
        {"dose": d, "path": str(manifest_path(corpus, d)), "sha256": sha256_file(manifest_path(corpus, d))}
        for d in MANIFESTS
    ]
    meta = {"glass": {"corpus": str(corpus), "suite": "gsm", "manifests": manifests}} if with_metadata else None
    return Task(dataset=samples, solver=generate(), scorer=score(), epochs=Epochs(2, "mean"), metadata=meta, version=1)


def run(task, model, tmp_path, name="logs"):
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path / name))
    assert log.status == "success"
    return log.location


def test_observations_from_a_glass_log(corpus, tmp_path, scripted):
    path = run(glass_task(corpus), scripted(REPLIES), tmp_path)
    rows, counts = observations_from_logs([path])
    got = {(r.base_id, r.twin_id, r.dose): (r.y_base, r.y_twin, r.family) for r in rows}
    assert got == {
        ("b1", "b1-t1", 1): (1.0, 0.0, "entity_rename"),
        ("b2", "b2-t1", 1): (0.0, 1.0, "sentence_reorder"),
        ("b1", "b1-t2", 3): (1.0, 1.0, "irrelevant_context"),
        ("b1", "b1-id", 3): (1.0, 1.0, "identity"),
        ("b2", "b2-t1", 3): (0.0, 1.0, "sentence_reorder"),
    }
    assert counts["excluded_unscored"] == 1 and counts["unscored_texts"] == 1 and counts["written"] == 5
    b1 = next(r for r in rows if r.twin_id == "b1-t2")
    assert b1.operator == "irrelevant_context_m3" and b1.injection_size == 1 and b1.y_base_epoch_mean == 1.0
    assert b1.base_text == "[b1] Count the things." and b1.twin_text == "[b1-t2] Count the things."
    assert b1.solver == "mockllm/model" and b1.complexity_score == 0.4


def test_cli_pairs_writes_labeled_pairs(corpus, tmp_path, scripted, capsys):
    path = run(glass_task(corpus, with_metadata=False), scripted(REPLIES), tmp_path)
    out = tmp_path / "pairs.jsonl"
    assert main(["pairs", path, "--corpus", str(corpus), "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 5
    rows = read_pairs(out)
    assert sorted((r.twin_id, r.dose) for r in rows)[0] == ("b1-id", 3)
    first = json.loads(out.read_text().splitlines()[0])
    assert first["delta_per_model"] == {"mockllm/model": 1.0} and first["dose"] == 1


def test_log_without_corpus_needs_the_flag(corpus, tmp_path, scripted):
    path = run(glass_task(corpus, with_metadata=False), scripted(REPLIES), tmp_path)
    with pytest.raises(SuiteInputError, match="--corpus"):
        observations_from_logs([path])


def test_non_glass_log_is_refused(corpus, tmp_path, scripted):
    path = run(glass_task(corpus, score=other_scorer), scripted(REPLIES), tmp_path)
    with pytest.raises(SuiteInputError, match="not from a glass task: it has no per-sample 'glass_match'"):
        observations_from_logs([path])


def test_log_without_the_metadata_contract_is_refused(corpus, tmp_path, scripted):
    path = run(glass_task(corpus, with_contract=False), scripted(REPLIES), tmp_path)
    with pytest.raises(SuiteInputError, match="metadata lacks metadata_version"):
        observations_from_logs([path])


def test_logs_of_two_solvers_are_refused(corpus, tmp_path, scripted):
    a = run(glass_task(corpus), scripted(REPLIES), tmp_path, "a")
    b = run(glass_task(corpus), scripted(REPLIES, name="other"), tmp_path, "b")
    with pytest.raises(SuiteInputError, match="mix solvers"):
        observations_from_logs([a, b])


def test_changed_manifest_is_refused(corpus, tmp_path, scripted):
    path = run(glass_task(corpus), scripted(REPLIES), tmp_path)
    write_jsonl(manifest_path(corpus, 1), MANIFESTS[1][:2])
    with pytest.raises(SuiteInputError, match="sha256 mismatch"):
        observations_from_logs([path])


def test_not_a_log_is_refused(tmp_path):
    junk = tmp_path / "x.eval"
    junk.write_text("hello")
    with pytest.raises(SuiteInputError, match="not a readable inspect eval log"):
        observations_from_logs([junk])


PROBLEMS = [
    ("Mia has 4 boxes with 6 pens in each box. She gives away 5 pens. How many pens does she have left?", "19"),
    ("A farmer picks 12 apples a day for 5 days and sells 20 of them. How many apples are left?", "40"),
    ("Tom reads 15 pages on Monday and twice as many on Tuesday. How many pages did he read in total?", "45"),
    ("A shop sells pencils at 3 dollars each. Lena buys 7 pencils and pays with 50 dollars. What is her change?", "29"),
    ("Sam runs 3 miles every morning and 2 miles every evening. How many miles does he run in 6 days?", "30"),
    (
        "There are 28 students in a class and 4 of them are absent. Each present student gets 2 books. How many books are handed out?",
        "48",
    ),
]


def test_frail_pairs_reads_a_real_glassgsm_log(tmp_path, scripted, capsys):
    """The integration contract: glass-build -> glassgsm eval (scripted solver) -> `frail pairs`."""
    from glass_inspect.corpus import read_pool
    from glass_inspect.corpus.cli import main as glass_build
    from glass_inspect.task import glassgsm

    source = tmp_path / "gsm.jsonl"
    source.write_text("".join(json.dumps({"question": q, "answer": f"Work.\n#### {a}"}) + "\n" for q, a in PROBLEMS))
    corpus = tmp_path / "corpus"
    assert glass_build(
        [
            "--suite",
            "gsm",
            "--source",
            str(source),
            "--out",
            str(corpus),
            "--doses",
            "1,3",
            "--surface-twins",
            "2",
            "--max-distractors",
            "2",
        ]
    ) in (0, None)
    capsys.readouterr()
    pool = sorted(read_pool(corpus), key=lambda r: -len(r.text))
    broken = {r.text_id for r in pool if r.role == "twin" and r.operator == "irrelevant_context"}

    def reply(prompt):
        record = next(r for r in pool if r.text in prompt)
        return f"Thinking.\nANSWER: {'0' if record.text_id in broken else record.answer}"

    [log] = eval(
        glassgsm(corpus=str(corpus), doses="1,3"),
        model=scripted(reply),
        epochs=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    out = tmp_path / "pairs.jsonl"
    assert main(["pairs", log.location, "--out", str(out)]) == 0
    rows = read_pairs(out)
    assert rows and {r.dose for r in rows} == {1, 3}
    for r in rows:  # every base is solved; exactly the distractor twins break
        assert r.y_base == 1.0 and r.y_twin == (0.0 if r.family == "irrelevant_context" else 1.0)
