"""Per-item targets of many channel draws, made a chunk of draws at a time.

Pushing a posterior through NC-ECE (:func:`bayescal.nc_ece_posterior` on a crowd) or through
recalibration (:func:`bayescal.bayes.posterior_recalibration`) needs, for every draw ``s`` of the
channels, each item's corrected label ``U_si`` and whether the item has one under that draw
(the crowd rule of :mod:`bayescal.correction.crowd` leaves out an item labelled only by uninformative workers).  The
S draws x n items of float targets are never held at once: a :class:`TargetDraws` makes them
a chunk of draws at a time, and :func:`moment_draws` turns them into bin moments chunk by
chunk.  (A crowd's map fit keeps which items have a target, S x n booleans, for its solver.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..metrics.calibration import bin_index

#: Elements (draws x the larger of items and responses) made at once: arrays of 8 MB.
CHUNK_ELEMENTS = 1 << 20


@dataclass(frozen=True, eq=False)
class TargetDraws:
    """The targets (S, n) of S draws for n items, made a chunk of draws at a time.

    Attributes
    ----------
    n_draws, n_items : int
    make : callable
        ``make(rows)`` returns the targets (s, n) of the draws ``rows`` (a slice) and which
        items have one (s, n) bool, or ``None`` when every item has one in every draw.
    width : int
        Elements one draw costs while it is made (the items, or the responses if more): with
        :data:`CHUNK_ELEMENTS` it sets how many draws a chunk holds.
    dropped : ndarray of int, shape (S,)
        Items without a target in each draw, filled in as the chunks are made.
    weights : ndarray, shape (n,), optional
        Non-negative item weights shared by every draw, for a weighted map fit (the rectified
        fit with gold items, :class:`~bayescal.correction.rectified.RectifiedLoss`); None for
        equal weights.
    """

    n_draws: int
    n_items: int
    make: Callable[[slice], tuple[np.ndarray, np.ndarray | None]]
    width: int = 0
    weights: np.ndarray | None = None
    dropped: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "dropped", np.zeros(self.n_draws, dtype=np.int64))

    @classmethod
    def fixed(cls, targets: np.ndarray, weights: np.ndarray | None = None) -> TargetDraws:
        """One draw of given targets (n,), every item with one: an ordinary fit (weighted by
        ``weights`` (n,), if given)."""
        return cls(1, targets.size, lambda rows: (targets[None, :], None), weights=weights)

    def mean(self) -> tuple[np.ndarray, np.ndarray]:
        """Each item's mean target over the draws in which it has one, and in how many draws
        it has one (n,) each (0 and 0 for an item without any): one pass over the chunks."""
        totals, labelled = np.zeros(self.n_items), np.zeros(self.n_items)
        for _, values, has_target in self.chunks():
            present = np.ones(values.shape, bool) if has_target is None else has_target
            totals += (values * present).sum(axis=0)
            labelled += present.sum(axis=0)
        return np.divide(totals, labelled, out=np.zeros(self.n_items), where=labelled > 0), labelled

    def chunks(self) -> Iterator[tuple[slice, np.ndarray, np.ndarray | None]]:
        """``(rows, targets, has_target)`` for consecutive chunks of draws."""
        step = max(1, CHUNK_ELEMENTS // max(self.width, self.n_items, 1))
        for start in range(0, self.n_draws, step):
            rows = slice(start, min(start + step, self.n_draws))
            targets, has_target = self.make(rows)
            if has_target is not None:
                self.dropped[rows] = self.n_items - has_target.sum(axis=1)
            yield rows, targets, has_target


def moment_draws(
    targets: TargetDraws, predictions, edges: np.ndarray, strategy: str, uncertainty: str, seed
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bin moments ``r_sl = sum_i w_si (U_si - p_si) [p_si in B_l]`` of every draw, with the bin
    counts and score sums of the predictions ``p``, each (S, M).

    ``predictions`` is one vector (n,) for every draw, or ``predictions(rows)`` giving the
    draws' own (s, n) (a recalibration map per draw).  The item weights ``w_s`` are uniform over
    the items with a target in draw ``s`` (``uncertainty="channels"``), or a Bayesian bootstrap
    of them, Dirichlet(1, ..., 1) (``"total"``); items without a target drop out.  Bin counts
    and score sums are over every item, as in the data.
    """
    n_bins = edges.size - 1
    moments, counts, score_sums = (np.zeros((targets.n_draws, n_bins)) for _ in range(3))
    fixed_bins = None if callable(predictions) else bin_index(predictions, edges, strategy)
    rng = np.random.default_rng(seed)
    for rows, values, has_target in targets.chunks():
        size = values.shape[0]
        if fixed_bins is None:
            scored = predictions(rows)
            bins = bin_index(scored, edges, strategy)
        else:
            scored = np.broadcast_to(predictions, values.shape)
            bins = np.broadcast_to(fixed_bins, values.shape)
        flat_bins = (bins + n_bins * np.arange(size)[:, None]).ravel()
        weights = (
            rng.standard_exponential(values.shape)
            if uncertainty == "total"
            else np.ones(values.shape)
        )
        if has_target is not None:
            weights = weights * has_target
        # a draw without a target has no moments: its caller refuses it (report_unlabelled)
        weights /= np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
        residuals = weights * (values - scored)  # an item without a target weighs 0
        total = size * n_bins
        moments[rows] = np.bincount(flat_bins, residuals.ravel(), total).reshape(size, n_bins)
        counts[rows] = np.bincount(flat_bins, minlength=total).reshape(size, n_bins)
        score_sums[rows] = np.bincount(flat_bins, scored.ravel(), total).reshape(size, n_bins)
    return moments, counts, score_sums
