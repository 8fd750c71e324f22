"""The one container of sufficient statistics: items grouped into cells.

Everything bayescal computes from a table is a sum over items.  The channel models need the
(score group, response pattern) counts; every ECE whose target depends on the response pattern
alone (NC-ECE, soft and majority votes: paper Eq. 7) needs, per evaluation bin and pattern, the
number of items and the sum of their scores, ``r_l = (1/n) sum_{cells in l} (n_c t_c - sum_c z)``;
the posterior's Bayesian bootstrap also needs the sum of squared scores of each cell.  Grouping
items into *cells* of equal (score group, evaluation bin, response pattern) therefore loses
nothing, and the cells of a table are the sums of the cells of its parts, so a table larger than
memory (a Dask DataFrame, e.g. ``dask.dataframe.read_parquet`` of a directory) reduces partition
by partition to a few hundred rows:

    cells = cell_statistics_from_frame(ddf, score="p", annotators=["ann", "bob", "cy"], groups=5)
    fit = bayescal.grouped_em(cells)
    bayescal.noise_corrected_ece(cells, fit.channels)

:meth:`bayescal.AnnotatedScores.cells` and :meth:`~bayescal.AnnotatedScores.compress` build the
cells of data in memory.  Methods that need targets (corrected labels, votes) take them as an
array with one entry per cell: the container knows no channels.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, fingerprint
from ..metrics.calibration import BinnedMoments, ReliabilityCurve, assign_bins
from ..metrics.kernels import MAX_ANNOTATORS, MAX_PATTERN_CELLS, THREADED_FROM, bin_pattern_cells
from .responses import name_order

__all__ = ["CellStatistics", "PatternIndex", "ScoreMoments", "cell_statistics_from_frame"]

#: The per-cell sums, added when cells are merged.
SUMS = ("counts", "score_sums", "score_squares")


class ScoreMoments(NamedTuple):
    """Mean and population standard deviation of the scores of each cell."""

    mean: np.ndarray
    sd: np.ndarray


class PatternIndex(NamedTuple):
    """The distinct response patterns and the pattern of each cell."""

    patterns: np.ndarray
    index: np.ndarray


@dataclass(frozen=True, eq=False)
class CellStatistics:
    """Items grouped into cells of equal (score group, evaluation bin, response pattern).

    Attributes
    ----------
    groups, bins : ndarray of int, shape (C,)
        Score-group id (0 without groups) and evaluation bin of each cell.
    patterns : ndarray of int8, shape (C, K)
        0/1 responses, -1 for missing.
    counts : ndarray of int, shape (C,)
    score_sums, score_squares : ndarray, shape (C,)
        Sum of the scores and of their squares over each cell's items.
    bin_score_sums : ndarray, shape (M,)
        Sum of the scores of each bin, added item by item (not from the cells).  On the
        compiled route of :func:`tabulate` (equal-width bins, no groups, up to 10 annotators)
        they are added in the order the clean-label ECE adds them, so that NC-ECE with perfect
        channels equals the clean ECE to the last bit; elsewhere they agree to rounding.
    edges : ndarray, shape (M + 1,)
        Evaluation bin edges (``[0, 1]`` for the one bin of :meth:`by_pattern`).
    annotator_names : tuple of str
    gold : ndarray of int8, shape (C,), or None
        The human-verified label of each cell's items (``-1`` where they have none): part of a
        cell's key, so a cell's items share it.  ``None`` when the data hold no gold.

    Cells are sorted by group, bin, then pattern (lexicographically, -1 first), then gold; a
    cell with no item is never listed.
    """

    groups: np.ndarray
    bins: np.ndarray
    patterns: np.ndarray
    counts: np.ndarray
    score_sums: np.ndarray
    score_squares: np.ndarray
    bin_score_sums: np.ndarray
    edges: np.ndarray
    annotator_names: tuple[str, ...]
    gold: np.ndarray | None = None

    @property
    def has_gold(self) -> bool:
        """Whether some item has a gold label."""
        return self.gold is not None and bool((self.gold != v.MISSING).any())

    @property
    def gold_counts(self) -> tuple[int, int]:
        """Items with gold label 0 and with gold label 1."""
        if self.gold is None:
            return 0, 0
        return tuple(int(self.counts[self.gold == label].sum()) for label in (0, 1))

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_cells(self) -> int:
        return int(self.counts.size)

    @functools.cached_property
    def fingerprint(self) -> str:
        """``"cells:<sha256>"`` of the pattern counts and score sums over all groups and bins,
        and the names: equal for the same data, whichever grouping an estimator pooled them
        to, and different for other items (:func:`bayescal._api.fingerprint`).  The sums are
        rounded to 1e-6: pooling in another order changes their last bits.  Computed once
        (the cells are never changed): every start of an EM fit records it."""
        pooled = self.pooled()
        gold = () if pooled.gold is None else (pooled.gold,)
        return fingerprint(
            "cells",
            self.annotator_names,
            pooled.patterns,
            pooled.counts,
            np.round(pooled.score_sums, 6),
            *gold,
        )

    @property
    def n_bins(self) -> int:
        return int(self.edges.size - 1)

    @property
    def n_annotators(self) -> int:
        return int(self.patterns.shape[1])

    @property
    def bin_counts(self) -> np.ndarray:
        """Items per evaluation bin, shape (M,)."""
        return np.bincount(self.bins, weights=self.counts, minlength=self.n_bins).astype(np.int64)

    def __repr__(self) -> str:
        return (
            f"CellStatistics({self.n_items} items in {self.n_cells} cells: "
            f"{np.unique(self.groups).size} group(s) x {self.n_bins} bin(s) x response patterns "
            f"of {list(self.annotator_names)})"
        )

    def moments(self, targets) -> BinnedMoments:
        """Calibration moments of per-cell targets (C,): ``r_l = (1/n) sum_c (n_c t_c) - (1/n) sum_{i in l} z_i``."""
        n = self.n_items
        target_sums = np.bincount(self.bins, weights=self.counts * targets, minlength=self.n_bins)
        return BinnedMoments(
            self.edges, self.bin_counts, (target_sums - self.bin_score_sums) / n, n
        )

    def curve(self, targets) -> ReliabilityCurve:
        """Reliability curve of per-cell targets (C,): mean score and mean target per bin
        (NaN for an empty bin)."""
        items = self.bin_counts
        target_sums = np.bincount(self.bins, weights=self.counts * targets, minlength=self.n_bins)
        with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 -> NaN marks empty bins
            return ReliabilityCurve(
                self.edges, items, self.bin_score_sums / items, target_sums / items
            )

    def score_moments(self) -> ScoreMoments:
        """Mean and population standard deviation of the scores of each cell, shape (C,)."""
        mean = self.score_sums / self.counts
        return ScoreMoments(
            mean, np.sqrt(np.maximum(self.score_squares / self.counts - mean**2, 0.0))
        )

    def unique_patterns(self) -> PatternIndex:
        """The distinct response patterns (P, K) and the pattern of each cell (C,): a target of
        the pattern alone is computed once per pattern and spread with ``targets[index]``."""
        patterns, index = np.unique(self.patterns, axis=0, return_inverse=True)
        return PatternIndex(patterns, index.ravel())

    def by_pattern(self) -> CellStatistics:
        """Cells of (score group, pattern), over one bin: what channel models run on."""
        if self.n_bins == 1:
            return self
        return self._merged(self.groups, np.zeros_like(self.bins), np.array([0.0, 1.0]))

    def pooled(self) -> CellStatistics:
        """Cells of the pattern alone: one group, one bin (the marginal model's data)."""
        return self._merged(
            np.zeros_like(self.groups), np.zeros_like(self.bins), np.array([0.0, 1.0])
        )

    def regrouped(self, group_of: dict) -> CellStatistics:
        """Cells over one bin with each group id ``g`` replaced by ``group_of[g]``."""
        groups = np.array([group_of[int(g)] for g in self.groups], dtype=np.int64)
        return self._merged(groups, np.zeros_like(self.bins), np.array([0.0, 1.0]))

    def in_draw_order(self) -> CellStatistics:
        """These cells sorted by group, bin, then pattern read with the annotators in name
        order (:func:`~bayescal.data.responses.name_order`), then gold: a random stream drawn
        cell by cell (the Bayesian bootstrap of :func:`bayescal.nc_ece_posterior`) then gives
        the same numbers whatever the order of the annotator columns."""
        gold = () if self.gold is None else (self.gold,)
        pattern_keys = [self.patterns[:, j] for j in name_order(self.annotator_names)[::-1]]
        order = np.lexsort([*gold, *pattern_keys, self.bins, self.groups])
        return dataclasses.replace(
            self,
            **{
                name: getattr(self, name)[order]
                for name in ("groups", "bins", "patterns", *SUMS, *(("gold",) if gold else ()))
            },
        )

    def _merged(self, groups, bins, edges) -> CellStatistics:
        gold = () if self.gold is None else (self.gold,)
        keys = np.column_stack([groups, bins, self.patterns, *gold])
        rows, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        sums = {name: np.bincount(inverse, weights=getattr(self, name)) for name in SUMS}
        bin_sums = np.bincount(bins, weights=self.score_sums, minlength=edges.size - 1)
        if edges.size - 1 == self.n_bins:
            bin_sums = self.bin_score_sums
        return CellStatistics(
            rows[:, 0],
            rows[:, 1],
            rows[:, 2 : 2 + self.n_annotators].astype(np.int8),
            sums["counts"].astype(np.int64),
            sums["score_sums"],
            sums["score_squares"],
            bin_sums,
            edges,
            self.annotator_names,
            None if self.gold is None else rows[:, -1].astype(np.int8),
        )

    @classmethod
    def combine(cls, parts) -> CellStatistics:
        """The statistics of the union of disjoint parts with the same annotators and bins."""
        parts = list(parts)
        if not parts:
            raise ValueError("parts must hold at least one CellStatistics; saw none")
        first = parts[0]
        for part in parts[1:]:
            if part.annotator_names != first.annotator_names or not np.array_equal(
                part.edges, first.edges
            ):
                raise ValueError("parts must share annotators and bin edges to be combined")
        if len({part.gold is None for part in parts}) > 1:
            raise ValueError(
                "parts must all have a gold column or all have none to be combined; saw both"
            )
        stacked = CellStatistics(
            *(np.concatenate([getattr(p, name) for p in parts]) for name in ("groups", "bins")),
            np.concatenate([p.patterns for p in parts]),
            *(np.concatenate([getattr(p, name) for p in parts]) for name in SUMS),
            sum(p.bin_score_sums for p in parts),
            first.edges,
            first.annotator_names,
            None if first.gold is None else np.concatenate([p.gold for p in parts]),
        )
        return stacked._merged(stacked.groups, stacked.bins, first.edges)


#: Largest code space counted with ``bincount`` instead of a sort (a few MB of counters).
_BINCOUNT_CODES = 1 << 22


def tabulate(
    scores, annotations, annotator_names, *, n_bins, groups=None, strategy="uniform", gold=None
) -> CellStatistics:
    """The cells of validated items: scores (n,) in [0, 1], annotations (n, K) of 0, 1 and
    -1, optional group ids (n,) and gold labels (n,) of 0, 1 and -1.

    The gold label is counted as one more column of the pattern (the same codes, the same
    compiled pass) and then split off into :attr:`CellStatistics.gold`.

    Equal-width bins without groups, with up to :data:`bayescal.metrics.kernels.MAX_ANNOTATORS`
    annotators and at most :data:`bayescal.metrics.kernels.MAX_PATTERN_CELLS` (bin, pattern) cells
    take one compiled pass over the items; otherwise the rows are coded and counted with NumPy
    (:func:`count_rows`).  So do the pattern counts of a fit (one bin) on fewer than
    :data:`bayescal.metrics.kernels.THREADED_FROM` items: NumPy takes under 40 ms there, and a process
    that only fits then never starts Numba (about half a second).
    """
    if gold is not None:
        cells = tabulate(
            scores,
            np.column_stack([annotations, gold]),
            (*annotator_names, "gold"),
            n_bins=n_bins,
            groups=groups,
            strategy=strategy,
        )
        return CellStatistics(
            *(getattr(cells, name) for name in ("groups", "bins")),
            cells.patterns[:, :-1],
            *(getattr(cells, name) for name in SUMS),
            cells.bin_score_sums,
            cells.edges,
            tuple(annotator_names),
            cells.patterns[:, -1].copy(),
        )
    n_annotators = annotations.shape[1]
    if (
        strategy == "uniform"
        and groups is None
        and n_annotators <= MAX_ANNOTATORS
        and (n_bins + 1) * 3**n_annotators <= MAX_PATTERN_CELLS
        and (n_bins > 1 or scores.size >= THREADED_FROM)
    ):
        cells = bin_pattern_cells(scores, annotations, n_bins)
        if cells is None:
            raise ValueError(
                "tabulate takes validated items (scores in [0, 1], annotations of 0, 1 and -1); "
                "build a bayescal.AnnotatedScores, which names what is wrong"
            )
        counts, sums, squares, bin_sums = cells
        bins, codes = np.nonzero(counts)
        patterns = decode_rows(codes, n_annotators)[:, 1:].astype(np.int8)
        return CellStatistics(
            np.zeros(bins.size, dtype=np.int64),
            bins.astype(np.int64),
            patterns,
            counts[bins, codes],
            sums[bins, codes],
            squares[bins, codes],
            bin_sums,
            np.linspace(0.0, 1.0, n_bins + 1),
            tuple(annotator_names),
        )
    index, edges = assign_bins(scores, n_bins, strategy)
    group = np.zeros(scores.size, dtype=np.int64) if groups is None else groups
    rows, counts, inverse = count_rows(group * n_bins + index, annotations, return_inverse=True)
    group_of_row, bin_of_row = np.divmod(rows[:, 0], n_bins)
    return CellStatistics(
        group_of_row,
        bin_of_row,
        rows[:, 1:].astype(np.int8),
        counts.astype(np.int64),
        np.bincount(inverse, weights=scores, minlength=counts.size),
        np.bincount(inverse, weights=scores**2, minlength=counts.size),
        np.bincount(index, weights=scores, minlength=n_bins),
        edges,
        tuple(annotator_names),
    )


def count_rows(groups: np.ndarray, annotations: np.ndarray, *, return_inverse: bool = False):
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


def _partition_table(frame, score, annotators, groups, n_bins):
    """The cells of one pandas partition, as a DataFrame (what Dask concatenates)."""
    if len(frame) == 0:  # a partition can be empty, e.g. after a filter
        return _empty_table(len(annotators))
    scores = v.as_scores(v.numeric_column(frame[score], f"score column {score!r}"))
    columns = [
        v.annotation_column(frame[name], f"annotator column {name!r}") for name in annotators
    ]
    if isinstance(groups, str):
        group_ids = v.as_group_ids(
            v.numeric_column(frame[groups], f"groups column {groups!r}"), scores.size
        )
    elif groups is not None:
        # equal-width score groups, as bayescal.channels.score_groups(scores, n_groups=groups)
        group_ids = assign_bins(scores, groups, "uniform")[0]
    else:
        group_ids = None
    cells = tabulate(scores, np.column_stack(columns), annotators, groups=group_ids, n_bins=n_bins)
    columns = {"group": cells.groups, "bin": cells.bins}
    for j in range(len(annotators)):
        columns[f"pattern_{j}"] = cells.patterns[:, j].astype(np.int64)
    for name in SUMS:
        columns[name] = getattr(cells, name)
    return _empty_table(len(annotators)).assign(**columns)


def _empty_table(n_annotators: int):
    """The columns and dtypes of a partition's cell table, without rows (also Dask's meta)."""
    import pandas as pd

    columns = ["group", "bin", *(f"pattern_{j}" for j in range(n_annotators)), "counts"]
    return pd.DataFrame(
        {
            **{name: pd.Series(dtype="int64") for name in columns},
            "score_sums": pd.Series(dtype="float64"),
            "score_squares": pd.Series(dtype="float64"),
        }
    )


def _from_table(table, annotators, n_bins) -> CellStatistics:
    """The cells of the concatenated partition tables; the per-bin score sums are the sums of
    the cells' (the item order of a table split into partitions is not kept)."""
    bins = table["bin"].to_numpy(np.int64)
    score_sums = table["score_sums"].to_numpy(float)
    stacked = CellStatistics(
        table["group"].to_numpy(np.int64),
        bins,
        table[[f"pattern_{j}" for j in range(len(annotators))]].to_numpy().astype(np.int8),
        table["counts"].to_numpy(np.int64),
        score_sums,
        table["score_squares"].to_numpy(float),
        np.bincount(bins, weights=score_sums, minlength=n_bins),
        np.linspace(0.0, 1.0, n_bins + 1),
        tuple(annotators),
    )
    return CellStatistics.combine([stacked])


def cell_statistics_from_frame(
    frame, *, score, annotators, groups=None, n_bins=DEFAULT_N_BINS
) -> CellStatistics:
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
    n_bins : int, default 10
        Equal-width evaluation bins.

    Returns
    -------
    CellStatistics
        The cells of :meth:`bayescal.AnnotatedScores.cells` of the whole table in memory (the
        per-bin score sums equal up to rounding).
    """
    bins = v.as_int(n_bins, "n_bins", minimum=1)
    if isinstance(annotators, str) or not hasattr(annotators, "__iter__"):
        raise TypeError(f"annotators must be a sequence of column names; saw {annotators!r}")
    annotators = [str(name) for name in annotators]
    wanted = [score, *annotators, *([groups] if isinstance(groups, str) else [])]
    absent = [name for name in wanted if name not in frame.columns]
    if absent:
        raise ValueError(f"frame has no column(s) {absent}; its columns are {list(frame.columns)}")
    if groups is not None and not isinstance(groups, str):
        groups = v.as_int(groups, "groups", minimum=1)
    if type(frame).__module__.split(".")[0] == "dask":
        table = frame.map_partitions(
            _partition_table, score, annotators, groups, bins, meta=_empty_table(len(annotators))
        ).compute()
        if len(table) == 0:
            raise ValueError("frame has no rows (every partition is empty)")
        return _from_table(table, annotators, bins)
    return _from_table(_partition_table(frame, score, annotators, groups, bins), annotators, bins)
