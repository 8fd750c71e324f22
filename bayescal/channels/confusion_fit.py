"""Confusion-matrix channels of multi-class annotators, and their fit on multi-class
:class:`~bayescal.AnnotatedScores` (Dawid and Skene 1979): what :func:`~bayescal.dawid_skene_em`
returns for data with three classes or more.

Annotator ``j``'s channel is its confusion matrix ``T_j[y, k] = P(A_j = k | Y = y)``; binary
:class:`~bayescal.Channels` are the case ``C = 2`` (their ``confusion`` is
``[[1 - a_j, a_j], [1 - b_j, b_j]]``).  The estimate is
:func:`~bayescal.channels.confusion_em.confusion_em`'s, oriented to the population's diagonal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _validation as v
from .._api import Result, abbreviated
from .base import annotator_order
from .confusion_em import CONFUSION_STRUCTURES, confusion_em

__all__ = ["ConfusionChannels", "ConfusionFit", "fit_confusions"]


@dataclass(frozen=True, eq=False)
class ConfusionChannels:
    """Multi-class noise channels of K annotators: one confusion matrix each.

    Parameters
    ----------
    confusion : array_like, shape (K, C, C)
        ``T_j[y, k] = P(A_j = k | Y = y)``, rows summing to 1 (within 1e-6).
    names : sequence of str, optional
        The annotators, matched to data by name as :class:`~bayescal.Channels` are.
    classes : sequence of str, optional
        The class names of the rows and columns; defaults to ``("0", "1", ...)``.

    The matrix is stored read-only.
    """

    confusion: np.ndarray
    names: tuple[str, ...] | None = field(default=None, kw_only=True)
    classes: tuple[str, ...] | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        confusion = v.as_confusion_matrices(self.confusion, "confusion").copy()
        confusion.setflags(write=False)
        object.__setattr__(self, "confusion", confusion)
        object.__setattr__(self, "classes", v.as_class_names(self.classes, confusion.shape[1]))
        if self.names is not None:
            object.__setattr__(
                self, "names", v.as_annotator_names(self.names, confusion.shape[0], "names")
            )

    @property
    def n_annotators(self) -> int:
        return int(self.confusion.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.confusion.shape[1])

    @property
    def accuracy(self) -> np.ndarray:
        """Each annotator's mean diagonal ``(1/C) sum_y T_j[y, y]`` (its accuracy when the
        classes are equally common)."""
        return np.trace(self.confusion, axis1=1, axis2=2) / self.n_classes

    def __repr__(self) -> str:
        named = "" if self.names is None else f", names=[{abbreviated(self.names, 6)}]"
        return (
            f"ConfusionChannels({self.n_annotators} annotators x {self.n_classes} classes "
            f"[{abbreviated(self.classes, 6)}], mean diagonal "
            f"{np.round(self.accuracy, 3).tolist()}{named})"
        )

    def for_annotators(
        self, names, *, where: str = "data", of: str = "the channels"
    ) -> ConfusionChannels:
        """These channels in the order of the annotators ``names`` of ``where``, by name (or
        by position when neither side names its annotators), as
        :meth:`bayescal.Channels.for_annotators`."""
        positions = annotator_order(
            self.names,
            self.n_annotators,
            names,
            where,
            of,
            spelled="ConfusionChannels(confusion, names=[...])",
        )
        if positions is None:
            return self
        return ConfusionChannels(
            self.confusion[positions], names=tuple(names), classes=self.classes
        )


@dataclass(frozen=True, eq=False, repr=False)
class ConfusionFit(Result):
    """A multi-class channel fit.

    Attributes
    ----------
    method : str
        The estimator (``"dawid_skene_em"`` or ``"crowd_em"``).
    channels : ConfusionChannels
        The oriented confusion matrices (:mod:`bayescal.channels.confusion_em`), named by
        the annotators and the classes.
    prevalence : ndarray, shape (C,)
        The class proportions ``P(Y = y)``.
    annotator_names, classes : tuple of str
    loglik : float
        Log-likelihood of the response patterns at the estimate.
    converged : bool
    n_iter : int
    data_fingerprint : str
        ``"responses:<sha256>"`` of the labels it was fitted on
        (:attr:`bayescal.data.Responses.fingerprint`): what tells a later call on the same
        items from one on others.
    smoothing : float
        The Dirichlet ``alpha`` of every confusion row (1: maximum likelihood).
    pooled : tuple of str
        The workers who share the pooled matrix of the sparse workers (``crowd_em``'s
        ``pool``); empty when each has its own.
    failure : None
        Always None: a fit that cannot be made raises (kept for the workflow's ``ok`` test).
    options : tuple of (str, object)
        The keyword arguments away from their defaults, as :attr:`bayescal.ChannelFit.options`.
    item_ids : ndarray or None
        The ids of the items fitted on, as a binary fit's ``item_ids``.
    """

    method: str
    channels: ConfusionChannels
    prevalence: np.ndarray
    annotator_names: tuple[str, ...]
    classes: tuple[str, ...]
    loglik: float
    converged: bool
    n_iter: int
    data_fingerprint: str
    smoothing: float = 1.0
    pooled: tuple[str, ...] = ()
    failure: None = None
    options: tuple[tuple[str, object], ...] = ()
    item_ids: np.ndarray | None = None

    @property
    def ok(self) -> bool:
        return True

    def require(self) -> ConfusionFit:
        """Return self (a multi-class fit that fails raises instead)."""
        return self


def fit_confusions(
    data, method: str, *, n_starts, tol, max_iter, seed, structure=None, init=None
) -> ConfusionFit:
    """The multi-class Dawid–Skene EM fit of ``data`` (:class:`~bayescal.AnnotatedScores`
    with three classes or more), run as ``method``: the matrices of form ``structure``
    (default every cell free; ``"by_distance"`` only on an ordinal scale), the maximum
    likelihood, the gold items' classes known, the first start ``init`` (a
    :class:`ConfusionFit` of these annotators, or a tuple of matrices and proportions) when
    given.  Score groups are ignored, as by the binary ``dawid_skene_em``."""
    structure = v.as_choice(
        "full" if structure is None else structure, "structure", CONFUSION_STRUCTURES
    )
    if structure == "by_distance" and not data.ordinal:
        raise ValueError(
            "structure: 'by_distance' reads how far apart two classes are, which only an "
            "ordinal scale says; declare the classes a scale, in its order "
            "(AnnotatedScores(..., ordinal=True), or --ordinal); saw unordered classes "
            f"{list(data.classes)}"
        )
    if isinstance(init, ConfusionFit):
        if init.classes != data.classes:
            raise ValueError(
                f"init: a fit of the classes {list(init.classes)}, and data have "
                f"{list(data.classes)}; start from a fit of the same classes"
            )
        matrices = init.channels.for_annotators(data.annotator_names, of="init").confusion
        init = (matrices, init.prevalence)
    estimate = confusion_em(
        data.annotations,
        data.n_classes,
        init=init,
        structure=structure,
        gold=data.gold,
        n_starts=n_starts,
        tol=tol,
        max_iter=max_iter,
        seed=seed,
    )
    return ConfusionFit(
        method=method,
        channels=ConfusionChannels(
            estimate.confusion, names=data.annotator_names, classes=data.classes
        ),
        prevalence=estimate.prevalence,
        annotator_names=data.annotator_names,
        classes=data.classes,
        loglik=estimate.loglik,
        converged=estimate.converged,
        n_iter=estimate.n_iter,
        data_fingerprint=data.responses().fingerprint,
    )


def confusion_matrices_for(data, channels, where: str):
    """``(fit, matrices)``: the multi-class ``channels`` (a :class:`ConfusionFit`, else None,
    and the (K, C, C) matrices of ``data``'s annotators, matched by name) after checking that
    they have ``data``'s classes, by number and by name (unnamed classes match any); the
    errors name ``where``'s argument."""
    fit = channels if isinstance(channels, ConfusionFit) else None
    known = channels.channels if fit is not None else channels
    if not isinstance(known, ConfusionChannels):
        raise TypeError(
            f"{where} must be a ConfusionChannels or a ConfusionFit for multi-class data; saw "
            f"{type(channels).__name__}"
        )
    if known.n_classes != data.n_classes:
        raise ValueError(
            f"{where} have {known.n_classes} classes and data {data.n_classes}; give confusion "
            "matrices of the data's classes"
        )
    if known.classes not in (data.classes, v.as_class_names(None, known.n_classes)):
        raise ValueError(
            f"{where} name the classes {list(known.classes)} and data {list(data.classes)}: "
            "the rows would meet other classes"
        )
    return fit, known.for_annotators(data.annotator_names).confusion
