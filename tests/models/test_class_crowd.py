"""The multi-class crowd's sparse design and program: the sparse likelihood is the panel's
pattern likelihood, padding adds nothing, a stored design reads back, and the rows' logits
put the own class at 0."""

import numpy as np
import pytest
from bayescal.models import ClassPatternDesign, ClassResponseDesign
from bayescal.models.class_crowd import row_logits

CODES = np.array(
    [
        [0, -1, 2, -1],
        [1, 1, -1, -1],
        [0, -1, 2, -1],  # the first row again: merged and counted
        [-1, 2, 2, 0],
        [-1, -1, -1, 1],
    ]
)
GOLD = np.array([-1, 1, -1, -1, 1])


def _draws(seed=0, n_draws=3, n_annotators=4, n_classes=3):
    rng = np.random.default_rng(seed)
    confusion = rng.dirichlet(np.ones(n_classes), size=(n_draws, n_annotators, n_classes))
    proportion = rng.dirichlet(np.ones(n_classes), size=n_draws)
    return confusion, proportion


@pytest.mark.parametrize("gold", [None, GOLD])
def test_the_sparse_likelihood_is_the_pattern_likelihood(gold):
    sparse = ClassResponseDesign.from_codes(CODES, 3, gold)
    dense = ClassPatternDesign.from_codes(CODES, 3, gold)
    assert sparse.counts.sum() == dense.counts.sum() == 5
    assert sparse.width == 3 and sparse.counts.max() == 2
    confusion, proportion = _draws()
    # the same items' total log-likelihood, row orders aside
    np.testing.assert_allclose(
        sparse.log_prob(confusion, proportion, np) @ sparse.counts,
        dense.log_prob(confusion, proportion, np) @ dense.counts,
        rtol=1e-12,
    )
    np.testing.assert_array_equal(sparse.labels_per_annotator(), [3, 2, 3, 2])
    np.testing.assert_array_equal(dense.labels_per_annotator(), [3, 2, 3, 2])


def test_padded_rows_add_nothing_and_a_stored_design_reads_back():
    design = ClassResponseDesign.from_codes(CODES, 3, GOLD, classes=("a", "b", "c"))
    confusion, proportion = _draws(1)
    padded = design.padded(9)
    assert padded.codes.shape == (9, design.width) and padded.counts[-1] == 0
    np.testing.assert_allclose(
        padded.log_prob(confusion, proportion, np) @ padded.counts,
        design.log_prob(confusion, proportion, np) @ design.counts,
        rtol=1e-12,
    )
    assert padded.layout() == design.layout() == ("class responses", 4, 3, 3, "gold")
    read = ClassResponseDesign.from_constant_data(design.constant_data(), design.classes)
    np.testing.assert_array_equal(read.codes, design.codes)
    np.testing.assert_array_equal(read.gold, design.gold)
    assert read.fitted_counts() == design.fitted_counts()
    assert read.gold_classes().tolist() == [False, True, False]


def test_a_rows_logits_hold_its_own_class_at_zero():
    off = np.arange(1.0, 7.0).reshape(3, 2)  # each row's two other answers
    logits = row_logits(off, np)
    np.testing.assert_array_equal(np.diag(logits), 0.0)
    np.testing.assert_array_equal(logits, [[0, 1, 2], [3, 0, 4], [5, 6, 0]])
