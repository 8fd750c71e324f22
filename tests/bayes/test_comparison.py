"""Count-weighted PSIS-LOO and compare_models (issue 19, item 4): the same numbers as ArviZ's
``az.loo`` on the items expanded one by one, ArviZ's table layout, and refusals."""

import warnings

import numpy as np
import pytest
from bayescal.models.stack import arviz

import bayescal as bc
from bayescal.bayes.comparison import pareto_smoothed_log_weights, pattern_loo
from tests.helpers import label_probability_by_rows

CHANNELS = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])


@pytest.fixture(scope="module")
def fits():
    """An independent and a dependent fit of 400 items with a shared-error pair (rho 0.2)."""
    sim = bc.simulate.simulate_dependent(400, CHANNELS, pair=(0, 1), shared_error=0.2, seed=0)
    data = sim.data
    independent = bc.fit_bayes(data, progress=False)
    dependent = bc.fit_bayes(data, dependent=data.annotator_names[:2], progress=False)
    return data, independent, dependent


def _expanded(fit):
    """The fit's log-likelihood with one column per item (each row repeated by its count)."""
    log_lik, counts = fit.pointwise_log_likelihood()
    items = np.repeat(np.arange(counts.size), counts.astype(int))
    values = log_lik[:, items].reshape(fit.num_chains, -1, items.size)
    return arviz().from_dict(posterior={"a": fit.chains["a"]}, log_likelihood={"y": values})


@pytest.mark.parametrize("which", [1, 2])
def test_pattern_loo_equals_arviz_loo_on_the_expanded_items(fits, which):
    fit = fits[which]
    ours = pattern_loo(fit)
    theirs = arviz().loo(_expanded(fit), reff=1.0, pointwise=True)
    assert ours.elpd_loo == pytest.approx(theirs.elpd_loo, rel=1e-10)
    assert ours.se == pytest.approx(theirs.se, rel=1e-8)
    assert ours.p_loo == pytest.approx(theirs.p_loo, rel=1e-8)
    _, counts = fit.pointwise_log_likelihood()
    items = np.repeat(np.arange(counts.size), counts.astype(int))
    seen = np.flatnonzero(counts > 0)
    row_of_seen = np.searchsorted(seen, items)
    np.testing.assert_allclose(ours.pareto_k[row_of_seen], theirs.pareto_k.values, rtol=1e-8)
    np.testing.assert_allclose(ours.pointwise[row_of_seen], theirs.loo_i.values, rtol=1e-10)
    assert ours.n_items == 400


def test_smoothing_matches_arviz_on_a_heavy_tail():
    """Ratios with a heavy tail (k near 0.9), where the smoothing changes the weights most."""
    rng = np.random.default_rng(3)
    log_ratios = rng.standard_t(1.2, size=(2000, 3)) * np.array([0.5, 2.0, 4.0])
    ours, k = pareto_smoothed_log_weights(log_ratios)
    theirs, their_k = arviz().psislw(log_ratios.T, reff=1.0)
    np.testing.assert_allclose(k, their_k, rtol=1e-8)
    np.testing.assert_allclose(ours.T, theirs, atol=1e-10)


def test_compare_models_has_arviz_layout_and_prefers_the_dependent_model(fits):
    _, independent, dependent = fits
    table = bc.compare_models({"independent": independent, "dependent": dependent})
    with warnings.catch_warnings():  # ArviZ 0.23 meets pandas 3.1's deprecations
        warnings.simplefilter("ignore")
        theirs = arviz().compare(
            {"independent": _expanded(independent), "dependent": _expanded(dependent)}
        )
    # ArviZ's columns, and the reading in words
    assert list(table.columns) == [*theirs.columns, "reading"]
    assert list(table.index) == ["dependent", "independent"] == list(theirs.index)
    # the shared errors make the dependent model better by more than 4 and 2 dse
    assert table.loc["independent", "elpd_diff"] > 2 * table.loc["independent", "dse"]
    assert table["reading"].tolist() == [
        "best",
        "worse (difference of 4 or more, beyond 2 dse)",
    ]
    # ArviZ estimates r_eff from the chains; the differences are that small
    np.testing.assert_allclose(table["elpd_loo"], theirs["elpd_loo"], atol=0.5)
    np.testing.assert_allclose(table["dse"], theirs["dse"], rtol=0.02)
    np.testing.assert_allclose(table["weight"], theirs["weight"], atol=0.02)
    assert table["rank"].tolist() == [0, 1]
    assert (table["scale"] == "log").all()


def test_a_list_of_fits_is_named_by_model_and_pairs(fits):
    _, independent, dependent = fits
    table = bc.compare_models([independent, dependent])
    assert set(table.index) == {"dawid_skene", "dawid_skene + a0 ~ a1"}


def test_compare_models_refuses_bad_inputs(fits):
    data, independent, _ = fits
    with pytest.raises(TypeError, match="fits must be a dict of names to BayesFits"):
        bc.compare_models(independent)
    with pytest.raises(ValueError, match="needs at least two fits; saw 1"):
        bc.compare_models({"one": independent})
    with pytest.raises(TypeError, match=r"fits\['x'\] must be a bayescal BayesFit"):
        bc.compare_models({"x": 3, "y": independent})
    with pytest.raises(ValueError, match="both be named 'dawid_skene'"):
        bc.compare_models([independent, independent])
    with warnings.catch_warnings():  # a short run: its diagnostics do not matter here
        warnings.simplefilter("ignore", bc.SamplingWarning)
        other = bc.fit_bayes(bc.toy_data(300, seed=1).data, progress=False, num_samples=200)
    with pytest.raises(ValueError, match="fitted to other data"):
        bc.compare_models({"a": independent, "b": other})
    with pytest.raises(TypeError, match="fit must be a bayescal BayesFit"):
        pattern_loo(data)


def test_compare_models_names_a_list_entry_that_is_not_a_fit(fits):
    data, independent, _ = fits
    with pytest.raises(TypeError, match=r"fits\[1\] must be a bayescal BayesFit; saw ChannelFit"):
        bc.compare_models([independent, bc.dawid_skene_em(data)])


def test_pattern_loo_needs_enough_draws():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SamplingWarning)
        short = bc.fit_bayes(
            bc.toy_data(300, seed=0).data,
            num_chains=1,
            num_warmup=50,
            num_samples=50,
            progress=False,
        )
    with pytest.raises(ValueError, match=r"at least 100 posterior draws to smooth .*; saw 50"):
        pattern_loo(short)


def test_the_fits_aggregated_labels_follow_their_models(fits):
    """``predict_proba`` of both fits equals the mean over draws of the label posterior from
    each model's own row likelihood; the dependent pair changes some items' probability."""
    data, independent, dependent = fits
    for fit in (independent, dependent):
        np.testing.assert_allclose(
            fit.predict_proba(data), label_probability_by_rows(fit, data), rtol=1e-8
        )
    assert np.abs(dependent.predict_proba(data) - independent.predict_proba(data)).max() > 0.01


@pytest.mark.parametrize(
    ("elpd_diff", "dse", "reading"),
    [
        (0.0, 0.0, "predicts alike (difference below 4)"),  # a tie with the best
        # below 4 the models predict alike, however small the dse (Sivula et al. 2022)
        (1.0, 0.2, "predicts alike (difference below 4)"),
        (3.99, 0.1, "predicts alike (difference below 4)"),
        (4.0, 1.0, "worse (difference of 4 or more, beyond 2 dse)"),
        (6.0, 2.0, "worse (difference of 4 or more, beyond 2 dse)"),
        (6.0, 3.0, "not distinguishable (difference within 2 dse)"),
        (40.0, 25.0, "not distinguishable (difference within 2 dse)"),
    ],
)
def test_a_comparison_row_is_read_under_the_rule_of_sivula_et_al(elpd_diff, dse, reading):
    from bayescal.bayes.comparison import comparison_reading

    assert comparison_reading(elpd_diff, dse) == reading


@pytest.mark.parametrize(
    ("elpd_diff", "dse"), [(float("nan"), 1.0), (5.0, float("inf")), (-1.0, 1.0)]
)
def test_a_comparison_reading_refuses_what_is_no_difference(elpd_diff, dse):
    from bayescal.bayes.comparison import comparison_reading

    with pytest.raises(ValueError, match="elpd_diff and dse must be finite and >= 0"):
        comparison_reading(elpd_diff, dse)
