"""Simulation-based calibration of the models with dependent pairs added by issue 38 (item 4c),
every parameter drawn from the prior (each pair's share uniform on (0, 1)) and
ranked among the thinned draws of a NUTS fit (Talts et al. 2018), with the suite's sampler
settings:

- ``tree``: Dawid–Skene, six annotators, the tree a0 ~ a1 ~ a2 (pairs that share a1) and the
  lone pair a3 ~ a4;
- ``cycle``: Dawid–Skene, six annotators, the triangle a0 ~ a1 ~ a2 ~ a0, whose log-linear
  joint has each pair's conditional log odds ratio ``J = 2 logit t ~ Logistic(0, 2)``
  (:mod:`bayescal.channels.cyclic_joint`; the covariances it sets ranked too);
- ``crowd``: the hierarchical crowd model, six workers, 300 items of four labels each, the
  pair w0 ~ w1 (the population's parameters ranked too);
- ``crowd, no pair``: the same crowd without the pair, the control that tells the pair's
  effect from the hierarchical model's own.

    .venv/bin/python benchmarks/dependent_pairs_sbc.py [--design DESIGN] [--simulations 200] [--seed 38] [--warmup 300]

``--variant`` (crowd designs) fits and simulates the hierarchical model with a variant of
``hierarchical_sampler_variants.py`` (e.g. ``halfnormalspread``, whose prior the simulations then
draw from), with ``--target-accept``.

Prints each parameter's chi-square p-value of uniform ranks and whether all pass at the
family-wise level 0.01 (Bonferroni over the parameters), as ``simulation_based_calibration``
decides.
"""

from __future__ import annotations

import argparse
import time

from hierarchical_sampler_variants import VARIANTS, use_variant

from bayescal.studies import simulation_based_calibration

DESIGNS = {
    "tree": {
        "model": "dawid_skene",
        "n_annotators": 6,
        "dependent": [("a0", "a1"), ("a1", "a2"), ("a3", "a4")],
    },
    "cycle": {
        "model": "dawid_skene",
        "n_annotators": 6,
        "dependent": [("a0", "a1"), ("a1", "a2"), ("a0", "a2")],
    },
    "crowd": {
        "model": "hierarchical_dawid_skene",
        "n_annotators": 6,
        "n_items": 300,
        "labels_per_item": 4,
        "dependent": ("w0", "w1"),
    },
}
DESIGNS["crowd, no pair"] = {**DESIGNS["crowd"], "dependent": None}
#: The suite's settings (tests/studies/test_sbc.py): 49 kept draws a fit.
SETTINGS = {"num_warmup": 300, "num_samples": 245, "thin": 5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", choices=sorted(DESIGNS), default="tree")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--warmup", type=int, default=SETTINGS["num_warmup"])
    parser.add_argument("--variant", nargs="+", default=[], choices=VARIANTS)
    parser.add_argument("--target-accept", type=float, default=0.95)
    args = parser.parse_args()
    for variant in args.variant:
        use_variant(variant, args.target_accept)
    start = time.perf_counter()
    result = simulation_based_calibration(
        **DESIGNS[args.design],
        n_simulations=args.simulations,
        **{**SETTINGS, "num_warmup": args.warmup},
        seed=args.seed,
    )
    seconds = time.perf_counter() - start
    p_values = result.p_values.sort_values()
    limit = 0.01 / len(p_values)
    print(
        f"{args.design}{''.join(f' + {v}' for v in args.variant)}: {args.simulations} "
        f"simulations, seed {args.seed}, {args.warmup} "
        f"warm-up iterations, {len(p_values)} "
        f"parameters, {seconds:.0f} s; smallest p {p_values.iloc[0]:.4f} against the "
        f"Bonferroni limit {limit:.5f}; passed: {result.passed}\n"
    )
    print("| parameter | p-value |\n|---|---:|")
    for name, value in p_values.items():
        print(f"| {name} | {value:.3f} |")


if __name__ == "__main__":
    main()
