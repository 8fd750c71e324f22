"""Shared item difficulty: the random-effects latent class model (Qu, Tan and Kutner 1996).

Some items are hard for every judge.  Given the true label ``Y_i`` and an item effect
``R_i ~ N(0, 1)``,

    A_ij | Y_i = y, R_i ~ Bernoulli(Phi(alpha_jy + beta_y R_i)),      beta_y >= 0,

with one loading ``beta_y`` per class (per-annotator loadings are not identified with four
annotators, and their signs give NUTS several modes).  The effect is integrated out per pattern
by Gauss–Hermite quadrature.  The *marginal* channels are exactly

    a_j = Phi(alpha_j0 / sqrt(1 + beta_0^2)),   b_j = Phi(alpha_j1 / sqrt(1 + beta_1^2))

(``E Phi(alpha + beta R) = Phi(alpha / sqrt(1 + beta^2))`` for standard normal ``R``), so the
model is parametrised by ``(a_j, b_j)`` under the usual oriented prior and the loadings: the
correction, NC-ECE and ``posterior_ece`` use the marginal channels as they are.

**What NC-ECE then assumes.**  The corrected label's mean is ``Y`` when the difficulty is
independent of the score given ``Y``: ``E[A_ij | Y, Z] = E[A_ij | Y]``.  If the items the
predictor finds hard are also hard for the judges (difficulty correlated with the score given
``Y``), the channels differ between score bins and NC-ECE is biased, whatever model of the
judges is fitted (benchmarks/dependence_recovery.py simulates such a violation).
"""

from __future__ import annotations

import importlib

import numpy as np

__all__ = ["QUADRATURE_NODES", "difficulty_class_log_likelihoods", "quadrature"]

#: Gauss–Hermite nodes of the item effect: the marginal channels are reproduced to 1e-6 for
#: loadings up to 2 and to 1e-4 up to 3 (tested; HalfNormal(1) puts 0.3% of its mass above
#: 3), far inside any posterior's spread.  48 nodes (1e-9, 1e-5) made a fit 1.4 times slower
#: (28.8 s against 21.3 s, 3 000 items of five annotators).
QUADRATURE_NODES = 32


def quadrature(n_nodes: int = QUADRATURE_NODES) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``x_q`` and log weights ``log w_q`` with ``sum_q w_q f(x_q) ~ E f(R)``,
    ``R ~ N(0, 1)`` (probabilists' Gauss–Hermite rule)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(n_nodes)
    return nodes, np.log(weights / np.sqrt(2.0 * np.pi))


def _special(xp):
    """``(ndtri, log_ndtr, logsumexp)`` of the array module: ``scipy.special`` for numpy,
    ``jax.scipy.special`` for ``jax.numpy`` inside a model.  Found by the module's name, so
    that this layer never imports JAX itself (the caller already has)."""
    special = importlib.import_module(xp.__name__.replace("numpy", "scipy.special"))
    return special.ndtri, special.log_ndtr, special.logsumexp


def difficulty_class_log_likelihoods(a, b, loading, positive, negative, xp=np):
    """``(log p(s_r | Y = 0), log p(s_r | Y = 1))`` of each row under shared difficulty, each
    (..., P).

    ``a, b`` are the marginal channels (..., K), ``loading`` (..., 2) the loadings
    ``beta_0, beta_1``; ``positive``/``negative`` (P, K) indicators of a 1 / 0 response (a
    missing response drops out of the product inside the integral).
    """
    ndtri, log_ndtr, logsumexp = _special(xp)
    nodes, log_weights = quadrature()
    out = []
    for y, rates in enumerate((a, b)):
        beta = loading[..., y]
        alpha = ndtri(rates) * xp.sqrt(1.0 + beta**2)[..., None]  # (..., K)
        eta = alpha[..., None, :] + beta[..., None, None] * nodes[:, None]  # (..., Q, K)
        per_node = xp.einsum("pk,...qk->...qp", positive, log_ndtr(eta)) + xp.einsum(
            "pk,...qk->...qp", negative, log_ndtr(-eta)
        )
        out.append(logsumexp(per_node + log_weights[:, None], axis=-2))
    return out[0], out[1]
