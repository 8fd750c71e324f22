"""Why the hierarchical crowd model's default fits warn, and what NUTS settings change it
(issue 38, item 2: "make the defaults converge on these designs").

Each replicate fits ``hierarchical_dawid_skene`` with the default sampler (4 chains x (1000 +
2000) at target acceptance 0.99) to a crowd of ``crowd_coverage.py`` and records whether the fit
warned (R-hat > 1.01, bulk or tail ESS < 400, or a divergent transition), its divergences,
largest R-hat, smallest bulk and tail ESS with the parameter they belong to, and the seconds the
fit took (compiling included: every variant compiles afresh, since the compiled-sampler cache
knows the program's files, not the settings a variant changes for this process). The variants:

- ``shipped``: as ``fit_bayes`` runs it;
- ``accept``: NUTS's target acceptance ``--target-accept`` (default 0.95) instead of 0.99;
- ``dense``: a dense mass matrix (every sampled dimension) and target acceptance 0.95;
- ``block``: a dense block for the population's sites and the class proportion, the workers
  diagonal, and target acceptance 0.95 (a dense matrix costs O(d^2) a step and memory, which
  thousands of workers cannot pay);
- ``noncentred``: every worker non-centred (the model's ``CENTRING_LABELS`` infinite: every
  worker's weight of the centred form 0);
- ``randomgap``: the population gap starts at random, not at 2 logits;
- ``halfnormalspread``: a change to the model, not to the sampler: the workers' spreads get the
  prior HalfNormal(1.5) in place of the boundary-avoiding Gamma(2, 2).

The defaults before 2026-12-07 (HalfNormal(1.5), the gap started at random, target acceptance
0.8, 1 000 kept draws) are ``--variant halfnormalspread randomgap accept --target-accept 0.8
--samples 1000``; the sections of benchmarks/RESULTS.md from before that date call that
``shipped`` and name today's defaults as variants (``gapstart``, ``gammaspread``, ``accept``
at 0.99 with ``--samples 2000``).

Variants combine (``--variant noncentred accept``); ``--samples`` sets the draws a chain keeps
(default the model's, 2 000); ``--centring-labels N0`` gives worker ``j`` the weight ``n_j /
(n_j + N0)`` of the centred form (the model's ``CENTRING_LABELS``, shipped 120; sections of
benchmarks/RESULTS.md name it ``--variant partial --partial-labels N0``, from before the form
was shipped on 2026-12-07, when workers of 30 labels or more were centred and the others not:
that rule is this script's ``--centred-labels 30`` at commit 15e7149); ``--seeds`` names the
seeds in place of ``--replicates``.  Each row also records the mean leapfrog steps of an
iteration, and how many times the chains were continued because R-hat or ESS fell short
(``SamplerSettings.extensions``: at the model's length, up to twice; never at ``--samples``).
The table's columns: variant, draws, design, fits warned, fits with divergences, fits warned
for a chain in the mirror image only, fits extended, median smallest bulk ESS, mean leapfrog
steps, seconds a fit.

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \
        benchmarks/hierarchical_sampler_variants.py --variant shipped \
        --designs spammers adversaries --replicates 10
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
import warnings

import numpy as np
from crowd_coverage import DESIGNS, labelled_workers, simulate_design

VARIANTS = (
    "shipped",
    "accept",
    "dense",
    "block",
    "noncentred",
    "randomgap",
    "halfnormalspread",
)
#: The population's sites and the class proportion, the dense block of ``block``.
POPULATION_BLOCK = (
    "population_mean_a",
    "population_gap",
    "population_spread",
    "population_correlation_half",
    "population_random_share",
    "prevalence",
)
MODEL = "hierarchical_dawid_skene"


def use_variant(variant: str, target_accept: float = 0.95) -> None:
    """Change the sampler of this process to ``variant`` (module docstring)."""
    os.environ["BAYESCAL_CACHE_DIR"] = "off"
    import bayescal.bayes.sampler as sampler
    from bayescal.bayes import registry

    if variant in ("accept", "dense", "block"):
        registry.MODELS[MODEL] = dataclasses.replace(
            registry.MODELS[MODEL], target_accept=target_accept
        )
    if variant in ("dense", "block"):
        kernels = sampler.hmc

        def hmc(*args, **kwargs):
            init_kernel, sample_kernel = kernels(*args, **kwargs)

            def dense_init(z, *rest, **options):
                mass = [tuple(name for name in POPULATION_BLOCK if name in z)]
                return init_kernel(z, *rest, dense_mass=variant == "dense" or mass, **options)

            return dense_init, sample_kernel

        sampler.hmc = hmc
    if variant == "randomgap":
        del sampler.START_VALUES["population_gap"]
    if variant == "halfnormalspread":
        import sys

        import numpyro.distributions as dist

        # the program's module (bayescal.models exports a function of the same name)
        model = sys.modules["bayescal.models.hierarchical_dawid_skene"]
        model.spread_prior = lambda: dist.HalfNormal(1.5)
    if variant == "noncentred":
        set_centring_labels(np.inf)


def set_centring_labels(labels: float) -> None:
    """Give each worker of this process's hierarchical fits the weight ``n_j / (n_j + labels)``
    of the centred form."""
    import sys

    # the program's module (bayescal.models exports a function of the same name)
    sys.modules["bayescal.models.hierarchical_dawid_skene"].CENTRING_LABELS = labels


def replicate(design: str, seed: int, num_samples: int) -> dict:
    import bayescal as bc

    data, _ = labelled_workers(simulate_design(design, seed))
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = bc.fit_bayes(data, model=MODEL, num_samples=num_samples, seed=seed, progress=False)
    seconds = time.perf_counter() - start
    diagnostics = fit.diagnostics
    return {
        "design": design,
        "seed": seed,
        "warned": any(issubclass(w.category, bc.SamplingWarning) for w in caught),
        # the sampler's one line when it leaves out a chain in the mirror image
        "mirrored": any("mirror image" in str(w.message) for w in caught),
        "divergences": int(diagnostics.divergences.iloc[0]),
        "max_r_hat": diagnostics.r_hat.max(),
        "min_ess_bulk": diagnostics.ess_bulk.min(),
        "min_ess_tail": diagnostics.ess_tail.min(),
        "weakest": diagnostics.ess_bulk.idxmin(),
        # times the chains were continued because R-hat or ESS fell short (0 at --samples)
        "extensions": int(fit.run["extensions"]),
        "steps": float(fit.idata.sample_stats["n_steps"].mean()),
        "seconds": seconds,
    }


def failed_diagnostics(row: dict) -> bool:
    """Whether the fit's R-hat, ESS or divergences failed (a fit that warned without failing
    them warned for a chain in the mirror image only)."""
    from bayescal.bayes.bayes_fit import ESS_MIN, RHAT_MAX

    return (
        row["divergences"] > 0
        or row["max_r_hat"] > RHAT_MAX
        or min(row["min_ess_bulk"], row["min_ess_tail"]) < ESS_MIN
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", nargs="+", choices=VARIANTS, default=["shipped"])
    parser.add_argument("--samples", type=int, help="draws a chain keeps (default: the model's)")
    parser.add_argument(
        "--target-accept", type=float, default=0.95, help="of accept, dense and block"
    )
    parser.add_argument("--designs", nargs="+", choices=list(DESIGNS), default=["spammers"])
    parser.add_argument("--replicates", type=int, default=10, help="seeds 0, 1, ...")
    parser.add_argument("--seeds", type=int, nargs="+", help="these seeds instead")
    parser.add_argument(
        "--centring-labels", type=float, help="N0 of the weight n / (n + N0) (shipped: 120)"
    )
    args = parser.parse_args()
    if "noncentred" in args.variant and args.centring_labels is not None:
        parser.error("--centring-labels: noncentred sets it (infinite); give one of the two")
    for variant in args.variant:
        use_variant(variant, args.target_accept)
    if args.centring_labels is not None:
        os.environ["BAYESCAL_CACHE_DIR"] = "off"
        set_centring_labels(args.centring_labels)
    seeds = args.seeds if args.seeds else range(args.replicates)
    settings = [f"{args.target_accept}"] if {"accept", "dense", "block"} & set(args.variant) else []
    if args.centring_labels is not None:
        settings.append(f"N0 = {args.centring_labels:g}")
    label = " + ".join(args.variant) + (f" ({', '.join(settings)})" if settings else "")
    for design in args.designs:
        rows = []
        for seed in seeds:
            rows.append(replicate(design, seed, args.samples))
            print(" ".join(f"{key}={value}" for key, value in rows[-1].items()), flush=True)
        warned = sum(row["warned"] for row in rows)
        print(
            f"| {label} | {args.samples or 'default'} | {design} | {warned} of {len(rows)} "
            f"| {sum(row['divergences'] > 0 for row in rows)} "
            f"| {sum(row['warned'] and not failed_diagnostics(row) for row in rows)} "
            f"| {sum(row['extensions'] > 0 for row in rows)} "
            f"| {np.median([row['min_ess_bulk'] for row in rows]):.0f} "
            f"| {np.mean([row['steps'] for row in rows]):.0f} "
            f"| {np.mean([row['seconds'] for row in rows]):.1f} |"
        )


if __name__ == "__main__":
    main()
