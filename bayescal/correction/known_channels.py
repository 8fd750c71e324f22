"""Noise correction with known annotator channels: corrected labels, weights, NC-ECE (paper §2–3).

An annotator ``j`` is a binary channel ``a_j = P(A_j = 1 | Y = 0)`` (false-positive rate),
``b_j = P(A_j = 1 | Y = 1)`` (sensitivity), with gap ``d_j = b_j - a_j``.  Because
``E[A_j | Y, Z] = a_j + d_j Y`` (paper Eq. B.3), the corrected label

    U_j = (A_j - a_j) / d_j

satisfies ``E[U_j | Y, Z] = Y`` for any non-zero gap, and so does any convex combination
``U = sum_j alpha_j U_j``.  Replacing ``Y`` by ``U`` in the binned calibration moments gives
the noise-corrected ECE (NC-ECE, paper Eq. 7) whose bin moments are unbiased (Lemma C.2).
``U`` may lie outside [0, 1]; that is expected and must not be clipped.

Scored against raw annotations instead, the label-side conditional mean is
``a_j + d_j m(Z)`` rather than ``m(Z)``, and neither more data, averaging (soft vote) nor a
majority vote removes that bias (paper App. B.3): :func:`soft_vote_ece` and
:func:`majority_vote_ece` are the naive baselines to compare with.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, old_spellings, silenced
from ..channels import Channels, channels_for
from ..channels.crowd_em import CROWD_ANNOTATORS
from ..channels.label_posteriors import ChannelParameters, label_probabilities
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..data.cells import CellStatistics
from ..data.responses import Responses
from ..exceptions import ChannelWarning, DataWarning
from ..metrics.calibration import BinnedMoments, assign_bins, bin_index, moments_in_bins
from ._channel_screen import check_channels, screen_channels, without_uninformative
from .crowd import crowd_prevalence, crowd_targets, report_unlabelled
from .rectified import GOLD_ESTIMATORS, GoldRows, RectifiedBins, model_bins, rectified_bins
from .weights import PREVALENCE_CLIP, WEIGHT_RULES, rule_weights

__all__ = [
    "WEIGHT_RULES",
    "aggregation_weights",
    "corrected_labels",
    "label_posterior",
    "majority_vote_ece",
    "majority_vote_labels",
    "noise_corrected_ece",
    "soft_vote_ece",
    "soft_vote_labels",
]

#: How :func:`majority_vote_labels` scores an exact tie.
TIE_RULES = ("half", "positive", "negative")


@old_spellings()
def aggregation_weights(channels, *, prevalence=None, rule="iv") -> np.ndarray:
    """Convex weights ``alpha`` for combining corrected labels (paper §4.4, App. F.4).

    Rules, each normalised to sum to one:

    - ``"equal"``: ``alpha_j ∝ 1``;
    - ``"gap"``: ``alpha_j ∝ d_j`` (needs ``b_j > a_j``);
    - ``"squared_gap"``: ``alpha_j ∝ d_j^2``;
    - ``"iv"`` (inverse variance, the default): ``alpha_j ∝ 1 / v_j`` with
      ``v_j = [(1 - mu) a_j (1 - a_j) + mu b_j (1 - b_j)] / d_j^2``, the variance of
      ``U_j - Y`` (paper Eq. C.28), floored at 1e-8.  These minimise the residual variance of
      ``U`` for known channels (paper §4.4, App. C.6).

    Parameters
    ----------
    channels : Channels
    prevalence : float in [0, 1], optional
        Class proportion ``mu = P(Y = 1)``; required by ``"iv"`` and ignored by the others.
        :func:`corrected_labels` estimates it by the App. F.4 plug-in rule when it is omitted.
    rule : {"iv", "equal", "gap", "squared_gap"}

    Returns
    -------
    ndarray, shape (K,)
    """
    channels, informative = screen_channels(channels)
    rule = v.as_choice(rule, "rule", WEIGHT_RULES)
    if rule == "iv":
        if prevalence is None:
            raise ValueError(
                "prevalence is required for rule 'iv' (the variance v_j depends on P(Y = 1)); "
                "pass it, or call corrected_labels, which estimates it from the annotations (App. F.4)"
            )
        prevalence = v.as_probability(prevalence, "prevalence")
    weights = rule_weights(channels.a, channels.b, prevalence, rule) * informative
    return weights / weights.sum()


def per_annotator_corrections(
    annotations: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``U_ij = (A_ij - a_j) / d_j`` (0 where missing) and the (n, K) mask of observed responses.

    ``annotations`` is (n, K); ``a, b`` are (..., K), giving corrections of shape (..., n, K).
    """
    observed = annotations != v.MISSING
    a, gap = np.asarray(a)[..., None, :], (np.asarray(b) - np.asarray(a))[..., None, :]
    return np.where(observed, (annotations - a) / gap, 0.0), observed


def aggregate(corrected: np.ndarray, observed: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``sum_{j observed} alpha_j U_ij / sum_{j observed} alpha_j`` for every row: shape (..., n)."""
    mass = np.einsum("nk,...k->...n", observed.astype(np.float64), weights)
    if (mass <= 0).any():
        row = int(np.argwhere(mass <= 0)[0][-1])
        raise ValueError(
            f"weights give zero total weight to the annotators observed on item {row} "
            f"(observed columns {np.flatnonzero(observed[row]).tolist()}); its corrected label is undefined"
        )
    return np.einsum("...nk,...k->...n", corrected, weights) / mass


def plugin_prevalence(
    corrected: np.ndarray, observed: np.ndarray, counts: np.ndarray | None = None
):
    """App. F.4: mean of the equally weighted corrected labels, clipped to [1e-4, 1 - 1e-4].

    ``counts`` weights rows that stand for several items (pattern rows); shape (...,)."""
    equal = np.full(corrected.shape[-1], 1.0 / corrected.shape[-1])
    labels = aggregate(corrected, observed, equal)
    mean = labels.mean(axis=-1) if counts is None else labels @ counts / counts.sum()
    return np.clip(mean, *PREVALENCE_CLIP)


def pattern_labels(patterns: np.ndarray, counts: np.ndarray, a, b, rule) -> np.ndarray:
    """Corrected label (..., G) of each response pattern under each channel set ``a, b`` (..., K).

    ``rule`` is a weight-rule name (recomputed for every channel set) or explicit convex weights.

    ``counts`` (G,) says how many items share a pattern: the IV plug-in prevalence of a draw
    (App. F.4) averages over items, not patterns."""
    corrected, observed = per_annotator_corrections(patterns, a, b)  # (S, G, K), (G, K)
    if isinstance(rule, str):
        prevalence = plugin_prevalence(corrected, observed, counts) if rule == "iv" else None
        alpha = rule_weights(a, b, prevalence, rule)
    else:
        alpha = np.broadcast_to(rule, a.shape)
    return aggregate(corrected, observed, alpha)


def _as_weights(
    weights: object, channels: Channels, prevalence, corrected, observed, counts=None
) -> np.ndarray:
    if isinstance(weights, str):
        rule = v.as_choice(weights, "weights", WEIGHT_RULES)
        if rule == "iv":
            prevalence = (
                float(plugin_prevalence(corrected, observed, counts))
                if prevalence is None
                else v.as_probability(prevalence, "prevalence")
            )
        return rule_weights(channels.a, channels.b, prevalence, rule)
    return as_convex_weights(weights, channels.n_annotators)


def as_convex_weights(weights: object, n_annotators: int) -> np.ndarray:
    """Explicit weights: ``n_annotators`` non-negative numbers with a positive sum, normalised."""
    explicit = v.as_finite_vector(weights, "weights")
    if explicit.size != n_annotators:
        raise ValueError(
            f"weights must have one entry per annotator ({n_annotators}); saw {explicit.size}"
        )
    if (explicit < 0).any() or explicit.sum() <= 0:
        raise ValueError(
            f"weights must be non-negative with a positive sum (convex weights); saw {explicit.tolist()}"
        )
    return explicit / explicit.sum()


@old_spellings()
def corrected_labels(annotations, channels, *, weights="iv", prevalence=None) -> np.ndarray:
    """Aggregated corrected labels ``U_i = sum_j alpha_j (A_ij - a_j) / d_j`` (paper §3).

    With missing responses the weights are renormalised over the annotators each item has:
    ``U_i = sum_{j in O_i} alpha_j U_ij / sum_{j in O_i} alpha_j``, which keeps
    ``E[U_i | Y, Z, O_i] = Y`` whenever each answered label follows its channel given ``Y``
    whatever the set ``O_i`` of answers (missingness may depend on ``Y`` and ``Z``).  An item
    with no answer drops out, which is harmless only when that happens independently of ``Y``
    given ``Z``: judges who abstain on the items the predictor gets wrong bias NC-ECE
    downwards (benchmarks/abstention_bias.py).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K)
        0/1 labels, ``-1`` for missing.  Every item needs at least one response.
    channels : Channels
        One channel per column, each with a non-zero gap.
    weights : {"iv", "equal", "gap", "squared_gap"} or array_like, default "iv"
        A rule of :func:`aggregation_weights`, or explicit non-negative weights (normalised).
    prevalence : float, optional
        ``P(Y = 1)`` for the ``"iv"`` rule.  When omitted, the plug-in rule of App. F.4 is used:
        the mean of the equally weighted corrected labels, clipped to [1e-4, 1 - 1e-4].

    Returns
    -------
    ndarray of float, shape (n,)
        Corrected labels; they may lie outside [0, 1].
    """
    annotations = v.as_annotations(annotations, "annotations")
    v.check_items_annotated(annotations, "annotations")
    return correct_annotations(annotations, channels, weights, prevalence)


def correct_annotations(
    annotations: np.ndarray,
    channels,
    weights,
    prevalence,
    weight_sample=None,
    counts=None,
    names=None,
) -> np.ndarray:
    """:func:`corrected_labels` on an annotation matrix that is already validated.

    ``weight_sample`` (validated annotations) is the sample the weights are fitted on, when
    that is not the one being corrected (split and cross-fit NC-ECE, paper App. C.4, F.4).
    ``counts`` says how many items each row stands for (pattern rows), for the plug-in prevalence.
    ``names`` name the annotators in warnings (their column positions by default).
    """
    if names is None:
        names = [str(j) for j in range(annotations.shape[1])]
    channels, informative = screen_channels(channels, annotations.shape[1], names)
    if not informative.all():  # uninformative annotators' labels count as missing
        annotations = without_uninformative(annotations, informative, names, refuse_lost=True)
        if weight_sample is not None:
            weight_sample = without_uninformative(
                weight_sample, informative, names, refuse_lost=False
            )
    corrected, observed = per_annotator_corrections(annotations, channels.a, channels.b)
    fit_corrected, fit_observed = (
        (corrected, observed)
        if weight_sample is None
        else per_annotator_corrections(weight_sample, channels.a, channels.b)
    )
    alpha = _as_weights(
        weights,
        channels,
        prevalence,
        fit_corrected,
        fit_observed,
        None if weight_sample is not None else counts,
    )
    return aggregate(corrected, observed, alpha)


def label_posterior(annotations, channels, prevalence) -> np.ndarray:
    """``P(Y_i = 1 | A_i)`` under conditional independence given Y: the Dawid–Skene E-step
    (paper §4.3, App. F.2; Dawid and Skene 1979).

    ``log odds = logit(mu) + sum_{j observed} [A_ij log(b_j / a_j) + (1 - A_ij) log((1 - b_j) / (1 - a_j))]``.
    Rounding it at 0.5 gives the Dawid–Skene aggregate label, the model-based alternative to a
    majority vote; unlike corrected labels it lies in [0, 1] but is not unbiased for Y.  A
    fit's own :meth:`~bayescal.ChannelFit.predict_proba` gives the same with its prevalence
    and gold (:mod:`bayescal.channels.label_posteriors`).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K), AnnotatedScores or Responses
        0/1 labels, -1 for missing, a column per channel; or data whose labels these are (a
        crowd's sparse :class:`~bayescal.data.Responses` included), matched to named channels
        by name.  A gold label is not used here.
    channels : Channels
        Matched to the data's annotators by name when both are named.
    prevalence : float in (0, 1)
        ``mu = P(Y = 1)``, e.g. a fit's ``prevalence``.

    Returns
    -------
    ndarray, shape (n,)
    """
    require_binary(annotations, "label_posterior")
    if isinstance(annotations, AnnotatedScores):
        annotations = annotations.responses()
    if not isinstance(annotations, Responses):  # a bare table meets the channels by position
        dense = v.as_annotations(annotations, "annotations")
        names = check_channels(channels, dense.shape[1]).names
        annotations = Responses.from_dense(dense, annotator_names=names)
    channels = channels_for(channels, annotations.annotator_names, where="annotations")
    mu = v.as_open_probability(prevalence, "prevalence")
    parameters = ChannelParameters(
        channels.a[None, :], channels.b[None, :], np.array([[mu]]), annotations.annotator_names
    )
    return label_probabilities(replace(annotations, gold=None), parameters, where="annotations")


def soft_vote_labels(annotations) -> np.ndarray:
    """Mean observed response of each item (the naive "soft vote" target, paper App. B.3)."""
    annotations = v.as_annotations(annotations, "annotations")
    v.check_items_annotated(annotations, "annotations")
    return soft_vote(annotations)


def soft_vote(annotations: np.ndarray) -> np.ndarray:
    observed = annotations != v.MISSING
    return (annotations * observed).sum(axis=1) / observed.sum(axis=1)


@old_spellings()
def majority_vote_labels(annotations, *, ties="half") -> np.ndarray:
    """Majority of the observed responses of each item (naive target, paper App. B.3).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K)
    ties : {"half", "positive", "negative"}, default "half"
        Target of an exact tie (possible with an even number of responses): 0.5 (neither
        class), 1 or 0.
    """
    annotations = v.as_annotations(annotations, "annotations")
    v.check_items_annotated(annotations, "annotations")
    ties = v.as_choice(ties, "ties", TIE_RULES)
    return majority_vote(annotations, ties)


def majority_vote(annotations: np.ndarray, ties: str) -> np.ndarray:
    share = soft_vote(annotations)
    tie_value = {"half": 0.5, "positive": 1.0, "negative": 0.0}[ties]
    return np.where(share > 0.5, 1.0, np.where(share < 0.5, 0.0, tie_value))


def evaluation_cells(data, n_bins=None, strategy="uniform", *, by_group=False) -> CellStatistics:
    """The (evaluation bin, response pattern) cells an ECE of pattern-level targets runs on.

    ``data`` is an :class:`~bayescal.AnnotatedScores` (binned here, ``n_bins`` defaulting to
    :data:`bayescal.DEFAULT_N_BINS`) or a :class:`~bayescal.data.CellStatistics`, whose bins
    were fixed when it was built (then ``n_bins`` may only repeat them).  Every item needs a
    response: an item without one has no target.  ``by_group`` keeps the score groups apart
    (channels per score group correct each group's items with its own channels).
    """
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    if isinstance(data, CellStatistics):
        if strategy != "uniform" or n_bins not in (None, data.n_bins):
            raise ValueError(
                f"n_bins and strategy are fixed when cells are built; these cells have "
                f"{data.n_bins} bins, and saw n_bins={n_bins!r}, strategy={strategy!r}"
            )
        cells = data
    elif isinstance(data, AnnotatedScores):
        cells = data.cells(
            n_bins=DEFAULT_N_BINS if n_bins is None else n_bins,
            strategy=strategy,
            by_group=by_group,
        )
    else:
        raise TypeError(
            "data must be a bayescal.AnnotatedScores or bayescal.data.CellStatistics; saw "
            f"{type(data).__name__} (since bayescal 0.2 the ECE functions take "
            "data=AnnotatedScores(scores, annotations) in place of scores and annotations)"
        )
    unannotated = (cells.patterns == v.MISSING).all(axis=1)
    if unannotated.any():
        if isinstance(data, AnnotatedScores):
            v.check_items_annotated(data.annotations, "data.annotations")
        raise ValueError(
            f"data has {int(cells.counts[unannotated].sum())} item(s) with no observed "
            "annotation; such items carry no label information: drop them first"
        )
    return cells


def cell_targets(
    cells: CellStatistics, channels, weights="iv", prevalence=None, weight_sample=None
):
    """Corrected label of each cell (:func:`corrected_labels`), computed once per response
    pattern; the IV plug-in prevalence weighs each pattern by its items (paper App. F.4)."""
    patterns, index = cells.unique_patterns()
    counts = np.bincount(index, weights=cells.counts, minlength=patterns.shape[0])
    labels = correct_annotations(
        patterns, channels, weights, prevalence, weight_sample, counts, cells.annotator_names
    )
    return labels[index]


@old_spellings(
    was="noise_corrected_ece(scores, annotations, channels, n_bins, strategy, weights, prevalence)"
)
def noise_corrected_ece(
    data,
    channels,
    *,
    n_bins=None,
    strategy="uniform",
    weights="iv",
    prevalence=None,
    gold_estimator="rectified",
) -> float:
    """Noise-corrected ECE with known (or separately estimated) channels (paper Eq. 7).

    ``NC-ECE = sum_l | (1/n) sum_{i in B_l} (U_i - Z_i) |`` with ``U`` from
    :func:`corrected_labels`.  Its bin moments are unbiased for the clean-label moments
    ``E[(Y - Z) 1{Z in B_l}]`` when the channels are the true ones (Lemma C.2); the absolute
    value adds the usual small upward bias of binned ECE.  With perfect channels
    (``a = 0, b = 1``) it equals the clean-label ECE exactly.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        Scores and 0/1 annotations (``-1`` for missing), or their cells (e.g. a table larger
        than memory, :func:`bayescal.data.cell_statistics_from_frame`).
    channels : Channels or ChannelFit
        Named channels (a fit's carry its annotators' names) are matched to the data's
        annotators by name; unnamed ones by position.
    n_bins : int or "auto", optional
        Evaluation bins: 10 (:data:`bayescal.DEFAULT_N_BINS`) by default; cells keep their own.
    strategy : {"uniform", "quantile"}, default "uniform"
    weights, prevalence
        As in :func:`corrected_labels`.
    gold_estimator : {"rectified", "model"}, default "rectified"
        With gold items (``data.gold``), how a bin's mean label is estimated
        (:mod:`bayescal.correction.rectified`): ``"rectified"`` (prediction-powered, right
        even when the channel model is wrong, provided the gold is a random sample) or
        ``"model"`` (the gold label where known, the corrected label elsewhere).  Without
        gold it is not used.

    Returns
    -------
    float

    Examples
    --------
    >>> data = AnnotatedScores([0.2, 0.8, 0.9, 0.3], [[0, 0], [1, 1], [1, 0], [0, 1]])
    >>> perfect = Channels([0.0, 0.0], [1.0, 1.0])
    >>> round(noise_corrected_ece(data, perfect, n_bins=2, weights="equal"), 4)
    0.05

    (Bin [0, 0.5): labels 0 and 0.5 against scores 0.2 and 0.3, residuals summing to 0; bin
    [0.5, 1]: labels 1 and 0.5 against 0.8 and 0.9, summing to -0.2; so ``|-0.2| / 4`` items.)
    """
    require_binary(data, "noise_corrected_ece")
    gold_estimator = v.as_choice(gold_estimator, "gold_estimator", GOLD_ESTIMATORS)
    return corrected_moments(
        data, channels, weights, n_bins, strategy, prevalence, gold_estimator=gold_estimator
    ).ece


def corrected_moments(
    data,
    channels,
    weights,
    n_bins,
    strategy,
    prevalence=None,
    weight_sample=None,
    gold_estimator=GOLD_ESTIMATORS[0],
) -> BinnedMoments:
    """NC-ECE bin moments of ``data`` (AnnotatedScores or cells) with ``channels``;
    ``weight_sample`` (AnnotatedScores) is the sample the weights are fitted on, when it is not
    ``data``.  A crowd (:func:`is_crowd`) runs on its sparse responses under the crowd rule of
    :mod:`bayescal.correction.crowd`: an item labelled only by workers too uninformative to
    correct it counts as unlabelled (one warning), as in the posterior push-through, and the
    moments average over the labelled items in the bins of all.  With gold items the bin
    means are ``gold_estimator``'s (:func:`gold_moments`)."""
    if is_crowd(data):
        # a crowd's cells are one per item and go unused: only the bins' edges are needed
        # (tabulating 2 000 items of 6 000 workers took 0.65 s a call)
        strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
        v.check_items_annotated(data.annotations, "data.annotations")
        bins = v.as_n_bins(DEFAULT_N_BINS if n_bins is None else n_bins, data.n_items)
        _, edges = assign_bins(data.scores, bins, strategy)
        channels = channels_for(channels, data.annotator_names)
        targets, labelled = crowd_corrected_labels(
            data, channels, weights, prevalence, weight_sample
        )
        return labelled_moments(data, targets, labelled, edges, strategy, gold_estimator)
    cells = evaluation_cells(data, n_bins, strategy)
    channels = channels_for(channels, cells.annotator_names)
    if isinstance(data, CellStatistics) and data.has_gold:
        rows = GoldRows(
            cells.bins,
            cell_targets(cells, channels, weights, prevalence),
            cells.gold,
            cells.counts.astype(np.float64),
            np.ones(cells.n_cells),
        )
        return _gold_bins(
            rows, cells.bin_score_sums, cells.edges, cells.n_items, gold_estimator
        ).moments
    fitted_on = None if weight_sample is None else weight_sample.annotations
    if not cells.has_gold:
        return cells.moments(cell_targets(cells, channels, weights, prevalence, fitted_on))
    targets = correct_annotations(
        data.annotations, channels, weights, prevalence, fitted_on, names=data.annotator_names
    )
    labelled = np.ones(data.n_items, dtype=bool)
    return labelled_moments(data, targets, labelled, cells.edges, strategy, gold_estimator)


def labelled_moments(
    data, targets, labelled, edges, strategy: str, gold_estimator=GOLD_ESTIMATORS[0]
) -> BinnedMoments:
    """The NC-ECE bin moments of the ``labelled`` items of ``data`` (a crowd's, under the crowd
    rule) with corrected labels ``targets`` (n,), in the bins ``edges`` of every item.  When
    items were left out, more bins than the labelled items warn, as more bins than items do
    anywhere (:class:`~bayescal.BinningWarning`).  With gold items, the bin means are
    ``gold_estimator``'s (:func:`gold_moments`)."""
    if not labelled.all():
        v.as_n_bins(edges.size - 1, int(labelled.sum()))
    if data.n_gold:
        return gold_moments(data, targets, labelled, edges, strategy, gold_estimator).moments
    return moments_in_bins(targets[labelled], data.scores[labelled], edges, strategy)


def gold_moments(
    data: AnnotatedScores, targets, labelled, edges, strategy: str, gold_estimator: str
):
    """The bin means with gold of the ``labelled`` items of ``data`` (their corrected labels
    ``targets``, (n,)) in the bins ``edges``: a :class:`~bayescal.correction.rectified.RectifiedBins`
    for ``"rectified"``, and one whose standard errors and lambdas are not estimated (NaN)
    for ``"model"`` (:mod:`bayescal.correction.rectified`).  Item by item, each gold item with
    its weight ``1/pi``."""
    inclusion = None if data.gold_weights is None else data.gold_weights[labelled]
    return problem_gold_moments(
        data.scores[labelled],
        targets[labelled],
        data.gold[labelled],
        inclusion,
        edges,
        strategy,
        gold_estimator,
    )


def problem_gold_moments(scores, targets, gold, inclusion, edges, strategy: str, gold_estimator):
    """:func:`gold_moments` of one binary problem's items: their ``scores``, corrected labels
    ``targets``, gold labels (0/1, -1 for none) and inclusion probabilities (None: a simple
    random sample), item by item (a multi-class problem's too,
    :mod:`bayescal.correction.class_estimation`)."""
    index = bin_index(scores, edges, strategy)
    weights = np.ones(gold.size)
    if inclusion is not None:
        known = gold != v.MISSING
        weights = np.where(known, 1.0 / np.where(known, inclusion, 1.0), 1.0)
    rows = GoldRows(index, targets, gold, np.ones(gold.size), weights)
    score_sums = np.bincount(index, weights=scores, minlength=edges.size - 1)
    return _gold_bins(rows, score_sums, edges, int(scores.size), gold_estimator)


#: The fewest gold items a bin's CLT spread rests on (:func:`rectified_moment_spread`): the
#: variance of fewer is mostly noise, and one item, or items of one label, give exactly 0.
MIN_CLT_GOLD = 10


def rectified_moment_spread(data: AnnotatedScores, channels, weights, edges, strategy: str):
    """The CLT standard deviation (M,) of each rectified bin moment ``r_l = (n_l / n)(m_l -
    zbar_l)`` of ``data`` (with gold) at ``channels``: ``n_l / n`` times the standard error of
    the bin mean (:class:`~bayescal.correction.rectified.MeanProblem`), on the items the
    estimate uses (a crowd's under the crowd rule).  0 for a bin with fewer than
    :data:`MIN_CLT_GOLD` gold items, where no CLT spread is offered.  Silent: what the
    channels and the crowd rule say was said by the estimate."""
    channels = channels_for(channels, data.annotator_names)
    with silenced(ChannelWarning, DataWarning):
        if is_crowd(data):
            targets, labelled = crowd_corrected_labels(data, channels, weights, report=False)
        else:
            targets = correct_annotations(
                data.annotations, channels, weights, None, names=data.annotator_names
            )
            labelled = np.ones(data.n_items, dtype=bool)
    bins = gold_moments(data, targets, labelled, edges, strategy, "rectified")
    spread = bins.moments.counts / bins.moments.n_items * bins.standard_errors
    return np.where(bins.gold_counts >= MIN_CLT_GOLD, spread, 0.0)


class GoldCells(NamedTuple):
    """The rows a posterior with gold runs on (:func:`gold_cells`): the rows (their
    ``targets`` not yet known), each row's response pattern and its scores' mean and sd."""

    rows: GoldRows
    patterns: np.ndarray
    score_mean: np.ndarray
    score_sd: np.ndarray


def gold_cells(data, cells: CellStatistics, strategy: str) -> GoldCells:
    """The evaluation ``cells`` of ``data`` (binned by ``strategy``) as rows for the
    estimators with gold: the cells as
    they are, or, when ``data`` (an AnnotatedScores) has ``gold_weights``, the cells of the
    other items and each gold item a row of its own with its weight ``1/pi``."""
    mean, sd = cells.score_moments()
    if not isinstance(data, AnnotatedScores) or data.gold_weights is None:
        rows = GoldRows(
            cells.bins,
            np.zeros(cells.n_cells),
            cells.gold,
            cells.counts * 1.0,
            np.ones(cells.n_cells),
        )
        return GoldCells(rows, cells.patterns, mean, sd)
    other = cells.gold == v.MISSING
    items = np.flatnonzero(data.gold != v.MISSING)
    bins = bin_index(data.scores[items], cells.edges, strategy)
    rows = GoldRows(
        np.concatenate([cells.bins[other], bins]),
        np.zeros(other.sum() + items.size),
        np.concatenate([cells.gold[other], data.gold[items]]),
        np.concatenate([cells.counts[other] * 1.0, np.ones(items.size)]),
        np.concatenate([np.ones(other.sum()), 1.0 / data.gold_weights[items]]),
    )
    return GoldCells(
        rows,
        np.concatenate([cells.patterns[other], data.annotations[items]]),
        np.concatenate([mean[other], data.scores[items]]),
        np.concatenate([sd[other], np.zeros(items.size)]),
    )


def _gold_bins(rows, score_sums, edges, n_items: int, gold_estimator: str) -> RectifiedBins:
    if gold_estimator == "rectified":
        return rectified_bins(rows, score_sums, edges, n_items)
    moments = model_bins(rows, score_sums, edges, n_items)
    is_gold = rows.gold != v.MISSING
    gold_counts = np.bincount(
        rows.bins[is_gold], weights=rows.counts[is_gold], minlength=edges.size - 1
    )
    unknown = np.full(edges.size - 1, np.nan)
    return RectifiedBins(moments, unknown, unknown, unknown, gold_counts.astype(np.int64))


def is_crowd(data) -> bool:
    """Whether ``data`` is corrected as a crowd: an AnnotatedScores of more than
    ``CROWD_ANNOTATORS`` annotators."""
    return isinstance(data, AnnotatedScores) and data.n_annotators > CROWD_ANNOTATORS


def crowd_corrected_labels(
    data: AnnotatedScores,
    channels,
    weights="iv",
    prevalence=None,
    weight_sample=None,
    *,
    report=True,
):
    """A crowd's corrected labels with ``channels`` under the crowd rule of
    :mod:`bayescal.correction.crowd`, from its sparse responses: ``(targets, labelled)``, each
    (n,).  An item labelled only by workers too uninformative to correct it (informative IV
    precision below 1) is not labelled (target 0), said in one warning unless ``report`` is
    False (the caller says it once for several calls); no item labelled is refused.
    ``weights`` and ``prevalence`` as in :func:`corrected_labels`; ``weight_sample``
    (AnnotatedScores) gives the plug-in prevalence when the weights are fitted on another
    sample (split and cross-fit NC-ECE, App. C.4, F.4)."""
    screen_channels(channels, data.n_annotators, list(data.annotator_names))  # its warnings
    rule = (
        v.as_choice(weights, "weights", WEIGHT_RULES)
        if isinstance(weights, str)
        else as_convex_weights(weights, data.n_annotators)
    )
    a, b = np.asarray(channels.a, float), np.asarray(channels.b, float)
    if prevalence is not None:
        prevalence = v.as_open_probability(prevalence, "prevalence")
    elif weight_sample is not None and isinstance(rule, str):
        prevalence = crowd_prevalence(weight_sample, a, b)
    targets, labelled = crowd_targets(data, a, b, rule, prevalence)
    if report:
        report_unlabelled(np.array([data.n_items - labelled.sum()]), data.n_items)
    return targets, labelled


@old_spellings(was="soft_vote_ece(scores, annotations, n_bins, strategy)")
def soft_vote_ece(data, *, n_bins=None, strategy="uniform") -> float:
    """Naive ECE against the mean observed response of each item (biased, paper App. B.3).

    ``data``, ``n_bins`` and ``strategy`` as in :func:`noise_corrected_ece`."""
    require_binary(data, "soft_vote_ece")
    cells = evaluation_cells(data, n_bins, strategy)
    return cells.moments(soft_vote(cells.patterns)).ece


@old_spellings(was="majority_vote_ece(scores, annotations, n_bins, strategy, ties)")
def majority_vote_ece(data, *, n_bins=None, strategy="uniform", ties="half") -> float:
    """Naive ECE against the majority vote of each item (biased, paper App. B.3).

    ``data``, ``n_bins`` and ``strategy`` as in :func:`noise_corrected_ece`; ``ties`` as in
    :func:`majority_vote_labels`.
    """
    require_binary(data, "majority_vote_ece")
    ties = v.as_choice(ties, "ties", TIE_RULES)
    cells = evaluation_cells(data, n_bins, strategy)
    return cells.moments(majority_vote(cells.patterns, ties)).ece
