"""EM for the latent-class channel models on pattern counts (paper App. D.5, F.2; Dawid and Skene 1979).

Model: given the score group ``g`` (one group for the marginal model), ``Y ~ Bernoulli(mu_g)``
and the annotators answer independently given ``Y`` with channels ``(a_j, b_j)``.  For a
response pattern ``s`` with observed set ``O``,

    log p(s | Y=1) = sum_{j in O} [s_j log b_j + (1 - s_j) log(1 - b_j)]
    log p(s | Y=0) = sum_{j in O} [s_j log a_j + (1 - s_j) log(1 - a_j)]

E-step (log space, log-sum-exp): ``w_p = P(Y = 1 | s_p, g_p)``.  M-step with pattern counts
``c_p``: ``b_j = sum_p c_p w_p [s_pj = 1] / sum_p c_p w_p [j in O_p]``, ``a_j`` the same with
``1 - w_p``, ``mu_g = sum_{p in g} c_p w_p / n_g``.  A missing response simply drops out of
both sums.  Every iteration costs O(patterns x K x starts), independent of n, and all starts run
together as one batch of matrix products; so do the replicates of a refitting bootstrap
(:func:`em_refits`), on the union of their patterns.  Iteration stops when the change in the
mean log-likelihood falls below ``tol``.

Dependent pairs (``dependent=``, :mod:`bayescal.channels.dependence`): a pair ``(j, k)`` is one
four-category response given ``Y``, its 2 x 2 table ``T_y`` (the two margins and the
covariance).  The E-step adds the pair's term to ``log p(s | Y)``; the M-step sets ``T_y`` to
the expected cell shares: a row with both labels counts in its cell, a row with one label is
split over its row (or column) of ``T_y`` in proportion to the current table (the missing
partner is part of the complete data, so this is still EM and the likelihood never falls), a
row with neither does not count.  Unpaired annotators are updated as above.  Pairs that share
annotators form a tree or close a cycle (:mod:`bayescal.channels.dependence`,
:mod:`bayescal.channels.cyclic_joint`), whose maximum-likelihood tables given complete answers
are the observed pair tables and margins (for a cycle's log-linear joint too: its sufficient
statistics are the answers and the pairs' products): the M-step completes each row
that any of the tree's annotators labelled, every missing answer of the tree filled in each
way, weighted by its probability given the row and ``Y`` under the current fit, and sets each
pair's table and each member's channel to those weighted shares.

Gold items (human-verified labels): a pattern row of gold items knows its class, so its E-step posterior is
that class (``w_p = g_p``) and it adds ``log p(s | Y = g) + log mu_g`` to the log-likelihood,
not the mixture; the M-step is unchanged.  The gold then fixes the orientation: the fit is
never exchanged to the mirror image, so an adversarial annotator is estimated as one.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, replace
from itertools import product
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import old_spellings, silenced, warn_caller
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..data.cells import CellStatistics
from ..exceptions import FIT_WARNINGS, ChannelFitError, ConvergenceWarning, IdentificationError
from .base import (
    ChannelFit,
    as_anchor,
    as_counts,
    best_start,
    check_annotators,
    group_layout,
    records_options,
    warn_if_groups_inseparable,
)
from .co_labelling import GoldCoverage, require_fittable, warn_if_saturated
from .confusion_fit import ConfusionFit, fit_confusions
from .dependence import DependentPairs, dependent_pairs, require_dependence_identified
from .moments import third_moment
from .odd_annotators import OddAnnotators, odd_annotators, warn_odd_annotators
from .pattern_likelihood import (
    LinkedSet,
    class_log_likelihoods,
    covariance_bounds,
    linked_sets,
    lone_pairs,
)

__all__ = ["dawid_skene_em", "grouped_em"]

#: Probabilities are kept in [EPS, 1 - EPS] inside logarithms, so that a perfect annotator
#: (b_j = 1) gives log(1 - b_j) = log(EPS) rather than -inf times a zero count (NaN).
EPS = 1e-12


@dataclass(frozen=True, eq=False)
class _Design:
    """Pattern-count arrays every iteration uses: responses, counts and group membership.

    The counts have one column per data set of a batch (one column for one fit): the data sets
    of a batch (the replicates of a bootstrap) share the rows, the union of their (group,
    pattern) rows, a row one data set lacks counting 0 there, which adds exactly 0 to its
    sums.  A start runs on its data set's column (:meth:`repeated`)."""

    positive: np.ndarray  # (P, K) 1.0 where s_j = 1
    negative: np.ndarray  # (P, K) 1.0 where s_j = 0
    counts: np.ndarray  # (P, C) one column per data set (or per start, once repeated)
    group_index: np.ndarray  # (P,) in 0 .. L-1
    membership: np.ndarray  # (L, P) one-hot
    group_counts: np.ndarray  # (L, C)
    pairs: np.ndarray  # (D, 2) columns of the dependent pairs
    gold: np.ndarray  # (P,) the gold label of a row, -1 for none
    #: each set of pairs that share annotators (a tree, or pairs that close a cycle), with its
    #: rows completed (:class:`_Completed`)
    trees: tuple = ()

    @classmethod
    def from_counts(cls, counts: CellStatistics, pairs: np.ndarray) -> _Design:
        """The design of one data set: its rows as they are."""
        _, index, _ = group_layout(counts)
        return cls._of(counts.patterns, index, counts.counts[:, None], pairs, _gold_of(counts))

    @classmethod
    def of_batch(cls, batch: list[CellStatistics], pairs: np.ndarray) -> _Design:
        """The design of several data sets of the same annotators: the union of their rows."""
        _, group_index = np.unique(
            np.concatenate([counts.groups for counts in batch]), return_inverse=True
        )
        rows = np.column_stack(
            [
                group_index,
                np.concatenate([c.patterns for c in batch]),
                np.concatenate([_gold_of(c) for c in batch]),
            ]
        )
        union, row = np.unique(rows, axis=0, return_inverse=True)
        column = np.repeat(np.arange(len(batch)), [c.counts.size for c in batch])
        counts = np.zeros((len(union), len(batch)))
        np.add.at(counts, (row.ravel(), column), np.concatenate([c.counts for c in batch]))
        return cls._of(union[:, 1:-1], union[:, 0], counts, pairs, union[:, -1])

    @classmethod
    def _of(cls, patterns, group_index, counts, pairs, gold) -> _Design:
        membership = np.zeros((group_index.max() + 1, group_index.size))
        membership[group_index, np.arange(group_index.size)] = 1.0
        return cls(
            positive=(patterns == 1).astype(np.float64),
            negative=(patterns == 0).astype(np.float64),
            counts=counts.astype(np.float64),
            group_index=group_index,
            membership=membership,
            group_counts=membership @ counts,
            pairs=pairs,
            gold=gold,
            trees=tuple(_Completed.of(patterns, tree) for tree in linked_sets(pairs)),
        )

    @functools.cached_property
    def has_gold(self) -> bool:
        return bool((self.gold != v.MISSING).any())

    def select(self, columns: np.ndarray) -> _Design:
        """The starts ``columns`` of a batch of starts (:meth:`repeated`); one data set's
        single column serves every start."""
        if self.counts.shape[1] == 1:
            return self
        return replace(
            self, counts=self.counts[:, columns], group_counts=self.group_counts[:, columns]
        )

    def column(self, c: int) -> _Design:
        """Data set ``c`` of the batch alone."""
        return replace(self, counts=self.counts[:, [c]], group_counts=self.group_counts[:, [c]])

    def repeated(self, n_starts: int) -> _Design:
        """Each data set's column once per start: the columns of a batch of starts."""
        return replace(
            self,
            counts=np.repeat(self.counts, n_starts, axis=1),
            group_counts=np.repeat(self.group_counts, n_starts, axis=1),
        )

    def e_step(
        self, a: np.ndarray, b: np.ndarray, mu: np.ndarray, covariance: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Log-likelihood of each start (R,) and posteriors P(Y=1 | pattern) (P, R).

        ``a, b`` are (K, R), ``mu`` is (L, R) and ``covariance`` (D, 2, R)."""
        # np.minimum(np.maximum()) is np.clip's result at a fraction of its cost on these small
        # arrays, in a loop run thousands of times a bootstrap (as is skipping the covariances'
        # transpose when there are no pairs)
        a, b, mu = (np.minimum(np.maximum(x, EPS), 1 - EPS) for x in (a, b, mu))
        log0, log1 = class_log_likelihoods(
            a.T,
            b.T,
            self.positive,
            self.negative,
            pairs=self.pairs,
            covariance=np.moveaxis(covariance, -1, 0) if len(self.pairs) else None,
        )
        log_joint0 = np.log1p(-mu)[self.group_index] + log0.T
        log_joint1 = np.log(mu)[self.group_index] + log1.T
        if self.has_gold:  # a gold row's other class has probability 0 (module docstring)
            log_joint0 = np.where(self.gold[:, None] == 1, -np.inf, log_joint0)
            log_joint1 = np.where(self.gold[:, None] == 0, -np.inf, log_joint1)
        log_marginal = np.logaddexp(log_joint0, log_joint1)
        return (self.counts * log_marginal).sum(0), np.exp(log_joint1 - log_marginal)

    def m_step(
        self, posterior: np.ndarray, a, b, covariance
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Channel, prevalence and covariance updates from posteriors (P, R), the dependent
        pairs' from their current tables (module docstring)."""
        weight1 = self.counts * posterior
        weight0 = self.counts - weight1
        answered = self.positive + self.negative
        with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 only for a class with no mass
            new_b = (self.positive.T @ weight1) / (answered.T @ weight1)
            new_a = (self.positive.T @ weight0) / (answered.T @ weight0)
        # 0/0 is the only undefined rate (positives are answers); np.where is nan_to_num's
        # answer here at a fraction of its cost, in a loop run thousands of times a bootstrap
        new_a, new_b = np.where(np.isnan(new_a), 0.5, new_a), np.where(np.isnan(new_b), 0.5, new_b)
        mu = (self.membership @ weight1) / self.group_counts
        new_covariance = np.zeros_like(covariance)
        for d in lone_pairs(self.pairs, tuple(tree.linked for tree in self.trees)):
            j, k = self.pairs[d]
            for y, (rates, new_rates, weight) in enumerate(
                ((a, new_a, weight0), (b, new_b, weight1))
            ):
                table = self._pair_table(weight, _table(rates[j], rates[k], covariance[d, y]), j, k)
                new_rates[j], new_rates[k] = table[1].sum(0), table[:, 1].sum(0)
                new_covariance[d, y] = table[1, 1] - new_rates[j] * new_rates[k]
        if self.trees:
            self._tree_step((weight0, weight1), a, b, covariance, (new_a, new_b), new_covariance)
        return new_a, new_b, mu, new_covariance

    def _tree_step(self, weights, a, b, covariance, new_rates, new_covariance) -> None:
        """The M-step of each tree of pairs or cycle (module docstring), in place: its
        members' rates in ``new_rates`` (each (K, R)) and its pairs' covariances in
        ``new_covariance`` (D, 2, R), from each class's weights (P, R) and the current fit."""
        current = np.moveaxis(covariance, -1, 0)  # (R, D, 2)
        a, b = (np.clip(x, EPS, 1.0 - EPS) for x in (a, b))  # as the E-step reads them
        rows = class_log_likelihoods(
            a.T, b.T, self.positive, self.negative, pairs=self.pairs, covariance=current
        )
        for tree in self.trees:
            completed = class_log_likelihoods(
                a.T, b.T, tree.positive, tree.negative, pairs=self.pairs, covariance=current
            )
            members = tree.linked.members
            for y in (0, 1):
                # P(completion | row, Y = y), times the row's weight of class y: (Q, R)
                share = np.exp(completed[y] - rows[y][:, tree.row]).T
                weight = weights[y][tree.row] * share
                total = weight.sum(0)
                with np.errstate(invalid="ignore", divide="ignore"):  # a class with no mass
                    rate = (tree.positive[:, members].T @ weight) / total
                new_rates[y][members] = np.clip(np.nan_to_num(rate, nan=0.5), EPS, 1.0 - EPS)
                for d in tree.linked.pairs:
                    j, k = self.pairs[d]
                    with np.errstate(invalid="ignore", divide="ignore"):
                        both = (tree.positive[:, j] * tree.positive[:, k]) @ weight / total
                    both = np.nan_to_num(both, nan=0.25)
                    first, second = new_rates[y][j], new_rates[y][k]
                    lower, upper = covariance_bounds(first, second)
                    # a cell of at least EPS, as _table keeps it: the E-step's logs stay
                    # finite; bounds closer than that (a rate at EPS) get their midpoint
                    new_covariance[d, y] = np.where(
                        upper - lower > 2.0 * EPS,
                        np.clip(both - first * second, lower + EPS, upper - EPS),
                        (lower + upper) / 2.0,
                    )

    def _pair_table(self, weight: np.ndarray, table: np.ndarray, j: int, k: int) -> np.ndarray:
        """The expected 2 x 2 table (2, 2, R) of pair ``(j, k)`` in one class, from that
        class's weights (P, R) and its current table (2, 2, R)."""
        label = (self.negative, self.positive)
        seen_j, seen_k = label[0][:, j] + label[1][:, j], label[0][:, k] + label[1][:, k]
        expected = np.zeros_like(table)
        for x in (0, 1):
            for y in (0, 1):
                both = (label[x][:, j] * label[y][:, k]) @ weight
                only_j = (label[x][:, j] * (1.0 - seen_k)) @ weight
                only_k = (label[y][:, k] * (1.0 - seen_j)) @ weight
                expected[x, y] = (
                    both
                    + only_j * table[x, y] / table[x].sum(0)
                    + only_k * table[x, y] / table[:, y].sum(0)
                )
        with np.errstate(invalid="ignore", divide="ignore"):  # a class with no mass
            shares = np.nan_to_num(expected / expected.sum(axis=(0, 1)), nan=0.25)
        shares = np.clip(shares, EPS, None)  # every cell possible: the E-step's logs stay finite
        return shares / shares.sum(axis=(0, 1))


def members_design(patterns: np.ndarray, counts: np.ndarray, pairs: np.ndarray) -> _Design:
    """The design of dependent pairs' workers alone: their distinct answer patterns (P, M; -1
    for a missing answer) on a crowd's items, how many items show each (P,), and the pairs in
    these columns (D, 2).  Its :meth:`_Design.m_step` is the pairs' M-step of
    :func:`bayescal.crowd_em` with ``dependent``: given Y, the pairs' workers answer apart from
    the rest of the crowd, so their tables and channels are set from their own answers and
    each item's class posterior alone."""
    no_gold = np.full(len(patterns), v.MISSING, np.int8)  # a posterior given: gold is in it
    return _Design._of(patterns, np.zeros(len(patterns), np.int64), counts[:, None], pairs, no_gold)


@dataclass(frozen=True, eq=False)
class _Completed:
    """The rows on which one tree of pairs (or cycle) enters the M-step, completed: every row
    that any of its annotators labelled, once for each way of filling its missing answers."""

    linked: LinkedSet
    row: np.ndarray  # (Q,) the row each completion fills
    positive: np.ndarray  # (Q, K) the row's answers with the tree's missing ones filled
    negative: np.ndarray

    @classmethod
    def of(cls, patterns: np.ndarray, linked: LinkedSet) -> _Completed:
        members = linked.members
        rows, filled = [], []
        for r in np.flatnonzero((patterns[:, members] >= 0).any(axis=1)):
            missing = members[patterns[r, members] < 0]
            for answers in product((0, 1), repeat=missing.size):
                pattern = patterns[r].copy()
                pattern[missing] = answers
                rows.append(r)
                filled.append(pattern)
        filled = np.array(filled).reshape(-1, patterns.shape[1])
        return cls(
            linked,
            np.array(rows, np.int64),
            (filled == 1).astype(np.float64),
            (filled == 0).astype(np.float64),
        )


def _gold_of(counts: CellStatistics) -> np.ndarray:
    """The gold label of each cell of ``counts`` (-1 for none; all -1 without gold)."""
    if counts.gold is None:
        return np.full(counts.n_cells, v.MISSING, dtype=np.int8)
    return counts.gold


def _table(first: np.ndarray, second: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """A pair's 2 x 2 table ``T[x_j, x_k]`` from its margins and covariance (each (R,)),
    kept inside the simplex (cells of at least ``EPS``) so that every share is defined."""
    table = np.stack(
        [
            [(1 - first) * (1 - second) + covariance, (1 - first) * second - covariance],
            [first * (1 - second) - covariance, first * second + covariance],
        ]
    )
    table = np.clip(table, EPS, None)
    return table / table.sum(axis=(0, 1))


def _run_em(design: _Design, a, b, mu, covariance, tol: float, max_iter: int):
    """Iterate all starts together; each start freezes once its mean log-likelihood settles,
    and is then left out of the computation (a batch of replicates' starts would otherwise
    compute every start until the slowest has settled)."""
    final = [np.array(x, dtype=np.float64) for x in (a, b, mu, covariance)]
    current = [x.copy() for x in final]  # the parameters of the starts still moving
    n_starts = a.shape[1]
    live = np.arange(n_starts)
    part = design
    converged = np.zeros(n_starts, dtype=bool)
    n_iter = np.zeros(n_starts, dtype=np.int64)
    loglik = np.full(n_starts, -np.inf)
    previous = loglik.copy()
    n_items = part.counts.sum(0)
    for iteration in range(max_iter + 1):
        value, posterior = part.e_step(*current)
        settled = np.abs(value - previous) / n_items < tol
        loglik[live] = value
        if settled.any():
            converged[live[settled]] = True
            for full, x in zip(final, current):
                full[..., live[settled]] = x[..., settled]
            moving = ~settled
            live, value, posterior = live[moving], value[moving], posterior[:, moving]
            current = [x[..., moving] for x in current]
            part = design.select(live)
            n_items = part.counts.sum(0)
        if live.size == 0 or iteration == max_iter:
            break
        current = list(part.m_step(posterior, current[0], current[1], current[3]))
        n_iter[live] += 1
        previous = value
    for full, x in zip(final, current):  # the starts stopped by max_iter
        full[..., live] = x
    return *final, loglik, converged, n_iter


def _starts(
    design: _Design, counts: CellStatistics, n_starts: int, seed: int, init
) -> tuple[np.ndarray, ...]:
    """(K, R), (K, R), (L, R) starting values of the data set ``counts`` (``design`` its
    column): ``init``, third moment, majority vote, then random; ``n_starts`` in all."""
    n_annotators, n_groups = design.positive.shape[1], design.group_counts.shape[0]
    columns: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if init is not None:
        columns.append(init)
    if n_annotators >= 3:
        with silenced(*FIT_WARNINGS):  # said of the EM fit itself
            moment_fit = third_moment(counts)
        if moment_fit.ok:
            a0 = np.clip(moment_fit.channels.a, 0.01, 0.49)
            b0 = np.clip(moment_fit.channels.b, 0.51, 0.99)
            columns.append((a0, b0, np.full(n_groups, np.clip(moment_fit.prevalence, 0.02, 0.98))))
    # Majority-vote start: one M-step from the share of positive responses of each pattern.
    with np.errstate(invalid="ignore", divide="ignore"):
        share = design.positive.sum(1) / (design.positive + design.negative).sum(1)
    share = np.where(design.gold == v.MISSING, np.nan_to_num(share, nan=0.5), design.gold)
    posterior = share[:, None]
    independent = replace(design, pairs=np.zeros((0, 2), np.int64), trees=())
    a0, b0, mu0, _ = independent.m_step(posterior, None, None, np.zeros((0, 2, 1)))
    columns.append((a0[:, 0], b0[:, 0], mu0[:, 0]))
    rng = np.random.default_rng(seed)
    while len(columns) < n_starts:
        columns.append(
            (
                rng.uniform(0.02, 0.45, n_annotators),
                rng.uniform(0.55, 0.98, n_annotators),
                rng.uniform(0.1, 0.9, n_groups),
            )
        )
    columns = columns[:n_starts]
    return tuple(np.stack([column[i] for column in columns], axis=1) for i in range(3))


def _as_init(init, names: tuple[str, ...], n_groups: int):
    """A user start: a successful ChannelFit of these annotators, or a tuple (a, b, prevalence)."""
    n_annotators = len(names)
    if isinstance(init, ChannelFit):
        v.check_same_annotators(names, init.annotator_names, "data", "the init fit")
        init = init.require()
        init = (init.channels.a, init.channels.b, init.prevalence)
    if not isinstance(init, tuple) or len(init) != 3:
        raise TypeError(
            f"init must be a ChannelFit or a tuple (a, b, prevalence); saw {type(init).__name__}"
        )
    a = v.as_probabilities(np.atleast_1d(init[0]), "init a")
    b = v.as_probabilities(np.atleast_1d(init[1]), "init b")
    mu = v.as_probabilities(np.atleast_1d(init[2]), "init prevalence")
    if a.size != n_annotators or b.size != n_annotators:
        raise ValueError(
            f"init must give one a and one b per annotator ({n_annotators}); saw {a.size} and {b.size}"
        )
    if mu.size == 1:
        mu = np.full(n_groups, mu[0])
    elif mu.size != n_groups:
        raise ValueError(
            f"init prevalence must be one value or one per score group ({n_groups}); saw {mu.size}"
        )
    return a, b, mu


class _Settings(NamedTuple):
    """An EM fit's validated settings."""

    n_starts: int
    tol: float
    max_iter: int
    seed: int
    anchor: int | None

    @classmethod
    def of(cls, n_starts, tol, max_iter, seed, anchor, n_annotators: int) -> _Settings:
        return cls(
            v.as_int(n_starts, "n_starts", minimum=1),
            v.as_tolerance(tol),
            v.as_int(max_iter, "max_iter", minimum=1),
            v.as_seed(seed),
            as_anchor(anchor, n_annotators),
        )


#: The estimators of this module, by name (:attr:`ChannelFit.method`), and whether each fits
#: the marginal model (the cells pooled over the score groups).
EM_METHODS = {"dawid_skene_em": True, "grouped_em": False}


def default_settings(n_annotators: int) -> _Settings:
    """The settings both estimators default to, read from their signature (they share one:
    tests/correction checks it), for the fits nobody configures: a Bayesian fit's look before
    sampling, a bootstrap's refits."""
    parameters = inspect.signature(dawid_skene_em).parameters
    defaults = {name: parameters[name].default for name in _Settings._fields}
    return _Settings.of(**defaults, n_annotators=n_annotators)


def _best_starts(
    batch: list[CellStatistics],
    method: str,
    marginal: bool,
    settings: _Settings,
    init,
    pairs: DependentPairs,
) -> list[ChannelFit]:
    """Each data set's best start, the starts of every data set of ``batch`` iterated together
    (one batch of matrix products: in a bootstrap of refits, the Python overhead of an
    iteration is paid once for all the replicates); each start's iterations are those of a fit
    of its data set alone."""
    design = (
        _Design.from_counts(batch[0], pairs.index)
        if len(batch) == 1
        else _Design.of_batch(batch, pairs.index)
    )
    starts = [
        _starts(design.column(c), counts, settings.n_starts, settings.seed, init)
        for c, counts in enumerate(batch)
    ]
    a, b, mu = (np.concatenate([start[i] for start in starts], axis=1) for i in range(3))
    covariance = np.zeros((len(pairs.index), 2, a.shape[1]))  # every start at independence
    a, b, mu, covariance, loglik, converged, n_iter = _run_em(
        design.repeated(settings.n_starts), a, b, mu, covariance, settings.tol, settings.max_iter
    )
    fits = []
    for c, counts in enumerate(batch):
        group_ids, _, group_counts = group_layout(counts)
        candidates = [
            (
                -float(loglik[r]),
                a[:, r],
                b[:, r],
                mu[:, r],
                {
                    "dependence": (pairs.names, covariance[:, :, r]) if pairs else None,
                    "loglik": float(loglik[r]),
                    "converged": bool(converged[r]),
                    "n_iter": int(n_iter[r]),
                },
            )
            for r in range(c * settings.n_starts, (c + 1) * settings.n_starts)
        ]
        gold = GoldCoverage.of_cells(counts) if counts.has_gold else None
        fits.append(
            best_start(
                method,
                counts,
                group_ids,
                group_counts,
                settings.anchor,
                marginal,
                candidates,
                gold,
            )
        )
    return fits


def _fit_em(
    counts: CellStatistics,
    method: str,
    marginal: bool,
    settings: _Settings,
    init,
    pairs: DependentPairs,
    check: bool = True,
) -> ChannelFit:
    """Shared body of both EM estimators once identification is counted (:func:`_prepared`);
    the dependent pairs' identification is checked at the estimate (refused when it is not
    identified)."""
    check_annotators(counts)
    n_groups = group_layout(counts)[0].size
    start = None if init is None else _as_init(init, counts.annotator_names, n_groups)
    best = _best_starts([counts], method, marginal, settings, start, pairs)[0]
    return _checked(best, counts, method, marginal, settings, pairs, check)


def _checked(best, counts, method, marginal, settings, pairs, check) -> ChannelFit:
    """The best start of ``counts``, its dependent pairs' identification checked at the
    estimate (``check``), and what is odd about it said."""
    if pairs and check:
        require_dependence_identified(counts, not marginal, pairs, method, estimate_of(best))
    if best.ok and not best.converged:
        warn_caller(
            f"{method}: the best start did not converge within max_iter={settings.max_iter} "
            f"iterations (tol={settings.tol:g} on the change in mean log-likelihood); its "
            "estimate is returned with converged=False",
            ConvergenceWarning,
        )
    # estimated, flagged, not refused (bayescal.channels.odd_annotators)
    if best.ok and best.channels.adversarial:
        # an estimate with b < a is named: adversarial, or random with a negative gap by
        # chance; random and constant annotators with b >= a are left to the correction's
        # weight-0 rule (a few dense annotators on small data would otherwise all be named)
        odd = _odd(_Design.from_counts(counts, pairs.index), best)
        flipped = best.channels.gap < 0
        none = np.zeros_like(flipped)
        named = OddAnnotators(none, odd.random & flipped, odd.adversarial)
        warn_odd_annotators(method, counts.annotator_names, named)
    return best


def estimate_of(fit: ChannelFit):
    """``(a, b, prevalence, covariance, None)`` of a dependent fit, the point at which
    :func:`~bayescal.channels.dependence.require_dependence_identified` checks the Jacobian;
    ``None`` for a failed fit (only the count is then checked)."""
    if not fit.ok:
        return None
    return fit.channels.a, fit.channels.b, fit.prevalence, fit.covariance, None


def _silent_fit(counts: CellStatistics, grouped: bool, pairs: DependentPairs, method: str):
    """The EM fit of ``counts`` (grouped EM when ``grouped``) with the defaults of both
    estimators, what it says of its fit silenced and identification not checked: what a
    Bayesian fit looks at before sampling."""
    settings = default_settings(counts.n_annotators)
    with silenced(*FIT_WARNINGS):
        fitted = counts if grouped else counts.pooled()
        return _fit_em(fitted, method, not grouped, settings, None, pairs, check=False)


def dependent_estimate(counts: CellStatistics, grouped: bool, pairs: DependentPairs):
    """The dependent EM estimate (:func:`estimate_of`) of ``counts`` (grouped EM when
    ``grouped``), not yet checked for identification, and silent: what a Bayesian fit checks
    identification at before sampling."""
    return estimate_of(_silent_fit(counts, grouped, pairs, "dependent_estimate"))


def independent_estimate(counts: CellStatistics, grouped: bool) -> ChannelFit:
    """The independent EM fit of ``counts`` (grouped EM when ``grouped``), silent: the point
    at which a shared-difficulty fit's identification is checked before sampling."""
    none = dependent_pairs(None, counts.annotator_names)
    return _silent_fit(counts, grouped, none, "independent_estimate")


def _odd(design: _Design, fit: ChannelFit):
    """The kinds of odd annotators of a fit (:mod:`bayescal.channels.odd_annotators`), from
    its label posteriors: each annotator's labels, those expected on items with Y = 1, and its
    1s."""
    prevalence = np.atleast_1d(fit.prevalence)[:, None]
    covariance = np.zeros((0, 2, 1)) if fit.covariance is None else fit.covariance[..., None]
    _, posterior = design.e_step(
        fit.channels.a[:, None], fit.channels.b[:, None], prevalence, covariance
    )
    answered = design.positive + design.negative
    counts = design.counts[:, 0]
    return odd_annotators(
        fit.channels.a,
        fit.channels.b,
        answered.T @ counts,
        answered.T @ (counts * posterior[:, 0]),
        design.positive.T @ counts,
    )


@old_spellings()
@records_options
def dawid_skene_em(
    data,
    *,
    n_starts=10,
    tol=1e-8,
    max_iter=1000,
    seed=0,
    anchor=None,
    init=None,
    dependent=None,
    structure=None,
) -> ChannelFit | ConfusionFit:
    """Marginal Dawid–Skene EM: K >= 3 annotators, one class proportion (paper §4.3, App. F.2).

    Score groups, if any, are ignored.  Starts: ``init`` if given, the third-moment inverse
    (Prop. D.2), the majority vote, then seeded random starts, ``n_starts`` in all; they run
    together, and the admissible fit (oriented, gaps >= 1e-4) with the highest
    log-likelihood is returned.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        At least three annotators; missing responses allowed.  Cells (e.g. of a table larger
        than memory, :mod:`bayescal.data.cells`) are pooled over their bins and groups.
    n_starts : int, default 10
    tol : float, default 1e-8
        Stop when the mean log-likelihood changes by less than this.
    max_iter : int, default 1000
        A run that reaches it returns ``converged=False`` with a :class:`ConvergenceWarning`.
    seed : int, default 0
    anchor : int, optional
        Annotator whose gap must be positive; default: the population's (its label-weighted
        gap positive, :func:`~bayescal.channels.base.orient`).
    init : ChannelFit or tuple (a, b, prevalence), optional
        An extra first start; for multi-class data a ConfusionFit of the same annotators
        or a tuple (confusion (K, C, C), prevalence (C,)), in place of the majority vote.
    dependent : pair or list of pairs of annotator names, optional
        Pairs whose errors may be correlated given ``Y`` (Dendukuri and Joseph 2001): each
        gets a covariance given ``Y = 0`` and ``Y = 1`` (:mod:`bayescal.channels.dependence`;
        pairs that share annotators form a tree or close a cycle).  The marginal channels keep their
        meaning.

    structure : {"full", "one_coin", "by_distance"}, optional
        Multi-class data only: the confusion matrices' form
        (:mod:`bayescal.channels.confusion_em`), default ``"full"`` (every cell free);
        ``"one_coin"``, one accuracy an annotator with its errors spread evenly;
        ``"by_distance"``, for an ordinal scale (``AnnotatedScores(..., ordinal=True)``), the
        odds of each wrong grade depending only on its distance from the right one.

    Multi-class data (:class:`~bayescal.AnnotatedScores` with three classes or more) are fitted
    by the multi-class Dawid–Skene EM (:mod:`bayescal.channels.confusion_em`: confusion
    matrices oriented to the population's diagonal, Dawid and Skene 1979), which takes only
    ``n_starts``, ``tol``, ``max_iter``, ``seed``, ``init`` and ``structure`` and returns a
    :class:`~bayescal.channels.ConfusionFit`, whose ``channels.confusion`` is (K, C, C).

    Returns
    -------
    ChannelFit or ConfusionFit
        With a single ``prevalence``.  As many parameters as free cells (K = 3, every item
        labelled by all three) is a :class:`SaturatedModelWarning`; who labelled what is
        checked first (:class:`~bayescal.channels.co_labelling.CoLabelling`).
        With ``dependent``: ``dependent`` and ``covariance`` (D, 2).

    Raises
    ------
    IdentificationError
        For two annotators, or dependent pairs the data cannot identify: too many parameters
        for the data's cells, or a singular Jacobian at the estimate (the message says what
        would identify them).  Weak identification is a :class:`WeakIdentificationWarning`.
    """
    options = {"n_starts": n_starts, "tol": tol, "max_iter": max_iter, "seed": seed}
    if isinstance(data, AnnotatedScores) and data.is_multiclass:
        binary_only = {"anchor": anchor, "dependent": dependent}
        given = [name for name, value in binary_only.items() if value is not None]
        if given:
            raise ValueError(
                f"dawid_skene_em: {', '.join(given)} set(s) the binary model; data are "
                f"multi-class ({data.n_classes} classes), whose fit takes only n_starts, tol, "
                "max_iter, seed, init and structure"
            )
        return fit_confusions(data, "dawid_skene_em", **options, structure=structure, init=init)
    if structure is not None:
        raise ValueError(
            "structure: sets the form of multi-class confusion matrices; data are binary (a "
            f"binary channel is always its two rates); saw structure={structure!r}"
        )
    return _public_em("dawid_skene_em", data, options | {"anchor": anchor}, init, dependent)


@old_spellings()
@records_options
def grouped_em(
    data, *, n_starts=10, tol=1e-8, max_iter=1000, seed=0, anchor=None, init=None, dependent=None
) -> ChannelFit:
    """Grouped EM: channels shared across score groups, one class proportion per group
    (the paper's joint score-bin EM, §4.2 and App. D.5, G.3).

    Identified with K >= 3 annotators (any number of groups) or K = 2 annotators with at least
    two score groups whose class proportions differ (Hui–Walter).  Starts and selection as in
    :func:`dawid_skene_em`.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        With ``groups`` (e.g. from :func:`score_groups`); without them this is the marginal
        model.  Cells are pooled over their bins.
    n_starts, tol, max_iter, seed, anchor, init, dependent
        As in :func:`dawid_skene_em`; ``init`` prevalence may be one value or one per group.

    Returns
    -------
    ChannelFit
        ``prevalence`` has one entry per group (ordered as ``group_ids``).  Warnings: groups
        that barely differ when K = 2 (:class:`WeakIdentificationWarning`); as many
        parameters as free cells (K = 2 with two groups, every item labelled by both;
        :class:`SaturatedModelWarning`); who labelled what, as for :func:`dawid_skene_em`.
    """
    require_binary(data, "grouped_em")
    options = {"n_starts": n_starts, "tol": tol, "max_iter": max_iter, "seed": seed}
    return _public_em("grouped_em", data, options | {"anchor": anchor}, init, dependent)


def _public_em(method: str, data, options: dict, init, dependent) -> ChannelFit:
    """What :func:`dawid_skene_em` and :func:`grouped_em` (``method``) do with their settings
    ``options`` (n_starts, tol, max_iter, seed, anchor), start ``init`` and pairs."""
    counts = as_counts(data)
    settings = _Settings.of(**options, n_annotators=counts.n_annotators)
    pairs = dependent_pairs(dependent, counts.annotator_names)
    fitted = _prepared(method, counts, pairs)
    return _fit_em(fitted, method, EM_METHODS[method], settings, init, pairs)


def _prepared(method: str, counts: CellStatistics, pairs: DependentPairs) -> CellStatistics:
    """What ``method`` checks before its EM runs (who labelled what, the dependent pairs'
    identification by count; saturation and, for two annotators, inseparable groups are
    warnings), and the counts it fits: pooled over the score groups for the marginal model."""
    marginal = EM_METHODS[method]
    fitted = counts.pooled() if marginal else counts
    n_groups = group_layout(fitted)[0].size
    require_fittable(counts, n_groups, method)
    require_dependence_identified(fitted, not marginal, pairs, method)
    if not marginal and counts.n_annotators == 2:
        warn_if_groups_inseparable(counts, method)
    parameters = 2 * counts.n_annotators + n_groups + 2 * pairs.n_pairs
    warn_if_saturated(fitted, not marginal, parameters, method)
    return fitted


def em_refits(method: str, batch, dependent=None) -> list[ChannelFit | None]:
    """What ``method`` (``"dawid_skene_em"`` or ``"grouped_em"``, with its defaults) fits to
    each data set of ``batch`` (an iterable of AnnotatedScores or CellStatistics of the same
    annotators and score groups: a bootstrap's replicates, each reduced to its pattern counts
    as it comes), silently: ``None`` where it refuses one.

    The same fits as one call each, the EM iterations of every data set run together
    (:func:`_best_starts`): a bootstrap's refits at a fraction of the cost."""
    batch = [as_counts(data) for data in batch]
    pairs = dependent_pairs(dependent, batch[0].annotator_names)
    settings = default_settings(batch[0].n_annotators)
    marginal = EM_METHODS[method]
    fits: list[ChannelFit | None] = [None] * len(batch)
    with silenced(*FIT_WARNINGS):  # what a replicate's fit says was said of the real fit
        accepted = {}
        for i, counts in enumerate(batch):
            try:
                accepted[i] = _prepared(method, counts, pairs)
                check_annotators(counts)
            except (ChannelFitError, IdentificationError):
                continue
        if not accepted:
            return fits
        best = _best_starts(list(accepted.values()), method, marginal, settings, None, pairs)
        for (i, fitted), fit in zip(accepted.items(), best):
            try:
                fits[i] = _checked(fit, fitted, method, marginal, settings, pairs, True)
            except (ChannelFitError, IdentificationError):
                continue
    return fits
