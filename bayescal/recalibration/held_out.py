"""What a recalibration map buys, measured on items it was not fitted to.

Scored on the items it was fitted to, a map flatters itself: it has seen their labels.  The
check splits the items at random into two halves (seeded): on the first, the channels are
estimated and the map fitted (:func:`~bayescal.recalibration.recalibrate`); on the second, the
channels are estimated afresh and NC-ECE computed twice, of the scores as they are and of the
mapped scores (paper §5, App. E.5).

Each NC-ECE comes with an interval from a bootstrap of the held-out half, its channels refitted
on every replicate (:func:`bayescal.correction.gold_interval.bootstrap_replicates`; known
channels stay as they are), and the bias correction of a sum of ``|bin moments|`` with its recentred percentile interval
(:func:`bayescal.correction.gold_interval.corrected_interval`).  The map is held fixed: the
interval counts the held-out items' noise and the channels', not the map's own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_FIT_BINS, DEFAULT_LEVEL, DEFAULT_N_BINS, Interval, Result, silenced
from ..correction.estimators import estimator_function, fit_or_raise
from ..correction.gold_interval import (
    DEFAULT_REPLICATES,
    bootstrap_replicates,
    corrected_interval,
    replicate_channels,
)
from ..correction.known_channels import corrected_moments
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..exceptions import FIT_WARNINGS, RecalibrationWarning
from .maps import METHODS
from .workflow import recalibrate

__all__ = ["HeldOutCheck", "held_out_check"]

#: Fewest items a half may hold: fewer leave the channels of either half unestimable.
MIN_HALF = 50


@dataclass(frozen=True, eq=False, repr=False)
class HeldOutCheck(Result):
    """NC-ECE before and after a map, on the half of the items it was not fitted to.

    Attributes
    ----------
    before, after : float
        The bias-corrected NC-ECE of the scores and of the mapped scores on the held-out half.
    before_interval, after_interval : Interval
        Their bootstrap intervals at ``level`` (module docstring).
    level : float
    n_fit, n_held_out : int
        Items the map was fitted on and items it was scored on.
    fitted : map
        The map fitted on the first half.
    """

    before: float
    before_interval: Interval
    after: float
    after_interval: Interval
    level: float
    n_fit: int
    n_held_out: int
    fitted: object

    def to_record(self) -> dict:
        """The numbers, for ``map.json`` (strict JSON)."""
        return {
            "before": self.before,
            "before_interval": list(self.before_interval),
            "after": self.after,
            "after_interval": list(self.after_interval),
            "level": self.level,
            "n_fit": self.n_fit,
            "n_held_out": self.n_held_out,
        }

    def text(self) -> str:
        """One line for the command: the two NC-ECEs with their intervals, and on what."""
        return (
            f"held out: a map fitted on {self.n_fit} items, scored on the other "
            f"{self.n_held_out}: NC-ECE {self.before:.4f} {_shown(self.before_interval)} before, "
            f"{self.after:.4f} {_shown(self.after_interval)} after ({self.level:.0%} intervals)"
        )


def _shown(interval: Interval) -> str:
    return f"[{interval.lower:.4f}, {interval.upper:.4f}]"


def held_out_check(
    data,
    *,
    method="platt",
    estimator="dawid_skene_em",
    fit_bins=DEFAULT_FIT_BINS,
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    n_bootstrap=DEFAULT_REPLICATES,
    seed=0,
    progress=False,
) -> HeldOutCheck:
    """NC-ECE before and after a recalibration map, on the items it was not fitted to
    (module docstring).

    Parameters
    ----------
    data : AnnotatedScores
        Every item labelled, at least ``2 * MIN_HALF`` of them.
    method : {"platt", "temperature", "histogram"}, default "platt"
    estimator : str or callable, default "dawid_skene_em"
        The channel estimator, fitted on each half and on every bootstrap replicate (as
        ``estimator`` of :func:`bayescal.nc_ece_estimate`).
    fit_bins : int, default 10
        The histogram map's bins.
    n_bins : int, default 10
        Equal-width evaluation bins of NC-ECE.
    level : float, default 0.9
    n_bootstrap : int, default 200
    seed : int, default 0
        Seeds the split and the bootstrap.
    progress : bool, default False
        A bar over the bootstrap replicates.

    The fits of the halves and of the replicates warn of nothing: the fits on all the items
    say what they would (a saturated model, an odd annotator, the crowd rule, a map on the
    edge of its box).

    Returns
    -------
    HeldOutCheck
    """
    require_binary(data, "held_out_check")
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    method = v.as_choice(method, "method", METHODS)
    level = v.as_open_probability(level, "level")
    n_bootstrap = v.as_int(n_bootstrap, "n_bootstrap", minimum=2)
    seed = v.as_seed(seed)
    if data.n_items < 2 * MIN_HALF:
        raise ValueError(
            f"data must hold at least {2 * MIN_HALF} items to be split into a half to fit the "
            f"map on and a half to score it on; saw {data.n_items}"
        )
    order = np.random.default_rng(seed).permutation(data.n_items)
    first, second = np.sort(order[: data.n_items // 2]), np.sort(order[data.n_items // 2 :])
    fitting, held_out = data.subset(first), data.subset(second)
    fit_channels, name = estimator_function(estimator, {})

    def channels_of(half: AnnotatedScores, which: str):
        if fit_channels is None:  # known channels
            return estimator
        return fit_or_raise(fit_channels, name, half, f"the {which} half of data").channels

    bins = v.as_n_bins(n_bins, held_out.n_items)
    # the halves and the replicates repeat, item for item, what the map and the channels
    # fitted on all the items say (a saturated model, an odd annotator, the crowd rule, a map
    # on the edge of its box): their warnings would be noise.  The bootstrap's own (refits
    # that failed) is not silenced.
    quiet = (*FIT_WARNINGS, RecalibrationWarning)
    with silenced(*quiet):
        fitted = recalibrate(
            fitting, method=method, channels=channels_of(fitting, "fitting"), fit_bins=fit_bins
        )
        held_out_channels = channels_of(held_out, "held-out")

    def moments(sample: AnnotatedScores, sample_channels) -> np.ndarray:
        """The bin moments of ``sample``'s scores and of its mapped scores, side by side."""
        mapped_sample = replace(sample, scores=fitted.predict(sample.scores))
        with silenced(*quiet):
            return np.concatenate(
                [
                    corrected_moments(part, sample_channels, "iv", bins, "uniform").moments
                    for part in (sample, mapped_sample)
                ]
            )

    observed = moments(held_out, held_out_channels)
    draws = bootstrap_replicates(
        held_out,
        lambda replicates: replicate_channels(estimator, {}, fit_channels, replicates),
        moments,
        n_replicates=n_bootstrap,
        seed=seed,
        progress=progress,
        what="held-out NC-ECE",
    )
    before = corrected_interval(observed[:bins], draws[:, :bins], level)
    after = corrected_interval(observed[bins:], draws[:, bins:], level)
    return HeldOutCheck(
        before.estimate,
        before.interval,
        after.estimate,
        after.interval,
        level,
        fitting.n_items,
        held_out.n_items,
        fitted,
    )
