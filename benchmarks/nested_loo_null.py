"""What "LOO prefers neither model by more than 2 dse" can reach when the larger model's extra
parameters are null: the textbook case, in closed form (issue 19, the no-dependence target).

The independent and the dependent channel models are nested: the dependent one adds two
covariances, which are zero when the judges err independently.  This script measures the same
decision rule on the simplest nested pair there is, where leave-one-out is exact and no
sampler, prior or Pareto smoothing is involved: Gaussian linear regression with a known noise
SD of 1 and a flat prior, whose leave-one-out predictive is

    y_i | y_-i ~ N(x_i' beta_hat_(-i), 1 / (1 - h_i)),   y_i - x_i' beta_hat_(-i) = e_i / (1 - h_i)

(``h_i`` the leverage, ``e_i`` the full-data residual).  The smaller model has an intercept and
one covariate that matters; the larger adds ``extra`` covariates of coefficient zero.  For each
replicate: ``elpd_diff`` (larger minus smaller) and ``dse = sqrt(n var_i(d_i))`` as in
``az.compare`` and ``bayescal.compare_models``.

    .venv/bin/python benchmarks/nested_loo_null.py
"""

from __future__ import annotations

import numpy as np

REPLICATES = 2000
SIZES = (300, 3000)
EXTRA = (1, 2, 4)
#: Sivula, Magnusson, Matamoros and Vehtari (2020, arXiv:2008.10296): below an elpd
#: difference of about 4 the models predict alike and the normal approximation with dse is
#: poorly calibrated.
SMALL_DIFFERENCE = 4.0


def pointwise_loo(design: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Exact leave-one-out log predictive densities of the flat-prior, unit-variance model."""
    inverse = np.linalg.inv(design.T @ design)
    leverage = np.einsum("ij,jk,ik->i", design, inverse, design)
    variance = 1.0 / (1.0 - leverage)
    residual = (y - design @ (inverse @ (design.T @ y))) * variance
    return -0.5 * np.log(2.0 * np.pi * variance) - 0.5 * residual**2 / variance


def replicate(n: int, extra: int, rng: np.random.Generator) -> tuple[float, float]:
    """One data set: ``(elpd_diff, dse)`` of the larger model against the smaller."""
    smaller = np.column_stack([np.ones(n), rng.normal(size=n)])
    larger = np.column_stack([smaller, rng.normal(size=(n, extra))])
    y = smaller @ np.array([0.5, 1.0]) + rng.normal(size=n)
    difference = pointwise_loo(larger, y) - pointwise_loo(smaller, y)
    return difference.sum(), np.sqrt(n * difference.var())


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{REPLICATES} replicates per row, seed 0\n")
    print(
        "| n | null parameters added | smaller preferred (> 2 dse) | larger preferred | "
        "neither | mean elpd_diff | mean dse | neither, reading |diff| < 4 as none |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in SIZES:
        for extra in EXTRA:
            diff, dse = np.array([replicate(n, extra, rng) for _ in range(REPLICATES)]).T
            smaller, larger = diff < -2 * dse, diff > 2 * dse
            decided = (smaller | larger) & (np.abs(diff) >= SMALL_DIFFERENCE)
            print(
                f"| {n} | {extra} | {smaller.mean():.1%} | {larger.mean():.1%} | "
                f"{1 - smaller.mean() - larger.mean():.1%} | {diff.mean():.2f} | "
                f"{dse.mean():.2f} | {1 - decided.mean():.1%} |"
            )


if __name__ == "__main__":
    main()
