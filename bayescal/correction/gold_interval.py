"""The frequentist interval of NC-ECE with gold items: a bootstrap of both samples, refitted.

The gold items and the other items are two samples (the gold a random sample of the items), so
each replicate draws them apart, each with replacement and at its own size: every replicate
holds as many gold items as the data.  Gold drawn item by item with inclusion probabilities is
resampled as it was drawn (:func:`resampled_items`).  The channels are refitted on each replicate and the bin
moments recomputed with the same estimator (:mod:`bayescal.correction.rectified`), so the
interval counts the channel estimate, the rectifier and the other items' noise together.

``sum_l |r_l|`` is biased upward, more so with fewer gold items: with a few hundred gold items
a bin's moment is often no larger than its standard error.  The estimate is therefore the
folded-normal bias-corrected ``sum_l c(r_hat_l)`` (at least 0) of
:mod:`bayescal.correction.folded_correction`, with ``sigma_l`` the standard deviation of the
bin's replicates, and the interval the percentile interval of the replicates' ``sum_l
c(r*_l)`` moved to be centred on it (clipped at 0).  Measured on three designs with 200 gold
items (``benchmarks/RESULTS.md``), this covers near 90% where the posterior's former straddle
rule with a basic bootstrap covered 66-72% (it removed too much: its estimate sat 0.015 below
the population ECE of 0.080) and the basic bootstrap of the raw sum 82-85%.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import Interval, replicate_bar, warn_caller
from ..channels.refits import refit_all, refit_one
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import ChannelFitError, ChannelWarning, DataWarning
from .folded_correction import bias_corrected

__all__ = [
    "DEFAULT_REPLICATES",
    "GoldInterval",
    "bootstrap_replicates",
    "gold_bootstrap",
    "gold_only_ece",
    "note_all_gold",
    "replicate_channels",
]

#: Bootstrap replicates of the interval when none are asked for.
DEFAULT_REPLICATES = 200
#: Replicates refitted together (their tables are held at once).
REFIT_BLOCK = 50
#: Share of replicates whose refit may fail before the interval says so.
TOLERATED_FAILURES = 0.05


class GoldInterval(NamedTuple):
    """The bias-corrected NC-ECE, its interval at ``level``, and the bias-corrected NC-ECE of
    every replicate whose channels were refitted (module docstring)."""

    estimate: float
    interval: Interval
    level: float
    replicates: np.ndarray


def note_all_gold(data: AnnotatedScores) -> None:
    """Say so (one :class:`~bayescal.DataWarning` line) when every item has a gold label: the
    rectified NC-ECE is then the plain ECE of the gold labels, and its interval theirs."""
    if data.n_gold == data.n_items:
        warn_caller(
            f"data: every one of the {data.n_items} items has a gold label, so NC-ECE is the "
            "plain ECE of the gold labels against the scores (the annotators add nothing to "
            "it), with the plain bootstrap interval",
            DataWarning,
        )


def resampled_items(data: AnnotatedScores, rng: np.random.Generator) -> np.ndarray:
    """One replicate's items: the gold items and the others drawn apart, the others with
    replacement at their own size (data without gold: every item, drawn with replacement).

    A simple random sample of gold is drawn with replacement at its size too.  Gold drawn item
    by item with inclusion probabilities (``data.gold_weights``, Poisson sampling) keeps each
    gold item ``k_i`` times, ``k_i = 1`` with probability ``pi_i`` and else Poisson(1):
    ``E k_i = 1`` and ``Var k_i = 1 - pi_i``, so the replicates' spread of the Hájek mean is its
    design variance ``sum (1 - pi_i) w_i^2 (d_i - dbar)^2 / (sum w)^2`` (``w = 1/pi``).  Drawn
    with replacement instead, the factor ``1 - pi_i`` is lost, and an item sure to be drawn
    (``pi_i = 1``) would vary as if it were not."""
    is_gold = np.zeros(data.n_items, bool) if data.gold is None else data.gold != v.MISSING
    gold, other = np.flatnonzero(is_gold), np.flatnonzero(~is_gold)
    if data.gold_weights is None:
        gold = rng.choice(gold, gold.size) if gold.size else gold
    elif gold.size:
        gold = np.repeat(gold, poisson_sample_multiplicities(data.gold_weights[gold], rng))
    other = rng.choice(other, other.size) if other.size else other
    return np.concatenate([gold, other])


def poisson_sample_multiplicities(inclusion: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """How often a replicate keeps each of the gold items drawn with probabilities
    ``inclusion`` (:func:`resampled_items`): 1 with probability ``pi_i``, else Poisson(1).  A
    replicate keeps at least one gold item (a draw of none, at most ``exp(-m)`` for ``m`` items
    with ``pi`` near 0, is drawn again), as the data it stands for has gold."""
    if inclusion.size == 0:
        raise ValueError("inclusion must hold the gold items' probabilities; saw none")
    while True:
        kept = np.where(rng.random(inclusion.size) < inclusion, 1, rng.poisson(1.0, inclusion.size))
        if kept.any():
            return kept


def bootstrap_replicates(
    data: AnnotatedScores,
    refit: Callable[[list], list],
    evaluate: Callable,
    *,
    n_replicates: int,
    seed: int,
    progress: bool = False,
    what: str = "NC-ECE interval",
) -> np.ndarray:
    """``evaluate(replicate, channels)`` (an array) of every bootstrap replicate of ``data``
    whose channels could be refitted: (B, ...).

    ``refit(replicates)`` gives the channels (or ``None``) of each of a list of replicate data
    sets (:func:`replicate_channels`).  A replicate whose refit fails is left out (said in one
    :class:`~bayescal.ChannelWarning` when more than :data:`TOLERATED_FAILURES` of them do);
    none left is a :class:`~bayescal.ChannelFitError`.
    """
    rng = np.random.default_rng(seed)
    draws, failed = [], 0
    description = f"{what} (bootstrap of gold and other items)"
    with replicate_bar(n_replicates, description, progress) as bar:
        for first in range(0, n_replicates, REFIT_BLOCK):
            size = min(REFIT_BLOCK, n_replicates - first)
            replicates = [data.subset(resampled_items(data, rng)) for _ in range(size)]
            for replicate, channels in zip(replicates, refit(replicates)):
                if channels is None:
                    failed += 1
                else:
                    draws.append(evaluate(replicate, channels))
            bar.update(size)
    if not draws:
        raise ChannelFitError(
            f"no bootstrap replicate of the {n_replicates} had an admissible channel fit, so "
            f"the {what} cannot be computed"
        )
    if failed > TOLERATED_FAILURES * n_replicates:
        warn_caller(
            f"{failed} of {n_replicates} bootstrap replicates had no admissible channel fit; "
            f"the {what} rests on the others",
            ChannelWarning,
        )
    return np.asarray(draws)


def replicate_channels(estimator, options: dict, fit_channels, replicates: list) -> list:
    """The channels of each bootstrap replicate (None where the refit fails): known
    :class:`~bayescal.Channels` as they are (``fit_channels`` None); a named estimator with
    its defaults by :func:`~bayescal.channels.refits.refit_all` (the EM fits of a block in one
    batch); another, or one with ``options``, call by call (``fit_channels``, data ->
    ChannelFit)."""
    if fit_channels is None:
        return [estimator] * len(replicates)
    if isinstance(estimator, str) and not options:
        fits = refit_all(estimator, replicates)
    else:
        fits = [refit_one(fit_channels, replicate) for replicate in replicates]
    return [None if fit is None else fit.channels for fit in fits]


def gold_bootstrap(
    data: AnnotatedScores,
    moments: np.ndarray,
    refit: Callable[[list], list],
    evaluate: Callable,
    *,
    n_replicates: int,
    level: float,
    seed: int,
    progress: bool = False,
    spread: np.ndarray | None = None,
) -> GoldInterval:
    """The interval of the NC-ECE whose bin moments (M,) on ``data`` are ``moments``, from
    the bin moments ``evaluate(replicate, channels)`` (M,) of :func:`bootstrap_replicates`.

    With ``spread`` (M,), each bin's replicates are scaled about their mean to that standard
    deviation first, where it is positive and the replicates vary (elsewhere they are kept):
    for gold drawn with inclusion probabilities, the CLT's
    (:func:`~bayescal.correction.known_channels.rectified_moment_spread`).  There the
    bootstrap overstates the bin moments' variance, which both widens the interval and makes
    the folded correction remove too much (benchmarks/RESULTS.md, "Poisson-sampled gold")."""
    draws = bootstrap_replicates(
        data, refit, evaluate, n_replicates=n_replicates, seed=seed, progress=progress
    )
    if spread is not None:
        centre, observed = draws.mean(axis=0), draws.std(axis=0)
        scaled = (observed > 0) & (spread > 0)
        scale = np.divide(spread, observed, out=np.ones_like(observed), where=scaled)
        draws = centre + (draws - centre) * scale
    return corrected_interval(np.asarray(moments), draws, level)


def corrected_interval(moments: np.ndarray, draws: np.ndarray, level: float) -> GoldInterval:
    """The bias-corrected NC-ECE of bin moments (M,) and its interval from their replicates
    (B, M) (module docstring)."""
    spread = draws.std(axis=0)
    estimate = float(bias_corrected(moments, spread).sum())
    values = bias_corrected(draws, spread).sum(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail]) + estimate - values.mean()
    interval = Interval(float(max(low, 0.0)), float(max(high, 0.0)))
    return GoldInterval(max(estimate, 0.0), interval, level, values)


def gold_only_ece(
    data: AnnotatedScores, edges: np.ndarray, strategy: str, *, n_replicates: int, level, seed
) -> GoldInterval:
    """The ECE of the gold items alone (their labels against their scores, each weighted by
    ``1/pi`` when ``data.gold_weights`` says how they were sampled) in the bins ``edges``,
    with the bias correction and interval of the module docstring from a bootstrap of the
    gold items: what the gold says without the judges, beside NC-ECE."""
    from ..metrics.calibration import bin_index

    gold = np.flatnonzero(data.gold != v.MISSING)
    weights = np.ones(data.n_items)
    if data.gold_weights is not None:
        weights[gold] = 1.0 / data.gold_weights[gold]
    index = bin_index(data.scores, edges, strategy)
    n_bins = edges.size - 1

    def moments(items):
        w = weights[items] / weights[items].sum()
        residual = w * (data.gold[items] - data.scores[items])
        return np.bincount(index[items], weights=residual, minlength=n_bins)

    rng = np.random.default_rng(seed)
    draws = np.array([moments(rng.choice(gold, gold.size)) for _ in range(n_replicates)])
    return corrected_interval(moments(gold), draws, level)
