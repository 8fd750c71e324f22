"""Hierarchical Bayesian Dawid–Skene model for crowds: workers' channels partially pooled.

    (mu_a, mu_b) = (m, m + g),   m ~ Normal(-1.5, 1.5),   g ~ HalfNormal(3)
    s_a, s_b ~ Gamma(2, 2),       rho ~ 2 Beta(2, 2) - 1        (the LKJ(2) prior of a 2x2 correlation)
    informative workers:  (logit a_j, logit b_j) ~ Normal((mu_a, mu_b), [[s_a^2, rho s_a s_b], [rho s_a s_b, s_b^2]])
    random workers:       (logit a_j + logit b_j) / 2 ~ Logistic(0, 1),   logit b_j - logit a_j ~ Normal(0, 0.3)
    share of random workers pi ~ Beta(1, 5)
    (logit a_j, logit b_j) ~ (1 - pi) informative + pi random         (each worker's component summed out)
    prevalence ~ Beta(priors.prevalence)
    Y_i ~ Bernoulli(prevalence),  A_ij | Y_i ~ Bernoulli(a_j + (b_j - a_j) Y_i) for the workers j of item i

The hyperpriors are weakly informative on the logit scale: a typical false-positive rate near
sigmoid(-1.5) = 0.18 give or take a factor of e^1.5, a population gap anywhere from none to
about 6 logits, workers' spread mostly from 0.2 to 2.4 logits (the Gamma(2, 2): mean 1, mode
0.5, P(s < 0.2) = 0.06), and no preferred sign of the correlation of a worker's two rates.
The spread's prior keeps away from 0, where the workers' logits would form a funnel: under
HalfNormal(1.5) most default fits of 30-worker crowds warned (divergent transitions at small
spreads, chains stuck in the funnel; benchmarks/RESULTS.md, "A boundary-avoiding spread prior
with non-centred workers").  The second, *random* component is the spammers' (MACE's idea, Hovy
et al. 2013, as a mixture of populations): workers whose answers do not depend on the item, at
a rate of positives uniform on (0, 1) (the standard logistic is the logit of a uniform rate),
their gap held near 0.  Constant workers (a = b = 0 or 1) are random workers at the ends of
that range.  Without the component a spammer with a few labels is shrunk toward the good
workers and keeps a gap and a weight.  The component's rate has no hyperparameters: a learnt
spread stretched to the constant workers and made a funnel.

Orientation comes from the population: ``mu_b > mu_a`` (``g > 0``) breaks the label-switching
symmetry ``(a, b, prevalence) -> (b, a, 1 - prevalence)``, while each worker is free: a spammer
(``b_j = a_j``) or an adversarial worker (``b_j < a_j``) is estimated, flagged and weighted
down, never refused.

The likelihood runs on the sparse responses (:mod:`.response_design`): each row of
:class:`ResponseDesign` is one item (or several items with the same workers and answers,
counted), its responses padded to the widest row.  A response is looked up as ``code = 2 j +
label`` in a table of the workers' log probabilities, so the per-item sums are sums along a row
(no scatter in the forward pass) and memory is O(responses), never items x workers.  ``Y`` is
summed out by hand (``logaddexp``).

Workers with one label in all are summed out of the likelihood, not sampled.  Such a worker's
channel enters one item only, so integrating it over the population is exact:
``P(A = 1 | Y = 0) = E_pop[a]`` and ``P(A = 1 | Y = 1) = E_pop[b]``, the population's mean
channel (:func:`population_mean_channel`), and the posterior of every other parameter is the
full model's.  A thousand such workers would otherwise add two thousand sampled dimensions that
their one label each cannot inform (second bad-input catalogue, row 87: 6 000 of them took
NUTS four minutes).  Their recorded channel is the mean channel, which corrects their labels
without bias: ``E[(A - E a) / (E b - E a) | Y] = Y``.

Named dependent pairs of workers (``fit_bayes(..., dependent=...)``,
:mod:`bayescal.channels.dependence`) get their covariances given ``Y`` as in the flat models,
a uniform share of each pair's bounds at the workers' channels (pairs that share a worker form
a tree), or each pair's conditional log odds ratio where pairs close a cycle (the pairwise
log-linear joint, :mod:`bayescal.channels.cyclic_joint`), and each row adds the pairs' terms
(:meth:`ResponseDesign.pair_terms`); the prior predictive draws a pair's answers jointly.
The population pools the channels only.

Parametrisation: every sampled worker is partially non-centred (Papaspiliopoulos, Roberts
and Sköld 2007, coordinatewise as in Gorinova, Moore and Hoffman 2020), between the centred
form that suits a sharp posterior and the non-centred one that keeps a posterior close to the
population away from the funnel, by its labels ``n_j``:

    x_j = mu + s^(1 - lam_j) (x~_j - lam_j mu),   lam_j = n_j / (n_j + CENTRING_LABELS)
    x~_j = (u_j - v_j / 2, u_j + v_j / 2)
    density of (u_j, v_j):  p_population(x_j) prod_k s_k^(1 - lam_j)

(powers and products per coordinate, ``k`` in ``a, b``).  The sampled ``(u_j, v_j)`` are a
centre and a gap (:func:`from_centre_gap`, Jacobian 1), the axes a random worker's posterior is
long and narrow along.  ``lam_j = 1`` is the centred form (``x_j = x~_j``), ``lam_j = 0`` the
non-centred one (``x_j = mu + s x~_j``), and the factor ``prod_k s_k^(1 - lam_j)`` is the
map's Jacobian, so the posterior is the model's whatever the weights.  Measured in
benchmarks/RESULTS.md ("The partially non-centred form, shipped" and the coverage run after
it): with 120 for ``CENTRING_LABELS``, 6 of 108 fits at 2 000 draws warned on a simulated crowd
of 30 workers with spammers and 17 of 109 on one with adversaries too, against 18 of 95 and 16
of 95 when workers of 30 labels or more were centred and the others non-centred, at the same
cost or less.  What still fell short did so on the population's spread and correlation, by a
factor of ESS that longer chains make up: with ``fit_bayes``'s extensions (a fit short of
R-hat or ESS continued by as many draws again, up to twice) 0 of 199 and 2 of 199 warned.
The population's gap starts at 2 logits and each worker's ``(u, v)`` at ``(0, 2)``, so that
every worker starts oriented.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax.scipy.special import expit
from numpyro.distributions import constraints

from bayescal.channels.cyclic_joint import joint_of_interaction, states
from bayescal.channels.dependence import child_chance, draw_order
from bayescal.channels.pattern_likelihood import (
    covariance_from_share,
    interaction_from_share,
    linked_sets,
)

from .channel_prior import BetaKernel
from .response_design import ResponseDesign, code_table, gold_mixture

#: Hyperpriors (module docstring): the population mean logit false-positive rate ...
MEAN_LOCATION, MEAN_SCALE = -1.5, 1.5
#: ... the population gap mu_b - mu_a (half-normal scale), the workers' spreads s_a and s_b
#: (the Gamma's shape and rate), and the LKJ concentration of their correlation.
GAP_SCALE = 3.0
SPREAD_PRIOR = (2.0, 2.0)
CORRELATION_CONCENTRATION = 2.0
#: Where the workers' sites start (unconstrained values), every worker positively oriented: a
#: chain started with workers at random sides can settle in the mirror image of the posterior
#: (each worker flipped, a wide population with a small positive gap), which the population's
#: orientation alone leaves as a local mode (measured: R-hat 1.8 on a 30-worker crowd).
#: The random workers' share starts at 0.1 (unconstrained -2.2): a crowd mostly informative,
#: as the workers start.  The population gap starts at 2 logits (unconstrained log 2), and each
#: worker's gap ``v`` at 2 (module docstring): from a random gap near 0 a chain could start the
#: workers of few labels, which follow the population, unoriented.
ORIENTED_START = {
    "channel_partial": (0.0, 2.0),
    "population_random_share": -2.2,
    "population_gap": float(np.log(2.0)),
}
#: Labels at which a worker is sampled half centred (module docstring).  Twice the 60 at which
#: a worker's information (0.03-0.07 a label at 3 labels an item) times a population variance
#: of about 0.3 logits squared reaches 1, the Gaussian case's weight ``s^2 I / (1 + s^2 I)`` of
#: one half: on two simulated crowds of 30 workers 60 warned on 4 of 40 default fits, 120 on 1
#: and, in a second run, 3 (benchmarks/RESULTS.md).
CENTRING_LABELS = 120.0
#: The random workers' component (module docstring): the Beta prior of their share, and the
#: SD of their gap logit b - logit a, fixed.
RANDOM_SHARE_PRIOR = (1.0, 5.0)
RANDOM_GAP_SPREAD = 0.3
#: The population's sites, recorded with the channels (one entry each for a and b for the
#: first two, a scalar for the others).
POPULATION_SITES = (
    "population_mean",
    "population_spread",
    "population_correlation",
    "population_random_share",
)


def bivariate_normal_log_density(x, mean, spread, correlation, xp=jnp):
    """``log N(x; mean, Sigma)`` of points ``x`` (..., 2), ``Sigma`` with standard deviations
    ``spread`` (..., 2) and correlation ``correlation`` (...), written out for two dimensions:
    no triangular solve (a LAPACK call, which a compiled sampler loaded from disk cannot run).
    ``xp`` is ``jax.numpy`` in the program, ``numpy`` on posterior draws."""
    u = (x[..., 0] - mean[..., 0]) / spread[..., 0]
    w = (x[..., 1] - mean[..., 1]) / spread[..., 1]
    one_minus = 1.0 - correlation**2
    return (
        -xp.log(2.0 * xp.pi)
        - xp.log(spread[..., 0] * spread[..., 1])
        - 0.5 * xp.log(one_minus)
        - (u**2 - 2.0 * correlation * u * w + w**2) / (2.0 * one_minus)
    )


class BivariateNormal(dist.Distribution):
    """The population of workers' ``(logit a_j, logit b_j)``: ``mean + L z`` with ``z ~ N(0, I)``
    and ``L`` the Cholesky factor of ``Sigma`` (event shape (2,)); its log density is
    :func:`bivariate_normal_log_density`."""

    arg_constraints = {}  # noqa: RUF012
    support = constraints.real_vector
    reparametrized_params = ["location", "spread", "correlation"]  # noqa: RUF012

    def __init__(self, location, spread, correlation, validate_args=None):
        self.location, self.spread, self.correlation = location, spread, correlation
        super().__init__(batch_shape=(), event_shape=(2,), validate_args=validate_args)

    def sample(self, key, sample_shape=()):
        z = jax.random.normal(key, tuple(sample_shape) + self.batch_shape + (2,))
        return self.location + z @ self.cholesky().T

    def cholesky(self):
        s, rho = self.spread, self.correlation
        return jnp.stack(
            [
                jnp.stack([s[0], jnp.zeros_like(s[0])]),
                jnp.stack([s[1] * rho, s[1] * jnp.sqrt(1.0 - rho**2)]),
            ]
        )

    def log_prob(self, value):
        return bivariate_normal_log_density(value, self.location, self.spread, self.correlation)


class RandomWorkers(dist.Distribution):
    """The random workers' ``(logit a, logit b)``: their rate of positives uniform,
    ``u = (logit a + logit b) / 2 ~ Logistic(0, 1)``, and their gap
    ``v = logit b - logit a ~ Normal(0, RANDOM_GAP_SPREAD)``, independent (the map has
    Jacobian 1); event shape (2,)."""

    arg_constraints = {}  # noqa: RUF012
    support = constraints.real_vector

    def __init__(self, validate_args=None):
        super().__init__(batch_shape=(), event_shape=(2,), validate_args=validate_args)

    def sample(self, key, sample_shape=()):
        rate_key, gap_key = jax.random.split(key)
        u = jax.random.logistic(rate_key, tuple(sample_shape))
        v = RANDOM_GAP_SPREAD * jax.random.normal(gap_key, tuple(sample_shape))
        return jnp.stack([u - v / 2.0, u + v / 2.0], axis=-1)

    def log_prob(self, value):
        return random_log_density(value)


def random_log_density(x, xp=jnp):
    """``log p(x)`` of the random workers' component at points ``x`` (..., 2) (see
    :class:`RandomWorkers`); ``xp`` is ``jax.numpy`` in the program, ``numpy`` on draws."""
    u = (x[..., 0] + x[..., 1]) / 2.0
    v = (x[..., 1] - x[..., 0]) / RANDOM_GAP_SPREAD
    return (
        -u
        - 2.0 * xp.logaddexp(0.0, -u)
        - 0.5 * v**2
        - 0.5 * xp.log(2.0 * xp.pi)
        - xp.log(RANDOM_GAP_SPREAD)
    )


class WorkerPopulation(dist.Distribution):
    """The population of workers' ``(logit a_j, logit b_j)``: ``informative`` with probability
    ``1 - share`` (a :class:`BivariateNormal`), ``random`` with probability ``share`` (a
    :class:`RandomWorkers`; event shape (2,)), each worker's component summed out in ``log_prob``."""

    arg_constraints = {}  # noqa: RUF012
    support = constraints.real_vector

    def __init__(
        self, informative: BivariateNormal, random: RandomWorkers, share, validate_args=None
    ):
        self.informative, self.random, self.share = informative, random, share
        super().__init__(batch_shape=(), event_shape=(2,), validate_args=validate_args)

    def sample(self, key, sample_shape=()):
        informative_key, random_key, pick_key = jax.random.split(key, 3)
        is_random = jax.random.bernoulli(pick_key, self.share, tuple(sample_shape))
        return jnp.where(
            is_random[..., None],
            self.random.sample(random_key, sample_shape),
            self.informative.sample(informative_key, sample_shape),
        )

    def log_prob(self, value):
        return jnp.logaddexp(
            jnp.log1p(-self.share) + self.informative.log_prob(value),
            jnp.log(self.share) + self.random.log_prob(value),
        )


def from_centre_gap(w):
    """``(logit a, logit b)`` of points ``w = (u, v)`` (..., 2), ``u`` the mean of the two logits
    and ``v = logit b - logit a`` (a map of Jacobian 1)."""
    return jnp.stack([w[..., 0] - w[..., 1] / 2.0, w[..., 0] + w[..., 1] / 2.0], axis=-1)


def spread_prior() -> dist.Distribution:
    """The prior of each of the workers' spreads ``s_a, s_b``: Gamma(*SPREAD_PRIOR).  A
    function of its own so that a study can put another in the program's place
    (benchmarks/hierarchical_sampler_variants.py measures the HalfNormal(1.5) of before)."""
    return dist.Gamma(*SPREAD_PRIOR)


def _population() -> WorkerPopulation:
    """The population's sites, and the population of workers' logits they define."""
    mean_a = numpyro.sample("population_mean_a", dist.Normal(MEAN_LOCATION, MEAN_SCALE))
    gap = numpyro.sample("population_gap", dist.HalfNormal(GAP_SCALE))
    mean = numpyro.deterministic("population_mean", jnp.stack([mean_a, mean_a + gap]))
    spread = numpyro.sample("population_spread", spread_prior().expand([2]).to_event(1))
    half = numpyro.sample(
        "population_correlation_half",
        BetaKernel(CORRELATION_CONCENTRATION, CORRELATION_CONCENTRATION),
    )
    rho = numpyro.deterministic("population_correlation", 2.0 * half - 1.0)
    share = numpyro.sample("population_random_share", BetaKernel(*RANDOM_SHARE_PRIOR))
    return WorkerPopulation(BivariateNormal(mean, spread, rho), RandomWorkers(), share)


#: Gauss–Hermite nodes and weights of the population's mean channel, E[sigmoid(x)] for a
#: normal x: measured against adaptive quadrature, 100 nodes err by under 1e-6 up to a spread
#: of 5 logits (64 nodes: 8e-6) and 1e-4 at 8, which the spread's prior gives odds of 1e-7.
HERMITE_NODES, HERMITE_WEIGHTS = np.polynomial.hermite.hermgauss(100)


def population_mean_channel(mean, spread, share, xp=jnp):
    """``(E a, E b)`` of a worker drawn from the population: (..., 2).

    ``E a = (1 - pi) E[sigmoid(x_a)] + pi / 2`` with ``x_a ~ N(mu_a, s_a^2)`` in the informative
    component (Gauss–Hermite: ``E f(x) = sum_k w_k f(mu + sqrt(2) s t_k) / sqrt(pi)``), and 1/2
    in the random one (its logits are symmetric about 0); likewise ``E b``.  ``mean`` and
    ``spread`` (..., 2), ``share`` (...); ``xp`` is ``jax.numpy`` in the program, ``numpy`` on
    draws."""
    x = mean[..., None] + np.sqrt(2.0) * spread[..., None] * HERMITE_NODES
    informative = (HERMITE_WEIGHTS / (1.0 + xp.exp(-x))).sum(axis=-1) / np.sqrt(np.pi)
    share = share[..., None]
    return (1.0 - share) * informative + share / 2.0


def _worker_logits(population: WorkerPopulation, design: ResponseDesign, prior_predictive: bool):
    """Every worker's ``(logit a_j, logit b_j)``, (K, 2) in the workers' order; a summed-out
    worker's is the population's mean channel.

    Each sampled worker is partially non-centred (module docstring).  Its site is a standard
    normal whose density a factor takes out again and replaces by the density of ``(u_j,
    v_j)``, so that shapes can still be drawn from it.  The prior predictive, which ignores
    factors, draws every worker's logits from the population instead.
    """
    n_workers = design.n_annotators
    if prior_predictive:
        with numpyro.plate("worker", n_workers):
            return numpyro.sample("channel_logits", population)
    n_sampled = n_workers - design.n_summed_out
    mean, spread = population.informative.location, population.informative.spread
    parts = []
    if n_sampled:  # none when every worker gave one label
        # each worker's weight in the sampled order (the summed-out workers' shared row dropped)
        weight = design.labels / (design.labels + CENTRING_LABELS)
        weight = jnp.zeros(n_sampled + 1).at[design.position].set(weight)[:n_sampled, None]
        standard = dist.Normal(0.0, 1.0).expand([2]).to_event(1)
        with numpyro.plate("worker", n_sampled):
            centre_gap = numpyro.sample("channel_partial", standard)
        x = mean + spread ** (1.0 - weight) * (from_centre_gap(centre_gap) - weight * mean)
        numpyro.factor(
            "worker_population",
            population.log_prob(x).sum()
            + ((1.0 - weight) * jnp.log(spread)).sum()
            - standard.log_prob(centre_gap).sum(),
        )
        parts.append(x)
    if n_sampled < n_workers:
        rates = population_mean_channel(mean, spread, population.share)
        parts.append(jnp.log(rates / (1.0 - rates))[None, :])
    return jnp.concatenate(parts)[design.position]


def hierarchical_dawid_skene(design: ResponseDesign, prior_params, counts=None) -> None:
    """The program; ``prior_params`` is ``Priors.as_array()``, of which only the prevalence's
    Beta is used (the channels' prior is the population).  With ``counts`` the rows' log
    likelihoods enter weighted by them; without, one answer per response is drawn (the prior
    predictive, on an uncompressed design), recorded as the deterministic ``codes``."""
    logits = _worker_logits(_population(), design, prior_predictive=counts is None)
    a = numpyro.deterministic("a", expit(logits[:, 0]))
    b = numpyro.deterministic("b", expit(logits[:, 1]))
    prevalence = numpyro.sample("prevalence", BetaKernel(prior_params[2, 0], prior_params[2, 1]))
    covariance = interaction = None
    if design.n_pairs:  # as in the flat models (bayescal.models.latent_class)
        share = numpyro.sample(
            "dependence", dist.Uniform(0.0, 1.0).expand((design.n_pairs, 2)).to_event(2)
        )
        covariance = numpyro.deterministic(
            "covariance", covariance_from_share(share, a, b, design.pairs, xp=jnp)
        )
        interaction = interaction_from_share(share, design.pairs, xp=jnp)
    if counts is None:
        _draw_answers(design, a, b, prevalence, covariance, interaction)
        return
    # log p(A = label | Y = 0) + i log p(A = label | Y = 1) of code 2 j + label (0 for the
    # padding code 2 K): one complex gather and sum serves both classes, 40% faster than two
    # real ones (1.1 against 1.9 ms for the likelihood's gradient on 5 x 10^4 responses)
    table = code_table(logits[:, 0]) + 1j * code_table(logits[:, 1])
    row = jnp.take(table, design.codes, mode="clip").sum(axis=1)
    if covariance is not None:
        extra0, extra1 = design.pair_terms(a, b, covariance, jnp, interaction)
        row = row + extra0 + 1j * extra1
    log_likelihood = gold_mixture(
        jnp.log1p(-prevalence) + row.real, jnp.log(prevalence) + row.imag, design.gold, _log_add_exp
    )
    numpyro.factor("responses", jnp.dot(counts, log_likelihood))


def _log_add_exp(u, v):
    """``log(e^u + e^v)`` for finite ``u, v``: ``jnp.logaddexp`` guards infinities with
    branches that made it, and its gradient, the costliest step of the likelihood (270 against
    49 microseconds a call on 10^4 rows)."""
    return jnp.maximum(u, v) + jnp.log1p(jnp.exp(-jnp.abs(u - v)))


def _draw_answers(
    design: ResponseDesign, a, b, prevalence, covariance=None, interaction=None
) -> None:
    """Prior predictive: every row one item, its latent label and answers drawn anew; the
    dependent pairs' workers answer jointly (:func:`_draw_pair_answers`)."""
    pad = 2 * design.n_annotators
    given = design.codes < pad
    worker = np.where(given, design.codes // 2, 0)
    with numpyro.plate("item", design.codes.shape[0]):
        y = numpyro.sample("y", dist.Bernoulli(prevalence))
    if design.has_gold:  # a gold item's class is given, not drawn
        y = jnp.where(design.gold >= 0, design.gold, y)
    rate = jnp.where(y[:, None] == 1, b[worker], a[worker])
    answers = numpyro.sample("answers", dist.Bernoulli(rate).mask(given).to_event(2))
    if covariance is not None:
        pair_answers = _draw_pair_answers(design, a, b, y, covariance, interaction)
        for member, answer in pair_answers.items():
            answers = jnp.where(worker == member, answer[:, None], answers)
    numpyro.deterministic("codes", jnp.where(given, 2 * worker + answers, pad))


def _draw_pair_answers(design: ResponseDesign, a, b, y, covariance, interaction) -> dict:
    """Every pair member's answer to every row given ``y`` (R,).  Pairs on no cycle are drawn
    along the pairs (:func:`~bayescal.channels.dependence.draw_order`): a member first met
    from its channel, each other from its partner's answer through the pair's 2 x 2 table
    given ``Y``.  The members of pairs that close a cycle draw their pattern of answers at once
    from its log-linear joint given ``Y`` (``interaction`` (D, 2), the pairs' conditional log
    odds ratios).  Returns ``{worker: answers (R,)}``; the rows' other answers stay
    independent."""
    cycles = [linked for linked in linked_sets(design.pairs) if not linked.is_tree]
    in_cycle = {int(d) for linked in cycles for d in linked.pairs}
    on_trees = np.array([d for d in range(design.n_pairs) if d not in in_cycle], np.int64)
    answer = {}
    with numpyro.plate("item_pairs", design.codes.shape[0]):
        for e, parent, child in draw_order(design.pairs[on_trees]):
            d = on_trees[e]
            first = jnp.where(y == 1, b[parent], a[parent])
            if parent not in answer:
                answer[parent] = numpyro.sample(f"pair_answer_{parent}", dist.Bernoulli(first))
            chance = child_chance(
                answer[parent],
                first,
                jnp.where(y == 1, b[child], a[child]),
                jnp.where(y == 1, covariance[d, 1], covariance[d, 0]),
            )
            answer[child] = numpyro.sample(
                f"pair_answer_{child}", dist.Bernoulli(jnp.clip(chance, 0.0, 1.0))
            )
        for linked in cycles:
            members, ends = linked.members, linked.ends(design.pairs)
            log_joint = [
                joint_of_interaction(rates[members], interaction[linked.pairs, c], ends, jnp)
                for c, rates in enumerate((a, b))
            ]  # each (2^m,)
            pattern = numpyro.sample(
                f"cycle_pattern_{members[0]}",
                dist.Categorical(logits=jnp.where(y[:, None] == 1, log_joint[1], log_joint[0])),
            )
            drawn = jnp.asarray(states(members.size))[pattern]  # (R, m)
            for position, member in enumerate(members):
                answer[int(member)] = drawn[:, position].astype(jnp.int32)
    return answer


def population_log_density(logit_a, logit_b, population: dict):
    """Log prior density of posterior draws (NumPy), on the logit scale the model samples:

    - per worker, the population's ``log[(1 - pi) N(x_j; mu, Sigma) + pi N(x_j; random)]`` of
      ``x_j = (logit a_j, logit b_j)``: (..., K);
    - per draw, the hyperpriors' log densities without their constants: (...).

    ``logit_a, logit_b`` (..., K); ``population`` maps each of :data:`POPULATION_SITES` to its
    draws ((..., 2) for the mean and spread, (...) for the others).
    """
    mean, spread = population["population_mean"], population["population_spread"]
    correlation = population["population_correlation"]
    share = population["population_random_share"]
    x = np.stack([logit_a, logit_b], axis=-1)
    informative = bivariate_normal_log_density(
        x, mean[..., None, :], spread[..., None, :], correlation[..., None], xp=np
    )
    random = random_log_density(x, xp=np)
    channel = np.logaddexp(
        np.log1p(-share)[..., None] + informative, np.log(share)[..., None] + random
    )
    gap = mean[..., 1] - mean[..., 0]
    half = (correlation + 1.0) / 2.0
    hyper = (
        -0.5 * ((mean[..., 0] - MEAN_LOCATION) / MEAN_SCALE) ** 2
        - 0.5 * (gap / GAP_SCALE) ** 2
        + ((SPREAD_PRIOR[0] - 1.0) * np.log(spread) - SPREAD_PRIOR[1] * spread).sum(axis=-1)
        + (CORRELATION_CONCENTRATION - 1.0) * np.log(half * (1.0 - half))
        + (RANDOM_SHARE_PRIOR[0] - 1.0) * np.log(share)
        + (RANDOM_SHARE_PRIOR[1] - 1.0) * np.log1p(-share)
    )
    return channel, hyper
