"""What gold items cost a fit: the same data with and without 200 gold items, in one run.

Three independent judges (a = (0.1, 0.15, 0.2), b = (0.75, 0.85, 0.9)) on N items (default
5 000) and, for the crowd, ``simulate_crowd(N, 60 workers, 3 labels per item)``.  Each fit runs
once to compile (not timed) and is then timed over REPEATS runs (the median): Dawid–Skene EM,
NUTS (4 chains x 1 000 + 1 000, the flat model and the hierarchical one), and the posterior
push-through of NC-ECE (the rectified estimator with gold, the corrected labels without).

    .venv/bin/python benchmarks/gold_cost.py [N] [REPEATS]
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import bayescal as bc
from bayescal.exceptions import SamplingWarning, SaturatedModelWarning

PANEL = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])


def timed(step, repeats: int) -> float:
    step()  # compiles, warms the caches
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def main(n_items: int, repeats: int) -> None:
    panel = bc.simulate.simulate_annotated(n_items, PANEL, seed=1)
    crowd = bc.simulate.simulate_crowd(n_items, 60, labels_per_item=3, seed=1)
    cases = {"panel": (panel, "dawid_skene"), "crowd": (crowd, "hierarchical_dawid_skene")}
    print(f"{n_items} items, 200 gold items, median of {repeats} runs after one to compile\n")
    print("| data | step | without gold (s) | with gold (s) | ratio |")
    print("|---|---|---:|---:|---:|")
    for name, (simulation, model) in cases.items():
        plain = simulation.data
        gold = simulation.with_gold(200, seed=2).data
        em = bc.crowd_em if name == "crowd" else bc.dawid_skene_em
        fits = {d: bc.fit_bayes(d, model=model, progress=False) for d in (plain, gold)}
        steps = {
            "EM": [lambda d=d, e=em: e(d) for d in (plain, gold)],
            "NUTS": [
                lambda d=d, m=model: bc.fit_bayes(d, model=m, progress=False) for d in (plain, gold)
            ],
            "NC-ECE push-through": [
                lambda d=d, f=fits[d]: bc.nc_ece_posterior(d, f) for d in (plain, gold)
            ],
        }
        for step, (without, with_gold) in steps.items():
            without, with_gold = timed(without, repeats), timed(with_gold, repeats)
            print(
                f"| {name} | {step} | {without:.3f} | {with_gold:.3f} | {with_gold / without:.2f} |"
            )


if __name__ == "__main__":
    with warnings.catch_warnings():
        # said of the fits; the timings are the point here
        for category in (SamplingWarning, SaturatedModelWarning):
            warnings.simplefilter("ignore", category)
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 5000,
            int(sys.argv[2]) if len(sys.argv) > 2 else 3,
        )
