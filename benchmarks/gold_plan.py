"""The gold planner's predicted interval widths against the widths realised, in one run.

Design (ii) of ``benchmarks/gold_coverage.py`` (three judges, n = 5 000, the "shifted"
calibration).  ``plan_gold`` is run once on a data set with 200 random gold items and predicts
the NC-ECE interval width at SIZES gold items; the realised mean widths come from REPLICATES
fresh data sets at each size: ``nc_ece_estimate`` (rectified, bootstrap) and
``nc_ece_posterior`` of ``fit_bayes`` (rectified, the default).

    .venv/bin/python benchmarks/gold_plan.py [REPLICATES]
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from gold_coverage import N_BINS, simulate

import bayescal as bc
from bayescal.exceptions import SamplingWarning, SaturatedModelWarning

SIZES = (100, 200, 400)


def main(replicates: int) -> None:
    plan = bc.plan_gold(simulate("ii", 999, 200).data, "dawid_skene_em", sizes=SIZES, n_bins=N_BINS)
    print(f"design (ii), plan from one data set with 200 gold items; {replicates} replicates\n")
    print(
        "| gold items | predicted width | realised, bootstrap | ratio | realised, posterior | "
        "ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for size, predicted in zip(SIZES, plan.nc_ece_width):
        frequentist, bayes = [], []
        for r in range(replicates):
            data = simulate("ii", 2000 + r, size).data
            low, high = bc.nc_ece_estimate(data, n_bins=N_BINS, seed=r).interval
            frequentist.append(high - low)
            fit = bc.fit_bayes(data, progress=False, seed=r)
            low, high = bc.nc_ece_posterior(data, fit, n_bins=N_BINS, seed=r).interval
            bayes.append(high - low)
        f, b = np.mean(frequentist), np.mean(bayes)
        print(
            f"| {size} | {predicted:.4f} | {f:.4f} | {predicted / f:.2f} | {b:.4f} | "
            f"{predicted / b:.2f} |"
        )


if __name__ == "__main__":
    with warnings.catch_warnings():
        for category in (SamplingWarning, SaturatedModelWarning):
            warnings.simplefilter("ignore", category)
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
