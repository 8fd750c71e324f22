"""select_for_gold against random gold at the same budget: coverage and width of the
frequentist intervals of NC-ECE and of the corrected positive rate.

Design (ii) of ``gold_coverage.py``: n = 5 000 items on a uniform score with the toy study's
"shifted" calibration (population binned ECE 0.0799, 10 bins), three conditionally independent
judges a = (0.1, 0.15, 0.2), b = (0.75, 0.85, 0.9); or, with ``--design accurate``, judges
a = (0.05, 0.08, 0.1), b = (0.9, 0.92, 0.95).  Each replicate spends BUDGET gold labels (default 200) two ways:

- random: a simple random sample of BUDGET items (``Simulation.with_gold``);
- selected: Dawid-Skene EM fitted on the judges alone, then ``select_for_gold(data, fit,
  BUDGET)``, the drawn items' labels given with ``gold_weights=selection.inclusion``.

Both are then estimated alike: ``nc_ece_estimate`` (Dawid-Skene EM with the gold, rectified,
200 bootstrap replicates) and ``corrected_rates(...)["positive_rate"]`` (the same bootstrap).
Reported: 90% coverage of the population values, mean widths, their ratio, and the mean of
``selection.best_variance_ratio`` (the most a design by residual sd can cut a mean's variance).

    .venv/bin/python benchmarks/gold_selection.py [--replicates R] [--budget BUDGET] [--design NAME]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import bayescal as bc
from bayescal.exceptions import SaturatedModelWarning
from bayescal.simulate.panels import toy_calibration

N_ITEMS = 5000
LEVEL = 0.9
#: Design (ii) of ``gold_coverage.py``, and a panel of judges who agree more often (each right
#: on 90-95% of the items), where a disagreement is rarer and so tells more.
DESIGNS = {
    "ii": bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9]),
    "accurate": bc.Channels([0.05, 0.08, 0.1], [0.9, 0.92, 0.95]),
}
POPULATION_ECE = 0.0799
#: E[P(Y = 1 | Z)] over the uniform score, by the midpoint rule on a fine grid.
POPULATION_RATE = float(np.mean(toy_calibration("shifted")((np.arange(10**6) + 0.5) / 10**6)))


def arms(seed: int, budget: int, panel: bc.Channels):
    """The random-gold and the selected-gold data sets of one replicate, and the selection."""
    simulation = bc.simulate.simulate_annotated(
        N_ITEMS, panel, calibration=toy_calibration("shifted"), seed=seed
    )
    random = simulation.with_gold(budget, seed=seed + 1).data
    data = simulation.data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SaturatedModelWarning)  # three judges, no gold: saturated
        fit = bc.dawid_skene_em(data)
    selection = bc.select_for_gold(data, fit, budget, seed=seed + 1)
    gold = np.full(N_ITEMS, -1, dtype=np.int8)
    gold[selection.items] = simulation.labels[selection.items]
    selected = bc.AnnotatedScores(
        data.scores, data.annotations, gold=gold, gold_weights=selection.inclusion
    )
    return {"random": random, "selected": selected}, selection


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--design", choices=sorted(DESIGNS), default="ii")
    args = parser.parse_args()
    start = time.perf_counter()
    results = {"random": [], "selected": []}
    ratios, drawn = [], []
    for seed in range(args.replicates):
        data_sets, selection = arms(seed, args.budget, DESIGNS[args.design])
        ratios.append(selection.best_variance_ratio)
        drawn.append(selection.items.size)
        for name, data in data_sets.items():
            with warnings.catch_warnings():
                # three judges and the gold: the saturation note says nothing of the interval
                warnings.simplefilter("ignore", SaturatedModelWarning)
                ece = bc.nc_ece_estimate(data, seed=seed)
                rates = bc.correction.corrected_rates(data, seed=seed)
            low, high = rates.intervals["positive_rate"]
            results[name].append([*ece.interval, low, high])
    print(
        f"design {args.design} (a = {DESIGNS[args.design].a.tolist()}, "
        f"b = {DESIGNS[args.design].b.tolist()}); population positive rate {POPULATION_RATE:.4f}; n = {N_ITEMS}, budget {args.budget} gold labels ({np.mean(drawn):.0f} drawn on "
        f"average by select_for_gold), {args.replicates} replicates, {LEVEL:.0%} intervals; "
        f"mean best variance ratio of the selection {np.mean(ratios):.2f}\n"
    )
    print("| gold | NC-ECE coverage | NC-ECE width | rate coverage | rate width |")
    print("|---|---:|---:|---:|---:|")
    widths = {}
    for name, rows in results.items():
        rows = np.array(rows)
        ece_cover = np.mean((rows[:, 0] <= POPULATION_ECE) & (POPULATION_ECE <= rows[:, 1]))
        rate_cover = np.mean((rows[:, 2] <= POPULATION_RATE) & (POPULATION_RATE <= rows[:, 3]))
        widths[name] = ((rows[:, 1] - rows[:, 0]).mean(), (rows[:, 3] - rows[:, 2]).mean())
        print(
            f"| {name} | {ece_cover:.1%} | {widths[name][0]:.4f} | {rate_cover:.1%} | "
            f"{widths[name][1]:.4f} |"
        )
    ece_ratio = widths["selected"][0] / widths["random"][0]
    rate_ratio = widths["selected"][1] / widths["random"][1]
    print(f"\nwidth selected / random: NC-ECE {ece_ratio:.2f}, positive rate {rate_ratio:.2f}")
    print(f"<!-- {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
