"""Re-score upstream's cached Exp B responses in the confined sandbox and compare with the published score CSV.

    .venv/bin/python benchmarks/causalverify_replay_agreement.py --models moonshot-v1-128k claude-opus-4-6 \
        [--ids s01,s02,...] [--es-windows cumulative] [--profile upstream] [--log-dir /tmp/cv-replay] [--logs DIR]

With --published-extractor, samples whose estimate the deterministic rules cannot find go to an `extractor` role
that answers with upstream's published judge value for that cell (so no cell stays unscored); without it they are
unscored. Prints, per model and level (L1, L2a, L2b, L2b+ = upstream's L2b_plus_v2), the agreement of our 0/1 with the
published one: over all cells, and over the cells whose local run did not fail for an `environment` reason (an R
package the Docker image has but this machine lacks, e.g. fixest, rdrobust). Unscored cells (no deterministic
estimate and no extractor role bound) are counted separately, with the bounds of L2b+ over them; last, a markdown
table of the rates per model and level, ours beside the published (the README's evaluation report). ``--logs DIR``
reads the replay logs in DIR instead of running; with ``--published-extractor`` it re-scores their captured output
with that extractor bound (inspect's ``score``, the log's own scorer options; no R runs again), so one
deterministic-only replay gives both tables. ``--loading stargazer,rdd`` replays only the cells whose R code
loads one of those packages and lists them, our levels and failure beside the published ones (with ``--profile
upstream``: the packages upstream's environment lacked fail as they failed there). Each replay first prints the
environment it ran in (R, the reference packages present with their versions, those lacking, the ``R_LIBS``
libraries shown): start it with ``R_LIBS=<lib>`` to replay with packages built from source there
(``sandboxes/r/README.md``). Needs ../shared beside the checkout, Rscript, bwrap.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

from inspect_ai import eval
from inspect_ai import score as score_log
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from causal_suite.scores import is_unscored
from causalverify_inspect.dataset import cached_response_path, model_slug, read_cached_response
from causalverify_inspect.extraction import extract_r_code
from causalverify_inspect.packages import loaded_packages
from causalverify_inspect.scorers import exp_b_scorer
from causalverify_inspect.task import exp_b

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "causalverify"
OUTPUTS = SHARED / "experiments" / "exp_b" / "outputs"
PUBLISHED = SHARED / "experiments" / "exp_b" / "l2b_plus_scores_canonical_judge_v2.csv"
LEVELS = {"L1": "L1", "L2a": "L2a", "L2b": "L2b", "L2b_plus": "L2b_plus_v2"}


def published_rows() -> dict[tuple[str, str], dict]:
    with PUBLISHED.open(newline="", encoding="utf-8") as f:
        return {(r["scenario_id"], r["model_slug"]): r for r in csv.DictReader(f)}


def published_extractor(slug: str, published: dict[tuple[str, str], dict]):
    """An `extractor` role that answers with upstream's published judge effect of the cell whose code it is shown."""
    by_code = {}
    for (sid, model), row in published.items():
        path = cached_response_path(OUTPUTS, sid, slug)
        if model == slug and path.exists():
            code = extract_r_code(read_cached_response(path)).code
            if code:
                by_code[code[:4000]] = row["judge_effect"] or None

    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        prompt = messages[-1].text
        code = prompt.split("```r\n", 1)[1].split("\n```\n\nPrinted output:", 1)[0]
        effect = by_code.get(code)
        out = ModelOutput.from_content(
            model="mockllm/published-judge", content=f'{{"effect": {effect or "null"}, "rationale": "published judge"}}'
        )
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/published-judge", custom_outputs=outputs, memoize=False)


def cells_loading(slug: str, packages: set[str]) -> dict[str, list[str]]:
    """``{scenario id: the packages of ``packages`` its cached R code loads}`` for the cells of ``slug`` loading one."""
    out = {}
    for path in sorted(OUTPUTS.glob(f"*_{model_slug(slug)}.json")):
        code = extract_r_code(read_cached_response(path)).code or ""
        hit = [p for p in loaded_packages(code) if p in packages]
        if hit:
            out[path.name.split("_", 1)[0]] = hit
    return out


def print_loading_cells(slug: str, cells: list, published: dict, loading: dict[str, list[str]]) -> None:
    """One line per replayed cell whose code loads a listed package: our levels and failure, the published ones."""
    print(f"\n{slug}: the {len(loading)} cells loading {', '.join(sorted({p for v in loading.values() for p in v}))}")
    same = 0
    for sid, v, m in cells:
        row = published[(sid, slug)]
        ours = "unscored" if v is None else " ".join(f"{k}={int(v[k])}" for k in LEVELS)
        theirs = " ".join(f"{k}={int(row[c])}" for k, c in LEVELS.items())
        agree = v is not None and all(int(v[k]) == int(row[c]) for k, c in LEVELS.items())
        same += agree
        print(
            f"  {sid} loads {','.join(loading[sid])}: ours {ours} ({m.get('failure') or 'pass'}) | published {theirs}"
            f" {'same' if agree else 'DIFFERENT'}"
        )
    print(f"  {same}/{len(cells)} cells scored as upstream scored them, level by level")


def replay(
    slug: str, ids: str | None, es_windows: str, log_dir: str, extractor=None, profile: str = "full"
) -> list[tuple[str, dict | None, dict]]:
    log = eval(
        exp_b(
            scenarios=str(SHARED),
            ids=ids,
            sandbox="confined",
            profile=profile,
            responses=str(OUTPUTS),
            responses_model=slug,
            es_windows=es_windows,
        ),
        model="mockllm/model",
        display="none",
        log_dir=log_dir,
        max_samples=2,
        model_roles={"extractor": extractor} if extractor is not None else None,
    )[0]
    if log.status != "success":
        raise SystemExit(f"eval failed: {log.error}")
    print_environment(log)
    return cells_of(log)


def print_environment(log) -> None:
    """The R environment a replay ran in, from its log's ``r_environment``."""
    env = log.eval.metadata["r_environment"]
    present = ", ".join(f"{p} {v}" for p, v in sorted(env["package_versions"].items()))
    print(
        f"\n{log.eval.task_args.get('responses_model')}: R {env['r_version']} ({env['sandbox']}, reference set "
        f"{env['reference']}; R_LIBS libraries {', '.join(env.get('r_libraries') or []) or 'none'}); present: "
        f"{present}; lacks: {', '.join(env['lacks']) or 'nothing'}; outside pins: {env['outside_pins'] or 'none'}"
    )


def cells_of(log) -> list[tuple[str, dict | None, dict]]:
    """(scenario id, score dict or None when unscored, score metadata) of every sample of a replay log."""
    out = []
    for sample in log.samples:
        score = next(iter(sample.scores.values()))
        value = None if is_unscored(score.value) else score.value
        out.append((str(sample.id), value, score.metadata or {}))
    return out


def logged_cells(log_dir: str, published: dict | None = None) -> dict[str, list[tuple[str, dict | None, dict]]]:
    """The cells of the newest replay log of each model in ``log_dir`` (for ``--logs``: no run); with ``published``,
    re-scored with the published extractor bound."""
    by_model = {}
    for path in sorted(Path(log_dir).glob("*.eval")):
        log = read_eval_log(str(path))
        print_environment(log)
        if published is not None:
            extractor = published_extractor(log.eval.task_args["responses_model"], published)
            options = (log.eval.scorers or [])[0].options or {}
            log = score_log(
                log, exp_b_scorer(**options), model_roles={"extractor": extractor}, action="overwrite", display="none"
            )
        by_model[log.eval.task_args.get("responses_model")] = cells_of(log)
    return by_model


def print_agreement(slug: str, cells: list, published: dict, seconds: float, disagreements: bool) -> None:
    """Agreement of our 0/1 with the published one per level, over all scored and non-environment cells."""
    scored = [(sid, v, m) for sid, v, m in cells if v is not None]
    non_env = [(sid, v, m) for sid, v, m in scored if v["environment"] == 0]
    by_extractor = sum(m.get("source") == "extractor" for _, _, m in scored)
    print(
        f"\n{slug}: {len(cells)} cells in {seconds:.0f} s; unscored {len(cells) - len(scored)}; "
        f"environment failures {len(scored) - len(non_env)}; estimate from the extractor in {by_extractor}"
    )
    passes, n_unscored = sum(v["L2b_plus"] for _, v, _ in scored), len(cells) - len(scored)
    published_passes = sum(int(published[(sid, slug)]["L2b_plus_v2"]) for sid, _, _ in cells)
    unscored_published = sum(int(published[(sid, slug)]["L2b_plus_v2"]) for sid, v, _ in cells if v is None)
    print(
        f"  L2b+ {passes / max(1, len(scored)):.3f} over {len(scored)} scored; bounds (unscored as 0 / as 1) "
        f"{passes / len(cells):.3f} / {(passes + n_unscored) / len(cells):.3f}; unscored share "
        f"{n_unscored / len(cells):.3f} ({unscored_published} of them pass on the published side); "
        f"published {published_passes / len(cells):.3f} over {len(cells)}"
    )
    for subset_name, subset in (("all scored", scored), ("non-environment", non_env)):
        parts = []
        for ours, theirs in LEVELS.items():
            agree = sum(int(v[ours]) == int(published[(sid, slug)][theirs]) for sid, v, _ in subset)
            parts.append(f"{ours} {agree}/{len(subset)}")
        ours_rate = sum(v["L2b_plus"] for _, v, _ in subset)
        theirs_rate = sum(int(published[(sid, slug)]["L2b_plus_v2"]) for sid, _, _ in subset)
        print(f"  {subset_name:16s} " + "  ".join(parts) + f"   L2b+ ours {ours_rate:.0f} vs published {theirs_rate}")
    if disagreements:
        print_disagreements(slug, non_env, published)
    for sid, v, m in cells:
        if v is None:
            print(f"   unscored {sid}: {m.get('stderr_tail', '')[-80:]!r}")


def print_disagreements(slug: str, non_env: list, published: dict) -> None:
    for sid, v, m in non_env:
        row = published[(sid, slug)]
        if int(v["L2b"]) != int(row["L2b"]) or int(v["L2b_plus"]) != int(row["L2b_plus_v2"]):
            print(
                f"   {sid} ours L2b={v['L2b']:.0f} L2b+={v['L2b_plus']:.0f} est={m.get('estimate')} "
                f"({m.get('source')}) | published L2b={row['L2b']} L2b+={row['L2b_plus_v2']} "
                f"judge={row['judge_effect']} err={row['err_excerpt'][:80]!r} "
                f"ours_err={m.get('stderr_tail', '')[-120:]!r}"
            )


def table_rows(slug: str, cells: list, published: dict) -> list[str]:
    """Markdown rows: per level, our rate and the published one over the cells we scored, and over those whose
    local run did not fail for an `environment` reason; n beside each."""
    scored = [(sid, v) for sid, v, _ in cells if v is not None]
    non_env = [(sid, v) for sid, v in scored if v["environment"] == 0]
    rows = []
    for ours, theirs in LEVELS.items():
        cols = []
        for subset in (scored, non_env):
            mine = sum(v[ours] for _, v in subset) / max(1, len(subset))
            pub = sum(int(published[(sid, slug)][theirs]) for sid, _ in subset) / max(1, len(subset))
            cols.append(f"{mine:.2f} | {pub:.2f} | {len(subset)}")
        rows.append(f"| {slug} | {ours} | " + " | ".join(cols) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["moonshot-v1-128k", "claude-opus-4-6"])
    parser.add_argument("--ids", default=None)
    parser.add_argument("--es-windows", default="cumulative", choices=["strict", "cumulative"])
    parser.add_argument("--log-dir", default="/tmp/cv-replay")
    parser.add_argument("--logs", default=None, help="read the replay logs in this folder instead of running")
    parser.add_argument("--show-disagreements", action="store_true")
    parser.add_argument("--published-extractor", action="store_true")
    parser.add_argument("--profile", default="full", choices=["full", "upstream"], help="the reference package set")
    parser.add_argument("--loading", default=None, help="only the cells whose code loads one of these packages")
    args = parser.parse_args()
    published = published_rows()
    logged = logged_cells(args.logs, published if args.published_extractor else None) if args.logs else {}
    table = []
    for slug in args.models:
        started = time.monotonic()
        loading = cells_loading(slug, set(args.loading.split(","))) if args.loading else {}
        ids = ",".join(loading) if args.loading else args.ids
        if args.logs:
            cells = logged[slug]
        elif args.loading and not loading:
            print(f"\n{slug}: no cell loads {args.loading}")
            continue
        else:
            extractor = published_extractor(slug, published) if args.published_extractor else None
            cells = replay(slug, ids, args.es_windows, args.log_dir, extractor, args.profile)
        if args.loading:
            print_loading_cells(slug, [c for c in cells if c[0] in loading], published, loading)
            continue
        print_agreement(slug, cells, published, time.monotonic() - started, args.show_disagreements)
        table += table_rows(slug, cells, published)
    print("\n| model | level | ours (scored) | published | n | ours (non-environment) | published | n |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(table))


if __name__ == "__main__":
    main()
