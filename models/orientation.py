"""The flat models' orientation: a prior without a wall, and every draw folded by its population.

The latent class likelihood cannot tell a draw from its mirror image
``S(a, b, mu) = (b, a, 1 - mu)`` (every class exchanged; a dependent pair's two covariances and
the shared difficulty's two loadings exchanged with them).  The flat models
(:func:`~bayescal.models.latent_class_model` without gold) hold no annotator to ``a_j < b_j``;
after sampling, each draw is *folded*: replaced by its mirror image where the population's
label-weighted gap is negative,

    sum_j n_j (b_j - a_j) < 0,        n_j = annotator j's number of labels,

the rule by which the EM estimators orient a fit (:func:`bayescal.channels.base.orient`).
Every annotator is then free: an adversarial one (``b_j < a_j``) is estimated as one, where a
prior conditioned on ``a_j < b_j`` held it at the bound ``a_j = b_j`` (``a = 0.6, b = 0.3``
came out ``0.450, 0.452``).  The folded draws follow the posterior under the prior

    p(theta) = p0(theta) + p0(S theta)   on   sum_j n_j (b_j - a_j) > 0   (0 elsewhere),

``p0`` the product of the Betas of :class:`bayescal.Priors`: with the default flat priors,
uniform on that half of the cube.  Its probability that a given annotator is adversarial is
:meth:`bayescal.Priors.adversarial_probability`: under flat priors 0.25, 0.30, 0.35 and 0.40
for one of 2, 3, 5 and 10 annotators with as many labels each; under the informative
``false_positive=(2, 8), sensitivity=(8, 2)`` about 0.002 (an oriented prior made it 0).
Folding a draw after the sampler rather than conditioning the prior keeps NUTS off a wall: a
chain that reaches the mirror image is folded back, and no image is counted twice.  With real
data the two images are separate modes a chain does not cross, so every chain starts on the
image the channels' Betas favour (:func:`~bayescal.models.majority_start`; under flat priors
they are alike).

With channels per score group every group's channels and class proportion are a model of
their own, folded by the group's own labels.  With gold the gold fixes the orientation and
nothing is folded.

The hierarchical crowd model is not folded: its prior orients it (the population's mean gap
is positive).  Its mirror image is a separate, far less probable mode (every worker flipped,
a wide population with a small positive gap), and a chain can still settle there during
warm-up although every chain starts with the workers oriented (measured: 1 or 2 of 100 fits
of 2 chains on a 30-worker crowd, R-hat 1.8).  Such a chain's label-weighted gap is negative
over its draws while the others' is positive, and its NC-ECE is that of the reversed labels.
:func:`mirrored_chains` finds such chains, and the sampler leaves them out with a warning.
When every chain is on the negative side, that is the posterior the data give, and all are
kept.
"""

from __future__ import annotations

import numpy as np

from .pattern_design import PatternDesign
from .response_design import ResponseDesign

__all__ = ["fold_orientation", "labels_per_channel", "mirrored_chains"]


def labels_per_channel(design: PatternDesign | ResponseDesign) -> np.ndarray:
    """Each annotator's number of labels ``n_j`` (K,), or with channels per score group each
    group's (L, K): the weights of the fold."""
    if isinstance(design, ResponseDesign):  # codes 2 j + label, 2 K a pad
        given = design.codes < 2 * design.n_annotators
        items = np.broadcast_to(design.counts[:, None], design.codes.shape)
        return np.bincount(design.codes[given] // 2, items[given], minlength=design.n_annotators)
    answered = design.positive + design.negative
    if not design.channels_by_group:
        return design.counts @ answered
    by_group = np.zeros((design.n_groups, design.n_annotators))
    np.add.at(by_group, design.group_index, design.counts[:, None] * answered)
    return by_group


def fold_orientation(draws: dict, design: PatternDesign) -> dict:
    """The draws ``{site: (..., ...)}`` of a flat model (sites ``a``, ``b``, ``prevalence`` and,
    when present, ``covariance`` (..., D, 2) and ``loading`` (..., 2)), each replaced by its
    mirror image where its population's label-weighted gap is negative (module docstring); the
    draws as they are when the design has gold."""
    if design.has_gold:
        return draws
    weights = labels_per_channel(design)
    a, b = np.asarray(draws["a"]), np.asarray(draws["b"])
    lead = a.shape[:-1]
    if design.channels_by_group:  # every group folded on its own: flip (..., L)
        shape = (*lead, design.n_groups, design.n_annotators)
        flip = (weights * (b - a).reshape(shape)).sum(axis=-1) < 0
        per_rate = np.repeat(flip, design.n_annotators, axis=-1)
    else:  # one fold for the draw: flip (...)
        flip = (weights * (b - a)).sum(axis=-1) < 0
        per_rate = flip[..., None]
    prevalence = np.asarray(draws["prevalence"])
    per_group = flip if prevalence.ndim == flip.ndim else flip[..., None]
    folded = dict(draws)
    folded["a"], folded["b"] = np.where(per_rate, b, a), np.where(per_rate, a, b)
    folded["prevalence"] = np.where(per_group, 1.0 - prevalence, prevalence)
    if "covariance" in draws:  # (..., D, 2): given Y = 0 and given Y = 1
        covariance = np.asarray(draws["covariance"])
        folded["covariance"] = np.where(flip[..., None, None], covariance[..., ::-1], covariance)
    if "loading" in draws:  # (..., 2): one per class
        loading = np.asarray(draws["loading"])
        folded["loading"] = np.where(flip[..., None], loading[..., ::-1], loading)
    return folded


def mirrored_chains(draws: dict, design: ResponseDesign) -> np.ndarray:
    """Which chains (C,) of a hierarchical fit's draws ``{site: (C, S, ...)}`` settled in the
    mirror image while another did not: a negative label-weighted gap ``sum_j n_j (b_j -
    a_j)`` averaged over the chain's draws (module docstring).  None are with gold, which
    orients the fit, or when every chain is on the same side."""
    if design.gold is not None:
        return np.zeros(np.shape(draws["a"])[0], bool)
    gap = (labels_per_channel(design) * (np.asarray(draws["b"]) - np.asarray(draws["a"]))).sum(
        axis=-1
    )
    mirrored = gap.mean(axis=1) < 0
    return mirrored if not mirrored.all() else np.zeros_like(mirrored)
