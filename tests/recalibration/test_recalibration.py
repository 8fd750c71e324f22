"""Recalibration maps fitted from noisy labels (paper §5, App. E)."""

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

import bayescal as bc
from bayescal.exceptions import NotFittedError, RecalibrationWarning
from bayescal.recalibration import (
    HistogramBinning,
    PlattScaling,
    TemperatureScaling,
    corrected_log_loss,
    make_map,
    recalibrate,
    recalibration_study,
)
from bayescal.recalibration._solver import softplus_terms
from bayescal.simulate.panels import toy_calibration

SHIFTED = toy_calibration("shifted")


def reference_loss(theta, logits, targets, intercept):
    """The corrected log loss written independently of the module: log loss with soft targets."""
    eta = theta[0] * logits + (theta[1] if intercept else 0.0)
    # -t log p - (1 - t) log(1 - p) with -log p = log(1 + e^-eta) and -log(1 - p) = log(1 + e^eta)
    return float(np.mean(targets * np.logaddexp(0, -eta) + (1 - targets) * np.logaddexp(0, eta)))


@pytest.fixture(scope="module")
def shifted_sample():
    rng = np.random.default_rng(3)
    z = rng.random(5000)
    y = (rng.random(5000) < SHIFTED(z)).astype(float)
    return z, y


# --------------------------------------------------------------------------- the loss and the solver


def test_corrected_log_loss_equals_the_log_loss_and_stays_finite():
    eta = np.array([-3.0, 0.0, 2.5])
    u = np.array([0.0, 1.0, 0.3])
    p = special.expit(eta)
    np.testing.assert_allclose(
        corrected_log_loss(eta, u), -u * np.log(p) - (1 - u) * np.log1p(-p), rtol=1e-12
    )
    # Far logits and targets outside [0, 1]: finite, and linear in the target.
    extreme = corrected_log_loss([800.0, -800.0], [1.7, -0.4])
    np.testing.assert_allclose(extreme, [800.0 - 1.7 * 800.0, -0.4 * 800.0])


def test_softplus_terms_gradient_and_hessian_match_finite_differences():
    rng = np.random.default_rng(0)
    features = np.column_stack([rng.normal(0, 3, 400), np.ones(400)])
    theta = np.array([[0.7, -0.4], [2.0, 1.5], [-1.0, 0.2]])
    value, gradient, hessian = softplus_terms(theta, features)
    h = 1e-6
    for k in range(2):
        shift = np.zeros(2)
        shift[k] = h
        up, g_up, _ = softplus_terms(theta + shift, features)
        down, g_down, _ = softplus_terms(theta - shift, features)
        np.testing.assert_allclose(gradient[:, k], (up - down) / (2 * h), rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(
            hessian[:, :, k], (g_up - g_down) / (2 * h), rtol=1e-6, atol=1e-9
        )
    np.testing.assert_allclose(value, np.logaddexp(0, theta @ features.T).mean(axis=1), rtol=1e-13)


def test_softplus_terms_with_a_target_mask_are_the_terms_of_each_sets_own_items():
    """A crowd's draw fits its map on the items with a target in that draw only."""
    rng = np.random.default_rng(1)
    features = np.column_stack([rng.normal(0, 3, 300), np.ones(300)])
    theta = np.array([[0.7, -0.4], [2.0, 1.5]])
    has_target = rng.random((2, 300)) < 0.7
    masked = softplus_terms(theta, features, has_target)
    for row in range(2):
        alone = softplus_terms(theta[row : row + 1], features[has_target[row]])
        for got, expected in zip(masked, alone):
            np.testing.assert_allclose(got[row], expected[0], rtol=1e-12)


def test_platt_reproduces_platts_published_example():
    # PEERS.md: decision values F = [5, -4, 1], labels [1, -1, -1] and Platt's smoothed targets
    # (N+ + 1)/(N+ + 2) = 2/3 and 1/(N- + 2) = 1/4 give A = -0.2026135, B = 0.6523631 for
    # p = 1/(1 + exp(A F + B)), i.e. slope u = -A and intercept v = -B on logit(z) = F.
    # The published values carry the stopping error of the solver that produced them: BFGS and
    # Nelder-Mead run to 1e-14 both give (0.2026145, -0.6523666), 4e-6 from them; hence 1e-5.
    fitted = PlattScaling().fit(special.expit([5.0, -4.0, 1.0]), [2 / 3, 1 / 4, 1 / 4])
    assert fitted.slope_ == pytest.approx(0.2026135, abs=1e-5)
    assert fitted.intercept_ == pytest.approx(-0.6523631, abs=1e-5)
    assert (fitted.slope_, fitted.intercept_) == pytest.approx((0.2026145, -0.6523666), abs=1e-7)


def test_platt_on_clean_labels_matches_unpenalised_logistic_regression(shifted_sample):
    from sklearn.linear_model import LogisticRegression

    z, y = shifted_sample
    fitted = PlattScaling().fit(z, y)
    reference = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(
        special.logit(z)[:, None], y
    )
    assert fitted.slope_ == pytest.approx(reference.coef_[0, 0], abs=1e-5)
    assert fitted.intercept_ == pytest.approx(reference.intercept_[0], abs=1e-5)
    # The simulated truth is sigma(0.65 logit z - 0.3): recovered within sampling error.
    assert fitted.slope_ == pytest.approx(0.65, abs=0.06) and fitted.intercept_ == pytest.approx(
        -0.3, abs=0.1
    )


@pytest.mark.parametrize("family, intercept", [(TemperatureScaling, False), (PlattScaling, True)])
def test_fit_minimises_the_corrected_loss_like_a_bounded_quasi_newton(
    family, intercept, shifted_sample
):
    """Targets outside [0, 1] (corrected labels): the projected Newton optimum equals L-BFGS-B's."""
    z, y = shifted_sample
    targets = (y - 0.1) / 0.75  # corrected labels of a channel with a = 0.1, b = 0.85
    fitted = family().fit(z, targets)
    logits = special.logit(z)
    if intercept:
        theta, bounds, start = (
            np.array([fitted.slope_, fitted.intercept_]),
            [(-10, 10)] * 2,
            [1.0, 0.0],
        )
    else:
        theta, bounds, start = np.array([1 / fitted.temperature_]), [(0.05, 20)], [1.0]
    objective = lambda t: reference_loss(np.append(t, 0.0), logits, targets, intercept)  # noqa: E731
    reference = optimize.minimize(
        objective, start, method="L-BFGS-B", bounds=bounds, options={"ftol": 1e-15, "gtol": 1e-12}
    )
    np.testing.assert_allclose(theta, reference.x, atol=1e-4)
    assert objective(theta) <= reference.fun + 1e-12
    assert fitted.converged_ and not fitted.on_boundary_


@pytest.mark.parametrize("family", [TemperatureScaling, PlattScaling])
def test_a_fit_that_ends_on_the_box_edge_warns_and_satisfies_the_kkt_conditions(family):
    """Targets far outside [0, 1] make the loss unbounded: the optimum sits on the box edge with the
    gradient pointing out of the box, and the fit says so."""
    rng = np.random.default_rng(1)
    z = rng.random(2000)
    targets = np.where(
        z > 0.5, 4.0, -3.0
    )  # "more than certain" on each side: the loss falls without bound
    with pytest.warns(RecalibrationWarning, match="edge of the parameter box") as record:
        fitted = family().fit(z, targets)
    assert record[0].filename == __file__
    assert fitted.on_boundary_
    logits = special.logit(z)
    intercept = family is PlattScaling
    theta = (
        np.array([fitted.slope_, fitted.intercept_])
        if intercept
        else np.array([1 / fitted.temperature_, 0.0])
    )
    lower, upper = (
        (np.array([-10.0, -10.0]), np.array([10.0, 10.0]))
        if intercept
        else (np.array([0.05]), np.array([20.0]))
    )
    h = 1e-6
    for k in range(lower.size):
        shift = np.zeros(2)
        shift[k] = h
        slope = (
            reference_loss(theta + shift, logits, targets, intercept)
            - reference_loss(theta - shift, logits, targets, intercept)
        ) / (2 * h)
        if theta[k] <= lower[k]:
            assert slope >= -1e-6  # at a lower bound the loss must not decrease inwards
        elif theta[k] >= upper[k]:
            assert slope <= 1e-6  # at an upper bound the loss must still decrease outwards
        else:
            assert abs(slope) < 1e-5
    assert any(theta[k] in (lower[k], upper[k]) for k in range(lower.size))


def test_temperature_scaling_recovers_a_known_temperature():
    rng = np.random.default_rng(2)
    z = rng.random(20000)
    y = (rng.random(20000) < special.expit(special.logit(z) / 2.0)).astype(float)
    assert TemperatureScaling().fit(z, y).temperature_ == pytest.approx(2.0, rel=0.06)


# --------------------------------------------------------------------------- histogram binning


def test_histogram_values_are_projected_bin_means_and_empty_bins_take_the_projected_overall_mean():
    z = np.array([0.05, 0.07, 0.15, 0.95, 0.96])
    u = np.array([1.4, 1.2, -0.3, 0.4, 0.2])
    fitted = HistogramBinning(fit_bins=4).fit(z, u)
    # 0.05, 0.07, 0.15 share bin [0, 0.25) with mean 0.767; 0.95, 0.96 share [0.75, 1] with mean 0.3.
    overall = np.clip(u.mean(), 0, 1)
    np.testing.assert_allclose(fitted.values_, [np.mean([1.4, 1.2, -0.3]), overall, overall, 0.3])
    np.testing.assert_array_equal(fitted.counts_, [3, 0, 0, 2])
    clipped = HistogramBinning(fit_bins=2).fit([0.1, 0.2, 0.8], [1.5, 1.1, -0.2])
    np.testing.assert_allclose(clipped.values_, [1.0, 0.0])
    np.testing.assert_allclose(fitted.predict([0.0, 0.3, 1.0]), [fitted.values_[0], overall, 0.3])


def test_histogram_quantile_bins_predict_with_the_fitted_edges():
    rng = np.random.default_rng(4)
    z = rng.beta(2, 5, 1000)
    y = (rng.random(1000) < z).astype(float)
    fitted = HistogramBinning(fit_bins=5, strategy="quantile").fit(z, y)
    np.testing.assert_allclose(fitted.edges_, np.quantile(z, np.linspace(0, 1, 6)))
    np.testing.assert_array_equal(fitted.counts_, [200] * 5)
    # Prediction on the fitting scores reproduces the bin means exactly.
    predictions = fitted.predict(z)
    for h in range(5):
        in_bin = predictions == fitted.values_[h]
        assert y[in_bin].mean() == pytest.approx(fitted.values_[h])


# --------------------------------------------------------------------------- corrected versus clean


@pytest.mark.parametrize("method", ["temperature", "platt", "histogram"])
def test_with_perfect_channels_the_corrected_fit_is_the_clean_fit(method, shifted_sample):
    z, y = shifted_sample
    data = bc.AnnotatedScores(z, np.column_stack([y, y, y]).astype(int))
    perfect = bc.Channels([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    corrected = recalibrate(data, method=method, channels=perfect)
    clean = {
        "temperature": TemperatureScaling(),
        "platt": PlattScaling(),
        "histogram": HistogramBinning(),
    }[method].fit(z, y)
    grid = np.linspace(0, 1, 101)
    np.testing.assert_array_equal(corrected.predict(grid), clean.predict(grid))


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_recalibrate_accepts_known_channels_a_channel_fit_or_an_estimator_name():
    sim = bc.toy_data(4000, condition="shifted", seed=2)
    fit = bc.dawid_skene_em(sim.data)
    by_fit = recalibrate(sim.data, method="platt", channels=fit)
    by_name = recalibrate(sim.data, method="platt", channels="dawid_skene_em")
    by_channels = recalibrate(sim.data, method="platt", channels=fit.channels)
    assert by_fit.slope_ == by_name.slope_ == by_channels.slope_
    targets = bc.correction.corrected_labels(sim.data.annotations, fit.channels)
    assert by_fit.slope_ == PlattScaling().fit(sim.data.scores, targets).slope_
    naive = recalibrate(sim.data, method="platt", targets="naive")
    assert (
        naive.slope_
        == PlattScaling().fit(sim.data.scores, sim.data.annotations.mean(axis=1)).slope_
    )
    assert abs(by_fit.slope_ - 0.65) < abs(naive.slope_ - 0.65)  # naive targets shrink the slope
    reordered = bc.AnnotatedScores(
        sim.data.scores, sim.data.annotations[:, [2, 1, 0]], annotator_names=["a2", "a1", "a0"]
    )
    # matched by name: the same map (issue 16 item 2)
    assert recalibrate(reordered, method="platt", channels=fit).slope_ == pytest.approx(
        by_fit.slope_, rel=1e-9
    )
    with pytest.raises(ValueError, match=r"data must have the annotators of the init fit"):
        bc.dawid_skene_em(reordered, init=fit)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_recalibration_study_table_layout_and_its_identity_row():
    sim = bc.toy_data(6000, condition="shifted", seed=3)
    parts = [sim.data.subset(np.arange(k * 2000, (k + 1) * 2000)) for k in range(3)]
    oracle = sim.calibration(parts[2].scores)
    study = recalibration_study(*parts, methods=["platt", "histogram"], oracle=oracle, n_bins=10)
    assert list(study.table.index) == [
        (m, f) for m in ("platt", "histogram") for f in ("base", "naive", "corrected")
    ]
    assert list(study.table.columns) == ["nc_ece", "soft_vote_ece", "oracle_ece", "map"]
    base = study.table.loc[("platt", "base")]
    z, annotations = parts[2].scores, parts[2].annotations
    assert base["oracle_ece"] == pytest.approx(
        bc.metrics.calibration_moments(oracle, z, n_bins=10).ece
    )
    assert base["soft_vote_ece"] == pytest.approx(
        bc.correction.soft_vote_ece(bc.AnnotatedScores(z, annotations), n_bins=10)
    )
    assert base["nc_ece"] == pytest.approx(
        bc.noise_corrected_ece(bc.AnnotatedScores(z, annotations), study.channels, n_bins=10)
    )
    corrected = study.maps[("platt", "corrected")]
    assert study.table.loc[("platt", "corrected"), "nc_ece"] == pytest.approx(
        bc.noise_corrected_ece(
            bc.AnnotatedScores(corrected.predict(z), annotations), study.channels, n_bins=10
        )
    )
    assert study.channel_fit is not None and study.channel_fit.method == "dawid_skene_em"
    without_oracle = recalibration_study(*parts, methods=["temperature"], estimator=sim.channels)
    assert "oracle_ece" not in without_oracle.table.columns and without_oracle.channel_fit is None


def test_corrected_recalibration_beats_base_and_naive_in_simulation():
    """Two conditionally independent annotators, a miscalibrated predictor (the toy's shifted m on
    uniform scores), Hui–Walter grouped EM on five score groups, independent channel / fitting /
    evaluation thirds of n = 12 000, 40 seeded replicates; oracle ECE uses m(Z) (App. F.5).

    Measured (seeds 0-39, benchmarks/RESULTS.md): oracle ECE Base 0.079; Platt corrected 0.018 vs
    naive 0.069; histogram corrected 0.023 vs naive 0.062; temperature corrected 0.060 vs naive 0.086."""
    from bayescal.studies import recalibration_simulation

    table = recalibration_simulation(replicates=40, n_bins=15)  # as measured, before 0.2
    oracle = table.pivot_table(index=["method", "seed"], columns="fit", values="oracle_ece")
    mean = oracle.groupby("method").mean()
    for method in ("platt", "histogram"):
        # Corrected fitting removes most of the miscalibration: at most half of Base's ECE ...
        assert mean.loc[method, "corrected"] < 0.5 * mean.loc[method, "base"]
        # ... and fitting to the mean responses is clearly worse than fitting corrected labels.
        assert mean.loc[method, "naive"] > mean.loc[method, "corrected"] + 0.02
        per_seed = oracle.loc[method]
        assert (per_seed["corrected"] < per_seed["naive"]).mean() >= 0.9
    assert mean.loc["temperature", "naive"] > mean.loc["temperature", "corrected"]


def test_recalibration_simulation_is_reproducible_and_validates():
    from bayescal.studies import recalibration_simulation

    first = recalibration_simulation(replicates=2, n=900, methods=["platt"], first_seed=7)
    again = recalibration_simulation(replicates=2, n=900, methods=["platt"], first_seed=7)
    pd.testing.assert_frame_equal(first, again)
    assert list(first["seed"].unique()) == [7, 8] and len(first) == 6
    with pytest.raises(ValueError, match="n must be >= 300; saw 30"):
        recalibration_simulation(n=30)
    with pytest.raises(TypeError, match=r"channels must be a bayescal\.Channels; saw list"):
        recalibration_simulation(channels=[0.1, 0.9])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "scores, targets, error, message",
    [
        ([0.2, 1.3], [0, 1], ValueError, r"scores must lie in \[0, 1\]; saw 1.3 at position 1"),
        ([0.2, 0.4], [0, np.nan], ValueError, r"targets must be finite; saw nan at position 1"),
        ([], [], ValueError, r"scores must not be empty"),
        (
            [0.2, 0.4],
            [1.0],
            ValueError,
            r"scores and targets must have the same number of items; saw 2 and 1",
        ),
        ([0.2, 0.4], "ab", TypeError, r"targets must be an array of numbers"),
    ],
)
@pytest.mark.parametrize("family", [TemperatureScaling, PlattScaling, HistogramBinning])
def test_fit_rejects_bad_input(family, scores, targets, error, message):
    with pytest.raises(error, match=message):
        family(**({"fit_bins": 1} if family is HistogramBinning else {})).fit(scores, targets)


def test_histogram_needs_at_least_as_many_items_as_bins():
    with pytest.raises(
        ValueError,
        match=r"fit_bins must not exceed the number of items \(3\): a fitted histogram's empty bins have no value; saw 10",
    ):
        HistogramBinning(fit_bins=10).fit([0.1, 0.5, 0.9], [0, 1, 1])
    with pytest.raises(
        ValueError, match=r"strategy must be one of 'uniform', 'quantile'; saw 'equal'"
    ):
        HistogramBinning(strategy="equal").fit([0.1, 0.5, 0.9], [0, 1, 1])


@pytest.mark.parametrize("eps", [0, 0.5, -1e-3, "small", True])
def test_logistic_maps_reject_a_bad_eps(eps):
    with pytest.raises(ValueError, match=r"eps must be a number in \(0, 0.5\)"):
        PlattScaling(eps=eps).fit([0.1, 0.9], [0, 1])


def test_predict_before_fit_and_on_bad_scores():
    with pytest.raises(NotFittedError, match="this PlattScaling is not fitted yet"):
        PlattScaling().predict([0.5])
    fitted = TemperatureScaling().fit([0.1, 0.9], [0, 1])
    with pytest.raises(ValueError, match=r"scores must lie in \[0, 1\]; saw -0.1"):
        fitted.predict([-0.1])
    assert repr(PlattScaling()) == "PlattScaling(eps=1e-06)"


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_recalibrate_rejects_bad_arguments():
    sim = bc.toy_data(300, seed=0)
    with pytest.raises(TypeError, match=r"data must be a bayescal\.AnnotatedScores; saw ndarray"):
        recalibrate(sim.data.scores)
    with pytest.raises(
        ValueError, match=r"method must be one of 'temperature', 'platt', 'histogram'; saw 'beta'"
    ):
        recalibrate(sim.data, method="beta", channels=sim.channels)
    with pytest.raises(
        ValueError, match=r"targets must be one of 'corrected', 'naive'; saw 'clean'"
    ):
        recalibrate(sim.data, channels=sim.channels, targets="clean")
    with pytest.raises(ValueError, match="channels are required for corrected targets"):
        recalibrate(sim.data)
    with pytest.raises(ValueError, match=r"channels must be one of 'dawid_skene_em'.*saw 'em'"):
        recalibrate(sim.data, channels="em")
    fit = bc.dawid_skene_em(sim.data)
    failed = dataclasses.replace(fit, channels=None, prevalence=None, failure="complex roots")
    with pytest.raises(
        bc.ChannelFitError,
        match=r"channels: the dawid_skene_em fit failed \(complex roots\)",
    ):
        recalibrate(sim.data, channels=failed)


def test_recalibration_study_rejects_mismatched_samples_and_bad_settings():
    sim = bc.toy_data(900, seed=1)
    parts = [sim.data.subset(np.arange(k * 300, (k + 1) * 300)) for k in range(3)]
    renamed = bc.AnnotatedScores(
        parts[2].scores, parts[2].annotations, annotator_names=["x", "y", "z"]
    )
    with pytest.raises(
        ValueError,
        match=r"eval_data must have the annotators of channel_data, in its order: \['a0', 'a1', 'a2'\]; saw \['x', 'y', 'z'\]",
    ):
        recalibration_study(parts[0], parts[1], renamed)
    with pytest.raises(TypeError, match=r"fit_data must be a bayescal\.AnnotatedScores"):
        recalibration_study(parts[0], None, parts[2])
    with pytest.raises(ValueError, match="methods must name at least one"):
        recalibration_study(*parts, methods=[])
    with pytest.raises(TypeError, match="methods must be a sequence of method names"):
        recalibration_study(*parts, methods="platt")
    with pytest.raises(
        ValueError,
        match=r"oracle and eval_data.scores must have the same number of items; saw 3 and 300",
    ):
        recalibration_study(*parts, oracle=[0, 1, 1])


@pytest.mark.parametrize("method", ["temperature", "platt", "histogram"])
def test_a_fitted_map_survives_json(method):
    import json

    from bayescal.recalibration import map_from_dict

    rng = np.random.default_rng(5)
    scores = rng.random(400)
    labels = (rng.random(400) < 0.2 + 0.6 * scores).astype(float)
    fitted = make_map(method, fit_bins=7, strategy="quantile", eps=1e-6).fit(scores, labels)
    document = json.loads(json.dumps(fitted.to_dict(), allow_nan=False))
    assert document["method"] == method and document["converged"] is True
    rebuilt = map_from_dict(document)
    fresh = rng.random(50)
    np.testing.assert_array_equal(rebuilt.predict(fresh), fitted.predict(fresh))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        type(fitted)().to_dict()
    with pytest.raises(
        ValueError, match="document must be a dict with method, parameters and settings"
    ):
        map_from_dict({"method": method})
    with pytest.raises(ValueError, match="method"):
        map_from_dict({**document, "method": "isotonic"})


def test_a_histogram_map_json_written_before_0_2_still_loads():
    """0.1 named the fitting bins ``n_bins`` in map.json's settings; such files still load."""
    import json

    from bayescal.recalibration import map_from_dict

    rng = np.random.default_rng(6)
    scores = rng.random(300)
    fitted = HistogramBinning(fit_bins=6).fit(scores, (rng.random(300) < scores).astype(float))
    document = json.loads(json.dumps(fitted.to_dict(), allow_nan=False))
    document["settings"]["n_bins"] = document["settings"].pop("fit_bins")  # the 0.1 spelling
    rebuilt = map_from_dict(document)
    assert rebuilt.fit_bins == 6
    np.testing.assert_array_equal(rebuilt.predict(scores), fitted.predict(scores))


def test_recalibrating_with_swapped_user_channels_warns():
    """Issue 16 item 1: user channels with a > b gave a Platt slope of -0.80 without a word."""
    from bayescal.exceptions import ChannelWarning

    sim = bc.toy_data(2000, seed=6)
    swapped = bc.Channels(sim.channels.b, sim.channels.a)
    with pytest.warns(ChannelWarning, match=r"have b < a .* Channels\(\.\.\., adversarial=True\)"):
        bc.recalibrate(sim.data, method="platt", channels=swapped)


def test_gold_items_fit_the_map_on_their_gold_labels():
    """With a gold label on every item the map is the one fitted to the clean labels, whatever
    the channels (the corrected label of a gold item is replaced by its gold label)."""
    simulation = bc.toy_data(3000, condition="shifted", seed=4)
    data = bc.AnnotatedScores(
        simulation.data.scores, simulation.data.annotations, gold=simulation.labels
    )
    wrong = bc.Channels([0.3, 0.3, 0.3], [0.7, 0.7, 0.7])
    with pytest.warns(bc.DataWarning, match="every one of the 3000 items has a gold label"):
        bc.nc_ece_estimate(data, estimator=wrong, n_bootstrap=10)  # said where NC-ECE is
    mapped = bc.recalibrate(data, channels=wrong)
    clean = bc.recalibration.PlattScaling().fit(simulation.data.scores, simulation.labels)
    grid = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(mapped.predict(grid), clean.predict(grid), atol=1e-9)


@pytest.mark.parametrize("method", ["platt", "temperature", "histogram"])
def test_integer_sample_weights_fit_as_repeated_items(method):
    rng = np.random.default_rng(3)
    scores = rng.uniform(0.02, 0.98, 400)
    targets = rng.normal(scores, 0.4)  # corrected-label-like targets, outside [0, 1] too
    counts = rng.integers(0, 4, 400)
    weighted = make_map(method, fit_bins=5, strategy="uniform", eps=1e-6).fit(
        scores, targets, sample_weight=counts
    )
    repeated = make_map(method, fit_bins=5, strategy="uniform", eps=1e-6).fit(
        np.repeat(scores, counts), np.repeat(targets, counts)
    )
    grid = np.linspace(0.01, 0.99, 50)
    np.testing.assert_allclose(weighted.predict(grid), repeated.predict(grid), atol=1e-9)
    # only the weights' proportions count, however small they are (bins of total weight
    # below 1 included); a histogram records its items per bin, not their weight
    small = make_map(method, fit_bins=5, strategy="uniform", eps=1e-6).fit(
        scores, targets, sample_weight=counts * 0.001
    )
    np.testing.assert_allclose(small.predict(grid), weighted.predict(grid), atol=1e-9)
    if method == "histogram":
        assert small.counts_.sum() == 400


def test_a_quantile_histogram_of_tied_scores_survives_json():
    """Tied scores repeat a quantile edge; the saved map is rebuilt all the same."""
    import json

    from bayescal.recalibration import map_from_dict

    rng = np.random.default_rng(1)
    scores = np.round(rng.uniform(size=200), 1) ** 3
    scores[:120] = 0.0
    fitted = HistogramBinning(strategy="quantile").fit(scores, rng.integers(0, 2, 200))
    assert (np.diff(fitted.edges_) == 0).any()
    rebuilt = map_from_dict(json.loads(json.dumps(fitted.to_dict())))
    np.testing.assert_array_equal(rebuilt.predict(scores), fitted.predict(scores))


def test_a_weighted_fit_is_identified_by_the_items_that_weigh():
    """Only the items with a weight count: if they all have one score, the Platt map is not
    identified, whatever the scores of the others."""
    scores = np.linspace(0.05, 0.95, 40)
    weights = np.where(np.arange(40) < 10, 0.0, 1.0)
    scores[10:] = 0.7
    with pytest.warns(RecalibrationWarning, match=r"every score is 0\.7"):
        PlattScaling().fit(scores, np.arange(40) % 2, sample_weight=weights)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (np.ones(3), r"sample_weight must have one weight per score \(4\); saw 3"),
        (
            np.array([1.0, -1.0, 1.0, 1.0]),
            "sample_weight must be non-negative and not all 0; saw a negative weight",
        ),
        (np.zeros(4), "sample_weight must be non-negative and not all 0; saw only zeros"),
        (np.array([1.0, np.nan, 1.0, 1.0]), "sample_weight"),
    ],
)
def test_bad_sample_weights_are_refused_by_name(weights, message):
    with pytest.raises(ValueError, match=message):
        bc.recalibration.PlattScaling().fit(
            [0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1], sample_weight=weights
        )


def test_the_rectified_fit_weights_give_the_rectified_loss():
    """At any map, the weighted corrected log loss of RectifiedLoss's targets and weights is
    lambda mean_i l(U_i) + mean_G [l(Y_i) - lambda l(U_i)] (all-items form, written out here),
    for random gold and for gold with inclusion probabilities."""
    from bayescal.correction.rectified import GoldRows, MeanProblem, RectifiedLoss, tuned_lambda

    rng = np.random.default_rng(5)
    u = rng.normal(0.5, 0.7, 500)
    has = rng.random(500) > 0.05
    for inclusion in (None, rng.uniform(0.05, 0.3, 500)):
        chosen = rng.random(500) < (0.1 if inclusion is None else inclusion)
        labels = rng.random(500) < np.clip(u, 0.05, 0.95)  # the predictions say something
        gold = np.where(chosen, labels, -1).astype(np.int8)
        loss = RectifiedLoss.of(u, has, gold, inclusion)
        targets, weights = loss.targets(np.where(has, u, 0.0)), loss.weights()
        predictions = np.where(has, u, 0.0)
        w = np.where(chosen, 1.0 if inclusion is None else 1 / np.where(chosen, inclusion, 1), 0.0)
        rows = GoldRows(
            np.zeros(500, np.int64), predictions, gold, np.ones(500), np.where(chosen, w, 1.0)
        )
        lam = tuned_lambda(MeanProblem.of(rows))
        assert 0 < lam < 1
        for logits in (rng.normal(0, 1, 500), rng.normal(1, 2, 500)):
            explicit = (
                lam * corrected_log_loss(logits, predictions).mean()
                + np.sum(
                    w
                    * (
                        corrected_log_loss(logits, gold.clip(0))
                        - lam * corrected_log_loss(logits, predictions)
                    )
                )
                / w.sum()
            )
            weighted = np.sum(weights * corrected_log_loss(logits, targets)) / weights.sum()
            assert weighted == pytest.approx(explicit, abs=1e-12)


def test_a_map_fitted_with_gold_is_right_when_the_judges_err_together():
    """Two of three judges wrong together on 15% of the items, fitted with the independent
    model: without gold the Platt map is far off; with 300 random gold items (rectified fit) its
    slope and intercept average, over 60 data sets of 3 000 items, within 3 standard errors of
    those fitted to the true labels.  Measured: slope 0.645 (se 0.011) against 0.649, intercept
    -0.320 (se 0.013) against -0.295; without gold 0.358 and -0.043."""
    panel = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])
    rectified, plain, oracle = [], [], []
    for seed in range(60):
        simulation = bc.simulate.simulate_dependent(
            3000, panel, shared_error=0.15, calibration=toy_calibration("shifted"), seed=seed
        ).with_gold(300, seed=seed + 1)
        data = simulation.data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bc.SaturatedModelWarning)  # three judges, no gold
            fitted = bc.recalibrate(data, channels="dawid_skene_em")
            without = bc.recalibrate(
                bc.AnnotatedScores(data.scores, data.annotations), channels="dawid_skene_em"
            )
        truth = bc.recalibration.PlattScaling().fit(data.scores, simulation.labels)
        for store, fit in ((rectified, fitted), (plain, without), (oracle, truth)):
            store.append([fit.slope_, fit.intercept_])
    rectified, plain, oracle = (np.array(x) for x in (rectified, plain, oracle))
    error = np.sqrt(rectified.var(axis=0) / 60 + oracle.var(axis=0) / 60)
    assert np.all(np.abs(rectified.mean(axis=0) - oracle.mean(axis=0)) < 3 * error)
    assert np.all(np.abs(plain.mean(axis=0) - oracle.mean(axis=0)) > 10 * error)


def test_recalibration_study_says_which_samples_share_items_by_id():
    """Issue 38 item 7: one warning per pair of samples that share items; none apart."""
    sim = bc.toy_data(900, seed=1)
    data = dataclasses.replace(sim.data, item_ids=[f"i{j}" for j in range(900)])
    channel, fit, evaluation = (data.subset(np.arange(k * 300, (k + 1) * 300)) for k in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)  # three annotators
        recalibration_study(channel, fit, evaluation)  # apart: nothing said
        overlapping = data.subset(np.arange(250, 650))
        with pytest.warns(bc.DataWarning) as said:
            recalibration_study(channel, overlapping, evaluation)
    lines = [str(w.message) for w in said if w.category is bc.DataWarning]
    assert lines == [
        "recalibration_study: 50 of the 300 items of channel_data are also among the 400 of "
        "fit_data (by id, e.g. 'i250'): the samples are not apart, and what is computed on one "
        "is not independent of the other",
        "recalibration_study: 50 of the 400 items of fit_data are also among the 300 of "
        "eval_data (by id, e.g. 'i600'): the samples are not apart, and what is computed on one "
        "is not independent of the other",
    ]
