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
    with pytest.raises(
        bc.IdentificationError, match=r"crowd_em: two annotators in one score group"
    ):
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


def test_row190_a_prevalence_of_0_or_1_only_weighs_the_annotators():
    # the prevalence enters the weights alone: any weights give unbiased corrected labels, so
    # the estimate moves by the noise of another weighting, not by a bias
    for prevalence in (0.0, 1.0):
        value = bc.noise_corrected_ece(DATA, SIM.channels, prevalence=prevalence)
        assert value == pytest.approx(CLEAN, abs=0.01)
        assert value != CLEAN


TWO = bc.simulate_annotated(400, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1).data


def test_row201_a_score_group_of_one_item_barely_moves_the_channels():
    groups = (TWO.scores > 0.5).astype(int)
    with pytest.warns(bc.SaturatedModelWarning, match=r"6 parameters for 6 free cells"):
        two_groups = bc.grouped_em(bc.AnnotatedScores(TWO.scores, TWO.annotations, groups=groups))
    groups[0] = 2
    three_groups = bc.grouped_em(bc.AnnotatedScores(TWO.scores, TWO.annotations, groups=groups))
    # within the rates' sampling error on 400 items (about 0.02 for each rate)
    np.testing.assert_allclose(three_groups.channels.a, two_groups.channels.a, atol=0.02)
    np.testing.assert_allclose(three_groups.channels.b, two_groups.channels.b, atol=0.02)


def test_row202_grouped_em_on_one_group_is_the_saturated_dawid_skene_model():
    one_group = bc.AnnotatedScores(DATA.scores, DATA.annotations, groups=np.zeros(600, int))
    with pytest.warns(bc.SaturatedModelWarning, match=r"7 parameters for 7 free cells"):
        grouped = bc.grouped_em(one_group)
    with pytest.warns(bc.SaturatedModelWarning):
        marginal = bc.dawid_skene_em(DATA)
    np.testing.assert_allclose(grouped.channels.a, marginal.channels.a, atol=1e-6)


def test_row263_two_annotators_in_one_score_group_are_not_identified():
    frame = pd.DataFrame({"p": TWO.scores, "x": TWO.annotations[:, 0], "y": TWO.annotations[:, 1]})
    one_group = bc.AnnotatedScores.from_frame(
        frame.assign(g=0), score="p", annotators=["x", "y"], groups="g"
    )
    for fit in (bc.grouped_em, bc.dawid_skene_em):
        with pytest.raises(
            bc.IdentificationError, match=r"Give the data at least two score groups"
        ):
            fit(one_group)


def test_row204_205_ece_of_python_lists_float32_and_tied_scores():
    labels, probs = [True, False, True], [0.2, 0.5, 0.9]
    with pytest.warns(bc.BinningWarning, match=r"n_bins = 10 exceeds the 3 item\(s\)"):
        value = bc.expected_calibration_error(labels, probs)
    assert value == pytest.approx((0.8 + 0.5 + 0.1) / 3)  # one item per bin
    y, p = SIM.labels, DATA.scores
    assert bc.expected_calibration_error(y, p.astype(np.float32)) == pytest.approx(
        bc.expected_calibration_error(y, p), abs=1e-6
    )
    tied = np.r_[np.ones(10), np.zeros(7)].astype(bool)
    with pytest.warns(bc.BinningWarning, match=r"n_bins = 30 exceeds the 17 item\(s\)"):
        value = bc.expected_calibration_error(
            tied, np.full(17, 0.3), n_bins=30, strategy="quantile"
        )
    assert value == pytest.approx(abs(10 / 17 - 0.3))  # equal scores share one bin


FRAME = pd.DataFrame({"p": DATA.scores, **{f"a{j}": DATA.annotations[:, j] for j in range(3)}})
NAMES = ["a0", "a1", "a2"]


def test_row206_208_212_row_indexes_name_containers_and_column_types_give_the_same_number():
    frames = {
        "MultiIndex rows": FRAME.set_index([np.arange(600) % 2, np.arange(600)]),
        "non-unique index": FRAME.set_index(np.zeros(600, int)),
        "categorical score": FRAME.assign(p=FRAME["p"].astype("category")),
        "arrow dtypes": FRAME.convert_dtypes(dtype_backend="pyarrow"),
    }
    for name, frame in frames.items():
        data = bc.AnnotatedScores.from_frame(frame, score="p", annotators=tuple(NAMES))
        assert bc.noise_corrected_ece(data, SIM.channels) == pytest.approx(CLEAN, rel=1e-12), name


def test_row207_multiindex_columns_are_named_by_their_tuple():
    frame = FRAME.copy()
    frame.columns = pd.MultiIndex.from_tuples([("x", c) for c in FRAME.columns])
    data = bc.AnnotatedScores.from_frame(
        frame, score=("x", "p"), annotators=[("x", n) for n in NAMES]
    )
    assert data.annotator_names == ("('x', 'a0')", "('x', 'a1')", "('x', 'a2')")
    np.testing.assert_array_equal(data.annotations, DATA.annotations)


def test_row210_213_annotators_as_a_set_or_generator_and_text_labels_are_refused():
    for names in ({"a0", "a1", "a2"}, (name for name in NAMES)):
        with pytest.raises(
            ValueError, match=r"annotators must be a non-empty list of column names; saw"
        ):
            bc.AnnotatedScores.from_frame(FRAME, score="p", annotators=names)
    text = FRAME.assign(a0=np.where(FRAME["a0"] == 1, "yes", "no")).astype({"a0": "category"})
    with pytest.raises(
        TypeError, match=r"annotator column 'a0' must hold numbers; saw dtype category"
    ):
        bc.AnnotatedScores.from_frame(text, score="p", annotators=NAMES)


def _long_frames():
    rows = [(i, name, DATA.annotations[i, j]) for i in range(600) for j, name in enumerate(NAMES)]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    scores = pd.DataFrame({"item": np.arange(600), "score": DATA.scores})
    return frame, scores


def test_row214_215_218_from_long_labels_ids_and_names():
    labels, scores = _long_frames()
    with_none = labels.assign(
        label=[None if k % 9 == 0 else bool(x) for k, x in enumerate(labels["label"])]
    )
    data = bc.AnnotatedScores.from_long(with_none, scores)
    expected = DATA.annotations.copy().reshape(-1)
    expected[::9] = -1
    np.testing.assert_array_equal(data.annotations, expected.reshape(600, 3))
    floats = bc.AnnotatedScores.from_long(labels, scores.assign(item=scores["item"].astype(float)))
    np.testing.assert_array_equal(floats.annotations, DATA.annotations)
    renamed = labels.assign(annotator=labels["annotator"].map({"a0": "a", "a1": "a ", "a2": "A"}))
    # three annotators, as written; the trailing space, rarely meant, is said in one line
    with pytest.warns(bc.DataWarning, match=r"^annotator ids 'a' and 'a ' differ only by spaces"):
        named = bc.AnnotatedScores.from_long(renamed, scores).annotator_names
    assert named == ("A", "a", "a ")


def test_row264_265_266_267_score_group_columns():
    groups = (TWO.scores > 0.5).astype(float)
    groups[0] = 2.0
    frame = pd.DataFrame({"p": TWO.scores, "x": TWO.annotations[:, 0], "y": TWO.annotations[:, 1]})
    data = bc.AnnotatedScores.from_frame(
        frame.assign(g=groups), score="p", annotators=["x", "y"], groups="g"
    )
    assert data.n_groups == 3 and np.isfinite(bc.grouped_em(data).channels.a).all()
    with pytest.raises(TypeError, match=r"groups column 'g' must hold numbers; saw dtype str"):
        bc.AnnotatedScores.from_frame(
            frame.assign(g=np.where(groups > 0, "high", "low")),
            score="p",
            annotators=["x", "y"],
            groups="g",
        )
    with pytest.raises(ValueError, match=r"groups must be finite; saw nan at position 0"):
        bc.AnnotatedScores.from_frame(
            frame.assign(g=np.where(groups > 1, np.nan, groups)),
            score="p",
            annotators=["x", "y"],
            groups="g",
        )
    three = bc.AnnotatedScores(
        TWO.scores, TWO.annotations, groups=np.minimum((TWO.scores * 3).astype(int), 2)
    )
    with pytest.raises(
        ValueError, match=r"needs exactly two score groups; saw 3 \(use hui_walter_gmm for more\)"
    ):
        bc.channels.hui_walter_moments(three)


class _Reached(Exception):
    """Raised by the stubbed EM fit: analyse got past reading and checking its arguments."""


def _settled_by_analyse(monkeypatch, data, **options):
    """What ``bc.analyse(data, **options)`` settles before its first fit: its inputs and seed."""
    from bayescal.app import analysis

    seen = {}

    def stop(inputs, tables, seed):
        seen.update(inputs=inputs, seed=seed)
        raise _Reached

    monkeypatch.setattr(analysis, "_fit_em", stop)
    with pytest.raises(_Reached):
        bc.analyse(data, **options)
    return seen


def test_row222_226_232_234_analyse_reads_equivalent_arguments_as_the_plain_ones(monkeypatch):
    odd = FRAME.set_index([np.arange(600) % 2, np.zeros(600, int)])  # MultiIndex, not unique
    odd = odd.astype({"p": np.float32, **dict.fromkeys(NAMES, np.int8)})
    seen = _settled_by_analyse(
        monkeypatch,
        odd,
        score="p",
        annotators=NAMES,
        n_bins=10.0,
        seed=np.int64(3),
        model="dawid-skene",
    )
    inputs = seen["inputs"]
    assert (inputs.bins, type(inputs.bins), seen["seed"]) == (10, int, 3)
    assert inputs.model.name == "dawid_skene"
    np.testing.assert_array_equal(inputs.data.annotations, DATA.annotations)
    np.testing.assert_allclose(inputs.data.scores, DATA.scores, rtol=1e-7)  # float32's rounding


def test_row225_227_analyse_refuses_a_seed_or_sampler_option_before_any_fit(monkeypatch):
    from bayescal.app import analysis

    def never(*args):
        raise AssertionError("fitted")

    monkeypatch.setattr(analysis, "_fit_em", never)
    with pytest.raises(ValueError, match=r"^seed must be below 2\*\*63; saw 18446744073709551616$"):
        bc.analyse(DATA, seed=2**64)
    with pytest.raises(
        TypeError,
        match=r"^bayes_options must be a dict with keys among \['num_chains', 'num_samples', "
        r"'num_warmup'\]; saw \['num_chain'\] \(pass sampler=SamplerSettings\(\.\.\.\)\)$",
    ):
        bc.analyse(DATA, bayes_options={"num_chain": 2})


SHORT = {"num_chains": 1, "num_warmup": 50, "num_samples": 100, "progress": False}


@pytest.fixture(scope="module")
def short_fit():
    """One short chain on 300 toy items, seeded with the largest seed (row 249)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SamplingWarning)  # one short chain: R-hat warned
        data = bc.toy_data(300, seed=5).data
        return data, bc.fit_bayes(data, seed=2**63 - 1, **SHORT)


def test_row249_the_largest_seed_fits(short_fit):
    _, fit = short_fit
    assert np.isfinite(fit.draws().a).all() and fit.draws().a.shape == (100, 3)


def test_row229_one_chain_through_analyse_runs_and_warns_of_r_hat():
    import warnings

    data = bc.toy_data(300, seed=5).data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analysis = bc.analyse(
            data, bayes_options={"num_chains": 1, "num_warmup": 50, "num_samples": 100}
        )
    assert any(
        w.category is DeprecationWarning and "bayes_options" in str(w.message) for w in caught
    )
    assert any(w.category is bc.SamplingWarning and "R-hat" in str(w.message) for w in caught)
    assert analysis.bayes_fit.draws().a.shape == (100, 3)


def test_row242_a_posterior_of_other_items_corrects_them_by_its_channels(short_fit):
    _, fit = short_fit
    other = bc.toy_data(300, seed=6).data
    draws = fit.draws()
    at_mean = bc.noise_corrected_ece(other, bc.Channels(draws.a.mean(0), draws.b.mean(0)))
    # the channel draws alone, pushed through the other items: centred on the NC-ECE at the
    # posterior-mean channels (the draws' spread, not a mixed-up pairing)
    channels_only = bc.nc_ece_posterior(other, fit, uncertainty="channels")
    assert channels_only.median == pytest.approx(at_mean, abs=0.01)
    low, high = channels_only.interval
    assert low <= at_mean <= high


def test_row243_nc_ece_posterior_names_each_bad_option(short_fit):
    data, fit = short_fit
    for options, message in (
        ({"level": 0}, r"level must lie strictly between 0 and 1; saw 0"),
        ({"level": 1.5}, r"level must lie strictly between 0 and 1; saw 1.5"),
        ({"tolerance": -1}, r"tolerance"),
        ({"tolerance": 5}, r"tolerance"),
        ({"seed": -5}, r"seed must be >= 0; saw -5"),
        ({"uncertainty": "totl"}, r"uncertainty must be one of .*saw 'totl'"),
    ):
        with pytest.raises(ValueError, match=message):
            bc.nc_ece_posterior(data, fit, **options)


def test_row245_246_compare_models_arguments(short_fit):
    data, fit = short_fit
    # one chain of 100 draws: PSIS cannot smooth every row's weights, and it says so
    with pytest.warns(
        bc.SamplingWarning, match=r"'(first|again)' has pattern rows with Pareto k above"
    ):
        table = bc.compare_models({"first": fit, "again": fit})
    assert table.index.tolist() == ["first", "again"] and table["rank"].tolist() == [0, 1]
    same = table.drop(columns=["rank", "reading"])
    pd.testing.assert_series_equal(same.iloc[0], same.iloc[1], check_names=False)
    # the same fit twice predicts alike (Sivula et al.'s rule reads a tie so)
    assert table["reading"].tolist() == ["best", "predicts alike (difference below 4)"]
    with pytest.warns(bc.SaturatedModelWarning):
        em = bc.dawid_skene_em(data)
    for fits, error, message in (
        ({}, ValueError, r"at least two"),
        ({"one": fit}, ValueError, r"at least two"),
        ([fit, em], TypeError, r"fits\[1\] must be a bayescal BayesFit; saw ChannelFit"),
    ):
        with pytest.raises(error, match=message):
            bc.compare_models(fits)


def test_row248_priors_near_zero_are_accepted_and_fit(short_fit):
    data, _ = short_fit
    with pytest.warns(bc.SamplingWarning):
        fit = bc.fit_bayes(data, priors=bc.Priors(sensitivity=(1e-300, 1e-300)), **SHORT)
    assert np.isfinite(fit.draws().b).all()


def test_row250_251_save_overwrites_keeps_any_suffix_and_names_a_missing_folder(
    short_fit, tmp_path
):
    _, fit = short_fit
    path = tmp_path / "fit.csv"
    path.write_text("old")
    fit.save(path)  # a file the user named: overwritten, NetCDF whatever its suffix
    np.testing.assert_array_equal(bc.BayesFit.load(path).draws().a, fit.draws().a)
    with pytest.raises(
        FileNotFoundError,
        match=r"^path: no folder '.*missing' to save 'fit.nc' in; create it first$",
    ):
        fit.save(tmp_path / "missing" / "fit.nc")


def test_row236_237_238_calibration_test_with_channels_fitted_on_other_items():
    other = bc.toy_data(600, seed=4).data
    with pytest.warns(bc.SaturatedModelWarning):
        fit_other, fit_own = bc.dawid_skene_em(other), bc.dawid_skene_em(DATA)
    with pytest.raises(
        ValueError, match=r"pass the items it was fitted on as fit_data.* or pass Channels"
    ):
        bc.calibration_test(DATA, fit_other)
    test = bc.calibration_test(DATA, fit_other, fit_data=other)
    assert test.channels_from == "split" and 0 < test.p_value <= 1
    with pytest.raises(
        ValueError, match=r"these channels were fitted on data itself .*leave fit_data out"
    ):
        bc.calibration_test(DATA, fit_own, fit_data=other)
