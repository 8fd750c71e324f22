"""The most any selection by residual sd can narrow NC-ECE on a design: an oracle ceiling.

``gold_selection.py`` measures ``select_for_gold`` against random gold at the same budget. This
script asks how much narrower *any* design of that kind could make the interval, with
everything a selection has to estimate given by the simulation instead:

- the true channels and the true calibration curve ``c(z) = P(Y = 1 | z)``;
- the rectifier's prediction either the corrected label ``U`` (inverse-variance weights, as
  the estimators use) or the oracle label posterior ``p_i = P(Y_i = 1 | A_i, z_i)``, the best
  prediction there is from the judges and the score;
- ``lambda`` the variance-minimising one of each prediction, from one large sample (no tuning
  noise);
- gold drawn item by item with ``pi_i`` proportional to the true residual sd,
  ``sqrt(p_i (1 - p_i) + (p_i - lambda f_i - dbar_bin)^2)``, either floored at a quarter of
  the uniform rate (``select_for_gold``'s default) or not floored at all, against a simple
  random sample of the same expected size.

Each replicate estimates the 10 equal-width bin means in the Hájek form of
:mod:`bayescal.correction.rectified` (the predictions' mean over all the bin's items plus the
1/pi-weighted, self-normalised mean of ``Y - lambda f`` over its gold), and NC-ECE as the sum
of ``|bin moments|``. Reported: the standard deviation of that NC-ECE over the replicates (what
an interval's width follows) and of the summed bin-moment variance, each as selected / random.
No channel is refitted and no interval is built, so the ratios are the ceiling of what
``select_for_gold`` can reach on the design.

    .venv/bin/python benchmarks/gold_selection_ceiling.py [--replicates R] [--design NAME]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gold_selection import DESIGNS, N_ITEMS  # this folder is on the path of a script

import bayescal as bc
from bayescal.simulate.panels import toy_calibration

BUDGET = 200
N_BINS = 10


def oracle_posterior(annotations, channels, prior):
    """P(Y = 1 | A, z) with the true channels and the true calibration ``prior`` (n,)."""
    a, b = np.asarray(channels.a), np.asarray(channels.b)
    ones = annotations == 1
    log_ratio = np.where(ones, np.log(b / a), np.log((1 - b) / (1 - a))).sum(axis=1)
    log_odds = np.log(prior / (1 - prior)) + log_ratio
    return 1.0 / (1.0 + np.exp(-log_odds))


def inclusion(spread, budget, floor):
    """``clip(c spread, floor, 1)`` summing to ``budget`` (bisection on ``c``)."""
    low, high = 0.0, 1.0
    while np.clip(high * spread, floor, 1.0).sum() < budget:
        high *= 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        low, high = (
            (middle, high) if np.clip(middle * spread, floor, 1).sum() < budget else (low, middle)
        )
    return np.clip(high * spread, floor, 1.0)


def hajek_moments(scores, labels, prediction, lam, index, pi, drawn):
    """The bin moments of one draw of gold (module docstring), and their summed CLT variance."""
    moments, variance = np.zeros(N_BINS), 0.0
    for b in range(N_BINS):
        here = index == b
        gold = here & drawn
        share = here.sum() / N_ITEMS
        w = 1.0 / pi[gold]
        residual = labels[gold] - lam * prediction[gold]
        hajek = (w * residual).sum() / w.sum()
        mean = lam * prediction[here].mean() + hajek
        moments[b] = share * (mean - scores[here].mean())
        variance += share**2 * (w**2 * (residual - hajek) ** 2).sum() / w.sum() ** 2
    return moments, variance


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--design", choices=sorted(DESIGNS), default="ii")
    args = parser.parse_args()
    start = time.perf_counter()
    channels = DESIGNS[args.design]
    calibration = toy_calibration("shifted")

    def sample(seed):
        simulation = bc.simulate.simulate_annotated(
            N_ITEMS, channels, calibration=calibration, seed=seed
        )
        data = simulation.data
        p = oracle_posterior(data.annotations, channels, calibration(data.scores))
        u = bc.correction.corrected_labels(data.annotations, channels)
        return data.scores, simulation.labels.astype(float), {"U": u, "posterior": p}, p

    # lambda of each prediction from one large sample: Cov(Y, f) / Var(f)
    big = [sample(10**6 + k) for k in range(10)]
    lams = {}
    for name in ("U", "posterior"):
        y = np.concatenate([s[1] for s in big])
        f = np.concatenate([s[2][name] for s in big])
        lams[name] = float(np.clip(np.cov(y, f)[0, 1] / np.var(f, ddof=1), 0.0, 1.0))
    arms = [
        (name, rule) for name in ("U", "posterior") for rule in ("random", "floored", "unfloored")
    ]
    ece = {arm: [] for arm in arms}
    summed = {arm: [] for arm in arms}
    uniform = BUDGET / N_ITEMS
    for seed in range(args.replicates):
        scores, labels, predictions, p = sample(seed)
        index = np.minimum((scores * N_BINS).astype(int), N_BINS - 1)
        draw = np.random.default_rng(seed + 7).random(N_ITEMS)  # common random numbers
        for name, rule in arms:
            f, lam = predictions[name], lams[name]
            if rule == "random":
                pi = np.full(N_ITEMS, uniform)
            else:
                predicted = p - lam * f
                centre = np.bincount(index, predicted, N_BINS) / np.bincount(index, None, N_BINS)
                spread = np.sqrt(p * (1 - p) + (predicted - centre[index]) ** 2)
                floor = uniform / 4 if rule == "floored" else 1e-9
                pi = inclusion(np.maximum(spread, 1e-6), BUDGET, floor)
            moments, variance = hajek_moments(scores, labels, f, lam, index, pi, draw < pi)
            ece[name, rule].append(np.abs(moments).sum())
            summed[name, rule].append(variance)
    print(
        f"design {args.design}: a = {np.round(channels.a, 3).tolist()}, b = {np.round(channels.b, 3).tolist()}; "
        f"n = {N_ITEMS}, "
        f"budget {BUDGET}, {args.replicates} replicates; lambda U {lams['U']:.3f}, "
        f"posterior {lams['posterior']:.3f}\n"
    )
    print("| prediction | gold | sd of NC-ECE | / random | summed bin variance | / random |")
    print("|---|---|---:|---:|---:|---:|")
    for name, rule in arms:
        sd = np.std(ece[name, rule], ddof=1)
        base_sd = np.std(ece[name, "random"], ddof=1)
        var, base_var = np.mean(summed[name, rule]), np.mean(summed[name, "random"])
        print(
            f"| {name} | {rule} | {sd:.4f} | {sd / base_sd:.2f} | {var:.2e} | "
            f"{var / base_var:.2f} |"
        )
    print(f"<!-- {time.perf_counter() - start:.0f} s -->")


if __name__ == "__main__":
    main()
