"""nc_ece: NC-ECE with estimated channels, reuse / split / cross-fit (paper §3, App. C.3–C.4)."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.exceptions import ChannelFitError

pytestmark = pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")


def _grouped(sim, n_groups=5):
    data = sim.data
    return bc.AnnotatedScores(
        data.scores,
        data.annotations,
        groups=bc.channels.score_groups(data.scores, n_groups=n_groups),
    )


def test_known_channels_give_noise_corrected_ece():
    sim = bc.toy_data(4000, seed=1)
    result = bc.nc_ece_estimate(sim.data, estimator=sim.channels, n_bins=10)
    assert result.estimate == bc.noise_corrected_ece(sim.data, sim.channels, n_bins=10)
    assert result.fits == () and result.estimator == "known channels" and result.n_evaluated == 4000


def test_reuse_equals_correction_with_the_fitted_channels():
    sim = bc.toy_data(4000, seed=2)
    result = bc.nc_ece_estimate(sim.data, estimator="dawid_skene_em", n_bins=10)
    (fit,) = result.fits
    assert result.estimate == bc.noise_corrected_ece(sim.data, fit.channels, n_bins=10)


def test_split_fits_on_one_part_and_evaluates_the_other():
    sim = bc.toy_data(4000, seed=3)
    result = bc.nc_ece_estimate(
        sim.data, estimator="dawid_skene_em", mode="split", split_fraction=0.25, n_bins=10, seed=4
    )
    assert result.n_evaluated == 3000 and result.moments.counts.sum() == 3000
    assert result.fits[0].group_counts.sum() == 1000


def test_crossfit_sums_held_out_moments_before_the_absolute_value():
    sim = bc.toy_data(6000, seed=5)
    result = bc.nc_ece_estimate(
        sim.data,
        estimator="dawid_skene_em",
        mode="crossfit",
        n_folds=3,
        n_bins=10,
        weights="equal",
        seed=6,
    )
    assert len(result.fits) == 3
    # Rebuild: the fold assignment is a seeded permutation mod F; each fold is corrected with
    # the channels fitted without it, and the moments are taken over all items at once.
    fold = np.random.default_rng(6).permutation(6000) % 3
    targets = np.empty(6000)
    for k, fit in enumerate(result.fits):
        targets[fold == k] = bc.correction.corrected_labels(
            sim.data.annotations[fold == k], fit.channels, weights="equal"
        )
    expected = bc.metrics.calibration_moments(targets, sim.data.scores, n_bins=10)
    assert result.moments.moments == pytest.approx(expected.moments, abs=1e-15)


@pytest.mark.parametrize("estimator", ["grouped_em", "hui_walter_moments", "hui_walter_gmm"])
def test_grouped_estimators_run_in_every_mode(estimator):
    channels = bc.Channels([0.1, 0.2], [0.85, 0.9])
    sim = bc.simulate_annotated(8000, channels, seed=7)
    data = _grouped(sim, n_groups=2 if estimator == "hui_walter_moments" else 4)
    truth = bc.nc_ece_estimate(data, estimator=channels, n_bins=10).estimate
    for mode in ("reuse", "split", "crossfit"):
        result = bc.nc_ece_estimate(data, estimator=estimator, mode=mode, n_bins=10, n_folds=3)
        assert abs(result.estimate - truth) < 0.03


def test_estimator_options_and_callables_are_passed_through():
    sim = bc.toy_data(3000, seed=8)
    result = bc.nc_ece_estimate(
        sim.data, estimator="dawid_skene_em", estimator_options={"n_starts": 2, "seed": 5}
    )
    assert result.fits[0].ok
    custom = bc.nc_ece_estimate(sim.data, estimator=lambda data: bc.channels.third_moment(data))
    assert custom.fits[0].method == "third_moment"


def test_failed_fit_raises_with_the_fold():
    # every annotator of the training folds always says 1: nothing is informative
    data = bc.AnnotatedScores(np.linspace(0, 1, 60), np.ones((60, 3), np.int8))
    with pytest.raises(
        ChannelFitError,
        match=r"dawid_skene_em failed on the training folds of fold 0: .*every annotator has an "
        r"estimated gap below 0.0001",
    ):
        bc.nc_ece_estimate(data, estimator="dawid_skene_em", mode="crossfit")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"mode": "jackknife"},
            ValueError,
            r"mode must be one of 'reuse', 'split', 'crossfit'; saw 'jackknife'",
        ),
        ({"estimator": "bayes"}, ValueError, r"estimator must be one of 'dawid_skene_em'"),
        (
            {"estimator": 3},
            TypeError,
            r"estimator must be one of .* a Channels, or a callable; saw int",
        ),
        ({"estimator_options": [1]}, TypeError, r"estimator_options must be a dict; saw list"),
        ({"mode": "crossfit", "n_folds": 1}, ValueError, r"n_folds must be >= 2; saw 1"),
        (
            {"mode": "split", "split_fraction": 1.5},
            ValueError,
            r"split_fraction must be a number in \(0, 1\); saw 1.5",
        ),
        ({"n_bins": 0}, ValueError, r"n_bins must be >= 1"),
        ({"seed": -1}, ValueError, r"seed must be >= 0"),
    ],
)
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        bc.nc_ece_estimate(bc.toy_data(300, seed=1).data, **kwargs)


def test_known_channels_with_a_fitting_mode_is_an_error():
    sim = bc.toy_data(300, seed=1)
    with pytest.raises(ValueError, match=r"mode must be 'reuse' with known channels"):
        bc.nc_ece_estimate(sim.data, estimator=sim.channels, mode="split")
    with pytest.raises(TypeError, match=r"data must be a bayescal.AnnotatedScores"):
        bc.nc_ece_estimate(sim.data.annotations)


@pytest.mark.slow
def test_toy_study_sanity_estimated_channels_close_to_true_channels():
    # Paper §6.1, calibrated condition (true ECE 0), n = 8000: grouped EM on 5 equal-width score
    # groups, 10 evaluation bins, 60 seeded replicates.  The mean absolute error of NC-ECE with
    # estimated channels stays within 1.5x of NC-ECE with the true channels (reuse and cross-fit).
    errors = {"true": [], "reuse": [], "crossfit": []}
    for seed in range(60):
        sim = bc.toy_data(8000, condition="calibrated", seed=seed)
        data = _grouped(sim)
        errors["true"].append(
            bc.nc_ece_estimate(data, estimator=sim.channels, n_bins=10).estimate
            - sim.population_ece
        )
        for mode in ("reuse", "crossfit"):
            errors[mode].append(
                bc.nc_ece_estimate(
                    data, estimator="grouped_em", mode=mode, n_bins=10, seed=seed
                ).estimate
                - sim.population_ece
            )
    mae = {name: np.mean(np.abs(values)) for name, values in errors.items()}
    assert mae["reuse"] < 1.5 * mae["true"], mae
    assert mae["crossfit"] < 1.5 * mae["true"], mae
