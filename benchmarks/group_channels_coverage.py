"""Coverage of the posterior NC-ECE of a fit with channels per score group (issue 38 item 4).

Noise that depends on the score breaks the shared channels NC-ECE corrects with: the judges
err more where the predictor scores high.  ``hui_walter_by_group`` fits each score group's
channels; ``nc_ece_posterior`` corrects each item with its group's.  Each replicate draws
``n`` items, ``Z ~ Uniform(0, 1)``, ``Y | Z ~ Bernoulli(m(Z))`` with the toy's shifted
calibration ``m(z) = sigma(0.65 logit z - 0.3)``, and four annotators whose channels are
``LOW`` below ``Z = 0.5`` and ``HIGH`` above it (design ``differential``) or ``LOW``
everywhere (design ``shared``); the score groups are ``Z >= 0.5``.  Both models are fitted
with NUTS (2 chains x (1000 + 1000)); the estimand is the population binned ECE over ten
equal-width bins, ``sum_l |E[(m(Z) - Z) 1{Z in B_l}]|`` (0.0799 for this m), and each fit's
90% interval of ``nc_ece_posterior`` (``uncertainty="total"``) is checked against it.

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/group_channels_coverage.py --replicates 100 --workers 2
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from replicate_grid import grid_arguments, run_grid

LOW = ([0.10, 0.15, 0.20, 0.10], [0.85, 0.80, 0.75, 0.90])
#: where the predictor scores high the judges share its blind spot: more false positives
HIGH = ([0.30, 0.35, 0.30, 0.25], [0.95, 0.90, 0.90, 0.95])
DESIGNS = ("differential", "shared")
MODELS = ("hui_walter", "hui_walter_by_group")
LEVEL = 0.9
BINS = 10
GRID = (np.arange(200_000) + 0.5) / 200_000


def population_ece(calibration) -> float:
    """``sum_l |mean((m(z) - z) 1{z in B_l})|`` on the uniform grid."""
    bins = np.minimum((GRID * BINS).astype(int), BINS - 1)
    residual = calibration(GRID) - GRID
    return float(np.abs(np.bincount(bins, residual, minlength=BINS) / GRID.size).sum())


def replicate(design: str, n: int, seed: int) -> list[dict]:
    import bayescal as bc
    from bayescal.simulate.panels import toy_calibration

    warnings.simplefilter("ignore")
    calibration = toy_calibration("shifted")
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    truth = rng.random(n) < calibration(scores)
    high = (scores >= 0.5)[:, None] & (design == "differential")
    a = np.where(high, HIGH[0], LOW[0])
    b = np.where(high, HIGH[1], LOW[1])
    annotations = (rng.random((n, 4)) < np.where(truth[:, None], b, a)).astype(np.int8)
    groups = bc.channels.score_groups(scores, thresholds=[0.5])
    data = bc.AnnotatedScores(scores, annotations, groups=groups)
    target = population_ece(calibration)
    sampler = bc.SamplerSettings(num_chains=2, num_warmup=1000, num_samples=1000, seed=seed)
    rows = []
    for model in MODELS:
        fit = bc.fit_bayes(data, model=model, sampler=sampler, progress=False)
        posterior = bc.nc_ece_posterior(data, fit, n_bins=BINS, level=LEVEL, seed=seed)
        low, high_end = posterior.interval
        rows.append(
            {
                "design": design,
                "model": model,
                "seed": seed,
                "target": target,
                "median": posterior.median,
                "covered": bool(low <= target <= high_end),
                "width": high_end - low,
                "max r_hat": float(fit.diagnostics["r_hat"].max()),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, DESIGNS, replicates=100)
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args)
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}\n")
    print(
        "| design | model | estimand | mean median - estimand (SE) | 90% interval covers | "
        "mean width | fits with R-hat > 1.01 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for (design, model), rows in frame.groupby(["design", "model"], sort=False):
        error = rows["median"] - rows["target"]
        print(
            f"| {design} | {model} | {rows['target'].mean():.4f} | {error.mean():+.4f} "
            f"({error.std() / np.sqrt(len(rows)):.4f}) | {rows['covered'].mean():.1%} | "
            f"{rows['width'].mean():.4f} | {(rows['max r_hat'] > 1.01).sum()} of {len(rows)} |"
        )


if __name__ == "__main__":
    main()
