"""The predictor's rates and the population's positive rate, from corrected labels and gold.

Every metric of a predictor that is an average over items of a quantity linear in the true
label, ``m = mean_i [alpha(Z_i) + beta(Z_i) Y_i]``, has a noise-corrected estimate: the
corrected label ``U_i`` in place of ``Y_i`` is unbiased for it (paper Lemma C.2), and with gold
items the rectified mean of :mod:`bayescal.correction.rectified` stays unbiased when the channel
model is wrong.  With ``yhat_i = 1{Z_i >= t}``:

- ``positive_rate`` (the population's, ``P(Y = 1)``; a judge's pass rate corrected):
  ``alpha = 0, beta = 1``;
- ``accuracy`` at the threshold ``t``: ``alpha = 1 - yhat, beta = 2 yhat - 1``;
- ``brier``: ``(Z - Y)^2 = Z^2 + (1 - 2 Z) Y``;
- and the ratios of such means: ``tpr = E[yhat Y] / E[Y]``, ``fpr = E[yhat (1 - Y)] /
  E[1 - Y]``, ``precision = E[yhat Y] / E[yhat]`` (each part estimated, then divided).

With one judge the corrected positive rate is the Rogan–Gladen estimate
``(p - a) / (b - a)`` (Rogan and Gladen 1978): ``p`` the judge's positive rate, ``1 - a`` its
specificity and ``b`` its sensitivity.  Its intervals here come from a bootstrap that resamples
the gold and the other items apart and refits the channels
(:mod:`bayescal.correction.gold_interval`), so the channels' estimation error, the gold's and
the others' sampling error enter together (the judge's rate includes the gold items, which
share their labels with the channel estimate: a delta-method interval that takes them as
independent samples does not see that).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_LEVEL, Result, old_spellings, silenced
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..exceptions import FIT_WARNINGS
from .estimators import estimator_function, fit_or_raise
from .gold_interval import DEFAULT_REPLICATES, bootstrap_replicates, replicate_channels
from .known_channels import correct_annotations, crowd_corrected_labels, is_crowd
from .rectified import GOLD_ESTIMATORS, rectified_mean

__all__ = ["LINEAR_METRICS", "RATIO_METRICS", "CorrectedRates", "corrected_rates"]

#: The metrics linear in Y, by name: ``(alpha, beta)`` of the scores and the decisions.
LINEAR_METRICS = {
    "positive_rate": lambda z, yhat: (np.zeros_like(z), np.ones_like(z)),
    "accuracy": lambda z, yhat: (1.0 - yhat, 2.0 * yhat - 1.0),
    "brier": lambda z, yhat: (z**2, 1.0 - 2.0 * z),
}
#: Their ratios, by name: the (alpha, beta) of the numerator and of the denominator.
RATIO_METRICS = {
    "tpr": (lambda z, yhat: (np.zeros_like(z), yhat), LINEAR_METRICS["positive_rate"]),
    "fpr": (
        lambda z, yhat: (yhat, -yhat),
        lambda z, yhat: (np.ones_like(z), -np.ones_like(z)),
    ),
    "precision": (
        lambda z, yhat: (np.zeros_like(z), yhat),
        lambda z, yhat: (yhat, np.zeros_like(z)),
    ),
}


@dataclass(frozen=True, eq=False, repr=False)
class CorrectedRates(Result):
    """The predictor's rates and the population's positive rate, corrected.

    Attributes
    ----------
    estimates : dict of str to float
        Each metric (:data:`LINEAR_METRICS`, :data:`RATIO_METRICS`) by ``estimator``.
    model : dict of str to float
        The model-based value: the gold label where known, the corrected label elsewhere.
    intervals : dict of str to (float, float)
        Percentile intervals of ``estimates`` at ``level`` from the bootstrap (module
        docstring).
    raw_positive_rates : dict of str to float
        Each annotator's own rate of 1s (what a judge's pass rate reads uncorrected).
    threshold : float
    level : float
    estimator : str
        ``"rectified"`` or ``"model"`` (``"model"`` without gold items).
    n_gold : int
    """

    estimates: dict
    model: dict
    intervals: dict
    raw_positive_rates: dict
    threshold: float
    level: float
    estimator: str
    n_gold: int

    def table(self):
        """One row per metric: estimate, interval and model-based value."""
        import pandas as pd

        return pd.DataFrame(
            {
                name: {
                    "estimate": value,
                    "lower": self.intervals[name][0],
                    "upper": self.intervals[name][1],
                    "model": self.model[name],
                }
                for name, value in self.estimates.items()
            }
        ).T.rename_axis(
            f"{self.estimator} ({self.level:.0%} interval, threshold {self.threshold:g})"
        )


def _means(data: AnnotatedScores, targets: np.ndarray, threshold: float, rectified: bool) -> dict:
    """Every linear mean the metrics need, keyed by (metric, part), from corrected labels
    ``targets`` (n,): rectified with the gold items, or model-based."""
    z = data.scores
    yhat = (z >= threshold).astype(np.float64)
    gold = np.zeros(data.n_items, bool) if data.gold is None else data.gold != v.MISSING
    y = np.where(gold, data.gold if data.gold is not None else 0, targets)
    weights = None
    if data.gold_weights is not None:
        weights = 1.0 / data.gold_weights[gold]
    parts = {name: (linear,) for name, linear in LINEAR_METRICS.items()}
    parts |= RATIO_METRICS
    means = {}
    for name, linears in parts.items():
        for k, linear in enumerate(linears):
            alpha, beta = linear(z, yhat)
            if rectified and gold.any():
                means[name, k] = rectified_mean(
                    alpha[gold] + beta[gold] * y[gold],
                    alpha[gold] + beta[gold] * targets[gold],
                    alpha[~gold] + beta[~gold] * targets[~gold],
                    weights,
                )[0]
            else:
                means[name, k] = float(np.mean(alpha + beta * y))
    return means


def _metrics(means: dict) -> dict:
    out = {name: means[name, 0] for name in LINEAR_METRICS}
    for name in RATIO_METRICS:
        out[name] = means[name, 0] / means[name, 1] if means[name, 1] != 0 else float("nan")
    return out


@old_spellings()
def corrected_rates(
    data,
    *,
    estimator="dawid_skene_em",
    threshold=0.5,
    weights="iv",
    level=DEFAULT_LEVEL,
    n_bootstrap=DEFAULT_REPLICATES,
    seed=0,
    estimator_options=None,
    progress=False,
) -> CorrectedRates:
    """The predictor's accuracy, Brier score, TPR, FPR and precision at ``threshold``, and the
    population's positive rate, from corrected labels (and gold items), with intervals.

    Parameters
    ----------
    data : AnnotatedScores
        With gold items (``data.gold``) the estimates are rectified (module docstring);
        without, model-based.
    estimator : str, Channels or callable, default "dawid_skene_em"
        The channels, as in :func:`bayescal.nc_ece_estimate` (fitted with the gold).
    threshold : float in (0, 1), default 0.5
        The predictor says 1 where its score is at least this.
    weights : rule name or array_like, default "iv"
        How the annotators' corrected labels combine (:func:`bayescal.corrected_labels`).
    level : float, default 0.9
    n_bootstrap : int, default 200
        Replicates of the bootstrap of the intervals (gold and other items resampled apart,
        the channels refitted).
    seed : int, default 0
    estimator_options : dict, optional
    progress : bool, default False

    Returns
    -------
    CorrectedRates
    """
    require_binary(data, "corrected_rates")
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    threshold = v.as_open_probability(threshold, "threshold")
    level = v.as_open_probability(level, "level")
    n_bootstrap = v.as_int(n_bootstrap, "n_bootstrap", minimum=2)
    seed = v.as_seed(seed)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False; saw {type(progress).__name__}")
    options = estimator_options or {}
    fit_channels, name = estimator_function(estimator, options)
    v.check_items_annotated(data.annotations, "data.annotations")

    def targets_of(sample, channels):
        if is_crowd(sample):
            values, labelled = crowd_corrected_labels(sample, channels, weights, report=False)
            return np.where(labelled, values, np.nan)
        return correct_annotations(
            sample.annotations, channels, weights, None, names=sample.annotator_names
        )

    def evaluate(sample, channels, rectified):
        targets = targets_of(sample, channels)
        keep = ~np.isnan(targets)
        if not keep.all():
            sample, targets = sample.subset(keep), targets[keep]
        return _metrics(_means(sample, targets, threshold, rectified))

    channels = (
        estimator
        if fit_channels is None
        else fit_or_raise(fit_channels, name, data, "data").channels
    )
    rectified = bool(data.n_gold)
    estimates = evaluate(data, channels, rectified)
    model = evaluate(data, channels, False)

    def evaluate_silently(replicate, replicate_channels):
        with silenced(*FIT_WARNINGS):
            values = evaluate(replicate, replicate_channels, rectified)
        return np.array([values[k] for k in estimates])

    draws = bootstrap_replicates(
        data,
        lambda replicates: replicate_channels(estimator, options, fit_channels, replicates),
        evaluate_silently,
        n_replicates=n_bootstrap,
        seed=seed,
        progress=progress,
        what="corrected rates",
    )
    tail = (1.0 - level) / 2.0
    low, high = np.nanquantile(draws, [tail, 1.0 - tail], axis=0)
    positive = (data.annotations == 1).sum(axis=0) / (data.annotations != v.MISSING).sum(axis=0)
    return CorrectedRates(
        estimates=estimates,
        model=model,
        intervals={k: (float(lo), float(hi)) for k, lo, hi in zip(estimates, low, high)},
        raw_positive_rates=dict(zip(data.annotator_names, map(float, positive))),
        threshold=threshold,
        level=level,
        estimator=GOLD_ESTIMATORS[0] if rectified else "model",
        n_gold=data.n_gold,
    )
