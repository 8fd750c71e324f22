"""Coverage of a judge's corrected pass rate: ``corrected_rates`` against the Rogan–Gladen
delta-method interval of Lee et al. (arXiv 2511.21140), in one run.

One judge (a = 0.15, b = 0.8) labels n = 5 000 items whose scores are uniform with
``P(Y = 1 | Z = z) = 0.1 + 0.8 z``: the population's positive rate is 0.5.  GOLD items
(default 200) drawn at random carry their true label.  Per replicate:

- bayescal: ``corrected_rates(data)["positive_rate"]``, the rectified estimate with the
  channels fitted with the gold (Dawid–Skene EM), 90% percentile interval of a bootstrap that
  resamples gold and other items apart and refits (200 replicates);
- Rogan–Gladen: ``theta = (p + q0 - 1) / (q0 + q1 - 1)`` with ``p`` the judge's positive rate
  on all items and ``q0``, ``q1`` its specificity and sensitivity on the gold items, and the
  delta-method variance ``[p (1 - p) / n + (1 - theta)^2 q0 (1 - q0) / m0 + theta^2 q1 (1 - q1)
  / m1] / (q0 + q1 - 1)^2`` (``m0``, ``m1`` the gold items of each class), interval
  ``theta +- 1.645 sd`` clipped to [0, 1].

    .venv/bin/python benchmarks/gold_pass_rate.py [--replicates R] [--gold GOLD]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

import bayescal as bc

N_ITEMS = 5000
LEVEL = 0.9
POSITIVE_RATE = 0.5


def rogan_gladen(data) -> tuple[float, float, float]:
    """The Rogan–Gladen estimate and its delta-method interval (module docstring)."""
    label, gold = data.annotations[:, 0], data.gold
    p = label.mean()
    negatives, positives = label[gold == 0], label[gold == 1]
    q0, q1 = 1.0 - negatives.mean(), positives.mean()
    theta = (p + q0 - 1.0) / (q0 + q1 - 1.0)
    variance = (
        p * (1 - p) / label.size
        + (1 - theta) ** 2 * q0 * (1 - q0) / negatives.size
        + theta**2 * q1 * (1 - q1) / positives.size
    ) / (q0 + q1 - 1.0) ** 2
    half = stats.norm.ppf(0.5 + LEVEL / 2) * np.sqrt(variance)
    return theta, max(theta - half, 0.0), min(theta + half, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--gold", type=int, default=200)
    args = parser.parse_args()
    rows = {"bayescal (rectified, bootstrap)": [], "Rogan-Gladen (delta method)": []}
    start = time.perf_counter()
    for r in range(args.replicates):
        simulation = bc.simulate.simulate_annotated(
            N_ITEMS,
            bc.Channels([0.15], [0.8]),
            calibration=lambda z: 0.1 + 0.8 * np.asarray(z),
            seed=r,
        ).with_gold(args.gold, seed=r + 1)
        rates = bc.correction.corrected_rates(simulation.data, seed=r)
        rows["bayescal (rectified, bootstrap)"].append(
            (rates.estimates["positive_rate"], *rates.intervals["positive_rate"])
        )
        rows["Rogan-Gladen (delta method)"].append(rogan_gladen(simulation.data))
    print(
        f"one judge (a = 0.15, b = 0.8), n = {N_ITEMS}, {args.gold} random gold items, "
        f"{args.replicates} replicates, {LEVEL:.0%} intervals; population positive rate "
        f"{POSITIVE_RATE}\n"
    )
    print("| interval | coverage | mean width | mean estimate |")
    print("|---|---:|---:|---:|")
    for name, values in rows.items():
        values = np.array(values)
        covered = (values[:, 1] <= POSITIVE_RATE) & (POSITIVE_RATE <= values[:, 2])
        print(
            f"| {name} | {covered.mean():.1%} | {(values[:, 2] - values[:, 1]).mean():.4f} | "
            f"{values[:, 0].mean():.4f} |"
        )
    print(f"<!-- {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
