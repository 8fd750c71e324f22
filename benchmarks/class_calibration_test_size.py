"""Size and power of the multi-class calibration test (issue 39 item 4).

    .venv/bin/python benchmarks/class_calibration_test_size.py [--known 1000 --refit 200]
        [--gold 0.1] [--copy] [--kinds top_label]

Design: n = 3 000 items of 3 classes, the predictor's probabilities from a flat Dirichlet;
three graded judges (the first 80% right with near misses more likely, the second perfect on
class 0 and confusing classes 1 and 2, the third a symmetric 70%).  Calibrated: each class
drawn from the item's probabilities; miscalibrated: from those probabilities raised to the
power 1.4 and renormalised (an under-confident predictor).  Reported: the share of data sets
rejected at the 5% level, with known confusion matrices (chi-square reference) and with
matrices by ``dawid_skene_em`` of the same items (refitting parametric bootstrap, 99
replicates each, ``n_starts=2``).  ``--gold SHARE`` gives a random share of the items' true
classes as gold (the rectified cell sums); ``--copy`` makes the third judge copy the first
(the channel model's independence fails).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import bayescal as bc
from bayescal.channels import ConfusionChannels

CONFUSION = np.array(
    [
        [[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]],
        [[1.0, 0.0, 0.0], [0.0, 0.6, 0.4], [0.0, 0.35, 0.65]],
        [[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]],
    ]
)


def simulate(
    seed: int, sharpen: float, gold: float = 0.0, copy: bool = False, n: int = 3000
) -> bc.AnnotatedScores:
    rng = np.random.default_rng(seed)
    probabilities = rng.dirichlet(np.ones(3), n)
    truth = probabilities ** (1 + sharpen)
    truth /= truth.sum(axis=1, keepdims=True)
    labels = np.minimum((rng.random((n, 1)) > truth.cumsum(axis=1)).sum(axis=1), 2)
    cumulative = CONFUSION[:, labels].cumsum(axis=2)
    codes = np.minimum((rng.random((3, n, 1)) > cumulative).sum(axis=2).T, 2)
    if copy:
        codes[:, 2] = codes[:, 0]
    gold_labels = np.where(rng.random(n) < gold, labels, -1) if gold else None
    return bc.AnnotatedScores(probabilities, codes, gold=gold_labels)


def rejection(replicates: int, sharpen: float, kind: str, refit: bool, gold, copy) -> float:
    rejected = 0
    for seed in range(replicates):
        data = simulate(seed, sharpen, gold, copy)
        channels = bc.dawid_skene_em(data, n_starts=2) if refit else ConfusionChannels(CONFUSION)
        result = bc.calibration_test(
            data, channels, kind=kind, n_replicates=99, seed=seed, progress=False
        )
        rejected += result.p_value <= 0.05
    return rejected / replicates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--known", type=int, default=1000)
    parser.add_argument("--refit", type=int, default=200)
    parser.add_argument("--gold", type=float, default=0.0, help="share of items with gold")
    parser.add_argument("--copy", action="store_true", help="the third judge copies the first")
    parser.add_argument("--kinds", nargs="*", default=["top_label", "classwise"])
    args = parser.parse_args()
    warnings.simplefilter("ignore", bc.ChannelWarning)  # the second judge's order is its own
    print("| channels | kind | data | data sets | rejected at 5% | seconds |")
    print("|---|---|---|---:|---:|---:|")
    for refit, replicates in ((False, args.known), (True, args.refit)):
        if not replicates:
            continue
        for kind in args.kinds:
            for sharpen, name in ((0.0, "calibrated"), (0.4, "miscalibrated")):
                count = replicates if sharpen == 0.0 else max(replicates // 5, 20)
                start = time.perf_counter()
                share = rejection(count, sharpen, kind, refit, args.gold, args.copy)
                print(
                    f"| {'EM, refitted' if refit else 'known'} | {kind} | {name} | {count} | "
                    f"{share:.1%} | {time.perf_counter() - start:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
