"""Bayesian Hui–Walter grouped model: channels shared across L score groups, one class
proportion per group (paper §4.2, App. D.5).

    a_j, b_j ~ Beta(fp) x Beta(sens) conditioned on a_j < b_j     (see bayescal.bayes.priors)
    mu_g ~ Beta(prev) for each score group g
    Y_i | g_i ~ Bernoulli(mu_{g_i}),  A_ij | Y_i ~ Bernoulli(a_j + (b_j - a_j) Y_i)

Identified with K >= 3, or K = 2 and L >= 2 groups whose class proportions differ.
"""

from __future__ import annotations

from ._common import PatternDesign, channel_program


def hui_walter(design: PatternDesign, prior_params, counts=None) -> None:
    """The program; ``prior_params`` is ``Priors.as_array()``; ``counts=None`` draws pattern
    counts from the prior predictive."""
    channel_program(design, prior_params, grouped=True, counts=counts)


def hui_walter_by_group(design: PatternDesign, prior_params, counts=None) -> None:
    """Channels per score group (``design.channels_by_group``): each group ``g`` has its own
    ``a_gj < b_gj`` and class proportion, a Dawid–Skene model per group (K >= 3), for testing
    by LOO whether the noise depends on the score (it must not, for NC-ECE)."""
    channel_program(design, prior_params, grouped=True, counts=counts)
