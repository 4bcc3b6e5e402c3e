"""A scripted model for smoke tests: ``--model scripted/<any name>``; no download, no network, no API key.

inspect's own ``mockllm/model`` counts tokens with a tokenizer it downloads on first use, so it fails on a machine
without network unless every output carries its usage; this provider always does. Its replies:

- ``-M replies=FILE``: a JSON or YAML file holding one reply (a string), a list of replies served in turn (the last
  repeats), or a ``{substring: reply}`` mapping (the first substring found in the prompt wins; ``"*"`` is the
  fallback). The file is read once, when the model is created.
- without a file: ``"scripted reply"``.

Several choices per request (``num_choices``) repeat the reply. Usage counts words (input and output).
"""

from __future__ import annotations

from itertools import count
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

from causal_suite.errors import SuiteInputError
from causal_suite.jsonl import DOCUMENT_LIMIT, parse_json, parse_yaml, read_text

DEFAULT_REPLY = "scripted reply"
Script = str | list[str] | dict[str, str]


def load_script(path: str | Path) -> Script:
    """The replies of a script file (see module); one sentence naming the file when it is not such a script."""
    where = f"Scripted model replies file '{path}'"
    text = read_text(Path(path), where, DOCUMENT_LIMIT)
    doc = parse_json(text, where) if str(path).endswith(".json") else parse_yaml(text, where)
    valid = (
        isinstance(doc, str)
        or (isinstance(doc, list) and doc and all(isinstance(r, str) for r in doc))
        or (isinstance(doc, dict) and doc and all(isinstance(k, str) and isinstance(v, str) for k, v in doc.items()))
    )
    if not valid:
        raise SuiteInputError(
            f"Scripted model replies file '{path}' must hold a string, a non-empty list of "
            "strings, or a non-empty {substring: reply} mapping of strings."
        )
    return doc


class ScriptedModel(ModelAPI):
    """inspect ``ModelAPI`` answering from a script (see module)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        replies: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.script: Script = load_script(replies) if replies else DEFAULT_REPLY
        self._turn = count()

    def reply(self, prompt: str) -> str:
        if isinstance(self.script, str):
            return self.script
        if isinstance(self.script, list):
            return self.script[min(next(self._turn), len(self.script) - 1)]
        found = next((reply for needle, reply in self.script.items() if needle != "*" and needle in prompt), None)
        return found if found is not None else self.script.get("*", DEFAULT_REPLY)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n".join(m.text for m in input)
        text = self.reply(prompt)
        n = max(1, config.num_choices or 1)
        choices = [
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=text, model=self.model_name, source="generate"), stop_reason="stop"
            )
            for _ in range(n)
        ]
        words_in, words_out = len(prompt.split()), n * len(text.split())
        return ModelOutput(
            model=self.model_name,
            choices=choices,
            usage=ModelUsage(input_tokens=words_in, output_tokens=words_out, total_tokens=words_in + words_out),
        )


@modelapi(name="scripted")
def scripted() -> type[ModelAPI]:
    return ScriptedModel
