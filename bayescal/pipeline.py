"""The whole job on one table: channels, naive ECE, NC-ECE (frequentist and posterior), checks.

:func:`analyse` is what ``bayescal fit`` runs; it returns the fits and a JSON-ready summary
(documented in the README, "summary.json").  Nothing here reads argv or writes files.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from . import __version__
from . import _validation as v
from .channels import dawid_skene_em_counts, grouped_em_counts, score_groups
from .correction import PatternBins, _majority_vote, _soft_vote, pattern_bins
from .data import AnnotatedScores
from .metrics import (
    ReliabilityBand,
    ReliabilityCurve,
    expected_calibration_error,
    reliability_curve,
)

__all__ = [
    "MODEL_CHOICES",
    "Analysis",
    "analyse",
    "choose_model",
    "frequentist_channels",
    "model_data",
    "reliability_from_summary",
]

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
            return (
                "dawid_skene",
                f"auto: {n_annotators} annotators identify the marginal Dawid–Skene model",
            )
        return "hui_walter", "auto: two annotators need score groups (Hui–Walter)" + (
            "" if has_groups else f"; {DEFAULT_GROUPS} equal-width groups were formed"
        )
    return model.replace("-", "_"), f"chosen: {model}"


def model_data(data, model: str = "auto") -> tuple[str, str, AnnotatedScores]:
    """The model to fit, why, and the data it is fitted to (with score groups for Hui–Walter)."""
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    name, why = choose_model(data.n_annotators, model, data.groups is not None)
    if name == "hui_walter" and data.groups is None:
        data = AnnotatedScores(
            data.scores,
            data.annotations,
            groups=score_groups(data.scores, n_groups=DEFAULT_GROUPS),
            annotator_names=data.annotator_names,
        )
    return name, why, data


#: The EM estimate that matches each Bayesian model, run on pattern counts.
EM_ON_COUNTS = {"dawid_skene": dawid_skene_em_counts, "hui_walter": grouped_em_counts}


def frequentist_channels(data, model: str = "auto", seed: int = 0):
    """The EM estimate that matches :func:`choose_model`: Dawid–Skene EM, or grouped EM on score
    groups; returns the :class:`~bayescal.ChannelFit` and the data it was fitted to."""
    name, _, data = model_data(data, model)
    return EM_ON_COUNTS[name](data.compress(), seed=v.as_seed(seed)), data


@contextmanager
def _timed(timings: dict, step: str):
    """Add the wall time of the block to ``timings[step]`` (seconds)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[step] = timings.get(step, 0.0) + time.perf_counter() - start


def _undefined(reason: str) -> dict:
    return {"value": None, "reason": reason}


def _finite(values) -> list:
    """Floats for JSON, ``None`` where a value is undefined (NaN: an empty bin)."""
    return [
        float(x) if np.isfinite(x) else None for x in np.asarray(values, dtype=np.float64).ravel()
    ]


def _interval_entry(draws: np.ndarray, tail: float, diagnostics, parameter: str) -> dict:
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    row = diagnostics.loc[parameter]
    return {
        "posterior_mean": float(draws.mean()),
        "interval": [float(low), float(high)],
        "r_hat": _finite([row["r_hat"]])[0],
        "ess_bulk": _finite([row["ess_bulk"]])[0],
    }


def _identification(checks) -> dict:
    """Status from the ``model`` rows of :func:`bayescal.check_model`: identified, saturated
    (identified but untestable) or weakly identified."""
    rows = checks[checks["check"] == "model"].set_index("subject")
    weak = bool(rows.loc["identification", "flag"]) if "identification" in rows.index else False
    saturated = bool(rows.loc["saturation", "flag"]) if "saturation" in rows.index else False
    status = "weakly identified" if weak else "saturated" if saturated else "identified"
    return {"status": status, "notes": [str(note) for note in rows["note"] if note]}


def _reliability(cells: PatternBins, naive: dict, posterior, scores: np.ndarray, truth) -> dict:
    """Per-bin data of the reliability diagram: the corrected band and the naive curves."""
    band = posterior.reliability_band()
    curves = {name: cells.curve(targets) for name, targets in naive.items()}
    if truth is not None:
        curves["oracle"] = reliability_curve(truth, scores, band.counts.size)
    return {
        "level": band.level,
        "edges": _finite(band.edges),
        "counts": [int(n) for n in band.counts],
        "mean_score": _finite(band.mean_predicted),
        "corrected": {
            "lower": _finite(band.lower),
            "median": _finite(band.median),
            "upper": _finite(band.upper),
        },
        "curves": {name: _finite(curve.mean_target) for name, curve in curves.items()},
    }


def reliability_from_summary(section: dict):
    """The :class:`~bayescal.metrics.ReliabilityBand` and overlay curves saved by :func:`analyse`."""
    nan = lambda values: np.array([np.nan if x is None else x for x in values], dtype=np.float64)  # noqa: E731
    edges, counts, mean_score = (
        nan(section["edges"]),
        np.asarray(section["counts"], dtype=np.int64),
        nan(section["mean_score"]),
    )
    corrected = section["corrected"]
    band = ReliabilityBand(
        edges,
        counts,
        mean_score,
        nan(corrected["lower"]),
        nan(corrected["median"]),
        nan(corrected["upper"]),
        section["level"],
    )
    labels = {
        "soft_vote": "soft vote (naive)",
        "majority_vote": "majority vote (naive)",
        "oracle": "oracle (truth column)",
    }
    curves = {
        labels.get(name, name): ReliabilityCurve(edges, counts, mean_score, nan(values))
        for name, values in section["curves"].items()
    }
    return band, curves


def _record(data: AnnotatedScores, prevalence: np.ndarray, tail: float, truth, bins: int) -> dict:
    """The calibration-record fields of seeds/003 that apply to an evaluation without an anchor
    (and, given a truth column, the full record of the predictor thresholded at 0.5)."""
    labelled = (data.annotations != -1).sum(axis=1)
    overall = (
        prevalence
        if prevalence.ndim == 1
        else (prevalence * np.bincount(data.groups)[None, :]).sum(axis=1) / data.n_items
    )
    low, high = np.quantile(overall, [tail, 1.0 - tail])
    record = {
        "n_items": data.n_items,
        "class_balance": {
            "prevalence_posterior_mean": float(overall.mean()),
            "interval": [float(low), float(high)],
        },
        "provenance": "noisy annotators, no anchor: ECE is measured against noise-corrected labels, not trusted ones",
        "n_annotators": data.n_annotators,
        "repeat_rate": float((labelled >= 2).mean()),
        "fitted_or_held_out": "fitted: the channels are estimated on the items they correct (the paper's reuse mode)",
        "interval_method": "equal-tailed posterior interval; channel draws pushed through NC-ECE with a Bayesian bootstrap of the items",
        "binning": f"{bins} equal-width bins",
    }
    if truth is not None:
        from .agreement import calibration_record

        verdicts = (data.scores >= 0.5).astype(np.int64)
        judged = calibration_record(
            verdicts,
            truth,
            name="predictor (score >= 0.5)",
            n_annotators=data.n_annotators,
            repeat_rate=record["repeat_rate"],
        )
        record["against_truth"] = judged.to_dict()
    return record


def analyse(
    data,
    truth=None,
    model="auto",
    priors=None,
    n_bins=10,
    interval=0.9,
    seed=0,
    progress=False,
    bayes_options=None,
) -> Analysis:
    """Fit and summarise one data set (the work of ``bayescal fit``).

    Parameters
    ----------
    data : AnnotatedScores
        With ``groups`` for Hui–Walter (two annotators get five equal-width groups if none).
    truth : array_like of 0/1, optional
        True labels, for the oracle ECE and the calibration record against them.
    model : {"auto", "dawid-skene", "hui-walter"}
    priors : Priors, optional
        Priors of the Bayesian model (default flat, :class:`bayescal.priors.Priors`).
    n_bins : int or "auto", default 10
    interval : float, default 0.9
    seed : int, default 0
    progress : bool, default False
    bayes_options : dict, optional
        Extra keyword arguments of :func:`bayescal.fit_bayes` (num_chains, num_warmup, num_samples).

    Returns
    -------
    Analysis
        Its ``summary`` is the JSON document of the README ("summary.json"): no NaN anywhere,
        an undefined quantity is ``null`` with a reason.
    """
    from .checks import check_model, verdicts
    from .inference import fit_bayes
    from .posterior import posterior_ece

    name, why, data = model_data(data, model)
    if truth is not None:
        truth = v.as_binary_labels(truth, "truth")
        v.check_same_length(truth, "truth", data.scores, "data.scores")
    bins = v.as_n_bins(n_bins, data.n_items)
    level = v.as_open_probability(interval, "interval")
    seed = v.as_seed(seed)

    timings = {}
    with _timed(timings, "compress"):
        counts = data.compress()  # every model runs on the (group, pattern) counts
        # and every pattern-level ECE (naive votes, NC-ECE with EM channels) on the (bin, pattern) cells
        cells = pattern_bins(data.scores, data.annotations, bins, "uniform")
    naive = {
        "soft_vote": _soft_vote(cells.patterns),
        "majority_vote": _majority_vote(cells.patterns, "half"),
    }
    with _timed(timings, "em"):
        channel_fit = EM_ON_COUNTS[name](counts, seed=seed)
        frequentist = (
            _undefined(f"{channel_fit.method} failed: {channel_fit.failure}")
            if channel_fit.failure
            else None
        )
        if frequentist is None:
            try:
                frequentist = {
                    "value": cells.moments(cells.corrected_targets(channel_fit.channels)).ece,
                    "estimator": channel_fit.method,
                }
            except ValueError as error:  # channels that cannot correct (a zero gap)
                frequentist = _undefined(str(error))
    with _timed(timings, "nuts"):
        fit = fit_bayes(
            counts, model=name, priors=priors, seed=seed, progress=progress, **(bayes_options or {})
        )
    with _timed(timings, "push_through"):
        posterior = posterior_ece(fit, data, n_bins=bins, interval=level, seed=seed)
    with _timed(timings, "checks"):
        checks = check_model(fit, data, seed=seed)

    a, b, prevalence = fit.draws()
    tail = (1.0 - level) / 2.0
    diagnostics = fit.diagnostics
    channels = {}
    for j, annotator in enumerate(data.annotator_names):
        channels[annotator] = {}
        for label, draws in (("a", a[:, j]), ("b", b[:, j])):
            entry = _interval_entry(draws, tail, diagnostics, f"{label}[{annotator}]")
            entry["em"] = (
                None if channel_fit.failure else float(getattr(channel_fit.channels, label)[j])
            )
            channels[annotator][label] = entry
    prevalence_rows = [p for p in diagnostics.index if p.startswith("prevalence")]
    groups = data.groups if data.groups is not None else np.zeros(data.n_items, dtype=np.int64)
    ids, sizes = np.unique(groups, return_counts=True)
    oracle = (
        _undefined("no truth column given")
        if truth is None
        else {"value": expected_calibration_error(truth, data.scores, bins)}
    )
    summary = {
        "bayescal_version": __version__,
        "data": {
            "n_items": data.n_items,
            "annotators": list(data.annotator_names),
            "missing_rate": float((data.annotations == -1).mean()),
            "missing_by_annotator": {
                name: float(rate)
                for name, rate in zip(data.annotator_names, (data.annotations == -1).mean(axis=0))
            },
            "groups": {str(int(g)): int(n) for g, n in zip(ids, sizes)},
        },
        "model": {
            "name": name,
            "why": why,
            "priors": fit.priors.to_dict(),
            "chains": int(fit.idata.posterior.sizes["chain"]),
            "draws_per_chain": int(fit.idata.posterior.sizes["draw"]),
        },
        "identification": _identification(checks),
        "channels": channels,
        "prevalence": {
            row: _interval_entry(draws, tail, diagnostics, row)
            for row, draws in zip(prevalence_rows, np.atleast_2d(prevalence.T))
        },
        "diagnostics": {
            "max_r_hat": _finite([diagnostics["r_hat"].max()])[0],
            "min_ess_bulk": _finite([diagnostics["ess_bulk"].min()])[0],
            "divergences": int(diagnostics["divergences"].iloc[0]),
        },
        "ece": {
            "n_bins": bins,
            "naive": {label: cells.moments(targets).ece for label, targets in naive.items()},
            "nc_ece": {
                "frequentist": frequentist,
                "posterior": {
                    "median": posterior.median,
                    "interval": [posterior.interval[0], posterior.interval[1]],
                    "level": level,
                },
            },
            "oracle": oracle,
        },
        "reliability": _reliability(cells, naive, posterior, data.scores, truth),
        "checks": {
            "verdicts": verdicts(checks),
            "flagged": int(checks["flag"].sum()),
            "table": [
                {
                    column: (value if not isinstance(value, float) or np.isfinite(value) else None)
                    for column, value in row.items()
                }
                for row in checks.astype(object).to_dict(orient="records")
            ],
        },
        "record": _record(data, prevalence, tail, truth, bins),
        "timings": {step: round(seconds, 3) for step, seconds in timings.items()},
    }
    return Analysis(data, channel_fit, fit, posterior, checks, summary)
