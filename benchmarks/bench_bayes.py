"""Bayesian Dawid–Skene: the count-based model of bayescal against a per-item-likelihood NumPyro
model of the same family, and the cost of nc_ece_posterior.

Run: ``.venv/bin/python benchmarks/bench_bayes.py`` (prints markdown for benchmarks/RESULTS.md).

- Count-based: ``bayescal.fit_bayes`` (4 chains x (1000 warmup + 1000 draws), compile included)
  at n = 10^3, 10^5, 10^7.
- Per item: the same model and priors with the likelihood summed over items, run through
  ``numpyro.infer.MCMC`` as a user would write it, with the same settings (about half an hour
  at n = 10^7).
- ``nc_ece_posterior`` on the 4000 draws of an n = 10^6 fit, against that fit's NUTS time.

Both fit times include compilation.
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
    """Dawid–Skene with one likelihood term per item (no compression), the channels' prior the
    two Betas, as bayescal's (which folds the draws after sampling)."""
    rates = dist.Beta(prior_params[:2, 0], prior_params[:2, 1]).to_event(1)
    with numpyro.plate("annotator", positive.shape[1]):
        pair = numpyro.sample("channel", rates)
    a, b = pair[:, 0], pair[:, 1]
    prevalence = numpyro.sample("prevalence", dist.Beta(prior_params[2, 0], prior_params[2, 1]))
    log0 = jnp.log1p(-prevalence) + positive @ jnp.log(a) + (1 - positive) @ jnp.log1p(-a)
    log1 = jnp.log(prevalence) + positive @ jnp.log(b) + (1 - positive) @ jnp.log1p(-b)
    numpyro.factor("items", jnp.logaddexp(log0, log1).sum())


def per_item_fit(data, num_chains, num_warmup, num_samples):
    with jax.enable_x64(True):
        positive = jnp.asarray(data.annotations, dtype=jnp.float64)
        mcmc = MCMC(
            NUTS(per_item_model),
            num_warmup=num_warmup,
            num_samples=num_samples,
            num_chains=num_chains,
            chain_method="vectorized",
            progress_bar=False,
        )
        start = time.perf_counter()
        mcmc.run(
            jax.random.PRNGKey(0),
            positive,
            jnp.asarray(bc.Priors().as_array()),
            extra_fields=("num_steps",),
        )
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
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, jax {jax.__version__}, numpyro {numpyro.__version__}\n"
    )

    data = simulate(1_000_000, seed=1)
    count_s, _, fit = count_fit(data)
    start = time.perf_counter()
    result = bc.nc_ece_posterior(data, fit, n_bins=15)
    ece_s = time.perf_counter() - start
    print(
        f"nc_ece_posterior, n = 10^6, {result.draws.size} draws: {ece_s:.2f} s against {count_s:.1f} s for the fit "
        f"({100 * ece_s / count_s:.1f}% of it)\n",
        flush=True,
    )

    print(
        "| n | count-based fit (s) | per-item fit (s) | per-item / count-based | leapfrog steps (count / per item) |"
    )
    print("|---:|---:|---:|---:|---:|")
    times = {}
    for n in (1_000, 100_000, 10_000_000):
        data = simulate(n)
        count_s, count_steps, _ = count_fit(data)
        item_s, item_steps, _ = per_item_fit(data, 4, 1000, 1000)
        times[n] = count_s
        print(
            f"| {n:.0e} | {count_s:.1f} | {item_s:.1f} | {item_s / count_s:.1f}x | {count_steps} / {item_steps} |",
            flush=True,
        )
    print(f"\ncount-based fit time at 10^7 / at 10^3: {times[10_000_000] / times[1_000]:.2f}x")


if __name__ == "__main__":
    main()
