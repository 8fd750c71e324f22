"""The result of a calibration test (:func:`~bayescal.calibration_test`), binary or
multi-class, and what both forms compute alike: the bins merged until they hold enough items,
and the gap a test of those bins can detect."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._api import Result
from ..channels import Channels
from ..channels.confusion_fit import ConfusionChannels

__all__ = [
    "CHANNEL_SOURCES",
    "DETECTION_LEVEL",
    "DETECTION_POWER",
    "CalibrationTest",
    "detectable_gap",
    "gap_of_quadratic_form",
    "merged_groups",
    "monte_carlo_p_value",
]

#: The level and the power of :attr:`CalibrationTest.detectable_gap`: the gap found at the 5%
#: level (the verdict's, :data:`bayescal.report.verdict.VERDICT_LEVEL`) four times in five.
DETECTION_LEVEL = 0.05
DETECTION_POWER = 0.8

#: Where the channels of a test came from (:attr:`CalibrationTest.channels_from`).
CHANNEL_SOURCES = ("known", "reuse", "split")


@dataclass(frozen=True, eq=False, repr=False)
class CalibrationTest(Result):
    """Result of :func:`calibration_test`.

    Attributes
    ----------
    statistic : float
        ``X = sum_l T_l^2 / V_l`` over the bins tested.
    p_value : float
        ``P(X_null >= X)``: from chi-square with ``df`` degrees of freedom, or from
        ``n_replicates`` replicates (module docstring).
    df : int
        The number of bins tested (after merging small bins).
    method : str
        How the statistic and its null were formed, in words.
    lower, upper : ndarray of float, shape (df,)
        Score range of each bin tested: the lower edge of its first evaluation bin and the upper
        edge of its last.
    n_items : ndarray of int, shape (df,)
        Labelled items in each bin tested.
    residual : ndarray of float, shape (df,)
        ``T_l / n_l``: mean corrected label minus mean score (positive: under-confident there).
    contribution : ndarray of float, shape (df,)
        ``T_l^2 / V_l``, each bin's share of the statistic (1 on average under H0).
    detectable_gap : float
        The gap a "no evidence" leaves open: the gap ``|E[Y - Z]|``, the same in every bin
        tested (either sign), that the test finds at level :data:`DETECTION_LEVEL` in
        :data:`DETECTION_POWER` of data sets like these.  With such a gap ``T_l`` is about
        ``N(n_l delta, V_l)``, so ``X`` is noncentral chi-square with ``df`` degrees of
        freedom and noncentrality ``lambda = delta^2 sum_l n_l^2 / V_l``, and ``delta =
        sqrt(lambda* / sum_l n_l^2 / V_l)`` with ``lambda*`` the noncentrality of that power.
        At the channels used: with estimated channels, whose error widens the null, the gap
        the test finds is larger.
    n_tested, n_unlabelled : int
        Items in the test, and items left out: no label from an informative annotator, or
        labels whose IV precision is below :data:`~bayescal.correction.crowd.MIN_ITEM_PRECISION`.
    n_extremes : int
        Items scoring exactly 0 or 1 left out of a test with channels drawn under H0 (a
        :class:`~bayescal.BayesFit` of these items): H0 fixes their class, so the drawn
        channels take up any miscalibration there and the test cannot see it (module
        docstring).  Fewer than ``min_bin_items`` are kept in their bins (a few rounded
        scores; their miscalibration moves the ECE by at most their share), and every other
        test keeps them: 0 then.
    channels_from : str
        ``"known"``, ``"reuse"`` (estimated from these items) or ``"split"`` (from other items).
    channels : Channels or ConfusionChannels
        The channels the statistic was computed at: the known ones, the fit's estimate, or the
        posterior draw used (multi-class data: the confusion matrices).
    n_replicates : int
        Replicates behind a Monte Carlo p-value; 0 for the chi-square reference.

    For multi-class data (:mod:`bayescal.correction.class_calibration_test`) the bins are the
    cells (problem, merged bin): the top-label problem's bins, or every class's in turn, so
    ``lower``, ``upper``, ``n_items``, ``residual`` and ``contribution`` have one entry per
    cell; ``df`` is the rank of the cells' null covariance, for classwise cells one less
    than their number (every item's residuals sum to 0, so all the cells' do);
    ``contribution`` is ``T_c^2 / V_cc``,
    each cell's share as if the cells were independent (the classwise ones are not: the
    statistic is the quadratic form); ``detectable_gap`` is the gap in every cell that the
    quadratic form finds (its noncentrality ``delta^2 n^T V^+ n``).
    """

    statistic: float
    p_value: float
    df: int
    method: str = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    n_items: np.ndarray = field(repr=False)
    residual: np.ndarray = field(repr=False)
    contribution: np.ndarray = field(repr=False)
    detectable_gap: float
    n_tested: int = 0
    n_unlabelled: int = 0
    n_extremes: int = 0
    channels_from: str = "known"
    n_replicates: int = 0
    channels: Channels | ConfusionChannels | None = field(default=None, repr=False)


def detectable_gap(n_items: np.ndarray, null_variance: np.ndarray) -> float:
    """:attr:`CalibrationTest.detectable_gap` of bins of ``n_items`` items whose sums have
    variance ``null_variance`` under H0 (independent bins)."""
    return gap_of_quadratic_form(n_items.size, np.sum(n_items.astype(float) ** 2 / null_variance))


def gap_of_quadratic_form(df: int, coefficient: float) -> float:
    """The gap ``delta`` that a chi-square test with ``df`` degrees of freedom finds at level
    :data:`DETECTION_LEVEL` with power :data:`DETECTION_POWER` when a gap ``delta`` in every
    cell gives the noncentrality ``lambda = delta^2 coefficient`` (``coefficient = n^T V^+ n``
    of the cells' item counts ``n`` and null covariance ``V``)."""
    from scipy import optimize, stats  # scipy.stats loads slowly: only when a test runs

    critical = stats.chi2.isf(DETECTION_LEVEL, df)
    # the noncentrality at which X exceeds the critical value with probability DETECTION_POWER:
    # the power rises with it from DETECTION_LEVEL (at 0), and passes 0.8 below 100 + 10 df
    noncentrality = optimize.brentq(
        lambda lam: stats.ncx2.sf(critical, df, lam) - DETECTION_POWER, 1e-9, 100.0 + 10.0 * df
    )
    return float(np.sqrt(noncentrality / coefficient))


def merged_groups(per_bin: np.ndarray, minimum: int) -> np.ndarray:
    """Group of each bin: consecutive bins joined until a group holds ``minimum`` items; a
    short last group joins the one before it (empty bins join whichever group they fall in)."""
    group = np.zeros(per_bin.size, dtype=np.int64)
    current, held = 0, 0
    for position, count in enumerate(per_bin):
        group[position] = current
        held += count
        if held >= minimum and position < per_bin.size - 1:
            current, held = current + 1, 0
    if held < minimum and current > 0:  # the last group is short: it joins the previous one
        group[group == current] = current - 1
    return group


def monte_carlo_p_value(null: np.ndarray, statistic: float) -> float:
    """``(1 + #{X* >= X}) / (1 + B)`` of ``B`` replicate statistics ``null``: on the grid
    ``1 / (B + 1)``, never 0."""
    return float((1 + np.sum(null >= statistic)) / (1 + null.size))
