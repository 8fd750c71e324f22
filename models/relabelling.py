"""Label switching of the multi-class models, undone after sampling: each draw relabelled to the
diagonally dominant permutation of the population (Stephens 2000).

The multi-class likelihood is the same under every relabelling ``sigma`` of the latent classes,
``T_j[y] -> T_j[sigma(y)]``, ``pi_y -> pi_sigma(y)``; under an exchangeable prior (the same
concentration on a row's own class as on the others, :mod:`bayescal.models.class_latent`) so is
the posterior, which therefore has ``C!`` copies of every mode.  A prior that leans on the
diagonal weighs the copies differently, and the relabelled draws are then those of its
diagonally dominant copy (the one it favours when it leans strongly).  Rather than constrain the parameters (an ordering
constraint puts a wall in NUTS's way, and imposes a labelling that may cut a mode in two),
each draw is relabelled after sampling, as Stephens (2000) proposes: to the permutation that
minimises a loss against the reference labelling.  The loss here is the population's mean
confusion matrix off its diagonal,

    sigma* = argmax_sigma  sum_y  mean_j T_j[sigma^-1(y), y],

the labelling under which the annotators, on average, answer each class with its own name (an
assignment problem, solved exactly by the Hungarian method).  An adversarial judge stays one:
only the population is made diagonally dominant, as the binary fold orients by the
population's gap (:mod:`bayescal.models.orientation`).  The classes the gold items name keep
their labels (the gold fixes them); the others are relabelled among themselves, and with gold
of every class no draw is relabelled.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

__all__ = ["relabelled", "relabelling"]


def relabelling(confusion: np.ndarray, fixed=None) -> np.ndarray:
    """The permutation of each draw (..., C): ``order[y']`` is the latent class that becomes
    class ``y'``, for confusion draws (..., K, C, C) (module docstring).  The classes ``fixed``
    (a (C,) mask: those the gold names) keep their labels; the others are assigned among
    themselves."""
    population = confusion.mean(axis=-3)  # (..., C(latent), C(answer))
    n_classes = population.shape[-1]
    free = np.flatnonzero(~np.zeros(n_classes, bool) if fixed is None else ~np.asarray(fixed))
    flat = population.reshape(-1, n_classes, n_classes)
    order = np.tile(np.arange(n_classes), (flat.shape[0], 1))
    for s, matrix in enumerate(flat):
        latent, answer = optimize.linear_sum_assignment(matrix[np.ix_(free, free)], maximize=True)
        order[s, free[answer]] = free[latent]  # the latent class answered as `answer` is named so
    return order.reshape(population.shape[:-1])


def relabelled(draws: dict, fixed=None) -> dict:
    """The draws (``confusion`` (..., K, C, C) and ``proportion`` (..., C), the leading axes
    chains and draws) with every draw's classes relabelled by ``relabelling`` (the classes
    ``fixed`` kept): each confusion matrix's rows and the proportions permuted alike (the
    answers, the columns, are the data's and stay)."""
    confusion, proportion = draws["confusion"], draws["proportion"]
    order = relabelling(confusion, fixed)
    rows = np.take_along_axis(confusion, order[..., None, :, None], axis=-2)
    return draws | {
        "confusion": rows,
        "proportion": np.take_along_axis(proportion, order, axis=-1),
    }
