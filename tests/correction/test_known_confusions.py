"""Corrected one-hot labels of multi-class annotators and the noise-corrected top-label and
classwise ECE (bayescal.correction.known_confusions): the binary correction at C = 2, unbiasedness and
the IV rule by simulation (fixed seeds, tolerances stated), the conditioning rule, bad input."""

import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.correction.known_confusions import (
    MAX_CONDITION,
    corrected_one_hot_labels,
    noise_corrected_class_ece,
)
from bayescal.exceptions import ChannelWarning
from tests.helpers import GRADED_CONFUSION, binary_confusion, simulate_class_annotations

A = np.array([0.1, 0.15, 0.2, 0.05])
B = np.array([0.75, 0.85, 0.9, 0.7])


@pytest.mark.parametrize("weights", ["iv", "equal", [1.0, 2.0, 0.5, 1.0]])
@pytest.mark.parametrize("prevalence", [None, 0.3])
def test_at_two_classes_it_is_the_binary_correction(weights, prevalence):
    """Class 1's coordinate equals corrected_labels to 1e-12, with missing labels, for every
    rule, with the plug-in prevalence and a given one."""
    confusion = binary_confusion(A, B)
    _, codes = simulate_class_annotations(confusion, 3000, [0.6, 0.4], seed=1, missing=0.4)
    binary = bc.correction.corrected_labels(
        codes, bc.Channels(A, B), weights=weights, prevalence=prevalence
    )
    one_hot = corrected_one_hot_labels(
        codes,
        confusion,
        weights=weights,
        prevalence=None if prevalence is None else [1 - prevalence, prevalence],
    )
    np.testing.assert_allclose(one_hot[:, 1], binary, atol=1e-12)
    np.testing.assert_allclose(one_hot.sum(axis=1), 1.0, atol=1e-12)


def test_the_corrected_labels_are_unbiased_for_every_class_and_rule():
    """200 000 items, a third of the labels missing: each class's mean corrected one-hot label
    is its one-hot vector within 4 standard errors (seed 2)."""
    labels, codes = simulate_class_annotations(
        GRADED_CONFUSION, 200_000, [0.5, 0.3, 0.2], seed=2, missing=0.33
    )
    for weights in ("iv", "equal"):
        corrected = corrected_one_hot_labels(codes, GRADED_CONFUSION, weights=weights)
        for y in range(3):
            rows = corrected[labels == y]
            error = rows.std(axis=0) / np.sqrt(len(rows))
            assert np.all(np.abs(rows.mean(axis=0) - np.eye(3)[y]) < 4 * error + 1e-12)


def test_the_iv_rule_keeps_a_judge_who_confuses_adjacent_grades_on_the_others():
    """The second judge never mistakes class 0, so the IV combination's class-0 coordinate is
    exact (every other judge's weight there is 0) although that judge confuses 1 and 2; equal
    weights leave it noisy.  Over all classes IV has less noise (40 000 items, seed 3)."""
    labels, codes = simulate_class_annotations(GRADED_CONFUSION, 40_000, [0.5, 0.3, 0.2], seed=3)
    truth = np.eye(3)[labels]
    iv = corrected_one_hot_labels(codes, GRADED_CONFUSION) - truth
    equal = corrected_one_hot_labels(codes, GRADED_CONFUSION, weights="equal") - truth
    assert np.abs(iv[:, 0]).max() < 1e-6
    assert np.var(equal[:, 0]) > 0.05
    assert (iv**2).sum(axis=1).mean() < 0.8 * (equal**2).sum(axis=1).mean()


@pytest.mark.parametrize("weights", ["iv", "equal", [1.0, 2.0, 0.5, 1.0]])
@pytest.mark.parametrize("given_prevalence", [True, False])
def test_draws_corrected_at_once_equal_each_draw_corrected_alone(weights, given_prevalence):
    """A posterior's draws (leading axes of the matrices and proportions) are corrected in one
    pass of array operations; each equals the draw's own correction to 1e-12, with an
    unusable annotator, missing labels, and more items than one pass of the combination holds
    (COMBINE_VALUES lowered to 500 values)."""
    from bayescal.correction import known_confusions

    rng = np.random.default_rng(5)
    # the three graded judges and a fourth who answers at random (screened: its labels missing)
    confusion = np.concatenate([GRADED_CONFUSION, np.full((1, 3, 3), 1 / 3)])
    draws = confusion + rng.uniform(0, 0.05, (6, 4, 3, 3))  # six draws
    draws /= draws.sum(axis=-1, keepdims=True)
    proportions = rng.dirichlet([5, 3, 2], 6) if given_prevalence else None
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 400, [0.5, 0.3, 0.2], 4, 0.4)
    codes = np.column_stack([codes, np.full(len(codes), -1)])
    usable = np.array([True, True, True, False])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(known_confusions, "COMBINE_VALUES", 500)
        at_once = known_confusions.screened_correction(
            codes, draws, usable, weights, proportions
        ).labels()
        alone = [
            known_confusions.screened_correction(
                codes, draws[s], usable, weights, None if proportions is None else proportions[s]
            ).labels()
            for s in range(6)
        ]
    assert at_once.shape == (6, len(codes), 3)
    np.testing.assert_allclose(at_once, np.stack(alone), rtol=0, atol=1e-12)


def test_the_given_class_covariances_are_those_of_every_answer_enumerated():
    """``Cov(U | Y = y)`` of each set of judges (all three, the first two, the last alone)
    equals the covariance over every combination of its judges' answers, weighted by
    ``prod_j T_j[y, a_j]``, to 1e-12, the sets computed two at a time (COMBINE_VALUES lowered
    to 2 x 27 x 3 values); the mean is ``e_y``."""
    import itertools

    from bayescal.correction import known_confusions

    answers = np.array(list(itertools.product(range(3), repeat=3)))  # every answer of 3 judges
    pairs = np.array(list(itertools.product(range(3), range(3), [-1])))  # the first two only
    alone = np.column_stack([np.full((3, 2), -1), np.arange(3)])  # the last judge alone
    codes = np.concatenate([answers, pairs, alone])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(known_confusions, "COMBINE_VALUES", 2 * 27 * 3)
        correction = known_confusions.correction_of(
            codes, GRADED_CONFUSION, "iv", [0.5, 0.3, 0.2], ["a", "b", "c"], True
        )
        covariances, group = correction.given_class_covariances()
    labels = correction.labels()
    assert np.unique(group).size == 3
    for rows in (np.arange(27), np.arange(27, 36), np.arange(36, 39)):
        assert np.unique(group[rows]).size == 1
        judges = np.flatnonzero(codes[rows[0]] != -1)
        for y in range(3):
            chance = np.prod(
                [GRADED_CONFUSION[j, y, codes[rows, j]] for j in judges], axis=0
            )  # P(the row's answers | Y = y)
            np.testing.assert_allclose(chance.sum(), 1.0, atol=1e-12)
            mean = chance @ labels[rows]
            np.testing.assert_allclose(mean, np.eye(3)[y], atol=1e-12)
            centred = labels[rows] - mean
            enumerated = (chance[:, None, None] * centred[:, :, None] * centred[:, None, :]).sum(0)
            np.testing.assert_allclose(covariances[group[rows[0]], y], enumerated, atol=1e-12)


def test_a_correction_without_a_labelled_item_is_empty_not_an_error():
    """Every label from an unusable judge: no item is left (a cross-fitting fold can be so);
    the labels and the covariances are empty, and the caller says what was lost."""
    from bayescal.correction.known_confusions import screened_correction

    codes = np.full((4, 2), -1)  # the unusable judge's labels, screened out
    confusion = np.stack([GRADED_CONFUSION[0], np.full((3, 3), 1 / 3)])
    correction = screened_correction(
        codes, confusion, np.array([True, False]), "iv", np.array([0.5, 0.3, 0.2])
    )
    assert correction.labels().shape == (0, 3)
    covariances, group = correction.given_class_covariances()
    assert covariances.shape == (0, 3, 3, 3) and group.size == 0


def test_an_ill_conditioned_judge_gets_weight_zero_and_one_warning():
    singular = np.concatenate([GRADED_CONFUSION, np.full((1, 3, 3), 1 / 3)])
    _, codes = simulate_class_annotations(singular, 500, [0.5, 0.3, 0.2], seed=4)
    with pytest.warns(
        ChannelWarning,
        match=r"annotator 3 has a confusion matrix with a condition number above 10000",
    ) as caught:
        kept = corrected_one_hot_labels(codes, singular)
    assert len(caught) == 1
    np.testing.assert_allclose(
        kept, corrected_one_hot_labels(codes[:, :3], GRADED_CONFUSION), atol=1e-12
    )
    alone = codes.copy()
    alone[0, :3] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        with pytest.raises(
            ValueError, match=r"1 item\(s\) .* labelled only by the uninformative annotator\(s\) 3"
        ):
            corrected_one_hot_labels(alone, singular)
    assert MAX_CONDITION == pytest.approx(1 / bc.channels.MIN_GAP)


def _predictions(labels, n_classes, seed):
    """Overconfident class probabilities for ``labels``."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(labels.size, n_classes)) + 1.5 * np.eye(n_classes)[labels]
    probabilities = np.exp(2 * logits)
    return probabilities / probabilities.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("kind", ["top_label", "classwise"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_perfect_judges_give_the_clean_ece(kind, strategy):
    labels, _ = simulate_class_annotations(GRADED_CONFUSION, 2000, [0.5, 0.3, 0.2], seed=5)
    probabilities = _predictions(labels, 3, seed=5)
    perfect = np.eye(3)[None].repeat(2, axis=0)
    nc = noise_corrected_class_ece(
        probabilities, np.column_stack([labels, labels]), perfect, kind=kind, strategy=strategy
    )
    clean = bc.expected_calibration_error(labels, probabilities, kind=kind, strategy=strategy)
    assert nc == pytest.approx(clean, abs=1e-12)


def test_at_two_classes_classwise_nc_ece_is_the_binary_nc_ece():
    """Classwise NC-ECE is the mean of class 1's and class 0's; with continuous scores class 0's
    bins mirror class 1's, so it is the binary NC-ECE (to 1e-12)."""
    confusion = binary_confusion(A, B)
    labels, codes = simulate_class_annotations(confusion, 4000, [0.6, 0.4], seed=6, missing=0.3)
    scores = np.clip(0.3 + 0.4 * labels + np.random.default_rng(6).normal(0, 0.2, 4000), 0, 1)
    data = bc.AnnotatedScores(scores, codes)
    binary = bc.noise_corrected_ece(data, bc.Channels(A, B))
    classwise = noise_corrected_class_ece(
        np.column_stack([1 - scores, scores]), codes, confusion, kind="classwise"
    )
    assert classwise == pytest.approx(binary, abs=1e-12)


def test_nc_ece_with_noisy_judges_is_near_the_clean_ece():
    """200 000 items, three noisy judges: the corrected top-label and classwise ECEs are within
    0.005 of the clean ones, where the ECE against one judge's labels is far off (seed 7)."""
    labels, codes = simulate_class_annotations(GRADED_CONFUSION, 200_000, [0.5, 0.3, 0.2], seed=7)
    probabilities = _predictions(labels, 3, seed=7)
    for kind in ("top_label", "classwise"):
        clean = bc.expected_calibration_error(labels, probabilities, kind=kind)
        corrected = noise_corrected_class_ece(probabilities, codes, GRADED_CONFUSION, kind=kind)
        naive = bc.expected_calibration_error(codes[:, 2], probabilities, kind=kind)
        assert abs(corrected - clean) < 0.005
        assert abs(naive - clean) > 0.05


@pytest.mark.parametrize(
    "change, error, message",
    [
        (
            {"confusion": np.ones((3, 3))},
            ValueError,
            r"confusion must be \(n_annotators, n_classes, n_classes\) confusion matrices",
        ),
        (
            {"confusion": GRADED_CONFUSION * 1.1},
            ValueError,
            r"confusion must hold probabilities in \[0, 1\]; saw 1.1 at annotator 1, row 0, column 0",
        ),
        (
            {"confusion": GRADED_CONFUSION * 0.9},
            ValueError,
            r"confusion must have rows P\(A_j = . \| Y = y\) summing to 1 \(within 1e-06\); annotator 0, row 0 sums to 0.9",
        ),
        (
            {"confusion": GRADED_CONFUSION[:2]},
            ValueError,
            r"confusion must hold one matrix per annotator column \(3\); saw 2",
        ),
        (
            {"annotations": [[0, 1, 3]]},
            ValueError,
            r"annotations must hold class codes 0 to 2, or -1 for missing; saw 3 at row 0, column 2",
        ),
        (
            {"annotations": [[0, 1, 0.5]]},
            ValueError,
            r"annotations must hold class codes .* saw 0.5",
        ),
        (
            {"annotations": [[0, 1, 2], [-1, -1, -1]]},
            ValueError,
            r"annotations has 1 item\(s\) with no observed annotation",
        ),
        ({"weights": "gap"}, ValueError, r"weights must be one of 'iv', 'equal'; saw 'gap'"),
        (
            {"weights": [1.0, 1.0]},
            ValueError,
            r"weights must have one entry per annotator \(3\); saw 2",
        ),
        (
            {"prevalence": [0.5, 0.5]},
            ValueError,
            r"prevalence must be 3 class proportions summing to 1",
        ),
        ({"prevalence": [0.5, 0.6, -0.1]}, ValueError, r"prevalence must lie in \[0, 1\]"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(change, error, message):
    arguments = {"annotations": [[0, 1, 2], [1, 1, 2]], "confusion": GRADED_CONFUSION} | change
    annotations, confusion = arguments.pop("annotations"), arguments.pop("confusion")
    with pytest.raises(error, match=message):
        corrected_one_hot_labels(annotations, confusion, **arguments)


def test_the_nc_ece_refuses_probabilities_that_do_not_fit():
    codes = [[0, 1, 2], [1, 1, 2]]
    with pytest.raises(
        ValueError,
        match=r"probabilities must have one column per class of the confusion matrices \(3\); saw 2",
    ):
        noise_corrected_class_ece([[0.5, 0.5], [0.2, 0.8]], codes, GRADED_CONFUSION, n_bins=1)
    with pytest.raises(
        ValueError,
        match=r"probabilities and annotations must have the same number of items; saw 1 and 2",
    ):
        noise_corrected_class_ece([[0.5, 0.25, 0.25]], codes, GRADED_CONFUSION, n_bins=1)
    with pytest.raises(ValueError, match=r"kind must be one of"):
        noise_corrected_class_ece([[0.5, 0.25, 0.25]] * 2, codes, GRADED_CONFUSION, kind="max")


def test_a_matrix_whose_best_diagonal_is_another_class_order_is_corrected_and_said():
    """Rows swapped (classes 1 and 2 of the first judge): one warning naming it; the
    correction inverts the matrix as given, so the labels stay unbiased for the judge it
    describes (an adversarial one)."""
    swapped = GRADED_CONFUSION.copy()
    swapped[0] = swapped[0][:, [0, 2, 1]]
    labels, codes = simulate_class_annotations(swapped, 100_000, [0.5, 0.3, 0.2], seed=8)
    with pytest.warns(
        ChannelWarning,
        match=r"annotator 0 has a confusion matrix whose largest diagonal is another ordering",
    ) as caught:
        corrected = corrected_one_hot_labels(codes, swapped)
    assert len(caught) == 1
    for y in range(3):
        np.testing.assert_allclose(corrected[labels == y].mean(axis=0), np.eye(3)[y], atol=0.03)


def test_explicit_weights_that_give_an_item_nothing_are_refused():
    with pytest.raises(
        ValueError,
        match=r"weights give zero total weight to the annotators \[0\] that label some item",
    ):
        corrected_one_hot_labels(
            [[0, -1, -1], [1, 1, 2]], GRADED_CONFUSION, weights=[0.0, 1.0, 1.0]
        )


@pytest.mark.parametrize(
    "probabilities, message",
    [
        ([[np.nan, 0.5, 0.5], [0.2, 0.3, 0.5]], r"probabilities must be finite; saw nan"),
        (
            [[0.5, 0.6, 0.5], [0.2, 0.3, 0.5]],
            r"probabilities must have rows summing to 1 \(within 1e-06\); row 0 sums to 1.6",
        ),
    ],
)
def test_the_nc_ece_refuses_bad_probabilities(probabilities, message):
    with pytest.raises(ValueError, match=message):
        noise_corrected_class_ece(probabilities, [[0, 1, 2], [1, 1, 2]], GRADED_CONFUSION, n_bins=1)
