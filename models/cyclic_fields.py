"""The Newton solve of a cycle's natural parameters inside a program
(:mod:`bayescal.channels.cyclic_joint`), which that module calls through its
``program_solver`` (set when :mod:`bayescal.models` is imported).

:data:`ITERATIONS` damped Newton steps run on stopped gradients (a compiled loop, no
derivative through it), then one full step carries the gradients: at the solution ``theta*``
of ``E_theta[T_free] = target`` that step's derivative is the implicit function's,

    d theta_free / d (target, theta_fixed) = A''(theta*)^-1 (I, -Cov(T_free, T_fixed)),

because the step's residual is zero there.  Measured on a triangle (before the line search
was added): one value and gradient in 128 µs, against 396 µs with the gradient carried
through 30 unrolled steps (and 3.7 s of compilation against 0.6 s).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bayescal.channels.cyclic_joint import newton_step

__all__ = ["ITERATIONS", "UNSOLVED", "solve_fields"]

#: Newton steps of a solve (a fixed number: the loop is compiled), each damped by a line
#: search (:func:`~bayescal.channels.cyclic_joint.newton_step`).  From the independent start,
#: six annotators joined by all 15 pairs with equal channels and every ``|J| <= 8`` (a
#: conditional odds ratio of 3 000), the hardest grid measured, converge to 1e-14
#: (tests/channels/test_cyclic_joint.py).
ITERATIONS = 30
#: A solve whose moments still miss by more than this after :data:`ITERATIONS` steps gives
#: NaN fields: in float64 (every fit samples in it), and in float32 (a program a user runs
#: without ``jax.enable_x64``), where rounding alone leaves misses of about 1e-6 (measured on
#: the symmetric grid of tests/channels/test_cyclic_joint.py: at most 1.4e-6; 5 of its 50
#: designs, its most extreme, do not converge in float32 and get NaN).
UNSOLVED = {"float64": 1e-8, "float32": 1e-4}


def solve_fields(free, fixed, target, statistics):
    """The free natural parameters (..., F) whose moments are ``target`` (..., F), the
    ``fixed`` ones (..., G) held (module docstring)."""
    fixed_stopped, target_stopped = jax.lax.stop_gradient((fixed, target))

    def step(_, current):
        # the constants of the step are float64 arrays: in a float64 program they would
        # promote a float32 start, and a loop keeps its type
        moved = newton_step(current, fixed_stopped, target_stopped, statistics, jnp)[0]
        return moved.astype(current.dtype)

    converged = jax.lax.fori_loop(0, ITERATIONS, step, jax.lax.stop_gradient(free))
    solved, missed = newton_step(
        jax.lax.stop_gradient(converged), fixed, target, statistics, jnp, False
    )
    # a solve that has not converged would give the sampler a wrong likelihood without a word:
    # NaN instead, which NUTS meets as a divergence (and the fit's diagnostics report)
    return jnp.where((missed > UNSOLVED[solved.dtype.name])[..., None], jnp.nan, solved)
