"""``causal-suite score LOG``: a log re-scored with its own scorers and recorded arguments gives the same scores."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from causal_suite.cli import main as cli_main
from causal_suite.errors import SuiteInputError
from causal_suite.rescore import inspect_command, log_scorers


def glass_log(scripted, log_dir, limit: int):
    """A scripted glassgsm run of ``limit`` samples, two draws each."""
    [log] = eval(
        "glass_inspect/glassgsm",
        model=scripted("The answer is 18."),
        limit=limit,
        epochs=2,
        display="none",
        log_dir=str(log_dir),
    )
    return log


def glass_scores(location) -> dict:
    return {(s.id, s.epoch): s.scores["glass_match"].value for s in read_eval_log(str(location)).samples}


def test_glass_log_rescored_in_place_gives_the_same_scores(scripted, tmp_path, capsys):
    log = glass_log(scripted, tmp_path, 12)
    before = glass_scores(log.location)
    out = tmp_path / "rescored.eval"
    assert cli_main(["score", log.location, "--out", str(out)]) == 0
    assert "--scorer glass_inspect/glass_match -S suite=gsm" in capsys.readouterr().out
    rescored = read_eval_log(str(out))
    assert glass_scores(out) == before
    assert rescored.results.scores[0].metrics.keys() == log.results.scores[0].metrics.keys()


def test_a_log_of_another_task_is_one_sentence(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match

    [log] = eval(
        Task(dataset=[Sample(input="1+1?", target="2")], scorer=match()),
        model="scripted/x",
        display="none",
        log_dir=str(tmp_path),
    )
    with pytest.raises(SuiteInputError, match="not one of the suite's"):
        log_scorers(read_eval_log(log.location))
    assert inspect_command(read_eval_log(log.location), tmp_path / "x.eval").startswith("inspect score")


def test_plain_inspect_score_finds_the_suites_scorers(scripted, tmp_path):
    """``inspect score LOG`` with no --scorer: inspect looks the log's scorers up by their bare names, which the
    suite registers beside the package-qualified ones (``causal_suite.inspect_compat.register_bare_scorers``)."""
    import subprocess
    import sys
    from pathlib import Path

    from inspect_ai._util.registry import registry_lookup

    for bare in ("glass_match", "noop_verdict", "cobe_judge", "exp_a_scorer", "exp_b_scorer"):
        assert registry_lookup("scorer", bare) is not None, bare
    log = glass_log(scripted, tmp_path, 6)
    out = tmp_path / "plain.eval"
    inspect_cli = Path(sys.executable).with_name("inspect")
    done = subprocess.run(
        [str(inspect_cli), "score", log.location, "--action", "overwrite", "--output-file", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert glass_scores(out) == glass_scores(log.location)


# ---------------------------------------------------------------- streamed re-scoring (issue 27)


@pytest.fixture(scope="module")
def small_logs(tmp_path_factory, scripted_factory):
    """One scripted glassgsm run (8 samples x 2 epochs, some right, some wrong) as ``.eval`` and as ``.json``."""
    out = {}
    for fmt in ("eval", "json"):
        [log] = eval(
            "glass_inspect/glassgsm",
            model=scripted_factory(lambda prompt: "The answer is 7." if len(prompt) % 3 == 0 else "The answer is 11."),
            limit=8,
            epochs=2,
            display="none",
            log_dir=str(tmp_path_factory.mktemp(fmt)),
            log_format=fmt,
        )
        out[fmt] = log.location
    return out


def whole_log_rescore(location: str, action: str):
    """The old path: the whole log in memory through inspect's ``score`` (what ``causal-suite score`` did)."""
    from inspect_ai import score

    log = read_eval_log(location)
    return score(log, log_scorers(log), action=action, display="none")


def sample_scores(log) -> list:
    return [(s.id, s.epoch, {k: v.model_dump() for k, v in s.scores.items()}) for s in log.samples]


def results_of(log) -> str:
    """Totals, metrics and reductions as JSON (NaN written as NaN, so equal NaNs compare equal)."""
    metrics = [(s.name, s.reducer, {k: m.value for k, m in s.metrics.items()}) for s in log.results.scores]
    reductions = [r.model_dump() for r in log.reductions]
    totals = (log.results.total_samples, log.results.completed_samples)
    return json.dumps([totals, metrics, reductions], sort_keys=True, default=str)


@pytest.mark.parametrize("fmt", ["eval", "json"])
@pytest.mark.parametrize("append", [False, True])
def test_streamed_rescore_writes_what_the_whole_log_rescore_gave(small_logs, tmp_path, fmt, append):
    from causal_suite.rescore import rescore

    old = whole_log_rescore(small_logs[fmt], "append" if append else "overwrite")
    out = tmp_path / f"streamed.{fmt}"
    header = rescore(small_logs[fmt], append=append, out=out)
    new = read_eval_log(str(out))
    assert header.samples is None and results_of(header) == results_of(new)
    assert len(new.samples) == 16 and sample_scores(new) == sample_scores(old)
    assert results_of(new) == results_of(old)
    assert {v for _, _, s in sample_scores(new) for v in (s["glass_match"]["value"],)} == {0.0, 1.0}
    if append:
        assert all(len(s.scores) == 2 and "glass_match" in s.scores for s in new.samples)  # old and new beside it


def test_the_writer_empties_its_buffer_into_the_zip_as_it_goes(small_logs, tmp_path, monkeypatch):
    """16 samples in batches of 3 (WRITE_BATCH is 256: a small log never reaches it): the log is the same."""
    from causal_suite import inspect_compat
    from causal_suite.rescore import rescore

    flushes = []
    real_add = inspect_compat.EvalLogWriter.add

    async def counting_add(self, sample):
        await real_add(self, sample)
        flushes.append(self._held == 0)

    monkeypatch.setattr(inspect_compat, "WRITE_BATCH", 3)
    monkeypatch.setattr(inspect_compat.EvalLogWriter, "add", counting_add)
    rescore(small_logs["eval"], out=tmp_path / "batched.eval")
    new, old = read_eval_log(str(tmp_path / "batched.eval")), whole_log_rescore(small_logs["eval"], "overwrite")
    assert sum(flushes) == 16 // 3 and sample_scores(new) == sample_scores(old) and results_of(new) == results_of(old)


def test_streamed_rescore_opens_the_log_once_and_lists_its_members_once(small_logs, tmp_path, monkeypatch):
    from causal_suite import logs
    from causal_suite.rescore import rescore

    opened, listed = [], []
    real_zip, real_names = logs.zipfile.ZipFile, logs.eval_zip_sample_names

    def counting_zip(file, *args, **kwargs):
        opened.append(str(file))
        return real_zip(file, *args, **kwargs)

    def counting_names(archive):
        listed.append(archive)
        return real_names(archive)

    monkeypatch.setattr(logs.zipfile, "ZipFile", counting_zip)
    monkeypatch.setattr(logs, "eval_zip_sample_names", counting_names)
    rescore(small_logs["eval"], out=tmp_path / "once.eval")
    assert opened == [small_logs["eval"]] and len(listed) == 1


def test_a_failing_scorer_leaves_the_log_whole_and_no_file_behind(small_logs, tmp_path, monkeypatch):
    import dataclasses

    from inspect_ai.scorer import mean, scorer

    from causal_suite import rescore as rescore_module
    from causal_suite.rescore import rescore
    from glass_inspect._registry import SUITE_BENCHMARK

    log = tmp_path / "keep.eval"
    log.write_bytes(open(small_logs["eval"], "rb").read())
    before = log.read_bytes()

    @scorer(metrics=[mean()], name="broken_match")
    def glass_match(suite: str):  # the name the log records, so score takes it for the glass scorer
        async def score(state, target):
            raise RuntimeError("scorer broke")

        return score

    broken = dataclasses.replace(SUITE_BENCHMARK, scorers=(glass_match,))
    monkeypatch.setattr(rescore_module, "benchmark_of", lambda task: broken)
    with pytest.raises(RuntimeError, match="scorer broke"):
        rescore(log)
    assert log.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["keep.eval"]


def test_in_order_writes_in_file_order_and_holds_at_most_the_window():
    import anyio

    from causal_suite.rescore import InOrder

    order, written, held, most = InOrder(window=3), [], set(), [0]

    async def one(index: int) -> None:
        await order.may_read(index)
        held.add(index)
        most[0] = max(most[0], len(held))
        await anyio.sleep(0.001 * ((7 * index) % 5))  # later samples often finish first

        async def add(sample) -> None:
            written.append(sample)
            held.discard(sample)

        await order.write(index, index, add)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(one, i)

    anyio.run(main)
    assert written == list(range(20)) and 1 < most[0] <= 3
