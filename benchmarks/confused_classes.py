"""How often :func:`bayescal.channels.confused_classes` merges the classes every annotator confuses,
and merges nothing else, with the top-label NC-ECE before and after the merge (issue 39,
item 4).

    .venv/bin/python benchmarks/confused_classes.py [--replicates 100]

Designs (C = classes, K = annotators, n = items):

- ``panel``: C = 5 grades, 3 judges answering every item, each ``graded_confusion(5, 0.75)``
  (near misses likelier), n = 2 000;
- ``crowd``: C = 10 classes, 20 workers of accuracy uniform in [0.5, 0.9] with their errors
  spread evenly, 3 workers an item, n = 2 000 (``crowd_em``);
- ``rare``: C = 5 nominal classes in proportions 0.35, 0.35, 0.2, 0.05, 0.05, 3 judges
  answering every item, right 70% of the time, the first two classes swapped 24% of the time
  (the pair with the most confused labels, though told apart), n = 3 000.

In each, *confused* makes every annotator answer the last two classes alike (both rows their
mean), *one confuses* does so for the first annotator only, and *none* keeps the matrices.
The classifier is ``simulate_classes``' (separation 2, sharpness 1.6).  The clean ECE is the
top-label ECE against the true classes, merged as the data are.
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import replace

import numpy as np

import bayescal as bc
from bayescal.exceptions import ChannelWarning

SCENARIOS = ("confused", "one confuses", "none")


def _confused(matrices: np.ndarray, scenario: str) -> np.ndarray:
    matrices = matrices.copy()
    who = {"confused": slice(None), "one confuses": slice(0, 1), "none": slice(0, 0)}[scenario]
    mean = matrices[who, -2:].mean(axis=1, keepdims=True)
    matrices[who, -2:] = mean
    return matrices


def panel(scenario: str, seed: int):
    matrices = np.stack([bc.simulate.graded_confusion(5, 0.75)] * 3)
    simulation = bc.simulate.simulate_classes(
        2000,
        _confused(matrices, scenario),
        separation=2.0,
        sharpness=1.6,
        seed=seed,
        classes=["1", "2", "3", "4", "5"],
        ordinal=True,
    )
    return simulation, simulation.data, bc.dawid_skene_em


def crowd(scenario: str, seed: int):
    rng = np.random.default_rng([seed, 39])
    n_items, n_workers = 2000, 20
    accuracy = rng.uniform(0.5, 0.9, n_workers)
    matrices = np.stack([bc.simulate.graded_confusion(10, a, spread=1e6) for a in accuracy])
    simulation = bc.simulate.simulate_classes(
        n_items, _confused(matrices, scenario), separation=2.0, sharpness=1.6, seed=seed
    )
    chosen = np.argsort(rng.random((n_items, n_workers)), axis=1)[:, :3]
    kept = np.zeros((n_items, n_workers), bool)
    np.put_along_axis(kept, chosen, True, axis=1)
    data = replace(simulation.data, annotations=np.where(kept, simulation.data.annotations, -1))
    return simulation, data, bc.crowd_em


def rare(scenario: str, seed: int):
    confusion = np.full((5, 5), 0.02)
    np.fill_diagonal(confusion, 0.7)
    confusion[0, :2] = confusion[1, 1::-1] = [0.7, 0.24]
    confusion[2:] = np.where(np.eye(5)[2:] > 0, 0.92, 0.02)
    confusion[3:, 3:] = [[0.7, 0.24], [0.24, 0.7]]
    confusion /= confusion.sum(axis=1, keepdims=True)
    simulation = bc.simulate.simulate_classes(
        3000,
        _confused(np.stack([confusion] * 3), scenario),
        proportion=[0.35, 0.35, 0.2, 0.05, 0.05],
        separation=2.0,
        sharpness=1.6,
        seed=seed,
    )
    return simulation, simulation.data, bc.dawid_skene_em


DESIGNS = {"panel": panel, "crowd": crowd, "rare": rare}


def replicate(design: str, scenario: str, seed: int) -> dict:
    simulation, data, estimator = DESIGNS[design](scenario, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)  # crowd_em's sparse matrices say so
        fit = estimator(data)
        before = bc.nc_ece_estimate(data, kind="top_label", estimator=fit).estimate
        merge = bc.channels.confused_classes(data, fit)
        after = bc.nc_ece_estimate(merge.data, kind="top_label", estimator=merge.fit).estimate
    last = (data.classes[-2], data.classes[-1])
    truth = (
        bc.AnnotatedScores(
            data.probabilities, simulation.labels[:, None], classes=data.classes
        ).merge_classes([last])
        if merge.groups
        else None
    )
    merged_truth = simulation.labels if truth is None else truth.annotations[:, 0]
    return {
        "right": merge.groups == (last,),
        "any": bool(merge.groups),
        "before": before - bc.expected_calibration_error(simulation.labels, data.probabilities),
        "after": after - bc.expected_calibration_error(merged_truth, merge.data.probabilities),
        "p": merge.p_values[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    args = parser.parse_args()
    print(
        "| design | scenario | last two merged | any merge | NC-ECE - clean, fitted as given "
        "| after the test | first test's median p | seconds |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for design in args.designs:
        for scenario in SCENARIOS:
            start = time.perf_counter()
            rows = [replicate(design, scenario, seed) for seed in range(args.replicates)]
            seconds = time.perf_counter() - start
            mean = {key: np.mean([row[key] for row in rows]) for key in rows[0]}
            print(
                f"| {design} | {scenario} | {mean['right']:.0%} | {mean['any']:.0%} | "
                f"{mean['before']:+.4f} | {mean['after']:+.4f} | "
                f"{np.median([row['p'] for row in rows]):.2g} | {seconds:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
