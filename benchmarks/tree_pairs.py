"""Simulation-based calibration of Dawid–Skene with dependent pairs that share an annotator
(issue 38, item 4c): six annotators, the tree a0 ~ a1 ~ a2 and the lone pair a3 ~ a4, every
parameter drawn from the prior (each pair's covariances uniform within its bounds), ranked
among the thinned draws of a NUTS fit (Talts et al. 2018), with the suite's sampler settings.

    .venv/bin/python benchmarks/tree_pairs.py [--simulations 200] [--seed 38]

Prints each parameter's chi-square p-value of uniform ranks and whether all pass at the
family-wise level 0.01 (Bonferroni over the parameters), as ``simulation_based_calibration``
decides.
"""

from __future__ import annotations

import argparse
import time

from bayescal.studies import simulation_based_calibration

PAIRS = [("a0", "a1"), ("a1", "a2"), ("a3", "a4")]
#: The suite's settings (tests/studies/test_sbc.py): 49 kept draws a fit.
SETTINGS = {"num_warmup": 300, "num_samples": 245, "thin": 5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    start = time.perf_counter()
    result = simulation_based_calibration(
        model="dawid_skene",
        n_simulations=args.simulations,
        n_annotators=6,
        dependent=PAIRS,
        **SETTINGS,
        seed=args.seed,
    )
    seconds = time.perf_counter() - start
    p_values = result.p_values.sort_values()
    print(
        f"{args.simulations} simulations, seed {args.seed}, {len(p_values)} parameters, "
        f"{seconds:.0f} s; passed: {result.passed}\n"
    )
    print("| parameter | p-value |\n|---|---:|")
    for name, value in p_values.items():
        print(f"| {name} | {value:.3f} |")


if __name__ == "__main__":
    main()
