"""What every calibration test shares (:mod:`bayescal.significance`): the responses, the items
tested and their bin groups at the channels the test starts from; the statistic
``X = sum_l T_l^2 / V_l`` with its variance known under H0; labels replicated under H0; and the
result type.  Only labels, channels and the dependent pairs' covariances vary between
replicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ._api import Result, warn_caller
from ._channel_screen import screen_channels
from ._response_moments import MIN_ITEM_PRECISION
from ._weight_rules import VARIANCE_FLOOR, corrected_noise_variance, raw_rule_weights
from .channels import MIN_GAP, Channels
from .exceptions import BinningWarning
from .metrics import assign_bins

__all__ = [
    "CHANNEL_SOURCES",
    "MIN_BIN_ITEMS",
    "CalibrationLayout",
    "CalibrationTest",
    "merged_groups",
    "replicate_labels",
]

#: Bins with fewer labelled items than this are merged into a neighbour before testing: the
#: chi-square null needs each bin's sum to be roughly normal (issue 18: a sample-variance
#: chi-square held its size once bins under 30 items were dropped).
MIN_BIN_ITEMS = 30

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
    n_tested, n_unlabelled : int
        Items in the test, and items left out: no label from an informative annotator, or
        labels whose IV precision is below :data:`~bayescal._response_moments.MIN_ITEM_PRECISION`.
    channels_from : str
        ``"known"``, ``"reuse"`` (estimated from these items) or ``"split"`` (from other items).
    channels : Channels
        The channels the statistic was computed at: the known ones, the fit's estimate, or the
        posterior draw used.
    n_replicates : int
        Replicates behind a Monte Carlo p-value; 0 for the chi-square reference.
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
    channels_from: str = "known"
    n_replicates: int = 0
    channels: Channels | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False)
class CalibrationLayout:
    """What every replicate of one test shares: the responses, the items tested and their bin
    groups, fixed at the channels the test starts from; only labels and channels vary."""

    scores: np.ndarray  # (n,)
    item: np.ndarray  # (R,) every response
    annotator: np.ndarray  # (R,)
    label: np.ndarray  # (R,) the observed labels
    kept: np.ndarray  # (R,) responses of informative annotators
    group: np.ndarray  # (n,) the bin group of a tested item, -1 for one left out
    lower: np.ndarray
    upper: np.ndarray
    n_items: np.ndarray
    n_unlabelled: int
    min_bin_items: int
    channels: Channels  # the channels the test starts from, as given
    a: np.ndarray  # (K,) and screened: an uninformative annotator's never observed
    b: np.ndarray
    #: (D, 2) columns of the dependent pairs, and their covariances (D, 2) given Y = 0, 1
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    covariance: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    @classmethod
    def of(
        cls,
        data,
        channels,
        n_bins,
        strategy,
        min_bin_items,
        *,
        selected_by=None,
        responses=None,
        dependence=None,
    ) -> CalibrationLayout:
        """The layout of ``data`` at ``channels``; the items tested are chosen by the IV
        precision at ``selected_by`` (default: ``channels``): a posterior's mean rather than
        its one noisy draw, whose weaker gaps could leave every item of a weak panel out.
        ``dependence`` is ``(pairs (D, 2), covariance (D, 2))`` of a dependent model."""
        given = channels
        channels, informative = screen_channels(
            channels, data.n_annotators, list(data.annotator_names)
        )
        a, b = np.asarray(channels.a, float), np.asarray(channels.b, float)
        chosen = channels if selected_by is None else selected_by
        responses = data.responses() if responses is None else responses  # one pass per test
        kept = informative[responses.annotator]
        item, worker = responses.item[kept], responses.annotator[kept]
        weight = raw_rule_weights(
            np.asarray(chosen.a, float)[worker][:, None],
            np.asarray(chosen.b, float)[worker][:, None],
            data.scores[item],
            "iv",
        )
        labelled = np.bincount(item, weight[:, 0], minlength=data.n_items) >= MIN_ITEM_PRECISION
        n_tested = int(labelled.sum())
        if n_tested < min_bin_items:
            raise ValueError(
                f"data: {n_tested} items have labels informative enough to test (IV precision "
                f"at least {MIN_ITEM_PRECISION:g}); the test needs "
                f"at least min_bin_items={min_bin_items} in a bin"
            )
        if n_tested < data.n_items:
            warn_caller(
                f"calibration_test: {data.n_items - n_tested} of {data.n_items} items have no "
                f"label from an informative annotator, or labels of IV precision below "
                f"{MIN_ITEM_PRECISION:g}, and are left out of the test",
                BinningWarning,
            )
        index, edges = assign_bins(data.scores, n_bins, strategy)
        group_of_bin = merged_groups(np.bincount(index[labelled], minlength=n_bins), min_bin_items)
        group = np.where(labelled, group_of_bin[index], -1)
        n_groups = int(group_of_bin.max()) + 1
        first_bin = np.searchsorted(group_of_bin, np.arange(n_groups))  # groups: runs of bins
        last_bin = np.r_[first_bin[1:] - 1, n_bins - 1]
        layout = cls(
            data.scores,
            responses.item,
            responses.annotator,
            responses.label,
            kept,
            group,
            edges[first_bin],
            edges[last_bin + 1],
            np.bincount(group[labelled], minlength=n_groups),
            data.n_items - n_tested,
            min_bin_items,
            given,
            a,
            b,
        )
        if dependence is not None:
            pairs, covariance = dependence
            layout = replace(layout, pairs=pairs, covariance=np.asarray(covariance, float))
        return layout

    def bin_sums(self, label, a, b, covariance) -> tuple[np.ndarray, np.ndarray]:
        """Per bin group ``T_l`` and ``V_l`` (module docstring) of ``label`` (every response)
        corrected with channels ``a, b`` (K,) at IV weights taken at ``mu = Z_i``.

        A dependent pair ``(j, k)`` that labelled item ``i`` adds the covariance of its two
        noise terms to the item's variance: ``2 alpha_ij alpha_ik [(1 - Z_i) c_0 + Z_i c_1] /
        (d_j d_k)``, with ``covariance`` (D, 2) the pairs' ``c_y``
        (:mod:`bayescal.channels.dependence`; given ``Z_i``, ``Y_i ~ Bernoulli(Z_i)`` under H0)."""
        item, worker = self.item[self.kept], self.annotator[self.kept]
        label = label[self.kept].astype(np.float64)
        a = a[worker]
        gap = b[worker] - a
        # a refitted channel may come out uninformative: its weight is then ~0, not 0 / 0
        gap = np.where(np.abs(gap) < MIN_GAP, np.where(gap < 0, -MIN_GAP, MIN_GAP), gap)
        z = self.scores[item]
        noise_variance = corrected_noise_variance(a, a + gap, z)
        weight = 1.0 / np.maximum(noise_variance, VARIANCE_FLOOR)  # the IV rule's weight
        n = self.scores.size
        total = np.bincount(item, weight, minlength=n)
        safe = np.where(total > 0, total, 1.0)
        target = np.bincount(item, weight * (label - a) / gap, minlength=n) / safe
        noise = np.bincount(item, weight**2 * noise_variance, minlength=n) / safe**2
        for (j, k), (given_0, given_1) in zip(self.pairs, covariance):
            scaled = []  # alpha_ij / d_j of each item (0 where j gave no kept label)
            for member in (j, k):
                mine = worker == member
                column = np.zeros(n)
                column[item[mine]] = weight[mine] / gap[mine]
                scaled.append(column)
            pair = (1.0 - self.scores) * given_0 + self.scores * given_1
            noise += 2.0 * scaled[0] * scaled[1] * pair / safe**2
        variance = self.scores * (1.0 - self.scores) + noise
        tested = self.group >= 0
        group, n_groups = self.group[tested], self.n_items.size
        residual_sum = np.bincount(group, target[tested] - self.scores[tested], n_groups)
        null_variance = np.bincount(group, variance[tested], n_groups)
        if (null_variance <= 0).any():
            raise ValueError(
                "data: a bin has variance 0 under H0 (scores of 0 or 1 labelled by perfect "
                "annotators), so the test is undefined there"
            )
        return residual_sum, null_variance

    def statistic(self, label, a, b, covariance) -> float:
        residual_sum, null_variance = self.bin_sums(label, a, b, covariance)
        return float(np.sum(residual_sum**2 / null_variance))

    def replicate(self, rng, a, b, covariance) -> np.ndarray:
        """Labels of this layout's responses drawn anew under H0 (:func:`replicate_labels`)
        at channels ``a, b`` and the pairs' ``covariance``."""
        return replicate_labels(
            rng, self.scores, self.item, self.annotator, a, b, self.pairs, covariance
        )

    def result(self, *, null=None, channels_from="known", how: str) -> CalibrationTest:
        """The :class:`CalibrationTest` of the observed labels at the layout's channels, its
        p-value from chi-square (``null`` None) or from the replicate statistics ``null``;
        ``how`` says where the channels came from, for :attr:`CalibrationTest.method`."""
        from scipy import stats

        residual_sum, null_variance = self.bin_sums(self.label, self.a, self.b, self.covariance)
        contribution = residual_sum**2 / null_variance
        statistic = float(contribution.sum())
        df = int(self.n_items.size)
        if null is None:
            p_value, reference = float(stats.chi2.sf(statistic, df)), "chi-square reference"
        else:
            p_value = float((1 + np.sum(null >= statistic)) / (1 + null.size))
            reference = f"p-value from {null.size} replicates under H0"
        return CalibrationTest(
            statistic=statistic,
            p_value=p_value,
            df=df,
            method=(
                "chi-square over bins of noise-corrected residuals (IV weights at mu = Z), "
                f"variance known under H0, bins under {self.min_bin_items} items merged; "
                f"{how}; {reference}"
            ),
            lower=self.lower,
            upper=self.upper,
            n_items=self.n_items,
            residual=residual_sum / self.n_items,
            contribution=contribution,
            n_tested=int(self.n_items.sum()),
            n_unlabelled=self.n_unlabelled,
            channels_from=channels_from,
            n_replicates=0 if null is None else int(null.size),
            channels=self.channels,
        )


def replicate_labels(rng, scores, item, annotator, a, b, pairs=None, covariance=None):
    """The responses ``(item, annotator)`` drawn anew under H0: ``Y_i ~ Bernoulli(Z_i)``, then
    each label from its annotator's channel (``b`` if ``Y_i = 1``, else ``a``); who labels
    what is kept.  A dependent pair (``pairs`` (D, 2), ``covariance`` (D, 2)) that labelled an
    item answers jointly from its 2 x 2 table given ``Y_i``
    (:mod:`bayescal.channels.dependence`); alone, each member answers from its channel."""
    truth = rng.random(scores.size) < scores
    chance = np.where(truth[item], b[annotator], a[annotator])
    label = (rng.random(item.size) < chance).astype(np.int8)
    for (j, k), (given_0, given_1) in zip(
        () if pairs is None else pairs, () if covariance is None else covariance
    ):
        position = []  # each item's response of j (and of k), -1 where it has none
        for member in (j, k):
            column = np.full(scores.size, -1)
            mine = np.flatnonzero(annotator == member)
            column[item[mine]] = mine
            position.append(column)
        both = np.flatnonzero((position[0] >= 0) & (position[1] >= 0))
        y = truth[both]
        first = np.where(y, b[j], a[j])
        second = np.where(y, b[k], a[k])
        shared = np.where(y, given_1, given_0)
        p11 = first * second + shared
        p10 = first * (1.0 - second) - shared
        p01 = (1.0 - first) * second - shared
        u = rng.random(both.size)
        label[position[0][both]] = u < p11 + p10
        label[position[1][both]] = (u < p11) | ((u >= p11 + p10) & (u < p11 + p10 + p01))
    return label


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
