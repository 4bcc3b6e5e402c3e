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

Issue 26 adds hostile files (a FIFO, a link to /dev/zero, a 1 GB sparse file, a JSON key given twice, JSON nested
100,000 deep) to every reader, bad ``-T`` values to every task, and every command line (``frail``, ``glass-build``,
``cobe-data``, ``causalverify-data``) run in-process: a command's outcome is ``sentence`` when it exits non-zero
with one line on stderr (argparse's usage line aside), ``traceback`` when an exception escapes it; and each
command case lists the output files a refusal left behind. A case still running after 20 s is a ``hang``; each case
may grow the address space by 3 GiB at most (so reading /dev/zero ends in a MemoryError, not a full machine).
Run it on an older checkout (``PYTHONPATH=<checkout>/src``) for the before table; ``--only TEXT`` runs a subset.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import signal
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from causal_suite.cli import main as suite_main
from causal_suite.errors import SuiteInputError
from causalverify_inspect.dataset import exp_a_dataset
from causalverify_inspect.scenarios.cli import main as cv_data_main
from causalverify_inspect.task import exp_a, exp_b
from cobe_inspect.agreement import read_labels
from cobe_inspect.records.convert import main as cobe_data_main
from cobe_inspect.task import cobe
from frail.cli import main as frail_main
from frail.models.pi import FrailPi
from frail.pairs import read_pairs
from frail.probes import read_probes
from frail.splits import read_sidecar, sidecar_path
from glass_inspect.corpus import PairRecord, TextRecord, manifest_path, write_corpus_dir
from glass_inspect.corpus.cli import main as glass_build_main
from glass_inspect.corpus.labeled_pairs import read_labeled_pairs
from glass_inspect.corpus.sources import load_source
from glass_inspect.task import glassgsm, noop_audit

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

# ------------------------------------------------------------------------------ hostile files (issue 26, item 1)
DEEP = 100_000  # nesting depth of the deep JSON cases: Python's parser raises RecursionError past about 1,000


def _deep(closing: bool = True) -> bytes:
    return b"[" * DEEP + (b"]" * DEEP if closing else b"")


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _to_zero(path: Path) -> None:
    path.unlink()
    os.symlink("/dev/zero", path)


def _sparse(path: Path, size: int = 10**9) -> None:
    """A file of ``size`` bytes of holes (no disk used): a 1 GB CSV for the readers."""
    with path.open("r+b") as fh:
        fh.truncate(size)


def _dup_key(path: Path, lineno: int, key: str, value: object) -> None:
    """Give the object opening on line ``lineno`` the key ``key`` a second time, first (Python's reader keeps the
    last value: the file's own, the one silently replacing it in the issue's cases sits after it)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[lineno - 1] = lines[lineno - 1].replace("{", "{" + f"{json.dumps(key)}: {json.dumps(value)}, ", 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cobe_file(damage: Callable[[Path], object]) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        path = tmp / "d.jsonl"
        path.write_text(json.dumps(COBE_RECORD) + "\n", encoding="utf-8")
        damage(path)
        return cobe(data=str(path))

    return run


def _frail_file(damage: Callable[[Path], object]) -> Callable[[Path], object]:
    def run(tmp: Path) -> object:
        path = tmp / "p_m1_pairs.jsonl"
        path.write_bytes(_pair_row())
        damage(path)
        return read_pairs(path)

    return run


def _judge_yaml(tmp: Path) -> object:
    (tmp / "judge.yaml").write_text("E0: 'Check $response_text'\nE0: 'Other $response_text'\n", encoding="utf-8")
    return cobe(judge_prompts=str(tmp / "judge.yaml"))


HOSTILE_CASES: list[Case] = [
    ("cobe", "data: 100k-deep JSON array", _cobe("d.json", _deep())),
    ("cobe", "data: FIFO", _cobe_file(_fifo)),
    ("cobe", "data: link to /dev/zero", _cobe_file(_to_zero)),
    ("cobe", "data: 1 GB sparse file", _cobe_file(_sparse)),
    ("cobe", "data: Story given twice", _cobe_file(lambda p: _dup_key(p, 1, "Story", "Other story."))),
    ("cobe", "judge prompts: YAML key twice", _judge_yaml),
    ("cobe", "judge prompts: 100k-deep JSON", _judge(_deep())),
    ("glass", "corpus.json: 100k deep", _glass(lambda c: (c / "corpus.json").write_bytes(_deep()))),
    ("glass", "corpus.json: FIFO", _glass(lambda c: _fifo(c / "corpus.json"))),
    ("glass", "corpus.json: suite twice", _glass(lambda c: _dup_key(c / "corpus.json", 1, "suite", "math"))),
    ("glass", "pool: 100k-deep line", _glass(lambda c: (c / "pool.jsonl").write_bytes(_deep()))),
    ("glass", "pool: FIFO", _glass(lambda c: _fifo(c / "pool.jsonl"))),
    ("glass", "pool: link to /dev/zero", _glass(lambda c: _to_zero(c / "pool.jsonl"))),
    ("glass", "pool: 1 GB sparse file", _glass(lambda c: _sparse(c / "pool.jsonl"))),
    ("glass", "pool: gold answer twice", _glass(lambda c: _dup_key(c / "pool.jsonl", 1, "answer", "8"))),
    ("glass", "manifest: FIFO", _glass(lambda c: _fifo(manifest_path(c, 1)))),
    ("glass", "build source: FIFO", lambda tmp: os.mkfifo(tmp / "s.jsonl") or load_source("gsm", str(tmp / "s.jsonl"))),
    ("glass", "build source: 100k-deep .json", _source("s.json", _deep())),
    ("causalverify", "records: 100k deep", _cv(lambda r: (r / "scenarios.json").write_bytes(_deep()))),
    ("causalverify", "records: FIFO", _cv(lambda r: _fifo(r / "scenarios.json"))),
    ("causalverify", "records: seed given twice", _cv(lambda r: _dup_key(r / "scenarios.json", 1, "seed", 2))),
    ("causalverify", "CSV: FIFO", _cv(lambda r: _fifo(r / "data/r2.csv"))),
    ("causalverify", "CSV: link to /dev/zero", _cv(lambda r: _to_zero(r / "data/r2.csv"))),
    ("causalverify", "CSV: 1 GB sparse", _cv(lambda r: _sparse(r / "data/r2.csv"))),
    (
        "causalverify",
        "upstream: scenario 100k deep",
        _upstream(lambda r: (r / "experiments/exp_b/scenarios/s01.json").write_bytes(_deep())),
    ),
    ("causalverify", "response: 100k deep", _responses(lambda p: p.write_bytes(_deep()))),
    ("causalverify", "response: FIFO", _responses(_fifo)),
    ("causalverify", "response: link to /dev/zero", _responses(_to_zero)),
    (
        "causalverify",
        "response: content twice",
        _responses(lambda p: p.write_text('{"llm_response": {"content": "```r\\ncat(1)\\n```", "content": "x"}}')),
    ),
    ("causalverify", "exp_a contexts: 100k deep", _exp_a(_deep())),
    ("frail", "pairs: 100k-deep line", _frail_pairs(_deep() + b"\n")),
    ("frail", "pairs: FIFO", _frail_file(_fifo)),
    ("frail", "pairs: link to /dev/zero", _frail_file(_to_zero)),
    ("frail", "pairs: 1 GB sparse", _frail_file(_sparse)),
    ("frail", "pairs: delta_mean twice", _frail_file(lambda p: _dup_key(p, 2, "delta_mean", 1.0))),
    ("frail", "saved model: FIFO", lambda tmp: os.mkfifo(tmp / "m.pt") or FrailPi.load(tmp / "m.pt")),
    ("frail", "saved model: not torch", lambda tmp: (tmp / "m.pt").write_bytes(b"junk") and FrailPi.load(tmp / "m.pt")),
    (
        "frail",
        "saved model: other torch file",
        lambda tmp: torch.save([1, 2], tmp / "m.pt") or FrailPi.load(tmp / "m.pt"),
    ),
]

# ------------------------------------------------------------------------------- task parameters (item 2)
PARAM_CASES: list[Case] = [
    (task.__name__, f"-T {label}", lambda tmp, task=task, args=args: task(**args))
    for task, label, args in [
        (exp_b, "timeout=0", {"timeout": 0}),
        (exp_b, "timeout=-5", {"timeout": -5}),
        (exp_b, "timeout=abc", {"timeout": "abc"}),
        (exp_b, "tolerance=abc", {"tolerance": "abc"}),
        (exp_b, "tolerance=0", {"tolerance": 0}),
        (exp_b, "calibration=2", {"calibration": 2}),
        (exp_b, "upstream_wrapper=maybe", {"upstream_wrapper": "maybe"}),
        (exp_b, "ids=''", {"ids": ""}),
        (exp_b, "ids=,", {"ids": ","}),
        (exp_b, "scenarios=true", {"scenarios": True}),
        (exp_a, "contexts=5", {"contexts": 5}),
        (cobe, "judge_retries=-1", {"judge_retries": -1}),
        (cobe, "judge_retries=abc", {"judge_retries": "abc"}),
        (cobe, "self_judge=maybe", {"self_judge": "maybe"}),
        (cobe, "judge_cache=2", {"judge_cache": 2}),
        (cobe, "tier=2.5", {"tier": 2.5}),
        (cobe, "data=true", {"data": True}),
        (glassgsm, "temperature=hot", {"temperature": "hot"}),
        (glassgsm, "temperature=-1", {"temperature": -1}),
        (glassgsm, "identity=2", {"identity": 2}),
        (glassgsm, "identity=maybe", {"identity": "maybe"}),
        (glassgsm, "layout=sample draws=-2", {"layout": "sample", "draws": -2}),
        (noop_audit, "retries=-1", {"retries": -1}),
        (noop_audit, "suite=algebra", {"suite": "algebra"}),
    ]
]

READER_CASES = COBE_CASES + GLASS_CASES + CV_CASES + FRAIL_CASES + HOSTILE_CASES + PARAM_CASES


# --------------------------------------------------------------------------------- every CLI (issue 26, item 1)
@dataclass(frozen=True)
class CliResult:
    """What one command run left: its exit status, its stderr and the output files it should not have left."""

    status: int
    stderr: str
    left: tuple[str, ...]


def _cli(
    main: Callable[[list[str]], int], argv: Callable[[Path], list[str]], *outputs: str
) -> Callable[[Path], object]:
    """Run ``main(argv(tmp))`` with its output captured; ``outputs`` are paths under tmp that must not exist after a
    refusal (a half-written or empty output file)."""

    def run(tmp: Path) -> CliResult:
        args = argv(tmp)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                status = main(args)
            except SystemExit as exc:  # argparse's usage errors
                status = exc.code if isinstance(exc.code, int) else 1
            except Exception as exc:  # noqa: BLE001 - what escapes a command is a traceback to its user
                status, err = 1, io.StringIO(f"Traceback (most recent call last):\n{type(exc).__name__}: {exc}")
        left = tuple(o for o in outputs if any(p.exists() for p in tmp.glob(o + "*")))
        return CliResult(status, err.getvalue(), left)

    return run


def _write(path: Path, content: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _made(path: Path, make: Callable[[Path], object]) -> str:
    make(path)
    return str(path)


GSM_SOURCE = "".join(
    json.dumps(
        {"question": f"Ann has {n} apples and buys 2 more. How many apples does Ann have?", "answer": f"#### {n + 2}"}
    )
    + "\n"
    for n in range(3, 6)
)


def _command(main: Callable[[list[str]], int]) -> Callable[..., Callable[[Path], object]]:
    """A case builder for one command: ``build(*argv_parts, outputs=(...))``, each part a string or a function of
    the case's folder."""

    def build(*argv_parts: str | Callable[[Path], str], outputs: tuple[str, ...] = ()) -> Callable[[Path], object]:
        return _cli(main, lambda tmp: [a(tmp) if callable(a) else a for a in argv_parts], *outputs)

    return build


_frail = _command(frail_main)
_glass_build = _command(glass_build_main)
_cobe_data = _command(cobe_data_main)
_cv_data = _command(cv_data_main)


def _pairs_file(damage: Callable[[Path], object] = lambda p: None) -> Callable[[Path], str]:
    return lambda tmp: _made(_write(tmp / "in_m1_pairs.jsonl", _pair_row()), damage)


def _out(name: str) -> Callable[[Path], str]:
    return lambda tmp: str(tmp / name)


def _corpus_arg(damage: Callable[[Path], object] = lambda c: None) -> Callable[[Path], str]:
    return lambda tmp: _made(_corpus(tmp / "corpus"), damage)


SYNTH = ("synth", "--out", _out("s.jsonl"))
CLI_CASES: list[Case] = [
    ("frail", "synth --n-jobs -5", _frail(*SYNTH, "--n-jobs", "-5", outputs=("s.",))),
    ("frail", "synth --n-jobs 1", _frail(*SYNTH, "--n-jobs", "1", outputs=("s.",))),
    ("frail", "synth --twins-per-dose 0", _frail(*SYNTH, "--n-jobs", "20", "--twins-per-dose", "0", outputs=("s.",))),
    ("frail", "synth --seed -1", _frail(*SYNTH, "--n-jobs", "20", "--seed", "-1", outputs=("s.",))),
    (
        "frail",
        "synth --out a directory",
        _frail("synth", "--n-jobs", "20", "--out", lambda t: _made(t / "d", Path.mkdir)),
    ),
    ("frail", "pairs: a FIFO", _frail("pairs", _pairs_file(_fifo), "--out", _out("o.jsonl"), outputs=("o.",))),
    (
        "frail",
        "pairs: a key twice",
        _frail(
            "pairs",
            _pairs_file(lambda p: _dup_key(p, 2, "y_base_mean", 0.0)),
            "--out",
            _out("o.jsonl"),
            outputs=("o.",),
        ),
    ),
    (
        "frail",
        "pairs: 100k-deep line",
        _frail(
            "pairs", lambda t: str(_write(t / "d_m1_pairs.jsonl", _deep())), "--out", _out("o.jsonl"), outputs=("o.",)
        ),
    ),
    (
        "frail",
        "report: pairs a FIFO",
        _frail("report", "--pairs", _pairs_file(_fifo), "--out", _out("r"), outputs=("r",)),
    ),
    (
        "frail",
        "report: pairs 100k deep",
        _frail(
            "report",
            "--pairs",
            lambda t: str(_write(t / "d_m1_pairs.jsonl", _deep())),
            "--out",
            _out("r"),
            outputs=("r",),
        ),
    ),
    (
        "frail",
        "report: pairs /dev/zero",
        _frail("report", "--pairs", _pairs_file(_to_zero), "--out", _out("r"), outputs=("r",)),
    ),
    (
        "frail",
        "report --seeds abc",
        _frail("report", "--pairs", _pairs_file(), "--seeds", "abc", "--out", _out("r"), outputs=("r",)),
    ),
    (
        "frail",
        "report --threads 0",
        _frail("report", "--pairs", _pairs_file(), "--threads", "0", "--out", _out("r"), outputs=("r",)),
    ),
    (
        "frail",
        "report --probe-file FIFO",
        _frail(
            "report",
            "--pairs",
            _pairs_file(),
            "--protocol",
            "text_probe",
            "--probe-file",
            lambda t: _made(t / "p.json", os.mkfifo),
            "--out",
            _out("r"),
            outputs=("r",),
        ),
    ),
    ("frail", "probes: pairs a FIFO", _frail("probes", _pairs_file(_fifo), "--out", _out("p.json"), outputs=("p.",))),
    ("frail", "transfer --solver no '='", _frail("transfer", "--solver", "a")),
    ("frail", "tau --n-jobs 0", _frail("tau", "--n-jobs", "0", "--out", _out("t.json"), outputs=("t.",))),
    (
        "frail",
        "tau --seeds x",
        _frail("tau", "--n-jobs", "50", "--seeds", "x", "--out", _out("t.json"), outputs=("t.",)),
    ),
    (
        "glass-build",
        "--source a FIFO",
        _glass_build(
            "--suite", "gsm", "--source", lambda t: _made(t / "s.jsonl", os.mkfifo), "--out", _out("c"), outputs=("c",)
        ),
    ),
    (
        "glass-build",
        "--source 100k-deep JSON",
        _glass_build(
            "--suite",
            "gsm",
            "--source",
            lambda t: str(_write(t / "s.json", _deep())),
            "--out",
            _out("c"),
            outputs=("c",),
        ),
    ),
    (
        "glass-build",
        "--source key twice",
        _glass_build(
            "--suite",
            "gsm",
            "--source",
            lambda t: _made(_write(t / "s.jsonl", GSM_SOURCE), lambda p: _dup_key(p, 1, "answer", "#### 9")),
            "--out",
            _out("c"),
            outputs=("c",),
        ),
    ),
    (
        "glass-build",
        "--limit -1",
        _glass_build(
            "--suite",
            "gsm",
            "--source",
            lambda t: str(_write(t / "s.jsonl", GSM_SOURCE)),
            "--limit",
            "-1",
            "--out",
            _out("c"),
            outputs=("c",),
        ),
    ),
    (
        "glass-build",
        "--surface-twins -3",
        _glass_build(
            "--suite",
            "gsm",
            "--source",
            lambda t: str(_write(t / "s.jsonl", GSM_SOURCE)),
            "--surface-twins",
            "-3",
            "--out",
            _out("c"),
            outputs=("c",),
        ),
    ),
    ("glass-build", "show: pool a FIFO", _glass_build("show", _corpus_arg(lambda c: _fifo(c / "pool.jsonl")))),
    ("glass-build", "show --n -1", _glass_build("show", _corpus_arg(), "--n", "-1")),
    (
        "glass-build",
        "sample --per-stratum 0",
        _glass_build("sample", _corpus_arg(), "--per-stratum", "0", "--out", _out("a"), outputs=("a.",)),
    ),
    (
        "glass-build",
        "export-pairs --dose 0",
        _glass_build("export-pairs", _corpus_arg(), "--dose", "0", "--out", _out("x.jsonl"), outputs=("x.",)),
    ),
    ("glass-build", "verdicts: a FIFO", _glass_build("verdicts", lambda t: _made(t / "v.jsonl", os.mkfifo))),
    (
        "glass-build",
        "import-pairs: key twice",
        _glass_build(
            "import-pairs",
            _pairs_file(lambda p: _dup_key(p, 1, "base_text", "B has 3.")),
            "--suite",
            "gsm",
            "--out",
            _out("c"),
            outputs=("c",),
        ),
    ),
    (
        "cobe-data",
        "convert: a FIFO",
        _cobe_data("convert", lambda t: _made(t / "in.json", os.mkfifo), "-o", _out("o.jsonl"), outputs=("o.",)),
    ),
    (
        "cobe-data",
        "convert: Story twice",
        _cobe_data(
            "convert",
            lambda t: _made(
                _write(t / "in.jsonl", json.dumps(COBE_RECORD) + "\n"), lambda p: _dup_key(p, 1, "Story", "x")
            ),
            "-o",
            _out("o.jsonl"),
            outputs=("o.",),
        ),
    ),
    (
        "cobe-data",
        "convert: 100k-deep JSON",
        _cobe_data("convert", lambda t: str(_write(t / "in.json", _deep())), "-o", _out("o.jsonl"), outputs=("o.",)),
    ),
    (
        "cobe-data",
        "convert: CSV cell key twice",
        _cobe_data(
            "convert",
            lambda t: str(_write(t / "in.csv", 'Story,Causal graph\nA tale.,"{""a"": 1, ""a"": 2}"\n')),
            "-o",
            _out("o.jsonl"),
            outputs=("o.",),
        ),
    ),
    (
        "cobe-data",
        "convert -o a directory",
        _cobe_data(
            "convert",
            lambda t: str(_write(t / "in.json", _cobe_field())),
            "-o",
            lambda t: _made(t / "o.jsonl", Path.mkdir),
            outputs=("o.jsonl.",),
        ),
    ),
    ("cobe-data", "check: a FIFO", _cobe_data("check", lambda t: _made(t / "in.json", os.mkfifo))),
    (
        "cobe-data",
        "check: /dev/zero",
        _cobe_data("check", lambda t: _made(t / "in.json", lambda p: os.symlink("/dev/zero", p))),
    ),
    ("causalverify-data", "--out a file", _cv_data("--out", lambda t: str(_write(t / "f", "x")))),
    ("causalverify-data", "--seed -1", _cv_data("--out", _out("set"), "--seed", "-1", outputs=("set",))),
    ("causalverify-data", "--out unwritable", _cv_data("--out", lambda t: str(_write(t / "f", "x") / "set"))),
]


_GOOD_LOG: list[Path] = []


def _good_log(tmp: Path, name: str = "good.eval") -> Path:
    """A real GlassGSM log (scripted model, 2 samples), made once per run and copied into the case's folder."""
    if not _GOOD_LOG:
        from inspect_ai import eval as inspect_eval

        made = Path(tempfile.mkdtemp(prefix="bad-input-log-"))
        inspect_eval(glassgsm(), model="scripted/bad-input", limit=2, epochs=1, log_dir=str(made), display="none")
        _GOOD_LOG.append(next(made.glob("*.eval")))
    return Path(shutil.copy(_GOOD_LOG[0], tmp / name))


_suite = _command(suite_main)


def _log_arg(tmp: Path) -> str:
    return str(_good_log(tmp))


def _log_made(make: Callable[[Path], object], name: str = "bad.eval") -> Callable[[Path], str]:
    return lambda tmp: _made(tmp / name, make)


def _truncated(path: Path) -> None:
    good = _good_log(path.parent, "whole.eval")
    path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])


def _foreign_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "not an inspect log")


def _truncated_json(path: Path) -> None:
    path.write_text('{"version": 2, "status": "success", "eval": {"task": "glassgsm", "samples": [')


def _folder_one_bad(tmp: Path) -> str:
    _good_log(tmp)
    (tmp / "bad.eval").write_bytes(b"\x00\x01 not a zip")
    return str(tmp)


BAD_LOGS: list[tuple[str, Callable[[Path], object], str]] = [
    ("a FIFO", os.mkfifo, "bad.eval"),
    ("a link to /dev/zero", lambda p: os.symlink("/dev/zero", p), "bad.eval"),
    ("empty", lambda p: p.write_bytes(b""), "bad.eval"),
    ("binary", lambda p: p.write_bytes(os.urandom(4096)), "bad.eval"),
    ("truncated", _truncated, "bad.eval"),
    ("a zip that is no log", _foreign_zip, "bad.eval"),
    ("truncated .json", _truncated_json, "bad.json"),
]
SUITE_CLI_CASES: list[Case] = [
    case
    for label, make, name in BAD_LOGS
    for case in (
        ("causal-suite", f"check: {label}", _suite("check", _log_made(make, name))),
        (
            "causal-suite",
            f"report: {label}",
            _suite("report", _log_made(make, name), "--out", _out("r"), outputs=("r",)),
        ),
        ("causal-suite", f"score: {label}", _suite("score", _log_made(make, name), "--out", _out("s.eval"))),
        ("causal-suite", f"compare: {label}", _suite("compare", _log_arg, _log_made(make, name), "--out", _out("c"))),
    )
] + [
    ("causal-suite", "check: a folder with a bad log", _suite("check", _folder_one_bad)),
    (
        "causal-suite",
        "report --out an existing file",
        _suite("report", _log_arg, "--out", lambda t: str(_write(t / "f", "x"))),
    ),
    (
        "causal-suite",
        "report --out unwritable",
        _suite("report", _log_arg, "--out", lambda t: str(_write(t / "f", "x") / "r")),
    ),
    ("causal-suite", "score --out a folder", _suite("score", _log_arg, "--out", lambda t: _made(t / "d", Path.mkdir))),
    ("causal-suite", "compare: one log", _suite("compare", _log_arg, "--out", _out("c"))),
]
CLI_CASES += SUITE_CLI_CASES


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
    ("frail", "synth --n-jobs 20", _frail(*SYNTH, "--n-jobs", "20")),
    ("glass-build", "show", _glass_build("show", _corpus_arg())),
    (
        "cobe-data",
        "convert",
        _cobe_data("convert", lambda t: str(_write(t / "in.json", _cobe_field())), "-o", _out("o")),
    ),
    ("causalverify-data", "a fresh folder", _cv_data("--out", _out("set"))),
    ("causal-suite", "check: a good log", _suite("check", _log_arg)),
    ("causal-suite", "report: a good log", _suite("report", _log_arg, "--out", _out("r"))),
    ("causal-suite", "report: a folder with a bad log", _suite("report", _folder_one_bad, "--out", _out("r"))),
]


class _Hang(BaseException):
    """Raised by the alarm when a case runs past its time (a read that blocks forever, e.g. on a FIFO)."""


def _on_alarm(signum: int, frame: object) -> None:
    raise _Hang


def _vm_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


@contextlib.contextmanager
def _bounded(seconds: int, spare_bytes: int) -> Iterator[None]:
    """At most ``seconds`` of wall time (then _Hang) and ``spare_bytes`` more address space (then MemoryError), so
    a read of /dev/zero fails fast instead of filling the machine's memory."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_vm_bytes() + spare_bytes, hard))
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _cli_outcome(result: CliResult) -> tuple[str, str]:
    if result.status == 0:
        return "accepted", ""
    lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("usage:"):
        lines = lines[-1:]  # argparse: the usage, then its one error line
    text = "\n".join(lines)
    if "Traceback (most recent call last)" in text:
        return "traceback", f"[exit {result.status}] {lines[-1]}"
    return ("multi-line" if len(lines) > 1 else "sentence"), f"[exit {result.status}] {text}"


def outcome(run: Callable[[Path], object], seconds: int = 20) -> tuple[str, str, tuple[str, ...]]:
    """(outcome, message, output files left behind) of one case, run in a fresh temporary folder (its path shown as
    <tmp>), stopped after ``seconds`` (a ``hang``)."""
    with tempfile.TemporaryDirectory() as tmp:
        shown = lambda text: text.replace(str(Path(tmp).resolve()), "<tmp>").replace(tmp, "<tmp>")  # noqa: E731
        try:
            with _bounded(seconds, 3 << 30):
                result = run(Path(tmp))
        except _Hang:
            return "hang", f"still running after {seconds} s", ()
        except SuiteInputError as exc:
            text = shown(str(exc))
            return ("multi-line" if "\n" in text.strip() else "sentence"), text, ()
        except Exception as exc:  # noqa: BLE001 - a traceback is what this table looks for
            return "traceback", shown(f"{type(exc).__name__}: {exc}"), ()
        if isinstance(result, CliResult):
            kind, message = _cli_outcome(result)
            return kind, shown(message), result.left
    return "accepted", "", ()


KINDS = ("sentence", "multi-line", "traceback", "hang", "accepted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="print whole messages")
    parser.add_argument("--only", help="run only the cases whose reader or name contains this string")
    args = parser.parse_args()
    groups = (
        ("bad input: task readers and parameters", READER_CASES),
        ("bad input: command lines", CLI_CASES),
        ("controls (undamaged input)", CONTROLS),
    )
    grand: Counter[str] = Counter()
    for title, cases in groups:
        cases = [c for c in cases if not args.only or args.only in c[0] or args.only in c[1]]
        totals: Counter[str] = Counter()
        left_behind = 0
        print(f"{title}\n{'reader':17s} {'case':32s} {'outcome':10s} message")
        for reader, name, run in cases:
            result, message, left = outcome(run)
            totals[result] += 1
            left = left if result != "accepted" else ()  # an accepted command was meant to write its output
            left_behind += bool(left)
            note = f" [left output: {', '.join(left)}]" if left else ""
            text = (message if args.full else message[:140]).replace("\n", " | ")
            print(f"{reader:17s} {name:32s} {result:10s} {text}{note}", flush=True)
        counts = ", ".join(f"{totals[k]} {k}" for k in KINDS)
        print(f"{title}: {len(cases)} cases: {counts}; {left_behind} refusals left output files behind\n")
        if not title.startswith("controls"):
            grand.update(totals)
    print(f"all bad input: {sum(grand.values())} cases: " + ", ".join(f"{grand[k]} {k}" for k in KINDS))


if __name__ == "__main__":
    main()
