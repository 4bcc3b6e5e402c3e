"""Command-line options shared by ``frail report`` / ``evaluate`` / ``transfer`` (``frail.cli``) and ``frail tau``
(``frail.tau_eval``), kept apart from both so neither command module imports the other."""

from __future__ import annotations

import argparse

from causal_suite.errors import SuiteInputError
from causal_suite.params import cli_integer

ENCODER_OPTIONS = ("encoder", "max_len", "device")


def add_encoder_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """--encoder / --max-len / --device in a group of their own; the group is returned for more flags."""
    enc = parser.add_argument_group("encoder featurizers (hf_frozen, hf_finetune, hf_lora)")
    enc.add_argument("--encoder", help="local Hugging Face encoder folder or hub id (default: the bundled MiniLM)")
    enc.add_argument("--max-len", type=cli_integer(1), help="tokens per text (default 128)")
    enc.add_argument("--device", help="torch device (default: cuda when present, else cpu)")
    return enc


def featurizer_options(args: argparse.Namespace) -> dict:
    """--encoder / --max-len / --device, which only the hf_* featurizers take."""
    options = {k: getattr(args, k) for k in ENCODER_OPTIONS if getattr(args, k) is not None}
    if options and not args.featurizer.startswith("hf_"):
        flags = ", ".join("--" + k.replace("_", "-") for k in options)
        raise SuiteInputError(
            f"{flags} apply to the encoder featurizers (hf_frozen, hf_finetune, hf_lora), not to {args.featurizer!r}."
        )
    return options
