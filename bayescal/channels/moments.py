"""Closed-form channel estimators: Hui–Walter two-group inverse and the third-moment inverse.

Both run on the pattern counts of :meth:`AnnotatedScores.compress`.  With missing responses each
moment uses the items on which its annotators all answered (available-case moments), which is
consistent when responses are missing independently of the labels.  They do not read gold labels:
the moments of the annotations alone identify them, so gold neither helps nor harms them; the
EM estimators and the Bayesian models are the ones that use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import combinations

import numpy as np

from .. import _validation as v
from .._api import old_spellings
from ..data.annotated_scores import require_binary
from ..data.cells import CellStatistics
from .base import (
    MIN_GROUP_ITEMS,
    ChannelFit,
    as_anchor,
    as_counts,
    failed,
    fitted,
    group_layout,
    records_options,
    warn_if_groups_inseparable,
    warn_saturated,
)
from .co_labelling import require_fittable

__all__ = ["hui_walter_moments", "third_moment"]


def group_moments(
    counts: CellStatistics, columns: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group, over the items on which every annotator in ``columns`` answered:
    the item count ``n_g`` (L,), the means ``E[A_j]`` (L, len(columns)) and the mean of the
    product ``E[prod_j A_j]`` (L,)."""
    _, index, _ = group_layout(counts)
    patterns = counts.patterns[:, list(columns)]
    complete = (patterns != v.MISSING).all(axis=1) * counts.counts
    n = np.bincount(index, weights=complete)
    means = np.stack([np.bincount(index, weights=complete * (p == 1)) for p in patterns.T], axis=1)
    product = np.bincount(index, weights=complete * (patterns == 1).all(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return n, means / n[:, None], product / n


def _pair_covariance(counts: CellStatistics, j: int, k: int) -> np.ndarray:
    """Per-group ``Cov(A_j, A_k)`` on the items where both answered."""
    _, means, product = group_moments(counts, (j, k))
    return product - means[:, 0] * means[:, 1]


@dataclass(frozen=True, eq=False)
class TwoAnnotatorMoments:
    """Per-group moments of two annotators (rows ordered as ``group_ids``)."""

    group_ids: np.ndarray
    group_counts: np.ndarray
    mean: np.ndarray  # (L, 2) E[A_j | g] over the items annotator j answered
    answered: np.ndarray  # (L, 2) those item counts
    product: np.ndarray  # (L,) E[A_1 A_2 | g] over the items both answered
    both: np.ndarray  # (L,) those item counts
    covariance: np.ndarray  # (L,) Cov(A_1, A_2 | g) over the items both answered


def two_annotator_moments(
    counts: CellStatistics, method: str, max_groups: int | None = None
) -> TwoAnnotatorMoments:
    """Checks shared by the Hui–Walter estimators, then their group moments.

    Raises for an unidentified set-up, a wrong number of annotators or groups, unusable
    annotators or too few items in a group; warns when the groups do not separate and when the
    model is saturated (two groups)."""
    n_annotators = counts.patterns.shape[1]
    group_ids, _, group_counts = group_layout(counts)
    require_fittable(counts, group_ids.size, method, uses_gold=False)
    if n_annotators != 2:
        raise ValueError(
            f"{method} needs exactly two annotators; saw {n_annotators} (use dawid_skene_em or grouped_em)"
        )
    if max_groups is not None and group_ids.size > max_groups:
        raise ValueError(
            f"{method} needs exactly two score groups; saw {group_ids.size} (use hui_walter_gmm for more)"
        )
    both, pair_means, product = group_moments(counts, (0, 1))
    small = np.flatnonzero(both < MIN_GROUP_ITEMS)
    if small.size:
        g = int(small[0])
        raise ValueError(
            f"{method}: score group {int(group_ids[g])} has {int(both[g])} item(s) answered by both "
            f"annotators; at least {MIN_GROUP_ITEMS} are needed for its moments"
        )
    # warnings point at the user's call: the old_spellings wrapper -> public function -> here
    warn_if_groups_inseparable(counts, method)
    if group_ids.size == 2:
        warn_saturated(method, "two annotators, two groups: 6 moments for 6 parameters")
    singles = [group_moments(counts, (j,)) for j in (0, 1)]
    return TwoAnnotatorMoments(
        group_ids=group_ids,
        group_counts=group_counts,
        mean=np.column_stack([single[1][:, 0] for single in singles]),
        answered=np.column_stack([single[0] for single in singles]),
        product=product,
        both=both,
        covariance=product - pair_means[:, 0] * pair_means[:, 1],
    )


@old_spellings()
@records_options
def hui_walter_moments(data, *, anchor=None) -> ChannelFit:
    """Closed-form Hui–Walter estimator: two annotators, two score groups (paper §4.2, App. D.2).

    With group moments ``q_jg = E[A_j | g]`` and ``c_g = Cov(A_1, A_2 | g) = d_1 d_2 mu_g (1 - mu_g)``:
    ``beta = (q_21 - q_20) / (q_11 - q_10) = d_2 / d_1``; ``h_g = c_g / beta + q_1g^2 =
    (a_1 + b_1) q_1g - a_1 b_1`` gives ``u = a_1 + b_1`` and ``v = a_1 b_1`` from the two groups;
    ``a_1 < b_1`` are the roots of ``q^2 - u q + v``; ``a_2 = q_2g - beta (q_1g - a_1)``,
    ``d_2 = beta d_1``, ``mu_g = (q_1g - a_1) / d_1``.

    The model is exactly identified (saturated): a :class:`SaturatedModelWarning` says so.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        Two annotator columns and ``groups`` with exactly two distinct ids, each with at least
        10 items answered by both annotators.
    anchor : int, optional
        Annotator whose gap must be positive; default: both.

    Returns
    -------
    ChannelFit
        ``prevalence`` has one entry per group.  A zero denominator, complex roots, an
        infeasible probability or a gap below 1e-4 give a fit with ``failure`` set, not numbers.
    """
    require_binary(data, "hui_walter_moments")
    counts = as_counts(data)
    method = "hui_walter_moments"
    moments = two_annotator_moments(counts, method, max_groups=2)
    anchor = as_anchor(anchor, 2)
    fail = partial(failed, method, counts, moments.group_ids, moments.group_counts, converged=True)
    q1, q2 = moments.mean[:, 0], moments.mean[:, 1]
    step1 = q1[1] - q1[0]
    if abs(step1) < 1e-12:
        return fail(
            f"zero denominator: annotator {counts.annotator_names[0]!r} has the same mean response in both groups"
        )
    beta = (q2[1] - q2[0]) / step1
    if beta == 0:
        return fail(
            f"zero denominator: annotator {counts.annotator_names[1]!r} has the same mean response in both groups"
        )
    h = moments.covariance / beta + q1**2
    # h_g = u q_1g - v on both groups: slope u = a1 + b1, intercept -v = -a1 b1.
    u = (h[1] - h[0]) / step1
    v_ = u * q1[0] - h[0]
    discriminant = u * u - 4 * v_
    if discriminant < 0:
        return fail(
            f"complex roots: the discriminant (a1 + b1)^2 - 4 a1 b1 = {discriminant:.3g} is negative"
        )
    d1 = np.sqrt(discriminant)
    a1 = (u - d1) / 2
    a2 = q2[0] - beta * (q1[0] - a1)
    a = np.array([a1, a2])
    b = a + np.array([d1, beta * d1])
    prevalence = (q1 - a1) / d1
    return fitted(
        method,
        counts,
        moments.group_ids,
        moments.group_counts,
        a,
        b,
        prevalence,
        anchor,
        marginal=False,
    )


@old_spellings()
@records_options
def third_moment(data, *, anchor=None, triple=None) -> ChannelFit:
    """Third-moment inverse for K >= 3 annotators, marginal model (paper Prop. D.2).

    For an informative triple (1, 2, 3): ``C_jk = Cov(A_j, A_k) = mu (1 - mu) d_j d_k``,
    ``T = E[(A_1 - q_1)(A_2 - q_2)(A_3 - q_3)]``; ``t = sign(C_12 C_13) T / sqrt(C_12 C_13 C_23)``,
    ``mu = (1 - t / sqrt(t^2 + 4)) / 2``, ``d_1 = sqrt(C_12 C_13 / (C_23 mu (1 - mu)))``,
    ``d_j = C_1j / (mu (1 - mu) d_1)``, ``a_j = q_j - mu d_j``.  Score groups are ignored.

    Parameters
    ----------
    data : AnnotatedScores or CellStatistics
        At least three annotators.
    anchor : int, optional
        Annotator whose gap must be positive; default: all.
    triple : tuple of three ints, optional
        Annotators to invert; default: the triple with the largest ``C_12 C_13 C_23``, the
        best-conditioned one.

    Returns
    -------
    ChannelFit
        With K = 3 the model is saturated and a :class:`SaturatedModelWarning` says so.
    """
    require_binary(data, "third_moment")
    counts = as_counts(data)
    method = "third_moment"
    n_annotators = counts.patterns.shape[1]
    marginal = counts.pooled()
    group_ids, _, group_counts = group_layout(marginal)
    require_fittable(counts, 1, method, uses_gold=False)
    anchor = as_anchor(anchor, n_annotators)
    covariance = np.zeros((n_annotators, n_annotators))
    for j, k in combinations(range(n_annotators), 2):
        covariance[j, k] = covariance[k, j] = _pair_covariance(marginal, j, k)[0]
    triple = _as_triple(triple, n_annotators) if triple is not None else _best_triple(covariance)
    if n_annotators == 3:
        warn_saturated(method, "three annotators: 7 moments for 7 parameters")
    fail = partial(failed, method, counts, group_ids, group_counts, converged=True)
    first, second, third = triple
    c12, c13, c23 = covariance[first, second], covariance[first, third], covariance[second, third]
    product = c12 * c13 * c23
    if not product > 0:
        names = [counts.annotator_names[j] for j in triple]
        return fail(
            f"annotators {names} have pairwise covariances whose product is {product:.3g} <= 0: no latent class explains them"
        )
    third = _central_third_moment(counts, triple)
    if third is None:  # sparse crowds: the pairs overlap, the three together never do
        names = [counts.annotator_names[j] for j in triple]
        return fail(f"annotators {names} never labelled an item together: no third moment")
    t = np.sign(c12 * c13) * third / np.sqrt(product)
    mu = (1 - t / np.sqrt(t * t + 4)) / 2
    spread = mu * (1 - mu)
    d_first = np.sqrt(c12 * c13 / (c23 * spread))
    gap = covariance[first] / (spread * d_first)
    gap[first] = d_first
    observed = (counts.patterns != v.MISSING) * counts.counts[:, None]
    q = ((counts.patterns == 1) * counts.counts[:, None]).sum(axis=0) / observed.sum(axis=0)
    a = q - mu * gap
    return fitted(
        method, counts, group_ids, group_counts, a, a + gap, np.array([mu]), anchor, marginal=True
    )


def _central_third_moment(counts: CellStatistics, triple: tuple[int, int, int]) -> float | None:
    """``E[(A_1 - q_1)(A_2 - q_2)(A_3 - q_3)]`` over the items on which all three answered
    (``None`` when there is none)."""
    patterns = counts.patterns[:, list(triple)]
    weight = (patterns != v.MISSING).all(axis=1) * counts.counts
    if weight.sum() == 0:
        return None
    centred = (patterns == 1) - (weight @ (patterns == 1)) / weight.sum()
    return float(weight @ centred.prod(axis=1) / weight.sum())


def _best_triple(covariance: np.ndarray) -> tuple[int, int, int]:
    """The triple with the largest ``C_12 C_13 C_23`` (each pair's covariance ∝ d_j d_k)."""
    return max(
        combinations(range(covariance.shape[0]), 3),
        key=lambda t: covariance[t[0], t[1]] * covariance[t[0], t[2]] * covariance[t[1], t[2]],
    )


def _as_triple(triple: object, n_annotators: int) -> tuple[int, int, int]:
    if isinstance(triple, str) or not hasattr(triple, "__len__") or len(triple) != 3:
        raise ValueError(f"triple must be three annotator indices; saw {triple!r}")
    chosen = tuple(v.as_int(j, "triple", minimum=0) for j in triple)
    if len(set(chosen)) != 3 or max(chosen) >= n_annotators:
        raise ValueError(
            f"triple must be three distinct annotator indices in [0, {n_annotators}); saw {list(chosen)}"
        )
    return chosen
