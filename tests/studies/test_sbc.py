"""Simulation-based calibration (Talts et al. 2018) of both Bayesian models."""

import pytest

import bayescal as bc
from bayescal.studies import simulation_based_calibration


@pytest.mark.slow
def test_dawid_skene_passes_sbc():
    # 100 prior simulations, ranks among 100 posterior draws, chi-square uniformity per
    # parameter at family-wise level 0.01 (Bonferroni over the 7 parameters).
    result = simulation_based_calibration(
        model="dawid_skene", n_simulations=100, n_annotators=3, seed=1
    )
    assert result.ranks.shape == (100, 7) and result.n_draws == 100
    assert result.passed, result.p_values


@pytest.mark.slow
def test_hui_walter_passes_sbc():
    result = simulation_based_calibration(
        model="hui_walter", n_simulations=100, n_annotators=2, n_groups=4, seed=2
    )
    assert result.ranks.shape == (100, 8)
    assert result.passed, result.p_values


@pytest.mark.slow
def test_sbc_detects_a_fit_with_the_wrong_prior():
    # Negative control: simulate with prevalence ~ Beta(2, 2), fit with Beta(20, 2).
    wrong = bc.Priors(false_positive=(2, 8), sensitivity=(8, 2), prevalence=(20, 2))
    result = simulation_based_calibration(
        model="dawid_skene", n_simulations=100, n_items=100, seed=3, fit_priors=wrong
    )
    assert not result.passed
    assert result.p_values["prevalence"] < 0.01 / 7
