"""What the NC-ECE estimator adds on a crowd when the channels are known (issue 38 item 2).

Both Bayesian models push their channel draws through the same estimator: the crowd rule
(IV weights at each item's workers, items of too little precision left out), the bin moments
with the Bayesian bootstrap (total uncertainty), the bias correction of the bins (the
straddle rule until this measurement, now the folded-normal correction), and the median of
the draws.  Here the channels are the simulation's true
ones in every draw, so whatever error remains is the estimator's own, not the channels'.
Per replicate of a ``crowd_coverage.py`` design (``shifted`` predictor, population binned
ECE 0.0896 over 10 bins), each value minus the population binned ECE:

- ``clean``: the binned ECE of the true labels (the sample's own deviation from the
  population);
- ``kept_clean``: the same over the items the crowd rule keeps;
- ``plug_in``: ``noise_corrected_ece`` at the true channels (no bootstrap, no debiasing);
- ``raw_median``: the median of the bootstrap draws of ``sum_l |r_l|``, not debiased;
- ``median``, ``mean``: the median and mean of the draws debiased by the straddle rule
  (``debiasing_coverage.straddle_draws``), as ``nc_ece_posterior`` reported them before;
- ``folded_median``, ``folded_mean``: the same with the folded-normal bias correction of each
  bin, as ``nc_ece_posterior`` reports them now (its median is the ``nc_true`` of
  ``crowd_coverage.py``).

    .venv/bin/python benchmarks/crowd_estimator_bias.py --replicates 1000 --n 1000
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from crowd_coverage import N_BINS, labelled_workers, simulate_design
from debiasing_coverage import straddle_draws
from replicate_grid import grid_arguments, run_grid

#: Draws of the bootstrap, as many as a fit of 2 chains x 500 gives.
DRAWS = 1000
COLUMNS = (
    "clean",
    "kept_clean",
    "plug_in",
    "raw_median",
    "median",
    "mean",
    "folded_median",
    "folded_mean",
)


def ece(labels, scores) -> float:
    """The binned ECE ``sum_l |r_l|`` of clean labels over the evaluation bins."""
    from bayescal.metrics.calibration import binned_moments

    return float(np.abs(binned_moments(labels, scores, N_BINS, "uniform").moments).sum())


def replicate(design: str, n: int, seed: int) -> dict:
    import bayescal as bc
    from bayescal.correction.crowd import crowd_targets, response_moment_draws
    from bayescal.correction.folded_correction import corrected_draws
    from bayescal.correction.known_channels import evaluation_cells

    crowd = simulate_design(design, seed, n=n)
    data, seen = labelled_workers(crowd)
    true_a, true_b = crowd.channels.a[seen], crowd.channels.b[seen]
    a, b = (np.broadcast_to(x, (DRAWS, x.size)) for x in (true_a, true_b))
    cells = evaluation_cells(data, N_BINS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the crowd rule's unlabelled-items line, every call
        moments = response_moment_draws(data, cells.edges, "uniform", a, b, "iv", "total", seed)
        _, kept = crowd_targets(data, true_a, true_b, "iv")
        channels = bc.Channels(true_a, true_b, adversarial=True, names=data.annotator_names)
        plug_in = bc.noise_corrected_ece(data, channels, n_bins=N_BINS)
    folded = corrected_draws(moments)
    straddle = straddle_draws(moments)
    target = crowd.population_binned_ece(N_BINS)
    values = {
        "clean": ece(crowd.labels, data.scores),
        "kept_clean": ece(crowd.labels[kept], data.scores[kept]),
        "plug_in": float(plug_in),
        "raw_median": float(np.median(np.abs(moments).sum(axis=1))),
        "median": float(np.median(straddle)),
        "mean": float(straddle.mean()),
        "folded_median": float(np.median(folded)),
        "folded_mean": float(folded.mean()),
    }
    return {"design": design, "seed": seed, **{k: x - target for k, x in values.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, ["spammers", "adversaries"], replicates=1000)
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args)
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}: mean +- SE of value - target\n")
    print("| design | replicates | " + " | ".join(COLUMNS) + " |")
    print("|---|---:|" + "---:|" * len(COLUMNS))
    for design, rows in frame.groupby("design", sort=False):
        cells = [
            f"{rows[c].mean():+.4f} +- {rows[c].std() / np.sqrt(len(rows)):.4f}" for c in COLUMNS
        ]
        print(f"| {design} | {len(rows)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
