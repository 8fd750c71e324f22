"""Bayesian Dawid–Skene: the count-based model of bayescal against a per-item-likelihood NumPyro
model of the same family, and the cost of posterior_ece.

Run: ``.venv/bin/python benchmarks/bench_bayes.py`` (prints markdown for benchmarks/RESULTS.md).

- Count-based: ``bayescal.fit_bayes`` (4 chains x (1000 warmup + 1000 draws), compile included)
  at n = 10^3, 10^5, 10^7.
- Per item: the same model and priors with the likelihood summed over items, run through
  ``numpyro.infer.MCMC`` as a user would write it.  At n = 10^3 and 10^5 it runs with the same
  settings; at n = 10^7 a full run would take about an hour, so it runs 1 chain x (100 + 100)
  iterations and its full-run time is extrapolated from the measured time per leapfrog step and
  the number of leapfrog steps the count-based fit took (the extrapolation is checked at 10^5,
  where both the measured and the extrapolated times are shown).
- ``posterior_ece`` on the 4000 draws of the n = 10^6 fit, against that fit's NUTS time.
"""

from __future__ import annotations

import platform
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

import bayescal as bc
from bayescal.models import OrientedChannels

A = np.array([0.10, 0.15, 0.20])
B = np.array([0.85, 0.90, 0.80])


def simulate(n: int, seed: int = 0) -> bc.AnnotatedScores:
    rng = np.random.default_rng(seed)
    labels = np.empty((n, 3), dtype=np.int8)
    scores = np.empty(n)
    for start in range(0, n, 1_000_000):
        stop = min(n, start + 1_000_000)
        z = rng.random(stop - start)
        y = rng.random(stop - start) < z
        labels[start:stop] = rng.random((stop - start, 3)) < np.where(y[:, None], B, A)
        scores[start:stop] = z
    return bc.AnnotatedScores(scores, labels)


def per_item_model(positive, prior_params):
    """Dawid–Skene with one likelihood term per item (no compression)."""
    with numpyro.plate("annotator", positive.shape[1]):
        pair = numpyro.sample("channel", OrientedChannels(prior_params[0], prior_params[1]))
    a, b = pair[:, 0], pair[:, 1]
    prevalence = numpyro.sample("prevalence", dist.Beta(prior_params[2, 0], prior_params[2, 1]))
    log0 = jnp.log1p(-prevalence) + positive @ jnp.log(a) + (1 - positive) @ jnp.log1p(-a)
    log1 = jnp.log(prevalence) + positive @ jnp.log(b) + (1 - positive) @ jnp.log1p(-b)
    numpyro.factor("items", jnp.logaddexp(log0, log1).sum())


def per_item_fit(data, num_chains, num_warmup, num_samples):
    with jax.enable_x64(True):
        positive = jnp.asarray(data.annotations, dtype=jnp.float64)
        mcmc = MCMC(NUTS(per_item_model), num_warmup=num_warmup, num_samples=num_samples, num_chains=num_chains,
                    chain_method="vectorized", progress_bar=False)
        start = time.perf_counter()
        mcmc.run(jax.random.PRNGKey(0), positive, jnp.asarray(bc.Priors().as_array()), extra_fields=("num_steps",))
        elapsed = time.perf_counter() - start
        steps = int(np.asarray(mcmc.get_extra_fields()["num_steps"]).sum())
    return elapsed, steps, np.asarray(mcmc.get_samples()["channel"]).mean(axis=0)


def count_fit(data):
    start = time.perf_counter()
    fit = bc.fit_bayes(data, progress=False)
    elapsed = time.perf_counter() - start
    steps = int(fit.idata.sample_stats["n_steps"].values.sum())
    return elapsed, steps, fit


def main() -> None:
    warnings.simplefilter("ignore")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, jax {jax.__version__}, numpyro {numpyro.__version__}\n")
    print("| n | count-based fit (s) | its leapfrog steps | per-item fit (s) | per-item settings | per-item / count-based |")
    print("|---:|---:|---:|---:|---|---:|")
    fits = {}
    for n in (1_000, 100_000, 10_000_000):
        data = simulate(n)
        count_s, count_steps, fit = count_fit(data)
        fits[n] = (data, fit, count_s)
        if n <= 100_000:
            item_s, _, _ = per_item_fit(data, 4, 1000, 1000)
            row = f"| {n:.0e} | {count_s:.1f} | {count_steps} | {item_s:.1f} | 4 x (1000 + 1000), measured | {item_s / count_s:.1f}x |"
            if n == 100_000:
                short_s, short_steps, _ = per_item_fit(data, 1, 100, 100)
                estimate = short_s / short_steps * count_steps
                row += f"\n| {n:.0e} | {count_s:.1f} | {count_steps} | {estimate:.1f} | extrapolated from 1 x (100 + 100) | {estimate / count_s:.1f}x |"
        else:
            short_s, short_steps, _ = per_item_fit(data, 1, 100, 100)
            estimate = short_s / short_steps * count_steps
            row = (
                f"| {n:.0e} | {count_s:.1f} | {count_steps} | {estimate:.0f} | extrapolated from 1 x (100 + 100) "
                f"({short_s:.0f} s for {short_steps} steps) | {estimate / count_s:.0f}x |"
            )
        print(row, flush=True)
    print(f"\ncount-based fit time at 10^7 / at 10^3: {fits[10_000_000][2] / fits[1_000][2]:.2f}x")

    data = simulate(1_000_000, seed=1)
    count_s, _, fit = count_fit(data)
    start = time.perf_counter()
    result = bc.posterior_ece(fit, data, n_bins=15)
    ece_s = time.perf_counter() - start
    print(
        f"\nposterior_ece, n = 10^6, {result.draws.size} draws: {ece_s:.2f} s against {count_s:.1f} s for the fit "
        f"({100 * ece_s / count_s:.1f}% of it)"
    )


if __name__ == "__main__":
    main()
