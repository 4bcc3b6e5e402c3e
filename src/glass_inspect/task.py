"""GlassGSM / GlassMATH break-event evaluation (*Fragility Is Not Reducible to Hardness: Conditional Causal
Difficulty for LLMs*, arXiv:2611.02065, §1, §3, §7 step 8, §11), and the No-Op audit task (§3.3).

Each unique prompt text of the chosen dose manifests (bases and twins; identity twins kept apart) is answered
5 times at ``temperature`` (one draw per inspect epoch, so ``--epochs N`` sets the draws and the log's eval config
says how many ran; or with ``layout=sample`` ``draws`` draws inside one sample: one request with ``num_choices``
where the provider supports it; ``solvers`` module docstring); Y is the modal extracted answer's exact match
(``scorers.modal_answer``), and
the metrics report base accuracy, break rates P(B=1 | Y(base)=1) overall / per family / per dose, mean pi,
the fragile fraction and the identity-twin floor.

    inspect eval glass_inspect/glassgsm --model offline/gemma-3-270m --limit 2 --epochs 1
    inspect eval glass_inspect/glassmath -T corpus=out/math -T doses=1,9 -T families=sentence_reorder
    inspect eval glass_inspect/glassgsm -T layout=sample --model vllm/...   # 5 draws per request
    inspect eval glass_inspect/glassgsm -T layout=sample -T draws=3 --model vllm/...   # 3 draws per request

The task metadata ``glass`` (``log.eval.metadata["glass"]``) records the corpus, suite, doses, families and the
manifests used (dose, path, sha256), which Frail reads back with the sample metadata.

``noop_audit`` asks the ``adjudicator`` role whether each twin of a corpus keeps the gold answer; ``glass-build
audit`` (``glass_inspect.corpus.audit.apply_audit``) then writes a filtered copy of the corpus.

Task versions live in ``eval.yaml`` beside this file (see its changelog in README.md).
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig

from causal_suite.errors import SuiteInputError, require_file, strict_params
from causal_suite.eval_meta import task_version
from causal_suite.files import sha256_file
from causal_suite.params import TaskParams
from causal_suite.plan import REQUESTS_KEY, RoleCalls, declare_requests
from causal_suite.subset import subset_dataset
from glass_inspect.answers import SUITES
from glass_inspect.corpus.builtin import default_corpus
from glass_inspect.corpus.contract import DEFAULT_DOSES as DOSES
from glass_inspect.corpus.contract import TWIN_FAMILIES, parse_doses, read_corpus_info, read_pool
from glass_inspect.dataset import GlassSelection, audit_samples, glass_dataset, parse_families
from glass_inspect.prompts import render_prompt
from glass_inspect.scorers import glass_match, modal_answer, noop_verdict
from glass_inspect.solvers import adjudicate, glass_solve, parse_choices, parse_layout

DEFAULT_DOSES = ",".join(map(str, DOSES))
# Defaults written out as the values they resolve to, so the log's task_args (the viewer's header) show them
BUILTIN_CORPUS = "builtin"  # the built-in corpus of the task's suite
DEFAULT_FAMILIES = ",".join(TWIN_FAMILIES)
NUM_EPOCHS = 5  # draws per prompt (§3.1): the task's epochs, or the in-sample draws of layout=sample
TEMPERATURE = 0.2
MAX_TEMPERATURE = 2.0  # the highest sampling temperature providers accept
MAX_RETRIES = 20  # adjudicator re-asks per twin at most
EPOCHS_MOVED = {
    "epochs": "the draws per prompt are inspect's epochs: pass --epochs N (default 5; the log's eval config "
    "records what ran), or with -T layout=sample pass -T draws=N."
}


def _draws(draws: int | None, layout: str, check: TaskParams) -> int:
    """The in-sample draws of ``layout=sample`` (default 5); with ``layout=epochs`` the draws are the epochs."""
    if draws is None:
        return NUM_EPOCHS
    if layout != "sample":
        raise SuiteInputError(
            f"draws={draws!r} is for -T layout=sample; with layout=epochs the draws per prompt are inspect's "
            "epochs: pass --epochs N (default 5)."
        )
    return check.integer("draws", draws, at_least=1)


def requests(suite: str, layout: str, choices: str, draws: int) -> list[dict]:
    """The model requests of one sample per epoch (``causal-suite plan``): one draw per epoch, or with
    ``layout=sample`` one ``num_choices`` request (``auto``: plus single requests for what the provider did not
    return) or one request per draw (``choices=false``)."""
    template = len(render_prompt(suite, ""))  # the suite's prompt around each problem
    if layout != "sample":
        return declare_requests(RoleCalls(prompt_chars=template))
    per_draw = choices == "false"
    calls, at_most = (draws if per_draw else 1), (1 if choices == "true" else draws)
    return declare_requests(RoleCalls(calls=calls, at_most=at_most, prompt_chars=template))


def glass_task(
    suite: str,
    corpus: str | None,
    doses: str | int | list[int],
    families: str | list[str] | None,
    temperature: float,
    identity: bool,
    layout: str = "epochs",
    choices: str | bool = "auto",
    draws: int | None = None,
    subset: int | None = None,
    subset_seed: int = 0,
) -> Task:
    """The eval task of one suite (shared by ``glassgsm`` and ``glassmath``); validates before any model call.

    The draws per prompt are the task's epochs (5, so ``--epochs N`` overrides them and the log's eval config
    records the number that ran), or with ``layout=sample`` one epoch of ``draws`` in-sample draws (5)."""
    check = TaskParams(f"glass{suite}")
    corpus = check.text("corpus", corpus)
    temperature = check.number("temperature", temperature, at_least=0, at_most=MAX_TEMPERATURE)
    identity = check.boolean("identity", identity)
    layout, choices = parse_layout(layout), parse_choices(choices)
    n_draws = _draws(draws, layout, check)
    subset, subset_seed = check.subset(subset, subset_seed)
    if corpus in (None, BUILTIN_CORPUS):
        root = Path(default_corpus(suite))
    else:
        root = require_file(corpus, "glass corpus directory").resolve()
        if not root.is_dir():
            raise SuiteInputError(f"glass corpus directory '{root}' is a file: pass the folder `glass-build` wrote.")
    selection = GlassSelection(root, suite, parse_doses(doses), parse_families(families), identity)
    dataset, meta = glass_dataset(selection)
    dataset = subset_dataset(dataset, subset, "base_id", seed=subset_seed, what="bases")
    in_sample = layout == "sample"
    meta |= {"layout": layout} | ({"draws": n_draws, "choices": choices} if in_sample else {})
    meta |= {"subset": None if subset is None else {"bases": subset, "seed": subset_seed}}
    return Task(
        dataset=dataset,
        solver=glass_solve(suite, draws=n_draws, choices=choices) if in_sample else glass_solve(suite),
        scorer=glass_match(suite),
        epochs=Epochs(1 if in_sample else NUM_EPOCHS, modal_answer()),
        config=GenerateConfig(temperature=temperature),
        metadata={"glass": meta, REQUESTS_KEY: requests(suite, layout, choices, n_draws)},
        version=task_version("glass_inspect", f"glass{suite}"),
        headline_metric=HeadlineMetric(metric="break_rate"),  # the viewer's log list and header lead with it
    )


@task
@strict_params(hints=EPOCHS_MOVED)
def glassgsm(
    corpus: str = BUILTIN_CORPUS,
    doses: str | int | list[int] = DEFAULT_DOSES,
    families: str | list[str] = DEFAULT_FAMILIES,
    temperature: float = TEMPERATURE,
    identity: bool = True,
    layout: str = "epochs",
    choices: str | bool = "auto",
    draws: int | None = None,
    subset: int | None = None,
    subset_seed: int = 0,
) -> Task:
    """GlassGSM: GSM8K-style word problems and their meaning-preserving twins.

    Args:
        corpus: A ``glass-build`` output directory of suite ``gsm``, or ``builtin`` (default): the built-in
            corpus (built on first use from problems shipped with the package).
        doses: Dose manifests to cover, comma-separated or a list (default ``1,3,5,7,9``).
        families: Twin families to include, comma-separated (default: all three).
        temperature: Sampling temperature of every draw (default 0.2).
        identity: Include identity twins (the re-sampling floor); default true.
        layout: ``epochs`` (one draw per inspect epoch, default) or ``sample`` (all draws of a prompt inside one
            sample, in one epoch: one request with ``num_choices`` where the provider supports it).
        choices: With ``layout=sample``: ``auto`` (ask for all draws in one request, draw what is missing with
            single requests), ``true`` (the provider returns them; fewer fails the sample) or ``false`` (one
            concurrent request per draw).
        draws: With ``layout=sample``: draws per prompt (default 5). With ``layout=epochs`` the draws are the
            task's epochs (5): pass ``--epochs N``; Y is the modal answer over the draws.
        subset: Keep N base problems, each with all its twins, drawn with ``subset_seed`` (a representative small
            run; ``--limit N`` cuts the first N prompts in file order instead). Default: every base.
        subset_seed: Seed of the ``subset`` draw (default 0).
    """
    return glass_task(
        "gsm", corpus, doses, families, temperature, identity, layout, choices, draws, subset, subset_seed
    )


@task
@strict_params(hints=EPOCHS_MOVED)
def glassmath(
    corpus: str = BUILTIN_CORPUS,
    doses: str | int | list[int] = DEFAULT_DOSES,
    families: str | list[str] = DEFAULT_FAMILIES,
    temperature: float = TEMPERATURE,
    identity: bool = True,
    layout: str = "epochs",
    choices: str | bool = "auto",
    draws: int | None = None,
    subset: int | None = None,
    subset_seed: int = 0,
) -> Task:
    """GlassMATH: competition mathematics problems (Hendrycks MATH style) and their twins.

    Args:
        corpus: A ``glass-build`` output directory of suite ``math``, or ``builtin`` (default): the built-in
            corpus (built on first use from problems shipped with the package).
        doses: Dose manifests to cover, comma-separated or a list (default ``1,3,5,7,9``).
        families: Twin families to include, comma-separated (default: all three).
        temperature: Sampling temperature of every draw (default 0.2).
        identity: Include identity twins (the re-sampling floor); default true.
        layout: ``epochs`` (one draw per inspect epoch, default) or ``sample`` (all draws of a prompt inside one
            sample, in one epoch: one request with ``num_choices`` where the provider supports it).
        choices: With ``layout=sample``: ``auto`` (ask for all draws in one request, draw what is missing with
            single requests), ``true`` (the provider returns them; fewer fails the sample) or ``false`` (one
            concurrent request per draw).
        draws: With ``layout=sample``: draws per prompt (default 5). With ``layout=epochs`` the draws are the
            task's epochs (5): pass ``--epochs N``; Y is the modal answer over the draws.
        subset: Keep N base problems, each with all its twins, drawn with ``subset_seed`` (a representative small
            run; ``--limit N`` cuts the first N prompts in file order instead). Default: every base.
        subset_seed: Seed of the ``subset`` draw (default 0).
    """
    return glass_task(
        "math", corpus, doses, families, temperature, identity, layout, choices, draws, subset, subset_seed
    )


@task
@strict_params
def noop_audit(corpus: str = BUILTIN_CORPUS, suite: str = "gsm", retries: int = 2) -> Task:
    """§3.3 LLM No-Op adjudication of every twin of a glass corpus (identity twins excepted).

    Args:
        corpus: A ``glass-build`` output directory, or ``builtin`` (default): the built-in corpus of ``suite``.
        suite: ``gsm`` or ``math``, used when ``corpus`` is ``builtin``.
        retries: Extra attempts when the adjudicator's reply has no parsable verdict.
    """
    check = TaskParams("noop_audit")
    folder, suite = check.text("corpus", corpus), check.choice("suite", suite, SUITES)
    retries = check.integer("retries", retries, at_least=0, at_most=MAX_RETRIES)
    root = Path(folder) if folder and folder != BUILTIN_CORPUS else default_corpus(suite)
    info = read_corpus_info(root)
    pool = read_pool(root)
    return Task(
        dataset=MemoryDataset(audit_samples(pool), name=f"noop_audit_{info['suite']}"),
        solver=adjudicate(retries),
        scorer=noop_verdict(),
        metadata={
            "corpus": str(root),
            "pool_sha256": sha256_file(root / "pool.jsonl"),
            REQUESTS_KEY: declare_requests(RoleCalls("adjudicator", calls=1, at_most=1 + retries)),
        },
        version=task_version("glass_inspect", "noop_audit"),
    )
