"""NC-ECE with gold items, with intervals: the frequentist bootstrap of nc_ece_estimate and the
posterior push-through of nc_ece_posterior (DESIGN §9).  Their coverage is measured in
benchmarks/gold_coverage.py; here, what each computes and what each refuses."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.simulate.panels import toy_calibration
from tests.helpers import fake_fit

PANEL = bc.Channels([0.1, 0.15, 0.2, 0.25], [0.75, 0.85, 0.9, 0.8])


def _simulation(n_gold=200, seed=3, channels=PANEL):
    simulation = bc.simulate.simulate_annotated(
        3000, channels, calibration=toy_calibration("shifted"), seed=seed
    )
    return simulation.with_gold(n_gold, seed=seed)


def test_the_estimate_with_gold_has_a_bootstrap_interval():
    data = _simulation().data
    result = bc.nc_ece_estimate(data, n_bootstrap=50)
    assert result.gold_estimator == "rectified" and result.level == 0.9
    low, high = result.interval
    assert isinstance(low, float) and 0 <= low <= result.estimate <= high
    again = bc.nc_ece_estimate(data, n_bootstrap=50)
    assert again.interval == result.interval  # seeded
    model = bc.nc_ece_estimate(data, n_bootstrap=50, gold_estimator="model")
    assert model.gold_estimator == "model" and model.estimate != result.estimate
    # the moments are those of the channels fitted with the gold
    fit = bc.dawid_skene_em(data)
    assert result.moments.ece == pytest.approx(bc.noise_corrected_ece(data, fit.channels))


def test_known_channels_with_gold_have_an_interval_too():
    simulation = _simulation()
    result = bc.nc_ece_estimate(simulation.data, estimator=simulation.channels, n_bootstrap=40)
    assert result.fits == () and result.interval is not None
    assert result.moments.ece == pytest.approx(
        bc.noise_corrected_ece(simulation.data, simulation.channels)
    )


def test_without_gold_there_is_no_interval_and_n_bootstrap_is_refused():
    simulation = _simulation()
    plain = bc.AnnotatedScores(simulation.data.scores, simulation.data.annotations)
    result = bc.nc_ece_estimate(plain)
    assert result.interval is None and result.gold_estimator is None
    with pytest.raises(ValueError, match=r"n_bootstrap sets the replicates .* saw 0 gold items"):
        bc.nc_ece_estimate(plain, n_bootstrap=100)
    with pytest.raises(ValueError, match=r"saw 200 gold items and mode 'split'"):
        bc.nc_ece_estimate(simulation.data, mode="split", n_bootstrap=100)
    with pytest.raises(
        ValueError, match=r"n_bootstrap must be an integer >= 2|n_bootstrap must be"
    ):
        bc.nc_ece_estimate(simulation.data, n_bootstrap=1)
    with pytest.raises(TypeError, match=r"progress must be True or False; saw str"):
        bc.nc_ece_estimate(simulation.data, progress="yes")


def test_split_and_crossfit_use_the_gold_without_an_interval():
    data = _simulation().data
    for mode in ("split", "crossfit"):
        result = bc.nc_ece_estimate(data, mode=mode)
        assert result.gold_estimator == "rectified" and result.interval is None


@pytest.mark.parametrize("estimator", ["rectified", "model"])
def test_the_posterior_with_fixed_channels_is_the_estimate(estimator):
    """Draws that are all the true channels, without the bootstrap ("channels"): every draw's
    NC-ECE is noise_corrected_ece's with those channels and the same estimator."""
    simulation = _simulation()
    data = simulation.data
    draws = 5
    fit = fake_fit(
        data,
        np.tile(simulation.channels.a, (draws, 1)),
        np.tile(simulation.channels.b, (draws, 1)),
        np.full(draws, simulation.labels.mean()),
    )
    posterior = bc.nc_ece_posterior(data, fit, uncertainty="channels", gold_estimator=estimator)
    expected = bc.noise_corrected_ece(data, simulation.channels, gold_estimator=estimator)
    np.testing.assert_allclose(posterior.raw_draws, expected, rtol=1e-12)


def test_the_posterior_bootstrap_spreads_the_rectified_draws_around_the_estimate():
    simulation = _simulation()
    data = simulation.data
    draws = 400
    fit = fake_fit(
        data,
        np.tile(simulation.channels.a, (draws, 1)),
        np.tile(simulation.channels.b, (draws, 1)),
        np.full(draws, simulation.labels.mean()),
    )
    total = bc.nc_ece_posterior(data, fit)
    bins = total.bin_moments.mean(axis=0)
    fixed = bc.nc_ece_posterior(data, fit, uncertainty="channels").bin_moments[0]
    # the Bayesian bootstrap's bin moments centre on the estimate's, within their spread / 5
    spread = total.bin_moments.std(axis=0)
    assert (np.abs(bins - fixed) < spread / 5 + 1e-12).all()
    # the gold's rectifier is in the spread: far wider than the model's on these draws
    model = bc.nc_ece_posterior(data, fit, gold_estimator="model")
    assert (spread > 1.5 * model.bin_moments.std(axis=0)).sum() >= 7


def test_the_gold_estimator_is_checked_in_the_posterior():
    simulation = _simulation()
    fit = fake_fit(simulation.data, simulation.channels.a[None], simulation.channels.b[None], [0.4])
    with pytest.raises(ValueError, match=r"gold_estimator must be one of"):
        bc.nc_ece_posterior(simulation.data, fit, gold_estimator="mean")


def test_gold_on_every_item_is_said_and_gives_the_plain_ece():
    simulation = _simulation()
    data = bc.AnnotatedScores(
        simulation.data.scores, simulation.data.annotations, gold=simulation.labels
    )
    with pytest.warns(bc.DataWarning, match=r"every one of the 3000 items has a gold label"):
        result = bc.nc_ece_estimate(data, n_bootstrap=30)
    plain = bc.expected_calibration_error(simulation.labels, data.scores)
    assert result.moments.ece == pytest.approx(plain, abs=1e-12)


def test_the_bootstrap_of_poisson_sampled_gold_has_the_design_variance():
    """Gold drawn item by item with probabilities pi (Poisson sampling, as select_for_gold
    draws it): the replicates' multiplicities (``poisson_sample_multiplicities``) have mean 1
    and variance 1 - pi, and an item with pi = 1 is kept once in every replicate.  Then the
    bootstrap's sd of a Hájek mean is its sd over repeated Poisson samples of one population
    (within 6%, 60 samples x 400 replicates against 4 000 samples, seed 5), where drawing the
    gold with replacement overstates it by more than 15% at these pi, 0.1 to 0.9 (measured:
    1.003 and 1.24 times)."""
    from bayescal.correction.gold_interval import poisson_sample_multiplicities

    rng = np.random.default_rng(5)
    pi = np.repeat([0.05, 0.5, 1.0], 20_000)
    kept = poisson_sample_multiplicities(pi, rng).reshape(3, -1)
    np.testing.assert_allclose(kept.mean(axis=1), 1.0, atol=0.03)
    np.testing.assert_allclose(kept.var(axis=1), [0.95, 0.5, 0.0], atol=0.04)
    assert (kept[2] == 1).all()

    population = rng.normal(size=600) + np.linspace(0, 3, 600)
    inclusion = np.linspace(0.1, 0.9, 600)

    def hajek(values, probabilities, times):
        weights = times / probabilities
        return (weights * values).sum() / weights.sum()

    design = np.std(
        [hajek(population, inclusion, rng.random(600) < inclusion) for _ in range(4000)]
    )
    poisson, with_replacement = [], []
    for _ in range(60):
        drawn = np.flatnonzero(rng.random(600) < inclusion)
        values, probabilities = population[drawn], inclusion[drawn]
        poisson.append(
            np.std(
                [
                    hajek(values, probabilities, poisson_sample_multiplicities(probabilities, rng))
                    for _ in range(400)
                ]
            )
        )
        with_replacement.append(
            np.std(
                [
                    hajek(
                        values,
                        probabilities,
                        np.bincount(rng.choice(drawn.size, drawn.size), minlength=drawn.size),
                    )
                    for _ in range(400)
                ]
            )
        )
    assert np.mean(poisson) == pytest.approx(design, rel=0.06)
    assert np.mean(with_replacement) > 1.15 * design
