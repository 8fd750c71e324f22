"""Compiled single-pass kernels of the equal-width binned metrics.

ECE and NC-ECE are sums over items per evaluation bin (paper Eq. 2 and Eq. 7), and the target
of an item (its label, or its corrected label) depends only on its label row.  One pass over
the scores and the label rows therefore gives everything: per (bin, row code) the number of
items and the sums of their scores and squared scores, and per bin the sum of the scores; the
metric is then a sum over cells (:meth:`bayescal.data.CellStatistics.moments`).

Both kernels also check their input without a branch per item: an item whose score is not in
[0, 1] (NaN included) or whose label is not 0 or 1 (for patterns: not 0, 1 or -1) is counted in
a spare "bad" cell instead of a real one, so no input writes outside the arrays, and a non-zero
bad count makes the caller re-run the plain validators, which raise the usual message naming
the argument and the position (the pattern kernel's input, :class:`~bayescal.AnnotatedScores`,
is validated when built, so there it only guards the memory).  A score of exactly 1 lands in the spare bin ``M`` and is folded into the last bin afterwards
(``min(floor(z M), M - 1)``); in the binary kernel a score in (1, 1 + 1/M) lands there too,
which the fold detects (the bin's score sum then exceeds its count) and calls bad.

Scores are summed per bin in LANES interleaved accumulators (item i into lane i % LANES) so that
consecutive items do not wait on each other, and from THREADED_FROM items on the two halves of
the items run in two threads.  The order is fixed by n alone, so results are reproducible to
the bit, and the binary-label kernel and the pattern kernel sum the bins in the same order,
which keeps NC-ECE with perfect channels equal to the clean ECE to the last bit.

The compiled functions live in :mod:`bayescal.metrics._compiled_kernels`, imported on first use only
(``import bayescal`` stays light); Numba caches their machine code on disk, so a process loads
it instead of compiling (once per input dtype and, for patterns, per K).
"""

from __future__ import annotations

import threading

import numpy as np

#: Largest K handled here: 3^K row codes per bin (59 049 for K = 10).
MAX_ANNOTATORS = 10
#: Most (bin, row code) cells of one pattern pass: three dense arrays of 8 MB each, per thread.
MAX_PATTERN_CELLS = 1 << 20
#: From this many items on, the two halves run in two threads.
THREADED_FROM = 1 << 18


def _in_halves(kernel, scores: np.ndarray, rows: np.ndarray, *options) -> tuple:
    """Run a kernel on each half of the items in its own thread (the kernels release the GIL)
    and add the halves' outputs; the split depends on n only, so every kernel sums in the same
    order."""
    scores, rows = np.ascontiguousarray(scores), np.ascontiguousarray(rows)
    if scores.shape[0] < THREADED_FROM:
        return kernel(scores, rows, *options)
    half = scores.shape[0] // 2
    # A thread per call, not a pool: nothing to go stale in a forked child, and starting one
    # costs microseconds against the milliseconds of a half of 2^18 items or more.
    second = []
    worker = threading.Thread(
        target=lambda: second.append(kernel(scores[half:], rows[half:], *options)),
        name="bayescal-kernel",
    )
    worker.start()
    first = kernel(scores[:half], rows[:half], *options)
    worker.join()
    # A failure in the thread (none is expected of a compiled kernel) is raised here instead.
    other = second[0] if second else kernel(scores[half:], rows[half:], *options)
    return tuple(mine + theirs for mine, theirs in zip(first, other))


def _folded(array: np.ndarray, n_bins: int) -> np.ndarray:
    """Bins 0..M-1 of an array indexed by bin first, with the spare bin M added into M - 1."""
    folded = array[:n_bins].copy()
    folded[n_bins - 1] += array[n_bins]
    return folded


def binary_bin_counts(scores: np.ndarray, labels: np.ndarray, n_bins: int):
    """``(counts (M, 2) of labels 0 and 1 per bin, score sums (M,))``, or ``None`` for bad input."""
    from ._compiled_kernels import binary_counts

    counts, sums, bad = _in_halves(binary_counts, scores, labels, n_bins)
    if bad or sums[n_bins] != counts[n_bins].sum():  # a score in (1, 1 + 1/M) sums above its count
        return None
    return _folded(counts, n_bins), _folded(sums, n_bins)


def bin_pattern_cells(scores: np.ndarray, rows: np.ndarray, n_bins: int):
    """Per (bin, row code) the item counts, score sums and squared-score sums, each (M, 3^K),
    and per bin the score sums (M,); ``None`` if a score is not in [0, 1] or a row holds a value
    other than 0, 1 and -1 (the caller names the problem).

    ``code = sum_j (A_ij + 1) 3^(K-1-j)``, as :func:`bayescal.data.cells.count_rows` codes a row."""
    from ._compiled_kernels import pattern_cells

    *outputs, bad = _in_halves(pattern_cells, scores, rows, n_bins)
    counts, bin_sums = outputs[0], outputs[3]
    if bad or bin_sums[n_bins] != counts[n_bins].sum():  # as in binary_bin_counts
        return None
    return tuple(_folded(array, n_bins) for array in outputs)
