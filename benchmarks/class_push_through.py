"""What correcting a multi-class posterior's draws costs: all draws at once (``DrawCorrections``
today: ``screened_correction`` on (S, K, C, C) matrices), against one draw at a time (before
2026-12-06), in one run, and the whole ``nc_ece_posterior`` of each kind.

    .venv/bin/python benchmarks/class_push_through.py

Two data sets of notebook 08: the graded panel (3 judges, 5 grades, 3 000 answers; the default
fit, 4 chains of 1 000 draws) and the 10-class crowd (10 workers, 1 000 images, 3 labels an
image; the hierarchical model, 2 chains of 1 000 draws).  For each: the seconds to correct every
draw's labels on the data's label patterns both ways (the largest difference between the two
is printed, and must be 0 to 1e-12), and the seconds of ``nc_ece_posterior`` per kind.
"""

from __future__ import annotations

import time

import numpy as np

import bayescal as bc
from bayescal.bayes.class_posterior import DrawCorrections, kept_draws
from bayescal.correction.known_confusions import screened_correction


def graded():
    judges = np.stack([bc.simulate.graded_confusion(5, accuracy) for accuracy in (0.7, 0.6, 0.65)])
    simulation = bc.simulate.simulate_classes(
        3000, judges, classes=list("12345"), ordinal=True, sharpness=1.8, seed=8
    )
    return simulation.data, bc.fit_bayes(simulation.data, progress=False)


def crowd():
    rng = np.random.default_rng(9)
    accuracy = rng.uniform(0.5, 0.9, 10)
    matrices = np.stack([bc.simulate.graded_confusion(10, a, spread=1e6) for a in accuracy])
    full = bc.simulate.simulate_classes(1000, matrices, separation=2.0, sharpness=1.6, seed=9)
    chosen = np.argsort(rng.random((1000, 10)), axis=1)[:, :3]
    asked = np.zeros((1000, 10), bool)
    np.put_along_axis(asked, chosen, True, axis=1)
    data = bc.AnnotatedScores(full.data.probabilities, np.where(asked, full.data.annotations, -1))
    fit = bc.fit_bayes(data, model="hierarchical_dawid_skene", num_chains=2, progress=False)
    return data, fit


def main() -> None:
    print(
        "| data | draws | label patterns | at once (s) | one at a time (s) | ratio | largest difference |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    timings = []
    for name, (data, fit) in (("graded panel", graded()), ("10-class crowd", crowd())):
        confusion, proportion = kept_draws(fit, np.arange(data.n_annotators), None)
        corrections = DrawCorrections(data, confusion, proportion, "iv")
        patterns, usable = corrections.patterns, corrections.usable
        began = time.perf_counter()
        at_once = screened_correction(patterns, confusion, usable, "iv", proportion).labels()
        middle = time.perf_counter()
        alone = np.stack(
            [
                screened_correction(patterns, matrices, usable, "iv", pi).labels()
                for matrices, pi in zip(confusion, proportion)
            ]
        )
        end = time.perf_counter()
        difference = np.abs(at_once - alone).max()
        print(
            f"| {name} | {len(confusion)} | {len(patterns)} | {middle - began:.2f} | "
            f"{end - middle:.2f} | {(end - middle) / (middle - began):.1f} | {difference:.1e} |"
        )
        for kind in ("top_label", "classwise"):
            began = time.perf_counter()
            bc.nc_ece_posterior(data, fit, kind=kind)
            timings.append((name, kind, time.perf_counter() - began))
    print("\n| data | kind | nc_ece_posterior (s) |\n|---|---|---:|")
    for name, kind, seconds in timings:
        print(f"| {name} | {kind} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
