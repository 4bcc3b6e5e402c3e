"""CausalVerify tasks (paper: "CausalVerify: An Execution-Grounded Benchmark for LLM Causal Inference Workflows").

Exp B (§3-4, App. C): the model writes R for a synthetic scenario, the R runs in a sandbox, the printed estimate is
checked against the canonical estimate on the same CSV. Exp A (§3-4): a research plan for a real-paper context,
scored for method family (L3) and direction (L4) against consensus labels (see :mod:`causalverify_inspect.scorers`).

    inspect eval causalverify_inspect/exp_b --model <provider/model> --model-role extractor=<provider/model>
    inspect eval causalverify_inspect/exp_b -T sandbox=confined -T scenarios=../shared/data/causalverify \\
        -T responses=../shared/data/causalverify/experiments/exp_b/outputs -T responses_model=claude-opus-4-6 \\
        --model mockllm/model
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Dataset
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Solver, generate, system_message
from inspect_ai.util import SandboxEnvironmentSpec

from causal_suite.errors import SuiteInputError, strict_params
from causal_suite.eval_meta import task_version
from causal_suite.params import TaskParams
from causal_suite.plan import REQUESTS_KEY, RoleCalls, declare_requests
from causal_suite.subset import subset_dataset
from causalverify_inspect.dataset import check_cached_responses, exp_a_dataset, exp_b_dataset, scenarios_digest
from causalverify_inspect.exp_a_scorer import exp_a_scorer
from causalverify_inspect.prompts import (
    CALIBRATION_RESPONSE_CHARS,
    CALIBRATION_STDOUT_CHARS,
    CALIBRATION_SYSTEM,
    CALIBRATION_USER,
    EXP_A_SYSTEM,
    EXP_B_SYSTEM,
    EXTRACTOR_SYSTEM,
    EXTRACTOR_USER,
)
from causalverify_inspect.sandbox.choice import SandboxChoice, announce, choose_sandbox
from causalverify_inspect.scorers import EXTRACTOR_STDOUT_CHARS, exp_b_scorer
from causalverify_inspect.solvers import rate_own_workflow, replay_response, run_r_block

ES_WINDOW_RULES = ("strict", "cumulative")
MAX_TIMEOUT = 24 * 3600  # seconds: the longest R run a task may ask for


def sandbox_spec(sandbox: str, timeout: int, profile: str = "full") -> SandboxEnvironmentSpec:
    """The inspect sandbox spec for ``sandbox`` on this machine (see :func:`resolve_sandbox`)."""
    return resolve_sandbox(sandbox, profile).spec(timeout)


def resolve_sandbox(sandbox: str, profile: str = "full") -> SandboxChoice:
    """``auto``, ``docker`` (rocker/CRAN image of ``profile``), ``docker-debian`` (Debian-only image) or ``confined``
    (bubblewrap; ``local`` is accepted as an alias), resolved here (:mod:`causalverify_inspect.sandbox.choice`)."""
    return choose_sandbox(sandbox, profile)


def exp_b_requests(replayed: bool, calibration: bool) -> list[dict]:
    """The calls of one sample (``causal-suite plan``): the R-writing request (none when cached responses are
    replayed), the calibration rating (§5) when asked for, and at most one ``extractor`` call, made only when the
    deterministic rules abstain on the R output."""
    shown = CALIBRATION_RESPONSE_CHARS + CALIBRATION_STDOUT_CHARS  # at most
    calibrate = len(CALIBRATION_SYSTEM) + len(CALIBRATION_USER) + shown
    return declare_requests(
        RoleCalls(calls=0 if replayed else 1, prompt_chars=len(EXP_B_SYSTEM)),
        RoleCalls(calls=int(calibration), prompt_chars=calibrate, with_input=False),
        RoleCalls("extractor", 0, 1, len(EXTRACTOR_SYSTEM) + len(EXTRACTOR_USER) + EXTRACTOR_STDOUT_CHARS, False),
    )


def exp_b_responder(responses: str | None, responses_model: str | None, dataset: Dataset) -> list[Solver]:
    """The solvers that answer each scenario: the cached responses of ``responses_model`` in ``responses`` (each
    scenario's file checked before the run), else the system prompt and a model call."""
    if responses is None:
        return [system_message(EXP_B_SYSTEM), generate()]
    if not responses_model:
        raise SuiteInputError("exp_b: parameter 'responses_model' (the cached responses' model slug) is missing.")
    check_cached_responses(responses, responses_model, [str(s.id) for s in dataset])
    return [replay_response(responses, responses_model)]


@task(name="exp_b")
@strict_params
def exp_b(
    scenarios: str | None = None,
    ids: str | list[str] | None = None,
    sandbox: str = "auto",
    profile: str = "full",
    tolerance: float = 0.5,
    timeout: int = 60,
    es_windows: str = "strict",
    responses: str | None = None,
    responses_model: str | None = None,
    upstream_wrapper: bool | None = None,
    calibration: bool = False,
    subset: int | None = None,
    subset_seed: int = 0,
) -> Task:
    """Exp B: model-written R, executed in a sandbox, scored L1 / L2a / L2b / L2b+ (paper §4).

    Args:
        scenarios: Scenario source: None for the built-in set, a folder written by ``causalverify-data``, or a
            folder in upstream's layout (holding ``experiments/exp_b/scenarios/``).
        ids: Scenario ids to run (a list or a comma-separated string); all when None.
        sandbox: ``auto`` (of the Docker images present or buildable and ``confined``, the one lacking the fewest
            reference R packages, Docker on a tie), ``docker`` (the rocker/CRAN image in ``sandboxes/r``),
            ``docker-debian`` (the image built only from Debian packages) or ``confined`` (bubblewrap on this
            machine). The choice is printed and kept in the task metadata (``r_environment``) with the reference R
            packages the environment lacks and the R and package versions (this machine's R for ``confined``, a
            present image for Docker).
        profile: Reference R package set: ``full`` (default) or ``upstream`` (upstream's scoring environment: no
            stargazer, no rdd, so code failing on them fails as it did upstream; for replays compared with the
            published scores; it pins rdrobust 3.x, rddensity 2.x and fixest 0.12-0.13, and a present version
            outside its pin is printed and flagged in the scores). Selects the image of ``docker``; with
            ``confined`` it sets what counts as missing.
        tolerance: L2b+ passes when |est - canonical| / |canonical| <= tolerance (paper default 0.5; a number > 0).
        timeout: Wall-clock seconds for each R run (a whole number, 1 to 86400).
        es_windows: Event-study rule: ``strict`` (per-day, a labelled window is divided by its post-event days) or
            ``cumulative`` (upstream's v2 rule: best multiple k = 1..11 of the per-day canonical).
        responses: Folder of cached responses in upstream's format (``{sid}_{slug}.json``); when given they are
            replayed instead of calling the model.
        responses_model: Model string or slug of the cached responses (required with ``responses``).
        upstream_wrapper: Run code inside upstream's wrapper (no auto-print, warnings and messages off); defaults
            to True when replaying and False otherwise.
        calibration: Add the calibration arm: the model rates its own workflow (paper §5).
        subset: Keep N scenarios drawn with ``subset_seed``, stratified by method family (each family its share,
            at least one while N allows): a representative small run; ``--limit N`` takes the first N in file
            order instead. Default: every scenario.
        subset_seed: Seed of the ``subset`` draw (default 0).
    """
    check = TaskParams("exp_b")
    scenarios, responses = check.text("scenarios", scenarios), check.text("responses", responses)
    responses_model = check.text("responses_model", responses_model)
    ids = check.items("ids", ids, "scenario ids")
    sandbox, profile = check.text("sandbox", sandbox, optional=False), check.text("profile", profile, optional=False)
    tolerance = check.number("tolerance", tolerance, above=0)
    timeout = check.integer("timeout", timeout, at_least=1, at_most=MAX_TIMEOUT)
    es_windows = check.choice("es_windows", es_windows, ES_WINDOW_RULES)
    upstream_wrapper = check.boolean("upstream_wrapper", upstream_wrapper, optional=True)
    calibration = check.boolean("calibration", calibration)
    subset, subset_seed = check.subset(subset, subset_seed)
    dataset = subset_dataset(exp_b_dataset(scenarios, ids), subset, None, "family", subset_seed, what="scenarios")
    respond = exp_b_responder(responses, responses_model, dataset)
    wrapper = responses is not None if upstream_wrapper is None else upstream_wrapper
    choice = resolve_sandbox(sandbox, profile)
    announce(choice)
    spec = choice.spec(timeout)
    solver = [*respond, run_r_block(timeout=timeout, upstream_wrapper=wrapper, sandbox_type=spec.type)]
    if calibration:
        solver.append(rate_own_workflow())
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=exp_b_scorer(
            tolerance=tolerance,
            es_windows=es_windows,
            calibration=calibration,
            reference=choice.reference,
            outside_pins=choice.outside_pins,
        ),
        sandbox=spec,
        config=GenerateConfig(max_tokens=8192),
        version=task_version("causalverify_inspect", "exp_b"),
        headline_metric=HeadlineMetric(metric="L2b_plus"),  # the viewer's log list and header lead with it
        metadata={
            "tolerance": tolerance,
            "scenarios_sha256": scenarios_digest(list(dataset)),
            "es_windows": es_windows,
            "sandbox": choice.sandbox,
            "sandbox_requested": sandbox,
            "profile": choice.profile,
            "r_environment": choice.metadata(),
            "replayed_model": responses_model if responses else None,
            "upstream_wrapper": wrapper,
            "subset": None if subset is None else {"scenarios": subset, "seed": subset_seed},
            REQUESTS_KEY: exp_b_requests(responses is not None, calibration),
        },
    )


@task(name="exp_a")
@strict_params
def exp_a(contexts: str | None = None, labels: str | None = None) -> Task:
    """Exp A: a research plan per paper context; L3 method-family and L4 direction agreement (paper §3-4).

    Args:
        contexts: JSON list or JSONL file of contexts (paper_id, research_question, data_description,
            institutional_context, optional method and direction labels); None for our built-in contexts.
        labels: Optional labels file in upstream's consensus format (list of {paper_id, new_method,
            new_direction}); its labels override those in ``contexts``.
    """
    check = TaskParams("exp_a")
    contexts, labels = check.text("contexts", contexts), check.text("labels", labels)
    return Task(
        dataset=exp_a_dataset(contexts, labels),
        solver=[system_message(EXP_A_SYSTEM), generate()],
        scorer=exp_a_scorer(),
        config=GenerateConfig(max_tokens=8192),
        version=task_version("causalverify_inspect", "exp_a"),
        headline_metric=HeadlineMetric(metric="L3"),
        metadata={REQUESTS_KEY: declare_requests(RoleCalls(prompt_chars=len(EXP_A_SYSTEM)))},
    )
