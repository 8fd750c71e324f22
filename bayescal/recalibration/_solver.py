"""The solver behind the logistic recalibration maps (paper §5, App. E.2).

The corrected log loss ``softplus(eta) - U eta`` of a map ``eta = theta . x(s)`` is minimised
over a box of parameters by a projected Newton method with Armijo backtracking along the
projection arc (Bertsekas 1982), vectorised over a leading axis of target sets: one posterior
draw's corrected labels are one row, and an ordinary fit is the case of one row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v

__all__ = ["CHUNK", "Solution", "corrected_log_loss", "item_shares", "minimise", "softplus_terms"]


#: Projected Newton: stop when every free component of the gradient is below this ...
GRADIENT_TOLERANCE = 1e-10
#: ... or after this many iterations (Newton on these smooth 1-2 parameter problems needs < 15).
MAX_ITERATIONS = 100
#: A fit whose line search finds no decrease counts as converged if its gradient is below this.
STALL_TOLERANCE = 1e-6
#: A predicted decrease below this is beneath the loss's rounding error (losses are O(1)).
NEGLIGIBLE_DECREASE = 1e-13
#: Armijo sufficient-decrease constant and the number of step halvings tried.
ARMIJO = 1e-4
MAX_HALVINGS = 60
#: Ridge on the Newton system: keeps it solvable when every prediction saturates.
RIDGE = 1e-12
#: Parameter sets x items evaluated at once (arrays of 8 MB: the solver's memory stays small
#: and its passes stay in cache-friendly pieces).
CHUNK = 1_000_000


def corrected_log_loss(logits, targets) -> np.ndarray:
    """Per-item corrected log loss ``softplus(eta) - U eta`` (paper §5, App. E.2).

    Equal to the log loss ``-U log p - (1 - U) log(1 - p)`` of ``p = sigma(eta)``, but finite
    and accurate for any real ``eta`` and any target ``U``, including corrected labels outside
    [0, 1] (for which it may be negative).

    Parameters
    ----------
    logits : array_like, shape (n,)
        ``eta = logit p`` of the predictions.
    targets : array_like, shape (n,)
        Labels, corrected labels or soft targets (any finite reals).

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> float(corrected_log_loss([0.0], [1.0])[0]) == float(np.log(2.0))
    True
    """
    logits = v.as_finite_vector(logits, "logits")
    targets = v.as_finite_vector(targets, "targets")
    v.check_same_length(logits, "logits", targets, "targets")
    return np.logaddexp(0.0, logits) - targets * logits


@dataclass(frozen=True, eq=False)
class Solution:
    theta: np.ndarray  # (S, d)
    loss: np.ndarray  # (S,)
    n_iter: np.ndarray  # (S,)
    converged: np.ndarray  # (S,)
    on_boundary: np.ndarray  # (S,)


def item_shares(has_target, weights, n: int) -> np.ndarray:
    """Each item's share of a set's mean, (1, n) or one row per set: equal, or over the items
    with a target in the set (``has_target``), times ``weights`` (n,) where given.  A set
    without a target (refused by the caller) weighs nothing, never NaN."""
    shares = np.ones((1, n)) if weights is None else np.asarray(weights, np.float64)[None, :]
    if has_target is not None:
        shares = has_target * shares
    total = shares.sum(axis=1, keepdims=True)
    return shares / np.where(total > 0, total, 1.0)


def softplus_terms(theta: np.ndarray, features: np.ndarray, has_target=None, weights=None):
    """``mean_i softplus(theta . x_i)`` for each row of ``theta``, with its gradient and Hessian.

    One ``exp`` per item serves all three: with ``e = exp(-|eta|)``, ``softplus(eta) =
    max(eta, 0) + log1p(e)``, ``sigma(|eta|) = 1 / (1 + e)`` and ``sigma'(eta) = sigma(|eta|)
    (1 - sigma(|eta|))``, all free of overflow.  ``has_target`` (one row of bools per row of
    ``theta``) restricts each mean to the items with a target in that set (a crowd's draw);
    ``weights`` (n,), non-negative and shared by every set, weight its items (a weighted fit).
    """
    n_sets, dim = theta.shape
    n = features.shape[0]
    value = np.empty(n_sets)
    gradient = np.empty((n_sets, dim))
    hessian = np.empty((n_sets, dim, dim))
    outer = (features[:, :, None] * features[:, None, :]).reshape(n, dim * dim)
    step = max(1, CHUNK // n)
    for start in range(0, n_sets, step):
        rows = slice(start, start + step)
        eta = theta[rows] @ features.T
        e = np.exp(-np.abs(eta))
        shares = item_shares(has_target if has_target is None else has_target[rows], weights, n)
        value[rows] = (shares * (np.maximum(eta, 0.0) + np.log1p(e))).sum(axis=1)
        q = 1.0 / (1.0 + e)
        hessian[rows] = ((shares * q * (1.0 - q)) @ outer).reshape(-1, dim, dim)
        gradient[rows] = (shares * np.where(eta >= 0.0, q, 1.0 - q)) @ features
    return value, gradient, hessian


def minimise(features, moments, lower, upper, start, has_target=None, weights=None) -> Solution:
    """``argmin_{lower <= theta <= upper} mean_i softplus(theta . x_i) - theta . m`` per row ``m`` of ``moments``.

    ``theta . m`` with ``m = mean_i U_i x_i`` is the target term of the corrected loss, so one
    target set is one row; with ``has_target`` (S, n) both means run over the set's items with
    a target, and with ``weights`` (n,) they are weighted means (:func:`item_shares`).  Projected Newton (Bertsekas 1982): components on a bound whose
    gradient points outward are held, the Newton step is taken in the others, and the step is
    halved along the projection arc until the Armijo condition holds.  Each trial point is
    evaluated with its derivatives, so an accepted first step costs one pass over the items.
    """
    n_sets, dim = moments.shape
    theta = np.clip(np.broadcast_to(start, (n_sets, dim)), lower, upper).astype(np.float64)
    n_iter = np.zeros(n_sets, dtype=np.int64)
    converged = np.zeros(n_sets, dtype=bool)

    def objective(candidate, rows):
        value, gradient, hessian = softplus_terms(
            candidate, features, None if has_target is None else has_target[rows], weights
        )
        return value - (candidate * moments[rows]).sum(axis=1), gradient - moments[rows], hessian

    loss, gradient, hessian = objective(theta, np.arange(n_sets))
    working = np.arange(n_sets)
    identity = np.eye(dim)
    for _ in range(MAX_ITERATIONS):
        position = theta[working]
        g = gradient[working]
        held = ((position <= lower) & (g > 0)) | ((position >= upper) & (g < 0))
        free_gradient = np.where(held, 0.0, g)
        done = np.abs(free_gradient).max(axis=1) <= GRADIENT_TOLERANCE
        converged[working[done]] = True
        working, position, g, held, free_gradient = (
            x[~done] for x in (working, position, g, held, free_gradient)
        )
        if working.size == 0:
            break
        free = ~held
        system = (
            np.where(free[:, :, None] & free[:, None, :], hessian[working], identity)
            + RIDGE * identity
        )
        direction = -np.linalg.solve(system, free_gradient[..., None])[..., 0]
        step = np.ones(working.size)
        pending = np.arange(working.size)
        for _ in range(MAX_HALVINGS):
            candidate = np.clip(
                position[pending] + step[pending, None] * direction[pending], lower, upper
            )
            value, new_gradient, new_hessian = objective(candidate, working[pending])
            decrease = (g[pending] * (candidate - position[pending])).sum(axis=1)
            # Near the optimum the predicted decrease is below the rounding error of the loss and
            # the Armijo test is noise: there Newton converges quadratically, so take the step.
            accepted = (value <= loss[working[pending]] + ARMIJO * decrease) | (
                -decrease <= NEGLIGIBLE_DECREASE
            )
            rows = working[pending[accepted]]
            theta[rows], loss[rows], gradient[rows], hessian[rows] = (
                candidate[accepted],
                value[accepted],
                new_gradient[accepted],
                new_hessian[accepted],
            )
            pending = pending[~accepted]
            step[pending] /= 2.0
            if pending.size == 0:
                break
        n_iter[working] += 1
        # No step of any length decreases the loss: optimal to rounding error if the gradient is
        # small; otherwise the fit is left unconverged (and reported as such).
        converged[working[pending]] = np.abs(free_gradient[pending]).max(axis=1) <= STALL_TOLERANCE
        working = np.delete(working, pending)
    on_boundary = ((theta <= lower) | (theta >= upper)).any(axis=1)
    return Solution(theta, loss, n_iter, converged, on_boundary)
