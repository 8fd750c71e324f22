"""Bayesian Dawid–Skene model: K >= 3 annotators, one class proportion (paper §4.3).

    a_j, b_j ~ Beta(fp) x Beta(sens) conditioned on a_j < b_j     (see bayescal.bayes.priors)
    mu ~ Beta(prev)
    Y_i ~ Bernoulli(mu),  A_ij | Y_i ~ Bernoulli(a_j + (b_j - a_j) Y_i), independent given Y_i

Y is summed out by hand; the likelihood runs on pattern counts, missing responses drop out.
"""

from __future__ import annotations

from ._common import PatternDesign, channel_program


def dawid_skene(design: PatternDesign, prior_params, counts=None) -> None:
    """The program; ``prior_params`` is ``Priors.as_array()``; ``counts=None`` draws pattern
    counts from the prior predictive."""
    channel_program(design, prior_params, grouped=False, counts=counts)
