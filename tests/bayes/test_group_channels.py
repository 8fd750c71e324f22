"""Channels per score group (issue 19, item 2b): noise that depends on the score, detected by
comparing the grouped model with group channels against shared channels by LOO."""

import dataclasses
import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.exceptions import IdentificationError
from tests.helpers import fake_fit, label_probability_by_rows

LOW = bc.Channels([0.10, 0.15, 0.20, 0.10], [0.85, 0.80, 0.75, 0.90])
#: where the predictor scores high the judges share its blind spot: more false positives
HIGH = bc.Channels([0.30, 0.35, 0.30, 0.25], [0.95, 0.90, 0.90, 0.95])


def _judged(n: int, seed: int, differential: bool) -> bc.AnnotatedScores:
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    labels = rng.random(n) < scores
    high = (scores >= 0.5)[:, None] & differential
    a = np.where(high, HIGH.a, LOW.a)
    b = np.where(high, HIGH.b, LOW.b)
    annotations = (rng.random((n, 4)) < np.where(labels[:, None], b, a)).astype(np.int8)
    return bc.AnnotatedScores(
        scores, annotations, groups=bc.channels.score_groups(scores, n_groups=2)
    )


def _fits(data):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shared = bc.fit_bayes(data, model="hui_walter", progress=False)
        by_group = bc.fit_bayes(data, model="hui_walter_by_group", progress=False)
    return shared, by_group


def test_loo_prefers_channels_per_group_when_the_noise_depends_on_the_score(tmp_path):
    data = _judged(4000, 0, differential=True)
    shared, by_group = _fits(data)
    assert by_group.annotator_names[:2] == ("a0 [group 0]", "a1 [group 0]")
    a, _, _ = by_group.draws()
    assert a.shape == (by_group.n_draws, 8)
    # each group's channels recovered: group 1 (scores >= 0.5) has the high false-positive rates
    np.testing.assert_allclose(a.mean(axis=0)[4:], HIGH.a, atol=0.06)
    np.testing.assert_allclose(a.mean(axis=0)[:4], LOW.a, atol=0.06)
    # the aggregated labels use each item's group's channels and class proportion
    np.testing.assert_allclose(
        by_group.predict_proba(data), label_probability_by_rows(by_group, data), rtol=1e-8
    )
    table = bc.compare_models({"shared": shared, "by group": by_group})
    assert table.index[0] == "by group"
    assert table.loc["shared", "elpd_diff"] > 2 * table.loc["shared", "dse"]
    # the model checks replicate each group's patterns under its channels: they pass the fit
    # of channels per group, and flag the shared channels' misfit
    checks = {
        name: bc.check_model(data, fit).table
        for name, fit in (("by group", by_group), ("shared", shared))
    }
    by_annotator = checks["by group"].query("check == 'positive_count'")["subject"]
    assert by_annotator.tolist() == ["a0", "a1", "a2", "a3"]
    global_flags = {
        name: table.query("check == 'ppc'")["flag"].tolist() for name, table in checks.items()
    }
    assert global_flags == {"by group": [False, False], "shared": [True, True]}
    by_group.save(tmp_path / "fit.nc")
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    np.testing.assert_allclose(
        loaded.pointwise_log_likelihood().values, by_group.pointwise_log_likelihood().values
    )


def test_loo_does_not_prefer_channels_per_group_when_the_noise_is_shared():
    data = _judged(4000, 1, differential=False)
    shared, by_group = _fits(data)
    table = bc.compare_models({"shared": shared, "by group": by_group})
    gain = table.loc["by group", "elpd_loo"] - table.loc["shared", "elpd_loo"]
    assert gain < 2 * table["dse"].max()


def test_channels_per_group_refusals():
    data = _judged(600, 2, differential=False)
    two = bc.AnnotatedScores(data.scores, data.annotations[:, :2], groups=data.groups)
    with pytest.raises(
        IdentificationError, match="needs three annotators or more; score group 0 has 2"
    ):
        bc.fit_bayes(two, model="hui_walter_by_group", progress=False)
    with pytest.raises(ValueError, match="takes no dependent pairs"):
        bc.fit_bayes(data, model="hui_walter_by_group", dependent=("a0", "a1"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SamplingWarning)
        fit = bc.fit_bayes(data, model="hui_walter_by_group", progress=False, num_samples=200)
    with pytest.raises(ValueError, match=r"posterior_recalibration with a hui_walter_by_group"):
        bc.bayes.posterior_recalibration(data, data, fit)
    with pytest.raises(ValueError, match=r"calibration_test with a hui_walter_by_group fit"):
        bc.calibration_test(data, fit, n_replicates=19)
    ungrouped = bc.AnnotatedScores(data.scores, data.annotations)
    with pytest.raises(ValueError, match=r"data must have the fit's score groups \[0, 1\]; saw no"):
        bc.nc_ece_posterior(ungrouped, fit)
    one_group = dataclasses.replace(data, groups=np.zeros(data.n_items, int))
    with pytest.raises(ValueError, match=r"score groups \[0, 1\]; saw \[0\]"):
        bc.nc_ece_posterior(one_group, fit)
    gold = dataclasses.replace(data, gold=np.where(np.arange(600) < 50, 1, -1))
    with pytest.raises(ValueError, match=r"implemented for a panel's pattern counts without gold"):
        bc.nc_ece_posterior(gold, fit)


def test_nc_ece_corrects_each_group_with_its_own_channels():
    """Issue 38 item 4: NC-ECE of a fit with channels per score group corrects each item with
    its group's channels (and the group's own IV prevalence): its bin moments are the sum of
    each group's, as a fit of the group alone gives them, weighted by the group's share."""
    data = _judged(3000, 3, differential=True)
    rng = np.random.default_rng(0)
    spread = 0.02 * rng.standard_normal((30, 8))
    a = np.r_[LOW.a, HIGH.a] + spread
    b = np.r_[LOW.b, HIGH.b] - spread
    fit = fake_fit(data, a, b, np.full((30, 2), 0.5), model="hui_walter_by_group")
    both = bc.nc_ece_posterior(data, fit, uncertainty="channels")
    expected = 0.0
    for g in (0, 1):
        group = data.subset(np.flatnonzero(data.groups == g))
        alone = fake_fit(group, a[:, 4 * g : 4 * g + 4], b[:, 4 * g : 4 * g + 4], np.full(30, 0.5))
        moments = bc.nc_ece_posterior(group, alone, uncertainty="channels").bin_moments
        expected = expected + moments * group.n_items / data.n_items
    np.testing.assert_allclose(both.bin_moments, expected, rtol=1e-12, atol=1e-15)


def test_checks_of_channels_per_group_are_a_panels_and_need_no_prevalence_spread():
    """Seven judges in two score groups are 14 channels but a panel of seven: the pattern
    checks, not the crowd checks (those take more than 12 annotators); and each group being a
    Dawid–Skene model of its own, equal class proportions are no sign of weak identification."""
    rng = np.random.default_rng(5)
    scores = rng.random(800)
    truth = rng.random(800) < scores
    annotations = (rng.random((800, 7)) < np.where(truth[:, None], 0.85, 0.15)).astype(np.int8)
    data = bc.AnnotatedScores(
        scores, annotations, groups=bc.channels.score_groups(scores, thresholds=[0.5])
    )
    spread = 0.01 * rng.standard_normal((30, 14))
    fit = fake_fit(
        data, 0.15 + spread, 0.85 - spread, np.full((30, 2), 0.5), model="hui_walter_by_group"
    )
    table = bc.check_model(data, fit).table
    assert {"ppc", "pattern", "positive_count"} <= set(table["check"])
    counted = table.query("check == 'positive_count'")["subject"].tolist()
    assert counted == [f"a{j}" for j in range(7)]
    identification = table.query("subject == 'identification'")
    assert not identification["flag"].iloc[0], identification["note"].iloc[0]


def test_channels_per_group_need_two_groups_and_three_annotators_in_each():
    data = _judged(600, 3, differential=False)
    one = bc.AnnotatedScores(data.scores, data.annotations, groups=np.zeros(600, int))
    with pytest.raises(IdentificationError, match="need two score groups or more; saw 1"):
        bc.fit_bayes(one, model="hui_walter_by_group", progress=False)
    sparse = data.annotations.copy()
    sparse[data.groups == 1, 2:] = -1  # only a0 and a1 label in group 1
    thin = bc.AnnotatedScores(data.scores, sparse, groups=data.groups)
    with pytest.raises(IdentificationError, match="score group 1 has 2 with labels"):
        bc.fit_bayes(thin, model="hui_walter_by_group", progress=False)
