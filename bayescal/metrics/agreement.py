"""Agreement between judges and the statistics of checking one against labels.

A *judge* (a model or a person) gives each item a verdict: 1 (pass / positive), 0 (fail /
negative), or an explicit abstention, coded :data:`ABSTAIN` (-1), "cannot determine".  Trusted
labels are 0/1.  Here: Cohen's kappa on the decided subset, with a row-resampling bootstrap
interval; Wilson intervals for proportions; the label-noise ceiling on measured accuracy; the
test of whether two judges fail independently; McNemar's exact test; the two-sample KS test;
Holm–Sidak step-down thresholds; Krippendorff's alpha.  The error rates of a judge and the
calibration record are in :mod:`bayescal.metrics.record`, the density threshold for anomaly triage in
:mod:`bayescal.metrics.triage`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import DEFAULT_LEVEL, Interval, Result, moved_names, old_spellings, warn_caller
from .._validation import ABSTAIN

__all__ = [
    "ABSTAIN",
    "HolmSidak",
    "IndependenceCheck",
    "KSResult",
    "KappaInterval",
    "NoiseCorrectedAccuracy",
    "accuracy_under_label_noise",
    "cohens_kappa",
    "holm_sidak",
    "independence_check",
    "kappa_interval",
    "krippendorff_alpha",
    "ks_two_sample",
    "mcnemar_exact",
    "wilson_interval",
]


def _paired(first, first_name, second, second_name):
    a = v.as_verdicts(first, first_name)
    b = v.as_verdicts(second, second_name)
    v.check_same_length(a, first_name, b, second_name)
    return a, b


def _kappa_from_table(table: np.ndarray) -> np.ndarray:
    """Kappa of 2x2 tables (..., 2, 2) of counts; NaN where p_e = 1 (undefined)."""
    n = table.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (table[..., 0, 0] + table[..., 1, 1]) / n
        first, second = table.sum(axis=-1) / n[..., None], table.sum(axis=-2) / n[..., None]
        chance = (first * second).sum(axis=-1)
        return np.where(chance < 1.0, (observed - chance) / (1.0 - chance), np.nan)


def _decided_table(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    decided = (a != ABSTAIN) & (b != ABSTAIN)
    return np.bincount(2 * a[decided] + b[decided], minlength=4).reshape(2, 2).astype(np.float64)


@old_spellings(renamed={"a": "rater1", "b": "rater2"})
def cohens_kappa(rater1, rater2) -> float:
    """Cohen's kappa on the decided subset (Cohen 1960).

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the observed agreement and
    ``p_e = p_+a p_+b + p_-a p_-b`` the chance agreement from the two raters' own marginals,
    over the items both raters decided.

    Parameters
    ----------
    rater1, rater2 : array_like of int, shape (n,)
        0/1 verdicts; -1 (:data:`ABSTAIN`) for an abstention, left out.

    Raises
    ------
    ValueError
        When no item is decided by both, or every decided item is in one category (p_e = 1:
        kappa is undefined, not 0 or 1).
    """
    a, b = _paired(rater1, "rater1", rater2, "rater2")
    table = _decided_table(a, b)
    if table.sum() == 0:
        raise ValueError("rater1 and rater2 have no item that both decided; kappa is undefined")
    kappa = float(_kappa_from_table(table))
    if np.isnan(kappa):
        raise ValueError(
            "kappa is undefined: every decided item falls in one category for both raters (p_e = 1)"
        )
    return kappa


@dataclass(frozen=True, repr=False)
class KappaInterval(Result):
    """Cohen's kappa with a percentile bootstrap interval over resampled rows."""

    estimate: float
    lower: float
    upper: float
    level: float
    n_boot: int
    n_valid: int
    method: str = (
        "percentile bootstrap, rows resampled with replacement; replicates with p_e = 1 dropped"
    )


@old_spellings(renamed={"a": "rater1", "b": "rater2"})
def kappa_interval(rater1, rater2, *, n_boot=2000, level=DEFAULT_LEVEL, seed=0) -> KappaInterval:
    """Cohen's kappa with a row-resampling percentile bootstrap interval (Efron 1979).

    Each of ``n_boot`` replicates draws the n rows with replacement and recomputes kappa on its
    decided subset.  A replicate with ``p_e = 1`` (every draw in one category) has no kappa: it
    is dropped, not clamped, and ``n_valid`` says how many survived; a count far below
    ``n_boot`` means the sample is too small for the estimate.  Resampling rows is drawing the
    counts of the 2x2 table (and of undecided rows) from a multinomial, which is done here.
    """
    a, b = _paired(rater1, "rater1", rater2, "rater2")
    n_boot = v.as_int(n_boot, "n_boot", minimum=1)
    level = v.as_open_probability(level, "level")
    estimate = cohens_kappa(a, b)
    cells = np.append(_decided_table(a, b).ravel(), a.size - _decided_table(a, b).sum())
    draws = np.random.default_rng(v.as_seed(seed)).multinomial(a.size, cells / a.size, size=n_boot)
    kappas = _kappa_from_table(draws[:, :4].reshape(-1, 2, 2).astype(np.float64))
    valid = kappas[~np.isnan(kappas)]
    if valid.size == 0:
        raise ValueError(
            f"no bootstrap replicate of {n_boot} had a defined kappa: the sample is too small for an interval"
        )
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(valid, [tail, 1.0 - tail])
    return KappaInterval(estimate, float(lower), float(upper), level, n_boot, int(valid.size))


# --------------------------------------------------------------------------- intervals and noise


@old_spellings()
def wilson_interval(k, n, *, level=DEFAULT_LEVEL) -> Interval:
    """Wilson score interval for a proportion ``k / n`` (Wilson 1927).

    ``(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``z`` the two-sided
    critical value at ``level``.
    """
    k = v.as_int(k, "k", minimum=0)
    n = v.as_int(n, "n", minimum=1)
    if k > n:
        raise ValueError(f"k must not exceed n ({n}); saw {k}")
    z = special.ndtri(0.5 + v.as_open_probability(level, "level") / 2.0)
    p = k / n
    centre = p + z**2 / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    scale = 1 + z**2 / n
    return Interval(
        float(max(0.0, (centre - half) / scale)), float(min(1.0, (centre + half) / scale))
    )


@dataclass(frozen=True, repr=False)
class NoiseCorrectedAccuracy(Result):
    """A judge's accuracy against the latent truth, inverted from accuracy against noisy labels."""

    observed: float
    eta: float
    accuracy: float
    ceiling: float
    at_ceiling: bool


def accuracy_under_label_noise(acc_obs, eta) -> NoiseCorrectedAccuracy:
    """Invert ``acc_obs = a (1 - eta) + (1 - a) eta`` for the accuracy ``a`` (Bross 1954).

    ``a = (acc_obs - eta) / (1 - 2 eta)``, valid when the judge's and the labels' errors are
    independent; under correlated noise it is optimistic.  However good the judge,
    ``acc_obs <= 1 - eta``: a measured accuracy at that ceiling says the labels ran out of
    resolution.  ``at_ceiling`` marks an observed accuracy at or above it (the inversion then
    exceeds 1, which happens by sampling noise or an overstated ``eta``; a warning says so).

    Parameters
    ----------
    acc_obs : float in [0, 1]
    eta : float in [0, 0.5)
        Rate at which the recorded labels differ from the truth.
    """
    acc_obs = v.as_probability(acc_obs, "acc_obs")
    eta = v.as_probability(eta, "eta")
    if eta >= 0.5:
        raise ValueError(
            f"eta must be below 0.5 (at 0.5 the labels carry no information); saw {eta!r}"
        )
    accuracy = (acc_obs - eta) / (1.0 - 2.0 * eta)
    ceiling = 1.0 - eta
    if acc_obs > ceiling:
        warn_caller(
            f"acc_obs = {acc_obs} exceeds the ceiling 1 - eta = {ceiling}: the inverted accuracy {accuracy:.4f} "
            "is above 1 (sampling noise, or eta is overstated)",
            UserWarning,
        )
    return NoiseCorrectedAccuracy(acc_obs, eta, float(accuracy), ceiling, acc_obs >= ceiling)


# --------------------------------------------------------------------------- independence of judges


@dataclass(frozen=True, repr=False)
class IndependenceCheck(Result):
    """Predicted pairwise agreement under conditional independence against the observed one."""

    predicted: float
    observed: float
    gap: float
    observed_interval: tuple[float, float] | None
    correlated: bool | None


def _pair(value: object, name: str) -> tuple[float, float]:
    if np.ndim(value) == 0:
        x = v.as_probability(value, name)
        return x, x
    values = v.as_finite_vector(value, name)
    if values.size != 2:
        raise ValueError(
            f"{name} must be one rate shared by both judges or a pair of rates; saw {values.size} values"
        )
    return tuple(v.as_probability(float(x), name) for x in values)


@old_spellings()
def independence_check(
    sensitivity, specificity, prevalence, *, observed=None, kappa=None, n=None, level=DEFAULT_LEVEL
) -> IndependenceCheck:
    """Do two judges fail independently? ("Do the judges fail independently?")

    Under conditional independence given Y, judges with sensitivities ``s_j`` and
    specificities ``c_j`` agree at

        P(agree) = pi (s_1 s_2 + (1-s_1)(1-s_2)) + (1-pi) (c_1 c_2 + (1-c_1)(1-c_2)),

    which for shared rates is ``pi (eta+^2 + (1-eta+)^2) + (1-pi)(eta-^2 + (1-eta-)^2)`` with
    ``eta+ = 1 - s``, ``eta- = 1 - c``.  Observed agreement far above it means correlated errors.

    Parameters
    ----------
    sensitivity, specificity : float or pair of floats
        Shared by both judges, or one per judge.
    prevalence : float
        ``pi = P(Y = 1)``.
    observed : float, optional
        Observed pairwise agreement ...
    kappa : float, optional
        ... or a reported kappa, inverted as ``p_o = kappa (1 - p_e) + p_e`` with chance
        agreement ``p_e`` from the judges' positive rates ``pi s_j + (1 - pi)(1 - c_j)``.
    n : int, optional
        Items behind the observed agreement: gives its Wilson interval, and ``correlated`` is
        whether the predicted agreement lies below it.

    Examples
    --------
    >>> round(independence_check(0.8, 0.9, 0.75, observed=0.95).predicted, 3)
    0.715
    """
    s1, s2 = _pair(sensitivity, "sensitivity")
    c1, c2 = _pair(specificity, "specificity")
    pi = v.as_probability(prevalence, "prevalence")
    if (observed is None) == (kappa is None):
        raise ValueError(
            "independence_check needs exactly one of observed or kappa; saw "
            + ("both" if observed is not None else "neither")
        )
    predicted = pi * (s1 * s2 + (1 - s1) * (1 - s2)) + (1 - pi) * (c1 * c2 + (1 - c1) * (1 - c2))
    if kappa is not None:
        if (
            isinstance(kappa, bool)
            or not isinstance(kappa, (int, float))
            or not -1.0 <= kappa <= 1.0
        ):
            raise ValueError(f"kappa must be a number in [-1, 1]; saw {kappa!r}")
        positive = [pi * s + (1 - pi) * (1 - c) for s, c in ((s1, c1), (s2, c2))]
        chance = positive[0] * positive[1] + (1 - positive[0]) * (1 - positive[1])
        observed = kappa * (1 - chance) + chance
    observed = v.as_probability(observed, "observed")
    interval = correlated = None
    if n is not None:
        n = v.as_int(n, "n", minimum=1)
        interval = wilson_interval(round(observed * n), n, level=level)
        correlated = predicted < interval[0]
    return IndependenceCheck(
        float(predicted), float(observed), float(observed - predicted), interval, correlated
    )


# --------------------------------------------------------------------------- comparing runs


def mcnemar_exact(b, c) -> float:
    """Exact two-sided McNemar test on the discordant counts (McNemar 1947).

    The exact binomial test of ``min(b, c)`` successes in ``b + c`` trials at 1/2
    (``scipy.stats.binomtest``): ``p = min(1, 2 sum_{k=0}^{min(b,c)} C(b+c, k) 2^-(b+c))``, and
    1 when there is no discordant pair.
    """
    b = v.as_int(b, "b", minimum=0)
    c = v.as_int(c, "c", minimum=0)
    if b + c == 0:
        return 1.0
    from scipy import stats  # here: scipy.stats costs 0.7 s to import

    return float(stats.binomtest(min(b, c), b + c, 0.5).pvalue)


class KSResult(NamedTuple):
    """A two-sample Kolmogorov–Smirnov test."""

    statistic: float
    pvalue: float


def ks_two_sample(x, y) -> KSResult:
    """Two-sample Kolmogorov–Smirnov statistic ``D = sup |F_1 - F_2|`` and its p-value (Smirnov 1948).

    ``scipy.stats.ks_2samp`` with the asymptotic p-value: the distribution of the one-sample
    statistic at the effective size ``round(n_1 n_2 / (n_1 + n_2))``.
    """
    x = v.as_finite_vector(x, "x")
    y = v.as_finite_vector(y, "y")
    from scipy import stats

    result = stats.ks_2samp(x, y, method="asymp")
    return KSResult(float(result.statistic), float(np.clip(result.pvalue, 0.0, 1.0)))


@dataclass(frozen=True, eq=False, repr=False)
class HolmSidak(Result):
    """Holm–Sidak step-down decisions, in the order the p-values were given."""

    reject: np.ndarray
    thresholds: np.ndarray
    alpha: float


@old_spellings()
def holm_sidak(pvalues, *, alpha=0.05) -> HolmSidak:
    """Holm–Sidak step-down test of m hypotheses (Holm 1979; Sidak 1967).

    Sort the p-values ascending and test the j-th smallest against
    ``alpha_(j) = 1 - (1 - alpha)^(1 / (m - j + 1))``; reject until the first that fails.
    Controls the family-wise error rate at ``alpha`` and rejects at least what Bonferroni does.
    """
    p = v.as_finite_vector(pvalues, "pvalues")
    if (p < 0).any() or (p > 1).any():
        raise ValueError(f"pvalues must lie in [0, 1]; saw {p[(p < 0) | (p > 1)][0]!r}")
    alpha = v.as_open_probability(alpha, "alpha")
    order = np.argsort(p, kind="stable")
    m = p.size
    steps = 1.0 - (1.0 - alpha) ** (1.0 / (m - np.arange(m)))
    passed = p[order] <= steps
    stop = m if passed.all() else int(np.argmin(passed))
    reject = np.zeros(m, dtype=bool)
    reject[order[:stop]] = True
    thresholds = np.empty(m)
    thresholds[order] = steps
    return HolmSidak(reject, thresholds, alpha)


# --------------------------------------------------------------------------- Krippendorff's alpha

#: Levels of measurement of Krippendorff's alpha, each with its difference function.
MEASUREMENTS = ("nominal", "ordinal", "interval", "ratio")


@old_spellings(renamed={"level": "measurement"})
def krippendorff_alpha(data, *, measurement="nominal") -> float:
    """Krippendorff's alpha, ``1 - D_o / D_e`` (Hayes and Krippendorff 2007).

    Parameters
    ----------
    data : array_like, shape (n_units, n_raters)
        Rows are items (units), columns are raters (the project's convention); NaN marks a
        missing value, so raters may differ per item.  Units with fewer than two values are
        not pairable and are left out.
    measurement : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The difference function ``delta^2``: 0/1 for nominal; for ordinal, the squared count of
        values between the two ranks, ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2``;
        ``(c - k)^2`` for interval; ``((c - k) / (c + k))^2`` for ratio.

    Returns
    -------
    float
        1 for perfect agreement, 0 for agreement at chance.

    Notes
    -----
    Built from the coincidence matrix ``o_ck = sum_u (number of c-k pairs in u) / (m_u - 1)``:
    ``D_o = sum o_ck delta^2_ck / n`` and ``D_e = sum n_c n_k delta^2_ck / (n (n - 1))``.
    """
    array = v.as_numeric_array(data, "data").astype(np.float64)
    if array.ndim != 2:
        raise ValueError(f"data must be a 2-D array (units x raters); saw shape {array.shape}")
    measurement = v.as_choice(measurement, "measurement", MEASUREMENTS)
    if np.isinf(array).any():
        raise ValueError("data must hold finite values or NaN for missing; saw an infinite value")
    values = np.unique(array[~np.isnan(array)])
    if values.size == 0:
        raise ValueError("data has no values")
    if measurement == "ratio" and (values < 0).any():
        raise ValueError("ratio-level alpha needs non-negative values")
    index = {value: i for i, value in enumerate(values)}
    coincidence = np.zeros((values.size, values.size))
    for unit in array:
        present = unit[~np.isnan(unit)]
        if present.size < 2:
            continue
        counts = np.bincount([index[x] for x in present], minlength=values.size).astype(np.float64)
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (present.size - 1)
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    if n < 2:
        raise ValueError("data has fewer than two pairable values (units with at least two raters)")
    delta = _differences(values, totals, measurement)
    expected = (np.outer(totals, totals) - np.diag(totals)) * delta
    disagreement_expected = expected.sum() / (n * (n - 1))
    if disagreement_expected == 0:
        raise ValueError(
            "alpha is undefined: every pairable value is the same, so no disagreement is expected"
        )
    return float(1.0 - (coincidence * delta).sum() / n / disagreement_expected)


def _differences(values: np.ndarray, totals: np.ndarray, measurement: str) -> np.ndarray:
    c, k = np.meshgrid(values, values, indexing="ij")
    if measurement == "nominal":
        return (c != k).astype(np.float64)
    if measurement == "interval":
        return (c - k) ** 2
    if measurement == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nan_to_num(
                ((c - k) / (c + k)) ** 2
            )  # 0/0 only where c = k = 0: no difference
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    i, j = np.meshgrid(np.arange(values.size), np.arange(values.size), indexing="ij")
    low, high = np.minimum(i, j), np.maximum(i, j)
    return (cumulative[high + 1] - cumulative[low] - (totals[i] + totals[j]) / 2.0) ** 2


__getattr__ = moved_names(
    "bayescal.metrics.agreement",
    {
        **{
            name: f"bayescal.metrics.record:{name}"
            for name in (
                "CalibrationRecord",
                "ErrorRates",
                "calibration_record",
                "error_rates",
                "youden_index",
            )
        },
        **{
            name: f"bayescal.metrics.triage:{name}"
            for name in ("LogitKDEThreshold", "logit_kde_threshold")
        },
    },
)
