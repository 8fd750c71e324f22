"""A density threshold for anomaly triage when labels are scarce.

A Gaussian kernel density of the scores on the logit scale, with the bandwidth chosen by
held-out likelihood; an item is flagged when its leave-one-out density is below a percentile of
its peers' (triage, not a verdict).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import DEFAULT_LEVEL, Result, old_spellings

__all__ = ["LogitKDEThreshold", "logit_kde_threshold"]


@dataclass(frozen=True, eq=False, repr=False)
class LogitKDEThreshold(Result):
    """A Gaussian KDE on the logit scale of scores in (0, 1), with a typicality threshold.

    Attributes
    ----------
    bandwidth : float
        Chosen by cross-validated held-out log-likelihood.
    loo_log_density : ndarray, shape (n,)
        ``l_i = log f_(-i)(y_i)`` on the score scale (Jacobian included).
    threshold : float
        The ``percentile``-th percentile of ``loo_log_density``.
    threshold_interval : (float, float)
        Bootstrap percentile interval of the threshold at ``level``.
    flagged : ndarray of bool
        ``loo_log_density < threshold``: unusual against the peers (triage, not a verdict).
    percentile : float
    """

    scores: np.ndarray
    bandwidth: float
    loo_log_density: np.ndarray
    threshold: float
    threshold_interval: tuple
    flagged: np.ndarray
    percentile: float

    def log_density(self, y) -> np.ndarray:
        """``log f_Y(y) = log f_Z(logit y) - log y - log(1 - y)`` for new scores in (0, 1)."""
        y = _open_unit(y, "y")
        return (
            _kde_log_density(special.logit(y), special.logit(self.scores), self.bandwidth)
            - np.log(y)
            - np.log1p(-y)
        )

    def smoothed_percentile(self, r) -> np.ndarray:
        """``F(r) = (1/n) sum_i Phi((logit r - logit r_i) / h)``, the kernel CDF over the peers."""
        r = _open_unit(r, "r")
        return special.ndtr(
            (special.logit(r)[:, None] - special.logit(self.scores)[None, :]) / self.bandwidth
        ).mean(axis=1)


def _open_unit(value, name: str) -> np.ndarray:
    array = v.as_finite_vector(np.atleast_1d(value), name)
    if ((array <= 0) | (array >= 1)).any():
        bad = array[(array <= 0) | (array >= 1)][0]
        raise ValueError(
            f"{name} must lie strictly inside (0, 1), where the logit is finite; saw {bad!r}"
        )
    return array


def _kde_log_density(points: np.ndarray, centres: np.ndarray, bandwidth: float) -> np.ndarray:
    """Log of the Gaussian KDE with ``centres`` at ``points`` (logit scale)."""
    z = (points[:, None] - centres[None, :]) / bandwidth
    return special.logsumexp(-0.5 * z**2, axis=1) - np.log(
        centres.size * bandwidth * np.sqrt(2 * np.pi)
    )


@old_spellings()
def logit_kde_threshold(
    scores, *, percentile=5.0, bandwidths=None, n_folds=5, n_boot=500, level=DEFAULT_LEVEL, seed=0
) -> LogitKDEThreshold:
    """Density threshold for anomaly triage when labels are scarce.

    The KDE is fitted on ``logit(y)`` (a kernel on (0, 1) would leak mass past the boundary)
    and mapped back with the Jacobian; the bandwidth maximises the held-out log-likelihood over
    ``n_folds`` folds; typicality is the leave-one-out log density, and the threshold its
    ``percentile``-th percentile, with a bootstrap interval.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Scores strictly inside (0, 1); at least ``n_folds`` of them.
    percentile : float in (0, 100), default 5
    bandwidths : array_like, optional
        Candidate bandwidths on the logit scale; default 30 values log-spaced around
        Silverman's rule (x 0.1 to x 3).
    n_folds, n_boot, level, seed
    """
    y = _open_unit(scores, "scores")
    if (
        isinstance(percentile, bool)
        or not isinstance(percentile, (int, float))
        or not 0 < percentile < 100
    ):
        raise ValueError(f"percentile must be a number in (0, 100); saw {percentile!r}")
    n_folds = v.as_int(n_folds, "n_folds", minimum=2)
    if y.size < max(n_folds, 3):
        raise ValueError(
            f"scores must hold at least {max(n_folds, 3)} values (n_folds and leave-one-out); saw {y.size}"
        )
    level = v.as_open_probability(level, "level")
    rng = np.random.default_rng(v.as_seed(seed))
    x = special.logit(y)
    spread = x.std(ddof=1)
    if bandwidths is None:
        if spread == 0:
            raise ValueError("scores are all equal: a density has no bandwidth to choose")
        silverman = 1.06 * spread * x.size ** (-0.2)
        candidates = silverman * np.geomspace(0.1, 3.0, 30)
    else:
        candidates = v.as_finite_vector(bandwidths, "bandwidths")
        if (candidates <= 0).any():
            raise ValueError(f"bandwidths must be positive; saw {candidates[candidates <= 0][0]!r}")
    folds = rng.permutation(x.size) % n_folds
    held_out = [
        sum(_kde_log_density(x[folds == k], x[folds != k], h).sum() for k in range(n_folds))
        for h in candidates
    ]
    bandwidth = float(candidates[int(np.argmax(held_out))])
    z = (x[:, None] - x[None, :]) / bandwidth
    kernel = -0.5 * z**2
    np.fill_diagonal(kernel, -np.inf)  # leave each point out of its own density
    loo = (
        special.logsumexp(kernel, axis=1)
        - np.log((x.size - 1) * bandwidth * np.sqrt(2 * np.pi))
        - np.log(y)
        - np.log1p(-y)
    )
    threshold = float(np.percentile(loo, percentile))
    boot = np.percentile(
        loo[rng.integers(0, loo.size, (v.as_int(n_boot, "n_boot", minimum=1), loo.size))],
        percentile,
        axis=1,
    )
    tail = (1.0 - level) / 2.0
    interval = (float(np.quantile(boot, tail)), float(np.quantile(boot, 1.0 - tail)))
    return LogitKDEThreshold(
        y, bandwidth, loo, threshold, interval, loo < threshold, float(percentile)
    )
