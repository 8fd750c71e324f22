"""Coverage of the posterior top-label NC-ECE of a multi-class panel (issue 39's first coverage
target), with bias and RMSE beside the majority vote's ECE.

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \\
        benchmarks/class_posterior_coverage.py [--replicates 200]

The design (``bayescal.simulate.simulate_classes``): C = 5 classes in proportions
``PROPORTION``; an item of class ``y`` has features ``z = MU e_y + N(0, I)``, whose true class
posterior is ``q(y | z) ∝ pi_y exp(MU z_y)``; the predictor says ``softmax(2 MU z)``
(overconfident, and blind to the class proportions).  Three judges answer with the fixed
confusion matrices ``JUDGES`` (accuracies 0.8, 0.7, 0.6, their errors spread by a seeded
Dirichlet).  The population value is the top-label ECE with 10 equal bins of the predictor
over ``POPULATION_ITEMS`` feature draws, each bin's accuracy the mean of ``q(yhat | z)`` (no
label noise in it).

Each replicate draws n = 10 000 items, fits ``fit_bayes(data)`` (4 chains of 1 000 warm-up
iterations and 1 000 draws), and pushes every draw through ``nc_ece_posterior(data, fit,
kind="top_label")`` (total uncertainty, 90% interval).  Reported: how often the interval holds
the population value, with its binomial standard error; bias and RMSE of the posterior median,
of the EM estimate ``nc_ece_estimate(data, kind="top_label")``, of the majority vote's ECE (ties
to the first class) and of the ECE against the true classes; the seconds per fit.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import bayescal as bc
from bayescal.exceptions import SamplingWarning

N_ITEMS, N_CLASSES, MU = 10_000, 5, 1.5
PROPORTION = np.array([0.35, 0.25, 0.2, 0.12, 0.08])
POPULATION_ITEMS = 4_000_000
LEVEL = 0.9


def judges() -> np.ndarray:
    """Three confusion matrices of accuracies 0.8, 0.7 and 0.6, each row's errors spread by a
    Dirichlet(2) drawn once (seed 0)."""
    rng = np.random.default_rng(0)
    matrices = np.empty((3, N_CLASSES, N_CLASSES))
    for j, accuracy in enumerate((0.8, 0.7, 0.6)):
        for y in range(N_CLASSES):
            errors = rng.dirichlet(np.full(N_CLASSES - 1, 2.0)) * (1 - accuracy)
            matrices[j, y] = np.insert(errors, y, accuracy)
    return matrices


JUDGES = judges()


def simulate(seed: int):
    """One panel of the design (``bayescal.simulate.simulate_classes``)."""
    return bc.simulate.simulate_classes(
        N_ITEMS, JUDGES, proportion=PROPORTION, separation=MU, sharpness=2.0, seed=seed
    )


def replicate(seed: int) -> dict:
    """One simulated panel: the posterior interval and every estimate, with timings."""
    simulation = simulate(seed)
    data, classes, probabilities = simulation.data, simulation.labels, simulation.data.probabilities
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        start = time.perf_counter()
        fit = bc.fit_bayes(data, seed=seed, progress=False)
        fitted = time.perf_counter()
        posterior = bc.nc_ece_posterior(data, fit, kind="top_label", level=LEVEL, seed=seed)
        pushed = time.perf_counter()
    votes = np.stack([(data.annotations == k).sum(axis=1) for k in range(N_CLASSES)], axis=1)
    return {
        "low": posterior.interval[0],
        "high": posterior.interval[1],
        "median": posterior.median,
        "em": bc.nc_ece_estimate(data, kind="top_label").estimate,
        "majority": bc.expected_calibration_error(votes.argmax(axis=1), probabilities),
        "clean": bc.expected_calibration_error(classes, probabilities),
        "fit_seconds": fitted - start,
        "push_seconds": pushed - fitted,
        "sampling_warnings": sum(issubclass(w.category, SamplingWarning) for w in caught),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    args = parser.parse_args()
    target = simulate(0).population_ece(n_draws=POPULATION_ITEMS)
    print(f"population top-label ECE (10 equal bins): {target:.4f}")
    start = time.perf_counter()
    rows = []
    for seed in range(args.replicates):
        rows.append(replicate(seed))
        if (seed + 1) % 20 == 0:
            print(f"  {seed + 1} replicates, {time.perf_counter() - start:.0f} s", flush=True)
    report(rows, target, LEVEL, "4 000", ("posterior median (fit_bayes)", "nc_ece_estimate (EM)"))


def report(rows: list, target: float, level: float, draws: str, names: tuple) -> None:
    """Print the coverage of the replicates' intervals ``rows`` (dicts of ``low``, ``high``,
    ``median``, ``em``, ``majority``, ``clean``, timings and warnings) of ``target``, the
    timings, and the bias and RMSE table, the posterior median and the EM estimate named by
    ``names``."""
    values = {key: np.array([row[key] for row in rows]) for key in rows[0]}
    covered = (values["low"] <= target) & (target <= values["high"])
    share = covered.mean()
    print(
        f"\n{covered.size} replicates; {level:.0%} interval holds the population value in "
        f"{share:.1%} (binomial SE {np.sqrt(share * (1 - share) / covered.size):.1%}); mean "
        f"width {np.mean(values['high'] - values['low']):.4f}; fits with a sampling warning: "
        f"{int((values['sampling_warnings'] > 0).sum())}"
    )
    print(
        f"seconds per fit: median {np.median(values['fit_seconds']):.2f} (first, compiling: "
        f"{values['fit_seconds'][0]:.2f}); per push-through of {draws} draws: median "
        f"{np.median(values['push_seconds']):.2f}\n"
    )
    print("| estimate | bias | RMSE |")
    print("|---|---:|---:|")
    for key, name in (
        ("median", names[0]),
        ("em", names[1]),
        ("majority", "majority vote's ECE"),
        ("clean", "ECE against the true classes"),
    ):
        error = values[key] - target
        print(f"| {name} | {error.mean():+.4f} | {np.sqrt(np.mean(error**2)):.4f} |")


if __name__ == "__main__":
    main()
