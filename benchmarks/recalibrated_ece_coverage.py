"""Coverage of the recalibrated NC-ECE's intervals of ``posterior_recalibration`` (issue 38
item 6).

The estimand is the ECE of the map a user applies, ``result.map`` (the posterior-mean map):
the population binned ECE of its scores ``g(Z)``, ``sum_l |E[(m(Z) - g(Z)) 1{g(Z) in B_l}]|``
over ten equal-width bins of ``g(Z)``, computed on a grid of 200 000 uniform scores (the
simulation's ``Z ~ Uniform(0, 1)``).  Each replicate draws three samples of n items from
``simulate_annotated`` (four annotators, a = 0.10, 0.15, 0.20, 0.10, b = 0.85, 0.80, 0.75,
0.90): the channel sample fits Dawid–Skene with NUTS (2 chains x (1000 + 1000)), the fitting
sample fits a Platt map per draw, the evaluation sample scores it (App. E.5), with
``uncertainty="total"`` (the default; ``--uncertainty channels`` leaves out the evaluation
sample's bootstrap and the debiasing).  It records whether the two-sided 90% interval covers the
estimand, and whether the one-sided 90% upper bound (the draws' 0.9 quantile) lies above it.

Designs: ``shifted`` (the toy's m(z) = sigma(0.65 logit z - 0.3): a Platt map nearly
calibrates it, so the estimand sits near 0, at the boundary) and ``nonlinear`` (m(z) = z +
0.12 sin(2 pi z), clipped: no Platt map calibrates it, so the estimand stays inside).

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/recalibrated_ece_coverage.py --replicates 200 --workers 2
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from replicate_grid import grid_arguments, run_grid

CHANNELS = ([0.10, 0.15, 0.20, 0.10], [0.85, 0.80, 0.75, 0.90])
DESIGNS = ("shifted", "nonlinear")
LEVEL = 0.9
BINS = 10
GRID = (np.arange(200_000) + 0.5) / 200_000


def population_ece(calibration, scores) -> float:
    """``sum_l |mean((m(z) - g(z)) 1{g(z) in B_l})|`` on the uniform grid, ``scores`` = g(grid)."""
    bins = np.minimum((scores * BINS).astype(int), BINS - 1)
    residual = calibration(GRID) - scores
    return float(np.abs(np.bincount(bins, residual, minlength=BINS) / GRID.size).sum())


def replicate(design: str, n: int, seed: int, uncertainty: str) -> dict:
    import bayescal as bc
    from bayescal.simulate.panels import toy_calibration

    warnings.simplefilter("ignore")
    calibration = toy_calibration(design)
    sim = bc.simulate_annotated(3 * n, bc.Channels(*CHANNELS), calibration=calibration, seed=seed)
    channel, fitting, evaluation = (
        sim.data.subset(np.arange(k * n, (k + 1) * n)) for k in range(3)
    )
    sampler = bc.SamplerSettings(num_chains=2, num_warmup=1000, num_samples=1000, seed=seed)
    fit = bc.fit_bayes(channel, sampler=sampler, progress=False)
    result = bc.posterior_recalibration(
        fitting, evaluation, fit, method="platt", level=LEVEL, uncertainty=uncertainty
    )
    target = population_ece(calibration, result.map.predict(GRID))
    low, high = result.recalibrated.interval
    upper = result.recalibrated.upper_bound
    return {
        "design": design,
        "seed": seed,
        "target": target,
        "median": result.recalibrated.median,
        "lower": low,
        "upper": high,
        "covered": bool(low <= target <= high),
        "upper bound": upper,
        "below upper bound": bool(target <= upper),
        "prob within 0.01": result.recalibrated.prob_calibrated,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, DESIGNS, replicates=200)
    parser.add_argument(
        "--uncertainty", default="total", help="posterior_recalibration's uncertainty"
    )
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args, args.uncertainty)
    print(
        f"n = {args.n} per sample, seeds {seeds.start}-{seeds.stop - 1}, "
        f"uncertainty {args.uncertainty!r}\n"
    )
    print(
        "| design | mean estimand | mean median | two-sided 90% covers | lower end above the "
        "estimand | one-sided 90% upper bound covers | mean width | mean P(ECE <= 0.01) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        print(
            f"| {design} | {rows['target'].mean():.4f} | {rows['median'].mean():.4f} | "
            f"{rows['covered'].mean():.1%} | {(rows['lower'] > rows['target']).mean():.1%} | "
            f"{rows['below upper bound'].mean():.1%} | "
            f"{(rows['upper'] - rows['lower']).mean():.4f} | "
            f"{rows['prob within 0.01'].mean():.2f} |"
        )


if __name__ == "__main__":
    main()
