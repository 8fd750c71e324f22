"""The multi-class latent class program on pattern counts: Dawid and Skene's (1979) model with a
Dirichlet prior on every row of every annotator's confusion matrix.

    T_j[y] ~ Dirichlet(beta + (alpha - beta) e_y)
    pi ~ Dirichlet(gamma 1)
    Y_i ~ Categorical(pi),  A_ij | Y_i = y ~ Categorical(T_j[y]), independent given Y_i

``alpha`` is the rows' concentration on their own class, ``beta`` on each other, ``gamma`` the
proportions' (:class:`bayescal.bayes.ClassPriors`).

``Y`` is summed out by hand (never NumPyro's enumeration: the likelihood runs on pattern counts
as weights); missing answers drop out, and a gold row keeps only its class's term.  The
likelihood cannot tell a draw from any relabelling of its classes: no row is held diagonally
dominant, and each draw is relabelled after sampling (:mod:`bayescal.models.relabelling`), so
NUTS meets no wall.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpyro
from numpyro.distributions import constraints

from .channel_prior import DirichletKernel
from .class_pattern_design import ClassPatternDesign
from .stack import biject_to

__all__ = ["class_latent_model", "class_majority_start"]


def class_latent_model(design: ClassPatternDesign, prior_params, counts) -> None:
    """The program.

    ``prior_params`` is the (3,) array of ``ClassPriors.as_array()`` (the rows'
    concentration on their own class and on each other class, and the proportions'); as an
    array it can be traced, so one compiled sampler serves many priors.  Sites:
    ``confusion`` (K, C, C), ``T_j[y, k] = P(A_j = k | Y = y)``, and ``proportion`` (C,).
    The pattern counts enter through ``sum_r counts_r log p(s_r)`` (the multinomial kernel).
    """
    prior_params = jnp.asarray(prior_params)
    n_classes = design.n_classes
    own = jnp.eye(n_classes)
    row_concentration = prior_params[1] + (prior_params[0] - prior_params[1]) * own
    with numpyro.plate("annotator", design.n_annotators):
        confusion = numpyro.sample("confusion", DirichletKernel(row_concentration).to_event(1))
    proportion = numpyro.sample("proportion", DirichletKernel(jnp.full(n_classes, prior_params[2])))
    numpyro.factor("pattern_counts", jnp.dot(counts, design.log_prob(confusion, proportion, jnp)))


#: Pseudo-counts added to every cell of the majority vote's confusion matrices at the start, so
#: that no start sits on the simplex's boundary (where the unconstrained scale is infinite).
START_PSEUDO_COUNT = 0.5


def class_majority_start(answers, counts, gold=None):
    """Every chain's confusion matrices start near the majority vote's (then jittered by the
    sampler), on the unconstrained scale (K, C, C - 1): ``T_j[y, k]`` is annotator ``j``'s
    share of answer ``k`` on the items the majority calls ``y`` (its own answer included; ties
    to the first class; a gold row's class is its gold), with ``START_PSEUDO_COUNT``
    added to every cell.  Traced: the compiled start computes it from the counts, so one
    sampler still serves every data set of a layout.

    Why not random starts: a random start of the stick-breaking scale may put two classes'
    rows close together, and a chain can settle in a mode that merges them; from the majority
    vote every chain starts in the same labelling and near the main mode."""
    votes = answers.sum(axis=1)  # (R, C)
    vote = jnp.argmax(votes, axis=-1)
    if gold is not None:
        vote = jnp.where(gold >= 0, gold.astype(vote.dtype), vote)
    weight = counts[:, None] * (vote[:, None] == jnp.arange(answers.shape[-1]))  # (R, C(y))
    tallies = jnp.einsum("ry,rjk->jyk", weight, answers) + START_PSEUDO_COUNT
    rows = tallies / tallies.sum(axis=-1, keepdims=True)
    return biject_to(constraints.simplex).inv(rows)
