"""The options of one ``frail report`` run as one typed, frozen object (``ReportConfig``), built by the CLI
(``frail.cli.cmd_report``) or by a Python caller and passed whole to ``frail.report.run_report``.

It holds no torch object at import time: the Frail-π and encoder recipes are typed for the checker only, so the
``frail`` command can build a config (and refuse a bad one) before torch is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from causal_suite.errors import SuiteInputError

if TYPE_CHECKING:
    from frail.models.pi import PiConfig
    from frail.models.pi_encoder import EncoderTrainConfig
    from frail.probes import ProbeSet

PROTOCOLS = ("text", "text_probe", "both")
DEFAULT_BASELINE_ENCODER = "hf_frozen"  # the bundled MiniLM sentence encoder (``frail.encoders``)


def _frozen_mapping(options: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(options or {}))


@dataclass(frozen=True)
class ReportConfig:
    """Everything ``run_report`` reads: inputs, output folder, featurizer, seeds, protocol, the Frail-π recipe
    (``pi``; None: ``PiConfig()``), the joint encoder recipe of a trainable featurizer (``encoder``), the baselines
    to run (names of ``frail.learned_baselines.available_baselines()``) and the frozen sentence encoder they embed with
    (``baseline_encoder``, a featurizer whose fit learns nothing: ``hf_frozen`` or ``hashing``), and the transformers
    encoder every encoder baseline reads (``baseline_encoder_model``: a local folder or a hub name; None: the
    bundled MiniLM)."""

    pair_files: tuple[str, ...]
    out_dir: Path
    featurizer: str = "tfidf_svd"
    seeds: tuple[int, ...] = (0, 1, 2)
    protocol: str = "text"
    probes: ProbeSet | None = None
    pi: PiConfig | None = None
    encoder: EncoderTrainConfig | None = None
    featurizer_options: Mapping[str, Any] = field(default_factory=dict)
    baselines: tuple[str, ...] | None = None  # None: frail.learned_baselines.DEFAULT_BASELINES
    baseline_encoder: str = DEFAULT_BASELINE_ENCODER
    baseline_encoder_model: str | None = None  # the transformers encoder of the encoder baselines (None: MiniLM)
    save_models: bool = False
    show_progress: bool = True
    dump_predictions: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "pair_files", tuple(str(p) for p in self.pair_files))
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        object.__setattr__(self, "seeds", tuple(int(s) for s in self.seeds))
        object.__setattr__(self, "featurizer_options", _frozen_mapping(self.featurizer_options))
        self.check()

    def check(self) -> None:
        """The protocol and the probe file agree (checked before anything is read or written)."""
        if self.protocol not in PROTOCOLS:
            raise SuiteInputError(f"unknown protocol {self.protocol!r}: choose one of {', '.join(PROTOCOLS)}.")
        if self.protocol != "text" and self.probes is None:
            raise SuiteInputError(
                f"--protocol {self.protocol} needs the base probes: pass --probe-file (see `frail probes`)."
            )
        if self.protocol == "text" and self.probes is not None:
            raise SuiteInputError(
                "--probe-file is read by --protocol text_probe or both; --protocol text reads the problem "
                "statement only."
            )
        if self.baseline_encoder_model is not None and self.baseline_encoder == "hashing":
            raise SuiteInputError(
                f"--baseline-encoder-model {self.baseline_encoder_model!r} names a transformers encoder, which "
                "--baseline-encoder hashing does not read: use --baseline-encoder hf_frozen or drop the model."
            )
        if not self.seeds:
            raise SuiteInputError("--seeds is empty: give at least one seed.")
