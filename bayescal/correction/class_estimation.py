"""Top-label and classwise NC-ECE of multi-class data with confusion matrices estimated from
the same annotations (Dawid and Skene 1979; the binary :func:`~bayescal.nc_ece_estimate`'s modes).

Each item's corrected one-hot label ``U_i = 1/C + Q sum_j W_j Q^T (T_j^T)^-1 e_{A_ij}``
(:mod:`bayescal.correction.known_confusions`) replaces its one-hot label in the top-label or
classwise ECE.  The matrices ``T_j`` and the inverse-variance weights' class proportions come
from the fit:

- ``"reuse"``: fitted on all items, which are also evaluated (paper Prop. 1);
- ``"split"``: fitted on a random ``split_fraction`` of the items, the rest evaluated
  (Theorem 1);
- ``"crossfit"``: each fold corrected with the fit to the other folds; the corrected labels of
  all folds then give one ECE, which sums the folds' bin moments before the absolute value,
  as the binary cross-fit does (App. C.4).

Known channels (:class:`~bayescal.channels.ConfusionChannels`, or a fit) are used as given in
mode ``"reuse"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import Result, warn_caller
from ..channels.confusion_fit import ConfusionChannels, ConfusionFit, confusion_matrices_for
from ..exceptions import ChannelWarning
from ..metrics.calibration import assign_bins
from ..metrics.classes import CALIBRATION_KINDS, class_problems
from .estimators import estimator_function
from .known_channels import problem_gold_moments
from .known_confusions import labelled_corrections, problem_errors
from .sample_splits import fold_assignment, split_sample

__all__ = [
    "CLASS_ESTIMATORS",
    "ClassNCECEResult",
    "class_nc_ece_estimate",
    "corrected_class_targets",
    "report_class_unlabelled",
]

#: The estimators of confusion matrices that ``estimator=`` names.
CLASS_ESTIMATORS = ("dawid_skene_em", "crowd_em")


@dataclass(frozen=True, eq=False, repr=False)
class ClassNCECEResult(Result):
    """Noise-corrected top-label or classwise ECE of multi-class data.

    Attributes
    ----------
    estimate : float
        The NC-ECE of ``kind``: for ``"classwise"`` the mean of ``class_errors``.
    kind : str
        ``"top_label"`` or ``"classwise"``.
    class_errors : ndarray of shape (C,) or None
        Classwise: each class's NC-ECE, in the order of ``classes``; None for top-label.
    classes : tuple of str
    fits : tuple of ConfusionFit
        One fit (``"reuse"``, ``"split"``), one per fold (``"crossfit"``), none for known
        channels.
    mode : str
    estimator : str
    n_evaluated : int
        Number of items the ECE averages over: those with a label from an annotator whose
        confusion matrix can be inverted (the others count as unlabelled, said once).
    """

    estimate: float
    kind: str
    class_errors: np.ndarray | None
    classes: tuple[str, ...]
    fits: tuple
    mode: str
    estimator: str
    n_evaluated: int


def corrected_class_targets(data, channels, weights) -> tuple[np.ndarray, np.ndarray]:
    """``(U, labelled)``: ``data``'s corrected one-hot labels with ``channels`` (a fit, whose
    class proportions weigh the IV rule, estimated without the evaluated items in modes
    ``"split"`` and ``"crossfit"``; or known matrices, with the plug-in proportions of
    ``data``) for the items that keep a label from a usable annotator, and the (n,) mask of
    those items."""
    fit, confusion = confusion_matrices_for(data, channels, "channels")
    prevalence = None if fit is None else fit.prevalence
    return labelled_corrections(
        data.annotations, confusion, weights, prevalence, data.annotator_names, False
    )


#: The fewest labels per cell of a judge's estimated confusion matrix (its labels over C^2)
#: below which NC-ECE with the estimated matrices reads high: +0.019, +0.037 and +0.059 at
#: 3.8, 1.9 and 0.9 labels per cell, where the true matrices give it within 0.001
#: (benchmarks/RESULTS.md, "multi-class crowd"); the panel of the coverage study, at 400, sat
#: within 0.002.
MIN_LABELS_PER_CELL = 25


def warn_if_sparse_matrices(data, pooled: tuple, where: str) -> None:
    """One :class:`~bayescal.ChannelWarning` when the judges' confusion matrices were
    estimated from fewer than :data:`MIN_LABELS_PER_CELL` labels per cell (the median judge's;
    the pooled sparse workers count as one judge with all their labels): the noise of such
    matrices, propagated through their inverses, makes the corrected labels too dispersed, and
    NC-ECE reads high.  Gold items (the rectified estimate) shrink the bias without removing
    it (1 000 gold of 5 000 items left +0.007 to +0.022), so they are warned of too."""
    labels = (data.annotations != v.MISSING).sum(axis=0)
    sharing = np.isin(np.asarray(data.annotator_names), pooled)
    per_judge = np.append(labels[~sharing], labels[sharing].sum()) if sharing.any() else labels
    per_cell = float(np.median(per_judge)) / data.n_classes**2
    if per_cell < MIN_LABELS_PER_CELL:
        warn_caller(
            f"{where}: the judges' {data.n_classes}x{data.n_classes} confusion matrices are "
            f"estimated from a median of {per_cell:.1f} labels per cell (fewer than "
            f"{MIN_LABELS_PER_CELL}): NC-ECE with so noisy matrices reads high (by 0.02 to 0.06 "
            "at 1 to 4 labels per cell in a simulated crowd, benchmarks/RESULTS.md). More labels "
            "per judge or known matrices remove the bias; gold items (the rectified estimate) "
            "shrink it, by half at 1 000 gold of 5 000 items",
            ChannelWarning,
        )


def report_class_unlabelled(labelled: np.ndarray) -> None:
    """Say once how many items count as unlabelled: their every label comes from annotators
    whose confusion matrix is nearly singular (a crowd's spammers); refuse when none is left."""
    lost = int((~labelled).sum())
    if lost == labelled.size:
        raise ValueError(
            "no item has a label from an annotator whose confusion matrix can be inverted: "
            "NC-ECE is undefined"
        )
    if lost:
        warn_caller(
            f"{lost} of {labelled.size} items have labels only from annotators whose confusion "
            "matrix is nearly singular and count as unlabelled: NC-ECE averages over the other "
            f"{labelled.size - lost}",
            ChannelWarning,
        )


def _gold_errors(data, corrected, labelled, kind: str, n_bins, strategy: str, gold_estimator):
    """The NC-ECE of each binary problem of ``kind`` with the gold items of ``data``, by
    ``gold_estimator`` (:mod:`bayescal.correction.rectified`, as for binary labels): each
    problem's targets the corrected coordinate, its gold the coordinate of the gold item's
    one-hot label (``-1`` where an item has none)."""
    probabilities = data.probabilities[labelled]
    gold = data.gold[labelled]
    known = gold != v.MISSING
    one_hot = np.where(known[:, None], np.eye(data.n_classes)[np.where(known, gold, 0)], -1.0)
    inclusion = None if data.gold_weights is None else data.gold_weights[labelled]
    errors = []
    for (targets, scores), (gold_labels, _) in zip(
        class_problems(corrected, probabilities, kind),
        class_problems(one_hot, probabilities, kind),
    ):
        edges = assign_bins(scores, v.as_n_bins(n_bins, scores.size), strategy)[1]
        moments = problem_gold_moments(
            scores,
            targets,
            gold_labels.astype(np.int64),
            inclusion,
            edges,
            strategy,
            gold_estimator,
        ).moments
        errors.append(moments.ece)
    return np.array(errors)


def class_nc_ece_estimate(
    data,
    *,
    kind,
    estimator,
    mode,
    n_bins,
    strategy,
    weights,
    n_folds,
    split_fraction,
    seed,
    estimator_options,
    gold_estimator,
) -> ClassNCECEResult:
    """What :func:`~bayescal.nc_ece_estimate` computes for multi-class ``data`` (module
    docstring); its arguments are checked there, ``kind`` here."""
    kind = v.as_choice("top_label" if kind is None else kind, "kind", CALIBRATION_KINDS)
    fit_channels, name = estimator_function(
        estimator,
        estimator_options,
        names=CLASS_ESTIMATORS,
        known=(ConfusionChannels, ConfusionFit),
    )
    rng = np.random.default_rng(seed)

    def result(evaluated, corrected, labelled, fits):
        report_class_unlabelled(labelled)
        if fits:
            warn_if_sparse_matrices(data, fits[0].pooled, "nc_ece_estimate")
        probabilities = evaluated.probabilities[labelled]
        if evaluated.n_gold:
            errors = _gold_errors(
                evaluated, corrected, labelled, kind, n_bins, strategy, gold_estimator
            )
        else:
            errors = problem_errors(corrected, probabilities, kind, n_bins, strategy)
        return ClassNCECEResult(
            float(errors.mean()),
            kind,
            errors if kind == "classwise" else None,
            data.classes,
            tuple(fits),
            mode,
            name,
            int(labelled.sum()),
        )

    if fit_channels is None:
        if mode != "reuse":
            raise ValueError(
                f"mode must be 'reuse' with known channels (nothing is fitted); saw {mode!r}"
            )
        return result(data, *corrected_class_targets(data, estimator, weights), ())
    if mode == "reuse":
        fit = fit_channels(data)
        return result(data, *corrected_class_targets(data, fit, weights), (fit,))
    if mode == "split":
        fit_part, evaluation = split_sample(data, split_fraction, rng)
        fit = fit_channels(fit_part)
        return result(evaluation, *corrected_class_targets(evaluation, fit, weights), (fit,))
    fold, n_folds = fold_assignment(data.n_items, n_folds, rng)
    corrected = np.empty((data.n_items, data.n_classes))
    labelled = np.zeros(data.n_items, dtype=bool)
    fits = []
    for k in range(n_folds):
        held_out = np.flatnonzero(fold == k)
        fit = fit_channels(data.subset(fold != k))
        fold_labels, fold_labelled = corrected_class_targets(data.subset(held_out), fit, weights)
        labelled[held_out] = fold_labelled
        corrected[held_out[fold_labelled]] = fold_labels
        fits.append(fit)
    return result(data, corrected[labelled], labelled, fits)
