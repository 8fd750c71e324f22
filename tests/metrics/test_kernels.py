"""The compiled one-pass route of ECE and NC-ECE equals the NumPy route; the clean-label pass
checks its input as it reads."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.correction.known_channels import corrected_labels
from bayescal.data.cells import tabulate
from bayescal.metrics.calibration import binned_moments
from bayescal.metrics.kernels import (
    MAX_ANNOTATORS,
    MAX_PATTERN_CELLS,
    bin_pattern_cells,
    binary_bin_counts,
)


def _sample(n, k, seed=0):
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    scores[:12] = np.arange(12) / 11  # exact bin edges, 0 and 1 included
    annotations = (rng.random((n, k)) < scores[:, None]).astype(np.int8)
    annotations[rng.random((n, k)) < 0.2] = -1
    annotations[annotations.max(axis=1) < 0, 0] = 1
    return scores, annotations


@pytest.mark.parametrize("n_bins", [1, 7, 11, 15])
def test_binary_ece_equals_the_numpy_moments(n_bins):
    scores, annotations = _sample(3000, 1)
    labels = (annotations[:, 0] == 1).astype(np.int64)
    expected = binned_moments(
        labels.astype(float), scores, n_bins, "uniform"
    ).ece  # sums in another order
    values = {
        bc.expected_calibration_error(labels.astype(dtype), scores, n_bins=n_bins)
        for dtype in (np.int8, np.int64, np.float64, bool)
    }
    assert len(values) == 1 and values.pop() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("k", [1, 3, MAX_ANNOTATORS, MAX_ANNOTATORS + 1])
def test_nc_ece_equals_the_per_item_route(k):
    scores, annotations = _sample(4000, k, seed=k)
    channels = bc.Channels(np.linspace(0.05, 0.3, k), np.linspace(0.95, 0.7, k))
    data = bc.AnnotatedScores(scores, annotations)
    for strategy in ("uniform", "quantile"):
        per_item = binned_moments(corrected_labels(annotations, channels), scores, 10, strategy).ece
        nc = bc.noise_corrected_ece(data, channels, n_bins=10, strategy=strategy)
        assert nc == pytest.approx(per_item, rel=1e-12, abs=1e-15)
        soft = binned_moments(bc.correction.soft_vote_labels(annotations), scores, 10, strategy).ece
        assert bc.correction.soft_vote_ece(data, n_bins=10, strategy=strategy) == pytest.approx(
            soft, rel=1e-12, abs=1e-15
        )


def test_cells_count_every_item_once_on_both_routes():
    scores, annotations = _sample(2000, 4)
    data = bc.AnnotatedScores(scores, annotations)
    compiled = data.cells(n_bins=9)
    numpy_route = data.cells(n_bins=9, strategy="quantile")
    for cells in (compiled, numpy_route):
        assert cells.n_items == 2000
        keys = {(int(b), *p) for b, p in zip(cells.bins, cells.patterns)}
        assert len(keys) == cells.n_cells  # each (bin, pattern) once
        np.testing.assert_allclose(cells.score_sums.sum(), scores.sum(), rtol=1e-13)
        np.testing.assert_allclose(cells.bin_score_sums.sum(), scores.sum(), rtol=1e-13)
        np.testing.assert_allclose(cells.score_squares.sum(), (scores**2).sum(), rtol=1e-13)
    assert {tuple(p) for p in numpy_route.patterns} == {tuple(p) for p in compiled.patterns}
    # the compiled route's cells are those of the NumPy route on equal-width bins
    reference = tabulate(
        scores, annotations, data.annotator_names, groups=np.zeros(2000, np.int64), n_bins=9
    )
    for name in ("groups", "bins", "patterns", "counts"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(reference, name))
    for name in ("score_sums", "score_squares", "bin_score_sums"):
        np.testing.assert_allclose(getattr(compiled, name), getattr(reference, name), rtol=1e-13)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda z, a: (np.where(np.arange(z.size) == 5, np.nan, z), a),
            r"scores must be finite; saw nan at position 5",
        ),
        (
            lambda z, a: (np.where(np.arange(z.size) == 7, 1.5, z), a),
            r"scores must lie in \[0, 1\]; saw 1.5 at position 7",
        ),
        (
            lambda z, a: (z, np.where(np.arange(z.size)[:, None] == 9, 2, a)),
            r"annotations must contain only 0, 1 or -1 \(missing\); saw 2 at row 9",
        ),
        (
            lambda z, a: (z, np.where(np.arange(z.size)[:, None] == 11, -1, a)),
            r"data\.annotations has 1 item\(s\) with no observed annotation \(rows 11\)",
        ),
    ],
)
def test_bad_input_of_nc_ece_gets_the_usual_message(change, message):
    scores, annotations = _sample(50, 3)
    bad_scores, bad_annotations = change(scores, annotations)
    with pytest.raises(ValueError, match=message):
        bc.noise_corrected_ece(
            bc.AnnotatedScores(bad_scores, bad_annotations),
            bc.Channels([0.1, 0.2, 0.1], [0.9, 0.8, 0.85]),
            n_bins=10,
        )


def test_bad_labels_found_by_the_compiled_pass_name_y_true():
    with pytest.raises(ValueError, match=r"y_true must contain only 0 and 1; saw 2 at position 2"):
        bc.expected_calibration_error([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], n_bins=4)
    with pytest.raises(ValueError, match=r"y_prob must be finite; saw nan at position 1"):
        bc.expected_calibration_error([0, 1, 0, 1], [0.1, np.nan, 0.3, 0.4], n_bins=4)


@pytest.mark.parametrize(
    "scores, labels",
    [
        ([0.1, np.nan, 0.3], [1, 0, 1]),
        ([0.1, 1.05, 0.3], [1, 0, 1]),  # in the spare bin's range, but above 1
        ([0.1, -0.01, 0.3], [1, 0, 1]),
        ([0.1, np.inf, 0.3], [1, 0, 1]),
        ([0.1, 0.2, 0.3], [1, 0.5, 1]),
        ([0.1, 0.2, 0.3], [1, -1, 1]),
        ([0.1, 0.2, 0.3], [1, 2, 1]),
    ],
)
def test_the_binary_kernel_refuses_every_kind_of_bad_item(scores, labels):
    assert binary_bin_counts(np.array(scores), np.array(labels), 4) is None


def test_scores_of_exactly_one_go_to_the_last_bin():
    counts, sums, squares, bin_sums = bin_pattern_cells(
        np.array([1.0, 1.0, 0.99, 0.0]), np.array([[1], [0], [1], [0]], np.int8), 4
    )
    # row codes: -1 -> 0, 0 -> 1, 1 -> 2
    assert counts.tolist() == [[0, 1, 0], [0, 0, 0], [0, 0, 0], [0, 1, 2]]
    assert bin_sums.tolist() == [0.0, 0.0, 0.0, 2.99]
    assert sums[3].tolist() == [0.0, 1.0, 1.99] and squares[3, 2] == pytest.approx(1.9801)
    label_counts, label_sums = binary_bin_counts(
        np.array([1.0, 1.0, 0.99, 0.0]), np.array([1, 0, 1, 0]), 4
    )
    assert (
        label_counts.tolist() == [[1, 0], [0, 0], [0, 0], [1, 2]]
        and label_sums.tolist() == bin_sums.tolist()
    )


def test_large_inputs_run_in_two_threads_and_keep_perfect_channels_exact():
    from bayescal.metrics.kernels import THREADED_FROM

    n = THREADED_FROM + 12345
    rng = np.random.default_rng(9)
    scores = rng.random(n)
    labels = (rng.random(n) < scores).astype(np.int8)
    perfect = bc.Channels([0.0, 0.0], [1.0, 1.0])
    clean = bc.expected_calibration_error(labels, scores, n_bins=12)
    data = bc.AnnotatedScores(scores, np.column_stack([labels, labels]))
    assert bc.noise_corrected_ece(data, perfect, n_bins=12) == clean
    assert clean == pytest.approx(
        binned_moments(labels.astype(float), scores, 12, "uniform").ece, rel=1e-12
    )
    bad = scores.copy()
    bad[n - 3] = np.nan  # in the second half, the other thread's
    with pytest.raises(ValueError, match=f"y_prob must be finite; saw nan at position {n - 3}"):
        bc.expected_calibration_error(labels, bad, n_bins=12)


def _ece_in_child(queue):
    from bayescal.metrics.kernels import THREADED_FROM

    rng = np.random.default_rng(1)
    scores = rng.random(THREADED_FROM + 1)
    queue.put(bc.expected_calibration_error((scores > 0.5).astype(int), scores, n_bins=10))


@pytest.mark.filterwarnings(
    "ignore:os.fork:RuntimeWarning"
)  # JAX, if a test imported it, warns on any fork
def test_a_forked_child_computes_with_its_own_threads():
    import multiprocessing

    from bayescal.metrics.kernels import THREADED_FROM

    rng = np.random.default_rng(1)
    scores = rng.random(THREADED_FROM + 1)
    expected = bc.expected_calibration_error(
        (scores > 0.5).astype(int), scores, n_bins=10
    )  # the parent's threads exist now
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_ece_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0, "the child hung or failed"
    assert queue.get(timeout=5) == expected


@pytest.mark.parametrize(
    "scores, row",
    [
        ([0.1, np.nan, 0.3], [1, 0, 1]),
        ([0.1, 1.05, 0.3], [1, 0, 1]),  # in the spare bin's range, but above 1
        ([0.1, -0.01, 0.3], [1, 0, 1]),
        ([0.1, 3.0, 0.3], [1, 0, 1]),  # would index past the arrays
        ([0.1, 0.2, 0.3], [1, 2, 1]),
        ([0.1, 0.2, 0.3], [1, -2, 1]),
    ],
)
def test_the_pattern_kernel_refuses_every_kind_of_bad_item(scores, row):
    rows = np.array([[0, 1], [row[1], 0], [1, 1]], np.int8)
    assert bin_pattern_cells(np.array(scores), rows, 4) is None
    with pytest.raises(ValueError, match="tabulate takes validated items"):
        tabulate(np.array(scores), rows, ("a", "b"), n_bins=4)


def test_many_annotators_and_many_bins_take_the_numpy_route_with_the_same_cells():
    # 201 x 3^10 cells would be three dense arrays of 95 MB each per thread; past
    # MAX_PATTERN_CELLS the rows are counted with NumPy instead, to the same cells.
    rng = np.random.default_rng(4)
    scores = rng.random(500)
    rows = rng.integers(-1, 2, (500, 10)).astype(np.int8)
    names = tuple(f"a{j}" for j in range(10))
    wide = tabulate(scores, rows, names, n_bins=200)
    assert (200 + 1) * 3**10 > MAX_PATTERN_CELLS
    by_numpy = tabulate(scores, rows, names, n_bins=200, groups=np.zeros(500, np.int64))
    assert wide.counts.sum() == 500
    for field in ("bins", "patterns", "counts"):
        np.testing.assert_array_equal(getattr(wide, field), getattr(by_numpy, field))
    np.testing.assert_allclose(wide.score_sums, by_numpy.score_sums, rtol=1e-12)


def test_no_compiled_kernel_is_a_closure():
    """Numba's on-disk cache mixed up closures of one function over different constants (a
    K = 2 call crashed after a K = 3 call, with a cache several processes had written): every
    cached kernel is a module-level function of its arguments only."""
    import numba

    from bayescal.metrics import _compiled_kernels

    kernels = [
        value
        for value in vars(_compiled_kernels).values()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    ]
    assert {kernel.py_func.__name__ for kernel in kernels} >= {"binary_counts", "pattern_cells"}
    for kernel in kernels:
        assert kernel.py_func.__closure__ is None, kernel.py_func.__name__
