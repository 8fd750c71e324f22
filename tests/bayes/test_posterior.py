"""nc_ece_posterior: the push-through of channel draws, checked against item-level computations."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.bayes.posterior_ece import highest_density_interval
from bayescal.correction.folded_correction import corrected_draws
from tests.helpers import fake_fit


@pytest.fixture(scope="module")
def varied():
    rng = np.random.default_rng(5)
    sim = bc.toy_data(3000, condition="nonlinear", seed=5)
    annotations = sim.data.annotations.copy()
    annotations[rng.random(annotations.shape) < 0.2] = -1
    annotations[(annotations == -1).all(axis=1), 0] = 1
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    a = np.clip(sim.channels.a + rng.normal(0, 0.02, (40, 3)), 0.01, 0.4)
    b = np.clip(sim.channels.b + rng.normal(0, 0.02, (40, 3)), 0.6, 0.99)
    return data, fake_fit(data, a, b, rng.uniform(0.4, 0.5, 40)), a, b


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
@pytest.mark.parametrize("weights", ["iv", "equal", "squared_gap", [0.5, 0.3, 0.2]])
def test_channel_draws_reproduce_item_level_nc_ece_exactly(varied, weights):
    data, fit, a, b = varied
    result = bc.nc_ece_posterior(data, fit, n_bins=10, weights=weights, uncertainty="channels")
    expected = [
        bc.noise_corrected_ece(data, bc.Channels(a[s], b[s]), n_bins=10, weights=weights)
        for s in range(40)
    ]
    assert result.raw_draws == pytest.approx(expected, abs=1e-12)
    assert np.array_equal(result.draws, result.raw_draws)  # no debiasing for the literal method


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
def test_bayesian_bootstrap_matches_an_exact_item_level_bootstrap():
    # Small data, fixed channels: the cell-level Dirichlet with a normal within-cell score term
    # against Dirichlet(1, ..., 1) weights on every item.
    sim = bc.toy_data(300, condition="shifted", seed=9)
    draws = 4000
    fit = fake_fit(
        sim.data,
        np.tile(sim.channels.a, (draws, 1)),
        np.tile(sim.channels.b, (draws, 1)),
        np.full(draws, 0.45),
    )
    ours = bc.nc_ece_posterior(sim.data, fit, n_bins=5, uncertainty="total", seed=1).raw_draws
    u = bc.correction.corrected_labels(sim.data.annotations, sim.channels)
    bins = np.minimum((sim.data.scores * 5).astype(int), 4)
    rng = np.random.default_rng(2)
    weights = rng.dirichlet(np.ones(300), size=draws)
    residual = (u - sim.data.scores)[None, :] * weights
    exact = np.abs(np.stack([residual[:, bins == k].sum(axis=1) for k in range(5)], axis=1)).sum(
        axis=1
    )
    assert ours.mean() == pytest.approx(exact.mean(), rel=0.02)
    assert ours.std() == pytest.approx(exact.std(), rel=0.06)
    for q in (0.05, 0.5, 0.95):
        assert np.quantile(ours, q) == pytest.approx(np.quantile(exact, q), rel=0.04)


def test_highest_density_interval():
    draws = np.concatenate([np.zeros(50), np.linspace(1, 2, 50)])
    assert highest_density_interval(draws, 0.5) == (0.0, 0.0)
    assert highest_density_interval(np.arange(10.0), 1.0) == (0.0, 9.0)
    lo, hi = highest_density_interval(np.random.default_rng(0).normal(size=100_000), 0.9)
    assert hi - lo == pytest.approx(2 * 1.6449, abs=0.02)  # the narrowest 90% window of N(0, 1)
    assert lo == pytest.approx(-1.645, abs=0.06)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
def test_result_fields_and_reliability_bands(varied):
    data, fit, _, _ = varied
    result = bc.nc_ece_posterior(data, fit, n_bins=10, level=0.8, tolerance=0.05)
    assert result.level == 0.8 and result.uncertainty == "total"
    assert result.interval[0] <= result.median <= result.interval[1]
    assert result.hdi[0] <= result.hdi[1]
    assert 0.0 <= result.prob_calibrated <= 1.0
    assert result.bin_moments.shape == (40, 10) and result.counts.sum() == data.n_items
    assert result.bin_accuracy().shape == (40, 10)
    # the reported draws are the bin moments' folded-normal corrected sums, centred below the
    # raw sums (sum_l c(rbar_l) <= sum_l |rbar_l| <= the raw draws' mean, by Jensen)
    np.testing.assert_allclose(result.draws, corrected_draws(result.bin_moments))
    assert result.draws.mean() < result.raw_draws.mean()


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"uncertainty": "all"},
            ValueError,
            r"uncertainty must be one of 'total', 'channels'; saw 'all'",
        ),
        ({"level": 1.0}, ValueError, r"level must lie strictly between 0 and 1; saw 1.0"),
        ({"level": 1.5}, ValueError, r"level must lie strictly between 0 and 1; saw 1.5"),
        ({"interval": 0.9}, TypeError, r"the argument interval= is called level="),
        ({"tolerance": -0.1}, ValueError, r"tolerance must be a number in \[0, 1\]"),
        ({"n_bins": 0}, ValueError, r"n_bins must be >= 1"),
        ({"weights": "best"}, ValueError, r"weights must be one of"),
        (
            {"weights": [1, 2]},
            ValueError,
            r"weights must have one entry per annotator \(3\); saw 2",
        ),
        ({"weights": [1, -1, 1]}, ValueError, r"weights must be non-negative with a positive sum"),
        ({"seed": -4}, ValueError, r"seed must be >= 0"),
    ],
)
def test_bad_input(varied, kwargs, error, match):
    data, fit, _, _ = varied
    with pytest.raises(error, match=match):
        bc.nc_ece_posterior(data, fit, **kwargs)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
def test_data_must_match_the_fit(varied):
    data, fit, _, _ = varied
    four = bc.AnnotatedScores(
        data.scores, np.column_stack([data.annotations, data.annotations[:, 0]])
    )
    with pytest.raises(
        ValueError,
        match=r"data must have the annotators of the fit: \['a0', 'a1', 'a2'\]; saw \['a0', 'a1', 'a2', 'a3'\]",
    ):
        bc.nc_ece_posterior(four, fit)
    others = bc.AnnotatedScores(data.scores, data.annotations, annotator_names=["x", "y", "z"])
    with pytest.raises(ValueError, match=r"saw \['x', 'y', 'z'\]"):
        bc.nc_ece_posterior(others, fit)
    with pytest.raises(ValueError, match=r"saw \['x', 'y', 'z'\]"):
        bc.nc_ece_posterior(others.cells(), fit)  # cells keep their annotators' names
    with pytest.raises(TypeError, match=r"fit must be a bayescal.BayesFit"):
        bc.nc_ece_posterior(data, object())
    with pytest.raises(TypeError, match=r"data must be a bayescal.AnnotatedScores"):
        bc.nc_ece_posterior(data.annotations, fit)
