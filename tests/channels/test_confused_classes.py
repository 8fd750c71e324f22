"""Classes every annotator confuses: the likelihood-ratio test of one class fewer finds them,
merges only them, and the merged data's NC-ECE is right where the unmerged one was not;
``AnnotatedScores.merge_classes`` and the tied EM it rests on."""

from dataclasses import replace

import numpy as np
import pytest

import bayescal as bc
from bayescal.channels.confusion_em import confusion_em
from bayescal.simulate import graded_confusion, simulate_classes

GRADES = ["1", "2", "3", "4", "5"]


def _alike(matrices: np.ndarray, who: slice, first: int, second: int) -> np.ndarray:
    """``matrices`` with the annotators ``who`` answering classes ``first`` and ``second``
    alike (both rows their mean)."""
    matrices = matrices.copy()
    mean = (matrices[who, first] + matrices[who, second]) / 2
    matrices[who, first] = matrices[who, second] = mean
    return matrices


def _panel(who: slice, first=3, second=4, *, ordinal=True, seed=3):
    """Three judges grading 1-5 (75% right, near misses likelier) on 2 000 items; ``who``
    answer the two classes alike."""
    matrices = _alike(np.stack([graded_confusion(5, 0.75)] * 3), who, first, second)
    return simulate_classes(
        2000, matrices, separation=2.0, sharpness=1.6, classes=GRADES, ordinal=ordinal, seed=seed
    )


def _merged_truth(simulation, merge):
    return merge.codes[simulation.labels]


def test_classes_every_judge_confuses_are_merged_and_their_nc_ece_comes_right():
    simulation = _panel(slice(None))
    data = simulation.data
    fit = bc.dawid_skene_em(data)
    merge = bc.channels.confused_classes(data, fit)
    assert merge.groups == (("4", "5"),)
    assert merge.data.classes == ("1", "2", "3", "4|5") and merge.data.ordinal
    # the first test kept the tie (p well above the level), the second refused one more
    assert merge.p_values[0] > 0.01 and merge.p_values[1] < 1e-50
    assert merge.dfs == (3 * 4 + 1, 3 * 3 + 1)
    assert merge.fit.classes == merge.data.classes and merge.fit.method == "dawid_skene_em"
    np.testing.assert_array_equal(merge.codes, [0, 1, 2, 3, 3])
    # the fitted split of 4 and 5 follows the noise: NC-ECE off by 0.05 or more; merged, the
    # estimate of the merged scale's ECE is within 0.01 (fixed seed)
    clean = bc.expected_calibration_error(simulation.labels, data.probabilities)
    before = bc.nc_ece_estimate(data, kind="top_label", estimator=fit).estimate
    assert abs(before - clean) > 0.05
    merged_clean = bc.expected_calibration_error(
        _merged_truth(simulation, merge), merge.data.probabilities
    )
    after = bc.nc_ece_estimate(merge.data, kind="top_label", estimator=merge.fit).estimate
    assert abs(after - merged_clean) < 0.01
    assert merge.sentence().startswith("the labels do not tell the classes '4' and '5' apart")
    assert merge.sentence().endswith("so they are merged into '4|5'")


@pytest.mark.parametrize("who", [slice(0, 1), slice(0, 0)], ids=["one judge", "no judge"])
def test_classes_some_judge_tells_apart_are_kept(who):
    data = _panel(who).data
    fit = bc.dawid_skene_em(data)
    merge = bc.channels.confused_classes(data, fit)
    assert merge.groups == () and merge.sentence() is None
    assert merge.data is data and merge.fit is fit and len(merge.p_values) == 1
    assert merge.p_values[0] < 1e-20
    np.testing.assert_array_equal(merge.codes, np.arange(5))


def test_on_an_ordinal_scale_only_adjacent_grades_merge():
    # grades 1 and 5 answered alike by every judge: merged on a nominal scale, not on a scale
    nominal = _panel(slice(None), 0, 4, ordinal=False).data
    assert bc.channels.confused_classes(nominal, bc.dawid_skene_em(nominal)).groups == (("1", "5"),)
    scale = replace(nominal, ordinal=True)
    merge = bc.channels.confused_classes(scale, bc.dawid_skene_em(scale))
    assert merge.groups == () and merge.data is scale and merge.unmerged == ("1", "5")
    assert merge.sentence().endswith(
        "they are not adjacent grades of the scale, so they are not merged"
    )


def test_a_crowd_fit_is_tested_with_its_pooled_workers_and_refitted_alike():
    rng = np.random.default_rng(4)
    matrices = np.stack(
        [graded_confusion(6, accuracy, spread=1e6) for accuracy in rng.uniform(0.6, 0.9, 15)]
    )
    simulation = simulate_classes(
        1500, _alike(matrices, slice(None), 4, 5), separation=2.0, sharpness=1.6, seed=4
    )
    chosen = np.argsort(rng.random((1500, 15)), axis=1)[:, :3]
    kept = np.zeros((1500, 15), bool)
    np.put_along_axis(kept, chosen, True, axis=1)
    data = replace(simulation.data, annotations=np.where(kept, simulation.data.annotations, -1))
    fit = bc.crowd_em(data, smoothing=None, pool=400)  # the workers under 400 labels pooled
    assert fit.pooled
    merge = bc.channels.confused_classes(data, fit)
    assert merge.groups == (("4", "5"),)
    assert merge.fit.method == "crowd_em" and merge.fit.options == fit.options
    assert merge.fit.pooled == fit.pooled and merge.fit.smoothing == 1.0
    # pooled workers count as one matrix: 15 - pooled + 1 matrices of 5 free cells a row
    n_matrices = 15 - len(fit.pooled) + 1
    assert merge.dfs[0] == n_matrices * 5 + 1


def test_the_tied_em_gives_the_classes_of_a_group_one_row():
    data = _panel(slice(0, 0)).data
    tied = confusion_em(data.annotations, 5, tied=[0, 1, 2, 3, 3], n_starts=1)
    np.testing.assert_array_equal(tied.confusion[:, 3], tied.confusion[:, 4])
    free = confusion_em(data.annotations, 5, n_starts=1)
    assert tied.loglik < free.loglik - 50  # these judges tell 4 from 5
    with pytest.raises(ValueError, match="tied must give each of the 5 classes"):
        confusion_em(data.annotations, 5, tied=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="tied: ties rows of the full confusion matrices"):
        confusion_em(data.annotations, 5, tied=[0, 1, 2, 3, 3], structure="one_coin")


def test_bad_input_is_refused_naming_the_argument():
    data = _panel(slice(0, 0)).data
    fit = bc.dawid_skene_em(data)
    with pytest.raises(TypeError, match="data must be an AnnotatedScores"):
        bc.channels.confused_classes(data.annotations, fit)
    binary = bc.AnnotatedScores([0.2, 0.8, 0.6], [[0, 1, 1], [1, 1, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="confused_classes: data are binary"):
        bc.channels.confused_classes(binary, fit)
    with pytest.raises(TypeError, match="fit must be the ConfusionFit of dawid_skene_em or "):
        bc.channels.confused_classes(data, fit.channels)
    other = _panel(slice(0, 0), seed=4).data
    with pytest.raises(ValueError, match="fit: was fitted on other labels"):
        bc.channels.confused_classes(other, fit)
    one_coin = bc.dawid_skene_em(data, structure="one_coin")
    with pytest.raises(ValueError, match="fit: has 'one_coin' confusion matrices"):
        bc.channels.confused_classes(data, one_coin)
    with pytest.raises(ValueError, match="alpha"):
        bc.channels.confused_classes(data, fit, alpha=1.5)


def test_merge_classes_sums_the_probabilities_and_recodes_every_label():
    data = bc.AnnotatedScores(
        [[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]],
        [[0, 3], [2, -1]],
        classes=["a", "b", "c", "d"],
        gold=[1, -1],
        gold_weights=[0.5, np.nan],
        item_ids=["x", "y"],
    )
    merged = data.merge_classes([("d", "b")])
    assert merged.classes == ("a", "b|d", "c") and not merged.ordinal
    np.testing.assert_allclose(merged.scores, [[0.1, 0.6, 0.3], [0.4, 0.4, 0.2]])
    np.testing.assert_array_equal(merged.annotations, [[0, 1], [2, -1]])
    np.testing.assert_array_equal(merged.gold, [1, -1])
    assert merged.gold_weights[0] == 0.5 and list(merged.item_ids) == ["x", "y"]
    assert merged.annotator_names == data.annotator_names


@pytest.mark.parametrize(
    "groups, ordinal, error, message",
    [
        ("bd", False, TypeError, "groups must be a sequence of groups of class names"),
        ([("b",)], False, ValueError, "each group must name two classes or more"),
        ([("b", "e")], False, ValueError, r"\['e'\] are not classes of the data"),
        ([("a", "b"), ("b", "c")], False, ValueError, "groups must be disjoint"),
        ([("a", "c")], True, ValueError, "on an ordinal scale a group must be adjacent grades"),
        ([("a", "b", "c")], False, ValueError, "groups would leave 2 classes"),
    ],
)
def test_merge_classes_refuses_what_it_cannot_merge(groups, ordinal, error, message):
    data = bc.AnnotatedScores(
        [[0.1, 0.2, 0.3, 0.4]], [[0, 3]], classes=["a", "b", "c", "d"], ordinal=ordinal
    )
    with pytest.raises(error, match=message):
        data.merge_classes(groups)


def test_merge_classes_refuses_binary_data():
    with pytest.raises(ValueError, match="merge_classes: data are binary"):
        bc.AnnotatedScores([0.2], [[1]]).merge_classes([("0", "1")])


def test_two_confused_pairs_are_merged_one_test_at_a_time():
    matrices = np.stack([graded_confusion(6, 0.8, spread=1e6)] * 3)
    matrices = _alike(_alike(matrices, slice(None), 0, 1), slice(None), 4, 5)
    data = simulate_classes(3000, matrices, separation=2.0, sharpness=1.6, seed=5).data
    merge = bc.channels.confused_classes(data, bc.dawid_skene_em(data))
    assert merge.groups == (("0", "1"), ("4", "5"))  # in the order of the classes
    assert merge.data.classes == ("0|1", "2", "3", "4|5")
    assert len(merge.p_values) == 3 and merge.p_values[2] < merge.alpha
    np.testing.assert_array_equal(merge.codes, [0, 0, 1, 2, 3, 3])
    assert "the classes '0' and '1'; '4' and '5' apart" in merge.sentence()
    assert merge.sentence().endswith("merged into '0|1', '4|5'")


def test_the_pair_is_read_from_the_rows_whatever_the_classes_proportions():
    # two common classes that the judges often swap (0.7 / 0.24), and two rare ones that every
    # judge answers alike: the rare pair is the one answered alike
    confusion = np.full((5, 5), 0.02)
    np.fill_diagonal(confusion, 0.7)
    confusion[0, :2] = confusion[1, 1::-1] = [0.7, 0.24]
    confusion[3] = confusion[4] = [0.02, 0.02, 0.02, 0.47, 0.47]
    confusion /= confusion.sum(axis=1, keepdims=True)
    simulation = simulate_classes(
        3000, np.stack([confusion] * 3), proportion=[0.35, 0.35, 0.2, 0.05, 0.05], seed=1
    )
    data = simulation.data
    for fit in (bc.dawid_skene_em(data), bc.crowd_em(data)):
        assert bc.channels.confused_classes(data, fit).groups == (("3", "4"),), fit.method


def test_gold_of_both_classes_identifies_their_split_and_takes_a_degree_of_freedom():
    simulation = _panel(slice(None))
    gold = np.full(simulation.data.n_items, -1)
    gold[:300] = simulation.labels[:300]  # grades 4 and 5 among them
    data = replace(simulation.data, gold=gold)
    merge = bc.channels.confused_classes(data, bc.dawid_skene_em(data))
    assert merge.groups == (("4", "5"),)
    assert merge.dfs[0] == 3 * 4  # the proportions' split known from the gold
    np.testing.assert_array_equal(merge.data.gold[:300], np.minimum(simulation.labels[:300], 3))


def test_a_pair_of_three_classes_is_named_not_merged_into_binary_data():
    matrices = _alike(np.stack([graded_confusion(3, 0.8)] * 3), slice(None), 1, 2)
    data = simulate_classes(2000, matrices, classes=["a", "b", "c"], seed=2).data
    merge = bc.channels.confused_classes(data, bc.dawid_skene_em(data))
    assert merge.groups == () and merge.unmerged == ("b", "c") and merge.data is data
    assert merge.sentence().endswith(
        "merging them would leave two classes; analyse them as binary labels"
    )
