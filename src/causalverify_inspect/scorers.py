"""Exp B and Exp A scorers and metrics (paper §4, App. C.2, C.5; calibration arm §5, App. E-F; Exp A §3-4).

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

Exp A is scored by keywords, no LLM: the design named in the identification section (hits there weigh 3, hits in the
first 4000 characters 1, earlier first mention breaks ties) against the method label (L3), and the sign words of the
expected-results section against the direction label (L4). A key whose label is missing is NaN (unscoreable); a
sample with neither label is unscored.
"""

from __future__ import annotations

import asyncio
import math
import re
import weakref
from typing import Any

import numpy as np
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from causal_suite.uncertainty import RateEstimate, rate
from causalverify_inspect.extraction import (
    Extracted,
    Extraction,
    ExtractorReplyError,
    extract,
    parse_extractor_reply,
)
from causalverify_inspect.packages import environment_package, image_packages
from causalverify_inspect.prompts import EXTRACTOR_SYSTEM, EXTRACTOR_USER, FAMILY_GUIDANCE
from causalverify_inspect.sandbox import without_sandbox_notes
from causalverify_inspect.scenarios import FAMILIES
from causalverify_inspect.scenarios.estimators import iv_stage_estimates
from causalverify_inspect.solvers import CONFIDENCE_FIELDS, CONFIDENCE_KEY, RUN_KEY

SWEEP = (0.10, 0.25, 0.50, 0.75, 1.00)
FAILURES = (
    "no_code",
    "execution_failure",
    "environment",
    "no_estimate",
    "wrong_coefficient",
    "window_scale",
    "iv_stage",
    "rdd_cutoff_sign",
    "other",
)
ES_MAX_WINDOW = 11
MIN_CANONICAL = 1e-9
SCALE_MATCH = 0.10
"""Relative closeness at which a miss counts as a window/scale mismatch (k days of a per-day effect, or percent)."""
LEVELS = ("L1", "L2a", "L2b", "L2b_plus")
EXTRACTOR_STDOUT_CHARS = 6000


def sweep_key(tol: float) -> str:
    return f"tol_{round(tol * 100)}"


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
    return value


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
    except Exception as exc:  # inspect raises its own PrerequisiteError when the role is not bound
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
            estimate = Extracted(best.value, best.rule, best.line, best.window, best.lineno, best.unit)  # type: ignore[arg-type]
            return estimate, f"every one of the {len(candidates)} candidates is {side} the tolerance"
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


@scorer(metrics=[])
def exp_b_scorer(tolerance: float = 0.5, es_windows: str = "strict", calibration: bool = False) -> Scorer:
    """L1, L2a, L2b, L2b+ (at ``tolerance``), the sweep and the failure category of one Exp B sample (see module)."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        run: dict[str, Any] = state.store.get(RUN_KEY, {}) or {}
        family, canonical = meta["family"], meta.get("canonical")
        image_missing = image_packages(run.get("missing_packages") or [])
        base_meta = {
            "canonical": canonical,
            "family": family,
            "exit_code": run.get("exit_code"),
            "timed_out": run.get("timed_out"),
            "stderr_tail": (run.get("stderr") or "")[-500:],
            "missing_image_packages": image_missing,
        }
        if canonical is None or abs(canonical) < MIN_CANONICAL:
            return Score.unscored(
                reason="unscoreable_canonical",
                explanation=f"|canonical| = {canonical!r} is below {MIN_CANONICAL}",
                metadata=base_meta,
            )
        levels = {"L1": int(bool((state.output.completion or "").strip())), "L2a": int(run.get("code") is not None)}
        levels["L2b"] = int(levels["L2a"] == 1 and run.get("exit_code") == 0 and not run.get("timed_out"))
        estimate: Extracted | None = None
        failure, environment, explanation, decided_why = None, 0, "", None
        if not levels["L2a"]:
            failure, explanation = "no_code", "no R code block in the response"
        elif not levels["L2b"]:
            package = environment_package(run.get("stderr", ""), run.get("missing_packages") or [])
            environment = int(package is not None and not run.get("timed_out"))
            failure = "environment" if environment else "execution_failure"
            explanation = (
                f"R package '{package}' (in the Docker image) is missing from this sandbox"
                if environment
                else "timed out"
                if run.get("timed_out")
                else f"exit code {run.get('exit_code')}"
            )
        else:
            stdout = without_sandbox_notes(run.get("stdout", ""))
            extraction = extract(stdout, family)
            base_meta["extraction"] = extraction.provenance()
            estimate = extraction.estimate
            if estimate is None and extraction.numbers:
                try:
                    effect, rationale = await _ask_extractor(family, run["code"], stdout, extraction, base_meta)
                    estimate = None if effect is None else Extracted(effect, "extractor", rationale)
                except ExtractorReplyError as exc:
                    return Score.unscored(reason="grader_failed", explanation=str(exc), metadata=base_meta)
                except NoExtractorError as exc:
                    decided = decide_without_extractor(extraction, canonical, family, es_windows, tolerance)
                    base_meta["abstention"] = {
                        "reason": extraction.reason,
                        "n_candidates": len(extraction.candidates),
                        "decided_by": None if decided is None else decided[1],
                    }
                    if decided is None:
                        return Score.unscored(
                            reason="extraction_unresolved",
                            explanation=f"the deterministic reader abstained ({extraction.reason}) "
                            f"and no extractor role is bound ({exc})",
                            metadata=base_meta,
                        )
                    estimate, decided_why = decided
            if estimate is None:
                failure, explanation = "no_estimate", "the run printed no treatment-effect estimate"
        rel_error, k = (None, None)
        if estimate is not None:
            rel_error, k = relative_error(estimate.value, canonical, family, estimate.window, es_windows)
            levels["L2b_plus"] = int(rel_error <= tolerance)
            if not levels["L2b_plus"]:
                failure = classify_miss(family, estimate.value, canonical, rel_error, tolerance, meta.get("data_path"))
            explanation = (
                f"estimate {estimate.value:g} ({estimate.source}: {estimate.line[:200]}) vs canonical {canonical:g}"
            )
        if decided_why:
            explanation += f" (no extractor bound; the reader abstained: {extraction.reason}; {decided_why})"
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


# ------------------------------------------------------------------------------------------------------- metrics
def _scored(scores: list[SampleScore]) -> list[SampleScore]:
    return [s for s in scores if isinstance(s.score.value, dict)]


def _values(scores: list[SampleScore]) -> list[dict]:
    return [s.score.value for s in _scored(scores)]  # type: ignore[misc]


def scenario_rate(scored: list[SampleScore], key: str, given: str | None = None) -> RateEstimate:
    """The mean of ``key`` over scored samples (restricted to those with ``given`` = 1), with its uncertainty
    clustered by scenario (the sample id: each scenario is one sample, its epochs reduced into it)."""
    kept = [s for s in scored if given is None or s.score.value[given] == 1]  # type: ignore[index, call-overload]
    return rate([s.score.value[key] for s in kept], [s.sample_id for s in kept])  # type: ignore[index, call-overload, misc]


@metric
def conditional_pass() -> Metric:
    """P(L2b+ | L2b): among runs that executed, the share whose estimate matched (App. C.2), with its uncertainty
    (``_se``, ``_low``, ``_high``, ``_n`` runs that executed, ``_clusters`` their scenarios)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return scenario_rate(_scored(scores), "L2b_plus", given="L2b").metrics("conditional_pass")

    return compute


@metric
def by_family() -> Metric:
    """L2b and L2b+ rates per design family (paper §5, App. C.6), each with its uncertainty beside it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for fam in FAMILIES:
            members = [s for s in _scored(scores) if (s.sample_metadata or {}).get("family") == fam]
            if members:
                out |= scenario_rate(members, "L2b").metrics(f"{fam}_L2b")
                out |= scenario_rate(members, "L2b_plus").metrics(f"{fam}_L2b_plus")
        return out

    return compute


@metric
def failure_taxonomy() -> Metric:
    """Share of samples in each failure category (App. C.2); categories sum with the L2b+ passes to 1."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        vals = _values(scores)
        return {name: float(np.mean([v[f"fail_{name}"] for v in vals])) if vals else float("nan") for name in FAILURES}

    return compute


def calibration_summary(confidence: list[float], correct: list[float], bins: int = 10) -> dict[str, float]:
    """Confidence gap, ECE (equal-width bins, 1.0 in the last bin), Brier score and reliability-diagram bins."""
    conf, acc = np.asarray(confidence, float), np.asarray(correct, float)
    out: dict[str, float] = {"n_rated": float(len(conf))}
    if len(conf) == 0:
        return out
    right, wrong = conf[acc == 1], conf[acc == 0]
    out["confidence_gap"] = float(right.mean() - wrong.mean()) if len(right) and len(wrong) else float("nan")
    out["brier"] = float(np.mean((conf - acc) ** 2))
    index = np.minimum((conf * bins).astype(int), bins - 1)
    ece = 0.0
    for b in range(bins):
        members = index == b
        if members.any():
            ece += members.mean() * abs(conf[members].mean() - acc[members].mean())
            out[f"bin{b}_conf"] = float(conf[members].mean())
            out[f"bin{b}_acc"] = float(acc[members].mean())
            out[f"bin{b}_n"] = float(members.sum())
    out["ece"] = float(ece)
    return out


@metric
def calibration() -> Metric:
    """Calibration arm (paper §5): the ``estimate`` confidence against L2b+; also ECE of the other two scales."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        vals = _values(scores)
        rated = [v for v in vals if not math.isnan(v["conf_estimate"])]
        out = calibration_summary([v["conf_estimate"] for v in rated], [v["L2b_plus"] for v in rated])
        for field in ("method", "specification"):
            ok = [v for v in vals if not math.isnan(v[f"conf_{field}"])]
            out[f"ece_{field}"] = calibration_summary(
                [v[f"conf_{field}"] for v in ok], [v["L2b_plus"] for v in ok]
            ).get("ece", float("nan"))
        out["n_unparsed"] = float(len(vals) - len(rated))
        return out

    return compute


@metric
def rates() -> Metric:
    """The headline rates, L2b+ first (the viewer's log list shows the first metric): L2b+, L2b, L2a, L1 (each with
    its uncertainty clustered by scenario: ``_se``, ``_low``, ``_high``, ``_n``, ``_clusters``), the tolerance
    sweep, and the environment shares (failed for a missing image package; passed without one)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        scored, vals = _scored(scores), _values(scores)
        out: dict[str, float] = {}
        for level in reversed(LEVELS):
            out |= scenario_rate(scored, level).metrics(level)
        keys = [*(sweep_key(t) for t in SWEEP), "environment", "environment_degraded"]
        return out | {k: float(np.mean([v[k] for v in vals])) if vals else float("nan") for k in keys}

    return compute


def comparison_units(scores: list[SampleScore]) -> dict[str, dict[Any, tuple[Any, float, float]]]:
    """What ``causal-suite compare`` pairs, per metric: scenario -> (scenario, numerator, denominator) for L1..L2b+,
    P(L2b+ | L2b) (denominator: L2b) and L2b / L2b+ per method family."""
    out: dict[str, dict[Any, tuple[Any, float, float]]] = {}
    scored = _scored(scores)
    for level in reversed(LEVELS):
        out[level] = {s.sample_id: (s.sample_id, float(s.score.value[level]), 1.0) for s in scored}  # type: ignore[index, call-overload, arg-type]
    out["conditional_pass"] = {
        s.sample_id: (s.sample_id, float(s.score.value["L2b_plus"]), float(s.score.value["L2b"]))  # type: ignore[index, call-overload, arg-type]
        for s in scored
    }
    for fam in FAMILIES:
        members = [s for s in scored if (s.sample_metadata or {}).get("family") == fam]
        for level in ("L2b", "L2b_plus"):
            if members:
                out[f"{fam}_{level}"] = {s.sample_id: (s.sample_id, float(s.score.value[level]), 1.0) for s in members}  # type: ignore[index, call-overload, arg-type]
    return out


def exp_b_metrics(calibration_arm: bool) -> list:
    """Metrics of the exp_b task: headline rates and sweep, P(L2b+|L2b), per family, taxonomy, calibration."""
    metrics: list = [rates(), conditional_pass(), by_family(), failure_taxonomy()]
    if calibration_arm:
        metrics.append(calibration())
    return metrics


# ------------------------------------------------------------------------------------------------------ Exp A
METHOD_KEYWORDS = {
    "DID": (
        "difference-in-difference",
        "differences-in-difference",
        "difference in difference",
        "diff-in-diff",
        "two-way fixed effect",
        "twfe",
        "staggered adoption",
        "parallel trends",
    ),
    "EVENT_STUDY": (
        "event study",
        "event-study",
        "abnormal return",
        "cumulative abnormal",
        "announcement return",
        "event window",
        "market model",
    ),
    "IV": (
        "instrumental variable",
        "two-stage least squares",
        "2sls",
        "exclusion restriction",
        "first stage",
        "instrument for",
    ),
    "RDD": (
        "regression discontinuity",
        "running variable",
        "discontinuity design",
        "rdrobust",
        "cutoff",
        "threshold design",
        "bandwidth",
    ),
}
POSITIVE_WORDS = ("positive", "increase", "higher", "raise", "improve", "gain", "larger", "boost", "upward")
NEGATIVE_WORDS = ("negative", "decrease", "lower", "reduce", "decline", "fall", "drop", "worse", "downward")


def _section(text: str, start: str, stop: str, width: int) -> str:
    match = re.search(start, text)
    if not match:
        return ""
    body = text[match.end() : match.end() + width]
    end = re.search(stop, body)
    return body[: end.start()] if end else body


def detect_method(response: str) -> str | None:
    """The design family a research plan proposes, or None if it names none of the four."""
    text = response.lower()
    section = _section(text, r"identification strategy|##\s*1\b|^1\.", r"##\s*2\b|\n2\.\s", 1500)
    head = text[:4000]
    best, best_score = None, 0.0
    for family, words in METHOD_KEYWORDS.items():
        first = min((head.find(w) for w in words if w in head), default=-1)
        score: float = sum(3 * section.count(w) + head.count(w) for w in words)
        score += 0 if first < 0 else max(0.0, 1 - first / 4000)
        if score > best_score:
            best, best_score = family, score
    return best


def detect_direction(response: str) -> str | None:
    """'positive' / 'negative' from the expected-results section (else the last 800 characters), None if unclear."""
    text = response.lower()
    section = _section(text, r"expected results|##\s*6\b|\n6\.\s", r"##\s*7\b|\n7\.\s", 1200) or text[-800:]
    pos = sum(section.count(w) for w in POSITIVE_WORDS)
    neg = sum(section.count(w) for w in NEGATIVE_WORDS)
    return None if pos == neg else "positive" if pos > neg else "negative"


@scorer(metrics=[])
def exp_a_scorer() -> Scorer:
    """L3 = detected family equals the label; L4 = detected direction equals the label (NaN where unlabelled)."""

    async def score(state: TaskState, target: Target) -> Score:
        method, direction = state.metadata.get("method"), state.metadata.get("direction")
        response = state.output.completion or ""
        found_method, found_direction = detect_method(response), detect_direction(response)
        meta = {"detected_method": found_method, "detected_direction": found_direction}
        if method is None and direction is None:
            return Score.unscored(reason="no_label", explanation="the context has no consensus labels", metadata=meta)
        value = {
            "L3": float("nan") if method is None else float(found_method == method),
            "L4": float("nan") if direction is None else float(found_direction == direction),
        }
        return Score(
            value=value,
            answer=f"{found_method}/{found_direction}",
            metadata=meta,
            explanation=f"detected {found_method}, {found_direction}; labels {method}, {direction}",
        )

    return score


@metric
def agreement() -> Metric:
    """L3 and L4 agreement rates over the samples whose label exists, and how many that is."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {}
        for key in ("L3", "L4"):
            vals = [
                s.score.value[key]
                for s in scores
                if isinstance(s.score.value, dict) and not math.isnan(s.score.value[key])
            ]
            out[key] = float(np.mean(vals)) if vals else float("nan")
            out[f"{key}_n"] = float(len(vals))
        return out

    return compute
