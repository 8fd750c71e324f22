"""Regression against an independent implementation: scikit-learn's calibration_curve.

sklearn bins are (a, b] with the first closed, ours [a, b) with the last closed, so the random
data here avoid every bin edge (PEERS.md)."""

import numpy as np
import pytest

import bayescal as bc

calibration = pytest.importorskip("sklearn.calibration")


def test_sklearn_fixture_from_its_own_tests():
    y = [0, 0, 0, 1, 1, 1]
    p = [0.0, 0.1, 0.2, 0.8, 0.9, 1.0]
    curve = bc.metrics.reliability_curve(y, p, n_bins=2)
    assert curve.mean_target.tolist() == [0.0, 1.0]
    assert curve.mean_predicted == pytest.approx([0.1, 0.9])


@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_reliability_curve_matches_sklearn_off_the_edges(n_bins):
    rng = np.random.default_rng(n_bins)
    p = rng.random(5000)
    p = p[np.abs(p * n_bins - np.round(p * n_bins)) > 1e-9]
    y = (rng.random(p.size) < p**1.3).astype(int)
    prob_true, prob_pred = calibration.calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    ours = bc.metrics.reliability_curve(y, p, n_bins=n_bins)
    assert ours.mean_target[ours.nonempty] == pytest.approx(prob_true, abs=1e-12)
    assert ours.mean_predicted[ours.nonempty] == pytest.approx(prob_pred, abs=1e-12)
