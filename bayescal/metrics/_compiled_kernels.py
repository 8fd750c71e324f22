"""The Numba functions behind :mod:`bayescal.metrics.kernels` (imported only when a kernel first runs).

Everything here is at module level, so that Numba's on-disk cache finds it again in the next
process; no closures (their cached entries can be loaded for one another, see
:func:`pattern_cells`).
"""

from __future__ import annotations

import numba
import numpy as np

#: Interleaved score accumulators (a power of two): consecutive items do not wait on each other.
LANES = 4


@numba.njit(cache=True, nogil=True, inline="always")
def score_bin(z, n_bins):
    """``floor(z M)`` and whether it is a bin (0..M, the spare M included; NaN is not)."""
    b = np.int64(np.floor(z * n_bins))
    return b, (z == z) & (np.uint64(b) <= np.uint64(n_bins))


@numba.njit(cache=True, nogil=True)
def binary_counts(scores, labels, n_bins):
    """Counts per (bin, label) in (M + 1, 2), score sums (M + 2,), number of bad items."""
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
    return (
        counts.sum(axis=0)[:bad_cell].reshape(n_bins + 1, 2),
        sums[0] + sums[1] + sums[2] + sums[3],
        counts[:, bad_cell].sum(),
    )


@numba.njit(cache=True, nogil=True)
def pattern_cells(scores, rows, n_bins):
    """For rows of K annotators (0, 1, or -1 for missing) and scores in [0, 1]: per (bin, row
    code) in (M + 1, 3^K) the item counts, score sums and squared-score sums, per bin (M + 1,)
    the score sums in lanes, as the binary kernel adds them, and the number of bad items.  A
    score of exactly 1 lands in the spare bin M, which the caller folds into bin M - 1.  An item
    whose score is not in [0, 1 + 1/M) or whose row holds another value goes to a spare "bad"
    cell (no branch), so no input writes outside the arrays.

    K is read from ``rows``, not fixed by a closure per K (which unrolled the loop over a row,
    a third faster): Numba's on-disk cache mixed the closures up.  A process that ran K = 3,
    then K = 2, from a cache that several test processes had written crashed in the K = 2
    call ("returned a result with an exception set"); with a fresh cache it did not.  Numba's
    tracker shows the like (github.com/numba/numba/issues/5128: a closure's cached code
    replayed for another closure)."""
    k = rows.shape[1]
    n_codes = 3**k
    size = (n_bins + 1) * n_codes
    counts = np.zeros(size + 1, dtype=np.int64)
    sums = np.zeros(size + 1)
    squares = np.zeros(size + 1)
    bin_sums = np.zeros((LANES, n_bins + 2))
    for i in range(scores.shape[0]):
        z = scores[i]
        b, ok = score_bin(z, n_bins)
        code = 0
        for j in range(k):
            digit = np.int64(rows[i, j]) + 1
            ok &= np.uint64(digit) <= np.uint64(2)
            code = 3 * code + digit
        cell = b * n_codes + code if ok else size
        counts[cell] += 1
        sums[cell] += z
        squares[cell] += z * z
        bin_sums[i & (LANES - 1), b if ok else n_bins + 1] += z
    shape = (n_bins + 1, n_codes)
    return (
        counts[:size].reshape(shape),
        sums[:size].reshape(shape),
        squares[:size].reshape(shape),
        (bin_sums[0] + bin_sums[1] + bin_sums[2] + bin_sums[3])[: n_bins + 1],
        counts[size],
    )
