"""Reference predictors (§2, §7 step 12): one input set per baseline, every target fitted where it is defined."""

import numpy as np
import pandas as pd

from frail.baselines import BASELINES, run_baselines


def _jobs(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 1, n)
    words = rng.integers(3, 30, n)
    return pd.DataFrame(
        {
            "C": c,
            "base_text": ["word " * int(w) for w in words],
            "y_base_epoch_mean": np.nan,
            "pi": 1 + 2 * c - 3 * c**2,
            "b": np.where(np.arange(n) < 2, 0.5, np.nan),
        }
    )


def test_baselines_on_hand_made_jobs():
    train, test = _jobs(40, 0), _jobs(10, 1)
    out = run_baselines(train, test, ["pi", "b"], seed=0)
    assert set(out) == set(BASELINES) and all(set(v) == {"pi", "b"} for v in out.values())
    # pi is exactly quadratic in C: the complexity baseline recovers it on the test jobs
    np.testing.assert_allclose(out["complexity"]["pi"], test["pi"], atol=1e-9)
    assert out["surface_gbt"]["pi"].shape == (10,) and np.isfinite(out["text_length"]["pi"]).all()
    assert out["base_y"]["pi"] is None  # the data carry no base pass rate
    assert all(v["b"] is None for v in out.values())  # b is defined on two training jobs only
