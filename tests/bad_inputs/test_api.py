"""The bad-input catalogue (issue 16), the Python API: rows #39-#46 and #50 of
../shared/BAD_INPUTS.md, each with its exact outcome (the error's type and its one line, or the
correct number).  Every message names the argument and what was seen."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.data.responses import Responses
from bayescal.exceptions import BinningWarning, ChannelWarning, IdentificationError
from bayescal.metrics import agreement as ag

S = [0.1, 0.4, 0.6, 0.9]
Y = [0, 1, 1, 1]
A = [[0, 0, 1], [1, 0, 1], [1, 1, 1], [1, 1, 0]]
D = bc.AnnotatedScores(S, A)
#: four annotators, so that Dawid–Skene is not saturated (no warning besides the case's own)
D4 = bc.AnnotatedScores(S, [[0, 0, 1, 1], [1, 0, 1, 0], [1, 1, 1, 1], [1, 1, 0, 1]])
CH = bc.Channels([0.1, 0.2, 0.1], [0.9, 0.8, 0.9])
FRAME = pd.DataFrame({"p": S, "a": [0, 1, 1, 0]})


def ece(*args, **options):
    return bc.expected_calibration_error(*args, **{"n_bins": 2, **options})


def nc_ece(data=D, channels=CH, **options):
    return bc.noise_corrected_ece(data, channels, **{"n_bins": 2, **options})


ERRORS = [
    # row 40: the ECE
    (
        "ece yes/no",
        lambda: ece(["yes", "no", "no", "yes"], S),
        TypeError,
        r"y_true must hold real numbers; saw dtype <U3",
    ),
    (
        "ece label 2",
        lambda: ece([0, 2, 1, 1], S),
        ValueError,
        r"y_true must contain only 0 and 1; saw 2 at position 1",
    ),
    (
        "ece label -1",
        lambda: ece([0, -1, 1, 1], S),
        ValueError,
        r"y_true must contain only 0 and 1; saw -1 at position 1",
    ),
    (
        "ece NaN score",
        lambda: ece(Y, [0.1, np.nan, 0.6, 0.9]),
        ValueError,
        r"y_prob must be finite; saw nan at position 1",
    ),
    (
        "ece inf score",
        lambda: ece(Y, [0.1, np.inf, 0.6, 0.9]),
        ValueError,
        r"y_prob must be finite; saw inf at position 1",
    ),
    (
        "ece percent scores",
        lambda: ece(Y, [10, 40, 60, 90]),
        ValueError,
        r"y_prob must lie in \[0, 1\]; saw 10.0 at position 0",
    ),
    ("ece n_bins 0", lambda: ece(Y, S, n_bins=0), ValueError, r"n_bins must be >= 1; saw 0"),
    (
        "ece n_bins 2.5",
        lambda: ece(Y, S, n_bins=2.5),
        TypeError,
        r"n_bins must be an integer; saw 2.5 of type float",
    ),
    (
        "ece n_bins text",
        lambda: ece(Y, S, n_bins="10"),
        ValueError,
        r"n_bins must be a positive integer or 'auto'; saw '10'",
    ),
    ("ece empty", lambda: ece([], []), ValueError, r"y_true must not be empty"),
    (
        "ece lengths",
        lambda: ece(Y[:3], S),
        ValueError,
        r"y_true and y_prob must have the same number of items; saw 3 and 4",
    ),
    (
        "ece swapped arguments",
        lambda: ece(S, Y),
        ValueError,
        r"y_true must contain only 0 and 1; saw 0.1 at position 0",
    ),
    (
        "ece strategy typo",
        lambda: ece(Y, S, strategy="quantiles"),
        ValueError,
        r"strategy must be one of 'uniform', 'quantile'; saw 'quantiles'",
    ),
    (
        "ece 2-D labels",
        lambda: ece([[0, 1]], [0.2, 0.3]),
        ValueError,
        r"y_true must be a 1-D array of 0/1 labels; saw shape \(1, 2\)",
    ),
    (
        "ece 2-D labels with class probabilities",
        lambda: ece([[0, 1]], [[0.2, 0.3, 0.5]]),
        ValueError,
        r"y_true must be a non-empty 1-D array of class indices; saw shape \(1, 2\)",
    ),
    (
        "ece class probabilities not summing to 1",
        lambda: ece([0], [[0.2, 0.3, 0.1]], n_bins=1),
        ValueError,
        r"y_prob must have rows summing to 1 \(within 1e-06\); row 0 sums to 0.6",
    ),
    # row 41: the NC-ECE
    (
        "nc-ece wrong K",
        lambda: nc_ece(channels=bc.Channels([0.1, 0.2], [0.9, 0.8])),
        ValueError,
        r"channels must describe every annotator column \(3\); saw 2 channel\(s\)",
    ),
    (
        "nc-ece dict channels",
        lambda: nc_ece(channels={"a": [0.1] * 3, "b": [0.9] * 3}),
        TypeError,
        r"channels must be a bayescal.Channels or a ChannelFit; saw dict",
    ),
    (
        "nc-ece b > 1",
        lambda: bc.Channels([0.1, 0.2, 0.1], [1.1, 0.8, 0.9]),
        ValueError,
        r"b must lie in \[0, 1\]; saw 1.1 at position 0",
    ),
    (
        "nc-ece all uninformative",
        lambda: nc_ece(channels=bc.Channels([0.3] * 3, [0.3] * 3)),
        ValueError,
        r"channels: no annotator is informative",
    ),
    (
        "nc-ece weights typo",
        lambda: nc_ece(weights="inverse"),
        ValueError,
        r"weights must be one of 'iv', 'equal', 'gap', 'squared_gap'; saw 'inverse'",
    ),
    (
        "nc-ece prevalence 1.5",
        lambda: nc_ece(prevalence=1.5),
        ValueError,
        r"prevalence must be a number in \[0, 1\]; saw 1.5",
    ),
    (
        "nc-ece item without labels",
        lambda: nc_ece(bc.AnnotatedScores(S, [[0, 0, 1], [-1, -1, -1], [1, 1, 1], [1, 1, 0]])),
        ValueError,
        r"data.annotations has 1 item\(s\) with no observed annotation \(rows 1\)",
    ),
    (
        "nc-ece weights of 2",
        lambda: nc_ece(weights=[1, 1]),
        ValueError,
        r"weights must have one entry per annotator \(3\); saw 2",
    ),
    (
        "nc-ece negative weights",
        lambda: nc_ece(weights=[1, -1, 1]),
        ValueError,
        r"weights must be non-negative with a positive sum \(convex weights\)",
    ),
    # row 39: building the data
    (
        "data yes/no",
        lambda: bc.AnnotatedScores(S, [["y", "n", "y"]] * 4),
        TypeError,
        r"annotations must hold real numbers; saw dtype <U1",
    ),
    (
        "data 1-D annotations",
        lambda: bc.AnnotatedScores(S, [0, 1, 1, 0]),
        ValueError,
        r"annotations must be a 2-D array of shape \(n_items, n_annotators\); saw shape \(4,\)",
    ),
    (
        "data lengths",
        lambda: bc.AnnotatedScores(S, A[:3]),
        ValueError,
        r"annotations must have one row per item \(4 rows\); saw 3 rows",
    ),
    (
        "data string scores",
        lambda: bc.AnnotatedScores(["a", "b", "c", "d"], A),
        TypeError,
        r"scores must hold real numbers; saw dtype <U1",
    ),
    (
        "data NaN annotation",
        lambda: bc.AnnotatedScores(S, [[0, np.nan, 1]] * 4),
        ValueError,
        r"annotations must contain only 0, 1 or -1 \(missing\); saw nan at row 0, column 1",
    ),
    (
        "data label 2",
        lambda: bc.AnnotatedScores(S, [[0, 2, 1]] * 4),
        ValueError,
        r"annotations must contain only 0, 1 or -1 \(missing\); saw 2 at row 0, column 1",
    ),
    (
        "data score 1.5",
        lambda: bc.AnnotatedScores([0.1, 1.5, 0.6, 0.9], A),
        ValueError,
        r"scores must lie in \[0, 1\]; saw 1.5 at position 1",
    ),
    (
        "data two names for three",
        lambda: bc.AnnotatedScores(S, A, annotator_names=["x", "y"]),
        ValueError,
        r"annotator_names must name each of the 3 annotator columns; saw 2 names",
    ),
    (
        "data repeated name",
        lambda: bc.AnnotatedScores(S, A, annotator_names=["x", "x", "y"]),
        ValueError,
        r"annotator_names must be unique; saw \['x', 'x', 'y'\]",
    ),
    (
        "from_frame a dict",
        lambda: bc.AnnotatedScores.from_frame({"p": S}, score="p", annotators=["a"]),
        TypeError,
        r"frame must be a pandas DataFrame; saw dict",
    ),
    (
        "from_frame missing column",
        lambda: bc.AnnotatedScores.from_frame(FRAME, score="p", annotators=["a", "b"]),
        ValueError,
        r"frame has no column\(s\) \['b'\]; its columns are \['p', 'a'\]",
    ),
    (
        "from_frame annotators as text",
        lambda: bc.AnnotatedScores.from_frame(FRAME, score="p", annotators="a"),
        ValueError,
        r"annotators must be a non-empty list of column names; saw 'a'",
    ),
    (
        "from_frame repeated annotator",
        lambda: bc.AnnotatedScores.from_frame(FRAME, score="p", annotators=["a", "a"]),
        ValueError,
        r"the annotators name 'a' twice; name each annotator once$",
    ),
    (
        "from_frame score as annotator",
        lambda: bc.AnnotatedScores.from_frame(FRAME, score="p", annotators=["p", "a"]),
        ValueError,
        r"column 'p' is named as score and as annotator; each column has one role$",
    ),
    # row 44: agreement statistics
    (
        "kappa constant raters",
        lambda: ag.cohens_kappa([1, 1, 1, 1], [1, 1, 1, 1]),
        ValueError,
        r"kappa is undefined: every decided item falls in one category for both raters \(p_e = 1\)$",
    ),
    (
        "kappa all abstain",
        lambda: ag.cohens_kappa([-1, -1], [-1, -1]),
        ValueError,
        r"rater1 and rater2 have no item that both decided; kappa is undefined$",
    ),
    (
        "kappa label 2",
        lambda: ag.cohens_kappa([2, 1], [1, 0]),
        ValueError,
        r"rater1 must contain only 0, 1 or -1 \(abstain\); saw 2 at position 0$",
    ),
    (
        "kappa NaN",
        lambda: ag.cohens_kappa([1, 0], [1, np.nan]),
        ValueError,
        r"rater2 must contain only 0, 1 or -1 \(abstain\); saw nan at position 1$",
    ),
    (
        "kappa yes/no",
        lambda: ag.cohens_kappa(["yes", "no"], [1, 0]),
        TypeError,
        r"rater1 must hold real numbers; saw dtype <U3$",
    ),
    (
        "wilson k > n",
        lambda: ag.wilson_interval(5, 3),
        ValueError,
        r"k must not exceed n \(3\); saw 5$",
    ),
    ("wilson n = 0", lambda: ag.wilson_interval(0, 0), ValueError, r"n must be >= 1; saw 0$"),
    (
        "alpha all NaN",
        lambda: ag.krippendorff_alpha(np.full((3, 2), np.nan)),
        ValueError,
        r"data has no values$",
    ),
    (
        "alpha measurement typo",
        lambda: ag.krippendorff_alpha([[1, 0], [1, 1], [0, 0]], measurement="nominl"),
        ValueError,
        r"measurement must be one of .*; saw 'nominl'$",
    ),
    (
        "accuracy eta 0.5",
        lambda: ag.accuracy_under_label_noise(0.8, 0.5),
        ValueError,
        r"eta must be below 0.5 \(at 0.5 the labels carry no information\); saw 0.5$",
    ),
    # row 42: EM
    (
        "em two annotators",
        lambda: bc.dawid_skene_em(bc.AnnotatedScores(S, [r[:2] for r in A])),
        IdentificationError,
        r"dawid_skene_em: two annotators in one score group are not identified \(paper App. D.1\)",
    ),
    (
        "em an ndarray",
        lambda: bc.dawid_skene_em(np.array(A)),
        TypeError,
        r"data must be a bayescal.AnnotatedScores or bayescal.data.CellStatistics; saw ndarray",
    ),
    (
        "em a DataFrame",
        lambda: bc.dawid_skene_em(pd.DataFrame(A)),
        TypeError,
        r"data must be a bayescal.AnnotatedScores or bayescal.data.CellStatistics; saw DataFrame",
    ),
    (
        "em n_starts 0",
        lambda: bc.dawid_skene_em(D4, n_starts=0),
        ValueError,
        r"n_starts must be >= 1; saw 0",
    ),
    (
        "em an annotator with no labels",
        lambda: bc.dawid_skene_em(
            bc.AnnotatedScores(S, [[0, -1, 1, 1], [1, -1, 1, 0], [1, -1, 1, 1], [1, -1, 0, 1]])
        ),
        ValueError,
        r"data: annotator 'a1' has no responses; drop that column",
    ),
    (
        "em one item",
        lambda: bc.dawid_skene_em(bc.AnnotatedScores([0.5], [[1, 0, 1]])),
        ValueError,
        r"data: there is 1 item; channels cannot be estimated from fewer than two items",
    ),
    # issue 17: a crowd that cannot identify its workers' channels
    (
        "crowd_em two workers",
        lambda: bc.crowd_em(Responses([0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 0, 0], 2, ("a", "b"))),
        IdentificationError,
        r"^crowd_em: two annotators in one score group are not identified \(paper App. D.1\)",
    ),
    (
        "crowd_em one labelled item",
        lambda: bc.crowd_em(Responses([0, 0, 0], [0, 1, 2], [1, 1, 0], 2, ("a", "b", "c"))),
        ValueError,
        r"^data: 1 item\(s\) have labels; channels cannot be estimated from fewer than two$",
    ),
    (
        "crowd_em one label per item",
        lambda: bc.crowd_em(Responses([0, 1, 2], [0, 1, 2], [1, 1, 0], 3, ("a", "b", "c"))),
        IdentificationError,
        r"^crowd_em: no item has labels from two annotators \(3 items, at most one label each\), "
        r"so no agreement between annotators is seen and their channels are not identified "
        r"\(paper App. D.1\); give some items two or more labels$",
    ),
    # row 43: Bayesian fits, posteriors, recalibration
    (
        "fit_bayes a DataFrame",
        lambda: bc.fit_bayes(pd.DataFrame(A)),
        TypeError,
        r"data must be a bayescal.AnnotatedScores or bayescal.data.CellStatistics; saw DataFrame",
    ),
    (
        "fit_bayes model typo",
        lambda: bc.fit_bayes(D, model="dawid-skeen"),
        ValueError,
        r"model must be one of 'dawid_skene', 'hui_walter', 'hierarchical_dawid_skene', 'shared_difficulty', 'hui_walter_by_group' \(hyphens for underscores accepted\); saw 'dawid-skeen'",
    ),
    (
        "fit_bayes num_samples 0",
        lambda: bc.fit_bayes(D, num_samples=0),
        ValueError,
        r"num_samples must be >= 1; saw 0",
    ),
    (
        "fit_bayes num_chains 0",
        lambda: bc.fit_bayes(D, num_chains=0),
        ValueError,
        r"num_chains must be >= 1; saw 0",
    ),
    (
        "fit_bayes priors as dict",
        lambda: bc.fit_bayes(D, priors={"sensitivity": (8, 2)}),
        TypeError,
        r"priors must be a bayescal.Priors; saw dict",
    ),
    (
        "fit_bayes seed -1",
        lambda: bc.fit_bayes(D, seed=-1),
        ValueError,
        r"seed must be >= 0; saw -1",
    ),
    (
        "recalibrate isotonic",
        lambda: bc.recalibrate(D, method="isotonic", channels=CH),
        ValueError,
        r"method must be one of 'temperature', 'platt', 'histogram'; saw 'isotonic'",
    ),
    (
        "recalibrate targets typo",
        lambda: bc.recalibrate(D, method="platt", channels=CH, targets="clean"),
        ValueError,
        r"targets must be one of 'corrected', 'naive'; saw 'clean'",
    ),
    (
        "recalibrate channels as tuple",
        lambda: bc.recalibrate(D, method="platt", channels=([0.1] * 3, [0.9] * 3)),
        TypeError,
        r"channels must be one of .*, a Channels, or a callable; saw tuple",
    ),
    (
        "load a missing file",
        lambda: bc.BayesFit.load("/nonexistent/fit.nc"),
        FileNotFoundError,
        r"/nonexistent/fit.nc: no such file",
    ),
    (
        "priors negative",
        lambda: bc.Priors(sensitivity=(-1, 2)),
        ValueError,
        r"sensitivity must hold two positive, finite Beta parameters; saw \(-1, 2\)",
    ),
    (
        "priors as a word",
        lambda: bc.Priors(sensitivity="flat"),
        ValueError,
        r"sensitivity must be a pair \(alpha, beta\) of Beta parameters; saw 'flat'",
    ),
    (
        "priors of three numbers",
        lambda: bc.Priors(sensitivity=(1, 2, 3)),
        ValueError,
        r"sensitivity must be a pair \(alpha, beta\) of Beta parameters; saw \(1, 2, 3\)",
    ),
    (
        "channels of two lengths",
        lambda: bc.Channels([0.1, 0.2], [0.9]),
        ValueError,
        r"a and b must have one entry per annotator each; saw 2 and 1 entries",
    ),
    (
        "channels NaN",
        lambda: bc.Channels([np.nan], [0.9]),
        ValueError,
        r"a must be finite; saw nan at position 0",
    ),
    (
        "channels negative",
        lambda: bc.Channels([-0.1], [0.9]),
        ValueError,
        r"a must lie in \[0, 1\]; saw -0.1 at position 0",
    ),
    (
        "channels adversarial as text",
        lambda: bc.Channels([0.1], [0.9], adversarial="yes"),
        TypeError,
        r"adversarial must be True or False; saw 'yes'",
    ),
    (
        "analyse level 90",
        lambda: bc.analyse(D, level=90, n_bins=2),
        ValueError,
        r"^level must lie strictly between 0 and 1; saw 90$",
    ),
]


@pytest.mark.parametrize(
    "call, error, message", [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS]
)
def test_a_bad_input_is_one_line_naming_what_was_seen(call, error, message):
    with pytest.raises(error, match=message) as caught:
        call()
    assert "\n" not in str(caught.value)


HANDLED = [
    # rows 20, 45, 46, 50: the same number as the clean input, or a warning the user should see
    ("n_bins=2.0 is n_bins=2", lambda: ece(Y, S, n_bins=2.0), 0.25),
    ("bool labels", lambda: ece([False, True, True, True], S), 0.25),
    ("float32 inputs", lambda: ece(np.array(Y, np.float32), np.array(S, np.float32)), 0.25),
    ("labels as a shuffled Series", lambda: ece(pd.Series(Y, index=[3, 2, 1, 0]), S), 0.25),
    ("scores exactly 0 and 1", lambda: ece([0, 1, 1, 0], [0.0, 1.0, 1.0, 0.0]), 0.0),
    (
        "perfect channels give the clean ECE",
        lambda: nc_ece(
            bc.AnnotatedScores(S, [[y] * 3 for y in Y]),
            bc.Channels([0.0] * 3, [1.0] * 3),
            weights="equal",
        ),
        0.25,
    ),
    (
        "numeric strings in a frame",
        lambda: nc_ece(
            bc.AnnotatedScores.from_frame(
                pd.DataFrame(
                    {
                        "p": [str(s) for s in S],
                        **{k: list(map(str, c)) for k, c in zip("abc", zip(*A))},
                    }
                ),
                score="p",
                annotators=list("abc"),
            ),
            bc.Channels(CH.a, CH.b, names=list("abc")),  # the frame names its annotators
        ),
        nc_ece(),
    ),
    (
        "a nullable boolean column with NA is a missing label",
        lambda: bc.AnnotatedScores.from_frame(
            pd.DataFrame({"p": S, "a": pd.array([False, True, None, True], dtype="boolean")}),
            score="p",
            annotators=["a"],
        ).annotations[:, 0],
        [0, 1, -1, 1],
    ),
    (
        "blank text cells are missing labels",
        lambda: bc.AnnotatedScores.from_frame(
            pd.DataFrame({"p": S, "a": ["0", "1", "", " "]}), score="p", annotators=["a"]
        ).annotations[:, 0],
        [0, 1, -1, -1],
    ),
    ("kappa of raters who always agree", lambda: ag.cohens_kappa([1, 0, 1], [1, 0, 1]), 1.0),
    ("alpha of raters who always agree", lambda: ag.krippendorff_alpha([[1, 1], [0, 0]]), 1.0),
]


@pytest.mark.parametrize(
    "call, expected", [case[1:] for case in HANDLED], ids=[case[0] for case in HANDLED]
)
def test_an_awkward_but_valid_input_gives_the_clean_answer(call, expected):
    # hand-computed: bins [0, .5) and [.5, 1]: |(0 + 1) - (.1 + .4)| / 4 + |2 - 1.5| / 4 = 0.25
    np.testing.assert_allclose(call(), expected, rtol=0, atol=1e-7)


def test_row46_more_bins_than_items_warns_in_one_line():
    with pytest.warns(
        BinningWarning, match=r"^n_bins = 1000 exceeds the 4 item\(s\) to bin"
    ) as record:
        bc.expected_calibration_error(Y, S, n_bins=1000)
    assert record[0].filename == __file__


def test_row10b_an_annotator_who_always_says_1_gets_weight_0_not_a_refusal():
    sim = bc.simulate_annotated(3000, bc.Channels([0.1, 0.2, 0.15], [0.9, 0.8, 0.85]), seed=11)
    always = np.column_stack([sim.data.annotations, np.ones(3000, np.int8)])
    data = bc.AnnotatedScores(sim.data.scores, always)
    fit = bc.dawid_skene_em(data)
    assert fit.ok and abs(fit.channels.gap[3]) < 1e-4
    with pytest.warns(ChannelWarning, match=r"annotator a3 has \|b - a\| < 0.0001: .* weight 0"):
        value = bc.noise_corrected_ece(data, fit.channels)
    kept = bc.Channels(fit.channels.a[:3], fit.channels.b[:3])
    assert value == pytest.approx(bc.noise_corrected_ece(sim.data, kept), abs=1e-12)


def test_row50_one_random_guesser_does_not_fail_the_fit():
    channels = bc.Channels([0.1, 0.2, 0.15, 0.5], [0.9, 0.8, 0.85, 0.5])  # a3 guesses
    sim = bc.simulate_annotated(2000, channels, seed=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)  # a guesser may come out b < a by chance
        fit = bc.dawid_skene_em(sim.data)
    assert fit.ok and abs(fit.channels.gap[3]) < 0.1
    assert fit.channels.a[:3] == pytest.approx(channels.a[:3], abs=0.04)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        value = bc.noise_corrected_ece(sim.data, fit.channels)
    # against the truth channels of the three real annotators (EM on three alone is saturated)
    three = bc.AnnotatedScores(sim.data.scores, sim.data.annotations[:, :3])
    reference = bc.Channels(channels.a[:3], channels.b[:3])
    assert value == pytest.approx(bc.noise_corrected_ece(three, reference), abs=0.01)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_row34_a_crowd_of_60_sparse_annotators_is_fitted_not_refused():
    """Before: a full NUTS run, then "the complete pattern layout is limited to 12 annotators"."""
    rng = np.random.default_rng(0)
    channels = bc.Channels(rng.uniform(0.05, 0.3, 60), rng.uniform(0.7, 0.95, 60))
    sim = bc.simulate_annotated(1500, channels, seed=1)
    sparse = np.full_like(sim.data.annotations, -1)
    for i in range(sparse.shape[0]):
        chosen = rng.choice(60, 3, replace=False)
        sparse[i, chosen] = sim.data.annotations[i, chosen]
    data = bc.AnnotatedScores(sim.data.scores, sparse)
    analysis = bc.analyse(
        data,
        truth=sim.labels,
        sampler=bc.SamplerSettings(num_chains=2, num_warmup=300, num_samples=300),
    )
    summary = analysis.summary
    assert len(summary.data.annotators) == 60
    # the correction removes the soft vote's bias: the whole interval lies below it
    assert summary.ece.nc_ece.posterior.interval[1] < summary.ece.naive["soft_vote"]
    assert abs(summary.ece.nc_ece.posterior.median - summary.ece.oracle.value) < 0.03


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # one fake chain
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")  # EM, K = 3
def test_row49_issue2_a_fit_meets_data_by_annotator_name():
    """At the catalogue's commit the same data with its columns reordered gave 0.0795 instead
    of 0.0601 (each column corrected with another annotator's channel).  Now every place a fit
    meets data matches annotators by name: reordered columns give the same numbers, other
    names are refused."""
    from tests.helpers import fake_fit

    sim = bc.toy_data(2000, seed=9)
    data = sim.data
    rng = np.random.default_rng(2)
    a = np.clip(sim.channels.a + rng.normal(0, 0.02, (40, 3)), 0.01, 0.4)
    b = np.clip(sim.channels.b + rng.normal(0, 0.02, (40, 3)), 0.6, 0.99)
    fit = fake_fit(data, a, b, rng.uniform(0.4, 0.5, 40))
    order = [2, 0, 1]
    reordered = bc.AnnotatedScores(
        data.scores,
        data.annotations[:, order],
        annotator_names=[data.annotator_names[k] for k in order],
    )
    # channel uncertainty only: the data bootstrap draws its weights in the cells' order
    exact = {"uncertainty": "channels"}
    same = bc.nc_ece_posterior(data, fit, **exact)
    moved = bc.nc_ece_posterior(reordered, fit, **exact)
    np.testing.assert_allclose(moved.draws, same.draws, rtol=1e-12)
    np.testing.assert_allclose(
        bc.nc_ece_posterior(reordered.cells(), fit, **exact).draws, same.draws, rtol=1e-12
    )
    recalibrated = bc.bayes.posterior_recalibration(
        reordered, reordered, fit, method="platt", **exact
    )
    reference = bc.bayes.posterior_recalibration(data, data, fit, method="platt", **exact)
    np.testing.assert_allclose(
        recalibrated.recalibrated.draws, reference.recalibrated.draws, rtol=1e-10
    )
    checks = bc.check_model(reordered, fit).table
    pd.testing.assert_frame_equal(checks, bc.check_model(data, fit).table)
    em = bc.dawid_skene_em(data)
    assert repr(bc.recalibrate(reordered, method="platt", channels=em)) == repr(
        bc.recalibrate(data, method="platt", channels=em)
    )
    renamed = bc.AnnotatedScores(data.scores, data.annotations, annotator_names=["x", "a1", "a2"])
    message = (
        r"data must have the annotators of the fit: \['a0', 'a1', 'a2'\]; saw \['x', 'a1', 'a2'\]$"
    )
    with pytest.raises(ValueError, match=message):
        bc.nc_ece_posterior(renamed, fit)
    with pytest.raises(ValueError, match=message):
        bc.check_model(renamed, fit)
    with pytest.raises(ValueError, match=r"must have the annotators of the dawid_skene_em fit: "):
        bc.recalibrate(renamed, method="platt", channels=em)


def test_row22_a_guesser_estimated_b_below_a_by_chance_is_called_random_not_adversarial():
    """The catalogue's guesser came out with gap -0.049 and was warned "adversarial"; one rule
    (bayescal.channels.odd_annotators) now tells a gap within twice its standard error of 0
    apart."""
    channels = bc.Channels([0.1, 0.2, 0.15, 0.5], [0.9, 0.8, 0.85, 0.5])  # a3 guesses
    sim = bc.simulate_annotated(2000, channels, seed=15)
    with pytest.warns(ChannelWarning) as record:
        fit = bc.dawid_skene_em(sim.data)
    assert fit.channels.gap[3] < 0  # by chance
    assert [str(w.message) for w in record] == [
        "dawid_skene_em: annotator a3 is indistinguishable from random answers "
        "(|b - a| within twice its standard error of 0); the correction gives them little weight"
    ]


def test_issue17_a_crowd_of_constant_workers_is_a_failure_with_its_reason():
    """Every worker always gives one answer: no channel can be told apart from random, so the
    fit is a failure that says why (as the pattern EM's), not channels with every gap 0."""
    crowd = bc.simulate_crowd(500, 6, worker_mix={"constant": 1}, seed=0)
    fit = bc.crowd_em(crowd.data)
    assert not fit.ok and fit.channels is None
    assert fit.failure == (
        "every annotator has an estimated gap below 0.0001 (largest |b - a| = 0): the labels "
        "carry no information about the class"
    )


# --- crowds (issue 17) -------------------------------------------------------------------------


def _crowd_fit_with_draws(data, a, b):
    """A posterior whose every draw has the channels ``a, b`` (one chain, four draws)."""
    from bayescal.models import PatternDesign

    draws, k = 4, data.n_annotators
    samples = {
        "a": np.full((1, draws, k), a),
        "b": np.full((1, draws, k), b),
        "prevalence": np.full((1, draws), 0.5),
    }
    stats = {
        "diverging": np.zeros((1, draws), bool),
        "energy": np.zeros((1, draws)),
        "num_steps": np.ones((1, draws), int),
        "accept_prob": np.ones((1, draws)),
    }
    design = PatternDesign.from_counts(data.compress(), grouped=False)
    with np.errstate(invalid="ignore", divide="ignore"):  # R-hat of constant draws
        return bc.BayesFit.from_run(
            samples, stats, design, bc.Priors(), "dawid_skene", data.annotator_names
        )


def test_a_crowd_whose_every_worker_is_random_in_a_draw_has_no_nc_ece():
    crowd = bc.simulate_crowd(300, 14, labels_per_item=3, worker_mix={"good": 1.0}, seed=0)
    fit = _crowd_fit_with_draws(crowd.data, 0.5, 0.50001)  # gap 1e-5 < MIN_GAP for everyone
    with pytest.raises(
        ValueError,
        match=r"^in 4 of 4 draws no item has a label from an informative worker \(every worker's gap",
    ):
        bc.nc_ece_posterior(crowd.data, fit)
    with pytest.raises(ValueError, match=r"^in 4 of 4 draws no item has a label"):
        bc.bayes.posterior_recalibration(
            crowd.data, crowd.data, fit
        )  # refused before any map is used


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_hierarchical_checks_refuse_another_crowd_with_the_same_workers():
    first = bc.simulate_crowd(300, 8, labels_per_item=3, worker_mix={"good": 1.0}, seed=1)
    other = bc.simulate_crowd(300, 8, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    fit = bc.fit_bayes(
        first.data, model="hierarchical_dawid_skene", num_chains=1, num_warmup=300,
        num_samples=50, progress=False,
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"^data are not the data this fit was fitted to"):
        bc.check_model(other.data, fit)


def test_sbc_refuses_more_labels_per_item_than_workers():
    from bayescal.studies import simulation_based_calibration

    with pytest.raises(
        ValueError, match=r"^labels_per_item must be at most n_annotators \(4\); saw 5$"
    ):
        simulation_based_calibration(
            model="hierarchical_dawid_skene", n_annotators=4, labels_per_item=5
        )


def test_multiclass_crowd_sbc_refuses_confusion_priors_and_too_many_labels_per_item():
    from bayescal.studies import simulation_based_calibration

    crowd = {"model": "hierarchical_dawid_skene", "n_classes": 3, "n_annotators": 4}
    with pytest.raises(
        ValueError,
        match=r"^priors.confusion: model 'hierarchical_dawid_skene' draws the workers' confusion "
        r"rows from its population .* saw confusion=\(4.0, 1.0\)$",
    ):
        simulation_based_calibration(**crowd, priors=bc.bayes.ClassPriors(confusion=(4, 1)))
    with pytest.raises(
        ValueError, match=r"^labels_per_item must be at most n_annotators \(4\); saw 5$"
    ):
        simulation_based_calibration(**crowd, labels_per_item=5)


def test_more_bins_than_a_crowds_labelled_items_warns_as_more_bins_than_items_do():
    """The crowd rule leaves out items labelled only by uninformative workers: 30 bins for 60
    items is fine, for the 15 or so labelled ones it is not, and that is said."""
    crowd = bc.simulate_crowd(60, 16, labels_per_item=2, worker_mix={"good": 1.0}, seed=0)
    # workers 0-13 exact spammers (b = a): only the items of workers 14 and 15 are labelled
    channels = bc.Channels(
        [0.3] * 14 + [0.1] * 2, [0.3] * 14 + [0.9] * 2, names=crowd.data.annotator_names
    )
    labelled = int((crowd.data.annotations[:, 14:] >= 0).any(axis=1).sum())
    assert 0 < labelled < 30
    said = rf"^n_bins = 30 exceeds the {labelled} item\(s\) to bin"

    def binning_warnings(call) -> list[str]:
        with pytest.warns(Warning) as caught:
            value = call()
        assert np.isfinite(value)
        return [str(w.message) for w in caught if w.category is BinningWarning]

    plug_in = binning_warnings(lambda: bc.noise_corrected_ece(crowd.data, channels, n_bins=30))
    assert len(plug_in) == 1 and re.match(said, plug_in[0])
    study = binning_warnings(
        lambda: (
            bc.recalibration.recalibration_study(
                crowd.data, crowd.data, crowd.data, methods=["platt"], estimator=channels, n_bins=30
            )
            .table["nc_ece"]
            .iloc[0]
        )
    )
    assert len(study) == 1 and re.match(said, study[0])
