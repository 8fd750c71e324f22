"""Simulation-based calibration of the multi-class Dawid–Skene models (issue 39 item 3).

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \\
        .venv/bin/python benchmarks/class_sbc.py [--simulations 200] [--designs 3 4]

``bayescal.studies.simulation_based_calibration(n_classes=...)`` draws confusion rows and class
proportions from the Dirichlet priors, simulates every judge's answer to every item, fits one
chain (500 warm-up iterations, 1 000 draws thinned by 10) and ranks each true parameter among
the 100 kept draws; the true parameters are relabelled as the draws are
(``bayescal.models.relabelling``), so the ranks test the posterior under the relabelled prior.
Under flat Dirichlet rows (``ClassPriors()``) many simulated judges are near chance and some
adversarial, which exercises the relabelling; under ``confusion=(4, 1)`` the judges are
better than chance.  The crowd model (``model="hierarchical_dawid_skene"``) draws its
population, every worker's matrix and the proportions from the program's own prior, each item
labelled by 3 workers drawn at random.  Each design's ranks are tested for uniformity per parameter (chi-square,
10 bins) at family-wise level 0.01 (Bonferroni).
"""

from __future__ import annotations

import argparse
import time

from bayescal.bayes import ClassPriors
from bayescal.studies import simulation_based_calibration

#: name -> the study's layout and priors
DESIGNS = {
    "C = 3, flat rows, 3 judges, 500 items": {
        "model": "dawid_skene",
        "n_classes": 3,
        "n_annotators": 3,
        "n_items": 500,
        "priors": ClassPriors(),
    },
    "C = 3, rows (4, 1), 3 judges, 500 items": {
        "model": "dawid_skene",
        "n_classes": 3,
        "n_annotators": 3,
        "n_items": 500,
        "priors": ClassPriors(confusion=(4, 1), proportion=2),
    },
    "C = 5, rows (4, 1), 3 judges, 1000 items": {
        "model": "dawid_skene",
        "n_classes": 5,
        "n_annotators": 3,
        "n_items": 1000,
        "priors": ClassPriors(confusion=(4, 1), proportion=2),
    },
    "crowd model, C = 3, 10 workers, 300 items, 3 labels each": {
        "model": "hierarchical_dawid_skene",
        "n_classes": 3,
        "n_annotators": 10,
        "n_items": 300,
    },
    "crowd model, C = 5, 15 workers, 500 items, 3 labels each": {
        "model": "hierarchical_dawid_skene",
        "n_classes": 5,
        "n_annotators": 15,
        "n_items": 500,
    },
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument(
        "--designs", nargs="*", type=int, help="which designs (0-based); all by default"
    )
    args = parser.parse_args()
    print(
        "| design | simulations | parameters | smallest p | Bonferroni limit | passed | seconds |"
    )
    print("|---|---:|---:|---:|---:|---|---:|")
    for seed, (name, design) in enumerate(DESIGNS.items()):
        if args.designs and seed not in args.designs:
            continue
        start = time.perf_counter()
        result = simulation_based_calibration(
            **design, labels_per_item=3, n_simulations=args.simulations, seed=seed
        )
        limit = result.family_level / result.p_values.size
        print(
            f"| {name} | {args.simulations} | {result.p_values.size} | "
            f"{result.p_values.min():.4f} | {limit:.6f} | "
            f"{'yes' if result.passed else 'no'} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
