"""Compiled single-pass kernels of the equal-width binned metrics.

ECE and NC-ECE are sums over items per evaluation bin (paper Eq. 2 and Eq. 7), and the target
of an item (its label, or its corrected label) depends only on its label row.  One pass over
the scores and the label rows therefore gives everything: per (bin, row code) the number of
items, and per bin the sum of the scores; the metric is then a small matrix product
(:meth:`bayescal.correction.PatternBins.moments`).

The pass also checks its input without a branch per item: an item whose score is not in
[0, 1] (NaN included) or whose row holds anything but 0, 1 (or -1 where missing labels are
allowed), or no label at all, is counted in a spare "bad" cell instead of a real one.  A
non-zero bad count makes the caller re-run the plain validators, which raise the usual message
naming the argument and the position.  A score in (1, 1 + 1/M) lands in the spare bin ``M``,
which holds exactly the scores equal to 1 (the last bin's closed end, ``min(floor(z M), M -
1)``) when its score sum equals its count; otherwise it is bad too.

Scores are summed in LANES interleaved accumulators (item i into lane i % LANES) so that
consecutive items do not wait on each other, and from THREADED_FROM items on the two halves of
the items run in two threads.  The order is fixed by n alone, so results are reproducible to
the bit, and the binary-label kernel and the pattern kernel sum in the same order, which keeps
NC-ECE with perfect channels equal to the clean ECE to the last bit.

Numba is imported on first use only (``import bayescal`` stays light), and the compiled code is
cached on disk: a process pays the compilation once per input dtype, not per call.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np

#: Largest K handled here: 3^K row codes per bin (59 049 for K = 10).
MAX_ANNOTATORS = 10
LANES = 4
#: From this many items on, the two halves run in two threads.
THREADED_FROM = 1 << 18


@cache
def _compiled():
    import numba

    @numba.njit(cache=True, nogil=True, inline="always")
    def score_bin(z, n_bins):
        """``floor(z M)`` and whether it is a bin (0..M, the spare M included; NaN is not)."""
        b = np.int64(np.floor(z * n_bins))
        return b, (z == z) & (np.uint64(b) <= np.uint64(n_bins))

    @numba.njit(cache=True, nogil=True)
    def binary_counts(scores, labels, n_bins):
        bad_cell = 2 * (n_bins + 1)
        counts = np.zeros((LANES, bad_cell + 1), dtype=np.int64)
        sums = np.zeros((LANES, n_bins + 2))
        for i in range(scores.shape[0]):
            z = scores[i]
            label = labels[i]
            digit = np.int64(label)
            b, ok = score_bin(z, n_bins)
            ok &= (digit == label) & (np.uint64(digit) <= np.uint64(1))
            lane = i & (LANES - 1)  # LANES is a power of two
            counts[lane, 2 * b + digit if ok else bad_cell] += 1
            sums[lane, b if ok else n_bins + 1] += z
        return counts.sum(axis=0)[:bad_cell].reshape(n_bins + 1, 2), sums[0] + sums[1] + sums[2] + sums[3], counts[:, bad_cell].sum()

    @numba.njit(cache=True, nogil=True)
    def pattern_counts(scores, rows, n_bins, allow_missing):
        n, k = rows.shape
        n_codes = 3**k
        lowest = -1 if allow_missing else 0
        counts = np.zeros((n_bins + 1) * n_codes + 1, dtype=np.int64)
        bad_cell = counts.size - 1
        sums = np.zeros((LANES, n_bins + 2))
        for i in range(n):
            z = scores[i]
            b, ok = score_bin(z, n_bins)
            code = 0
            observed = False
            for j in range(k):
                value = rows[i, j]
                digit = np.int64(value)
                ok &= (digit == value) & (digit >= lowest) & (digit <= 1)
                observed |= digit >= 0
                code = 3 * code + digit + 1
            ok &= observed
            counts[b * n_codes + code if ok else bad_cell] += 1
            sums[i & (LANES - 1), b if ok else n_bins + 1] += z
        return counts[:bad_cell].reshape(n_bins + 1, n_codes), sums[0] + sums[1] + sums[2] + sums[3], counts[bad_cell]

    return binary_counts, pattern_counts


def _in_halves(kernel, scores: np.ndarray, rows: np.ndarray, *options):
    """Run a kernel on each half of the items in its own thread (the kernels release the GIL)
    and add the halves; the split depends on n only, so every kernel sums in the same order."""
    scores, rows = np.ascontiguousarray(scores), np.ascontiguousarray(rows)
    if scores.shape[0] < THREADED_FROM:
        return kernel(scores, rows, *options)
    half = scores.shape[0] // 2
    # A thread per call, not a pool: nothing to go stale in a forked child, and starting one
    # costs microseconds against the milliseconds of a half of 2^18 items or more.
    second = []
    worker = threading.Thread(target=lambda: second.append(kernel(scores[half:], rows[half:], *options)), name="bayescal-kernel")
    worker.start()
    counts, sums, bad = kernel(scores[:half], rows[:half], *options)
    worker.join()
    # A failure in the thread (none is expected of a compiled kernel) is raised here instead.
    more_counts, more_sums, more_bad = second[0] if second else kernel(scores[half:], rows[half:], *options)
    return counts + more_counts, sums + more_sums, bad + more_bad


def binary_bin_counts(scores: np.ndarray, labels: np.ndarray, n_bins: int):
    """``(counts (M, 2) of labels 0 and 1 per bin, score sums (M,))``, or ``None`` for bad input."""
    binary_counts, _ = _compiled()
    return _fold(*_in_halves(binary_counts, scores, labels, n_bins), n_bins)


def bin_pattern_counts(scores: np.ndarray, rows: np.ndarray, n_bins: int, allow_missing: bool):
    """``(counts (M, 3^K) per (bin, row code), score sums (M,))``, or ``None`` for bad input.

    ``code = sum_j (A_ij + 1) 3^(K-1-j)``, as :func:`bayescal.data.count_rows` codes a row."""
    _, pattern_counts = _compiled()
    return _fold(*_in_halves(pattern_counts, scores, rows, n_bins, allow_missing), n_bins)


def _fold(counts: np.ndarray, sums: np.ndarray, bad: int, n_bins: int):
    """Fold the spare bin M (scores equal to 1) into bin M - 1; ``None`` when any item was bad."""
    if bad or sums[n_bins] != counts[n_bins].sum():  # a score in (1, 1 + 1/M) sums above its count
        return None
    folded_counts, folded_sums = counts[:n_bins].copy(), sums[:n_bins].copy()
    folded_counts[-1] += counts[n_bins]
    folded_sums[-1] += sums[n_bins]
    return folded_counts, folded_sums
