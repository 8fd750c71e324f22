"""How the Dirichlet prior of the multi-class model moves the posterior NC-ECE of a small
10-class panel (issue 39).

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \\
        benchmarks/class_panel_prior_bias.py [--replicates 6]

The design: n = 1 000 items of C = 10 equally common classes, features ``2 e_y + N(0, I)``, the
classifier ``softmax(1.6 x 2 x)`` (``bayescal.simulate.simulate_classes``); three judges of
accuracies 0.8, 0.7 and 0.6, errors spread evenly, answering every item (about 100 labels per
confusion row).  Per replicate and prior: ``fit_bayes`` (4 chains of 1 000 + 1 000), then
``nc_ece_posterior(data, fit)`` (top-label, 500 draws, 90% interval); beside them the EM
estimate.  Reported: bias of the posterior median, coverage of the population value, and the
prior's pseudo-counts per row as a share of a row's labels plus them.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import bayescal as bc
from bayescal.bayes import ClassPriors
from bayescal.exceptions import ChannelWarning

N_ITEMS, N_CLASSES = 1000, 10
JUDGES = np.stack([bc.simulate.graded_confusion(N_CLASSES, a, spread=1e6) for a in (0.8, 0.7, 0.6)])
PRIORS = {
    "flat rows (1, 1)": ClassPriors(),
    "rows (1, 0.1)": ClassPriors(confusion=(1.0, 0.1)),
}


def simulate(seed: int):
    return bc.simulate.simulate_classes(N_ITEMS, JUDGES, separation=2.0, sharpness=1.6, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=6)
    args = parser.parse_args()
    target = simulate(0).population_ece()
    print(f"population top-label ECE (10 equal bins): {target:.4f}\n")
    print("| estimate | prior share of a row | bias | covered | seconds per replicate |")
    print("|---|---:|---:|---:|---:|")
    em = []
    for name, priors in PRIORS.items():
        start = time.perf_counter()
        medians, covered = [], []
        for seed in range(args.replicates):
            data = simulate(seed).data
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ChannelWarning)  # the shrinkage, measured here
                fit = bc.fit_bayes(data, priors=priors, seed=seed, progress=False)
                posterior = bc.nc_ece_posterior(data, fit, max_draws=500)
                if name == next(iter(PRIORS)):
                    em.append(bc.nc_ece_estimate(data).estimate)
            medians.append(posterior.median)
            covered.append(posterior.interval[0] <= target <= posterior.interval[1])
        mass = priors.confusion[0] + (N_CLASSES - 1) * priors.confusion[1]
        share = mass / (mass + N_ITEMS / N_CLASSES)
        seconds = (time.perf_counter() - start) / args.replicates
        print(
            f"| posterior median, {name} | {share:.1%} | {np.mean(medians) - target:+.4f} | "
            f"{np.mean(covered):.0%} | {seconds:.0f} |",
            flush=True,
        )
    print(f"| nc_ece_estimate (EM) | - | {np.mean(em) - target:+.4f} | - | - |")


if __name__ == "__main__":
    main()
