"""Binned ECE, MCE and reliability curve: seeds/002 examples, bin edges, a loop reference,
invariants (hypothesis) and bad input."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayescal as bc
from bayescal.metrics.calibration import assign_bins


def loop_ece(y, p, n_bins):
    """seeds/002 written out literally: accumulate per bin, skip empty bins."""
    sums_y = [0.0] * n_bins
    sums_p = [0.0] * n_bins
    counts = [0] * n_bins
    for target, prob in zip(y, p):
        m = min(int(prob * n_bins), n_bins - 1)
        sums_y[m] += target
        sums_p[m] += prob
        counts[m] += 1
    total = 0.0
    for m in range(n_bins):
        if counts[m]:
            total += counts[m] / len(y) * abs(sums_y[m] / counts[m] - sums_p[m] / counts[m])
    return total


# --- the worked examples of seeds/002 -------------------------------------------------------


def test_seed_example_overconfident():
    with pytest.warns(bc.BinningWarning, match=r"n_bins = 5 exceeds the 4 item\(s\) to bin"):
        ece = bc.expected_calibration_error([1, 0, 1, 0], [0.9] * 4, n_bins=5)
    assert ece == pytest.approx(0.4, abs=1e-15)  # the value is still the seeds' one


def test_more_bins_than_items_warns_at_every_entry_point_and_as_many_does_not():
    data = bc.AnnotatedScores([0.1, 0.4, 0.6, 0.9], [[1, 0], [0, 0], [1, 1], [1, 0]])
    channels = bc.Channels([0.1, 0.1], [0.9, 0.9])
    for call in (
        lambda bins: bc.expected_calibration_error([0, 0, 1, 1], data.scores, n_bins=bins),
        lambda bins: bc.metrics.max_calibration_error([0, 0, 1, 1], data.scores, n_bins=bins),
        lambda bins: bc.metrics.reliability_curve([0, 0, 1, 1], data.scores, n_bins=bins),
        lambda bins: bc.noise_corrected_ece(data, channels, n_bins=bins),
        lambda bins: bc.correction.soft_vote_ece(data, n_bins=bins),
        lambda bins: data.cells(n_bins=bins),
    ):
        with pytest.warns(bc.BinningWarning, match="n_bins = 5 exceeds the 4 item") as record:
            call(5)
        assert record[0].filename == __file__
        call(4)  # as many bins as items: no warning (warnings are errors in this suite)


def test_seed_example_two_bins():
    y = [0, 0, 1, 1, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    # bin [0, .5): acc 2/4, conf .25; bin [.5, 1]: acc 3/4, conf .75 -> 0.5 * 0.25 = 0.125
    assert bc.expected_calibration_error(y, p, n_bins=2) == pytest.approx(0.125, abs=1e-15)


def test_seed_worked_table_of_100_predictions():
    # seeds/002 worked example: five bins with the stated counts, confidences and accuracies.
    spec = [(5, 0.15, 1), (10, 0.30, 3), (25, 0.52, 12), (35, 0.71, 21), (25, 0.92, 19)]
    y, p = [], []
    for count, conf, positives in spec:
        p += [conf] * count
        y += [1] * positives + [0] * (count - positives)
    assert bc.expected_calibration_error(y, p, n_bins=5) == pytest.approx(0.091, abs=1e-12)


# --- bin edges -------------------------------------------------------------------------------


def test_probability_one_goes_to_last_bin_and_zero_to_first():
    index, edges = assign_bins(np.array([0.0, 1.0, 0.999999]), 10, "uniform")
    assert index.tolist() == [0, 9, 9]
    assert edges[0] == 0.0 and edges[-1] == 1.0


def test_values_exactly_on_edges_open_the_upper_bin():
    # [k/M, (k+1)/M): an edge value belongs to the bin it starts.
    index, _ = assign_bins(np.array([0.2, 0.4, 0.6, 0.8]), 5, "uniform")
    assert index.tolist() == [1, 2, 3, 4]
    index, _ = assign_bins(np.array([0.25, 0.5, 0.75]), 4, "uniform")
    assert index.tolist() == [1, 2, 3]


def test_edge_value_changes_ece_as_the_convention_says():
    # p = 0.5 with two bins sits in the upper bin, together with 0.9.
    ece = bc.expected_calibration_error([1, 0], [0.5, 0.9], n_bins=2)
    assert ece == pytest.approx(abs((1 + 0) - (0.5 + 0.9)) / 2)


def test_empty_bins_are_ignored_and_reported():
    with pytest.warns(bc.BinningWarning):
        curve = bc.metrics.reliability_curve([1, 0, 1], [0.05, 0.05, 0.95], n_bins=10)
    assert curve.counts.tolist() == [2, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert curve.nonempty.sum() == 2
    assert np.isnan(curve.mean_target[1]) and np.isnan(curve.mean_predicted[5])
    assert curve.mean_target[0] == 0.5 and curve.mean_predicted[9] == 0.95


def test_quantile_bins_have_equal_mass_without_ties():
    p = np.linspace(0.01, 0.99, 100)
    index, _ = assign_bins(p, 4, "quantile")
    assert np.bincount(index).tolist() == [25, 25, 25, 25]


def test_quantile_tie_rule_keeps_equal_scores_together():
    # 6 of 8 scores equal 0.5: several quantile edges coincide at 0.5.
    p = np.array([0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9])
    index, edges = assign_bins(p, 4, "quantile")
    assert np.unique(index[p == 0.5]).size == 1
    assert index[0] < index[1] <= index[-1]
    assert np.all(np.diff(edges) >= 0)


def test_n_bins_auto_is_cube_root_rule():
    rng = np.random.default_rng(1)
    p = rng.random(8000)
    y = (rng.random(8000) < p).astype(int)
    assert bc.metrics.calibration_moments(y, p, n_bins="auto").counts.size == 20
    assert bc.expected_calibration_error(y, p, n_bins="auto") == bc.expected_calibration_error(
        y, p, n_bins=20
    )


# --- reference and invariants --------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [1, 2, 7, 10, 15, 50])
def test_agrees_with_loop_reference_on_random_data(n_bins):
    rng = np.random.default_rng(n_bins)
    p = rng.random(997) ** 2
    y = (rng.random(997) < np.sqrt(p)).astype(int)
    assert bc.expected_calibration_error(y, p, n_bins=n_bins) == pytest.approx(
        loop_ece(y, p, n_bins), abs=1e-12
    )


def test_mce_hand_computed():
    # bin [0, .5): |0.5 - 0.25| = 0.25; bin [.5, 1]: |0.75 - 0.75| = 0
    y = [0, 0, 1, 1, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    assert bc.metrics.max_calibration_error(y, p, n_bins=2) == pytest.approx(0.25)


labels_and_scores = st.integers(min_value=1, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=n, max_size=n),
    )
)
bin_counts = st.integers(min_value=1, max_value=25)
strategies = st.sampled_from(["uniform", "quantile"])


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@given(labels_and_scores, bin_counts, strategies, st.randoms(use_true_random=False))
def test_permutation_invariance(data, n_bins, strategy, random):
    y, p = data
    order = list(range(len(y)))
    random.shuffle(order)
    shuffled = bc.expected_calibration_error(
        [y[i] for i in order], [p[i] for i in order], n_bins=n_bins, strategy=strategy
    )
    assert shuffled == pytest.approx(
        bc.expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy), abs=1e-12
    )


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@given(labels_and_scores, bin_counts, strategies)
def test_ece_in_unit_interval_and_below_mce(data, n_bins, strategy):
    y, p = data
    ece = bc.expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy)
    mce = bc.metrics.max_calibration_error(y, p, n_bins=n_bins, strategy=strategy)
    assert 0.0 <= ece <= 1.0 + 1e-12
    assert mce >= ece - 1e-12
    assert mce <= 1.0 + 1e-12


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@given(labels_and_scores, bin_counts)
def test_uniform_strategy_matches_loop_reference(data, n_bins):
    y, p = data
    assert bc.expected_calibration_error(y, p, n_bins=n_bins) == pytest.approx(
        loop_ece(y, p, n_bins), abs=1e-12
    )


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@given(
    st.lists(st.tuples(st.integers(1, 12), st.integers(0, 12)), min_size=1, max_size=12),
    bin_counts,
    strategies,
)
def test_zero_when_each_bin_mean_target_equals_mean_score(groups, n_bins, strategy):
    # Each group: m items with score k/m and exactly k positives.  Equal scores share a bin
    # under both strategies, so every bin is a union of groups whose mean target = mean score.
    y, p = [], []
    for m, k in groups:
        k = min(k, m)
        y += [1] * k + [0] * (m - k)
        p += [k / m] * m
    assert bc.expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy) == pytest.approx(
        0.0, abs=1e-12
    )


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@given(labels_and_scores, bin_counts, strategies)
def test_reliability_curve_reproduces_ece(data, n_bins, strategy):
    y, p = data
    curve = bc.metrics.reliability_curve(y, p, n_bins=n_bins, strategy=strategy)
    ok = curve.nonempty
    from_curve = np.sum(
        curve.counts[ok] / len(y) * np.abs(curve.mean_target[ok] - curve.mean_predicted[ok])
    )
    assert from_curve == pytest.approx(
        bc.expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy), abs=1e-12
    )
    assert curve.counts.sum() == len(y)


# --- bad input ------------------------------------------------------------------------------

METRICS = [
    bc.expected_calibration_error,
    bc.metrics.max_calibration_error,
    bc.metrics.reliability_curve,
]


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize(
    "y, p, kwargs, error, match",
    [
        ([1, 0], [0.5, math.nan], {}, ValueError, r"y_prob must be finite; saw nan at position 1"),
        ([1, 0], [0.5, math.inf], {}, ValueError, r"y_prob must be finite"),
        ([1, 0], [0.5, 1.2], {}, ValueError, r"y_prob must lie in \[0, 1\]; saw 1.2 at position 1"),
        (
            [1, 0],
            [-0.1, 0.5],
            {},
            ValueError,
            r"y_prob must lie in \[0, 1\]; saw -0.1 at position 0",
        ),
        (
            [1, 2],
            [0.5, 0.5],
            {},
            ValueError,
            r"y_true must contain only 0 and 1; saw 2 at position 1",
        ),
        ([1, 0.5], [0.5, 0.5], {}, ValueError, r"y_true must contain only 0 and 1"),
        ([1, 0, 1], [0.5, 0.5], {}, ValueError, r"same number of items; saw 3 and 2"),
        ([], [], {}, ValueError, r"y_true must not be empty"),
        ([[1, 0]], [0.5, 0.5], {}, ValueError, r"y_true must be a 1-D array"),
        ([1, 0], "0.5", {}, TypeError, r"y_prob must be an array of numbers; saw a string"),
        ([1, 0], [0.5, 0.5], {"n_bins": 0}, ValueError, r"n_bins must be >= 1; saw 0"),
        ([1, 0], [0.5, 0.5], {"n_bins": 2.5}, TypeError, r"n_bins must be an integer"),
        ([1, 0], [0.5, 0.5], {"n_bins": True}, TypeError, r"n_bins must be an integer"),
        (
            [1, 0],
            [0.5, 0.5],
            {"n_bins": "many"},
            ValueError,
            r"n_bins must be a positive integer or 'auto'",
        ),
        (
            [1, 0],
            [0.5, 0.5],
            {"strategy": "kmeans"},
            ValueError,
            r"strategy must be one of 'uniform', 'quantile'; saw 'kmeans'",
        ),
    ],
)
def test_bad_input_is_rejected_with_a_named_message(metric, y, p, kwargs, error, match):
    with pytest.raises(error, match=match):
        metric(y, p, **kwargs)


def test_calibration_moments_bad_targets():
    with pytest.raises(ValueError, match=r"targets must be finite; saw nan"):
        bc.metrics.calibration_moments([0.3, math.nan], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"targets must be a non-empty 1-D array"):
        bc.metrics.calibration_moments([], [])


def test_calibration_moments_accept_targets_outside_unit_interval():
    moments = bc.metrics.calibration_moments([1.5, -0.5], [0.25, 0.75], n_bins=2)
    assert moments.moments.tolist() == [
        pytest.approx((1.5 - 0.25) / 2),
        pytest.approx((-0.5 - 0.75) / 2),
    ]
    assert moments.ece == pytest.approx(1.25)


def test_integral_float_bins_are_bins():
    """n_bins=10.0 (from a JSON file, or a NumPy float) means 10 bins (issue 16 item 10)."""
    y, p = [0, 1, 1, 0, 1, 0, 1, 1], [0.1, 0.8, 0.7, 0.3, 0.9, 0.2, 0.6, 0.4]
    expected = bc.expected_calibration_error(y, p, n_bins=4)
    assert bc.expected_calibration_error(y, p, n_bins=4.0) == expected
    assert bc.expected_calibration_error(y, p, n_bins=np.float64(4)) == expected
    with pytest.raises(TypeError, match=r"n_bins must be an integer; saw 4.5"):
        bc.expected_calibration_error(y, p, n_bins=4.5)


def test_a_reliability_curve_holds_the_ece_it_shows():
    rng = np.random.default_rng(11)
    scores = rng.random(5000)
    labels = (rng.random(5000) < scores**1.3).astype(int)
    for strategy in ("uniform", "quantile"):
        curve = bc.metrics.reliability_curve(labels, scores, n_bins=15, strategy=strategy)
        expected = bc.expected_calibration_error(labels, scores, n_bins=15, strategy=strategy)
        assert curve.ece == pytest.approx(expected, abs=1e-12)
