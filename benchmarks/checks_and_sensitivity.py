"""Model checks and prior sensitivity (issue 6): the evidence tables of benchmarks/RESULTS.md.

Run: ``.venv/bin/python benchmarks/checks_and_sensitivity.py`` (prints markdown).

1. p-values of the global check when the model is true: 100 data sets of n = 2000 from the
   five-annotator Dawid–Skene model (``bayescal.studies.model_check_study``).
2. Detection of a pair with shared errors: 30 data sets of n = 5000, a0 and a1 wrong together on
   5% of the items.
3. Prior sensitivity on the paper's toy data (shifted, n = 8000): a 10-prior grid refitted with
   one compiled sampler, against 10 separate ``fit_bayes`` calls (one compilation each).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import stats

import bayescal as bc
from bayescal.bayes.sensitivity import power_scaling, prior_grid, prior_sensitivity
from bayescal.studies import model_check_study


def uniformity() -> None:
    table = model_check_study(replicates=100, n=2000, level=0.95)  # as in RESULTS.md
    ppc = table[table["check"] == "ppc"]
    print("### p-values when the model is true (100 replicates, n = 2000, K = 5)\n")
    print("| p-value | 5% | 10% | 25% | 50% | 75% | 90% | 95% | share < 0.05 | KS p vs uniform |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for sampled, label in (
        (True, "sampled posterior draw (Gosselin 2011)"),
        (False, "posterior predictive"),
    ):
        p = ppc[ppc["subject"].str.endswith("sampled posterior draw") == sampled][
            "p_value"
        ].to_numpy()
        quantiles = " | ".join(
            f"{q:.2f}" for q in np.quantile(p, [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95])
        )
        print(
            f"| {label} | {quantiles} | {(p < 0.05).mean():.2f} | {stats.kstest(p, 'uniform').pvalue:.3f} |"
        )
    pairs = table[table["check"] == "pairwise_agreement"]
    print(
        f"\nPairwise-agreement flags under the model: {pairs['flag'].mean():.3f} of {len(pairs)} pair checks."
    )
    for check in ("positive_count", "votes_per_item", "pattern"):
        rows = table[table["check"] == check]
        print(f"{check} flags under the model: {rows['flag'].mean():.3f} of {len(rows)}.")


def detection() -> None:
    table = model_check_study(replicates=30, n=5000, shared_error=0.05, level=0.95)
    pairs = table[table["check"] == "pairwise_agreement"]
    rates = pairs.groupby("subject")["flag"].mean()
    ppc = table[(table["check"] == "ppc") & table["subject"].str.endswith("sampled posterior draw")]
    print(
        "\n### A pair with shared errors (30 replicates, n = 5000, a0 and a1 wrong together on 5% of items)\n"
    )
    print("| pair | " + " | ".join(rates.index) + " |")
    print("|---|" + "---|" * len(rates))
    print("| flagged | " + " | ".join(f"{r:.2f}" for r in rates) + " |")
    print(f"\nGlobal check (sampled-posterior p < 0.05): {ppc['flag'].mean():.2f} of replicates.")


def sensitivity() -> None:
    data = bc.toy_data(8000, condition="shifted", seed=0).data
    grid = prior_grid(
        false_positive=[(1, 1), (2, 8), (1, 9)],
        sensitivity=[(1, 1), (8, 2), (9, 1)],
    )
    grid["conflicting"] = bc.Priors(false_positive=(40, 60), sensitivity=(60, 40))
    start = time.perf_counter()
    result = prior_sensitivity(data, priors=grid, n_bins=10)
    grid_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for prior in grid.values():
        bc.fit_bayes(data, priors=prior, progress=False)
    separate_seconds = time.perf_counter() - start
    print(
        f"\n### Prior sensitivity on the toy data (shifted, n = 8000, {len(grid)} priors, 4 chains x 1000 draws)\n"
    )
    print(
        f"prior_sensitivity (one compilation): {grid_seconds:.1f} s; {len(grid)} separate fit_bayes calls: "
        f"{separate_seconds:.1f} s ({separate_seconds / grid_seconds:.1f}x).\n"
    )
    table = result.table
    columns = ["nc_ece", "a[a0]", "b[a0]", "a[a2]", "b[a2]", "prevalence"]
    print("| prior | " + " | ".join(f"{c} mean [90%] (shift)" for c in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in grid:
        cells = []
        for quantity in columns:
            row = table.loc[(name, quantity)]
            cells.append(
                f"{row['mean']:.3f} [{row['lower']:.3f}, {row['upper']:.3f}] ({row['shift']:+.2f})"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nPower-scaling diagnoses (diagnosis, prior / likelihood sensitivity):\n")
    for name in ("fp=(1,9) sens=(9,1) prev=(1,1)", "conflicting"):
        diagnosed = power_scaling(result.fits[name])
        print(
            f"- {name}: "
            + ", ".join(
                f"{p} {row['diagnosis']} ({row['prior']:.3f}/{row['likelihood']:.3f})"
                for p, row in diagnosed.iterrows()
            )
        )


if __name__ == "__main__":
    warnings.simplefilter("ignore", bc.SaturatedModelWarning)
    uniformity()
    detection()
    sensitivity()
