"""simulate_crowd: the design it promises (labels per item, workloads, worker types), labels
that follow the channels, the toy's reference, and the long form."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.simulate.crowds import DEFAULT_WORKER_MIX, WORKER_TYPES


def _labels_per_item(simulation):
    return (simulation.data.annotations != -1).sum(axis=1)


def test_every_item_gets_its_labels_from_different_workers():
    fixed = bc.simulate_crowd(2000, 40, labels_per_item=3, seed=1)
    assert fixed.data.annotations.shape == (2000, 40)
    assert (_labels_per_item(fixed) == 3).all()  # one cell per worker: never the same one twice
    ranged = bc.simulate_crowd(2000, 40, labels_per_item=(1, 5), seed=1)
    counts = _labels_per_item(ranged)
    assert counts.min() == 1 and counts.max() == 5
    assert np.bincount(counts)[1:].min() > 300  # uniform over 1..5: 400 each in expectation
    assert bc.simulate_crowd(50, 4, labels_per_item=4, seed=0).data.annotations.min() >= 0


def test_the_scores_labels_and_reference_are_the_toy_studys():
    crowd = bc.simulate_crowd(1500, 20, condition="nonlinear", seed=3)
    toy = bc.toy_data(1500, condition="nonlinear", seed=3)
    np.testing.assert_array_equal(crowd.data.scores, toy.data.scores)
    np.testing.assert_array_equal(crowd.labels, toy.labels)
    assert crowd.population_ece == toy.population_ece
    assert crowd.population_binned_ece(10) == toy.population_binned_ece(10)


def test_worker_types_are_counted_by_largest_remainder_and_have_their_channels():
    crowd = bc.simulate_crowd(6000, 30, labels_per_item=4, workload="uniform", seed=2)
    types = np.array(crowd.worker_types)
    # 30 x (0.8, 0.1, 0.05, 0.05) = (24, 3, 1.5, 1.5): the tie goes to the first type
    assert [int((types == kind).sum()) for kind in WORKER_TYPES] == [24, 3, 2, 1]
    a, b = crowd.channels.a, crowd.channels.b
    assert (b[types == "good"] - a[types == "good"] > 0.3).all()
    assert (a[types == "spammer"] == b[types == "spammer"]).all()
    assert (b[types == "adversarial"] < a[types == "adversarial"]).all()
    assert crowd.channels.adversarial
    for j in np.flatnonzero(types == "constant"):  # always the same answer
        given = crowd.data.annotations[:, j]
        assert np.unique(given[given >= 0]).size == 1


def test_labels_follow_each_workers_channel():
    """Pooled over the good and adversarial workers, the labels' mean minus its expectation
    a_j + (b_j - a_j) Y_i is within 4 standard errors of 0, for Y = 0 and Y = 1 apart."""
    crowd = bc.simulate_crowd(20000, 25, labels_per_item=3, workload="uniform", seed=4)
    item, worker = np.nonzero(crowd.data.annotations >= 0)
    label = crowd.data.annotations[item, worker]
    y = crowd.labels[item]
    expected = crowd.channels.a[worker] + crowd.channels.gap[worker] * y
    for truth in (0, 1):
        kept = y == truth
        residual = label[kept] - expected[kept]
        standard_error = np.sqrt((expected[kept] * (1 - expected[kept])).sum()) / kept.sum()
        assert abs(residual.mean()) < 4 * standard_error


def test_heavy_tailed_workloads_put_most_labels_on_a_few_workers():
    """Zipf weights over 100 workers: the busiest tenth gives about half the labels (without
    replacement per item, the busiest saturate); a uniform workload gives them about a tenth."""
    shares = {}
    for workload in ("heavy_tailed", "uniform"):
        crowd = bc.simulate_crowd(5000, 100, labels_per_item=3, workload=workload, seed=5)
        per_worker = np.sort((crowd.data.annotations >= 0).sum(axis=0))[::-1]
        shares[workload] = per_worker[:10].sum() / per_worker.sum()
    assert shares["heavy_tailed"] > 0.4 and abs(shares["uniform"] - 0.1) < 0.02


def test_the_same_seed_gives_the_same_crowd_and_another_seed_another():
    first, again = (bc.simulate_crowd(500, 12, seed=7) for _ in range(2))
    np.testing.assert_array_equal(first.data.annotations, again.data.annotations)
    assert first.worker_types == again.worker_types
    other = bc.simulate_crowd(500, 12, seed=8)
    assert not np.array_equal(first.data.annotations, other.data.annotations)


def test_the_long_form_reads_back_as_the_wide_form():
    crowd = bc.simulate_crowd(400, 15, labels_per_item=(2, 4), seed=6)
    labels, scores = crowd.long_tables()
    assert list(labels.columns) == ["item", "annotator", "label"]
    assert len(labels) == int((crowd.data.annotations >= 0).sum())
    assert list(scores.columns) == ["item", "score", "truth"] and len(scores) == 400
    back = bc.AnnotatedScores.from_long(labels, scores)
    np.testing.assert_array_equal(back.annotations, crowd.data.annotations)
    assert back.annotator_names == crowd.data.annotator_names
    np.testing.assert_array_equal(scores["truth"], crowd.labels)
    assert isinstance(labels, pd.DataFrame) and labels["item"].iloc[0] == "i0"


def test_a_single_type_crowd_and_the_default_mix():
    spammers = bc.simulate_crowd(300, 10, worker_mix={"spammer": 1}, seed=0)
    assert set(spammers.worker_types) == {"spammer"} and not spammers.channels.adversarial
    assert sum(DEFAULT_WORKER_MIX.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"n": 0}, ValueError, r"n must be >= 1; saw 0"),
        ({"n_workers": 0}, ValueError, r"n_workers must be >= 1; saw 0"),
        (
            {"labels_per_item": 11},
            ValueError,
            r"labels_per_item must lie in \[1, n_workers = 10\] with low <= high; saw 11",
        ),
        (
            {"labels_per_item": (4, 2)},
            ValueError,
            r"labels_per_item must lie in \[1, n_workers = 10\] with low <= high; saw \(4, 2\)",
        ),
        (
            {"labels_per_item": (1, 2, 3)},
            ValueError,
            r"labels_per_item must be an int or a range \(low, high\); saw \(1, 2, 3\)",
        ),
        ({"workload": "zipf"}, ValueError, r"workload must be one of 'uniform', 'heavy_tailed'"),
        (
            {"worker_mix": {"lazy": 1}},
            ValueError,
            r"worker_mix keys must be among \['good', 'spammer', 'constant', 'adversarial'\]; saw \['lazy'\]",
        ),
        (
            {"worker_mix": {"good": -1, "spammer": 1}},
            ValueError,
            r"worker_mix must hold non-negative shares with a positive sum",
        ),
        (
            {"worker_mix": [0.5, 0.5]},
            TypeError,
            r"worker_mix must be a dict of worker type to share",
        ),
        ({"condition": "flat"}, ValueError, r"condition must be one of"),
        ({"seed": -1}, ValueError, r"seed must be >= 0"),
    ],
)
def test_bad_input_names_the_argument(kwargs, error, message):
    arguments = {"n": 100, "n_workers": 10, **kwargs}
    with pytest.raises(error, match=message):
        bc.simulate_crowd(arguments.pop("n"), arguments.pop("n_workers"), **arguments)
