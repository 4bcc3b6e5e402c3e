"""All draws of a prompt inside one sample (``-T layout=sample``; issue 20): one request with ``num_choices`` where
the provider returns several choices, concurrent per-draw requests where it does not; the same Y, metrics and Frail
observations (Y, B, pi, probes) as the epochs layout; cache, identity twins and eval-retry.

The hand-made corpus and draws are those of ``test_glass_eval`` (values computed by hand there)."""

from __future__ import annotations

import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatCompletionChoice,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model,
    modelapi,
)
from test_glass_eval import (  # same directory (pytest's rootdir-relative import)
    DRAWS,
    EPOCHS,
    EXPECTED_Y,
    RETRY_SCRIPT,
    TEXTS,
    draw_model,
    metric_values,
    reply,
    run,
    write_corpus,
)

from frail.estimands import job_targets, observations_frame
from frail.logs import observations_from_logs
from frail.probes import collect_probes_from_logs
from glass_inspect.solvers import draw_seed
from glass_inspect.task import glassgsm


def choices_model(draws: dict[str, list[str | None]], calls: list[tuple[str, int, int]]):
    """A provider that honours ``num_choices``: the request's seed names (sample, first draw); it returns that
    draw and the next ``num_choices - 1`` of the sample, one choice each. ``calls``: (sample, first draw, n)."""
    seeds = {draw_seed(None, sid, d): (sid, d) for sid in draws for d in range(1, EPOCHS + 1)}

    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        sid, first = seeds[config.seed]
        n = config.num_choices or 1
        calls.append((sid, first, n))
        choices = [
            ChatCompletionChoice(message=reply(draws[sid][d - 1]).message, stop_reason="stop")
            for d in range(first, min(first + n, EPOCHS + 1))
        ]
        return ModelOutput(
            model="mockllm/model",
            choices=choices,
            usage=ModelUsage(input_tokens=1, output_tokens=n, total_tokens=1 + n),
        )

    return get_model("mockllm/model", custom_outputs=outputs, memoize=False)


def reduced(log) -> dict[str, float]:
    return {s.sample_id: s.value for s in log.reductions[0].samples}


def sample_task(corpus, **kwargs):
    return glassgsm(corpus=str(corpus), doses="1,3", layout="sample", **kwargs)


def test_one_request_per_prompt_when_the_provider_returns_choices(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    calls: list[tuple[str, int, int]] = []
    log = run(sample_task(corpus), choices_model(DRAWS, calls), tmp_path)
    assert log.status == "success" and log.eval.task_version == "7-A"
    assert sorted(calls) == sorted((sid, 1, EPOCHS) for sid in TEXTS)  # one request per prompt, draws 1..5
    assert len(log.samples) == len(TEXTS) and {s.epoch for s in log.samples} == {1}
    assert reduced(log) == {k: float(v) for k, v in EXPECTED_Y.items()}
    assert {"layout": "sample", "draws": EPOCHS, "choices": "auto"}.items() <= log.eval.metadata["glass"].items()

    sample = next(s for s in log.samples if s.id == "g1-so")
    assert len(sample.output.choices) == EPOCHS  # every draw kept in the sample
    score = sample.scores["glass_match"]
    assert score.metadata["answers"] == DRAWS["g1-so"] and score.metadata["correct"] == [1.0, 0, 0, 0, 0]
    assert score.metadata["requests"] == 1 and score.metadata["tie"]
    assert score.explanation == "modal answer '8' (2/5 draws, tie); gold '7'; draws: 7, 8, 8, 9, 9"
    record = sample.output.metadata["sample_draws"]
    assert record["requests"] == 1 and record["num_choices"] == EPOCHS
    assert [d["draw"] for d in record["draws"]] == [1, 2, 3, 4, 5] and {d["request"] for d in record["draws"]} == {1}
    none = next(s for s in log.samples if s.id == "g2-er").scores["glass_match"]
    assert none.explanation.endswith("draws: " + ", ".join(["no answer"] * 5)) and none.value == 0.0


@pytest.mark.parametrize("choices", ["auto", "false"])
def test_without_choices_support_each_draw_is_its_own_request(tmp_path, choices):
    corpus = write_corpus(tmp_path / "corpus")
    calls: list[tuple[str, int]] = []
    log = run(sample_task(corpus, choices=choices), draw_model(DRAWS, calls), tmp_path)
    assert log.status == "success"
    # auto: the num_choices request returns one choice (draw 1), draws 2..5 follow; false: 5 single requests
    assert sorted(calls) == sorted((sid, d) for sid in TEXTS for d in range(1, EPOCHS + 1))
    assert reduced(log) == {k: float(v) for k, v in EXPECTED_Y.items()}
    sample = next(s for s in log.samples if s.id == "g1-ic")
    assert sample.scores["glass_match"].metadata["answers"] == DRAWS["g1-ic"]
    assert sample.output.metadata["sample_draws"]["requests"] == EPOCHS


def test_choices_true_fails_a_sample_whose_provider_returns_one_choice(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    log = run(sample_task(corpus, choices=True), draw_model(DRAWS, []), tmp_path, fail_on_error=False, limit=1)
    assert log.samples[0].error and "num_choices=5 and got 1 choice" in log.samples[0].error.message


def test_frail_reads_both_layouts_into_the_same_observations(tmp_path):
    """Same Y, B and pi (and probes) from a log with one draw per epoch and from logs with in-sample draws."""
    corpus = write_corpus(tmp_path / "corpus")
    logs = {
        "epochs": run(glassgsm(corpus=str(corpus), doses="1,3"), draw_model(DRAWS, []), tmp_path / "e"),
        "choices": run(sample_task(corpus), choices_model(DRAWS, []), tmp_path / "c"),
        "concurrent": run(sample_task(corpus, choices=False), draw_model(DRAWS, []), tmp_path / "s"),
    }
    assert len(logs["epochs"].samples) == len(TEXTS) * EPOCHS and len(logs["choices"].samples) == len(TEXTS)
    metrics = {name: metric_values(log) for name, log in logs.items()}
    assert metrics["choices"] == metrics["epochs"] == metrics["concurrent"]

    obs, jobs, probes = {}, {}, {}
    for name, log in logs.items():
        rows, _ = observations_from_logs([log.location])
        obs[name] = sorted((r.base_id, r.twin_id, r.dose, r.y_base, r.y_twin, r.y_base_epoch_mean) for r in rows)
        frame = observations_frame(rows, include_identity=True)
        obs[name + "_B"] = sorted(zip(frame["base_id"], frame["twin_id"], frame["dose"], frame["B"], strict=False))
        jobs[name] = job_targets(observations_frame(rows))[["y_base", "n_twins", "n_breaks", "pi", "y_base_epoch_mean"]]
        probes[name] = collect_probes_from_logs([log.location]).probes
    assert obs["epochs"] == obs["choices"] == obs["concurrent"]
    assert obs["epochs_B"] == obs["choices_B"] == obs["concurrent_B"]
    assert sum(b for *_, b in obs["epochs_B"]) == 4  # g1-so (m3), g2-er (m3), the identity twin g1-id (m1, m3)
    for name in ("choices", "concurrent"):
        assert jobs[name].equals(jobs["epochs"])
    assert (
        jobs["epochs"].loc["g1", "pi"] == pytest.approx(1 / 4) and jobs["epochs"].loc["g1", "y_base_epoch_mean"] == 0.6
    )
    assert probes["epochs"] == probes["choices"] == probes["concurrent"]
    assert probes["epochs"]["g1"]["modal_share"] == pytest.approx(0.6)


def test_cache_replays_in_sample_draws_and_identity_twins_keep_their_own(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "corpus")
    for i, model_of in enumerate((lambda calls: choices_model(DRAWS, calls), lambda calls: draw_model(DRAWS, calls))):
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / f"cache{i}"))
        first: list = []
        log = run(sample_task(corpus), model_of(first), tmp_path, cache=True)
        answers = {s.id: s.scores["glass_match"].metadata["answers"] for s in log.samples}
        assert answers["g1-id"] == DRAWS["g1-id"] != DRAWS["g1"] == answers["g1"]  # not served g1's draws
        assert len({c[0] for c in first}) == len(TEXTS)
        again: list = []
        log2 = run(sample_task(corpus), model_of(again), tmp_path, cache=True)
        assert again == []  # every request (with or without num_choices) replayed from the cache
        assert {s.id: s.scores["glass_match"].metadata["answers"] for s in log2.samples} == answers


def test_eval_retry_re_asks_every_draw_of_a_failed_prompt(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    first: list[tuple[str, int]] = []
    RETRY_SCRIPT.update(draws=DRAWS, calls=first, fail={"g2-er"})
    log = run(sample_task(corpus), "glassdraws/model", tmp_path, fail_on_error=False)
    assert {s.id for s in log.samples if s.error} == {"g2-er"}

    second: list[tuple[str, int]] = []
    RETRY_SCRIPT.update(calls=second, fail=set())
    [retried] = eval_retry(log.location, display="none", log_dir=str(tmp_path / "logs"))
    assert retried.status == "success"
    assert sorted(second) == [("g2-er", d) for d in range(1, EPOCHS + 1)]  # the whole prompt, nothing else
    full = read_eval_log(retried.location)
    assert reduced(full) == {k: float(v) for k, v in EXPECTED_Y.items()}
    assert metric_values(full)["break_rate"] == pytest.approx(2 / 7)


def test_epochs_override_pools_the_draws_of_every_epoch(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    calls: list[tuple[str, int, int]] = []
    log = run(
        glassgsm(corpus=str(corpus), doses="1,3", layout="sample", draws=2),
        choices_model(DRAWS, calls),
        tmp_path,
        epochs=2,
    )  # like --epochs 2: two epochs of two draws
    assert sorted(calls) == sorted((sid, d, 2) for sid in TEXTS for d in (1, 3))  # epoch 2 holds draws 3-4
    g1 = next(s for s in log.reductions[0].samples if s.sample_id == "g1-so")
    assert g1.metadata["answers"] == DRAWS["g1-so"][:4] and g1.metadata["requests"] == 2


def test_bad_layout_or_choices_fail_clearly(tmp_path):
    from causal_suite.errors import SuiteInputError

    corpus = write_corpus(tmp_path / "corpus")
    with pytest.raises(SuiteInputError, match="layout 'samples'"):
        glassgsm(corpus=str(corpus), layout="samples")
    with pytest.raises(SuiteInputError, match="choices 'maybe'"):
        glassgsm(corpus=str(corpus), layout="sample", choices="maybe")
    with pytest.raises(SuiteInputError, match="whole number >= 1"):
        glassgsm(corpus=str(corpus), layout="sample", draws=0)
    with pytest.raises(SuiteInputError, match="pass --epochs N"):  # the draws of the epochs layout are its epochs
        glassgsm(corpus=str(corpus), draws=3)
    with pytest.raises(SuiteInputError, match="has no parameter 'epochs': .*--epochs N.*-T draws=N"):
        glassgsm(corpus=str(corpus), epochs=2)


@pytest.mark.offline_model
def test_offline_model_draws_every_answer_in_one_request(tmp_path):
    """End to end on the offline model (several choices per request, a seed each): one request per prompt."""
    [log] = eval(
        glassgsm(layout="sample", draws=3),
        model="offline/gemma-3-270m",
        limit=2,
        max_tokens=6,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success" and len(log.samples) == 2
    for sample in log.samples:
        assert len(sample.output.choices) == 3
        assert sample.output.metadata["sample_draws"]["requests"] == 1
        assert len([e for e in sample.events if e.event == "model"]) == 1
        score = sample.scores["glass_match"]
        assert len(score.metadata["answers"]) == 3 and score.value in (0.0, 1.0)


def test_a_sample_layout_log_rescores_to_the_same_scores(tmp_path, capsys):
    from causal_suite.cli import main as cli_main

    corpus = write_corpus(tmp_path / "corpus")
    log = run(sample_task(corpus), choices_model(DRAWS, []), tmp_path)
    out = tmp_path / "rescored.eval"
    assert cli_main(["score", log.location, "--out", str(out)]) == 0
    rescored = read_eval_log(str(out))
    scores = {
        s.id: (s.scores["glass_match"].value, s.scores["glass_match"].metadata["answers"]) for s in rescored.samples
    }
    assert scores == {s.id: (s.scores["glass_match"].value, DRAWS[s.id]) for s in log.samples}


FLAKY: dict = {}


class FlakyDraws(ModelAPI):
    """``flakydraws/...``: one request per draw (no num_choices); fails the draws listed in FLAKY["fail"]."""

    def __init__(self, model_name: str, base_url=None, api_key=None, config=GenerateConfig(), **model_args):
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:
        seeds = {draw_seed(None, sid, d): (sid, d) for sid in DRAWS for d in range(1, EPOCHS + 1)}
        sid, d = seeds[config.seed]
        if (sid, d) in FLAKY["fail"]:
            raise RuntimeError(f"simulated provider failure on draw {d} of {sid}")
        FLAKY["calls"].append((sid, d))
        return reply(DRAWS[sid][d - 1])


@modelapi(name="flakydraws")
def flakydraws() -> type[ModelAPI]:
    return FlakyDraws


def test_with_the_cache_a_retry_re_asks_only_the_failed_request(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    corpus = write_corpus(tmp_path / "corpus")
    FLAKY.update(calls=[], fail={("g1-so", 3)})
    log = run(sample_task(corpus, choices=False), "flakydraws/model", tmp_path, fail_on_error=False, cache=True)
    assert {s.id for s in log.samples if s.error} == {"g1-so"}
    assert sorted(d for sid, d in FLAKY["calls"] if sid == "g1-so") == [1, 2, 4, 5]  # the others finished

    FLAKY.update(calls=[], fail=set())
    [retried] = eval_retry(log.location, display="none", log_dir=str(tmp_path / "logs"))
    assert retried.status == "success" and FLAKY["calls"] == [("g1-so", 3)]
    assert reduced(read_eval_log(retried.location)) == {k: float(v) for k, v in EXPECTED_Y.items()}
