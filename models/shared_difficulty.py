"""Bayesian shared-difficulty model: the random-effects latent class model of Qu, Tan and
Kutner (1996), K >= 4 annotators, one class proportion.

    a_j, b_j ~ Beta(fp) x Beta(sens) conditioned on a_j < b_j     (the marginal channels)
    beta_0, beta_1 ~ HalfNormal(1)                                 (one loading per class)
    mu ~ Beta(prev),  Y_i ~ Bernoulli(mu),  R_i ~ N(0, 1)
    A_ij | Y_i = y, R_i ~ Bernoulli(Phi(alpha_jy + beta_y R_i)),
    alpha_jy = Phi^-1(p_jy) sqrt(1 + beta_y^2),  p_j0 = a_j, p_j1 = b_j

``R`` is integrated out per pattern by Gauss–Hermite quadrature and ``Y`` summed out by hand;
the likelihood runs on pattern counts (see :mod:`bayescal.channels.difficulty`).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax.scipy.special import logit

from ._common import PatternDesign, channel_program

#: Every chain's loadings start at 0.3 (log 0.3 unconstrained; the channels start at random):
#: a start up to e^2 = 7.4, NumPyro's uniform (-2, 2), left a chain in a minor mode of large
#: loadings, 16 log-likelihood units below the main one (measured: R-hat 1.2, ESS 7, on
#: 3 000 items of four annotators).
DIFFICULTY_START = {"loading": (math.log(0.3), math.log(0.3))}


def shared_difficulty(design: PatternDesign, prior_params, counts=None) -> None:
    """The program (``design.difficulty`` set); ``prior_params`` is ``Priors.as_array()``;
    ``counts=None`` draws pattern counts from the prior predictive."""
    channel_program(design, prior_params, grouped=False, counts=counts)


def majority_start(positive, negative, counts):
    """Every chain's channels start near the majority vote's (then jittered by the sampler):
    ``a_j`` and ``b_j`` are annotator ``j``'s rates of 1 on the items the others' majority
    calls 0 and 1, on the unconstrained scale of the oriented pair.  From random starts one
    chain in four settled in a minor mode (module constant :data:`DIFFICULTY_START`); from
    here none did in the runs measured (tests/channels/test_difficulty.py).  Traced: the compiled start
    computes it from the counts, so one sampler still serves every data set of a layout."""
    answered = positive + negative
    share = positive.sum(axis=1) / jnp.maximum(answered.sum(axis=1), 1.0)
    vote = (share > 0.5) * 1.0 + (share == 0.5) * 0.5
    weight1, weight0 = counts * vote, counts * (1.0 - vote)
    b = (weight1 @ positive) / jnp.maximum(weight1 @ answered, 1e-9)
    a = (weight0 @ positive) / jnp.maximum(weight0 @ answered, 1e-9)
    a = jnp.clip(jnp.minimum(a, b - 0.05), 0.02, 0.9)
    b = jnp.clip(jnp.maximum(b, a + 0.05), a + 0.01, 0.98)
    return jnp.stack([logit(a), logit((b - a) / (1.0 - a))], axis=-1)
