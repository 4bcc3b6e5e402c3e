"""CausalVerify estimate extraction on the extraction corpus: answered share and precision, overall and per style.

    .venv/bin/python benchmarks/causalverify_extraction.py [--show wrong|abstained|all] [--style S] [--repeats N]

The corpus (``tests/causalverify/fixtures/extraction/*.jsonl``) holds printed outputs of R programs we wrote (run on
our synthetic scenario data, each program writing the effect it reports to a side file) and hand-made outputs,
each with its correct value or "ambiguous". An answer is right when it equals the value to the answer's printed
precision (half a unit of its last digit); any answer to an ambiguous item is wrong. Printed:

- answered share = answered / non-ambiguous items (the rest go to the ``extractor`` role);
- precision = right answers / all answers (answers to ambiguous items included as wrong);

and, as the baseline in the same process, the previous extractor's figures on the same items (first matching rule
wins, never abstains when a rule matches), plus the median seconds per item of both over ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from causalverify_inspect.extraction import NUM, extract

_NUM_RE = re.compile(rf"(?<![\w.])({NUM})(%?)")
CORPUS_DIR = Path(__file__).resolve().parents[1] / "tests" / "causalverify" / "fixtures" / "extraction"


def load_corpus(folder: Path = CORPUS_DIR) -> list[dict]:
    items = []
    for path in sorted(folder.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                record = json.loads(line)
                record["file"] = f"{path.name}:{n}"
                items.append(record)
    return items


def is_right(answer: float, unit: float | None, truth: float | str) -> bool:
    """Whether ``answer`` is ``truth`` to the answer's printed precision."""
    if truth == "ambiguous":
        return False
    tolerance = 0.5 * (unit or 0.0) * (1 + 1e-6) + 1e-12 + 1e-9 * abs(float(truth))
    return abs(answer - float(truth)) <= tolerance


def score(items: list[dict], reader) -> dict[str, dict[str, int]]:
    """Per style and overall: items, non-ambiguous, answered (non-ambiguous), answers, right answers."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in items:
        answer = reader(item)
        for key in (item["style"], "ALL"):
            row = table[key]
            row["items"] += 1
            row["non_ambiguous"] += item["value"] != "ambiguous"
            if answer is not None:
                row["answers"] += 1
                row["answered"] += item["value"] != "ambiguous"
                row["right"] += is_right(answer[0], answer[1], item["value"])
    return table


def _unit(text: str) -> float:
    """The value of the last printed digit of a number token."""
    mantissa, _, exponent = text.lstrip("+-\u2212").lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return 10.0 ** ((int(exponent) if exponent else 0) - decimals)


def ours(item: dict):
    found = extract(item["stdout"], item["family"]).estimate
    return None if found is None else (found.value, found.unit)


def previous(item: dict):
    """The extractor before issue 15 (first rule that matches), from the git history, if available."""
    found = _previous_module().extract_estimate(item["stdout"], item["family"])
    if found is None:
        return None
    units = [
        _unit(m.group(1)) * (0.01 if m.group(2) else 1)
        for m in _NUM_RE.finditer(found.line)
        if abs(float(m.group(1).replace("\u2212", "-")) * (0.01 if m.group(2) else 1) - found.value) < 1e-12
    ]
    return found.value, (min(units) if units else None)


_PREVIOUS = None


def _previous_module():
    global _PREVIOUS
    if _PREVIOUS is None:
        import importlib.util
        import tempfile

        root = Path(__file__).resolve().parents[1]
        source = subprocess.run(
            ["git", "-C", str(root), "show", "4f3d5b7:src/causalverify_inspect/extraction.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        path = Path(tempfile.mkdtemp()) / "previous_extraction.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("previous_extraction", path)
        _PREVIOUS = importlib.util.module_from_spec(spec)
        sys.modules["previous_extraction"] = _PREVIOUS
        spec.loader.exec_module(_PREVIOUS)
    return _PREVIOUS


def fmt(row: dict[str, int]) -> str:
    answered = row["answered"] / row["non_ambiguous"] if row["non_ambiguous"] else float("nan")
    precision = row["right"] / row["answers"] if row["answers"] else float("nan")
    return (
        f"{row['items']:5d} {row['non_ambiguous']:5d} {row['answers']:7d} {row['answers'] - row['right']:5d} "
        f"{100 * answered:8.1f} {100 * precision:9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=["wrong", "abstained", "all"], default=None)
    parser.add_argument("--style", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args()
    items = load_corpus()
    if args.style:
        items = [i for i in items if i["style"] == args.style]
    print(
        f"# {len(items)} items from {CORPUS_DIR.relative_to(Path.cwd()) if CORPUS_DIR.is_relative_to(Path.cwd()) else CORPUS_DIR}"
        f"; machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    )
    arms = [("ours", ours)]
    if not args.no_baseline:
        try:
            _previous_module()
            arms.append(("previous", previous))
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"# baseline skipped: the previous extractor is not in this checkout's git history ({exc})")
    tables, seconds = {}, {}
    for name, reader in arms:
        reader(items[0])  # warm-up (and load the previous module)
        runs = []
        for _ in range(max(1, args.repeats)):
            started = time.perf_counter()
            tables[name] = score(items, reader)
            runs.append((time.perf_counter() - started) / len(items))
        seconds[name] = runs
    header = (
        f"{'style':18s} {'items':>5s} {'non-a':>5s} {'answers':>7s} {'wrong':>5s} {'answered%':>8s} {'precision%':>9s}"
    )
    for name, _ in arms:
        print(
            f"\n## {name}"
            + (
                " (previous rules: first match wins; right = within half a unit of its token)"
                if name == "previous"
                else ""
            )
        )
        print(header)
        table = tables[name]
        for style in sorted(k for k in table if k != "ALL"):
            print(f"{style:18s} {fmt(table[style])}")
        print(f"{'ALL':18s} {fmt(table['ALL'])}")
        med = statistics.median(seconds[name])
        print(
            f"seconds per item: median {med * 1e3:.2f} ms (spread {min(seconds[name]) * 1e3:.2f}-"
            f"{max(seconds[name]) * 1e3:.2f} ms over {len(seconds[name])} runs)"
        )
    if args.show:
        for item in items:
            result = extract(item["stdout"], item["family"])
            answer = result.estimate
            wrong = answer is not None and not is_right(answer.value, answer.unit, item["value"])
            abstained = answer is None and item["value"] != "ambiguous"
            if args.show == "all" or (args.show == "wrong" and wrong) or (args.show == "abstained" and abstained):
                print(
                    f"\n--- {item['id']} ({item['file']}) {item['family']} truth={item['value']} "
                    f"answer={None if answer is None else answer.value} rule={answer and answer.source} "
                    f"reason={result.reason}"
                )
                for c in result.candidates:
                    print(
                        f"    cand {c.value} {c.rule} pref={c.preferred} ans={c.answer_line} L{c.lineno}: "
                        f"{c.line[:110]}"
                    )
                if args.show != "abstained" or len(item["stdout"]) < 3000:
                    print(item["stdout"][:3000])


if __name__ == "__main__":
    main()
