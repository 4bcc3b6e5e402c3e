"""The PromptSET measures (Razavi et al., *Benchmarking Prompt Sensitivity in Large Language Models*,
arXiv:2502.06065, which benchmarks query-performance-prediction (QPP) methods on prompt variations; seed §2
"Featurizers and baselines"): three label-free scores of a prompt's text, computed per base problem.

* **Prompt Clarity**: the simplified clarity score of pre-retrieval QPP (Cronen-Townsend et al., SIGIR 2002; the
  pre-retrieval form of He and Ounis, SPIRE 2004): the Kullback-Leibler divergence, in bits, of the prompt's
  unigram language model from the collection's, Σ_w P(w | q) log2(P(w | q) / P(w | C)). The collection is the set of
  base texts of the run (label-free); P(w | C) is add-one smoothed.
* **Embedding Entropy**: our reading (PromptSET names it without a formula we could find): the Shannon entropy,
  normalised by log n, of the prompt's softmax similarity distribution over the other base prompts (cosine of
  frozen sentence embeddings, temperature ``ENTROPY_TEMPERATURE``). A prompt close to many others (unspecific)
  has high entropy; one with few near neighbours has low entropy.
* **Embedding Specificity-IEF**: the graph-based specificity of Arabzadeh et al. (*Neural embedding-based
  specificity metrics for pre-retrieval query performance prediction*, IP&M 2020): words are nodes, two words are
  joined when the cosine of their embeddings exceeds ``IEF_THRESHOLD``, a word's inverse edge frequency is
  log(|V| / (1 + degree)), and the prompt's score is the mean over its distinct words. The word embeddings here are
  the frozen sentence encoder applied to each word alone (their paper uses word2vec-style term vectors; the
  threshold 0.7 is ours).

Words are the alphabetic tokens of ``frail.featurizers.WORD_TOKENS``, lower-cased (a problem's numbers are
instance-specific).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from frail.featurizers import WORD_TOKENS

Embed = Callable[[Sequence[str]], np.ndarray]
MEASURES = ("prompt_clarity", "embedding_entropy", "specificity_ief")
ENTROPY_TEMPERATURE = 0.05
IEF_THRESHOLD = 0.7
_WORDS = re.compile(WORD_TOKENS)
_CHUNK = 2048  # rows of the word-similarity matrix held at once


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(text)]


def prompt_clarity(texts: Sequence[str]) -> np.ndarray:
    """Simplified clarity score of each text against the collection of ``texts`` (bits)."""
    tokens = [words(t) for t in texts]
    collection = Counter(w for ws in tokens for w in ws)
    total, vocab = sum(collection.values()), len(collection)
    scores = []
    for ws in tokens:
        if not ws:
            scores.append(0.0)
            continue
        query = Counter(ws)
        p_q = np.array([c / len(ws) for c in query.values()])
        p_c = np.array([(collection[w] + 1) / (total + vocab) for w in query])
        scores.append(float(np.sum(p_q * np.log2(p_q / p_c))))
    return np.array(scores)


def _unit(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return np.asarray(x / np.where(norm > 0, norm, 1.0), dtype=np.float32)


def embedding_entropy(embeddings: np.ndarray) -> np.ndarray:
    """Normalised entropy of each row's softmax cosine-similarity distribution over the other rows."""
    unit = _unit(embeddings).astype(np.float64)
    n = len(unit)
    if n < 3:
        return np.zeros(n)
    out = np.empty(n)
    for start in range(0, n, _CHUNK):
        logits = unit[start : start + _CHUNK] @ unit.T / ENTROPY_TEMPERATURE
        rows = np.arange(start, min(start + _CHUNK, n))
        logits[rows - start, rows] = -np.inf  # a prompt is not its own neighbour
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        out[rows] = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=1) / np.log(n - 1)
    return out


def word_ief(vocabulary: list[str], embed: Embed) -> dict[str, float]:
    """Inverse edge frequency of each word of the similarity graph over ``vocabulary``."""
    unit = _unit(embed(vocabulary))
    degree = np.zeros(len(vocabulary))
    for start in range(0, len(unit), _CHUNK):
        sims = unit[start : start + _CHUNK] @ unit.T
        degree[start : start + len(sims)] = (sims > IEF_THRESHOLD).sum(axis=1) - 1  # minus the self-loop
    ief = np.log(len(vocabulary) / (1.0 + degree))
    return dict(zip(vocabulary, ief.tolist(), strict=True))


def specificity_ief(texts: Sequence[str], embed: Embed) -> np.ndarray:
    """Mean inverse edge frequency of each text's distinct words (0 for a text without words)."""
    tokens = [set(words(t)) for t in texts]
    vocabulary = sorted(set().union(*tokens)) if tokens else []
    ief = word_ief(vocabulary, embed) if vocabulary else {}
    return np.array([float(np.mean([ief[w] for w in ws])) if ws else 0.0 for ws in tokens])


def promptset_measures(texts: Sequence[str], embed: Embed) -> np.ndarray:
    """(n, 3): Prompt Clarity, Embedding Entropy and Embedding Specificity-IEF of each text, in ``MEASURES`` order."""
    return np.column_stack(
        [prompt_clarity(texts), embedding_entropy(embed(list(texts))), specificity_ief(texts, embed)]
    )
