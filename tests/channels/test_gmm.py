import numpy as np
import pytest

import bayescal as bc
from bayescal.channels.gmm import _model_moments, _objective

from .helpers import with_groups


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    x = np.concatenate([[0.1, 0.7, 0.2, 0.6], rng.uniform(0.1, 0.9, 4)])
    observed = rng.uniform(0.1, 0.9, (4, 3))
    weights = rng.uniform(10, 100, (4, 3))
    _, gradient = _objective(x, observed, weights, 1.0)
    step = 1e-6
    numeric = [
        (
            _objective(x + step * e, observed, weights, 1.0)[0]
            - _objective(x - step * e, observed, weights, 1.0)[0]
        )
        / (2 * step)
        for e in np.eye(x.size)
    ]
    assert gradient == pytest.approx(numeric, rel=1e-6, abs=1e-6)


def test_model_moments_hand_computed():
    moments, _ = _model_moments(np.array([0.1, 0.8, 0.2, 0.6, 0.5]), 1)
    # q1 = .1 + .8*.5, q2 = .2 + .6*.5, q12 = .5*.1*.2 + .5*.9*.8
    assert moments[0] == pytest.approx([0.5, 0.5, 0.37])


def test_over_identified_gmm_reports_objective_and_convergence():
    sim = bc.simulate_annotated(30_000, bc.Channels([0.1, 0.2], [0.85, 0.9]), seed=2)
    fit = bc.hui_walter_gmm(with_groups(sim, n_groups=5))
    assert fit.converged and fit.n_iter > 0
    # J is chi-square-like with 2L - 4 = 6 restrictions at the truth; far above means misfit.
    assert 0 <= fit.objective < 30
    assert fit.channels.a == pytest.approx([0.1, 0.2], abs=0.02)
    assert len(fit.prevalence) == 5 and np.all(np.diff(fit.prevalence) > 0)
