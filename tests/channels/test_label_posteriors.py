"""Aggregated labels: ``ChannelFit.predict_proba`` / ``predict`` (issue 37, item 7) on every
kind of channel fit and data, against the label posterior written out."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.channels.pattern_likelihood import pattern_log_prob
from bayescal.data import Responses

PANEL = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])


def _written_out(annotations, a, b, mu):
    """P(Y = 1 | row) by Bayes' rule, item by item."""
    result = []
    for row, m in zip(annotations, np.broadcast_to(mu, len(annotations))):
        seen = row >= 0
        like1 = m * np.prod(np.where(row[seen] == 1, b[seen], 1 - b[seen]))
        like0 = (1 - m) * np.prod(np.where(row[seen] == 1, a[seen], 1 - a[seen]))
        result.append(like1 / (like1 + like0))
    return np.array(result)


@pytest.fixture(scope="module")
def panel():
    sim = bc.simulate.simulate_annotated(2000, PANEL, seed=3)
    annotations = sim.data.annotations.copy()
    annotations[np.random.default_rng(0).random(annotations.shape) < 0.2] = -1  # missing labels
    unlabelled = (annotations == -1).all(axis=1)
    annotations[unlabelled, 0] = sim.data.annotations[unlabelled, 0]
    data = bc.AnnotatedScores(sim.data.scores, annotations, annotator_names=["w", "x", "y", "z"])
    return sim, data, bc.dawid_skene_em(data)


def test_a_fit_gives_each_item_its_label_posterior(panel):
    sim, data, fit = panel
    expected = _written_out(data.annotations, fit.channels.a, fit.channels.b, fit.prevalence)
    np.testing.assert_allclose(fit.predict_proba(data), expected, rtol=1e-10)
    labels = fit.predict(data)
    assert labels.dtype == np.int8
    np.testing.assert_array_equal(labels, expected >= 0.5)
    # the aggregated label beats the majority vote on labels with different channels
    majority = np.nan_to_num(bc.correction.majority_vote_labels(data.annotations), nan=0.5)
    assert (labels == sim.labels).mean() > ((majority >= 0.5) == sim.labels).mean()


def test_sparse_responses_and_reordered_or_fewer_annotators_give_the_same(panel):
    _, data, fit = panel
    dense = fit.predict_proba(data)
    np.testing.assert_allclose(fit.predict_proba(data.responses()), dense, rtol=1e-12)
    reordered = bc.AnnotatedScores(
        data.scores, data.annotations[:, ::-1], annotator_names=["z", "y", "x", "w"]
    )
    np.testing.assert_allclose(fit.predict_proba(reordered), dense, rtol=1e-12)
    # new items labelled by two of the four annotators
    two = bc.AnnotatedScores(data.scores, data.annotations[:, [1, 3]], annotator_names=["x", "z"])
    expected = _written_out(
        data.annotations[:, [1, 3]], fit.channels.a[[1, 3]], fit.channels.b[[1, 3]], fit.prevalence
    )
    np.testing.assert_allclose(fit.predict_proba(two), expected, rtol=1e-10)


def test_gold_items_keep_their_gold_label(panel):
    _, data, fit = panel
    gold = np.full(data.n_items, -1)
    gold[:50] = 1 - fit.predict(data)[:50]  # against the judges, to be sure it is the gold
    with_gold = bc.AnnotatedScores(
        data.scores, data.annotations, annotator_names=data.annotator_names, gold=gold
    )
    probability = fit.predict_proba(with_gold)
    np.testing.assert_array_equal(probability[:50], gold[:50])
    np.testing.assert_allclose(probability[50:], fit.predict_proba(data)[50:], rtol=1e-12)


def test_a_grouped_fit_uses_each_items_group_proportion():
    sim = bc.toy_data(3000, seed=2)
    groups = bc.channels.score_groups(sim.data.scores, n_groups=3)
    data = bc.AnnotatedScores(sim.data.scores, sim.data.annotations, groups=groups)
    fit = bc.grouped_em(data)
    column = np.searchsorted(fit.group_ids, groups)
    expected = _written_out(
        data.annotations, fit.channels.a, fit.channels.b, fit.prevalence[column]
    )
    np.testing.assert_allclose(fit.predict_proba(data), expected, rtol=1e-10)
    with pytest.raises(ValueError, match=r"data must have score groups: the fit has one class"):
        fit.predict_proba(sim.data)
    strange = bc.AnnotatedScores(
        data.scores, data.annotations, groups=np.where(groups == 2, 7, groups)
    )
    with pytest.raises(
        ValueError, match=r"data must have the fit's score groups \[0, 1, 2\]; saw group\(s\) \[7\]"
    ):
        fit.predict_proba(strange)


def test_dependent_pairs_enter_the_label_posterior():
    sim = bc.simulate.simulate_dependent(3000, PANEL, pair=(0, 1), shared_error=0.3, seed=4)
    data = sim.data
    fit = bc.dawid_skene_em(data, dependent=data.annotator_names[:2])
    patterns = data.annotations
    positive, negative = (patterns == 1) * 1.0, (patterns == 0) * 1.0
    mu = np.full(data.n_items, fit.prevalence)
    args = (fit.channels.a, fit.channels.b, mu, positive, negative)
    pairs = {"pairs": np.array([[0, 1]]), "covariance": fit.covariance}
    joint1 = pattern_log_prob(*args, **pairs, gold=np.ones(data.n_items, int))
    mixture = pattern_log_prob(*args, **pairs)
    np.testing.assert_allclose(fit.predict_proba(data), np.exp(joint1 - mixture), rtol=1e-9)
    independent = _written_out(patterns, fit.channels.a, fit.channels.b, fit.prevalence)
    assert np.abs(fit.predict_proba(data) - independent).max() > 0.01  # the pair counts


def test_a_crowd_from_a_long_table_without_scores():
    sim = bc.simulate_crowd(1500, 40, labels_per_item=3, seed=5)
    responses = sim.data.responses()
    table = pd.DataFrame(
        {
            "item": [f"doc-{i}" for i in responses.item],
            "worker": [f"w{j:02d}" for j in responses.annotator],
            "label": responses.label,
        }
    )
    long = Responses.from_long(table, annotator="worker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.ChannelWarning)  # the simulated spammers are flagged
        fit = bc.crowd_em(long)
    probability = fit.predict_proba(long)
    assert probability.shape == (1500,) and np.all((probability >= 0) & (probability <= 1))
    order = pd.factorize(table["item"])[1].str.slice(4).astype(int)
    accuracy = (fit.predict(long) == sim.labels[order]).mean()
    assert accuracy > 0.85
    # new items of some of the workers
    few = Responses(
        np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([1, 1, 0]), 2, ("w03", "w07")
    )
    mu = fit.prevalence
    column = [long.annotator_names.index("w03"), long.annotator_names.index("w07")]
    expected = _written_out(
        np.array([[1, 1], [0, -1]]), fit.channels.a[column], fit.channels.b[column], mu
    )
    np.testing.assert_allclose(fit.predict_proba(few), expected, rtol=1e-10)
    stranger = Responses(np.array([0]), np.array([0]), np.array([1]), 1, ("nobody",))
    with pytest.raises(
        ValueError,
        match=r"data must have annotators of the fit only \(w00, .*\); saw nobody, whose",
    ):
        fit.predict_proba(stranger)


def test_label_posterior_takes_responses_and_refuses_bad_data(panel):
    _, data, fit = panel
    np.testing.assert_allclose(
        bc.correction.label_posterior(data.responses(), fit.channels, fit.prevalence),
        fit.predict_proba(data),
        rtol=1e-12,
    )
    with pytest.raises(
        TypeError,
        match=r"data must be a bayescal.AnnotatedScores or bayescal.data.Responses; saw ndarray",
    ):
        fit.predict_proba(data.annotations)
    failed = bc.ChannelFit(
        "dawid_skene_em", None, None, np.array([0]), np.array([5]), ("w",), failure="no start"
    )
    with pytest.raises(bc.ChannelFitError, match="dawid_skene_em failed: no start"):
        failed.predict(data)
