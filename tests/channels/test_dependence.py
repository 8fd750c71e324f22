"""Conditional dependence between named pairs (issue 19, item 1 and 3): the pattern
probabilities stay valid, the marginal channels keep their meaning, identification is counted
and checked by rank, and the dependent EM and NUTS fits recover a shared-error pair."""

import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.channels.dependence import dependent_pairs, every_dependent_pair, mask_combinations
from bayescal.channels.pattern_likelihood import (
    class_log_likelihoods,
    covariance_bounds,
    covariance_from_share,
    pattern_log_prob,
)
from bayescal.exceptions import (
    IdentificationError,
    SaturatedModelWarning,
    WeakIdentificationWarning,
)

CHANNELS = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])
NAMES = ("a0", "a1", "a2", "a3")


def _cell_probabilities(mask, a, b, prevalence, pairs, share):
    rows = mask_combinations(np.asarray(mask, bool))
    index = dependent_pairs(pairs, NAMES).index
    covariance = covariance_from_share(np.full((len(index), 2), share), a, b, index)
    with np.errstate(divide="ignore"):  # a cell on its bound has probability exactly 0
        log_p = pattern_log_prob(
            a,
            b,
            np.full(len(rows), prevalence),
            (rows == 1) * 1.0,
            (rows == 0) * 1.0,
            pairs=index,
            covariance=covariance,
        )
    return rows, np.exp(log_p)


@pytest.mark.parametrize("share", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize(
    "mask", [(1, 1, 1, 1), (1, 1, 0, 1), (1, 0, 1, 1), (0, 0, 1, 1), (1, 1, 0, 0)]
)
def test_pattern_probabilities_are_valid_and_keep_the_marginal_channels(mask, share):
    rng = np.random.default_rng(7)
    a, b = rng.uniform(0.02, 0.4, 4), rng.uniform(0.55, 0.98, 4)
    rows, p = _cell_probabilities(mask, a, b, 0.3, [("a0", "a1"), ("a2", "a3")], share)
    assert p.min() >= 0.0
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    for j in np.flatnonzero(mask):  # each annotator's share of 1s: its channel, untouched
        assert p[rows[:, j] == 1].sum() == pytest.approx(0.7 * a[j] + 0.3 * b[j], abs=1e-12)


#: A star (a1 joined to a0, a2 and a3) and a lone pair (a4 ~ a5): both kinds of term.
TREE = [("a0", "a1"), ("a1", "a2"), ("a1", "a3"), ("a4", "a5")]


def _tree_joint(x, rates, covariance, index):
    """The junction-tree product of the pairs' tables over their margins, written out."""
    f = np.where(x == 1, rates, 1.0 - rates)
    value = f.prod()
    for (j, k), c in zip(index, covariance):
        value *= 1.0 + (2 * x[j] - 1) * (2 * x[k] - 1) * c / (f[j] * f[k])
    return value


@pytest.mark.parametrize(
    "mask", [(1,) * 6, (1, 0, 1, 1, 1, 0), (0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 1)]
)
def test_a_tree_of_pairs_gives_valid_probabilities_summing_its_missing_answers_out(mask):
    """Issue 38 (4c): the likelihood of pairs that share annotators is the junction-tree
    product, its missing answers summed out exactly (a missing a1 still links a0 and a2):
    every cell of answers sums to 1, every channel and every named pair's table is kept."""
    names = [f"a{j}" for j in range(6)]
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.02, 0.4, 6), rng.uniform(0.55, 0.98, 6)
    index = dependent_pairs(TREE, names).index
    covariance = covariance_from_share(rng.uniform(0, 1, (len(index), 2)), a, b, index)
    rows = mask_combinations(np.asarray(mask, bool))
    log0, log1 = class_log_likelihoods(
        a, b, (rows == 1) * 1.0, (rows == 0) * 1.0, pairs=index, covariance=covariance
    )
    missing = np.flatnonzero(~np.asarray(mask, bool))
    for y, (log_p, rates) in enumerate(((log0, a), (log1, b))):
        p = np.exp(log_p)
        assert p.sum() == pytest.approx(1.0, abs=1e-12) and p.min() >= 0.0
        for row, value in zip(rows, p):
            written_out = 0.0
            for filled in mask_combinations(np.ones(missing.size, bool)):
                x = row.copy()
                x[missing] = filled
                written_out += _tree_joint(x, rates, covariance[:, y], index)
            assert value == pytest.approx(written_out, rel=1e-12)
        for j in np.flatnonzero(mask):
            assert p[rows[:, j] == 1].sum() == pytest.approx(rates[j], abs=1e-12)
        for d, (j, k) in enumerate(index):
            if mask[j] and mask[k]:
                both = p[(rows[:, j] == 1) & (rows[:, k] == 1)].sum()
                assert both - rates[j] * rates[k] == pytest.approx(covariance[d, y], abs=1e-12)


def test_the_bounds_are_tight_each_end_empties_a_cell_of_the_pair():
    first, second = np.array([0.2, 0.7]), np.array([0.6, 0.9])
    lower, upper = covariance_bounds(first, second)
    for covariance in (lower, upper):
        cells = np.stack(
            [
                first * second + covariance,
                (1 - first) * (1 - second) + covariance,
                first * (1 - second) - covariance,
                (1 - first) * second - covariance,
            ]
        )
        assert cells.min(axis=0) == pytest.approx(0.0, abs=1e-15)
        assert (cells >= -1e-15).all()


def test_covariance_of_a_share_is_the_pairs_covariance_given_y():
    """Given Y = 1 the simulated joint of the pair matches the covariance the share sets."""
    a, b = CHANNELS.a, CHANNELS.b
    index = dependent_pairs(("a0", "a1"), NAMES).index
    covariance = covariance_from_share(np.array([[0.2, 0.8]]), a, b, index)[0]
    rows, p = _cell_probabilities((1, 1, 0, 0), a, b, 1.0 - 1e-15, ("a0", "a1"), 0.8)
    both = p[(rows[:, 0] == 1) & (rows[:, 1] == 1)].sum()
    assert both - b[0] * b[1] == pytest.approx(covariance[1], abs=1e-9)


@pytest.mark.parametrize(
    ("dependent", "message"),
    [
        ("a0", "must be pairs of annotator names"),
        (5, "must be pairs of annotator names"),
        ([("a0", "zz")], "'zz' is not an annotator of the data"),
        ([("a0", "a0")], "two different annotators"),
        ([("a0", "a1", "a2")], "each pair must be two annotator names"),
        ([("a0", "a1"), ("a1", "a0")], "is given twice"),
    ],
)
def test_bad_dependent_pairs_are_refused_by_name(dependent, message):
    with pytest.raises((TypeError, ValueError), match=message):
        dependent_pairs(dependent, NAMES)


def test_pairs_may_join_at_most_six_annotators_through_shared_ones():
    names = [f"j{i}" for i in range(8)]
    chain = [(names[i], names[i + 1]) for i in range(6)]
    assert dependent_pairs(chain[:5], names).names == tuple(chain[:5])
    with pytest.raises(ValueError, match="join 7 annotators; at most 6"):
        dependent_pairs(chain, names)


def test_one_bare_pair_and_a_list_of_pairs_mean_the_same():
    assert dependent_pairs(("a2", "a0"), NAMES).names == (("a2", "a0"),)
    assert dependent_pairs([("a2", "a0")], NAMES).index.tolist() == [[2, 0]]
    assert not dependent_pairs(None, NAMES)


def _shared_error(rho=0.2, n=3000, seed=0, missing=0.0):
    sim = bc.simulate.simulate_dependent(n, CHANNELS, pair=(0, 1), shared_error=rho, seed=seed)
    annotations = sim.data.annotations.copy()
    drop = np.random.default_rng(seed + 100).random(annotations.shape) < missing
    annotations[drop] = -1
    return sim, bc.AnnotatedScores(sim.data.scores, annotations, annotator_names=NAMES)


def test_three_annotators_with_a_pair_are_refused_before_fitting_saying_what_would_identify():
    sim = bc.toy_data(500, seed=0)
    names = sim.data.annotator_names
    with pytest.raises(IdentificationError, match=r"9 parameters .* for 7 free cells") as error:
        bc.dawid_skene_em(sim.data, dependent=names[:2])
    assert "more annotators outside the dependent pairs" in str(error.value)


def test_two_dependent_pairs_of_four_count_but_have_a_singular_jacobian():
    """13 parameters for 15 cells passes the count; two four-category indicators of a binary
    class are still not identified, and the Jacobian's rank says so."""
    _, data = _shared_error()
    with pytest.raises(IdentificationError, match=r"Jacobian .* rank 11 for 13 parameters"):
        bc.dawid_skene_em(data, dependent=[("a0", "a1"), ("a2", "a3")])
    with pytest.raises(IdentificationError, match="rank 11 for 13"):
        bc.fit_bayes(data, dependent=[("a0", "a1"), ("a2", "a3")], progress=False)


def test_two_annotators_in_a_pair_need_three_score_groups():
    sim = bc.simulate.simulate_dependent(4000, CHANNELS, pair=(0, 1), shared_error=0.1, seed=1)
    two = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations[:, :2],
        groups=bc.channels.score_groups(sim.data.scores, n_groups=2),
    )
    with pytest.raises(IdentificationError, match=r"8 parameters .* for 6 free cells"):
        bc.grouped_em(two, dependent=two.annotator_names)
    with pytest.raises(IdentificationError, match="more score groups"):
        bc.fit_bayes(two, model="hui_walter", dependent=two.annotator_names, progress=False)


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_dependent_em_recovers_a_shared_error_pair_that_independent_em_gets_wrong(missing):
    sim, data = _shared_error(missing=missing)
    independent = bc.dawid_skene_em(data)
    dependent = bc.dawid_skene_em(data, dependent=("a0", "a1"))
    truth = sim.channels
    pair = [0, 1]
    # the independent model reads the shared errors as agreement: the pair looks far better
    assert (truth.a[pair] - independent.channels.a[pair]).min() > 0.15
    assert np.abs(dependent.channels.a[pair] - truth.a[pair]).max() < 0.05
    assert np.abs(dependent.channels.b[pair] - truth.b[pair]).max() < 0.05
    # the shared error rho = 0.2 sets both covariances well above 0
    assert (dependent.covariance > 0.08).all()
    # nested models: the dependent one fits at least as well
    assert dependent.loglik > independent.loglik + 50
    assert dependent.dependent == (("a0", "a1"),)


def test_dependent_em_on_independent_data_matches_the_independent_fit():
    _, data = _shared_error(rho=0.0)
    independent = bc.dawid_skene_em(data)
    dependent = bc.dawid_skene_em(data, dependent=("a0", "a1"))
    assert np.abs(dependent.channels.a - independent.channels.a).max() < 0.02
    assert np.abs(dependent.channels.b - independent.channels.b).max() < 0.02
    assert np.abs(dependent.covariance).max() < 0.02
    assert 0 <= dependent.loglik - independent.loglik < 5


def test_exchanging_the_labels_exchanges_the_classes_of_the_covariance():
    _, data = _shared_error()
    flipped = bc.AnnotatedScores(
        data.scores,
        np.where(data.annotations >= 0, 1 - data.annotations, -1).astype(np.int8),
        annotator_names=NAMES,
    )
    fit = bc.dawid_skene_em(data, dependent=("a0", "a1"))
    mirror = bc.dawid_skene_em(flipped, dependent=("a0", "a1"), anchor=0)
    # flipping every label maps (a, b) to (1 - b, 1 - a) and swaps the classes' covariances
    # (a covariance is unchanged by flipping both members' labels)
    # (EM stops at tol=1e-8 on the mean log-likelihood: parameters agree to about 1e-3)
    np.testing.assert_allclose(mirror.channels.a, 1 - fit.channels.b, atol=2e-3)
    np.testing.assert_allclose(mirror.covariance, fit.covariance[:, ::-1], atol=2e-3)


def test_a_weakly_identified_pair_is_warned_of():
    """Four annotators, one pair, but the two outside the pair barely informative: the third
    block hardly exists, and the warning says so."""
    channels = bc.Channels([0.1, 0.15, 0.45, 0.47], [0.85, 0.8, 0.55, 0.53])
    sim = bc.simulate.simulate_dependent(3000, channels, pair=(0, 1), shared_error=0.1, seed=3)
    with pytest.warns(WeakIdentificationWarning, match="standard error of 0.7"):
        bc.dawid_skene_em(sim.data, dependent=sim.data.annotator_names[:2])


@pytest.fixture(scope="module")
def bayes_fits():
    """NUTS fits of 3000 items with a shared-error pair (rho 0.2): independent and dependent."""
    sim, data = _shared_error()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dependent = bc.fit_bayes(data, dependent=("a0", "a1"), progress=False)
    return sim, data, bc.fit_bayes(data, progress=False), dependent


def test_fit_bayes_with_a_dependent_pair_recovers_it_and_round_trips(bayes_fits, tmp_path):
    sim, _, independent, fit = bayes_fits
    assert fit.dependent == (("a0", "a1"),)
    a, b, _ = fit.draws()
    for draws, truth in ((a, sim.channels.a), (b, sim.channels.b)):
        low, high = np.quantile(draws[:, :2], [0.005, 0.995], axis=0)
        assert ((low < truth[:2]) & (truth[:2] < high)).all()
    assert fit.covariance_draws().shape == (fit.n_draws, 1, 2)
    assert "covariance[a0 ~ a1, 1]" in fit.diagnostics.index
    fit.save(tmp_path / "fit.nc")
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    assert loaded.dependent == fit.dependent
    np.testing.assert_array_equal(loaded.covariance_draws(), fit.covariance_draws())
    # the stored log-likelihood is the dependent model's: summed with the counts it beats
    # the independent model's
    log_lik, counts = fit.pointwise_log_likelihood()
    plain, _ = independent.pointwise_log_likelihood()
    assert (log_lik @ counts).mean() > (plain @ counts).mean() + 50


def test_calibration_test_of_a_dependent_fit():
    """The dependent EM fit's bootstrap refits the dependent model on every replicate."""
    _, data = _shared_error(n=1500)
    fit = bc.dawid_skene_em(data, dependent=("a0", "a1"))
    result = bc.calibration_test(data, fit, n_replicates=19, seed=1)
    assert result.channels_from == "reuse" and result.n_replicates == 19
    assert 0 < result.p_value <= 1


def test_calibration_test_of_a_dependent_bayes_fit_draws_the_pair_under_h0(bayes_fits):
    """The H0 draw of a dependent fit of the same items draws the pair's tables, and the
    statistic's variance carries the drawn covariance: with the pair's shared errors
    (positive covariance given Y) it is below the statistic at the same channels taken as
    independent; the drawn channels are near the truth (3 000 items: posterior sds about
    0.01) and none of the fit's draws.  (The size over replicates is in
    benchmarks/RESULTS.md; these calibrated data happen to sit in the tail even at fixed
    channels, p = 0.002, so no level is asserted here.)"""
    sim, data, _, fit = bayes_fits
    result = bc.calibration_test(data, fit, seed=2)
    assert result.channels_from == "reuse" and "posterior under H0" in result.method
    assert result.statistic < bc.calibration_test(data, result.channels).statistic
    np.testing.assert_allclose(result.channels.a, sim.channels.a, atol=0.05)
    np.testing.assert_allclose(result.channels.b, sim.channels.b, atol=0.05)
    assert not (fit.draws().a == result.channels.a).all(axis=1).any()


def test_model_checks_replicate_data_under_the_dependent_model(bayes_fits):
    """Under independence the global check and some pairs are flagged (the model reads the
    pair's shared errors as accuracy and then misses the other pairs' agreement); the
    dependent model replicates the data, so nothing is flagged, and the saturation row counts
    the two covariances."""
    _, data, independent, dependent = bayes_fits
    kinds = ["ppc", "pairwise_agreement"]
    flags = lambda checks: checks.table[checks.table["check"].isin(kinds)]["flag"]  # noqa: E731
    assert flags(bc.check_model(data, independent)).sum() >= 3
    checks = bc.check_model(data, dependent)
    assert not flags(checks).any()
    saturation = checks.table[checks.table["subject"] == "saturation"].iloc[0]
    assert saturation["observed"] == 15 - 11  # 15 free cells, 8 + 1 + 2 parameters


def test_calibration_variance_includes_the_pairs_covariance():
    """Labels replicated under H0 with a dependent pair: the spread of each bin's corrected
    residual sum matches the variance the test uses, and leaving the pair's covariance out
    understates it."""
    from bayescal.correction.calibration_test import CalibrationLayout

    sim = bc.simulate.simulate_dependent(2000, CHANNELS, pair=(0, 1), shared_error=0.0, seed=5)
    a, b = sim.channels.a, sim.channels.b
    index = dependent_pairs(("a0", "a1"), NAMES).index
    covariance = covariance_from_share(np.array([[0.8, 0.8]]), a, b, index)
    layout = CalibrationLayout.of(
        sim.data, sim.channels, 5, "uniform", 30, dependence=(index, covariance)
    )
    rng = np.random.default_rng(0)
    sums = np.array(
        [
            layout.bin_sums(layout.replicate(rng, a, b, covariance)[0], a, b, covariance)[0]
            for _ in range(3000)
        ]
    )
    _, variance = layout.bin_sums(layout.label, a, b, covariance)
    _, independent = layout.bin_sums(layout.label, a, b, np.zeros((1, 2)))
    # 3000 replicates: the sample variance is within about 2.6% (1 sd) of the truth
    np.testing.assert_allclose(sums.var(axis=0), variance, rtol=0.08)
    # the pair's term is 6-12% of each bin's variance here (most is Var(Y | Z)); pooled over
    # the five bins the sample variance shows it beyond its 1.2% noise
    assert (variance / independent > 1.05).all()
    assert sums.var(axis=0).sum() / independent.sum() > 1.05
    assert np.abs(sums.mean(axis=0)).max() < 4 * np.sqrt(variance.max() / 3000)


def test_the_analysis_proposes_a_pair_and_says_when_four_annotators_cannot_tell_which():
    """Four annotators, a0 ~ a1 sharing errors: the check flags a pair; a0 ~ a1 and its
    complement a2 ~ a3 fit equally well, and the one line says the data cannot tell them apart."""
    _, data = _shared_error()
    with pytest.warns(bc.DependenceWarning) as said:
        analysis = bc.analyse(data, sampler=bc.SamplerSettings(num_samples=500))
    (line,) = [str(w.message) for w in said]
    assert "the data cannot tell the two apart" in line
    assert analysis.summary.model.dependent == ()


def test_simulated_copying_in_a_chain_has_the_channels_and_covariances_it_states():
    sim = bc.simulate.simulate_dependent(200_000, CHANNELS, pair=[(0, 1), (1, 2)], copying=0.3)
    labels, votes = sim.labels, sim.data.annotations
    for y, rates in ((0, sim.channels.a), (1, sim.channels.b)):
        given = votes[labels == y]
        np.testing.assert_allclose(given.mean(axis=0), rates, atol=0.005)
        for source, copier in ((0, 1), (1, 2)):
            covariance = np.cov(given[:, source], given[:, copier])[0, 1]
            p = rates[source]
            assert covariance == pytest.approx(0.3 * p * (1 - p), abs=0.004)
    for pair, message in (
        ([(0, 1), (2, 1)], "an annotator copies in two pairs"),
        ([(0, 1), (0, 9)], "below 4"),
        ([(1, 2), (0, 1)], "annotator 1 is copied from before it copies"),
        ([(0, 1), (1, 2), (2, 0)], "annotator 0 is copied from before it copies"),
    ):
        with pytest.raises(ValueError, match=message):
            bc.simulate.simulate_dependent(10, CHANNELS, pair=pair, copying=0.3)
    with pytest.raises(ValueError, match="several pairs are for copying"):
        bc.simulate.simulate_dependent(10, CHANNELS, pair=[(0, 1), (1, 2)], shared_error=0.1)


def test_simulated_copying_has_the_channels_and_covariance_it_states():
    sim = bc.simulate.simulate_dependent(
        200_000, CHANNELS, pair=(0, 1), copying=0.3, shared_error=0.0
    )
    labels, votes = sim.labels, sim.data.annotations
    for y, rates in ((0, sim.channels.a), (1, sim.channels.b)):
        given = votes[labels == y]
        np.testing.assert_allclose(given.mean(axis=0), rates, atol=0.005)
        p = CHANNELS.a[0] if y == 0 else CHANNELS.b[0]
        covariance = np.mean(given[:, 0] * given[:, 1]) - given[:, 0].mean() * given[:, 1].mean()
        assert covariance == pytest.approx(0.3 * p * (1 - p), abs=0.004)
    with pytest.raises(ValueError, match="shared_error and copying are two mechanisms"):
        bc.simulate.simulate_dependent(10, CHANNELS, shared_error=0.1, copying=0.1)


def test_dependent_em_recovers_a_copying_pair():
    sim = bc.simulate.simulate_dependent(3000, CHANNELS, copying=0.4, shared_error=0.0, seed=2)
    fit = bc.dawid_skene_em(sim.data, dependent=sim.data.annotator_names[:2])
    assert np.abs(fit.channels.a[:2] - sim.channels.a[:2]).max() < 0.05
    assert np.abs(fit.channels.b[:2] - sim.channels.b[:2]).max() < 0.05


def test_a_dawid_skene_fit_of_grouped_data_knows_its_own_data():
    """A pattern seen in two score groups is one row per group in the pooled design: the
    fitted counts add them up, so the fit recognises its data (it once kept only the last)."""
    sim, _ = _shared_error(n=600)
    grouped = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations,
        groups=bc.channels.score_groups(sim.data.scores, n_groups=3),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SamplingWarning)
        fit = bc.fit_bayes(grouped, progress=False, num_samples=200)
    assert sum(fit.fitted_counts.values()) == 600
    assert fit.was_fitted_to(grouped)


def test_pairs_combine_with_no_other_dependence():
    rows = mask_combinations(np.ones(4, bool))
    index = dependent_pairs(("a0", "a1"), NAMES).index
    with pytest.raises(ValueError, match="combine with neither a shared difficulty"):
        pattern_log_prob(
            CHANNELS.a,
            CHANNELS.b,
            np.full(len(rows), 0.3),
            (rows == 1) * 1.0,
            (rows == 0) * 1.0,
            pairs=index,
            covariance=np.zeros((1, 2)),
            loading=np.ones(2),
        )


def test_simulate_dependent_copying_alone_needs_no_shared_error_of_zero():
    sim = bc.simulate.simulate_dependent(200, CHANNELS, copying=0.2)
    assert sim.data.n_items == 200


@pytest.mark.slow
@pytest.mark.parametrize("dependence", [{"shared_error": 0.0}, {"copying": 0.3}])
def test_a_pair_whose_other_member_is_a_spammer_is_fitted_as_any_pair(dependence):
    """a1 answers at random (a = b = 0.3), on its own or copying a0 on 30% of the items (then
    its channel is a mix of a0's and the spammer's): the pair's model is identified, and both
    the dependent EM and NUTS recover every channel (EM within 0.03, the truth inside the
    99% interval)."""
    channels = bc.Channels([0.1, 0.3, 0.2, 0.1], [0.85, 0.3, 0.75, 0.9])
    sim = bc.simulate.simulate_dependent(3000, channels, pair=(0, 1), seed=0, **dependence)
    with warnings.catch_warnings():
        # the spammer estimated with b < a by chance is named as random
        # (bayescal.channels.odd_annotators)
        warnings.simplefilter("ignore", bc.ChannelWarning)
        em = bc.dawid_skene_em(sim.data, dependent=("a0", "a1"))
    np.testing.assert_allclose(em.channels.a, sim.channels.a, atol=0.03)
    np.testing.assert_allclose(em.channels.b, sim.channels.b, atol=0.03)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no diagnostics to warn of (0 divergences measured)
        fit = bc.fit_bayes(sim.data, dependent=("a0", "a1"), progress=False)
    a, b, _ = fit.draws()
    for draws, truth in ((a, sim.channels.a), (b, sim.channels.b)):
        low, high = np.quantile(draws, [0.005, 0.995], axis=0)
        assert ((low < truth) & (truth < high)).all()


#: Five judges; in the tree of pairs a0 ~ a1 ~ a2, a1 copies a0 and a2 copies a1.
CHAIN = [("a0", "a1"), ("a1", "a2")]
CHANNELS_OF_FIVE = ([0.1, 0.15, 0.2, 0.1, 0.12], [0.85, 0.8, 0.9, 0.88, 0.82])


def _copying_chain(n, seed, share=0.3, missing=0.2):
    """Labels of five judges where on a share of the items a1 copies a0, then (on its own
    share) a2 copies a1: given Y, a0 -> a1 -> a2 is a Markov chain, a tree of two pairs.
    Returns the data and the channels the judges then have."""
    channels = bc.Channels(*CHANNELS_OF_FIVE)
    sim = bc.simulate.simulate_dependent(
        n, channels, pair=[(0, 1), (1, 2)], copying=share, seed=seed
    )
    labels = sim.data.annotations.copy()
    labels[np.random.default_rng([seed, 7]).random(labels.shape) < missing] = -1
    return bc.AnnotatedScores(sim.data.scores, labels), sim.channels


def test_dependent_em_recovers_a_tree_of_copying_judges_the_independent_fit_gets_wrong():
    """Issue 38 (4c), measured at seeds 1-5 (20 000 items, 20% of the labels missing): the
    tree's EM is within 0.008-0.013 of every channel (0.013 at seed 1, used here), the
    independent EM 0.044-0.052 off."""
    data, truth = _copying_chain(20_000, seed=1)
    fit = bc.dawid_skene_em(data, dependent=CHAIN)
    assert fit.converged and fit.dependent == tuple(CHAIN)
    for estimate, true in ((fit.channels.a, truth.a), (fit.channels.b, truth.b)):
        assert np.abs(estimate - true).max() < 0.02
    independent = bc.dawid_skene_em(data)
    assert np.abs(independent.channels.b - truth.b).max() > 0.03
    # the pairs' covariances given Y: rho p (1 - p) of the copied judge's rates
    for d, source in enumerate((0, 1)):
        for y, rates in enumerate((truth.a, truth.b)):
            expected = 0.3 * rates[source] * (1 - rates[source])
            assert fit.covariance[d, y] == pytest.approx(expected, abs=0.012)
    assert fit.loglik > independent.loglik


def test_calibration_test_of_a_tree_em_fit_refits_the_tree_on_every_replicate():
    data, _ = _copying_chain(3000, seed=2, missing=0.0)
    fit = bc.dawid_skene_em(data, dependent=CHAIN)
    result = bc.calibration_test(data, fit, n_replicates=19, seed=1)
    assert result.channels_from == "reuse" and result.n_replicates == 19
    assert 0 < result.p_value <= 1
    # the copies' positive covariances, a0 ~ a2's too, widen the variance: the same channels
    # read as independent give a larger statistic (measured 19.2 against 18.4)
    independent = bc.calibration_test(data, fit.channels)
    assert result.statistic < independent.statistic - 0.5


CHAIN_OF_FIVE = [("a3", "a4"), ("a1", "a2"), ("a0", "a1"), ("a2", "a3")]


@pytest.mark.parametrize(
    ("tree", "correlated"),
    [
        (TREE, {(0, 1), (1, 2), (1, 3), (4, 5), (0, 2), (0, 3), (2, 3)}),
        (CHAIN_OF_FIVE, {(j, k) for j in range(5) for k in range(j + 1, 5)}),
    ],
    ids=["star and pair", "chain of five named out of order"],
)
def test_every_pair_a_tree_correlates_has_the_covariance_of_the_trees_joint(tree, correlated):
    """The calibration test's variance needs the covariance of every two members of a tree,
    named or not (paths of one to four pairs): against the joint's own pattern
    probabilities, to 1e-12."""
    names = [f"a{j}" for j in range(6)]
    rng = np.random.default_rng(5)
    a, b = rng.uniform(0.02, 0.4, 6), rng.uniform(0.55, 0.98, 6)
    index = dependent_pairs(tree, names).index
    covariance = covariance_from_share(rng.uniform(0, 1, (len(index), 2)), a, b, index)
    pairs, given = every_dependent_pair(index, a, b, covariance)
    assert {tuple(sorted(p)) for p in pairs.tolist()} == correlated
    rows = mask_combinations(np.ones(6, bool))
    log0, log1 = class_log_likelihoods(
        a, b, (rows == 1) * 1.0, (rows == 0) * 1.0, pairs=index, covariance=covariance
    )
    for y, (log_p, rates) in enumerate(((log0, a), (log1, b))):
        p = np.exp(log_p)
        for (j, k), value in zip(pairs, given[:, y]):
            both = p[(rows[:, j] == 1) & (rows[:, k] == 1)].sum()
            assert value == pytest.approx(both - rates[j] * rates[k], abs=1e-12)


def test_labels_replicated_under_h0_follow_the_trees_joint():
    """The null's replicates draw a tree's answers along it: each channel and every two
    members' covariance given Y (named or not), over 200 000 items a fifth of them missing
    a1, whose neighbours stay correlated."""
    from bayescal.correction.calibration_test import replicate_labels

    names = [f"a{j}" for j in range(6)]
    rng = np.random.default_rng(6)
    a, b = rng.uniform(0.05, 0.4, 6), rng.uniform(0.6, 0.95, 6)
    index = dependent_pairs(TREE, names).index
    covariance = covariance_from_share(np.full((len(index), 2), 0.8), a, b, index)
    n = 200_000
    item, annotator = np.repeat(np.arange(n), 6), np.tile(np.arange(6), n)
    kept = ~((annotator == 1) & (item % 5 == 0))
    label, truth = replicate_labels(
        np.random.default_rng(7),
        np.full(n, 0.4),
        item[kept],
        annotator[kept],
        a,
        b,
        index,
        covariance,
    )
    answers = np.full((n, 6), np.nan)
    answers[item[kept], annotator[kept]] = label
    pairs, given = every_dependent_pair(index, a, b, covariance)
    for y, rates in ((0, a), (1, b)):
        of_class = answers[truth == y]
        np.testing.assert_allclose(np.nanmean(of_class, axis=0), rates, atol=0.006)
        for (j, k), value in zip(pairs, given[:, y]):
            both = of_class[:, [j, k]]
            both = both[~np.isnan(both).any(axis=1)]
            assert np.cov(both.T)[0, 1] == pytest.approx(value, abs=0.006), (j, k, y)
    # where a1 gave no label, a0 and a2 still answer with the covariance a1 gives them
    without = (np.arange(n) % 5 == 0) & (truth == 1)
    assert np.isnan(answers[without, 1]).all()
    induced = given[[tuple(p) for p in pairs.tolist()].index((0, 2)), 1]
    assert np.cov(answers[without][:, [0, 2]].T)[0, 1] == pytest.approx(induced, abs=0.008)


def test_a_chain_through_four_judges_is_weakly_identified_and_said_so():
    """The Jacobian's rank and the information decide, not the count: a0 ~ a1 ~ a2 with a3
    alone is identified (13 parameters for 15 cells); all four in one chain count 15 for 15
    and are warned as weakly identified."""
    data, _ = _copying_chain(5000, seed=2, missing=0.0)
    four = bc.AnnotatedScores(data.scores, data.annotations[:, :4])
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeakIdentificationWarning)
        bc.dawid_skene_em(four, dependent=CHAIN)
    with pytest.warns(WeakIdentificationWarning, match="weakly identified"):
        with pytest.warns(SaturatedModelWarning, match="15 parameters for 15 free cells"):
            bc.dawid_skene_em(four, dependent=[*CHAIN, ("a2", "a3")])


@pytest.mark.slow
def test_fit_bayes_with_a_tree_of_pairs_recovers_the_copying_judges():
    """NUTS on the tree's likelihood: every channel's 99% interval holds the truth, the
    covariances are drawn for both pairs, the checks replicate data under the tree, and the
    calibration test of its own items draws the tree under H0.  Measured, the global check's p-value at seeds 1-11: 0.003 at seed 1, 0.05-0.84 at the
    others, as p-values under the right model are (one in twenty below 0.05); seed 2 here."""
    data, truth = _copying_chain(20_000, seed=2)
    settings = {"num_chains": 2, "num_warmup": 500, "num_samples": 500, "progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = bc.fit_bayes(data, dependent=CHAIN, **settings)
    a, b, _ = fit.draws()
    for draws, true in ((a, truth.a), (b, truth.b)):
        low, high = np.quantile(draws, [0.005, 0.995], axis=0)
        assert ((low < true) & (true < high)).all(), (low, high, true)
    assert fit.covariance_draws().shape == (fit.n_draws, 2, 2)
    assert (fit.covariance_draws() > 0).mean() > 0.99
    # a0 and a2 agree beyond independence through a1 alone: the tree replicates that
    checks = bc.check_model(data, fit)
    kinds = checks.table["check"].isin(["ppc", "pairwise_agreement"])
    assert not checks.table[kinds]["flag"].any(), checks.table[kinds]
    # its own items are tested at a draw under H0 that draws the tree's joint
    with pytest.warns(bc.exceptions.ChannelWarning, match="4 of 20000 items have no label"):
        result = bc.calibration_test(data, fit, seed=0)
    assert "Gibbs sweeps" in result.method and result.p_value > 0.05


def test_with_every_item_gold_the_trees_em_is_the_observed_tables():
    """Gold rows keep their class in the tree's M-step: with every item's class known, the
    EM channels and covariances are the class-conditional shares and covariances observed
    (the maximum likelihood of a tree with complete data), to 1e-12."""
    sim = bc.simulate.simulate_dependent(
        3000, bc.Channels(*CHANNELS_OF_FIVE), pair=[(0, 1), (1, 2)], copying=0.3, seed=4
    ).with_gold(3000, seed=1)
    fit = bc.dawid_skene_em(sim.data, dependent=CHAIN)
    for label, rates in ((0, fit.channels.a), (1, fit.channels.b)):
        given = sim.data.annotations[sim.labels == label]
        np.testing.assert_allclose(rates, given.mean(axis=0), rtol=0, atol=1e-12)
        for d, (j, k) in enumerate(((0, 1), (1, 2))):
            observed = (given[:, j] * given[:, k]).mean() - given[:, j].mean() * given[:, k].mean()
            assert fit.covariance[d, label] == pytest.approx(observed, abs=1e-12)
