"""Channels drawn from their posterior under calibration (H0), for the sampled-posterior p-value
of :func:`bayescal.calibration_test` with a BayesFit of the same items.

A sampled-posterior p-value is calibrated when the draw comes from the posterior of the model
the data are tested under (Johnson 2004, 2007; Gosselin 2011).  A BayesFit's posterior is of
the channels given the annotations alone, with a free class proportion; under H0 the model is

    Y_i ~ Bernoulli(Z_i),    A_ij | Y_i ~ Bernoulli(b_j if Y_i = 1 else a_j),

whose posterior also learns from the scores (measured: the fit's own posterior draws
rejected a calibrated predictor in 8% to 90% of replicates at the 5% level).  This module draws
from ``p(a, b | A, Z, H0)`` by Gibbs sampling with the true labels as latent data (Tanner &
Wong 1987), started at a draw of the fit::

    logit P(Y_i = 1 | a, b) = logit Z_i
        + sum_j [A_ij log(b_j / a_j) + (1 - A_ij) log((1 - b_j) / (1 - a_j))],
    a_j | Y ~ Beta(fp_1 + s0_j, fp_2 + n0_j - s0_j),
    b_j | Y ~ Beta(sens_1 + s1_j, sens_2 + n1_j - s1_j),

with ``n_yj`` the labels annotator j gave to items of class y and ``s_yj`` its 1s among them,
and the fit's Beta priors (:class:`~bayescal.Priors`), drawn by inverting their CDF.  No
annotator is held to ``a_j < b_j``, as in the fits: the flat models' fold (a prior restricted
to a positive population gap, :mod:`bayescal.models.orientation`) is left out, because
under H0 the scores orient the labels and leave next to no mass on the mirror image.

The hierarchical model's workers get the Priors' Betas too (uniform by default), not the
fitted population: a sparse worker's draw is then wide, and the statistic's IV weights at the
draw carry it.  The population as their prior (held at the fit's draw, each worker drawn by an
independence Metropolis–Hastings step) was measured and made the test reject a calibrated
predictor more often than the true channels do, by 3 to 8 points on three crowd designs
(benchmarks/RESULTS.md, "The calibration test on crowds"): the population pulls a worker of
few labels toward the others, and that pull, taken from the fit's posterior rather than H0's,
biases the corrected labels the statistic sums.  The workers of one label the model summed
out share one channel in the draw, as in the fit (their mean channel): drawn each on its own
from one label, their channels would take up any miscalibration (second bad-input catalogue,
row 87: p = 0.65 where known channels give 1e-23).

A dependent pair's members answer jointly given Y, and so do the members of a tree of pairs
that share annotators (:mod:`bayescal.channels.dependence`), or of pairs that close a cycle
(:mod:`bayescal.channels.cyclic_joint`): the latent classes see the joint of the answers each
item got from them, and each class's joint is drawn in place of its members' Betas, by
:class:`DependentTree` (a pair is a tree of two) or :class:`DependentCycle`.

A shared difficulty (:mod:`bayescal.channels.difficulty`) gives every item an effect that
every judge's answer depends on, which no conjugate step draws.  Its parameters are few
(``theta = (logit a, logit b, log beta)``, 2 K + 2 of them) and its likelihood under H0 is a
sum over items of one quadrature per answer pattern,

    log p(A | theta, Z, H0) = sum_i log[(1 - Z_i) p(A_i | Y = 0) + Z_i p(A_i | Y = 1)],

so :func:`h0_difficulty_draw` runs a random-walk Metropolis chain on ``theta`` from the fit's
draw, its normal steps shaped by the covariance of the fit's draws scaled by 2.38^2 / d
(Roberts, Gelman & Gilks 1997), with the fit's priors: its Betas of the channels and the
loadings' half-normal.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import special

from .. import _validation as v
from ..channels.crowd_em import shared_channel_index
from ..channels.cyclic_joint import (
    log_softmax,
    natural_parameters,
    states,
    statistic_moments,
    sufficient_statistics,
)
from ..channels.dependence import tree_order
from ..channels.difficulty import LOADING_SCALE, as_loadings, difficulty_class_log_likelihoods
from ..channels.pattern_likelihood import (
    LinkedSet,
    covariance_bounds,
    dependence_log_factor,
    interaction_log_prior,
    linked_sets,
    lone_pairs,
)
from ..data.responses import name_order

__all__ = [
    "H0_METROPOLIS_STEPS",
    "H0_SWEEPS",
    "DifficultyH0Density",
    "H0Draw",
    "h0_difficulty_draw",
    "h0_posterior_draw",
]

#: Gibbs sweeps from the fit's draw to the draw used: the fit's draw is already near the H0
#: posterior, and the latent labels are pinned by the scores, so the chain forgets its start
#: within a few sweeps (tests/correction/test_calibration_test_estimated.py checks the stationary law).
H0_SWEEPS = 50

#: Rates are kept inside [EDGE, 1 - EDGE] so that their logarithms stay finite.
EDGE = 1e-12

#: A random-walk Metropolis step in d dimensions is normal with the target's covariance times
#: RANDOM_WALK_SCALE^2 / d, the optimal scale for a normal target (Roberts, Gelman & Gilks
#: 1997): a shared difficulty's chain and a cycle's joint take it.
RANDOM_WALK_SCALE = 2.38


#: Metropolis steps of a shared difficulty's H0 draw (module docstring).  Measured on 400
#: items of four judges, acceptance 0.25, from a start several posterior sds away (every rate
#: 0.1 off, loadings 0.3): the means of 40 chains were 21 Monte Carlo standard errors from an
#: importance-sampling reference after 100 steps, 6 after 300 and at most 2.2 after 1 000
#: (tests/correction/test_h0_difficulty.py checks 1 000).  A fit's draw starts far closer.
#: A step costs about 0.3 ms on 3 000 items: one quadrature per answer pattern, then a sum
#: over the items (which grows with them).
H0_METROPOLIS_STEPS = 1000


class H0Draw(NamedTuple):
    """A draw of the channels' posterior under H0 (:func:`h0_posterior_draw`,
    :func:`h0_difficulty_draw`)."""

    a: np.ndarray  # (K,)
    b: np.ndarray  # (K,)
    covariance: np.ndarray  # (D, 2) the dependent pairs' given Y = 0, 1; (0, 2) without
    loading: np.ndarray | None = None  # (2,) a shared difficulty's; None without


def h0_posterior_draw(
    scores,
    item,
    annotator,
    label,
    a,
    b,
    priors,
    *,
    sweeps: int,
    rng,
    shared=None,
    gold=None,
    annotator_names=None,
    pairs=None,
    covariance=None,
) -> H0Draw:
    """Channels after ``sweeps`` Gibbs sweeps of ``p(a, b | A, Z, H0)`` (module docstring)
    started at ``(a, b)`` (and ``covariance``).

    Parameters
    ----------
    scores : ndarray, shape (n,)
    item, annotator, label : ndarray, shape (R,)
        The responses.
    a, b : ndarray, shape (K,)
        The start.
    priors : ndarray, shape (3, 2)
        :meth:`bayescal.Priors.as_array` (the prevalence row is not used: H0 fixes it).
    shared : ndarray of bool, shape (K,), optional
        Annotators who share one channel (drawn from all their labels; started at their mean).
    gold : ndarray of int, shape (n,), optional
        Gold labels (-1 for none): a gold item's class is held at its gold label.
    annotator_names : sequence of str, optional
        The channels are drawn in the annotators' name order
        (:func:`~bayescal.data.responses.name_order`), so the draw does not follow the order
        of the columns; without names, in column order.
    pairs : ndarray of int, shape (D, 2), optional
        Columns of dependent pairs (none of their annotators ``shared``; pairs that share an
        annotator form trees or close cycles), whose members answer jointly given Y (module
        docstring); ``covariance`` (D, 2), their covariances given ``Y = 0, 1``, starts them.
    """
    # the draw runs on channels: every annotator its own, the shared ones one after the others
    shared = np.zeros(np.size(a), bool) if shared is None else np.asarray(shared, bool)
    pairs = np.zeros((0, 2), np.int64) if pairs is None else np.asarray(pairs, np.int64)
    if shared[pairs.ravel()].any():
        raise ValueError("pairs: the workers who share a channel cannot be dependent pairs")
    channel = shared_channel_index(shared)
    pairs = channel[pairs]  # the pairs' channels: the draw runs on channels
    a, b = (np.bincount(channel, x) / np.bincount(channel) for x in (a, b))
    annotator = channel[annotator]
    a = np.clip(a, EDGE, 1.0 - EDGE)
    b = np.clip(b, EDGE, 1.0 - EDGE)
    n_annotators = a.size
    draw_order = np.arange(n_annotators)
    if annotator_names is not None:  # each channel ranked by its first annotator's name
        rank = np.empty(channel.size, np.int64)
        rank[name_order(annotator_names)] = np.arange(channel.size)
        first_rank = np.full(n_annotators, channel.size)
        np.minimum.at(first_rank, channel, rank)
        draw_order = np.argsort(first_rank)
    with np.errstate(divide="ignore"):  # a score of 0 or 1 pins its item's label
        prior_log_odds = np.log(scores) - np.log1p(-scores)
    positive = label.astype(np.float64)
    trees = linked_sets(pairs)
    trees += tuple(LinkedSet(pairs[d], np.array([d])) for d in lone_pairs(pairs, trees))
    dependent = [
        (DependentTree if linked.is_tree else DependentCycle)(
            linked, pairs, item, annotator, label, scores.size
        )
        for linked in trees
    ]
    covariance = np.zeros((0, 2)) if covariance is None else np.array(covariance, float)
    for _ in range(sweeps):
        evidence = (
            positive * np.log(b / a)[annotator]
            + (1.0 - positive) * np.log((1.0 - b) / (1.0 - a))[annotator]
        )
        log_odds = prior_log_odds + np.bincount(item, evidence, minlength=scores.size)
        for tree in dependent:
            tree.add_joint_evidence(log_odds, a, b, covariance)
        truth = rng.random(scores.size) < special.expit(log_odds)
        if gold is not None:
            truth = np.where(gold != v.MISSING, gold == 1, truth)
        of_class1 = truth[item]
        n1 = np.bincount(annotator, of_class1, minlength=n_annotators)
        s1 = np.bincount(annotator, of_class1 * positive, minlength=n_annotators)
        n0 = np.bincount(annotator, minlength=n_annotators) - n1
        s0 = np.bincount(annotator, positive, minlength=n_annotators) - s1
        before = a, b  # the trees' steps start from their members' rates before this sweep
        a = _beta_draws(priors[0, 0] + s0, priors[0, 1] + n0 - s0, rng, draw_order)
        b = _beta_draws(priors[1, 0] + s1, priors[1, 1] + n1 - s1, rng, draw_order)
        for tree in dependent:  # the members' independent draws are replaced
            tree.draw_joints(truth, before, (a, b), covariance, priors, rng)
    return H0Draw(a[channel], b[channel], covariance)


class DependentSet:
    """The annotators that dependent pairs join (a pair that shares no annotator is a set of
    two) in :func:`h0_posterior_draw`: their answers on the items any of them labelled, the
    joint evidence those add to the latent classes, and the data augmentation of the answers
    a member left to the others, drawn from the joint given the class and the answers given
    (Tanner & Wong 1987) among the ``2^m`` answers of the ``m`` members (a set joins at most
    six).  :class:`DependentTree` and :class:`DependentCycle` draw the joints."""

    def __init__(self, linked: LinkedSet, index, item, annotator, label, n_items: int):
        self.members, self.pairs = linked.members, linked.pairs
        self.local_index = linked.ends(index)  # the pairs as columns of the members (E, 2)
        position = np.stack(member_responses(item, annotator, n_items, self.members), axis=1)
        self.items = np.flatnonzero((position >= 0).any(axis=1))  # labelled by a member
        position = position[self.items]
        self.answers = np.where(position >= 0, label[np.maximum(position, 0)], -1)  # (n_t, m)
        self.positive, self.negative = (self.answers == 1) * 1.0, (self.answers == 0) * 1.0
        m = self.members.size
        self.completions = states(m).astype(np.int64)  # (2^m, m)
        given = self.answers[:, None, :]
        self.consistent = ((given < 0) | (given == self.completions)).all(axis=2)

    def add_joint_evidence(self, log_odds, a, b, covariance) -> None:
        """Turn the set's items from independent to joint evidence: add ``log p_1(answers) -
        log p_0(answers)`` less the members' independent terms (the dependent pairs' factor,
        :func:`~bayescal.channels.pattern_likelihood.dependence_log_factor`)."""
        factor = [
            dependence_log_factor(
                self.positive,
                self.negative,
                self.local_index,
                rates[self.members],
                covariance[self.pairs, y],
                np,
            )
            for y, rates in enumerate((a, b))
        ]
        log_odds[self.items] += factor[1] - factor[0]

    def _complete(self, mine, log_joint, rng) -> np.ndarray:
        """Every member's answer (n, m) to the items ``mine`` (positions in :attr:`items`):
        the answers given, and the others drawn from the joint ``log_joint`` (2^m,) given
        them."""
        weight = self.consistent[mine] * np.exp(log_joint - log_joint.max())
        cumulative = np.cumsum(weight, axis=1)
        pick = (rng.random(mine.size)[:, None] * cumulative[:, -1:] >= cumulative).sum(axis=1)
        return self.completions[np.minimum(pick, len(self.completions) - 1)]  # u T rounded to T


class DependentTree(DependentSet):
    """The Gibbs steps of a tree of dependent pairs (:class:`DependentSet`).

    Given ``Y`` the tree's joint is its first member's answer times each other member's
    answer given its parent's (:func:`~bayescal.channels.dependence.tree_order`): a rate
    ``r`` and, per pair, the two conditional rates ``q_v = P(child = 1 | parent = v)``.  They
    map to the fit's parameters, the members' rates and the pairs' covariances, by

        p_child = p_parent q_1 + (1 - p_parent) q_0,    c = p_parent (1 - p_parent) (q_1 - q_0),

    of Jacobian ``prod_pairs p_parent (1 - p_parent)``.  Given the classes and every answer of
    the tree's items, the full conditional of ``(r, q)`` under a uniform prior is a product of
    Betas; an independence Metropolis–Hastings step proposes from it and accepts with the ratio
    of the fit's prior in these coordinates: the members' Betas and each covariance uniform
    within its bounds, ``1 / (U - L)``, times the Jacobian.
    """

    def __init__(self, tree: LinkedSet, index, item, annotator, label, n_items: int):
        super().__init__(tree, index, item, annotator, label, n_items)
        column = {int(j): i for i, j in enumerate(self.members)}
        # (pair, parent, child) as columns of the members, parents before their children
        self.edges = [(d, column[j], column[k]) for d, j, k in tree_order(tree, index)]

    def _conditionals(self, rates: np.ndarray, covariance: np.ndarray) -> np.ndarray:
        """``(q_0, q_1)`` (E, 2) of each pair in :attr:`edges` order, of the members' ``rates``
        (m,) and the pairs' ``covariance`` (D,), the inverse of the class docstring's map."""
        return np.array(
            [
                [rates[k] - covariance[d] / (1.0 - rates[j]), rates[k] + covariance[d] / rates[j]]
                for d, j, k in self.edges
            ]
        )

    def _log_joint(self, root: float, conditional: np.ndarray) -> np.ndarray:
        """``log P(x)`` (2^m,) of every answer ``x`` of the members, from the first member's
        rate ``root`` and the pairs' ``conditional`` rates (E, 2)."""
        x = self.completions
        chance = np.clip(
            np.column_stack(
                [np.full(len(x), root)]
                + [conditional[e, x[:, j]] for e, (_, j, _) in enumerate(self.edges)]
            ),
            EDGE,
            1.0 - EDGE,
        )
        drawn = x[:, [0] + [k for _, _, k in self.edges]]
        return np.log(np.where(drawn == 1, chance, 1.0 - chance)).sum(axis=1)

    def _log_prior(self, rates, prior: np.ndarray) -> float:
        """The fit's log prior of one class's members' ``rates`` (m,) and any covariances
        within their bounds, Beta ``prior`` (2,), in the ``(r, q)`` coordinates (class
        docstring), up to a constant (the Betas' normalisers cancel in the step's ratio)."""
        rates = np.clip(rates, EDGE, 1.0 - EDGE)
        alpha, beta = prior
        log_beta = (alpha - 1.0) * np.log(rates) + (beta - 1.0) * np.log1p(-rates)
        parent = rates[[j for _, j, _ in self.edges]]
        lower, upper = covariance_bounds(parent, rates[[k for _, _, k in self.edges]])
        return float(
            log_beta.sum() - np.log(upper - lower).sum() + np.log(parent * (1.0 - parent)).sum()
        )

    def draw_joints(self, truth, current, drawn, covariance, priors, rng) -> None:
        """Draw both classes' joints given the classes ``truth`` (n,) from the state
        ``current`` (``a, b`` (K,) before the sweep) and ``covariance`` (D, 2); write the
        members' rates into ``drawn`` (``a, b`` of the sweep) and the pairs' covariances into
        ``covariance``."""
        classes = truth[self.items]
        for y, (rates, into) in enumerate(zip(current, drawn)):
            now = rates[self.members]
            conditional = self._conditionals(now, covariance[:, y])
            log_joint = self._log_joint(now[0], conditional)
            x = self._complete(np.flatnonzero(classes == y), log_joint, rng)
            proposed = np.empty(now.size)
            proposed[0] = rng.beta(1.0 + x[:, 0].sum(), 1.0 + len(x) - x[:, 0].sum())
            drawn_covariance = {}  # by pair
            for d, j, k in self.edges:
                q = []
                for parent_answer in (0, 1):
                    given = x[:, j] == parent_answer
                    ones = x[given, k].sum()
                    q.append(rng.beta(1.0 + ones, 1.0 + given.sum() - ones))
                proposed[k] = proposed[j] * q[1] + (1.0 - proposed[j]) * q[0]
                drawn_covariance[d] = proposed[j] * (1.0 - proposed[j]) * (q[1] - q[0])
            gain = self._log_prior(proposed, priors[y]) - self._log_prior(now, priors[y])
            if np.log(rng.random()) < gain:
                into[self.members] = np.clip(proposed, EDGE, 1.0 - EDGE)
                covariance[self.pairs, y] = [drawn_covariance[int(d)] for d in self.pairs]
            else:
                into[self.members] = now


#: Random-walk Metropolis steps of a cycle's joint per class and Gibbs sweep
#: (:class:`DependentCycle`): 20 steps accepting about a fifth (measured on 2 000 items)
#: move ``theta`` about four times a sweep, as a tree's one independence step moves its joint
#: at most once.
CYCLE_STEPS = 20


class DependentCycle(DependentSet):
    """The Gibbs steps of a set whose dependent pairs close a cycle (:class:`DependentSet`).

    Given ``Y`` its members answer from the pairwise log-linear joint
    ``P(x) = exp(theta . T(x) - A(theta))`` (:mod:`bayescal.channels.cyclic_joint`), whose
    natural parameters ``theta = (h, J)`` have no conjugate prior.  Given the classes and every
    answer of the set's items (``N_x`` items of the class answered ``x``), the conditional of
    ``theta`` is

        log p(theta | ...) = sum_x N_x log P_theta(x) + sum_j log Beta(p_j)
                             + sum_e log Logistic(J_e; 0, s) + log det Cov_theta(x),

    the fit's prior (the members' Betas of their channels ``p = E_theta[x]``, and each pair's
    ``J`` Logistic, :func:`~bayescal.channels.pattern_likelihood.interaction_from_share`) carried
    to ``theta`` by the Jacobian ``|d(p, J) / d(h, J)| = det Cov_theta(x)``: every term is in
    closed form, no solve.  :data:`CYCLE_STEPS` random-walk Metropolis steps per sweep draw
    it, each normal with covariance ``(N Cov(T))^-1 RANDOM_WALK_SCALE^2 / d``: ``N Cov(T)``
    the information of the ``N`` completed answers at their own moments, which approximates
    the conditional's precision.  The steps depend on the completed answers, never on
    ``theta``, so each sweep's kernel leaves the conditional of ``theta`` given them invariant,
    as a Gibbs step must.  The chain's state is ``theta`` itself: the rates and covariances it
    writes are its moments, and a sweep that finds them unchanged steps on from the ``theta``
    they came from rather than from a solve of them (whose rounding would move it).
    """

    def __init__(self, cycle: LinkedSet, index, item, annotator, label, n_items: int):
        super().__init__(cycle, index, item, annotator, label, n_items)
        self.statistics = sufficient_statistics(self.local_index, self.members.size)
        #: each class's last state: the rates and covariances written, and their theta
        self.state: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None, None]

    def _theta(self, y: int, rates, covariance) -> np.ndarray:
        """The natural parameters (d,) of class ``y``'s members' ``rates`` (m,) and pairs'
        ``covariance`` (E,): the kept state's when they are what it wrote, else solved."""
        kept = self.state[y]
        if (
            kept is not None
            and np.array_equal(kept[0], rates)
            and np.array_equal(kept[1], covariance)
        ):
            return kept[2]
        h, interaction = natural_parameters(rates, covariance, self.local_index)
        theta = np.concatenate([h, interaction])
        if not np.isfinite(theta).all():
            raise ValueError(
                f"covariance: the start's covariances of the pairs {self.pairs.tolist()} given "
                f"Y = {y} ({covariance.tolist()}) admit no joint of their members' channels "
                f"({rates.tolist()}): start from a fit's draw or estimate"
            )
        return theta

    def _step_scale(self, counts) -> np.ndarray:
        """``S`` (d, d) with ``S S^T = (N Cov(T))^-1 RANDOM_WALK_SCALE^2 / d``, ``Cov(T)`` of
        the sufficient statistics over the completed answers (class docstring), each
        pattern's count ``counts`` (2^m,) raised by a half so that every pattern weighs."""
        share = (counts + 0.5) / (counts.sum() + 0.5 * counts.size)
        precision = (counts.sum() + 1.0) * statistic_moments(share, self.statistics)[1]
        # L^-T z has covariance (L L^T)^-1, the precision's inverse
        inverse = np.linalg.inv(np.linalg.cholesky(precision)).T
        return inverse * RANDOM_WALK_SCALE / np.sqrt(self.statistics.shape[1])

    def _moments(self, theta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``log P_theta(x)`` (2^m,), ``E[T]`` (d,) and ``Cov(T)`` (d, d) at ``theta`` (d,)."""
        log_joint = log_softmax(self.statistics @ theta)
        return log_joint, *statistic_moments(np.exp(log_joint), self.statistics)

    def _log_target(self, theta, counts, prior) -> float:
        """The class docstring's ``log p(theta | ...)`` up to a constant."""
        m = self.members.size
        log_joint, mean, spread = self._moments(theta)
        rates = np.clip(mean[:m], EDGE, 1.0 - EDGE)
        alpha, beta = prior
        log_beta = (alpha - 1.0) * np.log(rates) + (beta - 1.0) * np.log1p(-rates)
        sign, log_det = np.linalg.slogdet(spread[:m, :m])
        if sign <= 0:  # patterns beyond float's reach: no density to step to
            return -np.inf
        return float(
            counts @ log_joint + log_beta.sum() + interaction_log_prior(theta[m:]).sum() + log_det
        )

    def draw_joints(self, truth, current, drawn, covariance, priors, rng) -> None:
        """:meth:`DependentTree.draw_joints` of a cycle (class docstring)."""
        classes = truth[self.items]
        m, ends = self.members.size, self.local_index
        code = 2 ** np.arange(m)[::-1]  # a completion's row of states(m)
        for y, (rates, into) in enumerate(zip(current, drawn)):
            theta = self._theta(y, rates[self.members], covariance[self.pairs, y])
            log_joint = self._moments(theta)[0]
            x = self._complete(np.flatnonzero(classes == y), log_joint, rng)
            counts = np.bincount(x @ code, minlength=2**m)
            step = self._step_scale(counts)
            now = self._log_target(theta, counts, priors[y])
            for _ in range(CYCLE_STEPS):
                proposed = theta + step @ rng.standard_normal(theta.size)
                target = self._log_target(proposed, counts, priors[y])
                if np.log(rng.random()) < target - now:
                    theta, now = proposed, target
            mean = self._moments(theta)[1]
            into[self.members] = np.clip(mean[:m], EDGE, 1.0 - EDGE)
            covariance[self.pairs, y] = mean[m:] - mean[ends[:, 0]] * mean[ends[:, 1]]
            self.state[y] = (into[self.members].copy(), covariance[self.pairs, y].copy(), theta)


def _beta_draws(alpha, beta, rng, order) -> np.ndarray:
    """Beta(alpha, beta) draws (K,), by inverting the CDF of uniforms drawn in ``order`` of
    the channels."""
    uniform = np.empty(order.size)
    uniform[order] = rng.random(order.size)
    return np.clip(special.betaincinv(alpha, beta, uniform), EDGE, 1.0 - EDGE)


def member_responses(item, annotator, n_items: int, pair) -> list[np.ndarray]:
    """Each item's response (its index among ``item, annotator``) by each member of ``pair``
    (two arrays (n,)), -1 where that member gave none."""
    position = []
    for member in pair:
        column = np.full(n_items, -1)
        mine = np.flatnonzero(annotator == member)
        column[item[mine]] = mine
        position.append(column)
    return position


class DifficultyH0Density:
    """``log p(theta | A, Z, H0)`` of a shared difficulty up to a constant, at ``theta = (logit
    a, logit b, log beta)`` (2 K + 2,): the H0 likelihood of the module docstring, the Betas of
    ``priors`` (:meth:`bayescal.Priors.as_array`; its prevalence row is not used) on ``a, b``
    and ``HalfNormal(LOADING_SCALE)`` on each loading, with the Jacobians of the logit and the
    log.  ``annotations`` (n, K) hold 0, 1 or -1 (missing); a ``gold`` item's class (-1 for
    none) is its gold label."""

    def __init__(self, scores, annotations, priors, gold=None):
        scores = v.as_probabilities(scores, "scores")
        annotations = v.as_annotations(annotations, "annotations", n_items=scores.size)
        priors = v.as_numeric_array(priors, "priors").astype(np.float64)
        if priors.shape != (3, 2):
            raise ValueError(
                "priors must be the (3, 2) Beta parameters of Priors.as_array() (rows false "
                f"positive, sensitivity, prevalence); saw shape {priors.shape}"
            )
        v.check_finite(priors, "priors")
        if (priors <= 0).any():
            raise ValueError(f"priors must be positive Beta parameters; saw {priors.tolist()}")
        if gold is not None:  # a gold item's class is known: its "score" is its label
            scores = np.where(v.as_gold(gold, scores.size) != v.MISSING, gold, scores)
        rows, self.pattern = np.unique(annotations, axis=0, return_inverse=True)
        self.positive = (rows == 1).astype(np.float64)
        self.negative = (rows == 0).astype(np.float64)
        with np.errstate(divide="ignore"):  # a score of 0 or 1 pins its item's class
            self.log_class = np.stack([np.log1p(-scores), np.log(scores)])
        self.priors = priors
        self.n_annotators = rows.shape[1]

    def parameters(self, theta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, loading)`` of ``theta`` (..., 2 K + 2)."""
        k = self.n_annotators
        return (
            special.expit(theta[..., :k]),
            special.expit(theta[..., k : 2 * k]),
            np.exp(theta[..., 2 * k :]),
        )

    def __call__(self, theta) -> np.ndarray:
        """The log density at ``theta`` (..., 2 K + 2): (...)."""
        a, b, loading = self.parameters(np.asarray(theta, np.float64))
        log0, log1 = difficulty_class_log_likelihoods(a, b, loading, self.positive, self.negative)
        likelihood = np.logaddexp(
            self.log_class[0] + log0[..., self.pattern], self.log_class[1] + log1[..., self.pattern]
        ).sum(axis=-1)
        # Beta(alpha, beta) times d rate / d logit rate = rate (1 - rate); HalfNormal times
        # d loading / d log loading = loading
        prior = sum(
            (alpha * np.log(rate) + beta * np.log1p(-rate)).sum(axis=-1)
            for rate, (alpha, beta) in zip((a, b), self.priors[:2])
        )
        prior += (np.log(loading) - 0.5 * (loading / LOADING_SCALE) ** 2).sum(axis=-1)
        return likelihood + prior


def h0_difficulty_draw(density: DifficultyH0Density, a, b, loading, proposal, *, steps: int, rng):
    """The channels and loadings after ``steps`` random-walk Metropolis steps of ``density``,
    ``p(a, b, beta | A, Z, H0)`` under a shared difficulty (module docstring), started at
    ``(a, b, loading)`` ((K,), (K,), (2,): the fit's draw), each step normal with covariance
    ``proposal`` (2 K + 2, 2 K + 2: of the fit's draws of ``(logit a, logit b, log beta)``)
    scaled by 2.38^2 / (2 K + 2).  The annotators are in ``density``'s column order, which a
    caller makes their name order (so the draw does not follow the order of the columns)."""
    if not isinstance(density, DifficultyH0Density):
        raise TypeError(f"density must be a DifficultyH0Density; saw {type(density).__name__}")
    k = density.n_annotators
    a, b = (v.as_probabilities(rates, name) for rates, name in ((a, "a"), (b, "b")))
    if a.size != k or b.size != k:
        raise ValueError(
            f"a and b must hold one rate per annotator of density ({k}); saw {a.size} and {b.size}"
        )
    loading = as_loadings(loading)
    proposal = v.as_numeric_array(proposal, "proposal").astype(np.float64)
    if proposal.shape != (2 * k + 2, 2 * k + 2):
        raise ValueError(
            f"proposal must be the ({2 * k + 2}, {2 * k + 2}) covariance of (logit a, logit b, "
            f"log loading); saw shape {proposal.shape}"
        )
    v.check_finite(proposal, "proposal")
    steps = v.as_int(steps, "steps", minimum=0)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator; saw {type(rng).__name__}")
    theta = np.concatenate(
        [
            special.logit(np.clip(a, EDGE, 1.0 - EDGE)),
            special.logit(np.clip(b, EDGE, 1.0 - EDGE)),
            np.log(np.maximum(loading, EDGE)),
        ]
    )
    scale = np.linalg.cholesky(
        proposal * RANDOM_WALK_SCALE**2 / theta.size + 1e-10 * np.eye(theta.size)
    )
    current = density(theta)
    for _ in range(steps):
        candidate = theta + scale @ rng.standard_normal(theta.size)
        proposed = density(candidate)
        if np.log(rng.random()) < proposed - current:
            theta, current = candidate, proposed
    a, b, loading = density.parameters(theta)
    return H0Draw(a, b, np.zeros((0, 2)), loading)
