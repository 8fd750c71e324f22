"""The prior of an annotator's channel: for binary labels a Beta false-positive rate and a Beta
sensitivity, not conditioned on ``a < b``; the flat models take their orientation from the population by
folding each draw (:mod:`bayescal.models.orientation`), so NUTS meets no wall.  For
multi-class labels a Dirichlet per row of the confusion matrix, which the draws' relabelling
orients (:mod:`bayescal.models.relabelling`).
"""

from __future__ import annotations

import numpyro.distributions as dist
from jax.scipy.special import xlog1py, xlogy

__all__ = ["BetaKernel", "DirichletKernel", "beta_log_kernel"]


def beta_log_kernel(x, concentration1, concentration0):
    """``(alpha - 1) log x + (beta - 1) log(1 - x)``: the log Beta(alpha, beta) density without
    its normalising constant ``-log B(alpha, beta)``.

    The constant does not depend on the sampled parameters, so it changes no posterior and no
    NUTS step; leaving it out keeps ``log B`` (four log-gamma functions and a series per Beta in
    NumPyro's ``Beta.log_prob``) out of every compiled sampler, a third of the start program's
    operations and a fifth of the NUTS step's (benchmarks/RESULTS.md).
    """
    return xlogy(concentration1 - 1.0, x) + xlog1py(concentration0 - 1.0, -x)


class BetaKernel(dist.Beta):
    """``dist.Beta`` whose ``log_prob`` is :func:`beta_log_kernel` (no normalising constant);
    it samples as ``dist.Beta``."""

    def log_prob(self, value):
        return beta_log_kernel(value, self.concentration1, self.concentration0)


class DirichletKernel(dist.Dirichlet):
    """``dist.Dirichlet`` whose ``log_prob`` is ``sum_k (alpha_k - 1) log x_k``, without the
    normalising constant (it does not depend on the sampled parameters, as for
    :class:`BetaKernel`); it samples as ``dist.Dirichlet``.  The rows of a multi-class
    annotator's confusion matrix and the class proportions
    (:mod:`bayescal.models.class_latent`)."""

    def log_prob(self, value):
        return xlogy(self.concentration - 1.0, value).sum(axis=-1)
