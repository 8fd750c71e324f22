"""The hierarchical multi-class Dawid–Skene program of a crowd: each worker's confusion matrix
drawn from a population, on the sparse responses of :mod:`.class_response_design`.

Each row of a worker's matrix is a softmax of logits against its own class, ``eta_j[y, y] = 0``
and for every other answer ``k != y``

    eta_j[y, k] = mu[y, k] - t u_j + s z_j[y, k],    u_j, z_j[y, k] ~ Normal(0, 1)  (non-centred)
    mu[y, k] ~ Normal(-2, 1.5),   t ~ HalfNormal(1.5),   s ~ HalfNormal(1)
    T_j[y] = softmax(eta_j[y]),   pi ~ Dirichlet(gamma 1)
    Y_i ~ Categorical(pi),  A_ij | Y_i = y ~ Categorical(T_j[y]), independent given Y_i

``mu[y, k]`` is the population's log-odds of answering ``k`` rather than the true ``y``: at the
prior's centre, -2, the right answer is e^2 = 7.4 times as likely as each wrong one (right 79%
of the time among 3 classes, 45% among 10), give or take a factor of e^1.5 in the odds; ``s``
spreads the workers' cells around it by about a logit.  ``t u_j`` is the worker's skill, one
number that lowers every wrong answer's odds at once: workers differ most in how often they are
right, and without it that difference must be spelled out cell by cell, against the cells'
prior, which shrank a worker right 85% of the time to 74% (a 10-class crowd, 300 labels a
worker).  Fixing the own-class logit at
0 leaves no direction of a row unidentified (a softmax is blind to a common shift).  A worker
with a few labels is pulled toward the population, which is what a 10 x 10 matrix estimated
from three labels a cell needs (``benchmarks/RESULTS.md``: the matrices alone read NC-ECE
high).  Nothing forbids a worker's row from favouring another class: an adversarial worker is
estimated as one, and each draw is relabelled after sampling to the workers' diagonally
dominant labelling (:mod:`.relabelling`), as the panel's model is; the population's centre
makes the other labellings improbable, so the chains stay in one.

``Y`` is summed out by hand on the rows of :class:`ClassResponseDesign` (never NumPyro's
enumeration with count weights); a gold row keeps only its class's term.  ``gamma`` is
``ClassPriors.proportion``; the population's hyperpriors are fixed.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist

from .channel_prior import DirichletKernel
from .class_response_design import ClassResponseDesign

__all__ = ["CLASS_CROWD_START", "class_crowd_model", "row_logits"]

#: The population's log-odds of a wrong answer against the right one (module docstring)...
OFF_LOCATION, OFF_SCALE = -2.0, 1.5
#: ... and the workers' spread around it (half-normal scale, logits).
SPREAD_SCALE = 1.0
#: Where the chains start: the population at its prior centre, every worker on it (then
#: jittered by the sampler's uniform start, quartered).  From random logits a chain may start
#: in another labelling of the classes and settle there.
CLASS_CROWD_START = {"class_population": OFF_LOCATION, "worker_skill": 0.0, "worker_deviation": 0.0}
#: The workers' spread in skill (half-normal scale, logits).
SKILL_SCALE = 1.5


def _own_first_index(n_classes: int) -> np.ndarray:
    """(C, C): where ``eta[y, k]`` sits in ``[0, off-diagonal logits of row y]``: 0 on the
    diagonal, ``1 + position of k among the other classes`` elsewhere."""
    columns = np.arange(n_classes)
    return np.where(
        columns[None, :] == columns[:, None],
        0,
        1 + columns[None, :] - (columns[None, :] > columns[:, None]),
    )


def row_logits(off_diagonal, xp=jnp):
    """The logits (..., C, C) of rows whose own class has logit 0 and whose other answers have
    ``off_diagonal`` (..., C, C - 1), in class order."""
    n_classes = off_diagonal.shape[-2]
    padded = xp.concatenate([xp.zeros((*off_diagonal.shape[:-1], 1)), off_diagonal], axis=-1)
    index = _own_first_index(n_classes)
    return xp.take_along_axis(
        padded, xp.broadcast_to(index, (*off_diagonal.shape[:-2], n_classes, n_classes)), axis=-1
    )


def class_crowd_model(design: ClassResponseDesign, prior_params, counts) -> None:
    """The program (module docstring).

    ``prior_params`` is ``ClassPriors.as_array()``; its last entry, the proportions'
    concentration, is read.  Sites: ``class_population`` (C, C - 1), ``skill_spread``,
    ``class_spread``, ``worker_skill`` (K,), ``worker_deviation`` (K, C, C - 1),
    ``proportion`` (C,), and ``confusion`` (K, C, C), ``T_j[y, k] = P(A_j = k | Y = y)``,
    recorded."""
    n_classes, n_workers = design.n_classes, design.n_annotators
    population = numpyro.sample(
        "class_population",
        dist.Normal(OFF_LOCATION, OFF_SCALE).expand([n_classes, n_classes - 1]).to_event(2),
    )
    skill_spread = numpyro.sample("skill_spread", dist.HalfNormal(SKILL_SCALE))
    spread = numpyro.sample("class_spread", dist.HalfNormal(SPREAD_SCALE))
    skill = numpyro.sample("worker_skill", dist.Normal(0.0, 1.0).expand([n_workers]).to_event(1))
    deviation = numpyro.sample(
        "worker_deviation",
        dist.Normal(0.0, 1.0).expand([n_workers, n_classes, n_classes - 1]).to_event(3),
    )
    off_diagonal = population - skill_spread * skill[:, None, None] + spread * deviation
    logits = row_logits(off_diagonal)
    confusion = numpyro.deterministic("confusion", jax.nn.softmax(logits, axis=-1))
    concentration = jnp.full(n_classes, jnp.asarray(prior_params)[2])
    proportion = numpyro.sample("proportion", DirichletKernel(concentration))
    numpyro.factor("responses", jnp.dot(counts, design.log_prob(confusion, proportion, jnp)))
