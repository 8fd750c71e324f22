"""The data model: scores of a fixed predictor and the labels of K noisy annotators (DESIGN.md §2).

:class:`AnnotatedScores` holds, for n items,

- ``scores`` — the predictor's probabilities ``Z_i`` in [0, 1];
- ``annotations`` — an (n, K) matrix of 0/1 labels with ``-1`` for a missing response;
- ``groups`` — optional score-group ids (non-negative integers) for the grouped
  Hui–Walter models (paper §4.2);
- ``annotator_names`` — the column names when built from a table, ``a0, a1, ...`` otherwise.

Every likelihood in bayescal runs on :meth:`AnnotatedScores.compress`: the distinct
(group, response pattern) rows and their counts, so that its cost does not grow with n.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _validation as v

__all__ = ["AnnotatedScores", "PatternCounts"]


@dataclass(frozen=True, eq=False)
class PatternCounts:
    """Distinct (group, response pattern) rows of a data set with their counts.

    Attributes
    ----------
    groups : ndarray of int, shape (P,)
        Score-group id of each row (0 for every row when the data have no groups).
    patterns : ndarray of int8, shape (P, K)
        Response pattern: 0, 1, or -1 for missing.
    counts : ndarray of int, shape (P,)
        Number of items with that group and pattern; they sum to ``n_items``.
    annotator_names : tuple of str
        Names of the K pattern columns.

    Rows are sorted by group, then lexicographically by pattern.
    """

    groups: np.ndarray
    patterns: np.ndarray
    counts: np.ndarray
    annotator_names: tuple[str, ...]

    @property
    def n_patterns(self) -> int:
        return int(self.counts.size)

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())


def _read_only(array: np.ndarray) -> np.ndarray:
    array = np.array(array)  # own copy: the caller's array may change later
    array.setflags(write=False)
    return array


def _as_groups(groups: object, n_items: int) -> np.ndarray:
    array = v.as_numeric_array(groups, "groups")
    if array.ndim != 1:
        raise ValueError(f"groups must be a 1-D array of score-group ids; saw shape {array.shape}")
    if array.shape[0] != n_items:
        raise ValueError(f"groups must have one entry per item ({n_items}); saw {array.shape[0]}")
    v.check_finite(array.astype(np.float64), "groups")
    bad = (array < 0) | (array != np.round(array))
    if bad.any():
        index = v.first_index(bad)
        raise ValueError(
            f"groups must be non-negative integer ids; saw {array[index].item()!r} at position {index[0]}"
        )
    return array.astype(np.int64)


def _as_names(names: object, n_annotators: int) -> tuple[str, ...]:
    if names is None:
        return tuple(f"a{j}" for j in range(n_annotators))
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"annotator_names must be a sequence of strings; saw {names!r}")
    names = tuple(str(name) for name in names)
    if len(names) != n_annotators:
        raise ValueError(
            f"annotator_names must name each of the {n_annotators} annotator columns; saw {len(names)} names"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"annotator_names must be unique; saw {list(names)}")
    return names


@dataclass(frozen=True, eq=False)
class AnnotatedScores:
    """Scores of a fixed binary predictor and K noisy annotators' labels (DESIGN.md §2).

    Parameters
    ----------
    scores : array_like, shape (n,)
        Predicted probabilities, finite, in [0, 1].
    annotations : array_like of int, shape (n, K)
        0/1 labels; ``-1`` marks a missing response.  An all-missing column or row is allowed
        here and rejected only by the estimators it makes undefined.
    groups : array_like of int, shape (n,), optional
        Score-group ids (non-negative integers), used by the grouped Hui–Walter models.
    annotator_names : sequence of str, optional
        Defaults to ``("a0", "a1", ...)``.

    The arrays are copied and stored read-only.

    Examples
    --------
    >>> data = AnnotatedScores([0.2, 0.7, 0.9], [[0, 0], [1, -1], [1, 1]])
    >>> data.n_items, data.n_annotators, data.annotator_names
    (3, 2, ('a0', 'a1'))
    """

    scores: np.ndarray
    annotations: np.ndarray
    groups: np.ndarray | None = None
    annotator_names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        scores = v.as_probabilities(self.scores, "scores")
        annotations = v.as_annotations(self.annotations, "annotations", n_items=scores.shape[0])
        groups = (
            None if self.groups is None else _read_only(_as_groups(self.groups, scores.shape[0]))
        )
        object.__setattr__(self, "scores", _read_only(scores))
        object.__setattr__(self, "annotations", _read_only(annotations))
        object.__setattr__(self, "groups", groups)
        object.__setattr__(
            self, "annotator_names", _as_names(self.annotator_names, annotations.shape[1])
        )

    @property
    def n_items(self) -> int:
        return int(self.scores.shape[0])

    @property
    def n_annotators(self) -> int:
        return int(self.annotations.shape[1])

    @property
    def n_groups(self) -> int:
        """Number of distinct score groups present (1 when the data have no groups)."""
        return 1 if self.groups is None else int(np.unique(self.groups).size)

    def __repr__(self) -> str:
        missing = float((self.annotations == v.MISSING).mean())
        return (
            f"AnnotatedScores(n_items={self.n_items}, annotators={list(self.annotator_names)}, "
            f"n_groups={self.n_groups}, missing={missing:.1%})"
        )

    def compress(self) -> PatternCounts:
        """Distinct (group, response pattern) rows with their counts (DESIGN.md §2).

        The likelihood of every channel model depends on the data only through these counts,
        so fitting costs O(number of distinct patterns) rather than O(n).  This pass is the
        only O(nK) step of a fit: each row is encoded as one integer in base 3 (missing, 0, 1)
        after its group id, and the codes are counted with ``bincount`` when the code space is
        small, or sorted otherwise.
        """
        groups = np.zeros(self.n_items, dtype=np.int64) if self.groups is None else self.groups
        rows, counts = count_rows(groups, self.annotations)
        return PatternCounts(
            groups=_read_only(rows[:, 0]),
            patterns=_read_only(rows[:, 1:].astype(np.int8)),
            counts=_read_only(counts.astype(np.int64)),
            annotator_names=self.annotator_names,
        )

    def subset(self, items) -> AnnotatedScores:
        """The data restricted to ``items`` (integer positions or a boolean mask), e.g. for splits."""
        index = np.asarray(items)
        if index.dtype == bool:
            if index.shape != (self.n_items,):
                raise ValueError(
                    f"items as a boolean mask must have shape ({self.n_items},); saw {index.shape}"
                )
        elif not np.issubdtype(index.dtype, np.integer) or index.ndim != 1:
            raise TypeError(
                f"items must be a 1-D array of integer positions or a boolean mask; saw dtype {index.dtype}"
            )
        elif index.size and (index.min() < -self.n_items or index.max() >= self.n_items):
            raise ValueError(
                f"items must be positions in [0, {self.n_items}); saw values from {index.min()} to {index.max()}"
            )
        return AnnotatedScores(
            scores=self.scores[index],
            annotations=self.annotations[index],
            groups=None if self.groups is None else self.groups[index],
            annotator_names=self.annotator_names,
        )

    @classmethod
    def from_frame(
        cls, frame, score: str, annotators: Sequence[str], groups: str | None = None
    ) -> AnnotatedScores:
        """Build from a wide table: one score column and one column per annotator.

        Parameters
        ----------
        frame : pandas.DataFrame
            One row per item.  Annotator columns hold 0/1 (integers, floats, booleans or
            nullable integers); NaN or ``pd.NA`` marks a missing response.
        score : str
            Name of the score column.
        annotators : sequence of str
            Names of the annotator columns; they become ``annotator_names``.
        groups : str, optional
            Name of a column of score-group ids.

        Examples
        --------
        >>> import pandas as pd
        >>> table = pd.DataFrame({"p": [0.1, 0.8], "ann": [0, 1], "bob": [None, 1]})
        >>> AnnotatedScores.from_frame(table, score="p", annotators=["ann", "bob"]).annotations.tolist()
        [[0, -1], [1, 1]]
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame; saw {type(frame).__name__}")
        if (
            isinstance(annotators, str)
            or not isinstance(annotators, Sequence)
            or len(annotators) == 0
        ):
            raise ValueError(
                f"annotators must be a non-empty list of column names; saw {annotators!r}"
            )
        wanted = [score, *annotators] + ([groups] if groups is not None else [])
        missing = [name for name in wanted if name not in frame.columns]
        if missing:
            raise ValueError(
                f"frame has no column(s) {missing}; its columns are {list(frame.columns)}"
            )
        if len(set(annotators)) != len(annotators):
            raise ValueError(f"annotators must not repeat a column; saw {list(annotators)}")
        columns = [
            _annotation_column(frame[name], f"annotator column {name!r}") for name in annotators
        ]
        return cls(
            scores=_numeric_column(frame[score], f"score column {score!r}"),
            annotations=np.column_stack(columns),
            groups=None
            if groups is None
            else _numeric_column(frame[groups], f"groups column {groups!r}"),
            annotator_names=[str(name) for name in annotators],
        )

    @classmethod
    def from_long(
        cls,
        labels,
        scores,
        item: str = "item",
        annotator: str = "annotator",
        label: str = "label",
        score: str = "score",
        groups: str | None = None,
    ) -> AnnotatedScores:
        """Build from a long label table joined with a score table.

        Parameters
        ----------
        labels : pandas.DataFrame
            One row per (item, annotator) response, with columns ``item``, ``annotator`` and
            ``label`` (0/1).  A NaN label, or an absent row, is a missing response.  Each
            (item, annotator) pair may appear at most once.
        scores : pandas.DataFrame
            One row per item, with columns ``item`` and ``score`` (and ``groups`` if given).
            Its row order is the item order of the result.  Items without any label are kept
            with an all-missing row; a label whose item has no score is an error.
        item, annotator, label, score, groups : str
            Column names.  Annotators are ordered by sorted name.
        """
        import pandas as pd

        for name, frame in (("labels", labels), ("scores", scores)):
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(f"{name} must be a pandas DataFrame; saw {type(frame).__name__}")
        for name, frame, needed in (
            ("labels", labels, [item, annotator, label]),
            ("scores", scores, [item, score] + ([groups] if groups is not None else [])),
        ):
            absent = [column for column in needed if column not in frame.columns]
            if absent:
                raise ValueError(
                    f"{name} has no column(s) {absent}; its columns are {list(frame.columns)}"
                )
        item_index = pd.Index(scores[item])
        if not item_index.is_unique:
            duplicated = item_index[item_index.duplicated()][0]
            raise ValueError(
                f"scores must list each item once; item {duplicated!r} appears more than once"
            )
        responses = labels.loc[labels[label].notna(), [item, annotator, label]]
        pairs = responses.duplicated(subset=[item, annotator])
        if pairs.any():
            first = responses.loc[pairs].iloc[0]
            raise ValueError(
                f"labels must hold at most one label per (item, annotator); "
                f"item {first[item]!r} has several from annotator {first[annotator]!r}"
            )
        rows = item_index.get_indexer(responses[item])
        if (rows < 0).any():
            unknown = responses[item].to_numpy()[rows < 0][0]
            raise ValueError(f"labels mention item {unknown!r}, which has no row in scores")
        names = sorted(pd.unique(responses[annotator]), key=str)
        if not names:
            raise ValueError("labels must contain at least one non-missing label")
        columns = pd.Index(names).get_indexer(responses[annotator])
        values = _annotation_column(responses[label], f"label column {label!r}")
        annotations = np.full((len(item_index), len(names)), v.MISSING, dtype=np.int8)
        annotations[rows, columns] = values
        return cls(
            scores=_numeric_column(scores[score], f"score column {score!r}"),
            annotations=annotations,
            groups=None
            if groups is None
            else _numeric_column(scores[groups], f"groups column {groups!r}"),
            annotator_names=[str(name) for name in names],
        )


#: Largest code space counted with ``bincount`` instead of a sort (a few MB of counters).
_BINCOUNT_CODES = 1 << 22


def count_rows(groups: np.ndarray, annotations: np.ndarray, return_inverse: bool = False):
    """Distinct rows of ``[group, annotations]`` in sorted order, with their counts (and, if
    asked, the row of each item).

    A row is coded as ``group * 3^K + sum_j (A_j + 1) 3^(K-1-j)``, so the order of the codes is
    the lexicographic order of the rows.  Beyond int64 (about K > 38) the rows are sorted as is.
    """
    n_annotators = annotations.shape[1]
    code_space = (int(groups.max()) + 1) * 3**n_annotators
    if code_space >= 2**63:
        rows, inverse, counts = np.unique(
            np.column_stack([groups, annotations.astype(np.int64)]),
            axis=0,
            return_inverse=True,
            return_counts=True,
        )
        return (rows, counts, inverse.ravel()) if return_inverse else (rows, counts)
    codes = groups.astype(np.int64)  # a fresh array, updated in place below
    for column in annotations.T:
        codes *= 3
        codes += column
        codes += 1
    if code_space <= _BINCOUNT_CODES:
        tally = np.bincount(codes, minlength=code_space)
        present = np.flatnonzero(tally)
        counts = tally[present]
    else:
        present, counts = np.unique(codes, return_counts=True)
    rows = decode_rows(present, n_annotators)
    return (rows, counts, np.searchsorted(present, codes)) if return_inverse else (rows, counts)


def decode_rows(codes: np.ndarray, n_annotators: int) -> np.ndarray:
    """Rows ``[group, A_1, ..., A_K]`` (int64) of codes ``group * 3^K + sum_j (A_j + 1) 3^(K-j)``."""
    rows = np.empty((codes.size, n_annotators + 1), dtype=np.int64)
    rest = np.asarray(codes, dtype=np.int64)
    for j in range(n_annotators, 0, -1):
        rest, digit = np.divmod(rest, 3)
        rows[:, j] = digit - 1
    rows[:, 0] = rest
    return rows


def _numeric_column(series, name: str) -> np.ndarray:
    try:
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold numbers; saw dtype {series.dtype} ({exc})") from exc


def _annotation_column(series, description: str) -> np.ndarray:
    """0/1 labels of a table column as int8, NaN -> -1 (missing)."""
    values = _numeric_column(series, description)
    missing = np.isnan(values)
    bad = ~missing & ~np.isin(values, (0.0, 1.0))
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{description} must contain only 0, 1 or NaN (missing); saw {values[position].item()!r} at row {position}"
        )
    return np.where(missing, v.MISSING, values).astype(np.int8)
