"""Channels, NC-ECE and LOO under correlated judges: the independent model beside the dependent
one (issue 19 targets).

Each replicate simulates five annotators (a = 0.10, 0.15, 0.20, 0.10, 0.15; b = 0.85, 0.80,
0.75, 0.90, 0.80) on n uniform scores with the toy ``shifted`` calibration, the first two
erring together by a named mechanism (``bayescal.simulate_dependent``): a shared-error pair
(both give 1 - Y on a share rho of the items) or a copying pair (the second copies the first on
a share rho), or neither.  It fits the Dawid–Skene model with NUTS twice, assuming independence
and with the pair dependent (``fit_bayes(..., dependent=("a0", "a1"))``, 4 chains x (1000 +
1000)), and records per model:

- whether each of the pair's four marginal channels (a0, a1, b0, b1) lies in its 90%
  equal-tailed posterior interval, and the posterior mean's bias;
- whether the 90% interval of ``nc_ece_posterior`` (10 bins) covers the population binned ECE;
- ``compare_models``: the dependent model's elpd gain and its ``dse``; a preference is a gain
  beyond 2 dse either way;
- on data without dependence, whether the dependent model's posterior means of every channel
  lie in the independent model's 90% intervals.

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/dependence_recovery.py --replicates 100 --workers 2
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import time
import warnings

import numpy as np
import pandas as pd

CHANNELS = ([0.10, 0.15, 0.20, 0.10, 0.15], [0.85, 0.80, 0.75, 0.90, 0.80])
DESIGNS = {
    "no dependence": {"shared_error": 0.0},
    "shared error, rho 0.2": {"shared_error": 0.2},
    "shared error, rho 0.3": {"shared_error": 0.3},
    "copying, rho 0.4": {"shared_error": 0.0, "copying": 0.4},
}
PAIR_PARAMETERS = (("a", 0), ("a", 1), ("b", 0), ("b", 1))
LEVEL = 0.9


def replicate(design: str, n: int, seed: int) -> dict:
    import bayescal as bc
    from bayescal.simulate import toy_calibration

    warnings.simplefilter("ignore")
    sim = bc.simulate_dependent(
        n,
        bc.Channels(*CHANNELS),
        pair=(0, 1),
        calibration=toy_calibration("shifted"),
        seed=seed,
        **DESIGNS[design],
    )
    data, truth = sim.data, sim.channels
    target = sim.population_binned_ece(10)
    row = {"design": design, "seed": seed, "target": target}
    fits = {}
    for model, dependent in (("independent", None), ("dependent", ("a0", "a1"))):
        start = time.perf_counter()
        fit = bc.fit_bayes(data, dependent=dependent, progress=False, seed=seed)
        row[f"{model} seconds"] = time.perf_counter() - start
        fits[model] = fit
        a, b, _ = fit.draws()
        draws = {"a": a, "b": b}
        tail = (1 - LEVEL) / 2
        covered, bias = [], []
        for rate, j in PAIR_PARAMETERS:
            low, high = np.quantile(draws[rate][:, j], [tail, 1 - tail])
            value = getattr(truth, rate)[j]
            covered.append(low <= value <= high)
            bias.append(draws[rate][:, j].mean() - value)
        row[f"{model} pair covered"] = float(np.mean(covered))
        row[f"{model} all pair covered"] = bool(all(covered))
        row[f"{model} mean |bias|"] = float(np.mean(np.abs(bias)))
        row[f"{model} bias a0"] = bias[0]
        ece = bc.nc_ece_posterior(data, fit, n_bins=10, level=LEVEL, seed=seed)
        row[f"{model} ece covered"] = bool(ece.interval[0] <= target <= ece.interval[1])
        row[f"{model} ece median"] = ece.median
    table = bc.compare_models(fits)
    gain = table.loc["dependent", "elpd_loo"] - table.loc["independent", "elpd_loo"]
    dse = float(table["dse"].max())
    row["elpd gain"] = gain
    row["dse"] = dse
    row["prefers dependent"] = bool(gain > 2 * dse)
    row["prefers independent"] = bool(gain < -2 * dse)
    a_i, b_i, _ = fits["independent"].draws()
    a_d, b_d, _ = fits["dependent"].draws()
    inside = []
    for independent, dependent in ((a_i, a_d), (b_i, b_d)):
        low, high = np.quantile(independent, [0.05, 0.95], axis=0)
        mean = dependent.mean(axis=0)
        inside.append((low <= mean) & (mean <= high))
    row["channels agree"] = bool(np.all(inside))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--designs", default=";".join(DESIGNS))
    parser.add_argument("--csv", help="also write every replicate's row here")
    args = parser.parse_args()
    designs = args.designs.split(";")
    seeds = range(args.first_seed, args.first_seed + args.replicates)
    context = multiprocessing.get_context("spawn")  # JAX does not survive a fork
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        futures = [pool.submit(replicate, d, args.n, s) for d in designs for s in seeds]
        rows = [f.result() for f in futures]
    frame = pd.DataFrame(rows)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}, {args.replicates} per design\n")
    print(
        "| design | model | pair channels in 90% interval | all four in | mean abs bias | "
        "bias of a0 | NC-ECE 90% covers | median fit s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        for model in ("independent", "dependent"):
            print(
                f"| {design} | {model} | {rows[f'{model} pair covered'].mean():.1%} | "
                f"{rows[f'{model} all pair covered'].mean():.1%} | "
                f"{rows[f'{model} mean |bias|'].mean():.3f} | {rows[f'{model} bias a0'].mean():+.3f} | "
                f"{rows[f'{model} ece covered'].mean():.1%} | "
                f"{rows[f'{model} seconds'].median():.1f} |"
            )
    print(
        "\n| design | LOO prefers dependent (> 2 dse) | prefers independent | neither | "
        "mean elpd gain | mean dse | dependent channels in independent's 90% intervals |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        neither = 1 - rows["prefers dependent"].mean() - rows["prefers independent"].mean()
        print(
            f"| {design} | {rows['prefers dependent'].mean():.1%} | "
            f"{rows['prefers independent'].mean():.1%} | {neither:.1%} | "
            f"{rows['elpd gain'].mean():.1f} | {rows['dse'].mean():.1f} | "
            f"{rows['channels agree'].mean():.1%} |"
        )


if __name__ == "__main__":
    main()
