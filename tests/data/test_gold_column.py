"""The gold column: human-verified labels on some items, read from arrays and tables, carried
through subsets, cells and responses, and refused by name when malformed (DESIGN §9)."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.data import Responses


def _data(**gold):
    return bc.AnnotatedScores([0.1, 0.6, 0.9, 0.3], [[0, 1], [1, 1], [1, -1], [0, 0]], **gold)


def test_gold_is_stored_read_only_and_counted():
    data = _data(gold=[1, -1, True, 0.0])
    assert data.gold.tolist() == [1, -1, 1, 0]
    assert data.n_gold == 3
    assert not data.gold.flags.writeable
    assert "n_gold=3" in repr(data)
    assert _data().n_gold == 0 and "n_gold" not in repr(_data())


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        (
            [1, 2, -1, 0],
            r"gold must contain only 0, 1 or -1 \(no gold label\); saw 2 at position 1",
        ),
        ([1, np.nan, -1, 0], r"gold must contain only 0, 1 or -1 .*saw nan at position 1"),
        ([1, 0, 1], r"gold must be a 1-D array with one entry per item \(4\); saw shape \(3,\)"),
        (["1", "0", "1", "0"], r"gold must be an array of numbers|gold must hold real numbers"),
    ],
)
def test_bad_gold_is_refused_by_name(gold, message):
    with pytest.raises((ValueError, TypeError), match=message):
        _data(gold=gold)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            [0.5, np.nan, 0.0, 1.0],
            r"gold_weights must be each gold item's inclusion probability, in \(0, 1\]; saw 0\.0 at position 2",
        ),
        ([0.5, np.nan, 1.5, 1.0], r"in \(0, 1\]; saw 1\.5 at position 2"),
        ([-0.5, np.nan, 0.5, 1.0], r"saw -0\.5 at position 0"),
        ([np.nan, 0.3, 0.5, 1.0], r"saw nan at position 0"),
        ([0.5, 0.5], r"gold_weights must have one entry per item \(4\); saw shape \(2,\)"),
    ],
)
def test_bad_gold_weights_are_refused_by_name(weights, message):
    with pytest.raises(ValueError, match=message):
        _data(gold=[1, -1, 1, 0], gold_weights=weights)


def test_gold_weights_need_gold_and_ignore_the_other_items():
    with pytest.raises(
        ValueError, match=r"gold_weights are the inclusion probabilities .*give gold too"
    ):
        _data(gold_weights=[0.5, 0.5, 0.5, 0.5])
    data = _data(gold=[1, -1, 1, 0], gold_weights=[0.5, -7.0, 0.25, 1.0])
    assert np.isnan(data.gold_weights[1])
    assert data.gold_weights[[0, 2, 3]].tolist() == [0.5, 0.25, 1.0]


def test_subset_cells_and_responses_carry_the_gold():
    data = _data(gold=[1, -1, 1, 0], gold_weights=[0.5, np.nan, 0.25, 1.0])
    part = data.subset([2, 3])
    assert part.gold.tolist() == [1, 0] and part.gold_weights.tolist() == [0.25, 1.0]
    assert data.responses().gold.tolist() == [1, -1, 1, 0]
    cells = data.cells(n_bins=2)
    # every item is its own cell here; the gold follows its item's pattern and bin
    by_item = {
        (int(b), tuple(p)): int(g) for b, p, g in zip(cells.bins, cells.patterns, cells.gold)
    }
    assert by_item == {(0, (0, 1)): 1, (1, (1, 1)): -1, (1, (1, -1)): 1, (0, (0, 0)): 0}
    assert cells.gold_counts == (1, 2) and cells.has_gold
    assert not _data().compress().has_gold and _data().compress().gold is None


def test_gold_splits_a_cell_and_pooling_keeps_it_apart():
    # two items with one pattern, one of them gold: two cells, in the compiled and NumPy routes
    data = bc.AnnotatedScores([0.2, 0.3, 0.8], [[1], [1], [0]], gold=[-1, 1, -1])
    for cells in (data.compress(), data.cells(n_bins=3), data.cells(n_bins=3).pooled()):
        rows = {
            (tuple(p), int(g)): int(c) for p, g, c in zip(cells.patterns, cells.gold, cells.counts)
        }
        assert rows == {((1,), -1): 1, ((1,), 1): 1, ((0,), -1): 1}
    assert (
        data.compress().fingerprint
        != bc.AnnotatedScores([0.2, 0.3, 0.8], [[1], [1], [0]]).compress().fingerprint
    )


def test_cells_with_and_without_gold_do_not_combine():
    with_gold = _data(gold=[1, -1, 1, 0]).cells(n_bins=2)
    without = _data().cells(n_bins=2)
    with pytest.raises(ValueError, match=r"all have a gold column or all have none"):
        bc.data.CellStatistics.combine([with_gold, without])
    both = bc.data.CellStatistics.combine([with_gold, with_gold])
    assert both.gold_counts == (2, 4)


def test_from_frame_reads_gold_and_weight_columns():
    table = pd.DataFrame(
        {
            "p": [0.1, 0.6, 0.9, 0.3],
            "ann": [0, 1, 1, 0],
            "human": [1, None, 1, 0],
            "pi": [0.5, None, 0.25, 1.0],
        }
    )
    data = bc.AnnotatedScores.from_frame(
        table, score="p", annotators=["ann"], gold="human", gold_weights="pi"
    )
    assert data.gold.tolist() == [1, -1, 1, 0]
    assert data.gold_weights[[0, 2, 3]].tolist() == [0.5, 0.25, 1.0]
    with pytest.raises(ValueError, match=r"column 'ann' is named as annotator and as gold"):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], gold="ann")
    with pytest.raises(ValueError, match=r"name the gold column too"):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], gold_weights="pi")
    with pytest.raises(ValueError, match=r"gold column 'human' must contain only 0, 1 or NaN"):
        bc.AnnotatedScores.from_frame(
            table.assign(human=[1, 2, None, 0]), score="p", annotators=["ann"], gold="human"
        )


def test_a_gold_label_without_a_score_is_named():
    table = pd.DataFrame({"p": [0.1, None, 0.9], "ann": [0, 1, 1], "human": [1, 0, None]})
    with pytest.raises(
        ValueError,
        match=r"gold column 'human', row 1: a gold label on an item without a score \(score column 'p' is empty there",
    ):
        bc.AnnotatedScores.from_frame(table, score="p", annotators=["ann"], gold="human")


def test_from_long_reads_gold_from_the_score_table():
    simulation = bc.simulate_annotated(200, bc.Channels([0.1, 0.2], [0.9, 0.7]), seed=3).with_gold(
        30, seed=4
    )
    labels, scores = simulation.long_tables()
    data = bc.AnnotatedScores.from_long(labels, scores, gold="gold")
    np.testing.assert_array_equal(data.gold, simulation.data.gold)
    gold = data.gold != -1
    np.testing.assert_array_equal(data.gold[gold], simulation.labels[gold])
    assert data.n_gold == 30


def test_with_gold_draws_a_random_sample_of_the_truth():
    simulation = bc.simulate_annotated(1000, bc.Channels([0.1], [0.9]), seed=3)
    first, again = simulation.with_gold(100, seed=1), simulation.with_gold(100, seed=1)
    np.testing.assert_array_equal(first.data.gold, again.data.gold)
    gold = first.data.gold != -1
    assert gold.sum() == 100
    np.testing.assert_array_equal(first.data.gold[gold], simulation.labels[gold])
    with pytest.raises(
        ValueError, match=r"n_gold must be at most the number of items \(1000\); saw 1001"
    ):
        simulation.with_gold(1001)


def test_responses_validate_their_gold():
    with pytest.raises(ValueError, match=r"gold must be a 1-D array with one entry per item \(3\)"):
        Responses(np.array([0, 1]), np.array([0, 0]), np.array([1, 0]), 3, ("w",), gold=[1, 0])
