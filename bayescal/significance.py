"""Significance tests of calibration against the true label, from noisy annotators (issue 18).

``H0: E[Y - Z | Z in B_l] = 0`` for every evaluation bin ``B_l``.  Tests of calibration in use
(Hosmer–Lemeshow, Spiegelhalter's Z, consistency resampling of Bröcker & Smith 2007, T-Cal of
Lee et al. 2022) score the predictor against clean labels; on noisy votes they reject
calibrated predictors and accept miscalibrated ones.  This one scores it against the
noise-corrected labels.

With known channels, the corrected label of item ``i`` over the annotators ``j`` it has,

    U_i = sum_j alpha_ij (A_ij - a_j) / d_j,        d_j = b_j - a_j,

has ``E[U_i | Y_i] = Y_i`` (paper Lemma C.2) whenever the weights ``alpha_ij`` do not depend on
the labels.  Here they are the inverse-variance weights of App. F.4 taken at ``mu = Z_i`` (the
score in place of the class proportion), normalised over the item's informative annotators.
An item whose informative IV precision at ``mu = Z_i`` is below
:data:`~bayescal._response_moments.MIN_ITEM_PRECISION` (noise variance above 1) is left out, by
the one rule of DESIGN §4 that the crowd corrections follow: a label from a near-random worker
would dominate its bin with a Bernoulli term far from normal, breaking the chi-square null.
Under H0, given ``Z_i``, ``Y_i ~ Bernoulli(Z_i)`` and

    Var(U_i | Z_i) = Z_i (1 - Z_i)
                     + sum_j alpha_ij^2 [(1 - Z_i) a_j (1 - a_j) + Z_i b_j (1 - b_j)] / d_j^2,

a variance known under H0.  Sample variances of the heavy-tailed ``U`` are unsteady in small
bins (issue 18 measured a corrected-label chi-square with sample variances at 19.5% size at the
5% level on a design with a few items in the top bins).  Per bin, ``T_l = sum_{i in B_l} (U_i -
Z_i)`` and ``V_l = sum_{i in B_l} Var(U_i | Z_i)``; the statistic

    X = sum_l T_l^2 / V_l

is chi-square with ``L`` degrees of freedom under H0 as the bins fill (a sum of independent
terms per bin, central limit theorem).  Bins with fewer than ``min_bin_items`` labelled items are
merged into their neighbours first, so ``L`` is the number of bins tested.

What it cannot see: miscalibration that cancels within a bin.  What it assumes: the channels
are the true ones and the same for every item (noise that does not depend on the score),
annotators independent given Y, and labels missing independently of Y given Z.  Estimated
channels carry an estimation error this null lacks, so an EM or posterior estimate is not
accepted here (issue 18 asks for a Wald, bootstrap or sampled-posterior version for them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validation as v
from ._api import DEFAULT_N_BINS, Result, warn_caller
from ._channel_screen import screen_channels
from ._response_moments import MIN_ITEM_PRECISION
from ._weight_rules import raw_rule_weights
from .channels import ChannelFit
from .data import AnnotatedScores
from .exceptions import BinningWarning
from .metrics import assign_bins

#: Bins with fewer labelled items than this are merged into a neighbour before testing: the
#: chi-square null needs each bin's sum to be roughly normal (issue 18: a sample-variance
#: chi-square held its size once bins under 30 items were dropped).
MIN_BIN_ITEMS = 30


@dataclass(frozen=True, eq=False, repr=False)
class CalibrationTest(Result):
    """Result of :func:`calibration_test`.

    Attributes
    ----------
    statistic : float
        ``X = sum_l T_l^2 / V_l`` over the bins tested.
    p_value : float
        ``P(chi2_df >= X)``.
    df : int
        The number of bins tested (after merging small bins).
    method : str
        How the statistic was formed, in words.
    lower, upper : ndarray of float, shape (df,)
        Score range of each bin tested: the lower edge of its first evaluation bin and the upper
        edge of its last.
    n_items : ndarray of int, shape (df,)
        Labelled items in each bin tested.
    residual : ndarray of float, shape (df,)
        ``T_l / n_l``: mean corrected label minus mean score (positive: under-confident there).
    contribution : ndarray of float, shape (df,)
        ``T_l^2 / V_l``, each bin's share of the statistic (1 on average under H0).
    n_tested, n_unlabelled : int
        Items in the test, and items left out: no label from an informative annotator, or
        labels whose IV precision is below :data:`~bayescal._response_moments.MIN_ITEM_PRECISION`.
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
    n_tested: int = 0
    n_unlabelled: int = 0


def calibration_test(
    data, channels, *, n_bins=DEFAULT_N_BINS, strategy="uniform", min_bin_items=MIN_BIN_ITEMS
) -> CalibrationTest:
    """Test ``H0: E[Y - Z | Z in B_l] = 0`` in every bin from noisy labels and known channels.

    The statistic, its null and its assumptions are in the module docstring.

    Parameters
    ----------
    data : AnnotatedScores
    channels : Channels
        The annotators' true (or externally known) channels, in the data's annotator order.
        An uninformative annotator (``|b - a| < 1e-4``) weighs 0, with a warning.
    n_bins : int or "auto", default 10
        Evaluation bins before merging.
    strategy : {"uniform", "quantile"}, default "uniform"
    min_bin_items : int, default 30
        Bins with fewer labelled items are merged into their neighbours (left to right; a short
        last group joins the one before it).

    Returns
    -------
    CalibrationTest

    Examples
    --------
    >>> import bayescal as bc
    >>> sim = bc.toy_data(4000, condition="calibrated", seed=1)
    >>> result = bc.calibration_test(sim.data, sim.channels)
    >>> result.df, bool(result.p_value > 0.05)
    (10, True)
    """
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    if isinstance(channels, ChannelFit) or hasattr(channels, "draws"):  # EM, or a BayesFit
        raise TypeError(
            "channels must be known bayescal.Channels; saw an estimate "
            f"({type(channels).__name__}): its estimation error is not in this test's null, "
            "which would reject too often"
        )
    channels, informative = screen_channels(channels, data.n_annotators, list(data.annotator_names))
    n_bins = v.as_n_bins(n_bins, data.n_items)
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    min_bin_items = v.as_int(min_bin_items, "min_bin_items", minimum=1)

    scores = data.scores
    target, variance, labelled = _corrected_labels_and_null_variance(data, channels, informative)
    n_tested = int(labelled.sum())
    if n_tested < min_bin_items:
        raise ValueError(
            f"data: {n_tested} items have labels informative enough to test (IV precision at "
            f"least {MIN_ITEM_PRECISION:g}); the test needs "
            f"at least min_bin_items={min_bin_items} in a bin"
        )
    if n_tested < data.n_items:
        warn_caller(
            f"calibration_test: {data.n_items - n_tested} of {data.n_items} items have no label "
            f"from an informative annotator, or labels of IV precision below "
            f"{MIN_ITEM_PRECISION:g}, and are left out of the test",
            BinningWarning,
        )
    index, edges = assign_bins(scores, n_bins, strategy)
    index, scores = index[labelled], scores[labelled]
    group_of_bin = _merged_groups(np.bincount(index, minlength=n_bins), min_bin_items)
    group = group_of_bin[index]
    n_groups = int(group_of_bin.max()) + 1
    n_items = np.bincount(group, minlength=n_groups)
    residual_sum = np.bincount(group, target[labelled] - scores, minlength=n_groups)
    null_variance = np.bincount(group, variance[labelled], minlength=n_groups)
    if (null_variance <= 0).any():
        raise ValueError(
            "data: a bin has variance 0 under H0 (scores of 0 or 1 labelled by perfect "
            "annotators), so the test is undefined there"
        )
    contribution = residual_sum**2 / null_variance
    statistic = float(contribution.sum())
    from scipy import stats

    first_bin = np.searchsorted(group_of_bin, np.arange(n_groups))  # groups are runs of bins
    last_bin = np.r_[first_bin[1:] - 1, n_bins - 1]
    return CalibrationTest(
        statistic=statistic,
        p_value=float(stats.chi2.sf(statistic, n_groups)),
        df=n_groups,
        method=(
            "chi-square over bins of noise-corrected residuals (IV weights at mu = Z), "
            f"variance known under H0; bins under {min_bin_items} items merged"
        ),
        lower=edges[first_bin],
        upper=edges[last_bin + 1],
        n_items=n_items,
        residual=residual_sum / n_items,
        contribution=contribution,
        n_tested=n_tested,
        n_unlabelled=data.n_items - n_tested,
    )


def _corrected_labels_and_null_variance(data, channels, informative):
    """Per item ``U_i``, ``Var(U_i | Z_i)`` under H0 and whether it is tested (module docstring),
    from the sparse responses (memory O(responses), for crowds as for a few annotators)."""
    responses = data.responses()
    keep = informative[responses.annotator]
    item, worker = responses.item[keep], responses.annotator[keep]
    label = responses.label[keep].astype(np.float64)
    a, b = np.asarray(channels.a, float)[worker], np.asarray(channels.b, float)[worker]
    z = data.scores[item]
    gap = b - a
    noise_variance = ((1.0 - z) * a * (1.0 - a) + z * b * (1.0 - b)) / gap**2
    weight = raw_rule_weights(a[:, None], b[:, None], z, "iv")[:, 0]  # 1 / noise variance
    n = data.n_items
    total = np.bincount(item, weight, minlength=n)
    labelled = total >= MIN_ITEM_PRECISION
    safe = np.where(labelled, total, 1.0)
    target = np.bincount(item, weight * (label - a) / gap, minlength=n) / safe
    noise = np.bincount(item, weight**2 * noise_variance, minlength=n) / safe**2
    return target, data.scores * (1.0 - data.scores) + noise, labelled


def _merged_groups(per_bin: np.ndarray, minimum: int) -> np.ndarray:
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
