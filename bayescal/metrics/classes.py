"""Multi-class predictions as binary calibration problems: top-label and classwise ECE.

A classifier gives item ``i`` a row ``p_i`` of probabilities over ``C`` classes.  Two calibration
errors reduce it to the binary ECE of :mod:`bayescal.metrics.calibration`, with its binning
conventions (equal-width or equal-mass bins on each problem's own scores, ``"auto"`` bins from
the number of items):

- **top-label** (confidence) ECE, Guo et al. (2017): the confidence ``c_i = max_k p_ik``
  against the indicator ``1{y_i = yhat_i}`` of the predicted class ``yhat_i = argmax_k p_ik``
  (the first of tied maxima, as ``numpy.argmax`` and netcal take it).  One binary problem;
  netcal's ``ECE`` computes the same number.
- **classwise** ECE, Kull et al. (2019): for each class ``k`` the probability ``p_ik`` against
  ``1{y_i = k}``.  The classwise ECE is the **mean** of the ``C`` binary ECEs (not their sum:
  at ``C = 2`` it is then on the binary ECE's scale).

Each indicator is one coordinate of the one-hot label ``e_Y``, so each error is linear in it
bin by bin and has a noise-corrected version with confusion-matrix channels (Dawid and Skene
1979): ``(T_j^T)^-1 e_{A_j}`` is unbiased for ``e_Y``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _validation as v

__all__ = [
    "CALIBRATION_KINDS",
    "BinaryProblem",
    "VoteTargets",
    "binary_problems",
    "class_problems",
    "column_of",
    "problem_columns",
    "refuse_binary_kind",
    "vote_targets",
]

#: The multi-class calibration errors; the first is the default for a matrix of probabilities.
CALIBRATION_KINDS = ("top_label", "classwise")


class BinaryProblem(NamedTuple):
    """One binary calibration problem of a multi-class prediction: 0/1 ``targets`` (n,)
    (int64, the labels' type of the compiled binary kernel) and the probabilities ``scores``
    (n,) they are scored against."""

    targets: np.ndarray
    scores: np.ndarray


def refuse_binary_kind(kind) -> None:
    """Refuse a ``kind`` given with binary data (``None`` passes): their NC-ECE is the
    positive class's, and no multi-class kind applies."""
    if kind is not None:
        raise ValueError(
            "kind sets the multi-class ECE ('top_label' or 'classwise'); data are binary, "
            f"whose NC-ECE is the positive class's: leave kind out (saw {kind!r})"
        )


def binary_problems(y_true, y_prob, kind: str, *, normalize: bool = False) -> tuple:
    """The binary problems (:class:`BinaryProblem`) of ``kind`` (module docstring): one for
    ``"top_label"``, one per class for ``"classwise"``.

    ``y_prob`` is an (n, C) matrix of class probabilities (rows summing to 1, or divided by
    their sums with ``normalize``), or a vector of class-1 probabilities of a binary problem
    (the matrix ``[1 - p, p]``); ``y_true`` holds class indices ``0 .. C - 1``."""
    kind = v.as_choice(kind, "kind", CALIBRATION_KINDS)
    if np.ndim(y_prob) == 1:
        if normalize:
            raise ValueError(
                "normalize divides the rows of a matrix of class probabilities; y_prob is a "
                "vector of class-1 probabilities, which has none"
            )
        positive = v.as_probabilities(y_prob, "y_prob")
        probabilities = np.column_stack([1.0 - positive, positive])
    else:
        probabilities = v.as_class_probabilities(y_prob, "y_prob", normalize=normalize)
    labels = v.as_class_labels(y_true, "y_true", probabilities.shape[1])
    v.check_same_length(labels, "y_true", probabilities, "y_prob")
    one_hot = (labels[:, None] == np.arange(probabilities.shape[1])).astype(np.int64)
    return class_problems(one_hot, probabilities, kind)


def class_problems(targets: np.ndarray, probabilities: np.ndarray, kind: str) -> tuple:
    """The binary problems of ``kind`` of validated one-hot ``targets`` (n, C), or of corrected
    one-hot labels that are unbiased for them, against ``probabilities`` (n, C): the
    coordinate of the predicted class against the confidence, or each class's coordinate
    against its probability (:func:`problem_columns`)."""
    return tuple(
        BinaryProblem(column_of(targets, column), scores)
        for column, scores in problem_columns(probabilities, kind)
    )


def problem_columns(probabilities: np.ndarray, kind: str) -> tuple:
    """Each binary problem of ``kind`` as ``(column, scores)``: the coordinate of each item's
    one-hot label it scores (an (n,) array of the predicted classes for top-label; the int
    ``k`` for classwise problem ``k``) and the probabilities (n,) scored against it."""
    if kind == "top_label":
        predicted = np.argmax(probabilities, axis=1)
        return ((predicted, np.take_along_axis(probabilities, predicted[:, None], 1)[:, 0]),)
    return tuple(
        (k, np.ascontiguousarray(probabilities[:, k])) for k in range(probabilities.shape[1])
    )


def column_of(values: np.ndarray, column) -> np.ndarray:
    """The coordinate ``column`` of :func:`problem_columns` of each item's row of ``values``
    (..., n, C): (..., n)."""
    if np.ndim(column) == 0:  # one class for every item
        return np.ascontiguousarray(values[..., column])
    index = np.broadcast_to(column[:, None], (*values.shape[:-1], 1))
    return np.take_along_axis(values, index, axis=-1)[..., 0]


class VoteTargets(NamedTuple):
    """The naive targets of multi-class annotations, each an (n, C) row per item that sums
    to 1 (the ECEs of :mod:`bayescal.metrics.classes` are linear in the target, bin by bin).

    ``soft_vote`` is each item's share of labels per class; ``majority_vote`` is 1 on its most
    frequent class, split equally among tied classes (the binary majority vote's 0.5 at a
    tie, ``majority_vote(patterns, "half")``)."""

    soft_vote: np.ndarray
    majority_vote: np.ndarray


def vote_targets(annotations: np.ndarray, n_classes: int) -> VoteTargets:
    """The soft and majority votes of class-code ``annotations`` (n, K) (``-1`` missing), every
    item labelled at least once (:class:`VoteTargets`).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K)
        Class codes ``0 .. n_classes - 1``, ``-1`` for missing.
    n_classes : int
        At least 2.

    Returns
    -------
    VoteTargets
    """
    n_classes = v.as_int(n_classes, "n_classes", minimum=2)
    annotations = v.as_class_annotations(annotations, "annotations", n_classes)
    counts = np.zeros((annotations.shape[0], n_classes))
    for labels in annotations.T:
        given = labels >= 0
        counts[np.flatnonzero(given), labels[given]] += 1.0
    totals = counts.sum(axis=1, keepdims=True)
    if (totals == 0).any():
        raise ValueError(
            f"annotations: every item needs a label for a vote; item "
            f"{int(np.flatnonzero(totals[:, 0] == 0)[0])} has none"
        )
    most = counts == counts.max(axis=1, keepdims=True)
    return VoteTargets(counts / totals, most / most.sum(axis=1, keepdims=True))
