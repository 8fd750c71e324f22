"""NC-ECE when judges abstain: missing at random or not (issue 19, item 2b).

Corrected labels renormalise their weights over the annotators an item has
(``bayescal.correction.corrected_labels``), which keeps ``E[U_i | Y, Z] = Y`` when a response is missing
independently of the label given the score.  This benchmark simulates four judges (a = 0.10,
0.15, 0.20, 0.10; b = 0.85, 0.80, 0.75, 0.90) on n uniform scores with the toy ``shifted``
calibration, removes responses by one of four mechanisms, and computes NC-ECE (10 bins) with the
true channels, with Dawid–Skene EM channels and with grouped EM channels (five equal-width score
groups), against the population binned ECE:

- ``completely at random``: each response missing with probability 0.3;
- ``by score``: missing with probability 0.6 z (at random given the score: allowed);
- ``hard items``: on the items the predictor gets wrong (``|Y - Z| > 0.5``) each judge
  abstains with probability 0.6, on the others with 0.1 (the label drives the missingness);
- ``when it would err``: each judge abstains with probability 0.5 on the items it would label
  wrongly (its answered labels are then better than its channel).

An item left without any response is dropped (the population ECE is of all items).

    .venv/bin/python benchmarks/abstention_bias.py --replicates 100
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import bayescal as bc
from bayescal.simulate.panels import toy_calibration

CHANNELS = bc.Channels([0.10, 0.15, 0.20, 0.10], [0.85, 0.80, 0.75, 0.90])
MECHANISMS = ("completely at random", "by score", "hard items", "when it would err")


def _missing(mechanism: str, sim, rng) -> np.ndarray:
    """Which responses are removed, (n, K) bool."""
    shape = sim.data.annotations.shape
    z, y = sim.data.scores[:, None], sim.labels[:, None]
    if mechanism == "completely at random":
        chance = np.full(shape, 0.3)
    elif mechanism == "by score":
        chance = np.broadcast_to(0.6 * z, shape)
    elif mechanism == "hard items":
        chance = np.broadcast_to(np.where(np.abs(y - z) > 0.5, 0.6, 0.1), shape)
    else:
        chance = np.where(sim.data.annotations != y, 0.5, 0.0)
    return rng.random(shape) < chance


def replicate(mechanism: str, n: int, seed: int) -> dict:
    sim = bc.simulate_annotated(n, CHANNELS, calibration=toy_calibration("shifted"), seed=seed)
    annotations = sim.data.annotations.copy()
    annotations[_missing(mechanism, sim, np.random.default_rng([seed, 7]))] = -1
    labelled = (annotations >= 0).any(axis=1)  # an item without a response is dropped
    data = bc.AnnotatedScores(sim.data.scores[labelled], annotations[labelled])
    target = sim.population_binned_ece(10)
    with warnings.catch_warnings():  # the unlabelled items are said once per call
        warnings.simplefilter("ignore")
        known = bc.noise_corrected_ece(data, CHANNELS, n_bins=10)
        fit = bc.dawid_skene_em(data)
        estimated = bc.noise_corrected_ece(data, fit.channels, n_bins=10)
        grouped = bc.AnnotatedScores(
            data.scores, data.annotations, groups=bc.channels.score_groups(data.scores, n_groups=5)
        )
        by_group = bc.noise_corrected_ece(data, bc.grouped_em(grouped).channels, n_bins=10)
    return {
        "mechanism": mechanism,
        "target": target,
        "known": known,
        "em": estimated,
        "grouped em": by_group,
        "dropped": float(1.0 - data.n_items / n),
        "missing": float((annotations == -1).mean()),
        "em a0 bias": float(fit.channels.a[0] - CHANNELS.a[0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--n", type=int, default=20000)
    args = parser.parse_args()
    rows = [
        replicate(mechanism, args.n, seed)
        for mechanism in MECHANISMS
        for seed in range(args.replicates)
    ]
    frame = pd.DataFrame(rows)
    print(f"n = {args.n}, {args.replicates} replicates (seeds 0-{args.replicates - 1})\n")
    print(
        "| missingness | responses missing | items dropped | population ECE | "
        "NC-ECE, true channels (bias) | NC-ECE, EM channels (bias) | EM bias of a0 | "
        "NC-ECE, grouped EM channels (bias) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for mechanism, group in frame.groupby("mechanism", sort=False):
        target = group["target"].mean()
        print(
            f"| {mechanism} | {group['missing'].mean():.0%} | {group['dropped'].mean():.1%} | "
            f"{target:.4f} | "
            f"{group['known'].mean():.4f} ({group['known'].mean() - target:+.4f}) | "
            f"{group['em'].mean():.4f} ({group['em'].mean() - target:+.4f}) | "
            f"{group['em a0 bias'].mean():+.3f} | "
            f"{group['grouped em'].mean():.4f} ({group['grouped em'].mean() - target:+.4f}) |"
        )


if __name__ == "__main__":
    main()
