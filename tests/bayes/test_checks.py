"""Model checks: statistics checked against direct computations, and their behaviour by simulation."""

import itertools
import re

import numpy as np
import pytest
from scipy import stats

import bayescal as bc
from bayescal.bayes.checks import check_model, verdicts
from bayescal.simulate.panels import simulate_dependent
from bayescal.studies.checks import FIVE_ANNOTATORS, model_check_study
from tests.helpers import fake_fit


def constant_fit(data, a, b, prevalence, draws=200):
    """A fit whose every draw is the same parameter value."""
    return fake_fit(
        data, np.tile(a, (draws, 1)), np.tile(b, (draws, 1)), np.full(draws, prevalence)
    )


@pytest.fixture(scope="module")
def five():
    """Five annotators with missing responses and a fit at the true channels."""
    rng = np.random.default_rng(11)
    sim = bc.simulate_annotated(3000, FIVE_ANNOTATORS, seed=11)
    annotations = sim.data.annotations.copy()
    annotations[rng.random(annotations.shape) < 0.15] = -1
    annotations[(annotations == -1).all(axis=1), 2] = 1
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    return data, constant_fit(data, FIVE_ANNOTATORS.a, FIVE_ANNOTATORS.b, 0.5)


def rows(checks, check):
    table = checks.table
    return table[table["check"] == check].set_index("subject")


def test_seeds_003_example_of_predicted_agreement():
    """Sensitivity 0.8, specificity 0.9 and 75% positives: independence predicts 0.72 agreement."""
    rng = np.random.default_rng(0)
    data = bc.AnnotatedScores(rng.random(500), rng.integers(0, 2, (500, 3)))
    table = check_model(data, constant_fit(data, [0.1] * 3, [0.8] * 3, 0.75))
    expected = rows(table, "pairwise_agreement")["expected"]
    assert np.allclose(expected, 0.75 * (0.8**2 + 0.2**2) + 0.25 * (0.1**2 + 0.9**2))
    assert float(expected.iloc[0]) == pytest.approx(
        0.72, abs=0.0051
    )  # 0.715, which seeds/003 rounds to 0.72


def test_observed_statistics_are_the_datas_own(five):
    data, fit = five
    table = check_model(data, fit)
    a = data.annotations
    seen = a != -1
    names = data.annotator_names
    np.testing.assert_array_equal(
        rows(table, "positive_count").loc[list(names), "observed"], (a == 1).sum(axis=0)
    )
    votes = (a == 1).sum(axis=1)
    np.testing.assert_array_equal(
        rows(table, "votes_per_item")["observed"], np.bincount(votes, minlength=6)
    )
    pairs = rows(table, "pairwise_agreement")
    for j, k in itertools.combinations(range(5), 2):
        both = seen[:, j] & seen[:, k]
        assert pairs.loc[f"{names[j]}-{names[k]}", "observed"] == pytest.approx(
            (a[both, j] == a[both, k]).mean()
        )
    patterns = rows(table, "pattern")
    assert patterns["observed"].sum() == data.n_items
    counts = data.compress()
    for pattern, count in zip(counts.patterns, counts.counts):
        name = " ".join(f"{n}={'-' if x < 0 else x}" for n, x in zip(names, pattern))
        assert patterns.loc[name, "observed"] == count


def test_expected_pattern_counts_sum_the_latent_label_out(five):
    data, fit = five
    patterns = rows(check_model(data, fit), "pattern")
    a, b, mu = FIVE_ANNOTATORS.a, FIVE_ANNOTATORS.b, 0.5
    counts = data.compress()
    for pattern, _ in zip(counts.patterns[:12], counts.counts[:12]):
        seen = pattern >= 0
        cell = (
            ((data.annotations >= 0) == seen).all(axis=1).sum()
        )  # items with this missingness mask
        given = lambda rate, pattern=pattern, seen=seen: np.prod(  # noqa: E731
            np.where(pattern[seen] == 1, rate[seen], 1 - rate[seen])
        )
        name = " ".join(f"{n}={'-' if x < 0 else x}" for n, x in zip(data.annotator_names, pattern))
        assert patterns.loc[name, "expected"] == pytest.approx(
            cell * (mu * given(b) + (1 - mu) * given(a)), rel=1e-9
        )


def test_saturation_and_identification_are_stated():
    sim = bc.toy_data(800, seed=1)
    saturated = rows(
        check_model(sim.data, constant_fit(sim.data, sim.channels.a, sim.channels.b, 0.5)), "model"
    )
    assert (
        saturated.loc["saturation", "flag"]
        and "saturated: 7 parameters for 7 free cells" in saturated.loc["saturation", "note"]
    )
    five = bc.simulate_annotated(800, FIVE_ANNOTATORS, seed=1).data
    table = check_model(five, constant_fit(five, FIVE_ANNOTATORS.a, FIVE_ANNOTATORS.b, 0.5))
    status = rows(table, "model")
    assert not status.loc["saturation", "flag"] and status.loc["saturation", "observed"] == 20
    assert not status.loc["identification", "flag"]
    weak = check_model(five, constant_fit(five, [0.3] * 5, [0.35] + [0.9] * 4, 0.5))
    note = rows(weak, "model").loc["identification", "note"]
    assert "weakly identified" in note and "['a0']" in note
    lines = verdicts(table)
    assert lines[0] == "Model: 20 degrees of freedom (31 free cells, 11 parameters)."
    assert any("the model reproduces the pattern counts" in line for line in lines)


def test_grouped_fit_checks_use_the_score_groups():
    channels = bc.Channels([0.1, 0.2], [0.8, 0.9])
    sim = bc.simulate_annotated(3000, channels, calibration=lambda z: 0.1 + 0.8 * z, seed=3)
    data = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations,
        groups=bc.channels.score_groups(sim.data.scores, n_groups=3),
    )
    fit = bc.fit_bayes(
        data, model="hui_walter", num_chains=2, num_warmup=500, num_samples=1000, progress=False
    )
    table = check_model(data, fit)
    status = rows(table, "model")
    assert status.loc["saturation", "observed"] == 2  # 3 groups x 3 free cells - (4 + 3) parameters
    assert rows(table, "pattern").index[0].endswith("(group 0)")
    with pytest.raises(
        ValueError, match=r"data must have the fit's score groups \[0, 1, 2\]; saw no groups"
    ):
        check_model(sim.data, fit)
    regrouped = bc.AnnotatedScores(
        sim.data.scores,
        sim.data.annotations,
        groups=bc.channels.score_groups(sim.data.scores, n_groups=2),
    )
    with pytest.raises(
        ValueError, match=r"data must have the fit's score groups \[0, 1, 2\]; saw \[0, 1\]"
    ):
        check_model(regrouped, fit)


def test_mismatched_fit_and_data_and_bad_arguments_raise(five):
    data, fit = five
    renamed = bc.AnnotatedScores(data.scores, data.annotations, annotator_names=list("vwxyz"))
    with pytest.raises(
        ValueError,
        match=r"data must have the annotators of the fit: \['a0', 'a1', 'a2', 'a3', 'a4'\]; saw \['v', 'w'",
    ):
        check_model(renamed, fit)
    with pytest.raises(
        ValueError,
        match="data are not the data this fit was fitted to: their pattern counts differ",
    ):
        check_model(data.subset(np.arange(100)), fit)
    with pytest.raises(TypeError, match=r"fit must be a bayescal\.BayesFit; saw ChannelFit"):
        check_model(data, bc.dawid_skene_em(data))
    with pytest.raises(TypeError, match=r"data must be a bayescal\.AnnotatedScores; saw ndarray"):
        check_model(data.annotations, fit)
    with pytest.raises(ValueError, match="discrepancy must be one of 'chi2', 'g2'; saw 'kl'"):
        check_model(data, fit, discrepancy="kl")
    with pytest.raises(ValueError, match="level must lie strictly between 0 and 1; saw 1"):
        check_model(data, fit, level=1)
    with pytest.raises(
        TypeError, match=r"checks must be the ModelChecks returned by bayescal\.check_model"
    ):
        verdicts(data)


def test_the_old_spellings_of_check_model_name_the_new_ones(five):
    data, fit = five
    with pytest.raises(TypeError, match=r"saw BayesFit \(the data come before the fit"):
        check_model(fit, data)
    with pytest.raises(TypeError, match=r"the argument interval= is called level="):
        check_model(data, fit, interval=0.95)
    with pytest.raises(TypeError, match=r"takes 2 positional argument\(s\) \(data, fit\)"):
        check_model(data, fit, 0.95)


def test_model_checks_show_themselves_in_one_line_and_as_the_report_table(five):
    data, fit = five
    checks = check_model(data, fit)
    assert "\n" not in repr(checks) and repr(checks).startswith(
        f"ModelChecks({len(checks.table)} checks at 90%, {len(checks.flagged)} flagged; Model: "
    )
    page = checks._repr_html_()
    table = checks.table
    kept = table[~table["check"].isin(["pattern", "pairwise_agreement"]) | table["flag"]]
    assert len(table) > 100  # so the table is cut: the other checks and the flagged rows stay
    assert page.count("<tr") == len(kept) + 1  # and the header
    assert f"{len(kept)} of {len(table)} rows shown" in page
    assert all(line.replace("'", "&#x27;") in page for line in checks.verdicts)
    assert page.count('class="flagged"') == len(checks.flagged)
    # issue 37, item 9: a model row says what its number is; every interval on one line, in
    # one style of numbers whatever their scale; p-values as the verdicts write them
    saturation = table.set_index("subject").loc["saturation"]
    assert f"saturation: {saturation['note']}" in page.replace("&#x27;", "'")
    assert "identification: the smallest annotator&#x27;s 5% posterior quantile of |b - a|" in page
    assert page.count('style="white-space: nowrap"') == len(kept)
    assert not re.search(r"\d\.\d+e[+-]\d", page) and not re.search(r">\d{2,}\.000<", page)


def test_deviance_and_seed_reproducibility(five):
    data, fit = five
    first, again = (
        check_model(data, fit, discrepancy="g2", seed=5),
        check_model(data, fit, discrepancy="g2", seed=5),
    )
    assert first.table.equals(again.table) and first.verdicts == again.verdicts
    ppc = rows(first, "ppc")
    assert list(ppc.index) == ["deviance G^2", "deviance G^2, sampled posterior draw"]
    assert (ppc["p_value"].between(0, 1)).all()


def test_shared_errors_simulation_keeps_each_annotators_channel():
    sim = simulate_dependent(200_000, FIVE_ANNOTATORS, pair=(1, 3), shared_error=0.1, seed=0)
    labels, a = sim.labels, sim.data.annotations
    for j in range(5):
        assert a[labels == 0, j].mean() == pytest.approx(sim.channels.a[j], abs=0.005)
        assert a[labels == 1, j].mean() == pytest.approx(sim.channels.b[j], abs=0.005)
    # Given Y, the pair's errors coincide more often than independence allows; other pairs do not.
    wrong = a != labels[:, None]
    assert (wrong[:, 1] & wrong[:, 3]).mean() > 2 * (wrong[:, 1].mean() * wrong[:, 3].mean())
    assert (wrong[:, 0] & wrong[:, 2]).mean() == pytest.approx(
        wrong[:, 0].mean() * wrong[:, 2].mean(), rel=0.1
    )
    untouched = bc.simulate_annotated(200_000, FIVE_ANNOTATORS, seed=0)
    np.testing.assert_array_equal(untouched.labels, labels)
    with pytest.raises(
        ValueError, match=r"pair must be two different annotator indices below 5; saw \(2, 2\)"
    ):
        simulate_dependent(10, FIVE_ANNOTATORS, pair=(2, 2))
    with pytest.raises(ValueError, match=r"shared_error must be a number in \[0, 1\]; saw 1.5"):
        simulate_dependent(10, FIVE_ANNOTATORS, shared_error=1.5)


@pytest.mark.slow
def test_p_values_are_roughly_uniform_when_the_model_is_true():
    """200 data sets of n = 2000 from the five-annotator Dawid–Skene model, flat-prior fits.

    Measured (seeds 0-199, the sampler of issue 15): sampled-posterior p-values have quantiles
    0.08 / 0.29 / 0.57 / 0.78 / 0.95 at 5 / 25 / 50 / 75 / 95% and KS p = 0.017 against
    uniform; the ordinary posterior predictive p-values pile up near 0.5 (5% quantile 0.13,
    KS p = 0.004), as they are known to.  No pairwise-agreement check flagged a pair.  (With
    100 replicates, seeds 0-99 alone gave KS p = 0.006 with this sampler's random streams and
    seeds 100-299 gave 0.54: a 1% test on 100 replicates fails by chance once in a hundred
    stream changes, hence the 200.)"""
    table = model_check_study(replicates=200, n=2000, level=0.95)  # as measured
    ppc = table[table["check"] == "ppc"]
    sampled = ppc[ppc["subject"].str.endswith("sampled posterior draw")]["p_value"].to_numpy()
    classic = ppc[~ppc["subject"].str.endswith("sampled posterior draw")]["p_value"].to_numpy()
    assert stats.kstest(sampled, "uniform").pvalue > 0.01
    assert (sampled < 0.05).mean() <= 0.10 and (sampled < 0.5).mean() == pytest.approx(
        0.5, abs=0.15
    )
    assert (classic < 0.05).mean() <= 0.05  # conservative, never anti-conservative
    pairs = table[table["check"] == "pairwise_agreement"]
    assert pairs["flag"].mean() <= 0.05


@pytest.mark.slow
def test_a_pair_with_shared_errors_is_flagged():
    """30 data sets of n = 5000, five annotators, a0 and a1 wrong together on 5% of the items.

    Measured (seeds 0-29): the a0-a1 pair is flagged in every replicate."""
    table = model_check_study(replicates=30, n=5000, shared_error=0.05, level=0.95)
    pairs = table[table["check"] == "pairwise_agreement"]
    rate = pairs[pairs["subject"] == "a0-a1"]["flag"].mean()
    assert rate >= 0.9
    # The excess agreement is the pair's: the model's other pairs are flagged far less often.
    assert pairs[pairs["subject"] != "a0-a1"]["flag"].mean() <= 0.25


def test_the_crowd_checks_hold_the_gold_classes_fixed():
    """Gold items' classes are observed: each replicate keeps them.  With perfect workers whose
    labels are the gold (90% positive) and a prevalence draw of 0.5, replicates that drew the
    classes anew would put each worker's positive count near half its labels and flag it."""
    from bayescal.bayes.checks import crowd_check_rows
    from bayescal.data import Responses

    rng = np.random.default_rng(2)
    gold = (rng.random(600) < 0.9).astype(np.int8)
    item = np.repeat(np.arange(600), 3)
    annotator = np.concatenate([rng.choice(20, 3, replace=False) for _ in range(600)])
    names = tuple(f"w{k:02d}" for k in range(20))
    responses = Responses(item, annotator, gold[item], 600, names, gold=gold)
    a, b = np.zeros((50, 20)), np.ones((50, 20))
    rows = crowd_check_rows(responses, a, b, np.full(50, 0.5), 0.9, rng)
    positive = [row for row in rows if row["check"] == "positive_count"]
    assert len(positive) == 20 and not any(row["flag"] for row in positive)
    # the same responses without gold: the replicates draw the classes, and the counts flag
    free = Responses(item, annotator, gold[item], 600, names)
    rows = crowd_check_rows(free, a, b, np.full(50, 0.5), 0.9, rng)
    assert all(row["flag"] for row in rows if row["check"] == "positive_count")


def test_the_crowd_checks_flag_a_true_models_rows_only_by_chance():
    """A 150-worker crowd checked at its true channels with 50 replicates (304 rows in 4
    checks a seed, seeds 0-2): a statistic beyond every replicate happens by chance to about 2
    rows in 51, and as p = 0 Benjamini–Hochberg flagged it whatever the number of rows (29
    rows in the three seeds).  With the replicates' normal tail there, 1 row is flagged (a
    false discovery rate of 0.1 in each of the 12 checks allows about one)."""
    from bayescal.bayes.checks import crowd_check_rows

    flagged = 0
    for seed in range(3):
        sim = bc.simulate_crowd(6000, 150, workload="uniform", worker_mix={"good": 1}, seed=seed)
        a, b = np.tile(sim.channels.a, (50, 1)), np.tile(sim.channels.b, (50, 1))
        prevalence = np.full(50, sim.labels.mean())
        rows = crowd_check_rows(
            sim.data.responses(), a, b, prevalence, 0.9, np.random.default_rng(seed)
        )
        assert len(rows) == 304 and 0 < min(row["p_value"] for row in rows) < 1 / 50
        flagged += sum(row["flag"] for row in rows)
    assert flagged <= 2


def test_a_statistic_beyond_every_replicate_gets_at_most_the_p_value_they_resolve():
    """Beyond 50 replicates that are all equal there is no tail to read: 2 / 51, the smallest
    p-value they tell (the normal tail would give 0, flagged however many rows); far beyond
    spread replicates, the normal tail."""
    from bayescal.bayes.checks import statistic_rows

    replicated = np.zeros((50, 3))
    replicated[:, 2] = np.arange(50)
    observed = np.array([1.0, 0.0, 200.0])
    rows = statistic_rows("check", "xyz", observed, replicated, replicated, 0.9, corrected=True)
    assert [row["p_value"] for row in rows[:2]] == [pytest.approx(2 / 51), 1.0]
    z = (200 - 24.5) / np.arange(50).std()
    assert rows[2]["p_value"] == pytest.approx(2 * stats.norm.sf(z))


def test_the_crowd_checks_replicate_a_shared_difficulty():
    """Fourteen annotators who share an item difficulty, three labels an item, checked at the
    true channels: an item's labels agree more often than independent labels would, so the
    votes per item are flagged when the replicates leave the difficulty out, and not when every
    replicate draws each item's effect with the loadings (50 draws of the truth)."""
    from bayescal.bayes.checks import crowd_check_rows

    rng = np.random.default_rng(3)
    channels = bc.Channels(rng.uniform(0.1, 0.3, 14), rng.uniform(0.7, 0.9, 14))
    sim = bc.simulate.simulate_difficulty(3000, channels, loading=(1.5, 1.5), seed=3)
    labels = sim.data.annotations.copy()
    unseen = np.argsort(rng.random(labels.shape), axis=1)[:, 3:]  # keep three labels an item
    np.put_along_axis(labels, unseen, -1, axis=1)
    responses = bc.AnnotatedScores(sim.data.scores, labels).responses()
    a, b = np.tile(channels.a, (50, 1)), np.tile(channels.b, (50, 1))

    def flagged_votes(loading=None):
        rows = crowd_check_rows(
            responses, a, b, np.full(50, 0.5), 0.9, np.random.default_rng(4), loading=loading
        )
        return [row["subject"] for row in rows if row["check"] == "votes_per_item" and row["flag"]]

    assert {"0 of 3 positive", "3 of 3 positive"} <= set(flagged_votes())
    assert flagged_votes(np.tile([1.5, 1.5], (50, 1))) == []
