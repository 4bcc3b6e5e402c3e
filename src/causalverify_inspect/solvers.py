"""Exp B solvers (paper §4, App. C): get a response (generate or replay), take its R block, run it in the sandbox.

The run record is kept in the sample store under ``cv_run`` (so it lands in the log and a re-score reads what the
first score read): the code, exit code, the whole captured stdout and stderr (capped by the sandbox), wall time,
whether it timed out, the packages the code loads (``packages``) and which of them this sandbox lacks
(``missing_packages``, asked of the sandbox before the run). The calibration step (paper §5, App. E) stores the
model's three confidences under ``cv_confidence``.
"""

from __future__ import annotations

import time
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import OutputLimitExceededError, SandboxEnvironment, sandbox

from causal_suite.inspect_compat import registry_unqualified_name
from causalverify_inspect.dataset import cached_response_path, read_cached_response
from causalverify_inspect.extraction import extract_r_code, reply_json_object
from causalverify_inspect.packages import loaded_packages, missing_query
from causalverify_inspect.prompts import (
    CALIBRATION_RESPONSE_CHARS,
    CALIBRATION_STDOUT_CHARS,
    CALIBRATION_SYSTEM,
    CALIBRATION_USER,
)
from causalverify_inspect.sandbox import NOTE_PREFIX, ConfinedSandboxEnvironment
from causalverify_inspect.store import CONFIDENCE_FIELDS, CONFIDENCE_KEY, RUN_KEY

SCRIPT_NAME = "cv_analysis.R"
KILL_GRACE = 5
BACKSTOP_SECONDS = 30
"""Seconds past ``timeout`` after which the sandbox call itself is abandoned (the in-sandbox limit failed)."""


async def missing_packages(packages: list[str]) -> list[str]:
    """Which of ``packages`` the sandbox's R lacks, asked of the sandbox's own R in a run of its own before the
    program's (so nothing the program prints or leaves behind decides it)."""
    if not packages:
        return []
    try:
        result = await sandbox().exec(
            ["Rscript", "--vanilla", "-e", missing_query(packages)], timeout=60, timeout_retry=False
        )
    except TimeoutError:
        return []
    return result.stdout.split() if result.success else []


def wrap_like_upstream(code: str) -> str:
    """Upstream's execution wrapper (warnings off, messages suppressed, one braced expression: no auto-print)."""
    return f"\noptions(warn = -1)\nsuppressMessages({{\n{code}\n}})\n"


@solver
def replay_response(responses: str, model: str) -> Solver:
    """Answer with the cached upstream response ``{responses}/{sid}_{slug(model)}.json`` instead of calling a model."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        content = read_cached_response(cached_response_path(responses, str(state.sample_id), model))
        state.output = ModelOutput.from_content(model=model, content=content)
        state.messages.append(ChatMessageAssistant(content=content, model=model, source="generate"))
        return state

    return solve


def run_argv(timeout: int, host_timed: bool = False) -> list[str]:
    """``Rscript --vanilla``; where the sandbox does not keep the limit on the host side (``host_timed``), under
    coreutils ``timeout`` inside it, so what the program printed before the limit is kept (R writes its console
    output unbuffered); TERM at ``timeout`` s, KILL 5 s later."""
    run = ["Rscript", "--vanilla", SCRIPT_NAME]
    return run if host_timed else ["timeout", f"--kill-after={KILL_GRACE}", str(timeout), *run]


def timed_out(returncode: int | None, seconds: float, timeout: int) -> bool:
    """Whether the run ended at its time limit: ``timeout``'s own exit codes (124 after TERM, 137 after KILL) and a
    wall time at the limit, which the program cannot fake by exiting with those codes early."""
    return returncode in (124, 137) and seconds >= timeout


class SandboxReplacedError(RuntimeError):
    """The sample's sandbox is not the one the task chose (inspect's ``--sandbox`` replaced it)."""


def check_sandbox(expected: str | None) -> None:
    """Fail with one sentence when the sample's sandbox is not of type ``expected`` (None: any)."""
    if expected is None:
        return
    running = registry_unqualified_name(type(sandbox().as_type(SandboxEnvironment)))
    if running != expected:
        raise SandboxReplacedError(
            f"exp_b: inspect's --sandbox replaced the task's R sandbox '{expected}' with '{running}' (the log's "
            f"r_environment would describe the wrong one): drop --sandbox and choose with -T sandbox=auto|docker|"
            "docker-debian|confined."
        )


async def run_script(script: str, timeout: int) -> dict[str, Any]:
    """Write ``script`` into the sample's sandbox and run it under the time limit: the run record's ``sandbox``,
    ``ran``, ``exit_code`` (None at the limit), captured ``stdout`` / ``stderr`` (with the sandbox's note on a
    timeout or an output limit), ``seconds`` and ``timed_out``."""
    sb = sandbox()
    running = type(sb.as_type(SandboxEnvironment)).__name__  # what ran (--sandbox overrides the task)
    # confined keeps the limit on the host side, out of the program's reach (it cannot stop that timer)
    host_timed = isinstance(sb.as_type(SandboxEnvironment), ConfinedSandboxEnvironment)
    await sb.write_file(SCRIPT_NAME, script)
    started = time.monotonic()
    try:
        result = await sb.exec(
            run_argv(timeout, host_timed),
            timeout=timeout if host_timed else timeout + BACKSTOP_SECONDS,
            timeout_retry=False,
        )
        code, stdout, stderr = result.returncode, result.stdout, result.stderr
    except TimeoutError as exc:  # both sandboxes raise at the limit, keeping what was printed
        code, stdout = None, getattr(exc, "truncated_output", None) or ""
        note = f"{NOTE_PREFIX} timed out after {timeout} s; stdout holds everything printed before]"
        raised = exc.__cause__ if isinstance(exc.__cause__, TimeoutError) else exc  # inspect wraps it
        stderr = "\n".join(filter(None, [(getattr(raised, "stderr", None) or "").rstrip("\n"), note]))
    except OutputLimitExceededError as exc:
        code, stdout, stderr = -1, exc.truncated_output or "", f"{NOTE_PREFIX} {exc}]"
    seconds = time.monotonic() - started
    return {
        "sandbox": running,
        "ran": True,
        "exit_code": code,
        "stdout": stdout,
        "stderr": stderr,
        "seconds": round(seconds, 3),
        "timed_out": code is None or timed_out(code, seconds, timeout),
    }


@solver
def run_r_block(timeout: int = 60, upstream_wrapper: bool = False, sandbox_type: str | None = None) -> Solver:
    """Extract the response's R block (L2a) and run it with ``Rscript --vanilla`` in the sandbox (L2b = exit 0).

    The record keeps everything the sandbox captured (each stream capped by the sandbox: its first and last halves;
    the docker sandbox raises past its own 10 MiB limit, and then what it returned is kept), the packages the code
    loads, and which of them this sandbox's R lacks, as the sandbox itself reports before the run.

    Args:
        timeout: Wall-clock seconds for the run.
        upstream_wrapper: Run the code inside upstream's wrapper (see :func:`wrap_like_upstream`), for parity when
            re-scoring upstream's responses.
        sandbox_type: The sandbox type the task chose (``confined``, ``docker``); a sample whose sandbox is another
            (inspect's ``--sandbox`` replaced the task's) fails with one sentence before anything runs, so the log
            never scores R code in an environment its metadata does not describe. None: no check.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        blocks = extract_r_code(state.output.completion or "")
        record: dict = {
            "code": blocks.code,
            "n_r_blocks": blocks.n_r_blocks,
            "n_other_blocks": blocks.n_other_blocks,
            "ran": False,
            "timed_out": False,
            "exit_code": None,
            "stdout": "",
            "stderr": "",
            "wrapper": "upstream" if upstream_wrapper else "none",
        }
        if blocks.code is not None:
            check_sandbox(sandbox_type)
            script = wrap_like_upstream(blocks.code) if upstream_wrapper else blocks.code + "\n"
            record["packages"] = loaded_packages(blocks.code)
            record["missing_packages"] = await missing_packages(record["packages"])
            record.update(await run_script(script, timeout))
        state.store.set(RUN_KEY, record)
        return state

    return solve


def parse_confidences(reply: str) -> dict[str, float] | None:
    """The three 0-1 confidences of a calibration reply, or None if the reply is not such a JSON object."""
    doc = reply_json_object(reply)
    if doc is None:
        return None
    out = {}
    for key in CONFIDENCE_FIELDS:
        value = doc.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            return None
        out[key] = float(value)
    return out


@solver
def rate_own_workflow() -> Solver:
    """Calibration arm: a fresh single-turn call showing the model its answer and its run (never the verdict)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        run: dict[str, Any] = state.store.get(RUN_KEY, {})
        prompt = CALIBRATION_USER.format(
            research_question=state.metadata["research_question"],
            data_description=state.metadata["data_description"],
            response=(state.output.completion or "")[:CALIBRATION_RESPONSE_CHARS],
            exit_code=run.get("exit_code"),
            stdout=(run.get("stdout") or "(nothing)")[-CALIBRATION_STDOUT_CHARS:],
        )
        messages: list[ChatMessage] = [ChatMessageSystem(content=CALIBRATION_SYSTEM), ChatMessageUser(content=prompt)]
        output = await get_model().generate(messages)
        state.store.set(CONFIDENCE_KEY, {"reply": output.completion, "values": parse_confidences(output.completion)})
        return state

    return solve
