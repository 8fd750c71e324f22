"""What a program's solve of a cycle's fields costs: stopping once the moments match
(``bayescal.models.cyclic_fields.solve_fields`` today) against always taking its
``ITERATIONS`` damped Newton steps (before 2026-12-07), in one run.

    .venv/bin/python benchmarks/cycle_solve_cost.py [--fit]

For three sets of judges (a triangle, a square with one diagonal, six judges joined by all 15
pairs), channels 0.15-0.85 and conditional log odds ratios 1-2 (the size benchmark's), and
one extreme set (the triangle at ``|J| = 6``): the microseconds of one value-and-gradient of
the joint's pattern probabilities (float64, jitted, the mean over ``REPEATS`` calls), both
ways, their ratio, the largest difference of the two joints, and how many damped steps
NumPy's solve (which stops by the same rule) takes.

With ``--fit``: ``fit_bayes(model="dawid_skene")`` of the calibration test's size design with
the cycle (``calibration_test_size.py``: 2 000 items of five judges, a0 ~ a1 ~ a2 ~ a0, the
default sampler), for each of ``FIT_SEEDS``, each way in its own process with the sampler cache
off (a cached sampler would be the other way's): seconds, compilation included.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

REPEATS = 3000
FIT_SEEDS = (0, 1, 2)
SIX = [(j, k) for j in range(6) for k in range(j + 1, 6)]
#: (name, pairs, interaction): the sets of judges timed.
SETS = (
    ("triangle", [(0, 1), (1, 2), (0, 2)], None),
    ("square and a diagonal", [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2)], None),
    ("six judges, all 15 pairs", SIX, None),
    ("triangle, |J| = 6", [(0, 1), (1, 2), (0, 2)], 6.0),
)


def fixed_steps(free, fixed, target, statistics):
    """The solve before 2026-12-07: ``ITERATIONS`` damped steps whatever the miss, then the
    full step that carries the gradients."""
    import jax
    import jax.numpy as jnp
    from bayescal.models.cyclic_fields import ITERATIONS, UNSOLVED

    from bayescal.channels.cyclic_joint import newton_step

    fixed_stopped, target_stopped = jax.lax.stop_gradient((fixed, target))

    def step(_, current):
        moved = newton_step(current, fixed_stopped, target_stopped, statistics, jnp)[0]
        return moved.astype(current.dtype)

    converged = jax.lax.fori_loop(0, ITERATIONS, step, jax.lax.stop_gradient(free))
    solved, missed = newton_step(converged, fixed, target, statistics, jnp, False)
    return jnp.where((missed > UNSOLVED[solved.dtype.name])[..., None], jnp.nan, solved)


def numpy_steps(rates, interaction, ends) -> int:
    """How many damped steps NumPy's solve takes to match the moments (its stopping rule,
    the program's too)."""
    from bayescal.channels import cyclic_joint

    free = np.log(rates) - np.log1p(-rates)
    statistics = cyclic_joint.sufficient_statistics(ends, rates.size)
    for taken in range(1, cyclic_joint.NUMPY_ITERATIONS + 1):
        free, missed = cyclic_joint.newton_step(free, interaction, rates, statistics, np)
        if missed.max() < cyclic_joint.CONVERGED:
            return taken
    return cyclic_joint.NUMPY_ITERATIONS


def gradient_table() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from bayescal.models.cyclic_fields import solve_fields

    from bayescal.channels import cyclic_joint

    print(
        "| judges | pairs | NumPy's steps | fixed steps (µs) | stopping (µs) | ratio | largest difference |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for name, pairs, strength in SETS:
        ends = np.asarray(pairs)
        m = int(ends.max()) + 1
        rates = rng.uniform(0.15, 0.85, m)
        interaction = (
            rng.uniform(1.0, 2.0, len(pairs)) if strength is None else np.full(len(pairs), strength)
        )
        weights = np.arange(2**m, dtype=float)

        def value(p, j, ends=ends, weights=weights):
            log_joint = cyclic_joint.joint_of_interaction(p, j, ends, jnp)
            return jnp.sum(jnp.exp(log_joint) * weights) + jnp.sum(log_joint)

        timed, joints = {}, {}
        for way, solver in (("fixed", fixed_steps), ("stopping", solve_fields)):
            cyclic_joint.use_program_solver(solver)
            gradient = jax.jit(jax.value_and_grad(value, argnums=(0, 1)))
            arguments = (jnp.asarray(rates), jnp.asarray(interaction))
            jax.block_until_ready(gradient(*arguments))
            began = time.perf_counter()
            for _ in range(REPEATS):
                result = gradient(*arguments)
            jax.block_until_ready(result)
            timed[way] = (time.perf_counter() - began) / REPEATS * 1e6
            joints[way] = np.asarray(
                jax.jit(lambda p, j, ends=ends: cyclic_joint.joint_of_interaction(p, j, ends, jnp))(
                    *arguments
                )
            )
        cyclic_joint.use_program_solver(solve_fields)
        difference = np.abs(np.exp(joints["fixed"]) - np.exp(joints["stopping"])).max()
        print(
            f"| {name} | {len(pairs)} | {numpy_steps(rates, interaction, ends)} "
            f"| {timed['fixed']:.0f} | {timed['stopping']:.0f} "
            f"| {timed['fixed'] / timed['stopping']:.2f} | {difference:.1e} |"
        )


def one_fit(seed: int, way: str) -> None:
    """One fit of the size design, the solve ``way``: prints its seconds."""
    # importing bayescal.models sets the program's solve, which "fixed" then replaces
    import bayescal.models

    from bayescal.channels import cyclic_joint

    if way == "fixed":
        cyclic_joint.use_program_solver(fixed_steps)
    five = bayescal.Channels([0.10, 0.20, 0.15, 0.30, 0.25], [0.90, 0.80, 0.85, 0.70, 0.75])
    pairs = [(0, 1), (1, 2), (0, 2)]
    strength = np.array([[1.5, 1.0], [1.0, 2.0], [1.0, 1.5]])
    sim = bayescal.simulate.simulate_log_linear(2000, five, pairs, strength, seed=seed)
    cycle = [tuple(sim.data.annotator_names[j] for j in pair) for pair in pairs]
    began = time.perf_counter()
    bayescal.fit_bayes(sim.data, model="dawid_skene", dependent=cycle, progress=False, seed=seed)
    print(f"{time.perf_counter() - began:.2f}")


def fit_table() -> None:
    print()
    print("| seed | fixed steps (s) | stopping (s) | ratio |")
    print("|---:|---:|---:|---:|")
    environment = {**os.environ, "BAYESCAL_CACHE_DIR": "off"}
    for seed in FIT_SEEDS:
        seconds = {}
        for way in ("fixed", "stopping"):
            print(f"seed {seed}, {way}: fitting", file=sys.stderr, flush=True)
            finished = subprocess.run(
                [sys.executable, __file__, "--one-fit", str(seed), way],
                env=environment,
                capture_output=True,
                text=True,
                check=True,
            )
            seconds[way] = float(finished.stdout.split()[-1])
        print(
            f"| {seed} | {seconds['fixed']:.1f} | {seconds['stopping']:.1f} "
            f"| {seconds['fixed'] / seconds['stopping']:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="also time fit_bayes both ways")
    parser.add_argument("--one-fit", nargs=2, metavar=("SEED", "WAY"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one_fit:
        one_fit(int(arguments.one_fit[0]), arguments.one_fit[1])
        return
    gradient_table()
    if arguments.fit:
        fit_table()


if __name__ == "__main__":
    main()
