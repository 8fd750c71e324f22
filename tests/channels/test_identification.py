"""Identification is checked, not assumed (paper App. D.1, D.5–D.6), and bad input is named."""

import re
import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.channels.base import orient
from bayescal.exceptions import (
    ChannelWarning,
    ConvergenceWarning,
    IdentificationError,
    SaturatedModelWarning,
    WeakIdentificationWarning,
)

from .helpers import two_annotator_table, with_groups

ESTIMATORS = [
    bc.dawid_skene_em,
    bc.grouped_em,
    bc.channels.hui_walter_moments,
    bc.hui_walter_gmm,
    bc.channels.third_moment,
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda f: f.__name__)
def test_one_annotator_is_not_identified(estimator):
    sim = bc.simulate_annotated(500, bc.Channels(0.2, 0.8), seed=1)
    with pytest.raises(
        IdentificationError, match=r"one annotator cannot identify its channel.* Add annotators"
    ):
        estimator(with_groups(sim, n_groups=2))


@pytest.mark.parametrize(
    "estimator",
    [bc.grouped_em, bc.channels.hui_walter_moments, bc.hui_walter_gmm],
    ids=lambda f: f.__name__,
)
def test_two_annotators_without_groups_are_not_identified(estimator):
    sim = bc.simulate_annotated(500, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1)
    message = r"two annotators in one score group .*two score groups that hold items"
    with pytest.raises(IdentificationError, match=message):
        estimator(sim.data)
    # groups given, but cut above every score: one group holds every item (catalogue 2, row
    # 117's message on the command line was "without score groups")
    groups = bc.channels.score_groups(sim.data.scores, thresholds=[sim.data.scores.max() + 1e-9])
    assert np.unique(groups).size == 1
    with pytest.raises(IdentificationError, match=message):
        estimator(bc.AnnotatedScores(sim.data.scores, sim.data.annotations, groups=groups))


@pytest.mark.parametrize(
    "estimator", [bc.dawid_skene_em, bc.channels.third_moment], ids=lambda f: f.__name__
)
def test_marginal_estimators_need_three_annotators(estimator):
    sim = bc.simulate_annotated(500, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1)
    with pytest.raises(IdentificationError, match=r"two annotators"):
        estimator(with_groups(sim, n_groups=2))


def test_identification_error_is_a_value_error():
    assert issubclass(IdentificationError, ValueError)


def test_saturated_models_say_so():
    three = bc.toy_data(3000, seed=2).data
    two = with_groups(
        bc.simulate_annotated(3000, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=2), thresholds=0.5
    )
    for estimator, data in (
        (bc.dawid_skene_em, three),
        (bc.channels.third_moment, three),
        (bc.channels.hui_walter_moments, two),
        (bc.hui_walter_gmm, two),
        (bc.grouped_em, two),
    ):
        with pytest.warns(
            SaturatedModelWarning, match=r"saturated .* no degrees of freedom"
        ) as record:
            assert estimator(data).ok
        assert record[0].filename == __file__  # the warning points at the caller's line


def test_over_identified_models_do_not_warn():
    four = bc.simulate_annotated(
        3000, bc.Channels([0.1, 0.2, 0.1, 0.3], [0.8, 0.9, 0.7, 0.9]), seed=2
    )
    two = bc.simulate_annotated(3000, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails here, whatever the suite's filters
        bc.dawid_skene_em(four.data)
        bc.grouped_em(with_groups(four, n_groups=3))
        bc.hui_walter_gmm(with_groups(two, n_groups=3))


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
@pytest.mark.parametrize(
    "estimator",
    [bc.channels.hui_walter_moments, bc.hui_walter_gmm, bc.grouped_em],
    ids=lambda f: f.__name__,
)
def test_groups_that_do_not_separate_warn_of_weak_identification(estimator):
    flat = bc.simulate_annotated(
        4000,
        bc.Channels([0.1, 0.2], [0.8, 0.9]),
        calibration=lambda z: np.full_like(z, 0.4),
        seed=3,
    )
    with pytest.warns(
        WeakIdentificationWarning,
        match=r"score groups 0, 1 have response means that differ by less than two standard errors",
    ):
        estimator(with_groups(flat, thresholds=0.5))


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda f: f.__name__)
def test_data_must_be_annotated_scores(estimator):
    with pytest.raises(
        TypeError,
        match=r"data must be a bayescal\.AnnotatedScores or bayescal\.data\.CellStatistics; saw ndarray",
    ):
        estimator(np.zeros((10, 3)))


ONE_LABEL_OUTCOMES = {
    # an always-1 annotator is estimated uninformative (a = b = 1): kept with weight 0 where
    # the others still identify the model, a failure with the reason where they do not
    "dawid_skene_em": r"only \['a0', 'a2'\] are informative .* do not identify the model \(paper App. D.1\)",
    "grouped_em": None,
    "hui_walter_moments": r"zero denominator: annotator 'a1' has the same mean response in both groups",
    "hui_walter_gmm": r"only \['a0'\] are informative .* do not identify the model",
    "third_moment": r"pairwise covariances whose product is 0 <= 0",
}


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda f: f.__name__)
def test_an_annotator_without_responses_is_refused_and_one_with_one_label_is_estimated(estimator):
    """Catalogue row 10b: a crowd worker who always says 1 does not stop the analysis."""
    k = 2 if estimator in (bc.channels.hui_walter_moments, bc.hui_walter_gmm) else 3
    sim = bc.simulate_annotated(400, bc.Channels([0.1] * k, [0.9] * k), seed=4)
    annotations = sim.data.annotations.copy()
    groups = bc.channels.score_groups(sim.data.scores, thresholds=0.5)
    annotations[:, 1] = -1
    with pytest.raises(ValueError, match=r"annotator 'a1' has no responses"):
        estimator(bc.AnnotatedScores(sim.data.scores, annotations, groups=groups))
    annotations[:, 1] = np.where(np.arange(400) % 3 == 0, -1, 1)
    fit = estimator(bc.AnnotatedScores(sim.data.scores, annotations, groups=groups))
    reason = ONE_LABEL_OUTCOMES[estimator.__name__]
    if reason is None:
        assert fit.ok and abs(fit.channels.gap[1]) < 1e-4
        assert (np.abs(np.delete(fit.channels.gap, 1)) > 0.5).all()
    else:
        assert not fit.ok and re.search(reason, fit.failure), fit.failure


@pytest.mark.parametrize(
    "estimator", [bc.channels.hui_walter_moments, bc.hui_walter_gmm], ids=lambda f: f.__name__
)
def test_too_few_items_in_a_group(estimator):
    data = two_annotator_table([[20, 5, 5, 20], [2, 1, 1, 4]])
    with pytest.raises(
        ValueError, match=r"score group 1 has 8 item\(s\) answered by both annotators; at least 10"
    ):
        estimator(data)


def test_hui_walter_closed_form_group_and_annotator_counts():
    three_groups = with_groups(
        bc.simulate_annotated(900, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=5), n_groups=3
    )
    with pytest.raises(ValueError, match=r"exactly two score groups; saw 3 \(use hui_walter_gmm"):
        bc.channels.hui_walter_moments(three_groups)
    three_annotators = with_groups(bc.toy_data(900, seed=5), thresholds=0.5)
    for estimator in (bc.channels.hui_walter_moments, bc.hui_walter_gmm):
        with pytest.raises(ValueError, match=r"needs exactly two annotators; saw 3"):
            estimator(three_annotators)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_starts": 0}, ValueError, r"n_starts must be >= 1; saw 0"),
        ({"max_iter": 0}, ValueError, r"max_iter must be >= 1; saw 0"),
        ({"tol": -1.0}, ValueError, r"tol must be a positive number; saw -1.0"),
        ({"seed": -3}, ValueError, r"seed must be >= 0; saw -3"),
        ({"anchor": 3}, ValueError, r"anchor must be an annotator index in \[0, 3\); saw 3"),
        ({"init": [0.1, 0.9, 0.5]}, TypeError, r"init must be a ChannelFit or a tuple"),
        (
            {"init": ([0.1, 0.1], [0.9, 0.9], 0.5)},
            ValueError,
            r"one a and one b per annotator \(3\); saw 2 and 2",
        ),
        (
            {"init": ([0.1] * 3, [0.9] * 3, [0.5, 0.5])},
            ValueError,
            r"one value or one per score group \(1\); saw 2",
        ),
        ({"init": ([0.1] * 3, [1.9] * 3, 0.5)}, ValueError, r"init b must lie in \[0, 1\]"),
    ],
)
def test_em_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        bc.dawid_skene_em(bc.toy_data(300, seed=1).data, **kwargs)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_em_that_hits_max_iter_warns_and_says_so():
    data = bc.toy_data(3000, seed=6).data
    with pytest.warns(ConvergenceWarning, match=r"did not converge within max_iter=2") as record:
        fit = bc.grouped_em(
            bc.AnnotatedScores(
                data.scores,
                data.annotations,
                groups=bc.channels.score_groups(data.scores, n_groups=4),
            ),
            max_iter=2,
        )
    assert fit.converged is False and fit.n_iter == 2 and fit.ok
    assert record[0].filename == __file__
    # a start away from the estimate: three annotators make the model saturated, so the
    # third-moment start is its fixed point, where one step may change nothing at all
    away = ([0.3] * 3, [0.7] * 3, 0.5)
    with pytest.warns(ConvergenceWarning) as record:
        assert not bc.dawid_skene_em(data, max_iter=1, n_starts=1, init=away).converged
    assert record[0].filename == __file__


# --- failures are reported, not returned as numbers -----------------------------------------


@pytest.mark.filterwarnings(
    "ignore::bayescal.exceptions.SaturatedModelWarning",
    "ignore::bayescal.exceptions.WeakIdentificationWarning",
)
@pytest.mark.parametrize(
    "table, reason",
    [
        (
            [[10, 10, 10, 10], [10, 20, 10, 20]],
            r"zero denominator: annotator 'a0' has the same mean response in both groups",
        ),
        (
            [[8, 6, 22, 24], [28, 15, 16, 29]],
            r"zero denominator: annotator 'a1' has the same mean response in both groups",
        ),
        ([[12, 20, 28, 19], [25, 20, 21, 12]], r"complex roots: the discriminant .* is negative"),
        ([[25, 19, 15, 8], [9, 2, 3, 1]], r"infeasible estimate: a, prevalence outside \[0, 1\]"),
    ],
)
def test_hui_walter_closed_form_reports_failures(table, reason):
    fit = bc.channels.hui_walter_moments(two_annotator_table(table))
    assert fit.channels is None and fit.prevalence is None
    assert fit.failure is not None
    assert re.search(reason, fit.failure), fit.failure
    with pytest.raises(bc.ChannelFitError, match=r"hui_walter_moments failed"):
        fit.require()


def test_orientation_rules():
    names = ("x", "y", "z")
    a, b, mu = np.array([0.8, 0.7, 0.9]), np.array([0.1, 0.2, 0.05]), np.array([0.3])
    a2, b2, mu2, failure = orient(
        a, b, mu, None, names
    )  # all negative: one global exchange fixes it
    assert failure is None and (b2 > a2).all() and mu2[0] == pytest.approx(0.7)
    a, b = np.array([0.1, 0.2, 0.9]), np.array([0.9, 0.8, 0.1])
    a2, b2, _, failure = orient(a, b, mu, None, names)  # the population decides: z adversarial
    assert failure is None and (b2[:2] > a2[:2]).all() and b2[2] < a2[2]
    a2, b2, _, failure = orient(a, b, mu, 2, names)  # anchored on z: x and y become adversarial
    assert failure is None and b2[2] > a2[2] and (b2[:2] < a2[:2]).all()
    _, _, _, failure = orient(np.array([0.1, 0.5]), np.array([0.9, 0.50005]), mu, None, ("p", "q"))
    assert failure is None  # q is uninformative: kept (weight 0 in the correction)
    _, _, _, failure = orient(np.array([0.1, 0.5]), np.array([0.9, 0.50005]), mu, 1, ("p", "q"))
    assert (
        failure
        == "the anchor annotator 'q' has an estimated gap 5e-05 below 0.0001, so it cannot orient the others"
    )
    _, _, _, failure = orient(np.array([0.5, 0.5]), np.array([0.50005, 0.5]), mu, None, ("p", "q"))
    assert failure == (
        "every annotator has an estimated gap below 0.0001 (largest |b - a| = 5e-05): the labels "
        "carry no information about the class"
    )


def test_an_adversarial_annotator_is_estimated_and_flagged_in_one_line():
    """DESIGN §4: the population orients the fit; one adversarial worker is estimated."""
    channels = bc.Channels(
        [0.1, 0.15, 0.2, 0.85], [0.9, 0.8, 0.85, 0.1]
    )  # the last one flips labels
    data = bc.simulate_annotated(20_000, channels, seed=7).data
    with pytest.warns(
        ChannelWarning,
        match=r"^dawid_skene_em: annotator a3 is estimated adversarial \(b < a",
    ) as record:
        fit = bc.dawid_skene_em(data)
    assert len(record) == 1 and record[0].filename == __file__
    assert fit.ok and fit.channels.adversarial
    assert fit.channels.a == pytest.approx(channels.a, abs=0.03)
    assert fit.channels.b == pytest.approx(channels.b, abs=0.03)
    with pytest.warns(ChannelWarning, match=r"estimated adversarial"):
        anchored = bc.dawid_skene_em(data, anchor=0)
    assert anchored.ok
    assert anchored.channels.a == pytest.approx(channels.a, abs=0.03)
    assert anchored.channels.b == pytest.approx(channels.b, abs=0.03)
