"""The second catalogue's dependence rows (``BAD_INPUTS_2.md``, rule 8: copies are named
before any fit, and the dependent pair proposed is the one the data point to).

Row 13, an exact copy of an annotator, ran the whole of NUTS and then failed in the proposal
with "SVD did not converge"; row 14, a copy with 5% of its labels flipped, was never proposed
(the model took the two for the truth and flagged the three other pairs).  The last test is the
rule's property test on designs the catalogue does not have."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayescal as bc
from bayescal.app.model_choice import propose_dependence
from bayescal.channels import CoLabelling
from bayescal.channels.co_labelling import COPY_ITEMS

CHANNELS = bc.Channels([0.1, 0.2, 0.15, 0.1], [0.85, 0.9, 0.8, 0.9])
NAMES = ["a0", "a1", "a2", "a3", "a0copy"]


def _with_copy(flipped: float, n: int = 3000) -> bc.AnnotatedScores:
    """Four independent annotators and ``a0copy``: a0's labels, ``flipped`` of them flipped."""
    annotations = bc.simulate_annotated(n, CHANNELS, seed=3).data.annotations
    copy = annotations[:, 0].copy()
    flip = np.random.default_rng(0).random(n) < flipped
    copy[flip] = 1 - copy[flip]
    scores = bc.simulate_annotated(n, CHANNELS, seed=3).data.scores
    return bc.AnnotatedScores(scores, np.column_stack([annotations, copy]), annotator_names=NAMES)


def _flagged(*pairs) -> pd.DataFrame:
    """A check table flagging ``pairs`` as agreeing more often than the model predicts."""
    return pd.DataFrame(
        {
            "check": "pairwise_agreement",
            "subject": [f"{j}-{k}" for j, k in pairs],
            "observed": 0.9,
            "upper": 0.8,
            "flag": True,
        }
    )


def _quietly(estimator, *args, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator(*args, **options)


def test_row13_an_exact_copy_is_named_before_the_fit_and_the_proposal_still_runs():
    data = _with_copy(0.0)
    with pytest.warns(bc.DependenceWarning) as said:
        independent = bc.dawid_skene_em(data)
    (line,) = [str(w.message) for w in said if w.category is bc.DependenceWarning]
    assert line.startswith(
        "data: a0 and a0copy (3000 items): each pair gave the same label on every item both "
        "labelled, so one copies the other (or neither ever errs)."
    )
    assert line.endswith("leave one of each pair out")
    # what the warning says happens: the model takes the pair's labels for the truth
    assert independent.channels.a[0] == pytest.approx(0.0, abs=1e-6)
    assert independent.channels.b[0] == pytest.approx(1.0, abs=1e-6)
    # a pair fitted at that estimate is refused in one line, not "SVD did not converge"
    with pytest.raises(bc.IdentificationError, match=r"puts a channel on the edge"):
        _quietly(bc.dawid_skene_em, data, dependent=("a1", "a3"))
    counts = data.compress()
    with pytest.warns(bc.DependenceWarning) as proposed:
        propose_dependence(_flagged(("a1", "a3")), counts, "dawid_skene", independent, 0)
    (line,) = [str(w.message) for w in proposed]
    assert "A dependent pair a0 ~ a0copy, though not flagged itself, fits best" in line


def test_row14_a_copy_with_a_few_labels_flipped_is_the_pair_proposed():
    data = _with_copy(0.05)
    independent = _quietly(bc.dawid_skene_em, data)  # not an exact copy: no copy named
    assert CoLabelling.of_cells(data.compress()).copies == ()
    flagged = _flagged(("a1", "a2"), ("a1", "a3"), ("a2", "a3"))  # as the catalogue saw
    with pytest.warns(bc.DependenceWarning) as proposed:
        propose_dependence(flagged, data.compress(), "dawid_skene", independent, 0)
    (line,) = [str(w.message) for w in proposed]
    assert "flags a1 ~ a2, a1 ~ a3, a2 ~ a3" in line
    assert "A dependent pair a0 ~ a0copy, though not flagged itself, fits best" in line
    assert "refit with --dependent a0 a0copy" in line


def test_a_flagged_pair_that_fits_best_is_proposed_without_the_note():
    data = _with_copy(0.05)
    independent = _quietly(bc.dawid_skene_em, data)
    with pytest.warns(bc.DependenceWarning) as proposed:
        propose_dependence(
            _flagged(("a0", "a0copy")), data.compress(), "dawid_skene", independent, 0
        )
    (line,) = [str(w.message) for w in proposed]
    assert "A dependent pair a0 ~ a0copy fits best" in line


def test_a_crowd_names_two_workers_who_copy_each_other():
    crowd = bc.simulate_crowd(600, 12, labels_per_item=3, worker_mix={"good": 1.0}, seed=4)
    annotations = crowd.data.annotations.copy()
    annotations[:, 7] = annotations[:, 2]  # w007 labels what w002 labels, as w002 does
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    copies = CoLabelling.of_responses(data.responses()).copies
    assert [pair[:2] for pair in copies] == [("w002", "w007")]


def test_two_constant_annotators_are_not_called_copies():
    scores = np.linspace(0, 1, 200)
    annotations = np.ones((200, 3), np.int8)
    annotations[:, 2] = np.arange(200) % 2
    data = bc.AnnotatedScores(scores, annotations)
    assert CoLabelling.of_cells(data.compress()).copies == ()


@settings(max_examples=40)
@given(
    n_annotators=st.integers(3, 6),
    source=st.integers(0, 5),
    order=st.randoms(use_true_random=False),
    shared=st.integers(COPY_ITEMS - 5, COPY_ITEMS + 40),
    seed=st.integers(0, 2**16),
)
def test_rule8_copies_are_found_exactly_whatever_the_columns_order(
    n_annotators, source, order, shared, seed
):
    """Random panels (error rates 10-30%, 400 items, a third of labels missing) with one column
    copying another on ``shared`` items (the rest of the copy missing), columns in a random
    order: the copy is named exactly when it shares at least COPY_ITEMS items, and no
    independent pair is named (they disagree on some of their hundred-odd shared items)."""
    rng = np.random.default_rng(seed)
    channels = bc.Channels(rng.uniform(0.1, 0.3, n_annotators), rng.uniform(0.7, 0.9, n_annotators))
    annotations = bc.simulate_annotated(400, channels, seed=seed).data.annotations.copy()
    annotations[rng.random(annotations.shape) < 1 / 3] = -1
    source %= n_annotators
    copy = np.full(400, -1, np.int8)
    seen = np.flatnonzero(annotations[:, source] >= 0)[:shared]
    copy[seen] = annotations[seen, source]
    columns = np.column_stack([annotations, copy])
    names = [f"j{i}" for i in range(n_annotators)] + ["copy"]
    permutation = list(range(n_annotators + 1))
    order.shuffle(permutation)
    data = bc.AnnotatedScores(
        np.linspace(0, 1, 400),
        columns[:, permutation],
        annotator_names=[names[i] for i in permutation],
    )
    found = {frozenset(pair[:2]) for pair in CoLabelling.of_cells(data.compress()).copies}
    expected = {frozenset((f"j{source}", "copy"))} if seen.size >= COPY_ITEMS else set()
    assert found == expected
    assert {frozenset(p[:2]) for p in CoLabelling.of_responses(data.responses()).copies} == found
