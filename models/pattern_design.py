"""The pattern counts a latent class program reads: rows of (score group, response pattern)
with their counts, and the model structure the rows are read under.

One :class:`PatternDesign` serves the compiled sampler (its layout and padded arrays), the
log-likelihood of posterior draws in NumPy (:meth:`PatternDesign.row_log_likelihood`), a
stored fit's ``constant_data`` and the prior-predictive simulation of counts (a *complete*
design).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from bayescal.channels.dependence import mask_combinations
from bayescal.channels.difficulty import draws_per_pass
from bayescal.channels.pattern_likelihood import pattern_log_prob
from bayescal.data.cells import CellStatistics

__all__ = ["MAX_COMPLETE_ANNOTATORS", "MAX_COMPLETE_ROWS", "PatternDesign", "check_complete_layout"]

#: The complete pattern layout lists every response combination of each (group, missingness
#: mask) cell of the data: 2^m rows for a mask of m annotators.  It is built when no item has
#: more than this many labels (any number of annotators: a crowd labels each item sparsely) ...
MAX_COMPLETE_ANNOTATORS = 12
#: ... and the layout has at most this many rows.
MAX_COMPLETE_ROWS = 1 << 20


@dataclass(frozen=True, eq=False)
class PatternDesign:
    """Rows of (group, response pattern) the likelihood sums over, with their counts.

    ``positive``/``negative`` are (P, K) indicators of a 1 / 0 response (both 0 where missing),
    ``group_index`` maps rows to groups ``0 .. n_groups - 1``.  With gold items ``gold`` (P,)
    holds each row's gold label (-1 for none): the rows of gold items are kept apart from the
    others' (their class is known), and the gold fixes the orientation, so no draw is folded
    (:mod:`bayescal.models.orientation`).  A *complete* design also lists,
    for every (group, missingness mask) cell of the data, every response combination the mask
    allows, with count 0 where none was seen; it has fixed shapes for a given cell layout (one
    compiled sampler serves many data sets) and supports prior-predictive sampling of counts.
    """

    positive: np.ndarray
    negative: np.ndarray
    group_index: np.ndarray
    group_ids: np.ndarray
    counts: np.ndarray
    cell_rows: np.ndarray | None = None  # (C, R) row indices of each cell, -1 padded
    cell_sizes: np.ndarray | None = None  # (C,) items per cell
    #: (D, 2) columns of the dependent pairs (bayescal.channels.dependence); (0, 2) for none
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    #: A class proportion per score group (the rows keep their groups)
    grouped: bool = False
    #: The shared-difficulty model's likelihood (bayescal.channels.difficulty)
    difficulty: bool = False
    #: A channel per score group and annotator (the grouped model with group channels)
    channels_by_group: bool = False
    #: (P,) each row's gold label, -1 for none; None for data without gold items
    gold: np.ndarray | None = None

    @property
    def n_groups(self) -> int:
        return int(self.group_ids.size)

    @property
    def n_annotators(self) -> int:
        return int(self.positive.shape[1])

    @property
    def n_pairs(self) -> int:
        return int(self.pairs.shape[0])

    @classmethod
    def from_counts(
        cls,
        pattern_counts: CellStatistics,
        grouped: bool,
        complete: bool = False,
        pairs=None,
        difficulty: bool = False,
        channels_by_group: bool = False,
    ) -> PatternDesign:
        """The design of ``pattern_counts``; ``grouped``: a class proportion per score group
        (otherwise the groups are pooled); ``pairs`` (D, 2): the dependent pairs' columns;
        ``difficulty``: the shared-difficulty model's likelihood; ``channels_by_group``: a
        channel per score group and annotator."""
        groups = pattern_counts.groups if grouped else np.zeros_like(pattern_counts.groups)
        patterns = pattern_counts.patterns.astype(np.int64)
        group_ids, group_index = np.unique(groups, return_inverse=True)
        counts = pattern_counts.counts.astype(np.float64)
        gold = pattern_counts.gold if pattern_counts.has_gold else None
        if not complete:
            design = cls(
                (patterns == 1) * 1.0,
                (patterns == 0) * 1.0,
                group_index,
                group_ids,
                counts,
                gold=None if gold is None else gold.astype(np.float64),
            )
        else:
            design = cls._complete(patterns, group_index, group_ids, counts, gold)
        if pairs is not None:
            design = replace(design, pairs=np.asarray(pairs, np.int64).reshape(-1, 2))
        return replace(
            design, grouped=grouped, difficulty=difficulty, channels_by_group=channels_by_group
        )

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    @property
    def has_gold(self) -> bool:
        return self.gold is not None

    def arrays(self) -> tuple:
        """The arrays the program reads besides the counts (with gold, the rows' gold labels)."""
        gold = (self.gold,) if self.has_gold else ()
        return (self.positive, self.negative, self.group_index, *gold)

    def with_arrays(self, positive, negative, group_index, gold=None) -> PatternDesign:
        return replace(
            self, positive=positive, negative=negative, group_index=group_index, gold=gold
        )

    def padded(self, rows: int) -> PatternDesign:
        """This design with rows of no response and count 0 appended up to ``rows``: they add
        exactly 0 to the log-likelihood."""
        extra = rows - self.counts.size
        return replace(
            self,
            positive=np.pad(self.positive, ((0, extra), (0, 0))),
            negative=np.pad(self.negative, ((0, extra), (0, 0))),
            group_index=np.pad(self.group_index, (0, extra)),
            counts=np.pad(self.counts, (0, extra)),
            gold=None if self.gold is None else np.pad(self.gold, (0, extra), constant_values=-1),
        )

    def layout(self) -> tuple:
        """The shapes (and dependent pairs) compiled code depends on."""
        pairs = tuple(map(tuple, self.pairs.tolist()))
        return (
            (self.n_annotators, self.n_groups)
            + (("grouped",) if self.grouped else ())
            + ((pairs,) if pairs else ())
            + (("difficulty",) if self.difficulty else ())
            + (("channels by group",) if self.channels_by_group else ())
            + (("gold",) if self.has_gold else ())
        )

    # --- what a posterior needs of its data (bayescal.bayes.bayes_fit; numpy on draws) --------------

    def row_log_likelihood(self, a, b, prevalence, covariance=None, loading=None) -> np.ndarray:
        """``log p(row r | draw)`` of draws ``a, b`` (..., K), ``prevalence`` (...) or
        (..., L), the dependent pairs' ``covariance`` (..., D, 2) and the shared difficulty's
        ``loading`` (..., 2): (..., R), :func:`draws_per_pass` draws at a time (the quadrature
        holds draws x nodes x rows)."""
        if loading is not None and a.ndim > 2:  # chain by chain
            arrays = (a, b, prevalence, covariance, loading)
            return np.stack(
                [
                    self.row_log_likelihood(*(None if x is None else x[c] for x in arrays))
                    for c in range(a.shape[0])
                ]
            )
        step = None if loading is None else draws_per_pass(self.counts.size)
        if step is not None and a.ndim == 2 and a.shape[0] > step:
            arrays = (a, b, prevalence, covariance, loading)
            return np.concatenate(
                [
                    self.row_log_likelihood(
                        *(None if x is None else x[s : s + step] for x in arrays)
                    )
                    for s in range(0, a.shape[0], step)
                ]
            )
        grouped = prevalence.ndim == a.ndim
        prevalence_of_row = (
            prevalence[..., self.group_index]
            if grouped
            else np.broadcast_to(prevalence[..., None], prevalence.shape + self.counts.shape)
        )
        return self.log_prob(a, b, prevalence_of_row, covariance, loading, xp=np)

    def log_prob(self, a, b, prevalence_of_row, covariance, loading, xp, interaction=None):
        """``log p(s_r | g_r)`` of every row under this design's model (its dependent pairs,
        shared difficulty or channels per group): what the program and the posterior's
        :meth:`row_log_likelihood` share; ``xp`` is ``jax.numpy`` or ``numpy``.  The program
        gives the ``interaction`` of pairs that close a cycle
        (:func:`~bayescal.channels.pattern_likelihood.interaction_from_share`); the posterior
        reads their covariances."""
        return pattern_log_prob(
            self.channels_of_rows(a),
            self.channels_of_rows(b),
            prevalence_of_row,
            self.positive,
            self.negative,
            xp=xp,
            pairs=self.pairs,
            covariance=covariance,
            loading=loading,
            per_row=self.channels_by_group,
            gold=self.gold,
            interaction=interaction,
        )

    def channels_of_rows(self, rates):
        """With channels per score group, each row's channels (..., P, K) of the rates
        (..., L K), ordered group by group; otherwise the rates as they are."""
        if not self.channels_by_group:
            return rates
        by_group = rates.reshape(*rates.shape[:-1], self.n_groups, self.n_annotators)
        return by_group[..., self.group_index, :]

    def responses(self) -> np.ndarray:
        """The rows as responses: 1, 0, or -1 for missing (int8)."""
        return (self.positive - (1.0 - self.positive - self.negative)).astype(np.int8)

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``
        (with ``dependent_pairs``, the pairs' columns, when there are any)."""
        # with channels per group the fit's annotators are (group, annotator) pairs: the
        # patterns' columns get a dimension of their own
        column = "column" if self.channels_by_group else "annotator"
        variables = {
            "counts": (("pattern",), self.counts),
            "patterns": (("pattern", column), self.responses()),
            "pattern_group": (("pattern",), self.group_ids[self.group_index]),
        }
        if self.n_pairs:
            variables["dependent_pairs"] = (("pair", "member"), self.pairs)
        if self.has_gold:
            variables["pattern_gold"] = (("pattern",), self.gold.astype(np.int8))
        return variables

    @classmethod
    def from_constant_data(cls, variables: dict) -> PatternDesign:
        """The design :meth:`constant_data` describes (``variables``: name -> (dims, array))."""
        patterns = np.asarray(variables["patterns"][1])
        group_ids, group_index = np.unique(variables["pattern_group"][1], return_inverse=True)
        pairs = variables.get("dependent_pairs", (None, np.zeros((0, 2), np.int64)))[1]
        gold = variables.get("pattern_gold")
        return cls(
            (patterns == 1) * 1.0,
            (patterns == 0) * 1.0,
            group_index,
            group_ids,
            np.asarray(variables["counts"][1], np.float64),
            pairs=np.asarray(pairs, np.int64).reshape(-1, 2),
            gold=None if gold is None else np.asarray(gold[1], np.float64),
        )

    def _row_gold(self) -> np.ndarray:
        return np.full(self.counts.size, -1) if self.gold is None else self.gold

    def fitted_counts(self) -> dict:
        """Items per :func:`row_key` of the rows seen, the pattern a tuple of 1, 0 and -1 (a
        complete design, as simulation studies use, also lists patterns never seen: left out)."""
        seen = {}
        # a design that pools score groups (Dawid–Skene on grouped data) repeats a pattern
        # once per group: its items add up
        for g, p, gold, c in zip(
            self.group_ids[self.group_index], self.responses(), self._row_gold(), self.counts
        ):
            if c > 0:
                key = row_key(g, p, gold)
                seen[key] = seen.get(key, 0.0) + float(c)
        return seen

    def counts_of(self, pattern_counts: CellStatistics, grouped: bool | None = None) -> np.ndarray:
        """Counts of another data set on this design's rows (same layout, e.g. a replicate);
        ``grouped`` (default: the design's) keeps the score groups apart."""
        grouped = self.grouped if grouped is None else grouped
        missing = 1.0 - self.positive - self.negative
        layout = {
            row_key(self.group_ids[g], row, gold): r
            for r, (g, row, gold) in enumerate(
                zip(self.group_index, (self.positive - missing).astype(np.int64), self._row_gold())
            )
        }
        counts = np.zeros(self.counts.shape)
        groups = pattern_counts.groups if grouped else np.zeros_like(pattern_counts.groups)
        gold = (
            np.full(pattern_counts.n_cells, -1)
            if pattern_counts.gold is None
            else pattern_counts.gold
        )
        for g, pattern, label, count in zip(
            groups, pattern_counts.patterns.astype(np.int64), gold, pattern_counts.counts
        ):
            key = row_key(g, pattern, label)
            if key not in layout:
                raise ValueError(
                    f"pattern {pattern.tolist()} of group {int(g)} is not a row of this design"
                )
            counts[layout[key]] += count
        return counts

    @classmethod
    def _complete(cls, patterns, group_index, group_ids, counts, gold=None) -> PatternDesign:
        """Every response combination of each (group, gold label, missingness mask) cell."""
        check_complete_layout(patterns, group_index)
        observed = patterns >= 0
        gold_of_row = np.full(len(patterns), -1) if gold is None else gold.astype(np.int64)
        cells, cell_of_row = np.unique(
            np.column_stack([group_index, gold_of_row, observed]), axis=0, return_inverse=True
        )
        rows, row_group, row_gold, cell_rows, lookup = [], [], [], [], {}
        for c, cell in enumerate(cells):
            members = []
            for pattern in mask_combinations(cell[2:].astype(bool)):
                lookup[(c, tuple(pattern))] = len(rows)
                members.append(len(rows))
                rows.append(pattern)
                row_group.append(cell[0])
                row_gold.append(cell[1])
            cell_rows.append(members)
        width = max(len(m) for m in cell_rows)
        padded = np.full((len(cell_rows), width), -1)
        for c, members in enumerate(cell_rows):
            padded[c, : len(members)] = members
        full_counts = np.zeros(len(rows))
        for c, pattern, count in zip(cell_of_row, patterns, counts):
            full_counts[lookup[(c, tuple(pattern))]] += count
        rows = np.array(rows)
        return cls(
            (rows == 1) * 1.0,
            (rows == 0) * 1.0,
            np.array(row_group),
            group_ids,
            full_counts,
            padded,
            np.bincount(cell_of_row, weights=counts, minlength=len(cells)),
            gold=None if gold is None else np.array(row_gold, np.float64),
        )


def row_key(group, pattern, gold=-1) -> tuple:
    """A row's key in :meth:`PatternDesign.fitted_counts`: ``(group, pattern)``, and the gold
    label after them for a row of gold items (so a fit without gold keeps its keys)."""
    key = (int(group), tuple(int(x) for x in pattern))
    return key if gold < 0 else (*key, int(gold))


def check_complete_layout(patterns: np.ndarray, groups=None) -> None:
    """Refuse data whose complete layout (:meth:`PatternDesign.from_counts` with ``complete``)
    would be too large: an item labelled by more than :data:`MAX_COMPLETE_ANNOTATORS`
    annotators, or more than :data:`MAX_COMPLETE_ROWS` rows in all (``groups``: the score
    group of each pattern row, when the layout is grouped)."""
    observed = np.asarray(patterns) >= 0
    most = int(observed.sum(axis=1).max())
    if most > MAX_COMPLETE_ANNOTATORS:
        raise ValueError(
            f"an item has labels from {most} annotators; the model checks list every response "
            f"combination of an item's annotators and are limited to {MAX_COMPLETE_ANNOTATORS}"
        )
    cells = observed if groups is None else np.column_stack([groups, observed])
    rows = sum(2 ** int(cell[-observed.shape[1] :].sum()) for cell in np.unique(cells, axis=0))
    if rows > MAX_COMPLETE_ROWS:
        raise ValueError(
            f"the data's missingness patterns need {rows} rows of response combinations; the "
            f"model checks are limited to {MAX_COMPLETE_ROWS}"
        )
