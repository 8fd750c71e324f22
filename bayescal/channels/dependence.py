"""Conditional dependence between named pairs of annotators (Dendukuri and Joseph 2001, the
fixed-effect covariance model), shared by the EM estimators and the NumPyro programs.

Every other model of bayescal assumes the annotators answer independently given ``Y``.  For a
named pair ``(j, k)`` this module adds one covariance per class,

    c_y = P(A_j = 1, A_k = 1 | Y = y) - p_j p_k,        p = a (y = 0) or b (y = 1),

so that the pair's four joint probabilities given ``Y = y`` are

    P(A_j = x_j, A_k = x_k | Y = y) = f_j(x_j) f_k(x_k) + s c_y,
    f_j(x) = p_j^x (1 - p_j)^(1 - x),  s = (2 x_j - 1)(2 x_k - 1).

The marginal channels ``(a_j, b_j)`` keep their meaning (a pair's covariance sums out of
either margin), so the correction, NC-ECE and ``posterior_ece`` use them unchanged.

**Bounds.**  The four probabilities are non-negative exactly when

    L_y = -min(p_j p_k, (1 - p_j)(1 - p_k)) <= c_y <= min(p_j (1 - p_k), (1 - p_j) p_k) = U_y,

so the programs sample a share ``t_y ~ Uniform(0, 1)`` and set ``c_y = L_y + (U_y - L_y) t_y``:
every draw gives valid pattern probabilities.

**Pairs that share an annotator** (``a0 ~ a1`` and ``a1 ~ a2``) join at most
:data:`MAX_LINKED` annotators.  Given ``Y`` the joint of a tree's annotators ``M`` is the
junction-tree product of its pairs' tables,

    P(x_M | Y = y) = prod_{j in M} f_j(x_j) prod_{pairs (j, k)} (1 + s c_y / (f_j f_k)),

which is a probability distribution for any covariances within each pair's own bounds (the
product's factors are the pairs' tables over their margins): every share draw stays valid
however the pairs overlap, and each pair's table and each annotator's channel keep their
meaning.  Annotators not joined by a pair (``a0`` and ``a2`` above) are dependent given ``Y``
only through the pairs between them: their correlations multiply along the path.

Pairs that **close a cycle** (``a0 ~ a1``, ``a1 ~ a2``, ``a0 ~ a2``) get no such product:
pairwise terms alone on a cycle do not sum to 1, and Bahadur's truncated expansion can go
negative.  Their set answers from the pairwise log-linear model, the joint of maximum entropy
with the members' channels and the pairs' covariances (:mod:`bayescal.channels.cyclic_joint`);
on a tree that model is the product above, so the two are one family, and channels and
covariances keep their meaning on a cycle too.  The programs give a cycle's pairs their
conditional log odds ratios, which every value keeps valid.

**Missing labels.**  A pair that shares no annotator enters a pattern only when both of its
labels are observed (when one is missing the covariance sums out), so the pattern likelihood
of a row is the independent one times ``prod_pairs (1 + s c_y / (f_j f_k))`` over the fully
observed pairs.  A tree's missing answers are summed out exactly
(:func:`bayescal.channels.pattern_likelihood.dependence_log_factor`): a missing annotator
inside the tree still links its neighbours.

**Identification.**  Each pair adds two parameters.  :func:`require_dependence_identified`
counts them against the free cells of the data's (group, missingness) cells (necessary), then
checks the rank of the Jacobian of the cells' pattern probabilities at an estimate (counting
is not sufficient: four annotators in two dependent pairs count 13 parameters for 15 cells and
are not identified, as two four-category indicators of a binary class never are).  A crowd's
pairs are checked tree by tree, the other workers' channels held at the crowd's EM estimate:
:func:`require_crowd_pairs_counted` counts the items that inform each pair, then
:func:`require_crowd_pairs_ranked` checks the rank of each tree's Fisher information
(:func:`crowd_block_identification`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from typing import NamedTuple

import numpy as np
from scipy import special

from .._api import moved_names, warn_caller
from ..data.cells import CellStatistics
from ..exceptions import IdentificationError, WeakIdentificationWarning
from . import cyclic_joint, pattern_likelihood
from .co_labelling import free_cells

__all__ = [
    "DependentPairs",
    "Identification",
    "child_chance",
    "crowd_block_identification",
    "dependent_pairs",
    "draw_order",
    "every_dependent_pair",
    "identification_at",
    "member_answers",
    "pair_table",
    "require_crowd_pairs_counted",
    "require_crowd_pairs_ranked",
    "require_dependence_identified",
    "tree_order",
    "warn_unchecked",
]

#: Singular values of the pattern-probability Jacobian below this share of the largest one
#: count as zero (not identified; central differences are accurate to about 1e-10).
RANK_TOLERANCE = 1e-7
#: A standard error above this, for the worst-determined combination of the parameters on
#: the probability scale, is weak identification (a warning).
WEAK_STANDARD_ERROR = 0.25
#: The most annotators dependent pairs may join through shared annotators: a tree's likelihood
#: sums ``2^(m - 1)`` subsets of its pairs, a cycle's joint ``2^m`` answer patterns.
MAX_LINKED = 6
#: Items both workers of a crowd's dependent pair labelled, each beside two other labels or
#: gold, below which the pair is refused (:func:`require_crowd_pairs_counted`).
MIN_PAIR_ITEMS = 20


@dataclass(frozen=True, eq=False)
class DependentPairs:
    """Named pairs of annotators whose errors may be correlated given ``Y``.

    Attributes
    ----------
    names : tuple of (str, str)
        The pairs as the user named them, in the data's annotator names.
    index : ndarray of int, shape (D, 2)
        Their columns in the data.
    """

    names: tuple[tuple[str, str], ...]
    index: np.ndarray

    @property
    def n_pairs(self) -> int:
        return len(self.names)

    @property
    def labels(self) -> tuple[str, ...]:
        """``"j ~ k"`` for each pair: the coordinate names of the covariances."""
        return tuple(f"{j} ~ {k}" for j, k in self.names)

    def __bool__(self) -> bool:
        return bool(self.names)


def dependent_pairs(dependent, annotator_names, *, name: str = "dependent") -> DependentPairs:
    """Validate ``dependent`` against the data's annotators.

    Parameters
    ----------
    dependent : None, a pair of names, or a sequence of pairs of names
        ``None`` or ``()`` for no dependence; ``("j0", "j1")`` for one pair;
        ``[("j0", "j1"), ("j2", "j3")]`` for several.  Names are the data's annotator names.
    annotator_names : sequence of str
    name : str
        The argument's name in error messages.

    Raises
    ------
    TypeError, ValueError
        For anything that is not pairs of two different known names, and for pairs that join
        more than :data:`MAX_LINKED` annotators (see the module docstring).
    """
    names = tuple(str(n) for n in annotator_names)
    if dependent is None:
        return DependentPairs((), np.zeros((0, 2), np.int64))
    if isinstance(dependent, (str, bytes)) or not hasattr(dependent, "__iter__"):
        raise TypeError(
            f"{name} must be pairs of annotator names, e.g. [('j0', 'j1')]; saw {dependent!r}"
        )
    pairs = list(dependent)
    if len(pairs) == 2 and all(isinstance(x, str) for x in pairs):
        pairs = [tuple(pairs)]  # one pair given bare: ("j0", "j1")
    checked, index = [], []
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"{name}: each pair must be two annotator names; saw {pair!r}")
        first, second = (str(x) for x in pair)
        for member in (first, second):
            if member not in names:
                raise ValueError(
                    f"{name}: {member!r} is not an annotator of the data; they are {list(names)}"
                )
        if first == second:
            raise ValueError(f"{name}: a pair needs two different annotators; saw {pair!r}")
        for earlier in checked:
            if {first, second} == set(earlier):
                raise ValueError(
                    f"{name}: the pair {(first, second)} is given twice (as {earlier} and "
                    f"{(first, second)}); give each pair once"
                )
        checked.append((first, second))
        index.append((names.index(first), names.index(second)))
    index = np.array(index, np.int64).reshape(-1, 2)
    for linked in pattern_likelihood.linked_sets(index):
        named = [checked[d] for d in linked.pairs]
        if linked.members.size > MAX_LINKED:
            raise ValueError(
                f"{name}: the pairs {named} join {linked.members.size} annotators; at most "
                f"{MAX_LINKED} may be joined through shared annotators (their joint sums over "
                f"2^m answer patterns)"
            )
    return DependentPairs(tuple(checked), index)


def pair_table(first, second, covariance) -> tuple:
    """The joint probabilities ``(p00, p01, p10, p11)`` of two binary labels, ``p_xy =
    P(A_j = x, A_k = y)``, with marginal rates ``f, s`` (``first, second``) and covariance
    ``c`` (``covariance``; module docstring): ``p11 = f s + c``, ``p10 = f (1 - s) - c``,
    ``p01 = (1 - f) s - c``, ``p00 = (1 - f)(1 - s) + c``; the three broadcast."""
    return (
        (1.0 - first) * (1.0 - second) + covariance,
        (1.0 - first) * second - covariance,
        first * (1.0 - second) - covariance,
        first * second + covariance,
    )


def tree_order(linked, index) -> list[tuple[int, int, int]]:
    """The pairs of a tree (a :class:`~bayescal.channels.pattern_likelihood.LinkedSet` of the
    pairs ``index`` (D, 2)) as ``(pair, parent, child)``, grown from the tree's first member so
    that every parent comes before its children: the order in which the tree's answers are
    drawn, each child's from its parent's through their pair's table (:func:`child_chance`)."""
    if not linked.is_tree:
        raise ValueError(
            f"the pairs {index[linked.pairs].tolist()} close a cycle: they have no parent-first "
            "order (their joint is log-linear, bayescal.channels.cyclic_joint)"
        )
    order, reached = [], {int(linked.members[0])}
    remaining = [int(d) for d in linked.pairs]
    while remaining:
        for d in remaining:
            j, k = (int(x) for x in index[d])
            if j in reached or k in reached:
                parent, child = (j, k) if j in reached else (k, j)
                order.append((d, parent, child))
                reached.add(child)
                remaining.remove(d)
                break
    return order


def draw_order(index) -> list[tuple[int, int, int]]:
    """Every dependent pair of ``index`` (D, 2) as ``(pair, parent, child)``, in an order in
    which each pair's parent answer is drawn before its child's: a pair that shares no
    annotator as named, each tree by :func:`tree_order`."""
    index = np.asarray(index, np.int64).reshape(-1, 2)
    trees = pattern_likelihood.linked_sets(index)
    alone = [(int(d), *map(int, index[d])) for d in pattern_likelihood.lone_pairs(index, trees)]
    return alone + [step for tree in trees for step in tree_order(tree, index)]


def child_chance(parent_answer, parent_rate, child_rate, covariance):
    """``P(child = 1 | the parent's answer)`` of a dependent pair given ``Y``: ``P(that
    answer, 1) / f_parent(that answer)`` from the pair's table (:func:`pair_table`) with
    marginal rates ``parent_rate`` and ``child_rate`` and ``covariance`` (all broadcast; NumPy
    or JAX arrays)."""
    _, p01, _, p11 = pair_table(parent_rate, child_rate, covariance)
    return (parent_answer == 1) * p11 / parent_rate + (parent_answer != 1) * p01 / (
        1.0 - parent_rate
    )


def every_dependent_pair(index, a, b, covariance) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of annotators that the dependent pairs ``index`` (D, 2) correlate given
    ``Y``, with its covariances (D', 2) given ``Y = 0, 1``: the pairs named, and within each
    tree (module docstring) every other pair of its members, whose correlation is the product
    of the named pairs' correlations ``c / sqrt(p_j (1 - p_j) p_k (1 - p_k))`` along the path
    between them (a tree is Markov along its paths); within a set whose pairs close a cycle,
    every other pair's covariance under the set's log-linear joint.  ``a, b`` (K,) are the
    channels and ``covariance`` (D, 2) the named pairs'."""
    index = np.asarray(index, np.int64).reshape(-1, 2)
    covariance = np.asarray(covariance, np.float64).reshape(-1, 2)
    spread = np.sqrt(np.stack([a, b], axis=-1) * (1.0 - np.stack([a, b], axis=-1)))  # (K, 2)
    named = {frozenset(pair) for pair in index.tolist()}
    pairs, covariances = [index], [covariance]
    for linked in pattern_likelihood.linked_sets(index):
        induced = [
            (j, k)
            for j, k in combinations(linked.members.tolist(), 2)
            if frozenset((j, k)) not in named
        ]
        pairs.append(np.array(induced, np.int64).reshape(-1, 2))
        if not linked.is_tree:  # read off the joint (bayescal.channels.cyclic_joint)
            covariances.append(_cycle_covariances(linked, index, a, b, covariance, induced))
            continue
        # each member's correlation with every member reached before it: its parent's, times
        # their pair's correlation (the tree grown parent before child)
        position = {int(j): i for i, j in enumerate(linked.members)}
        correlation = np.zeros((linked.members.size, linked.members.size, 2))
        reached = [position[int(linked.members[0])]]
        for d, parent, child in tree_order(linked, index):
            rho = covariance[d] / (spread[parent] * spread[child])  # (2,)
            p, c = position[parent], position[child]
            correlation[c, reached] = correlation[p, reached] * rho
            correlation[c, p] = rho
            correlation[reached, c] = correlation[c, reached]
            reached.append(c)
        covariances.append(
            np.array(
                [correlation[position[j], position[k]] * spread[j] * spread[k] for j, k in induced]
            ).reshape(-1, 2)
        )
    return np.concatenate(pairs), np.concatenate(covariances)


def _cycle_covariances(linked, index, a, b, covariance, induced) -> np.ndarray:
    """The covariances (D', 2) of the pairs ``induced`` among the members of a set whose
    pairs close a cycle, from its log-linear joint given ``Y = 0, 1``."""
    position = {int(j): i for i, j in enumerate(linked.members)}
    x = cyclic_joint.states(linked.members.size)
    columns = []
    for y, rates in enumerate((a, b)):
        p = rates[linked.members]
        joint = np.exp(
            cyclic_joint.joint_of_covariance(p, covariance[linked.pairs, y], linked.ends(index))
        )
        columns.append(
            [
                joint @ (x[:, position[j]] * x[:, position[k]]) - p[position[j]] * p[position[k]]
                for j, k in induced
            ]
        )
    return np.array(columns, np.float64).T.reshape(-1, 2)


def mask_combinations(mask: np.ndarray) -> np.ndarray:
    """Every response pattern an item labelled by the annotators of ``mask`` (bool, K) can
    show: (2^m, K), with -1 for the annotators outside the mask."""
    rows = np.full((1 << int(mask.sum()), mask.size), -1, np.int64)
    rows[:, mask] = np.array(list(product((0, 1), repeat=int(mask.sum()))), np.int64).reshape(
        rows.shape[0], -1
    )
    return rows


def _cells(counts: CellStatistics, grouped: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every response combination of the data's (group, missingness) cells: rows (R, K),
    their group index (R,) and the items of their cell (R,)."""
    groups = np.unique(counts.groups, return_inverse=True)[1] if grouped else None
    observed = counts.patterns >= 0
    keys = observed if groups is None else np.column_stack([groups, observed])
    cells, cell_of_row = np.unique(keys, axis=0, return_inverse=True)
    items = np.bincount(cell_of_row.ravel(), weights=counts.counts, minlength=len(cells))
    rows, row_group, row_items = [], [], []
    for key, size in zip(cells, items):
        combinations = mask_combinations(key[-observed.shape[1] :].astype(bool))
        rows.append(combinations)
        row_group.append(np.full(len(combinations), 0 if groups is None else key[0]))
        row_items.append(np.full(len(combinations), size))
    return np.concatenate(rows), np.concatenate(row_group), np.concatenate(row_items)


def _unstacked(theta, n_annotators: int, n_groups: int, n_pairs: int, difficulty: bool):
    """``(a, b, prevalence, covariance, loading)`` of the stacked parameters ``theta``."""
    k, start = n_annotators, 2 * n_annotators + n_groups
    covariance = theta[start : start + 2 * n_pairs].reshape(n_pairs, 2)
    loading = theta[start + 2 * n_pairs :] if difficulty else None
    return theta[:k], theta[k : 2 * k], theta[2 * k : start], covariance, loading


def _cell_probabilities(theta, rows, row_group, layout, pairs):
    """Pattern probabilities of ``rows`` at the stacked parameters ``theta`` (``layout``:
    annotators, groups, pairs, difficulty)."""
    a, b, prevalence, covariance, loading = _unstacked(theta, *layout)
    with np.errstate(divide="ignore"):  # a step past a covariance bound empties a cell: log 0
        return np.exp(
            pattern_likelihood.pattern_log_prob(
                a,
                b,
                prevalence[row_group],
                (rows == 1) * 1.0,
                (rows == 0) * 1.0,
                pairs=pairs,
                covariance=covariance,
                loading=loading,
            )
        )


class Identification(NamedTuple):
    """What :func:`identification_at` measures at an estimate."""

    #: singular values of the Jacobian, largest first, each as a share of the largest
    relative_singular_values: np.ndarray
    #: the standard error of the worst-determined combination of the parameters (unit
    #: length), from the cells' multinomial information at the data's cell sizes
    worst_standard_error: float


def identification_at(
    counts: CellStatistics, grouped: bool, pairs, estimate
) -> Identification | None:
    """The Jacobian of every cell's pattern probabilities with respect to ``(a, b,
    prevalence, covariance, loading)`` at ``estimate`` (a tuple of those five; ``covariance``
    (D, 2), ``loading`` (2,) or None without shared difficulty), by central differences.  The
    model is locally identified there when no singular value is zero (Rothenberg 1971): the
    cell probabilities are what the data estimate.  The Fisher information ``sum_r n_r J_r
    J_r^T / p_r`` (``n_r`` the items of row ``r``'s cell) says how well the data pin the worst
    direction down.  None when the Jacobian is not finite (a rate on the edge of [0, 1])."""
    rows, row_group, row_items = _cells(counts, grouped)
    a, b, prevalence, covariance, loading = estimate
    a, b, covariance = (np.asarray(x, np.float64) for x in (a, b, covariance))
    prevalence = np.atleast_1d(np.asarray(prevalence, np.float64))
    loading = None if loading is None else np.asarray(loading, np.float64)
    layout = (a.size, prevalence.size, len(pairs), loading is not None)
    parts = [a, b, prevalence, covariance.ravel()] + ([] if loading is None else [loading])
    theta = np.concatenate(parts)
    step = 1e-6
    # the rates and class proportions stay inside (0, 1) (an estimate may sit on an edge),
    # the loadings at or above 0: a one-sided difference there
    n_rates = 2 * a.size + prevalence.size
    columns = []
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        if i < n_rates:
            up[i], down[i] = min(up[i], 1.0 - 1e-12), max(down[i], 1e-12)
        elif i >= n_rates + covariance.size:
            down[i] = max(down[i], 0.0)
        # at a rate on its edge some cell's log is undefined: the non-finite Jacobian that
        # results is the answer (None, below), so NumPy's warning about it is not said
        with np.errstate(invalid="ignore", divide="ignore"):
            columns.append(
                (
                    _cell_probabilities(up, rows, row_group, layout, pairs)
                    - _cell_probabilities(down, rows, row_group, layout, pairs)
                )
                / (up[i] - down[i])
            )
    jacobian = np.column_stack(columns)
    if not np.isfinite(jacobian).all():  # a rate on its edge: a log of 0 in some cell
        return None
    singular = np.linalg.svd(jacobian, compute_uv=False)
    probabilities = _cell_probabilities(theta, rows, row_group, layout, pairs)
    weighted = jacobian * np.sqrt(row_items / np.maximum(probabilities, 1e-300))[:, None]
    information = np.linalg.svd(weighted, compute_uv=False)[-1]
    return Identification(singular / singular[0], float(1.0 / max(information, 1e-300)))


def _what_would_identify(grouped: bool) -> str:
    where = "more score groups" if grouped else "score groups (model='hui_walter')"
    return (
        f"what would identify it: more annotators outside the dependent pairs (three "
        "conditionally independent blocks, a pair or a set of linked pairs counting as one), "
        f"{where} whose class proportions differ, or fewer dependent pairs"
    )


def require_dependence_identified(
    counts: CellStatistics,
    grouped: bool,
    pairs: DependentPairs,
    where: str,
    estimate=None,
    difficulty: bool = False,
) -> None:
    """Refuse a dependence structure (dependent pairs, or the shared difficulty's loadings)
    the data cannot identify, before any sampling; warn (:class:`WeakIdentificationWarning`)
    when it is weakly identified.

    First the count: ``2 K + L + 2 D (+ 2)`` parameters (K annotators, L class proportions, D
    pairs, the two loadings) against ``sum_cells (2^m_c - 1)`` free cells, one cell per (score
    group, missingness mask) with ``m_c`` labels.  Then, with ``estimate`` (``(a, b,
    prevalence, covariance, loading)``, e.g. the dependent EM's), the rank of the cells'
    Jacobian and the worst standard error (:func:`identification_at`).
    """
    if not pairs and not difficulty:
        return
    what = (
        f"the dependent pairs {list(pairs.names)}"
        if pairs
        else "the shared-difficulty model (one loading per class)"
    )
    n_annotators = counts.patterns.shape[1]
    n_groups = np.unique(counts.groups).size if grouped else 1
    parameters = 2 * n_annotators + n_groups + 2 * pairs.n_pairs + (2 if difficulty else 0)
    free = free_cells(counts, grouped)
    if parameters > free:
        raise IdentificationError(
            f"{where}: {what} cannot be identified: the model has {parameters} parameters "
            f"({n_annotators} annotators, {n_groups} class proportion(s), "
            + ("2 covariances per pair" if pairs else "2 loadings")
            + f") for {free} free cells of the data; "
            + _what_would_identify(grouped)
        )
    if estimate is None:
        return
    measured = identification_at(counts, grouped, pairs.index, estimate)
    if measured is None:
        raise IdentificationError(
            f"{where}: {what} cannot be checked for identification: the estimate puts a "
            "channel on the edge (a rate of 0 or 1, e.g. an annotator copied by another, "
            "whose labels the model then takes for the truth) or a pair's covariance on the "
            "edge of the joints it can have (a pattern of probability 0), where the pattern "
            "probabilities have no derivative"
        )
    relative = measured.relative_singular_values
    deficient = int((relative < RANK_TOLERANCE).sum())
    if deficient:
        raise IdentificationError(
            f"{where}: {what} cannot be identified: the Jacobian of the pattern probabilities "
            f"has rank {parameters - deficient} for {parameters} parameters at the estimate "
            f"(counting {parameters} parameters for {free} cells is necessary, not "
            "sufficient); " + _what_would_identify(grouped)
        )
    if measured.worst_standard_error > WEAK_STANDARD_ERROR:
        warn_caller(
            f"{where}: {what} is weakly identified: at the estimate some combination of the "
            f"parameters has a standard error of {measured.worst_standard_error:.2f} on the "
            f"probability scale with {counts.counts.sum():.0f} items; expect wide intervals "
            "and slow mixing. " + _what_would_identify(grouped).capitalize(),
            WeakIdentificationWarning,
        )


def warn_unchecked(estimate, where: str) -> None:
    """One line when EM found no estimate (``estimate`` None) to check a dependence
    structure's rank at: only its parameters were counted."""
    if estimate is None:
        warn_caller(
            f"{where}: EM found no estimate to check the Jacobian's rank at; only the "
            "parameters were counted (against the data's cells, or a crowd pair's items)",
            WeakIdentificationWarning,
        )


def require_crowd_pairs_counted(responses, pairs: DependentPairs, where: str) -> None:
    """Refuse a crowd's dependent pair whose two workers labelled fewer than
    :data:`MIN_PAIR_ITEMS` items together beside two labels of workers outside the pair's tree
    (or a gold label).  A crowd's pair covariance is learnt from those items alone, where the
    pair's tree and the two others are the three conditionally independent blocks that
    identify a latent class (a tree beside one other label is two blocks, as three annotators
    with a pair are not identified).  Counting is necessary, not sufficient: labels from
    spammers tell nothing of the class (:func:`require_crowd_pairs_ranked`)."""
    trees = pattern_likelihood.linked_sets(pairs.index)
    for (j, k), (first, second) in zip(pairs.names, pairs.index):
        block = next((t.members for t in trees if first in t.members), [first, second])
        outside = ~np.isin(responses.annotator, block)
        told = np.bincount(responses.item[outside], minlength=responses.n_items) >= 2
        if responses.has_gold:
            told |= responses.gold >= 0
        both = np.intersect1d(
            responses.item[responses.annotator == first],
            responses.item[responses.annotator == second],
        )
        informative = int(told[both].sum())
        if informative < MIN_PAIR_ITEMS:
            raise IdentificationError(
                f"{where}: the dependent pair ({j!r}, {k!r}) labelled {informative} items "
                f"together beside two labels from outside its pairs, or gold; its covariances "
                f"need at least "
                f"{MIN_PAIR_ITEMS} (a crowd's pair is learnt from the items both labelled, "
                "where the other labels tell the class)"
            )


def require_crowd_pairs_ranked(responses, pairs: DependentPairs, where: str, estimate) -> None:
    """Refuse a crowd's tree of dependent pairs whose information is singular at ``estimate``
    (``(a, b, prevalence)``, e.g. the crowd's EM channels; :func:`crowd_block_identification`);
    warn (:class:`WeakIdentificationWarning`) when its worst-determined combination has a
    standard error above :data:`WEAK_STANDARD_ERROR`."""
    for named, measured in crowd_block_identification(responses, pairs, estimate):
        relative = measured.relative_singular_values
        deficient = int((relative < RANK_TOLERANCE).sum())
        what = (
            f"the dependent pairs {named}" if len(named) > 1 else f"the dependent pair {named[0]}"
        )
        if deficient:
            raise IdentificationError(
                f"{where}: {what} cannot be identified: with the other workers' channels at "
                f"the crowd's EM estimate, the information on its workers' channels and its "
                f"covariances has rank {relative.size - deficient} for {relative.size} "
                "parameters; the other labels on its items do not tell the class (their "
                "workers answer alike whatever the class, as spammers and workers who always "
                "give one answer do); add labels of informative workers there, or gold items"
            )
        if measured.worst_standard_error > WEAK_STANDARD_ERROR:
            warn_caller(
                f"{where}: {what} is weakly identified: with the other workers' channels at "
                "the crowd's EM estimate, some combination of the pairs' channels and "
                f"covariances has a standard error of {measured.worst_standard_error:.2f} on "
                "the probability scale; expect wide intervals and slow mixing. Add labels of "
                "informative workers to the pairs' items, or gold items",
                WeakIdentificationWarning,
            )


def member_answers(responses, members: np.ndarray) -> np.ndarray:
    """The answers (n, m) of the workers ``members`` (m,; columns, ascending) on every item
    of ``responses``, -1 where one gave no label."""
    answers = np.full((responses.n_items, members.size), -1, np.int64)
    mine = np.isin(responses.annotator, members)
    answers[responses.item[mine], np.searchsorted(members, responses.annotator[mine])] = (
        responses.label[mine]
    )
    return answers


def crowd_block_identification(
    responses, pairs: DependentPairs, estimate
) -> list[tuple[list[tuple[str, str]], Identification]]:
    """How well a crowd identifies each tree of its dependent pairs (a pair that shares no
    annotator is a tree of two; pairs that close a cycle are one set too), given the other
    workers' channels.

    With ``estimate = (a, b, prevalence)`` (``a, b`` (K,), e.g. the crowd's EM channels), the
    labels of the workers outside a tree ``M`` (and gold) give each item ``i`` the class
    weights ``w_iy = P(Y = y | outside labels)``.  The tree's answers on item ``i`` then have
    the probabilities ``q_i(s) = sum_y w_iy P(s | Y = y; theta)`` over the patterns ``s`` of the
    members who labelled it, ``theta`` the members' ``(a, b)`` and the pairs' covariances (at
    0, the independent point).  The rows ``dq_i(s) / sqrt(q_i(s))`` (derivatives by central
    differences, items stacked) have the Fisher information ``sum_i sum_s dq dq^T / q`` as
    their Gram matrix: the tree is locally identified with the others held fixed when no singular
    value is zero (Rothenberg 1971), and ``1 / sigma_min`` is the standard error of its
    worst-determined combination (:class:`Identification`).  The others' channels held fixed
    is what a crowd can assume: each is learnt from its own items across the crowd.

    Returns the pairs of each tree by name and their :class:`Identification`, the trees
    first, then the pairs that share no annotator.
    """
    a, b, prevalence = estimate
    # a rate on the edge has no derivative and its log-ratio is infinite: the check point
    # stays just inside (identification is a property of the neighbourhood)
    a, b = (np.clip(np.asarray(x, np.float64), 1e-3, 1.0 - 1e-3) for x in (a, b))
    trees = pattern_likelihood.linked_sets(pairs.index)
    blocks = [(t.members, t.pairs) for t in trees] + [
        (np.sort(pairs.index[d]), np.array([d]))  # a pair may name its later column first
        for d in pattern_likelihood.lone_pairs(pairs.index, trees)
    ]
    measured = []
    for members, block_pairs in blocks:
        weights = _outside_class_weights(responses, members, a, b, float(prevalence))
        local = np.searchsorted(members, pairs.index[block_pairs])
        theta = np.concatenate([a[members], b[members], np.zeros(2 * block_pairs.size)])
        answers = member_answers(responses, members)
        labelled = (answers >= 0).any(axis=1)
        masks, mask_of_item = np.unique(answers[labelled] >= 0, axis=0, return_inverse=True)
        upper = np.zeros((0, theta.size))  # R of the stacked Jacobian's QR, grown mask by mask
        for which, mask in enumerate(masks):
            rows = mask_combinations(mask)
            given, slopes = _block_pattern_probabilities(theta, rows, local)  # (r, 2), (r, 2, p)
            w = weights[labelled][mask_of_item.ravel() == which]  # (n_m, 2)
            chunk = max(1, 200_000 // len(rows))  # items a QR update stacks, in memory bounds
            for start in range(0, len(w), chunk):
                q = w[start : start + chunk] @ given.T  # (n, r)
                dq = np.einsum("ny,ryp->nrp", w[start : start + chunk], slopes)
                stacked = (dq / np.sqrt(q)[..., None]).reshape(-1, theta.size)
                upper = np.linalg.qr(np.vstack([upper, stacked]), mode="r")
        # fewer rows than parameters leave the missing singular values at 0
        singular = np.zeros(theta.size)
        found = np.linalg.svd(upper, compute_uv=False)
        singular[: found.size] = found
        # no item of the tree at all: no information, rank 0 (not 0 / 0)
        relative = singular / singular[0] if singular[0] > 0 else np.zeros_like(singular)
        named = [pairs.names[d] for d in block_pairs]
        measured.append((named, Identification(relative, float(1.0 / max(singular[-1], 1e-300)))))
    return measured


def _outside_class_weights(responses, members, a, b, prevalence: float) -> np.ndarray:
    """``P(Y = y | the labels of the workers outside members, or gold)`` of every item (n, 2)
    at the channels ``a, b`` (K,) and ``prevalence``, the outside workers independent."""
    outside = ~np.isin(responses.annotator, members)
    worker, label = responses.annotator[outside], responses.label[outside]
    ratio = np.where(
        label == 1,
        np.log(b[worker]) - np.log(a[worker]),
        np.log1p(-b[worker]) - np.log1p(-a[worker]),
    )
    prior = np.log(prevalence) - np.log1p(-prevalence)
    one = special.expit(
        prior + np.bincount(responses.item[outside], ratio, minlength=responses.n_items)
    )
    if responses.has_gold:
        one = np.where(responses.gold >= 0, responses.gold, one)
    return np.column_stack([1.0 - one, one])


def _block_pattern_probabilities(theta, rows, local) -> tuple[np.ndarray, np.ndarray]:
    """``P(s | Y = y)`` of the tree's patterns ``rows`` (r, m; -1 missing) at ``theta = (a_M,
    b_M, covariances)`` (the pairs ``local`` (E, 2) in the tree's columns), (r, 2), and its
    derivatives (r, 2, p) by central differences."""
    m = rows.shape[1]
    positive, negative = (rows == 1) * 1.0, (rows == 0) * 1.0

    def probabilities(x):
        covariance = x[2 * m :].reshape(-1, 2)
        log0, log1 = pattern_likelihood.class_log_likelihoods(
            x[:m], x[m : 2 * m], positive, negative, np, local, covariance
        )
        return np.exp(np.column_stack([log0, log1]))

    step = 1e-6
    slopes = np.empty((len(rows), 2, theta.size))
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        slopes[:, :, i] = (probabilities(up) - probabilities(down)) / (2 * step)
    return probabilities(theta), slopes


# The pattern likelihoods every model shares moved to their own module in 0.2.
__getattr__ = moved_names(
    "bayescal.channels.dependence",
    {
        name: f"bayescal.channels.pattern_likelihood:{name}"
        for name in (
            "class_log_likelihoods",
            "covariance_bounds",
            "covariance_from_share",
            "pattern_log_prob",
        )
    },
)
