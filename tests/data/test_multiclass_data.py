"""Multi-class AnnotatedScores (issue 39, item 1): the probability matrix, class names and
codes, tables, and the binary steps that refuse such data by name."""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from tests.helpers import GRADED_CONFUSION, simulate_class_annotations

CLASSES = ["fail", "partial", "pass"]
LABELS, CODES = simulate_class_annotations(GRADED_CONFUSION, 400, np.array([0.3, 0.4, 0.3]), 3)
PROBABILITIES = np.random.default_rng(4).dirichlet(np.ones(3), 400)


def graded() -> bc.AnnotatedScores:
    return bc.AnnotatedScores(PROBABILITIES, CODES, classes=CLASSES, ordinal=True)


def test_a_probability_matrix_makes_multiclass_data_with_named_classes():
    data = graded()
    assert (data.n_classes, data.is_multiclass, data.ordinal) == (3, True, True)
    assert data.classes == tuple(CLASSES)
    np.testing.assert_array_equal(data.annotations, CODES)
    np.testing.assert_array_equal(data.probabilities, PROBABILITIES)
    assert "classes=['fail', 'partial', 'pass'], ordinal" in repr(data)
    half = data.subset(np.arange(200))
    assert (half.classes, half.ordinal, half.n_items) == (data.classes, True, 200)
    unnamed = bc.AnnotatedScores(PROBABILITIES, CODES)
    assert unnamed.classes == ("0", "1", "2") and not unnamed.ordinal


def test_normalize_divides_each_row_by_its_sum():
    data = bc.AnnotatedScores(3 * PROBABILITIES, CODES, normalize=True)
    np.testing.assert_allclose(data.probabilities, PROBABILITIES, rtol=1e-12)


def test_a_two_column_matrix_is_binary_data_that_runs_through_the_binary_paths():
    rng = np.random.default_rng(5)
    scores = rng.uniform(size=500)
    annotations = (rng.uniform(size=(500, 3)) < scores[:, None]).astype(int)
    by_column = bc.AnnotatedScores(scores, annotations)
    by_matrix = bc.AnnotatedScores(np.column_stack([1 - scores, scores]), annotations)
    assert not by_matrix.is_multiclass and by_matrix.n_classes == 2
    np.testing.assert_array_equal(by_matrix.scores, scores)
    np.testing.assert_allclose(by_matrix.probabilities, by_column.probabilities, atol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)
        assert bc.nc_ece_estimate(by_matrix).estimate == bc.nc_ece_estimate(by_column).estimate


def test_confusion_of_binary_channels_is_the_two_by_two_matrix():
    channels = bc.Channels([0.1, 0.3], [0.8, 0.6])
    np.testing.assert_allclose(
        channels.confusion, [[[0.9, 0.1], [0.2, 0.8]], [[0.7, 0.3], [0.4, 0.6]]], atol=1e-15
    )


@pytest.mark.parametrize(
    ("call", "error", "said"),
    [
        (
            lambda: bc.AnnotatedScores(PROBABILITIES * 0.9, CODES),
            ValueError,
            r"scores must have rows summing to 1 \(within 1e-06\); row 0 .*pass normalize=True",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, np.where(CODES == 2, 3, CODES)),
            ValueError,
            r"annotations must hold class codes 0 to 2, or -1 for missing; saw 3",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, classes=["a", "b"]),
            ValueError,
            r"classes must name each of the 3 classes \(one per probability column\); saw 2",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, classes=["a", "b", "a"]),
            ValueError,
            r"classes must be distinct as text; 'a' appears more than once",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, classes="abc"),
            TypeError,
            r"classes must be a sequence of class names; saw 'abc'",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES[:, 0], CODES, classes=CLASSES),
            ValueError,
            r"scores must be an \(n_items, 3\) matrix of class probabilities for the 3 classes",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES[:, 0], CODES.clip(0, 1), normalize=True),
            ValueError,
            r"normalize divides each row of a class-probability matrix by its sum",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, normalize="yes"),
            TypeError,
            r"normalize must be True or False; saw 'yes'",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, ordinal=1),
            TypeError,
            r"ordinal must be True or False; saw 1",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES, gold=np.full(400, 5)),
            ValueError,
            r"gold must hold class codes 0 to 2, or -1 for no gold label; saw 5",
        ),
        (
            lambda: bc.AnnotatedScores(PROBABILITIES, CODES[:300]),
            ValueError,
            r"annotations must have one row per item \(400 rows\); saw 300 rows",
        ),
    ],
)
def test_bad_multiclass_inputs_are_refused_naming_what_was_seen(call, error, said):
    with pytest.raises(error, match=said):
        call()


def test_a_table_with_a_column_per_class_and_named_labels():
    frame = pd.DataFrame(PROBABILITIES, columns=["p_fail", "p_partial", "p_pass"])
    for j in range(3):  # names as text, an empty cell where the label is missing
        frame[f"judge{j}"] = [None if c < 0 else CLASSES[c] for c in CODES[:, j]]
    data = bc.AnnotatedScores.from_frame(
        frame,
        score=["p_fail", "p_partial", "p_pass"],
        annotators=["judge0", "judge1", "judge2"],
        classes=CLASSES,
    )
    np.testing.assert_array_equal(data.annotations, CODES)
    np.testing.assert_array_equal(data.scores, PROBABILITIES)
    frame["judge1"] = frame["judge1"].replace("partial", "meh")
    with pytest.raises(
        ValueError, match=r"annotator column 'judge1', row \d+: 'meh' is not one of the classes"
    ):
        bc.AnnotatedScores.from_frame(
            frame, score=["p_fail", "p_partial", "p_pass"], annotators=["judge1"], classes=CLASSES
        )


def test_a_graded_scale_reads_its_numbers_as_class_names_and_a_list_column_as_probabilities():
    grades = ["1", "2", "3"]
    frame = pd.DataFrame(
        {
            "probabilities": list(PROBABILITIES),
            # a column with empty cells stores the grades as floats: 3.0 is still "3"
            **{f"j{j}": np.where(CODES[:, j] < 0, np.nan, CODES[:, j] + 1.0) for j in range(3)},
            "gold": np.where(np.arange(400) < 50, LABELS + 1, np.nan),
        }
    )
    data = bc.AnnotatedScores.from_frame(
        frame, score="probabilities", annotators=["j0", "j1", "j2"], gold="gold", classes=grades
    )
    np.testing.assert_array_equal(data.annotations, CODES)
    np.testing.assert_array_equal(data.gold[:50], LABELS[:50])
    assert data.n_gold == 50 and data.classes == tuple(grades)
    frame.loc[7, "probabilities"] = [0.5, 0.5]
    with pytest.raises(
        ValueError, match=r"score column 'probabilities' must hold one list of 3 class .* row 7"
    ):
        bc.AnnotatedScores.from_frame(frame, score="probabilities", annotators=["j0"])


def test_codes_without_class_names_are_checked_against_the_number_of_classes():
    frame = pd.DataFrame(PROBABILITIES, columns=["p0", "p1", "p2"]).assign(judge=CODES[:, 0] + 1)
    with pytest.raises(
        ValueError, match=r"annotator column 'judge', row \d+: '3' is not one of the classes"
    ):
        bc.AnnotatedScores.from_frame(frame, score=["p0", "p1", "p2"], annotators=["judge"])


def test_a_long_table_of_named_labels():
    rows = [(i, f"w{j}", CLASSES[c]) for i in range(400) for j, c in enumerate(CODES[i]) if c >= 0]
    labels = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    scores = pd.DataFrame({"item": range(400), "probabilities": list(PROBABILITIES)})
    data = bc.AnnotatedScores.from_long(labels, scores, score="probabilities", classes=CLASSES)
    np.testing.assert_array_equal(data.annotations, CODES)
    assert data.annotator_names == ("w0", "w1", "w2")


#: The public steps that take multi-class data; every other one refuses it by name.
MULTICLASS_STEPS = {
    "analyse",
    "calibration_test",
    "confused_classes",  # multi-class only: binary data are refused by name, tested there
    "crowd_em",
    "dawid_skene_em",
    "fit_bayes",
    "nc_ece_estimate",
    "nc_ece_posterior",
    "recalibrate",
}
#: Public functions whose first argument is named ``data`` but is not AnnotatedScores.
NOT_ANNOTATED_SCORES = {"krippendorff_alpha"}


def _public_steps():
    import importlib

    steps = {}
    for module in ["bayescal"] + [f"bayescal.{folder}" for folder in bc._FOLDERS]:
        imported = importlib.import_module(module)
        for name in imported.__all__:
            function = getattr(imported, name)
            if inspect.isfunction(function) and name not in NOT_ANNOTATED_SCORES:
                parameters = list(inspect.signature(function).parameters)
                if parameters and parameters[0] == "data":
                    steps[name] = function
    return sorted(steps.items())


def test_every_binary_step_refuses_multiclass_data_by_name():
    steps = _public_steps()
    assert len(steps) >= 20  # the sweep finds the workflow, not an empty list
    data = graded()
    for name, function in steps:
        if name in MULTICLASS_STEPS:
            continue
        required = [
            parameter.name
            for parameter in list(inspect.signature(function).parameters.values())[1:]
            if parameter.default is inspect.Parameter.empty
            and parameter.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        with pytest.raises(ValueError, match=rf"^{name}: data are multi-class \(3 classes"):
            function(data, **dict.fromkeys(required))


def test_the_binary_machinery_refuses_multiclass_data():
    data = graded()
    for step in (data.compress, data.cells):
        with pytest.raises(ValueError, match=r"handles binary labels only"):
            step()
    responses = data.responses()  # the crowd EM's input: class codes kept
    assert responses.n_classes == 3
    np.testing.assert_array_equal(np.bincount(responses.label), np.bincount(CODES[CODES >= 0]))


def test_a_crowds_repr_counts_its_workers_and_names_six():
    codes = np.full((2, 40), -1)
    codes[:, :3] = 1
    data = bc.AnnotatedScores([0.2, 0.7], codes, annotator_names=[f"w{j:02d}" for j in range(40)])
    assert "annotators=40 (w00, w01, w02, w03, w04, w05 and 34 more)" in repr(data)
    assert "annotators=['a0', 'a1', 'a2']" in repr(bc.AnnotatedScores([0.2], [[0, 1, 1]]))
