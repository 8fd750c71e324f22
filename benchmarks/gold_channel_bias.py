"""Do the channel fits stay unbiased when the gold is not a simple random sample?

Design (ii) of ``gold_coverage.py`` (three independent judges a = (0.1, 0.15, 0.2),
b = (0.75, 0.85, 0.9), n = 5 000, the "shifted" calibration, population positive rate
0.4405), 300 gold items drawn three ways: at random; by ``select_for_gold`` (probabilities by
the judges' disagreement, a function of the annotations); and stratified by score,
pi = 0.02 + 0.2 z^2 scaled to 300 in expectation.  ``dawid_skene_em`` is fitted with the gold
each time.  Selection on the annotations is ignorable for the likelihood (the model holds
them); selection on the score is not, because the marginal model does not condition on it.
Reported: the mean of each estimate over REPLICATES data sets and its standard error.

    .venv/bin/python benchmarks/gold_channel_bias.py
"""

from __future__ import annotations

import warnings

import numpy as np

import bayescal as bc
from bayescal.exceptions import SaturatedModelWarning
from bayescal.simulate.panels import toy_calibration

REPLICATES = 60
PANEL = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])
N_GOLD = 300


def designs(seed: int):
    simulation = bc.simulate.simulate_annotated(
        5000, PANEL, calibration=toy_calibration("shifted"), seed=seed
    )
    data, labels = simulation.data, simulation.labels
    selection = bc.select_for_gold(data, PANEL, N_GOLD, seed=seed + 1)
    selected = np.full(data.n_items, -1, np.int8)
    selected[selection.items] = labels[selection.items]
    pi = 0.02 + 0.2 * data.scores**2
    pi = pi * N_GOLD / pi.sum()
    drawn = np.random.default_rng([seed, 2]).random(data.n_items) < pi
    return {
        "random": simulation.with_gold(N_GOLD, seed=seed + 1).data,
        "select_for_gold": bc.AnnotatedScores(
            data.scores, data.annotations, gold=selected, gold_weights=selection.inclusion
        ),
        "stratified by score": bc.AnnotatedScores(
            data.scores,
            data.annotations,
            gold=np.where(drawn, labels, -1).astype(np.int8),
            gold_weights=pi,
        ),
    }


def main() -> None:
    estimates = {}
    for seed in range(REPLICATES):
        for name, data in designs(seed).items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SaturatedModelWarning)
                fit = bc.dawid_skene_em(data)
            row = [*fit.channels.a, *fit.channels.b, fit.overall_prevalence]
            estimates.setdefault(name, []).append(row)
    header = ["a0", "a1", "a2", "b0", "b1", "b2", "prevalence"]
    truth = [*PANEL.a, *PANEL.b, 0.4405]
    print(f"{REPLICATES} replicates, {N_GOLD} gold items; mean (standard error)\n")
    print("| gold | " + " | ".join(header) + " |")
    print("|---|" + "---:|" * len(header))
    print("| truth | " + " | ".join(f"{t:.4f}" for t in truth) + " |")
    for name, rows in estimates.items():
        rows = np.array(rows)
        mean, error = rows.mean(axis=0), rows.std(axis=0) / np.sqrt(len(rows))
        cells = " | ".join(f"{m:.4f} ({e:.4f})" for m, e in zip(mean, error))
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
