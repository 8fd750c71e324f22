"""Significance tests of calibration against the true label, from noisy annotators.

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
:data:`~bayescal.correction.crowd.MIN_ITEM_PRECISION` (noise variance above 1) is left out, by
the crowd rule of :mod:`bayescal.correction.crowd`: a label from a near-random worker
would dominate its bin with a Bernoulli term far from normal, breaking the chi-square null.
Under H0, given ``Z_i``, ``Y_i ~ Bernoulli(Z_i)`` and

    Var(U_i | Z_i) = Z_i (1 - Z_i)
                     + sum_j alpha_ij^2 [(1 - Z_i) a_j (1 - a_j) + Z_i b_j (1 - b_j)] / d_j^2,

a variance known under H0.  Sample variances of the heavy-tailed ``U`` are unsteady in small
bins (benchmarks/RESULTS.md measured a corrected-label chi-square with sample variances at 19.5% size at the
5% level on a design with a few items in the top bins).  Per bin, ``T_l = sum_{i in B_l} (U_i -
Z_i)`` and ``V_l = sum_{i in B_l} Var(U_i | Z_i)``; the statistic

    X = sum_l T_l^2 / V_l

is chi-square with ``L`` degrees of freedom under H0 as the bins fill (a sum of independent
terms per bin, central limit theorem).  Bins with fewer than ``min_bin_items`` labelled items are
merged into their neighbours first, so ``L`` is the number of bins tested.

What it cannot see: miscalibration that cancels within a bin.  What it assumes: the channels
are the same for every item (noise that does not depend on the score), annotators independent
given Y, and labels missing independently of Y given Z.

**Estimated channels.**  The statistic at estimated channels carries their estimation error,
which a null drawn at fixed channels lacks, so the chi-square reference (or a fixed-channel null
integrated over posterior draws) would reject too often.  How each estimate is treated:

- known :class:`~bayescal.Channels`: the chi-square reference above;
- an EM (or moment) :class:`~bayescal.channels.ChannelFit` of these data (*reuse*: its
  :attr:`~bayescal.channels.ChannelFit.data_fingerprint` is theirs): a parametric bootstrap
  that refits the channels.  Each replicate draws ``Y_i ~ Bernoulli(Z_i)`` (H0) and every
  observed label from the fitted channels (the observed missingness kept), refits the same
  estimator on it and computes the statistic at the refitted channels;
  ``p = (1 + #{X* >= X}) / (1 + B)``.  Channels fitted on other items (*split*): pass those
  items as ``fit_data``; each replicate then draws them too and refits on them;
- a :class:`~bayescal.BayesFit` of these data (reuse): the sampled-posterior p-value (Johnson
  2004, 2007; Gosselin 2011): the statistic at one draw of the channels' posterior, against
  chi-square.  The statistic at fixed channels is asymptotically chi-square whatever the
  channels (a pivot), so at a draw of the posterior *of the model tested* it keeps that
  null.  The fit's own posterior is not that one: it has the annotations but not the scores
  (its draws rejected a calibrated predictor in 8% to 90% of replicates at the 5% level,
  benchmarks/RESULTS.md).  The draw is therefore taken from the channels' posterior under H0,
  with the fit's priors, by a short Gibbs run started at a draw of the fit
  (:mod:`~bayescal.correction.h0_posterior`).  Items scoring exactly 0 or 1 enter that
  draw but not the statistic: H0 fixes their class (``Y = Z``), so the drawn channels fit
  their labels whatever their true class, and their bins would add degrees of freedom without
  power (on a hard classifier, 0.26 positives among the items scored 0 gave p = 0.64).  At
  least ``min_bin_items`` of them are left out, said in a warning and counted in
  ``n_extremes`` (fewer stay in their bins); data scoring only 0 or 1 are refused, naming the
  EM fit's refitting bootstrap, which tests them.  A BayesFit of other items (split): the
  statistic at one posterior draw against its posterior predictive distribution under H0
  (each replicate draws its true channels from the posterior and the labels from them):
  exact under the fit's model, the posterior of the other items acting as the prior.  A
  shared-difficulty fit of other items: each replicate also draws every item's effect, so
  the null carries the covariances it gives every pair of annotators (simulated, not
  chi-square).  A shared-difficulty fit of the same items: the channels and loadings are
  drawn from their posterior under H0 by Metropolis steps (the item effect has no conjugate
  step), and the variance ``Var(U_i | Z_i)`` adds the covariance the effect gives each pair
  of the item's judges, ``2 alpha_ij alpha_ik [(1 - Z_i) c_jk0 + Z_i c_jk1] / (d_j d_k)``
  (:func:`~bayescal.channels.difficulty.pair_covariances`), so the chi-square reference
  holds: size 4.0% at 5% over 200 calibrated data sets of five judges (2 000 items,
  loadings 1 and 1.5), where the judges read as independent reject 16.5% with the true
  channels and 99.5% with an EM fit (benchmarks/RESULTS.md).  With a BayesFit
  the items tested are chosen by the IV precision at the posterior mean, not at the one
  draw.  Measured size at the 5% level with a hierarchical fit of a crowd: 5.6% and 5.0%
  where workers have tens of labels.  Where most workers have 5 labels or fewer it was
  8.8-10.1%, against 7.5% for the true channels on the same data.  That excess is within
  its sampling error, and neither the draw's start nor the items chosen change it
  (benchmarks/RESULTS.md, "The calibration test on crowds").

References: Hosmer & Lemeshow (1980); Spiegelhalter (1986); Bröcker & Smith (2007), *Wea.
Forecasting* 22; Lee, Huang, Hassani & Dobriban (2022), T-Cal, arXiv:2203.01850; Johnson
(2004), A Bayesian chi-square test for goodness-of-fit, *Ann. Statist.* 32; Johnson (2007),
Bayesian model assessment using pivotal quantities, *Bayesian Anal.* 2; Gosselin (2011), A new
calibrated Bayesian internal goodness-of-fit method: sampled posterior p-values, *PLoS ONE* 6.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import DEFAULT_N_BINS, replicate_bar, warn_caller
from ..channels import MIN_GAP, ChannelFit, Channels
from ..channels.crowd_em import as_responses
from ..channels.cyclic_joint import draw_answers, joint_of_covariance
from ..channels.dependence import (
    child_chance,
    dependent_pairs,
    every_dependent_pair,
    pair_table,
    tree_order,
)
from ..channels.difficulty import answer_probability, pair_covariances
from ..channels.pattern_likelihood import linked_sets, lone_pairs
from ..channels.refits import refit_all
from ..data.annotated_scores import (
    AnnotatedScores,
    ids_differ,
    warn_of_shared_items,
)
from ..data.responses import name_order
from ..exceptions import BinningWarning, ChannelFitError, ChannelWarning
from ..metrics.calibration import assign_bins
from ._channel_screen import screen_channels
from .calibration_result import (
    CHANNEL_SOURCES,
    DETECTION_LEVEL,
    DETECTION_POWER,
    CalibrationTest,
    detectable_gap,
    merged_groups,
    monte_carlo_p_value,
)
from .class_calibration_test import class_calibration_test
from .crowd import MIN_ITEM_PRECISION
from .h0_posterior import (
    EDGE,
    H0_METROPOLIS_STEPS,
    H0_SWEEPS,
    DifficultyH0Density,
    H0Draw,
    h0_difficulty_draw,
    h0_posterior_draw,
    member_responses,
)
from .rectified import GoldRows, bin_lambdas, rectified_factors
from .weights import VARIANCE_FLOOR, corrected_noise_variance, raw_rule_weights

__all__ = [
    "CHANNEL_SOURCES",
    "DETECTION_LEVEL",
    "DETECTION_POWER",
    "MIN_BIN_ITEMS",
    "CalibrationTest",
    "calibration_test",
]


# --- what every test shares: the layout, the statistic, replicated labels -------------------------
# What every calibration test shares (:mod:`bayescal.correction.calibration_test`): the responses, the items
# tested and their bin groups at the channels the test starts from; the statistic
# ``X = sum_l T_l^2 / V_l`` with its variance known under H0; labels replicated under H0; and the
# result type.  Only labels, channels and the dependent pairs' covariances vary between
# replicates.

#: Bins with fewer labelled items than this are merged into a neighbour before testing: the
#: chi-square null needs each bin's sum to be roughly normal (measured: a sample-variance
#: chi-square held its size once bins under 30 items were dropped).
MIN_BIN_ITEMS = 30

#: Why a test with channels drawn under H0 leaves items scoring exactly 0 or 1 out: H0 says
#: their class (Y = Z), so the Gibbs draw of the channels uses them as gold items, and
#: miscalibration there moves the drawn channels instead of the statistic.
EXTREMES_UNSEEN = (
    "with channels drawn under H0 (a BayesFit of these items) their class is taken as known, "
    "so the channels would take up any miscalibration there and the test cannot see it"
)


def at_extremes(scores: np.ndarray) -> np.ndarray:
    """Which items score exactly 0 or 1: a BayesFit of the same items cannot test them
    (:data:`EXTREMES_UNSEEN`); an EM fit's refitting bootstrap can."""
    return (scores == 0.0) | (scores == 1.0)


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
    n_extremes: int  # labelled items scoring exactly 0 or 1 left out (``untested_extremes``)
    min_bin_items: int
    channels: Channels  # the channels the test starts from, as given
    a: np.ndarray  # (K,) and screened: an uninformative annotator's never observed
    b: np.ndarray
    #: (D, 2) columns of the dependent pairs, and their covariances (D, 2) given Y = 0, 1
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    covariance: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    #: With gold items: each item's gold label (-1 for none), its weight 1/pi, and each bin
    #: group's lambda of the rectified sums (module docstring), fixed at the observed labels
    gold: np.ndarray | None = None
    gold_weight: np.ndarray | None = None
    lambdas: np.ndarray | None = None

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
        untested_extremes=False,
    ) -> CalibrationLayout:
        """The layout of ``data`` at ``channels``; the items tested are chosen by the IV
        precision at ``selected_by`` (default: ``channels``): a posterior's mean rather than
        its one noisy draw, whose weaker gaps could leave every item of a weak panel out.
        ``dependence`` is ``(pairs (D, 2), covariance (D, 2))`` of a dependent model.
        ``untested_extremes`` leaves items scoring exactly 0 or 1 out when they are at least
        ``min_bin_items`` (channels drawn under H0: :attr:`CalibrationTest.n_extremes`)."""
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
        n_labelled = int(labelled.sum())
        extreme = labelled & at_extremes(data.scores)
        # fewer than a bin's worth stay in their bins: they cannot be tested as a bin, and
        # their miscalibration moves the ECE by at most their share (rounded scores give a few)
        if untested_extremes and extreme.sum() >= min_bin_items:
            labelled &= ~extreme
        n_tested = int(labelled.sum())
        n_extremes = n_labelled - n_tested
        if n_tested < min_bin_items:
            extremes = (
                f"; {n_extremes} more score exactly 0 or 1, {EXTREMES_UNSEEN}: test with an "
                "EM fit, calibration_test(data, dawid_skene_em(data)), whose refitting "
                "bootstrap sees them"
                if n_extremes
                else ""
            )
            raise ValueError(
                f"data: {n_tested} items have labels informative enough to test (together "
                f"telling at least as much as {MIN_ITEM_PRECISION:g} perfectly reliable label); "
                "the test needs "
                f"at least min_bin_items={min_bin_items} in a bin{extremes}"
            )
        if n_labelled < data.n_items:
            warn_caller(
                f"calibration_test: {data.n_items - n_labelled} of {data.n_items} items have no "
                "label from an informative annotator, or labels that together tell less than "
                f"{MIN_ITEM_PRECISION:g} perfectly reliable label would, and are left out of the "
                "test",
                ChannelWarning,
            )
        if n_extremes:
            warn_caller(
                f"calibration_test: {n_extremes} of {data.n_items} items score exactly 0 or 1 "
                f"and are left out of the test: {EXTREMES_UNSEEN}; an EM fit's refitting "
                "bootstrap, calibration_test(data, dawid_skene_em(data)), tests them",
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
            data.n_items - n_labelled,
            n_extremes,
            min_bin_items,
            given,
            a,
            b,
        )
        if dependence is not None:
            pairs, covariance = dependence
            layout = replace(layout, pairs=pairs, covariance=np.asarray(covariance, float))
        if data.n_gold:
            layout = layout.with_gold(data.gold, data.gold_weights)
        return layout

    def with_gold(self, gold: np.ndarray, inclusion: np.ndarray | None) -> CalibrationLayout:
        """The layout whose sums are the rectified ones of the gold items ``gold`` (their
        inclusion probabilities ``inclusion``, or a simple random sample), each bin group's
        lambda (:func:`~bayescal.correction.rectified.bin_lambdas`) taken at the observed
        labels and the layout's channels."""
        weight = np.ones(gold.size)
        if inclusion is not None:
            weight = np.where(
                gold != v.MISSING, 1.0 / np.where(gold != v.MISSING, inclusion, 1.0), 1.0
            )
        target, _ = self._item_terms(self.label, self.a, self.b, self.covariance)
        tested = self.group >= 0
        rows = GoldRows(
            self.group[tested],
            target[tested],
            gold[tested],
            np.ones(int(tested.sum())),
            weight[tested],
        )
        return replace(
            self, gold=gold, gold_weight=weight, lambdas=bin_lambdas(rows, self.n_items.size)
        )

    def _item_terms(self, label, a, b, covariance) -> tuple[np.ndarray, np.ndarray]:
        """Each item's corrected label ``U_i`` (n,) of ``label`` (every response) with
        channels ``a, b`` (K,) at IV weights taken at ``mu = Z_i``, and the variance of its
        noise ``U_i - Y_i`` given ``Z_i`` under H0 (n,).

        A dependent pair ``(j, k)`` that labelled item ``i`` adds the covariance of its two
        noise terms: ``2 alpha_ij alpha_ik [(1 - Z_i) c_0 + Z_i c_1] / (d_j d_k)``, with
        ``covariance`` (D, 2) the pairs' ``c_y`` (:mod:`bayescal.channels.dependence`; given
        ``Z_i``, ``Y_i ~ Bernoulli(Z_i)`` under H0).  Pairs that share an annotator form a
        tree or close a cycle, which correlates every two of its members: each such pair adds
        its term too (:func:`~bayescal.channels.dependence.every_dependent_pair`)."""
        pairs, covariance = every_dependent_pair(self.pairs, a, b, covariance)
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
        for (j, k), (given_0, given_1) in zip(pairs, covariance):
            scaled = []  # alpha_ij / d_j of each item (0 where j gave no kept label)
            for member in (j, k):
                mine = worker == member
                column = np.zeros(n)
                column[item[mine]] = weight[mine] / gap[mine]
                scaled.append(column)
            pair = (1.0 - self.scores) * given_0 + self.scores * given_1
            noise += 2.0 * scaled[0] * scaled[1] * pair / safe**2
        return target, noise

    def bin_sums(self, label, a, b, covariance, gold=None) -> tuple[np.ndarray, np.ndarray]:
        """Per bin group ``T_l`` and ``V_l`` (module docstring) of ``label`` (every response)
        corrected with channels ``a, b`` (K,); with gold items, the rectified sums of the gold
        labels ``gold`` (n,; default the observed ones)."""
        target, noise = self._item_terms(label, a, b, covariance)
        tested = self.group >= 0
        group, n_groups = self.group[tested], self.n_items.size
        z = self.scores[tested]
        bernoulli = z * (1.0 - z)
        if self.gold is None:
            terms, variances = target[tested] - z, bernoulli + noise[tested]
        else:
            terms, variances = self._rectified_terms(
                target[tested], noise[tested], (self.gold if gold is None else gold)[tested]
            )
        residual_sum = np.bincount(group, terms, n_groups)
        null_variance = np.bincount(group, variances, n_groups)
        if (null_variance <= 0).any():
            raise ValueError(
                "data: a bin has variance 0 under H0 (scores of 0 or 1 labelled by perfect "
                "annotators), so the test is undefined there"
            )
        return residual_sum, null_variance

    def _rectified_terms(self, target, noise, gold) -> tuple[np.ndarray, np.ndarray]:
        """Each tested item's term of the rectified ``T_l`` and its variance under H0.

        ``T_l`` is ``n_l`` times the bin group's rectified mean's residual
        (:mod:`bayescal.correction.rectified`): each item's term is ``g (Y_i - Z_i) + h (U_i -
        Z_i)`` (:func:`~bayescal.correction.rectified.rectified_factors`; for a simple random
        sample of gold, ``n_l lambda / N`` times ``U_i - Z_i`` on the ``N`` items without gold and
        ``(n_l w_i / m)(Y_i - lambda U_i - (1 - lambda) Z_i)`` on the ``m``-weighted gold), of
        variance ``(g + h)^2 Z(1 - Z) + h^2 v_i`` (``v_i`` the noise variance of ``U_i``:
        ``U_i - Y_i`` has mean 0 given ``Y_i``).  A group without gold has ``T_l = sum (U_i -
        Z_i)``."""
        tested = self.group >= 0
        z = self.scores[tested]
        is_gold = gold != v.MISSING
        weight = np.where(is_gold, self.gold_weight[tested], 1.0)
        g, h = rectified_factors(self.group[tested], is_gold, weight, self.n_items, self.lambdas)
        y = np.where(is_gold, gold, 0.0)
        terms = g * (y - z) + h * (target - z)
        variances = (g + h) ** 2 * z * (1.0 - z) + h**2 * noise
        return terms, variances

    def statistic(self, label, a, b, covariance, gold=None) -> float:
        residual_sum, null_variance = self.bin_sums(label, a, b, covariance, gold)
        return float(np.sum(residual_sum**2 / null_variance))

    def replicate(
        self, rng, a, b, covariance, loading=None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Labels of this layout's responses drawn anew under H0 (:func:`replicate_labels`)
        at channels ``a, b``, the pairs' ``covariance`` and a shared difficulty's ``loading``,
        and the gold labels of the replicate (its drawn classes of the gold items; None
        without gold)."""
        label, truth = replicate_labels(
            rng, self.scores, self.item, self.annotator, a, b, self.pairs, covariance, loading
        )
        gold = None if self.gold is None else np.where(self.gold != v.MISSING, truth, v.MISSING)
        return label, gold

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
            p_value = monte_carlo_p_value(null, statistic)
            reference = f"p-value from {null.size} replicates under H0"
        return CalibrationTest(
            statistic=statistic,
            p_value=p_value,
            df=df,
            detectable_gap=detectable_gap(self.n_items, null_variance),
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
            n_extremes=self.n_extremes,
            channels_from=channels_from,
            n_replicates=0 if null is None else int(null.size),
            channels=self.channels,
        )


def replicate_labels(rng, scores, item, annotator, a, b, pairs=None, covariance=None, loading=None):
    """The responses ``(item, annotator)`` drawn anew under H0, and the classes drawn (n,):
    ``Y_i ~ Bernoulli(Z_i)``, then each label from its annotator's channel (``b`` if
    ``Y_i = 1``, else ``a``); who labels what is kept.  A dependent pair (``pairs`` (D, 2),
    ``covariance`` (D, 2)) that labelled an item answers jointly from its 2 x 2 table given
    ``Y_i`` (:mod:`bayescal.channels.dependence`); alone, each member answers from its channel.
    The members of a tree of pairs that share annotators answer from the tree's joint: every
    member's answer to every item is drawn, the first member's from its channel and each
    other's from its parent's answer through their pair's table, and the answers of those who
    labelled the item are kept.  The members of pairs that close a cycle draw every item's
    answers at once from their log-linear joint given ``Y_i``
    (:mod:`bayescal.channels.cyclic_joint`), and the same answers are kept.
    With a shared difficulty's ``loading`` (2,) every item draws its effect ``R_i ~ N(0, 1)``
    and each label is a 1 with probability ``Phi(alpha_jy + beta_y R_i)``
    (:func:`~bayescal.channels.difficulty.answer_probability`)."""
    truth = rng.random(scores.size) < scores
    chance = np.where(truth[item], b[annotator], a[annotator])
    if loading is not None:
        effect = rng.standard_normal(scores.size)
        chance = answer_probability(
            chance, np.asarray(loading)[truth[item].astype(int)], effect[item]
        )
    label = (rng.random(item.size) < chance).astype(np.int8)
    pairs = np.zeros((0, 2), np.int64) if pairs is None else np.asarray(pairs, np.int64)
    covariance = np.zeros((0, 2)) if covariance is None else np.asarray(covariance, float)
    trees = linked_sets(pairs)
    for d in lone_pairs(pairs, trees):
        (j, k), (given_0, given_1) = pairs[d], covariance[d]
        position = member_responses(item, annotator, scores.size, (j, k))
        both = np.flatnonzero((position[0] >= 0) & (position[1] >= 0))
        y = truth[both]
        _, p01, p10, p11 = pair_table(
            np.where(y, b[j], a[j]), np.where(y, b[k], a[k]), np.where(y, given_1, given_0)
        )
        u = rng.random(both.size)
        label[position[0][both]] = u < p11 + p10
        label[position[1][both]] = (u < p11) | ((u >= p11 + p10) & (u < p11 + p10 + p01))
    for tree in trees:
        if not tree.is_tree:  # pairs that close a cycle: their log-linear joint, enumerated
            log_joint = np.stack(
                [
                    joint_of_covariance(
                        rates[tree.members], covariance[tree.pairs, y], tree.ends(pairs)
                    )
                    for y, rates in enumerate((a, b))
                ]
            )
            answers = draw_answers(rng, log_joint, truth.astype(np.int64))
            for position, member in enumerate(tree.members):
                mine = annotator == member
                label[mine] = answers[item[mine], position]
            continue
        # each member's rate item by item (members only: a crowd's items x workers would not fit)
        rates = {int(j): np.where(truth, b[j], a[j]) for j in tree.members}
        root = int(tree.members[0])
        answer = {root: rng.random(scores.size) < rates[root]}
        for d, parent, child in tree_order(tree, pairs):
            chance = child_chance(
                answer[parent],
                rates[parent],
                rates[child],
                np.where(truth, covariance[d, 1], covariance[d, 0]),
            )
            answer[child] = rng.random(scores.size) < chance
        for member, answers in answer.items():
            mine = annotator == member
            label[mine] = answers[item[mine]]
    return label, truth.astype(np.int8)


# --- the nulls at estimated channels --------------------------------------------------------------
# The nulls of :func:`bayescal.calibration_test` at estimated channels (module docstring of
# :mod:`bayescal.correction.calibration_test`): the refitting parametric bootstrap of a ChannelFit, and the
# sampled-posterior p-value or posterior predictive null of a BayesFit.

#: Share of the bootstrap's refits that may fail (no admissible estimate on a replicate)
#: before the p-value says so with a warning.
TOLERATED_FAILURES = 0.05


def bootstrap_test(data, fit: ChannelFit, fit_data, bins, n_replicates, rng, progress=False):
    """The refitting parametric bootstrap of an EM or moment fit (module docstring)."""
    fit.require()
    # the fit's pattern counts (its fingerprint, its refits) follow its column order: the data
    # are read in that order, their annotators matched by name (other names are refused)
    data = data.in_annotator_order(fit.annotator_names, of="the fit")
    same_counts = fit.data_fingerprint == fingerprint_of(data, fit.data_fingerprint)
    reuse = same_counts and not ids_differ(fit.item_ids, data.item_ids)
    if reuse and fit_data is not None:
        raise ValueError(
            "fit_data is for channels fitted on other items; these channels were fitted on "
            "data itself (the same fingerprint): leave fit_data out"
        )
    if not reuse:
        if fit_data is None:
            why = (
                "its items' ids differ"
                if same_counts
                else "the fingerprint of the data it records differs"
            )
            raise ValueError(
                f"channels: this {fit.method} fit was not fitted on data ({why}): pass the "
                "items it was fitted on as fit_data, so that the bootstrap refits on "
                "replicates of them; or pass Channels to treat the channels as known, which "
                "leaves their estimation error out of the null"
            )
        if not isinstance(fit_data, AnnotatedScores):
            raise TypeError(
                f"fit_data must be a bayescal.AnnotatedScores; saw {type(fit_data).__name__}"
            )
        fit_data = fit_data.in_annotator_order(fit.annotator_names, name="fit_data", of="the fit")
        if fit.data_fingerprint != fingerprint_of(fit_data, fit.data_fingerprint) or ids_differ(
            fit.item_ids, fit_data.item_ids
        ):
            raise ValueError(
                f"fit_data are not the items this {fit.method} fit was fitted on (the "
                "fingerprint of the data it records, or its items' ids, differ)"
            )
        warn_of_shared_items(
            data.item_ids,
            "the data tested",
            fit_data.item_ids if fit.item_ids is None else fit.item_ids,
            "fit_data (the channels' items)",
            "calibration_test",
        )
    pairs = dependent_pairs(fit.dependent or None, data.annotator_names).index
    covariance = fit.covariance if fit.dependent else np.zeros((0, 2))
    layout = CalibrationLayout.of(data, fit.channels, *bins, dependence=(pairs, covariance))
    truth = np.asarray(fit.channels.a, float), np.asarray(fit.channels.b, float)
    fitted_on = data if reuse else fit_data
    fitted_responses = (layout.item, layout.annotator)
    if not reuse:
        responses = fit_data.responses()
        fitted_responses = (responses.item, responses.annotator)
    null, failures = [], 0
    with replicate_bar(n_replicates, "calibration test (refitting bootstrap)", progress) as bar:
        for first in range(0, n_replicates, REFIT_BLOCK):
            labels, fit_labels = [], []
            for _ in range(first, min(first + REFIT_BLOCK, n_replicates)):
                labels.append(layout.replicate(rng, *truth, covariance))
                fit_labels.append(
                    labels[-1]
                    if reuse
                    else _with_gold(
                        fit_data,
                        replicate_labels(
                            rng, fit_data.scores, *fitted_responses, *truth, pairs, covariance
                        ),
                    )
                )
            refits = refitted(fit, fitted_on, *fitted_responses, fit_labels)
            for (label, gold), refit_of in zip(labels, refits):
                if refit_of is None:
                    failures += 1
                    continue
                null.append(
                    layout.statistic(label, refit_of.a, refit_of.b, refit_of.covariance, gold)
                )
            bar.update(len(labels))
    if failures > TOLERATED_FAILURES * n_replicates:
        if failures == n_replicates:
            raise ChannelFitError(
                f"calibration_test: {fit.method} found no admissible estimate on any of the "
                f"{n_replicates} bootstrap replicates; the test cannot account for the "
                "channels' estimation error"
            )
        warn_caller(
            f"calibration_test: {fit.method} failed on {failures} of {n_replicates} bootstrap "
            "replicates; the p-value is over the others, which may understate the channels' "
            "estimation error",
            BinningWarning,
        )
    how = (
        f"channels by {fit.method}, refitted on every replicate"
        + ("" if reuse else " of the items they were fitted on (split)")
        + " (refitting parametric bootstrap)"
    )
    return layout.result(null=np.array(null), channels_from="reuse" if reuse else "split", how=how)


class Refit(NamedTuple):
    """A bootstrap replicate's refitted channels and dependent pairs' covariances."""

    a: np.ndarray
    b: np.ndarray
    covariance: np.ndarray  # (D, 2); (0, 2) without dependent pairs


#: Replicates whose refits run together (:func:`refitted`): their labels are held at once.
REFIT_BLOCK = 50


def _with_gold(data, drawn) -> tuple[np.ndarray, np.ndarray | None]:
    """A replicate's labels of ``data`` and its gold labels: the drawn classes of the gold
    items (``drawn``: the labels and classes of :func:`replicate_labels`)."""
    label, truth = drawn
    if not data.n_gold:
        return label, None
    return label, np.where(data.gold != v.MISSING, truth, v.MISSING)


def refitted(fit: ChannelFit, data, item, annotator, labels) -> list[Refit | None]:
    """The channels (and the dependent pairs' covariances) that ``fit``'s estimator, with the
    options and pairs ``fit`` was fitted with, fits to ``data`` with its labels and gold
    replaced by each of ``labels`` (pairs of labels and gold labels, None without gold); None
    for a replicate without an admissible estimate
    (:func:`bayescal.channels.refits.refit_all`: the EM estimators with their defaults fit the
    replicates together, the others one call each)."""

    def replicate(drawn):
        label, gold = drawn
        annotations = np.full(data.annotations.shape, -1, dtype=np.int8)
        annotations[item, annotator] = label
        # a replicate's labels are drawn: it needs no ids, whose check sorts them (0.45 s
        # a replicate at a million items)
        return replace(data, annotations=annotations, gold=gold, gold_weights=None, item_ids=None)

    # one replicate's item-by-annotator table at a time (em_refits keeps only its pattern
    # counts): a block of 50 tables of 10^6 items would hold hundreds of MB
    refits = refit_all(fit.method, map(replicate, labels), fit.dependent or None, fit.options)
    return [
        None
        if refit is None
        else Refit(
            np.asarray(refit.channels.a, float),
            np.asarray(refit.channels.b, float),
            refit.covariance if fit.dependent else np.zeros((0, 2)),
        )
        for refit in refits
    ]


def fingerprint_of(data: AnnotatedScores, recorded: str) -> str:
    """The fingerprint of ``data`` of the kind ``recorded`` is (cells or responses)."""
    if recorded.startswith("responses:"):
        return as_responses(data).fingerprint
    return data.compress().fingerprint


def posterior_test(data, fit, bins, n_replicates, rng, progress=False):
    """The sampled-posterior p-value under H0 (reuse) or the posterior predictive null (split)
    of a BayesFit (module docstring)."""
    if fit.spec.channels_by_group:
        raise ValueError(
            f"channels: calibration_test with a {fit.model} fit (channels per score group) is "
            "not implemented; test with the hui_walter fit of these items"
        )
    positions = v.annotator_positions(data.annotator_names, fit.annotator_names, "data", "the fit")
    draws = fit.draws()
    a_draws, b_draws = draws.a[:, positions], draws.b[:, positions]
    chosen = int(rng.integers(a_draws.shape[0]))
    # named as data's columns, which a_draws follow (positions): the result shows them
    mean = Channels(
        a_draws.mean(axis=0),
        b_draws.mean(axis=0),
        adversarial=True,
        names=data.annotator_names,
    )
    pairs = np.argsort(positions)[fit.pair_index]  # the pairs' columns in data
    covariance_draws = fit.covariance_draws()
    if covariance_draws is None:
        covariance_draws = np.zeros((a_draws.shape[0], 0, 2))
    loading_draws = fit.loading_draws()
    reuse = fit.was_fitted_to(data)  # the same items: ids compared, pattern counts read
    if reuse:
        responses = data.responses()
        if loading_draws is None:
            drawn = h0_posterior_draw(
                data.scores,
                responses.item,
                responses.annotator,
                responses.label,
                a_draws[chosen],
                b_draws[chosen],
                fit.priors.as_array(),
                sweeps=H0_SWEEPS,
                rng=rng,
                shared=np.isin(data.annotator_names, fit.summed_out),
                gold=data.gold if data.n_gold else None,
                annotator_names=data.annotator_names,
                pairs=pairs,
                covariance=covariance_draws[chosen],
            )
            dependence = (pairs, drawn.covariance)
            steps = f"{H0_SWEEPS} Gibbs sweeps"
        else:
            drawn = _h0_difficulty(data, fit, a_draws, b_draws, loading_draws, chosen, rng)
            # the item effect correlates every pair of judges given Y: the variance has it
            dependence = pair_covariances(drawn.a, drawn.b, drawn.loading)
            steps = f"{H0_METROPOLIS_STEPS} Metropolis steps of the channels and loadings"
        layout = CalibrationLayout.of(
            data,
            Channels(drawn.a, drawn.b, adversarial=True, names=data.annotator_names),
            *bins,
            selected_by=mean,
            responses=responses,
            dependence=dependence,
            untested_extremes=True,
        )
        extremes = (
            f"; {layout.n_extremes} items scoring exactly 0 or 1 not tested"
            if layout.n_extremes
            else ""
        )
        how = (
            f"channels drawn from their posterior under H0 ({steps} from "
            f"draw {chosen} of the {fit.model} fit of these items; "
            f"sampled-posterior p-value{extremes})"
        )
        return layout.result(channels_from="reuse", how=how)
    warn_of_shared_items(
        data.item_ids, "the data tested", fit.item_ids, f"the {fit.model} fit", "calibration_test"
    )
    drawn = Channels(a_draws[chosen], b_draws[chosen], adversarial=True)  # an estimate's signs
    layout = CalibrationLayout.of(
        data, drawn, *bins, selected_by=mean, dependence=(pairs, covariance_draws[chosen])
    )
    truth = rng.integers(a_draws.shape[0], size=n_replicates)
    null = []
    with replicate_bar(
        n_replicates, "calibration test (posterior predictive null)", progress
    ) as bar:
        for t in truth:
            label, gold = layout.replicate(
                rng,
                a_draws[t],
                b_draws[t],
                covariance_draws[t],
                None if loading_draws is None else loading_draws[t],
            )
            null.append(layout.statistic(label, layout.a, layout.b, layout.covariance, gold))
            bar.update()
    how = (
        f"channels at posterior draw {chosen} of a {fit.model} fit of other items, true "
        "channels of each replicate drawn from its posterior (posterior predictive null"
        + ("; each item's difficulty drawn anew" if loading_draws is not None else "")
        + ")"
    )
    return layout.result(null=np.array(null), channels_from="split", how=how)


def _h0_difficulty(data, fit, a_draws, b_draws, loading_draws, chosen, rng) -> H0Draw:
    """A shared-difficulty fit's channels (in data's columns) and loadings drawn from their
    posterior under H0, started at its draw ``chosen`` (:func:`h0_difficulty_draw`; the
    chain runs in the annotators' name order, so the draw does not follow the columns')."""
    order = name_order(data.annotator_names)
    rates = np.clip(np.concatenate([a_draws, b_draws], axis=1), EDGE, 1.0 - EDGE)
    n_annotators = data.n_annotators
    in_order = np.concatenate([order, n_annotators + order])
    theta = np.column_stack([special.logit(rates[:, in_order]), np.log(loading_draws)])
    spread = np.cov(theta, rowvar=False)
    # the steps are shaped by the draws' covariance: fewer draws than twice the parameters,
    # or draws that do not move, would confine the chain to the span of a few points
    if theta.shape[0] < 2 * theta.shape[1] or not np.all(np.linalg.eigvalsh(spread) > 0):
        raise ValueError(
            f"channels: this shared_difficulty fit has {theta.shape[0]} draws that vary in "
            f"fewer directions than its {theta.shape[1]} parameters; the H0 draw of "
            f"calibration_test shapes its steps by their covariance and needs at least "
            f"{2 * theta.shape[1]} varied draws (refit with more num_samples)"
        )
    density = DifficultyH0Density(
        data.scores,
        data.annotations[:, order],
        fit.priors.as_array(),
        gold=data.gold if data.n_gold else None,
    )
    drawn = h0_difficulty_draw(
        density,
        a_draws[chosen, order],
        b_draws[chosen, order],
        loading_draws[chosen],
        spread,
        steps=H0_METROPOLIS_STEPS,
        rng=rng,
    )
    back = np.argsort(order)
    return drawn._replace(a=drawn.a[back], b=drawn.b[back])


# --- the test -------------------------------------------------------------------------------------

#: Replicates behind a Monte Carlo p-value (refitting bootstrap, posterior predictive):
#: p-values on a grid of 1 / 200, so that the 5% level falls on it.
DEFAULT_REPLICATES = 199

#: A Monte Carlo p-value needs this many replicates to reach 5% at all.
MIN_REPLICATES = 19


def calibration_test(
    data,
    channels,
    *,
    n_bins=DEFAULT_N_BINS,
    strategy="uniform",
    min_bin_items=MIN_BIN_ITEMS,
    fit_data=None,
    n_replicates=DEFAULT_REPLICATES,
    seed=0,
    progress=True,
    kind=None,
) -> CalibrationTest:
    """Test ``H0: E[Y - Z | Z in B_l] = 0`` in every bin from noisy labels.

    The statistic, its null for known and for estimated channels, and its assumptions are in
    the module docstring.

    Parameters
    ----------
    data : AnnotatedScores
    channels : Channels, ChannelFit or BayesFit
        Known channels (in the data's annotator order); or an estimate: an EM or moment
        :class:`~bayescal.channels.ChannelFit` or a :class:`~bayescal.BayesFit`, annotators
        matched by name (an EM fit's test reports them in the fit's order).  An estimate of
        these data is told from one of other items by the fingerprint of the data it records.
        An uninformative annotator (``|b - a| < 1e-4``) weighs 0, with a warning.
    n_bins : int or "auto", default 10
        Evaluation bins before merging.
    strategy : {"uniform", "quantile"}, default "uniform"
    min_bin_items : int, default 30
        Bins with fewer labelled items are merged into their neighbours (left to right; a short
        last group joins the one before it).
    fit_data : AnnotatedScores, optional
        The items a ChannelFit of other items was fitted on (its fingerprint is checked): the
        bootstrap refits on replicates of them.  Only for a ChannelFit of other items.
    n_replicates : int, default 199
        Replicates of a Monte Carlo p-value (ChannelFit; BayesFit of other items), at least 19.
        A ChannelFit's bootstrap refits its estimator once per replicate.  Such a p-value sits
        on the grid ``(1 + #) / (B + 1)``: reject at level ``alpha`` when ``p <= alpha`` (with
        ``B + 1`` a multiple of ``1 / alpha`` the level is then exact; ``p < alpha`` would test
        at ``alpha - 1 / (B + 1)``).
    seed : int, default 0
        Seeds the replicates and the posterior draw: the same call gives the same p-value.
    progress : bool, default True
        A progress bar over the replicates, shown once they have taken more than
        :data:`bayescal._api.PROGRESS_DELAY` seconds (the bootstrap of 10^6 items takes most of a minute).
    kind : {"top_label", "classwise"}, optional
        Multi-class data only (three classes or more): the test of
        :mod:`bayescal.correction.class_calibration_test` under ``Y ~ Categorical(p)``, of
        the top-label problem (the default) or of every class; ``channels`` are then known
        :class:`~bayescal.channels.ConfusionChannels` (chi-square reference) or a
        :class:`~bayescal.channels.ConfusionFit` of these data (refitting bootstrap).

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
    n_bins = v.as_n_bins(n_bins, data.n_items)
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    min_bin_items = v.as_int(min_bin_items, "min_bin_items", minimum=1)
    n_replicates = v.as_int(n_replicates, "n_replicates", minimum=MIN_REPLICATES)
    rng = np.random.default_rng(v.as_seed(seed))
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; saw {type(progress).__name__}")
    if data.is_multiclass:
        if fit_data is not None:
            raise ValueError(
                "fit_data is for binary channels fitted on other items; the multi-class test "
                "refits on replicates of the items tested"
            )
        return class_calibration_test(
            data,
            channels,
            kind=kind,
            bins=(n_bins, strategy, min_bin_items),
            n_replicates=n_replicates,
            rng=rng,
            progress=progress,
        )
    if kind is not None:
        raise ValueError(
            "kind sets the multi-class test ('top_label' or 'classwise'); data are binary: "
            f"leave kind out (saw {kind!r})"
        )
    if fit_data is not None and not isinstance(channels, ChannelFit):
        raise TypeError(
            "fit_data is for a ChannelFit of other items (the bootstrap refits on them); saw "
            f"channels of type {type(channels).__name__}"
        )
    bins = (n_bins, strategy, min_bin_items)
    if isinstance(channels, Channels):
        channels = channels.for_annotators(data.annotator_names)
        return CalibrationLayout.of(data, channels, *bins).result(how="known channels")
    if isinstance(channels, ChannelFit):
        return bootstrap_test(data, channels, fit_data, bins, n_replicates, rng, progress)
    if hasattr(channels, "draws") and hasattr(channels, "was_fitted_to"):  # a BayesFit
        return posterior_test(data, channels, bins, n_replicates, rng, progress)
    raise TypeError(
        "channels must be a bayescal.Channels, a ChannelFit or a BayesFit; saw "
        f"{type(channels).__name__}"
    )
