"""The multi-class simulator (bayescal.simulate.classes)."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.simulate import graded_confusion, simulate_classes

JUDGES = np.stack([graded_confusion(4, 0.8), graded_confusion(4, 0.6, spread=10.0)])


def test_a_simulation_is_seeded_and_holds_what_a_user_observes():
    first = simulate_classes(2000, JUDGES, classes=["a", "b", "c", "d"], ordinal=True, seed=3)
    again = simulate_classes(2000, JUDGES, classes=["a", "b", "c", "d"], ordinal=True, seed=3)
    np.testing.assert_array_equal(first.data.annotations, again.data.annotations)
    np.testing.assert_array_equal(first.data.probabilities, again.data.probabilities)
    assert first.data.classes == ("a", "b", "c", "d") and first.data.ordinal
    assert first.data.annotations.shape == (2000, 2) and first.labels.shape == (2000,)


def test_the_judges_answer_with_their_confusion_matrices():
    simulation = simulate_classes(40_000, JUDGES, proportion=[0.4, 0.3, 0.2, 0.1], seed=1)
    labels, answers = simulation.labels, simulation.data.annotations
    for j in range(2):
        empirical = np.stack(
            [
                np.bincount(answers[labels == y, j], minlength=4) / (labels == y).sum()
                for y in range(4)
            ]
        )
        # 4 000 or more items per class: a cell's standard error is below 0.008
        np.testing.assert_allclose(empirical, JUDGES[j], atol=0.03)
    np.testing.assert_allclose(np.bincount(labels) / labels.size, [0.4, 0.3, 0.2, 0.1], atol=0.01)


def test_the_population_ece_is_zero_for_a_calibrated_classifier_and_matches_a_large_sample():
    calibrated = simulate_classes(10, JUDGES, sharpness=1.0, seed=0)
    for kind in ("top_label", "classwise"):
        assert calibrated.population_ece(kind=kind, n_draws=1_000_000) < 0.002
    sharp = simulate_classes(200_000, JUDGES, sharpness=2.0, seed=0)
    for kind in ("top_label", "classwise"):
        population = sharp.population_ece(kind=kind, n_draws=1_000_000)
        sample = bc.expected_calibration_error(sharp.labels, sharp.data.probabilities, kind=kind)
        assert population > 0.03
        # 200 000 items: the sample's binned ECE is within a few thousandths of the population's
        assert abs(sample - population) < 0.005, (kind, sample, population)


def test_graded_judges_err_to_the_nearer_grades():
    matrix = graded_confusion(5, 0.7)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.diag(matrix), 0.7)
    assert matrix[0, 1] > matrix[0, 2] > matrix[0, 3] > matrix[0, 4]
    even = graded_confusion(5, 0.7, spread=1e6)
    np.testing.assert_allclose(even[0, 1:], 0.3 / 4, rtol=1e-5)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"proportion": [0.5, 0.5]}, "proportion must be 4 class proportions"),
        ({"proportion": [0.5, 0.5, 0.5, 0.5]}, "proportion must be 4 class proportions"),
        ({"sharpness": 0.0}, "sharpness must be a positive"),
        ({"sharpness": "2"}, "sharpness must be a positive"),
        ({"separation": float("inf")}, "separation must be a positive"),
        ({"n": 0}, "n must be"),
    ],
)
def test_simulate_classes_refuses_bad_inputs(arguments, message):
    options = {"n": 10, **arguments}
    with pytest.raises(ValueError, match=message):
        simulate_classes(options.pop("n"), JUDGES, **options)


def test_two_classes_are_refused_and_a_proportion_within_the_tolerance_is_taken():
    with pytest.raises(ValueError, match=r"three classes or more .*simulate_annotated"):
        simulate_classes(10, [graded_confusion(2, 0.8)])
    nearly = simulate_classes(100, JUDGES, proportion=[0.3, 0.3, 0.2, 0.2 + 5e-7], seed=1)
    assert nearly.proportion.sum() == pytest.approx(1.0, abs=1e-12)


def test_graded_confusion_refuses_bad_inputs():
    with pytest.raises(ValueError, match="spread must be a positive"):
        graded_confusion(3, 0.8, spread=0)
    with pytest.raises(ValueError, match="accuracy"):
        graded_confusion(3, 1.5)
    with pytest.raises(ValueError, match="n_classes"):
        graded_confusion(1, 0.8)
    with pytest.raises(ValueError, match="kind must be one of"):
        simulate_classes(10, JUDGES).population_ece(kind="macro")
