"""Dependent pairs inside the hierarchical crowd model (issue 38, item 4c): the pairs' terms on
the sparse responses are the pattern models' terms, the prior predictive draws a pair's answers
jointly, a pair the crowd cannot inform is refused, a copying pair is recovered where the
independent model misreads it, and the model checks replicate the pair's answers jointly."""

import warnings

import jax
import numpy as np
import pytest
from bayescal.models import ResponseDesign, hierarchical_dawid_skene
from numpyro.handlers import condition
from numpyro.infer import Predictive

import bayescal as bc
from bayescal.channels.dependence import every_dependent_pair
from bayescal.channels.pattern_likelihood import covariance_from_share, pattern_log_prob
from bayescal.exceptions import IdentificationError

MODEL = "hierarchical_dawid_skene"


def _crowd(n=2000, k=20, seed=0, share=0.4, others=2, single=0):
    """Two judges w0 and w1 label every item, w1 copying w0 on ``share`` of them, beside
    ``others`` workers drawn at random from the rest of the crowd; the last ``single`` of the
    ``k`` workers label one item each instead (the model sums them out).  Returns the data and
    the channels the workers then have."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0.05, 0.3, k), rng.uniform(0.65, 0.95, k)
    scores = rng.uniform(0, 1, n)
    y = rng.random(n) < scores
    labels = np.full((n, k), -1)
    for j in (0, 1):
        labels[:, j] = rng.random(n) < np.where(y, b[j], a[j])
    for _ in range(others):
        worker = 2 + rng.integers(0, k - 2 - single, n)
        labels[np.arange(n), worker] = rng.random(n) < np.where(y, b[worker], a[worker])
    for j in range(k - single, k):
        item = rng.integers(n)
        labels[item, j] = rng.random() < (b[j] if y[item] else a[j])
    copied = rng.random(n) < share
    labels[copied, 1] = labels[copied, 0]
    a[1], b[1] = share * a[0] + (1 - share) * a[1], share * b[0] + (1 - share) * b[1]
    names = [f"w{j:02d}" for j in range(k)]
    return bc.AnnotatedScores(scores, labels, annotator_names=names), bc.Channels(a, b)


@pytest.mark.parametrize("pairs", [[[0, 1]], [[0, 1], [1, 2]]], ids=["pair", "tree"])
def test_the_crowd_rows_score_what_the_pattern_likelihood_scores(pairs):
    """The response design reads the pairs' answers off its codes: on every item's row, at
    three draws, the same log-likelihood as the pattern models' (to 1e-12)."""
    data, _ = _crowd(n=300, k=6, seed=1, others=2)
    pairs = np.array(pairs)
    design = ResponseDesign.from_responses(data.responses(), compress=False, pairs=pairs)
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0.05, 0.4, (3, 6)), rng.uniform(0.6, 0.95, (3, 6))
    prevalence = rng.uniform(0.3, 0.7, 3)
    covariance = covariance_from_share(rng.uniform(0, 1, (3, len(pairs), 2)), a, b, pairs)
    rows = design.row_log_likelihood(a, b, prevalence, covariance)
    labels = data.annotations
    expected = pattern_log_prob(
        a,
        b,
        np.repeat(prevalence[:, None], data.n_items, axis=1),
        (labels == 1) * 1.0,
        (labels == 0) * 1.0,
        pairs=pairs,
        covariance=covariance,
    )
    np.testing.assert_allclose(rows, expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="covariance: the design has 2 dependent pair"):
        ResponseDesign.from_responses(
            data.responses(), pairs=np.array([[0, 1], [2, 3]])
        ).row_log_likelihood(a, b, prevalence)


@pytest.mark.parametrize("pairs", [[[0, 1]], [[0, 1], [1, 2]]], ids=["pair", "tree"])
def test_the_prior_predictive_draws_a_pairs_answers_with_its_covariance(pairs):
    """SBC simulates from the program: given Y, the pairs' drawn answers have the covariances
    drawn for them (40 000 items at one prior draw of the parameters, with the class
    proportion held at 1/2 and each covariance at 0.9 of its range, so that every covariance,
    the induced one too, is far from 0), and in a tree the two workers no pair joins have the
    covariance the path between them gives (the correlations multiplied,
    :func:`~bayescal.channels.dependence.every_dependent_pair`)."""
    data, _ = _crowd(n=40_000, k=6, seed=3, others=1)
    labels = data.annotations.copy()
    labels[:, 2] = 0  # w02 labels every item (its answers are drawn anew)
    data = bc.AnnotatedScores(data.scores, labels, annotator_names=data.annotator_names)
    design = ResponseDesign.from_responses(data.responses(), compress=False, pairs=pairs)
    held = {"prevalence": 0.5, "dependence": np.full((len(pairs), 2), 0.9)}
    draws = Predictive(condition(hierarchical_dawid_skene, held), num_samples=1)(
        jax.random.PRNGKey(4), design, bc.Priors().as_array()
    )
    codes, y = np.asarray(draws["codes"][0]), np.asarray(draws["y"][0])
    answers = np.stack([np.where((codes == 2 * j + 1).any(1), 1, 0) for j in range(3)], axis=1)
    a, b = np.asarray(draws["a"][0]), np.asarray(draws["b"][0])
    index, covariance = every_dependent_pair(
        np.array(pairs), a, b, np.asarray(draws["covariance"][0])
    )
    assert len(index) == (1 if len(pairs) == 1 else 3)
    for label, rates in ((0, a), (1, b)):
        given = answers[y == label]
        np.testing.assert_allclose(given.mean(axis=0)[:2], rates[:2], atol=0.012)
        for (j, k), expected in zip(index, covariance[:, label]):
            observed = np.cov(given[:, j], given[:, k])[0, 1]
            assert observed == pytest.approx(expected, abs=0.006), (j, k)


def test_the_crowd_checks_replicate_a_pair_jointly():
    """At the true channels, the copying pair agrees on more items than independent workers
    would: the pairwise check flags it when the replicates draw the two answers apart, and not
    when they draw them jointly with the pair's covariance (50 draws of the truth)."""
    from bayescal.bayes.checks import crowd_check_rows

    data, truth = _crowd(n=2000, k=20, seed=5)
    a, b = np.tile(truth.a, (50, 1)), np.tile(truth.b, (50, 1))
    covariance = np.tile([0.4 * p * (1 - p) for p in (truth.a[0], truth.b[0])], (50, 1, 1))

    def pair_row(**dependence):
        rows = crowd_check_rows(
            data.responses(), a, b, np.full(50, 0.5), 0.9, np.random.default_rng(6), **dependence
        )
        (row,) = [r for r in rows if r["subject"] == "w00-w01"]
        return row

    apart, joint = pair_row(), pair_row(pairs=np.array([[0, 1]]), covariance=covariance)
    assert apart["flag"] and apart["observed"] > apart["upper"]
    assert not joint["flag"] and joint["lower"] < joint["observed"] < joint["upper"]


def test_a_pair_the_crowd_cannot_inform_is_refused_naming_it():
    data, _ = _crowd(n=300, k=6, seed=1, others=1)  # the pair and one other label: two blocks
    with pytest.raises(IdentificationError, match=r"pair \('w00', 'w01'\) labelled 0 items"):
        bc.fit_bayes(data, model=MODEL, dependent=("w00", "w01"))
    # a tree w00 ~ w01 ~ w02 on every item beside one other label: four labels an item, but
    # the tree is one block, so two in all (it was accepted when any four labels counted)
    labels = data.annotations.copy()
    labels[:, 2] = np.random.default_rng(4).integers(0, 2, data.n_items)
    tree = bc.AnnotatedScores(data.scores, labels, annotator_names=data.annotator_names)
    with pytest.raises(IdentificationError, match="beside two labels from outside its pairs"):
        bc.fit_bayes(tree, model=MODEL, dependent=[("w00", "w01"), ("w01", "w02")])
    with pytest.raises(ValueError, match="form a cycle"):
        bc.fit_bayes(data, model=MODEL, dependent=[("w00", "w01"), ("w01", "w02"), ("w02", "w00")])


@pytest.mark.slow
def test_a_copying_pair_in_a_crowd_is_recovered_and_tested(tmp_path):
    """Measured (seed 0, the default sampler): the pair's four channels within 0.02 of the
    truth; without the two single-label workers, the same crowd read as independent (2 chains
    of 1 000 + 1 000) put them 0.09-0.11 off.  Two workers of one label each are summed out,
    and the calibration test's H0 draw still draws the pair (it refused any crowd with a
    summed-out worker); so do the model checks' replicates, and the pair's agreement passes.
    The crowd model's mixing (issue 38 item 2) shows here too: shorter chains warned (R-hat of
    the prevalence), and 22 workers at seed 0 warned of 32 divergent transitions; 20 workers,
    18 of them sampled, do not."""
    data, truth = _crowd(n=2000, k=20, seed=0, single=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.exceptions.ChannelWarning)  # odd sparse workers
        fit = bc.fit_bayes(data, model=MODEL, dependent=("w00", "w01"), progress=False)
    assert fit.dependent == (("w00", "w01"),) and fit.summed_out == ("w18", "w19")
    for draws, true in zip(fit.draws()[:2], (truth.a, truth.b)):
        assert np.abs(draws.mean(axis=0)[:2] - true[:2]).max() < 0.03
    expected = [0.4 * p * (1 - p) for p in (truth.a[0], truth.b[0])]
    np.testing.assert_allclose(fit.covariance_draws().mean(axis=0)[0], expected, atol=0.015)
    checks = bc.check_model(data, fit)  # its replicates draw the pair jointly
    (pair,) = checks.table.loc[checks.table["subject"] == "w00-w01"].itertuples()
    assert pair.lower < pair.observed < pair.upper and not pair.flag
    result = bc.calibration_test(data, fit, n_replicates=19, seed=1)
    assert "Gibbs sweeps" in result.method and 0 < result.p_value <= 1
    fit.save(tmp_path / "fit.nc")  # the pairs travel with the stored design
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    assert loaded.dependent == fit.dependent
    np.testing.assert_array_equal(loaded.covariance_draws(), fit.covariance_draws())
    np.testing.assert_array_equal(
        loaded.pointwise_log_likelihood()[0], fit.pointwise_log_likelihood()[0]
    )
