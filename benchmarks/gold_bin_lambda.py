"""Each bin's own lambda or the pooled one: the variance of the rectified NC-ECE bin moments
by the number of gold items a bin needs before it tunes its own lambda (``MIN_BIN_GOLD``).

n = 5 000 items on the toy study's "shifted" calibration, 10 equal-width bins, true channels:
one judge (a = 0.15, b = 0.8) and three (a = 0.1, 0.15, 0.2; b = 0.75, 0.85, 0.9), with 200,
500 and 1 000 random gold items (20, 50 and 100 a bin).  For each threshold, the sum over bins
of the variance of the bin moments over REPLICATES data sets; a threshold above every bin's
gold count is the pooled lambda everywhere.

    .venv/bin/python benchmarks/gold_bin_lambda.py
"""

from __future__ import annotations

import numpy as np

import bayescal as bc
import bayescal.correction.rectified as rectified
from bayescal.correction.known_channels import correct_annotations, gold_moments
from bayescal.metrics.calibration import assign_bins
from bayescal.simulate.panels import toy_calibration

REPLICATES = 150
THRESHOLDS = (10, 40, 10**9)
PANELS = {
    "one judge": bc.Channels([0.15], [0.8]),
    "three judges": bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9]),
}


def moment_variance(channels, n_gold: int, threshold: int) -> float:
    rectified.MIN_BIN_GOLD = threshold  # the module constant the bins read
    moments = []
    for seed in range(REPLICATES):
        simulation = bc.simulate.simulate_annotated(
            5000, channels, calibration=toy_calibration("shifted"), seed=seed
        )
        data = simulation.with_gold(n_gold, seed=seed + 7).data
        targets = correct_annotations(data.annotations, channels, "iv", None)
        edges = assign_bins(data.scores, 10, "uniform")[1]
        everything = np.ones(data.n_items, bool)
        bins = gold_moments(data, targets, everything, edges, "uniform", "rectified")
        moments.append(bins.moments.moments)
    return float(np.var(moments, axis=0).sum())


def main() -> None:
    print(f"{REPLICATES} replicates; sum over bins of the bin moments' variance\n")
    print(
        "| panel | gold items | own lambda from 10 | from 40 | pooled | 10 / pooled | 40 / pooled |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, channels in PANELS.items():
        for n_gold in (200, 500, 1000):
            low, middle, pooled = (moment_variance(channels, n_gold, t) for t in THRESHOLDS)
            print(
                f"| {name} | {n_gold} | {low:.3e} | {middle:.3e} | {pooled:.3e} | "
                f"{low / pooled:.2f} | {middle / pooled:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
