"""Each item's probability of the positive class given its labels: the aggregated label.

With channels ``a_j = P(A_j = 1 | Y = 0)``, ``b_j = P(A_j = 1 | Y = 1)`` and class proportion
``mu_g`` of the item's score group ``g``, Bayes' rule gives the Dawid–Skene E-step (paper §4.3,
App. F.2; Dawid and Skene 1979)::

    logit P(Y_i = 1 | A_i) = logit(mu_g) + log p(A_i | Y = 1) - log p(A_i | Y = 0),

with ``log p(A_i | Y = y) = sum_{j observed} [A_ij log r_jy + (1 - A_ij) log(1 - r_jy)]`` for
annotators independent given ``Y`` (``r_j0 = a_j``, ``r_j1 = b_j``), and the model's own class
likelihoods for dependent pairs, a shared difficulty or channels per score group
(:func:`bayescal.channels.pattern_likelihood.class_log_likelihoods`).  A gold item's probability is its
gold label.  Rounding at 1/2 gives the aggregated label, the model-based alternative to a
majority vote; unlike the corrected label ``U_i`` it lies in [0, 1] but is not unbiased for Y.

For independent annotators the ratio is summed over each item's labels (O(labels), any number
of workers: :class:`~bayescal.data.Responses`); the other models run on the distinct response
patterns of a dense table.  A posterior (:class:`~bayescal.bayes.BayesFit`) gives the mean of
the probability over its draws, which counts the uncertainty of the channels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse, special

from .. import _validation as v
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..data.responses import Responses
from .pattern_likelihood import class_log_likelihoods

__all__ = ["ChannelParameters", "PredictsLabels", "aggregated_labels", "label_probabilities"]

#: How far inside (0, 1) a fit's rates are kept (:meth:`bayescal.ChannelFit.parameters`, as
#: its EM's E-step keeps them) and the dense models' rates always: a rate of exactly 0 or 1
#: makes an item's log-likelihood ratio infinite.
EPS = 1e-12
#: Draws whose item probabilities are held at once (items x draws floats).
DRAWS_PER_PASS = 256


@dataclass(frozen=True, eq=False)
class ChannelParameters:
    """The parameters a label probability needs, with a leading axis of draws (one draw for a
    point estimate).

    Attributes
    ----------
    a, b : ndarray, shape (S, K) or (S, L K)
        Channels in the order of ``names``; with ``channels_by_group``, the L score groups'
        channels one group after the other.
    prevalence : ndarray, shape (S, L)
        Class proportion of each of the score groups ``group_ids`` (L = 1 for a marginal model).
    names : tuple of str
        The annotators of the columns of ``a`` and ``b``.
    group_ids : tuple of int
        The score groups of the columns of ``prevalence`` (one or none for a marginal model).
    pairs : tuple of (str, str)
        Dependent pairs, whose ``covariance`` (S, D, 2) is given ``Y = 0`` and ``Y = 1``.
    loading : ndarray, shape (S, 2), optional
        The shared difficulty's loadings.
    channels_by_group : bool
    """

    a: np.ndarray
    b: np.ndarray
    prevalence: np.ndarray
    names: tuple[str, ...]
    group_ids: tuple[int, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    covariance: np.ndarray | None = None
    loading: np.ndarray | None = None
    channels_by_group: bool = False

    def __post_init__(self) -> None:
        for name in ("a", "b", "prevalence"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), np.float64))

    def clipped(self) -> ChannelParameters:
        """The rates and proportions kept :data:`EPS` inside (0, 1)."""

        def inside(x):
            return np.clip(x, EPS, 1.0 - EPS)

        return replace(self, a=inside(self.a), b=inside(self.b), prevalence=inside(self.prevalence))

    @property
    def n_draws(self) -> int:
        return int(self.a.shape[0])

    @property
    def independent(self) -> bool:
        """Whether the annotators are independent given Y with one channel each (the ratio is
        then a sum over each item's labels)."""
        return not self.pairs and self.loading is None and not self.channels_by_group

    def draws(self, first: int, last: int) -> ChannelParameters:
        """Draws ``first:last`` alone."""

        def part(x):
            return None if x is None else x[first:last]

        return replace(
            self,
            a=self.a[first:last],
            b=self.b[first:last],
            prevalence=self.prevalence[first:last],
            covariance=part(self.covariance),
            loading=part(self.loading),
        )


class PredictsLabels:
    """``predict_proba`` and ``predict`` of a fit with a ``parameters()`` method: a channel
    fit (one draw) or a posterior (its draws)."""

    def parameters(self) -> ChannelParameters:
        raise NotImplementedError

    def predict_proba(self, data) -> np.ndarray:
        """Each item's probability of the positive class given its labels,
        ``P(Y_i = 1 | A_i)`` (n,), averaged over the fit's draws (a posterior's: so the
        channels' uncertainty counts); a gold item's is its gold label, and an item without
        any label gets its score group's class proportion (module docstring).

        ``data`` (an :class:`~bayescal.AnnotatedScores`, or :class:`~bayescal.data.Responses`
        of a long table without scores) holds the fit's items or new ones, labelled by some
        or all of the fit's annotators (matched by name).
        """
        return label_probabilities(data, self.parameters())

    def predict(self, data) -> np.ndarray:
        """Each item's aggregated label (int8, (n,)): 1 where :meth:`predict_proba` is at
        least 1/2."""
        return aggregated_labels(self.predict_proba(data))


def label_probabilities(data, parameters: ChannelParameters, *, where: str = "data") -> np.ndarray:
    """``P(Y_i = 1 | A_i)`` of every item of ``data`` (n,), averaged over the draws of
    ``parameters`` (module docstring); a gold item's is its gold label.

    Parameters
    ----------
    data : AnnotatedScores or Responses
        The items.  Their annotators must be among ``parameters.names`` (matched by name; an
        item may be labelled by a few of them).  A grouped model needs ``data.groups``.
    parameters : ChannelParameters
    where : str
        How errors name ``data``.
    """
    if not isinstance(data, AnnotatedScores | Responses):
        raise TypeError(
            f"{where} must be a bayescal.AnnotatedScores or bayescal.data.Responses; saw "
            f"{type(data).__name__}"
        )
    require_binary(data, "label_probabilities")
    positions = v.annotator_positions(
        data.annotator_names, parameters.names, where, "the fit", subset=True
    )
    group_of_item = _group_columns(getattr(data, "groups", None), data.n_items, parameters, where)
    total = np.zeros(data.n_items)
    for first in range(0, parameters.n_draws, DRAWS_PER_PASS):
        part = parameters.draws(first, first + DRAWS_PER_PASS)
        with np.errstate(divide="ignore", invalid="ignore"):  # a rate of 0 or 1: certain
            log_ratio = _log_ratio(data, part, positions)  # (S, n)
            log_odds = special.logit(part.prevalence)[:, group_of_item] + log_ratio
        impossible = np.isnan(log_odds).any(axis=0)
        if impossible.any():
            raise ValueError(
                f"{where}: item {int(np.argmax(impossible))} has a response pattern that the "
                "channels make impossible under either label"
            )
        total += special.expit(log_odds).sum(axis=0)
    probability = total / parameters.n_draws
    if data.gold is not None:
        probability = np.where(data.gold == v.MISSING, probability, data.gold)
    return probability


def aggregated_labels(probabilities: np.ndarray) -> np.ndarray:
    """The aggregated label of each item: 1 where ``P(Y = 1 | A) >= 1/2``, else 0 (int8)."""
    return (np.asarray(probabilities) >= 0.5).astype(np.int8)


def _group_columns(groups, n_items: int, parameters: ChannelParameters, where: str) -> np.ndarray:
    """The column of ``parameters.prevalence`` of each of ``n_items`` items in score groups
    ``groups`` (None for data without groups)."""
    if len(parameters.group_ids) <= 1:
        return np.zeros(n_items, np.intp)
    known = np.array(parameters.group_ids)
    if groups is None:
        raise ValueError(
            f"{where} must have score groups: the fit has one class proportion per score group "
            f"{known.tolist()}; saw data without groups"
        )
    unknown = np.setdiff1d(groups, known)
    if unknown.size:
        raise ValueError(
            f"{where} must have the fit's score groups {known.tolist()}; saw group(s) "
            f"{unknown.tolist()}"
        )
    order = np.argsort(known)
    return order[np.searchsorted(known[order], groups)]


def _log_ratio(data, parameters: ChannelParameters, positions: np.ndarray) -> np.ndarray:
    """``log p(A_i | Y = 1) - log p(A_i | Y = 0)`` (S, n) of the items of ``data`` whose
    annotators sit at ``positions`` among the parameters' columns."""
    if parameters.independent:
        responses = data.responses() if isinstance(data, AnnotatedScores) else data
        codes = 2 * positions[responses.annotator] + responses.label
        by_item = sparse.csr_matrix(
            (np.ones(codes.size), (responses.item, codes)),
            shape=(responses.n_items, 2 * len(parameters.names)),
        )
        a, b = parameters.a, parameters.b
        # per annotator, the ratio of a label 0 and of a label 1: columns 2 j and 2 j + 1
        ratio = np.stack([np.log1p(-b) - np.log1p(-a), np.log(b) - np.log(a)], axis=-1)
        return np.asarray((by_item @ ratio.reshape(a.shape[0], -1).T).T)
    if not isinstance(data, AnnotatedScores):
        raise TypeError(
            "data must be a bayescal.AnnotatedScores (a dense table) for a model with dependent "
            "pairs, a shared difficulty or channels per score group; saw Responses"
        )
    parameters = parameters.clipped()  # the products below meet 0 log 0 otherwise
    annotations = np.full((data.n_items, len(parameters.names)), v.MISSING, np.int8)
    annotations[:, positions] = data.annotations
    groups = np.zeros(data.n_items, np.int64) if data.groups is None else data.groups
    keys, inverse = np.unique(np.column_stack([groups, annotations]), axis=0, return_inverse=True)
    patterns = keys[:, 1:]
    positive, negative = (patterns == 1) * 1.0, (patterns == 0) * 1.0
    a, b = parameters.a, parameters.b
    if parameters.channels_by_group:
        row_group = _group_columns(keys[:, 0], len(keys), parameters, "data")
        k = len(parameters.names)
        by_group = (a.reshape(a.shape[0], -1, k), b.reshape(b.shape[0], -1, k))
        a, b = (rates[:, row_group, :] for rates in by_group)
    pairs = None
    if parameters.pairs:
        names = list(parameters.names)
        pairs = np.array([(names.index(j), names.index(k)) for j, k in parameters.pairs])
    log0, log1 = class_log_likelihoods(
        a,
        b,
        positive,
        negative,
        pairs=pairs,
        covariance=parameters.covariance,
        loading=parameters.loading,
        per_row=parameters.channels_by_group,
    )
    return (log1 - log0)[:, inverse.ravel()]
