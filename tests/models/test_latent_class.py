"""The latent class program and its parts: the channel prior and the fold of its draws, the
pattern design, the pattern likelihood."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from bayescal.models import (
    PatternDesign,
    fold_orientation,
    labels_per_channel,
    latent_class_model,
)
from bayescal.models.channel_prior import BetaKernel
from numpyro.infer import Predictive
from scipy import special, stats

import bayescal as bc
from bayescal.bayes.registry import channel_model
from bayescal.channels.pattern_likelihood import pattern_log_prob


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def _design(counts_of_data):
    return PatternDesign.from_counts(counts_of_data.compress(), grouped=False)


def test_the_fold_mirrors_the_draws_whose_label_weighted_gap_is_negative():
    """fold_orientation: (a, b, mu) -> (b, a, 1 - mu) where sum_j n_j (b_j - a_j) < 0, with
    n_j each annotator's labels; a pair's two covariances and the two loadings exchanged."""
    data = bc.AnnotatedScores(
        np.full(4, 0.5), [[1, 0, -1], [0, 1, -1], [1, 1, 0], [0, 0, 1]]
    )  # labels per annotator: 4, 4, 2
    design = _design(data)
    assert labels_per_channel(design).tolist() == [4, 4, 2]
    a = np.array([[0.2, 0.3, 0.9], [0.6, 0.5, 0.1], [0.2, 0.4, 0.9]])
    b = np.array([[0.8, 0.6, 0.1], [0.3, 0.4, 0.8], [0.3, 0.2, 0.7]])
    # weighted gaps: 4*0.6 + 4*0.3 - 2*0.8 = 2.0; -1.2 - 0.4 + 1.4 = -0.2; 0.4 - 0.8 - 0.4 < 0
    draws = {
        "a": a,
        "b": b,
        "prevalence": np.array([0.3, 0.3, 0.3]),
        "covariance": np.array([[[0.01, 0.02]]] * 3),
        "loading": np.array([[0.5, 1.5]] * 3),
    }
    folded = fold_orientation(draws, design)
    flipped = np.array([False, True, True])
    assert np.array_equal(folded["a"], np.where(flipped[:, None], b, a))
    assert np.array_equal(folded["b"], np.where(flipped[:, None], a, b))
    assert folded["prevalence"].tolist() == [0.3, 0.7, 0.7]
    assert folded["covariance"][:, 0].tolist() == [[0.01, 0.02], [0.02, 0.01], [0.02, 0.01]]
    assert folded["loading"].tolist() == [[0.5, 1.5], [1.5, 0.5], [1.5, 0.5]]
    # a draw and its mirror image fold to one draw; with gold nothing is folded
    mirrored = {**draws, "a": b, "b": a, "prevalence": 1 - draws["prevalence"]}
    mirrored["covariance"] = draws["covariance"][..., ::-1]
    mirrored["loading"] = draws["loading"][..., ::-1]
    again = fold_orientation(mirrored, design)
    for name in draws:
        assert np.allclose(again[name], folded[name]), name
    gold = bc.AnnotatedScores(data.scores, data.annotations, gold=[1, -1, -1, 0])
    assert fold_orientation(draws, _design(gold)) is draws


def test_channels_per_group_fold_each_group_on_its_own():
    data = bc.AnnotatedScores(
        np.full(4, 0.5), [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]], groups=[0, 0, 1, 1]
    )
    design = PatternDesign.from_counts(data.compress(), grouped=True, channels_by_group=True)
    assert labels_per_channel(design).tolist() == [[2, 2, 2], [2, 2, 2]]
    a = np.array([[0.1, 0.1, 0.1, 0.9, 0.9, 0.9]])  # group 0 oriented, group 1 mirrored
    b = np.array([[0.8, 0.8, 0.8, 0.2, 0.2, 0.2]])
    folded = fold_orientation({"a": a, "b": b, "prevalence": np.array([[0.3, 0.4]])}, design)
    assert folded["a"].tolist() == [[0.1, 0.1, 0.1, 0.2, 0.2, 0.2]]
    assert folded["b"].tolist() == [[0.8, 0.8, 0.8, 0.9, 0.9, 0.9]]
    assert folded["prevalence"].tolist() == [[0.3, 0.6]]


def test_the_chains_start_on_the_image_the_channels_betas_favour():
    """majority_start: the majority vote's channels as logits, or their mirror image where the
    Betas favour it (a prior with a > b a priori); flat priors and gold keep the vote's."""
    from bayescal.models import majority_start

    data = bc.simulate_annotated(2000, bc.Channels([0.1, 0.2, 0.15], [0.9, 0.8, 0.85]), seed=1)
    design = _design(data.data)
    arrays = (jnp.asarray(design.positive), jnp.asarray(design.negative))
    counts = jnp.asarray(design.counts)
    voted = np.asarray(special.expit(majority_start(*arrays, counts)))
    assert (voted[:, 0] < 0.3).all() and (voted[:, 1] > 0.7).all()  # (a, b) per annotator
    flat = jnp.ones((3, 2))
    kept = np.asarray(special.expit(majority_start(*arrays, counts, prior_params=flat)))
    np.testing.assert_array_equal(kept, voted)
    upside_down = jnp.array([[8.0, 2.0], [2.0, 8.0], [1.0, 1.0]])  # a ~ Beta(8, 2), b ~ Beta(2, 8)
    mirrored = np.asarray(special.expit(majority_start(*arrays, counts, prior_params=upside_down)))
    np.testing.assert_allclose(mirrored, voted[:, ::-1])
    gold = jnp.asarray(np.where(np.arange(design.counts.size) == 0, 1, -1))
    held = majority_start(*arrays, counts, gold, prior_params=upside_down)
    np.testing.assert_array_equal(held, majority_start(*arrays, counts, gold))  # gold orients


def test_the_channel_prior_is_the_two_betas_unoriented():
    from bayescal.models.latent_class import _channel_prior

    prior = _channel_prior(jnp.array([[2.0, 5.0], [6.0, 2.0], [1.0, 1.0]]))
    pairs = np.asarray(prior.sample(jax.random.PRNGKey(1), (20_000,)))
    assert 0.0 < (pairs[:, 0] > pairs[:, 1]).mean() < 0.05  # a > b has prior mass
    assert stats.kstest(pairs[:, 0], stats.beta(2, 5).cdf).pvalue > 0.01
    assert stats.kstest(pairs[:, 1], stats.beta(6, 2).cdf).pvalue > 0.01
    constants = special.betaln(2, 5) + special.betaln(6, 2)
    for a, b in ((0.2, 0.7), (0.7, 0.2)):
        expected = stats.beta(2, 5).logpdf(a) + stats.beta(6, 2).logpdf(b) + constants
        assert float(prior.log_prob(jnp.array([a, b]))) == pytest.approx(expected, abs=1e-10)


def test_beta_kernel_differs_from_the_beta_density_by_its_constant_only():
    prior = BetaKernel(3.0, 1.5)
    x = jnp.array([1e-6, 0.3, 0.9, 1 - 1e-6])
    expected = stats.beta(3.0, 1.5).logpdf(np.asarray(x)) + special.betaln(3.0, 1.5)
    assert np.allclose(np.asarray(prior.log_prob(x)), expected, atol=1e-10)
    flat = BetaKernel(1.0, 1.0).log_prob(jnp.array([0.0, 0.5, 1.0]))
    assert np.array_equal(np.asarray(flat), np.zeros(3))  # x log 0 taken as 0 at alpha = 1


def _data_with_missing(seed=0):
    rng = np.random.default_rng(seed)
    annotations = rng.integers(0, 2, (400, 3))
    annotations[rng.random((400, 3)) < 0.3] = -1
    annotations[(annotations == -1).all(axis=1), 0] = 1
    return bc.AnnotatedScores(rng.random(400), annotations, groups=rng.integers(0, 2, 400))


def test_pattern_probabilities_of_each_cell_sum_to_one():
    design = PatternDesign.from_counts(_data_with_missing().compress(), grouped=True, complete=True)
    a, b, mu = jnp.array([0.1, 0.2, 0.3]), jnp.array([0.8, 0.7, 0.9]), jnp.array([0.3, 0.6])
    p = np.exp(
        np.asarray(pattern_log_prob(a, b, mu[design.group_index], design.positive, design.negative))
    )
    for rows in design.cell_rows:
        assert p[rows[rows >= 0]].sum() == pytest.approx(1.0, abs=1e-12)


def test_pattern_log_prob_hand_computed():
    # pattern (1, 0, missing): (1 - mu) a1 (1 - a2) + mu b1 (1 - b2)
    design = PatternDesign.from_counts(
        bc.AnnotatedScores([0.5], [[1, 0, -1]]).compress(), grouped=False
    )
    a, b, mu = np.array([0.1, 0.2, 0.3]), np.array([0.8, 0.7, 0.9]), 0.4
    value = float(
        pattern_log_prob(
            jnp.array(a), jnp.array(b), jnp.full(1, mu), design.positive, design.negative
        )[0]
    )
    assert value == pytest.approx(np.log(0.6 * 0.1 * 0.8 + 0.4 * 0.8 * 0.3), abs=1e-12)


def test_complete_design_keeps_the_counts_and_lists_every_combination():
    data = _data_with_missing()
    counts = data.compress()
    design = PatternDesign.from_counts(counts, grouped=True, complete=True)
    assert design.counts.sum() == data.n_items
    assert design.cell_sizes.sum() == data.n_items
    assert np.array_equal(design.counts_of(counts, grouped=True), design.counts)
    observed = PatternDesign.from_counts(counts, grouped=True)
    assert observed.counts.size == counts.n_cells <= design.counts.size


def test_counts_of_rejects_a_pattern_outside_the_layout():
    design = PatternDesign.from_counts(
        bc.AnnotatedScores([0.5, 0.5], [[1, 0, 1], [0, 0, 1]]).compress(), grouped=False
    )
    other = bc.AnnotatedScores([0.5], [[1, 1, 1]]).compress()
    with pytest.raises(
        ValueError, match=r"pattern \[1, 1, 1\] of group 0 is not a row of this design"
    ):
        design.counts_of(other, grouped=False)


@pytest.mark.parametrize("model, grouped", [("dawid_skene", False), ("hui_walter", True)])
def test_prior_predictive_draws_counts_per_cell(model, grouped):
    data = _data_with_missing(1)
    design = channel_model(model).pattern_design(data.compress(), complete=True)
    assert design.grouped is grouped
    draws = Predictive(channel_model(model).load_program(), num_samples=50)(
        jax.random.PRNGKey(2), design, bc.Priors().as_array()
    )
    counts = np.asarray(draws["counts"])
    assert counts.shape == (50, design.counts.size)
    for rows, size in zip(design.cell_rows, design.cell_sizes):
        assert np.allclose(counts[:, rows[rows >= 0]].sum(axis=1), size)
    a, b = np.asarray(draws["a"]), np.asarray(draws["b"])
    # the prior holds no annotator to a < b: the fold orients the draws after sampling
    assert ((0 < a) & (a < 1) & (0 < b) & (b < 1)).all()
    assert (a < b).any() and (b < a).any()
    assert np.asarray(draws["prevalence"]).shape == ((50, design.n_groups) if grouped else (50,))


def test_prior_predictive_needs_a_complete_design():
    design = PatternDesign.from_counts(_data_with_missing().compress(), grouped=False)
    with pytest.raises(ValueError, match=r"prior-predictive sampling needs a complete design"):
        Predictive(latent_class_model, num_samples=2)(
            jax.random.PRNGKey(0), design, bc.Priors().as_array()
        )


def test_complete_layout_is_limited_by_the_labels_of_an_item_not_the_crowd():
    annotations = np.array(list(itertools.product((0, 1), repeat=13)))[:20]
    counts = bc.AnnotatedScores(np.full(20, 0.5), annotations).compress()
    with pytest.raises(
        ValueError,
        match=r"^an item has labels from 13 annotators; the model checks list every response "
        r"combination of an item's annotators and are limited to 12$",
    ):
        PatternDesign.from_counts(counts, grouped=False, complete=True)
    # 40 annotators, three labels an item (catalogue row 34): a small layout
    rng = np.random.default_rng(0)
    sparse = np.full((300, 40), -1)
    for row in sparse:
        row[rng.choice(40, 3, replace=False)] = rng.integers(0, 2, 3)
    design = PatternDesign.from_counts(
        bc.AnnotatedScores(np.full(300, 0.5), sparse).compress(), grouped=False, complete=True
    )
    masks = np.unique(sparse >= 0, axis=0).shape[0]
    assert design.counts.size == 8 * masks and design.counts.sum() == 300
