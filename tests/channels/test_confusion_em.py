"""Multi-class Dawid–Skene EM (bayescal.channels.confusion_em): the binary EM at two classes,
recovery by simulation (fixed seeds, stated tolerances), orientation, smoothing, bad input."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

import bayescal as bc
from bayescal.channels.confusion_em import by_distance, confusion_em, orient
from bayescal.exceptions import ConvergenceWarning
from tests.helpers import GRADED_CONFUSION, binary_confusion, simulate_class_annotations

A = np.array([0.1, 0.15, 0.2, 0.05])
B = np.array([0.75, 0.85, 0.9, 0.7])


def test_at_two_classes_it_is_dawid_skene_em():
    """The same maximum likelihood to 1e-6, with 30% of the labels missing (tol 1e-13 for
    both; measured 1.5e-8)."""
    _, codes = simulate_class_annotations(
        binary_confusion(A, B), 5000, [0.6, 0.4], seed=1, missing=0.3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.exceptions.SaturatedModelWarning)
        binary = bc.dawid_skene_em(bc.AnnotatedScores(np.full(5000, 0.5), codes), tol=1e-13)
    estimate = confusion_em(codes, 2, tol=1e-13)
    np.testing.assert_allclose(estimate.confusion[:, 0, 1], binary.channels.a, atol=1e-6)
    np.testing.assert_allclose(estimate.confusion[:, 1, 1], binary.channels.b, atol=1e-6)
    assert estimate.prevalence[1] == pytest.approx(binary.prevalence, abs=1e-6)
    assert estimate.converged


def test_three_classes_are_recovered():
    """100 000 items, three judges, 20% of labels missing: every confusion cell within 0.02
    of the truth and the class proportions within 0.01 (seed 2)."""
    _, codes = simulate_class_annotations(
        GRADED_CONFUSION, 100_000, [0.5, 0.3, 0.2], seed=2, missing=0.2
    )
    estimate = confusion_em(codes, 3)
    np.testing.assert_allclose(estimate.confusion, GRADED_CONFUSION, atol=0.02)
    np.testing.assert_allclose(estimate.prevalence, [0.5, 0.3, 0.2], atol=0.01)
    np.testing.assert_allclose(estimate.confusion.sum(axis=2), 1.0, atol=1e-12)


def test_a_relabelled_estimate_is_oriented_back():
    """Orientation maximises the label-weighted diagonal, so any permutation of the latent
    classes of diagonally dominant judges is undone."""
    order = np.array([2, 0, 1])
    confusion, prevalence = orient(
        GRADED_CONFUSION[:, order, :],
        np.array([0.5, 0.3, 0.2])[order],
        np.array([10.0, 10.0, 10.0]),
    )
    np.testing.assert_array_equal(confusion, GRADED_CONFUSION)
    np.testing.assert_array_equal(prevalence, [0.5, 0.3, 0.2])


def test_smoothing_keeps_an_unseen_answer_away_from_zero():
    """The third judge never answers class 2: its column 2 is 0 by maximum likelihood, and
    positive with a Dirichlet alpha of 2 (EM takes about 1 250 iterations here: the second
    judge confuses classes 1 and 2)."""
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 3000, [0.5, 0.3, 0.2], seed=3)
    codes[:, 2] = np.where(codes[:, 2] == 2, 1, codes[:, 2])
    plain = confusion_em(codes, 3, n_starts=3, max_iter=5000)
    smoothed = confusion_em(codes, 3, n_starts=3, smoothing=2.0, max_iter=5000)
    assert plain.confusion[2, :, 2].max() < 1e-6
    assert smoothed.confusion[2, :, 2].min() > 1e-4


def test_the_one_coin_model_recovers_its_coins_and_stays_symmetric():
    """Four classes, three one-coin judges (p = 0.8, 0.65, 0.9), 20 000 items, 20% of labels
    missing: every cell within 0.01 of the truth (measured 0.005; the full model, with 36
    free cells, 0.03), each row one coin (seed 5)."""
    coins = np.array([0.8, 0.65, 0.9])
    eye = np.eye(4)
    truth = coins[:, None, None] * eye + ((1 - coins) / 3)[:, None, None] * (1 - eye)
    _, codes = simulate_class_annotations(truth, 20_000, [0.4, 0.3, 0.2, 0.1], seed=5, missing=0.2)
    estimate = confusion_em(codes, 4, structure="one_coin")
    np.testing.assert_allclose(estimate.confusion, truth, atol=0.01)
    off = estimate.confusion[:, ~eye.astype(bool)]
    np.testing.assert_allclose(off, off[:, :1].repeat(off.shape[1], axis=1), atol=1e-15)


def _by_distance_truth(log_odds) -> np.ndarray:
    """Confusion matrices (K, C, C) with ``T[y, k]`` proportional to ``exp(log_odds[|y - k|])``
    (``log_odds`` (K, C - 1), the own class at 0), written out from the definition."""
    log_odds = np.asarray(log_odds, dtype=float)
    n_classes = log_odds.shape[1] + 1
    truth = np.empty((log_odds.shape[0], n_classes, n_classes))
    for j, odds in enumerate(log_odds):
        for y in range(n_classes):
            row = [1.0 if k == y else np.exp(odds[abs(y - k) - 1]) for k in range(n_classes)]
            truth[j, y] = np.array(row) / sum(row)
    return truth


def test_the_by_distance_model_recovers_a_graded_panel_better_than_the_full_one():
    """Five grades, three judges whose odds of a wrong grade fall with its distance, 20 000
    items: every cell within 0.015 of the truth (measured 0.009; the full model, 60 free
    cells, 0.055), and each fitted row keeps the form: equal odds at equal distance (seed 1)."""
    truth = _by_distance_truth([[-1, -2.5, -4, -5], [-0.5, -2, -3, -6], [-1.5, -2, -2.5, -3]])
    _, codes = simulate_class_annotations(truth, 20_000, np.full(5, 0.2), seed=1)
    estimate = confusion_em(codes, 5, structure="by_distance")
    full = confusion_em(codes, 5)
    assert np.abs(estimate.confusion - truth).max() < 0.015
    assert np.abs(full.confusion - truth).max() > 2 * np.abs(estimate.confusion - truth).max()
    odds = np.log(estimate.confusion / np.diagonal(estimate.confusion, axis1=1, axis2=2)[..., None])
    np.testing.assert_allclose(odds[:, 0, 1], odds[:, 2, 3], atol=1e-9)  # distance 1
    np.testing.assert_allclose(odds[:, 4, 2], odds[:, 1, 3], atol=1e-9)  # distance 2
    # the M-step on exact by-distance cells returns them
    np.testing.assert_allclose(by_distance(1000 * truth), truth, atol=1e-12)


def test_a_distance_never_answered_goes_to_zero_and_the_newton_steps_stop():
    """Cells that never reach distance 3 or 4: those odds go to the clip (probability
    ~e^-30), the others keep their maximum likelihood, and the Newton loop stops early."""
    truth = _by_distance_truth([[-1.0, -2.5, -4.0, -5.0]])
    cells = 1000 * truth
    classes = np.arange(5)
    cells[:, np.abs(classes[:, None] - classes[None, :]) >= 3] = 0.0
    short = by_distance(cells, n_newton=15)
    assert short[0, 0, 4] < 1e-12 and short[0, 4, 0] < 1e-12
    np.testing.assert_allclose(short, by_distance(cells, n_newton=200), atol=1e-9)


def test_dawid_skene_em_fits_by_distance_only_on_an_ordinal_scale():
    truth = _by_distance_truth([[-1, -3], [-0.5, -2], [-1.5, -2.5]])
    _, codes = simulate_class_annotations(truth, 3000, [0.5, 0.3, 0.2], seed=2)
    probabilities = np.full((3000, 3), 1 / 3)
    grades = bc.AnnotatedScores(probabilities, codes, classes=["1", "2", "3"], ordinal=True)
    fit = bc.dawid_skene_em(grades, structure="by_distance")
    assert dict(fit.options) == {"structure": "by_distance"}
    np.testing.assert_allclose(
        fit.channels.confusion,
        confusion_em(codes, 3, structure="by_distance").confusion,
        atol=1e-12,
    )
    unordered = bc.AnnotatedScores(probabilities, codes, classes=["cat", "dog", "fox"])
    with pytest.raises(
        ValueError,
        match=r"^structure: 'by_distance' reads how far apart two classes are, which only an "
        r"ordinal scale says; .*saw unordered classes \['cat', 'dog', 'fox'\]$",
    ):
        bc.dawid_skene_em(unordered, structure="by_distance")
    binary = bc.AnnotatedScores(np.full(4, 0.5), [[0, 1, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match=r"^structure: sets the form of multi-class confusion"):
        bc.dawid_skene_em(binary, structure="one_coin")


def test_a_start_given_replaces_the_majority_vote_and_finds_the_same_maximum():
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 4000, [0.5, 0.3, 0.2], seed=6)
    searched = confusion_em(codes, 3)
    # the true matrices have cells at 0, which the start lifts so that EM can move them
    started = confusion_em(codes, 3, n_starts=1, init=(GRADED_CONFUSION, [0.5, 0.3, 0.2]))
    assert started.loglik == pytest.approx(searched.loglik, abs=1e-3)
    # within what the stopping rule leaves on this flat maximum
    np.testing.assert_allclose(started.confusion, searched.confusion, atol=0.005)
    assert started.n_iter < searched.n_iter  # the majority vote's start is farther
    # through dawid_skene_em, a ConfusionFit of the same annotators is a start too
    data = bc.AnnotatedScores(np.full((4000, 3), 1 / 3), codes)
    fit = bc.dawid_skene_em(data)
    refit = bc.dawid_skene_em(data, init=fit, n_starts=1)
    assert refit.loglik == pytest.approx(fit.loglik, abs=1e-3) and refit.n_iter < fit.n_iter
    renamed = replace(data, classes=("a", "b", "c"))
    with pytest.raises(ValueError, match=r"init: a fit of the classes \['0', '1', '2'\], and "):
        bc.dawid_skene_em(renamed, init=fit)
    with pytest.raises(TypeError, match=r"dawid_skene_em also takes the ConfusionFit of a multi"):
        bc.dawid_skene_em(data, init=fit.channels)


def test_a_fit_that_does_not_converge_says_so():
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 500, [0.5, 0.3, 0.2], seed=4)
    with pytest.warns(ConvergenceWarning, match=r"did not converge in 2 iterations"):
        estimate = confusion_em(codes, 3, max_iter=2, n_starts=1)
    assert not estimate.converged


@pytest.mark.parametrize(
    "annotations, options, error, message",
    [
        ([[0, 1, 2]], {"n_classes": 1}, ValueError, r"n_classes must be >= 2; saw 1"),
        (
            [[0, 1, 3]],
            {},
            ValueError,
            r"annotations must hold class codes 0 to 2, or -1 for missing; saw 3",
        ),
        (
            [[0, 1, 2], [-1, -1, -1]],
            {},
            ValueError,
            r"annotations has 1 item\(s\) with no observed annotation",
        ),
        (
            [[0, 1, 2]],
            {"smoothing": 0.5},
            ValueError,
            r"smoothing must be a Dirichlet alpha >= 1 \(1: no smoothing\); saw 0.5",
        ),
        ([[0, 1, 2]], {"smoothing": np.nan}, ValueError, r"smoothing must be finite"),
        ([[0, 1, 2]], {"n_starts": 0}, ValueError, r"n_starts must be >= 1; saw 0"),
        ([[0, 1, 2]], {"max_iter": 0}, ValueError, r"max_iter must be >= 1; saw 0"),
        (
            [[0, 1], [1, 2]],
            {},
            bc.IdentificationError,
            r"annotations: 2 annotator\(s\) cannot identify their confusion matrices",
        ),
        ([[0, 1, 2]], {"seed": -1}, ValueError, r"seed must be >= 0; saw -1"),
        ([[0, 1, 2]], {"n_classes": 2.5}, TypeError, r"n_classes must be an integer"),
        (
            [[0, 1, 2]],
            {"structure": "two_coin"},
            ValueError,
            r"structure must be one of 'full', 'one_coin', 'by_distance'; saw 'two_coin'",
        ),
        ([[0, 1, 2]], {"tol": -1}, ValueError, r"tol must be a positive number; saw -1"),
        ([[0, 1, 2]], {"smoothing": "a"}, TypeError, r"smoothing must hold real numbers"),
        (
            [[0, 1, 2]],
            {"gold": [3]},
            ValueError,
            r"gold must hold class codes 0 to 2, or -1 for no gold label; saw 3",
        ),
        ([[0, 1, 2]], {"gold": [0, 1]}, ValueError, r"gold must be a 1-D array with one entry"),
        (
            [[0, 1], [1, 2]],
            {"gold": [0, 1]},
            bc.IdentificationError,
            r"gold of 2 of the 3 classes given\); add annotators or gold",
        ),
        ([[0, 1, 2]], {"init": np.eye(3)}, TypeError, r"init must be a tuple \(confusion"),
        (
            [[0, 1, 2]],
            {"init": (np.stack([np.eye(3)] * 2), np.full(3, 1 / 3))},
            ValueError,
            r"init must hold \(3, 3, 3\) matrices and 3 proportions summing to 1; saw "
            r"\(2, 3, 3\)",
        ),
        (
            [[0, 1, 2]],
            {"init": (np.stack([np.eye(3)] * 3), [0.5, 0.5, 0.5])},
            ValueError,
            r"proportions \[0.5, 0.5, 0.5\]",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_argument(annotations, options, error, message):
    with pytest.raises(error, match=message):
        confusion_em(annotations, **({"n_classes": 3} | options))
