"""What the hardened reader costs (issue 26): ``causal_suite.jsonl.iter_jsonl`` (non-blocking open checked on its
descriptor, size cap, unique keys, nesting bound) against plain ``json.loads`` per line of the same text.

    .venv/bin/python benchmarks/reader_overhead.py [FILE.jsonl ...] [--repeat 5]

Default files: the glass pool of the built-in GlassMATH corpus, and ``../shared/data`` MATH / GSM8K train sets
where present. Prints, per file, the best of ``--repeat`` wall times of each reader and their ratio (hardened /
plain), and checks that both read the same rows.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from causal_suite.jsonl import iter_jsonl

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _plain(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _hardened(path: Path) -> list[dict]:
    return [row for _, row in iter_jsonl(path)]


def _best(read, path: Path, repeat: int) -> tuple[float, list[dict]]:
    times, rows = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rows = read(path)
        times.append(time.perf_counter() - t0)
    return min(times), rows


def default_files() -> list[Path]:
    from glass_inspect.corpus.builtin import default_corpus

    files = [Path(default_corpus("math")) / "pool.jsonl"]
    files += [p for p in (SHARED / "hendrycks_math/train.jsonl", SHARED / "gsm8k/train.jsonl") if p.exists()]
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="JSON-lines files (default: see the module docstring)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per reader; the best is reported")
    args = parser.parse_args()
    print(f"{'file':48s} {'MB':>6s} {'rows':>7s} {'plain s':>8s} {'hardened s':>10s} {'ratio':>6s}")
    for path in args.files or default_files():
        plain, rows_plain = _best(_plain, path, args.repeat)
        hardened, rows_hardened = _best(_hardened, path, args.repeat)
        assert rows_plain == rows_hardened, f"{path}: the readers disagree"
        size = path.stat().st_size / 1e6
        name = str(path)[-48:]
        print(f"{name:48s} {size:6.1f} {len(rows_plain):7d} {plain:8.3f} {hardened:10.3f} {hardened / plain:6.2f}")


if __name__ == "__main__":
    main()
