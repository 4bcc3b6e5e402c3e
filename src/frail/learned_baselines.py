"""The embedding and outcome-model baselines of §2 "Featurizers and baselines" / §7 step 12, each regressing the same
job-level targets (π, a, b; and D_avg, the U-CCD control, on every job of the folds, except ``amortized_irt``,
``bertpe`` and ``vap3``, which give no D_avg) on the same folds as Frail-π (``evaluation.run_seed``), beside the
job-frame baselines of ``frail.baselines``. Texts are embedded by one frozen sentence encoder (``TextEmbedder``:
the bundled MiniLM, ``hf_frozen``, by default), each distinct text once per process and encoder
(``frail.embedding_cache``).

* ``twin_distance`` (frozen twin distance): per twin the cosine distance between the base and twin embeddings,
  aggregated per job as the mean distance at each design dose and overall; ridge regression of each target on them.
* ``embedding_probe`` (embedding linear probe): ridge regression (penalty chosen by efficient leave-one-out) of each
  target on the base text's embedding.
* ``score_predictor``: a ridge regressor of the base score (Ȳ(J), the fraction of draws correct, else Y(J)) from
  the embedding, trained on every training-fold job, solved or not; each target is then a quadratic least-squares
  function of the predicted score. It asks whether predicted hardness predicts fragility (the seed: it does not).
* ``amortized_irt``: the amortized Rasch model of ``frail.irt`` on the training fold's break counts; π̂ and â come
  from its p(J, m) in closed form, as for Frail-π; b has no per-job value (one shared dose slope).
* the PromptSET measures (``frail.promptset``): ``prompt_clarity``, ``embedding_entropy`` and ``specificity_ief``
  each retargeted (quadratic least squares of each target on the measure), and ``promptset`` (gradient-boosted
  trees on the three together).
* ``bertpe`` and ``vap3``: the supervised QPP encoders of ``frail.qpp_encoders``, fine-tuned on the targets; they
  fine-tune the named ``baseline_encoder_model`` (default the MiniLM) whatever ``baseline_encoder`` is.

``baseline_encoder_model`` (``--baseline-encoder-model``: a local encoder folder or a hub name, default the bundled
MiniLM) is the one transformers encoder every encoder baseline reads: the frozen ``hf_frozen`` embedder and the
two fine-tuned QPP encoders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from frail.baselines import BASELINES, PROBE_BASELINES, fit_targets, gbt, quadratic
from frail.featurizers import Featurizer, make_featurizer
from frail.irt import fit_amortized_rasch
from frail.promptset import MEASURES, promptset_measures

Predictions = dict[str, "np.ndarray | None"]


class TextEmbedder:
    """Frozen embeddings of texts by a featurizer whose fit learns nothing; the MiniLM (``hf_frozen``) encodes each
    distinct text once per process (``frail.embedding_cache``), ``hashing`` is cheaper to recompute than to store."""

    def __init__(self, featurizer: str, model: str | None = None) -> None:
        """``model``: the transformers encoder of ``hf_frozen`` (a local folder or a hub name; None: the MiniLM)."""
        self.model = model
        options = {} if model is None else {"encoder": model}
        self.featurizer: Featurizer = make_featurizer(featurizer, seed=0, **options)
        if self.featurizer.fit_learns:
            raise SuiteInputError(
                f"--baseline-encoder {featurizer!r} learns from the training texts; the baselines need a frozen "
                "encoder (hf_frozen, the bundled MiniLM, or hashing)."
            )

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.featurizer.transform(list(texts)), dtype=np.float32)


@dataclass(frozen=True)
class BaselineInputs:
    """What one seed hands a baseline: the solvable training and test jobs (targets, texts, C), every
    training-fold job (solved or not), the observations, the dose design and the frozen embedder."""

    train: pd.DataFrame
    test: pd.DataFrame
    fold: pd.DataFrame
    obs: pd.DataFrame
    composition: pd.DataFrame
    doses: list[int]
    m_bar: float
    embed: TextEmbedder
    seed: int
    measures: pd.DataFrame  # the PromptSET measures of every job (label-free), indexed by base id


Baseline = Callable[[BaselineInputs, list[str]], Predictions]


def _ridge(x: np.ndarray, y: np.ndarray, x_test: np.ndarray, seed: int) -> np.ndarray:
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-2, 4, 7)))
    return np.asarray(model.fit(x, y).predict(x_test))


def _base_embeddings(inputs: BaselineInputs) -> tuple[np.ndarray, np.ndarray]:
    return inputs.embed(inputs.train["base_text"].tolist()), inputs.embed(inputs.test["base_text"].tolist())


def embedding_probe(inputs: BaselineInputs, targets: list[str]) -> Predictions:
    x, x_test = _base_embeddings(inputs)
    return fit_targets(inputs.train, x, x_test, targets, _ridge, inputs.seed)


def twin_distance_features(obs: pd.DataFrame, ids: Sequence[str], doses: list[int], embed: TextEmbedder) -> np.ndarray:
    """Per job (rows in ``ids`` order): mean base-twin cosine distance at each design dose, then overall."""
    part = obs[obs["base_id"].isin(set(ids))]
    if part.empty:
        return np.zeros((len(ids), len(doses) + 1))
    base, twin = embed(part["base_text"].tolist()), embed(part["twin_text"].tolist())
    cos = np.sum(base * twin, axis=1) / np.maximum(np.linalg.norm(base, axis=1) * np.linalg.norm(twin, axis=1), 1e-12)
    frame = pd.DataFrame({"base_id": part["base_id"].to_numpy(), "dose": part["dose"].to_numpy(), "d": 1.0 - cos})
    by_dose = frame.pivot_table(index="base_id", columns="dose", values="d", aggfunc="mean")
    by_dose = by_dose.reindex(index=list(ids), columns=doses)
    overall = frame.groupby("base_id")["d"].mean().reindex(list(ids))
    table = by_dose.assign(overall=overall)
    return table.fillna(table.mean()).fillna(0.0).to_numpy(dtype=float)


def twin_distance(inputs: BaselineInputs, targets: list[str]) -> Predictions:
    x = twin_distance_features(inputs.obs, list(inputs.train.index), inputs.doses, inputs.embed)
    x_test = twin_distance_features(inputs.obs, list(inputs.test.index), inputs.doses, inputs.embed)
    return fit_targets(inputs.train, x, x_test, targets, _ridge, inputs.seed)


def _base_score(fold: pd.DataFrame) -> np.ndarray:
    """Ȳ(J) where the data carry it, else the binary Y(J)."""
    mean = fold["y_base_epoch_mean"].to_numpy(dtype=float)
    return np.where(np.isfinite(mean), mean, fold["y_base"].to_numpy(dtype=float))


def score_predictor(inputs: BaselineInputs, targets: list[str]) -> Predictions:
    score = _base_score(inputs.fold)
    x_fold = inputs.embed(inputs.fold["base_text"].tolist())
    x, x_test = _base_embeddings(inputs)
    if np.std(score) == 0:
        return dict.fromkeys(targets)
    predicted = _ridge(x_fold, score, np.vstack([x, x_test]), inputs.seed)
    s, s_test = predicted[: len(x), None], predicted[len(x) :, None]
    return fit_targets(inputs.train, s, s_test, targets, quadratic, inputs.seed)


def amortized_irt(inputs: BaselineInputs, targets: list[str]) -> Predictions:
    from frail.models.pi import dose_response_from_p, pi_from_p

    if not {"pi", "a"} & set(targets):
        return dict.fromkeys(targets)  # its p(J, m) gives π and a only
    train_ids = list(inputs.train.index)
    part = inputs.obs[inputs.obs["base_id"].isin(set(train_ids))]
    cells = part.groupby(["base_id", "dose"])["B"].agg(["sum", "size"]).reset_index()
    row_of = {b: i for i, b in enumerate(train_ids)}
    x, x_test = _base_embeddings(inputs)
    try:
        model = fit_amortized_rasch(
            x,
            cells["base_id"].map(row_of).to_numpy(),
            cells["dose"].to_numpy(),
            cells["sum"],
            cells["size"],
            inputs.doses,
        )
    except SuiteInputError:
        return dict.fromkeys(targets)
    p = model.break_probability(x_test)
    a_hat, _ = dose_response_from_p(p, inputs.doses, inputs.m_bar)
    by_target = {"pi": pi_from_p(p, inputs.composition.loc[inputs.test.index].to_numpy()), "a": a_hat}
    return {t: by_target.get(t) for t in targets}  # b: one shared slope, no per-job value


def _measure(name: str) -> Baseline:
    def run(inputs: BaselineInputs, targets: list[str]) -> Predictions:
        x = inputs.measures.loc[inputs.train.index, [name]].to_numpy(dtype=float)
        x_test = inputs.measures.loc[inputs.test.index, [name]].to_numpy(dtype=float)
        return fit_targets(inputs.train, x, x_test, targets, quadratic, inputs.seed)

    return run


def promptset(inputs: BaselineInputs, targets: list[str]) -> Predictions:
    x = inputs.measures.loc[inputs.train.index].to_numpy(dtype=float)
    x_test = inputs.measures.loc[inputs.test.index].to_numpy(dtype=float)
    return fit_targets(inputs.train, x, x_test, targets, gbt, inputs.seed)


def _qpp_encoder(variation_aware: bool) -> Baseline:
    """BERTPE (``variation_aware`` False) or VAP3, fine-tuning the embedder's transformers encoder."""

    def run(inputs: BaselineInputs, targets: list[str]) -> Predictions:
        from frail.qpp_encoders import QppTrainConfig, qpp_predictions

        config = QppTrainConfig(encoder=inputs.embed.model)
        return qpp_predictions(inputs.train, inputs.test, inputs.obs, targets, inputs.seed, variation_aware, config)

    return run


def measures_frame(jobs: pd.DataFrame, embed: TextEmbedder) -> pd.DataFrame:
    """The PromptSET measures of every job's base text (label-free, so computed once over all jobs)."""
    values = promptset_measures(jobs["base_text"].tolist(), embed)
    return pd.DataFrame(values, index=jobs.index, columns=list(MEASURES))


LEARNED_BASELINES: dict[str, Baseline] = {
    "amortized_irt": amortized_irt,
    "twin_distance": twin_distance,
    "embedding_probe": embedding_probe,
    "score_predictor": score_predictor,
    **{name: _measure(name) for name in MEASURES},
    "promptset": promptset,
    "bertpe": _qpp_encoder(variation_aware=False),
    "vap3": _qpp_encoder(variation_aware=True),
}
DEFAULT_BASELINES = tuple(BASELINES)  # the job-frame baselines; `--baselines all` adds the learned ones
NEEDS_MEASURES = frozenset({*MEASURES, "promptset"})


def available_baselines() -> list[str]:
    return [*BASELINES, *LEARNED_BASELINES]


def select_baselines(spec: str) -> tuple[str, ...]:
    """``all`` or a comma-separated list of baseline names (``probe_only`` joins under text_probe by itself)."""
    if spec.strip() == "all":
        return tuple(available_baselines())
    names = tuple(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    unknown = [n for n in names if n not in available_baselines()]
    if unknown or not names:
        what = f"unknown baseline(s) {', '.join(unknown)}" if unknown else "no baseline named"
        raise SuiteInputError(
            f"--baselines: {what}; give `all` or a comma-separated list of {', '.join(available_baselines())}."
        )
    if set(PROBE_BASELINES) & set(names):
        raise SuiteInputError("--baselines: probe_only runs by itself under --protocol text_probe; do not list it.")
    return names


def run_learned_baselines(inputs: BaselineInputs, names: Sequence[str], targets: list[str]) -> dict[str, Predictions]:
    """{baseline: {target: test predictions or None}} for the learned baselines among ``names``."""
    return {name: LEARNED_BASELINES[name](inputs, targets) for name in names if name in LEARNED_BASELINES}
