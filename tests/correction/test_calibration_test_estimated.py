"""calibration_test with estimated channels (issue 18): the refitting bootstrap of an EM fit
(reuse and split), the sampled-posterior p-value of a BayesFit and its posterior predictive null
for other items, the fingerprint that tells reuse from split, and the size under H0."""

import dataclasses
import importlib
import inspect

import numpy as np
import pytest
from scipy import stats

import bayescal as bc
from bayescal.channels import cyclic_joint
from bayescal.channels.dependence import child_chance, pair_table
from bayescal.channels.pattern_likelihood import class_log_likelihoods, covariance_bounds
from bayescal.correction.h0_posterior import H0Draw, h0_posterior_draw
from tests.helpers import fake_fit

pytestmark = pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")


#: Three annotators whose rates are 0.15 apart, to see that channels meet the right column.
DISTINCT = bc.Channels([0.05, 0.20, 0.35], [0.95, 0.80, 0.65])


def _halves(sim):
    """The first and second half of a simulation's items."""
    n = sim.data.n_items
    return sim.data.subset(np.arange(n // 2)), sim.data.subset(np.arange(n // 2, n))


def test_fits_record_a_fingerprint_that_tells_their_data_from_other_items():
    sim = bc.toy_data(600, condition="calibrated", seed=1)
    first, second = _halves(sim)
    grouped = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations,
        groups=(sim.data.scores > 0.5).astype(int),
    )
    fit = bc.dawid_skene_em(sim.data)
    assert fit.data_fingerprint == sim.data.compress().fingerprint
    assert fit.data_fingerprint.startswith("cells:")
    # the same items, whichever grouping an estimator pools them to
    assert bc.grouped_em(grouped).data_fingerprint == fit.data_fingerprint
    assert bc.dawid_skene_em(first).data_fingerprint != fit.data_fingerprint
    assert bc.dawid_skene_em(first).data_fingerprint != bc.dawid_skene_em(second).data_fingerprint
    crowd = bc.crowd_em(sim.data)
    assert crowd.data_fingerprint == sim.data.responses().fingerprint
    assert crowd.data_fingerprint.startswith("responses:")


def test_an_em_fit_of_the_same_items_is_tested_by_a_refitting_bootstrap():
    sim = bc.toy_data(1000, condition="calibrated", seed=1)
    fit = bc.dawid_skene_em(sim.data)
    result = bc.calibration_test(sim.data, fit, n_replicates=49, seed=3)
    at_the_estimate = bc.calibration_test(sim.data, fit.channels)
    assert result.statistic == pytest.approx(at_the_estimate.statistic, rel=1e-12)
    assert result.channels_from == "reuse" and result.n_replicates == 49
    assert "dawid_skene_em, refitted on every replicate" in result.method
    assert result.p_value * 50 == pytest.approx(round(result.p_value * 50))  # on 1 / (B + 1)
    again = bc.calibration_test(sim.data, fit, n_replicates=49, seed=3)
    assert again.p_value == result.p_value  # seeded
    shifted = bc.toy_data(2000, condition="shifted", seed=1)
    rejected = bc.calibration_test(shifted.data, bc.dawid_skene_em(shifted.data), n_replicates=49)
    assert rejected.p_value == pytest.approx(1 / 50)  # no replicate reaches the statistic
    # annotators are matched by name: the data's columns in another order are read in the
    # fit's, the same test to the last digit
    order = [2, 0, 1]
    reordered = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations[:, order],
        annotator_names=[sim.data.annotator_names[j] for j in order],
    )
    again = bc.calibration_test(reordered, fit, n_replicates=49, seed=3)
    assert (again.statistic, again.p_value) == (result.statistic, result.p_value)


def test_an_em_fit_of_other_items_needs_those_items_and_refits_on_them():
    sim = bc.toy_data(1200, condition="calibrated", seed=2)
    first, second = _halves(sim)
    fit = bc.dawid_skene_em(first)
    with pytest.raises(ValueError, match="pass the items it was fitted on as fit_data"):
        bc.calibration_test(second, fit)
    with pytest.raises(ValueError, match="fit_data are not the items this dawid_skene_em fit"):
        bc.calibration_test(second, fit, fit_data=second)
    with pytest.raises(ValueError, match="leave fit_data out"):
        bc.calibration_test(first, fit, fit_data=first)
    with pytest.raises(TypeError, match=r"fit_data must be a bayescal\.AnnotatedScores; saw"):
        bc.calibration_test(second, bc.crowd_em(first), fit_data=first.responses())
    renamed = bc.AnnotatedScores(first.scores, first.annotations, annotator_names=["x", "y", "z"])
    with pytest.raises(ValueError, match="fit_data must have the annotators of the fit"):
        bc.calibration_test(second, fit, fit_data=renamed)
    result = bc.calibration_test(second, fit, fit_data=first, n_replicates=49)
    assert result.channels_from == "split" and "of the items they were fitted on" in result.method
    assert result.statistic == pytest.approx(bc.calibration_test(second, fit.channels).statistic)
    # the items fitted on and the items tested may each have their columns in another order
    order = [1, 2, 0]
    shuffled = [
        bc.AnnotatedScores(
            half.scores,
            half.annotations[:, order],
            annotator_names=[half.annotator_names[j] for j in order],
        )
        for half in (first, second)
    ]
    again = bc.calibration_test(shuffled[1], fit, fit_data=shuffled[0], n_replicates=49)
    assert (again.statistic, again.p_value) == (result.statistic, result.p_value)


def test_refits_that_fail_are_said_and_all_failing_is_refused(monkeypatch):
    # the batch refits every bootstrap of refitted channels runs
    batch = importlib.import_module("bayescal.channels.refits")
    sim = bc.toy_data(600, condition="calibrated", seed=4)
    fit = bc.dawid_skene_em(sim.data)
    refits, calls = batch.em_refits, []

    def every_third_fails(method, replicates, dependent):
        fits = []
        for fitted in refits(method, replicates, dependent):
            calls.append(1)
            fits.append(fitted if len(calls) % 3 else None)
        return fits

    monkeypatch.setattr(batch, "em_refits", every_third_fails)
    with pytest.warns(bc.BinningWarning, match="failed on 6 of 20 bootstrap replicates"):
        result = bc.calibration_test(sim.data, fit, n_replicates=20)
    assert result.n_replicates == 14
    monkeypatch.setattr(
        batch,
        "em_refits",
        lambda method, replicates, dependent: (
            [dataclasses.replace(fit, failure="no") for _ in replicates]
        ),
    )
    with pytest.raises(bc.ChannelFitError, match="no admissible estimate on any of the 20"):
        bc.calibration_test(sim.data, fit, n_replicates=20)
    with pytest.raises(bc.ChannelFitError, match="dawid_skene_em failed: no"):
        bc.calibration_test(sim.data, dataclasses.replace(fit, channels=None, failure="no"))


@pytest.mark.parametrize("method", ["dawid_skene_em", "grouped_em", "dependent"])
def test_the_bootstraps_refits_run_together_and_are_the_estimators_fits(method):
    """em_refits iterates the replicates' starts side by side on the union of their patterns:
    each fit is the one the estimator gives the replicate alone (the labels of half the items
    missing in some replicates, so that their patterns differ)."""
    from bayescal.channels.em import em_refits

    channels = bc.Channels([0.1, 0.2, 0.15, 0.1], [0.8, 0.9, 0.7, 0.85])
    dependent = ("a0", "a1") if method == "dependent" else None
    estimator = bc.dawid_skene_em if method != "grouped_em" else bc.grouped_em
    replicates = []
    for seed in range(5):
        sim = bc.simulate_annotated(800, channels, seed=seed)
        annotations = sim.data.annotations.copy()
        annotations[: 100 * seed, seed % 4] = -1
        groups = (
            bc.channels.score_groups(sim.data.scores, n_groups=2)
            if method == "grouped_em"
            else None
        )
        replicates.append(bc.AnnotatedScores(sim.data.scores, annotations, groups=groups))
    together = em_refits(estimator.__name__, replicates, dependent)
    for replicate, fitted in zip(replicates, together):
        alone = estimator(replicate, dependent=dependent)
        np.testing.assert_allclose(fitted.channels.a, alone.channels.a, rtol=1e-9)
        np.testing.assert_allclose(fitted.channels.b, alone.channels.b, rtol=1e-9)
        np.testing.assert_allclose(fitted.prevalence, alone.prevalence, rtol=1e-9)
        assert fitted.n_iter == alone.n_iter and fitted.loglik == pytest.approx(alone.loglik)
        if dependent:
            np.testing.assert_allclose(fitted.covariance, alone.covariance, atol=1e-12)
    two = bc.simulate_annotated(300, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1).data
    assert em_refits("dawid_skene_em", [two, two], None) == [None, None]  # refused, silently


def test_the_refits_use_the_estimators_defaults():
    """The unconfigured fits read dawid_skene_em's signature, which grouped_em shares."""
    from bayescal.channels.em import default_settings

    settings = default_settings(3)
    for estimator in (bc.dawid_skene_em, bc.grouped_em):
        parameters = inspect.signature(estimator).parameters
        assert {name: parameters[name].default for name in settings._fields} == dict(
            settings._asdict()
        )


def test_a_channel_fit_of_other_annotators_is_refused():
    sim = bc.toy_data(600, condition="calibrated", seed=4)
    fit = bc.dawid_skene_em(sim.data)
    renamed = bc.AnnotatedScores(
        sim.data.scores, sim.data.annotations, annotator_names=["x", "y", "z"]
    )
    with pytest.raises(ValueError, match="data must have the annotators of the fit"):
        bc.calibration_test(renamed, fit)


def test_a_bayes_fit_of_the_same_items_is_tested_at_a_draw_of_the_h0_posterior():
    sim = bc.simulate_annotated(1000, DISTINCT, seed=5)
    rng = np.random.default_rng(0)
    a = sim.channels.a + rng.normal(0, 0.01, (20, 3))
    b = sim.channels.b + rng.normal(0, 0.01, (20, 3))
    fit = fake_fit(sim.data, a, b, np.full(20, 0.5))
    result = bc.calibration_test(sim.data, fit, seed=7)
    assert result.channels_from == "reuse" and result.n_replicates == 0
    assert "posterior under H0" in result.method
    at_the_draw = bc.calibration_test(sim.data, result.channels)
    assert result.statistic == pytest.approx(at_the_draw.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(stats.chi2.sf(result.statistic, result.df))
    # a draw of the H0 posterior: near the truth (1 000 items, sd at most 0.03), not a copy of
    # any of the fit's draws
    np.testing.assert_allclose(result.channels.a, sim.channels.a, atol=0.07)
    np.testing.assert_allclose(result.channels.b, sim.channels.b, atol=0.07)
    assert not any(np.allclose(result.channels.a, row) for row in a)
    # annotators are matched by name (their rates are 0.15 apart): columns in another order
    order = [2, 0, 1]
    reordered = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations[:, order],
        annotator_names=[sim.data.annotator_names[j] for j in order],
    )
    again = bc.calibration_test(reordered, fit, seed=7)
    np.testing.assert_allclose(again.channels.a, sim.channels.a[order], atol=0.07)
    np.testing.assert_allclose(again.channels.b, sim.channels.b[order], atol=0.07)


@pytest.mark.filterwarnings("ignore:calibration_test.*left out:bayescal.exceptions.ChannelWarning")
def test_a_weak_panels_items_are_chosen_at_the_posterior_mean_not_at_one_draw():
    """Three weak annotators (gaps 0.25-0.35: an item's IV precision is about 1.4 at the
    truth, 0.2 at a draw with gaps of 0.1): chosen at one weak draw, no item would be tested."""
    weak = bc.Channels([0.30, 0.35, 0.25], [0.60, 0.70, 0.55])
    sim = bc.simulate_annotated(1000, weak, seed=1)
    shrunk_a, shrunk_b = weak.a + 0.1, weak.b - 0.1
    with pytest.raises(ValueError, match="0 items have labels informative enough"):
        bc.calibration_test(sim.data, bc.Channels(shrunk_a, shrunk_b))
    draws_a = np.stack([weak.a] * 4 + [shrunk_a])
    draws_b = np.stack([weak.b] * 4 + [shrunk_b])
    at_the_mean = bc.Channels(draws_a.mean(axis=0), draws_b.mean(axis=0))
    fit = fake_fit(sim.data, draws_a, draws_b, np.full(5, 0.5))
    first, second = _halves(sim)
    other = fake_fit(first, draws_a, draws_b, np.full(5, 0.5))
    tested = bc.calibration_test(sim.data, at_the_mean).n_tested
    tested_second = bc.calibration_test(second, at_the_mean).n_tested
    assert tested > 500
    for seed in range(10):  # the weak draw is the start or the one used in some seeds
        assert bc.calibration_test(sim.data, fit, seed=seed).n_tested == tested
        result = bc.calibration_test(second, other, seed=seed, n_replicates=19)
        assert result.n_tested == tested_second


def _h0_chain(start: H0Draw, sweeps: int, *responses, pairs=None) -> np.ndarray:
    """Every sweep's state of one H0 Gibbs chain from ``start`` under flat priors: ``a``,
    ``b`` and the pairs' covariances of each sweep, one row each."""
    rng, state, draws = np.random.default_rng(2), start, []
    for _ in range(sweeps):
        state = h0_posterior_draw(
            *responses,
            state.a,
            state.b,
            bc.Priors().as_array(),
            sweeps=1,
            rng=rng,
            pairs=pairs,
            covariance=state.covariance,
        )
        draws.append(np.r_[state.a, state.b, state.covariance.ravel()])
    return np.array(draws)


def test_a_worker_who_shares_a_channel_cannot_be_in_a_dependent_pair():
    with pytest.raises(ValueError, match="share a channel cannot be dependent pairs"):
        h0_posterior_draw(
            np.full(2, 0.5),
            np.array([0, 1]),
            np.array([0, 1]),
            np.array([1, 0]),
            np.full(2, 0.2),
            np.full(2, 0.8),
            bc.Priors().as_array(),
            sweeps=1,
            rng=np.random.default_rng(0),
            shared=np.array([False, True]),
            pairs=np.array([[0, 1]]),
            covariance=np.zeros((1, 2)),
        )


def test_the_h0_gibbs_sampler_draws_from_the_h0_posterior():
    """One annotator, 300 items with known scores: the posterior of (a, b) under H0 on a grid
    (prior uniform on the square) against 4 000 Gibbs sweeps: means within 0.01 and sds within 15%
    (Monte Carlo error of a few hundred effective draws is well inside both)."""
    rng = np.random.default_rng(1)
    scores = rng.uniform(0, 1, 300)
    truth = rng.random(300) < scores
    label = (rng.random(300) < np.where(truth, 0.8, 0.25)).astype(np.int8)
    item, annotator = np.arange(300), np.zeros(300, dtype=np.int64)
    grid = np.linspace(0.0005, 0.9995, 1000)
    a, b = np.meshgrid(grid, grid, indexing="ij")
    log_post = np.zeros_like(a)
    for z, y in zip(scores, label):
        log_post += np.log(z * b**y * (1 - b) ** (1 - y) + (1 - z) * a**y * (1 - a) ** (1 - y))
    weight = np.exp(log_post - log_post.max())
    weight /= weight.sum()
    exact = {
        name: (np.sum(weight * x), np.sqrt(np.sum(weight * x**2) - np.sum(weight * x) ** 2))
        for name, x in (("a", a), ("b", b))
    }
    start = H0Draw(np.array([0.3]), np.array([0.7]), np.zeros((0, 2)))
    draws = _h0_chain(start, 4000, scores, item, annotator, label)[200:]
    for column, name in enumerate(("a", "b")):
        mean, sd = exact[name]
        assert abs(draws[:, column].mean() - mean) < 0.01, name
        assert draws[:, column].std() == pytest.approx(sd, rel=0.15), name


def test_the_h0_gibbs_sampler_draws_a_dependent_pair_from_its_h0_posterior():
    """One dependent pair, 80 items with known scores (40 labelled by both, 20 by each alone),
    flat priors (the covariance uniform within its bounds): 4 000 Gibbs sweeps against the
    posterior by importance sampling (10^6 tables of each class uniform on the simplex,
    weighted by the prior over the uniform one, 1 / (U - L), and the likelihood; effective
    size about 180): rates and covariances within 0.015 of its means, sds within 15%."""
    rng = np.random.default_rng(5)
    n = 80
    scores = rng.uniform(0.05, 0.95, n)
    truth = (rng.random(n) < scores).astype(int)
    rates, shared = np.array([[0.2, 0.25], [0.8, 0.75]]), np.array([0.08, 0.06])
    tables = np.array([pair_table(*rates[y], shared[y]) for y in (0, 1)])  # cells 00 ... 11
    codes = np.array([rng.choice(4, p=tables[y]) for y in truth])
    answers = np.stack([codes // 2, codes % 2], axis=1)
    by = np.r_[np.zeros(20, int), np.ones(20, int), np.full(40, 2)]  # first, second, both
    item, annotator = np.nonzero((by[:, None] == 2) | (by[:, None] == [0, 1]))
    label = answers[item, annotator].astype(np.int8)
    start = H0Draw(np.array([0.3, 0.3]), np.array([0.7, 0.7]), np.zeros((1, 2)))
    draws = _h0_chain(start, 4000, scores, item, annotator, label, pairs=np.array([[0, 1]]))
    draws = draws[400:]
    cells = rng.dirichlet(np.ones(4), size=(1_000_000, 2))  # (M, class, cell)
    first, second = cells[..., 2] + cells[..., 3], cells[..., 1] + cells[..., 3]
    lower, upper = covariance_bounds(first, second)
    log_weight = -np.log(upper - lower).sum(axis=1)
    for z, kind, (x, y) in zip(scores, by, answers):
        given = [
            cells[:, c, 2 * x + y]
            if kind == 2
            else (first if kind == 0 else second)[:, c] ** (x if kind == 0 else y)
            * (1 - (first if kind == 0 else second)[:, c]) ** (1 - (x if kind == 0 else y))
            for c in (0, 1)
        ]
        log_weight += np.log(z * given[1] + (1 - z) * given[0])
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    reference = [first[:, 0], second[:, 0], first[:, 1], second[:, 1]]
    reference += [cells[:, c, 3] - first[:, c] * second[:, c] for c in (0, 1)]
    for column, values in enumerate(reference):
        mean = np.sum(weight * values)
        sd = np.sqrt(np.sum(weight * values**2) - mean**2)
        assert abs(draws[:, column].mean() - mean) < 0.015, column
        assert draws[:, column].std() == pytest.approx(sd, rel=0.15), column


@pytest.mark.slow
def test_the_h0_gibbs_sampler_draws_a_tree_of_pairs_from_its_h0_posterior():
    """A tree a0 ~ a1 ~ a2, 60 items with known scores, each answer missing with probability
    1/4 (an item keeps one), flat priors (each covariance uniform within its bounds): 4 000
    Gibbs sweeps against the posterior by importance sampling (10^6 draws of the prior,
    weighted by the likelihood, the tree's missing answers summed out; effective size about
    230): rates and covariances within 0.015 of its means, sds within 15% (measured: 0.013
    and 8% at most)."""
    rng = np.random.default_rng(7)
    n, pairs = 60, np.array([[0, 1], [1, 2]])
    scores = rng.uniform(0.05, 0.95, n)
    truth = rng.random(n) < scores
    rates = np.where(truth[:, None], [0.8, 0.75, 0.85], [0.2, 0.25, 0.15])
    answers = np.zeros((n, 3), int)
    answers[:, 0] = rng.random(n) < rates[:, 0]
    for (parent, child), (given_0, given_1) in zip(pairs, ([0.06, 0.05], [0.04, 0.05])):
        chance = child_chance(
            answers[:, parent] == 1,
            rates[:, parent],
            rates[:, child],
            np.where(truth, given_1, given_0),
        )
        answers[:, child] = rng.random(n) < chance
    given = rng.random((n, 3)) < 0.75
    given[~given.any(axis=1), 0] = True
    annotations = np.where(given, answers, -1)
    item, annotator = np.nonzero(annotations >= 0)
    label = annotations[item, annotator].astype(np.int8)
    start = H0Draw(np.full(3, 0.3), np.full(3, 0.7), np.zeros((2, 2)))
    draws = _h0_chain(start, 4000, scores, item, annotator, label, pairs=pairs)[400:]
    prior = np.random.default_rng(11)
    size = 1_000_000
    channels = prior.uniform(0, 1, (size, 2, 3))  # (M, class, annotator)
    covariance = np.empty((size, 2, 2))  # (M, pair, class)
    for y in (0, 1):
        for d, (j, k) in enumerate(pairs):
            lower, upper = covariance_bounds(channels[:, y, j], channels[:, y, k])
            covariance[:, d, y] = prior.uniform(lower, upper)
    log_weight = np.empty(size)
    for chunk in np.array_split(np.arange(size), 20):
        given_0, given_1 = class_log_likelihoods(
            channels[chunk, 0],
            channels[chunk, 1],
            (annotations == 1) * 1.0,
            (annotations == 0) * 1.0,
            pairs=pairs,
            covariance=covariance[chunk],
        )
        log_weight[chunk] = np.log(scores * np.exp(given_1) + (1 - scores) * np.exp(given_0)).sum(1)
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    reference = np.column_stack([channels[:, 0], channels[:, 1], covariance.reshape(size, 4)])
    for column, values in enumerate(reference.T):
        mean = np.sum(weight * values)
        sd = np.sqrt(np.sum(weight * values**2) - mean**2)
        assert abs(draws[:, column].mean() - mean) < 0.015, column
        assert draws[:, column].std() == pytest.approx(sd, rel=0.15), column


#: The fit's priors of the cycle's tests: each class's Beta unequal and informative, so that
#: the H0 step's Beta term weighs.
CYCLE_PRIORS = bc.Priors(false_positive=(2.0, 5.0), sensitivity=(5.0, 2.0))
TRIANGLE = np.array([[0, 1], [1, 2], [0, 2]])


@pytest.mark.slow
def test_the_h0_gibbs_sampler_keeps_a_cycles_prior():
    """A triangle a0 ~ a1 ~ a2 ~ a0, 20 items with known scores, each answer missing with
    probability 1/4, the fit's priors (:data:`CYCLE_PRIORS` on the channels, each pair's J
    Logistic(0, 2)).  Geweke's test (2004): a chain that alternates fresh labels from the
    current channels and joints under H0 with one Gibbs sweep has the prior as its stationary
    law when the sweep leaves the posterior invariant.  1 500 sweeps (a tenth dropped) against
    20 000 prior draws: every rate and covariance within 4 batch-mean standard errors of the
    prior's mean, sds within 15% (measured: |z| <= 2.4 and 6%, and 2.0 and 4% over 3 000
    sweeps; without the Jacobian det Cov(x) of the cycle's step, with flat priors, the sds of
    the rates came out 65% too wide and those of the covariances 85% too narrow).  A sweep that ignored the data would
    keep the prior too: the next test sees that it learns."""
    rng = np.random.default_rng(3)
    n = 20
    scores = rng.uniform(0.05, 0.95, n)
    given = rng.random((n, 3)) < 0.75
    given[~given.any(axis=1), 0] = True
    item, annotator = np.nonzero(given)
    a, b, covariance = np.full(3, 0.3), np.full(3, 0.7), np.zeros((3, 2))
    draws = []
    for _ in range(1500):
        truth = (rng.random(n) < scores).astype(int)
        log_joint = np.stack(
            [
                cyclic_joint.joint_of_covariance(rates, covariance[:, y], TRIANGLE)
                for y, rates in enumerate((a, b))
            ]
        )
        label = cyclic_joint.draw_answers(rng, log_joint, truth)[item, annotator]
        a, b, covariance, _ = h0_posterior_draw(
            scores, item, annotator, label, a, b, CYCLE_PRIORS.as_array(),
            sweeps=1, rng=rng, pairs=TRIANGLE, covariance=covariance,
        )  # fmt: skip
        draws.append(np.r_[a, b, covariance.ravel()])
    draws = np.array(draws)[150:]
    prior = np.random.default_rng(11)
    rates = np.stack(
        [
            prior.beta(*CYCLE_PRIORS.false_positive, (20_000, 3)),
            prior.beta(*CYCLE_PRIORS.sensitivity, (20_000, 3)),
        ],
        axis=1,
    )
    interaction = prior.logistic(0.0, 2.0, (20_000, 3, 2))
    pair_covariance = [
        cyclic_joint.covariance_of_interaction(rates[:, y], interaction[..., y], TRIANGLE)
        for y in (0, 1)
    ]
    reference = np.column_stack(
        [rates[:, 0], rates[:, 1], np.stack(pair_covariance, -1).reshape(-1, 6)]
    )
    batch_means = np.array([batch.mean(axis=0) for batch in np.array_split(draws, 25)])
    standard_error = batch_means.std(axis=0, ddof=1) / np.sqrt(25)
    z = (draws.mean(axis=0) - reference.mean(axis=0)) / standard_error
    assert np.abs(z).max() < 4.0, z
    np.testing.assert_allclose(draws.std(axis=0), reference.std(axis=0), rtol=0.15)


def test_the_h0_gibbs_sampler_learns_a_cycle_from_its_data():
    """3 000 items with known scores, a triangle beside two independent annotators, 30% of
    the answers missing: from a start far from the truth (every a 0.3, every b 0.7, no
    covariance), one draw after 60 sweeps has every channel within 0.05 and every covariance
    within 0.03 of the truth (measured: 0.021 and 0.015).  A step that ignored the answers
    missed by 0.44 and 0.15, one that filled in the missing answers regardless of the given
    by 0.29 and 0.12 (measured by breaking each)."""
    rng = np.random.default_rng(8)
    n = 3000
    rates = np.array([[0.1, 0.15, 0.2, 0.1, 0.25], [0.85, 0.8, 0.9, 0.75, 0.88]])
    strength = np.array([[1.5, 1.0], [1.0, 2.0], [0.5, 1.5]])
    scores = rng.uniform(0.02, 0.98, n)
    truth = rng.random(n) < scores  # H0
    log_joint = np.stack(
        [
            cyclic_joint.joint_of_interaction(r[:3], strength[:, y], TRIANGLE)
            for y, r in enumerate(rates)
        ]
    )
    answers = np.column_stack(
        [
            cyclic_joint.draw_answers(rng, log_joint, truth.astype(int)),
            rng.random((n, 2)) < np.where(truth[:, None], rates[1, 3:], rates[0, 3:]),
        ]
    )
    given = rng.random((n, 5)) >= 0.3
    given[~given.any(axis=1), 3] = True
    item, annotator = np.nonzero(given)
    a, b, covariance, _ = h0_posterior_draw(
        scores, item, annotator, answers[item, annotator].astype(np.int8), np.full(5, 0.3),
        np.full(5, 0.7), CYCLE_PRIORS.as_array(), sweeps=60, rng=rng, pairs=TRIANGLE,
        covariance=np.zeros((3, 2)),
    )  # fmt: skip
    true_covariance = np.stack(
        [
            cyclic_joint.covariance_of_interaction(r[:3], strength[:, y], TRIANGLE)
            for y, r in enumerate(rates)
        ],
        axis=-1,
    )
    assert np.abs(np.r_[a - rates[0], b - rates[1]]).max() < 0.05
    assert np.abs(covariance - true_covariance).max() < 0.03


def test_the_h0_draw_refuses_a_cycles_start_that_admits_no_joint():
    """x0 = x1 and x1 = x2 always but x0 != x2 always: no joint has these covariances."""
    impossible = np.tile([[0.25], [0.25], [-0.25]], (1, 2))
    with pytest.raises(ValueError, match=r"covariance: the start's covariances .* admit no joint"):
        h0_posterior_draw(
            np.full(4, 0.5), np.repeat(np.arange(4), 3), np.tile(np.arange(3), 4),
            np.ones(12, np.int8), np.full(3, 0.5), np.full(3, 0.5), bc.Priors().as_array(),
            sweeps=1, rng=np.random.default_rng(0), pairs=TRIANGLE, covariance=impossible,
        )  # fmt: skip


def test_workers_a_fit_summed_out_share_one_channel_in_the_h0_draw():
    """The draw with shared workers is the draw of one annotator who gave all their labels
    (the same random numbers give the same channels), and they all get it."""
    rng = np.random.default_rng(3)
    scores = rng.uniform(0.05, 0.95, 200)
    item = np.r_[np.arange(200), np.arange(200)]
    annotator = np.r_[np.zeros(200, int), 1 + np.arange(200) % 4]  # one dense, four shared
    label = (rng.random(400) < np.where(rng.random(400) < scores[item], 0.85, 0.2)).astype(int)
    start = (np.full(5, 0.2), np.full(5, 0.8))
    shared = np.array([False, True, True, True, True])
    options = {"sweeps": 5}
    a, b, *_ = h0_posterior_draw(
        scores,
        item,
        annotator,
        label,
        *start,
        bc.Priors().as_array(),
        shared=shared,
        rng=np.random.default_rng(4),
        **options,
    )
    merged = h0_posterior_draw(
        scores,
        item,
        np.minimum(annotator, 1),
        label,
        start[0][:2],
        start[1][:2],
        bc.Priors().as_array(),
        rng=np.random.default_rng(4),
        **options,
    )
    np.testing.assert_array_equal(a, merged[0][[0, 1, 1, 1, 1]])
    np.testing.assert_array_equal(b, merged[1][[0, 1, 1, 1, 1]])


def test_a_bayes_fit_of_other_items_uses_its_posterior_predictive_null():
    """With a one-draw posterior at the true channels, the posterior predictive null is the
    fixed-channel null: its p-value matches the chi-square one within Monte Carlo error
    (999 replicates: sd at most 0.016)."""
    sim = bc.toy_data(2000, condition="calibrated", seed=6)
    first, second = _halves(sim)
    fit = fake_fit(first, sim.channels.a[None], sim.channels.b[None], [0.5])
    result = bc.calibration_test(second, fit, n_replicates=999)
    known = bc.calibration_test(second, sim.channels)
    assert result.channels_from == "split" and result.n_replicates == 999
    assert "posterior predictive null" in result.method
    assert result.statistic == pytest.approx(known.statistic, rel=1e-12)
    assert abs(result.p_value - known.p_value) < 0.05


def _clopper_pearson_covers(rejections: int, n: int, level: float = 0.05) -> bool:
    """Whether the exact 99% interval of the rejection rate holds the nominal level."""
    interval = stats.binomtest(rejections, n).proportion_ci(0.99, method="exact")
    return interval.low <= level <= interval.high


@pytest.mark.slow
def test_size_under_h0_with_em_channels_reused():
    """150 calibrated toy replicates (N = 1 000, 40% of labels missing), each with a bootstrap
    of 39 refits (the fewest that keep the 5% level exact: p = (1 + #) / 40 <= 0.05 when at
    most one replicate statistic reaches the observed one; "<" would make it 2.5%), 5% level:
    the exact 99% interval of the rejection rate holds 5%, over all and over each half (the
    1 000-replicate table is in benchmarks/RESULTS.md).  In every other replicate 200 items
    are scored by their class (a calibrated hard classifier's 0 and 1), which this test keeps."""
    rejections = {False: 0, True: 0}
    for seed in range(150):
        sim = bc.toy_data(1000, condition="calibrated", seed=seed)
        hard = seed % 2 == 1
        scores = sim.data.scores.copy()
        if hard:
            scores[:200] = sim.labels[:200]
        annotations = sim.data.annotations.copy()
        annotations[np.random.default_rng(seed).random(annotations.shape) < 0.4] = -1
        annotations[(annotations < 0).all(axis=1), 0] = sim.data.annotations[
            (annotations < 0).all(axis=1), 0
        ]
        data = bc.AnnotatedScores(scores, annotations)
        fit = bc.dawid_skene_em(data)
        result = bc.calibration_test(data, fit, n_replicates=39, seed=seed)
        assert result.n_extremes == 0
        rejections[hard] += result.p_value <= 0.05
    for count, n in (
        (rejections[False], 75),
        (rejections[True], 75),
        (sum(rejections.values()), 150),
    ):
        assert _clopper_pearson_covers(count, n), rejections


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
def test_size_under_h0_with_a_bayes_fit_reused():
    """150 calibrated toy replicates (N = 1 000), a Dawid–Skene posterior each (2 chains x
    (300 + 300): the test starts its H0 posterior draw from one of its draws), 5% level: the
    exact 99% interval of the rejection rate holds 5%, over all and over each half.  In every
    other replicate 200 items are scored by their class (a hard classifier's 0 and 1, still
    calibrated): the H0 draw takes them as gold, the statistic leaves them out (rule 3 of
    the second bad-input catalogue)."""
    rejections = {False: 0, True: 0}
    for seed in range(150):
        sim = bc.toy_data(1000, condition="calibrated", seed=seed)
        hard = seed % 2 == 1
        scores = sim.data.scores.copy()
        if hard:
            scores[:200] = sim.labels[:200]
        data = bc.AnnotatedScores(scores, sim.data.annotations)
        fit = bc.fit_bayes(data, num_chains=2, num_warmup=300, num_samples=300, seed=seed)
        if hard:
            with pytest.warns(bc.BinningWarning, match="200 of 1000 items score exactly 0 or 1"):
                result = bc.calibration_test(data, fit, seed=seed)
        else:
            result = bc.calibration_test(data, fit, seed=seed)
        assert result.n_extremes == (200 if hard else 0)
        rejections[hard] += result.p_value < 0.05
    for count, n in (
        (rejections[False], 75),
        (rejections[True], 75),
        (sum(rejections.values()), 150),
    ):
        assert _clopper_pearson_covers(count, n), rejections


def test_a_long_null_shows_a_progress_bar_unless_told_not_to(monkeypatch, capsys):
    """The refitting bootstrap of 10^6 items takes most of a minute: past PROGRESS_DELAY seconds
    (0 here) a bar says what is running; ``progress=False`` keeps it silent."""
    monkeypatch.setattr(bc._api, "PROGRESS_DELAY", 0.0)
    sim = bc.toy_data(600, condition="calibrated", seed=5)
    fit = bc.dawid_skene_em(sim.data)
    shown = bc.calibration_test(sim.data, fit, n_replicates=19, seed=0)
    assert "calibration test (refitting bootstrap)" in capsys.readouterr().err
    silent = bc.calibration_test(sim.data, fit, n_replicates=19, seed=0, progress=False)
    assert capsys.readouterr().err == "" and silent.p_value == shown.p_value
    with pytest.raises(TypeError, match=r"^progress must be True or False; saw str$"):
        bc.calibration_test(sim.data, fit, progress="yes")


def test_the_bootstrap_refits_with_the_options_the_fit_was_made_with(monkeypatch):
    """Issue 38 item 7: a fit records its non-default options (ChannelFit.options) and the
    refitting bootstrap passes them again; a fit with the defaults records none and is
    refitted in the EM's batch."""
    from bayescal.channels import refits

    sim = bc.simulate_annotated(
        600, bc.Channels([0.1, 0.15, 0.2], [0.8, 0.85, 0.9]), calibration=lambda z: z, seed=4
    )
    assert bc.dawid_skene_em(sim.data).options == ()
    fit = bc.dawid_skene_em(sim.data, n_starts=3, seed=5, tol=1e-8)
    assert fit.options == (("n_starts", 3), ("seed", 5))  # tol is the default
    assert bc.crowd_em(sim.data, pool=None).options == (("pool", None),)
    # every estimator records them; a NumPy default is a default
    assert bc.channels.third_moment(sim.data, anchor=2).options == (("anchor", 2),)
    assert bc.dawid_skene_em(sim.data, seed=np.int64(0)).options == ()
    calls = []
    estimator = refits._ESTIMATORS["dawid_skene_em"]

    def recorded(data, **options):
        calls.append(options)
        return estimator(data, **options)

    monkeypatch.setitem(refits._ESTIMATORS, "dawid_skene_em", recorded)
    bc.calibration_test(sim.data, fit, n_replicates=20, seed=1)
    assert calls == [{"n_starts": 3, "seed": 5}] * 20
    calls.clear()
    bc.calibration_test(sim.data, bc.dawid_skene_em(sim.data), n_replicates=20, seed=1)
    assert calls == []  # the defaults: the batched refits


def _overlapping_split():
    """900 items with ids ``i0`` to ``i899``: all of them, the first 500 (fitted) and the last
    500 (tested; 100 shared)."""
    sim = bc.simulate_annotated(
        900,
        bc.Channels([0.1, 0.15, 0.2, 0.1], [0.8, 0.85, 0.9, 0.8]),
        calibration=lambda z: z,
        seed=1,
    )
    data = dataclasses.replace(sim.data, item_ids=[f"i{j}" for j in range(900)])
    return data, data.subset(np.arange(500)), data.subset(np.arange(400, 900))


def test_a_fit_and_a_test_that_share_items_by_id_are_said_not_apart():
    """Issue 38 item 7: pattern counts alone cannot tell a partial overlap from a clean
    split; the items' ids can."""
    data, fitted, tested = _overlapping_split()
    fit = bc.dawid_skene_em(fitted)
    with pytest.warns(
        bc.DataWarning,
        match=r"^calibration_test: 100 of the 500 items of the data tested are also among the "
        r"500 of fit_data \(the channels' items\) \(by id, e.g. 'i400'\)",
    ):
        bc.calibration_test(tested, fit, fit_data=fitted, n_replicates=20, seed=0)
    apart = data.subset(np.arange(500, 900))
    bc.calibration_test(apart, fit, fit_data=fitted, n_replicates=20, seed=0)  # no warning
    without_ids = dataclasses.replace(tested, item_ids=None)
    bc.calibration_test(without_ids, fit, fit_data=fitted, n_replicates=20, seed=0)


def test_fits_record_their_items_ids_which_tell_a_split_that_counts_cannot(tmp_path):
    """Issue 38 item 7: an EM fit and a posterior keep the ids of the items they were fitted
    on (a posterior in its file too).  Items of the same pattern counts under other ids are
    other items, and a posterior of items that partly overlap the tested ones says so."""
    data, fitted, tested = _overlapping_split()
    renamed = dataclasses.replace(fitted, item_ids=[f"x{j}" for j in range(500)])
    fit = bc.dawid_skene_em(fitted)
    np.testing.assert_array_equal(fit.item_ids, fitted.item_ids)
    assert bc.dawid_skene_em(dataclasses.replace(data, item_ids=None)).item_ids is None
    with pytest.raises(ValueError, match=r"fit was not fitted on data \(its items' ids differ\)"):
        bc.calibration_test(renamed, fit, n_replicates=20, seed=0)
    with pytest.raises(ValueError, match=r"fit_data are not the items .* its items' ids, differ"):
        bc.calibration_test(tested, fit, fit_data=renamed, n_replicates=20, seed=0)

    channels = fit.channels
    posterior = fake_fit(
        fitted, np.tile(channels.a, (40, 1)), np.tile(channels.b, (40, 1)), np.full(40, 0.5)
    )
    posterior.save(tmp_path / "fit.nc")
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    np.testing.assert_array_equal(loaded.item_ids, fitted.item_ids)
    assert loaded.was_fitted_to(fitted) and not loaded.was_fitted_to(renamed)
    without_ids = dataclasses.replace(data, item_ids=None)
    draws = posterior.draws()
    assert fake_fit(without_ids, draws.a, draws.b, np.full(40, 0.5)).item_ids is None
    with pytest.warns(
        bc.DataWarning,
        match=r"^calibration_test: 100 of the 500 items of the data tested are also among the "
        r"500 of the dawid_skene fit \(by id, e.g. 'i400'\)",
    ):
        bc.calibration_test(tested, loaded, n_replicates=20, seed=0)
