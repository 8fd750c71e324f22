"""Constrained GMM for two annotators and L >= 2 score groups (paper App. D.3, Definition D.1).

Per group ``g`` the model moments are

    q_1g = a_1 + d_1 mu_g,   q_2g = a_2 + d_2 mu_g,   q_12g = (1 - mu_g) a_1 a_2 + mu_g b_1 b_2,

3L equations for L + 4 parameters (2L - 4 over-identifying restrictions).  The estimate
minimises the weighted least-squares distance

    J(theta) = sum_{g, m} w_gm (qhat_gm - q_gm(theta))^2,   w_gm = n_gm / max(qhat_gm (1 - qhat_gm), 1 / n_gm)

(each moment weighted by the inverse of its binomial variance) under ``0 <= a_j < b_j <= 1`` and
``0 <= mu_g <= 1``, from several starts.  ``J`` is reported as ``objective``; at the true
parameters it is of the order of the number of moments.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as v
from .._api import old_spellings, silenced
from ..data.annotated_scores import require_binary
from ..data.cells import CellStatistics
from ..exceptions import SaturatedModelWarning, WeakIdentificationWarning
from .base import ChannelFit, as_anchor, as_counts, best_start, records_options
from .moments import hui_walter_moments, two_annotator_moments

__all__ = ["hui_walter_gmm"]


def _model_moments(x: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Moments (L, 3) at ``x = (a1, d1, a2, d2, mu_1..mu_L)`` and their Jacobian (L, 3, 4 + L)."""
    a1, d1, a2, d2 = x[:4]
    mu = x[4:]
    b1, b2 = a1 + d1, a2 + d2
    moments = np.stack([a1 + d1 * mu, a2 + d2 * mu, a1 * a2 + mu * (b1 * b2 - a1 * a2)], axis=1)
    jacobian = np.zeros((n_groups, 3, 4 + n_groups))
    rows = np.arange(n_groups)
    jacobian[:, 0, 0] = 1.0
    jacobian[:, 0, 1] = mu
    jacobian[rows, 0, 4 + rows] = d1
    jacobian[:, 1, 2] = 1.0
    jacobian[:, 1, 3] = mu
    jacobian[rows, 1, 4 + rows] = d2
    jacobian[:, 2, 0] = a2 + mu * d2
    jacobian[:, 2, 1] = mu * b2
    jacobian[:, 2, 2] = a1 + mu * d1
    jacobian[:, 2, 3] = mu * b1
    jacobian[rows, 2, 4 + rows] = b1 * b2 - a1 * a2
    return moments, jacobian


def _objective(x, observed, weights, scale):
    moments, jacobian = _model_moments(x, observed.shape[0])
    residual = moments - observed
    value = np.sum(weights * residual**2)
    gradient = 2 * np.einsum("gm,gmp->p", weights * residual, jacobian)
    return value / scale, gradient / scale


def _two_group_start(counts: CellStatistics, group_ids: np.ndarray, group_counts: np.ndarray):
    """The closed-form estimate on the groups merged into a low and a high half (or None)."""
    cut = group_ids[np.searchsorted(np.cumsum(group_counts), group_counts.sum() / 2)]
    halves = counts.regrouped({int(g): int(g > cut) for g in group_ids})
    if np.unique(halves.groups).size < 2:
        return None
    with silenced(SaturatedModelWarning, WeakIdentificationWarning):
        try:
            fit = hui_walter_moments(halves)
        except ValueError:  # a half too small for moments: no closed-form start
            return None
    return fit if fit.ok else None


@old_spellings()
@records_options
def hui_walter_gmm(data, *, n_starts=10, seed=0, anchor=None) -> ChannelFit:
    """Constrained GMM estimate of two annotators' channels from L >= 2 score groups.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        Two annotators and ``groups`` with at least two ids, each with at least 10 items
        answered by both annotators.
    n_starts : int, default 10
        Starts: the closed form on the groups merged into two halves (when feasible), then
        seeded random ones.  The admissible solution with the smallest objective is returned.
    seed : int, default 0
    anchor : int, optional
        Annotator whose gap must be positive; default: both (the constraint already imposes it).

    Returns
    -------
    ChannelFit
        ``objective`` is ``J`` at the estimate, ``converged`` the optimiser's success flag and
        ``n_iter`` its iteration count; ``prevalence`` has one entry per group.  Two groups are
        saturated (:class:`SaturatedModelWarning`).
    """
    require_binary(data, "hui_walter_gmm")
    counts = as_counts(data)
    method = "hui_walter_gmm"
    moments = two_annotator_moments(counts, method)
    n_starts = v.as_int(n_starts, "n_starts", minimum=1)
    seed = v.as_seed(seed)
    anchor = as_anchor(anchor, 2)
    group_ids, group_counts = moments.group_ids, moments.group_counts
    observed = np.column_stack([moments.mean, moments.product])
    sizes = np.column_stack([moments.answered, moments.both])
    weights = sizes / np.maximum(observed * (1 - observed), 1 / sizes)
    n_groups = group_ids.size
    bounds = [(0.0, 1.0)] * (4 + n_groups)
    constraints = [
        {
            "type": "ineq",
            "fun": lambda x, j=j: 1.0 - x[2 * j] - x[2 * j + 1],
            "jac": lambda x, j=j: -_unit(2 * j, 2 * j + 1, x.size),
        }
        for j in (0, 1)
    ]
    starts = []
    closed_form = _two_group_start(counts, group_ids, group_counts)
    if closed_form is not None:
        a0, b0 = closed_form.channels.a, closed_form.channels.b
        mu0 = np.clip((observed[:, 0] - a0[0]) / (b0[0] - a0[0]), 0.0, 1.0)
        starts.append(np.concatenate([[a0[0], b0[0] - a0[0], a0[1], b0[1] - a0[1]], mu0]))
    rng = np.random.default_rng(seed)
    while len(starts) < n_starts:
        a0 = rng.uniform(0.0, 0.4, 2)
        d0 = rng.uniform(0.2, 1.0 - a0)
        starts.append(
            np.concatenate([[a0[0], d0[0], a0[1], d0[1]], rng.uniform(0.05, 0.95, n_groups)])
        )
    scale = sizes.sum()
    candidates = []
    for x0 in starts[:n_starts]:
        from scipy import optimize  # here: it costs 0.4 s to import

        result = optimize.minimize(
            _objective,
            x0,
            args=(observed, weights, scale),
            jac=True,
            method="SLSQP",
            bounds=bounds,
            constraints=constraints,
            options={"maxiter": 500, "ftol": 1e-12},
        )
        x = result.x
        a = np.array([x[0], x[2]])
        objective = float(result.fun * scale)
        candidates.append(
            (
                (not result.success, objective),
                a,
                a + np.array([x[1], x[3]]),
                x[4:],
                {
                    "objective": objective,
                    "converged": bool(result.success),
                    "n_iter": int(result.nit),
                },
            )
        )
    return best_start(method, counts, group_ids, group_counts, anchor, False, candidates)


def _unit(first: int, second: int, size: int) -> np.ndarray:
    vector = np.zeros(size)
    vector[[first, second]] = 1.0
    return vector
