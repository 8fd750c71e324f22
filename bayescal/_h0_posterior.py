"""Channels drawn from their posterior under calibration (H0), for the sampled-posterior p-value
of :func:`bayescal.calibration_test` with a BayesFit of the same items.

A sampled-posterior p-value is calibrated when the draw comes from the posterior of the model
the data are tested under (Johnson 2004, 2007; Gosselin 2011).  A BayesFit's posterior is of
the channels given the annotations alone, with a free class proportion; under H0 the model is

    Y_i ~ Bernoulli(Z_i),    A_ij | Y_i ~ Bernoulli(b_j if Y_i = 1 else a_j),

whose posterior also learns from the scores (issue 18 measured the fit's own posterior draws
rejecting a calibrated predictor in 8% to 90% of replicates at the 5% level).  This module draws
from ``p(a, b | A, Z, H0)`` by Gibbs sampling with the true labels as latent data (Tanner &
Wong 1987), started at a draw of the fit:

    logit P(Y_i = 1 | a, b) = logit Z_i
        + sum_j [A_ij log(b_j / a_j) + (1 - A_ij) log((1 - b_j) / (1 - a_j))],
    a_j | Y ~ Beta(fp_1 + s0_j, fp_2 + n0_j - s0_j),    on (0, b_j) when oriented,
    b_j | Y ~ Beta(sens_1 + s1_j, sens_2 + n1_j - s1_j), on (a_j, 1) when oriented,

with ``n_yj`` the labels annotator j gave to items of class y and ``s_yj`` its 1s among them,
and the fit's Beta priors (:class:`~bayescal.Priors`; conditioned on ``a_j < b_j`` for the
flat models, as they are).  The truncated Betas are drawn by inverting their CDF.  For the
hierarchical model the population is not used: each worker gets the Priors' Betas (uniform
by default) without the orientation condition, as a worker there may be adversarial; a sparse
worker's draw is then wide, and the statistic's IV weights at the draw carry it.
"""

from __future__ import annotations

import numpy as np
from scipy import special

#: Gibbs sweeps from the fit's draw to the draw used: the fit's draw is already near the H0
#: posterior, and the latent labels are pinned by the scores, so the chain forgets its start
#: within a few sweeps (tests/test_calibration_test_estimated.py checks the stationary law).
H0_SWEEPS = 50

#: Rates are kept inside [EDGE, 1 - EDGE] so that their logarithms stay finite.
EDGE = 1e-12


def h0_posterior_draw(
    scores, item, annotator, label, a, b, priors, *, oriented: bool, sweeps: int, rng
) -> tuple[np.ndarray, np.ndarray]:
    """Channels ``(a, b)`` after ``sweeps`` Gibbs sweeps of ``p(a, b | A, Z, H0)`` (module
    docstring) started at ``(a, b)``.

    Parameters
    ----------
    scores : ndarray, shape (n,)
    item, annotator, label : ndarray, shape (R,)
        The responses.
    a, b : ndarray, shape (K,)
        The start.
    priors : ndarray, shape (3, 2)
        :meth:`bayescal.Priors.as_array` (the prevalence row is not used: H0 fixes it).
    oriented : bool
        Whether the prior is conditioned on ``a_j < b_j``.
    """
    a = np.clip(np.asarray(a, float), EDGE, 1.0 - EDGE)
    b = np.clip(np.asarray(b, float), EDGE, 1.0 - EDGE)
    n_annotators = a.size
    with np.errstate(divide="ignore"):  # a score of 0 or 1 pins its item's label
        prior_log_odds = np.log(scores) - np.log1p(-scores)
    positive = label.astype(np.float64)
    for _ in range(sweeps):
        evidence = (
            positive * np.log(b / a)[annotator]
            + (1.0 - positive) * np.log((1.0 - b) / (1.0 - a))[annotator]
        )
        log_odds = prior_log_odds + np.bincount(item, evidence, minlength=scores.size)
        truth = rng.random(scores.size) < special.expit(log_odds)
        of_class1 = truth[item]
        n1 = np.bincount(annotator, of_class1, minlength=n_annotators)
        s1 = np.bincount(annotator, of_class1 * positive, minlength=n_annotators)
        n0 = np.bincount(annotator, minlength=n_annotators) - n1
        s0 = np.bincount(annotator, positive, minlength=n_annotators) - s1
        a = _truncated_beta(
            priors[0, 0] + s0, priors[0, 1] + n0 - s0, 0.0, b if oriented else 1.0, rng
        )
        b = _truncated_beta(
            priors[1, 0] + s1, priors[1, 1] + n1 - s1, a if oriented else 0.0, 1.0, rng
        )
    return a, b


def _truncated_beta(alpha, beta, low, high, rng) -> np.ndarray:
    """Beta(alpha, beta) draws restricted to ``(low, high)``, by inverting the CDF."""
    lower = special.betainc(alpha, beta, low)
    upper = special.betainc(alpha, beta, high)
    u = lower + rng.random(np.shape(alpha)) * (upper - lower)
    return np.clip(special.betaincinv(alpha, beta, u), EDGE, 1.0 - EDGE)
