"""NC-ECE with channels estimated from the same annotations (paper §3, App. C.3–C.4).

:mod:`bayescal.correction.known_channels` computes NC-ECE with known channels; this module adds the channel
estimate and the ways of sharing the sample between estimating and evaluating: ``"reuse"``,
``"split"`` and ``"crossfit"``.  :func:`estimator_function` turns an estimator's name, a
callable or known :class:`~bayescal.Channels` into one callable, for every workflow that
estimates channels on the way (here and in :mod:`bayescal.recalibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_LEVEL, DEFAULT_N_BINS, Interval, Result, old_spellings, silenced
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import FIT_WARNINGS, BinningWarning
from ..metrics.calibration import BinnedMoments, assign_bins
from ..metrics.classes import refuse_binary_kind
from .class_estimation import ClassNCECEResult, class_nc_ece_estimate
from .crowd import report_unlabelled
from .estimators import estimator_function, fit_or_raise
from .gold_interval import DEFAULT_REPLICATES, gold_bootstrap, note_all_gold, replicate_channels
from .known_channels import (
    correct_annotations,
    corrected_moments,
    crowd_corrected_labels,
    is_crowd,
    labelled_moments,
    rectified_moment_spread,
)
from .rectified import GOLD_ESTIMATORS
from .sample_splits import fold_assignment, split_sample

__all__ = ["NC_ECE_MODES", "NCECEResult", "nc_ece_estimate"]


#: How :func:`nc_ece_estimate` uses the sample (paper §3, App. C.3–C.4).
NC_ECE_MODES = ("reuse", "split", "crossfit")


@dataclass(frozen=True, eq=False, repr=False)
class NCECEResult(Result):
    """Noise-corrected ECE with the channel fit(s) it used.

    Attributes
    ----------
    estimate : float
        ``sum_l |r_l|``; with gold items and an interval, the bias-corrected value the
        interval is built on (:mod:`bayescal.correction.gold_interval`; ``moments.ece`` keeps
        ``sum_l |r_l|``).
    moments : BinnedMoments
        Per-bin corrected moments ``r_l`` over the evaluation items (for ``"crossfit"``, the
        held-out moments of all folds summed before the absolute value).
    fits : tuple of ChannelFit
        One fit (``"reuse"``, ``"split"``), one per fold (``"crossfit"``), none for known channels.
    mode : str
    estimator : str
    n_evaluated : int
        Number of items the moments average over.
    gold_estimator : str or None
        With gold items, the estimator of the bin means (``"rectified"`` or ``"model"``);
        None without gold.
    interval : Interval or None
        With gold items, the bootstrap interval at ``level`` (None without).
    level : float or None
    """

    estimate: float
    moments: BinnedMoments
    fits: tuple
    mode: str
    estimator: str
    n_evaluated: int
    gold_estimator: str | None = None
    interval: Interval | None = None
    level: float | None = None


@old_spellings()
def nc_ece_estimate(
    data,
    *,
    estimator="dawid_skene_em",
    mode="reuse",
    n_bins=DEFAULT_N_BINS,
    strategy="uniform",
    weights="iv",
    n_folds=5,
    split_fraction=0.5,
    seed=0,
    estimator_options=None,
    gold_estimator="rectified",
    n_bootstrap=None,
    level=DEFAULT_LEVEL,
    progress=False,
    kind=None,
) -> NCECEResult | ClassNCECEResult:
    """NC-ECE with channels estimated from the same annotations (paper §3, App. C.3–C.4).

    Modes:

    - ``"reuse"``: channels and weights fitted on all items, evaluated on all items (Prop. 1).
    - ``"split"``: a seeded random ``split_fraction`` of the items fits channels and weights,
      the rest is evaluated (Theorem 1).
    - ``"crossfit"``: ``n_folds`` seeded folds; fold k is corrected with channels and weights
      fitted without it, and the held-out bin moments of all folds are summed *before* the
      absolute value, ``r_l = (1/n) sum_k sum_{i in I_k} (U_i^(-k) - Z_i) 1{Z_i in B_l}``
      (App. C.4).

    A crowd (more than 12 annotators) is corrected from its sparse responses in every mode,
    under the crowd rule of :func:`bayescal.noise_corrected_ece`: an item labelled only by
    workers too uninformative to correct it counts as unlabelled (one warning), and the moments
    average over the labelled items (``n_evaluated``) in the bins of all.

    Parameters
    ----------
    data : AnnotatedScores
        Scores, annotations and, for the grouped estimators, ``groups``.
    estimator : str, Channels or callable, default "dawid_skene_em"
        ``"dawid_skene_em"``, ``"grouped_em"``, ``"hui_walter_moments"``, ``"hui_walter_gmm"``
        or ``"third_moment"``; known :class:`Channels` (then only ``mode="reuse"`` makes
        sense); or a callable ``data -> ChannelFit``.
    mode : {"reuse", "split", "crossfit"}, default "reuse"
    n_bins, strategy
        Evaluation bins, as in :func:`noise_corrected_ece`; they are common to all folds.
    weights : rule name or array_like, default "iv"
        As in :func:`corrected_labels`; the IV plug-in prevalence comes from the fitting sample.
    n_folds : int, default 5
    split_fraction : float in (0, 1), default 0.5
        Share of the items used to fit channels in ``"split"`` mode.
    seed : int, default 0
        Seeds the split or the fold assignment.
    estimator_options : dict, optional
        Keyword arguments for the estimator, e.g. ``{"n_starts": 20}``.
    gold_estimator : {"rectified", "model"}, default "rectified"
        With gold items (``data.gold``), the estimator of each bin's mean label
        (:mod:`bayescal.correction.rectified`); the channels are fitted with the gold.  The
        gold items must be a random sample of the items (or one stratified by score, with
        ``data.gold_weights``).
    n_bootstrap : int, optional
        With gold items in ``"reuse"`` mode, the replicates of the interval's bootstrap
        (:mod:`bayescal.correction.gold_interval`: the gold and the other items resampled
        apart, the channels refitted); default 200.  Without gold there is no interval.
    level : float, default 0.9
        The interval's probability.
    progress : bool, default False
        A progress bar over the bootstrap's replicates once they have run two seconds.
    kind : {"top_label", "classwise"}, optional
        For multi-class data (three classes or more): the top-label ECE (the default) or the
        classwise ECE, the mean over the classes
        (:mod:`bayescal.correction.class_estimation`).  Their estimator is
        ``"dawid_skene_em"`` or ``"crowd_em"``, known
        :class:`~bayescal.channels.ConfusionChannels` or a
        :class:`~bayescal.channels.ConfusionFit`, or a callable returning one; gold and the
        interval are binary only so far.  Binary data take no ``kind``.

    Returns
    -------
    NCECEResult or ClassNCECEResult
        The latter for multi-class data.

    Raises
    ------
    ChannelFitError
        When a channel fit fails (the message names the fold and the reason).
    """
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    mode = v.as_choice(mode, "mode", NC_ECE_MODES)
    bins = v.as_n_bins(n_bins, data.n_items)
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    if estimator_options is not None and not isinstance(estimator_options, dict):
        raise TypeError(f"estimator_options must be a dict; saw {type(estimator_options).__name__}")
    gold_estimator = v.as_choice(gold_estimator, "gold_estimator", GOLD_ESTIMATORS)
    level = v.as_open_probability(level, "level")
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; saw {type(progress).__name__}")
    if data.is_multiclass:
        if n_bootstrap is not None:
            raise ValueError(
                "n_bootstrap sets the replicates of the interval of NC-ECE with gold items, "
                "which multi-class data do not have yet; leave it out"
            )
        v.check_items_annotated(data.annotations, "data.annotations")
        return class_nc_ece_estimate(
            data,
            kind=kind,
            estimator=estimator,
            mode=mode,
            n_bins=bins,
            strategy=strategy,
            weights=weights,
            n_folds=n_folds,
            split_fraction=split_fraction,
            seed=v.as_seed(seed),
            estimator_options=estimator_options or {},
            gold_estimator=gold_estimator,
        )
    refuse_binary_kind(kind)
    fit_channels, name = estimator_function(estimator, estimator_options or {})
    seed = v.as_seed(seed)
    v.check_items_annotated(data.annotations, "data.annotations")
    if n_bootstrap is not None:
        n_bootstrap = v.as_int(n_bootstrap, "n_bootstrap", minimum=2)
        if not data.n_gold or mode != "reuse":
            raise ValueError(
                "n_bootstrap sets the replicates of the interval of NC-ECE with gold items in "
                f"mode 'reuse'; saw {data.n_gold} gold items and mode {mode!r}"
            )

    note_all_gold(data)

    def evaluated(moments, fits):
        """The result of ``moments``, with the interval of gold items (mode reuse)."""
        if not data.n_gold:
            return NCECEResult(moments.ece, moments, fits, mode, name, moments.n_items)
        if mode != "reuse":
            return NCECEResult(
                moments.ece, moments, fits, mode, name, moments.n_items, gold_estimator
            )
        spread = None
        if data.gold_weights is not None and gold_estimator == "rectified":
            # inclusion probabilities: the CLT's spread (gold_bootstrap says why)
            channels = fits[0].channels if fits else estimator
            edges = assign_bins(data.scores, bins, strategy)[1]
            spread = rectified_moment_spread(data, channels, weights, edges, strategy)
        interval = gold_bootstrap(
            data,
            moments.moments,
            lambda replicates: replicate_channels(
                estimator, estimator_options or {}, fit_channels, replicates
            ),
            lambda replicate, channels: _replicate_moments(
                replicate, channels, weights, bins, strategy, gold_estimator
            ),
            n_replicates=n_bootstrap or DEFAULT_REPLICATES,
            level=level,
            seed=seed,
            progress=progress,
            spread=spread,
        )
        return NCECEResult(
            interval.estimate,
            moments,
            fits,
            mode,
            name,
            moments.n_items,
            gold_estimator,
            interval.interval,
            level,
        )

    if fit_channels is None:
        if mode != "reuse":
            raise ValueError(
                f"mode must be 'reuse' with known channels (nothing is fitted); saw {mode!r}"
            )
        moments = corrected_moments(
            data, estimator, weights, bins, strategy, gold_estimator=gold_estimator
        )
        return evaluated(moments, ())

    def channels_from(sample, where: str):
        return fit_or_raise(fit_channels, name, sample, where)

    rng = np.random.default_rng(seed)
    if mode == "reuse":
        fit = channels_from(data, "the whole sample")
        moments = corrected_moments(
            data, fit.channels, weights, bins, strategy, gold_estimator=gold_estimator
        )
        return evaluated(moments, (fit,))
    if mode == "split":
        fit_part, evaluation = split_sample(data, split_fraction, rng)
        fit = channels_from(fit_part, "the channel sample")
        moments = corrected_moments(
            evaluation,
            fit.channels,
            weights,
            bins,
            strategy,
            weight_sample=fit_part,
            gold_estimator=gold_estimator,
        )
        return evaluated(moments, (fit,))
    fold, n_folds = fold_assignment(data.n_items, n_folds, rng)
    targets = np.empty(data.n_items)
    labelled = np.ones(data.n_items, dtype=bool)
    fits = []
    for k in range(n_folds):
        held_out = fold == k
        training = data.subset(~held_out)
        fit = channels_from(training, f"the training folds of fold {k}")
        if is_crowd(data):  # the crowd rule; the items it leaves unlabelled said once below
            targets[held_out], labelled[held_out] = crowd_corrected_labels(
                data.subset(held_out), fit.channels, weights, None, training, report=False
            )
        else:
            targets[held_out] = correct_annotations(
                data.annotations[held_out],
                fit.channels,
                weights,
                None,
                training.annotations,
                names=data.annotator_names,
            )
        fits.append(fit)
    report_unlabelled(np.array([data.n_items - labelled.sum()]), data.n_items)
    # the bins of every item, the moments of the labelled ones (all but a crowd's few)
    edges = assign_bins(data.scores, bins, strategy)[1]
    moments = labelled_moments(data, targets, labelled, edges, strategy, gold_estimator)
    return evaluated(moments, tuple(fits))


def _replicate_moments(replicate, channels, weights, bins, strategy, gold_estimator):
    """A bootstrap replicate's bin moments, silent (what they would say was said of the
    data)."""
    with silenced(*FIT_WARNINGS, BinningWarning):
        return corrected_moments(
            replicate, channels, weights, bins, strategy, gold_estimator=gold_estimator
        ).moments
