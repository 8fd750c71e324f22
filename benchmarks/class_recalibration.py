"""Corrected multi-class temperature scaling against the fit to clean labels (issue 39 item 5).

    .venv/bin/python benchmarks/class_recalibration.py [--replicates 100]

Each replicate: n = 10 000 items of C = 5 equally common classes; the predictor's
probabilities ``softmax(2 (g + 1.5 e_Y))`` with standard normal ``g`` (overconfident); three
annotators with symmetric confusion matrices of 70% accuracy (the other 30% spread evenly).
The channels are estimated by ``dawid_skene_em`` (its defaults), then ``recalibrate(data,
method="temperature", channels=fit)`` fits the corrected temperature, and
``ClassTemperatureScaling`` fitted to the true one-hot labels the clean one.  Reported: the
median and the 90th percentile of ``|T_corrected / T_clean - 1|`` over the replicates, and the
same for the naive fit to each item's shares of its labels.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bayescal as bc
from bayescal.recalibration import ClassTemperatureScaling

N_ITEMS, N_CLASSES, ACCURACY = 10_000, 5, 0.7


def replicate(seed: int) -> tuple[float, float, float]:
    """(clean, corrected, naive) temperatures of one simulated data set."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, N_CLASSES, N_ITEMS)
    logits = rng.normal(size=(N_ITEMS, N_CLASSES)) + 1.5 * np.eye(N_CLASSES)[labels]
    probabilities = np.exp(2 * logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    confusion = np.full((N_CLASSES, N_CLASSES), (1 - ACCURACY) / (N_CLASSES - 1))
    np.fill_diagonal(confusion, ACCURACY)
    cumulative = confusion[labels].cumsum(axis=1)
    annotations = np.column_stack(
        [(rng.random((N_ITEMS, 1)) > cumulative).sum(axis=1) for _ in range(3)]
    )
    data = bc.AnnotatedScores(probabilities, np.minimum(annotations, N_CLASSES - 1))
    fit = bc.dawid_skene_em(data)
    corrected = bc.recalibrate(data, method="temperature", channels=fit).temperature_
    naive = bc.recalibrate(data, method="temperature", targets="naive").temperature_
    clean = ClassTemperatureScaling().fit(probabilities, np.eye(N_CLASSES)[labels]).temperature_
    return clean, corrected, naive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    args = parser.parse_args()
    start = time.perf_counter()
    temperatures = np.array([replicate(seed) for seed in range(args.replicates)])
    clean = temperatures[:, 0]
    print(
        f"{args.replicates} replicates in {time.perf_counter() - start:.0f} s; clean temperature "
        f"median {np.median(clean):.4f} (range {clean.min():.4f}-{clean.max():.4f})\n"
    )
    print("| targets | median relative error | 90th percentile | largest |")
    print("|---|---:|---:|---:|")
    for column, name in ((1, "corrected (EM channels)"), (2, "naive (label shares)")):
        error = np.abs(temperatures[:, column] / clean - 1)
        print(
            f"| {name} | {np.median(error):.2%} | {np.quantile(error, 0.9):.2%} | "
            f"{error.max():.2%} |"
        )


if __name__ == "__main__":
    main()
