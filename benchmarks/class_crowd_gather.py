"""What the multi-class crowd program's gather of response codes costs: one gather per response
slot, summed (``ClassResponseDesign.log_prob`` today), against one gather of every (R, L)
code at once (before 2026-12-06), in one run.

    .venv/bin/python benchmarks/class_crowd_gather.py [--fit]

For three crowds of ``benchmarks/class_crowd_bias.py`` (``DESIGNS``): the seconds of one value-and-gradient of the
hierarchical program's potential energy (``class_crowd_model``, float64 as the sampler runs it,
jitted, the mean over ``REPEATS`` calls), both ways, and their ratio.  The two ways give the
same log-density (checked to 1e-9 relative).  With ``--fit``, also NUTS on the notebook's crowd
both ways, for each of ``FIT_SEEDS`` (2 chains of 1 000 + 1 000 run one after the other,
target acceptance 0.9, from the program's start): seconds, mean leapfrog steps per draw and
microseconds per step.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
from bayescal.models.class_crowd import class_crowd_model
from bayescal.models.class_response_design import ClassResponseDesign, code_table
from class_crowd_bias import crowd
from numpyro.infer import MCMC, NUTS
from numpyro.infer.util import initialize_model

from bayescal.bayes import ClassPriors

REPEATS = 2000
#: (workers, items): the notebook's crowd, the coverage benchmark's, a larger one.
DESIGNS = ((10, 1000), (20, 2000), (80, 5000))
#: The seeds of the NUTS runs (``--fit``), each run both ways.
FIT_SEEDS = (0, 1, 2)


class SingleGatherDesign(ClassResponseDesign):
    """The design with the likelihood written as one gather of the (R, L) codes."""

    def log_prob(self, confusion, proportion, xp):
        table = code_table(confusion, xp)
        given_class = xp.take(table, self.codes, axis=-2).sum(axis=-2)
        return self.marginal(given_class, proportion, xp)


def potential(design):
    """The jitted value and gradient of the program's potential on ``design``, and its start."""
    arguments = (design, jnp.asarray(ClassPriors().as_array()), jnp.asarray(design.counts))
    info = initialize_model(jax.random.PRNGKey(0), class_crowd_model, model_args=arguments)
    return jax.jit(jax.value_and_grad(info.potential_fn)), info.param_info.z, info


def seconds_per_gradient(design) -> tuple[float, float]:
    gradient, start, _ = potential(design)
    value = jax.block_until_ready(gradient(start))[0]
    began = time.perf_counter()
    for _ in range(REPEATS):
        result = gradient(start)
    jax.block_until_ready(result)
    return (time.perf_counter() - began) / REPEATS, float(value)


def both(annotations, n_classes):
    """The design both ways."""
    today = ClassResponseDesign.from_codes(annotations, n_classes)
    before = SingleGatherDesign(today.codes, today.counts, today.n_annotators, today.n_classes)
    return today, before


def nuts(design, seed: int = 0) -> tuple[float, float]:
    """Seconds and mean leapfrog steps of 2 chains of 1 000 + 1 000 draws."""
    _, _, info = potential(design)
    kernel = NUTS(potential_fn=info.potential_fn, target_accept_prob=0.9)
    mcmc = MCMC(
        kernel,
        num_warmup=1000,
        num_samples=1000,
        num_chains=2,
        chain_method="sequential",
        progress_bar=False,
    )
    start = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), info.param_info.z)
    began = time.perf_counter()
    mcmc.run(jax.random.PRNGKey(seed), init_params=start, extra_fields=("num_steps",))
    return time.perf_counter() - began, float(np.mean(mcmc.get_extra_fields()["num_steps"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="also run NUTS both ways")
    fit = parser.parse_args().fit
    print("| crowd | rows x slots | one gather a slot (us) | one gather of all (us) | ratio |")
    print("|---|---|---:|---:|---:|")
    with jax.enable_x64(True):
        crowds = [(f"{w} workers, {n} items, 10 classes", crowd(w, 0, n)[1]) for w, n in DESIGNS]
        for name, data in crowds:
            today, before = both(data.annotations, data.n_classes)
            (new, value), (old, old_value) = map(seconds_per_gradient, (today, before))
            assert abs(value - old_value) <= 1e-9 * abs(value), (value, old_value)
            shape = "x".join(map(str, today.codes.shape))
            print(f"| {name} | {shape} | {new * 1e6:.0f} | {old * 1e6:.0f} | {old / new:.2f} |")
        if fit:
            data = crowds[0][1]
            today, before = both(data.annotations, data.n_classes)
            print("\n| NUTS seed | way | seconds | leapfrog steps a draw | us a step |")
            print("|---:|---|---:|---:|---:|")
            for seed in FIT_SEEDS:
                for label, design in (("a slot", today), ("all", before)):
                    seconds, steps = nuts(design, seed)
                    per_step = seconds / (steps * 4000) * 1e6
                    print(f"| {seed} | {label} | {seconds:.1f} | {steps:.1f} | {per_step:.0f} |")


if __name__ == "__main__":
    main()
