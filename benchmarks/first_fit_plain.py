"""The plain NumPyro script bayescal's first fit is measured against (issue 15).

What a user writes by hand for Bayesian Dawid–Skene on pattern counts: flat priors, the count
likelihood, ``MCMC(NUTS)`` with parallel chains on host devices (the device count is set before
JAX starts, as ``bayescal``'s command does).  Run by ``benchmarks/first_fit.py`` in a fresh
process; prints the seconds from its first line to the end of sampling.
"""

import time

START = time.perf_counter()

import numpyro  # noqa: E402

numpyro.set_host_device_count(2)
numpyro.enable_x64()

import jax.numpy as jnp  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from caries import CARIES_COUNTS, CARIES_PATTERNS  # noqa: E402
from jax import random  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402


def model(patterns, counts):
    k = patterns.shape[1]
    a = numpyro.sample("a", dist.Uniform(0, 1).expand([k]))
    b = numpyro.sample("b", dist.Uniform(0, 1).expand([k]))
    prevalence = numpyro.sample("prevalence", dist.Uniform(0, 1))
    positive = jnp.prod(jnp.where(patterns, b, 1 - b), axis=1)
    negative = jnp.prod(jnp.where(patterns, a, 1 - a), axis=1)
    numpyro.factor("counts", counts @ jnp.log(prevalence * positive + (1 - prevalence) * negative))


mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000, num_chains=2,
            chain_method="parallel", progress_bar=False)  # fmt: skip
mcmc.run(random.PRNGKey(0), jnp.asarray(CARIES_PATTERNS), jnp.asarray(CARIES_COUNTS, float))
mcmc.get_samples()["a"].block_until_ready()
print(f"first fit {time.perf_counter() - START:.3f}")
