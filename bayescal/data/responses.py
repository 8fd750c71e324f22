"""Sparse responses: a crowd's labels as (item, annotator, label) triples.

A crowd of W workers who each label a few of n items fills a small share of the n x W table:
kept dense it costs n W cells (10^5 items x 1 000 workers: 10^8) for the R labels there are,
and its response patterns are one per item, so the pattern counts the dense-panel models run
on compress nothing.  The crowd estimators run on the triples instead: memory O(R), time O(R)
per iteration.  :meth:`bayescal.AnnotatedScores.responses` gives the triples of data in memory,
:meth:`Responses.from_long` those of a long table without ever building the dense one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import fingerprint

__all__ = ["Responses"]


def name_order(annotator_names) -> np.ndarray:
    """The annotators' positions sorted by name: an order that is the same whatever the order
    of the columns, for every random stream drawn label by label or cell by cell (the same
    data with its columns in another order and the same seed give the same numbers)."""
    return np.array(sorted(range(len(annotator_names)), key=list(annotator_names).__getitem__))


@dataclass(frozen=True, eq=False)
class Responses:
    """The labels of a crowd, one triple per label given.

    Attributes
    ----------
    item : ndarray of int64, shape (R,)
        The item of each label, in ``[0, n_items)``.
    annotator : ndarray of int64, shape (R,)
        The annotator of each label, in ``[0, K)``, ``K = len(annotator_names)``.
    label : ndarray of int8, shape (R,)
        0 or 1; class codes ``0 .. n_classes - 1`` with more classes.
    n_items : int
        Items, labelled or not (an item without labels has no triple).
    annotator_names : tuple of str
    gold : ndarray of int8, shape (n_items,), or None
        Each item's human-verified label (``-1`` where it has none), as
        ``AnnotatedScores.gold``.
    n_classes : int, default 2
        The number of classes (multi-class labels from :meth:`bayescal.AnnotatedScores.responses`).

    Each (item, annotator) pair appears at most once.  The arrays are stored read-only.
    """

    item: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    n_items: int
    annotator_names: tuple[str, ...]
    gold: np.ndarray | None = None
    n_classes: int = 2

    def __post_init__(self) -> None:
        n_items = v.as_int(self.n_items, "n_items", minimum=1)
        names = tuple(self.annotator_names)
        if not names or not all(isinstance(name, str) for name in names):
            raise TypeError(f"annotator_names must be a non-empty sequence of str; saw {names!r}")
        item = _indices(self.item, "item", n_items)
        annotator = _indices(self.annotator, "annotator", len(names))
        n_classes = v.as_int(self.n_classes, "n_classes", minimum=2)
        if n_classes == 2:
            label = v.as_binary_labels(self.label, "label").astype(np.int8)
        else:
            label = v.as_class_labels(self.label, "label", n_classes)
            label = label.astype(v.class_code_dtype(n_classes))
        if not item.size == annotator.size == label.size:
            raise ValueError(
                "item, annotator and label must have one entry per response each; saw "
                f"{item.size}, {annotator.size} and {label.size}"
            )
        pair = np.sort(item * len(names) + annotator)  # a sort: faster here than np.unique
        repeated = np.flatnonzero(pair[1:] == pair[:-1])
        if repeated.size:
            first = pair[repeated[0]]
            raise ValueError(
                f"responses must hold one label per (item, annotator) pair; item {first // len(names)} "
                f"has two from annotator {names[first % len(names)]!r}"
            )
        if self.gold is None:
            gold = None
        elif n_classes == 2:
            gold = v.as_gold(self.gold, n_items)
        else:
            gold = v.as_class_gold(self.gold, n_items, n_classes)
        for name, array in (
            ("item", item),
            ("annotator", annotator),
            ("label", label),
            ("gold", gold),
        ):
            if array is not None:
                array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "n_items", n_items)
        object.__setattr__(self, "n_classes", n_classes)
        object.__setattr__(self, "annotator_names", names)

    @property
    def n_responses(self) -> int:
        return int(self.label.size)

    @property
    def n_annotators(self) -> int:
        return len(self.annotator_names)

    def labels_per_annotator(self) -> np.ndarray:
        """How many labels each annotator gave, (K,)."""
        return np.bincount(self.annotator, minlength=self.n_annotators)

    @property
    def has_gold(self) -> bool:
        """Whether some item has a gold label."""
        return self.gold is not None and bool((self.gold != v.MISSING).any())

    @property
    def fingerprint(self) -> str:
        """``"responses:<sha256>"`` of the labels, gold and names (:func:`bayescal._api.fingerprint`)."""
        gold = () if self.gold is None else (self.gold,)
        classes = () if self.n_classes == 2 else (np.array([self.n_classes]),)
        return fingerprint(
            "responses",
            self.annotator_names,
            np.array([self.n_items]),
            self.item,
            self.annotator,
            self.label,
            *gold,
            *classes,
        )

    def labels_per_item(self) -> np.ndarray:
        """How many labels each item got, (n_items,)."""
        return np.bincount(self.item, minlength=self.n_items)

    def __repr__(self) -> str:
        return (
            f"Responses(n_items={self.n_items}, n_annotators={self.n_annotators}, "
            f"n_responses={self.n_responses})"
        )

    @classmethod
    def from_dense(
        cls, annotations, *, annotator_names=None, gold=None, n_classes: int = 2
    ) -> Responses:
        """The responses of an items x annotators table of 0/1 labels (class codes with
        ``n_classes`` classes; -1 for missing), item by item and, within an item, in the
        annotators' name order (:func:`name_order`: a replicate drawn label by label does not
        follow the column order); ``annotator_names`` default to ``("a0", "a1", ...)``."""
        n_classes = v.as_int(n_classes, "n_classes", minimum=2)
        if n_classes == 2:
            annotations = v.as_annotations(annotations, "annotations")
        else:
            annotations = v.as_class_annotations(annotations, "annotations", n_classes)
        names = v.as_annotator_names(annotator_names, annotations.shape[1], "annotator_names")
        by_name = name_order(names)
        in_order = (by_name == np.arange(by_name.size)).all()
        item, position = np.nonzero(
            (annotations if in_order else annotations[:, by_name]) != v.MISSING
        )
        annotator = by_name[position]
        return cls(
            item,
            annotator,
            annotations[item, annotator],
            max(annotations.shape[0], 1),
            names,
            gold=gold,
            n_classes=n_classes,
        )

    @classmethod
    def from_long(
        cls,
        labels,
        *,
        items=None,
        item: str = "item",
        annotator: str = "annotator",
        label="label",
        classes=None,
    ) -> Responses:
        """The responses of a long table, without building the items x annotators table.

        Parameters
        ----------
        labels : pandas.DataFrame
            One row per response, with columns ``item``, ``annotator`` and ``label`` (0/1; an
            empty label is no response).
        items : sequence, optional
            The item ids in the order of the items (e.g. the score table's ids); every label's
            item must be among them.  Default: the ids in order of first appearance.
        item, annotator, label : str
            Column names.  Annotators are ordered by sorted name, as in
            :meth:`bayescal.AnnotatedScores.from_long`.
        classes : sequence of str, optional
            The class names of multi-class labels, matched as text as in
            :meth:`bayescal.AnnotatedScores.from_frame` (the codes ``0, 1, ...`` have the
            names ``"0", "1", ...``); without, labels are 0/1.
        """
        import pandas as pd

        if not isinstance(labels, pd.DataFrame):
            raise TypeError(f"labels must be a pandas DataFrame; saw {type(labels).__name__}")
        absent = [c for c in (item, annotator, label) if c not in labels.columns]
        if absent:
            raise ValueError(
                f"labels has no column(s) {absent}; its columns are {list(labels.columns)}"
            )
        given = labels[label].notna().to_numpy()
        frame = labels[given]
        if classes is None:
            n_classes = 2
            values = v.annotation_column(frame[label], f"label column {label!r}")
        else:
            class_names = v.as_class_names(classes, None)
            n_classes = len(class_names)
            values = v.class_label_column(frame[label], class_names, f"label column {label!r}")
        if items is None:
            item_index, item_ids = pd.factorize(frame[item])
        else:
            item_ids = pd.Index(items)
            item_index = item_ids.get_indexer(frame[item])
            if (item_index < 0).any():
                row = int(np.flatnonzero(item_index < 0)[0])
                raise ValueError(
                    f"labels: item {frame[item].iloc[row]!r} (row {int(np.flatnonzero(given)[row])}) "
                    "is not among items"
                )
        annotator_index, names = pd.factorize(frame[annotator].astype(str), sort=True)
        v.warn_ids_spaced_apart(names, "annotator")
        return cls(
            item_index.astype(np.int64),
            annotator_index.astype(np.int64),
            values,
            max(len(item_ids), 1),
            tuple(names),
            n_classes=n_classes,
        )


def _indices(value, name: str, size: int) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"{name} must be a 1-D array of integer indices; saw {array.dtype} {array.shape}"
        )
    if array.size and (array.min() < 0 or array.max() >= size):
        raise ValueError(
            f"{name} indices must lie in [0, {size}); saw {array.min()} to {array.max()}"
        )
    return array.astype(np.int64)
