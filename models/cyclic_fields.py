"""The Newton solve of a cycle's natural parameters inside a program
(:mod:`bayescal.channels.cyclic_joint`), which that module calls through its
``program_solver`` (set when :mod:`bayescal.models` is imported).

Damped Newton steps run on stopped gradients (a compiled loop, no derivative through it)
until the moments match to :data:`CONVERGED`, at most :data:`ITERATIONS` of them; then one
full step carries the gradients: at the solution ``theta*`` of ``E_theta[T_free] = target``
that step's derivative is the implicit function's,

    d theta_free / d (target, theta_fixed) = A''(theta*)^-1 (I, -Cov(T_free, T_fixed)),

because the step's residual is zero there.  Measured on a triangle (before the line search
was added): one value and gradient in 128 µs, against 396 µs with the gradient carried
through 30 unrolled steps (and 3.7 s of compilation against 0.6 s).  Stopping once converged
instead of always taking :data:`ITERATIONS` steps halves a value and gradient again
(``benchmarks/RESULTS.md``, "Dependent pairs that close a cycle").
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bayescal.channels.cyclic_joint import CONVERGED as NUMPY_CONVERGED
from bayescal.channels.cyclic_joint import newton_step

__all__ = ["CONVERGED", "ITERATIONS", "UNSOLVED", "solve_fields"]

#: The most Newton steps of a solve, each damped by a line search
#: (:func:`~bayescal.channels.cyclic_joint.newton_step`).  From the independent start, six
#: annotators joined by all 15 pairs with equal channels and every ``|J| <= 8`` (a
#: conditional odds ratio of 3 000), the hardest grid measured, converge to 1e-14
#: (tests/channels/test_cyclic_joint.py).
ITERATIONS = 30
#: The loop stops once every row's moments miss by at most this before a step (that step is
#: still taken, then the full one): NumPy's stopping rule in float64; in float32 rounding
#: alone leaves misses of about 1e-6, so a tighter rule would run every step for nothing.
CONVERGED = {"float64": NUMPY_CONVERGED, "float32": 1e-5}
#: A solve whose moments still miss by more than this after its steps gives NaN fields: in
#: float64 (every fit samples in it), and in float32 (a program a user runs without
#: ``jax.enable_x64``), where converged solves miss by at most 1.4e-6 (measured on the
#: symmetric grid of tests/channels/test_cyclic_joint.py; 5 of its 50 designs, its most
#: extreme, do not converge in float32 and get NaN).
UNSOLVED = {"float64": 1e-8, "float32": 1e-4}


def solve_fields(free, fixed, target, statistics):
    """The free natural parameters (..., F) whose moments are ``target`` (..., F), the
    ``fixed`` ones (..., G) held (module docstring)."""
    dtype = free.dtype
    if dtype.name not in CONVERGED:  # a half-precision program would round away the moments
        raise TypeError(
            f"free: the fields are solved in {' or '.join(CONVERGED)}; saw {dtype.name}"
        )
    fixed_stopped, target_stopped = jax.lax.stop_gradient((fixed, target))

    def unfinished(state):
        taken, _, missed = state
        return (taken < ITERATIONS) & (jnp.max(missed) > CONVERGED[dtype.name])

    def step(state):
        taken, current, _ = state
        moved, missed = newton_step(current, fixed_stopped, target_stopped, statistics, jnp)
        # the constants of the step are float64 arrays: in a float64 program they would
        # promote a float32 start, and a loop keeps its type
        return taken + 1, moved.astype(dtype), missed.astype(dtype)

    start = jax.lax.stop_gradient(free)
    never_measured = jnp.full(start.shape[:-1], jnp.inf, dtype)
    _, converged, _ = jax.lax.while_loop(unfinished, step, (0, start, never_measured))
    solved, missed = newton_step(converged, fixed, target, statistics, jnp, False)
    # a solve that has not converged would give the sampler a wrong likelihood without a word:
    # NaN instead, which NUTS meets as a divergence (and the fit's diagnostics report)
    return jnp.where((missed > UNSOLVED[dtype.name])[..., None], jnp.nan, solved)
