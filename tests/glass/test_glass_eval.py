"""End-to-end tests of the glassgsm / glassmath tasks on a tiny hand-made corpus (values computed by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, ModelUsage, get_model, modelapi

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from glass_inspect.corpus import PairRecord, TextRecord, manifest_path, write_jsonl
from glass_inspect.solvers import draw_seed
from glass_inspect.task import glassgsm, glassmath

EPOCHS = 5
APPLES = "Ann has 3 apples and buys 4 more. How many apples does Ann have now?"
PENS = "A box holds 12 pens. Tom buys 2 boxes. How many pens does Tom have?"
CAKES = "A cake costs $5. How much do 3 cakes cost?"
TEXTS = {  # text_id: (base_id, operator, injection_size, text)
    "g1": ("g1", "base", 0, APPLES),
    "g1-er": ("g1", "entity_rename", 0, APPLES.replace("Ann", "Bea")),
    "g1-so": ("g1", "sentence_reorder", 0, "Ann buys 4 apples after having 3. How many apples does Ann have now?"),
    "g1-ic": ("g1", "irrelevant_context", 1, APPLES.replace("more.", "more. The shop opens at 9.")),
    "g1-id": ("g1", "identity", 0, APPLES),
    "g2": ("g2", "base", 0, PENS),
    "g2-er": ("g2", "entity_rename", 0, PENS.replace("Tom", "Sam")),
    "g2-ic": ("g2", "irrelevant_context", 2, PENS.replace("boxes.", "boxes. The bus is red. It rains.")),
    "g2-id": ("g2", "identity", 0, PENS),
    "g3": ("g3", "base", 0, CAKES),
    "g3-so": ("g3", "sentence_reorder", 0, "How much do 3 cakes cost, if a cake costs $5?"),
    "g3-id": ("g3", "identity", 0, CAKES),
}
GOLD = {"g1": "7", "g2": "24", "g3": "15"}
MANIFESTS = {
    1: ["g1-er", "g1-id", "g2-ic", "g2-id", "g3-so", "g3-id"],
    3: ["g1-er", "g1-so", "g1-ic", "g1-id", "g2-er", "g2-ic", "g2-id", "g3-so", "g3-id"],
}
# per-draw final answers (None = a reply with no number); Y by hand in the comment
DRAWS = {
    "g1": ["7", "7", "7", "8", "9"],  # Y=1
    "g1-er": ["7"] * 5,  # Y=1
    "g1-so": ["7", "8", "8", "9", "9"],  # tie 8/9 -> 8 (drawn first) -> Y=0: a break
    "g1-ic": ["7", "3", "5", "7", "6"],  # modal 7 -> Y=1 (the "mode" of C/I would be I)
    "g1-id": ["7", "2", "2", "2", "7"],  # Y=0: the identity twin breaks by re-sampling alone
    "g2": ["24"] * 5,  # Y=1
    "g2-er": [None] * 5,  # no answer in any draw -> Y=0: a break
    "g2-ic": ["24", "24", "24", "1", "2"],  # Y=1
    "g2-id": ["24"] * 5,  # Y=1
    "g3": ["16"] * 5,  # Y=0: unsolved base, its pairs leave the solvable stratum
    "g3-so": ["15"] * 5,  # Y=1 (does not count: base unsolved)
    "g3-id": ["16"] * 5,  # Y=0
}
EXPECTED_Y = {
    "g1": 1,
    "g1-er": 1,
    "g1-so": 0,
    "g1-ic": 1,
    "g1-id": 0,
    "g2": 1,
    "g2-er": 0,
    "g2-ic": 1,
    "g2-id": 1,
    "g3": 0,
    "g3-so": 1,
    "g3-id": 0,
}


def record(text_id: str, suite: str = "gsm") -> TextRecord:
    base_id, op, size, text = TEXTS[text_id]
    return TextRecord(
        text_id=text_id,
        base_id=base_id,
        role="base" if op == "base" else "twin",
        operator=op,
        injection_size=size,
        seed=7,
        text=text,
        answer=GOLD[base_id],
        complexity_score=0.3,
        category=suite,
        suite=suite,
    )


def write_corpus(
    root: Path, suite: str = "gsm", pool: list[TextRecord] | None = None, manifests: dict[int, list[str]] | None = None
) -> Path:
    """A glass-build-shaped corpus directory (corpus.json, pool.jsonl, manifests/m{d}.jsonl)."""
    pool = pool if pool is not None else [record(t, suite) for t in TEXTS]
    manifests = manifests if manifests is not None else MANIFESTS
    by_id = {r.text_id: r for r in pool}
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.json").write_text(
        json.dumps({"schema": 1, "suite": suite, "seed": 7, "doses": sorted(manifests), "audited": True})
    )
    write_jsonl(root / "pool.jsonl", pool)
    for dose, twins in manifests.items():
        pairs = [
            PairRecord(
                by_id.get(t, record("g1")).base_id,
                t,
                by_id.get(t, record("g1")).operator,
                by_id.get(t, record("g1")).injection_size,
                dose,
            )
            for t in twins
        ]
        write_jsonl(manifest_path(root, dose), pairs)
    return root


def reply(answer: str | None) -> ModelOutput:
    text = "Let me think step by step.\nANSWER: " + answer if answer else "I am not sure how to do this."
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def draw_model(draws: dict[str, list[str | None]], calls: list[tuple[str, int]], fail: set[str] = frozenset()):
    """A mock model answering draw (sample id, epoch) from ``draws``: it recognises the draw by its seed."""
    seeds = {draw_seed(None, sid, e): (sid, e) for sid in draws for e in range(1, EPOCHS + 1)}

    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        sid, epoch = seeds[config.seed]
        if sid in fail:
            raise RuntimeError(f"simulated provider failure on {sid}")
        calls.append((sid, epoch))
        return reply(draws[sid][epoch - 1])

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


RETRY_SCRIPT: dict = {}


class RetryDraws(ModelAPI):
    """A registered provider (``glassdraws/...``) so that ``eval_retry`` can rebuild the model from the log."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config=GenerateConfig(), **model_args):
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        api = draw_model(RETRY_SCRIPT["draws"], RETRY_SCRIPT["calls"], RETRY_SCRIPT["fail"]).api  # read per call
        return await api.generate(input, tools, tool_choice, config)


@modelapi(name="glassdraws")
def glassdraws() -> type[ModelAPI]:
    return RetryDraws


def run(task, model, tmp_path: Path, **kwargs):
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path / "logs"), **kwargs)
    return log


def metric_values(log) -> dict[str, float]:
    [score] = log.results.scores
    return {name.split("/")[-1]: m.value for name, m in score.metrics.items()}


def test_end_to_end_break_metrics(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    calls: list[tuple[str, int]] = []
    log = run(glassgsm(corpus=str(corpus), doses="1,3"), draw_model(DRAWS, calls), tmp_path)
    assert log.status == "success"

    # one sample per unique text, identity twins apart; every draw is one call
    assert sorted({s.id for s in log.samples}) == sorted(TEXTS)
    assert len(calls) == len(set(calls)) == len(TEXTS) * EPOCHS

    [reductions] = log.reductions
    assert reductions.reducer == "modal_answer"
    y = {s.sample_id: s.value for s in reductions.samples}
    assert y == {k: float(v) for k, v in EXPECTED_Y.items()}
    g2er = next(s for s in reductions.samples if s.sample_id == "g2-er")
    assert g2er.answer is None and g2er.metadata["no_answer"] and g2er.metadata["answers"] == [None] * 5
    g1so = next(s for s in reductions.samples if s.sample_id == "g1-so")
    assert g1so.answer == "8" and g1so.metadata["tie"] and g1so.metadata["answers"] == DRAWS["g1-so"]

    m = metric_values(log)
    assert m["base_accuracy"] == pytest.approx(2 / 3)
    assert m["break_rate"] == pytest.approx(2 / 7)  # 7 solvable non-identity pairs, 2 breaks
    assert m["break_rate_entity_rename"] == pytest.approx(1 / 3)
    assert m["break_rate_sentence_reorder"] == pytest.approx(1.0)
    assert m["break_rate_irrelevant_context"] == pytest.approx(0.0)
    assert m["break_rate_m1"] == pytest.approx(0.0)
    assert m["break_rate_m3"] == pytest.approx(2 / 5)
    assert m["mean_pi"] == pytest.approx((1 / 4 + 1 / 3) / 2)
    assert m["fragile_fraction"] == pytest.approx(1.0)
    assert m["identity_floor"] == pytest.approx(2 / 4)

    glass = log.eval.metadata["glass"]
    assert glass["suite"] == "gsm" and glass["corpus"] == str(corpus) and glass["doses"] == [1, 3]
    assert glass["manifests"] == [
        {"dose": d, "path": str(manifest_path(corpus, d)), "sha256": sha256_file(manifest_path(corpus, d))}
        for d in (1, 3)
    ]
    assert log.eval.task_version == "7-A"  # from glass_inspect/eval.yaml

    sample = next(s for s in log.samples if s.id == "g1-ic" and s.epoch == 1)
    assert sample.metadata["doses"] == [3] and sample.metadata["operator"] == "irrelevant_context"
    assert sample.metadata["metadata_version"] == 1 and sample.metadata["answer"] == "7"
    assert sample.input == TEXTS["g1-ic"][3]
    assert "ANSWER: <number>" in sample.messages[0].text and sample.messages[0].text.endswith(sample.input)
    assert sample.scores["glass_match"].answer == "7"


def test_identity_twins_get_their_own_draws_even_with_the_cache_on(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    corpus = write_corpus(tmp_path / "corpus")
    calls: list[tuple[str, int]] = []
    log = run(glassgsm(corpus=str(corpus), doses="1,3"), draw_model(DRAWS, calls), tmp_path, cache=True)
    assert log.status == "success"
    assert len(calls) == len(TEXTS) * EPOCHS  # the identity twin g1-id was not served g1's draws
    draws = {(s.id, s.epoch): s.scores["glass_match"].answer for s in log.samples}
    assert [draws[("g1-id", e)] for e in range(1, 6)] == DRAWS["g1-id"] != DRAWS["g1"]

    again: list[tuple[str, int]] = []
    log2 = run(glassgsm(corpus=str(corpus), doses="1,3"), draw_model(DRAWS, again), tmp_path, cache=True)
    assert again == []  # a second cached run asks nothing ...
    assert {(s.id, s.epoch): s.scores["glass_match"].answer for s in log2.samples} == draws  # ... and agrees


def test_generate_calls_equal_unique_prompts_times_epochs(tmp_path, scripted):
    corpus = write_corpus(tmp_path / "corpus")
    model = scripted(lambda prompt: "ANSWER: 7")
    log = run(glassgsm(corpus=str(corpus), doses="1,3"), model, tmp_path, epochs=2)  # like --epochs 2
    assert log.reductions[0].reducer == "modal_answer"  # overriding the epoch count keeps the reducer
    # the log says what ran: 2 draws in the eval config, no task argument claiming 5 (the viewer's header shows both)
    assert log.eval.config.epochs == 2 and "epochs" not in log.eval.task_args
    assert {s.epoch for s in log.samples} == {1, 2}
    pairs = sum(len(t) for t in MANIFESTS.values())
    assert len(log.samples) == len(TEXTS) * 2
    assert len(model.prompts) == len(TEXTS) * 2 < (pairs + 3) * 2  # 12 texts, not 15 pairs + 3 bases
    counts = {p: model.prompts.count(p) for p in set(model.prompts)}
    assert len(counts) == len(TEXTS) - 3  # the 3 identity twins repeat their base's prompt on purpose
    assert sorted(counts.values()) == [2] * (len(TEXTS) - 6) + [4] * 3  # base texts: base + identity twin


def test_dataset_has_one_sample_per_text_and_keeps_identity_twins(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    samples = {s.id: s for s in glassgsm(corpus=str(corpus), doses="1,3").dataset}
    assert sorted(samples) == sorted(TEXTS)
    assert samples["g1-er"].metadata["doses"] == [1, 3] and samples["g1-so"].metadata["doses"] == [3]
    assert samples["g1"].metadata["doses"] == [1, 3] and samples["g1-id"].input == samples["g1"].input
    assert set(samples["g1"].metadata) >= {
        "text_id",
        "base_id",
        "role",
        "operator",
        "injection_size",
        "complexity_score",
        "category",
        "answer",
        "metadata_version",
    }


def test_a_non_identity_twin_repeating_another_text_is_answered_once(tmp_path, scripted):
    pool = [record(t) for t in TEXTS]
    clash = TextRecord(**{**record("g1-so").__dict__, "text_id": "g1-so2", "seed": 8})
    corpus = write_corpus(
        tmp_path / "corpus", pool=[*pool, clash], manifests={1: MANIFESTS[1] + ["g1-so2"], 3: MANIFESTS[3]}
    )
    samples = {s.id: s for s in glassgsm(corpus=str(corpus), doses="1,3").dataset}
    assert "g1-so2" not in samples
    assert [m["text_id"] for m in samples["g1-so"].metadata["same_text"]] == ["g1-so2"]
    assert samples["g1-so"].metadata["same_text"][0]["doses"] == [1]
    calls: list[tuple[str, int]] = []
    log = run(glassgsm(corpus=str(corpus), doses="1,3"), draw_model(DRAWS, calls), tmp_path)
    assert len(calls) == len(TEXTS) * EPOCHS
    # g1-so broke g1 at dose 3; its copy g1-so2 now breaks it at dose 1 too: m1 = 1 break / 3 pairs
    assert metric_values(log)["break_rate_m1"] == pytest.approx(1 / 3)
    assert metric_values(log)["break_rate"] == pytest.approx(3 / 8)


def test_eval_retry_completes_a_half_finished_log(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    first: list[tuple[str, int]] = []
    RETRY_SCRIPT.update(draws=DRAWS, calls=first, fail={"g2-er"})
    log = run(glassgsm(corpus=str(corpus), doses="1,3"), "glassdraws/model", tmp_path, fail_on_error=False)
    assert {s.id for s in log.samples if s.error} == {"g2-er"}
    assert len(first) == (len(TEXTS) - 1) * EPOCHS

    second: list[tuple[str, int]] = []
    RETRY_SCRIPT.update(calls=second, fail=set())
    [retried] = eval_retry(log.location, display="none", log_dir=str(tmp_path / "logs"))
    assert retried.status == "success"
    assert sorted(second) == [("g2-er", e) for e in range(1, EPOCHS + 1)]  # only what was not answered
    full = read_eval_log(retried.location)
    assert {s.sample_id: s.value for s in full.reductions[0].samples} == {k: float(v) for k, v in EXPECTED_Y.items()}
    assert metric_values(full)["break_rate"] == pytest.approx(2 / 7)


def test_families_and_identity_switch_select_samples(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    task = glassgsm(corpus=str(corpus), doses=3, families="entity_rename", identity=False)
    ids = [s.id for s in task.dataset]
    assert ids == ["g1", "g1-er", "g2", "g2-er"]
    assert task.metadata["glass"]["manifests"][0]["dose"] == 3


def test_math_task_reads_a_math_corpus(tmp_path, scripted):
    pool = [record(t, "math") for t in ("g1", "g1-er")]
    corpus = write_corpus(tmp_path / "corpus", "math", pool, {1: ["g1-er"]})
    model = scripted("So we get \\boxed{\\dfrac{14}{2}}.")
    log = run(glassmath(corpus=str(corpus), doses=1), model, tmp_path, epochs=1)
    assert [s.value for s in log.reductions[0].samples] == [1.0, 1.0]
    assert "\\boxed{<final answer>}" in log.samples[0].messages[0].text


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda root: (root / "pool.jsonl").unlink(), "pool.jsonl' does not exist"),
        (lambda root: (root / "corpus.json").unlink(), "is not a glass corpus"),
        (lambda root: manifest_path(root, 3).unlink(), "m3.jsonl' does not exist"),
        (
            lambda root: manifest_path(root, 1).write_text(
                manifest_path(root, 1).read_text().replace('"g1-er"', '"g9-er"')
            ),
            "names text id 'g9-er'",
        ),
        (lambda root: manifest_path(root, 1).write_text('{"base_id": "g1"}\n'), r"lacks field\(s\)"),
    ],
)
def test_bad_corpus_fails_before_any_model_call(tmp_path, damage, message):
    corpus = write_corpus(tmp_path / "corpus")
    damage(corpus)
    with pytest.raises(SuiteInputError, match=message):
        glassgsm(corpus=str(corpus), doses="1,3")


def test_bad_parameters_fail_clearly(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    with pytest.raises(SuiteInputError, match=r"dose\(s\) \[5\] are not in this corpus"):
        glassgsm(corpus=str(corpus), doses="1,5")
    with pytest.raises(SuiteInputError, match="suite is 'gsm'"):
        glassmath(corpus=str(corpus))
    with pytest.raises(SuiteInputError, match="choose from"):
        glassgsm(corpus=str(corpus), families="typo_family")
    with pytest.raises(SuiteInputError, match="not a list of integers"):
        glassgsm(corpus=str(corpus), doses="one")
    with pytest.raises(SuiteInputError, match="does not exist"):
        glassgsm(corpus=str(tmp_path / "nowhere"))


@pytest.mark.offline_model
@pytest.mark.slow
def test_default_corpus_runs_with_the_offline_model(tmp_path):
    [log] = eval(
        glassgsm(),
        model="offline/gemma-3-270m",
        limit=2,
        epochs=1,
        max_tokens=24,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success" and len(log.samples) == 2
    assert log.eval.metadata["glass"]["suite"] == "gsm"
    assert all(s.scores["glass_match"].value in (0.0, 1.0) for s in log.samples)
