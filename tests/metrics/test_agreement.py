"""Judge-agreement statistics (seeds/003): hand-computed values and scipy cross-checks."""

import json

import numpy as np
import pytest
from scipy import stats

from bayescal.metrics.agreement import (
    ABSTAIN,
    accuracy_under_label_noise,
    cohens_kappa,
    holm_sidak,
    independence_check,
    kappa_interval,
    krippendorff_alpha,
    ks_two_sample,
    mcnemar_exact,
    wilson_interval,
)
from bayescal.metrics.record import calibration_record, error_rates, youden_index
from bayescal.metrics.triage import logit_kde_threshold

nan = np.nan


def test_cohens_kappa_by_hand_on_the_decided_subset():
    # Table (a, b): (1,1) x 20, (1,0) x 5, (0,1) x 10, (0,0) x 15; two abstentions ignored.
    a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15 + [ABSTAIN, 1])
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15 + [1, ABSTAIN])
    p_o = 35 / 50
    p_e = (25 / 50) * (30 / 50) + (25 / 50) * (20 / 50)
    assert cohens_kappa(a, b) == pytest.approx((p_o - p_e) / (1 - p_e))
    with pytest.raises(
        ValueError, match=r"kappa is undefined: every decided item falls in one category"
    ):
        cohens_kappa([1, 1, 1], [1, 1, 1])
    with pytest.raises(ValueError, match="no item that both decided"):
        cohens_kappa([ABSTAIN, 1], [0, ABSTAIN])


def test_kappa_interval_drops_degenerate_replicates_and_reports_them():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 400)
    judge = np.where(rng.random(400) < 0.85, truth, 1 - truth)
    result = kappa_interval(judge, truth, n_boot=1000, seed=1)
    assert result.lower < result.estimate < result.upper and result.n_valid == result.n_boot == 1000
    assert result == kappa_interval(judge, truth, n_boot=1000, seed=1)
    # Mostly one class on a tiny sample: many resamples have p_e = 1 and are dropped, not clamped.
    small = kappa_interval([1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 0], n_boot=2000, seed=0)
    share = 1 - (1 - 1 / 8) ** 8  # a resample keeps the one negative row with this probability
    assert small.n_valid == pytest.approx(2000 * share, rel=0.1)
    assert small.lower == small.upper == 1.0


def test_error_rates_in_both_forms_and_the_labeled_identity():
    truth = np.array([1] * 10 + [0] * 10)
    pred = np.array([1] * 6 + [0] * 2 + [ABSTAIN] * 2 + [0] * 7 + [1] * 1 + [ABSTAIN] * 2)
    rates = error_rates(y_true=truth, y_pred=pred)
    assert (rates.true_positive, rates.false_negative, rates.abstained_positive) == (6, 2, 2)
    assert (rates.true_negative, rates.false_positive, rates.abstained_negative) == (7, 1, 2)
    assert rates.frr_decided == pytest.approx(2 / 8) and rates.frr_labeled == pytest.approx(4 / 10)
    assert rates.far_decided == pytest.approx(1 / 8) and rates.far_labeled == pytest.approx(3 / 10)
    for decided, labeled, share in (
        (rates.frr_decided, rates.frr_labeled, rates.abstention_rate_positive),
        (rates.far_decided, rates.far_labeled, rates.abstention_rate_negative),
    ):
        assert labeled == pytest.approx(decided * (1 - share) + share)  # seeds/003
    assert youden_index(y_true=truth, y_pred=pred) == pytest.approx(6 / 8 + 7 / 8 - 1)
    assert (
        error_rates(y_true=[1, 1], y_pred=[1, 1]).far_decided is None
    )  # an empty slice has no rate
    with pytest.raises(ValueError, match="youden_index needs decided items of both classes"):
        youden_index(y_true=[1, 1], y_pred=[1, 1])


def test_wilson_interval_matches_scipy_and_a_hand_value():
    for k, n in ((0, 10), (8, 10), (37, 40), (500, 1000)):
        reference = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert wilson_interval(k, n, level=0.95) == pytest.approx(
            (reference.low, reference.high), abs=1e-12
        )
    # k = 8, n = 10, z = 1.96: (0.8 + 0.19208 +- 1.96 sqrt(0.016 + 0.009604)) / 1.38416
    z = stats.norm.ppf(0.975)
    half = z * np.sqrt(0.8 * 0.2 / 10 + z**2 / 400)
    assert wilson_interval(8, 10, level=0.95) == pytest.approx(
        ((0.8 + z**2 / 20 - half) / (1 + z**2 / 10), (0.8 + z**2 / 20 + half) / (1 + z**2 / 10))
    )
    with pytest.raises(ValueError, match="k must not exceed n"):
        wilson_interval(11, 10)


def test_accuracy_under_label_noise_inverts_and_states_the_ceiling():
    result = accuracy_under_label_noise(0.82, 0.1)
    assert result.accuracy == pytest.approx((0.82 - 0.1) / 0.8) and result.ceiling == pytest.approx(
        0.9
    )
    assert not result.at_ceiling
    # Forward model: a judge of accuracy 0.9 against labels with 10% noise measures 0.82.
    assert 0.9 * 0.9 + 0.1 * 0.1 == pytest.approx(0.82)
    with pytest.warns(UserWarning, match="exceeds the ceiling") as record:
        above = accuracy_under_label_noise(0.95, 0.1)
    assert record[0].filename == __file__
    assert above.at_ceiling and above.accuracy > 1
    with pytest.raises(ValueError, match=r"eta must be below 0\.5"):
        accuracy_under_label_noise(0.8, 0.5)


def test_independence_check_reproduces_the_seeds_example():
    check = independence_check(
        sensitivity=0.8, specificity=0.9, prevalence=0.75, observed=0.95, n=300
    )
    assert round(check.predicted, 2) == pytest.approx(0.72) and check.predicted == pytest.approx(
        0.715
    )
    assert check.correlated and check.gap == pytest.approx(0.235)
    # Recovered from kappa: p_o = kappa (1 - p_e) + p_e with the judges' positive rates.
    positive = 0.75 * 0.8 + 0.25 * 0.1
    chance = positive**2 + (1 - positive) ** 2
    via_kappa = independence_check(0.8, 0.9, 0.75, kappa=0.5)
    assert via_kappa.observed == pytest.approx(0.5 * (1 - chance) + chance)
    different = independence_check([0.8, 0.7], [0.9, 0.95], 0.5, observed=0.8)
    assert different.predicted == pytest.approx(0.5 * (0.56 + 0.06) + 0.5 * (0.855 + 0.005))
    with pytest.raises(ValueError, match="exactly one of observed or kappa; saw both"):
        independence_check(0.8, 0.9, 0.75, observed=0.9, kappa=0.5)


def test_mcnemar_exact_is_capped_and_matches_hand_values():
    assert mcnemar_exact(1, 1) == 1.0 and mcnemar_exact(2, 2) == 1.0 and mcnemar_exact(0, 0) == 1.0
    # p = 2 sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c)
    assert mcnemar_exact(3, 9) == pytest.approx(2 * (1 + 12 + 66 + 220) / 2**12, rel=1e-12)
    assert mcnemar_exact(12, 4) == pytest.approx(2 * (1 + 16 + 120 + 560 + 1820) / 2**16, rel=1e-12)
    assert mcnemar_exact(0, 7) == pytest.approx(2 / 2**7, rel=1e-12)
    assert mcnemar_exact(0, 5) == pytest.approx(2 * 0.5**5)


def test_ks_two_sample_by_hand_and_its_asymptotic_p_value():
    # F_x - F_y is largest at 4: F_x = 1, F_y = 1/3
    statistic, pvalue = ks_two_sample([1, 2, 3, 4], [2.5, 5, 6])
    assert statistic == pytest.approx(2 / 3, rel=1e-12)
    assert pvalue == pytest.approx(stats.kstwo.sf(2 / 3, round(4 * 3 / 7)), rel=1e-12)
    assert ks_two_sample([1, 2, 3], [1, 2, 3]).statistic == 0.0


def test_holm_sidak_step_down():
    result = holm_sidak([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    # sorted 0.005, 0.01, 0.03, 0.04 against 1 - 0.95^(1/4), 1 - 0.95^(1/3), 1 - 0.95^(1/2), 0.05
    np.testing.assert_allclose(
        result.thresholds[[3, 0, 2, 1]],
        [1 - 0.95 ** (1 / 4), 1 - 0.95 ** (1 / 3), 1 - 0.95**0.5, 0.05],
    )
    assert result.reject.tolist() == [True, False, False, True]  # stops at 0.03 > 0.0253
    assert holm_sidak([0.001, 0.002], alpha=0.05).reject.all()
    assert not holm_sidak([0.2, 0.001], alpha=0.05).reject[0]
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]"):
        holm_sidak([0.5, 1.5])


def test_krippendorff_alpha_reproduces_krippendorffs_worked_example():
    """Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12
    units example with missing values; published: nominal 0.743, ordinal 0.815, interval 0.849,
    ratio 0.797.  Rows are units, columns observers A-D."""
    data = np.array(
        [
            [1, 1, nan, 1],
            [2, 2, 3, 2],
            [3, 3, 3, 3],
            [3, 3, 3, 3],
            [2, 2, 2, 2],
            [1, 2, 3, 4],
            [4, 4, 4, 4],
            [1, 1, 2, 1],
            [2, 2, 2, 2],
            [nan, 5, 5, 5],
            [nan, nan, 1, 1],
            [nan, 3, nan, nan],
        ]
    )
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, value in published.items():
        assert krippendorff_alpha(data, measurement=level) == pytest.approx(value, abs=5e-4)
    assert krippendorff_alpha([[1, 1], [2, 2], [3, 3]]) == 1.0
    with pytest.raises(ValueError, match="alpha is undefined: every pairable value is the same"):
        krippendorff_alpha([[1, 1], [1, 1]])
    with pytest.raises(
        ValueError,
        match="measurement must be one of 'nominal', 'ordinal', 'interval', 'ratio'; saw 'kappa'",
    ):
        krippendorff_alpha(data, measurement="kappa")


def test_calibration_record_carries_every_field_and_a_baseline():
    rng = np.random.default_rng(5)
    truth = (rng.random(500) < 0.3).astype(int)
    pred = np.where(rng.random(500) < 0.88, truth, 1 - truth)
    pred[rng.random(500) < 0.05] = ABSTAIN
    record = calibration_record(
        y_true=truth,
        y_pred=pred,
        name="llm judge",
        provenance="proxy",
        n_annotators=2,
        repeat_rate=0.2,
        held_out=False,
        n_boot=500,
    )
    assert (record.n_items, record.n_positive + record.n_negative) == (500, 500)
    assert (
        record.kappa.n_boot == 500
        and record.accuracy_interval[0] < record.accuracy < record.accuracy_interval[1]
    )
    assert record.baseline["predicts"] == 0 and record.baseline["accuracy"] == pytest.approx(
        1 - truth.mean()
    )
    assert any("proxy" in note for note in record.notes) and any(
        "fitted on these labels" in note for note in record.notes
    )
    frame = record.to_frame()
    assert list(frame.index) == ["llm judge", "constant baseline"]
    assert frame.loc["llm judge", "far_labeled"] == record.rates.far_labeled
    parsed = json.loads(record.to_json())
    assert parsed["accuracy_interval_method"].startswith("Wilson") and parsed["kappa"][
        "method"
    ].startswith("percentile bootstrap")
    assert (
        parsed["rates"]["abstained_positive"] == record.rates.abstained_positive
        and parsed["kappa"]["n_valid"] > 0
    )
    with pytest.raises(ValueError, match=r"provenance must be one of 'human', 'proxy'; saw 'gold'"):
        calibration_record(y_true=truth, y_pred=pred, provenance="gold")


def test_logit_kde_threshold_flags_the_low_density_tail():
    rng = np.random.default_rng(7)
    scores = np.concatenate([rng.beta(8, 2, 300), [0.02, 0.03]])  # two runs far from their peers
    result = logit_kde_threshold(scores, percentile=5, n_boot=200)
    assert result.flagged[-2:].all() and result.flagged.mean() == pytest.approx(0.05, abs=0.01)
    assert result.threshold_interval[0] <= result.threshold <= result.threshold_interval[1]
    # The density on the score scale integrates to one (Jacobian included).
    grid = np.linspace(1e-4, 1 - 1e-4, 20001)
    assert np.trapezoid(np.exp(result.log_density(grid)), grid) == pytest.approx(1.0, abs=0.01)
    # Leave-one-out: a point's own kernel is excluded.
    i = 5
    others = np.delete(scores, i)
    own = np.log(
        np.mean(
            stats.norm.pdf(
                (np.log(scores[i] / (1 - scores[i])) - np.log(others / (1 - others)))
                / result.bandwidth
            )
        )
        / result.bandwidth
    )
    assert result.loo_log_density[i] == pytest.approx(
        own - np.log(scores[i]) - np.log1p(-scores[i])
    )
    assert 0 < result.smoothed_percentile([0.5])[0] < result.smoothed_percentile([0.9])[0] < 1
    with pytest.raises(ValueError, match=r"scores must lie strictly inside \(0, 1\)"):
        logit_kde_threshold([0.2, 0.5, 1.0])


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: cohens_kappa([1, 2], [1, 0]),
            r"rater1 must contain only 0, 1 or -1 \(abstain\); saw 2 at position 1",
        ),
        (
            lambda: cohens_kappa([1, 0], [1]),
            "rater1 and rater2 must have the same number of items; saw 2 and 1",
        ),
        (
            lambda: error_rates(y_true=[1, ABSTAIN], y_pred=[1, 0]),
            "y_true must contain only 0 or 1; saw -1 at position 1",
        ),
        (lambda: kappa_interval([1, 0], [1, 0], n_boot=0), "n_boot must be >= 1; saw 0"),
        (
            lambda: wilson_interval(1, 10, level=1.5),
            r"level must lie strictly between 0 and 1; saw 1.5",
        ),
        (lambda: mcnemar_exact(-1, 2), "b must be >= 0; saw -1"),
        (lambda: ks_two_sample([], [1.0]), "x must be a non-empty 1-D array"),
        (lambda: krippendorff_alpha([1, 2, 3]), r"data must be a 2-D array \(units x raters\)"),
        (
            lambda: independence_check(1.2, 0.9, 0.5, observed=0.8),
            r"sensitivity must be a number in \[0, 1\]; saw 1.2",
        ),
        (
            lambda: logit_kde_threshold([0.2, 0.4, 0.6], percentile=100),
            r"percentile must be a number in \(0, 100\)",
        ),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
