"""Push every posterior draw of the channels through NC-ECE.

One pass over the items groups them into *cells* of equal (evaluation bin, response pattern);
within a cell every item has the same corrected label for a given draw.  The cell counts, score
sums and score sums of squares are all the data the push-through needs, so its cost is
O(draws x cells x K) however many items there are.

Two kinds of uncertainty (``uncertainty=``):

- ``"channels"`` — the channel draws alone, pushed through the sample's bin moments,
  ``r_l = (1/n) sum_cells n_c (U_c - zbar_c)``.  This is what the method literally describes,
  and it is *not* an honest interval for the population ECE: the evaluation sample's own noise
  is left out (on the paper's toy design the 90% interval covers the population binned ECE far
  less than 90% of the time; see ``benchmarks/RESULTS.md``).
- ``"total"`` (default) — each draw also gets a Bayesian bootstrap of the items (Rubin 1981):
  item weights ``w ~ Dirichlet(1, ..., 1)``, ``r_l = sum_i w_i (U_i - Z_i) 1{i in B_l}``.  Cell
  totals of Dirichlet weights are exactly ``Dirichlet(n_c)``; the within-cell weighted score mean
  is replaced by its normal approximation ``zbar_c + s_c / sqrt(n_c + 1) * eps`` (exact mean and
  variance; ``s_c`` the cell's score SD).  Cells whose scores are all equal are exact.

A sum of absolute bin moments is biased upward (``E|r_hat| > |r|``), and for a calibrated
predictor no draw of ``sum_l |r_l|`` ever reaches 0, so its interval cannot cover 0.  The
reported ``"total"`` draws therefore correct every bin by the folded normal
(:mod:`bayescal.correction.folded_correction`), with or without gold items;
``raw_draws`` keeps the uncorrected ``sum_l |r_l*|``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import _validation as v
from .._api import (
    DEFAULT_FIT_BINS,
    DEFAULT_LEVEL,
    DEFAULT_N_BINS,
    old_spellings,
)
from ..correction.crowd import crowd_target_draws, report_unlabelled, response_moment_draws
from ..correction.known_channels import (
    as_convex_weights,
    evaluation_cells,
    gold_cells,
    is_crowd,
    pattern_labels,
    soft_vote,
)
from ..correction.rectified import (
    GOLD_ESTIMATORS,
    GoldRows,
    RectifiedLoss,
    bin_lambdas,
    gold_moment_draws,
)
from ..correction.target_draws import TargetDraws, moment_draws
from ..correction.weights import WEIGHT_RULES
from ..data.annotated_scores import AnnotatedScores, require_binary, warn_of_shared_items
from ..data.cells import CellStatistics, count_rows
from ..metrics.calibration import bin_index
from ..metrics.classes import refuse_binary_kind
from ..recalibration import DEFAULT_EPS, make_map
from .bayes_fit import BayesFit
from .class_posterior import class_nc_ece_posterior
from .class_recalibration import class_posterior_recalibration
from .posterior_ece import (
    MIN_KEPT_DRAWS,
    UNCERTAINTY,
    PosteriorECE,
    PosteriorRecalibration,
    evenly_spaced,
    posterior_summary,
)

__all__ = ["PosteriorECE", "PosteriorRecalibration", "nc_ece_posterior", "posterior_recalibration"]


def fit_weights(weights: object, n_annotators: int):
    """A rule name (weights recomputed per draw) or fixed explicit weights."""
    if isinstance(weights, str):
        return v.as_choice(weights, "weights", WEIGHT_RULES)
    return as_convex_weights(weights, n_annotators)


def _cell_labels(cells: CellStatistics, a, b, rule, group_ids=()) -> np.ndarray:
    """Each cell's corrected label (S, C) under every draw of the channels ``a, b`` (S, K); with
    channels per score group, ``a, b`` (S, L, K) of the groups ``group_ids``, each cell's group's
    (its items are corrected by their group's channels, with the group's own IV prevalence)."""
    if a.ndim == 2:  # one channel set for every cell
        a, b, parts = a[:, None], b[:, None], [np.arange(cells.n_cells)]
    else:
        parts = [np.flatnonzero(cells.groups == group) for group in group_ids]
    labels = np.empty((a.shape[0], cells.n_cells))
    for g, rows in enumerate(parts):
        patterns, index = np.unique(cells.patterns[rows], axis=0, return_inverse=True)
        index = index.ravel()
        counts = np.bincount(index, weights=cells.counts[rows], minlength=patterns.shape[0])
        labels[:, rows] = pattern_labels(patterns, counts, a[:, g], b[:, g], rule)[:, index]
    return labels


def _moment_draws(
    cells: CellStatistics, a, b, rule, uncertainty: str, seed: int, group_ids=()
) -> np.ndarray:
    """Draws (S, M) of the bin moments: O(draws x cells x K), never O(draws x items); the
    bootstrap draws cell by cell in :meth:`~bayescal.data.CellStatistics.in_draw_order`.
    ``a, b`` and ``group_ids`` as :func:`_cell_labels` takes them."""
    cells = cells.in_draw_order()
    labels = _cell_labels(cells, a, b, rule, group_ids)  # (S, C)
    mean_score, score_sd = cells.score_moments()
    membership = np.zeros((cells.n_cells, cells.n_bins))
    membership[np.arange(cells.n_cells), cells.bins] = 1.0
    if uncertainty == "channels":
        return ((labels - mean_score) * cells.counts) @ membership / cells.n_items
    rng = np.random.default_rng(seed)
    # cell totals of Dirichlet(1, ..., 1) item weights
    shares = rng.gamma(cells.counts.astype(np.float64), size=labels.shape)
    shares /= shares.sum(axis=1, keepdims=True)
    noise = rng.standard_normal(labels.shape)
    scores = mean_score + score_sd / np.sqrt(cells.counts + 1) * noise
    return (shares * (labels - scores)) @ membership


def _gold_moment_draws(data, cells, strategy, a, b, rule, uncertainty, seed, gold_estimator):
    """Draws (S, M) of the bin moments with gold items
    (:func:`~bayescal.correction.rectified.gold_moment_draws`): on the rows of
    :func:`~bayescal.correction.known_channels.gold_cells`, or on a crowd's items under the
    crowd rule a chunk of draws at a time; each bin's lambda from the posterior-mean
    corrected labels."""
    rng = np.random.default_rng(seed)
    if not is_crowd(data):
        prepared = gold_cells(data, cells.in_draw_order(), strategy)
        patterns, index = np.unique(prepared.patterns, axis=0, return_inverse=True)
        counts = np.bincount(index.ravel(), weights=prepared.rows.counts, minlength=len(patterns))
        labels = pattern_labels(patterns, counts, a, b, rule)[:, index.ravel()]
        rows = prepared.rows._replace(targets=labels.mean(axis=0))
        lambdas = bin_lambdas(rows, cells.n_bins)
        return gold_moment_draws(
            rows,
            labels,
            prepared.score_mean,
            prepared.score_sd,
            lambdas,
            gold_estimator,
            uncertainty,
            rng,
        )
    targets = crowd_target_draws(data, a, b, rule)
    mean, labelled = targets.mean()  # first pass: the mean labels, for lambda
    report_unlabelled(targets.dropped, data.n_items)
    weights = np.ones(data.n_items)
    if data.gold_weights is not None:
        pi = np.where(data.gold != v.MISSING, data.gold_weights, 1.0)
        weights = 1.0 / pi
    rows = GoldRows(
        bin_index(data.scores, cells.edges, strategy),
        mean,
        data.gold,
        (labelled > 0) * 1.0,  # an item never labelled weighs 0 in lambda
        weights,
    )
    lambdas = bin_lambdas(rows, cells.n_bins)
    rows = rows._replace(counts=np.ones(data.n_items))
    spread = np.zeros(data.n_items)
    return np.concatenate(
        [
            gold_moment_draws(
                rows,
                values,
                data.scores,
                spread,
                lambdas,
                gold_estimator,
                uncertainty,
                rng,
                has_target,
            )
            for _, values, has_target in targets.chunks()
        ]
    )


def checked_draws(
    fit, samples: dict, *, cells: bool = False, max_draws=None
) -> tuple[np.ndarray, np.ndarray]:
    """The fit's channel draws ``a, b`` (S, K) in the samples' column order, after checking
    that every sample has the fit's annotators, matched by name, in one order (and is an
    AnnotatedScores, or, with ``cells``, may be a CellStatistics); at most ``max_draws`` of
    them, evenly spaced (:func:`evenly_spaced`).  With channels per score group, (S, L, K):
    the groups ``fit.group_ids``, which every sample must have."""
    kinds = (AnnotatedScores, CellStatistics) if cells else (AnnotatedScores,)
    for name, data in samples.items():
        if not isinstance(data, kinds):
            expected = " or bayescal.data.CellStatistics" if cells else ""
            hint = (
                " (the data come before the fit since bayescal 0.2)"
                if isinstance(data, BayesFit)
                else ""
            )
            raise TypeError(
                f"{name} must be a bayescal.AnnotatedScores{expected}; saw {type(data).__name__}{hint}"
            )
    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal.BayesFit; saw {type(fit).__name__}")
    if max_draws is not None:
        max_draws = v.as_int(max_draws, "max_draws", minimum=MIN_KEPT_DRAWS)
    a, b, _ = fit.draws()
    rows = evenly_spaced(a.shape[0], max_draws)
    a, b = a[rows], b[rows]
    if fit.spec.channels_by_group:
        for name, data in samples.items():
            fit.check_groups_of(data, name=name)
        a = a.reshape(a.shape[0], len(fit.group_ids), -1)
        b = b.reshape(a.shape)
    (first, reference), *others = samples.items()
    positions = v.annotator_positions(reference.annotator_names, fit.annotators, first, "the fit")
    for name, data in others:  # one set of draws serves every sample: one column order
        v.annotator_positions(data.annotator_names, fit.annotators, name, "the fit")
        v.check_same_annotators(data.annotator_names, reference.annotator_names, name, first)
    for name, data in samples.items():
        if isinstance(data, AnnotatedScores):
            v.check_items_annotated(data.annotations, f"{name}.annotations")
    return a[..., positions], b[..., positions]


@old_spellings(
    renamed={"interval": "level"},
    was="posterior_ece(fit, data, n_bins, strategy, weights, interval, ...)",
)
def nc_ece_posterior(
    data,
    fit,
    *,
    n_bins=None,
    strategy="uniform",
    weights="iv",
    level=DEFAULT_LEVEL,
    uncertainty="total",
    tolerance=0.01,
    seed=0,
    max_draws=None,
    gold_estimator="rectified",
    kind=None,
) -> PosteriorECE:
    """Posterior of NC-ECE: every channel draw of ``fit`` pushed through the corrected bin moments.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        Evaluation data with the fit's annotators (the fitting data, or a separate sample).
        Multi-class data (with a :class:`~bayescal.bayes.class_fit.ClassBayesFit`) give the
        top-label or classwise NC-ECE (``kind``; :mod:`bayescal.bayes.class_posterior`), with
        gold items as for binary data.
    fit : BayesFit or ClassBayesFit
        With channels per score group (``hui_walter_by_group``), each item is corrected by its
        group's channels, and ``data`` must carry the fit's score groups (no gold, no crowd).
    n_bins, strategy
        Evaluation bins, as in :func:`bayescal.noise_corrected_ece` (``n_bins`` default: the
        bins of given cells, else :data:`~bayescal.DEFAULT_N_BINS`).
    weights : rule name or array_like, default "iv"
        Recomputed for every draw (IV weights depend on the draw's channels and on its
        App. F.4 plug-in prevalence).
    level : float in (0, 1), default 0.9
        Mass of the credible interval.
    uncertainty : {"total", "channels"}, default "total"
        See the module docstring.
    tolerance : float, default 0.01
        ``prob_calibrated = P(NC-ECE <= tolerance | data)``.
    seed : int, default 0
        Seeds the Bayesian bootstrap.
    max_draws : int or None, default None
        Push at most this many draws (at least 100), evenly spaced through the chains; None:
        every draw.  Thinning adds Monte Carlo error and changes nothing else.
    gold_estimator : {"rectified", "model"}, default "rectified"
        With gold items (``data.gold``), each bin's mean label per draw
        (:mod:`bayescal.correction.rectified`): rectified (prediction-powered, right when the
        channel model is wrong, provided the gold is a random sample), or model-based.  With
        ``uncertainty="total"`` the Bayesian bootstrap reweights the gold items and the others
        alike: the channel draws alone miss the rectifier's variance.
    kind : {"top_label", "classwise"}, optional
        Multi-class data only (default ``"top_label"``); classwise is the mean over classes.

    Returns
    -------
    PosteriorECE
        For multi-class data a :class:`~bayescal.bayes.class_posterior.ClassPosteriorECE`.
    """
    if isinstance(data, AnnotatedScores) and data.is_multiclass:
        return class_nc_ece_posterior(
            data,
            fit,
            kind="top_label" if kind is None else kind,
            n_bins=DEFAULT_N_BINS if n_bins is None else n_bins,
            strategy=strategy,
            weights=weights,
            level=level,
            uncertainty=uncertainty,
            tolerance=tolerance,
            seed=seed,
            max_draws=max_draws,
            gold_estimator=gold_estimator,
        )
    refuse_binary_kind(kind)
    require_binary(data, "nc_ece_posterior")
    a, b = checked_draws(fit, {"data": data}, cells=True, max_draws=max_draws)
    if isinstance(data, CellStatistics | AnnotatedScores):  # else refused just below
        given = data.n_bins if isinstance(data, CellStatistics) and n_bins is None else n_bins
        v.as_n_bins(
            DEFAULT_N_BINS if given is None else given, data.n_items, refuse_sparse=v.SPARSE_DRAWS
        )
    by_group = fit.spec.channels_by_group  # each item corrected by its group's channels
    cells = evaluation_cells(data, n_bins, strategy, by_group=by_group)
    if by_group and (cells.has_gold or is_crowd(data)):
        raise ValueError(
            f"fit: NC-ECE with a {fit.model} fit (channels per score group) is implemented for "
            "a panel's pattern counts without gold; these data have "
            + ("gold items" if cells.has_gold else "a crowd's sparse labels")
        )
    rule = fit_weights(weights, cells.n_annotators)
    level = v.as_open_probability(level, "level")
    uncertainty = v.as_choice(uncertainty, "uncertainty", UNCERTAINTY)
    gold_estimator = v.as_choice(gold_estimator, "gold_estimator", GOLD_ESTIMATORS)
    tolerance = v.as_probability(tolerance, "tolerance")
    seed = v.as_seed(seed)

    if cells.has_gold:
        moments = _gold_moment_draws(
            data, cells, strategy, a, b, rule, uncertainty, seed, gold_estimator
        )
    elif is_crowd(data):
        moments = response_moment_draws(data, cells.edges, strategy, a, b, rule, uncertainty, seed)
    else:
        moments = _moment_draws(cells, a, b, rule, uncertainty, seed, fit.group_ids)
    bin_counts = cells.bin_counts
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = cells.bin_score_sums / bin_counts
    return posterior_summary(
        moments,
        uncertainty,
        level,
        tolerance,
        cells.edges,
        bin_counts,
        mean_score,
    )


# --- recalibration with every posterior draw ------------------------------------------------------
# Recalibration with every posterior draw of the channels (paper §5 with the design notes).
#
# Each draw's corrected labels of the fitting sample fit one map (all draws solved together by
# the vectorised projected Newton solver of :mod:`bayescal.recalibration`), and each map is
# scored by the same draw's NC-ECE on the evaluation sample, with the Bayesian bootstrap and the
# debiasing of :func:`bayescal.nc_ece_posterior`.  A crowd's labels follow the crowd rule
# (:mod:`bayescal.correction.crowd`) in every draw, as in its Base and Naive rows, so
# before and after are scored on the same items; nothing holds draws x items x annotators.


def _corrected_draws(data: AnnotatedScores, a, b, rule) -> TargetDraws:
    """Each item's corrected label under every draw ``a, b`` (S, K): a crowd's by the crowd
    rule from its responses, others' by their response patterns (one label per pattern)."""
    if is_crowd(data):
        return crowd_target_draws(data, a, b, rule)
    rows, counts, cell = count_rows(
        np.zeros(data.n_items, dtype=np.int64), data.annotations, return_inverse=True
    )
    labels = pattern_labels(rows[:, 1:], counts, a, b, rule)  # (S, patterns)
    return TargetDraws(a.shape[0], data.n_items, lambda draws: (labels[draws][:, cell], None))


def _target_draws(data: AnnotatedScores, a, b, rule) -> TargetDraws:
    """The corrected labels of every draw (:func:`_corrected_draws`), a gold item's gold label
    in every draw (the model-based targets of :mod:`bayescal.correction.rectified`): what each
    draw's recalibrated scores are scored against."""
    targets = _corrected_draws(data, a, b, rule)
    if not data.n_gold:
        return targets
    gold = data.gold != -1

    def make(draws):
        values, has_target = targets.make(draws)
        values = np.where(gold, data.gold, values)
        return values, None if has_target is None else has_target | gold

    return TargetDraws(targets.n_draws, targets.n_items, make, width=targets.width)


def _fitting_draws(data: AnnotatedScores, a, b, rule) -> TargetDraws:
    """What each draw's map is fitted to: its corrected labels, or with gold items the
    rectified loss (:class:`~bayescal.correction.rectified.RectifiedLoss`), one weighted fit
    per draw with the weights and ``lambda`` of the posterior-mean corrected labels (any
    ``lambda`` keeps the loss unbiased; one for all draws keeps the weights one row)."""
    targets = _corrected_draws(data, a, b, rule)
    if not data.n_gold:
        return targets
    mean, labelled = targets.mean()
    loss = RectifiedLoss.of(mean, labelled > 0, data.gold, data.gold_weights)

    def make(draws):
        values, has_target = targets.make(draws)
        present = values if has_target is None else np.where(has_target, values, 0.0)
        return loss.targets(present), None

    return TargetDraws(
        targets.n_draws, targets.n_items, make, width=targets.width, weights=loss.weights()
    )


@old_spellings(
    renamed={"interval": "level"},
    was="posterior_recalibration(fit, fit_data, eval_data, method, ...)",
)
def posterior_recalibration(
    fit_data,
    eval_data,
    fit,
    *,
    method="platt",
    weights="iv",
    fit_bins=DEFAULT_FIT_BINS,
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    uncertainty="total",
    tolerance=0.01,
    eps=DEFAULT_EPS,
    seed=0,
    max_draws=None,
    kind=None,
) -> PosteriorRecalibration:
    """Recalibrate under every posterior draw of the channels and report NC-ECE with intervals.

    For each draw ``s`` of ``fit``: the corrected labels of ``fit_data`` under the draw's
    channels (weights recomputed per draw), a map fitted to them (paper §5: corrected log loss
    for temperature and Platt, all draws solved together by vectorised projected Newton;
    closed-form projected bin means for histograms), and that map's NC-ECE on ``eval_data``
    with the same draw's corrected labels, in equal-width bins of the transformed score
    (App. E.5).  The Base (original scores) and Naive (map fitted to mean responses) rows are
    scored by :func:`nc_ece_posterior` on the same evaluation sample, for comparison.  On a
    crowd (more than 12 annotators) the corrected labels follow the crowd rule: an item
    labelled only by workers too uninformative to correct it has no label in that draw and
    drops out of the draw's map fit and NC-ECE alike (one warning per sample says how many).
    With gold items in ``fit_data`` each draw's map minimises the rectified loss
    (:class:`~bayescal.correction.rectified.RectifiedLoss`, as :func:`bayescal.recalibrate`
    does), every item kept; in ``eval_data`` a gold item is scored against its gold label.
    Multi-class data (with a multi-class fit) take temperature or vector scaling, scored by
    the top-label or classwise NC-ECE (``kind``; :mod:`bayescal.bayes.class_recalibration`),
    with gold items as for binary data.

    Parameters
    ----------
    fit_data, eval_data : AnnotatedScores
        Fitting and evaluation samples with the fit's annotators.
    fit : BayesFit or ClassBayesFit
        Channel posterior, ideally from a third, independent channel sample (App. E.5).
    method : {"platt", "temperature", "histogram"}, default "platt"
        For multi-class data ``"temperature"`` or ``"vector"`` (the binary default refused).
    weights : rule name or array_like, default "iv"
    fit_bins : int, default 10
        Fitting bins of the histogram map (binary data; not read for multi-class data).
    n_bins : int or "auto", default 10
        Equal-width evaluation bins of the transformed scores.
    level : float in (0, 1), default 0.9
        Mass of the credible intervals.
    uncertainty : {"total", "channels"}, default "total"
        As in :func:`nc_ece_posterior`: ``"total"`` adds a Bayesian bootstrap of the evaluation
        items to each draw and debiases bins that cannot be told from 0.
    tolerance : float, default 0.01
    eps : float, default 1e-6
        Input clipping of the logistic maps.
    seed : int, default 0
    max_draws : int or None, default None
        Fit and score at most this many draws' maps (at least 100), evenly spaced through the
        chains; None: every draw.  The work grows as draws x items (a million items and 4 000
        draws take minutes); thinning adds Monte Carlo error and changes nothing else.  The
        Base and Naive rows use the same draws.
    kind : {"top_label", "classwise"}, optional
        Multi-class data only (default ``"top_label"``).

    Returns
    -------
    PosteriorRecalibration
    """
    if isinstance(fit_data, AnnotatedScores) and fit_data.is_multiclass:
        if method == "platt":  # the default: name the multi-class methods, not just refuse
            raise ValueError(
                "method must be 'temperature' or 'vector' for multi-class data; saw 'platt' "
                "(the binary default)"
            )
        return class_posterior_recalibration(
            fit_data,
            eval_data,
            fit,
            method=method,
            kind="top_label" if kind is None else kind,
            weights=weights,
            n_bins=n_bins,
            level=level,
            uncertainty=uncertainty,
            tolerance=tolerance,
            eps=eps,
            seed=seed,
            max_draws=max_draws,
        )
    refuse_binary_kind(kind)
    if isinstance(fit, BayesFit) and fit.spec.channels_by_group:
        raise ValueError(
            f"fit: posterior_recalibration with a {fit.model} fit (channels per score group) is "
            "not implemented; nc_ece_posterior takes it"
        )
    a, b = checked_draws(fit, {"fit_data": fit_data, "eval_data": eval_data}, max_draws=max_draws)
    warn_of_shared_items(
        fit_data.item_ids, "fit_data", eval_data.item_ids, "eval_data", "posterior_recalibration"
    )
    template = make_map(method, fit_bins=fit_bins, strategy="uniform", eps=eps)
    rule = fit_weights(weights, fit_data.n_annotators)
    bins = v.as_n_bins(n_bins, eval_data.n_items, refuse_sparse=v.SPARSE_DRAWS)
    level = v.as_open_probability(level, "level")
    uncertainty = v.as_choice(uncertainty, "uncertainty", UNCERTAINTY)
    tolerance = v.as_probability(tolerance, "tolerance")
    seed = v.as_seed(seed)

    fit_targets = _fitting_draws(fit_data, a, b, rule)
    maps = template.fit_draws(fit_data.scores, fit_targets)
    report_unlabelled(fit_targets.dropped, fit_data.n_items)
    maps.warn("posterior_recalibration")

    # Each draw's map scored against the same draw's corrected labels, in equal-width bins of
    # its own transformed scores (App. E.5): the bins differ by draw.
    edges = np.linspace(0.0, 1.0, bins + 1)
    eval_targets = _target_draws(eval_data, a, b, rule)
    moments, bin_counts, score_sums = moment_draws(
        eval_targets,
        lambda draws: maps.predict(eval_data.scores, rows=draws),
        edges,
        "uniform",
        uncertainty,
        seed,
    )
    report_unlabelled(eval_targets.dropped, eval_data.n_items)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = score_sums / bin_counts
    recalibrated = posterior_summary(
        moments, uncertainty, level, tolerance, edges, bin_counts, mean_score
    )

    options = {
        "n_bins": bins,
        "weights": weights,
        "level": level,
        "uncertainty": uncertainty,
        "tolerance": tolerance,
        "seed": seed,
        "max_draws": max_draws,
    }
    naive_map = make_map(maps.method, fit_bins=fit_bins, strategy="uniform", eps=eps).fit(
        fit_data.scores, soft_vote(fit_data.annotations)
    )
    naive_scores = replace(eval_data, scores=naive_map.predict(eval_data.scores))
    return PosteriorRecalibration(
        method=maps.method,
        maps=maps,
        map=maps.mean_map(),
        recalibrated=recalibrated,
        base=nc_ece_posterior(eval_data, fit, **options),
        naive=nc_ece_posterior(naive_scores, fit, **options),
        naive_map=naive_map,
    )
