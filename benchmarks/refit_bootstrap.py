"""The refitting bootstrap's EM refits: one estimator call per replicate against
``bayescal.channels.em.em_refits``, which iterates every replicate's starts together.

Each design draws ``--replicates`` data sets of the same items and missingness (what a
bootstrap of :func:`bayescal.calibration_test` refits), fits each with ``dawid_skene_em`` (10
starts, the defaults) one call at a time and then all together in blocks of
``bayescal.correction.calibration_test.REFIT_BLOCK``, checks that the two give the same
channels, and prints the seconds of each and their ratio.

    .venv/bin/python benchmarks/refit_bootstrap.py --replicates 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import bayescal as bc
from bayescal._api import silenced
from bayescal.channels.em import em_refits
from bayescal.correction.calibration_test import REFIT_BLOCK
from bayescal.exceptions import FIT_WARNINGS

FIVE = bc.Channels([0.10, 0.20, 0.15, 0.30, 0.25], [0.90, 0.80, 0.85, 0.70, 0.75])
WEAK = bc.Channels([0.30, 0.35, 0.25], [0.60, 0.70, 0.55])
DESIGNS = {
    "toy channels, N = 1 000, 40% missing": (bc.toy_data(1).channels, 1000, 0.4),
    "five annotators, N = 2 000, 30% missing": (FIVE, 2000, 0.3),
    "three weak annotators, N = 2 000": (WEAK, 2000, 0.0),
}


def replicates(channels, n_items: int, missing: float, count: int) -> list:
    """``count`` data sets of the same scores and missing labels (every item keeps one)."""
    rng = np.random.default_rng(0)
    hidden = rng.random((n_items, channels.n_annotators)) < missing
    hidden[hidden.all(axis=1), 0] = False
    data = []
    for seed in range(count):
        sim = bc.simulate_annotated(n_items, channels, seed=seed)
        annotations = np.where(hidden, -1, sim.data.annotations).astype(np.int8)
        data.append(bc.AnnotatedScores(sim.data.scores, annotations))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    args = parser.parse_args()
    print("| design | refits | one call each (s) | together (s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, (channels, n_items, missing) in DESIGNS.items():
        data = replicates(channels, n_items, missing, args.replicates)
        start = time.perf_counter()
        alone = []
        for replicate in data:
            with silenced(*FIT_WARNINGS):  # as in the bootstrap
                alone.append(bc.dawid_skene_em(replicate))
        one_each = time.perf_counter() - start
        start = time.perf_counter()
        together = []
        for first in range(0, len(data), REFIT_BLOCK):
            together += em_refits("dawid_skene_em", data[first : first + REFIT_BLOCK])
        batched = time.perf_counter() - start
        for fit, other in zip(alone, together):
            assert (fit.ok and other is not None) or (
                not fit.ok and (other is None or not other.ok)
            )
            if fit.ok:
                np.testing.assert_allclose(other.channels.a, fit.channels.a, rtol=1e-9)
        print(
            f"| {name} | {len(data)} | {one_each:.2f} | {batched:.2f} | {one_each / batched:.1f} |"
        )


if __name__ == "__main__":
    main()
