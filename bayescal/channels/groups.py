"""Score groups for the grouped (Hui–Walter) models (paper §4.2, App. D.3).

Groups are built from the predictor's scores, never from labels: ``G = 1(Z >= t)`` for a
threshold ``t``, or equal-width / equal-mass score bins.  The paper fixes the partition in
advance or on an independent pilot sample; building it from the same sample's scores (as the
quantile strategy does) is common practice but outside its fixed-partition guarantees.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as v
from .._api import old_spellings
from ..metrics.calibration import assign_bins

__all__ = ["score_groups"]


@old_spellings()
def score_groups(scores, *, thresholds=None, n_groups=None, strategy="uniform") -> np.ndarray:
    """Score-group id of each item.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Predicted probabilities in [0, 1].
    thresholds : array_like, optional
        Increasing cut points in (0, 1); item i is in group ``#{t : t <= z_i}``, so a single
        threshold gives ``G = 1(Z >= t)`` as in paper §4.2.
    n_groups : int, optional
        Number of groups ``L``; used instead of ``thresholds``.
    strategy : {"uniform", "quantile"}, default "uniform"
        With ``n_groups``: equal-width groups ``[k/L, (k+1)/L)`` or equal-mass groups whose tied
        scores share a group, with the bin conventions of :mod:`bayescal.metrics.calibration`.

    Returns
    -------
    ndarray of int, shape (n,)
        Group ids in ``0 .. L - 1``; a group no score falls into is simply absent.

    Examples
    --------
    >>> score_groups([0.1, 0.5, 0.7], thresholds=[0.5]).tolist()
    [0, 1, 1]
    """
    scores = v.as_scores(scores)
    if (thresholds is None) == (n_groups is None):
        raise ValueError(
            "score_groups needs exactly one of thresholds or n_groups; saw "
            + ("both" if thresholds is not None else "neither")
        )
    if n_groups is not None:
        n_groups = v.as_int(n_groups, "n_groups", minimum=1)
        strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
        return assign_bins(scores, n_groups, strategy)[0]
    cuts = v.as_finite_vector(np.atleast_1d(thresholds), "thresholds")
    if (cuts <= 0).any() or (cuts >= 1).any():
        raise ValueError(f"thresholds must lie strictly inside (0, 1); saw {cuts.tolist()}")
    if (np.diff(cuts) <= 0).any():
        raise ValueError(f"thresholds must be strictly increasing; saw {cuts.tolist()}")
    return np.searchsorted(cuts, scores, side="right")
