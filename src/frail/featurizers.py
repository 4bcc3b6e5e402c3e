"""Job-text featurizers for Frail-π and the baselines (§2 "Featurizers and baselines"), behind one registry.

A featurizer turns base-problem texts into a float matrix. It is fitted on the training fold's texts only, then
applied to every fold. The CPU featurizers here are frozen (``trainable = False``): Frail-π trains its head on their
fixed output. Encoder featurizers (frozen, fine-tuned, LoRA) register under their own names with
``@register_featurizer``; a trainable one sets ``trainable = True`` and exposes its torch module so the Frail-π
trainer can update it together with the head. Their names are known here in advance (``_LAZY``) and their module is
imported on first use, so listing the featurizers (``frail --help``) does not import torch.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

import numpy as np

from causal_suite.errors import SuiteInputError

_REGISTRY: dict[str, Callable[..., Featurizer]] = {}
_LAZY = {name: "frail.encoders" for name in ("hf_frozen", "hf_finetune", "hf_lora")}  # registered on import


class Featurizer:
    """Base class: ``fit(train_texts)`` then ``transform(texts) -> (n, dim) float32``."""

    name = "featurizer"
    trainable = False
    fit_learns = True  # False: fit() learns nothing from the texts, so the features are the same for every fold

    def fit(self, texts: list[str]) -> Featurizer:
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def fit_transform(self, texts: list[str]) -> np.ndarray:
        return self.fit(texts).transform(texts)


def register_featurizer(name: str) -> Callable[[type[Featurizer]], type[Featurizer]]:
    """Class decorator adding a featurizer to the registry under ``name``."""

    def add(cls: type[Featurizer]) -> type[Featurizer]:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return add


def available_featurizers() -> list[str]:
    return sorted(set(_REGISTRY) | set(_LAZY))


def make_featurizer(name: str, seed: int = 0, **options) -> Featurizer:
    """Instantiate a registered featurizer; an unknown name fails listing the known ones."""
    if name not in _REGISTRY and name in _LAZY:
        importlib.import_module(_LAZY[name])
    if name not in _REGISTRY:
        raise SuiteInputError(f"unknown featurizer {name!r}: choose one of {', '.join(available_featurizers())}.")
    return _REGISTRY[name](seed=seed, **options)


class _Standardised(Featurizer):
    """Centre and scale columns with the training fold's mean and sd."""

    def _standardise_fit(self, x: np.ndarray) -> np.ndarray:
        self._mean = x.mean(axis=0)
        sd = x.std(axis=0)
        self._sd = np.where(sd > 0, sd, 1.0)
        return self._standardise(x)

    def _standardise(self, x: np.ndarray) -> np.ndarray:
        return ((x - self._mean) / self._sd).astype(np.float32)


RANK_TOLERANCE = 1e-6  # singular values below this fraction of the largest count as zero
WORD_TOKENS = r"(?u)\b[^\W\d_][^\W\d_]+\b"  # alphabetic words: a problem's numbers are instance-specific noise


@register_featurizer("tfidf_svd")
class TfidfSvd(_Standardised):
    """Word 1-2-gram TF-IDF (numbers dropped) reduced by truncated SVD (LSA); the default CPU featurizer."""

    vectorizer = {"ngram_range": (1, 2), "sublinear_tf": True, "norm": "l2"}

    def __init__(self, seed: int = 0, dim: int = 128, max_features: int = 20000):
        self.seed, self.dim, self.max_features = seed, dim, max_features

    def fit(self, texts: list[str]) -> TfidfSvd:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._tfidf = TfidfVectorizer(
            **self.vectorizer, min_df=2, max_features=self.max_features, token_pattern=WORD_TOKENS
        )
        try:
            matrix = self._tfidf.fit_transform(texts)
        except ValueError:  # min_df prunes everything on a tiny corpus
            self._tfidf.set_params(min_df=1)
            matrix = self._tfidf.fit_transform(texts)
        k = max(1, min(self.dim, matrix.shape[1] - 1, matrix.shape[0] - 1))
        self._svd = TruncatedSVD(n_components=k, random_state=self.seed)
        reduced = self._svd.fit_transform(matrix)
        # a small vocabulary has rank below ``dim``: components with a vanishing singular value are rounding noise,
        # which standardisation would blow up to unit variance, so they are dropped
        s = self._svd.singular_values_
        self._keep = np.flatnonzero(s > RANK_TOLERANCE * s.max()) if s.max() > 0 else np.arange(1)
        self._standardise_fit(reduced[:, self._keep])
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        return self._standardise(self._svd.transform(self._tfidf.transform(texts))[:, self._keep])


@register_featurizer("bow_svd")
class BowSvd(TfidfSvd):
    """Additive bag of words: idf-weighted word counts (numbers dropped), no length normalisation and no sublinear
    tf, reduced by truncated SVD. Every step is linear in the word counts, so the features of an edited text minus
    those of the original depend on the words the edit added and removed alone, never on the rest of the text: the
    representation under which Frail-τ's contrast h − h′ is complexity-blind by construction (``models/tau.py``)."""

    vectorizer = {"ngram_range": (1, 1), "sublinear_tf": False, "norm": None}


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_KEYWORDS = ("each", "every", "per", "percent", "%", "total", "more", "less", "times", "half", "twice", "remaining")


def surface_features(text: str) -> list[float]:
    """Hand-made surface statistics: length, sentences, numbers, question marks, word shape, cue words."""
    words = text.split()
    numbers = _NUMBER.findall(text)
    values = [float(n.replace(",", "")) for n in numbers if n.replace(",", "").replace(".", "", 1).isdigit()]
    lower = text.lower()
    n_words = max(1, len(words))
    return [
        len(text),
        len(words),
        len(re.findall(r"[.!?](?:\s|$)", text)),
        len(numbers),
        len(set(numbers)),
        text.count("?"),
        sum(len(w) for w in words) / n_words,
        len({w.lower() for w in words}) / n_words,
        np.log1p(max(values)) if values else 0.0,
        sum(ch.isdigit() for ch in text) / max(1, len(text)),
        *[lower.count(k) for k in _KEYWORDS],
    ]


def surface_matrix(texts: list[str]) -> np.ndarray:
    """``surface_features`` of each text, one row per text."""
    return np.array([surface_features(t) for t in texts], dtype=float)


@register_featurizer("surface")
class Surface(_Standardised):
    """The surface statistics of ``surface_features``, standardised."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def fit(self, texts: list[str]) -> Surface:
        self._standardise_fit(surface_matrix(texts))
        return self

    def transform(self, texts: list[str]) -> np.ndarray:
        return self._standardise(surface_matrix(texts))


@register_featurizer("hashing")
class Hashing(Featurizer):
    """Hashed word 1-2-grams (unsigned counts), L2-normalised; there is no vocabulary to fit."""

    fit_learns = False

    def __init__(self, seed: int = 0, dim: int = 1024):
        self.seed, self.dim = seed, dim

    def transform(self, texts: list[str]) -> np.ndarray:
        from sklearn.feature_extraction.text import HashingVectorizer

        vec = HashingVectorizer(
            n_features=self.dim, ngram_range=(1, 2), alternate_sign=False, norm="l2", token_pattern=WORD_TOKENS
        )
        return vec.transform(texts).toarray().astype(np.float32)
