"""Coverage of NC-ECE with gold items: the frequentist interval of the rectified and the
model-based estimators, beside the gold-only ECE's, on three designs.

Every design has n = 5 000 items on a uniform score with the toy study's "shifted" calibration
(population binned ECE 0.0799, 10 equal-width bins) and GOLD random gold items (default 200):

- (i) one judge, a = 0.15, b = 0.8;
- (ii) three conditionally independent judges, a = (0.1, 0.15, 0.2), b = (0.75, 0.85, 0.9)
  (gaps 0.65-0.7);
- (iii) the judges of (ii) with the first two erring together on 15% of the items
  (``simulate_dependent(shared_error=0.15)``), fitted with the independent model.

Each replicate (``--bayes``: also the Bayesian default, ``fit_bayes`` with the gold and
``nc_ece_posterior``'s rectified estimator, 4 chains of 1 000 + 1 000): ``nc_ece_estimate`` (Dawid-Skene EM with the gold, 200 bootstrap replicates)
with ``gold_estimator="rectified"`` and ``"model"``, and the gold-only ECE (the ECE of the gold
items alone) with the same bias correction and bootstrap, of the gold items alone.  Reported: the share of
90% intervals holding the population binned ECE, their mean width and the mean estimate.

    .venv/bin/python benchmarks/gold_coverage.py [--replicates R] [--gold GOLD] [--designs i,ii,iii] [--bayes]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import bayescal as bc
from bayescal.correction.gold_interval import DEFAULT_REPLICATES, gold_only_ece
from bayescal.exceptions import SaturatedModelWarning
from bayescal.simulate.panels import toy_calibration

N_ITEMS = 5000
N_BINS = 10
LEVEL = 0.9
CALIBRATION = toy_calibration("shifted")
PANEL = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])


def simulate(design: str, seed: int, n_gold: int):
    if design == "i":
        simulation = bc.simulate.simulate_annotated(
            N_ITEMS, bc.Channels([0.15], [0.8]), calibration=CALIBRATION, seed=seed
        )
    elif design == "ii":
        simulation = bc.simulate.simulate_annotated(
            N_ITEMS, PANEL, calibration=CALIBRATION, seed=seed
        )
    else:
        simulation = bc.simulate.simulate_dependent(
            N_ITEMS, PANEL, shared_error=0.15, calibration=CALIBRATION, seed=seed
        )
    return simulation.with_gold(n_gold, seed=seed + 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--gold", type=int, default=200)
    parser.add_argument("--designs", default="i,ii,iii")
    parser.add_argument("--bayes", action="store_true")
    parser.add_argument("--bayes-only", action="store_true")
    args = parser.parse_args()
    print(
        f"n = {N_ITEMS}, {args.gold} random gold items, {args.replicates} replicates, "
        f"{LEVEL:.0%} intervals, {N_BINS} bins\n"
    )
    print("| design | estimator | coverage | mean width | mean estimate | population |")
    print("|---|---|---:|---:|---:|---:|")
    for design in args.designs.split(","):
        start = time.perf_counter()
        frequentist = not args.bayes_only
        bayes = args.bayes or args.bayes_only
        results = {"rectified": [], "model": [], "gold only": []} if frequentist else {}
        if bayes:
            results["bayes rectified"] = []
        population = None
        for r in range(args.replicates):
            simulation = simulate(design, 1000 + r, args.gold)
            population = simulation.population_binned_ece(N_BINS)
            with warnings.catch_warnings():
                # a full panel of three is saturated; said once per replicate otherwise
                warnings.simplefilter("ignore", SaturatedModelWarning)
                for estimator in ("rectified", "model") if frequentist else ():
                    result = bc.nc_ece_estimate(
                        simulation.data, gold_estimator=estimator, n_bins=N_BINS, seed=r
                    )
                    results[estimator].append((result.estimate, *result.interval))
                if bayes:
                    fit = bc.fit_bayes(simulation.data, progress=False, seed=r)
                    posterior = bc.nc_ece_posterior(simulation.data, fit, n_bins=N_BINS, seed=r)
                    results["bayes rectified"].append((posterior.median, *posterior.interval))
            if not frequentist:
                continue
            alone = gold_only_ece(
                simulation.data,
                np.linspace(0.0, 1.0, N_BINS + 1),
                "uniform",
                n_replicates=DEFAULT_REPLICATES,
                level=LEVEL,
                seed=r,
            )
            results["gold only"].append((alone.estimate, *alone.interval))
        for name, rows in results.items():
            rows = np.array(rows)
            covered = (rows[:, 1] <= population) & (population <= rows[:, 2])
            print(
                f"| ({design}) | {name} | {covered.mean():.1%} | "
                f"{(rows[:, 2] - rows[:, 1]).mean():.4f} | {rows[:, 0].mean():.4f} | "
                f"{population:.4f} |"
            )
        print(f"<!-- design ({design}): {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
