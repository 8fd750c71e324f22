"""The Numba functions behind :mod:`bayescal._kernels` (imported only when a kernel first runs).

Everything here is at module level, or a closure over plain integers, so that Numba's on-disk
cache finds it again in the next process (a closure over a compiled function would not be).
"""

from __future__ import annotations

from functools import cache

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


@cache
def pattern_kernel(k: int):
    """The kernel for rows of K = k annotators: counts per (bin, row code) in (M + 1, 3^k),
    score sums (M + 2,), number of bad items.  K is a constant of the compiled code, so the loop
    over a row is unrolled (about a third faster than a length read from the array)."""
    n_codes = 3**k

    @numba.njit(cache=True, nogil=True)
    def pattern_counts(scores, rows, n_bins, allow_missing):
        lowest = -1 if allow_missing else 0
        counts = np.zeros((n_bins + 1) * n_codes + 1, dtype=np.int64)
        bad_cell = counts.size - 1
        sums = np.zeros((LANES, n_bins + 2))
        for i in range(scores.shape[0]):
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
        return (
            counts[:bad_cell].reshape(n_bins + 1, n_codes),
            sums[0] + sums[1] + sums[2] + sums[3],
            counts[bad_cell],
        )

    return pattern_counts
