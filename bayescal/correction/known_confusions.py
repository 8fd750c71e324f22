"""Corrected one-hot labels from multi-class annotators with known confusion matrices, and the
noise-corrected top-label and classwise ECE they give (Dawid and Skene 1979; the paper's §3
correction in matrix form).

Annotator ``j``'s confusion matrix ``T_j[y, k] = P(A_j = k | Y = y)`` gives
``E[e_{A_j} | Y] = T_j^T e_Y``, so

    U_j = (T_j^T)^-1 e_{A_j}

is unbiased for the one-hot label ``e_Y``; at ``C = 2`` its class-1 coordinate is the binary
corrected label ``(A_j - a_j) / (b_j - a_j)``.  Every ``U_j`` sums to 1 (``T_j 1 = 1``), so the
annotators differ only in the ``C - 1`` directions that sum to 0, and they are combined there:

    U = 1/C + Q sum_{j in O} W_j Q^T U_j,    sum_{j in O} W_j = I,

``Q`` (C, C - 1) an orthonormal basis of those directions and ``O`` the annotators the item has
(the weights renormalised over them, as for binary labels).  Any such weights keep ``U``
unbiased.  The rules:

- ``"iv"`` (default): ``W_j = (sum_{k in O} P_k)^-1 P_j`` with ``P_j`` the inverse of the
  noise covariance ``Sigma_j = E_Y Cov(U_j | Y) = sum_y pi_y (T_j^T)^-1 [diag(T_j[y]) -
  T_j[y] T_j[y]^T] T_j^-1`` in those directions (eigenvalues floored at the binary rule's
  ``VARIANCE_FLOOR``): the unbiased combination of least variance.  A judge who confuses two
  adjacent grades is uncertain only along their difference and still counts on the other
  classes.  At ``C = 2``, ``Q^T Sigma_j Q = 2 v_j`` and this is the binary IV rule (App. F.4).
- ``"equal"``: ``W_j = I / |O|``.
- explicit non-negative weights ``alpha`` (K,): ``W_j = alpha_j I / sum_{k in O} alpha_k``.

The IV rule's class proportions ``pi`` (C,) are given, or the App. F.4 plug-in in vector form:
the mean of the equally weighted ``U``, each coordinate clipped to [1e-4, 1 - 1e-4] and the
vector renormalised (at ``C = 2``, the binary plug-in).

**Conditioning.** ``U_j``'s variance grows with the condition number of ``T_j``.  An annotator
with ``cond_2(T_j) > MAX_CONDITION = 1 / MIN_GAP`` carries no usable information: its labels
count as missing (weight 0), said in one :class:`~bayescal.ChannelWarning` naming every such
annotator, and an item left with no label is refused.  The symmetric binary channel of gap
``g`` has condition number ``1 / g``, so at ``C = 2`` this is the binary rule ``|b - a| <
MIN_GAP`` for symmetric channels.  Classes that *every* annotator answers alike are another
matter: estimated matrices split them along the noise and stay well conditioned, so the rule
does not see them; :func:`bayescal.channels.confused_classes` tests for them and merges them.

**Orientation.**  A matrix whose largest diagonal belongs to another ordering of the classes
(an adversarial judge, or rows given in another class order) is corrected as given, with one
:class:`~bayescal.ChannelWarning` naming such annotators, as binary channels with ``b < a`` are.

The top-label and classwise NC-ECE (:func:`noise_corrected_class_ece`) score ``U``'s
coordinate of the predicted class, or each class's coordinate, as the binary NC-ECE scores the
corrected label (:mod:`bayescal.metrics.classes`): each bin's mean of ``U`` is unbiased for
its mean of ``e_Y``, so ``sum |bin moments|`` estimates the clean error as at ``C = 2``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import optimize

from .. import _validation as v
from .._api import DEFAULT_N_BINS, abbreviated, named_annotators, warn_caller
from ..channels import MIN_GAP
from ..exceptions import ChannelWarning
from ..metrics.calibration import calibration_moments
from ..metrics.classes import CALIBRATION_KINDS, class_problems
from ._channel_screen import without_uninformative
from .known_channels import as_convex_weights
from .weights import PREVALENCE_CLIP, VARIANCE_FLOOR

__all__ = ["MAX_CONDITION", "corrected_one_hot_labels", "noise_corrected_class_ece"]

#: The largest condition number ``cond_2(T_j)`` of a confusion matrix the correction inverts:
#: the symmetric binary channel of gap ``MIN_GAP`` has condition number ``1 / MIN_GAP``.
MAX_CONDITION = 1.0 / MIN_GAP


def _sum_zero_basis(n_classes: int) -> np.ndarray:
    """An orthonormal basis (C, C - 1) of the vectors whose coordinates sum to 0."""
    basis, _ = np.linalg.qr(np.eye(n_classes)[:, :-1] - 1.0 / n_classes)
    return basis


def _noise_covariances(confusion: np.ndarray, prevalence: np.ndarray) -> np.ndarray:
    """``Sigma_j = E_Y Cov(U_j | Y)`` (..., K, C, C) of each annotator's corrected one-hot
    label (module docstring), for validated invertible confusion matrices (..., K, C, C) and
    class proportions ``prevalence`` (..., C); the leading axes are draws of both."""
    inverse = np.linalg.inv(np.swapaxes(confusion, -1, -2))
    # Cov(e_A | Y = y) = diag(T[y]) - T[y] T[y]^T, averaged over y
    eye = np.eye(confusion.shape[-1])
    given_class = confusion[..., :, None] * eye - confusion[..., :, None] * confusion[..., None, :]
    mean = np.einsum("...y,...kyab->...kab", prevalence, given_class)
    return inverse @ mean @ np.swapaxes(inverse, -1, -2)


def _precisions(confusion, prevalence, basis) -> np.ndarray:
    """The inverse noise covariances (..., K, C - 1, C - 1) in the sum-zero directions."""
    reduced = basis.T @ _noise_covariances(confusion, prevalence) @ basis
    values, vectors = np.linalg.eigh(reduced)
    floored = np.maximum(values, VARIANCE_FLOOR)[..., None, :]
    return (vectors / floored) @ np.swapaxes(vectors, -1, -2)


def screened(annotations, confusion, names, refuse_lost: bool):
    """``(annotations, usable)``: the annotations with the ill-conditioned annotators' labels
    set missing (module docstring; an item left without a label refused with
    ``refuse_lost``), and the (K,) mask of the others, said in one warning line each (the
    ill-conditioned, and those whose largest diagonal is another ordering of the classes).
    ``names`` name the annotators in the warnings."""
    condition = np.linalg.cond(confusion)
    usable = condition <= MAX_CONDITION
    if not usable.any():
        raise ValueError(
            f"confusion: no annotator's confusion matrix can be inverted (every condition number "
            f"is above {MAX_CONDITION:g}; saw {abbreviated(np.round(condition, 1), 12)}): the "
            "labels carry no usable information about Y"
        )
    if not usable.all():
        listed, several = named_annotators([n for n, ok in zip(names, usable) if not ok])
        warn_caller(
            f"confusion: {listed} {'have' if several else 'has'} a confusion matrix with a "
            f"condition number above {MAX_CONDITION:g} (nearly singular): no usable "
            "information about Y, weight 0 in the correction",
            ChannelWarning,
        )
        annotations = without_uninformative(annotations, usable, names, refuse_lost=refuse_lost)
    constant = _warn_if_constant(annotations, usable, names)
    _warn_if_not_diagonal(confusion, usable & ~constant, names)
    return annotations, usable


def _warn_if_constant(annotations, usable, names) -> np.ndarray:
    """The usable annotators (K,) who gave two labels or more, all of one class, named in one
    :class:`~bayescal.ChannelWarning` (the binary rule's *constant* annotators,
    :mod:`bayescal.channels.odd_annotators`): whatever matrix they were given, their answer
    says nothing of the class, and the IV rule gives them little weight.  They are not called
    another ordering of the classes, which an estimated matrix of theirs may look like."""
    labels = (annotations != v.MISSING).sum(axis=0)
    first = np.where(annotations != v.MISSING, annotations, annotations.max() + 1).min(axis=0)
    same = ((annotations == first) | (annotations == v.MISSING)).all(axis=0)
    constant = usable & (labels > 1) & same
    if constant.any():
        listed, several = named_annotators([n for n, c in zip(names, constant) if c])
        warn_caller(
            f"confusion: {listed} {'are' if several else 'is'} constant (one class given to "
            "every item labelled): those labels say nothing of the class, and the correction "
            "gives them little weight",
            ChannelWarning,
        )
    return constant


def _warn_if_not_diagonal(confusion, usable, names) -> None:
    """One :class:`~bayescal.ChannelWarning` naming the annotators whose answers a relabelling
    of the classes fits better than the classes themselves (the largest diagonal is another
    permutation's): they are corrected as they are, which is right for an adversarial judge
    and wrong for matrices given in another class order (the binary warning for ``b < a``)."""
    permuted = [
        j
        for j in np.flatnonzero(usable)
        if np.trace(confusion[j])
        < confusion[j][optimize.linear_sum_assignment(confusion[j], maximize=True)].sum() - 1e-12
    ]
    if permuted:
        listed, several = named_annotators([names[j] for j in permuted])
        warn_caller(
            f"confusion: {listed} {'have' if several else 'has'} a confusion matrix whose "
            "largest diagonal is another ordering of the classes, and "
            f"{'are' if several else 'is'} corrected as given. If its rows or columns are in "
            "another class order, fix the matrix; if the judge is adversarial, this is right",
            ChannelWarning,
        )


def _mask_groups(annotations) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sets of annotators the items have (G, K) and each item's set (n,).  Each
    set is packed into bytes and compared whole: ``np.unique(..., axis=0)`` sorts rows
    column by column, and took three quarters of a crowd's posterior push-through."""
    observed = annotations != v.MISSING
    packed = np.ascontiguousarray(np.packbits(observed, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, group = np.unique(keys, return_index=True, return_inverse=True)
    return observed[first], group.ravel()


def _reduced(inverse, basis) -> np.ndarray:
    """Each annotator's correction of each code in the sum-zero directions, ``Q^T (T_j^T)^-1
    e_k``, as (..., K, C(code), C - 1)."""
    return np.einsum("ca,...kcb->...kba", basis, inverse)


#: Values a pass of :func:`_combine` (items x draws x the sum-zero directions squared: its
#: per-item solves) or of :meth:`Correction.given_class_covariances` (sets x classes x their
#: covariance blocks) holds at once: a 10^7-item panel runs in passes, never in one.
COMBINE_VALUES = 2_000_000


def _group_totals(masks, matrices) -> np.ndarray:
    """``sum_{j in O} M_j`` (..., G, C - 1, C - 1) of each set of annotators ``masks`` (G, K)
    and matrices (..., K, C - 1, C - 1); a set whose total is 0 (explicit weights of 0 for
    all its annotators) is refused."""
    # a matrix product (BLAS) over the annotators, the draws' axes moved behind the sets
    totals = np.moveaxis(np.tensordot(masks * 1.0, matrices, axes=([1], [-3])), 0, -3)
    unweighted = np.trace(totals, axis1=-2, axis2=-1) <= 0  # (..., G)
    empty = unweighted.any(axis=tuple(range(unweighted.ndim - 1)))
    if empty.any():
        raise ValueError(
            f"weights give zero total weight to the annotators "
            f"{np.flatnonzero(masks[np.flatnonzero(empty)[0]]).tolist()} that label some item; "
            "its corrected label is undefined"
        )
    return totals


def _combine(annotations, inverse, basis, matrices) -> np.ndarray:
    """``U`` (..., n, C) of every item (module docstring), each with a label: the weights are
    ``W_j = (sum_{k in O} M_k)^-1 M_j`` of the rule's matrices ``matrices`` (..., K, C - 1,
    C - 1) (the precisions ``P_j`` for IV, ``alpha_j I`` for scalar weights), so

        Q^T (U - 1/C) = (sum_{j in O} M_j)^-1 sum_{j in O} M_j Q^T (T_j^T)^-1 e_{A_j},

    the totals once per set of annotators, the sums once per response: a crowd, whose items
    each have their own set, costs as little per item as a panel.  The leading axes of
    ``inverse`` (..., K, C, C) and ``matrices`` are draws: a posterior corrects all its draws
    in one pass of array operations, not one pass each."""
    n_items, n_classes = annotations.shape[0], basis.shape[0]
    size = n_classes - 1
    # M_j Q^T (T_j^T)^-1 e_k of every annotator and code: (..., K, C(code), C - 1)
    weighted = np.einsum("...kab,...kcb->...kca", matrices, _reduced(inverse, basis))
    lead = weighted.shape[:-3]
    masks, group = _mask_groups(annotations)
    solvers = np.linalg.inv(_group_totals(masks, matrices))
    combined = np.empty((*lead, n_items, size))
    step = max(1, COMBINE_VALUES // (size**2 * int(np.prod(lead))))
    for start in range(0, n_items, step):
        part = annotations[start : start + step]
        # np.nonzero walks the rows in order, and every row has a label: a row's answers are
        # one run, summed by reduceat from its first
        rows, columns = np.nonzero(part != v.MISSING)
        answers = weighted[..., columns, part[rows, columns], :]  # (..., R, C - 1)
        first = np.searchsorted(rows, np.arange(part.shape[0]))
        sums = np.add.reduceat(answers, first, axis=-2)  # (..., n_part, C - 1)
        combined[..., start : start + step, :] = np.einsum(
            "...nab,...nb->...na", solvers[..., group[start : start + step], :, :], sums
        )
    return 1.0 / n_classes + combined @ basis.T


def _plugin_prevalence(annotations, inverse, basis) -> np.ndarray:
    """App. F.4 in vector form (module docstring)."""
    equal = _combine(
        annotations, inverse, basis, _scalar_matrices(np.ones(inverse.shape[-3]), basis)
    )
    clipped = np.clip(equal.mean(axis=-2), *PREVALENCE_CLIP)
    return clipped / clipped.sum(axis=-1, keepdims=True)


def _scalar_matrices(alpha: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """``alpha_j I`` (K, C - 1, C - 1): the matrices of :func:`_combine` whose weights are
    ``W_j = alpha_j I / sum_{k in O} alpha_k``."""
    return alpha[:, None, None] * np.eye(basis.shape[1])


def corrected_one_hot_labels(
    annotations, confusion, *, weights="iv", prevalence=None, annotator_names=None
):
    """Corrected one-hot labels ``U_i`` (n, C), unbiased for ``e_{Y_i}``, from multi-class
    annotators with known confusion matrices (module docstring).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K)
        Class codes ``0 .. C - 1``, ``-1`` for missing.  Every item needs at least one label.
    confusion : array_like, shape (K, C, C)
        ``T_j[y, k] = P(A_j = k | Y = y)``, rows summing to 1.
    weights : {"iv", "equal"} or array_like of shape (K,), default "iv"
        The combination rule, or non-negative weights per annotator (renormalised over the
        annotators each item has).
    prevalence : array_like of shape (C,), optional
        Class proportions for ``"iv"``; by default the plug-in of App. F.4 (module docstring).
    annotator_names : sequence of str, optional
        The annotators, as the warnings name them (default: their positions).

    Returns
    -------
    ndarray, shape (n, C)
        Each row sums to 1; its coordinates may leave [0, 1] (unbiased, not bounded).

    Examples
    --------
    >>> confusion = [[[0.9, 0.1], [0.2, 0.8]]]  # one binary annotator: a = 0.1, b = 0.8
    >>> corrected_one_hot_labels([[1], [0]], confusion).round(6).tolist()
    [[-0.285714, 1.285714], [1.142857, -0.142857]]
    """
    confusion = v.as_confusion_matrices(confusion, "confusion")
    n_classes = confusion.shape[1]
    annotations = v.as_class_annotations(annotations, "annotations", n_classes)
    if annotations.shape[1] != confusion.shape[0]:
        raise ValueError(
            f"confusion must hold one matrix per annotator column ({annotations.shape[1]}); "
            f"saw {confusion.shape[0]}"
        )
    v.check_items_annotated(annotations, "annotations")
    names = v.as_annotator_names(
        [str(j) for j in range(confusion.shape[0])] if annotator_names is None else annotator_names,
        confusion.shape[0],
        "annotator_names",
    )
    return labelled_corrections(annotations, confusion, weights, prevalence, names, True)[0]


class Correction(NamedTuple):
    """One correction of multi-class labels (module docstring), fixed once: the items that
    keep a label once the ill-conditioned annotators' are set missing (``labelled``, (n,)),
    their screened ``annotations`` (n_labelled, K), every ``(T_j^T)^-1`` (``inverse``), the
    confusion matrices the correction assumes (``confusion``, the identity for the
    ill-conditioned), the basis ``Q`` and the weight rule's ``matrices`` ``M_j``
    (:func:`_combine`)."""

    annotations: np.ndarray
    labelled: np.ndarray
    confusion: np.ndarray
    inverse: np.ndarray
    basis: np.ndarray
    matrices: np.ndarray

    def labels(self) -> np.ndarray:
        """The corrected one-hot labels ``U`` (..., n_labelled, C), with the leading axes of
        the draws the correction was built from (:func:`screened_correction`)."""
        return _combine(self.annotations, self.inverse, self.basis, self.matrices)

    def given_class_covariances(self) -> tuple[np.ndarray, np.ndarray]:
        """``Cov(U_i | Y_i = y)`` of the labelled items: one (C(y), C, C) array per set of
        annotators an item has (G, C, C, C), and each item's set (n_labelled,),

            Cov(U | Y = y) = Q [sum_{j in O} W_j Q^T V_j S_jy V_j^T Q W_j^T] Q^T,

        ``V_j = (T_j^T)^-1`` and ``S_jy = diag(T_j[y]) - T_j[y] T_j[y]^T`` (the covariance of
        the one-hot answer given ``Y = y``; annotators answer independently given ``Y``).  A
        correction of one set of matrices only (no draws' axes)."""
        reduced = _reduced(self.inverse, self.basis)  # (K, C(code), C - 1)
        rows = self.confusion  # (K, C(y), C(code))
        n_classes = rows.shape[1]
        eye = np.eye(n_classes)
        answer_covariance = rows[..., :, None] * eye - rows[..., :, None] * rows[..., None, :]
        # each annotator's Q^T V_j S_jy V_j^T Q: (K, C(y), C - 1, C - 1)
        per_annotator = np.einsum("kca,kycd,kdb->kyab", reduced, answer_covariance, reduced)
        masks, group = _mask_groups(self.annotations)
        solvers = np.linalg.inv(_group_totals(masks, self.matrices))
        covariances = np.empty((masks.shape[0], n_classes, n_classes, n_classes))
        # every set's members' terms at once, a pass of sets at a time (a crowd's sets are
        # nearly its items); np.nonzero walks the sets in order, and every set has a member
        widest = int(masks.sum(axis=1).max(initial=1))
        step = max(1, COMBINE_VALUES // (n_classes**3 * widest))
        for start in range(0, masks.shape[0], step):
            sets, members = np.nonzero(masks[start : start + step])
            weights = solvers[start + sets] @ self.matrices[members]  # W_j, (pairs, C-1, C-1)
            terms = np.einsum("pab,pybc,pdc->pyad", weights, per_annotator[members], weights)
            first = np.searchsorted(sets, np.arange(min(step, masks.shape[0] - start)))
            inner = np.add.reduceat(terms, first, axis=0)  # (sets, C(y), C - 1, C - 1)
            covariances[start : start + step] = self.basis @ inner @ self.basis.T
        return covariances, group


def correction_of(annotations, confusion, weights, prevalence, names, refuse_lost: bool):
    """The :class:`Correction` of ``annotations`` with ``confusion`` under the weight rule
    ``weights`` (IV at ``prevalence``, or at the plug-in when None); an item left without a
    usable label is refused with ``refuse_lost``, else left out of ``labelled``.  The
    arguments checked by :func:`corrected_one_hot_labels`, or by a caller that holds checked
    data."""
    # the arguments first: a warning on the annotators must not come before their error
    class_weights(weights, confusion.shape[0])
    if prevalence is not None:
        prevalence = _checked_prevalence(prevalence, confusion.shape[1])
    annotations, usable = screened(annotations, confusion, names, refuse_lost)
    return screened_correction(annotations, confusion, usable, weights, prevalence)


def _checked_prevalence(prevalence, n_classes: int) -> np.ndarray:
    """``prevalence`` as ``n_classes`` class proportions summing to 1, or its error."""
    prevalence = v.as_probabilities(prevalence, "prevalence")
    if prevalence.size != n_classes or abs(prevalence.sum() - 1.0) > v.ROW_SUM_TOLERANCE:
        raise ValueError(
            f"prevalence must be {n_classes} class proportions summing to 1; saw "
            f"{prevalence.tolist()}"
        )
    return prevalence


def class_weights(weights: object, n_annotators: int):
    """A weight rule of the multi-class correction (``"iv"`` or ``"equal"``), or explicit
    weights, checked: the rule's name, or the normalised (K,) weights."""
    if isinstance(weights, str):
        return v.as_choice(weights, "weights", ("iv", "equal"))
    return as_convex_weights(weights, n_annotators)


def screened_correction(annotations, confusion, usable, weights, prevalence) -> Correction:
    """:func:`correction_of` of annotations already :func:`screened` (the labels of the
    annotators not ``usable`` (K,) set missing) and checked arguments, said nothing.

    ``confusion`` (..., K, C, C) and ``prevalence`` (..., C) (or None) may have leading axes:
    a posterior's draws, corrected at once with the annotators its mean screened
    (:mod:`bayescal.bayes.class_posterior`); the :class:`Correction`'s ``inverse`` and
    ``confusion``, its IV ``matrices`` (scalar weights' are the same for every draw), and its
    labels (..., n, C), then have them too."""
    n_classes = confusion.shape[-1]
    eye = np.eye(n_classes)
    invertible = np.where(usable[:, None, None], np.swapaxes(confusion, -1, -2), eye)
    inverse = np.linalg.inv(invertible)
    labelled = (annotations != v.MISSING).any(axis=1)
    annotations = annotations[labelled]
    basis = _sum_zero_basis(n_classes)
    assumed = np.where(usable[:, None, None], confusion, eye)

    def built(matrices) -> Correction:
        return Correction(annotations, labelled, assumed, inverse, basis, matrices)

    rule = class_weights(weights, confusion.shape[-3])
    if not isinstance(rule, str):
        return built(_scalar_matrices(rule * usable, basis))
    if rule == "equal":
        return built(_scalar_matrices(usable * 1.0, basis))
    if prevalence is None:
        prevalence = _plugin_prevalence(annotations, inverse, basis)
    return built(_precisions(assumed, prevalence, basis))


def labelled_corrections(annotations, confusion, weights, prevalence, names, refuse_lost: bool):
    """``(U, labelled)``: the corrected one-hot labels of :func:`correction_of`'s items, and
    the (n,) mask of those items."""
    correction = correction_of(annotations, confusion, weights, prevalence, names, refuse_lost)
    return correction.labels(), correction.labelled


def noise_corrected_class_ece(
    probabilities,
    annotations,
    confusion,
    *,
    kind="top_label",
    weights="iv",
    prevalence=None,
    n_bins=DEFAULT_N_BINS,
    strategy="uniform",
) -> float:
    """Noise-corrected top-label or classwise ECE of class ``probabilities`` (n, C) against
    multi-class annotators with known confusion matrices (module docstring): the ECE of
    :func:`bayescal.expected_calibration_error` with the corrected one-hot labels in place of
    the one-hot labels.

    Parameters
    ----------
    probabilities : array_like, shape (n, C)
        Each item's class probabilities, rows summing to 1 (within 1e-6).
    annotations, confusion, weights, prevalence
        As :func:`corrected_one_hot_labels`.
    kind : {"top_label", "classwise"}, default "top_label"
        Classwise is the mean over the classes.
    n_bins : int or "auto", default 10
    strategy : {"uniform", "quantile"}, default "uniform"

    Returns
    -------
    float
    """
    probabilities = v.as_class_probabilities(probabilities, "probabilities")
    kind = v.as_choice(kind, "kind", CALIBRATION_KINDS)
    n_classes = v.as_confusion_matrices(confusion, "confusion").shape[1]
    if n_classes != probabilities.shape[1]:
        raise ValueError(
            f"probabilities must have one column per class of the confusion matrices "
            f"({n_classes}); saw {probabilities.shape[1]}"
        )
    annotations = v.as_class_annotations(annotations, "annotations", n_classes)
    v.check_same_length(probabilities, "probabilities", annotations, "annotations")
    corrected = corrected_one_hot_labels(
        annotations, confusion, weights=weights, prevalence=prevalence
    )
    return float(problem_errors(corrected, probabilities, kind, n_bins, strategy).mean())


def problem_errors(corrected, probabilities, kind: str, n_bins, strategy: str) -> np.ndarray:
    """The binned ECE of each binary problem of ``kind`` (one for top-label, one per class
    for classwise) with the corrected one-hot labels ``corrected`` (n, C) as targets: their
    mean is the NC-ECE of ``kind``."""
    return np.array(
        [
            calibration_moments(targets, scores, n_bins=n_bins, strategy=strategy).ece
            for targets, scores in class_problems(corrected, probabilities, kind)
        ]
    )
