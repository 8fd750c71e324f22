"""The estimators of a bin's mean label with gold items (bayescal.correction.rectified).

The rectified (PPI++) estimator of a random gold sample is checked against the formulas of
Angelopoulos, Duchi and Zrnic (2023) as the ppi_py package states them, and the estimator with
inclusion probabilities against the Hájek form of active inference (Zrnic and Candès 2024),
each written out here item by item with NumPy's own mean, std and cov: point estimate, lambda
and CLT standard error, and with rows that stand for several items."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.correction.known_channels import correct_annotations, gold_moments
from bayescal.correction.rectified import (
    MIN_BIN_GOLD,
    GoldRows,
    MeanProblem,
    gold_moment_draws,
    ppi_lambda,
    rectified_bins,
    rectified_mean,
    tuned_lambda,
)
from bayescal.metrics.calibration import assign_bins


def _reference(y, yhat, yhat_unlabeled):
    """lambda, point estimate and standard error of a mean by PPI++, item by item."""
    n, big_n = y.size, yhat_unlabeled.size
    theta = yhat_unlabeled.mean() + (y - yhat).mean()
    grads, grads_hat = y - theta, yhat - theta
    covariance = 2 / n * ((grads - grads.mean()) @ (grads_hat - grads_hat.mean()))
    variance = np.cov(np.concatenate([grads_hat, yhat_unlabeled - theta]))
    lam = float(np.clip(covariance / (2 * (1 + n / big_n) * variance), 0, 1))
    estimate = (lam * yhat_unlabeled).mean() + (y - lam * yhat).mean()
    error = np.hypot(
        (lam * yhat_unlabeled).std() / np.sqrt(big_n), (y - lam * yhat).std() / np.sqrt(n)
    )
    return lam, estimate, error


def _hajek_reference(y, yhat, yhat_unlabeled, pi):
    """lambda, point estimate and standard error of a mean from gold drawn with inclusion
    probabilities ``pi``, item by item: the mean of the predictions over all the items plus
    the self-normalised mean of the residuals."""
    w = 1 / pi
    everything = np.concatenate([yhat, yhat_unlabeled])
    y_bar, u_bar = np.average(y, weights=w), np.average(yhat, weights=w)
    lam = float(
        np.clip(
            np.sum(w**2 * (y - y_bar) * (yhat - u_bar)) / np.sum(w**2 * (yhat - u_bar) ** 2), 0, 1
        )
    )
    residual = y - lam * yhat
    estimate = lam * everything.mean() + np.average(residual, weights=w)
    design = np.sum(w**2 * (residual - np.average(residual, weights=w)) ** 2) / w.sum() ** 2
    spread = np.average((y - y_bar) ** 2, weights=w)
    return lam, estimate, np.sqrt(spread / everything.size + design)


def _rows(y, yhat, yhat_unlabeled, w=None):
    n = y.size
    return GoldRows(
        np.zeros(n + yhat_unlabeled.size, dtype=np.int64),
        np.concatenate([yhat, yhat_unlabeled]),
        np.concatenate([y, np.full(yhat_unlabeled.size, -1)]).astype(np.int8),
        np.ones(n + yhat_unlabeled.size),
        np.concatenate([np.ones(n) if w is None else w, np.ones(yhat_unlabeled.size)]),
    )


def test_one_mean_matches_the_ppi_formulas():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 150)
    yhat = y + rng.normal(0, 0.8, 150)
    yhat_unlabeled = rng.integers(0, 2, 2000) + rng.normal(0, 0.8, 2000)
    lam, estimate, error = _reference(y, yhat, yhat_unlabeled)
    problem = MeanProblem.of(_rows(y, yhat, yhat_unlabeled))
    assert 0 < lam < 1  # the test exercises the tuned lambda, not a clipped one
    assert not problem.weighted
    assert ppi_lambda(problem) == pytest.approx(lam, abs=1e-12)
    assert problem.estimate(lam) == pytest.approx(estimate, abs=1e-12)
    assert problem.standard_error(lam) == pytest.approx(error, abs=1e-12)


def test_one_mean_with_inclusion_probabilities_matches_the_hajek_formulas():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 150)
    yhat = y + rng.normal(0, 0.8, 150)
    yhat_unlabeled = rng.integers(0, 2, 2000) + rng.normal(0, 0.8, 2000)
    pi = rng.uniform(0.02, 0.2, 150)
    lam, estimate, error = _hajek_reference(y, yhat, yhat_unlabeled, pi)
    problem = MeanProblem.of(_rows(y, yhat, yhat_unlabeled, 1 / pi))
    assert 0 < lam < 1 and problem.weighted
    assert tuned_lambda(problem) == pytest.approx(lam, abs=1e-12)
    assert problem.estimate(lam) == pytest.approx(estimate, abs=1e-12)
    assert problem.standard_error(lam) == pytest.approx(error, abs=1e-12)
    assert rectified_mean(y, yhat, yhat_unlabeled, 1 / pi) == pytest.approx(
        (estimate, lam, error), abs=1e-12
    )


def test_gold_chosen_by_how_sure_the_prediction_is_stays_unbiased():
    """Gold drawn more often where the prediction is unsure: the items left without gold are
    then no random sample of the bin, and the mean of U over them alone (ppi_py's independent
    unlabelled set) is off; over all the items it is not.  400 replicates of 3 000 items and
    about 280 gold items.  The self-normalised mean keeps a ratio bias of order 1/n (measured
    0.0014 over 2 000 replicates, 0.09 of one estimate's sd): the mean error must stay within
    0.25 sd of 0 (that bias plus 3 Monte Carlo standard errors of 0.05 sd), and the other
    form's must be over 0.4 sd away (its bias is about 0.6 sd)."""
    rng = np.random.default_rng(11)
    errors, others_only = [], []
    for _ in range(400):
        y = rng.integers(0, 2, 3000)
        unsure = rng.random(3000) < 0.4
        yhat = np.where(unsure, 0.3 + rng.normal(0, 0.2, 3000), y + rng.normal(0, 0.05, 3000))
        yhat = yhat + 0.15  # a biased prediction, as a wrong channel model gives
        pi = np.where(unsure, 0.2, 0.02)
        chosen = rng.random(3000) < pi
        rows = GoldRows(
            np.zeros(3000, dtype=np.int64),
            yhat,
            np.where(chosen, y, -1).astype(np.int8),
            np.ones(3000),
            np.where(chosen, 1 / pi, 1.0),
        )
        problem = MeanProblem.of(rows)
        lam = tuned_lambda(problem)
        errors.append(problem.estimate(lam) - y.mean())
        others_only.append(problem._replace(weighted=False).estimate(lam) - y.mean())
    errors, others_only = np.array(errors), np.array(others_only)
    assert abs(errors.mean()) < 0.25 * errors.std()
    assert abs(others_only.mean()) > 0.4 * others_only.std()


def test_rows_standing_for_several_items_equal_the_items():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60)
    yhat = np.round(y + rng.normal(0, 0.7, 60), 1)  # few distinct values: rows repeat
    other = np.round(rng.integers(0, 2, 900) + rng.normal(0, 0.7, 900), 1)
    items = MeanProblem.of(_rows(y, yhat, other))
    keys, counts = np.unique(np.column_stack([y, yhat]), axis=0, return_counts=True)
    other_keys, other_counts = np.unique(other, return_counts=True)
    cells = GoldRows(
        np.zeros(keys.shape[0] + other_keys.size, dtype=np.int64),
        np.concatenate([keys[:, 1], other_keys]),
        np.concatenate([keys[:, 0], np.full(other_keys.size, -1)]).astype(np.int8),
        np.concatenate([counts, other_counts]).astype(float),
        np.ones(keys.shape[0] + other_keys.size),
    )
    merged = MeanProblem.of(cells)
    lam = ppi_lambda(items)
    assert ppi_lambda(merged) == pytest.approx(lam, abs=1e-12)
    assert merged.estimate(lam) == pytest.approx(items.estimate(lam), abs=1e-12)
    assert merged.standard_error(lam) == pytest.approx(items.standard_error(lam), abs=1e-12)


def _simulation(n_gold=400, seed=3):
    channels = bc.Channels([0.1, 0.2, 0.3], [0.8, 0.75, 0.7])
    simulation = bc.simulate_annotated(
        6000, channels, calibration=lambda z: 0.2 + 0.5 * np.asarray(z), seed=seed
    )
    return simulation.with_gold(n_gold, seed=seed)


def test_each_bin_is_its_own_ppi_mean():
    simulation = _simulation(n_gold=800)  # every bin has enough gold for its own lambda
    data = simulation.data
    targets = correct_annotations(data.annotations, simulation.channels, "iv", None)
    edges = assign_bins(data.scores, 10, "uniform")[1]
    bins = gold_moments(data, targets, np.ones(data.n_items, bool), edges, "uniform", "rectified")
    index = np.minimum((data.scores * 10).astype(int), 9)
    for b in range(10):
        here = index == b
        gold = here & (data.gold >= 0)
        other = here & (data.gold < 0)
        lam, estimate, error = _reference(data.gold[gold], targets[gold], targets[other])
        assert bins.gold_counts[b] == gold.sum() >= MIN_BIN_GOLD
        assert bins.lambdas[b] == pytest.approx(lam, abs=1e-12)
        assert bins.means[b] == pytest.approx(estimate, abs=1e-12)
        assert bins.standard_errors[b] == pytest.approx(error, abs=1e-12)
        moment = (here.sum() * estimate - data.scores[here].sum()) / data.n_items
        assert bins.moments.moments[b] == pytest.approx(moment, abs=1e-14)


def test_a_bin_with_few_gold_items_uses_the_pooled_lambda_and_one_without_the_model():
    rng = np.random.default_rng(0)
    bins = np.repeat([0, 1, 2], [400, 400, 400])
    targets = rng.normal(0.5, 0.6, 1200)
    gold = np.full(1200, -1, dtype=np.int8)
    gold[:50] = rng.integers(0, 2, 50)  # bin 0: its own lambda
    gold[400:405] = rng.integers(0, 2, 5)  # bin 1: five gold items, the pooled lambda
    rows = GoldRows(bins, targets, gold, np.ones(1200), np.ones(1200))
    result = rectified_bins(rows, np.zeros(3), np.array([0.0, 1 / 3, 2 / 3, 1.0]), 1200)
    assert result.lambdas[1] == pytest.approx(ppi_lambda(MeanProblem.of(rows)))
    assert result.lambdas[0] == pytest.approx(ppi_lambda(MeanProblem.of(rows.subset(bins == 0))))
    assert result.means[2] == pytest.approx(targets[800:].mean()) and result.lambdas[2] == 1.0
    assert result.bins_without_gold == 1


def test_gold_on_every_item_gives_the_plain_ece():
    simulation = _simulation()
    data = simulation.data
    everything = bc.AnnotatedScores(data.scores, data.annotations, gold=simulation.labels)
    clean = bc.expected_calibration_error(simulation.labels, data.scores)
    for estimator in ("rectified", "model"):
        value = bc.noise_corrected_ece(everything, simulation.channels, gold_estimator=estimator)
        assert value == pytest.approx(clean, abs=1e-12)


def test_the_estimators_with_gold_use_it_and_say_which_is_refused():
    simulation = _simulation()
    data = simulation.data
    without = bc.AnnotatedScores(data.scores, data.annotations)
    model = bc.noise_corrected_ece(data, simulation.channels, gold_estimator="model")
    rectified = bc.noise_corrected_ece(data, simulation.channels)
    plain = bc.noise_corrected_ece(without, simulation.channels)
    assert len({model, rectified, plain}) == 3
    # the cells of the same data give the same numbers
    cells = data.cells(n_bins=10, by_group=False)
    assert bc.noise_corrected_ece(cells, simulation.channels) == pytest.approx(rectified, abs=1e-12)
    assert bc.noise_corrected_ece(
        cells, simulation.channels, gold_estimator="model"
    ) == pytest.approx(model, abs=1e-12)
    with pytest.raises(
        ValueError, match=r"gold_estimator must be one of .*'rectified'.*'model'.*saw 'ppi'"
    ):
        bc.noise_corrected_ece(data, simulation.channels, gold_estimator="ppi")


@pytest.mark.parametrize("weighted", [False, True])
def test_the_posterior_draws_at_fixed_labels_are_the_rectified_bins(weighted):
    """``gold_moment_draws`` (the posterior push-through) at one draw equal to the corrected
    labels, without the Bayesian bootstrap, gives the bin moments of ``rectified_bins``: both
    estimators, random gold and gold with inclusion probabilities.  Bin 3 holds five items, all
    gold (its mean is theirs, whatever the pooled lambda); with inclusion probabilities, bin 2's
    30 gold items were certain (pi = 1), and the bin still takes the data's estimator."""
    rng = np.random.default_rng(8)
    bins = np.concatenate([rng.integers(0, 3, 3000), np.full(5, 3)])
    targets = np.concatenate([rng.normal(0.5, 0.6, 3000), np.ones(5)])
    pi = np.where(targets > 0.5, 0.15, 0.05) if weighted else np.full(3005, 0.1)
    chosen = (rng.random(3005) < pi) | (bins == 3)
    if weighted:  # bin 2's gold: 30 items that were certain to be chosen, weight 1
        in_bin_2 = np.flatnonzero(bins == 2)
        chosen[in_bin_2] = False
        chosen[in_bin_2[:30]] = True
        pi[in_bin_2[:30]] = 1.0
    labels = (rng.random(3005) < np.clip(targets, 0.05, 0.95)).astype(int)
    labels[bins == 3] = 0
    gold = np.where(chosen, labels, -1).astype(np.int8)
    weights = np.where(chosen, 1 / pi, 1.0) if weighted else np.ones(3005)
    rows = GoldRows(bins, targets, gold, np.ones(3005), weights)
    scores = rng.random(3005)
    score_sums = np.bincount(bins, scores, 4)
    edges = np.array([0, 0.25, 0.5, 0.75, 1])
    expected = rectified_bins(rows, score_sums, edges, 3005)
    assert expected.lambdas[3] > 0  # pooled
    assert expected.means[3] == pytest.approx(0.0, abs=1e-12)  # the gold mean of bin 3
    draws = gold_moment_draws(
        rows,
        targets[None, :],
        scores,
        np.zeros(3005),
        expected.lambdas,
        "rectified",
        "channels",
        rng,
    )
    np.testing.assert_allclose(draws[0], expected.moments.moments, atol=1e-14)


def test_the_bayesian_bootstrap_of_poisson_sampled_gold_varies_by_one_minus_pi():
    """``bootstrap_weights``: every row's weight has mean its count; its variance is the count
    for the other items and for a simple random sample of gold, and count (1 - pi) for gold
    drawn with inclusion probabilities, none at pi = 1 (20 000 draws, seed 2, means within
    3%, variances within 6%)."""
    from bayescal.correction.rectified import bootstrap_weights

    rng = np.random.default_rng(2)
    counts = np.array([3.0, 1.0, 1.0, 1.0, 2.0])
    gold = np.array([-1, 1, 0, 1, -1], np.int8)
    pi = np.array([1.0, 0.1, 0.5, 1.0, 1.0])
    weighted = bootstrap_weights(
        GoldRows(np.zeros(5, int), counts, gold, counts, 1 / pi), 20_000, rng
    )
    np.testing.assert_allclose(weighted.mean(axis=0), counts, rtol=0.03)
    np.testing.assert_allclose(weighted.var(axis=0), [3.0, 0.9, 0.5, 0.0, 2.0], rtol=0.06)
    assert (weighted[:, 3] == 1.0).all()
    simple = bootstrap_weights(
        GoldRows(np.zeros(5, int), counts, gold, counts, np.ones(5)), 20_000, rng
    )
    np.testing.assert_allclose(simple.var(axis=0), counts, rtol=0.06)
