"""``causalverify-data --out DIR [--seed S]``: write our fixed-seed Exp B scenario set and print its audit table."""

from __future__ import annotations

import argparse

from causal_suite.errors import reports_input_errors
from causal_suite.params import cli_integer
from causalverify_inspect.scenarios.consistency import accuracy_table
from causalverify_inspect.scenarios.dgp import DEFAULT_SEED, write_set
from causalverify_inspect.scenarios.sources import load_scenarios


@reports_input_errors("causalverify-data")
def main(argv: list[str] | None = None) -> int:
    """``causalverify-data --out DIR [--seed S]``: write the 100 scenarios and print a summary."""
    parser = argparse.ArgumentParser(prog="causalverify-data", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write scenarios.json and data/*.csv into")
    parser.add_argument(
        "--seed", type=cli_integer(0), default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    args = parser.parse_args(argv)
    records = write_set(args.out, args.seed)
    print(f"wrote {len(records)} scenarios to {args.out} (seed {args.seed}); consistency audit passed")
    print(accuracy_table(load_scenarios(args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
