"""The metric core on 10^7 items against the memory floor and against peers, in one run (issue 9).

The floor is the time to read the inputs once (summing each input array). Peers for the ECE
against binary labels: a plain NumPy two-``bincount`` implementation, netcal's ``ECE`` and an
ECE built on scikit-learn's ``calibration_curve`` (its bins, plus the bin counts it does not
return). NC-ECE has no peer library; it is compared with the floor and with the plain NumPy
route (corrected label of every item, then two ``bincount``s). Every time is the best of
REPEATS runs after one warm-up (the warm-up includes Numba's one-off compilation).

    make bench      # or: .venv-bench/bin/python benchmarks/metric_core.py
"""

import platform
import time

import numpy as np

import bayescal as bc

N = 10_000_000
N_BINS = 10
REPEATS = 5
CHANNELS = bc.Channels(a=np.array([0.08, 0.13, 0.18]), b=np.array([0.84, 0.89, 0.94]))


def best_time(function) -> tuple[float, float | None]:
    """Best of REPEATS runs after a warm-up, and the value (None when it is not a number)."""
    value = function()
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times), float(value) if isinstance(value, float | np.floating) else None


def numpy_two_bincount(targets, scores):
    """The plain NumPy ECE: bin index, then the per-bin sums of targets and scores."""
    index = np.minimum((scores * N_BINS).astype(np.intp), N_BINS - 1)
    target_sums = np.bincount(index, weights=targets, minlength=N_BINS)
    score_sums = np.bincount(index, weights=scores, minlength=N_BINS)
    return np.abs(target_sums - score_sums).sum() / scores.size


def sklearn_ece(labels, scores):
    """ECE from ``sklearn.calibration.calibration_curve`` and the counts of the same bins."""
    from sklearn.calibration import calibration_curve

    prob_true, prob_pred = calibration_curve(labels, scores, n_bins=N_BINS, strategy="uniform")
    edges = np.linspace(0.0, 1.0, N_BINS + 1)
    counts = np.bincount(
        np.searchsorted(edges[1:-1], scores), minlength=N_BINS
    )  # sklearn's own bin ids
    return float(np.sum(counts[counts > 0] / scores.size * np.abs(prob_true - prob_pred)))


def netcal_ece(labels, scores):
    from netcal.metrics import ECE

    return ECE(bins=N_BINS).measure(scores, labels)


def main() -> None:
    rng = np.random.default_rng(0)
    scores = rng.random(N)
    labels = (rng.random(N) < 0.1 + 0.8 * scores).astype(np.int64)
    annotations = np.where(
        rng.random((N, 3)) < np.where(labels[:, None] == 1, CHANNELS.b, CHANNELS.a), 1, 0
    ).astype(np.int8)

    print(
        f"Machine: {platform.machine()}, Python {platform.python_version()}, NumPy {np.__version__}; n = {N:,}, {N_BINS} equal-width bins"
    )
    print(
        f"scores float64, labels int64, annotations int8 (n x 3); best of {REPEATS} after a warm-up\n"
    )
    floor, _ = best_time(lambda: scores.sum() + labels.sum())
    rows = [
        ("memory floor (sum of each input)", floor, None),
        (
            "bayescal.expected_calibration_error",
            *best_time(lambda: bc.expected_calibration_error(labels, scores, n_bins=N_BINS)),
        ),
        ("NumPy two-bincount", *best_time(lambda: numpy_two_bincount(labels, scores))),
        ("netcal ECE", *best_time(lambda: netcal_ece(labels, scores))),
        ("scikit-learn calibration_curve ECE", *best_time(lambda: sklearn_ece(labels, scores))),
    ]
    print("ECE against binary labels")
    _table(rows, floor)

    floor_nc, _ = best_time(lambda: scores.sum() + annotations.sum())
    data = bc.AnnotatedScores(scores, annotations)
    rows = [
        ("memory floor (sum of each input)", floor_nc, None),
        (
            "bayescal.AnnotatedScores (checks and copies the table, once)",
            *best_time(lambda: bc.AnnotatedScores(scores, annotations)),
        ),
        (
            "bayescal.noise_corrected_ece on that table",
            *best_time(lambda: bc.noise_corrected_ece(data, CHANNELS, n_bins=N_BINS)),
        ),
        (
            "NumPy: corrected labels, two-bincount",
            *best_time(
                lambda: numpy_two_bincount(
                    bc.correction.corrected_labels(annotations, CHANNELS), scores
                )
            ),
        ),
    ]
    print("\nNC-ECE, three annotators, known channels")
    _table(rows, floor_nc)


def _table(rows, floor: float) -> None:
    print("| implementation | time (ms) | x floor | value |")
    print("|---|---:|---:|---:|")
    for name, seconds, value in rows:
        shown = "" if value is None else f"{value:.6f}"
        print(f"| {name} | {seconds * 1e3:.1f} | {seconds / floor:.1f} | {shown} |")


if __name__ == "__main__":
    main()
