"""Recovery at root-n, agreement between estimators, and EM against a textbook EM (paper §4, App. D)."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.exceptions import ConvergenceWarning

from .helpers import channel_error, hide, with_groups

pytestmark = pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")

RISING = lambda z: 0.2 + 0.5 * np.asarray(z)  # noqa: E731  score-dependent prevalence
TWO = bc.Channels([0.1, 0.2], [0.85, 0.9])


def _marginal_channels(k):
    return bc.Channels(np.linspace(0.08, 0.25, k), np.linspace(0.8, 0.95, k))


def _mean_error(estimator, channels, n, replicates, grouped):
    errors = []
    for seed in range(replicates):
        sim = bc.simulate_annotated(
            n, channels, calibration=RISING if not grouped else None, seed=seed
        )
        data = with_groups(sim, thresholds=0.5) if grouped else sim.data
        errors.append(channel_error(estimator(data), channels))
    return np.mean(errors)


@pytest.mark.slow
@pytest.mark.parametrize(
    "estimator, k",
    [
        (bc.dawid_skene_em, 3),
        (bc.dawid_skene_em, 4),
        (bc.dawid_skene_em, 5),
        (bc.channels.third_moment, 3),
        (bc.channels.third_moment, 5),
        (bc.channels.hui_walter_moments, 2),
        (bc.hui_walter_gmm, 2),
        (bc.grouped_em, 2),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_error_halves_when_n_quadruples(estimator, k):
    # Root-n consistency: mean absolute channel error over 40 seeded replicates at n = 40 000
    # is about half of that at n = 10 000; the ratio is accepted in [0.35, 0.70].
    channels = TWO if k == 2 else _marginal_channels(k)
    small = _mean_error(estimator, channels, 10_000, 40, grouped=k == 2)
    large = _mean_error(estimator, channels, 40_000, 40, grouped=k == 2)
    assert 0.35 < large / small < 0.70, (small, large)
    assert large < 0.01


@pytest.mark.slow
def test_estimators_agree_on_a_large_sample():
    # Saturated models: the MLE fits the cell frequencies exactly, so EM equals the closed form.
    sim = bc.simulate_annotated(200_000, _marginal_channels(3), calibration=RISING, seed=1)
    em, moments = bc.dawid_skene_em(sim.data), bc.channels.third_moment(sim.data)
    assert em.channels.a == pytest.approx(moments.channels.a, abs=1e-4)
    assert em.channels.b == pytest.approx(moments.channels.b, abs=1e-4)
    assert em.prevalence == pytest.approx(moments.prevalence, abs=1e-4)
    two = with_groups(bc.simulate_annotated(200_000, TWO, seed=1), thresholds=0.5)
    closed = bc.channels.hui_walter_moments(two)
    # EM stops on the change in mean log-likelihood: the default 1e-8 leaves ~1e-4 of parameter
    # error (20x below the sampling error here); a tight tolerance closes the gap.
    for other, tolerance in (
        (bc.hui_walter_gmm(two), 1e-6),
        (bc.grouped_em(two), 5e-4),
        (bc.grouped_em(two, tol=1e-13), 1e-5),
    ):
        assert other.channels.a == pytest.approx(closed.channels.a, abs=tolerance)
        assert other.channels.b == pytest.approx(closed.channels.b, abs=tolerance)
        assert other.prevalence == pytest.approx(closed.prevalence, abs=tolerance)
    # Over-identified (K = 5): different estimators of the same parameters, within sampling error.
    five = bc.simulate_annotated(200_000, _marginal_channels(5), calibration=RISING, seed=2).data
    em5, moments5 = bc.dawid_skene_em(five), bc.channels.third_moment(five)
    assert em5.channels.a == pytest.approx(moments5.channels.a, abs=0.01)
    assert em5.channels.b == pytest.approx(moments5.channels.b, abs=0.01)


@pytest.mark.slow
def test_missing_responses_are_handled():
    channels = _marginal_channels(4)
    data = hide(
        bc.simulate_annotated(100_000, channels, calibration=RISING, seed=3).data, 0.35, seed=3
    )
    for estimator in (bc.dawid_skene_em, bc.channels.third_moment):
        assert channel_error(estimator(data), channels) < 0.01
    two = hide(
        with_groups(bc.simulate_annotated(100_000, TWO, seed=3), thresholds=0.5), 0.3, seed=4
    )
    for estimator in (bc.channels.hui_walter_moments, bc.hui_walter_gmm, bc.grouped_em):
        assert channel_error(estimator(two), TWO) < 0.01


def test_grouped_em_recovers_group_prevalences():
    sim = bc.simulate_annotated(50_000, _marginal_channels(3), calibration=RISING, seed=5)
    data = with_groups(sim, n_groups=4)
    fit = bc.grouped_em(data)
    truth = [sim.labels[data.groups == g].mean() for g in fit.group_ids]
    assert fit.prevalence == pytest.approx(truth, abs=0.02)
    assert fit.overall_prevalence == pytest.approx(sim.labels.mean(), abs=0.01)


# --- EM against a textbook EM ----------------------------------------------------------------


def textbook_em(labels, groups, a, b, mu, iterations):
    """Dawid–Skene EM item by item in probability space, as a textbook writes it."""
    a, b, mu = list(a), list(b), list(mu)
    for _ in range(iterations):
        posterior = []
        for row, g in zip(labels, groups):
            p1, p0 = mu[g], 1 - mu[g]
            for j, label in enumerate(row):
                if label == -1:
                    continue
                p1 *= b[j] if label == 1 else 1 - b[j]
                p0 *= a[j] if label == 1 else 1 - a[j]
            posterior.append(p1 / (p1 + p0))
        for j in range(len(a)):
            seen = [(w, row[j]) for w, row in zip(posterior, labels) if row[j] != -1]
            b[j] = sum(w for w, y in seen if y == 1) / sum(w for w, _ in seen)
            a[j] = sum(1 - w for w, y in seen if y == 1) / sum(1 - w for w, _ in seen)
        for g in range(len(mu)):
            members = [w for w, h in zip(posterior, groups) if h == g]
            mu[g] = sum(members) / len(members)
    return a, b, mu


FIXTURE = [
    [1, 1, 0],
    [1, 1, 1],
    [0, 0, 0],
    [0, 1, 0],
    [1, -1, 1],
    [0, 0, -1],
    [1, 0, 1],
    [-1, 1, 1],
    [0, 0, 1],
    [1, 1, -1],
    [0, -1, 0],
    [1, 1, 1],
]
FIXTURE_GROUPS = [0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("iterations", [1, 2, 3, 7])
def test_marginal_em_reproduces_textbook_iterations(iterations):
    start = ([0.2, 0.3, 0.25], [0.8, 0.7, 0.9], 0.5)
    data = bc.AnnotatedScores(np.linspace(0.05, 0.95, 12), FIXTURE)
    with pytest.warns(ConvergenceWarning):
        fit = bc.dawid_skene_em(data, n_starts=1, init=start, max_iter=iterations, tol=1e-300)
    a, b, mu = textbook_em(FIXTURE, [0] * 12, start[0], start[1], [start[2]], iterations)
    assert fit.n_iter == iterations
    assert fit.channels.a == pytest.approx(a, abs=1e-12)
    assert fit.channels.b == pytest.approx(b, abs=1e-12)
    assert fit.prevalence == pytest.approx(mu[0], abs=1e-12)


@pytest.mark.parametrize("iterations", [1, 4])
def test_grouped_em_reproduces_textbook_iterations(iterations):
    start = ([0.2, 0.3, 0.25], [0.8, 0.7, 0.9], [0.3, 0.6])
    data = bc.AnnotatedScores(np.linspace(0.05, 0.95, 12), FIXTURE, groups=FIXTURE_GROUPS)
    with pytest.warns(ConvergenceWarning):
        fit = bc.grouped_em(data, n_starts=1, init=start, max_iter=iterations, tol=1e-300)
    a, b, mu = textbook_em(FIXTURE, FIXTURE_GROUPS, *start, iterations)
    assert fit.channels.a == pytest.approx(a, abs=1e-12)
    assert fit.channels.b == pytest.approx(b, abs=1e-12)
    assert fit.prevalence == pytest.approx(mu, abs=1e-12)


def test_em_log_likelihood_is_the_pattern_likelihood():
    data = bc.AnnotatedScores(np.linspace(0.05, 0.95, 12), FIXTURE)
    fit = bc.dawid_skene_em(data)
    a, b, mu = fit.channels.a, fit.channels.b, fit.prevalence
    expected = 0.0
    for row in FIXTURE:
        p1, p0 = mu, 1 - mu
        for j, label in enumerate(row):
            if label != -1:
                p1 *= b[j] if label else 1 - b[j]
                p0 *= a[j] if label else 1 - a[j]
        expected += np.log(p1 + p0)
    assert fit.loglik == pytest.approx(expected, abs=1e-9)
    assert fit.converged


def test_em_is_deterministic_given_the_seed():
    data = bc.simulate_annotated(5000, _marginal_channels(4), calibration=RISING, seed=9).data
    first, again = bc.dawid_skene_em(data, seed=3), bc.dawid_skene_em(data, seed=3)
    assert np.array_equal(first.channels.a, again.channels.a) and first.loglik == again.loglik
