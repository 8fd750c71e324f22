"""A seeded crowd: many workers, each labelling a few items, of four kinds.

The paper's settings have a few annotators who label every item; annotation projects have a
crowd.  :func:`simulate_crowd` draws one with the features that break methods built for the
former: few labels per item, heavy-tailed workloads (a few workers label most items), and a
mix of worker types,

- ``"good"``: an informative channel, ``a ~ U(0.02, 0.3)``, ``b ~ U(0.65, 0.98)``;
- ``"spammer"``: answers at random, ``a = b = r`` with ``r ~ U(0.1, 0.9)`` (no information
  about Y; Hovy et al. 2013 model such workers in MACE);
- ``"constant"``: always 1 or always 0 (``a = b = 1`` or ``a = b = 0``, alternately);
- ``"adversarial"``: a reversed channel, ``a ~ U(0.6, 0.9)``, ``b ~ U(0.1, 0.4)``.

Scores, labels and the population ECE follow the paper's toy study (§6.1), so a crowd's
NC-ECE has the same reference as the toy's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .. import _validation as v
from .._api import old_spellings
from ..channels import Channels
from ..data.annotated_scores import AnnotatedScores
from .panels import TOY_CONDITIONS, Simulation, toy_data

__all__ = ["DEFAULT_WORKER_MIX", "WORKER_TYPES", "WORKLOADS", "simulate_crowd"]

WORKER_TYPES = ("good", "spammer", "constant", "adversarial")
#: Shares of the worker types when none are given.
DEFAULT_WORKER_MIX = {"good": 0.8, "spammer": 0.1, "constant": 0.05, "adversarial": 0.05}
#: ``"uniform"``: every worker equally likely to label an item; ``"heavy_tailed"``: worker
#: ``j`` (in a random order) is chosen with weight ``1 / (j + 1)`` (Zipf's law), so a few
#: workers label most items and most workers label a few.
WORKLOADS = ("uniform", "heavy_tailed")
#: Items whose workers are drawn at once: the Gumbel keys of a chunk are (chunk, W) floats.
CHUNK_ITEMS = 4096


@old_spellings()
def simulate_crowd(
    n: int,
    n_workers: int,
    *,
    labels_per_item=3,
    workload: str = "heavy_tailed",
    worker_mix: dict | None = None,
    condition: str = "shifted",
    seed: int = 0,
) -> Simulation:
    """A crowd of ``n_workers`` labelling ``n`` items of the toy predictor (paper §6.1).

    Each item is labelled by ``labels_per_item`` different workers, drawn without replacement
    with the ``workload`` weights; each worker answers independently given Y through its
    channel, ``A_ij ~ Bernoulli(a_j + (b_j - a_j) Y_i)``.

    Parameters
    ----------
    n : int
        Number of items (>= 1).
    n_workers : int
        Number of workers (>= 1).
    labels_per_item : int or (int, int), default 3
        Labels each item gets, or an inclusive range drawn uniformly per item; at most
        ``n_workers``.
    workload : {"uniform", "heavy_tailed"}, default "heavy_tailed"
        How often each worker is chosen (:data:`WORKLOADS`).
    worker_mix : dict of str to float, optional
        Share of each worker type (:data:`WORKER_TYPES`), normalised; default
        :data:`DEFAULT_WORKER_MIX`.  Counts are rounded by largest remainder, and the types are
        assigned in a random order, independent of the workload.
    condition : {"calibrated", "shifted", "nonlinear"}, default "shifted"
        The calibration curve of the toy predictor (:func:`bayescal.simulate.panels.toy_calibration`).
    seed : int, default 0

    Returns
    -------
    Simulation
        ``data`` is the wide form (one column per worker, ``-1`` where it gave no label; the
        workers are named ``w000``, ``w001``, ...; :meth:`~bayescal.simulate.Simulation.long_tables`
        gives the long form), ``worker_types`` each worker's type, ``channels`` the true channels (``adversarial``
        when any worker is).  ``population_ece`` and the binned ECE are the toy's.
    """
    n = v.as_int(n, "n", minimum=1)
    n_workers = v.as_int(n_workers, "n_workers", minimum=1)
    low, high = _label_range(labels_per_item, n_workers)
    workload = v.as_choice(workload, "workload", WORKLOADS)
    mix = _worker_mix(DEFAULT_WORKER_MIX if worker_mix is None else worker_mix)
    condition = v.as_choice(condition, "condition", TOY_CONDITIONS)
    seed = v.as_seed(seed)

    toy = toy_data(n, condition=condition, seed=seed)  # the scores, labels and reference
    rng = np.random.default_rng([seed, 17])
    types = rng.permutation(np.repeat(WORKER_TYPES, _type_counts(mix, n_workers)))
    channels = _channels(types, rng)
    weights = (
        np.ones(n_workers) if workload == "uniform" else 1.0 / (rng.permutation(n_workers) + 1)
    )
    counts = rng.integers(low, high + 1, size=n)
    item, worker = _assignments(counts, weights, rng)
    truth = toy.labels[item]
    positive_rate = channels.a[worker] + channels.gap[worker] * truth
    label = (rng.random(item.size) < positive_rate).astype(np.int8)

    width = max(3, len(str(n_workers - 1)))  # zero-padded: sorted names keep the worker order
    names = tuple(f"w{j:0{width}d}" for j in range(n_workers))
    annotations = np.full((n, n_workers), v.MISSING, dtype=np.int8)
    annotations[item, worker] = label
    return replace(
        toy,
        data=AnnotatedScores(toy.data.scores, annotations, annotator_names=names),
        channels=replace(channels, names=names),
        worker_types=tuple(str(t) for t in types),
    )


def _label_range(labels_per_item, n_workers: int) -> tuple[int, int]:
    if isinstance(labels_per_item, tuple | list):
        if len(labels_per_item) != 2:
            raise ValueError(
                f"labels_per_item must be an int or a range (low, high); saw {labels_per_item!r}"
            )
        low, high = (v.as_int(x, "labels_per_item", minimum=1) for x in labels_per_item)
    else:
        low = high = v.as_int(labels_per_item, "labels_per_item", minimum=1)
    if low > high or high > n_workers:
        raise ValueError(
            f"labels_per_item must lie in [1, n_workers = {n_workers}] with low <= high; "
            f"saw {labels_per_item!r}"
        )
    return low, high


def _worker_mix(mix) -> np.ndarray:
    """Shares of :data:`WORKER_TYPES`, in that order, normalised."""
    if not isinstance(mix, dict) or not mix:
        raise TypeError(f"worker_mix must be a dict of worker type to share; saw {mix!r}")
    unknown = sorted(set(mix) - set(WORKER_TYPES))
    if unknown:
        raise ValueError(f"worker_mix keys must be among {list(WORKER_TYPES)}; saw {unknown}")
    shares = v.as_finite_vector([mix.get(kind, 0.0) for kind in WORKER_TYPES], "worker_mix")
    if (shares < 0).any() or shares.sum() <= 0:
        raise ValueError(
            f"worker_mix must hold non-negative shares with a positive sum; saw {mix!r}"
        )
    return shares / shares.sum()


def _type_counts(shares: np.ndarray, n_workers: int) -> np.ndarray:
    """Workers of each type: ``shares * n_workers`` rounded by largest remainder."""
    exact = shares * n_workers
    counts = np.floor(exact).astype(int)
    remainder = n_workers - counts.sum()
    counts[np.argsort(counts - exact, kind="stable")[:remainder]] += 1
    return counts


def _channels(types: np.ndarray, rng: np.random.Generator) -> Channels:
    """Each worker's true channel, drawn from its type's range (module docstring)."""
    a, b = np.empty(types.size), np.empty(types.size)
    draws = {
        "good": lambda k: (rng.uniform(0.02, 0.3, k), rng.uniform(0.65, 0.98, k)),
        "adversarial": lambda k: (rng.uniform(0.6, 0.9, k), rng.uniform(0.1, 0.4, k)),
        "spammer": lambda k: (rate := rng.uniform(0.1, 0.9, k), rate),
        "constant": lambda k: (rate := (np.arange(k) % 2).astype(float), rate),
    }
    for kind, draw in draws.items():
        members = types == kind
        a[members], b[members] = draw(int(members.sum()))
    return Channels(a, b, adversarial=bool((types == "adversarial").any()))


def _assignments(counts: np.ndarray, weights: np.ndarray, rng: np.random.Generator):
    """``counts[i]`` different workers for each item ``i``, drawn without replacement with
    probabilities proportional to ``weights``: the ``counts[i]`` largest Gumbel-perturbed log
    weights (Gumbel top-k), a chunk of items at a time.  Returns (item, worker) index arrays,
    item-major."""
    log_weights = np.log(weights)
    items, workers = [], []
    for start in range(0, counts.size, CHUNK_ITEMS):
        chunk = counts[start : start + CHUNK_ITEMS]
        keys = log_weights + rng.gumbel(size=(chunk.size, weights.size))
        order = np.argsort(-keys, axis=1)[:, : chunk.max()]
        chosen = np.arange(order.shape[1]) < chunk[:, None]
        items.append(np.nonzero(chosen)[0] + start)
        workers.append(order[chosen])
    return np.concatenate(items), np.concatenate(workers)
