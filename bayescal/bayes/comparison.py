"""PSIS-LOO on pattern counts, and model comparison (Vehtari, Gelman and Gabry 2017).

A fit's likelihood runs on pattern rows: row ``r`` stands for ``n_r`` items that gave the same
responses (in the same score group), and leaving out any one of them leaves the same posterior
behind.  So the pointwise leave-one-out quantities are computed once per row and weighted by
its count:

    elpd_loo = sum_r n_r elpd_r,      elpd_r = log sum_s w_rs p(y_r | theta_s) / sum_s w_rs,
    lppd = sum_r n_r log mean_s p(y_r | theta_s),      p_loo = lppd - elpd_loo,
    se = sqrt(N var_n(elpd)),  var_n the count-weighted variance over the N = sum_r n_r items,

with ``w_rs`` the Pareto-smoothed importance ratios ``1 / p(y_r | theta_s)`` (Vehtari, Gelman
and Gabry 2017; Vehtari, Simpson, Gelman, Yao and Gabry 2024).  The item-level values are those
of ArviZ's ``az.loo`` on the items expanded one by one (tested), at the cost of the rows: a
million items in a few hundred rows cost a few hundred smoothings, not a million.

Smoothing (the PSIS paper): the ``M = ceil(min(S / 5, 3 sqrt(S / r_eff)))`` largest ratios are
replaced by the expected order statistics of a generalised Pareto distribution fitted to their
excess over the next largest (Zhang and Stephens 2009, with the weakly informative shape prior
``k <- (M k + 5) / (M + 10)``), and truncated at the largest raw ratio.  ``r_eff`` is taken as 1
(draws treated as independent; NUTS draws of these small models are close to it, and the
tail length it changes moves the estimate little).  The shape ``k`` of every row is kept:
above ``min(1 - 1 / log10 S, 0.7)`` the estimate of that row is unreliable, and
:func:`compare_models` warns.

:func:`compare_models` returns ArviZ's ``az.compare`` table: ``rank``, ``elpd_loo``, ``p_loo``,
``elpd_diff``, ``weight`` (stacking, Yao et al. 2018, with the rows' counts), ``se``, ``dse``,
``warning`` and ``scale``, best model first, and a ``reading`` of each row in words under the
rule of Sivula, Magnusson, Matamoros and Vehtari (2022): a difference below
:data:`ALIKE_ELPD` (4) means the models predict alike, whatever its ``dse``; above it, a
difference beyond 2 ``dse`` is a preference and one within it is not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from .._api import warn_caller
from ..exceptions import SamplingWarning
from .bayes_fit import BayesFit

__all__ = ["PatternLoo", "compare_models", "pareto_smoothed_log_weights", "pattern_loo"]

#: The shape prior's pseudo-observations and their shape (Vehtari et al. 2017, App.).
_PRIOR_OBSERVATIONS, _PRIOR_SHAPE = 10, 0.5
#: Draws below which the Pareto smoothing has too short a tail to fit (its k threshold
#: ``1 - 1 / log10 S`` is then 0.5 or less).
MIN_DRAWS = 100
#: The grid of the Zhang-Stephens estimate: this many points plus the root of the tail length.
_GRID_BASE = 30


@dataclass(frozen=True, eq=False)
class PatternLoo:
    """Count-weighted PSIS-LOO of one fit (module docstring).

    Attributes
    ----------
    elpd_loo, se, p_loo : float
        On the log scale, summed over the fit's items.
    pointwise : ndarray (R,)
        ``elpd_r`` of each pattern row (one item of it).
    counts : ndarray (R,)
        The items of each row.
    pareto_k : ndarray (R,)
        The smoothing's shape estimate of each row.
    good_k : float
        Rows with ``pareto_k`` above it are unreliable: ``min(1 - 1 / log10 S, 0.7)``.
    n_draws : int
    """

    elpd_loo: float
    se: float
    p_loo: float
    pointwise: np.ndarray
    counts: np.ndarray
    pareto_k: np.ndarray
    good_k: float
    n_draws: int

    @property
    def n_items(self) -> int:
        return round(float(self.counts.sum()))

    @property
    def warning(self) -> bool:
        """Whether any row with items has a Pareto ``k`` above :attr:`good_k`."""
        return bool((self.pareto_k[self.counts > 0] > self.good_k).any())


def _generalised_pareto_fit(excess: np.ndarray) -> tuple[float, float]:
    """Shape ``k`` and scale ``sigma`` of a generalised Pareto distribution fitted to sorted
    exceedances (Zhang and Stephens 2009: the posterior mean of their profile likelihood over
    a grid of ``theta = -k / sigma``), with the weakly informative prior on ``k``."""
    n = excess.size
    grid_size = _GRID_BASE + int(np.sqrt(n))
    quartile = excess[int(n / 4 + 0.5) - 1]
    theta = 1.0 / excess[-1] + (1.0 - np.sqrt(grid_size / (np.arange(1, grid_size + 1) - 0.5))) / (
        3.0 * quartile
    )
    shape = np.log1p(-theta[:, None] * excess).mean(axis=1)
    profile = n * (np.log(-theta / shape) - shape - 1.0)
    # each grid point's normalised likelihood: 1 / sum_i exp(l_i - l_j)
    weights = 1.0 / np.exp(profile[None, :] - profile[:, None]).sum(axis=1)
    keep = weights >= 10 * np.finfo(float).eps  # grid points of negligible weight drop out
    weights, theta = weights[keep] / weights[keep].sum(), theta[keep]
    theta_hat = float(np.sum(theta * weights))
    k = float(np.log1p(-theta_hat * excess).mean())
    sigma = -k / theta_hat
    return (n * k + _PRIOR_OBSERVATIONS * _PRIOR_SHAPE) / (n + _PRIOR_OBSERVATIONS), sigma


def pareto_smoothed_log_weights(log_ratios: np.ndarray, r_eff: float = 1.0):
    """Normalised Pareto-smoothed log weights (S, R) of log importance ratios (S, R), and the
    shape ``k`` (R,) of each column (module docstring)."""
    log_ratios = np.asarray(log_ratios, np.float64)
    n_draws = log_ratios.shape[0]
    tail = int(np.ceil(min(0.2 * n_draws, 3.0 * np.sqrt(n_draws / r_eff))))
    smoothed = log_ratios - log_ratios.max(axis=0)  # the largest ratio is 1: exp is safe
    shapes = np.full(log_ratios.shape[1], np.inf)
    for r in range(log_ratios.shape[1]):
        column = smoothed[:, r]
        order = np.argsort(column)
        cutoff = max(column[order[-tail - 1]], np.log(np.finfo(float).tiny))
        in_tail = order[column[order] > cutoff]
        if in_tail.size <= 4:  # too few to fit a tail: left as they are, k unknown
            continue
        excess = np.exp(column[in_tail]) - np.exp(cutoff)
        k, sigma = _generalised_pareto_fit(excess)
        shapes[r] = k
        if not np.isfinite(k):
            continue
        probabilities = (np.arange(in_tail.size) + 0.5) / in_tail.size
        quantiles = (
            sigma * np.expm1(-k * np.log1p(-probabilities)) / k
            if k != 0
            else -sigma * np.log1p(-probabilities)
        )
        # truncated at the largest raw ratio (1 here, log 0)
        column[in_tail] = np.minimum(np.log(quantiles + np.exp(cutoff)), 0.0)
    return smoothed - special.logsumexp(smoothed, axis=0), shapes


def _weighted_se(values: np.ndarray, counts: np.ndarray) -> float:
    """``sqrt(N var_n)`` of item values given per row: ArviZ's ``sqrt(n var(values))``."""
    total = counts.sum()
    mean = np.sum(counts * values) / total
    return float(np.sqrt(total * np.sum(counts * (values - mean) ** 2) / total))


def pattern_loo(fit: BayesFit) -> PatternLoo:
    """Count-weighted PSIS-LOO of ``fit`` (module docstring).

    Parameters
    ----------
    fit : BayesFit

    Returns
    -------
    PatternLoo
    """
    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal BayesFit; saw {type(fit).__name__}")
    if fit.n_draws < MIN_DRAWS:
        raise ValueError(
            f"fit: PSIS-LOO needs at least {MIN_DRAWS} posterior draws to smooth and judge its "
            f"weights; saw {fit.n_draws}"
        )
    log_lik, counts = fit.pointwise_log_likelihood()
    seen = counts > 0  # a complete design's rows never seen carry no item
    log_lik, counts = log_lik[:, seen], counts[seen]
    n_draws = log_lik.shape[0]
    log_weights, shapes = pareto_smoothed_log_weights(-log_lik)
    pointwise = special.logsumexp(log_weights + log_lik, axis=0)
    lppd = special.logsumexp(log_lik, axis=0) - np.log(n_draws)
    elpd = float(np.sum(counts * pointwise))
    return PatternLoo(
        elpd_loo=elpd,
        se=_weighted_se(pointwise, counts),
        p_loo=float(np.sum(counts * lppd)) - elpd,
        pointwise=pointwise,
        counts=counts,
        pareto_k=shapes,
        good_k=min(1.0 - 1.0 / np.log10(n_draws), 0.7),
        n_draws=n_draws,
    )


def _stacking_weights(pointwise: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Stacking weights (Yao et al. 2018) of models' pointwise elpd (M, R) with row counts:
    the simplex point maximising ``sum_r n_r log sum_m w_m exp(elpd_mr)``."""
    n_models = pointwise.shape[0]
    if n_models == 1:
        return np.ones(1)
    shifted = pointwise - pointwise.max(axis=0)

    def loss(z):
        log_w = z - special.logsumexp(z)
        return -np.sum(counts * special.logsumexp(log_w[:, None] + shifted, axis=0))

    best = optimize.minimize(loss, np.zeros(n_models), method="BFGS")
    return special.softmax(best.x)


def _named_fits(fits) -> dict:
    if isinstance(fits, dict):
        named = {str(name): fit for name, fit in fits.items()}
    elif isinstance(fits, (list, tuple)):
        named = {}
        for position, fit in enumerate(fits):
            if not isinstance(fit, BayesFit):
                raise TypeError(
                    f"fits[{position}] must be a bayescal BayesFit; saw {type(fit).__name__}"
                )
            label = (
                fit.model
                if not getattr(fit, "dependent", ())
                else (f"{fit.model} + " + ", ".join(f"{j} ~ {k}" for j, k in fit.dependent))
            )
            if label in named:
                raise ValueError(
                    f"fits: two fits would both be named {label!r}; pass a dict of names to fits"
                )
            named[label] = fit
    else:
        raise TypeError(
            f"fits must be a dict of names to BayesFits, or a list of them; saw {type(fits).__name__}"
        )
    if len(named) < 2:
        raise ValueError(f"fits: comparing needs at least two fits; saw {len(named)}")
    for name, fit in named.items():
        if not isinstance(fit, BayesFit):
            raise TypeError(f"fits[{name!r}] must be a bayescal BayesFit; saw {type(fit).__name__}")
    return named


#: Below this difference in elpd two models predict alike, whatever its standard error: the
#: standard error of a small difference is unreliable (Sivula, Magnusson, Matamoros and
#: Vehtari 2022, "Uncertainty in Bayesian leave-one-out cross-validation based model
#: comparison", arXiv:2008.10296, §5).  Measured: with no dependence in the data, "> 2 dse"
#: alone prefers the independent model in 22% of data sets; this rule in none
#: (benchmarks/RESULTS.md).
ALIKE_ELPD = 4.0
#: How many standard errors of the difference make a preference, above :data:`ALIKE_ELPD`.
DSE_MULTIPLE = 2.0


def comparison_reading(elpd_diff: float, dse: float) -> str:
    """A row of :func:`compare_models` other than the best, in words: how it compares with
    the best model (Sivula et al. 2022).

    ``"predicts alike (difference below 4)"`` when ``elpd_diff < ALIKE_ELPD`` (a tie
    included); else ``"worse (difference of 4 or more, beyond 2 dse)"`` when
    ``elpd_diff > 2 dse``, and ``"not distinguishable (difference within 2 dse)"``
    otherwise."""
    if not (np.isfinite(elpd_diff) and np.isfinite(dse)) or elpd_diff < 0 or dse < 0:
        raise ValueError(
            "elpd_diff and dse must be finite and >= 0 (a row's difference to the best and "
            f"its standard error); saw {elpd_diff!r} and {dse!r}"
        )
    if elpd_diff < ALIKE_ELPD:
        return f"predicts alike (difference below {ALIKE_ELPD:g})"
    if elpd_diff > DSE_MULTIPLE * dse:
        return f"worse (difference of {ALIKE_ELPD:g} or more, beyond {DSE_MULTIPLE:g} dse)"
    return f"not distinguishable (difference within {DSE_MULTIPLE:g} dse)"


def compare_models(fits) -> pd.DataFrame:
    """Compare fits of the same data by count-weighted PSIS-LOO, in ArviZ's layout.

    Parameters
    ----------
    fits : dict of str to BayesFit, or list of BayesFit
        Fits of the same items, whose likelihoods describe the same data: the same pattern
        counts (a Dawid–Skene fit, which ignores the score groups, is not comparable with a
        Hui–Walter fit, whose likelihood is of the patterns given the groups).  A list is
        named by model and dependent pairs.

    Returns
    -------
    pandas.DataFrame
        Indexed by name, best first, with ArviZ's ``az.compare`` columns: ``rank``,
        ``elpd_loo``, ``p_loo``, ``elpd_diff`` (to the best), ``weight`` (stacking), ``se``,
        ``dse`` (the count-weighted standard error of the pointwise differences to the best),
        ``warning`` (a Pareto ``k`` above its threshold), ``scale`` (``"log"``) and
        ``reading``, the row in words under the rule of Sivula et al. (2022)
        (:func:`comparison_reading`): below a difference of 4 the models predict alike; above
        it, beyond 2 ``dse`` the row is worse, within 2 ``dse`` not distinguishable.

    Raises
    ------
    ValueError
        For fits of other data, or fewer than two.

    Notes
    -----
    Nested models meeting data without what the larger adds (a dependent pair fitted to
    judges who err independently): the larger pays for its unneeded parameters, about one
    elpd unit for a pair's two covariances, and the pointwise differences are small and
    alike, so ``dse`` is small too.  The smaller model then comes out ahead by more than two
    ``dse`` in about a quarter of data sets (measured: 22% for a dependent pair;
    ``benchmarks/nested_loo_null.py`` finds 28-34% with exact leave-one-out on nested linear
    models).  That is why ``reading`` applies the rule of Sivula, Magnusson, Matamoros and
    Vehtari (2022): differences below 4 are "the models predict alike", whatever their
    ``dse`` (no dependence: alike in 100% of data sets); a real dependent pair gains tens to
    hundreds (benchmarks/RESULTS.md).
    """
    named = _named_fits(fits)
    first_name, first = next(iter(named.items()))
    for name, fit in named.items():
        if fit.fitted_counts != first.fitted_counts:
            raise ValueError(
                f"fits: {name!r} was fitted to other data than {first_name!r} (their pattern "
                "counts differ; a grouped and an ungrouped model describe different data), so "
                "their LOO values do not compare"
            )
    loos = {name: pattern_loo(fit) for name, fit in named.items()}
    for name, loo in loos.items():
        if loo.warning:
            warn_caller(
                f"compare_models: {name!r} has pattern rows with Pareto k above "
                f"{loo.good_k:.2f}; its LOO estimate is unreliable there (more draws, or a "
                "better-fitting model, help)",
                SamplingWarning,
            )
    order = sorted(loos, key=lambda name: -loos[name].elpd_loo)
    best = loos[order[0]]
    counts = best.counts
    for name in order[1:]:  # fits of the same data have the same rows
        if loos[name].pointwise.shape != best.pointwise.shape:
            raise ValueError(
                f"fits: {name!r} and {order[0]!r} lay their data out in other rows; fit both "
                "with the same data and model family"
            )
    weights = _stacking_weights(np.stack([loos[name].pointwise for name in order]), counts)
    rows = []
    for rank, (name, weight) in enumerate(zip(order, weights)):
        loo = loos[name]
        difference = best.elpd_loo - loo.elpd_loo
        dse = _weighted_se(best.pointwise - loo.pointwise, counts)
        rows.append(
            {
                "rank": rank,
                "elpd_loo": loo.elpd_loo,
                "p_loo": loo.p_loo,
                "elpd_diff": difference,
                "weight": float(weight),
                "se": loo.se,
                "dse": dse,
                "warning": loo.warning,
                "scale": "log",
                "reading": "best" if rank == 0 else comparison_reading(difference, dse),
            }
        )
    return pd.DataFrame(rows, index=order)
