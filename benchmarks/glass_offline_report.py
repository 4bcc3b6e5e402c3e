"""The glass README's evaluation report: the offline default model (Gemma 3 270M, the pretrained base model) on a
seeded subset of a built-in corpus, with every rate's clustered 95 % interval, its n and its bases (issue 29,
item 7). It shows what the offline model does on this benchmark and that the pipeline reports honest numbers; it
is not a measurement of a capable model (use a real provider for that).

    .venv/bin/python benchmarks/glass_offline_report.py                        # GSM, 12 bases, dose 1, 2 draws
    .venv/bin/python benchmarks/glass_offline_report.py --suite math --keep logs/glass_offline

Prints one markdown table (rate, value, interval, n, bases) and the run's wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from inspect_ai import eval as inspect_eval

from causal_suite.cli import DEFAULT_MODEL
from causal_suite.demo_view import metrics_of
from causal_suite.unscored import log_unscored

RATES = (
    "base_accuracy",
    "break_rate",
    "identity_floor",
    "break_rate_entity_rename",
    "break_rate_sentence_reorder",
    "break_rate_irrelevant_context",
)


def rate_rows(metrics: dict[str, float]) -> list[str]:
    """One markdown row per rate the log has: value, 95 % interval, n and bases (clusters)."""
    rows = []
    for name in [*RATES, *sorted(n for n in metrics if n.startswith("break_rate_m") and n[12:].isdigit())]:
        if name not in metrics:
            continue
        value, low, high = (metrics.get(name + s, float("nan")) for s in ("", "_low", "_high"))
        n, bases = metrics.get(name + "_n", 0), metrics.get(name + "_clusters", 0)
        rows.append(f"| {name} | {value:.3f} | [{low:.2f}, {high:.2f}] | {n:.0f} | {bases:.0f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=("gsm", "math"), default="gsm")
    parser.add_argument("--subset", type=int, default=12, help="bases (each with all its twins); default 12")
    parser.add_argument("--doses", default="1")
    parser.add_argument("--epochs", type=int, default=2, help="draws per prompt (default 2)")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--keep", help="log folder to keep (default: a temporary one)")
    args = parser.parse_args()
    log_dir = args.keep or tempfile.mkdtemp(prefix="glass-offline-")
    task_args = {"subset": args.subset, "doses": args.doses}
    start, cpu = time.perf_counter(), time.process_time()
    [log] = inspect_eval(
        f"glass_inspect/glass{args.suite}",
        model=DEFAULT_MODEL,
        task_args=task_args,
        epochs=args.epochs,
        max_tokens=args.max_tokens,
        log_dir=log_dir,
        display="none",
    )
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    count = log_unscored(log)
    print(f"glass{args.suite} {task_args}, epochs={args.epochs}, max_tokens={args.max_tokens}, {DEFAULT_MODEL}")
    print(f"status {log.status}; {count.samples} samples, {count.describe()}")
    print("\n| rate | value | 95 % interval | n | bases |\n|---|---|---|---|---|")
    print("\n".join(rate_rows(metrics_of(log))))
    print(f"\n{wall:.0f} s wall, {cpu:.0f} s CPU on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f})")
    print(f"log: {log.location}")


if __name__ == "__main__":
    main()
