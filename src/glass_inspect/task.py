"""GlassGSM / GlassMATH break-event evaluation (*Fragility Is Not Reducible to Hardness: Conditional Causal
Difficulty for LLMs*, arXiv:2611.02065, §1, §3, §7 step 8, §11), and the No-Op audit task (§3.3).

Each unique prompt text of the chosen dose manifests (bases and twins; identity twins kept apart) is answered
``epochs`` times at ``temperature`` (one draw per inspect epoch, or with ``layout=sample`` all draws inside one
sample: one request with ``num_choices`` where the provider supports it; ``solvers`` module docstring); Y is the modal extracted answer's exact match (``scorers.modal_answer``), and
the metrics report base accuracy, break rates P(B=1 | Y(base)=1) overall / per family / per dose, mean pi,
the fragile fraction and the identity-twin floor.

    inspect eval glass_inspect/glassgsm --model offline/gemma-3-270m --limit 2 --epochs 1
    inspect eval glass_inspect/glassmath -T corpus=out/math -T doses=1,9 -T families=sentence_reorder
    inspect eval glass_inspect/glassgsm -T layout=sample --model vllm/...   # 5 draws per request

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
from inspect_ai.model import GenerateConfig

from causal_suite.errors import SuiteInputError, require_file, strict_params
from causal_suite.eval_meta import task_version
from causal_suite.files import sha256_file
from glass_inspect.corpus.builtin import default_corpus
from glass_inspect.corpus.contract import DEFAULT_DOSES as DOSES
from glass_inspect.corpus.contract import parse_doses, read_corpus_info, read_pool
from glass_inspect.dataset import GlassSelection, audit_samples, glass_dataset, parse_families
from glass_inspect.scorers import glass_match, modal_answer, noop_verdict
from glass_inspect.solvers import adjudicate, glass_solve, parse_choices, parse_layout

DEFAULT_DOSES = ",".join(map(str, DOSES))
NUM_EPOCHS = 5
TEMPERATURE = 0.2


def glass_task(
    suite: str,
    corpus: str | None,
    doses: str | int | list[int],
    families: str | list[str] | None,
    epochs: int,
    temperature: float,
    identity: bool,
    layout: str = "epochs",
    choices: str | bool = "auto",
) -> Task:
    """The eval task of one suite (shared by ``glassgsm`` and ``glassmath``); validates before any model call."""
    layout, choices = parse_layout(layout), parse_choices(choices)
    try:
        epochs = int(epochs)
    except (TypeError, ValueError):
        epochs = 0
    if epochs < 1:
        raise SuiteInputError("epochs: the draws per prompt must be a whole number >= 1.")
    if corpus is None:
        root = Path(default_corpus(suite))
    else:
        root = require_file(corpus, "glass corpus directory").resolve()
        if not root.is_dir():
            raise SuiteInputError(f"glass corpus directory '{root}' is a file: pass the folder `glass-build` wrote.")
    selection = GlassSelection(root, suite, parse_doses(doses), parse_families(families), bool(identity))
    dataset, meta = glass_dataset(selection)
    in_sample = layout == "sample"
    meta |= {"layout": layout} | ({"draws": epochs, "choices": choices} if in_sample else {})
    return Task(
        dataset=dataset,
        solver=glass_solve(suite, draws=epochs, choices=choices) if in_sample else glass_solve(suite),
        scorer=glass_match(suite),
        epochs=Epochs(1 if in_sample else epochs, modal_answer()),
        config=GenerateConfig(temperature=temperature),
        metadata={"glass": meta},
        version=task_version("glass_inspect", f"glass{suite}"),
    )


@task
@strict_params
def glassgsm(
    corpus: str | None = None,
    doses: str | int | list[int] = DEFAULT_DOSES,
    families: str | list[str] | None = None,
    epochs: int = NUM_EPOCHS,
    temperature: float = TEMPERATURE,
    identity: bool = True,
    layout: str = "epochs",
    choices: str | bool = "auto",
) -> Task:
    """GlassGSM: GSM8K-style word problems and their meaning-preserving twins.

    Args:
        corpus: A ``glass-build`` output directory of suite ``gsm``; default: the built-in corpus (built on
            first use from problems shipped with the package).
        doses: Dose manifests to cover, comma-separated or a list (default ``1,3,5,7,9``).
        families: Twin families to include, comma-separated (default: entity_rename, sentence_reorder,
            irrelevant_context).
        epochs: Draws per prompt; Y is the modal answer over them (default 5).
        temperature: Sampling temperature of every draw (default 0.2).
        identity: Include identity twins (the re-sampling floor); default true.
        layout: ``epochs`` (one draw per inspect epoch, default) or ``sample`` (all draws of a prompt inside one
            sample, in one epoch: one request with ``num_choices`` where the provider supports it).
        choices: With ``layout=sample``: ``auto`` (ask for all draws in one request, draw what is missing with
            single requests), ``true`` (the provider returns them; fewer fails the sample) or ``false`` (one
            concurrent request per draw).
    """
    return glass_task("gsm", corpus, doses, families, epochs, temperature, identity, layout, choices)


@task
@strict_params
def glassmath(
    corpus: str | None = None,
    doses: str | int | list[int] = DEFAULT_DOSES,
    families: str | list[str] | None = None,
    epochs: int = NUM_EPOCHS,
    temperature: float = TEMPERATURE,
    identity: bool = True,
    layout: str = "epochs",
    choices: str | bool = "auto",
) -> Task:
    """GlassMATH: competition mathematics problems (Hendrycks MATH style) and their twins.

    Args:
        corpus: A ``glass-build`` output directory of suite ``math``; default: the built-in corpus (built on
            first use from problems shipped with the package).
        doses: Dose manifests to cover, comma-separated or a list (default ``1,3,5,7,9``).
        families: Twin families to include, comma-separated (default: entity_rename, sentence_reorder,
            irrelevant_context).
        epochs: Draws per prompt; Y is the modal answer over them (default 5).
        temperature: Sampling temperature of every draw (default 0.2).
        identity: Include identity twins (the re-sampling floor); default true.
        layout: ``epochs`` (one draw per inspect epoch, default) or ``sample`` (all draws of a prompt inside one
            sample, in one epoch: one request with ``num_choices`` where the provider supports it).
        choices: With ``layout=sample``: ``auto`` (ask for all draws in one request, draw what is missing with
            single requests), ``true`` (the provider returns them; fewer fails the sample) or ``false`` (one
            concurrent request per draw).
    """
    return glass_task("math", corpus, doses, families, epochs, temperature, identity, layout, choices)


@task
@strict_params
def noop_audit(corpus: str | None = None, suite: str = "gsm", retries: int = 2) -> Task:
    """§3.3 LLM No-Op adjudication of every twin of a glass corpus (identity twins excepted).

    Args:
        corpus: A ``glass-build`` output directory; default: the built-in corpus of ``suite``.
        suite: ``gsm`` or ``math``, used when ``corpus`` is not given.
        retries: Extra attempts when the adjudicator's reply has no parsable verdict.
    """
    root = Path(corpus) if corpus else default_corpus(suite)
    info = read_corpus_info(root)
    pool = read_pool(root)
    return Task(
        dataset=MemoryDataset(audit_samples(pool), name=f"noop_audit_{info['suite']}"),
        solver=adjudicate(retries),
        scorer=noop_verdict(),
        metadata={"corpus": str(root), "pool_sha256": sha256_file(root / "pool.jsonl")},
        version=task_version("glass_inspect", "noop_audit"),
    )
