"""The second catalogue's rows on the Python API (``BAD_INPUTS_2.md``, area ``api``): each
test names its rows and asserts the outcome of today, a one-line error naming the argument
and what it saw, or the clean input's number (never a number of its own)."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.correction import corrected_labels, soft_vote_ece

SIM = bc.toy_data(600, seed=3)
DATA = SIM.data
CLEAN = bc.noise_corrected_ece(DATA, SIM.channels)


def test_row184_185_non_finite_channels_are_refused_naming_the_rate():
    with pytest.raises(ValueError, match=r"^a must be finite; saw nan at position 0"):
        bc.Channels([np.nan, 0.2, 0.1], [0.8, 0.9, 0.85])
    with pytest.raises(ValueError, match=r"^b must be finite"):
        bc.Channels([0.1, 0.2, 0.1], [np.inf, 0.9, 0.85])


def test_row186_187_188_189_n_bins_one_an_integer_type_or_refused_naming_it():
    # one bin: the gap between the mean label and the mean score, which the corrected labels
    # estimate without bias (within 0.04 of the truth's on these 600 items)
    oracle = abs(SIM.labels.mean() - DATA.scores.mean())
    assert bc.noise_corrected_ece(DATA, SIM.channels, n_bins=1) == pytest.approx(oracle, abs=0.04)
    assert bc.noise_corrected_ece(DATA, SIM.channels, n_bins=np.int8(10)) == bc.noise_corrected_ece(
        DATA, SIM.channels, n_bins=10
    )
    with pytest.raises(TypeError, match=r"n_bins must be an integer; saw True of type bool"):
        bc.noise_corrected_ece(DATA, SIM.channels, n_bins=True)
    with pytest.raises(ValueError, match=r"n_bins must be a positive integer or 'auto'; saw '10'"):
        bc.noise_corrected_ece(DATA, SIM.channels, n_bins="10")


def test_row191_192_195_other_dtypes_and_containers_give_the_same_number():
    for scores, annotations in (
        (DATA.scores.astype(np.float32), DATA.annotations.astype(np.int8)),
        (DATA.scores.tolist(), DATA.annotations.tolist()),
    ):
        value = bc.noise_corrected_ece(bc.AnnotatedScores(scores, annotations), SIM.channels)
        assert value == pytest.approx(CLEAN, rel=1e-6)
    complete = DATA.annotations >= 0
    assert complete.all()
    boolean = bc.AnnotatedScores(DATA.scores, DATA.annotations.astype(bool))
    assert bc.noise_corrected_ece(boolean, SIM.channels) == CLEAN


def test_row193_194_196_197_198_bad_arrays_are_refused_naming_what_was_seen():
    unsigned = DATA.annotations.astype(np.uint8)
    unsigned[0, 2] = 255
    with pytest.raises(ValueError, match=r"saw 255 at row 0, column 2"):
        bc.AnnotatedScores(DATA.scores, unsigned)
    from decimal import Decimal

    with pytest.raises(TypeError, match=r"scores must hold real numbers; saw dtype object"):
        bc.AnnotatedScores(np.array([Decimal("0.5")] * 3, dtype=object), DATA.annotations[:3])
    with_nan = DATA.annotations.astype(float)
    with_nan[0, 0] = np.nan
    with pytest.raises(
        ValueError, match=r"annotations must contain only 0, 1 or -1 \(missing\); saw nan at row 0"
    ):
        bc.AnnotatedScores(DATA.scores, with_nan)
    with pytest.raises(
        ValueError, match=r"annotations must be a 2-D array .*saw shape \(600, 3, 1\)"
    ):
        bc.AnnotatedScores(DATA.scores, DATA.annotations[:, :, None])
    with pytest.raises(ValueError, match=r"scores must be a 1-D array; saw shape \(600, 1\)"):
        bc.AnnotatedScores(DATA.scores[:, None], DATA.annotations)


def test_row199_200_integer_names_become_text_and_float_group_ids_are_accepted():
    named = bc.AnnotatedScores(DATA.scores, DATA.annotations, annotator_names=(1, 2, 3))
    assert named.annotator_names == ("1", "2", "3")
    groups = (DATA.scores > 0.5).astype(float)
    grouped = bc.AnnotatedScores(DATA.scores, DATA.annotations, groups=groups)
    as_ints = bc.AnnotatedScores(DATA.scores, DATA.annotations, groups=groups.astype(int))
    np.testing.assert_array_equal(
        bc.grouped_em(grouped).channels.a, bc.grouped_em(as_ints).channels.a
    )


def test_row203_negative_group_ids_are_refused():
    with pytest.raises(ValueError, match=r"non-negative integer ids; saw -1"):
        bc.AnnotatedScores(DATA.scores, DATA.annotations, groups=np.full(DATA.n_items, -1))


def test_row220_221_223_224_analyse_names_its_bad_arguments_before_any_fit():
    for level in (0, 1, 1.5, 90):
        with pytest.raises(ValueError, match=r"level must lie strictly between 0 and 1"):
            bc.analyse(DATA, level=level)
    with pytest.raises(
        TypeError, match=r"level must be a number strictly between 0 and 1; saw '0.9'"
    ):
        bc.analyse(DATA, level="0.9")
    with pytest.raises(TypeError, match=r"n_bins must be an integer; saw 10.5 of type float"):
        bc.analyse(DATA, n_bins=10.5)
    with pytest.raises(ValueError, match=r"seed must be >= 0; saw -1"):
        bc.analyse(DATA, seed=-1)
    with pytest.raises(TypeError, match=r"seed must be an integer; saw 1.5 of type float"):
        bc.analyse(DATA, seed=1.5)


def test_row230_231_233_analyse_refuses_what_it_cannot_read():
    frame = pd.DataFrame({"p": DATA.scores, **dict(zip("xyz", DATA.annotations.T))})
    with pytest.raises(ValueError, match=r"a DataFrame needs score= \(the score column\)"):
        bc.analyse(frame, annotators=["x", "y", "z"])
    with pytest.raises(ValueError, match=r"saw data of type AnnotatedScores$"):
        bc.analyse(DATA, score="p")
    with pytest.raises((TypeError, ValueError), match=r"truth must hold real numbers"):
        bc.analyse(DATA, truth=[str(y) for y in SIM.labels.astype(int)])
    for pair in (["a0,a1"], [("a0", "a1", "a2")]):
        with pytest.raises((TypeError, ValueError), match=r"each pair must be two annotator names"):
            bc.analyse(DATA, dependent=pair)


def test_row239_240_241_calibration_test_arguments():
    with pytest.warns(bc.SaturatedModelWarning):  # three annotators labelling every item
        fit = bc.dawid_skene_em(DATA)
    for n in (0, 1):
        with pytest.raises(ValueError, match=r"n_replicates must be >= 19; saw"):
            bc.calibration_test(DATA, fit, n_replicates=n)
    with pytest.raises(ValueError, match=r"min_bin_items must be >= 1; saw 0"):
        bc.calibration_test(DATA, SIM.channels, min_bin_items=0)
    with pytest.raises(ValueError, match=r"needs at least min_bin_items=1000000 in a bin"):
        bc.calibration_test(DATA, SIM.channels, min_bin_items=10**6)
    assert bc.calibration_test(DATA, SIM.channels, n_bins=1).df == 1


def test_row244_nc_ece_posterior_takes_a_bayes_fit_only():
    with pytest.raises(TypeError, match=r"fit must be a bayescal\.BayesFit; saw Channels"):
        bc.nc_ece_posterior(DATA, SIM.channels)


def test_row247_priors_outside_their_domain_are_refused():
    for bad in ((0, 1), (-1, 2), (np.nan, 1)):
        with pytest.raises(ValueError, match=r"sensitivity must hold two positive, finite Beta"):
            bc.Priors(sensitivity=bad)


def test_row256_257_258_crowd_em_and_simulators():
    two = bc.simulate_annotated(300, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1).data
    with pytest.raises(bc.IdentificationError, match=r"crowd_em: two annotators without score"):
        bc.crowd_em(two)
    for call, message in (
        (lambda: bc.simulate_crowd(100, 1), r"labels_per_item must lie in \[1, n_workers = 1\]"),
        (lambda: bc.simulate_crowd(100, 3, labels_per_item=5), r"n_workers = 3\] .*saw 5"),
        (lambda: bc.simulate_crowd(0, 3), r"n must be >= 1; saw 0"),
        (lambda: bc.simulate_crowd(100, 3, seed=-1), r"seed must be >= 0; saw -1"),
        (lambda: bc.toy_data(100, condition="shift"), r"condition must be one of .*saw 'shift'"),
    ):
        with pytest.raises(ValueError, match=message):
            call()
    assert bc.toy_data(1).data.n_items == 1
    flipped = bc.simulate_annotated(200, bc.Channels([0.8], [0.2], adversarial=True), seed=1)
    assert flipped.data.n_items == 200


def test_row259_260_261_262_small_functions():
    with pytest.raises(TypeError, match=r"thresholds must hold real numbers; saw dtype <U3"):
        bc.channels.score_groups(DATA.scores, thresholds=["0.5"])
    assert bc.expected_calibration_error([True], [0.7], n_bins="auto") == pytest.approx(0.3)
    gap = DATA.annotations.copy()
    gap[1] = -1
    with pytest.raises(ValueError, match=r"1 item\(s\) with no observed annotation \(rows 1\)"):
        soft_vote_ece(bc.AnnotatedScores(DATA.scores, gap))
    with pytest.raises(ValueError, match=r"weights must be one of"):
        corrected_labels(DATA.annotations, SIM.channels, weights="uniform")
