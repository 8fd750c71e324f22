"""Gold items in the Bayesian pattern models: a gold row's class is known, so it adds
log p(A | Y = gold) + log P(Y = gold), and the gold orients the fit (its draws are not
folded: models/orientation.py).  One judge with gold has no conjugate posterior (the other
items add a Binomial factor in a + (b - a) mu): NUTS is checked against numerical quadrature
of that posterior."""

import warnings

import numpy as np
import pytest

import bayescal as bc

FAST = {"progress": False}


def _one_judge(a, b, seed):
    simulation = bc.simulate_annotated(3000, bc.Channels([a], [b]), seed=seed)
    return simulation.with_gold(200, seed=seed).data


def _quadrature_means(data, nodes=120):
    """Posterior means of (a, b, mu) under flat priors, by Gauss–Legendre quadrature on the
    box of +-0.3 around the gold items' own rates (the posterior sds are about 0.03)."""
    label, gold = data.annotations[:, 0], data.gold
    centre = (label[gold == 0].mean(), label[gold == 1].mean(), gold[gold >= 0].mean())
    x, w = np.polynomial.legendre.leggauss(nodes)
    grids = []
    for c in centre:
        lo, hi = max(c - 0.3, 1e-9), min(c + 0.3, 1 - 1e-9)
        grids.append((lo + (hi - lo) * (x + 1) / 2, w * (hi - lo) / 2))
    (a, wa), (b, wb), (mu, wm) = grids
    a, b, mu = np.meshgrid(a, b, mu, indexing="ij")
    weight = wa[:, None, None] * wb[None, :, None] * wm[None, None, :]
    n = {(g, y): ((gold == g) & (label == y)).sum() for g in (-1, 0, 1) for y in (0, 1)}
    rate = a + (b - a) * mu
    log_post = (
        n[(0, 1)] * np.log(a)
        + n[(0, 0)] * np.log1p(-a)
        + n[(1, 1)] * np.log(b)
        + n[(1, 0)] * np.log1p(-b)
        + (n[(0, 0)] + n[(0, 1)]) * np.log1p(-mu)
        + (n[(1, 0)] + n[(1, 1)]) * np.log(mu)
        + n[(-1, 1)] * np.log(rate)
        + n[(-1, 0)] * np.log1p(-rate)
    )
    density = weight * np.exp(log_post - log_post.max())
    # the box holds the posterior: its faces carry no mass
    assert density.sum() > 0 and all(
        density.take(i, axis=k).sum() / density.sum() < 1e-6 for k in range(3) for i in (0, -1)
    )
    return np.array([(v * density).sum() / density.sum() for v in (a, b, mu)])


@pytest.mark.slow
@pytest.mark.parametrize(("a", "b"), [(0.15, 0.8), (0.6, 0.3)], ids=["judge", "adversarial"])
def test_one_judge_with_gold_matches_quadrature(a, b):
    data = _one_judge(a, b, seed=11)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = bc.fit_bayes(data, **FAST)
    named = [str(w.message) for w in caught if issubclass(w.category, bc.ChannelWarning)]
    # the adversarial judge is named, in the line the EM gives it; the judge is not
    assert named == (
        [
            "dawid_skene: annotator a0 is estimated adversarial (b < a by more than twice its "
            "standard error: their 1 means Y = 0 more often); the correction uses them as such"
        ]
        if b < a
        else []
    )
    draws_a, draws_b, draws_mu = fit.draws()
    means = np.array([draws_a.mean(), draws_b.mean(), draws_mu.mean()])
    np.testing.assert_allclose(means, _quadrature_means(data), atol=0.005)
    # the judge is estimated as it is, in every chain (no label switching): the posterior
    # gap keeps its sign in all but its far tail (4 of 4000 draws for the adversarial judge)
    gaps = fit.chains["b"][..., 0] - fit.chains["a"][..., 0]
    assert (np.sign(gaps.mean(axis=1)) == np.sign(b - a)).all()
    assert (np.sign(gaps) == np.sign(b - a)).mean() > 0.99


def test_gold_rows_score_the_known_class():
    """The row log-likelihood of a gold row is its class's joint term, not the mixture."""
    from bayescal.models import PatternDesign

    data = bc.AnnotatedScores(
        [0.1, 0.5, 0.9, 0.7], [[1, 0], [1, 0], [0, 0], [1, 1]], gold=[1, -1, 0, -1]
    )
    design = PatternDesign.from_counts(data.compress(), grouped=False)
    a, b, mu = np.array([0.2, 0.1]), np.array([0.7, 0.9]), np.array(0.4)
    rows = design.row_log_likelihood(a, b, mu)
    by_row = {(tuple(p), int(g)): r for p, g, r in zip(design.responses(), design.gold, rows)}
    class1 = np.log(0.7 * 0.1) + np.log(0.4)
    class0 = np.log(0.8 * 0.9) + np.log(0.6)
    assert by_row[((1, 0), 1)] == pytest.approx(class1)
    assert by_row[((0, 0), 0)] == pytest.approx(class0)
    mixture = np.logaddexp(np.log(0.2 * 0.9) + np.log(0.6), class1)
    assert by_row[((1, 0), -1)] == pytest.approx(mixture)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # a short run
def test_a_fit_with_gold_keeps_its_gold_through_save_and_load(tmp_path):
    data = _one_judge(0.15, 0.8, seed=3)
    fit = bc.fit_bayes(data, num_chains=1, num_warmup=200, num_samples=200, **FAST)
    assert fit.was_fitted_to(data) and fit.has_gold
    without = bc.AnnotatedScores(data.scores, data.annotations, gold=np.full(data.n_items, -1))
    assert not fit.was_fitted_to(without)
    fit.save(tmp_path / "fit.nc")
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    assert loaded.was_fitted_to(data) and loaded.has_gold


@pytest.mark.slow
def test_the_dependent_and_shared_difficulty_models_read_the_gold():
    """Both models on one panel with a copying pair and 300 gold items: the dependent fit's
    posterior means agree with the dependent EM fit with the gold; the shared difficulty's
    channels lie near the panel's."""
    channels = bc.Channels([0.1, 0.15, 0.2, 0.25], [0.75, 0.85, 0.9, 0.8])
    simulation = bc.simulate.simulate_dependent(4000, channels, copying=0.3, seed=3)
    data = simulation.with_gold(300, seed=1).data
    pair = [("a0", "a1")]
    dependent = bc.fit_bayes(data, dependent=pair, **FAST)
    assert dependent.has_gold
    em = bc.dawid_skene_em(data, dependent=pair)
    mean = dependent.posterior_mean()
    np.testing.assert_allclose(mean.a, em.channels.a, atol=0.01)
    np.testing.assert_allclose(mean.b, em.channels.b, atol=0.01)
    difficulty = bc.fit_bayes(data, model="shared_difficulty", **FAST)
    assert difficulty.has_gold
    mean = difficulty.posterior_mean()
    np.testing.assert_allclose(mean.a, simulation.channels.a, atol=0.1)
    np.testing.assert_allclose(mean.b, simulation.channels.b, atol=0.1)
