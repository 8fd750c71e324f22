"""Dependent pairs inside a crowd's EM (:func:`bayescal.crowd_em` with ``dependent``).

Given ``Y`` a pair's (or a tree's, or a cycle's) workers answer jointly, by the joints of
:mod:`bayescal.channels.dependence`, and apart from the rest of the crowd.  So EM keeps its
sparse layout for every label and adds, on each item that a pair's worker labelled, the
correction of each class's log-likelihood by the pairs
(:func:`~bayescal.channels.pattern_likelihood.dependence_log_factor`, missing answers summed
out).  The M-step of the pairs' workers' channels and covariances reads only their own answers
and each item's class posterior: it is the pattern-count EM's M-step
(:mod:`bayescal.channels.em`) on the distinct patterns of their answers, each weighted by the
summed posteriors of the items that show it.  The other workers' M-step is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..data.responses import Responses
from .dependence import member_answers
from .em import EPS, _Design, members_design
from .pattern_likelihood import dependence_log_factor

__all__ = ["CrowdPairs"]


@dataclass(frozen=True, eq=False)
class CrowdPairs:
    """The dependent pairs of a crowd as its EM reads them."""

    #: (M,) the channel of each of the pairs' workers, in the order of their columns
    columns: np.ndarray
    #: the pattern-count design of their distinct answer patterns (P, M) and the pairs in
    #: their columns (:func:`bayescal.channels.em.members_design`)
    design: _Design
    #: (n,) each item's pattern, -1 where none of the pairs' workers labelled it
    row: np.ndarray

    @classmethod
    def of(cls, responses: Responses, index: np.ndarray, channel_of: np.ndarray) -> CrowdPairs:
        """The pairs ``index`` (D, 2; workers' columns) of ``responses``, each worker's label
        counted on its channel ``channel_of`` (K,) (the pairs' workers are never pooled)."""
        members = np.unique(index)
        answers = member_answers(responses, members)
        labelled = (answers >= 0).any(axis=1)
        patterns, inverse, counts = np.unique(
            answers[labelled], axis=0, return_inverse=True, return_counts=True
        )
        row = np.full(responses.n_items, -1, np.int64)
        row[labelled] = inverse.ravel()
        design = members_design(
            patterns, counts.astype(np.float64), np.searchsorted(members, index)
        )
        return cls(channel_of[members], design, row)

    def on_workers(self, index: np.ndarray) -> CrowdPairs:
        """The same pairs read on each worker's own channel (the pairs ``index``, (D, 2)):
        where a fit's channels, unpooled, are the workers'."""
        return replace(self, columns=np.unique(index))

    def log_factors(self, a, b, covariance) -> np.ndarray:
        """Each item's correction (n, 2) of ``log p(labels | Y = 0, 1)`` by the pairs, at the
        channels ``a, b`` (channels,) and covariances (D, 2); 0 where no pair's worker
        labelled the item."""
        factors = np.zeros((self.row.size, 2))
        seen = self.row >= 0
        for y, rates in enumerate((a, b)):
            rates = np.clip(rates[self.columns], EPS, 1.0 - EPS)
            per_pattern = dependence_log_factor(
                self.design.positive,
                self.design.negative,
                self.design.pairs,
                rates,
                covariance[:, y],
                np,
            )
            factors[seen, y] = per_pattern[self.row[seen]]
        return factors

    def m_step(self, truth: np.ndarray, a, b, covariance, current):
        """The pairs' workers' channels and the covariances (D, 2) given the items' class
        posteriors ``truth`` (n,) and the fit ``current`` (``(a, b)``) and ``covariance`` that
        gave them (module docstring): ``a, b`` (the other channels' M-step) with the pairs'
        workers' channels replaced, and the covariances."""
        seen = self.row >= 0
        counts = self.design.counts[:, 0]
        posterior = np.bincount(self.row[seen], truth[seen], minlength=counts.size) / counts
        new_a, new_b, _, new_covariance = self.design.m_step(
            posterior[:, None],
            current[0][self.columns][:, None],
            current[1][self.columns][:, None],
            covariance[..., None],
        )
        a, b = a.copy(), b.copy()
        a[self.columns], b[self.columns] = new_a[:, 0], new_b[:, 0]
        return a, b, new_covariance[..., 0]
