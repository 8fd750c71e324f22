"""The rectified bin means of bayescal against ppi_py's PPI++ mean, bin by bin, in one run.

For each of DESIGNS simulated data sets (three judges, n = 5 000, a given number of random gold
items; half of them with inclusion weights, the gold items drawn with probabilities that grow
with the score), every evaluation bin's rectified mean of bayescal
(``bayescal.correction.known_channels.gold_moments`` at the true channels) is compared with
``ppi_py.ppi_mean_pointestimate`` on the same inputs: the gold items' labels ``Y`` and corrected
labels ``U`` (its ``Yhat``), the other items' ``U`` (``Yhat_unlabeled``).

- Random gold: the largest difference of the point estimates with ppi_py tuning its own lambda
  (equal only if the lambdas are), and, at bayescal's lambda, of the 90% CLT interval's ends
  against ``ppi_mean_ci``.
- Gold with inclusion probabilities: bayescal's estimator is the Hájek form of active
  inference, whose mean of ``U`` runs over all the bin's items
  (``bayescal.correction.rectified``); it equals ``ppi_mean_pointestimate`` with every item
  of the bin as ``Yhat_unlabeled``, the weights ``1/pi`` as ``w`` and bayescal's lambda.  Its
  lambda and standard error are not ppi_py's (ppi_py's assume an independent unlabelled set).

Bins with fewer than ``MIN_BIN_GOLD`` (40) gold items, which use the pooled lambda, are left out.

    pip install ppi-python   # the benchmark environment (benchmarks/requirements.txt)
    python benchmarks/gold_ppi_agreement.py
"""

from __future__ import annotations

import importlib.metadata

import numpy as np
import ppi_py
from scipy import stats

import bayescal as bc
from bayescal.correction.known_channels import correct_annotations, gold_moments
from bayescal.correction.rectified import MIN_BIN_GOLD
from bayescal.metrics.calibration import assign_bins, bin_index

DESIGNS = 20
LEVEL = 0.9
PANEL = bc.Channels([0.1, 0.15, 0.2], [0.75, 0.85, 0.9])


def data_set(seed: int):
    """Three judges on 5 000 items; 400-1 200 gold items, by score-dependent inclusion
    probabilities for odd seeds."""
    simulation = bc.simulate.simulate_annotated(5000, PANEL, seed=seed)
    data = simulation.data
    rng = np.random.default_rng(
        [seed, 1]
    )  # not the simulation's stream: its first draws are the scores
    if seed % 2:
        pi = 0.12 + 0.36 * data.scores
        chosen = rng.random(data.n_items) < pi
        gold = np.where(chosen, simulation.labels, -1)
        return bc.AnnotatedScores(data.scores, data.annotations, gold=gold, gold_weights=pi)
    return simulation.with_gold(int(rng.integers(400, 1200)), seed=seed).data


def main() -> None:
    differences = {"point": 0.0, "lower": 0.0, "upper": 0.0, "weighted point": 0.0}
    compared = {"random": 0, "weighted": 0}
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    for seed in range(DESIGNS):
        data = data_set(seed)
        targets = correct_annotations(data.annotations, PANEL, "iv", None)
        edges = assign_bins(data.scores, 10, "uniform")[1]
        bins = gold_moments(
            data, targets, np.ones(data.n_items, bool), edges, "uniform", "rectified"
        )
        index = bin_index(data.scores, edges, "uniform")
        for b in range(10):
            if bins.gold_counts[b] < MIN_BIN_GOLD:
                continue
            gold = (index == b) & (data.gold >= 0)
            other = (index == b) & (data.gold < 0)
            labelled = (data.gold[gold].astype(float), targets[gold])
            if data.gold_weights is not None:
                theirs = ppi_py.ppi_mean_pointestimate(
                    *labelled,
                    targets[index == b],
                    lam=bins.lambdas[b],
                    w=1.0 / data.gold_weights[gold],
                )
                difference = abs(float(np.ravel(theirs)[0]) - bins.means[b])
                differences["weighted point"] = max(differences["weighted point"], difference)
                compared["weighted"] += 1
                continue
            args = (*labelled, targets[other])
            theirs = float(np.ravel(ppi_py.ppi_mean_pointestimate(*args))[0])
            differences["point"] = max(differences["point"], abs(theirs - bins.means[b]))
            low, high = ppi_py.ppi_mean_ci(*args, alpha=1 - LEVEL, lam=bins.lambdas[b])
            ours = (
                bins.means[b] - z * bins.standard_errors[b],
                bins.means[b] + z * bins.standard_errors[b],
            )
            differences["lower"] = max(differences["lower"], abs(float(np.ravel(low)[0]) - ours[0]))
            differences["upper"] = max(
                differences["upper"], abs(float(np.ravel(high)[0]) - ours[1])
            )
            compared["random"] += 1
    version = importlib.metadata.version("ppi-python")
    print(
        f"ppi-python {version}: {compared['random']} bins of random gold and "
        f"{compared['weighted']} of weighted gold, {DESIGNS} data sets\n"
    )
    print("| gold | quantity | largest absolute difference |")
    print("|---|---|---:|")
    print(f"| random | point estimate (ppi_py tunes its own lambda) | {differences['point']:.2e} |")
    print(f"| random | {LEVEL:.0%} CLT interval, lower end | {differences['lower']:.2e} |")
    print(f"| random | {LEVEL:.0%} CLT interval, upper end | {differences['upper']:.2e} |")
    print(
        "| weighted | point estimate (all the bin's items unlabelled, bayescal's lambda) | "
        f"{differences['weighted point']:.2e} |"
    )


if __name__ == "__main__":
    main()
