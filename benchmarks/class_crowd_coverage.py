"""Coverage of the posterior top-label NC-ECE of a 10-class crowd under the hierarchical
multi-class model (issue 39's second coverage target), with bias and RMSE beside crowd_em's
estimate and the majority vote's ECE, and the seconds per fit.

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \\
        benchmarks/class_crowd_coverage.py [--replicates 50] [--first-seed 0] [--rows FILE]

The design is ``benchmarks/class_crowd_bias.py``'s crowd at ``N_ITEMS`` items and
``N_WORKERS`` workers: C = 10 equally common classes, features ``2 e_y + N(0, I)``, the
classifier ``softmax(1.6 x 2 x)``; workers of accuracy uniform in [0.5, 0.9], their errors
spread evenly; every item labelled by 3 workers drawn at random (300 labels a worker, 3 per
cell of its 10 x 10 matrix).  Each replicate fits ``fit_bayes(data,
model="hierarchical_dawid_skene")`` (2 chains of 1 000 warm-up iterations and 1 000 draws, one
per CPU device) and pushes every draw through ``nc_ece_posterior(data, fit,
kind="top_label")`` (total uncertainty, 90% interval); the population value is
``ClassSimulation.population_ece``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from class_crowd_bias import N_CLASSES, crowd
from class_posterior_coverage import report

import bayescal as bc
from bayescal.bayes import SamplerSettings
from bayescal.exceptions import ChannelWarning, SamplingWarning

N_ITEMS, N_WORKERS, LEVEL = 2000, 20, 0.9
SAMPLER = SamplerSettings(num_chains=2, num_warmup=1000, num_samples=1000, progress=False)


def replicate(seed: int) -> dict:
    """One simulated crowd: the posterior interval and every estimate, with timings."""
    simulation, data, _ = crowd(N_WORKERS, seed, N_ITEMS)
    probabilities = data.probabilities
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        # crowd_em's sparse matrices read high, and say so: counted by the bias, not read here
        warnings.simplefilter("ignore", ChannelWarning)
        start = time.perf_counter()
        fit = bc.fit_bayes(data, model="hierarchical_dawid_skene", sampler=SAMPLER, seed=seed)
        fitted = time.perf_counter()
        posterior = bc.nc_ece_posterior(data, fit, kind="top_label", level=LEVEL, seed=seed)
        pushed = time.perf_counter()
        em = bc.nc_ece_estimate(data, kind="top_label", estimator="crowd_em").estimate
    votes = np.stack([(data.annotations == k).sum(axis=1) for k in range(N_CLASSES)], axis=1)
    return {
        "low": posterior.interval[0],
        "high": posterior.interval[1],
        "median": posterior.median,
        "em": em,
        "majority": bc.expected_calibration_error(votes.argmax(axis=1), probabilities),
        "clean": bc.expected_calibration_error(simulation.labels, probabilities),
        "fit_seconds": fitted - start,
        "push_seconds": pushed - fitted,
        "sampling_warnings": sum(issubclass(w.category, SamplingWarning) for w in caught),
        # which diagnostic a warned fit failed (RHAT_MAX 1.01, ESS_MIN 400, any divergence)
        "max_r_hat": float(fit.diagnostics["r_hat"].max()),
        "min_ess": float(fit.diagnostics[["ess_bulk", "ess_tail"]].min().min()),
        "divergences": int(fit.diagnostics["divergences"].iloc[0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=50)
    parser.add_argument(
        "--first-seed", type=int, default=0, help="seed of the first replicate (to extend a run)"
    )
    parser.add_argument("--rows", help="write every replicate's row to this JSON file")
    args = parser.parse_args()
    target = crowd(N_WORKERS, 0, N_ITEMS)[0].population_ece()
    print(f"population top-label ECE (10 equal bins): {target:.4f}")
    start = time.perf_counter()
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.replicates):
        rows.append(replicate(seed))
        row = rows[-1]
        print(
            f"  replicate {seed}: [{row['low']:.4f}, {row['high']:.4f}] median "
            f"{row['median']:.4f}, EM {row['em']:.4f}; fit {row['fit_seconds']:.0f} s, "
            f"warnings {row['sampling_warnings']} (max R-hat {row['max_r_hat']:.4f}, min ESS "
            f"{row['min_ess']:.0f}, divergences {row['divergences']}); "
            f"{time.perf_counter() - start:.0f} s in all",
            flush=True,
        )
        if args.rows:
            Path(args.rows).write_text(json.dumps(rows))
    values = {key: np.array([row[key] for row in rows]) for key in rows[0]}
    print(
        f"fits with R-hat > 1.01: {int((values['max_r_hat'] > 1.01).sum())}; with an ESS under "
        f"400: {int((values['min_ess'] < 400).sum())}; with a divergence: "
        f"{int((values['divergences'] > 0).sum())}"
    )
    names = ("posterior median (hierarchical model)", "nc_ece_estimate (crowd_em)")
    report(rows, target, LEVEL, "2 000", names)


if __name__ == "__main__":
    main()
