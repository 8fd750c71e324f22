"""The hierarchical Dawid–Skene program and its sparse response design."""

import warnings
from dataclasses import replace

import jax
import numpy as np
import pytest
from bayescal.models import (
    POPULATION_SITES,
    PatternDesign,
    ResponseDesign,
    hierarchical_dawid_skene,
    labels_per_channel,
    mirrored_chains,
    population_log_density,
    population_mean_channel,
)
from bayescal.models.hierarchical_dawid_skene import (
    CENTRING_LABELS,
    RANDOM_GAP_SPREAD,
    BivariateNormal,
    bivariate_normal_log_density,
)
from numpyro import handlers
from numpyro.infer import Predictive
from numpyro.infer.util import log_density
from scipy import special, stats

import bayescal as bc
from bayescal.bayes.sampler import Sampler, _Chains
from bayescal.channels.pattern_likelihood import pattern_log_prob
from bayescal.data.responses import Responses


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def _responses():
    # items 0 and 2 have the same workers and answers; item 3 has one label; item 4 none
    return Responses(
        item=np.array([0, 0, 1, 1, 1, 2, 2, 3]),
        annotator=np.array([0, 2, 0, 1, 2, 2, 0, 1]),
        label=np.array([1, 0, 1, 1, 0, 0, 1, 0]),
        n_items=5,
        annotator_names=("u", "v", "w"),
    )


def test_design_rows_are_codes_of_each_items_responses_padded_and_counted():
    design = ResponseDesign.from_responses(_responses(), compress=False)
    pad = 6
    assert design.codes.tolist() == [[1, 4, pad], [1, 3, 4], [1, 4, pad], [2, pad, pad]]
    assert design.counts.tolist() == [1, 1, 1, 1]
    compressed = ResponseDesign.from_responses(_responses())
    assert sorted(zip(map(tuple, compressed.codes.tolist()), compressed.counts)) == [
        ((1, 3, 4), 1.0),
        ((1, 4, pad), 2.0),
        ((2, pad, pad), 1.0),
    ]
    assert compressed.fitted_counts() == {(0, (1, 3, 4)): 1.0, (0, (1, 4)): 2.0, (0, (2,)): 1.0}


def test_the_design_counts_each_workers_labels_and_keeps_them_when_saved():
    rng = np.random.default_rng(0)
    n_workers, per_item = 20, 3
    items = np.repeat(np.arange(400), per_item)
    workers = np.concatenate([rng.choice(n_workers, per_item, replace=False) for _ in range(400)])
    responses = Responses(
        items, workers, rng.integers(0, 2, items.size), 400, tuple("abcdefghijklmnopqrst")
    )
    design = ResponseDesign.from_responses(responses)  # compressed: rows counted
    assert design.counts.max() > 1
    assert design.labels.tolist() == np.bincount(workers, minlength=n_workers).tolist()
    assert design.position.tolist() == list(range(n_workers))  # none summed out
    saved = ResponseDesign.from_constant_data(design.constant_data())
    assert saved.labels.tolist() == design.labels.tolist()
    assert saved.layout() == design.layout()


def test_row_log_likelihood_matches_the_dense_pattern_likelihood():
    # the same data as dense patterns, through the pattern models' likelihood: an independent path
    responses = _responses()
    design = ResponseDesign.from_responses(responses)
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.05, 0.5, (7, 3)), rng.uniform(0.5, 0.95, (7, 3))
    prevalence = rng.uniform(0.2, 0.8, 7)
    dense = -np.ones((design.counts.size, 3), int)
    for r, row in enumerate(design.codes):
        for code in row[row < 6]:
            dense[r, code // 2] = code % 2
    expected = pattern_log_prob(
        a, b, prevalence[:, None] * np.ones(dense.shape[0]), dense == 1, dense == 0, xp=np
    )
    assert np.allclose(design.row_log_likelihood(a, b, prevalence), expected, atol=1e-12)
    padded = design.padded(8)
    assert np.allclose(padded.row_log_likelihood(a, b, prevalence)[:, design.counts.size :], 0.0)


def _responses_with_single_labels():
    """``_responses()`` and two workers of one label each: x on item 3, y on item 4."""
    responses = _responses()
    return Responses(
        item=np.r_[responses.item, 3, 4],
        annotator=np.r_[responses.annotator, 3, 4],
        label=np.r_[responses.label, 1, 0],
        n_items=5,
        annotator_names=("u", "v", "w", "x", "y"),
    )


def test_workers_of_one_label_are_summed_out_and_the_design_records_them():
    responses = _responses_with_single_labels()
    design = ResponseDesign.from_responses(responses)
    assert design.summed_out.tolist() == [False, False, False, True, True]
    assert design.n_summed_out == 2 and design.position.tolist() == [0, 1, 2, 3, 3]
    assert design.layout() == (5, 2, 3)
    again = ResponseDesign.from_constant_data(design.constant_data())
    assert again.summed_out.tolist() == design.summed_out.tolist()
    assert again.fitted_counts() == design.fitted_counts()
    every = ResponseDesign.from_responses(responses, sum_out_single=False)
    assert every.n_summed_out == 0 and not every.summed_out.any()
    # a fit saved before summing out kept no such variable, only which workers were centred:
    # every worker was sampled
    variables = design.constant_data()
    del variables["summed_out"]
    variables["centred"] = (("annotator",), np.zeros(5, np.int8))
    old = ResponseDesign.from_constant_data(variables)
    assert not old.summed_out.any() and old.labels.tolist() == [3, 2, 3, 1, 1]


def test_a_crowd_of_one_label_workers_samples_no_worker():
    # each worker gives one label: all are summed out, their channel the population's mean
    responses = Responses(np.arange(4), np.arange(4), np.array([1, 0, 1, 1]), 4, tuple("wxyz"))
    design = ResponseDesign.from_responses(responses)
    assert design.n_summed_out == 4
    prior_params = bc.Priors().as_array()
    program = lambda: hierarchical_dawid_skene(design, prior_params, counts=design.counts)  # noqa: E731
    trace = handlers.trace(handlers.seed(program, 0)).get_trace()
    assert "channel_partial" not in trace
    population = {site: np.asarray(trace[site]["value"]) for site in POPULATION_SITES}
    mean = population_mean_channel(
        population["population_mean"],
        population["population_spread"],
        population["population_random_share"],
        xp=np,
    )
    assert np.allclose(trace["a"]["value"], mean[0]) and np.allclose(trace["b"]["value"], mean[1])


def test_the_populations_mean_channel_is_its_expected_rates():
    """Against quadrature by scipy (the informative component, up to a spread of 5 logits) and
    a Monte Carlo mean (the random component's 1/2)."""
    from bayescal.models.hierarchical_dawid_skene import RandomWorkers
    from scipy import integrate

    for mean, spread, share in [
        ((-1.5, 1.8), (0.2, 0.5), 0.1),
        ((-3.0, 4.0), (3.0, 5.0), 0.4),
        ((0.5, 0.0), (1.0, 1e-3), 0.0),
    ]:
        got = population_mean_channel(np.array(mean), np.array(spread), np.array(share), xp=np)
        for location, scale, rate in zip(mean, spread, got):
            informative, _ = integrate.quad(
                lambda x, location=location, scale=scale: (
                    special.expit(x) * stats.norm(location, scale).pdf(x)
                ),
                location - 12 * scale,
                location + 12 * scale,
                epsabs=1e-13,
                limit=200,
            )
            assert rate == pytest.approx((1 - share) * informative + share / 2, abs=1e-6)
    draws = np.asarray(RandomWorkers().sample(jax.random.PRNGKey(1), (400_000,)))
    assert np.allclose(special.expit(draws).mean(axis=0), 0.5, atol=0.003)


@pytest.mark.parametrize(
    "workers", ["few labels", "many labels", "one label summed out", "u ~ w dependent"]
)
def test_program_log_density_is_population_plus_likelihood(workers):
    """The log density is the hyperpriors, each sampled worker's population density times its
    form's Jacobian and the likelihood of the rows; a worker of one label has no density of
    its own, and its label's probability is the population's mean channel (the model's
    docstring shows that this integrates the worker out exactly)."""
    summed = workers == "one label summed out"
    if summed:  # the workers of one label renumbered 1 and 3: sampled workers after each
        responses = _responses_with_single_labels()
        number = np.array([0, 2, 4, 1, 3])
        responses = Responses(
            responses.item, number[responses.annotator], responses.label, 5, tuple("uxvyw")
        )
    design = ResponseDesign.from_responses(responses if summed else _responses())
    if workers == "many labels":  # weights 0.5, 0.89 and 0.99 of the centred form, by hand
        design = replace(design, labels=np.array([120.0, 1_000.0, 12_000.0]))
    pair = workers == "u ~ w dependent"
    if pair:  # the pair's share is Uniform(0, 1): no density term of its own
        design = replace(design, pairs=np.array([[0, 2]]))
    prior_params = bc.Priors(prevalence=(2.0, 3.0)).as_array()
    program = lambda: hierarchical_dawid_skene(design, prior_params, counts=design.counts)  # noqa: E731
    trace = handlers.trace(handlers.seed(program, 3)).get_trace()
    values = {
        n: s["value"] for n, s in trace.items() if s["type"] == "sample" and not s["is_observed"]
    }
    total, _ = log_density(program, (), {}, values)
    a, b = np.asarray(trace["a"]["value"]), np.asarray(trace["b"]["value"])
    prevalence = float(values["prevalence"])
    population = {site: np.asarray(trace[site]["value"]) for site in POPULATION_SITES}
    spread, rho = population["population_spread"], float(population["population_correlation"])
    share = float(population["population_random_share"])
    channel, hyper = population_log_density(special.logit(a), special.logit(b), population)
    # the population by hand through scipy: a mixture of a bivariate normal and the random
    # component, built from its (mean of the logits, their difference) description
    x = np.stack([special.logit(a), special.logit(b)], axis=-1)
    informative = stats.multivariate_normal(
        population["population_mean"],
        np.diag(spread) @ np.array([[1, rho], [rho, 1]]) @ np.diag(spread),
    ).logpdf(x)
    random = stats.logistic().logpdf(x.mean(axis=1)) + stats.norm(0.0, RANDOM_GAP_SPREAD).logpdf(
        x[:, 1] - x[:, 0]
    )
    assert np.allclose(
        channel, np.logaddexp(np.log1p(-share) + informative, np.log(share) + random), atol=1e-10
    )
    sampled = ~design.summed_out
    if summed:  # x and y: the population's mean channel
        mean = population_mean_channel(
            population["population_mean"], spread, np.asarray(share), xp=np
        )
        assert np.allclose(a[~sampled], mean[0]) and np.allclose(b[~sampled], mean[1])
    # worker j's sampled (u, v) maps to x_j = mu + s^(1 - lam_j) (x~_j - lam_j mu), x~_j =
    # (u - v / 2, u + v / 2) (the model's docstring), and has density p_population(x_j) times
    # that map's Jacobian, here differentiated by JAX
    mu = population["population_mean"]

    def mapped(w, weight):
        tilde = jax.numpy.stack([w[0] - w[1] / 2, w[0] + w[1] / 2])
        return mu + spread ** (1 - weight) * (tilde - weight * mu)

    order = np.argsort(design.position[sampled])  # the sampled workers, in the sampled order
    weights = (design.labels[sampled] / (design.labels[sampled] + CENTRING_LABELS))[order]
    points = np.asarray(values["channel_partial"])
    assert points.shape == (sampled.sum(), 2)
    assert np.allclose(
        [mapped(w, weight) for w, weight in zip(points, weights)], x[sampled][order], atol=1e-10
    )
    jacobian = sum(
        np.linalg.slogdet(np.asarray(jax.jacfwd(mapped)(w, weight)))[1]
        for w, weight in zip(points, weights)
    )
    constants = (
        -np.log(1.5 * np.sqrt(2 * np.pi))  # Normal(-1.5, 1.5) on the population mean of logit a
        + np.log(np.sqrt(2 / np.pi) / 3.0)  # HalfNormal(3) on the gap
        + 2 * np.log(2.0**2 / special.gamma(2.0))  # Gamma(2, 2) on each spread
    )
    expected = (
        channel[sampled].sum()
        + jacobian
        + hyper
        + constants
        + (2 - 1) * np.log(prevalence)
        + (3 - 1) * np.log1p(-prevalence)
        + design.counts
        @ design.row_log_likelihood(
            a, b, np.asarray(prevalence), np.asarray(trace["covariance"]["value"]) if pair else None
        )
    )
    assert float(total) == pytest.approx(float(expected), abs=1e-8)


def test_bivariate_normal_matches_scipy_and_samples_its_covariance():
    mean, spread, rho = np.array([-1.0, 2.0]), np.array([0.7, 1.3]), -0.4
    covariance = np.diag(spread) @ np.array([[1, rho], [rho, 1]]) @ np.diag(spread)
    points = np.random.default_rng(2).normal(size=(5, 2))
    assert np.allclose(
        bivariate_normal_log_density(points, mean, spread, rho, xp=np),
        stats.multivariate_normal(mean, covariance).logpdf(points),
    )
    draws = np.asarray(BivariateNormal(mean, spread, rho).sample(jax.random.PRNGKey(0), (40_000,)))
    assert np.allclose(draws.mean(axis=0), mean, atol=0.03)
    assert np.allclose(np.cov(draws.T), covariance, atol=0.05)


def test_prior_predictive_draws_answers_only_where_workers_labelled():
    design = ResponseDesign.from_responses(_responses(), compress=False)
    draws = Predictive(hierarchical_dawid_skene, num_samples=200)(
        jax.random.PRNGKey(0), design, bc.Priors().as_array()
    )
    codes = np.asarray(draws["codes"])
    assert codes.shape == (200, *design.codes.shape)
    assert np.array_equal(codes // 2, np.broadcast_to(design.codes // 2, codes.shape))
    assert 0.3 < (codes[codes < 6] % 2).mean() < 0.7  # both answers are drawn


def test_a_mirrored_chain_is_avoided_by_starting_every_worker_oriented():
    # started at random sides, a chain settled on the mirror image (R-hat 1.8; models docstring)
    sim = bc.simulate_crowd(600, 30, labels_per_item=3, seed=1)
    responses = sim.data.responses()
    # at target acceptance 0.8 (the model's is 0.99): the start is the subject, at a third of the cost
    sampler = Sampler(
        ResponseDesign.from_responses(responses),
        "hierarchical_dawid_skene",
        2,
        300,
        300,
        target_accept=0.8,
    )
    samples, _ = sampler.run(ResponseDesign.from_responses(responses), bc.Priors(), 0)
    gap = (samples["b"] - samples["a"]).mean(axis=(1, 2))
    assert (gap > 0.3).all()
    assert np.ptp(samples["prevalence"].mean(axis=1)) < 0.05


def test_a_responses_labels_per_worker_weigh_its_gap():
    design = ResponseDesign.from_responses(_responses())
    assert labels_per_channel(design).tolist() == _responses().labels_per_annotator().tolist()


def _chains(gaps):
    """Draws of chains (C, 4 draws, 3 workers) whose every worker has the chain's gap."""
    gaps = np.asarray(gaps, float)[:, None, None] * np.ones((1, 4, 3))
    return {"a": 0.5 - gaps / 2, "b": 0.5 + gaps / 2, "prevalence": np.full(gaps.shape[:2], 0.4)}


def test_a_chain_whose_workers_are_reversed_while_anothers_are_not_is_mirrored():
    design = ResponseDesign.from_responses(_responses())
    assert mirrored_chains(_chains([0.6, -0.6, 0.5]), design).tolist() == [False, True, False]
    # every chain reversed: what the data say, not a stray chain
    assert not mirrored_chains(_chains([-0.6, -0.5]), design).any()
    # gold orients the fit
    with_gold = replace(design, gold=np.full(design.counts.size, -1.0))
    assert not mirrored_chains(_chains([0.6, -0.6]), with_gold).any()


def test_the_sampler_leaves_a_mirrored_chain_out_and_says_so():
    design = ResponseDesign.from_responses(_responses())
    sampler = Sampler(design, "hierarchical_dawid_skene", 3, 10, 4)
    draws = _chains([0.6, -0.6, 0.5])
    stats = {"diverging": np.zeros((3, 4), bool), "energy": np.arange(12.0).reshape(3, 4)}
    with pytest.warns(
        bc.SamplingWarning, match=r"chain 1 of 3 settled in the mirror image .* 2 chain\(s\) remain"
    ):
        sampler._say_mirrored(_Chains(None, (), draws, stats), design)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # leaving out is silent: a fit's extensions repeat it
        kept, kept_stats = sampler._without_mirrored_chains(draws, stats, design)
    assert kept["a"].shape == (2, 4, 3) and (kept["b"] > kept["a"]).all()
    assert kept_stats["energy"][:, 0].tolist() == [0.0, 8.0]


def test_pattern_design_round_trips_through_its_constant_data():
    data = bc.AnnotatedScores(np.full(6, 0.5), np.array([[1, 0, -1]] * 3 + [[0, 0, 1]] * 3))
    design = PatternDesign.from_counts(data.compress(), grouped=False)
    again = PatternDesign.from_constant_data(design.constant_data())
    assert (
        again.fitted_counts()
        == design.fitted_counts()
        == {(0, (1, 0, -1)): 3.0, (0, (0, 0, 1)): 3.0}
    )
    responses = ResponseDesign.from_responses(_responses())
    assert (
        ResponseDesign.from_constant_data(responses.constant_data()).fitted_counts()
        == responses.fitted_counts()
    )


def test_a_sampler_refuses_data_of_another_layout_before_compiling():
    sampler = Sampler(
        ResponseDesign.from_responses(_responses()), "hierarchical_dawid_skene", 1, 10, 10
    )
    narrower = Responses(
        item=np.array([0, 0, 1, 1]),
        annotator=np.array([0, 1, 1, 2]),
        label=np.array([1, 0, 1, 1]),
        n_items=2,
        annotator_names=("u", "v", "w"),
    )
    with pytest.raises(
        ValueError,
        match=r"data of layout \(3, 2, 2\) with 2 rows do not fit this sampler's layout \(3, 0, 3\) of 8 rows",
    ):
        sampler.fit(narrower, bc.Priors(), 0)
    assert sampler.compiled_from is None


def test_one_layout_passes_its_compiled_code_the_same_dtypes_however_its_codes_were_made():
    """A response design's codes are int32; a simulation study's, drawn by JAX, are int64.
    Compiled code takes only the dtypes it was compiled with, so the sampler passes both alike
    (an SBC's sampler had refused the next fit of a crowd of the same layout)."""
    design = ResponseDesign.from_responses(_responses())
    drawn = replace(design, codes=design.codes.astype(np.int64))
    sampler = Sampler(design, "hierarchical_dawid_skene", 1, 10, 10)
    arguments, drawn_arguments = (sampler._shared(d, bc.Priors()) for d in (design, drawn))
    assert design.codes.dtype == np.int32
    assert [x.dtype for x in arguments] == [x.dtype for x in drawn_arguments]
    for x, y in zip(arguments, drawn_arguments):
        np.testing.assert_array_equal(x, y)
