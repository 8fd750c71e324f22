"""Regression against an independent implementation: ArviZ's rank-normalised R-hat and ESS.

bayescal computes them itself (bayescal/bayes/diagnostics.py) so that a fit needs no ArviZ import;
both follow Vehtari et al. (2021), so they must agree to rounding."""

import numpy as np
import pytest
from bayescal.models.stack import arviz

from bayescal.bayes.diagnostics import ess_bulk, ess_tail, rank_normalized_rhat


def _autoregressive(rng, chains: int, draws: int, phi: float) -> np.ndarray:
    noise = rng.normal(size=(chains, draws))
    x = np.zeros((chains, draws))
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x + rng.normal(0, 0.3, (chains, 1))  # chains that disagree a little


@pytest.mark.parametrize("case", range(24))
def test_rhat_and_ess_equal_arviz(case):
    """Chains of 1-4, even and odd lengths, autocorrelation from -0.5 to 0.95, and ties
    (rounded draws), 24 seeded cases."""
    az = arviz()
    rng = np.random.default_rng(case)
    chains, draws = int(rng.integers(2, 5)), int(rng.integers(40, 800))
    x = _autoregressive(rng, chains, draws, float(rng.uniform(-0.5, 0.95)))
    if case % 3 == 0:
        x = np.round(x, 1)
    assert rank_normalized_rhat(x) == pytest.approx(float(az.rhat(x)), rel=1e-10)
    assert ess_bulk(x) == pytest.approx(float(az.ess(x, method="bulk")), rel=1e-10)
    assert ess_tail(x) == pytest.approx(float(az.ess(x, method="tail")), rel=1e-10)


def test_constant_draws_have_no_diagnostics():
    x = np.full((2, 100), 0.3)
    assert np.isnan(rank_normalized_rhat(x)) and np.isnan(ess_bulk(x)) and np.isnan(ess_tail(x))
