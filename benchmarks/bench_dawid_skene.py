"""Dawid–Skene EM: bayescal against crowd-kit 1.4 on the same simulated binary data.

Run with ``make bench`` (it builds .venv-bench with crowd-kit); prints a markdown table.

For each n: bayescal's compression pass (``AnnotatedScores.compress``), its EM on the pattern
counts, and the whole ``dawid_skene_em(data)`` call (median of repeats, default 10 starts);
crowd-kit's ``DawidSkene().fit(df)`` with its defaults (one start from majority vote, tol 1e-5,
at most 100 iterations).  Building the inputs (bayescal's ``AnnotatedScores``, crowd-kit's long
DataFrame) is not timed for either.  ``max |diff|`` is the largest difference between the two
libraries' estimates of (a_j, b_j).
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings

import numpy as np
import pandas as pd

import bayescal as bc
from bayescal.channels import dawid_skene_em

A = np.array([0.10, 0.15, 0.20, 0.10, 0.25])  # false-positive rates of the K = 5 annotators
B = np.array([0.85, 0.90, 0.80, 0.70, 0.95])  # sensitivities
PREVALENCE = 0.4


def simulate(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    labels = np.empty((n, A.size), dtype=np.int8)
    for start in range(0, n, 1_000_000):  # in blocks, so 10^7 items stay small in memory
        stop = min(n, start + 1_000_000)
        y = rng.random(stop - start) < PREVALENCE
        labels[start:stop] = rng.random((stop - start, A.size)) < np.where(y[:, None], B, A)
    return labels


def median_time(function, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def crowdkit_fit(labels: np.ndarray):
    from crowdkit.aggregation import DawidSkene

    n, k = labels.shape
    frame = pd.DataFrame(
        {
            "task": np.repeat(np.arange(n), k),
            "worker": np.tile(np.arange(k), n),
            "label": labels.ravel().astype(int),
        }
    )
    start = time.perf_counter()
    model = DawidSkene().fit(frame)
    elapsed = time.perf_counter() - start
    errors = (
        model.errors_
    )  # P(observed label | true label), index (worker, observed), columns true label
    a = np.array([errors.loc[(j, 1), 0] for j in range(k)])
    b = np.array([errors.loc[(j, 1), 1] for j in range(k)])
    return elapsed, a, b, float(model.priors_[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 10_000_000]
    )
    parser.add_argument(
        "--crowdkit-max", type=int, default=1_000_000, help="largest n also run through crowd-kit"
    )
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("ignore", bc.SaturatedModelWarning)

    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, K = {A.size}, default n_starts = 10\n"
    )
    print(
        "| n | patterns | compress (ms) | EM on counts (ms) | EM iterations | bayescal total (ms) "
        "| crowd-kit (s) | crowd-kit / bayescal | max abs diff (a, b) | bayescal max error vs truth |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        labels = simulate(n, seed=n % 1000)
        data = bc.AnnotatedScores(np.full(n, 0.5), labels)
        compress_s, counts = median_time(data.compress, args.repeats)
        em_s, em_fit = median_time(lambda counts=counts: dawid_skene_em(counts), args.repeats)
        total_s, fit = median_time(lambda data=data: bc.dawid_skene_em(data), args.repeats)
        ours = np.concatenate([fit.channels.a, fit.channels.b])
        error = np.max(np.abs(ours - np.concatenate([A, B])))
        row = (
            f"| {n:.0e} | {counts.n_cells} | {1e3 * compress_s:.2f} | {1e3 * em_s:.2f} | {em_fit.n_iter} "
            f"| {1e3 * total_s:.2f} |"
        )
        if n <= args.crowdkit_max:
            ck_s, ck_a, ck_b, _ = crowdkit_fit(labels)
            diff = np.max(np.abs(ours - np.concatenate([ck_a, ck_b])))
            row += f" {ck_s:.2f} | {ck_s / total_s:.0f}x | {diff:.1e} |"
        else:
            row += " – | – | – |"
        print(row + f" {error:.4f} |", flush=True)


if __name__ == "__main__":
    main()
