"""How far the multi-class NC-ECE of a crowd reads from the population value when each worker's
C x C confusion matrix is estimated from its few labels (issue 39, before its crowd model).

    .venv/bin/python benchmarks/class_crowd_bias.py [--replicates 20]

The design: n = 5 000 items of C = 10 equally common classes; features ``2 e_y + N(0, I)``
and a classifier ``softmax(1.6 x 2 x)`` (``bayescal.simulate.simulate_classes``); a crowd of W
workers of accuracy drawn uniformly in [0.5, 0.9], their errors spread evenly over the other
classes; every item labelled by 3 workers drawn at random (so each worker labels about
15 000 / W items, for 90 free cells of its matrix).  Per replicate: the top-label NC-ECE
(``nc_ece_estimate``, 10 equal bins) with the true matrices, with ``crowd_em``'s matrices
(reused on the same items, and cross-fitted), with ``crowd_em``'s matrices and a simple random
sample of gold items (the true class; ``GOLD_SIZES`` of them, in every fit, the bin means
rectified), and the majority vote's ECE (ties to the first class); the population value is
``ClassSimulation.population_ece``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import replace

import numpy as np

import bayescal as bc
from bayescal.channels import ConfusionChannels
from bayescal.exceptions import ChannelWarning

N_ITEMS, N_CLASSES, LABELS_PER_ITEM = 5000, 10, 3
CROWDS = (40, 80, 160)
#: Gold items drawn at random from the n items, each replicate anew.
GOLD_SIZES = (250, 1000)


def crowd(n_workers: int, seed: int, n_items: int = N_ITEMS):
    """A simulated crowd of ``n_items`` items and its true matrices (module docstring)."""
    rng = np.random.default_rng([seed, n_workers])
    accuracy = rng.uniform(0.5, 0.9, n_workers)
    matrices = np.stack([bc.simulate.graded_confusion(N_CLASSES, a, spread=1e6) for a in accuracy])
    simulation = bc.simulate.simulate_classes(
        n_items, matrices, separation=2.0, sharpness=1.6, seed=seed
    )
    chosen = np.argsort(rng.random((n_items, n_workers)), axis=1)[:, :LABELS_PER_ITEM]
    kept = np.zeros((n_items, n_workers), bool)
    np.put_along_axis(kept, chosen, True, axis=1)
    data = replace(simulation.data, annotations=np.where(kept, simulation.data.annotations, -1))
    return simulation, data, matrices


def with_gold(simulation, data, size: int, seed: int):
    """``data`` with ``size`` items' true classes as gold, a simple random sample."""
    rng = np.random.default_rng([seed, size, 7])
    gold = np.full(data.n_items, -1)
    chosen = rng.choice(data.n_items, size, replace=False)
    gold[chosen] = simulation.labels[chosen]
    return replace(data, gold=gold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20)
    args = parser.parse_args()
    target = crowd(CROWDS[0], 0)[0].population_ece()
    print(f"population top-label ECE (10 equal bins): {target:.4f}\n")
    print("| workers | labels per worker | estimate | bias | RMSE |")
    print("|---:|---:|---|---:|---:|")
    for n_workers in CROWDS:
        start = time.perf_counter()
        found = {
            "true matrices": [],
            "crowd_em, reused": [],
            "crowd_em, cross-fitted": [],
            **{f"crowd_em, {size} gold, rectified": [] for size in GOLD_SIZES},
            "majority vote": [],
        }
        for seed in range(args.replicates):
            simulation, data, matrices = crowd(n_workers, seed)
            with warnings.catch_warnings():
                # the estimated matrices of weak workers warn as "another ordering": counted
                # by the bias, not read here
                warnings.simplefilter("ignore", ChannelWarning)
                known = ConfusionChannels(matrices, names=data.annotator_names)
                found["true matrices"].append(bc.nc_ece_estimate(data, estimator=known).estimate)
                found["crowd_em, reused"].append(
                    bc.nc_ece_estimate(data, estimator="crowd_em").estimate
                )
                found["crowd_em, cross-fitted"].append(
                    bc.nc_ece_estimate(data, estimator="crowd_em", mode="crossfit").estimate
                )
                for size in GOLD_SIZES:
                    gold = with_gold(simulation, data, size, seed)
                    found[f"crowd_em, {size} gold, rectified"].append(
                        bc.nc_ece_estimate(gold, estimator="crowd_em").estimate
                    )
            votes = np.stack(
                [(data.annotations == k).sum(axis=1) for k in range(N_CLASSES)], axis=1
            )
            found["majority vote"].append(
                bc.expected_calibration_error(votes.argmax(axis=1), data.probabilities)
            )
        for name, values in found.items():
            error = np.array(values) - target
            print(
                f"| {n_workers} | {N_ITEMS * LABELS_PER_ITEM // n_workers} | {name} | "
                f"{error.mean():+.4f} | {np.sqrt(np.mean(error**2)):.4f} |"
            )
        print(f"<!-- {n_workers} workers: {time.perf_counter() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
