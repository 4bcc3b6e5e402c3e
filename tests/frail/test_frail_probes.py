"""Base probes and the text_probe protocol (§2 "Two protocols, never merged", §7 Step 4): features hand-computed on
a scripted glass log, the from-pairs fallback, every bad probe input, `frail report --protocol both` and the
save -> evaluate round trip of a text_probe model."""

import json
import math
from collections import Counter

import numpy as np
import pytest
from inspect_ai import Epochs, Task, eval
from inspect_ai.scorer import Score, mean, scorer
from inspect_ai.solver import generate

from causal_suite.errors import SuiteInputError
from frail.cli import main
from frail.models.pi import FrailPi
from frail.pairs import read_pairs, write_pairs
from frail.probes import (
    PROBE_FEATURES,
    ProbeSet,
    collect_probes_from_logs,
    probes_from_pairs,
    read_probes,
    write_probes,
)
from frail.synth import generate_bernoulli
from glass_inspect.corpus import PairRecord, TextRecord
from glass_inspect.dataset import build_samples
from glass_inspect.scorers import glass_match, modal_answer


def _text(tid, base, role, op):
    return TextRecord(
        text_id=tid,
        base_id=base,
        role=role,
        operator=op,
        injection_size=0,
        seed=0,
        text=f"[{tid}] How many things are there?",
        answer="7",
        complexity_score=0.5,
        category="gsm",
        suite="gsm",
    )


POOL = {
    r.text_id: r
    for b in ("b1", "b2", "b3")
    for r in (_text(b, b, "base", "base"), _text(f"{b}-t1", b, "twin", "entity_rename"))
}
PAIRS = {1: [PairRecord(b, f"{b}-t1", "entity_rename", 0, 1) for b in ("b1", "b2", "b3")]}
# the four draws of each prompt (served in call order; the features do not depend on the order)
DRAWS = {
    "[b1]": ["ANSWER: 7", "ANSWER: 7.0", "ANSWER: 6", "I am not sure."],  # 7.0 is the answer 7
    "[b1-t1]": ["ANSWER: 1"] * 4,
    "[b2]": ["ANSWER: 7"] * 4,
    "[b3]": ["ANSWER: 5"] * 3 + ["ANSWER: 9"],
}


def _replies():
    served = Counter()

    def reply(prompt):
        key = next(k for k in DRAWS if k in prompt)
        served[key] += 1
        return DRAWS[key][(served[key] - 1) % 4]

    return reply


def _glass_log(tmp_path, model, ids=("b1", "b1-t1", "b2", "b3"), epochs=4, score=None, name="logs"):
    samples = [s for s in build_samples(POOL, PAIRS) if s.id in ids]
    task = Task(
        dataset=samples,
        solver=generate(),
        scorer=score() if score else glass_match("gsm"),
        epochs=Epochs(epochs, modal_answer()),
        version=1,
    )
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path / name))
    assert log.status == "success"
    return log.location


def _entropy(*shares):
    return -sum(p * math.log(p) for p in shares)


def test_probe_features_from_a_scripted_glass_log(tmp_path, scripted, capsys):
    log = _glass_log(tmp_path, scripted(_replies()))
    out = tmp_path / "probes.json"
    assert main(["probes", log, "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["bases"] == 3
    probes = read_probes(out)
    assert probes.solver == "mockllm/model" and probes.n_samples == 4 and probes.features == list(PROBE_FEATURES)
    assert probes.sources == [log] and set(probes.probes) == {"b1", "b2", "b3"}  # twins are never probed
    expected = {  # b1: answers 7, 7, 6, none -> three categories (the no-answer draw is its own)
        "b1": {
            "accuracy": 0.5,
            "modal_share": 0.5,
            "answer_entropy": _entropy(0.5, 0.25, 0.25),
            "distinct_answers": 0.75,
            "no_answer_rate": 0.25,
        },
        "b2": {
            "accuracy": 1.0,
            "modal_share": 1.0,
            "answer_entropy": 0.0,
            "distinct_answers": 0.25,
            "no_answer_rate": 0.0,
        },
        "b3": {
            "accuracy": 0.0,
            "modal_share": 0.75,
            "answer_entropy": _entropy(0.75, 0.25),
            "distinct_answers": 0.5,
            "no_answer_rate": 0.0,
        },
    }
    for base, features in expected.items():
        assert probes.probes[base] == pytest.approx(features), base
    assert json.loads(out.read_text())["format"] == "frail-base-probes"


@scorer(metrics=[mean()], name="glass_match")
def failing_glass_match():
    """A glass_match whose extraction fails on b3's last draw (a machinery failure: unscored)."""

    async def score(state, target):
        answer = state.output.completion.removeprefix("ANSWER: ")
        if answer == "9":
            return Score.unscored(reason="scoring_failed")
        return Score(value=float(answer == "7"), answer=answer)

    return score


@scorer(metrics=[mean()], name="other_match")
def other_scorer():
    async def score(state, target):
        return Score(value=1.0)

    return score


def test_bad_logs_are_refused_and_unscored_bases_dropped(tmp_path, scripted):
    four = _glass_log(tmp_path, scripted(_replies()), ids=("b1", "b2"), name="a")
    two = _glass_log(tmp_path, scripted(_replies()), ids=("b3",), epochs=2, name="b")
    with pytest.raises(SuiteInputError, match=r"different draw counts \(2 for 'b3'.*4 for 'b[12]'.*not comparable"):
        collect_probes_from_logs([four, two])
    other = _glass_log(tmp_path, scripted(_replies(), name="other"), ids=("b3",), name="c")
    with pytest.raises(SuiteInputError, match="scored by 'mockllm/other' but an earlier log by 'mockllm/model'"):
        collect_probes_from_logs([four, other])
    with pytest.raises(SuiteInputError, match="not from a glass task"):
        collect_probes_from_logs(
            [_glass_log(tmp_path, scripted(_replies()), ids=("b2",), score=other_scorer, name="d")]
        )
    failing = _glass_log(tmp_path, scripted(_replies()), ids=("b2", "b3"), score=failing_glass_match, name="e")
    probes = collect_probes_from_logs([failing, four])  # b2 from the first log that has it, b1 from the second
    assert set(probes.probes) == {"b1", "b2"} and probes.counts == {
        "excluded_unscored_bases": 1,
        "bases_already_probed": 1,
    }


def test_probes_from_pairs_and_its_refusals(tmp_path, capsys):
    rows, _ = generate_bernoulli(12, twins_per_dose=1, seed=2)
    probes = probes_from_pairs(rows)
    assert probes.features == ["accuracy"] and probes.n_samples is None and probes.solver == "synth-cd"
    assert probes.probes == {r.base_id: {"accuracy": r.y_base_epoch_mean} for r in rows}
    rows[0].y_base_epoch_mean = None
    bad = tmp_path / "no_epochs.jsonl"
    write_pairs(bad, [r for r in rows if r.base_id == rows[0].base_id])
    assert main(["probes", str(bad), "--out", str(tmp_path / "p.json")]) == 2
    assert "carry no y_base_epoch_mean for 1 of 1 bases" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()
    for r in rows:
        r.solver = ""
    with pytest.raises(SuiteInputError, match="name no solver"):
        probes_from_pairs([r for r in rows if r.y_base_epoch_mean is not None])
    assert main(["probes", str(bad), "x.eval", "--out", str(tmp_path / "p.json")]) == 2
    assert "not both" in capsys.readouterr().err


def _probe_json(drop=(), **changes):
    raw = {
        "format": "frail-base-probes",
        "version": 1,
        "solver": "s",
        "sources": [],
        "n_samples": 5,
        "features": ["accuracy", "modal_share"],
        "probes": {"b1": {"accuracy": 0.4, "modal_share": 0.6}},
    }
    raw.update(changes)
    return json.dumps({k: v for k, v in raw.items() if k not in drop})


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "is not valid JSON"),
        (_probe_json(format="other"), "field 'format' is 'other'"),
        (_probe_json(version=2), "field 'version' is 2"),
        (_probe_json(drop=("solver",)), "lacks field(s) solver"),
        (
            _probe_json(probes={"b1": {"accuracy": "high", "modal_share": 0.5}}),
            "base 'b1': field 'accuracy' should be a number",
        ),
        (_probe_json(probes={"b1": {"accuracy": 0.5}}), "base 'b1': field 'modal_share' is missing"),
        (_probe_json(n_samples=0), "field 'n_samples' must be a positive integer"),
    ],
)
def test_bad_probe_files_fail_in_one_sentence(tmp_path, text, message):
    path = tmp_path / "probes.json"
    path.write_text(text)
    with pytest.raises(SuiteInputError, match="probe file '.*probes.json'") as err:
        read_probes(path)
    assert message in str(err.value)


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    """60 Synth-CD jobs and a five-feature probe file for them (Synth-CD simulates no per-draw answers: accuracy is
    the base pass rate, the other four features are seeded uniform noise)."""
    root = tmp_path_factory.mktemp("synth")
    rows, _ = generate_bernoulli(60, twins_per_dose=2, seed=5)
    write_pairs(root / "synth.jsonl", rows)
    rng = np.random.default_rng(0)
    bases = sorted({r.base_id: r.y_base_epoch_mean for r in rows}.items())
    probes = {b: {f: float(acc if f == "accuracy" else rng.uniform()) for f in PROBE_FEATURES} for b, acc in bases}
    write_probes(root / "probes.json", ProbeSet("synth-cd", [], 5, list(PROBE_FEATURES), probes))
    return root


def test_report_protocol_both_writes_two_separate_reports(synth, tmp_path, capsys):
    out = tmp_path / "rep"
    assert (
        main(
            [
                "report",
                "--pairs",
                str(synth / "synth.jsonl"),
                "--protocol",
                "both",
                "--probe-file",
                str(synth / "probes.json"),
                "--featurizer",
                "hashing",
                "--seeds",
                "0",
                "--max-epochs",
                "4",
                "--out",
                str(out),
                "--quiet",
                "--save-models",
            ]
        )
        == 0
    )
    text, probe = (json.loads((out / p / "summary.json").read_text()) for p in ("text", "text_probe"))
    assert text["protocol"] == "text" and "probes" not in text and "probe_only" not in text["aggregate"]["spearman"]
    assert probe["protocol"] == "text_probe" and "probe_only" in probe["aggregate"]["spearman"]
    assert probe["probes"]["solver"] == "synth-cd" and len(probe["probes"]["sha256"]) == 64
    assert probe["probes"]["coverage"] == {"pair_bases": 60, "covered": 60, "probe_bases": 60}
    for p in ("text", "text_probe"):
        assert (out / p / "report.md").exists() and (out / p / "pi_scatter.png").exists()
    combined = (out / "report.md").read_text()
    assert combined.rstrip("\n") == capsys.readouterr().out.rstrip("\n")
    text_at, probe_at = combined.index("## Protocol `text`:"), combined.index("## Protocol `text_probe`:")
    assert text_at < probe_at and "probe_only" in combined[probe_at:] and "probe_only" not in combined[:probe_at]
    both = json.loads((out / "summary.json").read_text())
    assert both["protocol"] == "both" and set(both["protocols"]) == {"text", "text_probe"}
    assert both["protocols"]["text_probe"]["spearman"] == probe["aggregate"]["spearman"]
    assert "- protocol: `text` (problem statement only)" in (out / "text" / "report.md").read_text()

    # Frail-π's input: the 1024 hashing columns, plus the five probe columns under text_probe, standardised with
    # the training fold's mean and sd
    text_model, _ = FrailPi.load(out / "text/models/frail_pi_seed0.pt")
    probe_model, _ = FrailPi.load(out / "text_probe/models/frail_pi_seed0.pt")
    assert text_model.head.in_dim == 1024 and text_model.protocol == "text"
    assert probe_model.head.in_dim == 1024 + 5 and probe_model.probe.features == list(PROBE_FEATURES)
    train = json.loads((out / "text_probe/models/frail_pi_seed0.pt.split.json").read_text())["train_ids"]
    values = read_probes(synth / "probes.json").frame(train)
    np.testing.assert_allclose(probe_model.probe.mean, values.mean().to_numpy())
    np.testing.assert_allclose(probe_model.probe.sd, values.std(ddof=0).to_numpy())

    # save -> evaluate: the saved text_probe model reproduces its report's test-fold Spearman with the probe file
    args = ["evaluate", "--pairs", str(synth / "synth.jsonl"), "--seed", "0", "--model"]
    assert (
        main(args + [str(out / "text_probe/models/frail_pi_seed0.pt"), "--probe-file", str(synth / "probes.json")]) == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["protocol"] == "text_probe"
    assert result["spearman"]["pi"] == pytest.approx(probe["per_seed"][0]["spearman"]["frail_pi"]["pi"])
    accuracy_only = tmp_path / "accuracy.json"
    write_probes(accuracy_only, probes_from_pairs(read_pairs(synth / "synth.jsonl")))
    assert main(args + [str(out / "text_probe/models/frail_pi_seed0.pt"), "--probe-file", str(accuracy_only)]) == 2
    assert "lacks the feature(s) modal_share, answer_entropy" in capsys.readouterr().err
    assert main(args + [str(out / "text_probe/models/frail_pi_seed0.pt")]) == 2
    assert "trained under the text_probe protocol: pass" in capsys.readouterr().err
    assert main(args + [str(out / "text/models/frail_pi_seed0.pt"), "--probe-file", str(synth / "probes.json")]) == 2
    assert "trained under the text protocol" in capsys.readouterr().err


def test_report_refuses_bad_probe_inputs_before_writing(synth, tmp_path, capsys):
    pairs = str(synth / "synth.jsonl")
    probes = json.loads((synth / "probes.json").read_text())
    other = tmp_path / "other_solver.json"
    other.write_text(json.dumps({**probes, "solver": "gpt-x"}))
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({**probes, "probes": dict(list(probes["probes"].items())[3:])}))
    first = sorted(probes["probes"])[:3]
    cases = [
        (["--protocol", "text_probe"], "--protocol text_probe needs the base probes: pass --probe-file"),
        (["--protocol", "both"], "--protocol both needs the base probes"),
        (["--probe-file", str(synth / "probes.json")], "--probe-file is read by --protocol text_probe or both"),
        (
            ["--protocol", "both", "--probe-file", str(other)],
            "holds draws of solver 'gpt-x' but the pairs were scored by 'synth-cd'",
        ),
        (
            ["--protocol", "text_probe", "--probe-file", str(partial)],
            f"lacks 3 of the 60 bases of the pairs (e.g. {', '.join(map(repr, first))})",
        ),
        (["--protocol", "text_probe", "--probe-file", str(tmp_path / "absent.json")], "probe file"),
    ]
    for extra, message in cases:
        out = tmp_path / "rep"
        assert main(["report", "--pairs", pairs, "--out", str(out), "--quiet", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert not out.exists()
