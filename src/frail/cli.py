"""The ``frail`` command: ``pairs`` (logs -> observations), ``probes`` (logs or pairs -> base probes for the
text_probe protocol), ``synth`` (Synth-CD), ``report`` (Frail-π protocol, ``--protocol text | text_probe | both``),
``evaluate`` (score a saved Frail-π on a test fold it has not seen), ``transfer`` (train on one solver's pairs, test
on another's), ``tau`` (the Frail-τ mechanism check on continuous Synth-CD)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from causal_suite.errors import SuiteInputError, reports_input_errors
from causal_suite.params import cli_integer, cli_integers, comma_list
from frail.learned_baselines import available_baselines, select_baselines
from frail.options import add_encoder_arguments, featurizer_options
from frail.pairs import read_pair_files, read_pairs, require_one_solver, write_pairs


def cmd_pairs(args: argparse.Namespace) -> int:
    from frail.logs import observations_from_logs

    logs = [p for p in args.inputs if not p.endswith(".jsonl")]
    upstream = [p for p in args.inputs if p.endswith(".jsonl")]
    rows, counts = observations_from_logs(logs, args.corpus) if logs else ([], {})
    for path in upstream:
        rows.extend(read_pairs(path))
    write_pairs(args.out, require_one_solver(rows))
    print(json.dumps({"out": args.out, "rows": len(rows), **counts}))
    return 0


def cmd_probes(args: argparse.Namespace) -> int:
    from frail.probes import collect_probes_from_logs, probes_from_pairs, write_probes

    upstream = [p for p in args.inputs if p.endswith(".jsonl")]
    if upstream and len(upstream) != len(args.inputs):
        raise SuiteInputError(
            "pass either glass eval logs or pair .jsonl files to `frail probes`, not both: "
            "the two give different probe features."
        )
    if upstream:
        probes = probes_from_pairs(read_pair_files(upstream), upstream)
    else:
        probes = collect_probes_from_logs(args.inputs)
    write_probes(args.out, probes)
    print(
        json.dumps(
            {
                "out": args.out,
                "solver": probes.solver,
                "bases": len(probes.probes),
                "n_samples": probes.n_samples,
                "features": probes.features,
                **probes.counts,
            }
        )
    )
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from frail.synth import truth_path, write_synth

    checks = write_synth(args.out, args.variant, args.n_jobs, args.seed, args.twins_per_dose)
    print(json.dumps({"out": args.out, "truth": str(truth_path(args.out)), "mechanism_checks": checks}, indent=1))
    return 0


def _require_torch() -> None:
    from causal_suite.errors import require_extra

    require_extra("torch", "frail", "Frail-π")


def cmd_report(args: argparse.Namespace) -> int:
    _require_torch()
    import torch

    from frail.models.pi import PiConfig
    from frail.models.pi_encoder import EncoderTrainConfig
    from frail.report import run_report
    from frail.report_config import ReportConfig

    torch.set_num_threads(args.threads)  # the head is tiny: one thread is fastest and leaves the other cores free
    encoder_config = EncoderTrainConfig(
        encoder_lr=args.encoder_lr,
        head_lr=args.head_lr,
        jobs_per_batch=args.jobs_per_batch,
        microbatch=args.encoder_microbatch,
        max_epochs=args.encoder_max_epochs,
        patience=args.encoder_patience,
    )
    probes = None
    if args.probe_file:
        from frail.probes import read_probes

        probes = read_probes(args.probe_file)
    if args.include_bertpe_vap3 and args.baselines is not None:
        raise SuiteInputError("--include-bertpe-vap3 is an alias of --baselines all: give one of the two.")
    spec = "all" if args.include_bertpe_vap3 else args.baselines
    config = ReportConfig(
        pair_files=tuple(comma_list(args.pairs)),
        out_dir=Path(args.out),
        featurizer=args.featurizer,
        seeds=tuple(args.seeds),
        protocol=args.protocol,
        probes=probes,
        pi=PiConfig(hidden=args.hidden, max_epochs=args.max_epochs, patience=args.patience),
        encoder=encoder_config,
        featurizer_options=featurizer_options(args),
        baselines=None if spec is None else select_baselines(spec),
        baseline_encoder=args.baseline_encoder,
        baseline_encoder_model=args.baseline_encoder_model,
        save_models=args.save_models,
        show_progress=not args.quiet,
        dump_predictions=args.dump_predictions,
    )
    summary = run_report(config)
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    if summary["status"] != "ok":  # too little data: the report says why, and the exit code says it failed
        print(f"frail: {summary['message']}", file=sys.stderr)
        return 1
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    import numpy as np

    _require_torch()
    from frail.estimands import spearman
    from frail.evaluation import predict_targets
    from frail.models.pi import FrailPi
    from frail.probes import read_probes
    from frail.report import load_dataset, probe_inputs
    from frail.splits import make_split, refuse_overlap

    data = load_dataset(comma_list(args.pairs))
    split = make_split(data.jobs.index, data.fingerprint, args.seed)
    test = [b for b in split.ids("test") if data.jobs.loc[b, "solvable"]]
    refuse_overlap(args.model, test)
    model, featurizer = FrailPi.load(args.model)
    if model.doses != data.doses:
        raise SuiteInputError(f"model '{args.model}' was trained on doses {model.doses}, the pairs have {data.doses}.")
    if model.probe is not None and not args.probe_file:
        raise SuiteInputError(
            f"model '{args.model}' was trained under the text_probe protocol: pass the base probes "
            "of the pairs' solver with --probe-file."
        )
    if model.probe is None and args.probe_file:
        raise SuiteInputError(
            f"model '{args.model}' was trained under the text protocol (problem statement only): "
            "it reads no --probe-file."
        )
    jobs = data.jobs.loc[test]
    x = featurizer.transform(jobs["base_text"].tolist())
    if model.probe is not None:
        probes = read_probes(args.probe_file)
        lacking = [f for f in model.probe.features if f not in probes.features]
        if lacking:
            raise SuiteInputError(
                f"probe file '{probes.path}' lacks the feature(s) {', '.join(lacking)} that model "
                f"'{args.model}' was trained on."
            )
        x = np.hstack([x, model.probe.transform(probe_inputs(probes, data).loc[test])])
    _, pi_hat, a_hat, b_hat = predict_targets(model, x, data.composition.loc[test].to_numpy(), data.m_bar)
    result = {
        "seed": args.seed,
        "protocol": model.protocol,
        "n_test_solvable": len(test),
        "spearman": {
            "pi": spearman(pi_hat, jobs["pi"]),
            "a": spearman(a_hat, jobs["a"]),
            "b": spearman(b_hat, jobs["b"].to_numpy(dtype=float)),
        },
        "mean_pi_hat": float(np.mean(pi_hat)) if len(test) else None,
    }
    print(json.dumps(result, indent=1))
    return 0


def cmd_transfer(args: argparse.Namespace) -> int:
    _require_torch()
    import torch

    from frail.curation import solver_transfer
    from frail.models.pi import PiConfig
    from frail.report import load_dataset

    torch.set_num_threads(args.threads)
    datasets = {}
    for spec in args.solver:
        name, sep, files = spec.partition("=")
        if not sep or not name or not files:
            raise SuiteInputError(f"--solver {spec!r} is not NAME=FILE[,FILE...]: name each solver's pair files.")
        if name in datasets:
            raise SuiteInputError(f"--solver {name!r} is given twice: give each solver's files once.")
        datasets[name] = load_dataset(comma_list(files))
    config = PiConfig(hidden=args.hidden, max_epochs=args.max_epochs, patience=args.patience)
    results = solver_transfer(datasets, args.featurizer, args.seed, config)
    text = json.dumps({"featurizer": args.featurizer, "seed": args.seed, "transfer": results}, indent=1)
    if args.out:
        from causal_suite.files import write_text_atomic

        write_text_atomic(args.out, text)
    print(text)
    return 0


def cmd_tau(argv: list[str]) -> int:
    _require_torch()
    from frail.tau_eval import main as tau_main

    return tau_main(argv, prog="frail tau")


def _add_data_commands(sub) -> None:
    """``pairs``, ``probes`` and ``synth``: the commands that write the inputs of a report."""
    p = sub.add_parser("pairs", help="glass eval logs (+ corpus manifests) or LabeledPair files -> one pairs JSONL")
    p.add_argument("inputs", nargs="+", help="glass .eval/.json logs and/or upstream *_labeled_pairs.jsonl files")
    p.add_argument("--corpus", help="glass corpus directory (default: the one recorded in the logs)")
    p.add_argument("--out", required=True, help="output pairs JSONL")
    p.set_defaults(func=cmd_pairs)

    b = sub.add_parser("probes", help="glass eval logs (or pair files) -> base probes for --protocol text_probe")
    b.add_argument("inputs", nargs="+", help="glass .eval/.json logs, or pair .jsonl files (accuracy only)")
    b.add_argument("--out", required=True, help="output probe file (JSON, e.g. base_probes.json)")
    b.set_defaults(func=cmd_probes)

    s = sub.add_parser("synth", help="generate a Synth-CD set with its ground truth (§3.5)")
    s.add_argument(
        "--variant",
        choices=["bernoulli", "continuous"],
        default="bernoulli",
        help="bernoulli: B drawn per twin from its break probability; continuous: the probability itself",
    )
    s.add_argument("--n-jobs", type=cli_integer(2), default=500, help="synthetic base problems (jobs)")
    s.add_argument("--twins-per-dose", type=cli_integer(1), default=5, help="twins per job and dose")
    s.add_argument("--seed", type=cli_integer(0), default=7, help="random seed")
    s.add_argument("--out", required=True, help="output pair file (JSONL)")
    s.set_defaults(func=cmd_synth)


def _add_encoder_training_arguments(r) -> None:
    """The encoder options of ``report``: which encoder, and the recipe of joint training with the head."""
    enc = add_encoder_arguments(r)
    enc.add_argument("--encoder-lr", type=float, help="encoder LR (default 2e-5 fine-tuning, 1e-3 LoRA)")
    enc.add_argument("--head-lr", type=float, default=1e-3, help="learning rate of the head")
    enc.add_argument("--jobs-per-batch", type=cli_integer(1), default=64, help="jobs per optimiser step")
    enc.add_argument("--encoder-microbatch", type=cli_integer(1), default=16, help="jobs per encoder forward pass")
    enc.add_argument("--encoder-max-epochs", type=cli_integer(1), default=20, help="encoder training epochs at most")
    enc.add_argument(
        "--encoder-patience", type=cli_integer(1), default=5, help="encoder epochs without validation gain"
    )


def _add_report_command(sub) -> None:
    """``report``: Frail-π and the baselines over seeds (its options become one ``ReportConfig``)."""
    from frail.featurizers import available_featurizers

    r = sub.add_parser("report", help="train and evaluate Frail-π and the baselines over seeds")
    r.add_argument("--pairs", nargs="+", required=True, help="pair files (space- or comma-separated)")
    r.add_argument(
        "--featurizer",
        default="tfidf_svd",
        choices=available_featurizers(),
        help="text features of a job (default tfidf_svd)",
    )
    r.add_argument(
        "--seeds", type=cli_integers(0), default="0,1,2", help="split/training seeds, comma-separated (default 0,1,2)"
    )
    r.add_argument("--out", required=True, help="output directory")
    r.add_argument(
        "--protocol",
        choices=["text", "text_probe", "both"],
        default="text",
        help="text: problem statement only; text_probe: adds the base probes of --probe-file; "
        "both: each into OUT/text and OUT/text_probe, reported separately",
    )
    r.add_argument("--probe-file", help="base probes (`frail probes`) for --protocol text_probe / both")
    r.add_argument("--hidden", type=cli_integer(1), default=64, help="hidden units of the Frail-π head")
    r.add_argument("--max-epochs", type=cli_integer(1), default=200, help="training epochs at most")
    r.add_argument("--patience", type=cli_integer(1), default=20, help="epochs without validation gain before stopping")
    r.add_argument("--threads", type=cli_integer(1), default=1, help="torch CPU threads")
    r.add_argument("--save-models", action="store_true", help="save each seed's model with its split sidecar")
    r.add_argument("--quiet", action="store_true", help="no training progress display")
    r.add_argument(
        "--dump-predictions",
        action="store_true",
        help="write predictions_seed*.csv: test-fold targets, predictions and p(J, m) per dose",
    )
    r.add_argument(
        "--baselines",
        help="`all` or a comma-separated list of baselines (default: surface_gbt, complexity, text_length, base_y); "
        f"known: {', '.join(available_baselines())}",
    )
    r.add_argument(
        "--include-bertpe-vap3",
        action="store_true",
        help="the seed's flag, an alias of --baselines all (which includes BERTPE and VAP3)",
    )
    r.add_argument(
        "--baseline-encoder",
        default="hf_frozen",
        choices=["hf_frozen", "hashing"],
        help="frozen text encoder of the embedding baselines (default hf_frozen: the bundled MiniLM)",
    )
    r.add_argument(
        "--baseline-encoder-model",
        help="the transformers encoder every encoder baseline reads (hf_frozen embeddings, BERTPE, VAP3): a local "
        "encoder folder or a hub name (default: the bundled MiniLM)",
    )
    _add_encoder_training_arguments(r)
    r.set_defaults(func=cmd_report)


def _add_model_commands(sub) -> None:
    """``evaluate`` and ``transfer`` (a trained Frail-π on other folds or solvers) and ``tau`` (its own parser)."""
    from frail.featurizers import available_featurizers

    e = sub.add_parser("evaluate", help="score a saved Frail-π on the test fold of (pairs, seed); refuses overlap")
    e.add_argument("--model", required=True, help="a model saved by frail report --save-models")
    e.add_argument("--pairs", nargs="+", required=True, help="pair files to evaluate on (their test fold)")
    e.add_argument("--seed", type=cli_integer(0), default=0, help="the split seed the model was trained with")
    e.add_argument("--probe-file", help="base probes, for a model saved under --protocol text_probe")
    e.set_defaults(func=cmd_evaluate)

    t = sub.add_parser("transfer", help="solver transfer: train Frail-π on one solver's pairs, test on each solver's")
    t.add_argument(
        "--solver",
        action="append",
        required=True,
        metavar="NAME=FILE[,FILE]",
        help="one solver's pair files; repeat for each solver (same bases)",
    )
    t.add_argument(
        "--featurizer",
        default="tfidf_svd",
        choices=available_featurizers(),
        help="text features of a job (default tfidf_svd)",
    )
    t.add_argument("--seed", type=cli_integer(0), default=0, help="split/training seed")
    t.add_argument("--hidden", type=cli_integer(1), default=64, help="hidden units of the Frail-π head")
    t.add_argument("--max-epochs", type=cli_integer(1), default=200, help="training epochs at most")
    t.add_argument("--patience", type=cli_integer(1), default=20, help="epochs without validation gain before stopping")
    t.add_argument("--threads", type=cli_integer(1), default=1, help="torch CPU threads")
    t.add_argument("--out", help="also write the JSON result here")
    t.set_defaults(func=cmd_transfer)

    sub.add_parser(
        "tau",
        add_help=False,
        help="Frail-τ mechanism check on continuous Synth-CD (`frail tau --help` for its options)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="frail", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_data_commands(sub)
    _add_report_command(sub)
    _add_model_commands(sub)
    return parser


@reports_input_errors("frail")
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["tau"]:  # its own parser (frail.tau_eval), shared with `python -m frail.tau_eval`
        return cmd_tau(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
