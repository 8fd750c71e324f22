"""The calibration test with gold items: its statistic sums the rectified bin residuals
(centred under H0 whatever the channels), its replicates draw the gold items' classes, and the
H0 draw of a BayesFit holds the gold labels fixed."""

import numpy as np
import pytest

import bayescal as bc

PANEL = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])
#: false-positive rates 0.05-0.06 too high: without gold, a calibrated predictor looks
#: miscalibrated
WRONG = bc.Channels([0.16, 0.2, 0.25], [0.75, 0.85, 0.9])


def _calibrated(seed, n_gold=300):
    return bc.simulate.simulate_annotated(3000, PANEL, seed=seed).with_gold(n_gold, seed=seed)


def test_with_gold_the_size_holds_and_wrong_channels_do_not_reject():
    """200 calibrated replicates at the 5% level: with the true channels the rejections lie in
    Binomial(200, 0.05)'s central 99.9% (2 to 21); with channels 0.05 off, the test without
    gold rejects nearly always, the rectified one no more than the level allows (at most 21:
    its variance, computed at the wrong channels, errs on the wide side)."""
    rejections = {"true": 0, "wrong": 0, "wrong without gold": 0}
    for seed in range(200):
        data = _calibrated(seed).data
        plain = bc.AnnotatedScores(data.scores, data.annotations)
        rejections["true"] += bc.calibration_test(data, PANEL).p_value < 0.05
        rejections["wrong"] += bc.calibration_test(data, WRONG).p_value < 0.05
        if seed < 20:
            rejections["wrong without gold"] += bc.calibration_test(plain, WRONG).p_value < 0.05
    assert 2 <= rejections["true"] <= 21, rejections
    assert rejections["wrong"] <= 21, rejections
    assert rejections["wrong without gold"] >= 18, rejections


def test_with_gold_a_miscalibrated_predictor_is_rejected():
    simulation = bc.simulate.simulate_annotated(
        3000, PANEL, calibration=lambda z: 0.15 + 0.7 * np.asarray(z), seed=1
    ).with_gold(300, seed=1)
    assert bc.calibration_test(simulation.data, PANEL).p_value < 1e-3


def test_the_rectified_sums_reduce_to_the_plain_ones_without_gold_in_a_bin():
    """Gold only in the top half of the scores: the bins below sum U - Z as without gold."""
    simulation = _calibrated(3)
    data = simulation.data
    gold = np.where(data.scores > 0.5, data.gold, -1)
    half = bc.AnnotatedScores(data.scores, data.annotations, gold=gold)
    plain = bc.AnnotatedScores(data.scores, data.annotations)
    with_gold = bc.calibration_test(half, PANEL, n_bins=10)
    without = bc.calibration_test(plain, PANEL, n_bins=10)
    low = with_gold.upper <= 0.5
    assert low.sum() == 5
    np.testing.assert_allclose(with_gold.residual[low], without.residual[low], rtol=1e-12)
    np.testing.assert_allclose(with_gold.contribution[low], without.contribution[low], rtol=1e-12)
    assert not np.allclose(with_gold.residual[~low], without.residual[~low])


def test_the_refitting_bootstrap_refits_with_the_replicates_gold():
    data = _calibrated(4, n_gold=200).data
    fit = bc.dawid_skene_em(data)
    result = bc.calibration_test(data, fit, n_replicates=39, seed=1, progress=False)
    assert result.channels_from == "reuse" and result.n_replicates == 39
    assert 0.0 < result.p_value <= 1.0


@pytest.mark.slow
def test_one_judge_with_gold_is_tested_from_its_posterior_under_h0():
    """One judge: without the gold held fixed, the H0 draw of its channel is not identified.
    Calibrated, the sampled-posterior p-value lies in the bulk; miscalibrated, it rejects."""
    calibrated = bc.simulate.simulate_annotated(3000, bc.Channels([0.15], [0.8]), seed=5).with_gold(
        200, seed=5
    )
    fit = bc.fit_bayes(calibrated.data, progress=False)
    assert bc.calibration_test(calibrated.data, fit, seed=2).p_value > 0.01
    shifted = bc.simulate.simulate_annotated(
        3000,
        bc.Channels([0.15], [0.8]),
        calibration=lambda z: 0.15 + 0.7 * np.asarray(z),
        seed=6,
    ).with_gold(200, seed=6)
    fit = bc.fit_bayes(shifted.data, progress=False)
    assert bc.calibration_test(shifted.data, fit, seed=2).p_value < 0.01
