"""The posterior of a noise-corrected ECE as a result: :class:`PosteriorECE` and the summary of
its draws of bin moments (``posterior_summary``), and :class:`PosteriorRecalibration`,
shared by the binary push-through (:mod:`bayescal.bayes.posterior`) and the multi-class one
(:mod:`bayescal.bayes.class_posterior`, :mod:`bayescal.bayes.class_recalibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _html
from .._api import Interval, Result, chance_text
from ..correction.folded_correction import corrected_draws
from ..metrics.calibration import ReliabilityBand

__all__ = [
    "MIN_KEPT_DRAWS",
    "UNCERTAINTY",
    "PosteriorECE",
    "PosteriorRecalibration",
    "evenly_spaced",
    "highest_density_interval",
    "posterior_summary",
]

UNCERTAINTY = ("total", "channels")


@dataclass(frozen=True, eq=False)
class PosteriorECE:
    """Posterior of the noise-corrected ECE.

    Attributes
    ----------
    draws : ndarray, shape (S,)
        The reported NC-ECE draws (debiased for ``"total"``, raw for ``"channels"``).
    raw_draws : ndarray, shape (S,)
        ``sum_l |r_l|`` of every draw, without debiasing.
    mean, median : float
    interval : Interval
        Equal-tailed credible interval at ``level``.
    hdi : Interval
        Highest-density interval at ``level``.
    level : float
    uncertainty : str
        ``"total"`` (channels and evaluation sample) or ``"channels"`` (channels only).
    prob_calibrated : float
        Posterior probability that the NC-ECE is at most ``tolerance``.
    tolerance : float
    bin_moments : ndarray, shape (S, M)
        Draws of each bin's moment ``r_l`` (for reliability diagrams with credible bands).
    edges : ndarray, shape (M + 1,)
    counts : ndarray, shape (M,), or (S, M) when the scores differ by draw
        Items per bin (per draw for :func:`posterior_recalibration`, whose maps differ by draw).
    mean_score : ndarray, shape (M,) or (S, M)
        Mean score of each bin (NaN for an empty bin).
    """

    draws: np.ndarray
    raw_draws: np.ndarray
    mean: float
    median: float
    interval: Interval
    hdi: Interval
    level: float
    uncertainty: str
    prob_calibrated: float
    tolerance: float
    bin_moments: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    mean_score: np.ndarray

    @property
    def estimate(self) -> float:
        """The point estimate: the posterior median."""
        return self.median

    @property
    def upper_bound(self) -> float:
        """The one-sided upper bound at ``level``: the draws' ``level`` quantile (NC-ECE is
        below it with probability ``level``).  Near 0, where a recalibrated predictor's NC-ECE
        lies, a two-sided interval misses the target from above by construction; this bound
        does not (measured on a nearly calibrating Platt map: 86% two-sided, 90% one-sided for
        90%, benchmarks/RESULTS.md)."""
        return float(np.quantile(self.draws, self.level))

    def _repr_html_(self) -> str:
        low, high = self.interval
        rows = [
            _html.row(_html.cell("posterior median"), _html.cell(_html.number(self.median))),
            _html.row(_html.cell("posterior mean"), _html.cell(_html.number(self.mean))),
            _html.row(
                _html.cell(f"{self.level:.0%} equal-tailed interval"),
                _html.cell(f"[{low:.4f}, {high:.4f}]"),
            ),
            _html.row(
                _html.cell(f"{self.level:.0%} highest-density interval"),
                _html.cell(f"[{self.hdi[0]:.4f}, {self.hdi[1]:.4f}]"),
            ),
            _html.row(
                _html.cell(f"chance that NC-ECE is at most {self.tolerance:g}"),
                _html.cell(chance_text(self.prob_calibrated)),
            ),
            _html.row(_html.cell("uncertainty"), _html.cell(self.uncertainty, text=True)),
            _html.row(_html.cell("draws"), _html.cell(self.draws.size)),
        ]
        return "<p>NC-ECE posterior</p>" + _html.table(["quantity", "value"], rows)

    def bin_accuracy(self) -> np.ndarray:
        """Draws of each bin's corrected mean label ``zbar_l + r_l n / n_l``, shape (S, M)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (
                self.mean_score
                + self.bin_moments * self.counts.sum(axis=-1, keepdims=True) / self.counts
            )

    def reliability_band(self) -> ReliabilityBand:
        """Posterior median and ``level`` interval of every bin's corrected mean label (fixed scores).

        Raises
        ------
        ValueError
            For a recalibration result, whose bins differ by draw.
        """
        if self.mean_score.ndim != 1:
            raise ValueError(
                "this posterior has bins that differ by draw (a recalibration result); use nc_ece_posterior of fixed scores"
            )
        nonempty = self.counts > 0
        tail = (1.0 - self.level) / 2.0
        quantiles = np.full((3, self.counts.size), np.nan)
        quantiles[:, nonempty] = np.quantile(
            self.bin_accuracy()[:, nonempty], [tail, 0.5, 1.0 - tail], axis=0
        )
        return ReliabilityBand(
            self.edges, self.counts, self.mean_score, *quantiles, level=self.level
        )

    def __repr__(self) -> str:
        return (
            f"PosteriorECE(median={self.median:.4f}, {self.level:.0%} interval=[{self.interval[0]:.4f}, "
            f"{self.interval[1]:.4f}], uncertainty={self.uncertainty!r}, P(ECE <= {self.tolerance:g})={self.prob_calibrated:.2f})"
        )


def highest_density_interval(draws: np.ndarray, level: float) -> Interval:
    """The narrowest interval holding ``level`` of the sorted draws."""
    ordered = np.sort(draws)
    count = min(max(int(np.ceil(level * ordered.size)), 1), ordered.size)  # draws inside
    spans = ordered[count - 1 :] - ordered[: ordered.size - count + 1]
    start = int(np.argmin(spans))
    return Interval(float(ordered[start]), float(ordered[start + count - 1]))


#: The fewest draws ``max_draws`` may keep: the tails of fewer are mostly Monte Carlo noise.
MIN_KEPT_DRAWS = 100


def evenly_spaced(n_draws: int, max_draws: int | None) -> slice | np.ndarray:
    """Rows of at most ``max_draws`` of ``n_draws`` stacked draws, evenly spaced through them
    (so through every chain alike); every row when ``max_draws`` is None or not fewer."""
    if max_draws is None or max_draws >= n_draws:
        return slice(None)
    # the spacing (n - 1) / (m - 1) is at least 1, so the rounded rows are distinct
    return np.linspace(0, n_draws - 1, max_draws).round().astype(np.int64)


def posterior_summary(
    moments,
    uncertainty: str,
    level: float,
    tolerance: float,
    edges,
    counts,
    mean_score,
) -> PosteriorECE:
    """PosteriorECE of bin-moment draws (S, M): raw ``sum_l |r_l|`` and the reported draws,
    with total uncertainty bias-corrected (:mod:`bayescal.correction.folded_correction`)."""
    raw = np.abs(moments).sum(axis=1)
    reported = corrected_draws(moments) if uncertainty == "total" else raw
    tail = (1.0 - level) / 2.0
    return PosteriorECE(
        draws=reported,
        raw_draws=raw,
        mean=float(reported.mean()),
        median=float(np.median(reported)),
        interval=Interval(
            float(np.quantile(reported, tail)), float(np.quantile(reported, 1.0 - tail))
        ),
        hdi=highest_density_interval(reported, level),
        level=level,
        uncertainty=uncertainty,
        prob_calibrated=float(np.mean(reported <= tolerance)),
        tolerance=tolerance,
        bin_moments=moments,
        edges=edges,
        counts=counts,
        mean_score=mean_score,
    )


@dataclass(frozen=True, eq=False, repr=False)
class PosteriorRecalibration(Result):
    """Recalibration with every posterior draw of the channels (paper §5 with the design notes).

    Attributes
    ----------
    method : str
    maps : MapDraws or ClassMapDraws
        One map per draw, fitted to that draw's corrected labels of the fitting sample: the
        draws of the map parameters (``maps.parameters``), with convergence and box flags
        (multi-class: :class:`~bayescal.bayes.class_recalibration.ClassMapDraws`).
    map : TemperatureScaling, PlattScaling, HistogramBinning, ClassTemperatureScaling or VectorScaling
        The posterior-mean map (parameters averaged over draws): a usable predictor.
    recalibrated : PosteriorECE
        NC-ECE on the evaluation sample of each draw's map, scored with the same draw's
        channels, in equal-width bins of the transformed score.  ``counts`` and ``mean_score``
        are per draw, shape (S, M), because the transformed scores differ between draws.
    base : PosteriorECE
        NC-ECE of the original scores on the evaluation sample.
    naive : PosteriorECE
        NC-ECE of the map fitted to the mean annotator responses (``naive_map``).
    naive_map : fitted map
    """

    method: str
    maps: object
    map: object
    recalibrated: PosteriorECE
    base: PosteriorECE
    naive: PosteriorECE
    naive_map: object

    def table(self):
        """Base, Naive and Corrected NC-ECE: posterior median, mean, credible interval, the
        one-sided upper bound at the same level (:attr:`PosteriorECE.upper_bound`, what to
        read for a recalibrated predictor, whose NC-ECE lies near 0) and P(ECE <= tolerance).

        The intervals are those of each draw's map; the map a user applies is their mean
        (``map``), whose ECE is the target they were measured against."""
        import pandas as pd

        rows = {"base": self.base, "naive": self.naive, "corrected": self.recalibrated}
        return pd.DataFrame(
            {
                fit: {
                    "median": result.median,
                    "mean": result.mean,
                    "lower": result.interval[0],
                    "upper": result.interval[1],
                    "upper bound": result.upper_bound,
                    f"P(ECE <= {result.tolerance:g})": result.prob_calibrated,
                }
                for fit, result in rows.items()
            }
        ).T.rename_axis(f"{self.method} ({self.recalibrated.level:.0%} interval)")

    def parameter_summary(self):
        """Posterior mean, sd and equal-tailed interval of each map parameter (histograms: per bin)."""
        import pandas as pd

        tail = (1.0 - self.recalibrated.level) / 2.0
        columns = {}
        for name, draws in self.maps.parameters.items():
            flat = draws.reshape(draws.shape[0], -1)
            labels = [name] if draws.ndim == 1 else [f"{name}[{h}]" for h in range(flat.shape[1])]
            for label, column in zip(labels, flat.T):
                low, high = np.quantile(column, [tail, 1.0 - tail])
                columns[label] = {
                    "mean": column.mean(),
                    "sd": column.std(ddof=1) if column.size > 1 else 0.0,
                    "lower": low,
                    "upper": high,
                }
        return pd.DataFrame(columns).T
