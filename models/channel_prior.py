"""The prior of an annotator's channel pair: Beta false-positive rate and sensitivity,
conditioned on positive orientation ``a < b`` (see :mod:`bayescal.bayes.priors` for the prior
and its implied marginals), reached by NUTS through a smooth bijection (no rejection wall).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpyro.distributions as dist
from jax.nn import log_sigmoid
from jax.scipy.special import expit, logit, xlog1py, xlogy
from numpyro.distributions import constraints
from numpyro.distributions.transforms import ParameterFreeTransform, biject_to

__all__ = ["BetaKernel", "OrientedChannelTransform", "OrientedChannels", "beta_log_kernel"]


class _OrderedUnitPair(constraints._SingletonConstraint):
    """Pairs ``(a, b)`` with ``0 < a < b < 1``."""

    event_dim = 1

    def __call__(self, x):
        return (x[..., 0] > 0) & (x[..., 0] < x[..., 1]) & (x[..., 1] < 1)

    def feasible_like(self, prototype):
        return jnp.broadcast_to(
            jnp.array([0.25, 0.75], dtype=jnp.result_type(prototype)), jnp.shape(prototype)
        )


ordered_unit_pair = _OrderedUnitPair()


class OrientedChannelTransform(ParameterFreeTransform):
    """``(x0, x1) -> (a, b) = (sigma(x0), a + (1 - a) sigma(x1))``: the reals onto ``0 < a < b < 1``.

    The Jacobian is triangular: ``da/dx0 = a (1 - a)``, ``db/dx1 = (1 - a) u (1 - u)`` with
    ``u = sigma(x1)``.
    """

    domain = constraints.real_vector
    codomain = ordered_unit_pair

    def __call__(self, x):
        a = expit(x[..., 0])
        return jnp.stack([a, a + (1.0 - a) * expit(x[..., 1])], axis=-1)

    def _inverse(self, y):
        a, b = y[..., 0], y[..., 1]
        return jnp.stack([logit(a), logit((b - a) / (1.0 - a))], axis=-1)

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        x0, x1 = x[..., 0], x[..., 1]
        return log_sigmoid(x0) + 2.0 * log_sigmoid(-x0) + log_sigmoid(x1) + log_sigmoid(-x1)


@biject_to.register(type(ordered_unit_pair))
def _oriented_bijection(constraint):
    return OrientedChannelTransform()


def beta_log_kernel(x, concentration1, concentration0):
    """``(alpha - 1) log x + (beta - 1) log(1 - x)``: the log Beta(alpha, beta) density without
    its normalising constant ``-log B(alpha, beta)``.

    The constant does not depend on the sampled parameters, so it changes no posterior and no
    NUTS step; leaving it out keeps ``log B`` (four log-gamma functions and a series per Beta in
    NumPyro's ``Beta.log_prob``) out of every compiled sampler, a third of the start program's
    operations and a fifth of the NUTS step's (benchmarks/RESULTS.md).
    """
    return xlogy(concentration1 - 1.0, x) + xlog1py(concentration0 - 1.0, -x)


class BetaKernel(dist.Beta):
    """``dist.Beta`` whose ``log_prob`` is :func:`beta_log_kernel` (no normalising constant);
    it samples as ``dist.Beta``."""

    def log_prob(self, value):
        return beta_log_kernel(value, self.concentration1, self.concentration0)


class OrientedChannels(dist.Distribution):
    """``(a, b) ~ Beta(a; fp) Beta(b; sens)`` conditioned on ``a < b`` (event shape (2,)).

    ``sample`` draws exactly, by rejection from the product of the two Betas.  ``log_prob`` is
    the product of the two Beta kernels (:func:`beta_log_kernel`) on ``a < b``, *without* the
    constants ``-log B`` and ``-log P(a < b)`` (``Priors.orientation_mass``): constants change
    no posterior and no NUTS step, and leaving ``P(a < b)`` out keeps the prior parameters
    traceable, so one compiled sampler serves every prior of a sensitivity study.
    """

    # numpyro's Distribution declares these as plain class attributes; they are never mutated.
    arg_constraints = {  # noqa: RUF012
        "false_positive": constraints.positive,
        "sensitivity": constraints.positive,
    }
    support = ordered_unit_pair
    reparametrized_params = []  # noqa: RUF012

    def __init__(self, false_positive, sensitivity, validate_args=None):
        # each argument: array (..., 2) of Beta parameters (alpha, beta)
        self.false_positive = jnp.asarray(false_positive)
        self.sensitivity = jnp.asarray(sensitivity)
        batch_shape = jnp.broadcast_shapes(
            self.false_positive.shape[:-1], self.sensitivity.shape[:-1]
        )
        super().__init__(batch_shape=batch_shape, event_shape=(2,), validate_args=validate_args)

    def _betas(self):
        fp, sens = self.false_positive, self.sensitivity
        return dist.Beta(fp[..., 0], fp[..., 1]), dist.Beta(sens[..., 0], sens[..., 1])

    def sample(self, key, sample_shape=()):
        shape = tuple(sample_shape) + tuple(self.batch_shape)
        beta_a, beta_b = self._betas()

        def draw(key):
            key_a, key_b = jax.random.split(key)
            return beta_a.sample(key_a, shape), beta_b.sample(key_b, shape)

        def redraw(state):
            key, a, b, accepted = state
            key, sub = jax.random.split(key)
            new_a, new_b = draw(sub)
            take = ~accepted & (new_a < new_b)
            return key, jnp.where(take, new_a, a), jnp.where(take, new_b, b), accepted | take

        key, sub = jax.random.split(key)
        a, b = draw(sub)
        state = jax.lax.while_loop(lambda s: ~jnp.all(s[3]), redraw, (key, a, b, a < b))
        return jnp.stack([state[1], state[2]], axis=-1)

    def log_prob(self, value):
        fp, sens = self.false_positive, self.sensitivity
        return beta_log_kernel(value[..., 0], fp[..., 0], fp[..., 1]) + beta_log_kernel(
            value[..., 1], sens[..., 0], sens[..., 1]
        )
