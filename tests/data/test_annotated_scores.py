"""AnnotatedScores: construction, table readers, pattern compression and bad input."""

import math

import numpy as np
import pandas as pd
import pytest

import bayescal as bc


def test_construction_and_properties():
    data = bc.AnnotatedScores([0.2, 0.7, 0.9], [[0, 0], [1, -1], [1, 1]])
    assert (data.n_items, data.n_annotators, data.n_groups) == (3, 2, 1)
    assert data.annotator_names == ("a0", "a1")
    assert data.annotations.dtype == np.int8 and data.scores.dtype == np.float64
    assert "missing=16.7%" in repr(data)


def test_arrays_are_read_only_copies():
    scores = np.array([0.2, 0.7])
    data = bc.AnnotatedScores(scores, [[0], [1]])
    scores[0] = 0.9
    assert data.scores[0] == 0.2
    with pytest.raises(ValueError):
        data.annotations[0, 0] = 1


def test_all_missing_column_and_row_are_allowed_in_the_data_model():
    data = bc.AnnotatedScores([0.2, 0.7], [[0, -1], [-1, -1]])
    assert data.n_items == 2


def test_compress_counts_group_pattern_rows():
    data = bc.AnnotatedScores(
        [0.1, 0.2, 0.3, 0.8, 0.9, 0.95],
        [[0, 0], [0, 0], [1, -1], [1, 1], [1, 1], [0, 0]],
        groups=[0, 0, 0, 1, 1, 1],
    )
    counts = data.compress()
    rows = {
        (g, tuple(p)): c for g, p, c in zip(counts.groups, counts.patterns.tolist(), counts.counts)
    }
    assert rows == {(0, (0, 0)): 2, (0, (1, -1)): 1, (1, (0, 0)): 1, (1, (1, 1)): 2}
    assert counts.n_items == 6 and counts.n_cells == 4
    assert counts.annotator_names == ("a0", "a1")
    # sorted by group, then pattern
    assert counts.groups.tolist() == sorted(counts.groups.tolist())


def test_compress_without_groups_uses_group_zero_and_preserves_totals():
    sim = bc.toy_data(5000, seed=2)
    counts = sim.data.compress()
    assert set(counts.groups.tolist()) == {0}
    assert counts.n_cells <= 8 and counts.n_items == 5000
    # The compressed counts reproduce every per-annotator positive count.
    positives = (counts.patterns == 1).astype(int).T @ counts.counts
    assert positives.tolist() == (sim.data.annotations == 1).sum(axis=0).tolist()


def test_subset_keeps_names_and_groups():
    data = bc.AnnotatedScores(
        [0.1, 0.5, 0.9], [[0], [1], [1]], groups=[0, 1, 1], annotator_names=["ann"]
    )
    part = data.subset([2, 0])
    assert part.scores.tolist() == [0.9, 0.1] and part.groups.tolist() == [1, 0]
    assert part.annotator_names == ("ann",)
    assert data.subset(np.array([True, False, True])).n_items == 2
    with pytest.raises(
        ValueError, match=r"items must be positions in \[0, 3\); saw values from 0 to 5"
    ):
        data.subset([0, 5])
    with pytest.raises(ValueError, match=r"boolean mask must have shape \(3,\)"):
        data.subset([True, False])
    with pytest.raises(TypeError, match=r"items must be a 1-D array of integer positions"):
        data.subset([0.5])


def test_in_annotator_order_moves_the_columns_by_name_and_refuses_other_names():
    data = bc.AnnotatedScores(
        [0.1, 0.5], [[0, 1, -1], [1, 1, 0]], annotator_names=["x", "y", "z"], gold=[1, -1]
    )
    moved = data.in_annotator_order(["z", "x", "y"])
    assert moved.annotator_names == ("z", "x", "y")
    assert moved.annotations.tolist() == [[-1, 0, 1], [0, 1, 1]]
    assert moved.gold.tolist() == [1, -1] and moved.scores.tolist() == [0.1, 0.5]
    assert data.in_annotator_order(("x", "y", "z")) is data
    with pytest.raises(
        ValueError,
        match=r"data must have the annotators of the order given: \['x', 'y', 'w'\]; "
        r"saw \['x', 'y', 'z'\]",
    ):
        data.in_annotator_order(["x", "y", "w"])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"scores": [0.2, math.nan], "annotations": [[0], [1]]},
            ValueError,
            r"scores must be finite; saw nan at position 1",
        ),
        (
            {"scores": [0.2, 1.1], "annotations": [[0], [1]]},
            ValueError,
            r"scores must lie in \[0, 1\]; saw 1.1",
        ),
        ({"scores": [], "annotations": np.zeros((0, 1))}, ValueError, r"scores must not be empty"),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1], [1]]},
            ValueError,
            r"one row per item \(2 rows\); saw 3",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [3]]},
            ValueError,
            r"saw 3 at row 1, column 0",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [0, 1]},
            ValueError,
            r"annotations must be a 2-D array",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": np.zeros((2, 0))},
            ValueError,
            r"at least one item and one annotator",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1]], "groups": [0, -1]},
            ValueError,
            r"groups must be non-negative integer ids; saw -1 at position 1",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1]], "groups": [0, 0.5]},
            ValueError,
            r"groups must be non-negative integer ids; saw 0.5",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1]], "groups": [0]},
            ValueError,
            r"groups must have one entry per item \(2\); saw 1",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1]], "annotator_names": ["x", "y"]},
            ValueError,
            r"annotator_names must name each of the 1",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0, 1], [1, 1]], "annotator_names": ["x", "x"]},
            ValueError,
            r"annotator_names must be unique",
        ),
        (
            {"scores": [0.2, 0.3], "annotations": [[0], [1]], "annotator_names": "x"},
            TypeError,
            r"annotator_names must be a sequence of strings",
        ),
        (
            {"scores": ["a", "b"], "annotations": [[0], [1]]},
            TypeError,
            r"scores must hold real numbers",
        ),
    ],
)
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        bc.AnnotatedScores(**kwargs)


# --- wide tables ---------------------------------------------------------------------------


def test_from_frame_maps_nan_to_missing_and_keeps_names():
    table = pd.DataFrame(
        {
            "p": [0.1, 0.8, 0.5],
            "ann": [0, 1, 1],
            "bob": [np.nan, 1.0, 0.0],
            "cy": pd.array([1, pd.NA, 0], dtype="Int64"),
            "grp": [0, 1, 1],
        }
    )
    data = bc.AnnotatedScores.from_frame(
        table, score="p", annotators=["ann", "bob", "cy"], groups="grp"
    )
    assert data.annotations.tolist() == [[0, -1, 1], [1, 1, -1], [1, 0, 0]]
    assert data.annotator_names == ("ann", "bob", "cy")
    assert data.groups.tolist() == [0, 1, 1]


def test_from_frame_accepts_booleans():
    table = pd.DataFrame({"p": [0.1, 0.8], "ann": [False, True]})
    assert bc.AnnotatedScores.from_frame(
        table, score="p", annotators=["ann"]
    ).annotations.tolist() == [[0], [1]]


def test_from_frame_round_trips_through_csv_and_parquet(tmp_path):
    sim = bc.toy_data(200, seed=4)
    table = pd.DataFrame(sim.data.annotations.astype(float), columns=["x", "y", "z"])
    table.loc[::5, "y"] = np.nan
    table.insert(0, "score", sim.data.scores)
    table.to_csv(tmp_path / "t.csv", index=False)
    table.to_parquet(tmp_path / "t.parquet")
    for loaded in (pd.read_csv(tmp_path / "t.csv"), pd.read_parquet(tmp_path / "t.parquet")):
        data = bc.AnnotatedScores.from_frame(loaded, score="score", annotators=["x", "y", "z"])
        assert np.array_equal(data.scores, sim.data.scores)
        assert (data.annotations[::5, 1] == -1).all()
        assert (data.annotations[1::5] == sim.data.annotations[1::5]).all()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"score": "q", "annotators": ["ann"]}, ValueError, r"frame has no column\(s\) \['q'\]"),
        (
            {"score": "p", "annotators": []},
            ValueError,
            r"annotators must be a non-empty list of column names",
        ),
        ({"score": "p", "annotators": "ann"}, ValueError, r"annotators must be a non-empty list"),
        (
            {"score": "p", "annotators": ["ann", "ann"]},
            ValueError,
            r"the annotators name 'ann' twice; name each annotator once",
        ),
        (
            {"score": "p", "annotators": ["ann", "p"]},
            ValueError,
            r"column 'p' is named as score and as annotator",
        ),
        (
            {"score": "p", "annotators": ["bad"]},
            ValueError,
            r"annotator column 'bad' must contain only 0, 1 or NaN \(missing\); saw 2.0 at row 1",
        ),
        (
            {"score": "p", "annotators": ["text"]},
            TypeError,
            r"annotator column 'text' must hold numbers",
        ),
        (
            {"score": "p", "annotators": ["ann"], "groups": "nope"},
            ValueError,
            r"frame has no column\(s\) \['nope'\]",
        ),
        (
            {"score": "text", "annotators": ["ann"]},
            TypeError,
            r"score column 'text' must hold numbers",
        ),
    ],
)
def test_from_frame_bad_input(kwargs, error, match):
    table = pd.DataFrame({"p": [0.1, 0.8], "ann": [0, 1], "bad": [1, 2], "text": ["yes", "no"]})
    with pytest.raises(error, match=match):
        bc.AnnotatedScores.from_frame(table, **kwargs)


def test_from_frame_rejects_non_frame():
    with pytest.raises(TypeError, match=r"frame must be a pandas DataFrame; saw dict"):
        bc.AnnotatedScores.from_frame({"p": [0.1]}, score="p", annotators=["a"])


def test_from_frame_nan_score_names_the_position():
    table = pd.DataFrame({"p": [0.1, np.nan], "ann": [0, 1]})
    with pytest.raises(ValueError, match=r"scores must be finite; saw nan at position 1"):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"])


# --- long tables ---------------------------------------------------------------------------


def _long_tables():
    labels = pd.DataFrame(
        {
            "task": ["i1", "i1", "i2", "i3", "i3", "i3"],
            "worker": ["w2", "w1", "w1", "w1", "w2", "w3"],
            "y": [1, 0, 1, 0, np.nan, 1],
        }
    )
    scores = pd.DataFrame(
        {"task": ["i3", "i1", "i2", "i4"], "prob": [0.3, 0.9, 0.6, 0.5], "g": [0, 1, 1, 0]}
    )
    return labels, scores


def test_from_long_pivots_in_score_table_order():
    labels, scores = _long_tables()
    data = bc.AnnotatedScores.from_long(
        labels, scores, item="task", annotator="worker", label="y", score="prob", groups="g"
    )
    assert data.annotator_names == ("w1", "w2", "w3")
    assert data.scores.tolist() == [0.3, 0.9, 0.6, 0.5]
    # i3: w1=0, w2 NaN (missing), w3=1; i1: w1=0, w2=1; i2: w1=1; i4: no labels at all
    assert data.annotations.tolist() == [[0, -1, 1], [0, 1, -1], [1, -1, -1], [-1, -1, -1]]
    assert data.groups.tolist() == [0, 1, 1, 0]
    # the items keep their ids, through a split too (issue 38 item 7)
    assert data.item_ids.tolist() == ["i3", "i1", "i2", "i4"]
    assert data.subset([3, 0]).item_ids.tolist() == ["i4", "i3"]
    assert data.subset([3, 3, 0]).item_ids is None  # a bootstrap's copies are not items


def test_from_long_agrees_with_from_frame():
    sim = bc.toy_data(300, seed=9)
    wide = pd.DataFrame(sim.data.annotations, columns=["a0", "a1", "a2"]).astype(float)
    wide.loc[::4, "a2"] = np.nan
    wide["item"] = np.arange(300)
    wide["score"] = sim.data.scores
    long = wide.melt(
        id_vars=["item"], value_vars=["a0", "a1", "a2"], var_name="annotator", value_name="label"
    )
    from_long = bc.AnnotatedScores.from_long(
        long.sample(frac=1.0, random_state=0), wide[["item", "score"]]
    )
    from_wide = bc.AnnotatedScores.from_frame(wide, score="score", annotators=["a0", "a1", "a2"])
    assert np.array_equal(from_long.annotations, from_wide.annotations)
    assert from_long.annotator_names == from_wide.annotator_names


@pytest.mark.parametrize(
    "edit, error, match",
    [
        (
            lambda lab, s: (lab.assign(y=[1, 0, 1, 0, 1, 5]), s),
            ValueError,
            r"label column 'y' must contain only 0, 1 or NaN",
        ),
        (
            lambda lab, s: (pd.concat([lab, lab.iloc[:1]]), s),
            ValueError,
            r"at most one label per \(item, annotator\); item 'i1' has several from annotator 'w2'",
        ),
        (
            lambda lab, s: (lab, s[s.task != "i2"]),
            ValueError,
            r"labels mention item 'i2', which has no row in scores",
        ),
        (
            lambda lab, s: (lab, pd.concat([s, s.iloc[:1]])),
            ValueError,
            r"scores must list each item once; item 'i3'",
        ),
        (
            lambda lab, s: (lab.drop(columns="worker"), s),
            ValueError,
            r"labels has no column\(s\) \['worker'\]",
        ),
        (
            lambda lab, s: (lab, s.drop(columns="prob")),
            ValueError,
            r"scores has no column\(s\) \['prob'\]",
        ),
        (
            lambda lab, s: (lab.assign(y=np.nan), s),
            ValueError,
            r"labels must contain at least one non-missing label",
        ),
        (
            lambda lab, s: (lab, s.assign(prob=[0.3, 1.9, 0.6, 0.5])),
            ValueError,
            r"scores must lie in \[0, 1\]; saw 1.9 at position 1",
        ),
        (lambda lab, s: (lab.to_dict(), s), TypeError, r"labels must be a pandas DataFrame"),
    ],
)
def test_from_long_bad_input(edit, error, match):
    labels, scores = edit(*_long_tables())
    with pytest.raises(error, match=match):
        bc.AnnotatedScores.from_long(
            labels, scores, item="task", annotator="worker", label="y", score="prob"
        )


@pytest.mark.parametrize(
    "n, n_annotators, n_groups",
    [
        (2000, 3, 1),
        (2000, 5, 7),
        (3000, 14, 4),
        (500, 40, 3),
    ],  # bincount, bincount, sort, beyond int64
)
def test_compress_agrees_with_a_row_sort_reference(n, n_annotators, n_groups):
    rng = np.random.default_rng(n_annotators)
    annotations = rng.integers(-1, 2, (n, n_annotators))
    groups = rng.integers(0, n_groups, n) * 3  # ids need not be contiguous
    counts = bc.AnnotatedScores(rng.random(n), annotations, groups=groups).compress()
    rows, expected = np.unique(np.column_stack([groups, annotations]), axis=0, return_counts=True)
    assert np.array_equal(counts.groups, rows[:, 0])
    assert np.array_equal(counts.patterns, rows[:, 1:])
    assert np.array_equal(counts.counts, expected)


def test_annotator_ids_that_differ_only_by_spaces_are_said_to_be_two():
    """'w1' and 'w1 ' are two workers, as ids are read as text; a trailing space is rarely
    meant, so one line says so (and the analysis goes on)."""
    from bayescal.data.responses import Responses

    labels = pd.DataFrame(
        {
            "item": [0, 0, 1, 1, 2],
            "annotator": ["w1", "w2", "w1 ", "w2", " w2"],
            "label": [1, 0, 1, 1, 0],
        }
    )
    scores = pd.DataFrame({"item": [0, 1, 2], "score": [0.2, 0.5, 0.8]})
    said = r"^annotator ids ' w2' and 'w2'; 'w1' and 'w1 ' differ only by spaces at their ends"
    with pytest.warns(bc.DataWarning, match=said):
        data = bc.AnnotatedScores.from_long(labels, scores)
    assert data.annotator_names == (" w2", "w1", "w1 ", "w2")
    with pytest.warns(bc.DataWarning, match=said):
        Responses.from_long(labels)


@pytest.mark.parametrize(
    ("ids", "error", "match"),
    [
        ("abc", TypeError, r"item_ids must be a sequence of 3 ids; saw str"),
        (["a", "b"], ValueError, r"item_ids must hold one id per item \(3\); saw 2"),
        (
            ["a", "b", "a"],
            ValueError,
            r"item_ids must name each item once; 1 id\(s\) repeat, e.g. 'a'",
        ),
        # ids are text: 1 and "1" are one id
        ([1, "1", 2], ValueError, r"1 id\(s\) repeat, e.g. '1'"),
    ],
)
def test_item_ids_are_one_distinct_id_per_item(ids, error, match):
    with pytest.raises(error, match=match):
        bc.AnnotatedScores([0.1, 0.5, 0.9], [[0], [1], [1]], item_ids=ids)
    assert bc.AnnotatedScores(
        [0.1, 0.5, 0.9], [[0], [1], [1]], item_ids=[7, 8, 9]
    ).item_ids.tolist() == ["7", "8", "9"]


def test_from_frame_reads_item_ids_from_a_column():
    table = pd.DataFrame(
        {"id": ["q7", 12, "z"], "p": [0.1, 0.5, 0.9], "ann": [0, 1, 1], "dup": ["a", "b", "a"]}
    )
    data = bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], item_id="id")
    assert data.item_ids.tolist() == ["q7", "12", "z"]
    assert bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"]).item_ids is None
    with pytest.raises(
        ValueError, match=r"item id column 'dup' must name each item once; 1 id\(s\) repeat"
    ):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], item_id="dup")
    holed = table.assign(id=["q7", None, "z"])
    with pytest.raises(ValueError, match=r"item id column 'id' has 1 empty cell\(s\)"):
        bc.AnnotatedScores.from_frame(holed, score="p", annotators=["ann"], item_id="id")
    with pytest.raises(ValueError, match=r"column 'ann' is named as annotator and as item id"):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], item_id="ann")
    with pytest.raises(ValueError, match=r"frame has no column\(s\) \['nope'\]"):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], item_id="nope")


def test_item_ids_of_two_shapes_and_a_mixed_item_column():
    with pytest.raises(ValueError, match=r"item_ids must be one-dimensional; saw shape \(3, 1\)"):
        bc.AnnotatedScores([0.1, 0.5, 0.9], [[0], [1], [1]], item_ids=[[1], [2], [3]])
    with pytest.raises(TypeError, match=r"item_ids must be a sequence of 3 ids; saw set"):
        bc.AnnotatedScores([0.1, 0.5, 0.9], [[0], [1], [1]], item_ids={1, 2, 3})
    # items 1 and "1" are two items to pandas, one id as text: the data keep no ids
    labels = pd.DataFrame({"item": [1, "1"], "annotator": ["w", "w"], "label": [0, 1]})
    scores = pd.DataFrame({"item": [1, "1"], "score": [0.2, 0.8]})
    data = bc.AnnotatedScores.from_long(labels, scores)
    assert data.n_items == 2 and data.item_ids is None
