"""GlassGSM / GlassMATH break-event evaluation (``../shared/seeds/conditional_causal_difficulty_docs.txt`` §1, §3,
§7 step 8, §11).

Each unique prompt text of the chosen dose manifests (bases and twins; identity twins kept apart) is answered
``epochs`` times at ``temperature``; Y is the modal extracted answer's exact match (``scorers.modal_answer``), and
the metrics report base accuracy, break rates P(B=1 | Y(base)=1) overall / per family / per dose, mean pi,
the fragile fraction and the identity-twin floor.

    inspect eval glass_inspect/glassgsm --model offline/gemma-3-270m --limit 2 --epochs 1
    inspect eval glass_inspect/glassmath -T corpus=out/math -T doses=1,9 -T families=sentence_reorder

The task metadata ``glass`` (``log.eval.metadata["glass"]``) records the corpus, suite, doses, families and the
manifests used (dose, path, sha256), which Frail reads back with the sample metadata.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.model import GenerateConfig

from causal_suite.errors import SuiteInputError, require_file, strict_params
from glass_inspect.dataset import GlassSelection, glass_dataset, parse_doses, parse_families
from glass_inspect.scorers import glass_match, modal_answer
from glass_inspect.solvers import glass_solve

TASK_VERSION = 1
DEFAULT_DOSES = "1,3,5,7,9"
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
) -> Task:
    """The eval task of one suite (shared by ``glassgsm`` and ``glassmath``); validates before any model call."""
    if corpus is None:
        from glass_inspect.build import default_corpus

        root = Path(default_corpus(suite))
    else:
        root = require_file(corpus, "glass corpus directory").resolve()
        if not root.is_dir():
            raise SuiteInputError(f"glass corpus directory '{root}' is a file: pass the folder `glass-build` wrote.")
    selection = GlassSelection(root, suite, parse_doses(doses), parse_families(families), bool(identity))
    dataset, meta = glass_dataset(selection)
    return Task(
        dataset=dataset,
        solver=glass_solve(suite),
        scorer=glass_match(suite),
        epochs=Epochs(epochs, modal_answer()),
        config=GenerateConfig(temperature=temperature),
        metadata={"glass": meta},
        version=TASK_VERSION,
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
    """
    return glass_task("gsm", corpus, doses, families, epochs, temperature, identity)


@task
@strict_params
def glassmath(
    corpus: str | None = None,
    doses: str | int | list[int] = DEFAULT_DOSES,
    families: str | list[str] | None = None,
    epochs: int = NUM_EPOCHS,
    temperature: float = TEMPERATURE,
    identity: bool = True,
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
    """
    return glass_task("math", corpus, doses, families, epochs, temperature, identity)
