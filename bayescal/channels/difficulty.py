"""Shared item difficulty: the random-effects latent class model (Qu, Tan and Kutner 1996).

Some items are hard for every judge.  Given the true label ``Y_i`` and an item effect
``R_i ~ N(0, 1)``,

    A_ij | Y_i = y, R_i ~ Bernoulli(Phi(alpha_jy + beta_y R_i)),      beta_y >= 0,

with one loading ``beta_y`` per class (per-annotator loadings are not identified with four
annotators, and their signs give NUTS several modes).  The effect is integrated out per pattern
by Gauss–Hermite quadrature.  The *marginal* channels are exactly

    a_j = Phi(alpha_j0 / sqrt(1 + beta_0^2)),   b_j = Phi(alpha_j1 / sqrt(1 + beta_1^2))

(``E Phi(alpha + beta R) = Phi(alpha / sqrt(1 + beta^2))`` for standard normal ``R``), so the
model is parametrised by ``(a_j, b_j)`` under the flat models' prior and the loadings, each
draw folded by its population (``models/orientation.py``): the correction, NC-ECE and
``posterior_ece`` use the marginal channels as they are.

**What NC-ECE then assumes.**  The corrected label's mean is ``Y`` when the difficulty is
independent of the score given ``Y``: ``E[A_ij | Y, Z] = E[A_ij | Y]``.  If the items the
predictor finds hard are also hard for the judges (difficulty correlated with the score given
``Y``), the channels differ between score bins and NC-ECE is biased, whatever model of the
judges is fitted (benchmarks/dependence_recovery.py simulates such a violation).
"""

from __future__ import annotations

import functools
import importlib
import itertools

import numpy as np

from .. import _validation as v

__all__ = [
    "LOADING_SCALE",
    "LOG_CDF_FLOOR",
    "MAX_LIKELIHOOD_ERROR",
    "NEGLIGIBLE_WEIGHT",
    "QUADRATURE_NODES",
    "REFERENCE_NODES",
    "answer_probability",
    "as_loadings",
    "difficulty_class_log_likelihoods",
    "draws_per_pass",
    "likelihood_error",
    "pair_covariances",
    "probit_intercept",
    "quadrature",
]

#: Gauss–Hermite nodes of the item effect.  The marginal channels are reproduced to 1e-6 for
#: loadings up to 2 and to 1e-4 up to 3 (tested).  Pattern probabilities, sharper integrands,
#: are less exact as the loading grows (the product of ``Phi(alpha_j + beta r)`` turns into
#: steps of width ``1 / beta``).  Against adaptive quadrature (tested), the expected
#: log-likelihood error per item of five annotators (a = 0.10-0.20, b = 0.75-0.90) is, for
#: loadings 1, 1.5, 2, 2.5 and 3: 6e-8, 1e-4, 2e-3, 8e-3 and 2e-2 with 32 nodes (a fit of
#: 3 000 items at loading 2 off by 6), and 6e-13, 6e-8, 6e-6, 2e-4 and 1e-3 with these 64
#: (36 kept), which cost about a third more per gradient.
QUADRATURE_NODES = 64
#: Nodes of smaller weight are dropped.  Every integrand here is a probability (at most 1),
#: so no pattern probability moves by more than the weight dropped, under 1e-11 (tested); the
#: 64-node rule keeps 36 nodes, 44% less work at every leapfrog step.
NEGLIGIBLE_WEIGHT = 1e-12


#: The loadings' prior, ``beta_y ~ HalfNormal(LOADING_SCALE)`` (the model's, in
#: ``models/latent_class.py``, and the calibration test's H0 draw).
LOADING_SCALE = 1.0


@functools.cache
def quadrature(n_nodes: int = QUADRATURE_NODES) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``x_q`` and log weights ``log w_q`` with ``sum_q w_q f(x_q) ~ E f(R)``,
    ``R ~ N(0, 1)`` (probabilists' Gauss–Hermite rule, without the nodes of weight below
    :data:`NEGLIGIBLE_WEIGHT`).  Computed once per rule (read-only arrays): the rule's
    eigenproblem took two thirds of a likelihood evaluation on NumPy (0.8 of 1.2 ms)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(n_nodes)
    weights = weights / np.sqrt(2.0 * np.pi)
    kept = weights >= NEGLIGIBLE_WEIGHT
    nodes, log_weights = nodes[kept], np.log(weights[kept])
    nodes.flags.writeable = log_weights.flags.writeable = False
    return nodes, log_weights


#: In double precision ``log Phi(x)`` is taken at ``max(x, LOG_CDF_FLOOR)``: ``Phi(-37) ~
#: 6e-300`` is near the smallest normal double.  Only the outer nodes of extreme parameters go
#: below it, and a node there adds nothing next to the central ones.
LOG_CDF_FLOOR = -37.0


def _special(xp):
    """``(ndtri, log_normal_cdf, logsumexp)`` of the array module: ``scipy.special`` for numpy,
    ``jax.scipy.special`` for ``jax.numpy`` inside a model.  Found by the module's name, so
    that this layer never imports JAX itself (the caller already has).

    ``log_normal_cdf(x) = log(erfc(-x / sqrt 2) / 2)`` in double precision: one branch where
    ``log_ndtr`` has three (an asymptotic series in the far lower tail, ``log1p`` in the
    upper), and the sampler differentiates it at every leapfrog step (measured: 17.4 against
    29.5 us per gradient, 3 000 items of five annotators).  ``erfc`` is accurate to its last
    digits in the lower tail, so is the logarithm; in the upper tail the error is absolute,
    below 1e-13 on [-37, 37] (tested for numpy and JAX against ``scipy.special.log_ndtr``).
    In single precision ``erfc`` underflows near -13, where the three branches are needed:
    ``log_ndtr`` it is."""
    special = importlib.import_module(xp.__name__.replace("numpy", "scipy.special"))

    def log_normal_cdf(x):
        if x.dtype != np.float64:
            return special.log_ndtr(x)
        return xp.log(0.5 * special.erfc(xp.maximum(x, LOG_CDF_FLOOR) * -np.sqrt(0.5)))

    return special.ndtri, log_normal_cdf, special.logsumexp


def difficulty_class_log_likelihoods(
    a, b, loading, positive, negative, xp=np, n_nodes: int = QUADRATURE_NODES
):
    """``(log p(s_r | Y = 0), log p(s_r | Y = 1))`` of each row under shared difficulty, each
    (..., P).

    ``a, b`` are the marginal channels (..., K), ``loading`` (..., 2) the loadings
    ``beta_0, beta_1``; ``positive``/``negative`` (P, K) indicators of a 1 / 0 response (a
    missing response drops out of the product inside the integral); ``n_nodes`` the
    Gauss–Hermite rule's (the model's own, or :data:`REFERENCE_NODES` to measure its error).
    """
    _, log_normal_cdf, logsumexp = _special(xp)
    nodes, log_weights = quadrature(n_nodes)
    # both classes in one pass (Y on axis -3): a fit evaluates this at every leapfrog step,
    # and on CPU its cost is the number of array operations more than their size
    rates = xp.stack([a, b], axis=-2)  # (..., 2, K)
    alpha = probit_intercept(rates, loading[..., None], xp)  # (..., 2, K)
    eta = alpha[..., None, :] + loading[..., None, None] * nodes[:, None]  # (..., 2, Q, K)
    log_rate = log_normal_cdf(xp.stack([eta, -eta]))  # log Phi(eta), log(1 - Phi(eta))
    per_node = xp.einsum("pk,...yqk->...yqp", positive, log_rate[0]) + xp.einsum(
        "pk,...yqk->...yqp", negative, log_rate[1]
    )
    log_class = logsumexp(per_node + log_weights[:, None], axis=-2)  # (..., 2, P)
    return log_class[..., 0, :], log_class[..., 1, :]


def probit_intercept(rates, loading, xp=np):
    """``alpha = Phi^-1(p) sqrt(1 + beta^2)``: the intercept that gives an annotator the
    marginal rate ``p`` (``rates``) under the loading ``beta`` (``loading``; module
    docstring); the two broadcast, ``xp`` is ``jax.numpy`` in the program."""
    ndtri = _special(xp)[0]
    return ndtri(rates) * xp.sqrt(1.0 + loading**2)


def as_loadings(loading, name: str = "loading") -> np.ndarray:
    """The two loadings ``(beta_0, beta_1)`` as float64 (2,), each finite and non-negative, or
    an error naming ``name``."""
    array = v.as_numeric_array(loading, name).astype(np.float64)
    if array.shape != (2,):
        raise ValueError(
            f"{name} must hold the two loadings (beta_0, beta_1); saw shape {array.shape}"
        )
    v.check_finite(array, name)
    if (array < 0).any():
        raise ValueError(f"{name} must be non-negative; saw {array.tolist()}")
    return array


def pair_covariances(a, b, loading) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of annotators ``(j, k)``, ``j < k`` (D, 2), and the covariance of their
    answers given ``Y = 0, 1`` (D, 2) that the shared difficulty gives them:

        Cov(A_j, A_k | Y = y) = E[Phi(alpha_jy + beta_y R) Phi(alpha_ky + beta_y R)] - p_jy p_ky

    with ``p_j0 = a_j``, ``p_j1 = b_j`` the marginal channels (K,), ``loading`` (2,) the
    loadings, ``R ~ N(0, 1)`` integrated by :func:`quadrature` (the exact value is a bivariate
    normal probability of correlation ``beta^2 / (1 + beta^2)``, tested).  What the
    calibration test's variance adds for an item two annotators labelled."""
    from scipy import special

    a, b = v.as_probabilities(a, "a"), v.as_probabilities(b, "b")
    if a.size != b.size:
        raise ValueError(
            f"a and b must hold one rate per annotator each; saw {a.size} and {b.size}"
        )
    loading = as_loadings(loading)
    nodes, log_weights = quadrature()
    rates = np.stack([a, b])  # (2, K)
    eta = probit_intercept(rates, loading[:, None])[:, None, :] + (
        loading[:, None, None] * nodes[:, None]
    )  # (2, Q, K)
    answer = special.ndtr(eta)
    pairs = np.array(list(itertools.combinations(range(rates.shape[1]), 2)), np.int64)
    pairs = pairs.reshape(-1, 2)
    first, second = answer[:, :, pairs[:, 0]], answer[:, :, pairs[:, 1]]
    joint = np.einsum("q,yqd,yqd->dy", np.exp(log_weights), first, second)
    return pairs, joint - (rates[:, pairs[:, 0]] * rates[:, pairs[:, 1]]).T


def answer_probability(rates, loading, effect) -> np.ndarray:
    """``P(A = 1 | Y, R) = Phi(alpha + beta R)`` (:func:`probit_intercept`): the chance of a 1
    from an annotator of marginal rate ``p`` (``rates``: ``a_j`` or ``b_j`` by the class) on an
    item of effect ``R`` (``effect``) with the class's loading ``beta`` (``loading``); the three
    broadcast.  What the simulations and the calibration test's replicates draw from."""
    from scipy import special

    return special.ndtr(probit_intercept(rates, loading) + loading * effect)


#: Bytes of one (draws, classes, nodes, rows) array of :func:`difficulty_class_log_likelihoods`
#: on posterior draws (``PatternDesign.row_log_likelihood``); a pass holds about seven such
#: arrays at its peak.  Measured with 4 000 draws of 4 096 rows (twelve annotators), 32
#: nodes: a peak of 2.9 GiB in 45 s at the former 256 draws per pass, 0.35 GiB (the result
#: itself 0.12 GiB) in 22 s with this bound; with 64 nodes 0.35 GiB in 35 s.
PASS_BYTES = 1 << 25


def draws_per_pass(n_rows: int) -> int:
    """Draws of the shared-difficulty likelihood evaluated at once on ``n_rows`` pattern rows,
    within :data:`PASS_BYTES` (at least one)."""
    per_draw = 2 * quadrature()[0].size * max(n_rows, 1) * 8
    return max(1, PASS_BYTES // per_draw)


#: The reference rule :func:`likelihood_error` measures the model's against: at loading 2.5
#: its expected error per item is below 1e-6, against 2e-4 for the model's 64 nodes.
REFERENCE_NODES = 128
#: A fit whose data's log-likelihood the quadrature misses by more than this (at the median
#: draw) is warned of: the error then moves the posterior, not only its last digits.  With
#: the errors per item of :data:`QUADRATURE_NODES`, 3 000 items of five annotators reach it
#: near a loading of 2.7, 100 000 near 2.1.  Measured: a shared difficulty of loadings
#: ``(3, 1)`` fitted on 100 000 items is off by 32 (medians 2.82, 1.03).
MAX_LIKELIHOOD_ERROR = 1.0
#: Draws :func:`likelihood_error` evaluates, evenly spaced through the posterior.
ERROR_DRAWS = 64


def likelihood_error(a, b, prevalence, loading, positive, negative, counts) -> np.ndarray:
    """How far the quadrature misses the data's log-likelihood at posterior draws:
    ``sum_r n_r |log p(s_r) - log p_ref(s_r)|`` for :data:`ERROR_DRAWS` of the draws ``a, b``
    (S, K), ``prevalence`` (S,), ``loading`` (S, 2), against the rule of
    :data:`REFERENCE_NODES`; rows ``positive``/``negative`` (P, K) with ``counts`` (P,).
    The error grows with the loading (:data:`QUADRATURE_NODES`) and with the items."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    prevalence, loading = np.asarray(prevalence, np.float64), np.asarray(loading, np.float64)
    counts = np.asarray(counts, np.float64)
    draws = a.shape[:1]
    if (
        a.ndim != 2
        or b.shape != a.shape
        or prevalence.shape != draws
        or loading.shape != (*draws, 2)
    ):
        raise ValueError(
            "a, b (S, K), prevalence (S,) and loading (S, 2) must be draws of one posterior; "
            f"saw {a.shape}, {b.shape}, {prevalence.shape} and {loading.shape}"
        )
    if counts.shape != (positive.shape[0],) or positive.shape != (counts.size, a.shape[1]):
        raise ValueError(
            f"counts must hold one count per row of positive (P, K) = {positive.shape} with "
            f"K = {a.shape[1]}; saw {counts.shape}"
        )
    chosen = np.unique(np.linspace(0, a.shape[0] - 1, ERROR_DRAWS).round().astype(int))
    errors = []
    for s in chosen:  # one draw at a time: the reference rule holds 2 x 128 x P values
        rules = [
            difficulty_class_log_likelihoods(a[s], b[s], loading[s], positive, negative, n_nodes=n)
            for n in (QUADRATURE_NODES, REFERENCE_NODES)
        ]
        mixed = [
            np.logaddexp(np.log1p(-prevalence[s]) + log0, np.log(prevalence[s]) + log1)
            for log0, log1 in rules
        ]
        errors.append(float(counts @ np.abs(mixed[0] - mixed[1])))
    return np.array(errors)
