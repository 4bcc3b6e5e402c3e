"""Hostile bad input to every reader and task constructor: does each case fail with one sentence before any sample
runs (issue 'Security: ... sandbox limits, cleanup and bad input', the bad-input part)?

    .venv/bin/python benchmarks/bad_input_table.py [--full]

Each case writes a tiny valid input into a fresh temporary folder (a CoBe file, a glass corpus, a CausalVerify
scenario folder in our and in upstream's layout with cached responses, Exp A contexts, Frail pair / probe files),
damages one thing (bytes that are not UTF-8, a directory where a file belongs, an empty file, a wrong JSON type,
NaN / inf, an out-of-range value, a path leaving its folder) and calls the task constructor (``cobe``,
``glassgsm``, ``exp_b``, ``exp_a``) or the reader. Outcome: ``sentence`` (a one-line SuiteInputError), ``multi-line``
(a SuiteInputError over several lines), ``traceback`` (any other exception) or ``accepted`` (no error). Prints one
row per case and the totals; ``--full`` prints whole messages. Needs no model, R or network.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from causalverify_inspect.dataset import exp_a_dataset
from causalverify_inspect.task import exp_b
from cobe_inspect.agreement import read_labels
from cobe_inspect.task import cobe
from frail.pairs import read_pairs
from frail.probes import read_probes
from frail.splits import read_sidecar, sidecar_path
from glass_inspect.corpus import PairRecord, TextRecord, manifest_path, write_corpus_dir
from glass_inspect.corpus.labeled_pairs import read_labeled_pairs
from glass_inspect.corpus.sources import load_source
from glass_inspect.task import glassgsm

BAD_UTF8 = b"caf\xe9"  # latin-1 bytes: not UTF-8
Case = tuple[str, str, Callable[[Path], object]]


def _edit_jsonl(path: Path, lineno: int, **changes) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[lineno - 1] = json.dumps(json.loads(lines[lineno - 1]) | changes)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _as_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


# --------------------------------------------------------------------------------------------------------- CoBe
COBE_RECORD = {
    "Core Set ID": 7,
    "Variation ID": 2,
    "Domain": "Everyday",
    "Story": "The kettle boiled, so Ida made tea.",
    "Query": ["Had the kettle broken?", "If the kettle had broken?", "Had it broken?"],
    "Illustrative answer (not scored)": "Ida drank water.",
    "Evaluation criteria": ["Ida wanted a drink.", "The kettle boiled."],
}


def _cobe(name: str, content: bytes | None) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        path = tmp / name
        path.mkdir() if content is None else path.write_bytes(content)
        return cobe(data=str(path))

    return run


def _cobe_field(**changes) -> bytes:
    return json.dumps([COBE_RECORD | changes]).encode()


def _judge(content: bytes | None) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        path = tmp / "judge.json"
        path.mkdir() if content is None else path.write_bytes(content)
        return cobe(judge_prompts=str(path))

    return run


def _labels(content: bytes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        (tmp / "labels.csv").write_bytes(content)
        return read_labels(tmp / "labels.csv")

    return run


COBE_CASES: list[Case] = [
    (
        "cobe",
        "data: JSONL with a non-UTF-8 line",
        _cobe("d.jsonl", json.dumps(COBE_RECORD).encode() + b"\n" + BAD_UTF8),
    ),
    ("cobe", "data: JSON array, non-UTF-8 byte", _cobe("d.json", b'[{"Story": "' + BAD_UTF8 + b'"}]')),
    ("cobe", "data: a directory", _cobe("d.json", None)),
    ("cobe", "data: empty file", _cobe("d.json", b"")),
    ("cobe", "data: one multi-line JSON object", _cobe("d.json", b'{\n"Story": 1\n}')),
    ("cobe", "data: a record that is a string", _cobe("d.json", b'["record"]')),
    ("cobe", "data: Story is a number", _cobe("d.json", _cobe_field(Story=5))),
    ("cobe", "data: Query is a string", _cobe("d.json", _cobe_field(Query="one"))),
    ("cobe", "data: Core Set ID is 1.5", _cobe("d.json", _cobe_field(**{"Core Set ID": 1.5}))),
    ("cobe", "data: criteria are numbers", _cobe("d.json", _cobe_field(**{"Evaluation criteria": [1, 2]}))),
    ("cobe", "judge prompts: non-UTF-8", _judge(b'{"E0": "' + BAD_UTF8 + b' $response_text"}')),
    ("cobe", "judge prompts: a directory", _judge(None)),
    ("cobe", "judge prompts: E0 is a number", _judge(b'{"E0": 5}')),
    ("cobe", "agreement labels: non-UTF-8", _labels(b"sample_id,human\n1v1-A," + BAD_UTF8 + b"\n")),
]


# -------------------------------------------------------------------------------------------------------- glass
def _corpus(root: Path) -> Path:
    """A two-base gsm corpus with entity-rename and identity twins and one dose manifest (m1)."""
    texts = {
        "g1": "Ann has 3 apples and buys 4 more. How many apples does Ann have?",
        "g2": "A box holds 12 pens. Tom buys 2 boxes. How many pens does Tom have?",
    }
    pool, pairs = [], []
    for base, text in texts.items():
        common = dict(
            base_id=base,
            seed=1,
            answer="7" if base == "g1" else "24",
            complexity_score=0.3,
            category="gsm",
            suite="gsm",
        )
        pool += [
            TextRecord(text_id=base, role="base", operator="base", injection_size=0, text=text, **common),
            TextRecord(
                text_id=f"{base}-er",
                role="twin",
                operator="entity_rename",
                injection_size=0,
                text=text.replace("Ann", "Bea").replace("Tom", "Sam"),
                **common,
            ),
            TextRecord(text_id=f"{base}-id", role="twin", operator="identity", injection_size=0, text=text, **common),
        ]
        pairs += [
            PairRecord(base, f"{base}-er", "entity_rename", 0, 1),
            PairRecord(base, f"{base}-id", "identity", 0, 1),
        ]
    return write_corpus_dir(root, pool, {1: pairs}, {"schema": 1, "suite": "gsm", "seed": 1, "doses": [1]}, False)


def _glass(damage: Callable[[Path], object]) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        corpus = _corpus(tmp / "corpus")
        damage(corpus)
        return glassgsm(corpus=str(corpus), doses="1")

    return run


def _pool(**changes) -> Callable[[Path], object]:
    return _glass(lambda c: _edit_jsonl(c / "pool.jsonl", 2, **changes))


def _pair_file(**changes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        row = {
            "base_id": "b1",
            "twin_id": "b1-t",
            "operator": "math_irrelevant_context_m3",
            "base_text": "A has 2.",
            "twin_text": "A has 2. It rains.",
            "complexity_score": 0.4,
            "answer": "2",
        }
        (tmp / "mix_m3_pairs.jsonl").write_text(json.dumps(row | changes) + "\n")
        return read_labeled_pairs(tmp / "mix_m3_pairs.jsonl")

    return run


def _source(name: str, content: bytes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        (tmp / name).write_bytes(content)
        return load_source("gsm", str(tmp / name))

    return run


GLASS_CASES: list[Case] = [
    ("glass", "pool: complexity_score '0.3'", _pool(complexity_score="0.3")),
    ("glass", "pool: complexity_score 7.5", _pool(complexity_score=7.5)),
    ("glass", "pool: complexity_score NaN", _pool(complexity_score=float("nan"))),
    ("glass", "pool: injection_size 1.5", _pool(injection_size=1.5)),
    ("glass", "pool: injection_size '2'", _pool(injection_size="2")),
    ("glass", "pool: injection_size -1", _pool(injection_size=-1)),
    ("glass", "pool: text is a number", _pool(text=12)),
    ("glass", "pool: answer is a number", _pool(answer=7)),
    ("glass", "pool: level '5'", _pool(level="5")),
    (
        "glass",
        "pool: non-UTF-8 line",
        _glass(lambda c: (c / "pool.jsonl").write_bytes(b'{"text": "' + BAD_UTF8 + b'"}')),
    ),
    ("glass", "pool: a directory", _glass(lambda c: _as_directory(c / "pool.jsonl"))),
    ("glass", "pool: empty file", _glass(lambda c: (c / "pool.jsonl").write_text(""))),
    ("glass", "manifest: dose '1'", _glass(lambda c: _edit_jsonl(manifest_path(c, 1), 1, dose="1"))),
    ("glass", "manifest: a line holding a list", _glass(lambda c: manifest_path(c, 1).write_text("[1]\n"))),
    ("glass", "corpus.json: not JSON", _glass(lambda c: (c / "corpus.json").write_text("{schema"))),
    ("glass", "corpus.json: a list", _glass(lambda c: (c / "corpus.json").write_text("[]"))),
    (
        "glass",
        "corpus.json: doses ['one']",
        _glass(lambda c: (c / "corpus.json").write_text('{"schema": 1, "suite": "gsm", "doses": ["one"]}')),
    ),
    ("glass", "corpus: a file, not a folder", lambda tmp: glassgsm(corpus=str(_corpus(tmp / "c") / "pool.jsonl"))),
    ("glass", "LabeledPair: injection_size '3'", _pair_file(injection_size="3")),
    ("glass", "LabeledPair: complexity 'high'", _pair_file(complexity_score="high")),
    ("glass", "build source: non-UTF-8 JSONL", _source("s.jsonl", b'{"question": "' + BAD_UTF8 + b'"}\n')),
    ("glass", "build source: broken .json", _source("s.json", b'{"test": [')),
    ("glass", "build source: corrupt parquet", _source("s.parquet", b"not parquet")),
]


# ------------------------------------------------------------------------------------------------- CausalVerify
def _rdd_frame(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, n).round(4)
    return pd.DataFrame(
        {
            "running_var": x,
            "treated": (x >= 0.5).astype(int),
            "y": (0.3 * x + 0.25 * (x >= 0.5) + rng.normal(0, 0.1, n)).round(4),
        }
    )


def _scenario(sid: str, **changes) -> dict:
    return {
        "scenario_id": sid,
        "family": "RDD",
        "difficulty": "easy",
        "title": "t",
        "research_question": "q",
        "data_description": "d",
        "data_file": f"data/{sid}.csv",
        "true_effect": 0.25,
        "direction": "positive",
        "canonical": {"estimate": 0.25, "se": 0.02, "n": 120, "spec": "local linear"},
        "ground_truth": {},
        "design": {"cutoff": 0.5, "treated_side": "above", "bandwidth": 0.3},
    } | changes


IDS = ("r1", "r2", "r3")


def _ours(root: Path, **changes) -> Path:
    """Three RDD scenarios r1-r3 in causalverify-data's layout; ``changes`` apply to r2's record."""
    (root / "data").mkdir(parents=True)
    for sid in IDS:
        _rdd_frame().to_csv(root / "data" / f"{sid}.csv", index=False)
    records = [_scenario(sid, **(changes if sid == "r2" else {})) for sid in IDS]
    (root / "scenarios.json").write_text(json.dumps({"seed": 1, "scenarios": records}))
    return root


def _cv(damage: Callable[[Path], object] = lambda root: None, **changes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        root = _ours(tmp / "set", **changes)
        damage(root)
        return exp_b(scenarios=str(root))

    return run


def _csv(content: bytes | None) -> Callable[[Path], object]:
    path = "data/r2.csv"
    return _cv(lambda r: _as_directory(r / path) if content is None else (r / path).write_bytes(content))


def _linked_outside(root: Path) -> None:
    _rdd_frame().to_csv(root.parent / "outside.csv", index=False)
    (root / "data/r2.csv").unlink()
    os.symlink(root.parent / "outside.csv", root / "data/r2.csv")


def _upstream(damage: Callable[[Path], object] = lambda root: None, **changes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        folder = tmp / "experiments/exp_b/scenarios"
        folder.mkdir(parents=True)
        rec = {
            "scenario_id": "s01",
            "method_family": "RDD",
            "difficulty": "easy",
            "title": "t",
            "research_question": "q",
            "data_description": "d",
            "data_file": "experiments/exp_b/data/s01.csv",
            "dgp_truth": {"effect": 0.25, "direction": "positive"},
            "ground_truth": {},
        } | changes
        (folder / "s01.json").write_text(json.dumps(rec))
        (tmp / "experiments/exp_b/data").mkdir()
        _rdd_frame().to_csv(tmp / "experiments/exp_b/data/s01.csv", index=False)
        damage(tmp)
        return exp_b(scenarios=str(tmp))

    return run


def _responses(damage: Callable[[Path], object]) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        root = _ours(tmp / "set")
        folder = tmp / "responses"
        folder.mkdir()
        for sid in IDS:
            (folder / f"{sid}_m.json").write_text(json.dumps({"llm_response": {"content": "```r\ncat(1)\n```"}}))
        damage(folder / "r2_m.json")
        return exp_b(scenarios=str(root), responses=str(folder), responses_model="m")

    return run


def _exp_a(content: bytes) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        (tmp / "contexts.json").write_bytes(content)
        return exp_a_dataset(tmp / "contexts.json")

    return run


CV_CASES: list[Case] = [
    (
        "causalverify",
        "records: non-UTF-8",
        _cv(lambda r: (r / "scenarios.json").write_bytes(b'{"s": "' + BAD_UTF8 + b'"}')),
    ),
    ("causalverify", "records: a directory", _cv(lambda r: _as_directory(r / "scenarios.json"))),
    ("causalverify", "records: empty file", _cv(lambda r: (r / "scenarios.json").write_text(""))),
    ("causalverify", "record: true_effect 'big'", _cv(true_effect="big")),
    ("causalverify", "record: true_effect NaN", _cv(true_effect=float("nan"))),
    (
        "causalverify",
        "record: canonical estimate inf",
        _cv(canonical={"estimate": float("inf"), "se": 0.1, "n": 5, "spec": "s"}),
    ),
    ("causalverify", "record: title is a list", _cv(title=["t"])),
    ("causalverify", "record: data_file absolute", _cv(data_file="/etc/hostname")),
    ("causalverify", "record: data_file ../../", _cv(data_file="../../etc/hostname")),
    ("causalverify", "record: data_file linked outside", _cv(_linked_outside)),
    ("causalverify", "CSV: non-UTF-8", _csv(b"running_var,treated,y\n0.6,1," + BAD_UTF8 + b"\n")),
    ("causalverify", "CSV: a directory", _csv(None)),
    ("causalverify", "CSV: empty cell (NaN)", _csv(b"running_var,treated,y\n0.6,1,0.4\n0.3,0,\n")),
    ("causalverify", "CSV: 'nan' value", _csv(b"running_var,treated,y\n0.6,1,nan\n0.3,0,0.1\n")),
    ("causalverify", "CSV: inf value", _csv(b"running_var,treated,y\n0.6,1,0.4\ninf,0,0.1\n")),
    ("causalverify", "CSV: ragged rows", _csv(b"running_var,treated,y\n0.6,1,0.4\n0.3,0,0.1,9\n")),
    ("causalverify", "CSV: empty file", _csv(b"")),
    (
        "causalverify",
        "upstream: scenario JSON is a list",
        _upstream(lambda r: (r / "experiments/exp_b/scenarios/s01.json").write_text("[]")),
    ),
    ("causalverify", "upstream: data_file absolute", _upstream(data_file="/etc/hostname")),
    ("causalverify", "upstream: data_file ../", _upstream(data_file="../outside.csv")),
    (
        "causalverify",
        "upstream: canonicals not a list",
        _upstream(lambda r: (r / "audit").mkdir() or (r / "audit/dgp_verification.json").write_text('{"results": 1}')),
    ),
    (
        "causalverify",
        "upstream: CSV with NaN",
        _upstream(lambda r: (r / "experiments/exp_b/data/s01.csv").write_text("running_var,treated,y\n0.6,1,\n")),
    ),
    ("causalverify", "response: empty file among valid", _responses(lambda p: p.write_text(""))),
    ("causalverify", "response: not JSON", _responses(lambda p: p.write_text("{oops"))),
    (
        "causalverify",
        "response: content is a number",
        _responses(lambda p: p.write_text('{"llm_response": {"content": 3}}')),
    ),
    ("causalverify", "response: no llm_response", _responses(lambda p: p.write_text("{}"))),
    (
        "causalverify",
        "response: non-UTF-8",
        _responses(lambda p: p.write_bytes(b'{"llm_response": "' + BAD_UTF8 + b'"}')),
    ),
    ("causalverify", "response: a directory", _responses(_as_directory)),
    ("causalverify", "exp_a contexts: non-UTF-8", _exp_a(b'[{"paper_id": "' + BAD_UTF8 + b'"}]')),
    ("causalverify", "exp_a contexts: empty list", _exp_a(b"[]")),
    ("causalverify", "exp_a contexts: paper_id a list", _exp_a(b'[{"paper_id": ["a"]}]')),
]


# -------------------------------------------------------------------------------------------------------- Frail
PAIR = {
    "base_id": "b1",
    "twin_id": "b1-t",
    "operator": "entity_rename_m1",
    "complexity_score": 0.5,
    "base_text": "A has 2.",
    "twin_text": "B has 2.",
    "y_base_mean": 1.0,
    "delta_mean": 0.0,
}


def _frail_pairs(content: bytes | None) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        path = tmp / "p_m1_pairs.jsonl"
        path.mkdir() if content is None else path.write_bytes(content)
        return read_pairs(path)

    return run


def _pair_row(**changes) -> bytes:
    return (json.dumps(PAIR) + "\n" + json.dumps(PAIR | changes) + "\n").encode()


def _probes_dir(tmp: Path) -> object:
    (tmp / "probes.json").mkdir()
    return read_probes(tmp / "probes.json")


def _sidecar(tmp: Path) -> object:
    sidecar_path(tmp / "model.pt").write_text("{")
    return read_sidecar(tmp / "model.pt")


FRAIL_CASES: list[Case] = [
    ("frail", "pairs: base_text is a number", _frail_pairs(_pair_row(base_text=5))),
    ("frail", "pairs: injection_size '2'", _frail_pairs(_pair_row(injection_size="2"))),
    ("frail", "pairs: complexity_score 7.5", _frail_pairs(_pair_row(complexity_score=7.5))),
    ("frail", "pairs: dose '9'", _frail_pairs(_pair_row(dose="9"))),
    ("frail", "pairs: y_base_mean '1'", _frail_pairs(_pair_row(y_base_mean="1"))),
    ("frail", "pairs: non-UTF-8", _frail_pairs(b'{"base_text": "' + BAD_UTF8 + b'"}\n')),
    ("frail", "pairs: a directory", _frail_pairs(None)),
    ("frail", "pairs: empty file", _frail_pairs(b"")),
    ("frail", "probes: a directory", _probes_dir),
    ("frail", "split sidecar: not JSON", _sidecar),
]

CASES = COBE_CASES + GLASS_CASES + CV_CASES + FRAIL_CASES
CONTEXT = {"paper_id": "p1", "research_question": "q", "data_description": "d", "institutional_context": "c"}
#: The same builders undamaged: each must be accepted, so that every failure above comes from its one damage.
CONTROLS: list[Case] = [
    ("cobe", "valid data file", _cobe("d.json", _cobe_field())),
    ("cobe", "valid judge prompts", _judge(b'{"E0": "Check: $response_text"}')),
    ("glass", "valid corpus", _glass(lambda c: None)),
    ("glass", "valid LabeledPair file", _pair_file()),
    ("causalverify", "valid scenario folder", _cv()),
    ("causalverify", "valid upstream folder", _upstream()),
    ("causalverify", "valid cached responses", _responses(lambda p: None)),
    ("causalverify", "valid exp_a contexts", _exp_a(json.dumps([CONTEXT]).encode())),
    ("frail", "valid pair file", _frail_pairs(_pair_row())),
]


def outcome(run: Callable[[Path], object]) -> tuple[str, str]:
    """(outcome, message) of one case, run in a fresh temporary folder (its path shown as <tmp>)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            run(Path(tmp))
        except SuiteInputError as exc:
            text = str(exc).replace(str(Path(tmp).resolve()), "<tmp>").replace(tmp, "<tmp>")
            return ("multi-line" if "\n" in text.strip() else "sentence"), text
        except Exception as exc:  # noqa: BLE001 - a traceback is what this table looks for
            return "traceback", f"{type(exc).__name__}: {exc}"
    return "accepted", ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="print whole messages")
    args = parser.parse_args()
    for title, cases in (("bad input", CASES), ("controls (undamaged input)", CONTROLS)):
        totals: Counter[str] = Counter()
        print(f"{title}\n{'reader':13s} {'case':36s} {'outcome':10s} message")
        for reader, name, run in cases:
            result, message = outcome(run)
            totals[result] += 1
            print(f"{reader:13s} {name:36s} {result:10s} {message if args.full else message[:150]}")
        kinds = ("sentence", "multi-line", "traceback", "accepted")
        print(f"{title}: {len(cases)} cases: " + ", ".join(f"{totals[k]} {k}" for k in kinds) + "\n")


if __name__ == "__main__":
    main()
