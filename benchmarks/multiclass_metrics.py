"""Top-label and classwise ECE of multi-class predictions against netcal and plain NumPy, in
one run (issue 39, item 2).

netcal's ``ECE(bins).measure(probabilities, labels)`` is the top-label ECE of equal-width bins;
netcal has no classwise ECE, so the classwise one is set beside a plain NumPy version (one
pair of ``bincount``s per class, the mean over classes).  Each design draws Dirichlet
probabilities over ``C`` classes and labels from a sharpened copy of them (an overconfident
classifier); ``rounded`` rounds every probability to two decimals and renormalises, so many
confidences sit on or next to bin edges.  Reported: each value, the largest difference from
the peer, and the time as the best of REPEATS runs after a warm-up (the warm-up includes
Numba's one-off compilation), as a ratio to the peer.

    .venv-bench/bin/python benchmarks/multiclass_metrics.py
"""

import platform
from functools import partial

import numpy as np
from metric_core import REPEATS, best_time  # this folder is on the path of a script

import bayescal as bc

DESIGNS = [
    # (items, classes, bins, rounded)
    (100_000, 3, 10, False),
    (100_000, 10, 15, False),
    (100_000, 10, 15, True),
    (2_000_000, 5, 10, False),
]


def predictions(n, n_classes, rounded, seed=0):
    rng = np.random.default_rng(seed)
    probabilities = rng.dirichlet(np.full(n_classes, 0.5), n)
    if rounded:
        probabilities = np.round(probabilities, 2) + 1e-3
        probabilities /= probabilities.sum(axis=1, keepdims=True)
    sharpened = probabilities**0.7
    cumulative = np.cumsum(sharpened / sharpened.sum(axis=1, keepdims=True), axis=1)
    labels = (rng.random(n)[:, None] > cumulative).sum(axis=1)
    return np.minimum(labels, n_classes - 1), probabilities


def netcal_top_label(labels, probabilities, n_bins):
    from netcal.metrics import ECE

    return ECE(bins=n_bins).measure(probabilities, labels)


def numpy_classwise(labels, probabilities, n_bins):
    n, n_classes = probabilities.shape
    total = 0.0
    for k in range(n_classes):
        scores = probabilities[:, k]
        index = np.minimum((scores * n_bins).astype(np.intp), n_bins - 1)
        targets = np.bincount(index, weights=labels == k, minlength=n_bins)
        sums = np.bincount(index, weights=scores, minlength=n_bins)
        total += np.abs(targets - sums).sum() / n
    return total / n_classes


def main() -> None:
    import netcal

    print(
        f"Machine: {platform.machine()}, Python {platform.python_version()}, NumPy "
        f"{np.__version__}, netcal {netcal.__version__}; equal-width bins; best of {REPEATS} "
        "after a warm-up\n"
    )
    print(
        "| items | classes | bins | probabilities | kind | bayescal | peer | peer value | "
        "largest difference | bayescal / peer time |"
    )
    print("|---:|---:|---:|---|---|---:|---|---:|---:|---:|")
    for n, n_classes, n_bins, rounded in DESIGNS:
        labels, probabilities = predictions(n, n_classes, rounded)
        for kind, peer_name, peer in (
            ("top_label", "netcal ECE", netcal_top_label),
            ("classwise", "NumPy bincount", numpy_classwise),
        ):
            ours, value = best_time(
                partial(
                    bc.expected_calibration_error, labels, probabilities, n_bins=n_bins, kind=kind
                )
            )
            theirs, peer_value = best_time(partial(peer, labels, probabilities, n_bins))
            print(
                f"| {n:,} | {n_classes} | {n_bins} | {'rounded' if rounded else 'continuous'} | "
                f"{kind} | {value:.10f} | {peer_name} | {peer_value:.10f} | "
                f"{abs(value - peer_value):.1e} | {ours / theirs:.2f} |"
            )


if __name__ == "__main__":
    main()
