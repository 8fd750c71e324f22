"""crowd_em on multi-class data: the sparse multi-class Dawid–Skene EM (issue 39, item 3)."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.channels import ConfusionFit
from bayescal.data.responses import Responses
from tests.helpers import GRADED_CONFUSION, simulate_class_annotations

PREVALENCE = np.array([0.3, 0.4, 0.3])


def _probabilities(n: int) -> np.ndarray:
    return np.random.default_rng(7).dirichlet(np.ones(3), n)


def _crowd(n_workers: int, n: int, missing: float, seed: int):
    """A crowd of workers with random diagonally dominant matrices (diagonal 0.6-0.9)."""
    rng = np.random.default_rng(seed)
    diagonal = rng.uniform(0.6, 0.9, (n_workers, 3))
    confusion = np.empty((n_workers, 3, 3))
    for y in range(3):
        split = rng.dirichlet(np.ones(2), n_workers) * (1 - diagonal[:, y])[:, None]
        confusion[:, y] = np.insert(split, y, diagonal[:, y], axis=1)
    labels, codes = simulate_class_annotations(confusion, n, PREVALENCE, seed, missing=missing)
    return confusion, labels, codes


def test_on_a_panel_it_finds_the_dense_em_maximum():
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 5000, PREVALENCE, 2)
    data = bc.AnnotatedScores(_probabilities(5000), codes)
    dense = bc.dawid_skene_em(data, tol=1e-12, max_iter=20_000)
    sparse = bc.crowd_em(data, smoothing=None, tol=1e-12, max_iter=20_000)
    assert isinstance(sparse, ConfusionFit) and sparse.method == "crowd_em"
    np.testing.assert_allclose(sparse.channels.confusion, dense.channels.confusion, atol=1e-5)
    np.testing.assert_allclose(sparse.prevalence, dense.prevalence, atol=1e-5)
    assert sparse.loglik == pytest.approx(dense.loglik, abs=1e-4)


def test_a_crowd_is_recovered_and_its_sparse_workers_share_one_matrix():
    """60 workers, 20 000 items, about 4.5 labels per item: every worker with 500 labels or
    more is recovered within 0.08 (at 1 500 labels a cell's standard error is about 0.02),
    and the posterior labels beat the majority vote."""
    confusion, labels, codes = _crowd(60, 20_000, 0.925, seed=3)
    codes[400:, 58:] = -1  # two workers with about 30 labels each, fewer than 30 for both
    codes[:400, 58:] = np.where(np.arange(400)[:, None] < 300, -1, codes[:400, 58:])
    data = bc.AnnotatedScores(_probabilities(20_000), codes)
    fit = bc.crowd_em(data)
    assert fit.pooled == ("a58", "a59")
    assert fit.smoothing == 2.0  # a worker below 30 labels: the Dirichlet(2) by default
    per_worker = (codes >= 0).sum(axis=0)
    heavy = per_worker >= 500
    assert heavy.sum() >= 50
    np.testing.assert_allclose(fit.channels.confusion[heavy], confusion[heavy], atol=0.08)
    np.testing.assert_allclose(fit.prevalence, np.bincount(labels) / labels.size, atol=0.02)
    log_t = np.log(fit.channels.confusion)
    rows, workers = np.nonzero(codes >= 0)
    joint = np.log(fit.prevalence) + np.stack(
        [np.bincount(rows, log_t[workers, y, codes[rows, workers]], 20_000) for y in range(3)],
        axis=1,
    )
    votes = np.stack([(codes == k).sum(axis=1) for k in range(3)], axis=1)
    majority = np.argmax(votes + 1e-3 * np.random.default_rng(0).random(votes.shape), axis=1)
    assert np.mean(np.argmax(joint, axis=1) == labels) > np.mean(majority == labels) + 0.02


def test_nc_ece_of_a_crowd_drops_items_that_only_spammers_labelled_with_one_line():
    confusion, _, codes = _crowd(30, 6000, 0.9, seed=4)
    codes[:, 0] = np.where(codes[:, 0] >= 0, np.random.default_rng(1).integers(0, 3, 6000), -1)
    only_spammer = np.flatnonzero(codes[:, 0] >= 0)[:5]
    codes[only_spammer, 1:] = -1  # five items that only the spammer labelled
    data = bc.AnnotatedScores(_probabilities(6000), codes)
    spammer = confusion.copy()
    spammer[0] = 1 / 3  # its true matrix: every row the same
    channels = bc.channels.ConfusionChannels(spammer, names=data.annotator_names)
    with pytest.warns(bc.ChannelWarning) as said:
        result = bc.nc_ece_estimate(data, estimator=channels)
    lines = [str(w.message) for w in said]
    lost = int(((codes[:, 0] >= 0) & (codes[:, 1:] < 0).all(axis=1)).sum())
    assert lost >= 5  # the five, and any other the spammer alone labelled
    assert any("annotator a0 has a confusion matrix with a condition number" in x for x in lines)
    assert any(x.startswith(f"{lost} of 6000 items have labels only from") for x in lines)
    assert len(lines) == 2 and result.n_evaluated == 6000 - lost


@pytest.mark.parametrize(
    ("change", "error", "said"),
    [
        ({"smoothing": (2.0, 2.0)}, ValueError, r"smoothing must be 'auto', None or a Dirichlet"),
        ({"smoothing": 0.5}, ValueError, r"a Dirichlet alpha >= 1 for multi-class data"),
        ({"smoothing": np.inf}, ValueError, r"a Dirichlet alpha >= 1 for multi-class data"),
        ({"smoothing": "flat"}, ValueError, r"smoothing must be one of"),
    ],
)
def test_bad_multiclass_crowd_options_are_refused(change, error, said):
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 500, PREVALENCE, 2)
    with pytest.raises(error, match=said):
        bc.crowd_em(bc.AnnotatedScores(_probabilities(500), codes), **change)


def test_unidentified_crowds_are_refused():
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 500, PREVALENCE, 2)
    with pytest.raises(bc.IdentificationError, match=r"crowd_em: 2 worker\(s\)"):
        bc.crowd_em(bc.AnnotatedScores(_probabilities(500), codes[:, :2]))
    pairs = codes.copy()
    pairs[np.arange(500), np.arange(500) % 3] = -1  # two labels per item
    with pytest.raises(bc.IdentificationError, match=r"and 0 items with three labels or more"):
        bc.crowd_em(bc.AnnotatedScores(_probabilities(500), pairs))


def test_binary_steps_refuse_multiclass_responses():
    _, codes = simulate_class_annotations(GRADED_CONFUSION, 300, PREVALENCE, 2)
    responses = bc.AnnotatedScores(_probabilities(300), codes).responses()
    channels = bc.Channels([0.1] * 3, [0.9] * 3, names=responses.annotator_names)
    with pytest.raises(ValueError, match=r"^label_posterior: the responses are multi-class"):
        bc.correction.label_posterior(responses, channels, 0.3)
    with pytest.raises(ValueError, match=r"^fit_bayes: the responses are multi-class \(3"):
        bc.fit_bayes(responses)


def test_responses_read_class_names_from_a_long_table():
    table = pd.DataFrame(
        {
            "item": ["x", "x", "y", "z"],
            "annotator": ["p", "q", "p", "q"],
            "label": ["pass", "fail", None, "partial"],
        }
    )
    responses = Responses.from_long(table, classes=["fail", "partial", "pass"])
    assert responses.n_classes == 3
    assert responses.label.tolist() == [2, 0, 1]
    with pytest.raises(ValueError, match=r"label column 'label', row \d: 'partial' is not one"):
        Responses.from_long(table, classes=["fail", "pass"])
    with pytest.raises(ValueError, match=r"classes must name two classes or more"):
        Responses.from_long(table, classes=["fail"])
    with pytest.raises(ValueError, match=r"label must hold class indices 0 to 2"):
        Responses([0], [0], [5], 1, ("p",), n_classes=3)
