"""The paper's generators (§6.1 toy data; uniform-score K-annotator data), checked by simulation
with fixed seeds and stated tolerances."""

import math

import numpy as np
import pytest
from scipy import special, stats

import bayescal as bc
from bayescal.simulate.panels import TOY_CHANNELS, toy_calibration


def test_toy_channels_are_the_papers():
    assert TOY_CHANNELS.a.tolist() == pytest.approx([0.08, 0.13, 0.18])
    assert (1 - TOY_CHANNELS.b).tolist() == pytest.approx([0.16, 0.11, 0.06])


def test_toy_calibration_functions_hand_computed():
    assert toy_calibration("calibrated")(0.37) == pytest.approx(0.37)
    assert toy_calibration("shifted")(0.5) == pytest.approx(1 / (1 + math.exp(0.3)))
    assert toy_calibration("shifted")(0.8) == pytest.approx(special.expit(0.65 * math.log(4) - 0.3))
    assert toy_calibration("nonlinear")(0.25) == pytest.approx(0.37)
    assert toy_calibration("nonlinear")(0.75) == pytest.approx(0.63)
    assert toy_calibration("nonlinear")(0.01) == pytest.approx(0.02)  # clipped from 0.0175
    assert toy_calibration("nonlinear")(0.995) == pytest.approx(0.98)


def test_toy_data_is_seeded_and_shaped():
    first, again, other = (
        bc.toy_data(500, seed=1),
        bc.toy_data(500, seed=1),
        bc.toy_data(500, seed=2),
    )
    assert np.array_equal(first.data.annotations, again.data.annotations)
    assert np.array_equal(first.data.scores, again.data.scores)
    assert not np.array_equal(first.data.scores, other.data.scores)
    assert first.data.annotations.shape == (500, 3) and first.labels.shape == (500,)
    assert first.channels is TOY_CHANNELS


def test_calibrated_condition_has_zero_population_ece():
    assert bc.toy_data(10, condition="calibrated").population_ece == pytest.approx(0.0, abs=1e-14)


@pytest.mark.slow
def test_toy_scores_follow_the_mixture_model():
    # X = 0.3 - logit(Z) must be ½N(-1, 1) + ½N(1, 1).
    z = bc.toy_data(50_000, seed=3).data.scores
    x = 0.3 - special.logit(z)
    mixture_cdf = lambda t: 0.5 * stats.norm.cdf(t, -1, 1) + 0.5 * stats.norm.cdf(t, 1, 1)  # noqa: E731
    assert stats.kstest(x, mixture_cdf).pvalue > 0.01


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["calibrated", "shifted", "nonlinear"])
def test_labels_and_channels_follow_the_model(condition):
    sim = bc.toy_data(200_000, condition=condition, seed=7)
    z, y, ann = sim.data.scores, sim.labels, sim.data.annotations
    m = toy_calibration(condition)(z)
    # Y | Z ~ Bernoulli(m(Z)): the residual y - m(z) has mean 0 overall and in the upper half.
    for part in (np.ones_like(z, bool), z > 0.5):
        resid = y[part] - m[part]
        assert abs(resid.mean()) < 4 * resid.std() / math.sqrt(part.sum())
    # A_j | Y: empirical rates match (a_j, b_j) within 4 binomial standard errors.
    for cls, rates in ((0, TOY_CHANNELS.a), (1, TOY_CHANNELS.b)):
        sub = ann[y == cls]
        se = np.sqrt(rates * (1 - rates) / sub.shape[0])
        assert np.all(np.abs(sub.mean(axis=0) - rates) < 4 * se)
    # Annotators independent given Y: pairwise covariance near zero within each class.
    for cls in (0, 1):
        sub = ann[y == cls].astype(float)
        cov = np.cov(sub.T)
        off = cov[~np.eye(3, dtype=bool)]
        assert np.all(np.abs(off) < 4 / math.sqrt(sub.shape[0]))


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["shifted", "nonlinear"])
def test_population_ece_matches_monte_carlo(condition):
    sim = bc.toy_data(2_000_000, condition=condition, seed=8)
    z = sim.data.scores
    gaps = np.abs(sim.calibration(z) - z)
    se = gaps.std() / math.sqrt(z.size)
    assert sim.population_ece == pytest.approx(gaps.mean(), abs=4 * se)
    assert sim.population_ece > 0.05


def test_simulate_annotated_defaults_and_prevalence():
    channels = bc.Channels([0.1, 0.2], [0.9, 0.8])
    sim = bc.simulate_annotated(20_000, channels, seed=4)
    assert sim.population_ece == 0.0
    assert sim.data.n_annotators == 2
    # m(z) = z: prevalence rises with the score, so score halves have different class proportions.
    low, high = sim.labels[sim.data.scores < 0.5].mean(), sim.labels[sim.data.scores >= 0.5].mean()
    assert low == pytest.approx(0.25, abs=0.02) and high == pytest.approx(0.75, abs=0.02)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: bc.toy_data(0), ValueError, r"n must be >= 1; saw 0"),
        (lambda: bc.toy_data(10.5), TypeError, r"n must be an integer"),
        (
            lambda: bc.toy_data(10, condition="wavy"),
            ValueError,
            r"condition must be one of 'calibrated', 'shifted', 'nonlinear'; saw 'wavy'",
        ),
        (lambda: bc.toy_data(10, seed=-1), ValueError, r"seed must be >= 0; saw -1"),
        (
            lambda: bc.simulate_annotated(10, ([0.1], [0.9])),
            TypeError,
            r"channels must be a bayescal.Channels",
        ),
        (
            lambda: bc.simulate_annotated(10, bc.Channels(0.1, 0.9), calibration=0.5),
            TypeError,
            r"calibration must be a callable",
        ),
        (
            lambda: bc.simulate_annotated(10, bc.Channels(0.1, 0.9), calibration=lambda z: 2 * z),
            ValueError,
            r"calibration must map an array of scores",
        ),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
