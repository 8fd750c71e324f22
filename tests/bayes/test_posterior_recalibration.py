"""posterior_recalibration: one map per channel draw, checked draw by draw against single fits."""

import dataclasses
import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.bayes.posterior import evenly_spaced, nc_ece_posterior, posterior_recalibration
from bayescal.correction.known_channels import per_annotator_corrections, plugin_prevalence
from bayescal.recalibration import HistogramBinning, PlattScaling, TemperatureScaling
from tests.helpers import fake_fit

FAMILIES = {"temperature": TemperatureScaling, "platt": PlattScaling, "histogram": HistogramBinning}


@pytest.fixture(scope="module")
def setting():
    rng = np.random.default_rng(8)
    sim = bc.toy_data(4000, condition="shifted", seed=8)
    fit_data, eval_data = sim.data.subset(np.arange(2000)), sim.data.subset(np.arange(2000, 4000))
    a = np.clip(sim.channels.a + rng.normal(0, 0.02, (30, 3)), 0.01, 0.4)
    b = np.clip(sim.channels.b + rng.normal(0, 0.02, (30, 3)), 0.6, 0.99)
    return fit_data, eval_data, fake_fit(fit_data, a, b, rng.uniform(0.4, 0.5, 30)), a, b


def draw_labels(data, a, b):
    """Corrected labels of one draw with IV weights and the draw's App. F.4 plug-in prevalence."""
    corrected, observed = per_annotator_corrections(data.annotations, a, b)
    return bc.correction.corrected_labels(
        data.annotations,
        bc.Channels(a, b),
        prevalence=float(plugin_prevalence(corrected, observed)),
    )


@pytest.mark.parametrize("method", ["temperature", "platt", "histogram"])
def test_every_draw_is_the_single_fit_to_that_draws_corrected_labels(method, setting):
    fit_data, eval_data, fit, a, b = setting
    result = posterior_recalibration(
        fit_data, eval_data, fit, method=method, uncertainty="channels"
    )
    assert result.maps.n_draws == 30 and result.maps.converged.all()
    for s in (0, 11, 29):
        single = FAMILIES[method]().fit(fit_data.scores, draw_labels(fit_data, a[s], b[s]))
        np.testing.assert_allclose(
            result.maps.predict(eval_data.scores, rows=slice(s, s + 1))[0],
            single.predict(eval_data.scores),
            atol=1e-8,
        )
        # The draw's NC-ECE is its map's predictions scored against its own corrected labels.
        expected = bc.noise_corrected_ece(
            bc.AnnotatedScores(single.predict(eval_data.scores), eval_data.annotations),
            bc.Channels(a[s], b[s]),
            n_bins=bc.DEFAULT_N_BINS,  # posterior_recalibration's default
        )
        assert result.recalibrated.raw_draws[s] == pytest.approx(expected, abs=1e-8)
    mean_map = result.map
    grid = np.linspace(0, 1, 11)
    average = {name: draws.mean(axis=0) for name, draws in result.maps.parameters.items()}
    for name, value in average.items():
        np.testing.assert_allclose(getattr(mean_map, name + "_"), value, rtol=1e-12)
    assert mean_map.predict(grid).shape == (11,)


def test_base_and_naive_rows_are_posterior_ece_of_the_original_and_naive_scores(setting):
    fit_data, eval_data, fit, a, b = setting
    result = posterior_recalibration(fit_data, eval_data, fit, method="platt", seed=4)
    base = nc_ece_posterior(eval_data, fit, seed=4)
    np.testing.assert_array_equal(result.base.draws, base.draws)
    # ... and, independently of nc_ece_posterior, each draw's Base NC-ECE is the ECE of the
    # evaluation scores against that draw's corrected labels (item by item).
    by_channels = posterior_recalibration(
        fit_data, eval_data, fit, method="platt", uncertainty="channels"
    )
    for s in (0, 17):
        labels = draw_labels(eval_data, a[s], b[s])
        expected = bc.metrics.calibration_moments(
            labels, eval_data.scores, n_bins=bc.DEFAULT_N_BINS
        ).ece
        assert by_channels.base.raw_draws[s] == pytest.approx(expected, abs=1e-12)
    naive = PlattScaling().fit(fit_data.scores, fit_data.annotations.mean(axis=1))
    assert result.naive_map.slope_ == naive.slope_
    table = result.table()
    assert list(table.index) == ["base", "naive", "corrected"]
    assert table.loc["corrected", "median"] == result.recalibrated.median
    assert table.loc["base", "lower"] <= table.loc["base", "median"] <= table.loc["base", "upper"]
    # Shifted toy: Platt on corrected labels removes most of the miscalibration.
    assert table.loc["corrected", "median"] < 0.5 * table.loc["base", "median"]
    # the one-sided bound at the level: what to read near 0 (issue 38 item 6)
    draws = np.sort(result.recalibrated.draws)
    bound = table.loc["corrected", "upper bound"]
    assert bound == result.recalibrated.upper_bound
    assert np.mean(draws <= bound) == pytest.approx(0.9, abs=1.0 / draws.size)
    assert table.loc["corrected", "median"] < bound < table.loc["corrected", "upper"]
    summary = result.parameter_summary()
    assert list(summary.index) == ["slope", "intercept"]
    assert (
        summary.loc["slope", "lower"]
        <= summary.loc["slope", "mean"]
        <= summary.loc["slope", "upper"]
    )
    assert result.recalibrated.bin_accuracy().shape == (30, bc.DEFAULT_N_BINS)


def test_total_uncertainty_is_wider_than_channel_uncertainty(setting):
    fit_data, eval_data, fit, _, _ = setting
    total = posterior_recalibration(
        fit_data, eval_data, fit, method="histogram", uncertainty="total"
    )
    channels = posterior_recalibration(
        fit_data, eval_data, fit, method="histogram", uncertainty="channels"
    )
    assert np.std(total.recalibrated.raw_draws) > 2 * np.std(channels.recalibrated.raw_draws)
    np.testing.assert_allclose(total.recalibrated.counts.sum(axis=1), eval_data.n_items)
    again = posterior_recalibration(
        fit_data, eval_data, fit, method="histogram", uncertainty="total"
    )
    np.testing.assert_array_equal(total.recalibrated.draws, again.recalibrated.draws)


def test_posterior_recalibration_rejects_bad_input(setting):
    fit_data, eval_data, fit, _, _ = setting
    with pytest.raises(TypeError, match=r"fit must be a bayescal\.BayesFit; saw Channels"):
        posterior_recalibration(fit_data, eval_data, bc.Channels([0.1], [0.9]))
    two = bc.AnnotatedScores(eval_data.scores, eval_data.annotations[:, :2])
    with pytest.raises(
        ValueError,
        match=r"eval_data must have the annotators of the fit: \['a0', 'a1', 'a2'\]; saw \['a0', 'a1'\]$",
    ):
        posterior_recalibration(fit_data, two, fit)
    # Columns in another order are matched by name (issue 16 item 2; tests/bad_inputs), but
    # one set of channel draws serves both samples: they share one column order.
    swapped = bc.AnnotatedScores(
        fit_data.scores, fit_data.annotations[:, [1, 0, 2]], annotator_names=["a1", "a0", "a2"]
    )
    with pytest.raises(
        ValueError,
        match=r"eval_data must have the annotators of fit_data, in its order: "
        r"\['a1', 'a0', 'a2'\]; saw \['a0', 'a1', 'a2'\]$",
    ):
        posterior_recalibration(swapped, eval_data, fit)
    with pytest.raises(TypeError, match=r"fit_data must be a bayescal\.AnnotatedScores"):
        posterior_recalibration(fit_data.scores, eval_data, fit)
    with pytest.raises(
        ValueError,
        match=r"method must be one of 'temperature', 'platt', 'histogram'; saw 'isotonic'",
    ):
        posterior_recalibration(fit_data, eval_data, fit, method="isotonic")
    with pytest.raises(ValueError, match=r"eps must be a number in \(0, 0.5\)"):
        posterior_recalibration(fit_data, eval_data, fit, eps=0.7)
    with pytest.raises(ValueError, match=r"level must lie strictly between 0 and 1"):
        posterior_recalibration(fit_data, eval_data, fit, level=1.0)
    with pytest.raises(
        ValueError, match=r"fit_bins must not exceed the number of items \(5\): a fitted histogram"
    ):
        posterior_recalibration(
            fit_data.subset(np.arange(5)), eval_data, fit, method="histogram", fit_bins=10
        )
    with pytest.raises(
        TypeError,
        match=r"fit_data must be a bayescal\.AnnotatedScores; saw BayesFit \(the data come before the fit",
    ):
        posterior_recalibration(fit, fit_data, eval_data)


def test_a_map_on_the_box_edge_warns_at_the_callers_line():
    # Annotators that follow the score's side exactly: the corrected labels are separated
    # perfectly by the scores, so every Platt fit runs to the edge of its box.
    rng = np.random.default_rng(3)
    scores = rng.random(600)
    side = (scores > 0.5).astype(np.int8)
    data = bc.AnnotatedScores(scores, np.column_stack([side, side, side]))
    fit = fake_fit(data, np.full((4, 3), 0.01), np.full((4, 3), 0.99), np.full(4, 0.5))
    with pytest.warns(bc.RecalibrationWarning, match="edge of the parameter box") as record:
        posterior_recalibration(data, data, fit, method="platt")
    assert record[0].filename == __file__


@pytest.fixture(scope="module")
def crowd_setting():
    """A crowd of 16 workers, 2 labels an item, whose workers 0 and 1 are spammers in every draw
    (gap 0.005): the items only they label have no corrected label under the crowd rule."""
    crowd = bc.simulate_crowd(1200, 16, labels_per_item=2, worker_mix={"good": 1.0}, seed=5)
    rng = np.random.default_rng(5)
    a = np.clip(crowd.channels.a + rng.normal(0, 0.02, (12, 16)), 0.01, 0.45)
    b = np.clip(crowd.channels.b + rng.normal(0, 0.02, (12, 16)), 0.55, 0.99)
    a[:, :2], b[:, :2] = 0.5, 0.505
    annotations = crowd.data.annotations.copy()
    annotations[:40] = -1
    annotations[:40, :2] = rng.integers(0, 2, (40, 2))  # 40 items labelled by the spammers only
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    fit_data, eval_data = data.subset(np.arange(600)), data.subset(np.arange(600, 1200))
    return fit_data, eval_data, fake_fit(fit_data, a, b, np.full(12, 0.4)), a, b


@pytest.mark.parametrize("method", ["temperature", "platt", "histogram"])
def test_on_a_crowd_every_draw_fits_and_scores_the_items_its_crowd_rule_labels(
    method, crowd_setting
):
    """Issue 17: each draw's map is the single fit to that draw's crowd-rule targets (items
    without one left out), and its NC-ECE is the plug-in crowd NC-ECE of that map's
    predictions; before and after are scored on the same items."""
    from bayescal.correction.known_channels import crowd_corrected_labels

    fit_data, eval_data, fit, a, b = crowd_setting
    with pytest.warns(Warning) as caught:
        result = posterior_recalibration(
            fit_data, eval_data, fit, method=method, uncertainty="channels"
        )
    unlabelled = [str(w.message) for w in caught if "count as unlabelled" in str(w.message)]
    # one line for the fitting sample, one a row for the evaluation sample (Base, Naive and
    # Corrected: the same line, which Python's default filter shows once)
    assert len(unlabelled) == 4 and len(set(unlabelled[1:])) == 1
    for s in (0, 7):
        channels = bc.Channels(a[s], b[s], names=fit_data.annotator_names)
        with pytest.warns(bc.ChannelWarning):
            targets, labelled = crowd_corrected_labels(fit_data, channels)
        assert not labelled[:40].any() and labelled[40:].mean() > 0.9
        single = FAMILIES[method]().fit(fit_data.scores[labelled], targets[labelled])
        predictions = single.predict(eval_data.scores)
        np.testing.assert_allclose(
            result.maps.predict(eval_data.scores, rows=slice(s, s + 1))[0], predictions, atol=1e-8
        )
        with pytest.warns(bc.ChannelWarning):
            expected = bc.noise_corrected_ece(
                bc.AnnotatedScores(
                    predictions, eval_data.annotations, annotator_names=eval_data.annotator_names
                ),
                channels,
                n_bins=bc.DEFAULT_N_BINS,
            )
        assert result.recalibrated.raw_draws[s] == pytest.approx(expected, abs=1e-10)
    assert np.isfinite(result.base.draws).all() and np.isfinite(result.naive.draws).all()


def test_on_a_crowd_the_result_does_not_depend_on_the_chunks_of_draws(crowd_setting, monkeypatch):
    from bayescal.correction import target_draws as _target_draws

    fit_data, eval_data, fit, _, _ = crowd_setting
    results = []
    # all 12 draws at once, then 5 draws a chunk (a chunk holds draws x responses elements)
    width = max(fit_data.responses().n_responses, eval_data.responses().n_responses)
    for elements in (_target_draws.CHUNK_ELEMENTS, 5 * width):
        monkeypatch.setattr(_target_draws, "CHUNK_ELEMENTS", elements)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bc.ChannelWarning)
            results.append(posterior_recalibration(fit_data, eval_data, fit, method="platt"))
    whole, chunked = results
    np.testing.assert_allclose(chunked.maps.parameters["slope"], whole.maps.parameters["slope"])
    np.testing.assert_array_equal(chunked.recalibrated.draws, whole.recalibrated.draws)


def test_on_a_crowd_the_posterior_recalibration_never_holds_draws_by_items_by_workers():
    """Memory: 400 draws x 3 000 items x 150 workers would be 3.6 GB in float64; the crowd
    route holds O(draws x items) at most (the fit's which-items mask and chunks of targets)."""
    import tracemalloc

    crowd = bc.simulate_crowd(6000, 150, labels_per_item=3, worker_mix={"good": 1.0}, seed=6)
    fit_data, eval_data = (
        crowd.data.subset(np.arange(3000)),
        crowd.data.subset(np.arange(3000, 6000)),
    )
    rng = np.random.default_rng(6)
    a = np.clip(crowd.channels.a + rng.normal(0, 0.01, (400, 150)), 0.01, 0.45)
    b = np.clip(crowd.channels.b + rng.normal(0, 0.01, (400, 150)), 0.55, 0.99)
    fit = fake_fit(fit_data, a, b, np.full(400, 0.4))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bc.ChannelWarning)  # weak workers' items unlabelled
            posterior_recalibration(fit_data, eval_data, fit, method="platt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"peak {peak / 1e6:.0f} MB"


def test_max_draws_keeps_evenly_spaced_draws_and_is_a_fit_of_those_alone(setting):
    """The preview of ``bayescal fit`` thins the draws (a million items and 4 000 draws took
    four minutes): the result is exactly that of a fit holding only the kept draws."""
    fit_data, eval_data, _, _, _ = setting
    rng = np.random.default_rng(9)
    channels = bc.toy_data(10, seed=8).channels
    a = np.clip(channels.a + rng.normal(0, 0.02, (250, 3)), 0.01, 0.4)
    b = np.clip(channels.b + rng.normal(0, 0.02, (250, 3)), 0.6, 0.99)
    prevalence = rng.uniform(0.4, 0.5, 250)
    fit = fake_fit(fit_data, a, b, prevalence)
    kept = np.linspace(0, 249, 100).round().astype(int)
    assert np.unique(kept).size == 100 and (kept[0], kept[-1]) == (0, 249)
    alone = fake_fit(fit_data, a[kept], b[kept], prevalence[kept])
    thinned = posterior_recalibration(fit_data, eval_data, fit, method="platt", max_draws=100)
    reference = posterior_recalibration(fit_data, eval_data, alone, method="platt")
    assert thinned.maps.n_draws == 100
    for row in ("recalibrated", "base", "naive"):
        np.testing.assert_array_equal(getattr(thinned, row).draws, getattr(reference, row).draws)
    np.testing.assert_array_equal(
        nc_ece_posterior(eval_data, fit, max_draws=100).draws,
        nc_ece_posterior(eval_data, alone).draws,
    )
    # four chains of 1 000 stacked: each gives a quarter of the kept draws
    assert np.bincount(evenly_spaced(4000, 1000) // 1000).tolist() == [250] * 4
    # as many draws as the fit has, or more, keeps every one
    every = posterior_recalibration(fit_data, eval_data, fit, method="platt", max_draws=250)
    assert every.maps.n_draws == 250
    with pytest.raises(ValueError, match=r"^max_draws must be >= 100; saw 99$"):
        posterior_recalibration(fit_data, eval_data, fit, max_draws=99)
    with pytest.raises(
        TypeError, match=r"^max_draws must be an integer; saw 100\.0 of type float$"
    ):
        nc_ece_posterior(eval_data, fit, max_draws=100.0)


@pytest.mark.parametrize("method", ["platt", "histogram"])
def test_with_gold_each_draws_map_minimises_the_rectified_loss(method, setting):
    """With gold items in the fitting sample, a posterior of one draw gives the map that
    bc.recalibrate fits to the rectified loss with that draw's channels (to 1e-8)."""
    fit_data, eval_data, _, a, b = setting
    labels = bc.toy_data(4000, condition="shifted", seed=8).labels[:2000]
    gold = np.full(2000, -1, dtype=np.int8)
    gold[::10] = labels[::10]
    with_gold = bc.AnnotatedScores(fit_data.scores, fit_data.annotations, gold=gold)
    one = fake_fit(with_gold, a[:1], b[:1], [0.45])
    result = posterior_recalibration(with_gold, eval_data, one, method=method)
    expected = bc.recalibrate(with_gold, method=method, channels=bc.Channels(a[0], b[0]))
    grid = np.linspace(0.01, 0.99, 40)
    np.testing.assert_allclose(result.maps.predict(grid)[0], expected.predict(grid), atol=1e-8)
    without = bc.recalibrate(fit_data, method=method, channels=bc.Channels(a[0], b[0]))
    assert np.abs(without.predict(grid) - expected.predict(grid)).max() > 1e-3  # gold counts


def test_posterior_recalibration_says_when_its_samples_share_items(setting):
    fit_data, eval_data, fit, _, _ = setting
    named = [
        dataclasses.replace(data, item_ids=[f"i{j}" for j in range(data.n_items)])
        for data in (fit_data, eval_data)
    ]
    with pytest.warns(
        bc.DataWarning,
        match=r"^posterior_recalibration: \d+ of the \d+ items of fit_data are also among the "
        r"\d+ of eval_data \(by id, e.g. 'i0'\)",
    ):
        posterior_recalibration(*named, fit, method="platt", max_draws=100)
