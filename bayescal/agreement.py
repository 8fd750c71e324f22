"""Checking a judge against trusted labels, and what a calibration record must carry (seeds/003).

A *judge* (a model or a person) gives each item a verdict: 1 (pass / positive), 0 (fail /
negative), or an explicit abstention, coded :data:`ABSTAIN` (-1), "cannot determine".  Trusted
labels are 0/1.  The statistics here are those of seeds/003:

- agreement: Cohen's kappa on the decided subset, with a row-resampling bootstrap interval;
- the two directional error rates, each in a *decided* form (abstentions left out) and a
  *labeled* form (an abstention counts as a miss), with per-class counts;
- Wilson intervals for proportions, the label-noise ceiling on measured accuracy, the test of
  whether two judges fail independently, McNemar's exact test, the two-sample KS test,
  Holm–Sidak step-down thresholds, Krippendorff's alpha, Youden's index;
- :func:`calibration_record`, the fields a calibration number must carry;
- :func:`logit_kde_threshold`, a density threshold for anomaly triage when labels are scarce.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special, stats

from . import _validation as v

__all__ = [
    "ABSTAIN",
    "CalibrationRecord",
    "ErrorRates",
    "HolmSidak",
    "IndependenceCheck",
    "KappaInterval",
    "LogitKDEThreshold",
    "NoiseCorrectedAccuracy",
    "accuracy_under_label_noise",
    "calibration_record",
    "cohens_kappa",
    "error_rates",
    "holm_sidak",
    "independence_check",
    "kappa_interval",
    "krippendorff_alpha",
    "ks_two_sample",
    "logit_kde_threshold",
    "mcnemar_exact",
    "wilson_interval",
    "youden_index",
]

#: Code of an explicit abstention ("cannot determine") in a verdict array.
ABSTAIN = -1


# --------------------------------------------------------------------------- inputs


def _verdicts(value: object, name: str, abstain: bool = True) -> np.ndarray:
    """A 1-D int array of 0/1 (and ABSTAIN when allowed), non-empty."""
    array = v.as_numeric_array(value, name)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; saw shape {array.shape}")
    allowed = (0, 1, ABSTAIN) if abstain else (0, 1)
    bad = ~np.isin(array, allowed)
    if bad.any():
        index = int(np.argmax(bad))
        described = "0, 1 or -1 (abstain)" if abstain else "0 or 1"
        raise ValueError(
            f"{name} must contain only {described}; saw {array[index].item()!r} at position {index}"
        )
    return array.astype(np.int64)


def _paired(first, first_name, second, second_name):
    a = _verdicts(first, first_name)
    b = _verdicts(second, second_name)
    v.check_same_length(a, first_name, b, second_name)
    return a, b


# --------------------------------------------------------------------------- agreement


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


def cohens_kappa(a, b) -> float:
    """Cohen's kappa on the decided subset (seeds/003; Cohen 1960).

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the observed agreement and
    ``p_e = p_+a p_+b + p_-a p_-b`` the chance agreement from the two raters' own marginals,
    over the items both raters decided.

    Parameters
    ----------
    a, b : array_like of int, shape (n,)
        0/1 verdicts; -1 (:data:`ABSTAIN`) for an abstention, left out.

    Raises
    ------
    ValueError
        When no item is decided by both, or every decided item is in one category (p_e = 1:
        kappa is undefined, not 0 or 1).
    """
    a, b = _paired(a, "a", b, "b")
    table = _decided_table(a, b)
    if table.sum() == 0:
        raise ValueError("a and b have no item that both decided; kappa is undefined")
    kappa = float(_kappa_from_table(table))
    if np.isnan(kappa):
        raise ValueError(
            "kappa is undefined: every decided item falls in one category for both raters (p_e = 1)"
        )
    return kappa


@dataclass(frozen=True)
class KappaInterval:
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


def kappa_interval(a, b, n_boot=2000, level=0.95, seed=0) -> KappaInterval:
    """Cohen's kappa with a row-resampling percentile bootstrap interval (seeds/003; Efron 1979).

    Each of ``n_boot`` replicates draws the n rows with replacement and recomputes kappa on its
    decided subset.  A replicate with ``p_e = 1`` (every draw in one category) has no kappa: it
    is dropped, not clamped, and ``n_valid`` says how many survived; a count far below
    ``n_boot`` means the sample is too small for the estimate.  Resampling rows is drawing the
    counts of the 2x2 table (and of undecided rows) from a multinomial, which is done here.
    """
    a, b = _paired(a, "a", b, "b")
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


# --------------------------------------------------------------------------- error rates


@dataclass(frozen=True)
class ErrorRates:
    """Directional error rates of a judge against 0/1 truth (seeds/003).

    ``far`` (false accept rate) is taken over the fail-labeled slice (truth 0), ``frr`` (false
    reject rate) over the pass-labeled slice (truth 1).  ``*_decided`` leaves abstentions out;
    ``*_labeled`` counts an abstention as a miss, so ``r_labeled = r_decided (1 - s) + s`` for
    the slice's abstention share ``s``.  A rate over an empty slice is None.
    """

    far_decided: float | None
    far_labeled: float | None
    frr_decided: float | None
    frr_labeled: float | None
    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int
    abstained_positive: int
    abstained_negative: int

    @property
    def abstention_rate_positive(self) -> float | None:
        n = self.true_positive + self.false_negative + self.abstained_positive
        return self.abstained_positive / n if n else None

    @property
    def abstention_rate_negative(self) -> float | None:
        n = self.true_negative + self.false_positive + self.abstained_negative
        return self.abstained_negative / n if n else None


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def error_rates(pred, truth) -> ErrorRates:
    """FAR and FRR in decided and labeled form, with per-class counts and abstentions (seeds/003).

    Parameters
    ----------
    pred : array_like of int
        The judge's verdicts: 1 pass, 0 fail, -1 (:data:`ABSTAIN`) cannot determine.
    truth : array_like of int
        Trusted 0/1 labels.
    """
    pred = _verdicts(pred, "pred")
    truth = _verdicts(truth, "truth", abstain=False)
    v.check_same_length(pred, "pred", truth, "truth")
    count = lambda p, t: int(((pred == p) & (truth == t)).sum())  # noqa: E731
    tp, fn, ap = count(1, 1), count(0, 1), count(ABSTAIN, 1)
    tn, fp, an = count(0, 0), count(1, 0), count(ABSTAIN, 0)
    return ErrorRates(
        far_decided=_ratio(fp, fp + tn),
        far_labeled=_ratio(fp + an, fp + tn + an),
        frr_decided=_ratio(fn, fn + tp),
        frr_labeled=_ratio(fn + ap, fn + tp + ap),
        true_positive=tp,
        false_positive=fp,
        true_negative=tn,
        false_negative=fn,
        abstained_positive=ap,
        abstained_negative=an,
    )


def youden_index(pred, truth) -> float:
    """Youden's J = sensitivity + specificity - 1 on the decided subset (Youden 1950).

    Prevalence-free, unlike accuracy and kappa, so it compares across sets with different class
    balance.  Raises when either class has no decided item.
    """
    rates = error_rates(pred, truth)
    if rates.frr_decided is None or rates.far_decided is None:
        raise ValueError(
            "youden_index needs decided items of both classes in truth; one class has none"
        )
    return (1.0 - rates.frr_decided) + (1.0 - rates.far_decided) - 1.0


# --------------------------------------------------------------------------- intervals and noise


def wilson_interval(k, n, level=0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``k / n`` (Wilson 1927; seeds/003).

    ``(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``z`` the two-sided
    critical value at ``level``.
    """
    k = v.as_int(k, "k", minimum=0)
    n = v.as_int(n, "n", minimum=1)
    if k > n:
        raise ValueError(f"k must not exceed n ({n}); saw {k}")
    z = stats.norm.ppf(0.5 + v.as_open_probability(level, "level") / 2.0)
    p = k / n
    centre = p + z**2 / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    scale = 1 + z**2 / n
    return float(max(0.0, (centre - half) / scale)), float(min(1.0, (centre + half) / scale))


@dataclass(frozen=True)
class NoiseCorrectedAccuracy:
    """A judge's accuracy against the latent truth, inverted from accuracy against noisy labels."""

    observed: float
    eta: float
    accuracy: float
    ceiling: float
    at_ceiling: bool


def accuracy_under_label_noise(acc_obs, eta) -> NoiseCorrectedAccuracy:
    """Invert ``acc_obs = a (1 - eta) + (1 - a) eta`` for the accuracy ``a`` (seeds/003; Bross 1954).

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
        warnings.warn(
            f"acc_obs = {acc_obs} exceeds the ceiling 1 - eta = {ceiling}: the inverted accuracy {accuracy:.4f} "
            "is above 1 (sampling noise, or eta is overstated)",
            UserWarning,
            stacklevel=2,
        )
    return NoiseCorrectedAccuracy(acc_obs, eta, float(accuracy), ceiling, acc_obs >= ceiling)


# --------------------------------------------------------------------------- independence of judges


@dataclass(frozen=True)
class IndependenceCheck:
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


def independence_check(
    sensitivity, specificity, prevalence, observed=None, kappa=None, n=None, level=0.95
) -> IndependenceCheck:
    """Do two judges fail independently? (seeds/003, "Do the judges fail independently?")

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
        interval = wilson_interval(round(observed * n), n, level)
        correlated = predicted < interval[0]
    return IndependenceCheck(
        float(predicted), float(observed), float(observed - predicted), interval, correlated
    )


# --------------------------------------------------------------------------- comparing runs


def mcnemar_exact(b, c) -> float:
    """Exact two-sided McNemar test on the discordant counts (McNemar 1947; seeds/003).

    ``p = min(1, 2 sum_{k=0}^{min(b,c)} C(b+c, k) 2^-(b+c))``; the cap matters exactly where
    this form is meant to be used: ``b = c = 1`` would give 1.5 without it.
    """
    b = v.as_int(b, "b", minimum=0)
    c = v.as_int(c, "c", minimum=0)
    return float(min(1.0, 2.0 * stats.binom.cdf(min(b, c), b + c, 0.5)))


def ks_two_sample(x, y) -> tuple[float, float]:
    """Two-sample Kolmogorov–Smirnov statistic ``D = sup |F_1 - F_2|`` and its p-value (Smirnov 1948).

    The p-value is the asymptotic one, from the distribution of the one-sample statistic at the
    effective size ``round(n_1 n_2 / (n_1 + n_2))`` (as ``scipy.stats.ks_2samp(method="asymp")``).
    """
    x = np.sort(v.as_finite_vector(x, "x"))
    y = np.sort(v.as_finite_vector(y, "y"))
    points = np.concatenate([x, y])
    difference = (
        np.searchsorted(x, points, side="right") / x.size
        - np.searchsorted(y, points, side="right") / y.size
    )
    d = float(np.abs(difference).max())
    effective = round(x.size * y.size / (x.size + y.size))
    return d, float(np.clip(stats.kstwo.sf(d, effective), 0.0, 1.0))


@dataclass(frozen=True)
class HolmSidak:
    """Holm–Sidak step-down decisions, in the order the p-values were given."""

    reject: np.ndarray
    thresholds: np.ndarray
    alpha: float


def holm_sidak(pvalues, alpha=0.05) -> HolmSidak:
    """Holm–Sidak step-down test of m hypotheses (Holm 1979; Sidak 1967; seeds/003).

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

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def krippendorff_alpha(data, level="nominal") -> float:
    """Krippendorff's alpha, ``1 - D_o / D_e`` (Hayes and Krippendorff 2007; seeds/003).

    Parameters
    ----------
    data : array_like, shape (n_units, n_raters)
        Rows are items (units), columns are raters (the project's convention); NaN marks a
        missing value, so raters may differ per item.  Units with fewer than two values are
        not pairable and are left out.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
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
    level = v.as_choice(level, "level", ALPHA_LEVELS)
    if np.isinf(array).any():
        raise ValueError("data must hold finite values or NaN for missing; saw an infinite value")
    values = np.unique(array[~np.isnan(array)])
    if values.size == 0:
        raise ValueError("data has no values")
    if level == "ratio" and (values < 0).any():
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
    delta = _differences(values, totals, level)
    expected = (np.outer(totals, totals) - np.diag(totals)) * delta
    disagreement_expected = expected.sum() / (n * (n - 1))
    if disagreement_expected == 0:
        raise ValueError(
            "alpha is undefined: every pairable value is the same, so no disagreement is expected"
        )
    return float(1.0 - (coincidence * delta).sum() / n / disagreement_expected)


def _differences(values: np.ndarray, totals: np.ndarray, level: str) -> np.ndarray:
    c, k = np.meshgrid(values, values, indexing="ij")
    if level == "nominal":
        return (c != k).astype(np.float64)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.nan_to_num(
                ((c - k) / (c + k)) ** 2
            )  # 0/0 only where c = k = 0: no difference
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    i, j = np.meshgrid(np.arange(values.size), np.arange(values.size), indexing="ij")
    low, high = np.minimum(i, j), np.maximum(i, j)
    return (cumulative[high + 1] - cumulative[low] - (totals[i] + totals[j]) / 2.0) ** 2


# --------------------------------------------------------------------------- calibration record

PROVENANCES = ("human", "proxy")


@dataclass(frozen=True)
class CalibrationRecord:
    """The fields a calibration number has to carry to be checkable (seeds/003).

    Attributes
    ----------
    name : str
    n_items, n_positive, n_negative : int
        Sample size and class balance of the labeled items.
    provenance : str
        ``"human"`` labels (an anchor) or a ``"proxy"``; a proxy bounds the claim to agreement
        with that proxy.
    n_annotators : int
    repeat_rate : float
        Share of items labeled more than once; without repeats the label noise, and so the
        ceiling on measured accuracy, is unmeasurable.
    held_out : bool
        False when the judge was tuned on these labels: the numbers are then an
        implementation diagnostic, not evidence of validity.
    accuracy, accuracy_interval : float, (float, float)
        On the decided subset, Wilson interval at ``level`` (``accuracy_interval_method``).
    kappa : KappaInterval or None
        Percentile bootstrap (None with a reason in ``notes`` when undefined).
    rates : ErrorRates
        FAR / FRR in decided and labeled form, per-class counts and abstentions.
    youden : float or None
        Prevalence-free summary on the decided subset.
    baseline : dict
        The constant predictor that always says the majority class: what the prior alone buys.
    level : float
    notes : tuple of str
    """

    name: str
    n_items: int
    n_positive: int
    n_negative: int
    provenance: str
    n_annotators: int
    repeat_rate: float
    held_out: bool
    accuracy: float | None
    accuracy_interval: tuple | None
    kappa: KappaInterval | None
    rates: ErrorRates
    youden: float | None
    baseline: dict
    level: float
    notes: tuple
    accuracy_interval_method: str = "Wilson score interval on the decided subset"

    def to_dict(self) -> dict:
        """Plain JSON-ready values (None where undefined, never NaN)."""
        record = asdict(self)
        record["rates"]["abstention_rate_positive"] = self.rates.abstention_rate_positive
        record["rates"]["abstention_rate_negative"] = self.rates.abstention_rate_negative
        return record

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_frame(self):
        """Two rows, the judge and the constant baseline, one column per headline figure."""
        import pandas as pd

        judge = {
            "accuracy": self.accuracy,
            "accuracy_lower": None if self.accuracy_interval is None else self.accuracy_interval[0],
            "accuracy_upper": None if self.accuracy_interval is None else self.accuracy_interval[1],
            "kappa": None if self.kappa is None else self.kappa.estimate,
            "far_decided": self.rates.far_decided,
            "far_labeled": self.rates.far_labeled,
            "frr_decided": self.rates.frr_decided,
            "frr_labeled": self.rates.frr_labeled,
            "youden": self.youden,
            "abstention_rate_positive": self.rates.abstention_rate_positive,
            "abstention_rate_negative": self.rates.abstention_rate_negative,
        }
        return pd.DataFrame(
            {self.name: judge, "constant baseline": {key: self.baseline.get(key) for key in judge}}
        ).T


def calibration_record(
    pred,
    truth,
    name="judge",
    provenance="human",
    n_annotators=1,
    repeat_rate=0.0,
    held_out=True,
    level=0.95,
    n_boot=2000,
    seed=0,
) -> CalibrationRecord:
    """Everything seeds/003 requires of a calibration record, computed from verdicts and labels.

    Parameters
    ----------
    pred : array_like of int
        Verdicts 1 / 0, -1 (:data:`ABSTAIN`) for cannot determine.
    truth : array_like of int
        The trusted 0/1 labels.
    name : str
    provenance : {"human", "proxy"}
    n_annotators : int
        Annotators behind ``truth``.
    repeat_rate : float in [0, 1]
        Share of items labeled more than once.
    held_out : bool
        Whether the judge never saw (was never tuned on) these labels.
    level, n_boot, seed
        Interval level, bootstrap replicates and seed of the kappa interval.
    """
    pred = _verdicts(pred, "pred")
    truth = _verdicts(truth, "truth", abstain=False)
    v.check_same_length(pred, "pred", truth, "truth")
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; saw {type(name).__name__}")
    provenance = v.as_choice(provenance, "provenance", PROVENANCES)
    n_annotators = v.as_int(n_annotators, "n_annotators", minimum=1)
    repeat_rate = v.as_probability(repeat_rate, "repeat_rate")
    if not isinstance(held_out, bool):
        raise TypeError(f"held_out must be True or False; saw {held_out!r}")
    level = v.as_open_probability(level, "level")
    notes = []
    rates = error_rates(pred, truth)
    decided = pred != ABSTAIN
    correct = int((pred[decided] == truth[decided]).sum())
    accuracy = correct / int(decided.sum()) if decided.any() else None
    interval = wilson_interval(correct, int(decided.sum()), level) if decided.any() else None
    try:
        kappa = kappa_interval(pred, truth, n_boot=n_boot, level=level, seed=seed)
    except ValueError as error:
        kappa = None
        notes.append(f"kappa: {error}")
    try:
        youden = youden_index(pred, truth)
    except ValueError as error:
        youden = None
        notes.append(f"youden: {error}")
    if provenance == "proxy":
        notes.append(
            "labels are a proxy: the figures measure agreement with the proxy, not validity"
        )
    if not held_out:
        notes.append(
            "fitted on these labels: an implementation diagnostic, not evidence of validity"
        )
    if repeat_rate == 0:
        notes.append(
            "no repeated labels: the label noise, and so the ceiling on measured accuracy, is unmeasurable"
        )
    positives = int(truth.sum())
    majority = int(positives * 2 >= truth.size)
    constant = np.full(truth.size, majority)
    baseline_rates = error_rates(constant, truth)
    baseline = {
        "predicts": majority,
        "accuracy": float(np.mean(constant == truth)),
        "kappa": 0.0 if 0 < positives < truth.size else None,
        "far_decided": baseline_rates.far_decided,
        "far_labeled": baseline_rates.far_labeled,
        "frr_decided": baseline_rates.frr_decided,
        "frr_labeled": baseline_rates.frr_labeled,
        "youden": 0.0 if 0 < positives < truth.size else None,
    }
    return CalibrationRecord(
        name,
        int(truth.size),
        positives,
        int(truth.size - positives),
        provenance,
        n_annotators,
        repeat_rate,
        held_out,
        accuracy,
        interval,
        kappa,
        rates,
        youden,
        baseline,
        level,
        tuple(notes),
    )


# --------------------------------------------------------------------------- anomaly triage


@dataclass(frozen=True, eq=False)
class LogitKDEThreshold:
    """A Gaussian KDE on the logit scale of scores in (0, 1), with a typicality threshold.

    Attributes
    ----------
    bandwidth : float
        Chosen by cross-validated held-out log-likelihood.
    loo_log_density : ndarray, shape (n,)
        ``l_i = log f_(-i)(y_i)`` on the score scale (Jacobian included).
    threshold : float
        The ``percentile``-th percentile of ``loo_log_density``.
    threshold_interval : (float, float)
        Bootstrap percentile interval of the threshold at ``level``.
    flagged : ndarray of bool
        ``loo_log_density < threshold``: unusual against the peers (triage, not a verdict).
    percentile : float
    """

    scores: np.ndarray
    bandwidth: float
    loo_log_density: np.ndarray
    threshold: float
    threshold_interval: tuple
    flagged: np.ndarray
    percentile: float

    def log_density(self, y) -> np.ndarray:
        """``log f_Y(y) = log f_Z(logit y) - log y - log(1 - y)`` for new scores in (0, 1)."""
        y = _open_unit(y, "y")
        return (
            _kde_log_density(special.logit(y), special.logit(self.scores), self.bandwidth)
            - np.log(y)
            - np.log1p(-y)
        )

    def smoothed_percentile(self, r) -> np.ndarray:
        """``F(r) = (1/n) sum_i Phi((logit r - logit r_i) / h)``, the kernel CDF over the peers."""
        r = _open_unit(r, "r")
        return stats.norm.cdf(
            (special.logit(r)[:, None] - special.logit(self.scores)[None, :]) / self.bandwidth
        ).mean(axis=1)


def _open_unit(value, name: str) -> np.ndarray:
    array = v.as_finite_vector(np.atleast_1d(value), name)
    if ((array <= 0) | (array >= 1)).any():
        bad = array[(array <= 0) | (array >= 1)][0]
        raise ValueError(
            f"{name} must lie strictly inside (0, 1), where the logit is finite; saw {bad!r}"
        )
    return array


def _kde_log_density(points: np.ndarray, centres: np.ndarray, bandwidth: float) -> np.ndarray:
    """Log of the Gaussian KDE with ``centres`` at ``points`` (logit scale)."""
    z = (points[:, None] - centres[None, :]) / bandwidth
    return special.logsumexp(-0.5 * z**2, axis=1) - np.log(
        centres.size * bandwidth * np.sqrt(2 * np.pi)
    )


def logit_kde_threshold(
    scores, percentile=5.0, bandwidths=None, n_folds=5, n_boot=500, level=0.95, seed=0
) -> LogitKDEThreshold:
    """Density threshold for anomaly triage when labels are scarce (seeds/003).

    The KDE is fitted on ``logit(y)`` (a kernel on (0, 1) would leak mass past the boundary)
    and mapped back with the Jacobian; the bandwidth maximises the held-out log-likelihood over
    ``n_folds`` folds; typicality is the leave-one-out log density, and the threshold its
    ``percentile``-th percentile, with a bootstrap interval.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Scores strictly inside (0, 1); at least ``n_folds`` of them.
    percentile : float in (0, 100), default 5
    bandwidths : array_like, optional
        Candidate bandwidths on the logit scale; default 30 values log-spaced around
        Silverman's rule (x 0.1 to x 3).
    n_folds, n_boot, level, seed
    """
    y = _open_unit(scores, "scores")
    if (
        isinstance(percentile, bool)
        or not isinstance(percentile, (int, float))
        or not 0 < percentile < 100
    ):
        raise ValueError(f"percentile must be a number in (0, 100); saw {percentile!r}")
    n_folds = v.as_int(n_folds, "n_folds", minimum=2)
    if y.size < max(n_folds, 3):
        raise ValueError(
            f"scores must hold at least {max(n_folds, 3)} values (n_folds and leave-one-out); saw {y.size}"
        )
    level = v.as_open_probability(level, "level")
    rng = np.random.default_rng(v.as_seed(seed))
    x = special.logit(y)
    spread = x.std(ddof=1)
    if bandwidths is None:
        if spread == 0:
            raise ValueError("scores are all equal: a density has no bandwidth to choose")
        silverman = 1.06 * spread * x.size ** (-0.2)
        candidates = silverman * np.geomspace(0.1, 3.0, 30)
    else:
        candidates = v.as_finite_vector(bandwidths, "bandwidths")
        if (candidates <= 0).any():
            raise ValueError(f"bandwidths must be positive; saw {candidates[candidates <= 0][0]!r}")
    folds = rng.permutation(x.size) % n_folds
    held_out = [
        sum(_kde_log_density(x[folds == k], x[folds != k], h).sum() for k in range(n_folds))
        for h in candidates
    ]
    bandwidth = float(candidates[int(np.argmax(held_out))])
    z = (x[:, None] - x[None, :]) / bandwidth
    kernel = -0.5 * z**2
    np.fill_diagonal(kernel, -np.inf)  # leave each point out of its own density
    loo = (
        special.logsumexp(kernel, axis=1)
        - np.log((x.size - 1) * bandwidth * np.sqrt(2 * np.pi))
        - np.log(y)
        - np.log1p(-y)
    )
    threshold = float(np.percentile(loo, percentile))
    boot = np.percentile(
        loo[rng.integers(0, loo.size, (v.as_int(n_boot, "n_boot", minimum=1), loo.size))],
        percentile,
        axis=1,
    )
    tail = (1.0 - level) / 2.0
    interval = (float(np.quantile(boot, tail)), float(np.quantile(boot, 1.0 - tail)))
    return LogitKDEThreshold(
        y, bandwidth, loo, threshold, interval, loo < threshold, float(percentile)
    )
