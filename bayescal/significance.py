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
  (:mod:`bayescal._h0_posterior`).  A BayesFit of other items (split): the statistic at one
  posterior draw against its posterior predictive distribution under H0 (each replicate draws
  its true channels from the posterior and the labels from them): exact under the fit's
  model, the posterior of the other items acting as the prior.  With a BayesFit the items
  tested are chosen by the IV precision at the posterior mean, not at the one draw.

References: Hosmer & Lemeshow (1980); Spiegelhalter (1986); Bröcker & Smith (2007), *Wea.
Forecasting* 22; Lee, Huang, Hassani & Dobriban (2022), T-Cal, arXiv:2203.01850; Johnson
(2004), A Bayesian chi-square test for goodness-of-fit, *Ann. Statist.* 32; Johnson (2007),
Bayesian model assessment using pivotal quantities, *Bayesian Anal.* 2; Gosselin (2011), A new
calibrated Bayesian internal goodness-of-fit method: sampled posterior p-values, *PLoS ONE* 6.
"""

from __future__ import annotations

import numpy as np

from . import _validation as v
from ._api import DEFAULT_N_BINS
from ._calibration_layout import MIN_BIN_ITEMS, CalibrationLayout, CalibrationTest
from ._estimated_nulls import bootstrap_test, posterior_test
from .channels import ChannelFit, Channels
from .data import AnnotatedScores

__all__ = ["MIN_BIN_ITEMS", "CalibrationTest", "calibration_test"]

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
) -> CalibrationTest:
    """Test ``H0: E[Y - Z | Z in B_l] = 0`` in every bin from noisy labels.

    The statistic, its null for known and for estimated channels, and its assumptions are in
    the module docstring.

    Parameters
    ----------
    data : AnnotatedScores
    channels : Channels, ChannelFit or BayesFit
        Known channels (in the data's annotator order); or an estimate: an EM or moment
        :class:`~bayescal.channels.ChannelFit` (its annotators in the data's order), or a
        :class:`~bayescal.BayesFit` (annotators matched by name).  An estimate of these data
        is told from one of other items by the fingerprint of the data it records.  An
        uninformative annotator (``|b - a| < 1e-4``) weighs 0, with a warning.
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
    if fit_data is not None and not isinstance(channels, ChannelFit):
        raise TypeError(
            "fit_data is for a ChannelFit of other items (the bootstrap refits on them); saw "
            f"channels of type {type(channels).__name__}"
        )
    bins = (n_bins, strategy, min_bin_items)
    if isinstance(channels, Channels):
        return CalibrationLayout.of(data, channels, *bins).result(how="known channels")
    if isinstance(channels, ChannelFit):
        return bootstrap_test(data, channels, fit_data, bins, n_replicates, rng)
    if hasattr(channels, "draws") and hasattr(channels, "was_fitted_to"):  # a BayesFit
        return posterior_test(data, channels, bins, n_replicates, rng)
    raise TypeError(
        "channels must be a bayescal.Channels, a ChannelFit or a BayesFit; saw "
        f"{type(channels).__name__}"
    )
