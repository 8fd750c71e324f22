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
- ``noncentred``: every worker non-centred (none reaches the centring threshold);
- ``randomgap``: the population gap starts at random, not at 2 logits;
- ``halfnormalspread``: a change to the model, not to the sampler: the workers' spreads get the
  prior HalfNormal(1.5) in place of the boundary-avoiding Gamma(2, 2).
- ``partial``: a change to the program's parametrisation, not to the model: every sampled worker
  partially non-centred (Papaspiliopoulos, Roberts and Sköld 2007), ``x_j = mu + s^(1 - l_j)
  (x~_j - l_j mu)`` with ``l_j = n_j / (n_j + N0)`` (``--partial-labels N0``, default 120)
  and ``x~_j`` in the centred workers' (centre, gap) coordinates (benchmarks/RESULTS.md, "A
  partially non-centred form").

The defaults before 2026-12-07 (HalfNormal(1.5), the gap started at random, target acceptance
0.8, 1 000 kept draws) are ``--variant halfnormalspread randomgap accept --target-accept 0.8
--samples 1000``; the sections of benchmarks/RESULTS.md from before that date call that
``shipped`` and name today's defaults as variants (``gapstart``, ``gammaspread``, ``accept``
at 0.99 with ``--samples 2000``).

Variants combine (``--variant noncentred accept``); ``--samples`` sets the draws a chain keeps
(default the model's, 2 000);
``--centred-labels N`` centres the workers of at least N labels (``ResponseDesign``'s rule,
whose default is 30); ``--seeds`` names the seeds in place of ``--replicates``.  Each row also
records the mean leapfrog steps of an iteration.

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
    "partial",
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


def use_variant(variant: str, target_accept: float = 0.95, partial_labels: float = 120) -> None:
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
        centre_from(np.iinfo(int).max)
    if variant == "partial":
        partially_non_centred(partial_labels)


def partially_non_centred(n0: float) -> None:
    """Sample every worker of this process's hierarchical fits partially non-centred, with the
    weight ``n_j / (n_j + n0)`` of the centred form (module docstring).  The sampled site is a
    Normal(0, I) whose density a factor takes out again, so that shapes can still be drawn;
    the factor then gives ``x~``'s density, the population's at ``x`` times the Jacobian
    ``prod_k s_k^(1 - l_j)`` (the (centre, gap) map has Jacobian 1)."""
    import sys

    import bayescal.models
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist

    model = sys.modules["bayescal.models.hierarchical_dawid_skene"]
    shipped_logits, shipped_program = model._worker_logits, model.hierarchical_dawid_skene
    counts_of_call = []

    def partial_logits(population, design, prior_predictive):
        if prior_predictive:  # the prior predictive draws every worker from the population
            return shipped_logits(population, design, prior_predictive)
        n_workers, n_sampled = design.n_annotators, design.n_annotators - design.n_summed_out
        given = design.codes < 2 * n_workers
        items = jnp.broadcast_to(counts_of_call[-1][:, None], design.codes.shape) * given
        labels = jnp.zeros(n_workers + 1).at[jnp.where(given, design.codes // 2, n_workers)]
        labels = labels.add(items)[:n_workers]
        # each worker's labels in the sampled order (the summed-out workers' row dropped)
        labels = jnp.zeros(n_workers + 1).at[design.position].set(labels)[:n_sampled, None]
        weight = labels / (labels + n0)
        mean, spread = population.informative.location, population.informative.spread
        base = dist.Normal(0.0, 1.0).expand([2]).to_event(1)
        with numpyro.plate("partial_worker", n_sampled):
            w = numpyro.sample("channel_partial", base)
        x = mean + spread ** (1.0 - weight) * (model.from_centre_gap(w) - weight * mean)
        numpyro.factor(
            "partial_population",
            population.log_prob(x).sum()
            + ((1.0 - weight) * jnp.log(spread)).sum()
            - base.log_prob(w).sum(),
        )
        parts = [x]
        if n_sampled < n_workers:
            rates = model.population_mean_channel(mean, spread, population.share)
            parts.append(jnp.log(rates / (1.0 - rates))[None, :])
        return jnp.concatenate(parts)[design.position]

    def program(design, prior_params, counts=None):
        counts_of_call.append(counts)  # the rows' counts, which weigh each worker's labels
        return shipped_program(design, prior_params, counts)

    model._worker_logits = partial_logits
    bayescal.models.hierarchical_dawid_skene = program  # where the registry finds programs
    bayescal.models.START_VALUES["channel_partial"] = (0.0, 2.0)  # oriented, as the centred


def centre_from(labels: int) -> None:
    """Centre the workers of at least ``labels`` labels in this process."""
    from bayescal.models.response_design import ResponseDesign

    ResponseDesign.from_responses.__func__.__kwdefaults__["centred_labels"] = labels


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
    parser.add_argument("--centred-labels", type=int, help="centre the workers of this many")
    parser.add_argument(
        "--partial-labels", type=float, default=120.0, help="N0 of partial (default 120)"
    )
    args = parser.parse_args()
    for variant in args.variant:
        use_variant(variant, args.target_accept, args.partial_labels)
    if args.centred_labels is not None:
        os.environ["BAYESCAL_CACHE_DIR"] = "off"
        centre_from(args.centred_labels)
    seeds = args.seeds if args.seeds else range(args.replicates)
    settings = [f"{args.target_accept}"] if {"accept", "dense", "block"} & set(args.variant) else []
    if args.centred_labels is not None:
        settings.append(f"centred from {args.centred_labels} labels")
    if "partial" in args.variant:
        settings.append(f"N0 = {args.partial_labels:g}")
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
            f"| {np.median([row['min_ess_bulk'] for row in rows]):.0f} "
            f"| {np.mean([row['steps'] for row in rows]):.0f} "
            f"| {np.mean([row['seconds'] for row in rows]):.1f} |"
        )


if __name__ == "__main__":
    main()
