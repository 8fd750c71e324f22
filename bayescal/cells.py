"""Sufficient statistics of annotated scores, computed in one pass, partition by partition.

Everything bayescal computes from a table is a sum over items: the channel models need the
(score group, response pattern) counts, and NC-ECE needs, per equal-width evaluation bin and
response pattern, the number of items and the sum of their scores (paper Eq. 7: the corrected
label of an item depends on its pattern only, so ``r_l = (1/n) sum_cells (n_c U_c - sum_c z)``).
Grouping items into *cells* of equal (score group, evaluation bin, pattern) therefore loses
nothing, and the cells of a table are the sums of the cells of its parts.  So a table larger
than memory (a Dask DataFrame, e.g. ``dask.dataframe.read_parquet`` of a directory) is reduced
partition by partition to a few hundred rows, and the fits run on those:

    cells = cell_statistics_from_frame(ddf, score="p", annotators=["ann", "bob", "cy"], groups=5)
    fit = grouped_em_counts(cells.pattern_counts())
    noise_corrected_ece_from_cells(cells, fit.channels).ece
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validation as v
from .data import AnnotatedScores, PatternCounts, count_rows
from .metrics import assign_bins

__all__ = [
    "CellStatistics",
    "cell_statistics",
    "cell_statistics_from_frame",
]

_SUMS = ("counts", "score_sums", "score_squares")


@dataclass(frozen=True, eq=False)
class CellStatistics:
    """Items grouped by (score group, equal-width evaluation bin, response pattern).

    Attributes
    ----------
    groups, bins : ndarray of int, shape (C,)
    patterns : ndarray of int8, shape (C, K)
        0/1 responses, -1 for missing.
    counts : ndarray of int, shape (C,)
    score_sums, score_squares : ndarray, shape (C,)
        Sum of the scores and of their squares over each cell's items.
    n_bins : int
    annotator_names : tuple of str
    """

    groups: np.ndarray
    bins: np.ndarray
    patterns: np.ndarray
    counts: np.ndarray
    score_sums: np.ndarray
    score_squares: np.ndarray
    n_bins: int
    annotator_names: tuple

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    def pattern_counts(self) -> PatternCounts:
        """The (group, pattern) counts every channel estimator and model runs on."""
        rows, inverse = np.unique(
            np.column_stack([self.groups, self.patterns]), axis=0, return_inverse=True
        )
        counts = np.bincount(inverse.ravel(), weights=self.counts).astype(np.int64)
        return PatternCounts(rows[:, 0], rows[:, 1:].astype(np.int8), counts, self.annotator_names)

    @classmethod
    def combine(cls, parts) -> CellStatistics:
        """The statistics of the union of disjoint parts with the same annotators and bins."""
        parts = list(parts)
        if not parts:
            raise ValueError("parts must hold at least one CellStatistics; saw none")
        first = parts[0]
        for part in parts[1:]:
            if part.annotator_names != first.annotator_names or part.n_bins != first.n_bins:
                raise ValueError("parts must share annotators and n_bins to be combined")
        keys = np.column_stack(
            [
                np.concatenate([p.groups for p in parts]),
                np.concatenate([p.bins for p in parts]),
                np.concatenate([p.patterns for p in parts]),
            ]
        )
        rows, inverse = np.unique(keys, axis=0, return_inverse=True)
        sums = {
            name: np.bincount(
                inverse.ravel(), weights=np.concatenate([getattr(p, name) for p in parts])
            )
            for name in _SUMS
        }
        return cls(
            rows[:, 0],
            rows[:, 1],
            rows[:, 2:].astype(np.int8),
            sums["counts"].astype(np.int64),
            sums["score_sums"],
            sums["score_squares"],
            first.n_bins,
            first.annotator_names,
        )


def cell_statistics(data, n_bins=15) -> CellStatistics:
    """The cells of an in-memory :class:`~bayescal.AnnotatedScores` (``data.groups`` or one group)."""
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    bins = v.as_int(n_bins, "n_bins", minimum=1)
    bin_index = assign_bins(data.scores, bins, "uniform")[0]
    groups = np.zeros(data.n_items, dtype=np.int64) if data.groups is None else data.groups
    rows, counts, inverse = count_rows(
        groups * bins + bin_index, data.annotations, return_inverse=True
    )
    group, bin_of_row = np.divmod(rows[:, 0], bins)
    return CellStatistics(
        group,
        bin_of_row,
        rows[:, 1:].astype(np.int8),
        counts.astype(np.int64),
        np.bincount(inverse, weights=data.scores, minlength=counts.size),
        np.bincount(inverse, weights=data.scores**2, minlength=counts.size),
        bins,
        data.annotator_names,
    )


def _partition_table(frame, score, annotators, groups, n_bins):
    """The cells of one pandas partition, as a DataFrame (what Dask concatenates)."""
    import pandas as pd

    group_column = groups if isinstance(groups, str) else None
    data = AnnotatedScores.from_frame(
        frame, score=score, annotators=annotators, groups=group_column
    )
    if isinstance(groups, int) and not isinstance(groups, bool) and data.n_items:
        data = AnnotatedScores(
            data.scores,
            data.annotations,
            # equal-width score groups, as bayescal.score_groups(scores, n_groups=groups)
            groups=assign_bins(data.scores, groups, "uniform")[0],
            annotator_names=data.annotator_names,
        )
    cells = cell_statistics(data, n_bins)
    table = pd.DataFrame({"group": cells.groups, "bin": cells.bins})
    for j in range(len(annotators)):
        table[f"pattern_{j}"] = cells.patterns[:, j].astype(np.int64)
    for name in _SUMS:
        table[name] = getattr(cells, name)
    return table


def _from_table(table, annotators, n_bins) -> CellStatistics:
    patterns = table[[f"pattern_{j}" for j in range(len(annotators))]].to_numpy().astype(np.int8)
    part = CellStatistics(
        table["group"].to_numpy(np.int64),
        table["bin"].to_numpy(np.int64),
        patterns,
        table["counts"].to_numpy(np.int64),
        table["score_sums"].to_numpy(float),
        table["score_squares"].to_numpy(float),
        n_bins,
        tuple(annotators),
    )
    return CellStatistics.combine([part])


def cell_statistics_from_frame(frame, score, annotators, groups=None, n_bins=15) -> CellStatistics:
    """The cells of a wide table, in memory (pandas) or partition by partition (Dask).

    Parameters
    ----------
    frame : pandas.DataFrame or dask.dataframe.DataFrame
        One row per item: a score column and one column per annotator (0/1, NaN = missing),
        read as :meth:`bayescal.AnnotatedScores.from_frame` reads it, partition by partition.
    score : str
    annotators : sequence of str
    groups : None, str or int, optional
        No score groups; a column of group ids; or a number of equal-width score groups
        (computed per partition, which gives the same groups as on the whole table).
    n_bins : int, default 15
        Equal-width evaluation bins.

    Returns
    -------
    CellStatistics
        Identical to :func:`cell_statistics` of the whole table in memory.
    """
    bins = v.as_int(n_bins, "n_bins", minimum=1)
    if isinstance(annotators, str) or not hasattr(annotators, "__iter__"):
        raise TypeError(f"annotators must be a sequence of column names; saw {annotators!r}")
    annotators = list(annotators)
    if groups is not None and not isinstance(groups, str):
        groups = v.as_int(groups, "groups", minimum=1)
    if type(frame).__module__.split(".")[0] == "dask":
        import pandas as pd

        meta = pd.DataFrame(
            {
                "group": pd.Series(dtype="int64"),
                "bin": pd.Series(dtype="int64"),
                **{f"pattern_{j}": pd.Series(dtype="int64") for j in range(len(annotators))},
                "counts": pd.Series(dtype="int64"),
                "score_sums": pd.Series(dtype="float64"),
                "score_squares": pd.Series(dtype="float64"),
            }
        )
        table = frame.map_partitions(
            _partition_table, score, annotators, groups, bins, meta=meta
        ).compute()
        return _from_table(table, annotators, bins)
    return _from_table(_partition_table(frame, score, annotators, groups, bins), annotators, bins)
