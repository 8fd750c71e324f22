"""NC-ECE bias against labels per worker on crowds (issue 17, item 4).

With few labels per worker each estimated gap d_j = b_j - a_j stays noisy however many items
there are, and E[1/d_hat] != 1/d: the corrected labels U = (A - a_hat) / d_hat of a sparse worker
are biased, and the plug-in NC-ECE with them.  This script measures that bias as the labels per
worker fall, at a fixed number of items and labels per item (more workers, each labelling less):

- ``clean labels``: the binned ECE of the simulated true labels (the finite-sample bias of a
  binned ECE alone, no label noise);
- ``true channels``: the plug-in NC-ECE (``noise_corrected_ece``, IV weights, the crowd rule)
  with the simulated channels (label noise corrected exactly, no estimation error);
- ``crowd_em, own``: the same with ``crowd_em``'s channels, every worker its own
  (``pool=None``; Beta(2, 2) smoothing when a worker has fewer than 30 labels);
- ``crowd_em, MLE``: every worker its own, unsmoothed (``smoothing=None``);
- ``crowd_em, pooled``: ``crowd_em``'s default, the workers with fewer than 30 labels sharing
  the pooled channel of the sparse workers (``pool="auto"``);
- ``hierarchical``: the posterior median of ``nc_ece_posterior`` under
  ``hierarchical_dawid_skene`` (2 chains x (500 + 500); ``--bayes-replicates`` per setting),
  with whether its 90% interval covers the population binned ECE;

each minus the population binned ECE (10 bins), averaged over replicates, with the standard
error of that mean; a second table gives each estimate minus the true channels' on the same
data (the error that estimating the channels adds).  Crowds: ``simulate_crowd(N, W,
labels_per_item=3, workload="uniform")`` with 90% good workers and 10% spammers, the shifted toy
predictor (population binned ECE 0.0896); W = 3 N / (labels per worker).

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

LABELS_PER_ITEM, N_BINS = 3, 10
MIX = {"good": 0.9, "spammer": 0.1}
EM_OPTIONS = {
    "crowd_em, own": {"pool": None},
    "crowd_em, MLE": {"pool": None, "smoothing": None},
    "crowd_em, pooled": {},
}
ESTIMATES = ("clean labels", "true channels", *EM_OPTIONS, "hierarchical")


def replicate(n_items: int, per_worker: int, seed: int, bayes: bool) -> dict:
    n_workers = n_items * LABELS_PER_ITEM // per_worker
    crowd = bc.simulate_crowd(
        n_items, n_workers, labels_per_item=LABELS_PER_ITEM, workload="uniform",
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
        for name, options in EM_OPTIONS.items():
            fit = bc.crowd_em(crowd.data, **options)
            row[name] = bc.noise_corrected_ece(crowd.data, fit.channels, n_bins=N_BINS)
        if bayes:
            start = time.perf_counter()
            posterior = bc.fit_bayes(
                crowd.data, model="hierarchical_dawid_skene", num_chains=2, num_warmup=500,
                num_samples=500, seed=seed, progress=False,
            )  # fmt: skip
            result = bc.nc_ece_posterior(crowd.data, posterior, n_bins=N_BINS, seed=seed)
            row["hierarchical"] = result.median
            row["covered"] = result.interval[0] <= target <= result.interval[1]
            row["seconds"] = time.perf_counter() - start
    for name in ESTIMATES:
        if name in row:
            row[name] -= target
    return row


def table(rows: pd.DataFrame, against: str | None = None) -> str:
    """Mean bias (+- its standard error) per estimator and labels per worker, as markdown;
    with ``against``, of each estimate minus that estimate on the same replicate."""
    names = [n for n in ESTIMATES if n in rows and n != against]
    lines = [
        "| labels per worker | workers | " + " | ".join(f"{n} (replicates)" for n in names) + " |",
        "|---:|---:|" + "---:|" * len(names),
    ]
    for (per_worker, workers), group in rows.groupby(["labels_per_worker", "workers"]):
        cells = []
        for name in names:
            values = (group[name] - (group[against] if against else 0.0)).dropna()
            cell = (
                f"{values.mean():+.4f} +- {values.std(ddof=1) / np.sqrt(values.size):.4f} "
                f"({values.size})"
            )
            if name == "hierarchical" and not against:
                cell += f", covers {group['covered'].dropna().astype(float).mean():.0%}"
            cells.append(cell)
        lines.append(f"| {per_worker} | {workers} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--labels-per-worker", type=int, nargs="+", default=[10, 20, 50, 100, 300])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--bayes-replicates", type=int, default=20)
    parser.add_argument("--out", default=None, help="CSV of the replicates (optional)")
    args = parser.parse_args()
    rows = []
    for per_worker in args.labels_per_worker:
        for seed in range(args.replicates):
            bayes = seed < args.bayes_replicates
            rows.append(replicate(args.items, per_worker, seed, bayes))
        print(f"{per_worker} labels per worker: {args.replicates} replicates", flush=True)
    rows = pd.DataFrame(rows)
    if args.out:
        rows.to_csv(args.out, index=False)
    print("Bias against the population binned ECE:\n" + table(rows))
    print("\nAdded to the true channels' NC-ECE on the same data:\n" + table(rows, "true channels"))
    if "seconds" in rows:
        print(f"\nhierarchical fit + push-through: {rows['seconds'].mean():.1f} s on average")


if __name__ == "__main__":
    main()
