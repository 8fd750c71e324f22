"""The whole job on one table: channels, naive ECE, NC-ECE (frequentist and posterior), checks.

:func:`analyse` is what ``bayescal fit`` runs, and what a notebook calls first: it takes an
:class:`~bayescal.AnnotatedScores` or a DataFrame and returns an :class:`Analysis` that shows
itself in a notebook, writes its results folder (:meth:`Analysis.report`), gives its summary as
JSON (:meth:`Analysis.to_json`) and draws its reliability diagram (:meth:`Analysis.plot`).
"""

from __future__ import annotations

import functools
import json
import uuid
import warnings
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import (
    DEFAULT_LEVEL,
    DEFAULT_N_BINS,
    old_spellings,
    recorded_warnings,
    silenced,
    warn_caller,
)
from .._version import __version__
from ..bayes.sampler_settings import SamplerSettings, sampler_settings
from ..channels import ChannelFit
from ..channels.dependence import dependent_pairs
from ..channels.odd_annotators import ODD_LINES
from ..correction.calibration_test import at_extremes
from ..correction.estimation import nc_ece_estimate
from ..correction.gold_interval import DEFAULT_REPLICATES as GOLD_REPLICATES
from ..correction.gold_interval import gold_only_ece, note_all_gold
from ..correction.known_channels import is_crowd, majority_vote, noise_corrected_ece, soft_vote
from ..correction.rates import corrected_rates
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import BinningWarning, ChannelWarning, RecalibrationWarning
from ..metrics.agreement import kappa_interval, wilson_interval
from ..metrics.calibration import expected_calibration_error, reliability_curve
from ..metrics.record import calibration_record
from ..report.summary import (
    NCECE,
    AnnotatorChannels,
    CalibrationTestSummary,
    ChannelEstimate,
    ChecksSummary,
    ClassBalance,
    DataSummary,
    Diagnostics,
    ECESummary,
    Estimate,
    GoldSummary,
    Identification,
    JudgeAgainstGold,
    ModelSummary,
    OneSided,
    ParameterSummary,
    RatesSummary,
    RecalibrationPreview,
    RecordSummary,
    ReliabilitySummary,
    RunRecord,
    Summary,
    Verdict,
    finite,
)
from ..report.verdict import off_diagonal_ranges, verdict_sentence
from .model_choice import (
    ModelChoice,
    em_estimate,
    model_data,
    propose_dependence,
    with_pairs,
)
from .steps import Steps, posterior_section, run_versions, tested_or_warned

__all__ = ["Analysis", "analyse"]


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything :func:`analyse` computed.

    Attributes
    ----------
    data : AnnotatedScores
        The data the models were fitted to (with score groups for Hui–Walter).
    channel_fit : ChannelFit
        The EM estimate (the frequentist baseline).
    bayes_fit : BayesFit
    posterior : PosteriorECE
        The NC-ECE posterior.
    checks : ModelChecks
        The model checks of :func:`bayescal.check_model`.
    summary : Summary
        Every number of the report (:meth:`to_json` gives it as ``summary.json``).
    """

    data: AnnotatedScores
    channel_fit: ChannelFit
    bayes_fit: object
    posterior: object
    checks: object
    summary: Summary

    def __repr__(self) -> str:
        posterior = self.summary.ece.nc_ece.posterior
        low, high = posterior.interval
        return (
            f"Analysis({self.data.n_items} items, {self.data.n_annotators} annotators, "
            f"{self.summary.model.name}: NC-ECE {posterior.median:.4f} [{low:.4f}, {high:.4f}] "
            f"({posterior.level:.0%}), soft-vote ECE {self.summary.ece.naive['soft_vote']:.4f})"
        )

    def _repr_html_(self) -> str:
        from ..report.html_report import summary_html

        return summary_html(self.summary)

    def to_json(self, *, indent: int = 2) -> str:
        """``summary.json``: strict JSON (an undefined number is ``null`` with a reason)."""
        return json.dumps(self.summary.to_dict(), indent=indent, allow_nan=False)

    def report(self, path, *, force: bool = False, progress: bool = True):
        """Write the results folder: ``summary.json``, ``posterior.nc``, ``report.html`` and
        ``figures/*.png``; returns the report's path.  An existing folder is refused unless
        ``force``; with ``progress`` each write says so as it starts."""
        from ..report.folders import write_analysis

        return write_analysis(path, self, force=force, progress=progress)[1]

    def plot(self, *, ax=None):
        """The reliability diagram with the corrected band and the naive curves; returns Axes."""
        from ..report.plotting import plot_reliability

        band, curves = self.summary.reliability.band_and_curves()
        return plot_reliability(band, curves=curves, ax=ax)


def _as_table(data, score, annotators, truth, **columns):
    """An AnnotatedScores (built from a DataFrame's columns, its gold columns and the class
    options among them: ``columns`` are :meth:`AnnotatedScores.from_frame`'s ``gold``,
    ``gold_weights``, ``classes``, ``ordinal`` and ``normalize``) and the truth labels."""
    if type(data).__name__ != "DataFrame":
        given = {
            name: value
            for name, value in {"score": score, "annotators": annotators, **columns}.items()
            if value is not None and value is not False
        }
        if given:
            raise ValueError(
                f"{', '.join(given)}: these read the columns of a DataFrame (an AnnotatedScores "
                "carries its gold labels, classes and probabilities already); saw data of type "
                f"{type(data).__name__}"
            )
        return data, truth
    if score is None or annotators is None:
        raise ValueError(
            "a DataFrame needs score= (the score column) and annotators= (the annotator columns)"
        )
    if isinstance(truth, str):
        v.check_column_roles(
            {
                "score": score,
                "annotator": annotators,
                "truth": truth,
                "gold": columns.get("gold"),
                "gold_weights": columns.get("gold_weights"),
            }
        )
        if truth not in data.columns:
            raise ValueError(f"truth names no column of data; its columns are {list(data.columns)}")
        truth = data[truth].to_numpy()
    elif type(truth).__name__ == "Series":
        truth = _aligned_truth(truth, data.index)
    data = AnnotatedScores.from_frame(data, score=score, annotators=annotators, **columns)
    return data, truth


def _aligned_truth(truth, index) -> np.ndarray:
    """A truth Series in the order of the data's rows, matched by index: a sorted or filtered
    DataFrame keeps its index, and pairing by position gave an oracle of 0.248 for 0.079."""
    if not truth.index.is_unique:
        raise ValueError(
            "truth: its index names an item twice; it cannot be matched to data's rows"
        )
    absent = index.difference(truth.index)
    if len(absent):
        raise ValueError(
            f"truth has no label for {len(absent)} row(s) of data (index {absent[0]!r}, ...); "
            "truth, a Series, is matched to data's rows by index"
        )
    return truth.reindex(index).to_numpy()


class _Inputs(NamedTuple):
    """What reading and choosing the model settle: the data as the models are fitted to them,
    the truth column, the model and why, the dependent pairs, the bins and the level."""

    data: AnnotatedScores
    truth: np.ndarray | None
    model: ModelChoice
    pairs: list | None
    bins: int
    level: float


class _Tables(NamedTuple):
    """The sufficient statistics every later step runs on."""

    counts: object  # the (group, pattern) counts every model runs on
    cells: object  # the (bin, pattern) cells of every pattern-level ECE
    evaluated: object  # what NC-ECE corrects: the cells, or a crowd's own responses
    naive: dict  # the naive targets of each pattern, by name


def _record(
    data: AnnotatedScores, prevalence: np.ndarray, group_sizes, level: float, truth, bins: int
):
    """The fields of a checkable calibration record that apply to an evaluation without an anchor
    (and, given a truth column, the full record of the predictor thresholded at 0.5).
    ``group_sizes``: items per non-empty score group, in the order of the prevalence columns."""
    labelled = (data.annotations != -1).sum(axis=1)
    overall = prevalence if prevalence.ndim == 1 else prevalence @ group_sizes / data.n_items
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(overall, [tail, 1.0 - tail])
    repeat_rate = float((labelled >= 2).mean())
    judged = None
    if truth is not None:
        judged = calibration_record(
            y_true=truth,
            y_pred=(data.scores >= 0.5).astype(np.int64),
            name="predictor (score >= 0.5)",
            n_annotators=data.n_annotators,
            repeat_rate=repeat_rate,
        )
    return RecordSummary(
        n_items=data.n_items,
        class_balance=ClassBalance(float(overall.mean()), (float(low), float(high))),
        provenance="noisy annotators, no anchor: ECE is measured against noise-corrected labels, not trusted ones",
        n_annotators=data.n_annotators,
        repeat_rate=repeat_rate,
        fitted_or_held_out="fitted: the channels are estimated on the items they correct (the paper's reuse mode)",
        interval_method="equal-tailed posterior interval; channel draws pushed through NC-ECE with a Bayesian bootstrap of the items",
        binning=f"{bins} equal-width bins",
        against_truth=judged,
    )


def _channel_sections(fit, channel_fit: ChannelFit, names, level: float):
    """Per annotator its ``a`` and ``b`` (posterior and EM) and its gap ``b - a``, and every
    class proportion."""
    from ..bayes.diagnostics import ess_bulk, rank_normalized_rhat

    a, b, prevalence = fit.draws()
    rows = fit.diagnostics
    gap_chains = fit.chains["b"] - fit.chains["a"]  # (C, D, K)

    def estimate(label: str, j: int, draws) -> ChannelEstimate:
        em = None if channel_fit.failure else float(getattr(channel_fit.channels, label)[j])
        return ChannelEstimate.from_draws(draws, level, rows.loc[f"{label}[{names[j]}]"], em=em)

    def gap(j: int) -> ParameterSummary:
        chains = gap_chains[..., j]
        diagnostics = {"r_hat": rank_normalized_rhat(chains), "ess_bulk": ess_bulk(chains)}
        return ParameterSummary.from_draws(b[:, j] - a[:, j], level, diagnostics)

    pooled = set(channel_fit.pooled)
    channels = {
        name: AnnotatorChannels(
            estimate("a", j, a[:, j]),
            estimate("b", j, b[:, j]),
            gap(j),
            em_pooled=True if name in pooled else None,
        )
        for j, name in enumerate(names)
    }
    parameters = [p for p in rows.index if p.startswith("prevalence")]
    prevalences = {
        row: ParameterSummary.from_draws(draws, level, rows.loc[row])
        for row, draws in zip(parameters, np.atleast_2d(prevalence.T))
    }
    return channels, prevalences


def _keeping_warnings(analyse_function):
    """``analyse_function`` with the warnings it showed, one line each, in its summary's
    ``warnings``: a results folder and its report must keep what the console said."""

    @functools.wraps(analyse_function)
    def keeping(*args, **kwargs) -> Analysis:
        with recorded_warnings() as shown:
            analysis = analyse_function(*args, **kwargs)
        return replace(analysis, summary=replace(analysis.summary, warnings=tuple(shown)))

    return keeping


@old_spellings(renamed={"interval": "level"})
@_keeping_warnings
def analyse(
    data,
    *,
    score=None,
    annotators=None,
    truth=None,
    model="auto",
    priors=None,
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    seed=None,
    progress=None,
    sampler=None,
    bayes_options=None,
    dependent=None,
    gold=None,
    gold_weights=None,
    classes=None,
    ordinal=False,
    normalize=False,
) -> Analysis:
    """Fit and summarise one data set (the work of ``bayescal fit``).

    The verdict's calibration test (:func:`bayescal.calibration_test`) draws the channels from
    the Bayesian fit's posterior under H0; where that cannot test, on scores that are all
    exactly 0 or 1 (a hard classifier) and with ``dependent`` pairs, it is the EM fit's
    refitting bootstrap.

    Multi-class data (three classes or more) get the multi-class analysis
    (:func:`bayescal.app.class_analysis.analyse_classes`): confusion matrices by EM and NUTS,
    top-label and classwise NC-ECE, the top-label test; it returns a
    :class:`~bayescal.app.class_analysis.ClassAnalysis`.

    Parameters
    ----------
    data : AnnotatedScores or pandas.DataFrame
        With ``groups`` for Hui–Walter (two annotators get five equal-width groups if none); a
        DataFrame has one row per item, read by :meth:`bayescal.AnnotatedScores.from_frame`.
    score, annotators : str, sequence of str
        With a DataFrame: the score column (or the class-probability columns, one per class)
        and the annotator columns (0, 1 or NaN; class names or codes for multi-class labels).
    truth : array_like of 0/1, pandas.Series, or str, optional
        True labels (with a DataFrame, the name of their column, or a Series matched to its
        rows by index), for the oracle ECE and the calibration record against them; never
        used for fitting.  Multi-class: class codes ``0 .. C-1``, or class names as text.
    model : {"auto", "dawid_skene", "hui_walter", "hierarchical_dawid_skene", "shared_difficulty"}
        The model (:mod:`bayescal.bayes.registry`; hyphens for underscores accepted), or
        ``"auto"`` to let the data choose (:func:`bayescal.bayes.registry.choose_model`).
    priors : Priors, optional
        Priors of the Bayesian model (default flat, :class:`bayescal.bayes.Priors`).
    n_bins : int or "auto", default 10
    level : float, default 0.9
    seed : int, optional
        Seeds every random step: the EM starts, NUTS, the bootstraps, the preview's halves
        (``sampler``'s seed, 0 unless it says otherwise).
    progress : bool, optional
        A line on standard error as each step that can take seconds starts, and the sampler's
        progress bar: on unless ``sampler`` or ``progress=False`` says otherwise (a notebook
        cell then never sits silent).
    sampler : SamplerSettings, optional
        NUTS settings (:func:`bayescal.fit_bayes`); default ``SamplerSettings()`` with
        progress on.
        ``seed`` and ``progress``, when given, take the place of its fields.
    bayes_options : dict, optional
        Deprecated since bayescal 0.2: the same settings as ``sampler=SamplerSettings(...)``.
    dependent : pair or list of pairs of annotator names, optional
        Pairs whose errors may be correlated given ``Y`` (:func:`bayescal.fit_bayes`'s
        ``dependent``): the EM and the Bayesian model both get their covariances, and the
        calibration test uses the dependent EM fit's refitting bootstrap.  Without it, a
        pairwise check that flags correlated errors proposes a pair in one line
        (:class:`~bayescal.DependenceWarning`); the model is never switched silently.
    gold : str, optional
        With a DataFrame: the column of human-verified 0/1 labels, empty where an item has
        none (an AnnotatedScores carries them as ``data.gold``).  Unlike ``truth`` they are
        used: every fit conditions on them, and NC-ECE is the rectified estimator
        (:mod:`bayescal.correction.rectified`).  The gold items must be a random sample of the
        items, or drawn with known inclusion probabilities (``gold_weights``).
    gold_weights : str, optional
        With a DataFrame: the column of each gold item's inclusion probability, in (0, 1]
        (:func:`bayescal.select_for_gold`'s ``inclusion``, or a design stratified by score);
        an AnnotatedScores carries them as ``data.gold_weights``.
    classes, ordinal, normalize : optional
        With a DataFrame of multi-class labels: the class names, whether they form a scale,
        and whether to divide each probability row by its sum
        (:meth:`bayescal.AnnotatedScores.from_frame`); an AnnotatedScores carries them.

    Returns
    -------
    Analysis or ClassAnalysis
        Its ``summary.warnings`` holds the warnings shown during the analysis, one line each,
        so that the results folder and its report keep them.
    """
    settings = analysis_sampler_settings(sampler, seed, progress, bayes_options)
    data, truth = _as_table(
        data,
        score,
        annotators,
        truth,
        gold=gold,
        gold_weights=gold_weights,
        classes=classes,
        ordinal=ordinal,
        normalize=normalize,
    )
    if isinstance(data, AnnotatedScores) and data.is_multiclass:
        from .class_analysis import analyse_classes

        return analyse_classes(
            data,
            truth,
            model=model,
            priors=priors,
            dependent=dependent,
            n_bins=n_bins,
            level=level,
            settings=settings,
        )
    seed = settings.seed
    steps = Steps(settings.progress)
    inputs = steps("model_choice", _read, data, truth, model, dependent, n_bins, level)
    tables = steps("compress", _tabulate, inputs)
    channel_fit = steps("em", _fit_em, inputs, tables, seed)
    fit = steps("nuts", _fit_bayes, inputs, tables, channel_fit, priors, settings)
    posterior = steps("push_through", _correct, inputs, tables, channel_fit, fit, seed)
    checks = steps("checks", _check, inputs, tables, channel_fit, fit, seed)
    # the EM fit's refitting bootstrap tests a dependent model (size 6.0% and 4.0% at 5% on
    # a panel's tree and lone pair, where the BayesFit's H0 draw held 5.5% and a conservative
    # 2.5%; 5.0% on a crowd's pair: benchmarks/RESULTS.md) and a hard classifier (scores only 0 and 1: channels drawn
    # under H0 take up any miscalibration there, and calibration_test refuses the BayesFit)
    hard = bool(at_extremes(inputs.data.scores).all()) and channel_fit.ok
    tested = channel_fit if inputs.pairs or hard else fit
    test = steps("calibration_test", _test, inputs, tested, seed, settings.progress)
    steps("recalibration_preview", _recalibrate, inputs, fit, seed)
    steps("rates", _rates, inputs, channel_fit, seed)
    parts = _summarise(inputs, fit, posterior, test, steps.parts["ece"], seed, steps.timings)
    summary = Summary(**steps.parts, **parts)
    return Analysis(inputs.data, channel_fit, fit, posterior, checks, summary)


def _read(data, truth, model, dependent, n_bins, level):
    """Read: the truth column, the model chosen and the data it is fitted to (with score
    groups for Hui–Walter), the dependent pairs, the bins."""
    note_all_gold(data)
    chosen = model_data(data, model=model)
    data = chosen.data
    pairs = dependent_pairs(dependent, data.annotator_names).names or None
    chosen = chosen._replace(why=with_pairs(chosen.why, pairs))
    if truth is not None:
        truth = v.as_binary_labels(truth, "truth")
        v.check_same_length(truth, "truth", data.scores, "data.scores")
    bins = v.as_n_bins(n_bins, data.n_items, refuse_sparse=v.SPARSE_DRAWS)  # before any sampling
    level = v.as_open_probability(level, "level")
    missing = data.annotations == -1
    groups = data.groups if data.groups is not None else np.zeros(data.n_items, dtype=np.int64)
    ids, sizes = np.unique(groups, return_counts=True)
    section = DataSummary(
        n_items=data.n_items,
        annotators=data.annotator_names,
        missing_rate=float(missing.mean()),
        missing_by_annotator={
            name: float(rate) for name, rate in zip(data.annotator_names, missing.mean(axis=0))
        },
        groups={str(int(g)): int(n) for g, n in zip(ids, sizes)},
    )
    return _Inputs(data, truth, chosen, pairs, bins, level), {"data": section}


def _tabulate(inputs: _Inputs):
    """The pattern counts every model runs on, the (bin, pattern) cells of every pattern-level
    ECE (naive votes, NC-ECE with EM channels), and the naive targets."""
    data = inputs.data
    counts = data.compress()
    cells = data.cells(n_bins=inputs.bins, by_group=False)
    # a crowd's corrected labels come from its responses (the crowd rule of
    # noise_corrected_ece and nc_ece_posterior): its cells are as many as its items; gold
    # items sampled by score carry their own weights, which cells do not keep
    evaluated = data if is_crowd(data) or data.gold_weights is not None else cells
    naive = {
        "soft_vote": soft_vote(cells.patterns),
        "majority_vote": majority_vote(cells.patterns, "half"),
    }
    return _Tables(counts, cells, evaluated, naive), {}


def _fit_em(inputs: _Inputs, tables: _Tables, seed: int):
    """Fit, the frequentist baseline: the EM estimate that matches the model.  Its lines on
    odd annotators are left out: the posterior, the analysis's model, names them next in the
    same words (bayescal.channels.odd_annotators), and where the two differ (a shared
    difficulty's misfit, a crowd's workers near random) its are the ones the report reads."""
    model = inputs.model
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=ODD_LINES, category=ChannelWarning)
        return em_estimate(model.name, inputs.data, tables.counts, seed, inputs.pairs), {}


def _fit_bayes(inputs: _Inputs, tables: _Tables, channel_fit, priors, settings):
    """Fit, the posterior: NUTS on the model chosen (refusing first data that the model checks,
    run after it, could not check); its model, channel, prevalence and diagnostics sections."""
    from ..bayes.checks import uses_crowd_checks
    from ..bayes.fit import fit_bayes
    from ..bayes.prior_conflict import warn_prior_conflicts
    from ..models import check_complete_layout

    data, model, counts = inputs.data, inputs.model, tables.counts
    if not uses_crowd_checks(model.name, data.n_annotators):
        check_complete_layout(counts.patterns, counts.groups if model.spec.grouped else None)
    fit = fit_bayes(
        data if model.spec.on_responses else counts,
        model=model.name,
        priors=priors,
        sampler=settings,
        dependent=inputs.pairs,
    )
    warn_prior_conflicts(fit, channel_fit)
    channels, prevalences = _channel_sections(fit, channel_fit, data.annotator_names, inputs.level)
    diagnostics = fit.diagnostics
    return fit, {
        "model": ModelSummary(
            name=model.name,
            why=model.why,
            dependent=tuple(f"{j} ~ {k}" for j, k in fit.dependent),
            priors=fit.priors,
            chains=fit.num_chains,
            draws_per_chain=fit.n_draws // fit.num_chains,
        ),
        "channels": channels,
        "prevalence": prevalences,
        "diagnostics": Diagnostics(
            *finite([diagnostics["r_hat"].max(), diagnostics["ess_bulk"].min()]),
            int(diagnostics["divergences"].iloc[0]),
        ),
    }


def _correct(inputs: _Inputs, tables: _Tables, channel_fit, fit, seed: int):
    """Correct: the naive ECEs, NC-ECE with the EM channels and with every posterior draw, the
    oracle ECE of a truth column, and the reliability diagram."""
    from ..bayes.posterior import nc_ece_posterior

    data, bins, level = inputs.data, inputs.bins, inputs.level
    if channel_fit.failure:
        frequentist = Estimate(None, reason=f"{channel_fit.method} failed: {channel_fit.failure}")
    elif data.n_gold:
        frequentist = _gold_estimate(inputs, channel_fit, seed)
    else:
        try:
            value = noise_corrected_ece(tables.evaluated, channel_fit.channels, n_bins=bins)
            frequentist = Estimate(value, estimator=channel_fit.described)
        except ValueError as error:  # channels that cannot correct (a zero gap)
            frequentist = Estimate(None, reason=str(error))
    posterior = nc_ece_posterior(tables.evaluated, fit, n_bins=bins, level=level, seed=seed)
    curves = {label: tables.cells.curve(targets) for label, targets in tables.naive.items()}
    if inputs.truth is None:
        oracle = Estimate(None, reason="no truth column given")
    else:
        curves["oracle"] = reliability_curve(inputs.truth, data.scores, n_bins=bins)
        oracle = Estimate(expected_calibration_error(inputs.truth, data.scores, n_bins=bins))
    naive = {label: tables.cells.moments(targets).ece for label, targets in tables.naive.items()}
    return posterior, {
        "ece": ECESummary(
            n_bins=bins,
            naive=naive,
            nc_ece=NCECE(frequentist, posterior_section(posterior, level)),
            oracle=oracle,
            gold=_gold_summary(data, channel_fit, tables.cells.edges, level, seed)
            if data.n_gold
            else None,
        ),
        "reliability": ReliabilitySummary.from_band(posterior.reliability_band(), curves),
    }


def _gold_estimate(inputs: _Inputs, channel_fit, seed: int) -> Estimate:
    """NC-ECE with gold items by the EM estimator of ``channel_fit`` and the rectified bin
    means, with its bootstrap interval (:func:`bayescal.nc_ece_estimate`)."""
    options = {"dependent": list(inputs.pairs)} if inputs.pairs else None
    result = nc_ece_estimate(
        inputs.data,
        estimator=channel_fit.method,
        n_bins=inputs.bins,
        level=inputs.level,
        seed=seed,
        estimator_options=options,
    )
    return Estimate(
        result.estimate,
        estimator=f"{channel_fit.described}; rectified with the gold items, bootstrap interval",
        interval=tuple(result.interval),
    )


def _gold_summary(
    data: AnnotatedScores, channel_fit, edges, level: float, seed: int
) -> GoldSummary:
    """The gold items, the estimator NC-ECE used with them, their ECE alone, and each judge of
    a panel against them (a crowd's workers label too few gold items each)."""
    alone = gold_only_ece(
        data, edges, "uniform", n_replicates=GOLD_REPLICATES, level=level, seed=seed
    )
    judges = {}
    if not is_crowd(data):
        for j, name in enumerate(data.annotator_names):
            judges[name] = _against_gold(data, j, channel_fit, level, seed)
    return GoldSummary(
        n_gold=data.n_gold,
        positives=int((data.gold == 1).sum()),
        estimator="rectified",
        gold_only=Estimate(
            alone.estimate,
            estimator="the gold labels against their scores, bootstrap interval",
            interval=tuple(alone.interval),
        ),
        judges=judges,
    )


def _against_gold(data: AnnotatedScores, j: int, channel_fit, level: float, seed: int):
    """Annotator ``j``'s sensitivity and specificity on the gold items it labelled (Wilson
    intervals), its kappa with the gold (bootstrap), and the EM fit's ``b`` and ``1 - a``."""
    labelled = (data.gold != v.MISSING) & (data.annotations[:, j] != v.MISSING)
    gold, label = data.gold[labelled], data.annotations[labelled, j]

    def rate(of_class: int):
        here = gold == of_class
        if not here.any():
            return None, None
        agree = int((label[here] == of_class).sum())
        return agree / int(here.sum()), tuple(wilson_interval(agree, int(here.sum()), level=level))

    sensitivity, sensitivity_interval = rate(1)
    specificity, specificity_interval = rate(0)
    kappa = kappa_interval(gold, label, level=level, seed=seed) if labelled.sum() > 1 else None
    channels = channel_fit.channels if channel_fit.ok else None
    return JudgeAgainstGold(
        n_items=int(labelled.sum()),
        sensitivity=sensitivity,
        sensitivity_interval=sensitivity_interval,
        specificity=specificity,
        specificity_interval=specificity_interval,
        kappa=None if kappa is None else kappa.estimate,
        kappa_interval=None if kappa is None else (kappa.lower, kappa.upper),
        model_sensitivity=None if channels is None else float(channels.b[j]),
        model_specificity=None if channels is None else float(1.0 - channels.a[j]),
    )


def _rates(inputs: _Inputs, channel_fit, seed: int):
    """Rates: with gold items, the corrected positive rate and the predictor's rates at 0.5
    (:func:`bayescal.correction.corrected_rates` with the EM estimator); none without gold, or when EM
    failed (its failure is said in the NC-ECE section)."""
    if not inputs.data.n_gold or not channel_fit.ok:
        return None, {}
    options = {"dependent": list(inputs.pairs)} if inputs.pairs else None
    rates = corrected_rates(
        inputs.data,
        estimator=channel_fit.method,
        level=inputs.level,
        seed=seed,
        estimator_options=options,
    )
    return rates, {"rates": RatesSummary.from_rates(rates)}


def _check(inputs: _Inputs, tables: _Tables, channel_fit, fit, seed: int):
    """Check: the model checks, and a dependent pair proposed in one line when the pairwise
    check flags correlated errors (never fitted silently)."""
    from ..bayes.checks import check_model, uses_crowd_checks

    checks = check_model(inputs.data, fit, level=inputs.level, seed=seed)
    model = inputs.model
    if not inputs.pairs and not uses_crowd_checks(model.name, inputs.data.n_annotators):
        propose_dependence(checks.table, tables.counts, model.name, channel_fit, seed)
    return checks, {
        "identification": Identification.from_checks(checks.table),
        "checks": ChecksSummary.from_checks(checks),
    }


def _test(inputs: _Inputs, fit, seed: int, progress: bool):
    """Test: the calibration test (None, said in a warning, when the data cannot be tested)."""
    test = tested_or_warned(inputs.data, fit, inputs.bins, seed, progress)
    return test, {
        "calibration_test": None if test is None else CalibrationTestSummary.from_test(test)
    }


def _recalibrate(inputs: _Inputs, fit, seed: int):
    """Recalibrate: the report's preview of corrected maps on held-out items."""
    preview = _recalibration_preview(inputs.data, fit, inputs.bins, inputs.level, seed)
    return preview, {"recalibration": preview}


def _summarise(inputs: _Inputs, fit, posterior, test, ece, seed: int, timings: dict) -> dict:
    """Summarise: the verdict in plain words (from the test, the corrected reliability band and
    the ECEs of the correct step), the calibration record and the run."""
    data = inputs.data
    band = posterior.reliability_band()
    p_value = None if test is None else test.p_value
    groups = data.groups if data.groups is not None else np.zeros(data.n_items, dtype=np.int64)
    _, sizes = np.unique(groups, return_counts=True)
    return {
        "bayescal_version": __version__,
        "verdict": Verdict(
            sentence=verdict_sentence(
                p_value,
                off_diagonal_ranges(band.edges, band.mean_predicted, band.lower, band.upper),
                detectable_gap=None if test is None else test.detectable_gap,
                n_extremes=0 if test is None else test.n_extremes,
            ),
            nc_ece=ece.nc_ece.posterior,
            p_value=p_value,
            prob_within_tolerance=posterior.prob_calibrated,
            tolerance=posterior.tolerance,
            naive=ece.naive,
        ),
        "record": _record(data, fit.draws()[2], sizes, inputs.level, inputs.truth, inputs.bins),
        "timings": timings,
        "run": RunRecord(
            id=uuid.uuid4().hex,
            seed=seed,
            chain_method=fit.run["chain_method"],
            devices=int(fit.run["devices"]),
            versions=run_versions(),
        ),
    }


def analysis_sampler_settings(sampler, seed, progress, bayes_options) -> SamplerSettings:
    """The analysis' NUTS settings: ``sampler`` (default with progress) with ``seed`` and
    ``progress`` given in their place, and the deprecated ``bayes_options`` folded in."""
    settings = sampler_settings(
        sampler, SamplerSettings(progress=True), seed=seed, progress=progress
    )
    if bayes_options is None:
        return settings
    fields = {"num_chains", "num_warmup", "num_samples"}
    if not isinstance(bayes_options, dict) or set(bayes_options) - fields:
        unknown = (
            sorted(set(bayes_options) - fields)
            if isinstance(bayes_options, dict)
            else type(bayes_options).__name__
        )
        raise TypeError(
            f"bayes_options must be a dict with keys among {sorted(fields)}; saw {unknown} "
            "(pass sampler=SamplerSettings(...))"
        )
    warn_caller(
        f"analyse(bayes_options={bayes_options!r}) is analyse(sampler=SamplerSettings("
        + ", ".join(f"{key}={value!r}" for key, value in bayes_options.items())
        + ")) since bayescal 0.2",
        DeprecationWarning,
    )
    return replace(settings, **bayes_options)


#: Maps of the report's recalibration preview, in its order.
PREVIEW_METHODS = ("platt", "histogram")
#: The preview fits one map per draw for at most this many draws, evenly spaced through the
#: chains: its work grows as draws x items (4 000 draws of a million items took four minutes),
#: and a thousand keep the Monte Carlo error of a 90% interval's ends near 1% of the tail mass.
PREVIEW_DRAWS = 1000


def _recalibration_preview(data, fit, n_bins, level, seed) -> RecalibrationPreview | None:
    """Corrected maps fitted on a random half of the items and scored with the original
    scores on the other half (:class:`~bayescal.report.summary.RecalibrationPreview`); None with a
    warning when the halves are too small to fit or score a map."""
    from ..bayes.posterior import posterior_recalibration

    order = np.random.default_rng(seed).permutation(data.n_items)
    half = data.n_items // 2
    fitting, evaluated = (data.subset(np.sort(part)) for part in (order[:half], order[half:]))
    after, bounds = {}, {}
    try:
        # the analysis said these on all the items: a map's box edge, items without an
        # informative label, more bins than items
        with silenced(RecalibrationWarning, ChannelWarning, BinningWarning):
            for method in PREVIEW_METHODS:
                result = posterior_recalibration(
                    fitting,
                    evaluated,
                    fit,
                    method=method,
                    n_bins=n_bins,
                    level=level,
                    seed=seed,
                    max_draws=PREVIEW_DRAWS,
                )
                after[method] = posterior_section(result.recalibrated, level)
                recalibrated = result.recalibrated
                bounds[method] = OneSided(
                    recalibrated.upper_bound,
                    level,
                    recalibrated.prob_calibrated,
                    recalibrated.tolerance,
                )
    except ValueError as error:
        warn_caller(f"the recalibration preview could not run: {error}", BinningWarning)
        return None
    return RecalibrationPreview(
        half,
        data.n_items - half,
        posterior_section(result.base, level),
        after,
        n_draws=min(fit.n_draws, PREVIEW_DRAWS),
        after_bound=bounds,
    )
