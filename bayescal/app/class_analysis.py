"""The whole job on one multi-class table: confusion matrices (EM and posterior), naive and
noise-corrected top-label and classwise ECE, the calibration test and the verdict.

:func:`bayescal.analyse` runs :func:`analyse_classes` when the data have three classes or more
(``bayescal fit`` with several ``--score`` columns).  It returns a :class:`ClassAnalysis`,
which shows itself in a notebook, writes its results folder and draws its reliability
diagrams, as the binary :class:`~bayescal.app.Analysis` does.

The steps, each timed in ``summary.timings``:

- ``em``: the multi-class Dawid–Skene EM (:func:`bayescal.dawid_skene_em`; a crowd's,
  :func:`bayescal.crowd_em`), the frequentist baseline, and the test of classes every
  annotator confuses (:func:`bayescal.channels.confused_classes`): they are merged (grades ``"4"`` and
  ``"5"`` into ``"4|5"``), said in one line, and the later steps analyse the merged data;
- ``nuts``: the multi-class Dawid–Skene posterior (:func:`bayescal.fit_bayes`, Dirichlet rows
  under :class:`~bayescal.bayes.ClassPriors`; for a crowd, more than
  :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators, its hierarchical form, the
  workers' matrices drawn from a population);
- ``push_through``: every posterior draw through the top-label and the classwise NC-ECE
  (:func:`bayescal.nc_ece_posterior`), beside the naive ECEs against the soft and majority
  votes and the NC-ECE with the EM matrices (:func:`bayescal.nc_ece_estimate`);
- ``calibration_test``: the multi-class test of ``Y ~ Cat(p)`` on the top label, with the
  EM's refitting bootstrap (:func:`bayescal.calibration_test`).

"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import silenced, warn_caller
from .._version import __version__
from ..bayes.sampler_settings import SamplerSettings
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import ChannelWarning, ConvergenceWarning
from ..metrics.calibration import binned_curve
from ..metrics.classes import CALIBRATION_KINDS, class_problems, vote_targets
from ..report.class_summary import (
    MULTICLASS_SUMMARY,
    ClassDataSummary,
    ClassECE,
    ClassModelSummary,
    ClassReliability,
    ClassSummary,
    ConfusionSummary,
)
from ..report.summary import (
    CalibrationTestSummary,
    Diagnostics,
    Estimate,
    ParameterSummary,
    PosteriorSummary,
    ReliabilitySummary,
    RunRecord,
    Verdict,
    finite,
)
from ..report.verdict import off_diagonal_ranges, verdict_sentence
from .steps import Steps, posterior_section, run_versions, tested_or_warned

__all__ = ["ClassAnalysis", "analyse_classes"]


@dataclass(frozen=True, eq=False)
class ClassAnalysis:
    """Everything :func:`bayescal.analyse` computed on multi-class data.

    Attributes
    ----------
    data : AnnotatedScores
        The data analysed: those given, with the classes every annotator confuses merged
        (``merge``).
    channel_fit : ConfusionFit
        The EM estimate (the frequentist baseline), of ``data``.
    bayes_fit : ClassBayesFit
    posteriors : dict of str to ClassPosteriorECE
        The NC-ECE posterior of each kind, ``top_label`` and ``classwise``.
    test : CalibrationTest or None
        The top-label calibration test; None when it could not run (a warning says why).
    summary : ClassSummary
        Every number of the report (:meth:`to_json` gives it as ``summary.json``).
    merge : ClassMerge
        The test of classes every annotator confuses and what it merged
        (:func:`bayescal.channels.confused_classes`).
    """

    data: AnnotatedScores
    channel_fit: object
    bayes_fit: object
    posteriors: dict
    test: object
    summary: ClassSummary
    merge: object

    def __repr__(self) -> str:
        posterior = self.summary.ece["top_label"].posterior
        low, high = posterior.interval
        naive = self.summary.ece["top_label"].naive["majority_vote"]
        return (
            f"ClassAnalysis({self.data.n_items} items, {self.data.n_annotators} annotators, "
            f"{self.data.n_classes} classes, {self.summary.model.name}: top-label NC-ECE "
            f"{posterior.median:.4f} [{low:.4f}, {high:.4f}] ({posterior.level:.0%}), "
            f"majority-vote top-label ECE {naive:.4f})"
        )

    def _repr_html_(self) -> str:
        from ..report.class_report import class_summary_html

        return class_summary_html(self.summary)

    def to_json(self, *, indent: int = 2) -> str:
        """``summary.json``: strict JSON (an undefined number is ``null`` with a reason)."""
        return json.dumps(self.summary.to_dict(), indent=indent, allow_nan=False)

    def report(self, path, *, force: bool = False, progress: bool = True):
        """Write the results folder (``summary.json``, ``posterior.nc``, ``report.html``,
        ``figures/*.png``) as :meth:`bayescal.app.Analysis.report` does; returns the report's
        path."""
        from ..report.folders import write_analysis

        return write_analysis(path, self, force=force, progress=progress)[1]

    def plot(self, *, class_name: str | None = None, ax=None):
        """The top label's reliability diagram, or with ``class_name`` that class's (its
        probability against its corrected frequency), with the naive curves; returns Axes."""
        from ..report.plotting import plot_reliability

        reliability = self.summary.reliability
        if class_name is None:
            chosen = reliability.top_label
        elif class_name in reliability.classes:
            chosen = reliability.classes[class_name]
        else:
            raise ValueError(
                f"class_name must be one of the classes {list(reliability.classes)}; saw "
                f"{class_name!r}"
            )
        band, curves = chosen.band_and_curves()
        return plot_reliability(band, curves=curves, ax=ax)


class _Inputs(NamedTuple):
    """What reading settles: the data, the truth as class codes (or None), the bins, the
    level and why the model was chosen."""

    data: AnnotatedScores
    truth: np.ndarray | None
    bins: int
    level: float
    model: object  # the ChannelModel of bayescal.bayes.registry
    why: str


def analyse_classes(
    data: AnnotatedScores,
    truth,
    *,
    model,
    priors,
    dependent,
    n_bins,
    level,
    settings: SamplerSettings,
) -> ClassAnalysis:
    """What :func:`bayescal.analyse` does with multi-class ``data`` (module docstring);
    ``settings`` are its sampler settings, with the seed every step uses."""
    steps = Steps(settings.progress)
    seed = settings.seed
    inputs = steps("model_choice", _read, data, truth, model, priors, dependent, n_bins, level)
    inputs, merge = steps("em", _fit_em, inputs, seed)
    channel_fit = merge.fit
    fit = steps("nuts", _fit_bayes, inputs, channel_fit, priors, settings)
    posteriors = steps("push_through", _correct, inputs, channel_fit, fit, seed)
    test = steps("calibration_test", _test, inputs, channel_fit, seed, settings.progress)
    summary = ClassSummary(
        kind=MULTICLASS_SUMMARY,
        bayescal_version=__version__,
        **steps.parts,
        verdict=_verdict(posteriors["top_label"], test, steps.parts["ece"]["top_label"]),
        timings=steps.timings,
        run=RunRecord(
            id=uuid.uuid4().hex,
            seed=seed,
            chain_method=fit.run["chain_method"],
            devices=int(fit.run["devices"]),
            versions=run_versions(),
        ),
    )
    return ClassAnalysis(inputs.data, channel_fit, fit, posteriors, test, summary, merge)


def _class_truth(truth, data: AnnotatedScores) -> np.ndarray | None:
    """The truth as class codes.  Text is class names; so are integers when the classes are
    named by integers (grades ``"1" .. "5"``: truth 1 is grade "1"), else integers are the
    codes ``0 .. C-1`` (as ``AnnotatedScores.annotations`` holds them)."""
    if truth is None:
        return None
    values = np.asarray(truth)
    named_by_integers = all(name.lstrip("-").isdigit() for name in data.classes)
    if values.dtype.kind in "iu" and not named_by_integers:
        codes = v.as_class_labels(values, "truth", data.n_classes)
    else:
        import pandas as pd

        codes = v.class_label_column(pd.Series(values), data.classes, "truth")
        if (codes == v.MISSING).any():
            raise ValueError(
                f"truth must give every item its class; item "
                f"{int(np.flatnonzero(codes == v.MISSING)[0])} has none"
            )
    v.check_same_length(codes, "truth", data.probabilities, "data.scores")
    return codes


def _read(data: AnnotatedScores, truth, model, priors, dependent, n_bins, level):
    """Read: the model (``auto``: the hierarchical one for a crowd, Dawid–Skene for a panel),
    the truth, the bins and the level; dependent pairs and binary priors are refused before
    any work."""
    from ..bayes.priors import ClassPriors
    from ..bayes.registry import choose_class_model

    chosen, why = choose_class_model(data.n_annotators, model)
    ClassPriors.of(priors)  # binary priors refused before the EM, not after it
    if dependent is not None:
        raise ValueError(
            f"dependent: the multi-class model has no dependent pairs; saw {dependent!r}"
        )
    bins = v.as_n_bins(n_bins, data.n_items, refuse_sparse=v.SPARSE_DRAWS)
    level = v.as_open_probability(level, "level")
    truth = _class_truth(truth, data)
    return _Inputs(data, truth, bins, level, chosen, why), {}


def _data_summary(data: AnnotatedScores, merge) -> ClassDataSummary:
    """The data section, of the data analysed (their classes merged as ``merge`` says)."""
    missing = data.annotations == v.MISSING
    return ClassDataSummary(
        n_items=data.n_items,
        annotators=data.annotator_names,
        classes=data.classes,
        ordinal=bool(data.ordinal),
        missing_rate=float(missing.mean()),
        missing_by_annotator={
            name: float(rate) for name, rate in zip(data.annotator_names, missing.mean(axis=0))
        },
        n_gold=data.n_gold,
        merged=tuple("|".join(group) for group in merge.groups),
    )


def _fit_em(inputs: _Inputs, seed: int):
    """Fit, the frequentist baseline: the multi-class Dawid–Skene EM of the model's kind (a
    panel's, or a crowd's with its sparse workers pooled), and the test of classes every
    annotator confuses (:func:`~bayescal.channels.confused_classes`): those are merged, said
    in one line, and every later step analyses the merged data, a truth column recoded
    alike."""
    from ..channels import confused_classes, crowd_em, dawid_skene_em

    data = inputs.data
    # confused classes leave the EM crawling along their flat split; whether the fit the
    # analysis uses converged is said once that fit is known (the merged data's refit)
    with silenced(ConvergenceWarning):
        # a crowd's EM has one start, the majority vote: no seed to take
        fit = crowd_em(data) if inputs.model.for_crowds else dawid_skene_em(data, seed=seed)
    merge = confused_classes(data, fit)
    if merge.sentence() is not None:
        warn_caller(f"analyse: {merge.sentence()}", ChannelWarning)
    if merge.groups:
        truth = None if inputs.truth is None else merge.codes[inputs.truth]
        inputs = inputs._replace(data=merge.data, truth=truth)
    if not merge.fit.converged:
        merged = " on the merged classes" if merge.groups else ""
        warn_caller(
            f"analyse: the EM ({merge.fit.method}){merged} did not converge within its "
            "iterations; its estimate is used as it stands",
            ConvergenceWarning,
        )
    return (inputs, merge), {"data": _data_summary(inputs.data, merge)}


def _fit_bayes(inputs: _Inputs, channel_fit, priors, settings: SamplerSettings):
    """Fit, the posterior: NUTS on the multi-class Dawid–Skene model; its model, confusion,
    proportion and diagnostics sections."""
    from ..bayes.fit import fit_bayes

    fit = fit_bayes(inputs.data, model=inputs.model.name, priors=priors, sampler=settings)
    draws, rows = fit.draws(), fit.diagnostics
    em = dict(zip(channel_fit.annotator_names, channel_fit.channels.confusion))

    def matrix_r_hat(name: str) -> float:
        cells = [f"confusion[{name}, {y}, {k}]" for y in fit.classes for k in fit.classes]
        return rows.loc[cells, "r_hat"].max()

    confusion = {
        name: ConfusionSummary.from_draws(
            draws.confusion[:, j], inputs.level, em[name], matrix_r_hat(name)
        )
        for j, name in enumerate(fit.annotator_names)
    }
    proportion = {
        name: ParameterSummary.from_draws(
            draws.proportion[:, k], inputs.level, rows.loc[f"proportion[{name}]"]
        )
        for k, name in enumerate(fit.classes)
    }
    return fit, {
        "model": ClassModelSummary(
            name=inputs.model.name,
            why=inputs.why,
            priors=fit.priors,
            chains=fit.num_chains,
            draws_per_chain=fit.n_draws // fit.num_chains,
        ),
        "confusion": confusion,
        "proportion": proportion,
        "diagnostics": Diagnostics(
            *finite([rows["r_hat"].max(), rows["ess_bulk"].min()]),
            int(rows["divergences"].iloc[0]),
        ),
    }


def _targets(inputs: _Inputs) -> dict:
    """The uncorrected targets (n, C) the report scores beside NC-ECE: each item's soft and
    majority votes and, with a truth column, its one-hot true class (``oracle``)."""
    data = inputs.data
    targets = vote_targets(data.annotations, data.n_classes)._asdict()
    if inputs.truth is not None:
        targets["oracle"] = np.eye(data.n_classes)[inputs.truth]
    return targets


def _curves(inputs: _Inputs, targets: dict, kind: str) -> dict:
    """Each target's reliability curve of every binary problem of ``kind``; the mean of their
    ECEs is the target's ECE of ``kind``."""
    probabilities = inputs.data.probabilities
    return {
        name: [
            binned_curve(*problem, inputs.bins, "uniform")
            for problem in class_problems(values, probabilities, kind)
        ]
        for name, values in targets.items()
    }


def _mean_ece(curves: list) -> float:
    return float(np.mean([curve.ece for curve in curves]))


def _frequentist(inputs: _Inputs, channel_fit, kind: str, seed: int) -> Estimate:
    """NC-ECE of ``kind`` with the EM matrices (rectified by the gold items when there are
    any)."""
    from ..correction.estimation import nc_ece_estimate

    result = nc_ece_estimate(
        inputs.data, kind=kind, estimator=channel_fit, n_bins=inputs.bins, seed=seed
    )
    return Estimate(result.estimate, estimator=channel_fit.method)


def _correct(inputs: _Inputs, channel_fit, fit, seed: int):
    """Correct: each kind's naive ECEs, NC-ECE with the EM matrices and with every posterior
    draw, the oracle ECE of a truth column, and the reliability diagrams."""
    from ..bayes.posterior import nc_ece_posterior

    posteriors, ece, reliability = {}, {}, {}
    targets = _targets(inputs)
    for kind in CALIBRATION_KINDS:
        posterior = nc_ece_posterior(
            inputs.data, fit, kind=kind, n_bins=inputs.bins, level=inputs.level, seed=seed
        )
        curves = _curves(inputs, targets, kind)
        naive = {name: _mean_ece(curves[name]) for name in ("soft_vote", "majority_vote")}
        oracle = (
            Estimate(_mean_ece(curves["oracle"]), estimator="true labels")
            if "oracle" in curves
            else Estimate(None, reason="no truth column given")
        )
        classes = None
        if kind == "classwise":
            classes = {
                name: PosteriorSummary.from_draws(posterior.class_draws[:, k], inputs.level)
                for k, name in enumerate(posterior.classes)
            }
        ece[kind] = ClassECE(
            naive=naive,
            frequentist=_frequentist(inputs, channel_fit, kind, seed),
            posterior=posterior_section(posterior, inputs.level),
            prob_within_tolerance=float(posterior.prob_calibrated),
            tolerance=float(posterior.tolerance),
            oracle=oracle,
            n_evaluated=posterior.n_evaluated,
            classes=classes,
        )
        posteriors[kind] = posterior
        problems = [None] if kind == "top_label" else list(posterior.classes)
        reliability[kind] = [
            ReliabilitySummary.from_band(
                posterior.reliability_band(class_name=name),
                {label: curve[k] for label, curve in curves.items()},
            )
            for k, name in enumerate(problems)
        ]
    return posteriors, {
        "n_bins": inputs.bins,
        "ece": ece,
        "reliability": ClassReliability(
            reliability["top_label"][0],
            dict(zip(posteriors["classwise"].classes, reliability["classwise"])),
        ),
    }


def _test(inputs: _Inputs, channel_fit, seed: int, progress: bool):
    """Test: the top-label calibration test with the EM's refitting bootstrap (None, said in a
    warning, when the data cannot be tested: bins too sparse)."""
    test = tested_or_warned(inputs.data, channel_fit, inputs.bins, seed, progress)
    return test, {
        "calibration_test": None if test is None else CalibrationTestSummary.from_test(test)
    }


def _verdict(posterior, test, ece: ClassECE) -> Verdict:
    """The verdict in plain words, from the top-label test and its corrected reliability band
    (over-confident where the predicted class is right less often than its confidence)."""
    band = posterior.reliability_band()
    p_value = None if test is None else test.p_value
    ranges = off_diagonal_ranges(
        band.edges, band.mean_predicted, band.lower, band.upper, confidence=True
    )
    return Verdict(
        sentence=verdict_sentence(
            p_value,
            ranges,
            detectable_gap=None if test is None else test.detectable_gap,
            n_extremes=0 if test is None else test.n_extremes,
            confidence=True,
        ),
        nc_ece=ece.posterior,
        p_value=p_value,
        prob_within_tolerance=ece.prob_within_tolerance,
        tolerance=ece.tolerance,
        naive=ece.naive,
        kind="top_label",
    )
