"""NC-ECE bias against labels per worker on crowds (issue 17, item 4).

With few labels per worker each estimated gap d_j = b_j - a_j stays noisy however many items
there are, and E[1/d_hat] != 1/d: the corrected labels U = (A - a_hat) / d_hat of a sparse worker
are biased, and the plug-in NC-ECE with them.  This script measures that bias as the labels per
worker fall, at a fixed number of items and labels per item (more workers, each labelling less):

- ``clean labels``: the binned ECE of the simulated true labels (the finite-sample bias of a
  binned ECE alone, no label noise);
- ``true channels``: the plug-in NC-ECE (``noise_corrected_ece``, IV weights, the crowd rule)
  with the simulated channels (label noise corrected exactly, no estimation error);
- ``crowd_em``: the same with ``crowd_em``'s channels (its default smoothing);
- ``hierarchical``: the posterior median of ``nc_ece_posterior`` under
  ``hierarchical_dawid_skene`` (2 chains x (500 + 500); ``--bayes-replicates`` per setting);

each minus the population binned ECE (10 bins), averaged over replicates, with the standard
error of that mean.  Crowds: ``simulate_crowd(N, W, labels_per_item=3, workload="uniform")``
with 90% good workers and 10% spammers, the shifted toy predictor (population binned ECE
0.0896); W = 3 N / (labels per worker).

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \
        benchmarks/crowd_bias.py --replicates 100 --bayes-replicates 20
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import bayescal as bc

N_ITEMS, LABELS_PER_ITEM, N_BINS = 3000, 3, 10
LABELS_PER_WORKER = (10, 20, 50, 100, 300)
MIX = {"good": 0.9, "spammer": 0.1}


def replicate(per_worker: int, seed: int, bayes: bool) -> dict:
    n_workers = N_ITEMS * LABELS_PER_ITEM // per_worker
    crowd = bc.simulate_crowd(
        N_ITEMS, n_workers, labels_per_item=LABELS_PER_ITEM, workload="uniform",
        worker_mix=MIX, seed=seed,
    )  # fmt: skip
    target = crowd.population_binned_ece(N_BINS)
    row = {"labels_per_worker": per_worker, "workers": n_workers, "seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the odd workers' one-line warnings, every replicate
        row["clean labels"] = bc.expected_calibration_error(
            crowd.labels, crowd.data.scores, n_bins=N_BINS
        )
        row["true channels"] = bc.noise_corrected_ece(crowd.data, crowd.channels, n_bins=N_BINS)
        fit = bc.crowd_em(crowd.data)
        row["crowd_em"] = bc.noise_corrected_ece(crowd.data, fit.channels, n_bins=N_BINS)
        if bayes:
            start = time.perf_counter()
            posterior = bc.fit_bayes(
                crowd.data, model="hierarchical_dawid_skene", num_chains=2, num_warmup=500,
                num_samples=500, seed=seed, progress=False,
            )  # fmt: skip
            row["hierarchical"] = bc.nc_ece_posterior(
                crowd.data, posterior, n_bins=N_BINS, seed=seed
            ).median
            row["seconds"] = time.perf_counter() - start
    for name in ("clean labels", "true channels", "crowd_em", "hierarchical"):
        if name in row:
            row[name] -= target
    return row


def table(rows: pd.DataFrame) -> str:
    """Mean bias (+- its standard error) per estimator and labels per worker, as markdown."""
    names = [n for n in ("clean labels", "true channels", "crowd_em", "hierarchical") if n in rows]
    lines = [
        "| labels per worker | workers | "
        + " | ".join(f"bias, {n} (replicates)" for n in names)
        + " |",
        "|---:|---:|" + "---:|" * len(names),
    ]
    for (per_worker, workers), group in rows.groupby(["labels_per_worker", "workers"]):
        cells = []
        for name in names:
            values = group[name].dropna()
            cells.append(
                f"{values.mean():+.4f} +- {values.std(ddof=1) / np.sqrt(values.size):.4f} "
                f"({values.size})"
            )
        lines.append(f"| {per_worker} | {workers} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--bayes-replicates", type=int, default=20)
    parser.add_argument("--out", default=None, help="CSV of the replicates (optional)")
    args = parser.parse_args()
    rows = []
    for per_worker in LABELS_PER_WORKER:
        for seed in range(args.replicates):
            rows.append(replicate(per_worker, seed, bayes=seed < args.bayes_replicates))
        print(f"{per_worker} labels per worker: {args.replicates} replicates", flush=True)
    rows = pd.DataFrame(rows)
    if args.out:
        rows.to_csv(args.out, index=False)
    print(table(rows))
    if "seconds" in rows:
        print(f"\nhierarchical fit + push-through: {rows['seconds'].mean():.1f} s on average")


if __name__ == "__main__":
    main()
