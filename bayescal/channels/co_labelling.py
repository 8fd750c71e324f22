"""Identification from who labelled what: the co-labelling structure of the data.

The channels are identified by how annotators agree on the items they share (paper App. D.1),
so what the data identify follows which annotators label the same items, not how many
annotators there are:

- With no item labelled by two annotators no agreement is seen, and no channel is identified:
  any ``(a_j, b_j)`` with ``a_j < P(A_j = 1) < b_j`` fits each annotator's labels alike.
  Refused (:class:`~bayescal.IdentificationError`), by every estimator and model.
- Items with two labels give each annotator's rate of positives ``a_j + pi d_j`` and each
  pair's covariance ``pi (1 - pi) d_j d_k`` (``d = b - a``): every ``pi`` then has channels
  that fit, and only the rates' bounds [0, 1] limit it.  A third label on some items (the third
  moment, paper §4.1) or score groups whose class proportions differ (Hui–Walter, §4.2)
  identify it.  Without either: a :class:`~bayescal.WeakIdentificationWarning`.
- An annotator who shares no item with another is seen alone: its channel is not identified
  even when the others' are.  Named in one :class:`~bayescal.ChannelWarning`; the analysis goes
  on (one odd annotator never stops it).
- An annotator with one label shows nothing of how it errs: its channel is not identified on
  its own, whatever others label its item.  A crowd model gives it the population's channel
  (hierarchical Dawid–Skene) or the pooled one (``crowd_em``): named in one
  :class:`~bayescal.ChannelWarning`, before any fit or sampling.
- Gold items (human-verified labels) identify directly: an annotator who labelled
  gold items of both classes has its channel identified by them (and the class proportion then
  by its rate of positives), whoever else labels.  With such an annotator one annotator is
  identified, two need no score groups, and no item needs a second label
  (:class:`GoldCoverage`).
- Two annotators who give the same label on every item they share (at least
  :data:`COPY_ITEMS` of them, both classes among them) are one witness counted twice: one
  copies the other, or neither ever errs.  A model that takes annotators as independent given
  ``Y`` can only explain such agreement by taking their labels for the truth (their channels
  come out perfect, ``a = 0, b = 1``), and NC-ECE is then measured against one annotator.
  Named in one :class:`~bayescal.DependenceWarning`, before any fit or sampling.

:class:`CoLabelling` measures the structure once, from pattern cells or from a crowd's
responses, and :meth:`CoLabelling.require` applies the rule, before any fit or sampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import Result, abbreviated, warn_caller
from ..data.cells import CellStatistics
from ..data.responses import Responses
from ..exceptions import (
    ChannelWarning,
    DependenceWarning,
    IdentificationError,
    WeakIdentificationWarning,
)
from .base import check_annotators, require_identified, warn_saturated

__all__ = [
    "COPY_ITEMS",
    "CoLabelling",
    "GoldCoverage",
    "free_cells",
    "require_fittable",
    "warn_if_saturated",
]

#: Shared items on which two annotators must agree throughout to be called copies: two
#: independent annotators who err on 5% of items agree on 30 items by chance less than once in
#: 20 (0.9^30, counting either one's errors).
COPY_ITEMS = 30


@dataclass(frozen=True, eq=False, repr=False)
class CoLabelling(Result):
    """Who labelled what, as identification needs it.

    Attributes
    ----------
    n_items : int
    items_by_labels : dict of int to int
        How many items got ``m`` labels, for each ``m`` seen.
    isolated : tuple of str
        The annotators who share no item with another annotator.
    copies : tuple of (str, str, int)
        The pairs of annotators who gave the same label on each of the items they share (at
        least :data:`COPY_ITEMS`, both classes among them), with that number of items.
    single : tuple of str
        The annotators who gave one label in all (and share it with another annotator).
    """

    n_items: int
    items_by_labels: dict[int, int]
    isolated: tuple[str, ...]
    copies: tuple[tuple[str, str, int], ...] = ()
    single: tuple[str, ...] = ()

    @classmethod
    def of_cells(cls, counts: CellStatistics) -> CoLabelling:
        """From pattern cells: a cell's labels are its pattern's observed entries."""
        if not isinstance(counts, CellStatistics):
            raise TypeError(
                f"counts must be a bayescal.data.CellStatistics (data.compress()); saw "
                f"{type(counts).__name__}"
            )
        observed = counts.patterns != v.MISSING
        per_cell = observed.sum(axis=1)
        weights = counts.counts.astype(np.int64)
        shared = ((observed & (per_cell >= 2)[:, None]) * weights[:, None]).sum(axis=0)
        labels = (observed * weights[:, None]).sum(axis=0)
        positive = (counts.patterns == 1).astype(np.float64)
        negative = (counts.patterns == 0).astype(np.float64)
        names = np.asarray(counts.annotator_names)
        return cls(
            int(weights.sum()),
            _tally(per_cell, weights),
            tuple(names[shared == 0].tolist()),
            _copies(
                counts.annotator_names,
                (positive * weights[:, None]).T @ positive,
                (negative * weights[:, None]).T @ negative,
                (positive * weights[:, None]).T @ negative,
            ),
            tuple(names[(labels == 1) & (shared > 0)].tolist()),
        )

    @classmethod
    def of_responses(cls, responses: Responses) -> CoLabelling:
        """From a crowd's responses (one row per label)."""
        if not isinstance(responses, Responses):
            raise TypeError(
                f"responses must be a bayescal.data.Responses (data.responses()); saw "
                f"{type(responses).__name__}"
            )
        per_item = responses.labels_per_item()
        shared = np.bincount(
            responses.annotator,
            weights=per_item[responses.item] >= 2,
            minlength=responses.n_annotators,
        )
        from scipy import sparse

        shape = (responses.n_items, responses.n_annotators)
        positive, negative = (
            sparse.csr_matrix(
                (
                    (responses.label == value).astype(np.float64),
                    (responses.item, responses.annotator),
                ),
                shape=shape,
            )
            for value in (1, 0)
        )
        labels = np.bincount(responses.annotator, minlength=responses.n_annotators)
        names = np.asarray(responses.annotator_names)
        return cls(
            responses.n_items,
            _tally(per_item, np.ones(per_item.size, np.int64)),
            tuple(names[shared == 0].tolist()),
            _copies(
                responses.annotator_names,
                positive.T @ positive,
                negative.T @ negative,
                positive.T @ negative,
            ),
            tuple(names[(labels == 1) & (shared > 0)].tolist()),
        )

    def items_with_at_least(self, labels: int) -> int:
        return sum(n for m, n in self.items_by_labels.items() if m >= labels)

    def require(self, where: str, *, grouped: bool, gold: GoldCoverage | None = None) -> None:
        """Refuse data in which no item has two labels (the error names ``where``); warn when
        no item has three (and the model has no score groups), and name the annotators seen
        alone (module docstring).  The warnings are said of the data, not of ``where``: an
        analysis whose EM and NUTS fits both check them says each once.  With ``gold`` that
        identifies some channel (:class:`GoldCoverage`) the first two are not needed, and an
        annotator the gold identifies is not one seen alone."""
        by_gold = () if gold is None else gold.identified
        isolated = tuple(name for name in self.isolated if name not in by_gold)
        if by_gold:
            grouped = True  # the gold, not a third label, identifies the class proportion
        elif self.items_with_at_least(2) == 0:
            raise IdentificationError(
                f"{where}: no item has labels from two annotators ({self.n_items} items, at "
                "most one label each), so no agreement between annotators is seen and their "
                "channels are not identified (paper App. D.1); give some items two or more labels"
            )
        if not grouped and self.items_with_at_least(3) == 0:
            warn_caller(
                "data: no item has three labels, so the class proportion is not identified: "
                "pairs of labels fit any proportion, limited only by the rates' bounds (paper "
                "App. D.1); expect it, and the channels with it, to rest on the prior or the "
                "start. Give some items a third label, or use score groups (Hui–Walter)",
                WeakIdentificationWarning,
            )
        if self.copies:
            shown = ", ".join(f"{j} and {k} ({n} items)" for j, k, n in self.copies[:3])
            more = f" and {len(self.copies) - 3} more pairs" if len(self.copies) > 3 else ""
            warn_caller(
                f"data: {shown}{more}: each pair gave the same label on every item both "
                "labelled, so one copies the other (or neither ever errs). A model of "
                "annotators independent given Y takes such a pair's labels for the truth (their "
                "channels come out perfect) and measures NC-ECE against them: leave one of each "
                "pair out",
                DependenceWarning,
            )
        if self.single:
            warn_caller(
                f"data: {abbreviated(self.single, 5)} "
                f"{'gives' if len(self.single) == 1 else 'give'} one label in all, which shows "
                "nothing of how an annotator errs: such a channel is not identified on its own. "
                "A crowd model gives it the population's channel (or crowd_em the pooled one), "
                "so the interval rests on that model; give such annotators more items",
                ChannelWarning,
            )
        if isolated:
            warn_caller(
                f"data: {abbreviated(isolated, 5)} "
                f"{'shares' if len(isolated) == 1 else 'share'} no item with another "
                "annotator: seen alone, a channel is not identified; its estimate rests on the "
                "prior or the start, so give its items a second label or leave it out",
                ChannelWarning,
            )


@dataclass(frozen=True, eq=False, repr=False)
class GoldCoverage(Result):
    """What the gold items identify (module docstring).

    Attributes
    ----------
    n_gold : tuple of (int, int)
        Gold items of class 0 and of class 1.
    by_annotator : ndarray of int, shape (K, 2)
        The gold items of each class each annotator labelled.
    annotator_names : tuple of str
    """

    n_gold: tuple[int, int]
    by_annotator: np.ndarray
    annotator_names: tuple[str, ...]

    @classmethod
    def of_cells(cls, counts: CellStatistics) -> GoldCoverage:
        gold = np.full(counts.n_cells, v.MISSING) if counts.gold is None else counts.gold
        observed = (counts.patterns != v.MISSING) * counts.counts[:, None]
        by_annotator = np.column_stack([observed[gold == y].sum(axis=0) for y in (0, 1)])
        return cls(counts.gold_counts, by_annotator.astype(np.int64), counts.annotator_names)

    @classmethod
    def of_responses(cls, responses: Responses) -> GoldCoverage:
        gold = np.full(responses.n_items, v.MISSING) if responses.gold is None else responses.gold
        by_annotator = np.column_stack(
            [
                np.bincount(
                    responses.annotator,
                    weights=gold[responses.item] == y,
                    minlength=responses.n_annotators,
                )
                for y in (0, 1)
            ]
        )
        n_gold = tuple(int((gold == y).sum()) for y in (0, 1))
        return cls(n_gold, by_annotator.astype(np.int64), responses.annotator_names)

    @property
    def identified(self) -> tuple[str, ...]:
        """The annotators whose channel the gold identifies: gold items of both classes
        among the items they labelled."""
        both = (self.by_annotator > 0).all(axis=1)
        return tuple(np.asarray(self.annotator_names)[both].tolist())

    def described(self) -> str:
        """One clause for a model choice or an error: what the gold is and identifies."""
        n0, n1 = self.n_gold
        if n0 + n1 == 0:
            return "no gold labels"
        text = f"{n0 + n1} gold items ({n1} of class 1, {n0} of class 0)"
        if self.identified:
            return f"{text} identify the channel of {abbreviated(self.identified, 5)}"
        return (
            f"{text}, which identify no channel: an annotator's channel needs gold items of "
            "both classes among the items it labelled"
        )


def require_fittable(
    counts: CellStatistics, n_groups: int, where: str, *, uses_gold: bool = True
) -> None:
    """What every estimator and model checks of the pattern cells ``counts`` before fitting,
    in this order: enough annotators for a model with ``n_groups`` class proportions, or gold
    items that identify a channel (:func:`~bayescal.channels.base.require_identified`), labels
    from every annotator (:func:`~bayescal.channels.base.check_annotators`, so that one
    without any is named before who labelled what), then who labelled what
    (:meth:`CoLabelling.require`; the score groups identify the class proportion when there
    are several).  An estimator that does not read the gold (the moment estimators) passes
    ``uses_gold=False``: the gold then identifies nothing for it."""
    gold = GoldCoverage.of_cells(counts) if uses_gold and counts.has_gold else None
    require_identified(counts.patterns.shape[1], n_groups, where, gold=gold)
    check_annotators(counts)
    CoLabelling.of_cells(counts).require(where, grouped=n_groups > 1, gold=gold)


def _copies(names, both_positive, both_negative, positive_negative) -> tuple:
    """The pairs ``(j, k, shared items)`` of :attr:`CoLabelling.copies`, from the (K, K)
    counts of items on which ``j`` and ``k`` both said 1, both said 0, and ``j`` said 1 where
    ``k`` said 0: NumPy arrays (pattern cells) or SciPy sparse matrices (a crowd's responses,
    where most pairs share no item)."""
    # a pair needs items of both classes in common (a pair of constant annotators is not one
    # witness counted twice, just uninformative): both counts above zero, each pair once
    if isinstance(both_positive, np.ndarray):
        rows, cols = np.nonzero(np.triu((both_positive > 0) & (both_negative > 0), k=1))
    else:
        from scipy import sparse

        both = sparse.triu(both_positive.multiply(both_negative), k=1).tocoo()
        rows, cols = both.row, both.col
    if rows.size == 0:  # (SciPy's indexing by two empty arrays gives no empty array)
        return ()

    def at(matrix):
        return np.asarray(matrix[rows, cols], dtype=np.float64).ravel()

    shared = at(both_positive) + at(both_negative)
    differ = at(positive_negative) + np.asarray(positive_negative[cols, rows], np.float64).ravel()
    copied = (differ == 0) & (shared >= COPY_ITEMS)
    return tuple(
        (str(names[j]), str(names[k]), int(n))
        for j, k, n in zip(rows[copied], cols[copied], shared[copied])
    )


def _tally(labels: np.ndarray, weights: np.ndarray) -> dict[int, int]:
    """Items (``weights``) by their number of ``labels``."""
    totals = np.bincount(labels, weights=weights)
    return {m: int(n) for m, n in enumerate(totals) if n > 0}


def free_cells(counts: CellStatistics, grouped: bool) -> int:
    """The free cells of the data: ``sum (2^m - 1)`` over its (score group, gold label,
    missingness mask) cells, ``m`` the labels the mask shows, plus one per score group whose
    gold items hold both classes (their split between the classes); the score groups count
    only when the model has a class proportion per group (``grouped``).  Items with labels
    missing add cells: under labels missing at random their tables must agree with the full
    table's margins, and that agreement is checkable; so do the gold items' tables, which must
    agree with the channels."""
    n_annotators = counts.patterns.shape[1]
    observed = counts.patterns != v.MISSING
    gold = np.full(counts.n_cells, v.MISSING) if counts.gold is None else counts.gold
    group = counts.groups if grouped else np.zeros_like(counts.groups)
    keys = np.column_stack([group, gold, observed])
    tables = sum((1 << int(key[-n_annotators:].sum())) - 1 for key in np.unique(keys, axis=0))
    splits = sum(
        np.unique(gold[(group == g) & (gold != v.MISSING)]).size == 2 for g in np.unique(group)
    )
    return int(tables + splits)


def warn_if_saturated(counts: CellStatistics, grouped: bool, parameters: int, where: str) -> None:
    """Say so when the model has as many parameters as the data have free cells: it then
    reproduces the cells exactly and leaves nothing to check its fit."""
    free = free_cells(counts, grouped)
    if parameters == free:
        warn_saturated(where, f"{parameters} parameters for {free} free cells")
