"""posterior_recalibration: one corrected map per posterior draw, against a per-draw loop.

Run: ``.venv/bin/python benchmarks/bench_recalibration.py`` (prints markdown for
benchmarks/RESULTS.md).

Setting: the paper's toy data (shifted condition, three annotators), a channel sample of
20 000 items for ``fit_bayes`` (4 chains x 250 draws = 1 000 draws), 10^5 fitting items and
10^5 evaluation items.

- bayescal: ``posterior_recalibration`` for each method (the whole call: per-draw corrected
  labels, all maps fitted together by vectorised projected Newton, per-draw NC-ECE with the
  Bayesian bootstrap, plus the Base and Naive rows).
- Baseline: what a user would write without it, a Python loop over the 1 000 draws that builds
  the draw's corrected labels with ``bayescal.correction.corrected_labels`` and fits Platt by
  ``scipy.optimize.minimize`` (L-BFGS-B, analytic gradient, the same box) on the corrected
  loss.  It fits maps only (no evaluation), so the ratio understates the difference.
"""

from __future__ import annotations

import platform
import time
import warnings

import numpy as np
from scipy import optimize, special

import bayescal as bc
from bayescal.bayes.posterior import posterior_recalibration
from bayescal.correction.known_channels import per_annotator_corrections, plugin_prevalence

N_CHANNEL, N_FIT, N_EVAL = 20_000, 100_000, 100_000


def loop_platt(fit, data):
    """Per-draw corrected labels and an L-BFGS-B Platt fit, one draw at a time."""
    a, b, _ = fit.draws()
    logits = special.logit(np.clip(data.scores, 1e-6, 1 - 1e-6))
    features = np.column_stack([logits, np.ones_like(logits)])
    results = np.empty((a.shape[0], 2))
    for s in range(a.shape[0]):
        corrected, observed = per_annotator_corrections(data.annotations, a[s], b[s])
        prevalence = float(plugin_prevalence(corrected, observed))
        targets = bc.correction.corrected_labels(
            data.annotations, bc.Channels(a[s], b[s]), prevalence=prevalence
        )
        moment = targets @ features / targets.size

        def loss_and_gradient(theta, moment=moment):
            eta = features @ theta
            return np.logaddexp(0, eta).mean() - theta @ moment, special.expit(
                eta
            ) @ features / eta.size - moment

        start = results[s - 1] if s else np.array([1.0, 0.0])
        solution = optimize.minimize(
            loss_and_gradient,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=[(-10, 10)] * 2,
            options={"gtol": 1e-10, "ftol": 1e-15},
        )
        results[s] = solution.x
    return results


def main() -> None:
    warnings.simplefilter("ignore", bc.SaturatedModelWarning)
    simulation = bc.toy_data(N_CHANNEL + N_FIT + N_EVAL, condition="shifted", seed=0)
    data = simulation.data
    channel_data = data.subset(np.arange(N_CHANNEL))
    fit_data = data.subset(np.arange(N_CHANNEL, N_CHANNEL + N_FIT))
    eval_data = data.subset(np.arange(N_CHANNEL + N_FIT, data.n_items))
    fit = bc.fit_bayes(channel_data, num_chains=4, num_warmup=500, num_samples=250, progress=False)
    print(
        f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
        f"{fit.n_draws} draws, {N_FIT} fitting items, {N_EVAL} evaluation items\n"
    )

    rows = []
    results = {}
    for method in ("platt", "temperature", "histogram"):
        start = time.perf_counter()
        results[method] = posterior_recalibration(fit_data, eval_data, fit, method=method)
        rows.append((method, time.perf_counter() - start))

    start = time.perf_counter()
    looped = loop_platt(fit, fit_data)
    loop_seconds = time.perf_counter() - start
    ours = results["platt"].maps.parameters
    difference = np.abs(np.column_stack([ours["slope"], ours["intercept"]]) - looped).max()

    print(
        "| method | posterior_recalibration (s) | per-draw loop, maps only (s) | ratio | max abs parameter diff |"
    )
    print("|---|---:|---:|---:|---:|")
    for method, seconds in rows:
        if method == "platt":
            print(
                f"| {method} | {seconds:.1f} | {loop_seconds:.1f} | {loop_seconds / seconds:.1f}x | {difference:.1e} |"
            )
        else:
            print(f"| {method} | {seconds:.1f} | - | - | - |")
    print()
    oracle = simulation.calibration(eval_data.scores)
    print(
        "| method | base NC-ECE [90%] | naive | corrected | oracle ECE base -> corrected (posterior-mean map) |"
    )
    print("|---|---|---|---|---|")
    for method, result in results.items():
        cells = [
            f"{r.median:.4f} [{r.interval[0]:.4f}, {r.interval[1]:.4f}]"
            for r in (result.base, result.naive, result.recalibrated)
        ]
        before = bc.metrics.calibration_moments(oracle, eval_data.scores, n_bins=15).ece
        after = bc.metrics.calibration_moments(
            oracle, result.map.predict(eval_data.scores), n_bins=15
        ).ece
        print(f"| {method} | {' | '.join(cells)} | {before:.4f} -> {after:.4f} |")


if __name__ == "__main__":
    main()
