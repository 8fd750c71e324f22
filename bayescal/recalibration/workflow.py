"""Recalibration from annotated data: fit a map to corrected labels, and the split-sample study
of paper App. E.5 (Base, Naive and Corrected side by side)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_FIT_BINS, DEFAULT_N_BINS, Result, old_spellings
from ..channels import ChannelFit, Channels, channels_for
from ..channels.confusion_fit import ConfusionChannels, ConfusionFit
from ..correction.class_estimation import (
    CLASS_ESTIMATORS,
    corrected_class_targets,
    report_class_unlabelled,
)
from ..correction.estimators import estimator_function, fit_or_raise
from ..correction.known_channels import (
    correct_annotations,
    crowd_corrected_labels,
    is_crowd,
    soft_vote,
)
from ..correction.rectified import RectifiedLoss
from ..data.annotated_scores import (
    AnnotatedScores,
    refuse_multiclass_gold,
    warn_of_shared_items,
)
from ..metrics.calibration import binned_moments
from .class_maps import CLASS_MAPS, CLASS_METHODS
from .maps import DEFAULT_EPS, METHODS, make_map

__all__ = ["TARGETS", "RecalibrationStudy", "recalibrate", "recalibration_study"]

#: Fitting targets: corrected labels U, or the naive mean annotator response.
TARGETS = ("corrected", "naive")


def target_channels(channels, data: AnnotatedScores, where: str) -> Channels:
    """Known channels or a successful ChannelFit's (matched to ``data`` by name when named), or
    an estimator fitted on ``data``."""
    if channels is None:
        raise ValueError(
            "channels are required for corrected targets: pass Channels, a ChannelFit, or an estimator "
            "name such as 'dawid_skene_em' (or use targets='naive')"
        )
    if isinstance(channels, (Channels, ChannelFit)):
        return channels_for(channels, data.annotator_names, where=where)
    fit_channels, name = estimator_function(channels, {}, argument="channels")
    return fit_or_raise(fit_channels, name, data, where).channels


def targets_of(data: AnnotatedScores, kind: str, channels: Channels | None, weights) -> tuple:
    """Per-item targets and which items have one: corrected labels (weights fitted on
    ``data``; a crowd's under the crowd rule, where an item labelled only by workers too
    uninformative to correct it has none, said in one warning), with a gold item's gold
    label in place of its corrected label (the model-based targets of
    :mod:`bayescal.correction.rectified`), or the soft vote."""
    every_item = np.ones(data.n_items, dtype=bool)
    if kind == "naive":
        return soft_vote(data.annotations), every_item
    if is_crowd(data):
        targets, has_target = crowd_corrected_labels(data, channels, weights)
    else:
        targets = correct_annotations(
            data.annotations, channels, weights, None, names=data.annotator_names
        )
        has_target = every_item
    if data.n_gold:
        gold = data.gold != -1
        targets, has_target = np.where(gold, data.gold, targets), has_target | gold
    return targets, has_target


@old_spellings(renamed={"n_bins": "fit_bins"})
def recalibrate(
    data,
    *,
    method="platt",
    channels=None,
    targets="corrected",
    weights="iv",
    fit_bins=DEFAULT_FIT_BINS,
    strategy="uniform",
    eps=DEFAULT_EPS,
):
    """Fit a recalibration map to a predictor's scores from noisy annotations (paper §5).

    Parameters
    ----------
    data : AnnotatedScores
        The fitting sample: scores and annotations.  A crowd (more than 12 annotators) is
        corrected from its sparse responses under the crowd rule of
        :func:`bayescal.noise_corrected_ece`: an item labelled only by workers too uninformative
        to correct it is left out of the fit, said in one warning.  With gold items
        (``data.gold``) and corrected targets, the map minimises the rectified loss
        (:class:`bayescal.correction.rectified.RectifiedLoss`): unbiased for the loss against
        the true labels even when the channel model is wrong, provided the gold is a random
        sample (or has ``gold_weights``); an item without a corrected label then enters with
        the prediction 0, which its gold, if any, rectifies.
    method : {"platt", "temperature", "histogram"}, default "platt"
    channels : Channels, ChannelFit, str or callable
        The annotator channels for ``targets="corrected"``: known channels, a fitted
        :class:`bayescal.ChannelFit`, or an estimator name (e.g. ``"dawid_skene_em"``) or
        callable fitted here on ``data``.  Channels estimated on a separate sample follow the
        paper's split workflow (App. E.5); see :func:`recalibration_study`.
    targets : {"corrected", "naive"}, default "corrected"
        Corrected labels ``U`` (unbiased for Y), or the naive mean annotator response.
    weights : rule name or array_like, default "iv"
        How corrected labels are combined (:func:`bayescal.correction.corrected_labels`).
    fit_bins, strategy
        Fitting bins of ``"histogram"`` (:class:`HistogramBinning`).
    eps : float, default 1e-6
        Input clipping of the logistic maps.

    Multi-class data (three classes or more) are fitted by
    :mod:`bayescal.recalibration.class_maps` (``method="temperature"`` or ``"vector"``) to their
    corrected one-hot labels (``channels``: known :class:`~bayescal.channels.ConfusionChannels`,
    a :class:`~bayescal.channels.ConfusionFit`, ``"dawid_skene_em"``, ``"crowd_em"`` or a
    callable), or to each item's shares of its labels (``targets="naive"``); items that only
    ill-conditioned annotators labelled are left out (one warning).  With gold items and
    corrected targets the map minimises the rectified multi-class cross-entropy
    (:meth:`~bayescal.correction.rectified.RectifiedLoss.of_classes`), unbiased whatever the
    channel model, as for binary data; naive targets refuse gold.

    Returns
    -------
    TemperatureScaling, PlattScaling, HistogramBinning, ClassTemperatureScaling or VectorScaling
        The fitted map; ``predict(scores)`` gives recalibrated probabilities (of multi-class
        data, ``predict(probabilities)``).
    """
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    if data.is_multiclass:
        return _recalibrate_classes(data, method, channels, targets, weights, eps)
    method = v.as_choice(method, "method", METHODS)
    kind = v.as_choice(targets, "targets", TARGETS)
    v.check_items_annotated(data.annotations, "data.annotations")
    fitted_channels = target_channels(channels, data, "data") if kind == "corrected" else None
    new_map = make_map(method, fit_bins=fit_bins, strategy=strategy, eps=eps)
    if kind == "corrected" and data.n_gold:
        without_gold = replace(data, gold=None, gold_weights=None)
        corrected, has_target = targets_of(without_gold, kind, fitted_channels, weights)
        loss = RectifiedLoss.of(corrected, has_target, data.gold, data.gold_weights)
        fitting_targets = loss.targets(np.where(has_target, corrected, 0.0))
        return new_map.fit(data.scores, fitting_targets, sample_weight=loss.weights())
    fitting_targets, has_target = targets_of(data, kind, fitted_channels, weights)
    return new_map.fit(data.scores[has_target], fitting_targets[has_target])


def _recalibrate_classes(data: AnnotatedScores, method, channels, targets, weights, eps):
    """:func:`recalibrate` of multi-class ``data`` (its docstring)."""
    if method in METHODS and method not in CLASS_METHODS:  # the binary default, "platt"
        raise ValueError(
            f"method must be one of {CLASS_METHODS} for multi-class data; saw {method!r} (a "
            "binary map: the default of binary data)"
        )
    method = v.as_choice(method, "method", CLASS_METHODS)
    kind = v.as_choice(targets, "targets", TARGETS)
    if kind == "naive":
        refuse_multiclass_gold(data.n_gold, "recalibrate(targets='naive')")
    v.check_items_annotated(data.annotations, "data.annotations")
    new_map = CLASS_MAPS[method](eps=eps)
    if kind == "naive":
        votes = np.stack([(data.annotations == k).sum(axis=1) for k in range(data.n_classes)], 1)
        return new_map.fit(data.probabilities, votes / votes.sum(axis=1, keepdims=True))
    if channels is None:
        raise ValueError(
            "channels are required for corrected targets: pass ConfusionChannels, a "
            "ConfusionFit, or an estimator name such as 'dawid_skene_em' (or use "
            "targets='naive')"
        )
    fit_channels, _ = estimator_function(
        channels,
        {},
        argument="channels",
        names=CLASS_ESTIMATORS,
        known=(ConfusionChannels, ConfusionFit),
    )
    fitted = channels if fit_channels is None else fit_channels(data)
    corrected, labelled = corrected_class_targets(data, fitted, weights)
    if not data.n_gold:
        report_class_unlabelled(labelled)
        return new_map.fit(data.probabilities[labelled], corrected)
    # the rectified loss (RectifiedLoss.of_classes): every item enters, one without a usable
    # label with the prediction 0, which its gold, if any, rectifies
    everyone = np.zeros((data.n_items, data.n_classes))
    everyone[labelled] = corrected
    loss = RectifiedLoss.of_classes(everyone, labelled, data.gold, data.gold_weights)
    rectified = loss.rectified(everyone.T).T * data.n_items  # rows of mean mass about 1
    weighs = loss.weighing(labelled)
    return new_map.fit(data.probabilities[weighs], rectified[weighs])


@dataclass(frozen=True, eq=False, repr=False)
class RecalibrationStudy(Result):
    """Base, Naive and Corrected recalibration side by side (paper App. E.5).

    Attributes
    ----------
    table : pandas.DataFrame
        Index ``(method, fit)`` with ``fit`` in ``base``, ``naive``, ``corrected`` (the base row
        repeated in every method's block); columns ``nc_ece`` (corrected labels of the
        evaluation sample), ``soft_vote_ece`` (naive), ``oracle_ece`` (only when ``oracle`` was
        given) and ``map`` (the fitted parameters).  All ECEs bin the transformed scores; on a
        crowd, ``nc_ece`` averages over the items with a corrected label (the crowd rule of
        :func:`recalibrate`), the others over every item.
    maps : dict
        ``(method, fit) -> fitted map`` for ``fit`` in ``naive``, ``corrected``.
    channels : Channels
        The channels used for fitting and evaluation.
    channel_fit : ChannelFit or None
        The channel estimate (None when channels were given).
    """

    table: object
    maps: dict
    channels: Channels
    channel_fit: object


def check_samples(samples: dict, where: str) -> None:
    """The samples of a split (by name) for ``where``: binary data of the same annotators, and
    (by item id, where they have ids) no item in two of them, or one warning per pair that
    shares some."""
    for name, sample in samples.items():
        if not isinstance(sample, AnnotatedScores):
            raise TypeError(
                f"{name} must be a bayescal.AnnotatedScores; saw {type(sample).__name__}"
            )
        sample.require_binary(where)
        v.check_items_annotated(sample.annotations, f"{name}.annotations")
    (first, reference), *others = samples.items()
    for name, sample in others:
        v.check_same_annotators(sample.annotator_names, reference.annotator_names, name, first)
    for (name, sample), (other_name, other) in combinations(samples.items(), 2):
        warn_of_shared_items(sample.item_ids, name, other.item_ids, other_name, where)


@old_spellings()
def recalibration_study(
    channel_data,
    fit_data,
    eval_data,
    *,
    methods=METHODS,
    estimator="dawid_skene_em",
    weights="iv",
    fit_bins=DEFAULT_FIT_BINS,
    n_bins=DEFAULT_N_BINS,
    eps=DEFAULT_EPS,
    oracle=None,
    estimator_options=None,
) -> RecalibrationStudy:
    """The split-sample recalibration workflow of paper App. E.5 (Algorithm 1).

    1. Channels are estimated on ``channel_data`` (or given).
    2. For each method, a map is fitted on ``fit_data`` twice: to the mean annotator responses
       (Naive) and to the corrected labels (Corrected; IV plug-in weights from ``fit_data``).
    3. Each predictor (the original scores = Base, and every fitted map) is evaluated on
       ``eval_data`` with ``n_bins`` equal-width bins of its *transformed* score: NC-ECE with the
       channels of step 1, the naive soft-vote ECE, and, given ``oracle``, the oracle ECE.

    Parameters
    ----------
    channel_data, fit_data, eval_data : AnnotatedScores
        Three samples with the same annotators (independent samples in the paper's guarantees).
    methods : sequence of {"temperature", "platt", "histogram"}, default all three
    estimator : str, callable or Channels, default "dawid_skene_em"
        As in :func:`bayescal.nc_ece`; known :class:`Channels` skip step 1.  Two annotators
        need ``"grouped_em"`` or ``"hui_walter_gmm"`` with ``channel_data.groups``.
    weights : rule name or array_like, default "iv"
    fit_bins : int, default 10
        Fitting bins of the histogram map (the paper uses ten equal-width bins).
    n_bins : int or "auto", default 10
        Equal-width evaluation bins of the transformed scores.
    eps : float, default 1e-6
        Input clipping of the logistic maps.
    oracle : array_like, shape (n_eval,), optional
        The true labels of ``eval_data`` or their probabilities ``m(Z)`` (the paper's Gaussian
        oracle ECE replaces labels by ``m(Z_i)``, App. F.5).
    estimator_options : dict, optional

    Returns
    -------
    RecalibrationStudy
    """
    import pandas as pd

    check_samples(
        {"channel_data": channel_data, "fit_data": fit_data, "eval_data": eval_data},
        "recalibration_study",
    )
    if isinstance(methods, str) or not hasattr(methods, "__iter__"):
        raise TypeError(
            f"methods must be a sequence of method names from {METHODS}; saw {methods!r}"
        )
    methods = [v.as_choice(m, "methods", METHODS) for m in methods]
    if not methods:
        raise ValueError(f"methods must name at least one of {METHODS}; saw an empty sequence")
    evaluation_bins = v.as_n_bins(n_bins, eval_data.n_items)
    truth = None if oracle is None else v.as_probabilities(oracle, "oracle")
    if truth is not None:
        v.check_same_length(truth, "oracle", eval_data.scores, "eval_data.scores")
    if estimator_options is not None and not isinstance(estimator_options, dict):
        raise TypeError(f"estimator_options must be a dict; saw {type(estimator_options).__name__}")
    fit_channels, name = estimator_function(estimator, estimator_options or {})
    channel_fit = (
        None
        if fit_channels is None
        else fit_or_raise(fit_channels, name, channel_data, "channel_data")
    )
    channels = estimator if channel_fit is None else channel_fit.channels

    fitting_targets = {kind: targets_of(fit_data, kind, channels, weights) for kind in TARGETS}
    evaluation_targets = {
        "nc_ece": targets_of(eval_data, "corrected", channels, weights),
        "soft_vote_ece": targets_of(eval_data, "naive", None, weights),
    }
    if truth is not None:
        evaluation_targets["oracle_ece"] = (truth, np.ones(eval_data.n_items, dtype=bool))
    corrected = evaluation_targets["nc_ece"][1]
    if not corrected.all():  # a crowd's items without a corrected label: fewer to bin
        v.as_n_bins(evaluation_bins, int(corrected.sum()))

    def evaluated(predictions) -> dict:
        # equal-width bins: the same edges for every column, whichever items have a target
        return {
            column: binned_moments(target[has], predictions[has], evaluation_bins, "uniform").ece
            for column, (target, has) in evaluation_targets.items()
        }

    base = {**evaluated(eval_data.scores), "map": "identity"}
    rows, index, maps = [], [], {}
    for method in methods:
        rows.append(base)
        index.append((method, "base"))
        for kind in ("naive", "corrected"):
            targets, has_target = fitting_targets[kind]
            fitted = make_map(method, fit_bins=fit_bins, strategy="uniform", eps=eps).fit(
                fit_data.scores[has_target], targets[has_target]
            )
            maps[(method, kind)] = fitted
            rows.append({**evaluated(fitted.predict(eval_data.scores)), "map": fitted.describe()})
            index.append((method, kind))
    table = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["method", "fit"]))
    return RecalibrationStudy(table, maps, channels, channel_fit)
