"""Size of ``calibration_test`` with a hierarchical crowd fit (issue 38 item 5).

A calibrated predictor labelled by a crowd: each replicate draws ``bayescal.simulate_crowd``
with the toy's ``calibrated`` condition (H0 true), fits ``hierarchical_dawid_skene`` with NUTS
(2 chains x (500 + 500)) and tests the same items with it (reuse: the sampled-posterior
p-value at one draw of the channels' posterior under H0, each worker under the Priors'
uniform Betas).  The test with the true channels (known, chi-square reference) runs beside it
on the same data.  A test that refuses the replicate (no item informative enough at the fit's posterior
mean) is counted as refused.  Designs, as in ``benchmarks/crowd_coverage.py``:

- ``adversaries``: 1 000 items, 30 workers, 3 labels per item, heavy-tailed workloads (many
  workers under 30 labels), 85% good, 5% spammers, 10% adversarial;
- ``sparse_odd``: 1 000 items, 150 workers, 3 labels per item, heavy-tailed workloads, 80%
  good, 10% spammers, 10% adversarial: most workers have a few labels, where the
  population's prior matters most;
- ``spammers``: 1 000 items, 30 workers, 3 labels per item, uniform workloads (100 labels a
  worker), 90% good, 10% spammers.

The size is the share of replicates with ``p <= 0.05``; its binomial standard error is beside
it.  ``--known-only`` runs the test with the true channels alone (no fit: a second a
replicate), to see the size of the oracle over many seeds.

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/crowd_calibration_test_size.py --replicates 200 --n 1000
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from calibration_test_size import p_value_or_nan
from crowd_coverage import labelled_workers, simulate_design
from replicate_grid import grid_arguments, run_grid

DESIGNS = ("adversaries", "sparse_odd", "spammers")
LEVEL = 0.05


def replicate(design: str, n: int, seed: int, known_only: bool = False) -> dict:
    import bayescal as bc

    crowd = simulate_design(design, seed, n=n, condition="calibrated")
    data, seen = labelled_workers(crowd)
    sampler = bc.SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, seed=seed)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimated = float("nan")
        if not known_only:
            fit = bc.fit_bayes(
                data, model="hierarchical_dawid_skene", sampler=sampler, progress=False
            )
            estimated = p_value_or_nan(data, fit, seed=seed, progress=False)
        true = bc.Channels(
            crowd.channels.a[seen],
            crowd.channels.b[seen],
            adversarial=True,
            names=data.annotator_names,
        )
        known = p_value_or_nan(data, true)
    return {
        "design": design,
        "seed": seed,
        "p_fit": estimated,
        "p_known": known,
        "warned": any("NUTS diagnostics" in str(w.message) for w in caught),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    grid_arguments(parser, DESIGNS, replicates=200)
    parser.add_argument(
        "--known-only", action="store_true", help="the test with the true channels alone"
    )
    args = parser.parse_args()
    frame, seeds = run_grid(replicate, args, args.known_only)
    print(f"n = {args.n}, seeds {seeds.start}-{seeds.stop - 1}, level {LEVEL:.0%}\n")
    print(
        "| design | replicates | size, hierarchical fit (SE) | size, known channels (SE) | "
        "fits warned | s per replicate |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for design, rows in frame.groupby("design", sort=False):
        cells = []
        for column in ("p_fit", "p_known"):
            tested = rows[column].dropna()
            if tested.empty:  # --known-only
                cells.append("—")
                continue
            size = float((tested <= LEVEL).mean())
            refused = len(rows) - len(tested)
            cells.append(
                f"{size:.1%} ({np.sqrt(size * (1 - size) / len(tested)):.1%})"
                + (f", {refused} refused" if refused else "")
            )
        print(
            f"| {design} | {len(rows)} | "
            + " | ".join(cells)
            + f" | {rows['warned'].mean():.0%} | "
            f"{rows['seconds'].median():.1f} |"
        )


if __name__ == "__main__":
    main()
