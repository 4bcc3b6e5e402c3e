"""Synth-CD (§3.5, §7 step 11): synthetic jobs with known causal ground truth, and the mechanism checks on them.

Every job has two independent latent factors, structural complexity C ~ Beta(2, 2) and domain expertise
E ~ Beta(2, 2), one of 8 domains, and a templated word problem of fixed sentence count whose length does not
depend on C or E: round(6·C) of the 6 setup sentences are multi-step (equal-length templates) and round(7·E) of the 7
domain nouns are expert jargon rather than plain words of the same length. The declared complexity is C itself.
Every operator makes its own deterministic surface edit whose words never depend on C (``_twin_text``), so a text
model sees which operator made a twin but learns nothing about C from the edit; the two expertise-sensitive
operators act on the job's jargon (as such edits do in real text), so what they touch reveals E. This is what makes
the Frail-τ mechanism check informative: a contrast read from the edit alone can recover the expertise signal and
cannot see C, while anything that reads the base text sees both.

* ``continuous`` variant: 12 operator types from cosmetic-only (μ = ζ = 0) through complexity-only, expertise-only
  to dual-sensitive; each twin's effect is δ = max(0, μ_op (1 + C) + ζ_op E + ε), ε = η_J + ν (a job effect and a
  twin effect), capped at 1, with Y(J) = 1 and Y(T(J)) = 1 - δ. The job noise is calibrated so
  Spearman(D_avg, C) ≈ Spearman(D_avg, E) ≈ 0.60; the truth file carries τ(J) and the oracle D⊥ = τ - E[τ | C].
* ``bernoulli`` variant (the Frail-π consistency check): doses {1, 3, 5, 7, 9}, ``twins_per_dose`` twins each, break
  probability p(J, m) = sigmoid(a_J + b_J (m - 5)) with a_J rising in C and E and b_J in E. The base is solved with
  a C-dependent rate over 5 epochs (Y(J) is the modal outcome), so the Y(J) = 0 stratum is present and censored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import expit

from causal_suite.errors import SuiteInputError
from causal_suite.files import write_text_atomic
from frail.estimands import job_targets, observations_frame, spearman
from frail.pairs import PairObservation, operator_with_dose, write_pairs

DOMAINS = {  # (plain nouns, expert nouns): the i-th plain and the i-th expert noun have the same length
    "bakery": (["bun", "cake", "bread", "muffin"], ["cob", "roux", "genoa", "kougin"]),
    "farm": (["cow", "barn", "field", "fodder"], ["ewe", "byre", "silos", "heifer"]),
    "shipping": (["box", "dock", "truck", "parcel"], ["tug", "quay", "berth", "lading"]),
    "finance": (["tax", "coin", "loans", "wallet"], ["ipo", "lien", "repos", "escrow"]),
    "medicine": (["pad", "pill", "nurse", "doctor"], ["ecg", "vial", "stent", "ampule"]),
    "building": (["saw", "wall", "brick", "window"], ["awl", "sill", "joist", "soffit"]),
    "sailing": (["oar", "boat", "ropes", "anchor"], ["jib", "boom", "ketch", "shroud"]),
    "garden": (["pot", "seed", "hoses", "flower"], ["dib", "corm", "scion", "cloche"]),
}
NAMES = ["Ava", "Ben", "Cleo", "Dev", "Ema", "Finn", "Gia", "Hugo", "Ines", "Jon", "Kai", "Lena"]
SIMPLE = "{name} has {n} {noun}s and keeps them at home."  # same length as MULTI
MULTI = "{name} buys {n} {noun}s, then sells {k} at noon."
QUESTION = "How many {noun}s does {name} have in the end?"
DISTRACTOR = "A neighbour once saw {n} {noun}s at the market."
N_SETUP = 6
DOSES = (1, 3, 5, 7, 9)

# 12 operator types, cosmetic-only -> complexity-only -> expertise-only -> dual-sensitive: (name, μ_op, ζ_op).
OPERATORS = [
    ("whitespace", 0.0, 0.0),
    ("punctuation", 0.0, 0.0),
    ("entity_rename", 0.15, 0.0),
    ("sentence_reorder", 0.30, 0.0),
    ("unit_restate", 0.45, 0.0),
    ("jargon_swap", 0.0, 0.25),
    ("register_shift", 0.0, 0.38),
    ("domain_gloss", 0.0, 0.51),
    ("irrelevant_context", 0.25, 0.21),
    ("paraphrase", 0.35, 0.30),
    ("clause_split", 0.45, 0.26),
    ("voice_change", 0.50, 0.43),
]
TWIN_NOISE = 0.05  # sd of ν, the per-twin part of ε
JOB_NOISE = 0.037  # sd of η_J, set by calibrate_job_noise() so Spearman(D_avg, C) ≈ Spearman(D_avg, E) ≈ 0.60


@dataclass
class Job:
    base_id: str
    domain: str
    C: float
    E: float
    name: str
    setup: list[str]
    question: str
    nouns: list[str]  # the noun of each setup sentence, then the question's

    @property
    def noun(self) -> str:
        """The question's noun."""
        return self.nouns[-1]

    @property
    def text(self) -> str:
        return " ".join(self.setup + [self.question])


def _make_job(i: int, rng: np.random.Generator) -> Job:
    domain = list(DOMAINS)[i % len(DOMAINS)]
    plain, expert = DOMAINS[domain]
    c, e = float(rng.beta(2, 2)), float(rng.beta(2, 2))
    name = NAMES[int(rng.integers(len(NAMES)))]
    multi = rng.permutation(N_SETUP) < round(c * N_SETUP)  # exactly round(C·6) multi-step sentences
    jargon = rng.permutation(N_SETUP + 1) < round(e * (N_SETUP + 1))  # exactly round(E·7) jargon nouns
    nouns = [(expert if j else plain)[int(rng.integers(4))] for j in jargon]
    setup = [
        (MULTI if m else SIMPLE).format(name=name, n=int(rng.integers(10, 99)), k=int(rng.integers(1, 9)), noun=noun)
        for m, noun in zip(multi, nouns[:-1], strict=False)
    ]
    return Job(f"synth-{i:05d}", domain, c, e, name, setup, QUESTION.format(noun=nouns[-1], name=name), nouns)


# Question rewrites: each touches only the question, which has the same template in every job (size free of C).
REWRITES = {
    "register_shift": "Kindly state how many {noun}s {name} would possess at the close.",
    "paraphrase": "What is the number of {noun}s that {name} ends up with?",
    "clause_split": "Consider the end of the day. At that point, how many {noun}s does {name} have?",
    "voice_change": "How many {noun}s are held by {name} in the end?",
}
GLOSS = "Note: in {domain} usage, a {expert} is a kind of {plain}."
NO_GLOSS = "Note: every term here is an everyday word."


def _counterpart(domain: str, noun: str) -> tuple[str, str]:
    """(the plain noun, the expert noun) at the same position of the domain's lists as ``noun``."""
    plain, expert = DOMAINS[domain]
    i = plain.index(noun) if noun in plain else expert.index(noun)
    return plain[i], expert[i]


def _swapped(domain: str, noun: str) -> str:
    """The same-length noun of the other register: plain -> expert, expert -> plain."""
    plain, expert = _counterpart(domain, noun)
    return expert if noun == plain else plain


def _twin_text(job: Job, family: str, size: int, rng: np.random.Generator) -> str:
    """The twin of ``job`` under operator ``family`` at ``size`` (irrelevant_context inserts ``size`` sentences).

    Only the three families of the Bernoulli variant draw from ``rng``; the others are deterministic edits:
    whitespace (doubled spaces, the question on its own paragraph), punctuation (two sentence marks), unit_restate
    (the first quantity restated in units), the question rewrites of ``REWRITES``, and the two expertise-sensitive
    edits, which act on the job's jargon: jargon_swap (every noun swapped to its same-length counterpart of the other
    register) and domain_gloss (one gloss sentence per distinct expert noun, or one plain note when there is none).
    """
    setup, question = list(job.setup), job.question
    if family == "sentence_reorder":
        setup = [setup[k] for k in rng.permutation(len(setup))]
    elif family == "entity_rename":
        other = NAMES[(NAMES.index(job.name) + 1 + int(rng.integers(len(NAMES) - 1))) % len(NAMES)]
        return " ".join(s.replace(job.name, other) for s in setup + [job.question])
    elif family == "irrelevant_context":
        plain, _ = DOMAINS[job.domain]
        for _ in range(size):
            setup.insert(
                int(rng.integers(len(setup) + 1)),
                DISTRACTOR.format(n=int(rng.integers(2, 50)), noun=plain[int(rng.integers(4))]),
            )
    elif family == "whitespace":
        return "  ".join(setup) + "\n\n" + question
    elif family == "punctuation":
        setup[0], question = setup[0][:-1] + "!", question[:-1] + "?!"
    elif family == "unit_restate":
        setup[0] = re.sub(r"\d+", lambda m: f"{m.group()} (that is, {m.group()} single units)", setup[0], count=1)
    elif family == "jargon_swap":
        setup = [
            s.replace(f" {noun}s", f" {_swapped(job.domain, noun)}s", 1)
            for s, noun in zip(setup, job.nouns, strict=False)
        ]
        question = question.replace(f" {job.noun}s ", f" {_swapped(job.domain, job.noun)}s ")
    elif family == "domain_gloss":
        expert_nouns = sorted({n for n in job.nouns if n in DOMAINS[job.domain][1]})
        setup += [GLOSS.format(domain=job.domain, expert=n, plain=_counterpart(job.domain, n)[0]) for n in expert_nouns]
        setup += [] if expert_nouns else [NO_GLOSS]
    elif family in REWRITES:
        question = REWRITES[family].format(noun=job.noun, name=job.name)
    return " ".join(setup + [question])


def _expected_clipped(mu: np.ndarray, sd: float) -> np.ndarray:
    """E[min(1, max(0, X))] for X ~ N(mu, sd²): E[max(0, X)] - E[max(0, X - 1)] in closed form."""

    def pos_part(m: np.ndarray) -> np.ndarray:
        return m * stats.norm.cdf(m / sd) + sd * stats.norm.pdf(m / sd)

    return pos_part(mu) - pos_part(mu - 1.0)


def continuous_tau(c: np.ndarray, e: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """τ(J) = mean over the 12 operators of E_ν[δ]: the true D_avg of each job."""
    c, e, eta = (np.asarray(v, dtype=float)[:, None] for v in (c, e, eta))
    mu = np.array([o[1] for o in OPERATORS])[None, :] * (1 + c) + np.array([o[2] for o in OPERATORS])[None, :] * e + eta
    return _expected_clipped(mu, TWIN_NOISE).mean(axis=1)


def oracle_tau_given_c(c: np.ndarray, job_noise: float = JOB_NOISE) -> np.ndarray:
    """E[τ | C] by quadrature over E ~ Beta(2, 2) (Gauss-Legendre) and η ~ N(0, sd²) (Gauss-Hermite)."""
    x, wx = np.polynomial.legendre.leggauss(40)
    e_nodes, e_w = (x + 1) / 2, wx / 2 * stats.beta.pdf((x + 1) / 2, 2, 2)
    h, wh = np.polynomial.hermite_e.hermegauss(20)
    eta_nodes, eta_w = h * job_noise, wh / wh.sum()
    grid_e, grid_eta = np.meshgrid(e_nodes, eta_nodes, indexing="ij")
    c_grid = np.linspace(0.0, 1.0, 201)  # m(C) is smooth: tabulate it and interpolate
    table = []
    for ci in c_grid:
        tau = continuous_tau(np.full(grid_e.size, ci), grid_e.ravel(), grid_eta.ravel()).reshape(grid_e.shape)
        table.append(float((e_w[:, None] * eta_w[None, :] * tau).sum() / e_w.sum()))
    return np.interp(np.asarray(c, dtype=float), c_grid, np.array(table))


def generate_continuous(
    n_jobs: int, seed: int, job_noise: float = JOB_NOISE
) -> tuple[list[PairObservation], list[dict[str, Any]]]:
    """One twin per operator type per job; truth rows carry C, E, τ(J) and the oracle D⊥."""
    rng = np.random.default_rng(seed)
    jobs = [_make_job(i, rng) for i in range(n_jobs)]
    eta = rng.normal(0.0, job_noise, n_jobs)
    tau = continuous_tau(np.array([j.C for j in jobs]), np.array([j.E for j in jobs]), eta)
    m_c = oracle_tau_given_c(np.array([j.C for j in jobs]), job_noise)
    rows, truth = [], []
    for job, eta_j, tau_j, m_j in zip(jobs, eta, tau, m_c, strict=False):
        for name, mu, zeta in OPERATORS:
            delta = min(1.0, max(0.0, mu * (1 + job.C) + zeta * job.E + eta_j + rng.normal(0.0, TWIN_NOISE)))
            rows.append(
                PairObservation(
                    base_id=job.base_id,
                    twin_id=f"{job.base_id}-{name}",
                    operator=operator_with_dose(name, 1),
                    family=name,
                    dose=1,
                    complexity_score=job.C,
                    base_text=job.text,
                    twin_text=_twin_text(job, name, 1, rng),
                    y_base=1.0,
                    y_twin=1.0 - delta,
                    category=job.domain,
                    solver="synth-cd",
                )
            )
        truth.append(
            {
                "base_id": job.base_id,
                "C": job.C,
                "E": job.E,
                "domain": job.domain,
                "tau": float(tau_j),
                "d_perp_oracle": float(tau_j - m_j),
            }
        )
    return rows, truth


@dataclass
class BernoulliParams:
    """a_J = a0 + a_c (C - ½) + a_e (E - ½) + N(0, a_sd²); b_J = b0 + b_e (E - ½) + N(0, b_sd²); Pr(solve) = σ(s0 - s_c C)."""

    a0: float = -1.8
    a_c: float = 1.5
    a_e: float = 3.0
    a_sd: float = 0.4
    b0: float = 0.15
    b_e: float = 0.3
    b_sd: float = 0.05
    s0: float = 3.0
    s_c: float = 3.0
    twin_lucky: float = 0.1  # Pr(Y(T(J)) = 1) when the base is not solved


def generate_bernoulli(
    n_jobs: int, twins_per_dose: int, seed: int, params: BernoulliParams | None = None
) -> tuple[list[PairObservation], list[dict[str, Any]]]:
    """Dose-tiered Bernoulli breaks; truth rows carry C, E, a_J, b_J, the design π(J) and the solve rate."""
    p = params or BernoulliParams()
    rng = np.random.default_rng(seed)
    families = ("entity_rename", "sentence_reorder", "irrelevant_context")
    rows, truth = [], []
    for i in range(n_jobs):
        job = _make_job(i, rng)
        a = p.a0 + p.a_c * (job.C - 0.5) + p.a_e * (job.E - 0.5) + rng.normal(0.0, p.a_sd)
        b = p.b0 + p.b_e * (job.E - 0.5) + rng.normal(0.0, p.b_sd)
        solve_rate = float(expit(p.s0 - p.s_c * job.C))
        epochs_correct = int(rng.binomial(5, solve_rate))
        y_base = 1.0 if epochs_correct >= 3 else 0.0
        probs = []
        for m in DOSES:
            p_break = float(expit(a + b * (m - np.mean(DOSES))))
            for t in range(twins_per_dose):
                probs.append(p_break)
                family = families[t % len(families)]
                if y_base == 1.0:
                    y_twin = 0.0 if rng.random() < p_break else 1.0
                else:
                    y_twin = 1.0 if rng.random() < p.twin_lucky else 0.0
                rows.append(
                    PairObservation(
                        base_id=job.base_id,
                        twin_id=f"{job.base_id}-m{m}-t{t}",
                        operator=operator_with_dose(family, m),
                        family=family,
                        dose=m,
                        complexity_score=job.C,
                        base_text=job.text,
                        twin_text=_twin_text(job, family, m, rng),
                        y_base=y_base,
                        y_twin=y_twin,
                        category=job.domain,
                        injection_size=m if family == "irrelevant_context" else 0,
                        solver="synth-cd",
                        y_base_epoch_mean=epochs_correct / 5,
                    )
                )
        truth.append(
            {
                "base_id": job.base_id,
                "C": job.C,
                "E": job.E,
                "domain": job.domain,
                "a": a,
                "b": b,
                "pi": float(np.mean(probs)),
                "solve_rate": solve_rate,
                "y_base": y_base,
            }
        )
    return rows, truth


def mechanism_checks(rows: list[PairObservation], truth: list[dict[str, Any]]) -> dict[str, float | None]:
    """What the generator promises, measured: the calibration, length independence, and recovery of the truth
    (Spearman ρ; None where a side is constant)."""
    jobs = job_targets(observations_frame(rows))
    t = {r["base_id"]: r for r in truth}
    ids = list(jobs.index)
    c = np.array([t[b]["C"] for b in ids])
    e = np.array([t[b]["E"] for b in ids])
    length = jobs["base_text"].str.len().to_numpy()
    out = {
        "n_jobs": len(ids),
        "n_pairs": len(rows),
        "spearman_length_C": spearman(length, c),
        "spearman_length_E": spearman(length, e),
    }
    if "tau" in truth[0]:
        d_avg = jobs["d_avg"].to_numpy()
        perp = np.array([t[b]["d_perp_oracle"] for b in ids])
        out.update(
            spearman_davg_C=spearman(d_avg, c),
            spearman_davg_E=spearman(d_avg, e),
            spearman_oracle_dperp_C=spearman(perp, c),
            spearman_oracle_dperp_E=spearman(perp, e),
        )
    else:
        solvable = jobs["solvable"].to_numpy()
        true_pi = np.array([t[b]["pi"] for b in ids])
        out.update(
            solvable_fraction=float(solvable.mean()),
            spearman_measured_pi_true_pi=spearman(jobs["pi"][solvable], true_pi[solvable]),
            spearman_measured_b_true_b=spearman(jobs["b"][solvable], np.array([t[b]["b"] for b in ids])[solvable]),
            spearman_true_pi_C=spearman(true_pi, c),
            spearman_true_pi_E=spearman(true_pi, e),
        )
    return out


def calibrate_job_noise(n_jobs: int = 4000, seed: int = 12345, target: float = 0.60) -> float:
    """Bisect the job-noise sd so that the mean of Spearman(D_avg, C) and Spearman(D_avg, E) hits ``target``."""
    lo, hi = 0.0, 0.5
    for _ in range(14):
        mid = (lo + hi) / 2
        checks = mechanism_checks(*generate_continuous(n_jobs, seed, job_noise=mid))
        # C and E vary over thousands of jobs, so neither Spearman is None
        if (checks["spearman_davg_C"] + checks["spearman_davg_E"]) / 2 > target:  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


VARIANTS = ("bernoulli", "continuous")


def truth_path(pairs_path: str | Path) -> Path:
    p = Path(pairs_path)
    return p.with_name(p.stem + ".truth.jsonl")


def _whole_at_least(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def write_synth(
    out: str | Path, variant: str, n_jobs: int, seed: int, twins_per_dose: int = 5
) -> dict[str, float | None]:
    """Generate a Synth-CD set, write the pairs and the truth file beside them, return the mechanism checks.

    The arguments are checked and the checks computed before anything is written, so a refusal or a failure leaves
    no output file behind (each file is written atomically).

    Raises:
        SuiteInputError: ``n_jobs`` below 2 (the checks rank jobs), ``twins_per_dose`` below 1 (bernoulli), a
            negative ``seed`` or an unknown ``variant``.
    """
    if variant not in VARIANTS:
        raise SuiteInputError(f"Synth-CD variant {variant!r} is unknown; choose {' or '.join(VARIANTS)}.")
    if not _whole_at_least(n_jobs, 2):
        raise SuiteInputError(
            f"Synth-CD needs at least 2 jobs (the mechanism checks rank them), got n_jobs={n_jobs!r}."
        )
    if variant == "bernoulli" and not _whole_at_least(twins_per_dose, 1):
        raise SuiteInputError(
            f"Synth-CD needs at least 1 twin per job and dose, got twins_per_dose={twins_per_dose!r}."
        )
    if not _whole_at_least(seed, 0):
        raise SuiteInputError(f"Synth-CD's seed must be a whole number >= 0, got {seed!r}.")
    if variant == "continuous":
        rows, truth = generate_continuous(n_jobs, seed)
    else:
        rows, truth = generate_bernoulli(n_jobs, twins_per_dose, seed)
    checks = mechanism_checks(rows, truth)
    write_text_atomic(truth_path(out), "".join(json.dumps(r) + "\n" for r in truth))
    write_pairs(out, rows)
    return checks
