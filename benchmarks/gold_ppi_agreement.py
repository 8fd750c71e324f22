"""The rectified bin means of bayescal against ppi_py's PPI++ mean, bin by bin, in one run.

For each of DESIGNS simulated data sets (three judges, n = 5 000, a given number of random gold
items; half of them with inclusion weights, the gold items drawn with probabilities that grow
with the score), every evaluation bin's rectified mean of bayescal
(``bayescal.correction.known_channels.gold_moments`` at the true channels) is compared with
``ppi_py.ppi_mean_pointestimate`` on the same inputs: the gold items' labels ``Y`` and corrected
labels ``U`` (its ``Yhat``), the other items' ``U`` (``Yhat_unlabeled``), the weights ``1/pi``
(``w``).  Reported: the largest difference of the point estimates with ppi_py tuning its own
lambda (equal only if the lambdas are), and, at bayescal's lambda, of the 90% CLT interval's
ends against ``ppi_mean_ci``.  Bins with fewer than 10 gold items (which use the pooled
lambda) are left out.

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
    """Three judges on 5 000 items; 200-600 gold items, by score-dependent inclusion
    probabilities for odd seeds."""
    simulation = bc.simulate.simulate_annotated(5000, PANEL, seed=seed)
    data = simulation.data
    rng = np.random.default_rng(seed)
    if seed % 2:
        pi = 0.03 + 0.09 * data.scores
        chosen = rng.random(data.n_items) < pi
        gold = np.where(chosen, simulation.labels, -1)
        return bc.AnnotatedScores(data.scores, data.annotations, gold=gold, gold_weights=pi)
    return simulation.with_gold(int(rng.integers(200, 600)), seed=seed).data


def main() -> None:
    point, lower, upper, compared = 0.0, 0.0, 0.0, 0
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
            w = None if data.gold_weights is None else 1.0 / data.gold_weights[gold]
            args = (data.gold[gold].astype(float), targets[gold], targets[other])
            theirs = float(np.ravel(ppi_py.ppi_mean_pointestimate(*args, w=w))[0])
            point = max(point, abs(theirs - bins.means[b]))
            low, high = ppi_py.ppi_mean_ci(*args, alpha=1 - LEVEL, lam=bins.lambdas[b], w=w)
            ours = (
                bins.means[b] - z * bins.standard_errors[b],
                bins.means[b] + z * bins.standard_errors[b],
            )
            lower = max(lower, abs(float(np.ravel(low)[0]) - ours[0]))
            upper = max(upper, abs(float(np.ravel(high)[0]) - ours[1]))
            compared += 1
    version = importlib.metadata.version("ppi-python")
    print(f"ppi-python {version}: {compared} bins of {DESIGNS} data sets\n")
    print("| quantity | largest absolute difference |")
    print("|---|---:|")
    print(f"| point estimate (ppi_py tunes its own lambda) | {point:.2e} |")
    print(f"| {LEVEL:.0%} CLT interval, lower end | {lower:.2e} |")
    print(f"| {LEVEL:.0%} CLT interval, upper end | {upper:.2e} |")


if __name__ == "__main__":
    main()
