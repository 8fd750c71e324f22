"""The straightforward NumPyro script bayescal's hierarchical fit is measured against (issue 17).

What a user writes by hand for a hierarchical Dawid–Skene model of a crowd: the same population
as ``bayescal.models.hierarchical_dawid_skene`` (correlated normal on (logit a_j, logit b_j),
population mean gap > 0, the same hyperpriors), every worker non-centred, the likelihood on the
flat responses with ``jax.ops.segment_sum`` over items, ``MCMC(NUTS)`` with parallel chains on
host devices, float64.  Run by ``benchmarks/hierarchical_fit.py`` in a fresh process; prints
the seconds from its first line to the end of sampling, and its diagnostics.

    python benchmarks/hierarchical_reference.py ITEMS WORKERS LABELS_PER_ITEM CHAINS
"""

import sys
import time

START = time.perf_counter()

import numpyro  # noqa: E402

numpyro.set_host_device_count(2)
numpyro.enable_x64()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from numpyro.diagnostics import summary  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

import bayescal as bc  # noqa: E402  (the simulated crowd only)


def model(item, worker, label, n_items, n_workers):
    mean_a = numpyro.sample("mean_a", dist.Normal(-1.5, 1.5))
    gap = numpyro.sample("gap", dist.HalfNormal(3.0))
    spread = numpyro.sample("spread", dist.Gamma(2.0, 2.0).expand([2]).to_event(1))
    rho = 2 * numpyro.sample("half", dist.Beta(2.0, 2.0)) - 1
    with numpyro.plate("worker", n_workers):
        z = numpyro.sample("z", dist.Normal(0, 1).expand([2]).to_event(1))
    logit_a = mean_a + spread[0] * z[:, 0]
    logit_b = mean_a + gap + spread[1] * (rho * z[:, 0] + jnp.sqrt(1 - rho**2) * z[:, 1])
    numpyro.deterministic("a", jax.nn.sigmoid(logit_a))
    numpyro.deterministic("b", jax.nn.sigmoid(logit_b))
    prevalence = numpyro.sample("prevalence", dist.Beta(1.0, 1.0))
    log_a = jnp.where(
        label == 1, jax.nn.log_sigmoid(logit_a[worker]), jax.nn.log_sigmoid(-logit_a[worker])
    )
    log_b = jnp.where(
        label == 1, jax.nn.log_sigmoid(logit_b[worker]), jax.nn.log_sigmoid(-logit_b[worker])
    )
    negative = jax.ops.segment_sum(log_a, item, num_segments=n_items)
    positive = jax.ops.segment_sum(log_b, item, num_segments=n_items)
    numpyro.factor(
        "responses",
        jnp.logaddexp(jnp.log1p(-prevalence) + negative, jnp.log(prevalence) + positive).sum(),
    )


if __name__ == "__main__":
    n_items, n_workers, per_item, chains = (int(x) for x in sys.argv[1:5])
    data = bc.simulate_crowd(
        n_items, n_workers, labels_per_item=per_item, workload="uniform", seed=3
    ).data
    responses = data.responses()
    mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000, num_chains=chains,
                chain_method="parallel", progress_bar=False)  # fmt: skip
    mcmc.run(
        jax.random.PRNGKey(0),
        jnp.asarray(responses.item),
        jnp.asarray(responses.annotator),
        jnp.asarray(responses.label),
        n_items,
        n_workers,
    )
    samples = mcmc.get_samples(group_by_chain=True)
    samples["a"].block_until_ready()
    elapsed = time.perf_counter() - START
    table = summary({k: np.asarray(samples[k]) for k in ("a", "b", "prevalence")})
    r_hat = max(float(np.max(v["r_hat"])) for v in table.values())
    ess = min(float(np.min(v["n_eff"])) for v in table.values())
    divergences = int(np.asarray(mcmc.get_extra_fields()["diverging"]).sum())
    print(f"reference {elapsed:.3f} {r_hat:.4f} {ess:.1f} {divergences}")
