"""Our fixed-seed Exp B scenarios (paper §3): 30 DID, 24 event-study, 24 IV and 22 RDD designs in three tiers.

Each scenario draws from its own generator ``default_rng([seed, family, tier, k])``, so no scenario depends on
another (upstream chained one stream through all of them). Sizes and noise are chosen so that the canonical
estimate (``estimators.py``) sits within a few standard errors of a true effect that is at least ~12 standard
errors from zero; difficulty adds heterogeneity (unit and period effects, serial correlation, heterogeneous betas,
fat tails, weaker instruments, controls, heteroskedasticity, slope changes and curvature at the cutoff) while
keeping each design identified. Texts come from templates over the settings in ``data/dgp_settings.json``; every
scenario passes the consistency audit (``consistency.py``) before anything is written.

CLI: ``causalverify-data --out DIR [--seed S]`` writes ``DIR/scenarios.json`` and ``DIR/data/<id>.csv``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from causalverify_inspect.scenarios.consistency import audit_or_raise
from causalverify_inspect.scenarios.estimators import canonical_estimate
from causalverify_inspect.scenarios.records import (
    DIFFICULTIES,
    FAMILIES,
    RECORDS_FILE,
    builtin_records_path,
    read_records,
    scenario_from_record,
)

DEFAULT_SEED = 20260601
GENERATOR = "causalverify_inspect.dgp v1"
SETTINGS_PATH = Path(__file__).parent.parent / "data" / "dgp_settings.json"
SHORT = {"DID": "did", "EVENT_STUDY": "es", "IV": "iv", "RDD": "rdd"}
#: Scenarios per family and tier (issue 6: 30 DID, 24 ES, 24 IV, 22 RDD).
COUNTS = {"DID": (10, 10, 10), "EVENT_STUDY": (8, 8, 8), "IV": (8, 8, 8), "RDD": (7, 8, 7)}

TIERS: dict[str, dict[str, dict[str, Any]]] = {
    "DID": {
        "easy": dict(units=240, periods=10, first_post=6, share=0.5, noise=0.5, rho=0.0),
        "medium": dict(units=200, periods=8, first_post=5, share=0.4, noise=0.6, rho=0.3),
        "hard": dict(units=160, periods=12, first_post=8, share=0.35, noise=0.6, rho=0.4),
    },
    "EVENT_STUDY": {
        "easy": dict(stocks=100, pre=10, post=10, sigma=0.010, beta=(0.8, 1.2), effect=(0.010, 0.020), tails=False),
        "medium": dict(stocks=80, pre=15, post=10, sigma=0.015, beta=(0.6, 1.5), effect=(0.012, 0.025), tails=False),
        "hard": dict(stocks=60, pre=20, post=5, sigma=0.020, beta=(0.4, 1.8), effect=(0.015, 0.030), tails=True),
    },
    "IV": {
        "easy": dict(n=2000, strength=0.5, controls=0, confound=0.6, sigma=0.5, effect=(0.6, 1.2), hetero=False),
        "medium": dict(n=2500, strength=0.4, controls=1, confound=0.7, sigma=0.5, effect=(0.6, 1.2), hetero=False),
        "hard": dict(n=3000, strength=0.3, controls=2, confound=0.8, sigma=0.6, effect=(0.8, 1.5), hetero=True),
    },
    "RDD": {
        "easy": dict(n=2400, noise=0.4, slopes=(1.0, 1.0), curvature=0.0),
        "medium": dict(n=2400, noise=0.5, slopes=(1.0, 0.4), curvature=0.0),
        "hard": dict(n=2000, noise=0.55, slopes=(1.2, 0.3), curvature=0.8),
    },
}
RDD_BANDWIDTH_SHARE = 0.5  # the canonical bandwidth is half the running variable's radius around the cutoff


@dataclass(frozen=True)
class Plan:
    """One scenario to generate: id, family, tier, setting and the signed true effect."""

    scenario_id: str
    family: str
    difficulty: str
    index: tuple[int, int, int]  # (family, tier, k) -> the scenario's own random stream
    setting: dict
    sign: int


@dataclass(frozen=True)
class Realised:
    """A generated scenario: CSV text, texts and design facts (before the canonical estimate)."""

    plan: Plan
    csv: str
    true_effect: float
    texts: dict
    design: dict


def load_settings() -> dict[str, list[dict]]:
    return json.loads(SETTINGS_PATH.read_text(encoding="utf-8"))


def plan_scenarios() -> list[Plan]:
    """The 100 scenarios in a fixed order; settings rotate by tier and signs alternate so both occur in every cell."""
    settings = load_settings()
    plans = []
    for f, family in enumerate(FAMILIES):
        for t, difficulty in enumerate(DIFFICULTIES):
            for k in range(COUNTS[family][t]):
                pool = settings[family]
                plans.append(
                    Plan(
                        scenario_id=f"{SHORT[family]}_{difficulty}_{k + 1:02d}",
                        family=family,
                        difficulty=difficulty,
                        index=(f, t, k),
                        setting=pool[(k + 3 * t) % len(pool)],
                        sign=1 if (k + t) % 2 == 0 else -1,
                    )
                )
    return plans


def _sig(x: float, digits: int = 3) -> float:
    return float(f"{x:.{digits}g}")


def _fmt(x: float) -> str:
    return f"{x:g}"


def _csv(columns: dict[str, tuple[np.ndarray, str]]) -> str:
    """Deterministic CSV text: each column formatted with its own printf pattern, LF line ends."""
    row = ",".join(fmt for _, fmt in columns.values()) + "\n"
    values = [np.asarray(v).tolist() for v, _ in columns.values()]
    cells = tuple(cell for rec in zip(*values, strict=False) for cell in rec)
    return ",".join(columns) + "\n" + (row * len(values[0])) % cells


def _truth(plan: Plan, strategy: str, subject: str, outcome: str, effect: float, unit: str) -> dict:
    word = "raises" if effect > 0 else "lowers"
    return {
        "identification_strategy": strategy,
        "conclusion_direction": "positive" if effect > 0 else "negative",
        "conclusion_detail": f"{subject} {word} {outcome} by about {_fmt(abs(effect))} {unit}.",
        "main_effect": f"{effect:+g}",
    }


# ------------------------------------------------------------------------------------------------------ families
def _ar1_errors(rng: np.random.Generator, n: int, T: int, sigma: float, rho: float) -> np.ndarray:
    """Errors of ``n`` units over ``T`` periods, AR(1) within each unit with correlation ``rho`` and sd ``sigma``."""
    shocks = rng.normal(0.0, sigma, (n, T))
    eps = np.empty((n, T))
    eps[:, 0] = shocks[:, 0]
    for t in range(1, T):
        eps[:, t] = rho * eps[:, t - 1] + np.sqrt(1 - rho**2) * shocks[:, t]
    return eps


def _did_texts(s: dict, n: int, n_treat: int, T: int, k: int, extra: str) -> dict[str, str]:
    """Title, research question and data description of a DID panel (``extra``: the hard tier's added column)."""
    return {
        "title": s["title"],
        "research_question": (
            f"Did {s['policy']} change {s['outcome']}? Estimate its average effect on {s['treated_group']}, "
            f"with {s['control_group']} as the comparison group."
        ),
        "data_description": (
            f"A balanced panel of {n} {s['units']} observed over {T} periods (each a {s['period']}), one row per "
            f"{s['unit']} and period: {n_treat} {s['units']} are treated and {n - n_treat} are not. The policy took "
            f"effect at the start of period {k}: periods 1 to {k - 1} come before it and periods {k} to {T} after "
            f"it. Columns: `unit_id` ({s['unit']} identifier), `period` (period number, 1 to {T}), `treated` (1 "
            f"for {s['treated_group']}, 0 for {s['control_group']}), `post` (1 from period {k} onward, else 0), "
            f"`treat_x_post` (`treated` times `post`), `y` ({s['outcome']}){extra}. The effect of interest is the "
            f"change in `y` caused by the policy, in the units of `y`."
        ),
    }


def _did(plan: Plan, rng: np.random.Generator) -> Realised:
    s, p = plan.setting, TIERS["DID"][plan.difficulty]
    n, T, k = p["units"], p["periods"], p["first_post"]
    n_treat = int(round(p["share"] * n))
    scale = s["scale"]
    effect = plan.sign * _sig(scale * rng.uniform(1.0, 2.0))
    treated = np.zeros(n, dtype=int)
    treated[rng.permutation(n)[:n_treat]] = 1
    unit_fe = rng.normal(0.0, scale, n) + 0.8 * scale * treated
    periods = np.arange(1, T + 1)
    period_fe = 0.15 * scale * periods + rng.normal(0.0, 0.4 * scale, T)
    sigma, rho = p["noise"] * scale, p["rho"]
    eps = _ar1_errors(rng, n, T, sigma, rho)
    post = (periods >= k).astype(int)
    y = s["base"] + unit_fe[:, None] + period_fe[None, :] + effect * treated[:, None] * post[None, :] + eps
    cols = {
        "unit_id": (np.repeat(np.arange(1, n + 1), T), "%d"),
        "period": (np.tile(periods, n), "%d"),
        "treated": (np.repeat(treated, T), "%d"),
        "post": (np.tile(post, n), "%d"),
        "treat_x_post": (np.repeat(treated, T) * np.tile(post, n), "%d"),
        "y": (y.ravel(), "%.4f"),
    }
    extra = ""
    if plan.difficulty == "hard":
        cols["region"] = (np.repeat(rng.integers(1, 6, n), T), "%d")
        extra = f", `region` (region code of the {s['unit']}, 1 to 5, fixed over time)"
    texts = _did_texts(s, n, n_treat, T, k, extra)
    truth = _truth(
        plan,
        "Difference-in-differences with unit and period fixed effects (common adoption date).",
        f"The {s['policy'].split(' ', 1)[1]}",
        s["outcome_short"],
        effect,
        "units of y",
    )
    design = dict(
        columns=list(cols),
        unit="unit_id",
        time="period",
        first_post_period=k,
        periods=T,
        units=n,
        treated_units=n_treat,
        noise_sd=sigma,
        serial_correlation=rho,
    )
    return Realised(plan, _csv(cols), effect, {**texts, "ground_truth": truth}, design)


def _event_study(plan: Plan, rng: np.random.Generator) -> Realised:
    s, p = plan.setting, TIERS["EVENT_STUDY"][plan.difficulty]
    S, L, K = p["stocks"], p["pre"], p["post"]
    effect = plan.sign * _sig(rng.uniform(*p["effect"]))
    days = np.arange(-L, K + 1)
    beta = rng.uniform(*p["beta"], S)  # type: ignore[call-overload]  # no overload matches *args of Any
    alpha = rng.normal(0.0, 0.0005, S)
    mkt = rng.normal(0.0003, 0.01, (S, days.size))
    if p["tails"]:  # Student-t(5) shocks scaled to the tier's standard deviation
        eps = p["sigma"] * rng.standard_t(5, (S, days.size)) / np.sqrt(5 / 3)
    else:
        eps = rng.normal(0.0, p["sigma"], (S, days.size))
    ret = alpha[:, None] + beta[:, None] * mkt + effect * (days >= 0)[None, :] + eps
    cols = {
        "stock_id": (np.repeat(np.arange(1, S + 1), days.size), "%d"),
        "event_day": (np.tile(days, S), "%d"),
        "ret": (ret.ravel(), "%.6f"),
        "mkt_ret": (mkt.ravel(), "%.6f"),
    }
    texts = {
        "title": s["title"],
        "research_question": (
            f"How did the share prices of {s['firms']} react to {s['event']}? Estimate the average daily "
            f"abnormal return over event days 0 to +{K}, measured against a market model."
        ),
        "data_description": (
            f"Daily returns for {S} {s['firms']}, each observed from event day -{L} to +{K} around its own event; "
            f"event day 0 is {s['event_date']}, and days -{L} to -1 precede it. Columns: `stock_id` (firm "
            f"identifier), `event_day` (trading day relative to the event, -{L} to +{K}), `ret` (the firm's daily "
            f"return as a decimal), `mkt_ret` (the market index return on the same day, as a decimal). The effect "
            f"of interest is the average daily abnormal return over days 0 to +{K}, as a decimal return per day."
        ),
    }
    truth = _truth(
        plan,
        "Event study: market-model abnormal returns, post-event days against pre-event days.",
        f"The event ({s['event']})",
        "daily returns",
        effect,
        "per day",
    )
    design = dict(
        columns=list(cols),
        event_day=0,
        pre_window=[-L, -1],
        post_window=[0, K],
        stocks=S,
        effect_scale="per_day_ar",
        noise_sd=p["sigma"],
        fat_tails=p["tails"],
    )
    return Realised(plan, _csv(cols), effect, {**texts, "ground_truth": truth}, design)


def _iv(plan: Plan, rng: np.random.Generator) -> Realised:
    s, p = plan.setting, TIERS["IV"][plan.difficulty]
    n, kind = p["n"], s["instrument_type"]
    effect = plan.sign * _sig(rng.uniform(*p["effect"]))
    if kind == "binary":
        z, z_fmt, pi = rng.binomial(1, 0.5, n), "%d", p["strength"] / 0.5
    else:
        z, z_fmt, pi = np.round(rng.normal(0.0, 1.0, n), 3), "%.3f", p["strength"]
    controls = np.round(rng.normal(0.0, 1.0, (n, p["controls"])), 3)
    confounder = rng.normal(0.0, 1.0, n)
    x = 3.0 + pi * z + controls.sum(axis=1) * 0.5 + confounder + rng.normal(0.0, 0.3, n)
    sd = p["sigma"] * (1.0 + 0.5 * np.abs(controls[:, 0])) if p["hetero"] else p["sigma"]
    y = 5.0 + effect * x + controls.sum(axis=1) * 0.4 + p["confound"] * confounder + rng.normal(0.0, 1.0, n) * sd
    names = s["controls"][: p["controls"]]
    cols = {"y": (y, "%.4f"), "x": (x, "%.4f"), "z": (z, z_fmt)}
    cols.update({name: (controls[:, j], "%.3f") for j, name in enumerate(names)})
    control_text = "".join(f", `{nm}` ({d})" for nm, d in zip(names, s["controls_desc"], strict=False))
    exog = f" The controls{'' if len(names) > 1 else ' column'} may be treated as exogenous." if names else ""
    texts = {
        "title": s["title"],
        "research_question": (
            f"What is the causal effect of {s['treatment']} on {s['outcome_short']} among {s['units']}? "
            f"{s['treatment'].capitalize()} is likely confounded by {s['confounder']}, so a plain regression of "
            f"the outcome on it would be biased."
        ),
        "data_description": (
            f"A cross-section of {n} {s['units']}, one row each. Columns: `y` ({s['y_desc']}), `x` "
            f"({s['x_desc']}), `z` ({s['z_desc']}){control_text}. `z` shifts `x` and is assumed to affect `y` "
            f"only through `x`.{exog} The effect of interest is the change in `y` per one-unit increase in `x`."
        ),
    }
    truth = _truth(
        plan,
        f"Instrumental variables (2SLS): `x` instrumented by the {kind} instrument `z`.",
        s["treatment"].capitalize(),
        s["outcome_short"],
        effect,
        "units of y per unit of x",
    )
    design = dict(
        columns=list(cols),
        instrument="z",
        instrument_type=kind,
        endogenous="x",
        controls=names,
        first_stage=pi,
        noise_sd=p["sigma"],
        heteroskedastic=p["hetero"],
    )
    return Realised(plan, _csv(cols), effect, {**texts, "ground_truth": truth}, design)


def _rdd(plan: Plan, rng: np.random.Generator) -> Realised:
    s, p = plan.setting, TIERS["RDD"][plan.difficulty]
    n, c, R, side, scale = p["n"], s["cutoff"], s["radius"], s["side"], s["scale"]
    effect = plan.sign * _sig(scale * rng.uniform(1.0, 2.0))
    x = np.round(rng.uniform(c - R, c + R, n), s["decimals"])
    treated = (x >= c if side == "above" else x < c).astype(int)
    dist = (x - c) / R
    b_out, b_in = p["slopes"]
    y = (
        s["base"]
        + scale * (b_out * dist * (1 - treated) + b_in * dist * treated + p["curvature"] * dist**2)
        + effect * treated
        + rng.normal(0.0, p["noise"] * scale, n)
    )
    cols = {"running_var": (x, f"%.{s['decimals']}f"), "treated": (treated, "%d"), "y": (y, "%.4f")}
    side_text = "at or above" if side == "above" else "below"
    texts = {
        "title": s["title"],
        "research_question": (
            f"Does {s['program']} change {s['outcome_short']} among {s['units']}? Eligibility follows a sharp "
            f"rule: {s['eligible']}."
        ),
        "data_description": (
            f"A cross-section of {n} {s['units']}, one row each. Columns: `running_var` ({s['running']}), "
            f"`treated` (1 when `running_var` is {side_text} {_fmt(c)}, else 0), `y` ({s['outcome']}). The cutoff "
            f"is {_fmt(c)}. The effect of interest is the jump in `y` at the cutoff caused by treatment, i.e. "
            f"treated minus untreated just at {_fmt(c)}."
        ),
    }
    truth = _truth(
        plan,
        f"Sharp regression discontinuity at {_fmt(c)}, treated {side_text} the cutoff.",
        s["program"][0].upper() + s["program"][1:],
        s["outcome_short"],
        effect,
        "units of y",
    )
    design = dict(
        columns=list(cols),
        cutoff=c,
        treated_side=side,
        bandwidth=_sig(RDD_BANDWIDTH_SHARE * R, 6),
        running_range=[c - R, c + R],
        noise_sd=p["noise"] * scale,
        curvature=p["curvature"],
    )
    return Realised(plan, _csv(cols), effect, {**texts, "ground_truth": truth}, design)


SIMULATORS = {"DID": _did, "EVENT_STUDY": _event_study, "IV": _iv, "RDD": _rdd}


def simulate(plan: Plan, seed: int) -> Realised:
    """Draw one scenario from its own stream ``default_rng([seed, family, tier, k])``."""
    return SIMULATORS[plan.family](plan, np.random.default_rng([seed, *plan.index]))


# ------------------------------------------------------------------------------------------------------- writing
def _record(r: Realised, data_file: str, sha: str) -> dict:

    data = pd.read_csv(io.StringIO(r.csv))
    can = canonical_estimate(data, r.plan.family, r.design)
    return {
        "scenario_id": r.plan.scenario_id,
        "family": r.plan.family,
        "difficulty": r.plan.difficulty,
        "domain": r.plan.setting["domain"],
        "title": r.texts["title"],
        "research_question": r.texts["research_question"],
        "data_description": r.texts["data_description"],
        "data_file": data_file,
        "true_effect": r.true_effect,
        "direction": "positive" if r.true_effect > 0 else "negative",
        "canonical": {**can.to_dict(), "estimate": round(can.estimate, 6), "se": round(can.se, 6)},
        "ground_truth": r.texts["ground_truth"],
        "design": r.design,
        "rows": int(len(data)),
        "sha256": sha,
    }


def _write_csvs(folder: Path, seed: int) -> list[tuple[Realised, str, str]]:
    (folder / "data").mkdir(parents=True, exist_ok=True)
    out = []
    for plan in plan_scenarios():
        r = simulate(plan, seed)
        data_file = f"data/{plan.scenario_id}.csv"
        path = folder / data_file
        path.write_bytes(r.csv.encode("ascii"))
        out.append((r, data_file, sha256_file(path)))
    return out


def _records_text(records: list[dict], seed: int) -> str:
    doc = {"generator": GENERATOR, "seed": seed, "scenarios": records}
    return json.dumps(doc, indent=1, ensure_ascii=True) + "\n"


def _fresh(target: Path) -> Path:
    tmp = target.with_name(f"{target.name}.partial-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    return tmp


def _publish(tmp: Path, target: Path) -> None:
    """Replace ``target`` by the finished ``tmp`` folder (a crash never leaves a half-written set at ``target``)."""
    if target.exists():
        shutil.rmtree(target)
    tmp.replace(target)


def write_set(out: str | Path, seed: int = DEFAULT_SEED) -> list[dict]:
    """Generate the 100 scenarios into ``out``, audit them, then publish; returns the records."""

    target = Path(out)
    if target.exists() and not target.is_dir():
        raise SuiteInputError(f"Output folder '{target}' is a file; pick a new or empty folder.")
    if target.exists() and not (target / RECORDS_FILE).exists() and any(target.iterdir()):
        raise SuiteInputError(f"Output folder '{target}' is not empty and holds no {RECORDS_FILE}; pick another.")
    tmp = _fresh(target)
    try:
        records = [_record(r, data_file, sha) for r, data_file, sha in _write_csvs(tmp, seed)]
        scenarios = [scenario_from_record(rec, tmp, f"generated record {rec['scenario_id']}") for rec in records]
        audit_or_raise(scenarios)
        (tmp / RECORDS_FILE).write_text(_records_text(records, seed), encoding="ascii")
        _publish(tmp, target)
    except OSError as exc:
        raise SuiteInputError(f"Output folder '{target}' cannot be written ({exc.strerror or exc}).") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return records


def ensure_builtin_data() -> Path:
    """The built-in set's folder in the cache, regenerating its CSVs on first use (sha256-checked)."""
    from causal_suite.offline_model import cache_dir

    records_path = builtin_records_path()
    doc = read_records(records_path)
    folder = cache_dir() / "causalverify" / f"builtin-{sha256_file(records_path)[:16]}"
    if (folder / RECORDS_FILE).exists() and all((folder / r["data_file"]).exists() for r in doc["scenarios"]):
        return folder
    tmp = _fresh(folder)
    try:
        shas = {r.plan.scenario_id: sha for r, _, sha in _write_csvs(tmp, int(doc["seed"]))}
        for rec in doc["scenarios"]:
            if shas.get(rec["scenario_id"]) != rec["sha256"]:
                raise SuiteInputError(
                    f"Built-in scenario {rec['scenario_id']}: regenerated CSV does not match the sha256 recorded in "
                    f"'{records_path}' (numpy's random stream differs?); generate a set with "
                    "`causalverify-data --out DIR` and load that folder instead."
                )
        shutil.copyfile(records_path, tmp / RECORDS_FILE)
        folder.parent.mkdir(parents=True, exist_ok=True)
        _publish(tmp, folder)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return folder
