"""Convergence diagnostics of MCMC draws: rank-normalised split R-hat, bulk and tail ESS.

Vehtari, Gelman, Simpson, Carpenter and Bürkner (2021), "Rank-normalization, folding, and
localization: an improved R-hat for assessing convergence of MCMC", Bayesian Analysis 16(2).
Computed here with NumPy so that a fit needs no ArviZ until its ``InferenceData`` is asked for
(ArviZ costs about two seconds to import); ``tests/external`` checks the values against ArviZ.

For draws ``x`` of one parameter in ``M`` chains of ``N``:

- *split*: each chain is cut into halves (2M chains of ``N // 2``; with ``N`` odd the middle
  draw is left out), so that a trend within a chain shows as disagreement between chains;
- *rank-normalised*: ``z = Phi^-1((r - 3/8) / (S + 1/4))`` with ``r`` the rank among all ``S``
  draws (ties get their average rank) — location and scale free, and finite for any tails;
- *R-hat* ``= max(R(z(x)), R(z(|x - median x|)))`` with ``R = sqrt(var+ / W)``, ``W`` the mean
  within-chain variance and ``var+ = (n - 1)/n W + B/n``, ``B/n`` the variance of the chain means
  (the folded draws catch chains that differ in scale, not location);
- *ESS* ``= M' n / tau`` on the split chains (``M'`` chains of ``n``), ``tau = -1 + 2 sum_t rho_t``
  with the autocorrelations ``rho_t = 1 - (W - mean_m acov_m(t)) / var+`` summed by Geyer's
  initial monotone sequence (pairs ``rho_2k + rho_2k+1`` kept while positive, made
  non-increasing), and ``tau >= 1 / log10(M' n)``; *bulk ESS* is the ESS of ``z(x)``, *tail
  ESS* the smaller ESS of the indicators ``x <= q_5%`` and ``x <= q_95%``.

Constant draws have no variance: their R-hat and ESS are NaN (reported, and flagged by
:func:`bayescal.bayes.bayes_fit.check_diagnostics`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

__all__ = ["diagnostics_table", "ess_bulk", "ess_tail", "rank_normalized_rhat"]


def _split(draws: np.ndarray) -> np.ndarray:
    """(M, N) -> (2M, N // 2): each chain's first and second halves (odd N: middle dropped)."""
    half = draws.shape[1] // 2
    return np.concatenate([draws[:, :half], draws[:, draws.shape[1] - half :]])


def _rank_normalized(draws: np.ndarray) -> np.ndarray:
    """``Phi^-1((r - 3/8) / (S + 1/4))`` of the pooled average ranks ``r``."""
    flat = draws.ravel()
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    # average rank of each run of tied values: the mean of its first and last position (1-based)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], flat.size] - 1
    run_rank = (starts + ends) / 2.0 + 1.0
    ranks = np.empty(flat.size)
    ranks[order] = np.repeat(run_rank, ends - starts + 1)
    return special.ndtri((ranks - 0.375) / (flat.size + 0.25)).reshape(draws.shape)


def _basic_rhat(chains: np.ndarray) -> float:
    n = chains.shape[1]
    within = chains.var(axis=1, ddof=1).mean()
    between_over_n = chains.mean(axis=1).var(ddof=1)
    if within == 0.0:  # every chain stuck at one value (a warm-up of 1 rejects every move)
        return float("inf") if between_over_n > 0.0 else float("nan")
    return float(np.sqrt(((n - 1) / n * within + between_over_n) / within))


def _autocovariance(chains: np.ndarray) -> np.ndarray:
    """Biased autocovariance of each chain at lags ``0 .. n - 1`` (by FFT, zero-padded)."""
    n = chains.shape[1]
    centred = chains - chains.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    return np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=1)[:, :n] / n


def _ess(chains: np.ndarray) -> float:
    """ESS of (M', n) chains by Geyer's initial monotone sequence (module docstring)."""
    m, n = chains.shape
    acov = _autocovariance(chains)
    within = acov[:, 0].mean() * n / (n - 1.0)
    var_plus = within * (n - 1.0) / n + (chains.mean(axis=1).var(ddof=1) if m > 1 else 0.0)
    rho = 1.0 - (within - acov.mean(axis=0)) / var_plus
    rho[0] = 1.0
    # Pairs (rho_2k, rho_2k+1), k = 0, 1, ...: summed while positive, up to the pair that
    # stops the sequence (the first non-positive one, or the last the chain length allows),
    # of which only a positive rho_2k counts, once.
    pairs = rho[: 2 * ((n - 1) // 2)].reshape(-1, 2).sum(axis=1)
    negative = np.flatnonzero(pairs <= 0.0)
    stop = negative[0] if negative.size else pairs.size - 1
    monotone = np.minimum.accumulate(pairs[:stop])  # non-increasing, as Geyer requires
    tau = -1.0 + 2.0 * monotone.sum() + max(rho[2 * stop], 0.0)
    total = m * n
    return float(total / max(tau, 1.0 / np.log10(total)))


def _defined(draws: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(draws))) and float(np.ptp(draws)) > 0.0


def rank_normalized_rhat(draws) -> float:
    """Rank-normalised split R-hat of (chains, draws) of one parameter (NaN if constant)."""
    draws = np.asarray(draws, dtype=np.float64)
    if not _defined(draws):
        return float("nan")
    split = _split(draws)
    folded = np.abs(split - np.median(split))
    values = [_basic_rhat(_rank_normalized(split)), _basic_rhat(_rank_normalized(folded))]
    defined = [value for value in values if not np.isnan(value)]
    return max(defined) if defined else float("nan")


def ess_bulk(draws) -> float:
    """Bulk ESS: the ESS of the rank-normalised split chains (NaN if constant)."""
    draws = np.asarray(draws, dtype=np.float64)
    if not _defined(draws):
        return float("nan")
    return _ess(_rank_normalized(_split(draws)))


def ess_tail(draws) -> float:
    """Tail ESS: the smaller ESS of ``x <= q_5%`` and ``x <= q_95%`` (NaN if constant)."""
    draws = np.asarray(draws, dtype=np.float64)
    if not _defined(draws):
        return float("nan")
    split = _split(draws)
    values = []
    for quantile in np.quantile(draws, [0.05, 0.95]):
        below = (split <= quantile).astype(np.float64)
        values.append(_ess(below) if np.ptp(below) > 0 else float("nan"))
    return float(min(values))


def diagnostics_table(named: dict, divergences: int) -> pd.DataFrame:
    """R-hat, bulk and tail ESS of every parameter of ``named`` (its name as ArviZ names it ->
    its draws (chains, draws)), one row each, with the run's ``divergences`` in every row."""
    # as ArviZ's summary reports them: the effective sample sizes in whole draws; R-hat to
    # three decimals, the precision of its threshold (1.01), where ArviZ shows two
    return pd.DataFrame(
        {
            "r_hat": [np.round(rank_normalized_rhat(draws), 3) for draws in named.values()],
            "ess_bulk": [np.round(ess_bulk(draws)) for draws in named.values()],
            "ess_tail": [np.round(ess_tail(draws)) for draws in named.values()],
            "divergences": divergences,
        },
        index=list(named),
    )
