"""How many gold labels to buy: the expected interval widths of NC-ECE and of the corrected
positive rate for each number of random gold items.

With ``G`` gold items drawn at random, a bin ``l`` holding the share ``p_l`` of the items gets
about ``G p_l`` of them, and its rectified mean (:mod:`bayescal.correction.rectified`) has the
CLT variance

    lambda_l^2 Var_O(U) / N_l + V_l / (G p_l),    V_l = Var(Y - lambda_l U) over the gold,

``N_l`` the bin's other items.  ``V_l`` and ``lambda_l`` come from the gold items already
there: the bin's own with at least :data:`~bayescal.correction.rectified.MIN_BIN_GOLD` of them,
else those of all the gold items.  Only without any gold do they come from the model: with the
label posterior ``q_i = P(Y_i = 1 | A_i)`` of the channel fit, the corrected label ``U_i`` is
fixed given the annotations, so ``Var(Y - lambda U) = mean q (1 - q) + Var(q - lambda U)``
(total variance) and ``lambda = Cov(q, U) / ((1 + G / N) Var(U))``, clipped to [0, 1].

The bin moment ``r_l = p_l (m_l - zbar_l)`` then has the variance ``p_l^2`` times that; the
NC-ECE interval's width is simulated as :mod:`bayescal.correction.gold_interval` builds it: bin
moments drawn from ``N(r_l, sigma_l^2)`` around the current estimate, bias-corrected bin by bin,
the central ``level`` of their sum.  The positive rate's width is ``2 z`` times the standard
error of the rectified mean over all items.  The channels' estimation error is left out: with
the rectified estimator it moves the predictions ``U``, not what they are unbiased for.  So is
the noise of estimating each bin's ``lambda``.  On ``benchmarks/gold_plan.py``'s design the
plan is within 9% of the bootstrap interval's width at 100, 200 and 400 gold items, and 11-21%
above the posterior's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .. import _validation as v
from .._api import DEFAULT_LEVEL, DEFAULT_N_BINS, Result, old_spellings
from ..channels import ChannelFit
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..metrics.calibration import assign_bins
from .estimators import estimator_function, fit_or_raise
from .gold_interval import corrected_interval
from .known_channels import correct_annotations, label_posterior
from .rectified import MIN_BIN_GOLD, GoldRows, MeanProblem, ppi_lambda, weighted_variance

__all__ = ["GoldPlan", "label_predictions", "plan_gold", "residual_spread"]

#: Simulated draws of the bin moments behind each predicted NC-ECE width.
PLAN_DRAWS = 4000


@dataclass(frozen=True, eq=False, repr=False)
class GoldPlan(Result):
    """Expected interval widths by number of random gold items.

    Attributes
    ----------
    sizes : tuple of int
    nc_ece_width, positive_rate_width : tuple of float
        The expected widths of the ``level`` intervals, one per size.  The NC-ECE interval is
        clipped at 0, as the one reported is: while its lower end sits at 0 (few gold items,
        a small NC-ECE), more gold can first widen it a little as the lower end lifts off 0,
        before it shrinks.
    level : float
    from_gold : bool
        Whether the residuals came from the gold already there (else from the model).
    """

    sizes: tuple
    nc_ece_width: tuple
    positive_rate_width: tuple
    level: float
    from_gold: bool

    def table(self):
        """One row per number of gold items."""
        import pandas as pd

        return pd.DataFrame(
            {
                "gold items": self.sizes,
                "NC-ECE interval width": self.nc_ece_width,
                "positive rate interval width": self.positive_rate_width,
            }
        ).set_index("gold items")


def label_predictions(
    data: AnnotatedScores, fit, weights, bins: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's corrected label ``U_i`` and label posterior ``q_i = P(Y_i = 1 | A_i)``
    (n,) under the channels of ``fit`` (a ChannelFit, Channels, an estimator's name or a
    callable, fitted here on ``data`` with its gold), at the fit's prevalence (else the mean
    corrected label).  Given each item's bin ``bins`` (n,), ``q_i`` is taken at its bin's own
    prevalence, the bin's mean corrected label: a score bin's items are mostly of one class,
    which the pooled prevalence does not know."""
    v.check_items_annotated(data.annotations, "data.annotations")
    if isinstance(fit, ChannelFit):
        fitted = fit.require()
    else:
        fit_channels, name = estimator_function(fit, {}, argument="fit")
        fitted = fit if fit_channels is None else fit_or_raise(fit_channels, name, data, "data")
    channels = getattr(fitted, "channels", fitted)
    prevalence = getattr(fitted, "overall_prevalence", None)
    targets = correct_annotations(data.annotations, channels, weights, None)
    mean_q = float(np.clip(np.mean(targets) if prevalence is None else prevalence, 1e-3, 1 - 1e-3))
    posterior = label_posterior(data, channels, mean_q)
    if bins is None:
        return targets, posterior
    counts = np.maximum(np.bincount(bins), 1)
    own = np.clip(np.bincount(bins, targets) / counts, 1e-3, 1 - 1e-3)[bins]
    # the same likelihood ratio at another prior: shift the log odds by the prior's
    with np.errstate(divide="ignore"):  # a label the channels make certain stays certain
        shifted = special.logit(posterior) - special.logit(mean_q) + special.logit(own)
    return targets, special.expit(shifted)


def residual_spread(targets, gold, weights, posterior, n_planned):
    """``(V, lambda)`` of the items (module docstring): from their gold items when they have
    any, else from the label posterior ``posterior``."""
    if (gold != v.MISSING).any():
        rows = GoldRows(np.zeros(gold.size, np.int64), targets, gold, np.ones(gold.size), weights)
        problem = MeanProblem.of(rows)
        lam = ppi_lambda(problem)
        return weighted_variance(problem.w * (problem.y - lam * problem.u), problem.c), lam
    spread = weighted_variance(targets, np.ones(targets.size), ddof=1)
    covariance = float(np.cov(posterior, targets)[0, 1])
    lam = 0.0 if spread <= 0 else covariance / ((1.0 + n_planned / targets.size) * spread)
    lam = float(np.clip(lam, 0.0, 1.0))
    residual = float(np.mean(posterior * (1.0 - posterior))) + float(
        np.var(posterior - lam * targets)
    )
    return residual, lam


@old_spellings()
def plan_gold(
    data,
    fit,
    *,
    sizes=(100, 200, 400, 800),
    level=DEFAULT_LEVEL,
    n_bins=DEFAULT_N_BINS,
    weights="iv",
    seed=0,
) -> GoldPlan:
    """The expected interval widths of NC-ECE and of the corrected positive rate for each
    number of random gold items in ``sizes`` (module docstring).

    Parameters
    ----------
    data : AnnotatedScores
        The items to be labelled, with the gold labels already bought (``data.gold``), if any.
    fit : str, Channels, ChannelFit or callable
        The channels, as ``estimator`` of :func:`bayescal.nc_ece_estimate` (e.g.
        ``"dawid_skene_em"``, fitted here with the gold).
    sizes : sequence of int
        Numbers of gold items in all (those already there included), each at least 2 and at
        most the number of items.
    level : float, default 0.9
    n_bins : int, default 10
        Equal-width evaluation bins.
    weights : rule name or array_like, default "iv"
    seed : int, default 0
        Seeds the simulated bin moments.

    Returns
    -------
    GoldPlan
    """
    require_binary(data, "plan_gold")
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    sizes = tuple(v.as_int(size, "sizes", minimum=2) for size in np.atleast_1d(sizes).tolist())
    too_many = [size for size in sizes if size > data.n_items]
    if too_many:
        raise ValueError(
            f"sizes must be at most the number of items ({data.n_items}); saw {too_many[0]}"
        )
    level = v.as_open_probability(level, "level")
    bins = v.as_n_bins(n_bins, data.n_items)
    rng = np.random.default_rng(v.as_seed(seed))
    targets, posterior = label_predictions(data, fit, weights)
    gold = np.full(data.n_items, v.MISSING) if data.gold is None else data.gold
    inclusion = np.ones(data.n_items) if data.gold_weights is None else data.gold_weights
    weights_of = np.where(gold != v.MISSING, 1.0 / np.where(gold != v.MISSING, inclusion, 1.0), 1.0)
    index, _ = assign_bins(data.scores, bins, "uniform")
    z = stats.norm.ppf(0.5 + level / 2.0)
    other = gold == v.MISSING
    moments, shares = np.zeros(bins), np.bincount(index, minlength=bins) / data.n_items
    for b in range(bins):
        here = index == b
        if here.any():
            labels = np.where(gold[here] != v.MISSING, gold[here], targets[here])
            moments[b] = shares[b] * (labels.mean() - data.scores[here].mean())
    nc_ece, positive_rate = [], []
    for size in sizes:
        pooled = residual_spread(targets, gold, weights_of, posterior, size)
        variances = np.zeros(bins)
        for b in np.flatnonzero(shares > 0):
            here = index == b
            own = (gold[here] != v.MISSING).sum() >= MIN_BIN_GOLD
            residual, lam = (
                residual_spread(targets[here], gold[here], weights_of[here], posterior[here], size)
                if own
                else pooled
            )
            others = targets[here & other]
            imputed = lam**2 * np.var(others) / others.size if others.size else 0.0
            variances[b] = shares[b] ** 2 * (imputed + residual / max(size * shares[b], 1.0))
        draws = moments + np.sqrt(variances) * rng.standard_normal((PLAN_DRAWS, bins))
        interval = corrected_interval(moments, draws, level).interval
        nc_ece.append(float(interval[1] - interval[0]))
        residual, lam = pooled
        imputed = lam**2 * np.var(targets[other]) / max(int(other.sum()), 1)
        positive_rate.append(float(2.0 * z * np.sqrt(imputed + residual / size)))
    return GoldPlan(
        sizes, tuple(nc_ece), tuple(positive_rate), level, bool((gold != v.MISSING).any())
    )
