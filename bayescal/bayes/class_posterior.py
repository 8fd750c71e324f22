"""Push every posterior draw of multi-class confusion matrices through the top-label or
classwise NC-ECE (:func:`bayescal.nc_ece_posterior` on multi-class data).

Each draw ``s`` of the matrices ``T^(s)`` and the class proportions ``pi^(s)`` corrects every
item's one-hot label (:mod:`bayescal.correction.known_confusions`: ``U_i^(s)``, the IV weights
at ``pi^(s)``), and each binary problem of the kind (the predicted class's coordinate against
the confidence, or each class's against its probability; :mod:`bayescal.metrics.classes`)
gets the bin moments

    r_pl^(s) = sum_i w_i^(s) (U_i^(s)[col_pi] - p_pi) 1{i in B_pl},

as the binary posterior's (:mod:`bayescal.bayes.posterior`): ``w = 1/n`` with
``uncertainty="channels"``, or a Bayesian bootstrap of the items, ``w ~ Dirichlet(1, ..., 1)``,
the same weights for every problem of a draw, with ``"total"`` (default).  The reported
``"total"`` draws are debiased bin by bin by the folded normal
(:mod:`bayescal.correction.folded_correction`); the classwise NC-ECE is the mean over the
classes of their sums, ``(1/C) sum_p sum_l c(r_pl)``.

With gold items each problem's bin means are rectified by the gold in every draw
(``gold_moment_draws`` of :mod:`bayescal.correction.rectified`, as the binary posterior's): right
when the channel model is wrong, provided the gold items are a random sample (or weighted by
their inclusion probabilities).

Which annotators are corrected is settled once, at the posterior mean (an ill-conditioned
matrix, ``cond_2(T_j) > MAX_CONDITION``, gets weight 0 in every draw, said in one line), so
every draw scores the same items.  Items are grouped by their pattern of labels: a draw's
correction costs O(patterns), its moments O(items x problems).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_LEVEL, DEFAULT_N_BINS, announce, warn_caller
from ..correction.class_estimation import report_class_unlabelled
from ..correction.folded_correction import corrected_draws
from ..correction.known_confusions import class_weights, screened, screened_correction
from ..correction.rectified import GOLD_ESTIMATORS, GoldRows, bin_lambdas, gold_moment_draws
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import ChannelWarning
from ..metrics.calibration import assign_bins, bin_index
from ..metrics.classes import CALIBRATION_KINDS, column_of, problem_columns
from .class_fit import ClassBayesFit
from .posterior_ece import (
    MIN_KEPT_DRAWS,
    UNCERTAINTY,
    PosteriorECE,
    evenly_spaced,
    posterior_summary,
)

__all__ = ["ClassPosteriorECE", "class_nc_ece_posterior"]

#: Values held at once by a pass of draws' corrections (their labels, draws x items x classes,
#: their solves or their noise covariances; floats of 8 bytes: 160 MB).
VALUES_PER_PASS = 20_000_000
#: Draws x items above which the push-through says what it is doing.
ANNOUNCED_WORK = 100_000_000


@dataclass(frozen=True, eq=False)
class ClassPosteriorECE(PosteriorECE):
    """Posterior of the noise-corrected top-label or classwise ECE.

    The attributes of :class:`~bayescal.bayes.posterior.PosteriorECE`; for ``"classwise"``
    the bin arrays have an axis of classes before the bins (``bin_moments`` (S, C, M),
    ``edges`` (C, M + 1), ``counts`` and ``mean_score`` (C, M), or (S, C, M) when each draw
    has its own recalibrated probabilities), each class's moments its own problem's; and

    Attributes
    ----------
    kind : str
        ``"top_label"`` or ``"classwise"``.
    classes : tuple of str
    class_draws : ndarray of shape (S, C) or None
        Classwise: each class's reported NC-ECE draws (their mean over classes is ``draws``
        up to the floor at 0); None for top-label.
    n_evaluated : int
        Items scored: those with a label from an annotator whose matrix can be inverted.
    """

    kind: str = "top_label"
    classes: tuple[str, ...] = ()
    class_draws: np.ndarray | None = None
    n_evaluated: int = 0

    def reliability_band(self, *, class_name: str | None = None):
        """The reliability band of the top label, or with ``class_name`` of that class's
        classwise problem (each bin's corrected mean label: posterior median and interval)."""
        if self.kind == "top_label":
            if class_name is not None:
                raise ValueError(
                    f"class_name picks a classwise problem; this posterior is top-label (saw "
                    f"{class_name!r})"
                )
            return super().reliability_band()
        if class_name not in self.classes:
            raise ValueError(
                f"class_name must be one of the classes {list(self.classes)} for a classwise "
                f"posterior; saw {class_name!r}"
            )
        k = self.classes.index(class_name)
        one = PosteriorECE(
            **{
                **{name: getattr(self, name) for name in PosteriorECE.__dataclass_fields__},
                "bin_moments": self.bin_moments[:, k],
                "edges": self.edges[k],
                "counts": self.counts[..., k, :],
                "mean_score": self.mean_score[..., k, :],
            }
        )
        return one.reliability_band()

    def __repr__(self) -> str:
        return (
            f"ClassPosteriorECE(kind={self.kind!r}, median={self.median:.4f}, {self.level:.0%} "
            f"interval=[{self.interval[0]:.4f}, {self.interval[1]:.4f}], "
            f"uncertainty={self.uncertainty!r}, P(ECE <= {self.tolerance:g})="
            f"{self.prob_calibrated:.2f})"
        )


#: The largest share of a confusion row's evidence the Dirichlet prior may hold
#: (:meth:`~bayescal.bayes.ClassBayesFit.prior_share`) before the posterior NC-ECE is said to
#: be pulled by it: at 9% (flat rows, 100 labels a row, a 10-class panel) the posterior median
#: read 0.055 low (benchmarks/RESULTS.md, "the prior of a small 10-class panel").
MAX_PRIOR_SHARE = 0.01


def warn_if_prior_pulls(fit, data, gold_estimator: str, where: str) -> None:
    """One :class:`~bayescal.ChannelWarning` when the fit's prior holds more than
    :data:`MAX_PRIOR_SHARE` of a confusion row's evidence and no rectified gold corrects for
    it: the matrices are pulled toward the prior (toward uniform under flat rows), their
    inverses over-correct the labels, and NC-ECE is biased (low for an overconfident
    classifier)."""
    share = fit.prior_share()
    if share is None:  # the hierarchical model pools toward its population instead
        return
    if share > MAX_PRIOR_SHARE and not (data.n_gold and gold_estimator == "rectified"):
        warn_caller(
            f"{where}: the Dirichlet prior holds {share:.1%} of a confusion row's evidence (its "
            f"pseudo-counts against the median judge's labels per row, {data.n_classes} "
            "classes): the matrices are pulled toward the prior and NC-ECE from them is biased "
            "(0.055 low at 9% in a simulated 10-class panel, benchmarks/RESULTS.md). More items "
            "per class, or gold items (the rectified estimate), remove the pull",
            ChannelWarning,
        )


def check_class_data(data, fit, name: str = "data") -> np.ndarray:
    """The positions of ``data``'s annotators among ``fit``'s, after checking that the two
    are a multi-class fit and data (named ``name``) with its classes and annotators, every
    item labelled."""
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"{name} must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    if not isinstance(fit, ClassBayesFit):
        raise TypeError(
            "fit must be a multi-class fit (a ClassBayesFit, from fit_bayes on multi-class "
            f"data); saw {type(fit).__name__}"
        )
    if tuple(data.classes) != tuple(fit.classes):
        raise ValueError(
            f"{name}: its classes {list(data.classes)} are not the fit's {list(fit.classes)} "
            "(the same names in the same order)"
        )
    v.check_items_annotated(data.annotations, f"{name}.annotations")
    return v.annotator_positions(data.annotator_names, fit.annotator_names, name, "the fit")


def class_nc_ece_posterior(
    data,
    fit,
    *,
    kind="top_label",
    n_bins=DEFAULT_N_BINS,
    strategy="uniform",
    weights="iv",
    level=DEFAULT_LEVEL,
    uncertainty="total",
    tolerance=0.01,
    seed=0,
    max_draws=None,
    gold_estimator="rectified",
) -> ClassPosteriorECE:
    """What :func:`bayescal.nc_ece_posterior` computes for multi-class data (module
    docstring); its arguments as there, ``kind`` ``"top_label"`` or ``"classwise"``."""
    positions = check_class_data(data, fit)
    gold_estimator = v.as_choice(gold_estimator, "gold_estimator", GOLD_ESTIMATORS)
    kind = v.as_choice(kind, "kind", CALIBRATION_KINDS)
    weights = class_weights(weights, data.n_annotators)
    n_bins = v.as_n_bins(n_bins, data.n_items, refuse_sparse=v.SPARSE_DRAWS)
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    level = v.as_open_probability(level, "level")
    uncertainty = v.as_choice(uncertainty, "uncertainty", UNCERTAINTY)
    tolerance = v.as_probability(tolerance, "tolerance")
    rng = np.random.default_rng(v.as_seed(seed))
    warn_if_prior_pulls(fit, data, gold_estimator, "nc_ece_posterior")
    confusion, proportion = kept_draws(fit, positions, max_draws)
    corrections = DrawCorrections(data, confusion, proportion, weights)
    announce(
        f"nc_ece_posterior: pushing {corrections.n_draws} draws through the {kind} NC-ECE of "
        f"{corrections.n_items} items",
        corrections.work(kind) > ANNOUNCED_WORK,
    )
    if data.n_gold:
        pushed = gold_draw_moments(
            corrections, data, kind, n_bins, strategy, uncertainty, seed, gold_estimator
        )
    else:
        probabilities = data.probabilities[corrections.labelled]
        pushed = draw_moments(corrections, probabilities, kind, n_bins, strategy, uncertainty, rng)
    return summarised(pushed, kind, data.classes, uncertainty, level, tolerance)


def kept_draws(fit, positions: np.ndarray, max_draws) -> tuple[np.ndarray, np.ndarray]:
    """The fit's confusion draws (S, K, C, C) in the data's annotator order (``positions``)
    and its class proportions (S, C): at most ``max_draws`` (at least
    ``MIN_KEPT_DRAWS``), evenly spaced."""
    if max_draws is not None:
        max_draws = v.as_int(max_draws, "max_draws", minimum=MIN_KEPT_DRAWS)
    draws = fit.draws()
    rows = evenly_spaced(draws.confusion.shape[0], max_draws)
    return draws.confusion[rows][:, positions], draws.proportion[rows]


class DrawCorrections:
    """The corrected one-hot labels of ``data``'s items under every draw of ``confusion``
    (S, K, C, C) and ``proportion`` (S, C), a chunk of draws at a time (:meth:`chunks`).

    The annotators every draw corrects with are those the posterior mean keeps (the
    conditioning rule, said once), so every draw scores the same items, ``labelled``; items
    are grouped by their pattern of labels, so a draw's correction costs O(patterns)."""

    def __init__(self, data, confusion: np.ndarray, proportion: np.ndarray, weights):
        self.confusion, self.proportion, self.weights = confusion, proportion, weights
        annotations, self.usable = screened(
            data.annotations, confusion.mean(axis=0), data.annotator_names, refuse_lost=False
        )
        self.labelled = (annotations != v.MISSING).any(axis=1)
        report_class_unlabelled(self.labelled)
        self.patterns, pattern_of_item = np.unique(
            annotations[self.labelled], axis=0, return_inverse=True
        )
        self.pattern_of_item = pattern_of_item.ravel()

    @property
    def n_draws(self) -> int:
        return int(self.confusion.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.pattern_of_item.size)

    def work(self, kind: str) -> int:
        """Draws x items x problems: what a push-through of ``kind`` costs."""
        return (
            self.n_draws * self.n_items * (1 if kind == "top_label" else self.confusion.shape[-1])
        )

    def chunks(self):
        """``(rows, corrected)``: a slice of the draws and their corrected labels (draws,
        labelled items, C), as many draws at a time as ``VALUES_PER_PASS`` values allow: the
        labels, the correction's solves (a (C - 1) x (C - 1) matrix per pattern and draw: a
        crowd's patterns are nearly its items) or the IV rule's noise covariances (C^3 per
        annotator and draw), whichever is largest."""
        n_annotators, n_classes = self.confusion.shape[1], self.confusion.shape[-1]
        per_draw = max(
            self.n_items * n_classes,
            len(self.patterns) * (n_classes - 1) ** 2,
            n_annotators * n_classes**3,
        )
        per_pass = max(1, VALUES_PER_PASS // per_draw)
        for start in range(0, self.n_draws, per_pass):
            rows = slice(start, min(start + per_pass, self.n_draws))
            corrected = screened_correction(
                self.patterns,
                self.confusion[rows],
                self.usable,
                self.weights,
                self.proportion[rows],
            ).labels()
            yield rows, corrected[:, self.pattern_of_item]


class PushedMoments(NamedTuple):
    """Draws of every problem's bin moments (S, P, M), with the bins' item counts and score
    sums ((P, M) for fixed probabilities, (S, P, M) when they differ by draw) and edges
    (P, M + 1); ``n_items`` scored."""

    moments: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    edges: np.ndarray
    n_items: int


def draw_moments(
    corrections: DrawCorrections, probabilities, kind, n_bins, strategy, uncertainty, rng
) -> PushedMoments:
    """The bin moments of every draw (module docstring).  ``probabilities`` are the labelled
    items' (n, C), or a function ``rows -> (draws, n, C)`` of each draw's own (a recalibration
    map per draw; equal-width bins only, whose edges every draw shares)."""
    n_items = corrections.n_items
    per_draw = callable(probabilities)
    if per_draw and strategy != "uniform":
        raise ValueError(
            f"strategy must be 'uniform' when the probabilities differ by draw (their bins are "
            f"equal-width, shared by every draw); saw {strategy!r}"
        )
    n_problems = 1 if kind == "top_label" else corrections.confusion.shape[-1]
    shape = (corrections.n_draws, n_problems, n_bins)
    moments = np.empty(shape)
    counts, sums = (np.empty(shape), np.empty(shape)) if per_draw else (None, None)
    if per_draw:
        edges = np.tile(np.linspace(0.0, 1.0, n_bins + 1), (n_problems, 1))
    else:
        fixed = problem_columns(probabilities, kind)
        fixed_bins = [assign_bins(scores, n_bins, strategy) for _, scores in fixed]
        edges = np.stack([edge for _, edge in fixed_bins])
    for rows, corrected in corrections.chunks():
        if uncertainty == "channels":
            item_weights = np.full((corrected.shape[0], n_items), 1.0 / n_items)
        else:  # the Bayesian bootstrap: Dirichlet(1, ..., 1) weights, one set per draw
            item_weights = rng.standard_exponential((corrected.shape[0], n_items))
            item_weights /= item_weights.sum(axis=1, keepdims=True)
        own = probabilities(rows) if per_draw else None
        for d, draw in enumerate(range(rows.start, rows.stop)):
            problems = problem_columns(own[d], kind) if per_draw else fixed
            for p, (column, scores) in enumerate(problems):
                bins = bin_index(scores, edges[p], "uniform") if per_draw else fixed_bins[p][0]
                residual = column_of(corrected[d], column) - scores
                moments[draw, p] = np.bincount(bins, item_weights[d] * residual, minlength=n_bins)
                if per_draw:
                    counts[draw, p] = np.bincount(bins, minlength=n_bins)
                    sums[draw, p] = np.bincount(bins, scores, minlength=n_bins)
    if not per_draw:
        counts = np.stack([np.bincount(bins, minlength=n_bins) for bins, _ in fixed_bins]) * 1.0
        sums = np.stack(
            [
                np.bincount(bins, scores, minlength=n_bins)
                for (_, scores), (bins, _) in zip(fixed, fixed_bins)
            ]
        )
    return PushedMoments(moments, counts, sums, edges, n_items)


def gold_draw_moments(
    corrections: DrawCorrections, data, kind, n_bins, strategy, uncertainty, seed, gold_estimator
) -> PushedMoments:
    """The bin moments of every draw with gold items (module docstring): each problem's bin
    means rectified by its gold (the gold item's class is the problem's, or not), as the binary
    posterior's (:func:`~bayescal.correction.rectified.gold_moment_draws`), each bin's lambda
    from the posterior-mean corrected labels.  Every problem's generator starts from ``seed``,
    so a draw reweights the items alike in every problem (the Bayesian bootstrap of the gold
    items and of the others, apart)."""
    labelled = corrections.labelled
    probabilities = data.probabilities[labelled]
    gold = data.gold[labelled].astype(np.int64)
    known = gold != v.MISSING
    weights = np.ones(gold.size)
    if data.gold_weights is not None:  # a gold item drawn with probability pi weighs 1 / pi
        weights = np.where(known, 1.0 / np.where(known, data.gold_weights[labelled], 1.0), 1.0)
    mean = sum(corrected.sum(axis=0) for _, corrected in corrections.chunks()) / corrections.n_draws
    problems = problem_columns(probabilities, kind)
    binned = [assign_bins(scores, n_bins, strategy) for _, scores in problems]
    rows = [
        GoldRows(
            bins,
            column_of(mean, column),
            np.where(known, gold == column, v.MISSING),
            np.ones(gold.size),
            weights,
        )
        for (column, _), (bins, _) in zip(problems, binned)
    ]
    lambdas = [bin_lambdas(problem_rows, n_bins) for problem_rows in rows]
    generators = [np.random.default_rng(seed) for _ in problems]
    moments = np.empty((corrections.n_draws, len(problems), n_bins))
    no_spread = np.zeros(gold.size)
    for draws, corrected in corrections.chunks():
        for p, (column, scores) in enumerate(problems):
            moments[draws, p] = gold_moment_draws(
                rows[p],
                column_of(corrected, column),
                scores,
                no_spread,
                lambdas[p],
                gold_estimator,
                uncertainty,
                generators[p],
            )
    counts = np.stack([np.bincount(bins, minlength=n_bins) for bins, _ in binned]) * 1.0
    sums = np.stack(
        [
            np.bincount(bins, scores, minlength=n_bins)
            for (_, scores), (bins, _) in zip(problems, binned)
        ]
    )
    edges = np.stack([edge for _, edge in binned])
    return PushedMoments(moments, counts, sums, edges, corrections.n_items)


def summarised(
    pushed: PushedMoments, kind: str, classes, uncertainty: str, level: float, tolerance: float
) -> ClassPosteriorECE:
    """The :class:`ClassPosteriorECE` of pushed bin moments: the top-label NC-ECE, or the
    classwise one (the mean over the classes of their sums), debiased with ``"total"``."""
    moments, n_problems = pushed.moments, pushed.moments.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = pushed.sums / pushed.counts
    summary = posterior_summary(
        moments.reshape(moments.shape[0], -1) / n_problems,
        uncertainty,
        level,
        tolerance,
        pushed.edges,
        pushed.counts,
        mean_score,
    )
    top = kind == "top_label"
    class_draws = None
    if not top:
        class_draws = np.column_stack(
            [
                corrected_draws(moments[:, p])
                if uncertainty == "total"
                else np.abs(moments[:, p]).sum(axis=1)
                for p in range(n_problems)
            ]
        )

    def problem(values: np.ndarray) -> np.ndarray:  # top-label: the one problem's bins
        return values[..., 0, :] if top else values

    return ClassPosteriorECE(
        **{
            **{name: getattr(summary, name) for name in PosteriorECE.__dataclass_fields__},
            "bin_moments": problem(moments),
            "edges": problem(pushed.edges),
            "counts": problem(pushed.counts),
            "mean_score": problem(mean_score),
        },
        kind=kind,
        classes=tuple(classes),
        class_draws=class_draws,
        n_evaluated=pushed.n_items,
    )
