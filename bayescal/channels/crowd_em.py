"""Dawid–Skene EM on a crowd's sparse responses (Dawid and Skene 1979).

Model: ``Y_i ~ Bernoulli(mu)``; worker ``j`` answers ``A_ij ~ Bernoulli(a_j + (b_j - a_j) Y_i)``,
independently given ``Y_i``.  With ``R_i`` the labels item ``i`` got,

    L1_i = sum_{r in R_i} [A_r log b_j(r) + (1 - A_r) log(1 - b_j(r))],   L0_i the same with a.

E-step: ``T_i = P(Y_i = 1 | R_i) = sigmoid(logit(mu) + L1_i - L0_i)``, one segment sum over the
responses.  M-step with a Beta(alpha, beta) prior on every ``a_j`` and ``b_j`` (MAP; alpha =
beta = 1 is the maximum-likelihood fit of :func:`~bayescal.dawid_skene_em`):

    b_j = (sum_{r of j} T A_r + alpha - 1) / (sum_{r of j} T + alpha + beta - 2),

``a_j`` the same with ``1 - T``, and ``mu`` the mean of ``T``.  The start is the majority vote
(``T_i`` = the share of 1s among item ``i``'s labels); iteration stops when the mean log
posterior changes by less than ``tol``.  Each iteration costs O(R) for R labels and memory is
O(R + n + K): never an items x workers array.

The maximum-likelihood fit puts a worker with a few labels, or one who always answers the same,
on the boundary (``b_j = 1`` from three agreeing labels); the smoothing keeps every channel
inside (0, 1) and shrinks a sparse worker's gap toward 0, so that its weight in the correction
stays small.  It is the default when any worker has fewer than :data:`SPARSE_LABELS` labels.

Smoothing still leaves each sparse worker its own noisy gap ``d_j``, and ``E[1 / d_j] != 1 /
d_j``: the corrected labels of a crowd of sparse workers are biased by an amount that depends
on the labels per worker and does not fall with more items (benchmarks/crowd_bias.py).  With ``pool`` the
workers with few labels share one channel.  A label drawn from their labels then has the
mixture channel ``P(A = 1 | Y = y) = sum_j pi_jy r_jy`` (``pi_jy`` worker ``j``'s share of
their labels on items of class ``y``, ``r_j0 = a_j``, ``r_j1 = b_j``), which the tied model
estimates from all their labels at once, and correcting with it is unbiased on average over
which worker gave the label, spammers and adversaries included (the assignment of workers to
items is assumed independent of Y).  Measured bias against labels per worker:
``benchmarks/crowd_bias.py`` (RESULTS.md).

Gold items (human-verified labels) know their class: their ``T_i`` is the gold label in every E-step, and
they add ``log p(R_i | Y = g_i) + log P(Y = g_i)`` to the log-likelihood, not the mixture.
The gold then fixes the orientation (a fit is never flipped) and identifies the channels of
the workers who labelled gold items of both classes, so fewer than three workers are fitted.

Dependent pairs (``dependent=``): a pair's (or a tree of pairs') workers answer jointly given
``Y``; each item's class log-likelihoods get the pairs' correction and the pairs' workers their
own M-step (:mod:`bayescal.channels.crowd_pairs`), unpooled and unsmoothed.

Orientation without gold comes from the population (:func:`~bayescal.channels.base.orient`): when the
label-weighted mean gap ``sum_j n_j (b_j - a_j)`` is negative the fit is the mirror image
(``Y <-> 1 - Y``) and is flipped, so individual spammers and adversarial workers are
estimated, never refused (:mod:`bayescal.channels.odd_annotators`); a fit whose every gap is
below ``MIN_GAP`` is a failure with its reason, as for the other estimators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .. import _validation as v
from .._api import old_spellings, silenced, warn_caller
from ..data.annotated_scores import AnnotatedScores
from ..data.responses import Responses
from ..exceptions import FIT_WARNINGS, ChannelWarning, ConvergenceWarning, IdentificationError
from .base import ChannelFit, Channels, flips, orient, records_options, require_identified
from .class_crowd_em import class_crowd_em
from .co_labelling import CoLabelling, GoldCoverage
from .confusion_em import require_classes_given
from .confusion_fit import ConfusionChannels, ConfusionFit
from .crowd_pairs import CrowdPairs
from .dependence import (
    dependent_pairs,
    require_crowd_pairs_counted,
    require_crowd_pairs_ranked,
    warn_unchecked,
)
from .odd_annotators import odd_annotators, warn_odd_annotators

__all__ = ["CROWD_ANNOTATORS", "DEFAULT_SMOOTHING", "SPARSE_LABELS", "crowd_em"]

#: More annotators than this make a crowd: the analysis estimates their channels here, on
#: the sparse responses, rather than on pattern counts (whose EM holds a patterns x K design).
CROWD_ANNOTATORS = 12
#: Below this many labels for some worker, ``smoothing="auto"`` fits MAP, not the MLE.
SPARSE_LABELS = 30
#: The Beta prior of ``smoothing="auto"``: one pseudo-label each way for every rate.
DEFAULT_SMOOTHING = (2.0, 2.0)
#: Its multi-class form: a symmetric Dirichlet(2) on every confusion row, one pseudo-label in
#: every cell.
DEFAULT_DIRICHLET = 2.0
#: Probabilities inside logarithms are kept in [EPS, 1 - EPS] (a perfect worker's log(1 - b)).
EPS = 1e-12


@old_spellings()
@records_options
def crowd_em(
    data, *, smoothing="auto", pool="auto", tol=1e-7, max_iter=500, dependent=None
) -> ChannelFit | ConfusionFit:
    """Dawid–Skene channels of a crowd, by EM on its sparse responses (module docstring).

    Multi-class data (three classes or more) are fitted by the multi-class EM of
    :mod:`bayescal.channels.class_crowd_em`, with a symmetric Dirichlet ``alpha`` on every
    confusion row for ``smoothing`` (``"auto"``: 2 when some worker has fewer than
    :data:`SPARSE_LABELS` labels, else 1, the maximum likelihood), into a
    :class:`~bayescal.channels.ConfusionFit`; gold items' classes are known there.

    Parameters
    ----------
    data : Responses or AnnotatedScores
        The labels (:meth:`bayescal.AnnotatedScores.responses`,
        :meth:`bayescal.data.Responses.from_long`); score groups are not used.
    smoothing : "auto", None or (float, float), default "auto"
        A Beta(alpha, beta) prior on every a_j and b_j, each >= 1 (MAP); None fits the
        maximum likelihood; "auto" is :data:`DEFAULT_SMOOTHING` when any worker has fewer
        than :data:`SPARSE_LABELS` labels, else None.  The result says which.
    pool : "auto", None or int, default "auto"
        Workers with fewer labels than this share one channel, the pooled channel of the
        sparse workers (module docstring); "auto" is :data:`SPARSE_LABELS`.  Pooling needs two
        such workers, and three channels or :data:`MIN_TRIPLE_ITEMS` items with three labels
        (else it is not identified and is not done).  The result names the pooled workers;
        the pooled channel is judged as one worker (a warning line when it is random-like or
        adversarial).
    tol : float, default 1e-7
        Stop when the mean log posterior changes by less than this.
    max_iter : int, default 500
        A run that reaches it returns ``converged=False`` with a :class:`ConvergenceWarning`.
    dependent : None, a pair of names, or a sequence of pairs, default None
        Workers whose errors may be correlated given ``Y`` (binary data;
        :mod:`bayescal.channels.dependence`, pairs sharing a worker form a tree or close a
        cycle): each pair
        gets one covariance per class (:mod:`bayescal.channels.crowd_pairs`).  Checked before
        fitting (:func:`require_crowd_pairs_checked`: at least
        :data:`~bayescal.channels.dependence.MIN_PAIR_ITEMS` items of each pair beside two
        other labels, then the rank of each tree's information).  The pairs' workers are
        never pooled, and their channels and covariances are maximum-likelihood estimates
        whatever ``smoothing`` (which they do not decide for ``"auto"``): a pair worker with
        few labels can sit on 0 or 1.

    Returns
    -------
    ChannelFit
        ``method="crowd_em"``, one ``prevalence``, ``smoothing`` the prior used, ``pooled``
        the workers given the pooled channel, ``dependent`` and ``covariance`` (D, 2) the
        pairs', ``loglik`` the log-likelihood at the estimate
        (of the pooled model when pooled; the prior's term left out).  Adversarial,
        random-like and constant workers are named in one :class:`ChannelWarning` per kind
        (:mod:`bayescal.channels.odd_annotators`); a pooled worker has too few labels to be
        judged alone and is named only when constant.
    """
    responses = as_responses(data)
    tol = v.as_tolerance(tol)
    max_iter = v.as_int(max_iter, "max_iter", minimum=1)
    pairs = dependent_pairs(dependent, responses.annotator_names)
    if responses.n_classes > 2:
        if pairs:
            raise ValueError(
                f"dependent: dependent pairs are binary; the data have {responses.n_classes} "
                f"classes; saw dependent={dependent!r}"
            )
        return _class_crowd_fit(data, responses, smoothing, pool, tol, max_iter)
    workers = _Layout.of(responses)
    labelled = responses.labels_per_item()
    per_worker = workers.code_counts.sum(axis=1)
    in_pairs = np.isin(np.arange(responses.n_annotators), pairs.index)
    threshold = _as_pool(pool)
    # by the workers' labels, not the channels': a worker just above the pooling threshold
    # still has a noisy maximum-likelihood gap (benchmarks/RESULTS.md, bias by workload); the
    # pairs' workers, fitted by maximum likelihood, do not decide it
    prior = _as_smoothing(smoothing, per_worker[~in_pairs])
    require_crowd_identified(responses, "crowd_em")
    require_crowd_pairs_checked(responses, pairs, "crowd_em")
    pooled_mask = _pooled_workers(threshold, per_worker, labelled, in_pairs)
    channel_of = shared_channel_index(pooled_mask)
    layout = workers.merged(channel_of)
    members = CrowdPairs.of(responses, pairs.index, channel_of) if pairs else None
    smoothed = np.ones(layout.code_counts.shape[0], bool)  # the channels the prior smooths
    smoothed[channel_of[in_pairs]] = False
    gold = _gold_of(responses)
    alpha, beta = (1.0, 1.0) if prior is None else prior
    with np.errstate(invalid="ignore", divide="ignore"):  # an unlabelled item: T = mu below
        truth = np.bincount(layout.item, responses.label, layout.n_items) / labelled
    truth = np.where(labelled > 0, truth, 0.5)
    truth = np.where(gold == v.MISSING, truth, gold)
    previous, converged, n_iter = -np.inf, False, 0
    covariance, current, factors = np.zeros((pairs.n_pairs, 2)), None, None
    while not converged and n_iter < max_iter:
        n_iter += 1
        a, b, mu = layout.m_step(truth, alpha, beta)
        if members is not None:  # the pairs' split of a half-observed pair needs the last fit
            a, b, covariance = members.m_step(truth, a, b, covariance, current or (a, b))
            current = a, b
            factors = members.log_factors(a, b, covariance)
        truth, loglik = layout.e_step(a, b, mu, gold, factors)
        # the log posterior, MAP's target (the pairs' workers unsmoothed)
        objective = loglik + _log_prior(a[smoothed], b[smoothed], alpha, beta)
        converged = abs(objective - previous) / layout.n_items < tol
        previous = objective

    names = responses.annotator_names
    pooled = tuple(name for name, shared in zip(names, pooled_mask) if shared)
    a, b = a[channel_of], b[channel_of]
    if not responses.has_gold and flips(a, b, None, per_worker):
        covariance = covariance[:, ::-1]  # the classes exchanged with the channels' (orient)
    a, b, mu, failure = orient(
        a, b, np.array([mu]), None, names, labels=per_worker, by_gold=responses.has_gold
    )
    common = (np.array([0]), np.array([layout.n_items]), names)
    recorded = {
        "smoothing": prior,
        "pooled": pooled,
        "data_fingerprint": responses.fingerprint,
        "dependent": pairs.names,
        "covariance": covariance if pairs else None,
    }
    if failure is not None:
        return ChannelFit("crowd_em", None, None, *common, failure=failure, **recorded)
    fit = ChannelFit(
        "crowd_em",
        Channels(a, b, adversarial=bool((b < a).any())),
        float(mu[0]),
        *common,
        loglik=float(loglik),
        converged=converged,
        n_iter=n_iter,
        **recorded,
    )
    if pairs:  # the oriented fit's corrections, on the workers' own channels
        factors = members.on_workers(pairs.index).log_factors(a, b, covariance)
    truth, _ = workers.e_step(a, b, float(mu[0]), gold, factors)  # the oriented posteriors
    odd = odd_annotators(
        a, b, per_worker, workers.class1_sums(truth).sum(axis=1), workers.code_counts[:, 1]
    )
    if pooled:
        # too few labels to judge one by one: a pooled worker is named only if constant, and
        # the pooled channel is judged as one, on all their labels
        odd = odd._replace(
            random=odd.random & ~pooled_mask, adversarial=odd.adversarial & ~pooled_mask
        )
        _warn_odd_pool(layout, a[pooled_mask][0], b[pooled_mask][0], truth, len(pooled))
    warn_odd_annotators(
        "crowd_em",
        names,
        odd,
        smoothed=prior is not None,
        pooled=bool((odd.constant & pooled_mask).any()),
    )
    if not converged:
        warn_caller(
            f"crowd_em: no convergence within max_iter={max_iter} iterations (tol={tol:g} on "
            "the change in mean log posterior); the estimate is returned with converged=False",
            ConvergenceWarning,
        )
    return fit


def require_crowd_pairs_checked(responses: Responses, pairs, where: str) -> None:
    """A crowd's dependent ``pairs`` checked before they are fitted (by :func:`crowd_em` or
    the hierarchical model): counted
    (:func:`~bayescal.channels.dependence.require_crowd_pairs_counted`), then each tree's
    information checked for rank at the crowd's independent EM estimate
    (:func:`~bayescal.channels.dependence.require_crowd_pairs_ranked`); the count needs no
    EM, so it comes first."""
    if not pairs:
        return
    require_crowd_pairs_counted(responses, pairs, where)
    estimate = crowd_estimate(responses)
    warn_unchecked(estimate, where)
    if estimate is not None:
        require_crowd_pairs_ranked(responses, pairs, where, estimate)


def crowd_estimate(responses: Responses):
    """``(a, b, prevalence)`` of :func:`crowd_em` at its defaults but without pooling (a
    dependent pair's sparse worker keeps its own channel), silent (what it says of its fit is
    said by the fit that asked), or None when EM finds no oriented estimate: where a crowd's
    dependent pairs are checked for identification before they are fitted."""
    with silenced(*FIT_WARNINGS):
        fit = crowd_em(responses, pool=None)
    return None if fit.channels is None else (fit.channels.a, fit.channels.b, fit.prevalence)


def _class_crowd_fit(data, responses: Responses, smoothing, pool, tol, max_iter) -> ConfusionFit:
    """crowd_em on multi-class ``responses`` (of ``data``): checked, pooled, smoothed and
    fitted by :func:`~bayescal.channels.class_crowd_em.class_crowd_em`."""
    require_classes_given(responses.label, responses.gold, responses.n_classes, "crowd_em")
    labelled = responses.labels_per_item()
    gold_classes = (
        np.unique(responses.gold[responses.gold != v.MISSING]).size if responses.has_gold else 0
    )
    if gold_classes < responses.n_classes and (
        responses.n_annotators < 3 or (labelled >= 3).sum() == 0
    ):
        raise IdentificationError(
            f"crowd_em: {responses.n_annotators} worker(s), and {int((labelled >= 3).sum())} "
            "items with three labels or more, cannot identify confusion matrices without gold "
            "of every class (the multi-class Dawid-Skene model needs items labelled by three "
            f"workers; gold of {gold_classes} of the {responses.n_classes} classes given)"
        )
    per_worker = responses.labels_per_annotator()
    if smoothing is None:
        alpha = 1.0
    elif isinstance(smoothing, str):
        v.as_choice(smoothing, "smoothing", ("auto",))
        alpha = DEFAULT_DIRICHLET if per_worker.min() < SPARSE_LABELS else 1.0
    else:
        if isinstance(smoothing, bool) or not isinstance(smoothing, (int, float, np.number)):
            alpha = np.nan  # a Beta pair, or anything else: refused below
        else:
            alpha = float(smoothing)
        if not (np.isfinite(alpha) and alpha >= 1):
            raise ValueError(
                "smoothing must be 'auto', None or a Dirichlet alpha >= 1 for multi-class data "
                f"(a Beta pair sets binary channels); saw {smoothing!r}"
            )
    pooled_mask = _pooled_workers(_as_pool(pool), per_worker, labelled)
    estimate = class_crowd_em(responses, shared_channel_index(pooled_mask), alpha, tol, max_iter)
    names = responses.annotator_names
    classes = data.classes if isinstance(data, AnnotatedScores) else None
    channels = ConfusionChannels(estimate.confusion, names=names, classes=classes)
    return ConfusionFit(
        method="crowd_em",
        channels=channels,
        prevalence=estimate.prevalence,
        annotator_names=names,
        classes=channels.classes,
        loglik=estimate.loglik,
        converged=estimate.converged,
        n_iter=estimate.n_iter,
        data_fingerprint=responses.fingerprint,
        smoothing=alpha,
        pooled=tuple(name for name, shared in zip(names, pooled_mask) if shared),
    )


def shared_channel_index(shared: np.ndarray) -> np.ndarray:
    """Each annotator's channel (K,) when the ``shared`` ones share one: every other annotator
    its own, in order, and the shared channel after them (crowd_em's pooled workers, and the
    workers the hierarchical model sums out, in the calibration test's H0 draw)."""
    channel = np.cumsum(~shared) - 1
    channel[shared] = (~shared).sum()
    return channel


def _as_pool(pool) -> int | None:
    if pool is None:
        return None
    if isinstance(pool, str):
        v.as_choice(pool, "pool", ("auto",))
        return SPARSE_LABELS
    return v.as_int(pool, "pool", minimum=1)


#: Pooling into fewer than three channels needs this many items with three or more labels:
#: one channel is then identified by how often an item's labels agree (a two-component
#: binomial mixture needs three trials), and a handful of such items identify it only weakly.
MIN_TRIPLE_ITEMS = SPARSE_LABELS


def _pooled_workers(threshold: int | None, per_worker: np.ndarray, labelled: np.ndarray, kept=None):
    """Which workers (K,) share the pooled channel: those with at least one and fewer than
    ``threshold`` labels, except the ``kept`` ones (K,; a dependent pair's workers, whose
    channels their covariances need); none when that is not identified (fewer than two such
    workers, or fewer than three channels and fewer than :data:`MIN_TRIPLE_ITEMS` items with
    three labels or more)."""
    few = (per_worker > 0) & (per_worker < (threshold or 0))
    if kept is not None:
        few &= ~kept
    n_channels = int((~few).sum()) + 1
    if few.sum() < 2 or (n_channels < 3 and (labelled >= 3).sum() < MIN_TRIPLE_ITEMS):
        return np.zeros_like(few)
    return few


def _warn_odd_pool(layout: _Layout, a: float, b: float, truth, n_pooled: int) -> None:
    """One line when the pooled channel, judged on all its workers' labels, is random-like or
    adversarial (:mod:`bayescal.channels.odd_annotators`)."""
    shared = layout.code_counts.shape[0] - 1  # the pooled channel is the last
    labels = layout.code_counts[shared].sum()
    class1 = layout.class1_sums(truth)[shared].sum()
    odd = odd_annotators([a], [b], [labels], [class1], [layout.code_counts[shared, 1]])
    if odd.adversarial[0] or odd.random[0]:
        kind = (
            "estimated adversarial (b < a): their 1 means Y = 0 more often"
            if odd.adversarial[0]
            else "indistinguishable from random answers: the correction gives it little weight"
        )
        warn_caller(
            f"crowd_em: the pooled channel of the {n_pooled} workers with few labels "
            f"({labels:.0f} labels, a = {a:.3f}, b = {b:.3f}) is {kind}",
            ChannelWarning,
        )


def _gold_of(responses: Responses) -> np.ndarray:
    """Each item's gold label (n,), -1 for none (all -1 without gold)."""
    if responses.gold is None:
        return np.full(responses.n_items, v.MISSING, dtype=np.int8)
    return responses.gold


def require_crowd_identified(responses: Responses, where: str) -> None:
    """Refuse what no EM can estimate: fewer than three workers without gold items that
    identify one (paper App. D.1; two need score groups, :func:`~bayescal.grouped_em`), fewer
    than two labelled items; then who labelled what
    (:class:`~bayescal.channels.co_labelling.CoLabelling`: no item labelled by two workers is
    refused unless the gold identifies a channel, workers seen alone are named)."""
    gold = GoldCoverage.of_responses(responses) if responses.has_gold else None
    if responses.n_annotators < 3:
        require_identified(responses.n_annotators, 1, where, gold=gold)
    labelled = responses.labels_per_item()
    if (labelled > 0).sum() < 2:
        raise ValueError(
            f"data: {int((labelled > 0).sum())} item(s) have labels; channels cannot be "
            "estimated from fewer than two"
        )
    CoLabelling.of_responses(responses).require(where, grouped=False, gold=gold)


@dataclass(frozen=True, eq=False)
class _Layout:
    """The responses as every iteration reads them: the item of each label and its code
    ``2 j + A`` (worker ``j``, label ``A``), how many labels carry each code, and the (items x
    codes) incidence of the labels.  An E-step is one sparse product of the incidence with a
    table of 2K log-likelihood ratios, an M-step one of its transpose with the label
    posteriors (CSR products: a third of the time of a gather and a weighted bincount)."""

    item: np.ndarray  # (R,)
    code: np.ndarray  # (R,)
    code_counts: np.ndarray  # (K, 2): labels 0 and 1 of each worker
    n_items: int
    by_item: sparse.csr_matrix  # (n, 2K)
    by_code: sparse.csr_matrix  # (2K, n)

    @classmethod
    def of(cls, responses: Responses) -> _Layout:
        code = 2 * responses.annotator + responses.label
        return cls._of_codes(responses.item, code, 2 * responses.n_annotators, responses.n_items)

    @classmethod
    def _of_codes(cls, item, code, n_codes: int, n_items: int) -> _Layout:
        counts = np.bincount(code, minlength=n_codes).reshape(-1, 2).astype(np.float64)
        by_item = sparse.csr_matrix((np.ones(item.size), (item, code)), shape=(n_items, n_codes))
        return cls(item, code, counts, n_items, by_item, by_item.T.tocsr())

    def merged(self, channel_of: np.ndarray) -> _Layout:
        """The layout with worker ``j``'s labels given to channel ``channel_of[j]``."""
        if (channel_of == np.arange(channel_of.size)).all():
            return self
        code = 2 * channel_of[self.code // 2] + self.code % 2
        return self._of_codes(self.item, code, 2 * (int(channel_of.max()) + 1), self.n_items)

    def class1_sums(self, truth: np.ndarray) -> np.ndarray:
        """``sum T_i`` over each worker's labels 0 and 1, (K, 2)."""
        return (self.by_code @ truth).reshape(-1, 2)

    def m_step(self, truth: np.ndarray, alpha: float, beta: float):
        """MAP channels and prevalence given the label posteriors ``truth`` (n,)."""
        class1 = self.class1_sums(truth)
        class0 = self.code_counts - class1
        pseudo = alpha + beta - 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            b = (class1[:, 1] + alpha - 1.0) / (class1.sum(axis=1) + pseudo)
            a = (class0[:, 1] + alpha - 1.0) / (class0.sum(axis=1) + pseudo)
        # a worker whose labels all went to one class has 0/0 for the other rate: no
        # information; a ratio of sums can leave [0, 1] by a rounding error
        a, b = (np.clip(np.nan_to_num(x, nan=0.5), 0.0, 1.0) for x in (a, b))
        return a, b, float(truth.mean())

    def e_step(self, a, b, mu, gold, factors=None):
        """Label posteriors (n,) and the log-likelihood of (a, b, mu), given each item's
        ``gold`` label (n,; -1 for none) and, with dependent pairs, each item's correction
        ``factors`` (n, 2) of its two classes' log-likelihoods
        (:meth:`~bayescal.channels.crowd_pairs.CrowdPairs.log_factors`), added to ``L0_i`` and
        ``L0_i + D_i``.

        ``log p(R_i | Y=0) = L0_i``, ``log p(R_i | Y=1) = L0_i + D_i`` with ``D_i`` the sum of
        the labels' log-likelihood ratios; with ``x_i = logit(mu) + D_i``,
        ``T_i = sigmoid(x_i)`` and the log-likelihood is
        ``sum_i L0_i + n log(1 - mu) + sum_i softplus(x_i)``, whose first term is a sum over
        codes.  ``softplus(x) = max(x, 0) + log1p(e^-|x|)``: one exponential per item serves
        both (``np.logaddexp`` took most of an iteration).  A gold item's term is ``x_i``
        (class 1) or 0 (class 0) in place of the softplus, and its ``T_i`` its label."""
        a, b = np.clip(a, EPS, 1 - EPS), np.clip(b, EPS, 1 - EPS)
        mu = min(max(mu, EPS), 1 - EPS)
        log0 = np.column_stack([np.log1p(-a), np.log(a)])  # (K, 2) by label
        ratio = np.column_stack([np.log1p(-b), np.log(b)]) - log0
        x = np.log(mu / (1 - mu)) + self.by_item @ ratio.ravel()
        if factors is not None:
            x = x + factors[:, 1] - factors[:, 0]
        small = np.exp(-np.abs(x))
        truth = np.where(x >= 0, 1.0, small) / (1.0 + small)
        softplus = np.maximum(x, 0.0) + np.log1p(small)
        if (gold != v.MISSING).any():
            truth = np.where(gold == v.MISSING, truth, gold)
            softplus = np.where(gold == v.MISSING, softplus, np.where(gold == 1, x, 0.0))
        loglik = (self.code_counts * log0).sum() + self.n_items * np.log1p(-mu) + softplus.sum()
        if factors is not None:
            loglik += factors[:, 0].sum()
        return truth, float(loglik)


def _log_prior(a, b, alpha: float, beta: float) -> float:
    """The Beta(alpha, beta) log density of every a_j and b_j, up to a constant."""
    a, b = np.clip(a, EPS, 1 - EPS), np.clip(b, EPS, 1 - EPS)
    log_rates = np.log(a) + np.log(b)
    log_complements = np.log1p(-a) + np.log1p(-b)
    return float((alpha - 1.0) * log_rates.sum() + (beta - 1.0) * log_complements.sum())


def as_responses(data) -> Responses:
    if isinstance(data, AnnotatedScores):
        return data.responses()
    if isinstance(data, Responses):
        return data
    raise TypeError(
        f"data must be a bayescal.data.Responses or bayescal.AnnotatedScores; saw "
        f"{type(data).__name__}"
    )


def _as_smoothing(smoothing, per_worker: np.ndarray) -> tuple[float, float] | None:
    if smoothing is None:
        return None
    if isinstance(smoothing, str):
        v.as_choice(smoothing, "smoothing", ("auto",))
        return DEFAULT_SMOOTHING if (per_worker < SPARSE_LABELS).any() else None
    pair = v.as_finite_vector(smoothing, "smoothing")
    if pair.size != 2 or (pair < 1).any():
        raise ValueError(
            f"smoothing must be 'auto', None or a pair (alpha, beta) of Beta parameters >= 1; "
            f"saw {smoothing!r}"
        )
    return float(pair[0]), float(pair[1])
