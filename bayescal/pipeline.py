"""The whole job on one table: channels, naive ECE, NC-ECE (frequentist and posterior), checks.

:func:`analyse` is what ``bayescal fit`` runs; it returns the fits and a JSON-ready summary
(documented in the README, "summary.json").  Nothing here reads argv or writes files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import __version__
from . import _validation as v
from .channels import ChannelFitError, dawid_skene_em, grouped_em, score_groups
from .correction import majority_vote_ece, nc_ece, soft_vote_ece
from .data import AnnotatedScores
from .metrics import expected_calibration_error

__all__ = ["MODEL_CHOICES", "Analysis", "analyse", "choose_model"]

#: ``--model`` values of the command line.
MODEL_CHOICES = ("auto", "dawid-skene", "hui-walter")
#: Score groups used for two annotators when none are given.
DEFAULT_GROUPS = 5


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything :func:`analyse` computed: the data it used, the fits and the summary."""

    data: AnnotatedScores
    channel_fit: object
    bayes_fit: object
    posterior: object
    checks: object
    summary: dict


def choose_model(n_annotators: int, model: str, has_groups: bool) -> tuple[str, str]:
    """The Bayesian model to fit and why: ``auto`` is Dawid–Skene for K >= 3, Hui–Walter with
    score groups for K = 2."""
    model = v.as_choice(model, "model", MODEL_CHOICES)
    if model == "auto":
        if n_annotators >= 3:
            return "dawid_skene", f"auto: {n_annotators} annotators identify the marginal Dawid–Skene model"
        return "hui_walter", "auto: two annotators need score groups (Hui–Walter)" + ("" if has_groups else f"; {DEFAULT_GROUPS} equal-width groups were formed")
    return model.replace("-", "_"), f"chosen: {model}"


def _undefined(reason: str) -> dict:
    return {"value": None, "reason": reason}


def analyse(data, truth=None, model="auto", n_bins=10, interval=0.9, seed=0, progress=False, bayes_options=None) -> Analysis:
    """Fit and summarise one data set (the work of ``bayescal fit``).

    Parameters
    ----------
    data : AnnotatedScores
        With ``groups`` for Hui–Walter (two annotators get five equal-width groups if none).
    truth : array_like of 0/1, optional
        True labels, for the oracle ECE.
    model : {"auto", "dawid-skene", "hui-walter"}
    n_bins : int or "auto", default 10
    interval : float, default 0.9
    seed : int, default 0
    progress : bool, default False
    bayes_options : dict, optional
        Extra keyword arguments of :func:`bayescal.fit_bayes` (chains, warmup, samples).
    """
    from .checks import check_model, verdicts
    from .inference import fit_bayes
    from .posterior import posterior_ece

    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    name, why = choose_model(data.n_annotators, model, data.groups is not None)
    if name == "hui_walter" and data.groups is None:
        data = AnnotatedScores(data.scores, data.annotations, groups=score_groups(data.scores, n_groups=DEFAULT_GROUPS), annotator_names=data.annotator_names)
    bins = v.as_n_bins(n_bins, data.n_items)
    level = v.as_open_probability(interval, "interval")
    seed = v.as_seed(seed)

    estimator = dawid_skene_em if name == "dawid_skene" else grouped_em
    channel_fit = estimator(data, seed=seed)
    frequentist = _undefined(f"{channel_fit.method} failed: {channel_fit.failure}") if channel_fit.failure else None
    if frequentist is None:
        try:
            frequentist = {"value": nc_ece(data, channel_fit.channels, n_bins=bins).estimate, "estimator": channel_fit.method}
        except (ChannelFitError, ValueError) as error:
            frequentist = _undefined(str(error))
    fit = fit_bayes(data, model=name, seed=seed, progress=progress, **(bayes_options or {}))
    posterior = posterior_ece(fit, data, n_bins=bins, interval=level, seed=seed)
    checks = check_model(fit, data, seed=seed)

    a, b, prevalence = fit.draws()
    tail = (1.0 - level) / 2.0
    channels = {}
    for j, annotator in enumerate(data.annotator_names):
        entry = {}
        for label, draws in (("a", a[:, j]), ("b", b[:, j])):
            low, high = np.quantile(draws, [tail, 1.0 - tail])
            entry[label] = {"posterior_mean": float(draws.mean()), "interval": [float(low), float(high)]}
            entry[label]["em"] = None if channel_fit.failure else float(getattr(channel_fit.channels, label)[j])
        channels[annotator] = entry
    groups = data.groups if data.groups is not None else np.zeros(data.n_items, dtype=np.int64)
    ids, sizes = np.unique(groups, return_counts=True)
    oracle = _undefined("no truth column given") if truth is None else {"value": expected_calibration_error(truth, data.scores, bins)}
    diagnostics = fit.diagnostics
    summary = {
        "bayescal_version": __version__,
        "data": {
            "n_items": data.n_items,
            "annotators": list(data.annotator_names),
            "missing_rate": float((data.annotations == -1).mean()),
            "groups": {str(int(g)): int(n) for g, n in zip(ids, sizes)},
        },
        "model": {"name": name, "why": why},
        "channels": channels,
        "prevalence": {"posterior_mean": np.atleast_1d(prevalence.mean(axis=0)).tolist()},
        "diagnostics": {
            "max_r_hat": float(diagnostics["r_hat"].max()),
            "min_ess_bulk": float(diagnostics["ess_bulk"].min()),
            "divergences": int(diagnostics["divergences"].iloc[0]),
        },
        "ece": {
            "n_bins": bins,
            "naive": {
                "soft_vote": soft_vote_ece(data.scores, data.annotations, bins),
                "majority_vote": majority_vote_ece(data.scores, data.annotations, bins),
            },
            "nc_ece": {
                "frequentist": frequentist,
                "posterior": {"median": posterior.median, "interval": [posterior.interval[0], posterior.interval[1]], "level": level},
            },
            "oracle": oracle,
        },
        "checks": {"verdicts": verdicts(checks), "flagged": int(checks["flag"].sum())},
    }
    return Analysis(data, channel_fit, fit, posterior, checks, summary)
