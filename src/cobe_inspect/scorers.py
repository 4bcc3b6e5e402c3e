"""The CoBe judge scorer (§3.1, Fig. 5, App. D.2) and the metrics of §4 (Table 5, Figs. 6-9).

A response passes only when all three checks pass (§3.1 "Pipeline"):

- E0: every causal connector in the rewrite states the relationship correctly (the shared check);
- E1: every fact of the first ``Evaluation criteria`` string still holds (preservation);
- E2: every fact of the second string is changed or removed (required changes; removal counts, §3.1
  "Evaluation limitation").

Each check is one call to the ``grader`` model role (the three run concurrently) answered with exactly one
letter, T (check satisfied) or F. A reply that is not exactly one letter is asked again, as a follow-up turn,
up to ``retries`` times; if a check still has no letter the sample is ``Score.unscored(reason="grader_failed")``
with every raw reply in the metadata, so it is excluded from the metrics and counted, never scored wrong. A
judge call that fails outright (an API error after inspect's own retries) leaves the sample unscored too, with
reason ``grader_error`` and the error message.

Judge provenance: the judge is the ``grader`` model role (``--model-role grader=...``). With no grader bound,
or a grader that is the model under test, the scorer refuses (one sentence) unless ``self_judge=True``: the
paper judged with a separate model (Claude-Opus-4.7), and a self-judged number is not comparable to it. Every
score records the judge model, whether it was the model under test (``self_judged``), and the judge-prompt set
(name and sha256); the ``self_judged`` metric is the share of samples the model under test judged.

Tier 4 (H2) asks for the final story after a marker line, and the judge reads what follows it; a reply without
the marker is judged whole and its score records ``marker_missing`` (counted by the ``marker_missing`` metric).
The judge's ``$query`` is the sample's rewrite request alone (metadata ``request``), never the story.

Cost: identical judge prompts within a run are sent once (an in-run memo shared by all samples), and judge
calls go through inspect's model cache by default, so re-scoring a log (``inspect score``) with the same
grader does not pay again.
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer, stderr
from inspect_ai.solver import TaskState

from causal_suite.errors import SuiteInputError
from causal_suite.scores import is_unscored
from causal_suite.uncertainty import RateEstimate, rate, rate_interval
from cobe_inspect.prompts import CHECKS, FINAL_STORY_MARKER, JUDGE_RETRY, judge_prompt, load_judge_prompts
from cobe_inspect.records.paper import paper_results

DEFAULT_RETRIES = 2
# A verdict depends on the judge prompt only, not on the epoch that produced the rewrite.
JUDGE_CACHE = CachePolicy(expiry="1W", per_epoch=False)


PAPER_JUDGE = "Claude-Opus-4.7"
GRADER_ROLE = "grader"


def self_judge_refusal(model: str | None, bound: bool) -> SuiteInputError:
    """The one-sentence refusal when the model under test would judge its own rewrites without consent."""
    who = f"the model under test ({model})" if model else "the model under test"
    if bound:
        why = f"the '{GRADER_ROLE}' role is bound to {who}, which would then judge its own rewrites"
    else:
        why = f"no '{GRADER_ROLE}' model role is bound, so {who} would judge its own rewrites"
    return SuiteInputError(
        f"CoBe needs a separate judge, but {why}: bind one with --model-role {GRADER_ROLE}=<model> (the paper "
        f"judged with {PAPER_JUDGE}), or pass -T self_judge=true to accept a self-judged run (marked self_judged "
        f"in the log and metrics)."
    )


def resolve_grader(model_under_test: str | None, self_judge: bool) -> tuple[Model | None, bool]:
    """The judge model and whether it is the model under test; refuses a self-judged run without ``self_judge``.

    ``model_under_test`` is the evaluated model's name (None when unknown, e.g. outside an eval). With no grader
    role bound the judge is the model under test (inspect's fallback), or None when there is none.
    """
    bound = model_roles().get(GRADER_ROLE)
    if bound is None:
        if not self_judge:
            raise self_judge_refusal(model_under_test, bound=False)
        try:
            grader: Model | None = get_model(role=GRADER_ROLE)
        except Exception:  # no active model (task built outside an eval)
            grader = None
        return grader, True
    grader = get_model(role=GRADER_ROLE)
    same = model_under_test is not None and str(grader) == model_under_test
    if same and not self_judge:
        raise self_judge_refusal(model_under_test, bound=True)
    return grader, same


def parse_verdict(reply: str) -> int | None:
    """Strict reading of a judge reply: exactly ``T`` -> 1, exactly ``F`` -> 0 (surrounding blanks ignored)."""
    return {"T": 1, "F": 0}.get(reply.strip())


def judged_text(completion: str, tier: int | None) -> str:
    """The text the judge sees: the whole reply, or for Tier 4 the story after the last final-story marker."""
    if tier == 4 and FINAL_STORY_MARKER in completion:
        return completion.rsplit(FINAL_STORY_MARKER, 1)[1].strip()
    return completion.strip()


def marker_record(completion: str, tier: int | None) -> dict[str, bool]:
    """``{"marker_missing": ...}`` for a Tier-4 reply (True: no final-story marker, so the judge saw the whole
    reply, steps and graph included); empty for the other tiers, which ask for no marker."""
    return {"marker_missing": FINAL_STORY_MARKER not in completion} if tier == 4 else {}


class JudgeMemo:
    """Sends each distinct (grader, conversation) once per run; concurrent duplicates wait for the first."""

    def __init__(self) -> None:
        self._replies: dict[tuple, str] = {}
        self._locks: dict[tuple, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def complete(self, grader: Model, messages: list[ChatMessage], cache: bool) -> str:
        key = (str(grader), tuple((m.role, m.text) for m in messages))
        async with self._locks[key]:
            if key not in self._replies:
                output = await grader.generate(messages, cache=JUDGE_CACHE if cache else False)
                self._replies[key] = output.completion
            return self._replies[key]


class JudgeError(Exception):
    """A judge call that raised (after inspect's own retries); the sample is left unscored with its message."""


async def judge_check(
    grader: Model, prompt: str, retries: int, memo: JudgeMemo, cache: bool = True
) -> tuple[int | None, list[str]]:
    """One check: the verdict (1 = T, 0 = F, None = no readable letter after ``retries`` re-asks) and all replies.

    Raises:
        JudgeError: the judge model call itself failed (its error message is kept).
    """
    messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
    replies: list[str] = []
    for _ in range(retries + 1):
        try:
            reply = await memo.complete(grader, messages, cache)
        except Exception as exc:  # an API / provider error; cancellation (BaseException) passes through
            raise JudgeError(f"{type(exc).__name__}: {exc}") from exc
        replies.append(reply)
        verdict = parse_verdict(reply)
        if verdict is not None:
            return verdict, replies
        messages = [*messages, ChatMessageAssistant(content=reply), ChatMessageUser(content=JUDGE_RETRY)]
    return None, replies


async def _checked(check, grader, prompt, retries, memo, cache) -> tuple[int | None, list[str], str | None]:
    """``judge_check`` with a judge error turned into ``(None, [], message)`` so the other checks still finish."""
    try:
        verdict, replies = await judge_check(grader, prompt, retries, memo, cache)
        return verdict, replies, None
    except JudgeError as exc:
        return None, [], f"{check}: {exc}"


# --- metrics (§4) -----------------------------------------------------------------------------------------------


def _value(s: SampleScore, key: str) -> float:
    value = s.score.value
    return float(value[key]) if isinstance(value, dict) else math.nan


def _scored(scores: list[SampleScore]) -> list[SampleScore]:
    return [s for s in scores if not is_unscored(s.score.value)]


CLUSTER = "core_id"
"""The unit of independence: a core example (``317``) with all its variations (``317v3``) and their phrasings,
which share one story (the paper's 2,000 items are variations of about 106 cores)."""


def core_rate(scored: list[SampleScore], value_of: Callable[..., float]) -> RateEstimate:
    """The mean of ``value_of(score value)`` over scored samples, with inspect's ``stderr`` clustered by core
    example (NaN below two cores), its Wilson interval, the samples and the cores."""
    values = [value_of(s.score.value) for s in scored]
    cores = len({(s.sample_metadata or {}).get(CLUSTER) for s in scored})
    if not values:
        return rate([], [])
    se = float(stderr(to_float=value_of, cluster=CLUSTER)(scored)) if cores > 1 else math.nan  # type: ignore[arg-type]
    return rate_interval(float(np.mean(values)), se, len(values), cores)


def _correct(value: Any) -> float:
    return float(value["correct"])


@metric(name="cobe_accuracy")
def cobe_accuracy() -> Metric:
    """Share of scored responses passing all three checks (§3.1), with its uncertainty clustered by core example.

    ``accuracy_se`` is inspect's ``stderr(cluster="core_id")``: the variations of one core example and their
    phrasings share a story and its criteria, so their outcomes are correlated; beside it the 95 % Wilson interval
    (``accuracy_low`` / ``accuracy_high``), the scored samples (``accuracy_n``) and cores (``accuracy_clusters``).
    ``accuracy_se_iid`` is the naive SE that treats every response as independent.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        scored = _scored(scores)
        n = len(scored)
        iid = float(np.std([_correct(s.score.value) for s in scored], ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        return core_rate(scored, _correct).metrics("accuracy") | {"accuracy_se_iid": iid}

    return compute


# Fig. 6's sub-criteria: the failure rate of the checks a record tags as testing a numeric quantity (E4) or a
# latent factor implicit in the story (E5), over the samples of records carrying such a tag.
SUBCRITERIA = {"E4_numeric_failure": "numeric_checks", "E5_latent_failure": "latent_checks"}


@metric(name="check_failure_rates")
def check_failure_rates() -> Metric:
    """Failure rate of each check, E0 (connectors), E1 (preserve), E2 (change), each with its uncertainty clustered
    by core example, and the E4 / E5 sub-criteria (Fig. 6): a tagged sample fails E4 (E5) when any check its record
    tags numeric (latent) fails, with the same uncertainty over the tagged samples; NaN when no scored sample's
    record carries the tag."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        scored = _scored(scores)
        rates: dict[str, float] = {}
        for c in CHECKS:
            rates |= core_rate(scored, lambda value, c=c: 1 - float(value[c])).metrics(f"{c}_failure")
        for name, key in SUBCRITERIA.items():
            tagged = [
                SampleScore(
                    score=Score(value={"failed": float(any(_value(s, c) == 0 for c in checks))}),
                    sample_id=s.sample_id,
                    sample_metadata=s.sample_metadata,
                )
                for s in scored
                if (checks := (s.sample_metadata or {}).get(key))
            ]
            rates |= core_rate(tagged, lambda value: float(value["failed"])).metrics(name)
        return rates

    return compute


@metric(name="judge_provenance")
def judge_provenance() -> Metric:
    """``self_judged``: share of the scored samples whose judge was the model under test (NaN with none)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        flags = [
            float(bool(s.score.metadata["self_judged"]))
            for s in scores
            if s.score.metadata and "self_judged" in s.score.metadata
        ]
        return {"self_judged": float(np.mean(flags)) if flags else math.nan}

    return compute


@metric(name="final_story_marker")
def final_story_marker() -> Metric:
    """``marker_missing``: share of the scored Tier-4 (H2) samples whose reply has no final-story marker, so the
    judge read the whole reply, steps included (NaN when none is Tier 4); ``marker_missing_n``: those samples."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        flags = [
            float(s.score.metadata["marker_missing"])
            for s in scores
            if s.score.metadata and "marker_missing" in s.score.metadata
        ]
        return {"marker_missing": float(np.mean(flags)) if flags else math.nan, "marker_missing_n": len(flags)}

    return compute


@metric(name="grouped_accuracy")
def grouped_accuracy(key: str) -> Metric:
    """Accuracy per value of the sample-metadata ``key`` (domain, graph_type, phrasing, failure_mode, tier).

    Figs. 7-9 break accuracy down by graph type, query phrasing and failure mode. Samples without the tag
    fall in the group ``unlabeled``. Metric names are ``"{key}={group}"``, each with its uncertainty clustered by
    core example beside it (``"{key}={group}_se"``, ``_low``, ``_high``, ``_n``, ``_clusters``); with no scored sample there is no
    group, and the breakdown reports one NaN named ``key`` (not inspect's anonymous ``grouped_accuracy{n}``).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        groups: dict[str, list[SampleScore]] = defaultdict(list)
        for s in _scored(scores):
            label = (s.sample_metadata or {}).get(key)
            groups[f"{key}={'unlabeled' if label is None else label}"].append(s)
        if not groups:
            return {key: math.nan}
        out: dict[str, float] = {}
        for name, members in sorted(groups.items()):
            out |= core_rate(members, _correct).metrics(name)
        return out

    return compute


@metric(name="paper_weighted_accuracy")
def paper_weighted_accuracy() -> Metric:
    """Accuracy with the graph types weighted by their shares in the paper's data (Table 4: 51 % chains, ...).

    ``paper_weighted_accuracy`` is sum_t w_t * accuracy_t / sum_t w_t over the graph types t that have scored samples
    (the built-in set holds six of each type, so its pooled ``accuracy`` weights them equally);
    ``paper_weighted_accuracy_types`` is how many of the paper's six types it covers. NaN when no scored sample
    carries a graph type the paper lists (published records carry none).
    """
    shares: dict[str, float] = paper_results()["table4_graph"]

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_type: dict[str, list[float]] = defaultdict(list)
        for s in _scored(scores):
            graph = (s.sample_metadata or {}).get("graph_type")
            if graph in shares:
                by_type[graph].append(_correct(s.score.value))
        total = sum(shares[t] for t in by_type)
        value = sum(shares[t] * float(np.mean(v)) for t, v in by_type.items()) / total if total else math.nan
        return {"paper_weighted_accuracy": value, "paper_weighted_accuracy_types": len(by_type)}

    return compute


@metric(name="phrasing_summary")
def phrasing_summary() -> Metric:
    """Table 5: accuracy averaged over phrasings ± the sample std across phrasings; and scenario-level accuracy.

    ``phrasing_mean`` is the mean of the per-phrasing accuracies and ``phrasing_std`` their standard deviation
    (ddof = 1, which reproduces Table 5's ± from Fig. 8's per-phrasing bars). ``scenario_accuracy`` averages,
    over scenarios, each scenario's accuracy over its scored phrasings.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        by_phrasing: dict[str, list[float]] = defaultdict(list)
        by_scenario: dict[str, list[float]] = defaultdict(list)
        for s in _scored(scores):
            meta = s.sample_metadata or {}
            by_phrasing[str(meta.get("phrasing"))].append(_value(s, "correct"))
            by_scenario[str(meta.get("scenario_id", s.sample_id))].append(_value(s, "correct"))
        per_phrasing = [float(np.mean(v)) for v in by_phrasing.values()]
        per_scenario = [float(np.mean(v)) for v in by_scenario.values()]
        return {
            "phrasing_mean": float(np.mean(per_phrasing)) if per_phrasing else math.nan,
            "phrasing_std": float(np.std(per_phrasing, ddof=1)) if len(per_phrasing) > 1 else None,
            "scenario_accuracy": float(np.mean(per_scenario)) if per_scenario else math.nan,
        }

    return compute


GROUP_KEYS = ("domain", "graph_type", "phrasing", "failure_mode", "tier")


COMPARED_GROUPS = ("domain", "graph_type", "phrasing")


def comparison_units(scores: list[SampleScore]) -> dict[str, dict[Any, tuple[Any, float, float]]]:
    """What ``causal-suite compare`` pairs, per metric: sample -> (core example, value, 1) for accuracy, each
    check's failure and accuracy by domain, graph type and phrasing."""
    out: dict[str, dict[Any, tuple[Any, float, float]]] = defaultdict(dict)
    for s in _scored(scores):
        meta, value = s.sample_metadata or {}, s.score.value
        core = meta.get(CLUSTER)
        out["accuracy"][s.sample_id] = (core, _correct(value), 1.0)
        for check in CHECKS:
            out[f"{check}_failure"][s.sample_id] = (core, 1 - _value(s, check), 1.0)
        for key in COMPARED_GROUPS:
            out[f"{key}={meta.get(key, 'unlabeled')}"][s.sample_id] = (core, _correct(value), 1.0)
    return dict(out)


def cobe_metrics() -> list[Metric]:
    """Every metric the CoBe task reports (all in one results block of the log)."""
    return [
        cobe_accuracy(),
        check_failure_rates(),
        judge_provenance(),
        final_story_marker(),
        paper_weighted_accuracy(),
        phrasing_summary(),
        *(grouped_accuracy(key) for key in GROUP_KEYS),
    ]


# --- scorer ---------------------------------------------------------------------------------------------------


def _explain(verdicts: dict[str, int | None]) -> str:
    return " ".join(f"{c}={'T' if v == 1 else 'F' if v == 0 else '?'}" for c, v in verdicts.items())


@scorer(metrics=cobe_metrics(), name="cobe_judge")
def cobe_judge(
    judge_prompts: str | Path | None = None,
    retries: int = DEFAULT_RETRIES,
    cache: bool = True,
    self_judge: bool = False,
) -> Scorer:
    """E0/E1/E2 judge of §3.1 through the ``grader`` role; value ``{E0, E1, E2, correct}`` in {0, 1}.

    Args:
        judge_prompts: Optional JSON/YAML file whose ``E0`` / ``E1`` / ``E2`` entries replace our judge templates.
        retries: How many times an unreadable judge reply is asked again before the sample is unscored.
        cache: Route judge calls through inspect's model cache (so re-scoring a log does not pay twice).
        self_judge: Allow the model under test to judge its own rewrites (no grader bound, or the grader is the
            model under test); without it such a run is refused. Self-judged scores are marked.
    """
    prompt_set = load_judge_prompts(judge_prompts)
    templates = prompt_set.templates
    prompt_id = f"{prompt_set.name} sha256:{prompt_set.sha256[:12]}"
    memo = JudgeMemo()

    def fill(check: str, text: str, state: TaskState) -> str:
        meta = state.metadata
        request = meta.get("request", state.input_text)  # logs before task version 3 lack it: their whole prompt
        return judge_prompt(templates[check], text, meta["preserve"], meta["change"], meta["story"], request)

    async def score(state: TaskState, target: Target) -> Score:
        grader, self_judged = resolve_grader(str(state.model), self_judge)
        if grader is None:  # only outside an eval with nothing to judge with
            raise self_judge_refusal(str(state.model), bound=False)
        completion, tier = state.output.completion, state.metadata.get("tier")
        provenance = {"grader": str(grader), "self_judged": self_judged, "judge_prompts": prompt_id}
        provenance |= marker_record(completion, tier)
        text = judged_text(completion, tier)
        if not text:
            return _empty_reply_score(provenance)
        results = await asyncio.gather(
            *(_checked(c, grader, fill(c, text, state), retries, memo, cache) for c in CHECKS)
        )
        return _verdict_score(results, text, provenance, retries)

    return score


def _empty_reply_score(provenance: dict[str, Any]) -> Score:
    """An empty rewrite keeps no fact (E1 fails); with nothing said, E0 and E2 hold by their rubrics."""
    value = {"E0": 1, "E1": 0, "E2": 1, "correct": 0}
    return Score(
        value=value,
        answer="",
        explanation="empty response: E0=T E1=F E2=T (no judge call)",
        metadata=provenance | {"judge_replies": {}},
    )


def _verdict_score(
    results: list[tuple[int | None, list[str], str | None]], text: str, provenance: dict[str, Any], retries: int
) -> Score:
    """The sample's score from its per-check judge results (in ``CHECKS`` order): unscored with the reason when a
    judge call failed or a reply stayed unreadable, else the three verdicts and ``correct`` (all of them pass)."""
    verdicts = {c: verdict for c, (verdict, _, _) in zip(CHECKS, results, strict=False)}
    errors = [error for _, _, error in results if error]
    metadata = {"judge_replies": {c: replies for c, (_, replies, _) in zip(CHECKS, results, strict=False)}} | provenance
    if errors:
        return Score.unscored(
            reason="grader_error",
            answer=text,
            explanation=f"the judge call failed ({'; '.join(errors)})",
            metadata=metadata | {"judge_errors": errors},
        )
    unread = [c for c, v in verdicts.items() if v is None]
    if unread:
        return Score.unscored(
            reason="grader_failed",
            answer=text,
            explanation=f"no single-letter T/F reply for {', '.join(unread)} after {retries + 1} attempts "
            f"({_explain(verdicts)})",
            metadata=metadata,
        )
    value = {c: int(v) for c, v in verdicts.items() if v is not None}
    value["correct"] = int(all(value.values()))
    return Score(value=value, answer=text, explanation=_explain(verdicts), metadata=metadata)
