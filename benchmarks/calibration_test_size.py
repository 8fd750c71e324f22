"""Size and power of ``calibration_test`` with known channels, beside naive tests (issue 18).

Each replicate draws a design anew and tests at the 5% level:

- ``noise-corrected``: ``bayescal.calibration_test`` with the simulation's true channels;
- ``soft vote`` and ``majority vote``: the same chi-square over the same 10 bins with the vote
  taken as the clean label, ``sum_l (sum_{i in B_l} (V_i - Z_i))^2 / sum_{i in B_l} Z_i (1 - Z_i)``
  (what a clean-label test does on noisy votes; ties of the majority vote count 1/2).

Calibrated designs (H0 true): the paper's toy design (``calibrated``, N = 2 000); the same with
40% of the labels missing at random; three weak annotators (gaps 0.25-0.35) on uniform scores.
Miscalibrated designs (power): the toy ``shifted`` and ``nonlinear`` conditions at N = 8 000.

    .venv/bin/python benchmarks/calibration_test_size.py --replicates 1000
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy import stats

import bayescal as bc

WEAK = bc.Channels([0.30, 0.35, 0.25], [0.60, 0.70, 0.55])
N_BINS, LEVEL = 10, 0.05


def design(name: str, seed: int):
    """(data, true channels) of one replicate."""
    if name == "weak annotators":
        sim = bc.simulate_annotated(2000, WEAK, seed=seed)
        return sim.data, sim.channels
    condition, n = {
        "toy calibrated": ("calibrated", 2000),
        "toy calibrated, 40% missing": ("calibrated", 2000),
        "toy shifted": ("shifted", 8000),
        "toy nonlinear": ("nonlinear", 8000),
    }[name]
    sim = bc.toy_data(n, condition=condition, seed=seed)
    if "missing" not in name:
        return sim.data, sim.channels
    annotations = sim.data.annotations.copy()
    annotations[np.random.default_rng(seed).random(annotations.shape) < 0.4] = -1
    empty = (annotations < 0).all(axis=1)
    annotations[empty, 0] = sim.data.annotations[empty, 0]  # every item keeps one label
    return bc.AnnotatedScores(sim.data.scores, annotations), sim.channels


def naive_p_value(scores, votes) -> float:
    """The clean-label chi-square of the module docstring with ``votes`` as the labels."""
    index = np.minimum((scores * N_BINS).astype(int), N_BINS - 1)
    residual = np.bincount(index, votes - scores, minlength=N_BINS)
    variance = np.bincount(index, scores * (1 - scores), minlength=N_BINS)
    used = variance > 0
    statistic = (residual[used] ** 2 / variance[used]).sum()
    return float(stats.chi2.sf(statistic, used.sum()))


def replicate(name: str, seed: int) -> dict:
    data, channels = design(name, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.BinningWarning)
        corrected = bc.calibration_test(data, channels, n_bins=N_BINS).p_value
    return {
        "noise-corrected": corrected,
        "soft vote": naive_p_value(data.scores, bc.soft_vote_labels(data.annotations)),
        "majority vote": naive_p_value(data.scores, bc.majority_vote_labels(data.annotations)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    names = [
        "toy calibrated",
        "toy calibrated, 40% missing",
        "weak annotators",
        "toy shifted",
        "toy nonlinear",
    ]
    print("| design | H0 | replicates | noise-corrected | soft vote | majority vote |")
    print("|---|---|---:|---:|---:|---:|")
    for name in names:
        rows = [replicate(name, seed) for seed in range(args.replicates)]
        rates = {test: np.mean([row[test] < LEVEL for row in rows]) for test in rows[0]}
        truth = "true" if "calibrated" in name or name == "weak annotators" else "false"
        print(
            f"| {name} | {truth} | {args.replicates} | "
            + " | ".join(f"{rates[test]:.1%}" for test in rows[0])
            + " |"
        )


if __name__ == "__main__":
    main()
