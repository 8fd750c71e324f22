"""Channels per score group (issue 19, item 2b): noise that depends on the score, detected by
comparing the grouped model with group channels against shared channels by LOO."""

import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.exceptions import IdentificationError
from tests.helpers import label_probability_by_rows

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
    with pytest.raises(ValueError, match="its checks are not implemented"):
        bc.check_model(data, fit)
    with pytest.raises(
        ValueError, match=r"is for comparison: .* NC-ECE with it is not implemented"
    ):
        bc.nc_ece_posterior(data, fit)


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
