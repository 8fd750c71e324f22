"""Gold items in the EM estimators: a gold item's class is known, so it adds
log P(A | Y = gold) + log P(Y = gold) to the likelihood, not the mixture (DESIGN §9).

Checked against two references the code does not share: a direct numerical maximum of that
likelihood (one judge), and EM with the gold written as one more annotator, whose labels are
the truth (its channel comes out perfect, which is the gold likelihood)."""

import warnings

import numpy as np
import pytest
from scipy import optimize, special

import bayescal as bc
from bayescal.exceptions import ChannelWarning, IdentificationError


def _one_judge(a=0.15, b=0.8, n=4000, n_gold=300, seed=1):
    simulation = bc.simulate_annotated(n, bc.Channels([a], [b]), seed=seed)
    return simulation.with_gold(n_gold, seed=seed)


def _direct_maximum(data):
    """The maximum of the one-judge gold likelihood by Nelder–Mead on logits."""
    label, gold = data.annotations[:, 0], data.gold
    counts = {(g, x): int(((gold == g) & (label == x)).sum()) for g in (-1, 0, 1) for x in (0, 1)}

    def negative(theta):
        a, b, mu = special.expit(theta)
        rate = {0: a, 1: b}
        total = 0.0
        for x in (0, 1):
            for g, prior in ((0, 1 - mu), (1, mu)):
                p = rate[g] if x else 1 - rate[g]
                total += counts[(g, x)] * (np.log(p) + np.log(prior))
            mixture = a + (b - a) * mu
            total += counts[(-1, x)] * np.log(mixture if x else 1 - mixture)
        return -total

    best = optimize.minimize(
        negative,
        x0=[-1.0, 1.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    return special.expit(best.x)


@pytest.mark.parametrize("estimator", [bc.dawid_skene_em, bc.grouped_em, bc.crowd_em])
def test_one_judge_with_gold_is_the_maximum_likelihood(estimator):
    data = _one_judge().data
    # EM creeps along this likelihood's flat ridge: a tight tol, to compare the maxima
    # (the default tol=1e-8 stops 4e-4 short, a fiftieth of a standard error)
    fit = estimator(data, tol=1e-14, max_iter=10_000)
    a, b, mu = _direct_maximum(data)
    np.testing.assert_allclose(
        [fit.channels.a[0], fit.channels.b[0], fit.overall_prevalence], [a, b, mu], atol=1e-5
    )


def test_one_adversarial_judge_with_gold_is_estimated_as_such():
    simulation = _one_judge(a=0.6, b=0.3, n=5000, n_gold=400, seed=2)
    with pytest.warns(ChannelWarning, match=r"annotator a0 is estimated adversarial"):
        fit = bc.dawid_skene_em(simulation.data)
    # 400 gold items, about 1/2 of each class: the standard error of each rate is about 0.035
    assert abs(fit.channels.a[0] - 0.6) < 0.08 and abs(fit.channels.b[0] - 0.3) < 0.08
    assert abs(fit.prevalence - simulation.labels.mean()) < 0.05


def _gold_as_an_annotator(data):
    """The data with the gold written as one more annotator (its labels the truth, missing
    off the gold items) and no gold column."""
    annotations = np.column_stack([data.annotations, data.gold])
    return bc.AnnotatedScores(
        data.scores, annotations, annotator_names=[*data.annotator_names, "gold"]
    )


@pytest.mark.parametrize("estimator", [bc.dawid_skene_em, bc.crowd_em])
def test_gold_equals_a_perfect_annotator(estimator):
    channels = bc.Channels([0.1, 0.25, 0.3, 0.2], [0.85, 0.7, 0.75, 0.8])
    data = bc.simulate_annotated(3000, channels, seed=5).with_gold(200, seed=6).data
    fit = estimator(data, tol=1e-14, max_iter=10_000)
    reference = estimator(_gold_as_an_annotator(data), tol=1e-14, max_iter=10_000)
    np.testing.assert_allclose(reference.channels.a[-1], 0.0, atol=1e-6)
    np.testing.assert_allclose(reference.channels.b[-1], 1.0, atol=1e-6)
    np.testing.assert_allclose(fit.channels.a, reference.channels.a[:-1], atol=1e-5)
    np.testing.assert_allclose(fit.channels.b, reference.channels.b[:-1], atol=1e-5)
    np.testing.assert_allclose(fit.overall_prevalence, reference.overall_prevalence, atol=1e-5)


def test_two_annotators_with_gold_need_no_score_groups():
    channels = bc.Channels([0.1, 0.3], [0.8, 0.75])
    simulation = bc.simulate_annotated(4000, channels, seed=7).with_gold(300, seed=8)
    for estimator in (bc.dawid_skene_em, bc.crowd_em):
        fit = estimator(simulation.data)
        np.testing.assert_allclose(fit.channels.a, channels.a, atol=0.04)
        np.testing.assert_allclose(fit.channels.b, channels.b, atol=0.04)


def test_gold_of_one_class_identifies_nothing_and_says_so():
    simulation = _one_judge()
    gold = np.where(simulation.data.gold == 1, 1, -1)
    data = bc.AnnotatedScores(simulation.data.scores, simulation.data.annotations, gold=gold)
    for estimator in (bc.dawid_skene_em, bc.crowd_em):
        with pytest.raises(
            IdentificationError,
            match=r"one annotator cannot identify its channel.* The data's \d+ gold items \(\d+ of "
            r"class 1, 0 of class 0\), which identify no channel: an annotator's channel needs "
            r"gold items of both classes",
        ):
            estimator(data)


def test_without_gold_the_refusal_names_gold_as_a_way_out():
    data = bc.simulate_annotated(500, bc.Channels([0.2], [0.8]), seed=1).data
    with pytest.raises(
        IdentificationError,
        match=r"Or give a few hundred items a human-verified label \(gold=, --gold\)",
    ):
        bc.dawid_skene_em(data)


def test_the_moment_estimators_do_not_read_the_gold():
    channels = bc.Channels([0.1, 0.2, 0.3, 0.2], [0.9, 0.8, 0.7, 0.8])
    simulation = bc.simulate_annotated(3000, channels, seed=9)
    with_gold = simulation.with_gold(500).data
    for estimator in (bc.channels.third_moment,):
        np.testing.assert_array_equal(
            estimator(with_gold).channels.a, estimator(simulation.data).channels.a
        )
    with pytest.raises(IdentificationError, match=r"one annotator"):
        bc.channels.third_moment(_one_judge().data)


def test_gold_does_not_change_a_fit_without_gold_items():
    channels = bc.Channels([0.1, 0.2, 0.3, 0.2], [0.9, 0.8, 0.7, 0.8])
    simulation = bc.simulate_annotated(2000, channels, seed=2)
    blank = bc.AnnotatedScores(
        simulation.data.scores, simulation.data.annotations, gold=np.full(2000, -1)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for estimator in (bc.dawid_skene_em, bc.crowd_em):
            np.testing.assert_array_equal(
                estimator(blank).channels.b, estimator(simulation.data).channels.b
            )


def test_a_dependent_pair_with_gold_is_estimated_with_it():
    """A pair that copies on 30% of the items: the dependent EM fit with the gold finds the
    pair's channels and a positive covariance given Y = 1."""
    channels = bc.Channels([0.1, 0.15, 0.2, 0.25], [0.75, 0.85, 0.9, 0.8])
    simulation = bc.simulate.simulate_dependent(4000, channels, copying=0.3, seed=3)
    data = simulation.with_gold(300, seed=1).data
    fit = bc.dawid_skene_em(data, dependent=[("a0", "a1")])
    np.testing.assert_allclose(fit.channels.a, simulation.channels.a, atol=0.05)
    np.testing.assert_allclose(fit.channels.b, simulation.channels.b, atol=0.05)
    assert fit.covariance[0, 1] > 0.02
