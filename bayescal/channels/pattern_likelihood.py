"""The likelihood of a response pattern given the class, for every channel model.

Annotators independent given ``Y`` give ``log p(s | Y = y) = sum_{j observed} [s_j log r_jy +
(1 - s_j) log(1 - r_jy)]`` (``r_j0 = a_j``, ``r_j1 = b_j``).  Dependent pairs add their
covariance terms (:mod:`bayescal.channels.dependence`; pairs linked through a shared annotator
form a tree or close a cycle, :func:`linked_sets`, :mod:`bayescal.channels.cyclic_joint`), the
shared difficulty integrates an item effect (:mod:`bayescal.channels.difficulty`), and
channels per score group give each row its own rates.  The EM estimators, the NumPyro programs, the posterior's replicated patterns
and the label probabilities (:mod:`bayescal.channels.label_posteriors`) all call these, so
each model's likelihood is written once.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

import numpy as np

from .cyclic_joint import covariance_of_interaction, cyclic_log_factor
from .difficulty import difficulty_class_log_likelihoods

__all__ = [
    "LinkedSet",
    "class_log_likelihoods",
    "covariance_bounds",
    "covariance_from_share",
    "dependence_log_factor",
    "interaction_from_share",
    "interaction_log_prior",
    "linked_sets",
    "lone_pairs",
    "pattern_log_prob",
]

#: The scale of the Logistic prior of a cycle's conditional log odds ratios in the programs
#: (:func:`interaction_from_share`): 2, so a pair's odds ratio passes e^5 = 148 either way
#: with prior probability 0.15, and copying-strength dependence stays within reach.
INTERACTION_SCALE = 2.0


def covariance_bounds(first, second, xp=np):
    """``(L, U)``: the covariances ``c`` that keep the four joint probabilities of two binary
    responses with marginal rates ``first`` and ``second`` non-negative (:mod:`bayescal.channels.dependence`)."""
    lower = -xp.minimum(first * second, (1.0 - first) * (1.0 - second))
    upper = xp.minimum(first * (1.0 - second), (1.0 - first) * second)
    return lower, upper


def covariance_from_share(share, a, b, index, xp=np):
    """Covariances (..., D, 2) (classes ``Y = 0, 1``) from shares (..., D, 2) in (0, 1), the
    programs' coordinates of the dependent pairs ``index`` (D, 2) at rates ``a`` (y = 0) and
    ``b`` (y = 1), each (..., K): a pair on no cycle takes ``c_y = L_y + (U_y - L_y) t_y``, the
    share of its bounds; a pair in a set that closes a cycle the covariance of the set's
    log-linear joint at the interactions :func:`interaction_from_share`."""
    cycles = [linked for linked in linked_sets(index) if not linked.is_tree]
    interaction = interaction_from_share(share, index, xp)
    covariances = []
    for y, rates in enumerate((a, b)):
        lower, upper = covariance_bounds(rates[..., index[:, 0]], rates[..., index[:, 1]], xp)
        covariance = lower + (upper - lower) * share[..., y]
        if cycles:
            columns = [covariance[..., d] for d in range(len(index))]
            for linked in cycles:
                of_set = covariance_of_interaction(
                    rates[..., linked.members],
                    interaction[..., linked.pairs, y],
                    linked.ends(index),
                    xp,
                )
                for e, d in enumerate(linked.pairs):
                    columns[d] = of_set[..., e]
            covariance = xp.stack(columns, axis=-1)
        covariances.append(covariance)
    return xp.stack(covariances, axis=-1)


def interaction_from_share(share, index, xp=np):
    """The conditional log odds ratios (..., D, 2) of the pairs ``index`` (D, 2) that close a
    cycle, from their shares (..., D, 2): ``J = INTERACTION_SCALE logit t``, so that a share
    ``t ~ Uniform(0, 1)`` puts a Logistic(0, :data:`INTERACTION_SCALE`) prior on ``J``
    (:mod:`bayescal.channels.cyclic_joint`); ``None`` when no pairs close a cycle (other pairs
    use their covariances)."""
    if all(linked.is_tree for linked in linked_sets(index)):
        return None
    return INTERACTION_SCALE * (xp.log(share) - xp.log1p(-share))


def interaction_log_prior(interaction, xp=np):
    """The Logistic(0, :data:`INTERACTION_SCALE`) log density of conditional log odds ratios
    (any shape): the prior :func:`interaction_from_share` sets on a cycle's pairs,
    ``-|x| - 2 log(1 + e^-|x|) - log s`` at ``x = J / s``."""
    scaled = xp.abs(interaction / INTERACTION_SCALE)
    return -scaled - 2.0 * xp.log1p(xp.exp(-scaled)) - np.log(INTERACTION_SCALE)


class LinkedSet(NamedTuple):
    """Annotators joined by dependent pairs that share annotators (:func:`linked_sets`)."""

    #: the annotators' columns (m,), m >= 3
    members: np.ndarray
    #: the pairs' positions in the pairs' index (E,); a tree has E = m - 1
    pairs: np.ndarray

    @property
    def is_tree(self) -> bool:
        return self.pairs.size == self.members.size - 1

    def ends(self, index) -> np.ndarray:
        """The set's pairs (E, 2) as positions among its members (``index`` (D, 2) the
        pairs' columns)."""
        position = {int(j): i for i, j in enumerate(self.members)}
        return np.array([[position[int(j)] for j in index[d]] for d in self.pairs], np.int64)


def linked_sets(index) -> tuple[LinkedSet, ...]:
    """The sets of three or more annotators that the pairs ``index`` (D, 2) join through a
    shared annotator (the connected parts of the graph whose edges are the pairs), in the order
    of their first pair.  A pair that shares no annotator is not a set: its term is the closed
    form of :func:`_pair_log_ratio`."""
    index = np.asarray(index, np.int64).reshape(-1, 2)
    root = {}

    def find(j):
        root.setdefault(j, j)
        while root[j] != j:
            root[j] = root[root[j]]
            j = root[j]
        return j

    for j, k in index.tolist():
        root[find(j)] = find(k)
    by_root = {}
    for d, j in enumerate(index[:, 0].tolist()):
        by_root.setdefault(find(j), []).append(d)
    sets = []
    for pairs in by_root.values():
        if len(pairs) > 1:
            members = np.unique(index[pairs])
            sets.append(LinkedSet(members, np.array(pairs, np.int64)))
    return tuple(sets)


def lone_pairs(index, linked: tuple[LinkedSet, ...]) -> np.ndarray:
    """The positions (in ``index`` (D, 2)) of the pairs that share no annotator: those in none
    of the trees ``linked`` (:func:`linked_sets` of ``index``)."""
    in_tree = [tree.pairs for tree in linked]
    return np.setdiff1d(np.arange(len(index)), np.concatenate([np.zeros(0, np.int64), *in_tree]))


def _linked_log_factor(positive, negative, linked: LinkedSet, index, rates, covariance, xp):
    """``log(P(s_M | Y = y) / prod_{j in M observed} f_j(s_j))`` of each row (..., P) for the
    annotators ``M`` of a tree of dependent pairs (:mod:`bayescal.channels.dependence`).

    With ``e_j(x) = (x - p_j) / sqrt(p_j (1 - p_j))`` the standardised answer and ``rho_e =
    c_e / sqrt(p_j (1 - p_j) p_k (1 - p_k))`` pair ``e = (j, k)``'s correlation, the tree's
    joint is ``prod_j f_j(x_j) prod_e (1 + rho_e e_j e_k)``.  Expanding the product over the
    subsets ``S`` of the pairs and summing each missing answer out (``E e_j^d = mu_j^d``, with
    ``mu^0 = 1`` and ``mu^1 = 0``) gives

        sum_S prod_{e in S} rho_e prod_{j in M} g_j(deg_S(j)),

    ``g_j(d) = e_j(s_j)^d`` for an observed answer and ``mu_j^d`` for a missing one: the exact
    marginal of the observed answers, with no completion of the missing ones (the rows' answers
    may be traced arrays inside a program).  ``S`` empty gives 1; every subset holding a
    missing leaf's pair vanishes.  The rates must lie strictly inside (0, 1), as the callers
    keep them (a rate of 0 or 1 has no correlation)."""
    members = linked.members
    p = rates[..., members]  # (..., m)
    spread = xp.sqrt(p * (1.0 - p))
    one, zero = (1.0 - p) / spread, -p / spread  # e_j(1), e_j(0)
    ends = linked.ends(index)  # (E, 2)
    rho = covariance[..., linked.pairs] / (spread[..., ends[:, 0]] * spread[..., ends[:, 1]])
    pos, neg = positive[:, members], negative[:, members]  # (P, m)
    missing = 1.0 - pos - neg
    degrees = {}  # d -> g(d) (..., P, m), computed once per degree a subset needs
    total = 0.0
    for size in range(1, ends.shape[0] + 1):
        for subset in combinations(range(ends.shape[0]), size):
            degree = np.bincount(ends[list(subset)].ravel(), minlength=members.size)
            term = xp.prod(rho[..., list(subset)], axis=-1)[..., None]  # (..., 1)
            for node in np.flatnonzero(degree):
                d = int(degree[node])
                if d not in degrees:
                    moment = p * one**d + (1.0 - p) * zero**d
                    degrees[d] = (
                        pos * one[..., None, :] ** d
                        + neg * zero[..., None, :] ** d
                        + missing * moment[..., None, :]
                    )
                term = term * degrees[d][..., node]
            total = total + term
    # a covariance on its bound empties a pattern: a sum of -1, which rounding may overshoot
    return xp.log1p(xp.maximum(total, -1.0))


def dependence_log_factor(positive, negative, index, rates, covariance, xp, interaction=None):
    """The dependent pairs' correction of one class's independent log-likelihood, each row
    (..., P) (``rates`` (..., K), ``covariance`` (..., D)): the closed form of each pair that
    shares no annotator, :func:`_linked_log_factor` of each tree of pairs that do, and the
    pairwise log-linear joint of each set whose pairs close a cycle
    (:func:`~bayescal.channels.cyclic_joint.cyclic_log_factor`).  ``interaction`` (..., D), the
    pairs' conditional log odds ratios, gives a cycle's joint in the programs' coordinates
    (:mod:`bayescal.channels.cyclic_joint`) instead of its covariances; other pairs ignore it."""
    linked = linked_sets(index)
    if not linked:
        return _pair_log_ratio(positive, negative, index, rates, covariance, xp)
    alone = lone_pairs(index, linked)
    total = _pair_log_ratio(positive, negative, index[alone], rates, covariance[..., alone], xp)
    for linked_set in linked:
        if linked_set.is_tree:
            total = total + _linked_log_factor(
                positive, negative, linked_set, index, rates, covariance, xp
            )
            continue
        ends = linked_set.ends(index)
        pairs = linked_set.pairs
        total = total + cyclic_log_factor(
            positive,
            negative,
            linked_set.members,
            ends,
            rates,
            xp,
            covariance=None if interaction is not None else covariance[..., pairs],
            interaction=None if interaction is None else interaction[..., pairs],
        )
    return total


def _pair_log_ratio(positive, negative, index, rates, covariance, xp):
    """``sum_pairs log(1 + s c / (f_j f_k))`` of each row (..., P): the correction of one
    class's independent log-likelihood by pairs that share no annotator (``rates`` (..., K),
    ``covariance`` (..., D)); the one-pair case of :func:`_linked_log_factor`, whose missing
    answer sums the term out (``mu^1 = 0``)."""
    first, second = index[:, 0], index[:, 1]
    sign = positive - negative  # +1, -1, or 0 where missing
    both = sign[:, first] * sign[:, second]  # (P, D): s, or 0 unless both are observed

    def factor(column):
        p = rates[..., None, column]  # (..., 1, D)
        missing = 1.0 - positive[:, column] - negative[:, column]
        return positive[:, column] * p + negative[:, column] * (1.0 - p) + missing

    ratio = both * covariance[..., None, :] / (factor(first) * factor(second))
    # a covariance on its bound empties a cell: ratio -1, which rounding may overshoot
    return xp.log1p(xp.maximum(ratio, -1.0)).sum(axis=-1)


def class_log_likelihoods(
    a,
    b,
    positive,
    negative,
    xp=np,
    pairs=None,
    covariance=None,
    loading=None,
    per_row=False,
    interaction=None,
):
    """``(log p(s_r | Y = 0), log p(s_r | Y = 1))`` of each row, each (..., P).

    ``a, b`` are (..., K), or with ``per_row`` (..., P, K): a channel per row (channels per
    score group);
    ``positive``/``negative`` (P, K) indicators of a 1 / 0 response;
    ``pairs`` (D, 2) and ``covariance`` (..., D, 2) add the dependent pairs' terms
    (:mod:`bayescal.channels.dependence`); ``interaction`` (..., D, 2), the programs'
    coordinates of the pairs that close a cycle (:func:`dependence_log_factor`); ``loading``
    (..., 2) makes it the shared-difficulty model of :mod:`bayescal.channels.difficulty`
    (``a, b`` its marginal channels).  ``xp`` is ``numpy``
    or ``jax.numpy``.
    """
    if (loading is not None or per_row) and pairs is not None and len(pairs):
        raise ValueError(
            "pairs: dependent pairs combine with neither a shared difficulty nor channels per "
            "score group"
        )
    if loading is not None:
        return difficulty_class_log_likelihoods(a, b, loading, positive, negative, xp)
    if per_row:
        log0 = (positive * xp.log(a) + negative * xp.log1p(-a)).sum(axis=-1)
        log1 = (positive * xp.log(b) + negative * xp.log1p(-b)).sum(axis=-1)
        return log0, log1
    log0 = xp.einsum("pk,...k->...p", positive, xp.log(a)) + xp.einsum(
        "pk,...k->...p", negative, xp.log1p(-a)
    )
    log1 = xp.einsum("pk,...k->...p", positive, xp.log(b)) + xp.einsum(
        "pk,...k->...p", negative, xp.log1p(-b)
    )
    if pairs is not None and len(pairs):
        log0, log1 = (
            log
            + dependence_log_factor(
                positive,
                negative,
                pairs,
                rates,
                covariance[..., y],
                xp,
                None if interaction is None else interaction[..., y],
            )
            for y, (log, rates) in enumerate(((log0, a), (log1, b)))
        )
    return log0, log1


def pattern_log_prob(
    a,
    b,
    prevalence_of_row,
    positive,
    negative,
    xp=np,
    pairs=None,
    covariance=None,
    loading=None,
    per_row=False,
    gold=None,
    interaction=None,
):
    """``log p(s_r | g_r)`` of each row: the latent label summed out by hand (log-sum-exp).

    ``a, b`` have shape (..., K) and ``prevalence_of_row`` (..., P); returns (..., P).  ``xp``
    is the array module: ``jax.numpy`` inside a model, ``numpy`` on posterior draws (where a
    JAX call would compile each operation on first use).  ``pairs``/``covariance``,
    ``loading`` and ``per_row`` as in :func:`class_log_likelihoods`.  ``gold`` (P,), each
    row's gold label (-1 for none): a gold row's class is known, so its term is
    ``log p(s_r | Y = g_r) + log P(Y = g_r)``, not the mixture.
    """
    log0, log1 = class_log_likelihoods(
        a, b, positive, negative, xp, pairs, covariance, loading, per_row, interaction
    )
    joint0 = xp.log1p(-prevalence_of_row) + log0
    joint1 = xp.log(prevalence_of_row) + log1
    mixture = xp.logaddexp(joint0, joint1)
    if gold is None:
        return mixture
    return xp.where(gold == 1, joint1, xp.where(gold == 0, joint0, mixture))
