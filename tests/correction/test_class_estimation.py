"""Multi-class data through dawid_skene_em and nc_ece_estimate(kind=...) (issue 39, items 3, 4
and 6 on the data model)."""

import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.channels import ConfusionChannels, ConfusionFit
from bayescal.channels.confusion_em import confusion_em
from bayescal.correction.known_confusions import (
    corrected_one_hot_labels,
    noise_corrected_class_ece,
)
from tests.helpers import GRADED_CONFUSION, simulate_class_annotations

N = 20_000
PREVALENCE = np.array([0.3, 0.4, 0.3])
LABELS, CODES = simulate_class_annotations(GRADED_CONFUSION, N, PREVALENCE, 1)


def _overconfident(labels, seed):
    """Class probabilities that favour the true class, sharpened past calibration."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.0, (labels.size, 3))
    logits[np.arange(labels.size), labels] += 1.5
    probabilities = np.exp(2.0 * logits)
    return probabilities / probabilities.sum(axis=1, keepdims=True)


PROBABILITIES = _overconfident(LABELS, 0)
DATA = bc.AnnotatedScores(PROBABILITIES, CODES, classes=["lo", "mid", "hi"])


@pytest.fixture(scope="module")
def fit():
    return bc.dawid_skene_em(DATA, n_starts=3)


def test_dawid_skene_em_fits_confusion_matrices_of_multiclass_data(fit):
    assert isinstance(fit, ConfusionFit) and fit.ok and fit.converged
    assert fit.channels.confusion.shape == (3, 3, 3)
    assert fit.channels.names == DATA.annotator_names and fit.classes == ("lo", "mid", "hi")
    assert fit.options == (("n_starts", 3),)
    # the array-level EM with the same settings, to the last digit
    same = confusion_em(CODES, 3, n_starts=3)
    np.testing.assert_array_equal(fit.channels.confusion, same.confusion)
    np.testing.assert_array_equal(fit.prevalence, same.prevalence)
    # recovery at n = 20 000: within 0.06 of every cell (grades 1 and 2 are told apart by two
    # judges only; three seeds gave 0.016 to 0.059), 0.02 of the sample's class shares
    np.testing.assert_allclose(fit.channels.confusion, GRADED_CONFUSION, atol=0.06)
    np.testing.assert_allclose(fit.prevalence, np.bincount(LABELS) / N, atol=0.02)


def test_binary_settings_are_refused_for_multiclass_fits():
    with pytest.raises(ValueError, match=r"dawid_skene_em: anchor set\(s\) the binary model"):
        bc.dawid_skene_em(DATA, anchor=0)


GOLD = np.where(np.random.default_rng(9).random(N) < 0.05, LABELS, -1)  # 5% random gold


@pytest.mark.parametrize("fit_with", [bc.dawid_skene_em, bc.crowd_em])
def test_gold_of_every_class_identifies_two_judges(fit_with):
    """Two judges and 1 000 gold items: within 0.05 of every cell (0.027 seen); without gold
    of every class the fit is refused."""
    two = bc.AnnotatedScores(PROBABILITIES, CODES[:, :2], gold=GOLD)
    options = {"smoothing": None} if fit_with is bc.crowd_em else {}
    fit = fit_with(two, **options)
    np.testing.assert_allclose(fit.channels.confusion, GRADED_CONFUSION[:2], atol=0.05)
    partial = bc.AnnotatedScores(PROBABILITIES, CODES[:, :2], gold=np.where(GOLD == 2, -1, GOLD))
    with pytest.raises(bc.IdentificationError, match=r"gold of 2 of the 3 classes given"):
        fit_with(partial, **options)


def test_rectified_gold_keeps_nc_ece_right_when_a_judge_copies_another():
    """The third judge copies the first (the model's independence fails): the model-based
    estimate is more than 0.1 off the clean ECE, as NC-ECE without gold is, and the rectified
    one within 0.01 (0.0016 seen)."""
    copied = CODES.copy()
    copied[:, 2] = copied[:, 0]
    data = bc.AnnotatedScores(PROBABILITIES, copied, gold=GOLD)
    clean = bc.expected_calibration_error(LABELS, PROBABILITIES)
    rectified = bc.nc_ece_estimate(data).estimate
    model = bc.nc_ece_estimate(data, gold_estimator="model").estimate
    assert abs(rectified - clean) < 0.01
    assert abs(model - clean) > 0.1
    weighted = bc.AnnotatedScores(
        PROBABILITIES, copied, gold=GOLD, gold_weights=np.full(N, 0.05)
    )  # equal inclusion probabilities: the same estimate
    assert bc.nc_ece_estimate(weighted).estimate == pytest.approx(rectified, abs=0.003)


def test_a_crowd_too_large_for_the_dense_multiclass_em_is_refused(monkeypatch):
    monkeypatch.setattr("bayescal.channels.confusion_em.MAX_PATTERN_BYTES", 1000)
    with pytest.raises(ValueError, match=r"the dense multi-class EM would hold .* GiB"):
        bc.dawid_skene_em(DATA)


@pytest.mark.parametrize("kind", ["top_label", "classwise"])
def test_known_channels_give_the_array_level_nc_ece(kind):
    channels = ConfusionChannels(GRADED_CONFUSION, names=DATA.annotator_names)
    result = bc.nc_ece_estimate(DATA, estimator=channels, kind=kind)
    expected = noise_corrected_class_ece(PROBABILITIES, CODES, GRADED_CONFUSION, kind=kind)
    assert result.estimate == pytest.approx(expected, abs=1e-15)
    assert (result.fits, result.n_evaluated, result.kind) == ((), N, kind)
    if kind == "classwise":
        assert result.class_errors.shape == (3,)
        assert result.estimate == pytest.approx(result.class_errors.mean(), abs=1e-15)
    else:
        assert result.class_errors is None


def test_named_channels_meet_reordered_annotators_by_name():
    channels = ConfusionChannels(GRADED_CONFUSION, names=DATA.annotator_names)
    reordered = DATA.in_annotator_order(["a2", "a0", "a1"])
    assert bc.nc_ece_estimate(reordered, estimator=channels).estimate == pytest.approx(
        bc.nc_ece_estimate(DATA, estimator=channels).estimate, abs=1e-12
    )


@pytest.mark.parametrize(
    ("options", "error", "said"),
    [
        ({"kind": "macro"}, ValueError, r"kind must be one of"),
        (
            {"estimator": "grouped_em"},
            ValueError,
            r"estimator must be one of 'dawid_skene_em', 'crowd_em'; saw 'grouped_em'",
        ),
        ({"estimator": bc.Channels([0.1] * 3, [0.9] * 3)}, TypeError, r"estimator must be one of"),
        ({"n_bootstrap": 50}, ValueError, r"n_bootstrap .* multi-class data do not have yet"),
        (
            {"estimator": ConfusionChannels(GRADED_CONFUSION), "mode": "split"},
            ValueError,
            r"mode must be 'reuse' with known channels",
        ),
        (
            {"estimator": ConfusionChannels(GRADED_CONFUSION[:, :2, :2] * 0 + 0.5)},
            ValueError,
            r"channels have 2 classes and data 3",
        ),
        (
            {
                "estimator": ConfusionChannels(
                    GRADED_CONFUSION, names=DATA.annotator_names, classes=["a", "b", "c"]
                )
            },
            ValueError,
            r"channels name the classes \['a', 'b', 'c'\] and data \['lo', 'mid', 'hi'\]",
        ),
        (
            {"estimator": ConfusionChannels(GRADED_CONFUSION, names=["x", "y", "z"])},
            ValueError,
            r"data must have the annotators of the channels: \['x', 'y', 'z'\]",
        ),
    ],
)
def test_bad_multiclass_estimate_options_are_refused(options, error, said):
    with pytest.raises(error, match=said):
        bc.nc_ece_estimate(DATA, **options)


def test_bad_settings_are_refused_with_known_channels_too():
    channels = ConfusionChannels(GRADED_CONFUSION)
    with pytest.raises(ValueError, match=r"gold_estimator must be one of"):
        bc.nc_ece_estimate(DATA, estimator=channels, gold_estimator="mean")
    with pytest.raises(ValueError, match=r"level must lie strictly between 0 and 1; saw 7"):
        bc.nc_ece_estimate(DATA, estimator=channels, level=7)


def test_kind_is_refused_for_binary_data():
    binary = bc.simulate_annotated(500, bc.Channels([0.1] * 3, [0.8] * 3), seed=1).data
    with pytest.raises(ValueError, match=r"kind sets the multi-class ECE .* data are binary"):
        bc.nc_ece_estimate(binary, kind="classwise")


@pytest.mark.parametrize("kind", ["top_label", "classwise"])
def test_em_estimates_in_every_mode_are_near_the_clean_ece_and_far_from_one_judges(kind):
    """n = 20 000, three graded judges: NC-ECE lies within 0.015 of the ECE against the true
    labels in every mode (its upward bias from the absolute value included; mode "split"
    evaluates half the items), where ECE against the most accurate judge's labels is off by
    more than 0.08."""
    clean = bc.expected_calibration_error(LABELS, PROBABILITIES, kind=kind)
    judge = np.where(CODES[:, 0] < 0, 0, CODES[:, 0])
    assert abs(bc.expected_calibration_error(judge, PROBABILITIES, kind=kind) - clean) > 0.08
    for mode in ("reuse", "split", "crossfit"):
        result = bc.nc_ece_estimate(DATA, kind=kind, mode=mode, estimator_options={"n_starts": 2})
        assert abs(result.estimate - clean) < 0.015, (mode, result.estimate, clean)
        assert result.n_evaluated == (N // 2 if mode == "split" else N)
        assert len(result.fits) == (5 if mode == "crossfit" else 1)


@pytest.mark.parametrize("fit_with", [bc.dawid_skene_em, bc.crowd_em])
def test_a_class_no_label_names_is_refused_not_made_up(fit_with):
    """Labels of classes 0 and 1 only, three declared: the EM would return a phantom third
    class with rows and a proportion of its own."""
    two_classes = np.where(CODES == 2, 1, CODES)
    with pytest.raises(bc.IdentificationError, match=r"class code\(s\) \[2\] never appear"):
        fit_with(bc.AnnotatedScores(PROBABILITIES, two_classes))


def test_matrices_estimated_from_few_labels_per_cell_are_said_to_read_high():
    """A crowd of 40 workers, 3 labels on each of 2 000 items: 150 labels per worker for 25
    cells of a 5-class matrix (6 per cell): one ChannelWarning, with rectified gold too (it
    shrinks the bias, benchmarks/RESULTS.md); known matrices are not warned of."""
    judges = np.stack([bc.simulate.graded_confusion(5, a, spread=1e6) for a in [0.7] * 40])
    simulation = bc.simulate.simulate_classes(2000, judges, seed=3)
    rng = np.random.default_rng(4)
    chosen = np.argsort(rng.random((2000, 40)), axis=1)[:, :3]
    kept = np.zeros((2000, 40), bool)
    np.put_along_axis(kept, chosen, True, axis=1)
    crowd = bc.AnnotatedScores(
        simulation.data.probabilities, np.where(kept, simulation.data.annotations, -1)
    )
    with pytest.warns(bc.ChannelWarning, match=r"median of 6\.0 labels per cell .* reads high"):
        bc.nc_ece_estimate(crowd, estimator="crowd_em")
    known = ConfusionChannels(judges, names=crowd.annotator_names)
    bc.nc_ece_estimate(crowd, estimator=known)  # no warning (warnings are errors here)
    gold = np.where(rng.random(2000) < 0.2, simulation.labels, -1)
    with_gold = bc.AnnotatedScores(crowd.probabilities, crowd.annotations, gold=gold)
    with pytest.warns(bc.ChannelWarning, match=r"gold items \(the rectified estimate\) shrink it"):
        bc.nc_ece_estimate(with_gold, estimator="crowd_em")


def test_a_constant_annotator_is_named_as_such_not_as_another_ordering():
    """A worker who gives one class to every item: one line calls it constant, none calls
    its (estimated, off-diagonal looking) matrix another ordering of the classes."""
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 3, (60, 3))
    codes[:, 2] = 1
    looks_permuted = np.array([[0.2, 0.7, 0.1], [0.05, 0.9, 0.05], [0.1, 0.75, 0.15]])
    confusion = np.stack([np.eye(3) * 0.7 + 0.1, np.eye(3) * 0.7 + 0.1, looks_permuted])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corrected_one_hot_labels(codes, confusion, annotator_names=["a", "b", "spam"])
    said = [str(w.message) for w in caught if issubclass(w.category, bc.ChannelWarning)]
    assert any(
        line.startswith("confusion: annotator spam is constant (one class given") for line in said
    )
    assert not any("another ordering" in line for line in said), said
