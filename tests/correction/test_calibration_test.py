"""calibration_test with known channels (issue 18): the statistic against a direct computation,
its size under H0 by simulation, its power, the merging of small bins, bad inputs.  Estimated
channels: tests/correction/test_calibration_test_estimated.py."""

import dataclasses
import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

import bayescal as bc
from bayescal.correction.calibration_test import MIN_BIN_ITEMS, detectable_gap
from tests.helpers import fake_fit

WEAK = bc.Channels([0.30, 0.35, 0.25], [0.60, 0.70, 0.55])


def _direct_statistic(scores, annotations, a, b, edges):
    """The module docstring's statistic, item by item and bin by bin, without the module, and
    the number of items it tests (IV precision at least 1)."""
    target, variance, tested = [], [], []
    for z, row in zip(scores, annotations):
        seen = row >= 0
        noise = ((1 - z) * a * (1 - a) + z * b * (1 - b)) / (b - a) ** 2
        alpha = np.where(seen, 1 / noise, 0.0)
        tested.append(alpha.sum() >= 1)
        alpha = alpha / alpha.sum()
        target.append(np.sum(alpha * np.where(seen, (row - a) / (b - a), 0.0)))
        variance.append(z * (1 - z) + np.sum(alpha**2 * noise))
    tested = np.array(tested)
    target, variance, scores = (np.array(x)[tested] for x in (target, variance, scores))
    statistic = 0.0
    for low, high in itertools.pairwise(edges):
        inside = (scores >= low) & ((scores < high) | (high == 1.0))
        statistic += np.sum(target[inside] - scores[inside]) ** 2 / np.sum(variance[inside])
    return statistic, int(tested.sum())


def test_the_statistic_is_the_documented_sum_over_bins():
    sim = bc.simulate_annotated(600, WEAK, seed=3)
    annotations = sim.data.annotations.copy()
    annotations[np.random.default_rng(0).random(annotations.shape) < 0.3] = -1  # missing labels
    annotations[(annotations < 0).all(axis=1), 0] = 1  # every item keeps one label
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    with pytest.warns(
        bc.ChannelWarning, match="less than 1 perfectly reliable label"
    ):  # weak single labels left out
        result = bc.calibration_test(data, WEAK, n_bins=5, min_bin_items=1)
    a, b = WEAK.a, WEAK.b
    expected, tested = _direct_statistic(data.scores, annotations, a, b, np.linspace(0, 1, 6))
    assert result.statistic == pytest.approx(expected, rel=1e-10)
    assert result.df == 5 and result.p_value == pytest.approx(stats.chi2.sf(expected, 5))
    assert result.contribution.sum() == pytest.approx(result.statistic)
    assert 0 < result.n_unlabelled == 600 - tested and result.n_items.sum() == result.n_tested


def _missing(sim, share, seed):
    """The simulation's data with a share of labels missing at random (never all of an item's)."""
    annotations = sim.data.annotations.copy()
    rng = np.random.default_rng(seed)
    annotations[rng.random(annotations.shape) < share] = -1
    empty = (annotations < 0).all(axis=1)
    annotations[empty, 0] = sim.data.annotations[empty, 0]
    return bc.AnnotatedScores(sim.data.scores, annotations)


def _scored_by_class(sim):
    """The simulation with every item scored by its class: a calibrated hard classifier."""
    scored = bc.AnnotatedScores(sim.labels.astype(float), sim.data.annotations)
    return dataclasses.replace(sim, data=scored)


DESIGNS = {
    "toy, calibrated": lambda seed: (bc.toy_data(2000, condition="calibrated", seed=seed), None),
    "toy, 40% missing": lambda seed: (bc.toy_data(2000, condition="calibrated", seed=seed), 0.4),
    "weak annotators": lambda seed: (bc.simulate_annotated(2000, WEAK, seed=seed), None),
    "hard classifier": lambda seed: (_scored_by_class(bc.toy_data(2000, seed=seed)), None),
}


@pytest.mark.parametrize("design", list(DESIGNS))
def test_size_under_h0_with_known_channels(design):
    """400 calibrated replicates per design, 5% level: the rejections are within the central
    99.9% of Binomial(400, 0.05), i.e. 6 to 34 (the chi-square null is asymptotic; the bins
    hold about 60 to 400 items here; a hard classifier's two bins about 1 200 and 800)."""
    rejections = 0
    for seed in range(400):
        sim, missing = DESIGNS[design](seed)
        data = sim.data if missing is None else _missing(sim, missing, seed)
        rejections += bc.calibration_test(data, sim.channels).p_value < 0.05
    low, high = stats.binom.ppf([0.0005, 0.9995], 400, 0.05)
    assert low <= rejections <= high, rejections


def test_the_detectable_gap_of_one_bin_is_the_normal_power_formula():
    """One bin: X = (T / sqrt V)^2 is rejected at 5% when |N(mu, 1)| > 1.96, so 80% power needs
    mu = z_0.975 + z_0.8 (the far tail adds 1e-6), with mu = n delta / sqrt V."""
    n_items, variance = np.array([50]), np.array([22.0])
    mu = stats.norm.isf(0.025) + stats.norm.isf(0.2)
    assert detectable_gap(n_items, variance) == pytest.approx(mu * np.sqrt(22.0) / 50, rel=1e-4)
    # more items, more bins: the gap found shrinks with the items, grows a little with the df
    assert detectable_gap(n_items * 4, variance * 4) == pytest.approx(
        detectable_gap(n_items, variance) / 2
    )
    assert detectable_gap(np.full(10, 5), np.full(10, 2.2)) > detectable_gap(n_items, variance)


def _gap_on_uniform_scores(delta, seed, channels):
    """2 000 uniform scores with P(Y = 1 | Z) = Z + delta below 0.5 and Z - delta above (a gap
    of delta in every bin, never clipped at 0 or 1)."""
    return bc.simulate_annotated(
        2000, channels, calibration=lambda z: z + delta * np.sign(0.5 - z), seed=seed
    ).data


def _gap_on_hard_scores(delta, seed, channels):
    """A hard classifier on 2 000 items: scores 0 and 1 with P(Y = 1 | Z = 0) = delta and
    P(Y = 1 | Z = 1) = 1 - delta (rule 3 of the second bad-input catalogue: a test that missed
    P(Y = 1 | Z = 0) = 0.26)."""
    sim = bc.simulate_annotated(
        2000, channels, calibration=lambda z: np.where(z < 0.5, delta, 1 - delta), seed=seed
    )
    return bc.AnnotatedScores((sim.data.scores >= 0.5).astype(float), sim.data.annotations)


@pytest.mark.slow
@pytest.mark.parametrize("design", [_gap_on_uniform_scores, _gap_on_hard_scores])
def test_a_gap_of_the_detectable_size_is_found_in_four_data_sets_of_five(design):
    """400 replicates of 2 000 toy-channel items with a gap of delta in every bin, delta the
    detectable gap of a calibrated replicate (delta = 0), known channels, 10 bins (two for the
    hard classifier): rejected at the 5% level in 80%.  Measured: 320 of 400 on uniform
    scores, 310 on hard ones.  The rejections lie within the central 99.9% of
    Binomial(400, 0.8)."""
    channels = bc.toy_data(10, seed=0).channels
    delta = bc.calibration_test(design(0.0, 0, channels), channels).detectable_gap
    assert 0.01 < delta < 0.1, delta
    rejections = 0
    for seed in range(400):
        rejections += bc.calibration_test(design(delta, seed, channels), channels).p_value < 0.05
    low, high = stats.binom.ppf([0.0005, 0.9995], 400, 0.8)
    assert low <= rejections <= high, rejections


def test_it_rejects_the_miscalibrated_toy_predictors_at_8000():
    for condition in ("shifted", "nonlinear"):
        sim = bc.toy_data(8000, condition=condition, seed=0)
        assert bc.calibration_test(sim.data, sim.channels).p_value < 1e-6, condition


def test_small_bins_are_merged_and_the_bins_tested_cover_the_scores():
    # scores mostly low: the top bins hold a few items each
    rng = np.random.default_rng(5)
    scores = np.clip(rng.beta(1, 6, 1500), 0, 1)
    labels = rng.random(1500) < scores
    a, b = np.array([0.1, 0.2, 0.15]), np.array([0.8, 0.9, 0.85])
    annotations = (rng.random((1500, 3)) < np.where(labels[:, None], b, a)).astype(np.int8)
    data = bc.AnnotatedScores(scores, annotations)
    per_bin = np.bincount(np.minimum((scores * 10).astype(int), 9), minlength=10)
    assert (per_bin < MIN_BIN_ITEMS).any()
    result = bc.calibration_test(data, bc.Channels(a, b))
    assert result.df < 10 and (result.n_items >= MIN_BIN_ITEMS).all()
    assert result.lower[0] == 0.0 and result.upper[-1] == 1.0
    np.testing.assert_array_equal(result.lower[1:], result.upper[:-1])  # contiguous ranges
    assert result.n_items.sum() == 1500
    unmerged = bc.calibration_test(data, bc.Channels(a, b), min_bin_items=1)
    assert unmerged.df == (per_bin > 0).sum()  # each non-empty bin its own; empty ones join


def test_items_without_an_informative_label_are_left_out_and_said():
    sim = bc.toy_data(1000, condition="calibrated", seed=2)
    annotations = sim.data.annotations.copy()
    annotations[:50] = -1
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    with pytest.warns(bc.ChannelWarning, match=r"50 of 1000 items have no label"):
        result = bc.calibration_test(data, sim.channels)
    assert result.n_tested == 950 and result.n_unlabelled == 50
    # items whose only label comes from a near-random worker (gap 0.01, IV precision about
    # 4e-4): such a label would dominate its bin with a far-from-normal term; left out too
    near_random = bc.Channels([0.1, 0.2, 0.40], [0.9, 0.8, 0.41])
    annotations[50:80, :2] = -1
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    with pytest.warns(
        bc.ChannelWarning, match=r"80 of 1000 items have no label .* less than 1 perfectly reliable"
    ):
        result = bc.calibration_test(data, near_random)
    assert result.n_tested == 920 and result.n_unlabelled == 80
    spammer = bc.Channels([0.1, 0.2, 0.4], [0.9, 0.8, 0.4])  # the third is uninformative
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bc.calibration_test(sim.data, spammer)
    assert any("weight 0" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda d, c: bc.calibration_test(d.annotations, c), TypeError, "data must be a"),
        (
            lambda d, c: bc.calibration_test(d, {"a": c.a, "b": c.b}),
            TypeError,
            "channels must be a bayescal.Channels, a ChannelFit or a BayesFit; saw dict",
        ),
        (
            lambda d, c: bc.calibration_test(d, c, fit_data=d),
            TypeError,
            "fit_data is for a ChannelFit of other items .* saw channels of type Channels",
        ),
        (
            lambda d, c: bc.calibration_test(
                d, fake_fit(d, c.a[None], c.b[None], [0.5]), fit_data=d
            ),
            TypeError,
            "fit_data is for a ChannelFit of other items .* BayesFit",
        ),
        (lambda d, c: bc.calibration_test(d, c, n_replicates=10), ValueError, "n_replicates"),
        (lambda d, c: bc.calibration_test(d, c, seed=-1), ValueError, "seed"),
        (lambda d, c: bc.calibration_test(d, bc.Channels([0.1], [0.9])), ValueError, "annotator"),
        (lambda d, c: bc.calibration_test(d, c, min_bin_items=0), ValueError, "min_bin_items"),
        (lambda d, c: bc.calibration_test(d, c, n_bins="many"), ValueError, "n_bins"),
        (lambda d, c: bc.calibration_test(d, c, strategy="even"), ValueError, "strategy"),
        (
            lambda d, c: bc.calibration_test(d, c, min_bin_items=5000),
            ValueError,
            r"1000 items have labels informative enough to test \(together telling at least as much "
            r"as 1 perfectly reliable label\); "
            r"the test needs at least min_bin_items=5000",
        ),
    ],
)
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_bad_inputs_are_refused_with_their_name(call, error, match):
    sim = bc.toy_data(1000, condition="calibrated", seed=1)
    with pytest.raises(error, match=match):
        call(sim.data, sim.channels)
