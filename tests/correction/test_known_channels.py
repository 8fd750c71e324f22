"""Channels, aggregation weights, corrected labels, NC-ECE and the naive baselines (paper §2–3,
App. B.3, D.1, F.4)."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import bayescal as bc
from bayescal.correction.known_channels import majority_vote_labels, soft_vote_labels
from bayescal.exceptions import ChannelWarning

CH = bc.Channels(a=[0.1, 0.2], b=[0.9, 0.7])


# --- Channels -------------------------------------------------------------------------------


def test_channels_gap_and_error_rates():
    ch = bc.Channels.from_error_rates(false_positive=[0.08, 0.13], false_negative=[0.16, 0.11])
    assert ch.b.tolist() == pytest.approx([0.84, 0.89])
    assert ch.gap.tolist() == pytest.approx([0.76, 0.76])
    assert ch.n_annotators == 2
    assert bc.Channels(0.2, 0.8).n_annotators == 1


def test_channels_are_read_only_copies():
    a = np.array([0.1, 0.2])
    ch = bc.Channels(a, [0.9, 0.8])
    a[0] = 0.5
    assert ch.a[0] == 0.1
    with pytest.raises(ValueError):
        ch.a[0] = 0.3


@pytest.mark.parametrize(
    "a, b, match",
    [
        ([0.1, 1.2], [0.9, 0.9], r"a must lie in \[0, 1\]; saw 1.2 at position 1"),
        ([0.1], [math.nan], r"b must be finite"),
        ([0.1, 0.2], [0.9], r"a and b must have one entry per annotator each; saw 2 and 1"),
        ([], [], r"a must not be empty"),
    ],
)
def test_channels_bad_input(a, b, match):
    with pytest.raises(ValueError, match=match):
        bc.Channels(a, b)


def test_an_uninformative_annotator_gets_weight_zero_with_one_warning():
    """Issue 16 item 1 (DESIGN.md §4): |b - a| < MIN_GAP means weight 0, never a blown-up
    correction (a gap of 1e-9 gave NC-ECE = 128,833,336.9)."""
    sim = bc.toy_data(2000, seed=4)
    a, b = sim.channels.a, sim.channels.b
    kept = bc.AnnotatedScores(sim.data.scores, sim.data.annotations[:, 1:])
    expected = bc.noise_corrected_ece(kept, bc.Channels(a[1:], b[1:]))
    for gap in (0.0, 1e-15, 1e-9, -5e-5):
        flat = bc.Channels(np.r_[0.3, a[1:]], np.r_[0.3 + gap, b[1:]])
        with pytest.warns(
            ChannelWarning,
            match=r"^channels: annotator a0 has \|b - a\| < 0.0001: no information about Y, "
            r"weight 0 in the correction$",
        ) as record:
            value = bc.noise_corrected_ece(sim.data, flat)
        assert len(record) == 1 and record[0].filename == __file__
        assert value == pytest.approx(expected, abs=1e-12)
    with pytest.warns(ChannelWarning, match=r"annotator 0 has \|b - a\| < 0.0001"):
        weights = bc.correction.aggregation_weights(
            bc.Channels([0.3, 0.1], [0.3, 0.9]), prevalence=0.5
        )
    assert weights.tolist() == [0.0, 1.0]


def test_no_informative_annotator_or_an_item_left_without_one_is_refused():
    with pytest.raises(
        ValueError, match=r"channels: no annotator is informative \(every \|b - a\| < 0.0001"
    ):
        bc.correction.corrected_labels([[1, 0]], bc.Channels([0.3, 0.5], [0.3, 0.5]))
    with (
        pytest.raises(
            ValueError,
            match=r"1 item\(s\) \(or response patterns\) are labelled only by the uninformative "
            r"annotator\(s\) 0, e.g. the labels 0=1: nothing is known of their class",
        ),
        pytest.warns(ChannelWarning),
    ):
        bc.correction.corrected_labels([[1, 0], [1, -1]], bc.Channels([0.3, 0.1], [0.3, 0.9]))


def test_negatively_oriented_user_channels_warn_unless_marked_adversarial():
    """Issue 16 item 1: a > b gave 0.397 instead of 0.111 without a word."""
    sim = bc.toy_data(2000, seed=5)
    swapped = bc.Channels(sim.channels.b, sim.channels.a)
    with pytest.warns(ChannelWarning, match=r"annotators a0, a1 and a2 have b < a") as record:
        bc.noise_corrected_ece(sim.data, swapped)
    assert record[0].filename == __file__
    adversarial = bc.Channels(sim.channels.b, sim.channels.a, adversarial=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bc.noise_corrected_ece(sim.data, adversarial)
    with pytest.raises(TypeError, match=r"adversarial must be True or False; saw 'yes'"):
        bc.Channels([0.1], [0.9], adversarial="yes")


# --- weights ---------------------------------------------------------------------------------


def test_iv_weights_hand_computed():
    # v1 = (.5*.1*.9 + .5*.9*.1)/.8^2 = 9/64; v2 = (.5*.2*.8 + .5*.7*.3)/.5^2 = 37/50
    inv1, inv2 = Fraction(64, 9), Fraction(50, 37)
    expected = [float(inv1 / (inv1 + inv2)), float(inv2 / (inv1 + inv2))]
    assert bc.correction.aggregation_weights(CH, prevalence=0.5, rule="iv") == pytest.approx(
        expected, abs=1e-15
    )


def test_other_weight_rules_hand_computed():
    assert bc.correction.aggregation_weights(CH, rule="equal") == pytest.approx([0.5, 0.5])
    assert bc.correction.aggregation_weights(CH, rule="gap") == pytest.approx(
        [0.8 / 1.3, 0.5 / 1.3]
    )
    assert bc.correction.aggregation_weights(CH, rule="squared_gap") == pytest.approx(
        [0.64 / 0.89, 0.25 / 0.89]
    )


def test_iv_variance_floor_gives_equal_weights_for_perfect_annotators():
    perfect = bc.Channels([0.0, 0.0], [1.0, 1.0])
    assert bc.correction.aggregation_weights(perfect, prevalence=0.3) == pytest.approx([0.5, 0.5])


def test_weight_rules_bad_input():
    with pytest.raises(ValueError, match=r"prevalence is required for rule 'iv'"):
        bc.correction.aggregation_weights(CH)
    with pytest.raises(ValueError, match=r"prevalence must be a number in \[0, 1\]; saw 1.5"):
        bc.correction.aggregation_weights(CH, prevalence=1.5)
    with pytest.raises(TypeError, match=r"prevalence must be a number"):
        bc.correction.aggregation_weights(CH, prevalence="half")
    with pytest.raises(
        ValueError, match=r"rule must be one of 'iv', 'equal', 'gap', 'squared_gap'; saw 'median'"
    ):
        bc.correction.aggregation_weights(CH, prevalence=0.5, rule="median")
    with pytest.raises(TypeError, match=r"channels must be a bayescal.Channels; saw tuple"):
        bc.correction.aggregation_weights(([0.1], [0.9]), prevalence=0.5)
    flipped = bc.Channels([0.1, 0.7], [0.9, 0.2], adversarial=True)
    with pytest.raises(
        ValueError,
        match=r"rule 'gap' needs positively oriented channels .* annotator 1 has gap -0.5",
    ):
        bc.correction.aggregation_weights(flipped, rule="gap")


# --- corrected labels ------------------------------------------------------------------------

ANNOTATIONS = np.array([[1, 0], [0, -1], [-1, 1]])


def test_corrected_labels_hand_computed_with_missing():
    # row 0: ((1-.1)/.8 + (0-.2)/.5)/2 = (1.125 - 0.4)/2; row 1: only annotator 0; row 2: only 1
    u = bc.correction.corrected_labels(ANNOTATIONS, CH, weights="equal")
    assert u == pytest.approx([0.3625, -0.125, 1.6], abs=1e-15)


def test_explicit_weights_renormalise_over_observed_annotators():
    u = bc.correction.corrected_labels(ANNOTATIONS, CH, weights=[3.0, 1.0])
    assert u == pytest.approx([0.75 * 1.125 + 0.25 * -0.4, -0.125, 1.6])


def test_iv_plugin_prevalence_rule_of_appendix_f4():
    # equally weighted corrected labels average (0.3625 - 0.125 + 1.6) / 3 = 0.6125
    expected = bc.correction.corrected_labels(
        ANNOTATIONS, CH, weights=bc.correction.aggregation_weights(CH, prevalence=0.6125, rule="iv")
    )
    assert bc.correction.corrected_labels(ANNOTATIONS, CH) == pytest.approx(expected, abs=1e-15)


def test_iv_plugin_prevalence_is_clipped():
    # Every response negative and corrected labels below zero: mu clips to 1e-4.
    ann = np.zeros((4, 2), dtype=int)
    expected = bc.correction.corrected_labels(
        ann, CH, weights=bc.correction.aggregation_weights(CH, prevalence=1e-4, rule="iv")
    )
    assert bc.correction.corrected_labels(ann, CH) == pytest.approx(expected, abs=1e-15)


def test_corrected_labels_are_unbiased_per_class():
    # E[U | Y] = Y: average corrected label over many draws with Y fixed.
    rng = np.random.default_rng(3)
    ch = bc.Channels([0.1, 0.25, 0.3], [0.85, 0.7, 0.95])
    n = 400_000
    for y in (0, 1):
        rate = ch.a + ch.gap * y
        ann = (rng.random((n, 3)) < rate).astype(int)
        u = bc.correction.corrected_labels(ann, ch, weights="iv", prevalence=0.4)
        assert u.mean() == pytest.approx(y, abs=4 * u.std() / math.sqrt(n))


def test_corrected_labels_bad_input():
    with pytest.raises(
        ValueError, match=r"channels must describe every annotator column \(2\); saw 3"
    ):
        bc.correction.corrected_labels(ANNOTATIONS, bc.Channels([0.1] * 3, [0.9] * 3))
    with pytest.raises(
        ValueError,
        match=r"annotations must contain only 0, 1 or -1 \(missing\); saw 2 at row 1, column 0",
    ):
        bc.correction.corrected_labels([[1, 0], [2, 1]], CH)
    with pytest.raises(
        ValueError, match=r"annotations must be a 2-D array .* saw shape \(3,\) \(for one annotator"
    ):
        bc.correction.corrected_labels([1, 0, 1], CH)
    with pytest.raises(
        ValueError, match=r"annotations must contain only 0, 1 or -1 \(missing\); saw nan"
    ):
        bc.correction.corrected_labels([[1.0, math.nan]], CH)
    with pytest.raises(ValueError, match=r"1 item\(s\) with no observed annotation \(rows 1\)"):
        bc.correction.corrected_labels([[1, 0], [-1, -1]], CH)
    with pytest.raises(ValueError, match=r"weights must have one entry per annotator \(2\); saw 3"):
        bc.correction.corrected_labels(ANNOTATIONS, CH, weights=[1, 1, 1])
    with pytest.raises(ValueError, match=r"weights must be non-negative with a positive sum"):
        bc.correction.corrected_labels(ANNOTATIONS, CH, weights=[1, -1])
    with pytest.raises(
        ValueError, match=r"weights give zero total weight to the annotators observed on item 2"
    ):
        bc.correction.corrected_labels(ANNOTATIONS, CH, weights=[1, 0])
    with pytest.raises(
        ValueError, match=r"weights must be one of 'iv', 'equal', 'gap', 'squared_gap'; saw 'best'"
    ):
        bc.correction.corrected_labels(ANNOTATIONS, CH, weights="best")
    with pytest.raises(ValueError, match=r"prevalence must be a number in \[0, 1\]; saw -0.2"):
        bc.correction.corrected_labels(ANNOTATIONS, CH, prevalence=-0.2)


# --- NC-ECE and the naive baselines ------------------------------------------------------------


def test_perfect_channels_give_exactly_the_clean_ece():
    sim = bc.toy_data(3000, seed=5)
    truth = np.repeat(sim.labels[:, None], 3, axis=1)
    truth[::7, 1] = -1  # missing responses do not matter when every annotator is perfect
    perfect = bc.Channels([0.0] * 3, [1.0] * 3)
    for weights in ("iv", "equal", "gap", "squared_gap"):
        for strategy in ("uniform", "quantile"):
            clean = bc.expected_calibration_error(
                sim.labels, sim.data.scores, n_bins=10, strategy=strategy
            )
            nc = bc.noise_corrected_ece(
                bc.AnnotatedScores(sim.data.scores, truth),
                perfect,
                n_bins=10,
                strategy=strategy,
                weights=weights,
            )
            assert nc == clean


def test_naive_targets_hand_computed():
    ann = [[1, 0, 1], [1, 0, -1], [0, -1, -1]]
    assert soft_vote_labels(ann) == pytest.approx([2 / 3, 0.5, 0.0])
    assert majority_vote_labels(ann).tolist() == [1.0, 0.5, 0.0]
    assert majority_vote_labels(ann, ties="positive").tolist() == [1.0, 1.0, 0.0]
    assert majority_vote_labels(ann, ties="negative").tolist() == [1.0, 0.0, 0.0]
    scores = [0.6, 0.5, 0.2]
    # one bin: |(2/3 + .5 + 0) - (.6 + .5 + .2)| / 3
    assert bc.correction.soft_vote_ece(bc.AnnotatedScores(scores, ann), n_bins=1) == pytest.approx(
        abs(7 / 6 - 1.3) / 3
    )
    assert bc.correction.majority_vote_ece(
        bc.AnnotatedScores(scores, ann), n_bins=1
    ) == pytest.approx(abs(1.5 - 1.3) / 3)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.BinningWarning")  # tiny inputs
@pytest.mark.parametrize(
    "function",
    [bc.noise_corrected_ece, bc.correction.soft_vote_ece, bc.correction.majority_vote_ece],
    ids=lambda f: f.__name__,
)
def test_ece_functions_bad_input(function):
    extra = (CH,) if function is bc.noise_corrected_ece else ()

    def call(scores, annotations, **options):
        return function(bc.AnnotatedScores(scores, annotations), *extra, **options)

    with pytest.raises(
        ValueError, match=r"annotations must have one row per item \(2 rows\); saw 3 rows"
    ):
        call([0.2, 0.8], ANNOTATIONS)
    with pytest.raises(ValueError, match=r"scores must lie in \[0, 1\]; saw 1.5 at position 0"):
        call([1.5, 0.2, 0.8], ANNOTATIONS)
    with pytest.raises(ValueError, match=r"n_bins must be >= 1; saw -3"):
        call([0.5, 0.2, 0.8], ANNOTATIONS, n_bins=-3)
    with pytest.raises(ValueError, match=r"strategy must be one of"):
        call([0.5, 0.2, 0.8], ANNOTATIONS, strategy="equal")
    with pytest.raises(ValueError, match=r"item\(s\) with no observed annotation \(rows 0\)"):
        call([0.5, 0.2], [[-1, -1], [1, 0]])
    with pytest.raises(ValueError, match=r"scores must not be empty"):
        call([], np.zeros((0, 2)))


@pytest.mark.parametrize(
    "function",
    [bc.noise_corrected_ece, bc.correction.soft_vote_ece, bc.correction.majority_vote_ece],
    ids=lambda f: f.__name__,
)
def test_the_old_spelling_of_the_ece_functions_names_the_new_one(function):
    extra = (CH,) if function is bc.noise_corrected_ece else ()
    # scores, annotations (and channels) by position, as before 0.2
    with pytest.raises(
        TypeError, match=rf"the old spelling was {function.__name__}\(scores, annotations"
    ):
        function([0.5, 0.2, 0.8], ANNOTATIONS, *extra, 10)
    with pytest.raises(TypeError, match=r"data=AnnotatedScores\(scores, annotations\)"):
        function([0.5, 0.2, 0.8], *extra) if extra else function([0.5, 0.2, 0.8])


def test_majority_vote_bad_ties():
    with pytest.raises(
        ValueError, match=r"ties must be one of 'half', 'positive', 'negative'; saw 'coin'"
    ):
        bc.correction.majority_vote_ece(bc.AnnotatedScores([0.5], [[1, 0]]), ties="coin")


# --- App. D.1: one annotator cannot identify ECE ------------------------------------------------

MODEL_1 = (bc.Channels(0.2, 0.8), lambda z: 0.25 + 0.5 * np.asarray(z))
MODEL_2 = (bc.Channels(0.1, 0.9), lambda z: 0.3125 + 0.375 * np.asarray(z))


def test_appendix_d1_pair_has_the_same_response_law_and_different_ece():
    z = np.linspace(0.0, 1.0, 101)
    for channels, m in (MODEL_1, MODEL_2):
        q = channels.a + channels.gap * m(z)  # P(A = 1 | Z = z)
        assert q == pytest.approx(0.35 + 0.3 * z, abs=1e-15)
    assert bc.simulate_annotated(
        10, MODEL_1[0], calibration=MODEL_1[1]
    ).population_ece == pytest.approx(1 / 8, abs=1e-10)
    assert bc.simulate_annotated(
        10, MODEL_2[0], calibration=MODEL_2[1]
    ).population_ece == pytest.approx(5 / 32, abs=1e-10)


@pytest.mark.slow
def test_appendix_d1_same_data_give_either_ece_depending_on_assumed_channels():
    # Data from model 1 are also data from model 2: NC-ECE with either set of channels is a
    # consistent estimate of that model's ECE.  20 bins put the sign change z = 1/2 on an edge,
    # so the binned ECE of both linear residuals equals their ECE.
    sim = bc.simulate_annotated(400_000, MODEL_1[0], calibration=MODEL_1[1], seed=11)
    for channels, expected in ((MODEL_1[0], 1 / 8), (MODEL_2[0], 5 / 32)):
        estimate = bc.noise_corrected_ece(sim.data, channels, n_bins=20)
        assert estimate == pytest.approx(expected, abs=0.004)


# --- unbiasedness of the bin moments (Lemma C.2) ----------------------------------------------


def _population_moments(n_bins):
    # m(z) - z = 0.25 - 0.5 z on Z ~ U(0, 1): r_k = integral over [k h, (k + 1) h] of 0.25 - 0.5 z
    h = 1.0 / n_bins
    k = np.arange(n_bins)
    return 0.25 * h - 0.25 * ((k + 1) ** 2 - k**2) * h**2


@pytest.mark.slow
@pytest.mark.parametrize("missing_rate", [0.0, 0.3])
def test_nc_bin_moments_are_unbiased_and_naive_ones_are_not(missing_rate):
    channels = bc.Channels([0.1, 0.2, 0.3], [0.8, 0.9, 0.75])
    calibration = MODEL_1[1]
    n, n_bins, replicates = 2000, 5, 300
    rng = np.random.default_rng(2024)
    nc, naive = [], []
    for r in range(replicates):
        data = bc.simulate_annotated(n, channels, calibration=calibration, seed=r).data
        annotations = data.annotations.copy()
        if missing_rate:
            hidden = rng.random(annotations.shape) < missing_rate
            hidden[hidden.all(axis=1), rng.integers(0, 3)] = False  # keep one response per item
            annotations[hidden] = -1
        # Weights fixed in advance (true prevalence 1/2) so the moments are linear in the labels.
        u = bc.correction.corrected_labels(annotations, channels, weights="iv", prevalence=0.5)
        nc.append(bc.metrics.calibration_moments(u, data.scores, n_bins=n_bins).moments)
        soft = np.where(annotations >= 0, annotations, 0).sum(1) / (annotations >= 0).sum(1)
        naive.append(bc.metrics.calibration_moments(soft, data.scores, n_bins=n_bins).moments)
    truth = _population_moments(n_bins)
    nc, naive = np.array(nc), np.array(naive)
    se = nc.std(axis=0, ddof=1) / math.sqrt(replicates)
    assert np.all(np.abs(nc.mean(axis=0) - truth) < 3 * se), (nc.mean(axis=0), truth, se)
    naive_se = naive.std(axis=0, ddof=1) / math.sqrt(replicates)
    assert np.any(np.abs(naive.mean(axis=0) - truth) > 10 * naive_se)


def test_label_posterior_is_the_dawid_skene_e_step():
    channels = bc.Channels([0.1, 0.2, 0.3], [0.9, 0.7, 0.8])
    annotations = np.array([[1, 1, 1], [0, 0, 0], [1, 0, -1], [-1, -1, 1]])
    posterior = bc.correction.label_posterior(annotations, channels, prevalence=0.4)
    for row, p in zip(annotations, posterior):
        seen = row >= 0
        like1 = 0.4 * np.prod(np.where(row[seen] == 1, channels.b[seen], 1 - channels.b[seen]))
        like0 = 0.6 * np.prod(np.where(row[seen] == 1, channels.a[seen], 1 - channels.a[seen]))
        assert p == pytest.approx(like1 / (like1 + like0), rel=1e-12)
    perfect = bc.correction.label_posterior([[1], [0]], bc.Channels([0.0], [1.0]), 0.5)
    np.testing.assert_array_equal(perfect, [1.0, 0.0])
    with pytest.raises(ValueError, match=r"prevalence must lie strictly between 0 and 1; saw 1\.0"):
        bc.correction.label_posterior(annotations, channels, 1.0)
    with pytest.raises(
        ValueError, match="item 0 has a response pattern that the channels make impossible"
    ):
        bc.correction.label_posterior([[1, 0]], bc.Channels([0.0, 0.0], [1.0, 1.0]), 0.5)
