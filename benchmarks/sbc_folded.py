"""Simulation-based calibration of the flat models under their folded prior (issue 38 item 1).

The flat models hold no annotator to ``a_j < b_j``: each draw is folded onto the population's
orientation (``bayescal.models.orientation``), and ``simulation_based_calibration`` folds its
prior draws the same way.  The test suite runs SBC under informative priors
(``false_positive=(2, 8), sensitivity=(8, 2)``), where an annotator is adversarial a priori
with probability about 0.002; here the priors are flat on the channels, where it is 0.25 to
0.35 (``Priors.adversarial_probability``), so that many simulated panels hold an adversarial
annotator and the fold is exercised.  ``prevalence=(2, 2)`` keeps the classes from vanishing.

    XLA_FLAGS=--xla_force_host_platform_device_count=1 \
        .venv/bin/python benchmarks/sbc_folded.py --simulations 200
"""

from __future__ import annotations

import argparse
import time
import warnings

import bayescal as bc

#: model -> its layout (the suite's SBC tests use the same ones)
DESIGNS = {
    "dawid_skene": {"n_items": 2000, "n_annotators": 3},
    "hui_walter": {"n_items": 2000, "n_annotators": 3, "n_groups": 2},
    "shared_difficulty": {"n_items": 2000, "n_annotators": 4},
    "dawid_skene, a dependent pair": {
        "n_items": 2000,
        "n_annotators": 4,
        "dependent": ("a0", "a1"),
    },
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    arguments = parser.parse_args()
    priors = bc.Priors(prevalence=(2.0, 2.0))
    print(
        f"| model | K | P(adversarial) a priori | simulations | smallest p (Bonferroni {0.01:g}) | passed | time |"
    )
    print("|---|---:|---:|---:|---:|---|---:|")
    for name, layout in DESIGNS.items():
        model = name.split(",")[0]
        start = time.perf_counter()
        with warnings.catch_warnings():
            # short single chains on weakly identified panels: the ranks, not the diagnostics
            warnings.simplefilter("ignore", bc.SamplingWarning)
            result = bc.simulation_based_calibration(
                model=model,
                n_simulations=arguments.simulations,
                priors=priors,
                seed=arguments.seed,
                **layout,
            )
        adversarial = priors.adversarial_probability(layout["n_annotators"])
        print(
            f"| {name} | {layout['n_annotators']} | {adversarial:.2f} | {arguments.simulations} | "
            f"{result.p_values.min():.4f} ({result.p_values.idxmin()}) | "
            f"{'yes' if result.passed else 'no'} | {time.perf_counter() - start:.0f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
