"""The CoBe task: conversational counterfactual text editing (Raghavan et al., "CoBe: A Benchmark for
Conversational Counterfactual Text Editing", arXiv:2610.13057; §3, §3.1, §4, App. E).

Each scenario's story is shown with a rewrite request of the chosen tier; the reply is judged by the
``grader`` role on three checks (E0 connectors, E1 preserve, E2 change) and is correct only if all pass.

Examples::

    inspect eval cobe_inspect/cobe --model openai/gpt-4o --model-role grader=anthropic/claude-opus-4-1
    inspect eval cobe_inspect/cobe -T tier=2 -T phrasings=D -T data=converted.jsonl --model-role grader=...
    inspect eval cobe_inspect/cobe -T judge_prompts=paper_judge.yaml -T tier_prompts=paper_tiers.yaml ...
    inspect eval cobe_inspect/cobe --model offline/gemma-3-270m -T self_judge=true --limit 2   # plumbing only
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.solver import generate

from causal_suite.errors import strict_params
from causal_suite.eval_meta import task_version
from causal_suite.inspect_compat import active_model
from causal_suite.params import TaskParams
from causal_suite.plan import REQUESTS_KEY, RoleCalls, declare_requests
from causal_suite.subset import subset_dataset
from cobe_inspect.dataset import BUILTIN_DATA, cobe_dataset
from cobe_inspect.prompts import CHECKS, PromptSet, load_judge_prompts, load_tier_templates
from cobe_inspect.scorers import DEFAULT_RETRIES, GRADER_ROLE, PAPER_JUDGE, cobe_judge, resolve_grader

TASK_VERSION = task_version("cobe_inspect", "cobe")
MAX_RETRIES = 20  # judge re-asks per check at most


def judge_record(self_judge: bool, prompt_set: PromptSet) -> dict[str, Any]:
    """Who judges this run, with which generate config and prompt set (refuses an unconsented self-judged run).

    Inside an eval (inspect builds the task there, with the model and its roles bound) the judge is checked now,
    before any sample runs. A task built outside an eval (``eval(cobe(), model_roles=...)``) cannot know its judge
    yet: the scorer checks it when scoring, and the record says so.
    """
    prompts = prompt_set.describe()
    model = active_model()
    if model is None:
        return {
            "model": None,
            "self_judged": None,
            "prompts": prompts,
            "paper_judge": PAPER_JUDGE,
            "note": "task built outside an eval: the judge is checked and recorded per sample when scoring",
        }
    grader, self_judged = resolve_grader(str(model), self_judge)
    return {
        "model": None if grader is None else str(grader),
        "self_judged": self_judged,
        "generate_config": {} if grader is None else grader.config.model_dump(exclude_none=True),
        "prompts": prompts,
        "paper_judge": PAPER_JUDGE,
    }


def requests(prompt_set: PromptSet, retries: int) -> list[dict]:
    """The calls of one sample (``causal-suite plan``): the rewrite, then one judge call per check (§3.1), each
    asked again up to ``retries`` times while unreadable; its prompt holds the template, the story and the rewrite."""
    templates = prompt_set.templates
    template_chars = sum(len(templates[c]) for c in CHECKS) // len(CHECKS)
    judge = RoleCalls(
        GRADER_ROLE, len(CHECKS), len(CHECKS) * (1 + retries), template_chars, with_input=True, with_response=True
    )
    return declare_requests(RoleCalls(), judge)


@task(name="cobe")
@strict_params
def cobe(
    data: str | None = None,
    tier: int = 1,
    phrasings: str | list[str] | None = None,
    judge_prompts: str | None = None,
    tier_prompts: str | None = None,
    self_judge: bool = False,
    judge_retries: int = DEFAULT_RETRIES,
    judge_cache: bool = True,
    subset: int | None = None,
    subset_seed: int = 0,
) -> Task:
    """CoBe: one sample per (scenario, phrasing), judged on E0/E1/E2 by the ``grader`` model role.

    Args:
        data: Path to a CoBe file (JSON array, JSONL or a JSON object keyed by id, of records in the App. B.2
            schema; ``cobe-data convert`` makes one from the published layouts); default: the built-in set of
            36 scenarios we wrote (six per graph type, six domains).
        tier: Prompt tier of App. E: 1 (the records' own queries A-C, and Q4... where published), 2 (D-G),
            3 (H1, explicit preservation instruction) or 4 (H2, step-by-step causal recipe).
        phrasings: Which of the tier's phrasings to run, e.g. ``"A,C"`` or ``["D"]``; default: all of them.
        judge_prompts: Optional JSON/YAML file with ``E0`` / ``E1`` / ``E2`` judge templates replacing ours
            (placeholders ``$response_text``, ``$eq1``, ``$eq2``, ``$story``, ``$query``).
        tier_prompts: Optional JSON/YAML file with respondent templates (keys ``tier1``, ``D``-``G``, ``H1``,
            ``H2``; placeholders ``$story``, ``$query``, ``$intervention``, ``$original``, ``$intervened``,
            ``$request``) replacing ours.
        self_judge: Let the model under test judge its own rewrites when no separate ``grader`` is bound (or the
            grader is the model under test); refused otherwise. Self-judged runs are marked in the log.
        judge_retries: How many times an unreadable judge reply is asked again before the sample is unscored (0 to
            20).
        judge_cache: Send judge calls through inspect's model cache, so re-scoring a log does not pay again.
        subset: Keep N core examples, each with all its variations and phrasings, drawn with ``subset_seed`` (a
            representative small run; ``--limit N`` takes the first N samples in file order). Default: all.
        subset_seed: Seed of the ``subset`` draw (default 0).
    """
    check = TaskParams("cobe")
    data, judge_prompts = check.text("data", data), check.text("judge_prompts", judge_prompts)
    tier_prompts = check.text("tier_prompts", tier_prompts)
    tier = check.integer("tier", tier, at_least=1, at_most=4)
    phrasings = check.items("phrasings", phrasings, "phrasings")
    self_judge, judge_cache = check.boolean("self_judge", self_judge), check.boolean("judge_cache", judge_cache)
    judge_retries = check.integer("judge_retries", judge_retries, at_least=0, at_most=MAX_RETRIES)
    subset, subset_seed = check.subset(subset, subset_seed)
    respondent = load_tier_templates(tier_prompts)
    dataset = subset_dataset(
        cobe_dataset(data, tier, phrasings, respondent), subset, "core_id", seed=subset_seed, what="core examples"
    )
    scorer = cobe_judge(judge_prompts=judge_prompts, retries=judge_retries, cache=judge_cache, self_judge=self_judge)
    judges = load_judge_prompts(judge_prompts)  # read once for the log's record and the plan's request sizes
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=scorer,
        version=TASK_VERSION,
        headline_metric=HeadlineMetric(metric="accuracy"),  # the viewer's log list and header lead with it
        metadata=_task_metadata(data, tier, judge_record(self_judge, judges), respondent, subset, subset_seed)
        | {REQUESTS_KEY: requests(judges, judge_retries)},
    )


def _task_metadata(
    data: str | None, tier: int, judge: dict[str, Any], respondent: PromptSet, subset: int | None, seed: int
) -> dict[str, Any]:
    """The CoBe task's log metadata (before the calls of one sample): data file, tier, judge, respondent prompts
    and the ``subset`` draw."""
    return {
        "benchmark": "CoBe",
        "tier": tier,
        "data": "built-in" if data is None else str(data),
        "builtin": data is None or str(data) == str(BUILTIN_DATA),
        "judge": judge,
        "respondent_prompts": respondent.describe(),
        "subset": None if subset is None else {"core_examples": subset, "seed": seed},
    }
