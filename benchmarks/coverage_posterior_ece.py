"""Coverage of nc_ece_posterior intervals on the paper's toy study (§6.1): n = 8000, 10 bins, flat priors.

Run: ``.venv/bin/python benchmarks/coverage_posterior_ece.py --replicates 100 --first-seed 2000``.
Prints a markdown table for benchmarks/RESULTS.md.  The debiasing rule of bayescal.bayes.posterior was
chosen on seeds 1000-1099; report coverage on seeds that were not used for that choice.
"""

from __future__ import annotations

import argparse

from bayescal.studies import posterior_coverage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=2000)
    args = parser.parse_args()
    print(
        f"replicates per condition: {args.replicates}, seeds {args.first_seed}..{args.first_seed + args.replicates - 1}\n"
    )
    print(
        "| condition | uncertainty | 90% interval covers population binned ECE | lower end <= 0.005 | mean width | mean target |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for condition in ("shifted", "nonlinear", "calibrated"):
        table = posterior_coverage(
            condition=condition, replicates=args.replicates, first_seed=args.first_seed
        )
        for uncertainty, rows in table.groupby("uncertainty", sort=False):
            print(
                f"| {condition} | {uncertainty} | {rows['covered'].mean():.0%} | {rows['lower_below_0.005'].mean():.0%} "
                f"| {(rows['upper'] - rows['lower']).mean():.4f} | {rows['target'].mean():.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
