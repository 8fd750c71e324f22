"""The paper's toy study (§6.1) at full size: the table at N = 8000 and the MAE by N.

Run: ``.venv/bin/python benchmarks/toy_study.py`` (prints markdown for benchmarks/RESULTS.md;
about 15 minutes on 2 cores, the Bayesian fits on a two-process pool).
"""

from __future__ import annotations

import time

import pandas as pd

from bayescal.studies import toy_study
from bayescal.studies.toy import TOY_SIZES

FREQUENTIST = ("true channels", "EM reuse", "EM cross-fit", "EM split")


def main() -> None:
    start = time.perf_counter()
    frequentist = toy_study(sizes=TOY_SIZES, replicates=200, methods=FREQUENTIST)
    bayes = toy_study(sizes=[8000], replicates=200, methods=("Bayes",), executor="process")
    seconds = time.perf_counter() - start
    table = pd.concat([frequentist.table(8000), bayes.table(8000)]).sort_index(
        level="condition", sort_remaining=False
    )
    print(
        f"200 replicates per cell; {seconds / 60:.1f} min. Errors x 100 against the population ECE E|m(Z) - Z|; "
        "coverage of the 90% interval against the population binned ECE (10 bins).\n"
    )
    print("### N = 8000 (the paper's Table 1 layout)\n")
    print("| condition | method | bias | MAE (SE) | SD | RMSE | coverage | failures |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for condition in ("calibrated", "shifted", "nonlinear"):
        for method in (*FREQUENTIST, "Bayes"):
            row = table.loc[(condition, method)]
            coverage = (
                f"{row['coverage']:.2f}" if "coverage" in row and pd.notna(row["coverage"]) else "-"
            )
            print(
                f"| {condition} | {method} | {row['bias_x100']:.3f} | {row['mae_x100']:.3f} ({row['mae_se_x100']:.3f}) | "
                f"{row['sd_x100']:.3f} | {row['rmse_x100']:.3f} | {coverage} | {int(row['failures'])} |"
            )
    print("\n### MAE x 100 (SE) by N, calibrated condition (the paper's Figure 1)\n")
    mae = frequentist.summary().xs("calibrated", level="condition")
    print("| method | " + " | ".join(str(n) for n in TOY_SIZES) + " |")
    print("|---|" + "---:|" * len(TOY_SIZES))
    for method in FREQUENTIST:
        rows = mae.xs(method, level="method")
        print(
            f"| {method} | "
            + " | ".join(
                f"{rows.loc[n, 'mae_x100']:.3f} ({rows.loc[n, 'mae_se_x100']:.3f})"
                for n in TOY_SIZES
            )
            + " |"
        )


if __name__ == "__main__":
    main()
