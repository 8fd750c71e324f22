"""Multi-class Dawid–Skene EM on a crowd's sparse responses (Dawid and Skene 1979): what
:func:`~bayescal.crowd_em` fits to multi-class data.

Model: ``Y_i ~ Categorical(pi)``; worker ``j`` answers ``k`` with probability ``T_j[Y_i, k]``,
independently given ``Y_i``.  Each label ``r`` gets the code ``C j(r) + A_r``, and the
(items x codes) incidence ``B`` of the labels turns both steps into sparse products:

- E-step: ``log p(R_i, Y_i = y) = log pi_y + (B L)_iy`` with ``L[C j + k, y] = log T_j[y, k]``;
  ``w_iy = P(Y_i = y | R_i)`` by a log-sum-exp over ``y``.  A gold item's ``w_i`` is its
  one-hot gold label and its term ``log p(R_i, Y_i = g_i)``.
- M-step with a symmetric Dirichlet(alpha) prior on every row (MAP; alpha = 1 is the
  maximum likelihood): ``T_j[y, k] = ((B^T w)[C j + k, y] + alpha - 1) / (sum_k (...))`` and
  ``pi = mean_i w_i``.

Each iteration costs O(R C) for R labels, with memory O(R + n C + K C^2): never an items x
workers array.  The start is the majority vote (each item's shares of its labels, one M-step
smoothed as :mod:`~bayescal.channels.confusion_em`'s); iteration stops when the mean log
posterior changes by less than ``tol``.

As in the binary :mod:`~bayescal.channels.crowd_em`, ``smoothing`` (default: alpha = 2 when
some worker has fewer than ``SPARSE_LABELS`` labels) keeps a sparse worker's matrix away from
the simplex's corners, and ``pool`` lets the workers with few labels share one confusion matrix.
Without gold the latent classes are relabelled by the permutation of the largest
label-weighted diagonal (:func:`~bayescal.channels.confusion_em.orient`); gold names them.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .. import _validation as v
from .._api import warn_caller
from ..data.responses import Responses
from ..exceptions import ConvergenceWarning
from .confusion_em import EPS, ConfusionEstimate, as_start, normalised, orient, tie_rows

__all__ = ["class_crowd_em"]


def _incidence(responses: Responses, channel_of: np.ndarray) -> tuple:
    """The (items x codes) incidence of the labels, its transpose, and each code's count,
    for labels given to channel ``channel_of[j]``."""
    n_classes = responses.n_classes
    n_codes = n_classes * (int(channel_of.max()) + 1)
    code = n_classes * channel_of[responses.annotator] + responses.label
    by_item = sparse.csr_matrix(
        (np.ones(code.size), (responses.item, code)), shape=(responses.n_items, n_codes)
    )
    return by_item, by_item.T.tocsr(), np.bincount(code, minlength=n_codes).astype(np.float64)


def _majority_start(by_item, by_code, gold, alpha: float, n_classes: int, tied):
    """The start ``(confusion, prevalence)`` of the items' vote shares (gold items at their
    class): one M-step, smoothed, since a cell at 0 stays at 0 under EM and a vote may miss a
    class."""
    n_channels = by_code.shape[0] // n_classes
    votes = by_item @ np.tile(np.eye(n_classes), (n_channels, 1))  # (items, C)
    totals = votes.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = np.where(totals > 0, votes / totals, 1.0 / n_classes)
    weights = _with_gold(weights, gold)
    return _m_step(by_code, weights, max(alpha, 1.5), n_classes, tied)


def class_crowd_em(
    responses: Responses,
    channel_of: np.ndarray,
    alpha: float,
    tol: float,
    max_iter: int,
    tied=None,
    init=None,
) -> ConfusionEstimate:
    """Multi-class EM on ``responses`` (module docstring), worker ``j``'s labels
    given to channel ``channel_of[j]`` (the pooled workers share one), with the Dirichlet
    ``alpha``; the arguments are checked by :func:`~bayescal.crowd_em`.  The confusion
    matrices are every worker's (K, C, C), the pooled one repeated for its workers.  With
    ``tied`` (C,), each class's tie group, the classes of a group share every worker's row
    (:func:`~bayescal.channels.confusion_em.tie_rows`) and the classes are not relabelled;
    ``init``, a tuple (channels' matrices (M, C, C), proportions (C,)), replaces the
    majority vote's start."""
    n_classes = responses.n_classes
    by_item, by_code, code_counts = _incidence(responses, channel_of)
    n_channels = code_counts.size // n_classes
    gold = responses.gold if responses.has_gold else None
    if init is None:
        confusion, prevalence = _majority_start(by_item, by_code, gold, alpha, n_classes, tied)
    else:
        confusion, prevalence = as_start(init, n_channels, n_classes)
    previous, converged, n_iter, loglik = -np.inf, False, 0, -np.inf
    while n_iter < max_iter:
        weights, loglik = _e_step(by_item, confusion, prevalence, gold)
        objective = loglik + (alpha - 1.0) * np.log(np.maximum(confusion, EPS)).sum()
        if abs(objective - previous) / responses.n_items < tol:
            converged = True
            break
        previous = objective
        n_iter += 1
        confusion, prevalence = _m_step(by_code, weights, alpha, n_classes, tied)
    if not converged:  # the last M-step moved the estimate: its log-likelihood
        loglik = _e_step(by_item, confusion, prevalence, gold)[1]
        warn_caller(
            f"crowd_em: no convergence within max_iter={max_iter} iterations (tol={tol:g} on "
            "the change in mean log posterior); the estimate is returned with converged=False",
            ConvergenceWarning,
        )
    if gold is None and tied is None:  # gold names the classes itself, and so does a tie
        per_channel = code_counts.reshape(n_channels, n_classes).sum(axis=1)
        confusion, prevalence = orient(confusion, prevalence, per_channel)
    return ConfusionEstimate(confusion[channel_of], prevalence, float(loglik), converged, n_iter)


def _with_gold(weights: np.ndarray, gold) -> np.ndarray:
    """The label posteriors (n, C) with every gold item's set to its one-hot gold label."""
    if gold is None:
        return weights
    known = gold != v.MISSING
    weights[known] = np.eye(weights.shape[1])[gold[known]]
    return weights


def _m_step(by_code, weights, alpha: float, n_classes: int, tied):
    """MAP confusion matrices (channels, C, C) and class proportions given the posteriors."""
    cells = (by_code @ weights).reshape(-1, n_classes, n_classes)  # (channel, k, y)
    cells = tie_rows(np.swapaxes(cells, 1, 2) + (alpha - 1.0), tied)  # (channel, y, k)
    totals = cells.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        # a channel with no label on items of some class: that row has no information
        confusion = np.where(totals > 0, cells / totals, 1.0 / n_classes)
    return confusion, weights.mean(axis=0)


def _e_step(by_item, confusion, prevalence, gold):
    """Label posteriors (n, C) and the log-likelihood (module docstring), given each item's
    ``gold`` label (n,; -1 for none) or None."""
    n_classes = confusion.shape[1]
    table = np.swapaxes(np.log(np.maximum(confusion, EPS)), 1, 2).reshape(-1, n_classes)
    # classes by rows (C, n): each reduction over the classes is C passes over long rows,
    # several times faster than reducing the short rows of (n, C) (scipy's logsumexp took
    # two thirds of an iteration)
    joint = np.ascontiguousarray((by_item @ table).T) + np.log(np.maximum(prevalence, EPS))[:, None]
    posterior, terms = normalised(joint, axis=0)
    if gold is None:
        return posterior.T, float(terms.sum())
    known = np.flatnonzero(gold != v.MISSING)
    terms[known] = joint[gold[known], known]  # log p(R_i, Y = g_i)
    return _with_gold(posterior.T, gold), float(terms.sum())
