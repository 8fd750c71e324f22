"""The straddle debiasing of NC-ECE draws: a sum of absolute bin moments without its upward
bias where a bin cannot be told from 0.

``sum_l |r_l|`` is biased upward (``E|r_hat| > |r|``), and for a calibrated predictor no draw
of it ever reaches 0.  Given posterior draws of the bin moments, each bin is treated by
whether it is distinguishable from 0 (Kumar et al. 2019 and Roelofs et al. 2022 debias binned ECE in
the same spirit):

- a bin whose central :data:`STRADDLE_LEVEL` interval of ``r_l`` excludes 0 contributes
  ``|r_l*|`` unchanged;
- a bin whose interval straddles 0 contributes ``sqrt(max(r_l*^2 - 2 sigma_l^2, 0))`` to a
  draw, with ``sigma_l^2`` the variance of its draws: a draw has
  ``E[r_l*^2] ~ r_l^2 + 2 sigma_l^2`` (the sampling noise once in the estimate, once in the
  draw's spread), so this removes the inflation.

The rule (95% straddle test, factor 2) was chosen on development replicates of the paper's toy
study and its coverage then measured on fresh replicates (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["STRADDLE_LEVEL", "debiased_draws"]

#: A bin is debiased when the central interval of its draws of r_l at this level contains 0.
STRADDLE_LEVEL = 0.95


def _straddles(draws: np.ndarray) -> np.ndarray:
    low, high = np.quantile(draws, [(1 - STRADDLE_LEVEL) / 2, (1 + STRADDLE_LEVEL) / 2], axis=0)
    return (low < 0) & (high > 0)


def debiased_draws(draws: np.ndarray) -> np.ndarray:
    """NC-ECE of every draw (S,) of the bin moments ``draws`` (S, M), the bins that cannot be
    told from 0 debiased (module docstring)."""
    shrunk = np.sqrt(np.maximum(draws**2 - 2.0 * draws.var(axis=0), 0.0))
    return np.where(_straddles(draws), shrunk, np.abs(draws)).sum(axis=1)
