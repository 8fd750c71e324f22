"""Channels, NC-ECE and LOO under correlated judges: the independent model beside the model of
the mechanism (issue 19 targets).

Each replicate simulates five annotators (a = 0.10, 0.15, 0.20, 0.10, 0.15; b = 0.85, 0.80,
0.75, 0.90, 0.80) on n uniform scores with the toy ``shifted`` calibration, erring together by
a named mechanism:

- the first two (``bayescal.simulate.simulate_dependent``): a shared-error pair (both give 1 - Y on a
  share rho of the items) or a copying pair (the second copies the first on a share rho), or
  neither; the right model is Dawid–Skene with the pair dependent
  (``fit_bayes(..., dependent=("a0", "a1"))``);
- the first three, copying in a chain (a1 copies a0, then a2 copies a1, each on a share rho):
  the right model has the two pairs that share a1 (a tree, ``dependent=[("a0", "a1"), ("a1",
  "a2")]``);
- all of them (``bayescal.simulate.simulate_difficulty``): a shared item difficulty with loadings
  (1.0, 1.5), independent of the score, or tied to it (``score_dependence`` 0.5, the
  violation of NC-ECE's assumption); the right model is ``"shared_difficulty"``.

It fits the independent Dawid–Skene model and the right model with NUTS (4 chains x (1000 +
1000)), and records per model:

- whether each checked marginal channel (the pair's a0, a1, b0, b1; every annotator's with a
  shared difficulty) lies in its 90% equal-tailed posterior interval, and the posterior mean's
  bias;
- whether the 90% interval of ``nc_ece_posterior`` (10 bins) covers the population binned ECE;
- ``compare_models``: the right model's elpd gain and its ``dse`` (a preference by "> 2 dse"
  is a gain beyond 2 dse either way), and the model its ``reading`` calls worse, if any (the
  rule of Sivula et al. 2022: below a difference of 4, neither);
- whether the right model's posterior means of every channel lie in the independent model's
  90% intervals (what the target asks of data without dependence).

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/dependence_recovery.py --replicates 100 --workers 2
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from replicate_grid import grid_arguments, run_grid

CHANNELS = ([0.10, 0.15, 0.20, 0.10, 0.15], [0.85, 0.80, 0.75, 0.90, 0.80])
PAIR = {"dependent": ("a0", "a1")}
DIFFICULTY = {"model": "shared_difficulty"}
#: design -> (simulator, its options, the right model's fit_bayes options, channels checked)
DESIGNS = {
    "no dependence": ("simulate_dependent", {"shared_error": 0.0}, PAIR, (0, 1)),
    "shared error, rho 0.2": ("simulate_dependent", {"shared_error": 0.2}, PAIR, (0, 1)),
    "shared error, rho 0.3": ("simulate_dependent", {"shared_error": 0.3}, PAIR, (0, 1)),
    "copying, rho 0.4": (
        "simulate_dependent",
        {"shared_error": 0.0, "copying": 0.4},
        PAIR,
        (0, 1),
    ),
    # issue 38: a1 copies a0, then a2 copies a1 (a tree of two pairs that share a1)
    "copying chain, rho 0.3": (
        "simulate_dependent",
        {"shared_error": 0.0, "copying": 0.3, "pair": [(0, 1), (1, 2)]},
        {"dependent": [("a0", "a1"), ("a1", "a2")]},
        (0, 1, 2),
    ),
    "shared difficulty": (
        "simulate_difficulty",
        {"loading": (1.0, 1.5)},
        DIFFICULTY,
        (0, 1, 2, 3, 4),
    ),
    "difficulty tied to the score": (
        "simulate_difficulty",
        {"loading": (1.0, 1.5), "score_dependence": 0.5},
        DIFFICULTY,
        (0, 1, 2, 3, 4),
    ),
}
LEVEL = 0.9


def replicate(design: str, n: int, seed: int) -> dict:
    import bayescal as bc
    from bayescal.simulate.panels import toy_calibration

    warnings.simplefilter("ignore")
    simulator, options, right, checked = DESIGNS[design]
    sim = getattr(bc, simulator)(
        n,
        bc.Channels(*CHANNELS),
        calibration=toy_calibration("shifted"),
        seed=seed,
        **options,
    )
    data, truth = sim.data, sim.channels
    target = sim.population_binned_ece(10)
    row = {"design": design, "seed": seed, "target": target}
    fits = {}
    for model, fit_options in (("independent", {}), ("right model", right)):
        start = time.perf_counter()
        fit = bc.fit_bayes(data, progress=False, seed=seed, **fit_options)
        row[f"{model} warned"] = not fit.diagnostics.empty and bool(
            (fit.diagnostics["r_hat"] > 1.01).any() or fit.diagnostics["divergences"].iloc[0] > 0
        )
        row[f"{model} seconds"] = time.perf_counter() - start
        fits[model] = fit
        a, b, _ = fit.draws()
        draws = {"a": a, "b": b}
        tail = (1 - LEVEL) / 2
        covered, bias = [], []
        for rate, j in [(rate, j) for rate in ("a", "b") for j in checked]:
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
    gain = table.loc["right model", "elpd_loo"] - table.loc["independent", "elpd_loo"]
    dse = float(table["dse"].max())
    row["elpd gain"] = gain
    row["dse"] = dse
    row["prefers right model"] = bool(gain > 2 * dse)
    row["prefers independent"] = bool(gain < -2 * dse)
    # compare_models' own reading (Sivula et al. 2022: below 4, alike): which model it calls
    # worse, if any
    worse = table.index[1]
    row["reading"] = (
        f"{'independent' if worse == 'independent' else 'right model'} worse"
        if table.loc[worse, "reading"].startswith("worse")
        else "neither"
    )
    a_i, b_i, _ = fits["independent"].draws()
    a_d, b_d, _ = fits["right model"].draws()
    inside = []
    for independent, dependent in ((a_i, a_d), (b_i, b_d)):
        low, high = np.quantile(independent, [0.05, 0.95], axis=0)
        mean = dependent.mean(axis=0)
        inside.append((low <= mean) & (mean <= high))
    row["channels agree"] = bool(np.all(inside))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, DESIGNS, replicates=100)
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args)
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}, {args.replicates} per design\n")
    print(
        "| design | model | checked channels in 90% interval | all in | mean abs bias | "
        "bias of a0 | NC-ECE 90% covers | median fit s | diagnostics warned |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        for model in ("independent", "right model"):
            print(
                f"| {design} | {model} | {rows[f'{model} pair covered'].mean():.1%} | "
                f"{rows[f'{model} all pair covered'].mean():.1%} | "
                f"{rows[f'{model} mean |bias|'].mean():.3f} | {rows[f'{model} bias a0'].mean():+.3f} | "
                f"{rows[f'{model} ece covered'].mean():.1%} | "
                f"{rows[f'{model} seconds'].median():.1f} | {rows[f'{model} warned'].mean():.0%} |"
            )
    print(
        "\n| design | > 2 dse: prefers right model | prefers independent | neither | "
        "compare_models' reading: prefers right model | prefers independent | neither | "
        "mean elpd gain | mean dse | right model's channels in independent's 90% intervals |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        neither = 1 - rows["prefers right model"].mean() - rows["prefers independent"].mean()
        read = rows["reading"]
        print(
            f"| {design} | {rows['prefers right model'].mean():.1%} | "
            f"{rows['prefers independent'].mean():.1%} | {neither:.1%} | "
            f"{(read == 'independent worse').mean():.1%} | "
            f"{(read == 'right model worse').mean():.1%} | {(read == 'neither').mean():.1%} | "
            f"{rows['elpd gain'].mean():.1f} | {rows['dse'].mean():.1f} | "
            f"{rows['channels agree'].mean():.1%} |"
        )


if __name__ == "__main__":
    main()
