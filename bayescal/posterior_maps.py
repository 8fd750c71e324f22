"""Recalibration with every posterior draw of the channels (paper §5 with the design notes).

Each draw's corrected labels of the fitting sample fit one map (all draws solved together by
the vectorised projected Newton solver of :mod:`bayescal.recalibration`), and each map is
scored by the same draw's NC-ECE on the evaluation sample, with the Bayesian bootstrap and the
debiasing of :func:`bayescal.nc_ece_posterior`.  A crowd's labels follow the crowd rule
(DESIGN §4, :mod:`bayescal._response_moments`) in every draw, as in its Base and Naive rows, so
before and after are scored on the same items; nothing holds draws x items x annotators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validation as v
from ._api import DEFAULT_FIT_BINS, DEFAULT_LEVEL, DEFAULT_N_BINS, Result, old_spellings
from ._response_moments import crowd_target_draws, report_unlabelled
from ._target_draws import TargetDraws, moment_draws
from .cells import count_rows
from .correction import is_crowd, pattern_labels, soft_vote
from .data import AnnotatedScores
from .posterior import (
    UNCERTAINTY,
    PosteriorECE,
    checked_draws,
    fit_weights,
    nc_ece_posterior,
    posterior_summary,
)
from .recalibration import DEFAULT_EPS, make_map

__all__ = ["PosteriorRecalibration", "posterior_recalibration"]


@dataclass(frozen=True, eq=False, repr=False)
class PosteriorRecalibration(Result):
    """Recalibration with every posterior draw of the channels (paper §5 with the design notes).

    Attributes
    ----------
    method : str
    maps : MapDraws
        One map per draw, fitted to that draw's corrected labels of the fitting sample: the
        draws of the map parameters (``maps.parameters``), with convergence and box flags.
    map : TemperatureScaling, PlattScaling or HistogramBinning
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
        """Base, Naive and Corrected NC-ECE: posterior median, mean, credible interval, P(ECE <= tolerance)."""
        import pandas as pd

        rows = {"base": self.base, "naive": self.naive, "corrected": self.recalibrated}
        return pd.DataFrame(
            {
                fit: {
                    "median": result.median,
                    "mean": result.mean,
                    "lower": result.interval[0],
                    "upper": result.interval[1],
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


def _target_draws(data: AnnotatedScores, a, b, rule) -> TargetDraws:
    """Each item's corrected label under every draw ``a, b`` (S, K): a crowd's by the crowd
    rule from its responses, others' by their response patterns (one label per pattern)."""
    if is_crowd(data):
        return crowd_target_draws(data, a, b, rule)
    rows, counts, cell = count_rows(
        np.zeros(data.n_items, dtype=np.int64), data.annotations, return_inverse=True
    )
    labels = pattern_labels(rows[:, 1:], counts, a, b, rule)  # (S, patterns)
    return TargetDraws(a.shape[0], data.n_items, lambda draws: (labels[draws][:, cell], None))


@old_spellings(
    renamed={"interval": "level"},
    was="posterior_recalibration(fit, fit_data, eval_data, method, ...)",
)
def posterior_recalibration(
    fit_data,
    eval_data,
    fit,
    *,
    method="platt",
    weights="iv",
    fit_bins=DEFAULT_FIT_BINS,
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    uncertainty="total",
    tolerance=0.01,
    eps=DEFAULT_EPS,
    seed=0,
) -> PosteriorRecalibration:
    """Recalibrate under every posterior draw of the channels and report NC-ECE with intervals.

    For each draw ``s`` of ``fit``: the corrected labels of ``fit_data`` under the draw's
    channels (weights recomputed per draw), a map fitted to them (paper §5: corrected log loss
    for temperature and Platt, all draws solved together by vectorised projected Newton;
    closed-form projected bin means for histograms), and that map's NC-ECE on ``eval_data``
    with the same draw's corrected labels, in equal-width bins of the transformed score
    (App. E.5).  The Base (original scores) and Naive (map fitted to mean responses) rows are
    scored by :func:`nc_ece_posterior` on the same evaluation sample, for comparison.  On a
    crowd (more than 12 annotators) the corrected labels follow the crowd rule: an item
    labelled only by workers too uninformative to correct it has no label in that draw and
    drops out of the draw's map fit and NC-ECE alike (one warning per sample says how many).

    Parameters
    ----------
    fit_data, eval_data : AnnotatedScores
        Fitting and evaluation samples with the fit's annotators.
    fit : BayesFit
        Channel posterior, ideally from a third, independent channel sample (App. E.5).
    method : {"platt", "temperature", "histogram"}, default "platt"
    weights : rule name or array_like, default "iv"
    fit_bins : int, default 10
        Fitting bins of the histogram map.
    n_bins : int or "auto", default 10
        Equal-width evaluation bins of the transformed scores.
    level : float in (0, 1), default 0.9
        Mass of the credible intervals.
    uncertainty : {"total", "channels"}, default "total"
        As in :func:`nc_ece_posterior`: ``"total"`` adds a Bayesian bootstrap of the evaluation
        items to each draw and debiases bins that cannot be told from 0.
    tolerance : float, default 0.01
    eps : float, default 1e-6
        Input clipping of the logistic maps.
    seed : int, default 0

    Returns
    -------
    PosteriorRecalibration
    """
    a, b = checked_draws(fit, {"fit_data": fit_data, "eval_data": eval_data})
    template = make_map(method, fit_bins=fit_bins, strategy="uniform", eps=eps)
    rule = fit_weights(weights, fit_data.n_annotators)
    bins = v.as_n_bins(n_bins, eval_data.n_items)
    level = v.as_open_probability(level, "level")
    uncertainty = v.as_choice(uncertainty, "uncertainty", UNCERTAINTY)
    tolerance = v.as_probability(tolerance, "tolerance")
    seed = v.as_seed(seed)

    fit_targets = _target_draws(fit_data, a, b, rule)
    maps = template.fit_draws(fit_data.scores, fit_targets)
    report_unlabelled(fit_targets.dropped, fit_data.n_items)
    maps.warn("posterior_recalibration")

    # Each draw's map scored against the same draw's corrected labels, in equal-width bins of
    # its own transformed scores (App. E.5): the bins differ by draw.
    edges = np.linspace(0.0, 1.0, bins + 1)
    eval_targets = _target_draws(eval_data, a, b, rule)
    moments, bin_counts, score_sums = moment_draws(
        eval_targets,
        lambda draws: maps.predict(eval_data.scores, rows=draws),
        edges,
        "uniform",
        uncertainty,
        seed,
    )
    report_unlabelled(eval_targets.dropped, eval_data.n_items)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = score_sums / bin_counts
    recalibrated = posterior_summary(
        moments, uncertainty, level, tolerance, edges, bin_counts, mean_score
    )

    options = {
        "n_bins": bins,
        "weights": weights,
        "level": level,
        "uncertainty": uncertainty,
        "tolerance": tolerance,
        "seed": seed,
    }
    naive_map = make_map(maps.method, fit_bins=fit_bins, strategy="uniform", eps=eps).fit(
        fit_data.scores, soft_vote(fit_data.annotations)
    )
    naive_scores = AnnotatedScores(
        naive_map.predict(eval_data.scores),
        eval_data.annotations,
        annotator_names=eval_data.annotator_names,
    )
    return PosteriorRecalibration(
        method=maps.method,
        maps=maps,
        map=maps.mean_map(),
        recalibrated=recalibrated,
        base=nc_ece_posterior(eval_data, fit, **options),
        naive=nc_ece_posterior(naive_scores, fit, **options),
        naive_map=naive_map,
    )
