"""Top-label and classwise ECE of multi-class predictions (bayescal.metrics.classes): a loop
reference of seeds/002's conventions, a hand-computed example, the tie rule, the reliability
curves, and bad input.  Equality with netcal's top-label ECE is measured in
benchmarks/multiclass_metrics.py (netcal is not a test dependency)."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.metrics import ClasswiseReliability, reliability_curve

HAND_PROBABILITIES = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]
HAND_LABELS = [0, 1, 2, 1]


def loop_bin(z, edges, strategy):
    """seeds/002's bin of a score: ``[k/M, (k+1)/M)`` with 1 in the last bin; equal mass: the
    highest bin whose lower edge is at most the score (the last bin closed)."""
    n_bins = len(edges) - 1
    if strategy == "uniform":
        return min(int(z * n_bins), n_bins - 1)
    return max(k for k in range(n_bins) if edges[k] <= z)


def loop_binary_ece(targets, scores, n_bins, strategy):
    if strategy == "uniform":
        edges = [k / n_bins for k in range(n_bins + 1)]
    else:
        edges = list(np.quantile(scores, np.linspace(0, 1, n_bins + 1)))
    sums_t, sums_z, counts = [0.0] * n_bins, [0.0] * n_bins, [0] * n_bins
    for t, z in zip(targets, scores):
        m = loop_bin(z, edges, strategy)
        sums_t[m] += t
        sums_z[m] += z
        counts[m] += 1
    return sum(
        counts[m] / len(scores) * abs(sums_t[m] / counts[m] - sums_z[m] / counts[m])
        for m in range(n_bins)
        if counts[m]
    )


def loop_top_label(labels, probabilities, n_bins, strategy):
    """The confidence against 1{label = the first class of largest probability}."""
    confidence, correct = [], []
    for label, row in zip(labels, probabilities):
        row = list(row)
        predicted = row.index(max(row))
        confidence.append(row[predicted])
        correct.append(1.0 if label == predicted else 0.0)
    return loop_binary_ece(correct, confidence, n_bins, strategy)


def loop_classwise(labels, probabilities, n_bins, strategy):
    """The mean over the classes of class k's probability against 1{label = k}."""
    n_classes = len(probabilities[0])
    return (
        sum(
            loop_binary_ece(
                [1.0 if label == k else 0.0 for label in labels],
                [row[k] for row in probabilities],
                n_bins,
                strategy,
            )
            for k in range(n_classes)
        )
        / n_classes
    )


def _predictions(n=600, n_classes=4, seed=0):
    """Dirichlet probabilities, labels drawn from a sharpened version of them (overconfident
    predictions), some probabilities rounded so that ties and bin edges occur."""
    rng = np.random.default_rng(seed)
    probabilities = rng.dirichlet(np.full(n_classes, 0.7), n)
    probabilities[: n // 5] = np.round(probabilities[: n // 5], 1)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    truth = probabilities**0.6 / (probabilities**0.6).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(n_classes, p=row) for row in truth])
    return labels, probabilities


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [5, 10, "auto"])
def test_both_kinds_equal_a_loop_reference(strategy, n_bins):
    labels, probabilities = _predictions()
    bins = round(len(labels) ** (1 / 3)) if n_bins == "auto" else n_bins
    rows = probabilities.tolist()
    for kind, reference in (("top_label", loop_top_label), ("classwise", loop_classwise)):
        ece = bc.expected_calibration_error(
            labels, probabilities, n_bins=n_bins, strategy=strategy, kind=kind
        )
        assert ece == pytest.approx(reference(labels, rows, bins, strategy), abs=1e-12)


def test_a_hand_computed_example_of_each_kind():
    """Two equal-width bins.  Top-label: confidences 0.7, 0.6, 0.6, 0.8, all in [0.5, 1], three
    of four right: |0.75 - 0.675| = 0.075.  Classwise: class 0 has residual sums -0.3 and -0.3
    in its two bins, class 1 +0.3 and +0.2, class 2 -0.3 and +0.4, over 4 items: ECEs 0.15,
    0.125 and 0.175, mean 0.15."""
    top = bc.expected_calibration_error(HAND_LABELS, HAND_PROBABILITIES, n_bins=2)
    classwise = bc.expected_calibration_error(
        HAND_LABELS, HAND_PROBABILITIES, n_bins=2, kind="classwise"
    )
    assert top == pytest.approx(0.075, abs=1e-15)
    assert classwise == pytest.approx(0.15, abs=1e-15)


def test_top_label_is_the_default_for_a_matrix_and_ties_go_to_the_first_class():
    """Probabilities (0.4, 0.4, 0.2) predict class 0, so label 1 is a miss: confidence 0.4
    against 0 in the one bin, ECE 0.4; label 0 would be a hit, ECE 0.6."""
    tied = [[0.4, 0.4, 0.2]]
    assert bc.expected_calibration_error([1], tied, n_bins=1) == pytest.approx(0.4)
    assert bc.expected_calibration_error([0], tied, n_bins=1) == pytest.approx(0.6)
    labels, probabilities = _predictions(seed=1)
    assert bc.expected_calibration_error(labels, probabilities) == (
        bc.expected_calibration_error(labels, probabilities, kind="top_label")
    )


def test_a_vector_with_a_kind_is_the_two_classes_and_without_one_the_binary_ece():
    rng = np.random.default_rng(2)
    p = rng.random(300)
    y = (rng.random(300) < p**1.3).astype(int)
    two = np.column_stack([1 - p, p])
    for kind in ("top_label", "classwise"):
        assert bc.expected_calibration_error(y, p, kind=kind) == (
            bc.expected_calibration_error(y, two, kind=kind)
        )
    confidence = np.maximum(p, 1 - p)
    correct = (y == (p > 0.5)).astype(int)
    assert bc.expected_calibration_error(y, p, kind="top_label") == pytest.approx(
        bc.expected_calibration_error(correct, confidence), abs=1e-15
    )
    assert bc.expected_calibration_error(y, p) == pytest.approx(
        loop_binary_ece(y, p, 10, "uniform")
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_the_reliability_curves_are_those_of_the_binary_problems(strategy):
    labels, probabilities = _predictions(seed=3)
    top = reliability_curve(labels, probabilities, strategy=strategy, kind="top_label")
    predicted = probabilities.argmax(axis=1)
    alone = reliability_curve(
        (labels == predicted).astype(int), probabilities.max(axis=1), strategy=strategy
    )
    for field in ("edges", "counts", "mean_predicted", "mean_target"):
        np.testing.assert_array_equal(getattr(top, field), getattr(alone, field))
    classwise = reliability_curve(labels, probabilities, strategy=strategy, kind="classwise")
    assert isinstance(classwise, ClasswiseReliability) and classwise.n_classes == 4
    eces = []
    for k, curve in enumerate(classwise.curves):
        own = reliability_curve((labels == k).astype(int), probabilities[:, k], strategy=strategy)
        np.testing.assert_array_equal(curve.mean_target, own.mean_target)
        shown = curve.nonempty
        gaps = curve.mean_target[shown] - curve.mean_predicted[shown]
        eces.append(np.sum(curve.counts[shown] / len(labels) * np.abs(gaps)))
    assert np.mean(eces) == pytest.approx(
        bc.expected_calibration_error(labels, probabilities, strategy=strategy, kind="classwise")
    )


def test_normalize_divides_each_row_by_its_sum():
    """(Without probabilities on bin edges, where the division's round-off may move one.)"""
    rng = np.random.default_rng(4)
    probabilities = rng.dirichlet(np.ones(3), 500)
    labels = rng.integers(0, 3, 500)
    scaled = probabilities * np.linspace(0.5, 2.0, len(labels))[:, None]
    for kind in ("top_label", "classwise"):
        assert bc.expected_calibration_error(
            labels, scaled, kind=kind, normalize=True
        ) == pytest.approx(
            bc.expected_calibration_error(labels, probabilities, kind=kind), abs=1e-12
        )


@pytest.mark.parametrize(
    "y_true, y_prob, options, error, message",
    [
        (
            [0, 1],
            [[1.0], [1.0]],
            {},
            ValueError,
            r"y_prob must be an \(n_items, n_classes\) matrix .* two classes; saw shape \(2, 1\)",
        ),
        (
            [0, 1],
            [[0.5, 0.6], [0.2, 0.8]],
            {},
            ValueError,
            r"y_prob must have rows summing to 1 \(within 1e-06\); row 0 sums to 1.1 .* pass normalize=True",
        ),
        (
            [0, 1],
            [[0.0, 0.0], [0.2, 0.8]],
            {"normalize": True},
            ValueError,
            r"y_prob cannot be normalized: row 0 sums to 0.0",
        ),
        (
            [0, 1],
            [[0.5, 0.5], [0.2, 0.8]],
            {"normalize": "yes"},
            TypeError,
            r"normalize must be True or False; saw 'yes'",
        ),
        (
            [0, 1],
            [[-0.5, 1.5], [0.2, 0.8]],
            {},
            ValueError,
            r"y_prob must lie in \[0, 1\]; saw -0.5 at row 0, column 0",
        ),
        ([0, 1], [[np.nan, 0.5], [0.2, 0.8]], {}, ValueError, r"y_prob must be finite; saw nan"),
        (
            [0, 2],
            [[0.5, 0.5], [0.2, 0.8]],
            {},
            ValueError,
            r"y_true must hold class indices 0 to 1 \(one per column of the probabilities\); saw 2 at position 1",
        ),
        (
            [0, 0.5],
            [[0.5, 0.5], [0.2, 0.8]],
            {},
            ValueError,
            r"y_true must hold class indices 0 to 1 .* saw 0.5",
        ),
        (
            [0],
            [[0.5, 0.5], [0.2, 0.8]],
            {},
            ValueError,
            r"y_true and y_prob must have the same number of items; saw 1 and 2",
        ),
        (
            [0, 1],
            [[0.5, 0.5], [0.2, 0.8]],
            {"kind": "macro"},
            ValueError,
            r"kind must be one of .*'top_label'.*'classwise'.*saw 'macro'",
        ),
        (
            [0, 1],
            [0.5, 0.2],
            {"normalize": True},
            ValueError,
            r"normalize divides the rows of a matrix of class probabilities; y_prob is a vector",
        ),
        (
            [0, 1],
            [[0.5, 0.5], [0.2, 0.8]],
            {"strategy": "equal"},
            ValueError,
            r"strategy must be one of",
        ),
    ],
)
def test_bad_multiclass_input_is_refused_naming_the_argument(
    y_true, y_prob, options, error, message
):
    options = {"kind": "top_label"} | options
    with pytest.raises(error, match=message):
        bc.expected_calibration_error(y_true, y_prob, n_bins=1, **options)
    with pytest.raises(error, match=message):
        reliability_curve(y_true, y_prob, n_bins=1, **options)


def test_a_two_column_matrix_needs_a_kind_and_ragged_input_is_named():
    """``predict_proba``'s (n, 2) output: its binary ECE (second column) and its top-label
    ECE differ, so without ``kind`` neither is guessed."""
    rng = np.random.default_rng(6)
    p = rng.random(400)
    y = (rng.random(400) < p).astype(int)
    two = np.column_stack([1 - p, p])
    with pytest.raises(
        ValueError, match=r"y_prob has two columns: pass y_prob\[:, 1\] for the binary ECE"
    ):
        bc.expected_calibration_error(y, two)
    assert bc.expected_calibration_error(y, two, kind="top_label") != pytest.approx(
        bc.expected_calibration_error(y, p)
    )
    with pytest.raises(TypeError, match=r"y_prob must be an array of numbers"):
        bc.expected_calibration_error([0, 1], [[0.5], [0.2, 0.8]])


def test_the_votes_of_multiclass_labels_split_a_tie_equally():
    from bayescal.metrics.classes import vote_targets

    annotations = np.array([[0, 0, 2], [1, 2, -1], [2, -1, -1]])
    votes = vote_targets(annotations, 3)
    np.testing.assert_allclose(votes.soft_vote, [[2 / 3, 0, 1 / 3], [0, 0.5, 0.5], [0, 0, 1]])
    np.testing.assert_allclose(votes.majority_vote, [[1, 0, 0], [0, 0.5, 0.5], [0, 0, 1]])
    with pytest.raises(ValueError, match=r"every item needs a label for a vote; item 1 has none"):
        vote_targets(np.array([[0, 1], [-1, -1]]), 3)


def test_the_votes_name_a_bad_input():
    from bayescal.metrics.classes import vote_targets

    with pytest.raises(ValueError, match=r"annotations must hold class codes 0 to 2"):
        vote_targets(np.array([[0, 3]]), 3)
    with pytest.raises((TypeError, ValueError), match=r"n_classes"):
        vote_targets(np.array([[0, 1]]), 1)
