"""The calibration test's H0 draw under a shared difficulty (issue 38, item 4(a)): the density
is the model's, the Metropolis chain draws from it, and a fit of the same items is tested."""

import numpy as np
import pytest
from scipy import special, stats

import bayescal as bc
from bayescal.correction.h0_posterior import DifficultyH0Density, h0_difficulty_draw
from tests.helpers import fake_fit, integrated_pattern_probability

CHANNELS = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])
LOADING = np.array([1.0, 1.5])
#: Priors that are not flat, so that a Beta's parameters swapped, or one rate's prior read for
#: the other's, would change the density
PRIORS = bc.Priors(false_positive=(2.0, 8.0), sensitivity=(6.0, 2.0)).as_array()


def _theta(a, b, loading):
    return np.concatenate([special.logit(a), special.logit(b), np.log(loading)])


def _log_prior(a, b, loading):
    """:data:`PRIORS`' Betas on a, b and HalfNormal(1) on the loadings, as densities of
    (logit a, logit b, log beta), up to a constant."""
    log_beta = stats.beta(2, 8).logpdf(a).sum() + stats.beta(6, 2).logpdf(b).sum()
    jacobian = np.log(a * (1 - a)).sum() + np.log(b * (1 - b)).sum() + np.log(loading).sum()
    return log_beta + jacobian + stats.halfnorm.logpdf(loading).sum()


def test_the_h0_density_is_the_integrated_likelihood_with_the_priors():
    """Against adaptive quadrature of each item's integral over its effect, mixed over its
    class by its score (H0), at two points: the density is exact up to one constant, within
    the quadrature's error at loadings up to 1.5 (6e-8 an item,
    :data:`~bayescal.channels.difficulty.QUADRATURE_NODES`)."""
    sim = bc.simulate.simulate_difficulty(60, CHANNELS, loading=tuple(LOADING), seed=3)
    density = DifficultyH0Density(sim.data.scores, sim.data.annotations, PRIORS)

    def reference(a, b, loading):
        rows = sim.data.annotations
        given = [integrated_pattern_probability(r, beta, rows) for r, beta in zip((a, b), loading)]
        z = sim.data.scores
        return np.log((1 - z) * given[0] + z * given[1]).sum() + _log_prior(a, b, loading)

    points = [
        (CHANNELS.a, CHANNELS.b, LOADING),
        (np.array([0.2, 0.1, 0.3, 0.05]), np.array([0.7, 0.9, 0.8, 0.6]), np.array([0.4, 1.2])),
    ]
    ours = [density(_theta(*point)) for point in points]
    exact = [reference(*point) for point in points]
    assert ours[0] - ours[1] == pytest.approx(exact[0] - exact[1], abs=60 * 6e-8)


def test_a_gold_items_class_is_its_gold_label():
    sim = bc.simulate.simulate_difficulty(60, CHANNELS, loading=tuple(LOADING), seed=3)
    gold = np.full(60, -1)
    gold[:10] = sim.labels[:10]
    with_gold = DifficultyH0Density(sim.data.scores, sim.data.annotations, PRIORS, gold=gold)
    scores = np.where(gold >= 0, gold, sim.data.scores)
    as_scores = DifficultyH0Density(scores, sim.data.annotations, PRIORS)
    theta = _theta(CHANNELS.a, CHANNELS.b, LOADING)
    assert with_gold(theta) == as_scores(theta)


def test_the_density_takes_many_points_at_once():
    sim = bc.simulate.simulate_difficulty(60, CHANNELS, loading=tuple(LOADING), seed=3)
    density = DifficultyH0Density(sim.data.scores, sim.data.annotations, PRIORS)
    points = _theta(CHANNELS.a, CHANNELS.b, LOADING) + np.linspace(-0.3, 0.3, 5)[:, None]
    np.testing.assert_allclose(density(points), [density(point) for point in points], rtol=1e-13)


def _random_walk(density, theta, spread, steps, rng) -> np.ndarray:
    """Every state (steps, d) of a random-walk Metropolis chain shaped as h0_difficulty_draw's."""
    scale = np.linalg.cholesky(spread * 2.38**2 / theta.size)
    current, states = density(theta), []
    for _ in range(steps):
        candidate = theta + scale @ rng.standard_normal(theta.size)
        proposed = density(candidate)
        if np.log(rng.random()) < proposed - current:
            theta, current = candidate, proposed
        states.append(theta)
    return np.array(states)


@pytest.mark.slow
def test_the_metropolis_chain_forgets_its_start_and_draws_the_h0_posterior():
    """With the default flat priors, 40 chains of the default length, each from the same
    start in the tail (every rate 0.1 off, loadings 0.3), against self-normalised importance
    sampling of the same density (20 000 draws from a t distribution of 5 degrees of freedom
    on an adapted pilot chain's moments): means within 4 Monte Carlo standard errors and sds
    within 35% (a chain's end is one draw of the posterior once it forgot its start)."""
    from bayescal.correction.h0_posterior import H0_METROPOLIS_STEPS

    sim = bc.simulate.simulate_difficulty(400, CHANNELS, loading=tuple(LOADING), seed=5)
    density = DifficultyH0Density(sim.data.scores, sim.data.annotations, bc.Priors().as_array())
    rng = np.random.default_rng(0)
    theta, spread = _theta(CHANNELS.a, CHANNELS.b, LOADING), 0.0025 * np.eye(10)
    for _ in range(3):  # a pilot chain, its steps shaped by the previous stage's draws
        pilot = _random_walk(density, theta, spread, 4000, rng)[1000:]
        theta, centre, spread = pilot[-1], pilot.mean(axis=0), np.cov(pilot, rowvar=False)
    proposal = stats.multivariate_t(centre, spread, df=5, seed=1)
    points = proposal.rvs(20_000)
    log_w = density(points) - proposal.logpdf(points)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    assert 1 / (w**2).sum() > 2000  # the reference's effective sample size
    parameters = np.column_stack([special.expit(points[:, :8]), np.exp(points[:, 8:])])
    mean = w @ parameters
    sd = np.sqrt(w @ (parameters - mean) ** 2)
    start = (CHANNELS.a + 0.1, CHANNELS.b - 0.1, np.array([0.3, 0.3]))
    ends = []
    for seed in range(40):
        chain = np.random.default_rng(seed)
        drawn = h0_difficulty_draw(density, *start, spread, steps=H0_METROPOLIS_STEPS, rng=chain)
        ends.append(np.concatenate([drawn.a, drawn.b, drawn.loading]))
    ends = np.array(ends)
    standard_errors = (ends.mean(axis=0) - mean) / (sd / np.sqrt(len(ends)))
    assert np.abs(standard_errors).max() < 4, standard_errors
    np.testing.assert_allclose(ends.std(axis=0), sd, rtol=0.35)


def test_a_shared_difficulty_fit_with_too_few_draws_is_refused_for_its_own_items():
    """Four draws (the fewest a fit may have) cannot shape the steps over 10 parameters: the
    chain would move only within their span, a draw of another posterior."""
    sim = bc.simulate.simulate_difficulty(300, CHANNELS, loading=tuple(LOADING), seed=2)
    jitter = np.linspace(0, 0.01, 4)[:, None]
    fit = fake_fit(
        sim.data,
        CHANNELS.a + jitter,
        CHANNELS.b - jitter,
        np.full(4, 0.5),
        model="shared_difficulty",
        loading=np.tile(LOADING, (4, 1)),
    )
    with pytest.raises(ValueError, match="has 4 draws that vary in fewer directions than its 10"):
        bc.calibration_test(sim.data, fit)


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"scores": [0.2, 1.3]}, ValueError, r"scores must lie in \[0, 1\]; saw 1.3"),
        (
            {"annotations": [[0, 2], [1, 1]]},
            ValueError,
            r"annotations must contain only 0, 1 or -1 \(missing\); saw 2",
        ),
        ({"annotations": [[0, 1]]}, ValueError, r"annotations must have one row per item"),
        ({"priors": [[1, 1]]}, ValueError, r"priors must be the \(3, 2\) Beta parameters"),
        ({"priors": [[1, 1], [0, 1], [1, 1]]}, ValueError, r"priors must be positive"),
        (
            {"gold": [0, 2]},
            ValueError,
            r"gold must contain only 0, 1 or -1 \(no gold label\); saw 2",
        ),
    ],
)
def test_the_h0_density_refuses_bad_input(change, error, message):
    arguments = {
        "scores": [0.2, 0.7],
        "annotations": [[0, 1], [1, 1]],
        "priors": bc.Priors().as_array(),
        "gold": None,
    } | change
    with pytest.raises(error, match=message):
        DifficultyH0Density(**arguments)


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"density": "model"}, TypeError, r"density must be a DifficultyH0Density; saw str"),
        ({"a": [0.1, 1.2]}, ValueError, r"a must lie in \[0, 1\]; saw 1.2"),
        ({"b": [0.8]}, ValueError, r"a and b must hold one rate per annotator of density \(2\)"),
        ({"loading": [1.0]}, ValueError, r"loading must hold the two loadings"),
        ({"loading": [1.0, -0.5]}, ValueError, r"loading must be non-negative"),
        ({"loading": [1.0, np.nan]}, ValueError, r"loading must be finite"),
        ({"proposal": np.eye(4)}, ValueError, r"proposal must be the \(6, 6\) covariance"),
        ({"proposal": np.full((6, 6), np.inf)}, ValueError, r"proposal must be finite"),
        ({"steps": -1}, ValueError, r"steps must be"),
        ({"rng": 3}, TypeError, r"rng must be a numpy.random.Generator; saw int"),
    ],
)
def test_the_h0_difficulty_draw_refuses_bad_input(change, error, message):
    density = DifficultyH0Density([0.2, 0.7], [[0, 1], [1, 1]], bc.Priors().as_array())
    arguments = {
        "density": density,
        "a": [0.1, 0.2],
        "b": [0.8, 0.9],
        "loading": [1.0, 1.5],
        "proposal": np.eye(6),
        "steps": 3,
        "rng": np.random.default_rng(0),
    } | change
    with pytest.raises(error, match=message):
        h0_difficulty_draw(**arguments)
