"""Simulation-based calibration (Talts et al. 2018) of the Bayesian models."""

import pytest

import bayescal as bc
from bayescal.studies import simulation_based_calibration

#: Warm-up iterations of every fit here (the study's default is 500).  300 adapt these small
#: models' step size and mass matrix: a fit still adapting would show as ranks piled at the ends,
#: which the uniformity test of each study below would catch.
WARMUP = 300

#: Kept draws of every fit here, thinned (the study's default is 1 000 by 10): 49 draws rank
#: the truth on 0 .. 49, 50 values that 5 or 10 rank bins split evenly, where 100 draws put 11
#: values in the first of 10 bins and 10 in the others.  The costlier models' positive tests
#: rank 60 simulations in 5 bins (12 a bin expected; the benchmarks run 100-200 in 10).
#: Thinning by 5 leaves these small models' draws close to independent (SBC's ranks assume it):
#: strongly correlated draws would show as ranks piled at the ends, which the uniformity test
#: would catch.
SHORT = {"num_warmup": WARMUP, "num_samples": 245, "thin": 5}


@pytest.mark.slow
def test_dawid_skene_passes_sbc():
    # 100 prior simulations, ranks among 49 posterior draws, chi-square uniformity per
    # parameter at family-wise level 0.01 (Bonferroni over the 7 parameters).
    result = simulation_based_calibration(
        model="dawid_skene",
        n_simulations=100,
        n_annotators=3,
        **SHORT,
        seed=1,
    )
    assert result.ranks.shape == (100, 7) and result.n_draws == 49
    assert result.passed, result.p_values


@pytest.mark.slow
def test_hui_walter_passes_sbc():
    result = simulation_based_calibration(
        model="hui_walter",
        n_simulations=100,
        n_annotators=2,
        n_groups=4,
        **SHORT,
        seed=2,
    )
    assert result.ranks.shape == (100, 8)
    assert result.passed, result.p_values


@pytest.mark.slow
def test_sbc_detects_a_fit_with_the_wrong_prior():
    # Negative control: simulate with prevalence ~ Beta(2, 2), fit with Beta(20, 2).  The
    # mismatch is gross: 40 simulations show it (p = 7e-40 for the prevalence).
    wrong = bc.Priors(false_positive=(2, 8), sensitivity=(8, 2), prevalence=(20, 2))
    result = simulation_based_calibration(
        model="dawid_skene",
        n_simulations=40,
        n_items=100,
        **SHORT,
        seed=3,
        fit_priors=wrong,
    )
    assert not result.passed
    assert result.p_values["prevalence"] < 0.01 / 7


@pytest.mark.slow
def test_dawid_skene_with_dependent_pairs_passes_sbc():
    """Issues 19 and 38: six annotators, a tree of pairs that share a1 (a0 ~ a1 ~ a2) and a
    lone pair a3 ~ a4, so both kinds of term; the covariances are drawn from their prior
    (uniform within each pair's bounds) and ranked with the channels (19 parameters); 60
    simulations in 5 rank bins, as the crowd models' (benchmarks/dependent_pairs_sbc.py runs
    200)."""
    result = simulation_based_calibration(
        model="dawid_skene",
        n_simulations=60,
        n_rank_bins=5,
        n_annotators=6,
        dependent=[("a0", "a1"), ("a1", "a2"), ("a3", "a4")],
        **SHORT,
        seed=4,
    )
    assert result.ranks.shape == (60, 19)
    assert {f"covariance[{i}]" for i in range(6)} <= set(result.ranks.columns)
    assert result.passed, result.p_values


@pytest.mark.slow
def test_shared_difficulty_passes_sbc():
    """Issue 19: four annotators sharing an item difficulty, loadings ~ HalfNormal(1) (11
    parameters); 60 simulations in 5 rank bins, as the crowd models' (benchmarks/sbc_folded.py
    runs 100 under flat channel priors)."""
    result = simulation_based_calibration(
        model="shared_difficulty",
        n_simulations=60,
        n_rank_bins=5,
        n_annotators=4,
        **SHORT,
        seed=5,
    )
    assert result.ranks.shape == (60, 11)
    assert result.passed, result.p_values


@pytest.mark.slow
def test_multiclass_dawid_skene_passes_sbc():
    """Issue 39: 60 prior simulations of 300 items, 3 judges, 3 classes; the true parameters
    relabelled as the draws are, 30 of them ranked (benchmarks/class_sbc.py runs 200)."""
    result = simulation_based_calibration(
        model="dawid_skene", n_classes=3, n_simulations=60, n_items=300, **SHORT, seed=7
    )
    assert result.ranks.shape == (60, 30) and result.n_draws == 49
    assert result.passed, result.p_values


@pytest.mark.slow
def test_multiclass_sbc_detects_a_fit_with_the_wrong_prior():
    # Negative control: simulated with judges better than chance (concentration 4 on the own
    # class, 1 on each other), fitted with the opposite lean (1 and 4)
    result = simulation_based_calibration(
        model="dawid_skene",
        n_classes=3,
        n_simulations=40,
        n_items=100,
        **SHORT,
        seed=8,
        fit_priors=bc.bayes.ClassPriors(confusion=(1, 4)),
    )
    assert not result.passed


#: The multi-class crowd studies' layout: 150 items of 3 classes, each labelled by 3 of 6 workers
#: (57 ranked parameters: 6 workers' 3 x 3 matrices and the 3 proportions).
CROWD = {
    "model": "hierarchical_dawid_skene",
    "n_classes": 3,
    "n_items": 150,
    "n_annotators": 6,
    "labels_per_item": 3,
    "num_warmup": WARMUP,
    "num_samples": 245,
    "thin": 5,
    "n_rank_bins": 5,
}


@pytest.mark.slow
def test_multiclass_crowd_model_passes_sbc():
    """Issue 39: 40 crowds drawn from the hierarchical program's own prior (population,
    workers' skills and cells, proportions); the confusion matrices and proportions ranked
    among 49 draws in 5 even bins, at family-wise level 0.01 (Bonferroni over 57)."""
    result = simulation_based_calibration(**CROWD, n_simulations=40, seed=4)
    assert result.ranks.shape == (40, 57) and result.n_draws == 49
    assert result.passed, result.p_values.sort_values().head()


@pytest.mark.slow
def test_multiclass_crowd_sbc_detects_a_fit_with_the_wrong_prior():
    # Negative control: proportions simulated far from even (Dirichlet 0.5), fitted under a
    # prior that holds them even (Dirichlet 50, 150 pseudo-items against 150 items)
    result = simulation_based_calibration(
        **CROWD,
        n_simulations=20,
        seed=5,
        priors=bc.bayes.ClassPriors(proportion=0.5),
        fit_priors=bc.bayes.ClassPriors(proportion=50),
    )
    assert not result.passed
    assert result.p_values.idxmin().startswith("proportion"), result.p_values.sort_values().head()
