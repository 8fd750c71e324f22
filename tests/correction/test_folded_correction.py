"""The folded-normal bias correction of NC-ECE (bayescal.correction.folded_correction)."""

import numpy as np

from bayescal.correction.folded_correction import bias_corrected, corrected_draws

#: Ten bins whose moments are 0 to 6 standard errors from 0, on both sides.
SIGMA = 0.01
MOMENTS = SIGMA * np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -1, -2.5])


def test_the_correction_of_a_bin_removes_most_of_the_bias_of_its_absolute_value():
    """``E[c(r_hat)] - |r|`` over ``r_hat ~ N(r, s^2)``, by quadrature: within 0.1 s from
    half a standard error on (``|r_hat|``: 0.39 s at half a standard error), and 0.48 s at
    ``r = 0`` where ``|r_hat|`` is sqrt(2 / pi) s = 0.80 s above; a bin that never varies
    is ``|x|``."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()

    def bias(values, r):
        return (weights @ values - abs(r)) / SIGMA

    for r in MOMENTS:
        estimates = r + SIGMA * nodes
        corrected = bias(bias_corrected(estimates, np.full(nodes.size, SIGMA)), r)
        uncorrected = bias(np.abs(estimates), r)
        assert abs(corrected) < (0.5 if r == 0 else 0.1), r
        assert abs(corrected) < uncorrected or abs(r) >= 1.5 * SIGMA, r
    assert bias(np.abs(SIGMA * nodes), 0) > 0.79
    np.testing.assert_array_equal(bias_corrected(np.array([-0.2, 0.3]), np.zeros(2)), [0.2, 0.3])


def test_posterior_draws_median_sits_on_the_sum_of_absolute_moments():
    """1 000 replicates of bin estimates ``r + s eps`` and 200 draws ``r_hat + s eta`` each
    (a posterior whose spread is the estimate's standard error): the mean median of the
    corrected draws is within 0.5 s of ``sum_l |r_l|`` (measured +0.24 s, SE 0.1 s); the raw
    sum's is 3 s above it.  No draw is below 0."""
    rng = np.random.default_rng(0)
    medians, raw = [], []
    for _ in range(1000):
        estimate = MOMENTS + SIGMA * rng.standard_normal(MOMENTS.size)
        draws = estimate + SIGMA * rng.standard_normal((200, MOMENTS.size))
        corrected = corrected_draws(draws)
        assert (corrected >= 0).all()
        medians.append(np.median(corrected))
        raw.append(np.median(np.abs(draws).sum(axis=1)))
    target = np.abs(MOMENTS).sum()
    assert abs(np.mean(medians) - target) < 0.5 * SIGMA
    assert np.mean(raw) - target > 2.5 * SIGMA
