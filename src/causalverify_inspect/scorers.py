"""The Exp B scorer (paper §4, App. C.2, C.5; calibration arm §5, App. E-F); its metrics are in ``metrics``.

Per sample (Score value keys, all 0/1 unless noted):

- ``L1`` the response is non-empty; ``L2a`` an R block was extracted; ``L2b`` it ran with exit code 0 in time;
- ``L2b_plus`` L2b and the extracted estimate's relative error |est - canon| / |canon| is at most the tolerance
  (paper §4: ``<=``; the scenario is unscoreable when |canon| < 1e-9);
- ``tol_10`` ... ``tol_100`` the same at 10, 25, 50, 75, 100 % (the tolerance sweep, App. C.5);
- ``environment`` the run failed on a package error (not found, install failed, function missing) for an R package
  that the code loads, the Docker image provides, and this sandbox's own package check (before the run) reports
  missing (see :mod:`causalverify_inspect.packages`);
- ``environment_degraded`` the run exited 0 although the code loads such a package: scored as it ran, counted apart
  (a branch of the program may have been skipped);
- ``fail_<category>`` one-hot failure taxonomy (App. C.2): no_code, execution_failure, environment, no_estimate,
  wrong_coefficient, window_scale, iv_stage, rdd_cutoff_sign, other;
- with the calibration arm: ``conf_method``, ``conf_specification``, ``conf_estimate`` (NaN when the reply could not be
  parsed; such samples are counted, not dropped silently).

Event studies: the canonical estimate is a per-day abnormal return. ``es_windows="strict"`` compares the estimate
divided by the number of post-event days of the window its label states (``CAR[-1,+1]`` -> 2), else as is;
``es_windows="cumulative"`` is upstream's rule: the best k = 1..11 of |est - k canon| / |k canon|.

The estimate comes from :func:`extract` first, which answers only when exactly one candidate can be the effect and
records its provenance (rule, line, reason) under ``extraction`` in the score metadata; when it abstains and stdout
prints numbers, the ``extractor`` role is asked, shown the lines with the competing candidates (never the canonical
value). An extractor reply that is not a number makes the sample unscored with the reason recorded. With no
extractor role bound, an abstention the program provoked cannot take its sample out of the metrics where the rule
is clear (:func:`decide_without_extractor`): when every candidate is on the same side of the tolerance the sample
is scored so, and answer lines that disagree, or an output too long to read with no answer line, are a
``no_estimate`` failure; only what stays unclear is unscored. The abstention (reason, candidates, the rule that
decided) is recorded under ``abstention`` in the score metadata.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from typing import Any

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.scorer import SampleScore, Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from causal_suite.inspect_compat import PrerequisiteError
from causalverify_inspect.extraction import (
    Extracted,
    Extraction,
    ExtractorReplyError,
    extract,
    parse_extractor_reply,
)
from causalverify_inspect.metrics import (
    EXP_B_METRICS,
    FAILURES,
    LEVELS,
    SWEEP,
    level_samples,
    scored_samples,
    sweep_key,
    value_of,
)
from causalverify_inspect.packages import environment_package, image_packages
from causalverify_inspect.prompts import EXTRACTOR_SYSTEM, EXTRACTOR_USER, FAMILY_GUIDANCE
from causalverify_inspect.sandbox import without_sandbox_notes
from causalverify_inspect.scenarios import FAMILIES
from causalverify_inspect.scenarios.estimators import iv_stage_estimates
from causalverify_inspect.store import CONFIDENCE_FIELDS, CONFIDENCE_KEY, RUN_KEY

ES_MAX_WINDOW = 11
MIN_CANONICAL = 1e-9
SCALE_MATCH = 0.10
"""Relative closeness at which a miss counts as a window/scale mismatch (k days of a per-day effect, or percent)."""
EXTRACTOR_STDOUT_CHARS = 6000


def extractor_excerpt(stdout: str, chars: int = EXTRACTOR_STDOUT_CHARS) -> str:
    """What the extractor is shown of a long output: its first and last halves, the cut marked."""
    if len(stdout) <= chars:
        return stdout
    half = chars // 2
    return f"{stdout[:half]}\n[... {len(stdout) - 2 * half} characters omitted ...]\n{stdout[-half:]}"


def window_days(window: tuple[int, int] | None) -> int:
    """Post-event days (day >= 0) inside a labelled window ``[a, b]``; 1 when no window is stated."""
    if window is None:
        return 1
    first, last = sorted(window)
    return max(1, last - max(first, 0) + 1)


def relative_error(
    estimate: float, canonical: float, family: str, window: tuple[int, int] | None, es_windows: str
) -> tuple[float, int]:
    """(relative error, k) under the event-study window rule; k = 1 for the other families."""
    if family != "EVENT_STUDY":
        return abs(estimate - canonical) / abs(canonical), 1
    if es_windows == "cumulative":
        errors = [(abs(estimate - k * canonical) / abs(k * canonical), k) for k in range(1, ES_MAX_WINDOW + 1)]
        return min(errors)
    k = window_days(window)
    return abs(estimate - k * canonical) / abs(k * canonical), k


def classify_miss(
    family: str, estimate: float, canonical: float, rel_error: float, tolerance: float, data_path: str | None
) -> str:
    """Failure category of an executed estimate outside the tolerance (App. C.2; conservative, else 'other')."""

    def near(reference: float) -> bool:
        return reference != 0 and abs(estimate - reference) / abs(reference) <= tolerance

    if family == "IV" and data_path:
        stages = iv_stage_estimates(data_path)
        if any(near(v) and abs(estimate - v) < abs(estimate - canonical) for v in stages.values()):
            return "iv_stage"
    if family == "RDD" and math.copysign(1, estimate) != math.copysign(1, canonical):
        return "rdd_cutoff_sign"
    scales = ([*range(2, 22)] if family == "EVENT_STUDY" else []) + [100, 0.01]
    if any(abs(estimate - s * canonical) <= SCALE_MATCH * abs(s * canonical) for s in scales):
        return "window_scale"
    if math.copysign(1, estimate) != math.copysign(1, canonical) or rel_error > 3 * max(tolerance, 1.0):
        return "wrong_coefficient"
    return "other"


def _value(
    levels: dict[str, int], rel_error: float | None, failure: str | None, environment: int, degraded: int
) -> dict:
    value: dict[str, float] = {k: float(levels.get(k, 0)) for k in LEVELS}
    for tol in SWEEP:
        value[sweep_key(tol)] = float(levels.get("L2b", 0) == 1 and rel_error is not None and rel_error <= tol)
    value["environment"] = float(environment)
    value["environment_degraded"] = float(degraded)
    for name in FAILURES:
        value[f"fail_{name}"] = float(failure == name)
    value["unscored"] = 0.0
    return value


def _unresolved(
    levels: dict[str, int], environment: int, degraded: int, reason: str, explanation: str, metadata: dict
) -> Score:
    """A run whose estimate stays unknown (the reader abstained, no extractor decided): L1..L2b as it ran, L2b+ and
    the sweep NaN, ``unscored`` 1, the reason recorded. It counts in L1..L2b, is out of L2b+ and every rate built on
    the estimate, and is counted in the bounds."""
    value = _value(levels, None, None, environment, degraded)
    value |= {"L2b_plus": math.nan, **{sweep_key(t): math.nan for t in SWEEP}, "unscored": 1.0}
    return Score(value=value, reason=reason, explanation=explanation, metadata=metadata)


_EXTRACTOR_CALLS: weakref.WeakKeyDictionary[Model, dict[str, asyncio.Future[ModelOutput]]] = weakref.WeakKeyDictionary()
"""The extractor call per model and prompt, shared by every sample that needs it (also while it is in flight, as
when the epochs of a replayed sample score at once). Keyed by the model object itself: an ``id()`` can be reused by
a later model once the first is collected, which would hand it the first model's replies."""


class NoExtractorError(RuntimeError):
    """No ``extractor`` role is bound for an estimate the deterministic rules could not find."""


async def _ask_extractor(
    family: str, code: str, stdout: str, extraction: Extraction | None = None, meta: dict | None = None
) -> tuple[float | None, str]:
    """Ask the ``extractor`` role for the effect; ``meta`` (the score's metadata) gets the model that answered."""
    try:
        extractor = get_model(role="extractor", required=True)
    except PrerequisiteError as exc:  # what inspect raises when the role is not bound; anything else propagates
        raise NoExtractorError(str(exc)) from None
    if meta is not None:
        meta["extractor_model"] = str(extractor)
    reason = extraction.reason if extraction is not None else "no rule matched"
    lines = extraction.candidate_lines() if extraction is not None else []
    prompt = EXTRACTOR_USER.format(
        family=family,
        guidance=FAMILY_GUIDANCE[family],
        code=code[:4000],
        stdout=extractor_excerpt(stdout),
        reason=reason,
        candidates="\n".join(lines) if lines else "(none)",
    )
    calls = _EXTRACTOR_CALLS.setdefault(extractor, {})
    call = calls.get(prompt)
    if call is None or call.cancelled() or (call.done() and call.exception() is not None):  # ask (again)
        call = calls[prompt] = asyncio.ensure_future(
            extractor.generate(
                [ChatMessageSystem(content=EXTRACTOR_SYSTEM), ChatMessageUser(content=prompt)],
                config=GenerateConfig(temperature=0.0),
            )
        )
    output = await asyncio.shield(call)  # one sample's cancellation does not cancel the shared call
    return parse_extractor_reply(output.completion)


def decide_without_extractor(
    extraction: Extraction, canonical: float, family: str, es_windows: str, tolerance: float
) -> tuple[Extracted | None, str] | None:
    """Where the deterministic reader abstained and no extractor is bound: ``(estimate, rule)`` when the verdict is
    clear whatever the program meant (estimate None: a ``no_estimate`` failure), None when it is not."""
    candidates = extraction.candidates
    if candidates and all(c.value is not None for c in candidates):
        # every candidate has a value (checked above)
        errors = [relative_error(c.value, canonical, family, c.window, es_windows)[0] for c in candidates]  # type: ignore[arg-type]
        within = [e <= tolerance for e in errors]
        if all(within) or not any(within):
            best = candidates[errors.index(min(errors))]
            side = "within" if within[0] else "outside"
            return best.as_estimate(), f"every one of the {len(candidates)} candidates is {side} the tolerance"
    if extraction.answers_disagree():
        return None, "its answer lines (Estimate: <number>) print different values"
    if extraction.reason.startswith("output too long") and not candidates:
        return None, "its output is too long to read whole and prints no answer line"
    return None


def _confidence_values(state: TaskState) -> tuple[dict[str, float], str | None]:
    record: dict[str, Any] = state.store.get(CONFIDENCE_KEY, {}) or {}
    values = record.get("values")
    if values is None:
        return {f"conf_{k}": float("nan") for k in CONFIDENCE_FIELDS}, record.get("reply", "")
    return {f"conf_{k}": float(values[k]) for k in CONFIDENCE_FIELDS}, None


class _Unresolved(Exception):
    """The estimate of a run that exited 0 stays unknown: ``reason`` is the unscored reason, the message says why."""

    def __init__(self, reason: str, explanation: str) -> None:
        super().__init__(explanation)
        self.reason = reason


def _run_metadata(run: dict[str, Any], family: str, canonical: float | None, image_missing: list[str]) -> dict:
    return {
        "canonical": canonical,
        "family": family,
        "exit_code": run.get("exit_code"),
        "timed_out": run.get("timed_out"),
        "stderr_tail": (run.get("stderr") or "")[-500:],
        "missing_image_packages": image_missing,
    }


def _run_levels(completion: str | None, run: dict[str, Any]) -> dict[str, int]:
    """L1 (a non-empty response), L2a (an R block) and L2b (it exited 0 in time) of one run."""
    levels = {"L1": int(bool((completion or "").strip())), "L2a": int(run.get("code") is not None)}
    levels["L2b"] = int(levels["L2a"] == 1 and run.get("exit_code") == 0 and not run.get("timed_out"))
    return levels


def _execution_failure(run: dict[str, Any], reference: str) -> tuple[str, int, str]:
    """(failure, environment, explanation) of a run that did not exit 0 in time: an environment failure when it
    failed on a package of the ``reference`` set that this sandbox lacks, else an execution failure."""
    missing = run.get("missing_packages") or []
    package = environment_package(run.get("stderr", ""), missing, run.get("code") or "", reference)
    environment = int(package is not None and not run.get("timed_out"))
    explanation = (
        f"R package '{package}' (in the {reference} reference set) is missing from this sandbox"
        if environment
        else "timed out"
        if run.get("timed_out")
        else f"exit code {run.get('exit_code')}"
    )
    return ("environment" if environment else "execution_failure"), environment, explanation


async def _read_estimate(
    run: dict[str, Any], family: str, canonical: float, es_windows: str, tolerance: float, base_meta: dict
) -> tuple[Extracted | None, str]:
    """The estimate a run that exited 0 printed (None: none) and, when it was decided without an extractor, the
    note the explanation ends with; the reader's provenance (and any abstention) goes into ``base_meta``.

    Raises:
        _Unresolved: the extractor's reply is not a number, or no extractor is bound and the rule is unclear.
    """
    stdout = without_sandbox_notes(run.get("stdout", ""))
    extraction = extract(stdout, family)
    base_meta["extraction"] = extraction.provenance()
    if extraction.estimate is not None or not extraction.numbers:
        return extraction.estimate, ""
    try:
        effect, rationale = await _ask_extractor(family, run["code"], stdout, extraction, base_meta)
    except ExtractorReplyError as exc:
        raise _Unresolved("grader_failed", str(exc)) from None
    except NoExtractorError as exc:
        decided = decide_without_extractor(extraction, canonical, family, es_windows, tolerance)
        base_meta["abstention"] = {
            "reason": extraction.reason,
            "n_candidates": len(extraction.candidates),
            "decided_by": None if decided is None else decided[1],
        }
        if decided is None:
            why = f"the deterministic reader abstained ({extraction.reason}) and no extractor role is bound"
            raise _Unresolved("extraction_unresolved", why + f" ({exc})") from None
        estimate, decided_why = decided
        return estimate, f" (no extractor bound; the reader abstained: {extraction.reason}; {decided_why})"
    return (None if effect is None else Extracted(effect, "extractor", rationale)), ""


def _judge_estimate(
    estimate: Extracted, canonical: float, family: str, tolerance: float, es_windows: str, data_path: str | None
) -> tuple[float, int, int, str | None, str]:
    """(relative error, window k, L2b+, failure category of a miss or None, explanation) of an estimate."""
    rel_error, k = relative_error(estimate.value, canonical, family, estimate.window, es_windows)
    passed = int(rel_error <= tolerance)
    failure = None if passed else classify_miss(family, estimate.value, canonical, rel_error, tolerance, data_path)
    explanation = f"estimate {estimate.value:g} ({estimate.source}: {estimate.line[:200]}) vs canonical {canonical:g}"
    return rel_error, k, passed, failure, explanation


@scorer(metrics=EXP_B_METRICS)
def exp_b_scorer(
    tolerance: float = 0.5,
    es_windows: str = "strict",
    calibration: bool = False,
    reference: str = "full",
    outside_pins: dict[str, str] | None = None,
) -> Scorer:
    """L1, L2a, L2b, L2b+ (at ``tolerance``), the sweep and the failure category of one Exp B sample (see module);
    ``reference``: the profile whose package set the environment should have (``full`` or ``upstream``);
    ``outside_pins``: the environment's reference packages whose version lies outside the profile's pin (a score
    whose program loads one records it as ``packages_outside_pin``)."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        run: dict[str, Any] = state.store.get(RUN_KEY, {}) or {}
        family, canonical = meta["family"], meta.get("canonical")
        image_missing = image_packages(run.get("missing_packages") or [], reference)
        base_meta = _run_metadata(run, family, canonical, image_missing)
        base_meta["packages_outside_pin"] = {
            p: v for p, v in (outside_pins or {}).items() if p in (run.get("packages") or [])
        }
        if canonical is None or abs(canonical) < MIN_CANONICAL:
            return Score.unscored(
                reason="unscoreable_canonical",
                explanation=f"|canonical| = {canonical!r} is below {MIN_CANONICAL}",
                metadata=base_meta,
            )
        levels = _run_levels(state.output.completion, run)
        estimate: Extracted | None = None
        failure, environment, explanation, decided_note = None, 0, "", ""
        if not levels["L2a"]:
            failure, explanation = "no_code", "no R code block in the response"
        elif not levels["L2b"]:
            failure, environment, explanation = _execution_failure(run, reference)
        else:
            try:
                estimate, decided_note = await _read_estimate(run, family, canonical, es_windows, tolerance, base_meta)
            except _Unresolved as exc:
                return _unresolved(levels, 0, int(bool(image_missing)), exc.reason, str(exc), base_meta)
            if estimate is None:
                failure, explanation = "no_estimate", "the run printed no treatment-effect estimate"
        rel_error, k = (None, None)
        if estimate is not None:
            rel_error, k, levels["L2b_plus"], failure, explanation = _judge_estimate(
                estimate, canonical, family, tolerance, es_windows, meta.get("data_path")
            )
        explanation += decided_note
        degraded = int(levels["L2b"] == 1 and bool(image_missing))
        value = _value(levels, rel_error, failure, environment, degraded)
        if calibration:
            confidences, unparsed = _confidence_values(state)
            value.update(confidences)
            base_meta["calibration_unparsed_reply"] = unparsed
        return Score(
            value=value,
            answer=None if estimate is None else repr(estimate.value),
            explanation=explanation,
            metadata={
                **base_meta,
                "estimate": None if estimate is None else estimate.value,
                "source": None if estimate is None else estimate.source,
                "rel_error": rel_error,
                "window_k": k,
                "failure": failure,
            },
        )

    return score


def comparison_units(scores: list[SampleScore]) -> dict[str, dict[Any, tuple[Any, float, float]]]:
    """What ``causal-suite compare`` pairs, per metric: scenario -> (scenario, numerator, denominator) for L1..L2b+,
    P(L2b+ | L2b) (denominator: L2b) and L2b / L2b+ per method family."""
    out: dict[str, dict[Any, tuple[Any, float, float]]] = {}
    for level in reversed(LEVELS):
        out[level] = {s.sample_id: (s.sample_id, float(value_of(s)[level]), 1.0) for s in level_samples(scores, level)}
    out["conditional_pass"] = {
        s.sample_id: (s.sample_id, float(value_of(s)["L2b_plus"]), float(value_of(s)["L2b"]))
        for s in scored_samples(scores)
    }
    for fam in FAMILIES:
        for level in ("L2b", "L2b_plus"):
            members = [s for s in level_samples(scores, level) if (s.sample_metadata or {}).get("family") == fam]
            if members:
                out[f"{fam}_{level}"] = {s.sample_id: (s.sample_id, float(value_of(s)[level]), 1.0) for s in members}
    return out
