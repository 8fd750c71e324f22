"""The summary of a fit (``summary.json``) as typed, frozen dataclasses.

:func:`bayescal.analyse` fills a :class:`Summary`; :meth:`Summary.to_dict` gives the strict JSON
document of the guide "Files and the command line", and :meth:`Summary.from_dict` reads it back, so the
report renders from typed fields whether it follows a fit or re-reads a results folder.  An
undefined number is ``None`` (``null``) with a reason, never NaN.

Each section is a dataclass whose fields are written in their order; a field marked
``OMIT_NONE`` is left out of the document while it is ``None``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._api import Result, abbreviated, within_tolerance_text
from ..bayes.priors import Priors
from ..metrics.calibration import ReliabilityBand, ReliabilityCurve
from ..metrics.record import CalibrationRecord

__all__ = [
    "AnnotatorChannels",
    "CalibrationTestSummary",
    "ChannelEstimate",
    "CheckRow",
    "ChecksSummary",
    "DataSummary",
    "Diagnostics",
    "ECESummary",
    "Estimate",
    "Identification",
    "ModelSummary",
    "ParameterSummary",
    "PosteriorSummary",
    "RecalibrationPreview",
    "RecordSummary",
    "ReliabilityDiagram",
    "ReliabilitySummary",
    "Summary",
    "Verdict",
]


def finite(values) -> tuple:
    """Floats for JSON, ``None`` where a value is undefined (NaN: an empty bin)."""
    return tuple(
        float(x) if np.isfinite(x) else None for x in np.asarray(values, dtype=np.float64).ravel()
    )


#: Annotators named in the first line of the text summary; a crowd's others are counted.
SHOWN_NAMES = 12
#: Metadata of a field left out of the JSON document while it is ``None``.
OMIT_NONE = {"omit_none": True}


class Section(Result):
    """A part of :class:`Summary`: converted to and from JSON field by field."""

    def to_dict(self) -> dict:
        """The JSON document of the section (plain dicts, lists, numbers, strings, None)."""
        return _plain(self)

    @classmethod
    def from_dict(cls, document: dict):
        """Read a document written by :meth:`to_dict`.

        Raises
        ------
        ValueError
            When a section is missing (the message lists them).
        """
        if not isinstance(document, dict):
            raise ValueError(f"document must be a dict; saw {type(document).__name__}")
        required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
        missing = [name for name in required if name not in document]
        if missing:
            raise ValueError(f"not a bayescal fit summary (missing {', '.join(missing)})")
        return _build(cls, document)


@dataclass(frozen=True, repr=False)
class DataSummary(Section):
    n_items: int
    annotators: tuple[str, ...]
    missing_rate: float
    missing_by_annotator: dict[str, float]
    #: Items per score group, by group id (one group "0" without groups).
    groups: dict[str, int]


@dataclass(frozen=True, repr=False)
class ModelSummary(Section):
    name: str
    why: str
    priors: Priors
    chains: int
    draws_per_chain: int
    #: The dependent pairs, ``"j ~ k"`` (``fit_bayes(..., dependent=...)``); empty for none.
    dependent: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class Identification(Section):
    #: ``identified``, ``saturated`` (identified, but its checks cannot fail) or ``weakly identified``.
    status: str
    notes: tuple[str, ...]

    @classmethod
    def from_checks(cls, table) -> Identification:
        """From the ``model`` rows of a :func:`bayescal.check_model` table."""
        rows = table[table["check"] == "model"].set_index("subject")
        flagged = lambda subject: subject in rows.index and bool(rows.loc[subject, "flag"])  # noqa: E731
        weak, saturated = flagged("identification"), flagged("saturation")
        status = "weakly identified" if weak else "saturated" if saturated else "identified"
        return cls(status, tuple(str(note) for note in rows["note"] if note))


@dataclass(frozen=True, repr=False)
class ParameterSummary(Section):
    posterior_mean: float
    interval: tuple[float, float]
    r_hat: float | None
    ess_bulk: float | None

    @classmethod
    def from_draws(cls, draws, level: float, diagnostics, **extra):
        """Mean and equal-tailed ``level`` interval of the draws, with R-hat and bulk ESS from
        the parameter's row of :attr:`bayescal.BayesFit.diagnostics`."""
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(draws, [tail, 1.0 - tail])
        r_hat, ess = finite([diagnostics["r_hat"], diagnostics["ess_bulk"]])
        return cls(float(np.mean(draws)), (float(low), float(high)), r_hat, ess, **extra)


@dataclass(frozen=True, repr=False)
class ChannelEstimate(ParameterSummary):
    #: The EM estimate, ``None`` when EM failed.
    em: float | None = None


@dataclass(frozen=True, repr=False)
class AnnotatorChannels(Section):
    a: ChannelEstimate
    b: ChannelEstimate
    #: The informativeness ``b - a`` (absent from summaries written by earlier versions).
    gap: ParameterSummary | None = field(default=None, metadata=OMIT_NONE)
    #: True when the EM gave this worker the channel its pool of sparse workers shares
    #: (:func:`bayescal.crowd_em`'s ``pool``); absent otherwise.
    em_pooled: bool | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, repr=False)
class Diagnostics(Section):
    max_r_hat: float | None
    min_ess_bulk: float | None
    divergences: int


@dataclass(frozen=True, repr=False)
class Estimate(Section):
    """A number with where it came from (and its interval, when it has one), or ``None`` with
    the reason there is none."""

    value: float | None
    estimator: str | None = field(default=None, metadata=OMIT_NONE)
    reason: str | None = field(default=None, metadata=OMIT_NONE)
    interval: tuple[float, float] | None = field(default=None, metadata=OMIT_NONE)


def _rate(value, interval, model) -> str:
    """``0.812 [0.750, 0.862] (model 0.805)``, or ``n/a``."""
    if value is None:
        return "n/a"
    shown = f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"
    return shown if model is None else f"{shown} (model {model:.3f})"


@dataclass(frozen=True, repr=False)
class JudgeAgainstGold(Section):
    """One annotator's labels against the gold items it labelled: sensitivity and specificity
    with Wilson intervals, Cohen's kappa with a bootstrap interval (seed 003's statistics),
    beside the model's sensitivity ``b`` and specificity ``1 - a``."""

    n_items: int
    sensitivity: float | None
    sensitivity_interval: tuple[float, float] | None
    specificity: float | None
    specificity_interval: tuple[float, float] | None
    kappa: float | None
    kappa_interval: tuple[float, float] | None
    model_sensitivity: float | None
    model_specificity: float | None

    def text(self) -> str:
        """One line: the rates against the gold beside the model's, and kappa."""
        sensitivity = _rate(self.sensitivity, self.sensitivity_interval, self.model_sensitivity)
        specificity = _rate(self.specificity, self.specificity_interval, self.model_specificity)
        kappa = _rate(self.kappa, self.kappa_interval, None)
        return (
            f"sensitivity {sensitivity}, specificity {specificity}, kappa {kappa} on "
            f"{self.n_items} gold items"
        )


@dataclass(frozen=True, repr=False)
class GoldSummary(Section):
    """What the gold items (human-verified labels) gave: how many, the estimator of the bin
    means they were used in (:mod:`bayescal.correction.rectified`), and the ECE of the gold
    items alone with its interval, beside NC-ECE."""

    n_gold: int
    positives: int
    estimator: str
    gold_only: Estimate
    judges: dict[str, JudgeAgainstGold] = field(default_factory=dict)


@dataclass(frozen=True, repr=False)
class PosteriorSummary(Section):
    median: float
    interval: tuple[float, float]
    level: float

    @classmethod
    def from_draws(cls, draws, level: float) -> PosteriorSummary:
        """The median and equal-tailed ``level`` interval of ``draws``."""
        tail = (1.0 - level) / 2.0
        median, low, high = np.quantile(draws, [0.5, tail, 1.0 - tail])
        return cls(float(median), (float(low), float(high)), level)


@dataclass(frozen=True, repr=False)
class NCECE(Section):
    frequentist: Estimate
    posterior: PosteriorSummary


@dataclass(frozen=True, repr=False)
class ECESummary(Section):
    n_bins: int
    #: ``soft_vote`` and ``majority_vote``.
    naive: dict[str, float]
    nc_ece: NCECE
    oracle: Estimate
    gold: GoldSummary | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, repr=False)
class RatesSummary(Section):
    """The corrected rates of :func:`bayescal.correction.corrected_rates`: the population's positive rate
    (a judge's pass rate, corrected) and the predictor's rates at ``threshold``, each with its
    interval and the model-based value, beside each annotator's raw positive rate."""

    estimator: str
    threshold: float
    level: float
    n_gold: int
    estimates: dict[str, Estimate]
    model: dict[str, float]
    raw_positive_rates: dict[str, float]

    @classmethod
    def from_rates(cls, rates) -> RatesSummary:
        return cls(
            estimator=rates.estimator,
            threshold=rates.threshold,
            level=rates.level,
            n_gold=rates.n_gold,
            estimates={
                name: Estimate(value, interval=rates.intervals[name])
                for name, value in rates.estimates.items()
            },
            model=dict(rates.model),
            raw_positive_rates=dict(rates.raw_positive_rates),
        )

    def text(self) -> list[str]:
        """The lines ``bayescal fit`` prints."""
        shown = ", ".join(
            f"{name.replace('_', ' ')} {estimate.value:.3f} [{estimate.interval[0]:.3f}, "
            f"{estimate.interval[1]:.3f}]"
            for name, estimate in self.estimates.items()
        )
        raw = [f"{name} {rate:.3f}" for name, rate in self.raw_positive_rates.items()]
        return [
            f"  corrected rates ({self.estimator} with {self.n_gold} gold items, "
            f"{self.level:.0%} intervals, predictor's threshold {self.threshold:g}): {shown}",
            f"  raw positive rate of each annotator: {abbreviated(raw, SHOWN_NAMES)}",
        ]


@dataclass(frozen=True, repr=False)
class CalibrationTestSummary(Section):
    """:func:`bayescal.calibration_test` with the fit's channels (a draw of their posterior
    under H0), and its bins."""

    statistic: float
    p_value: float
    df: int
    method: str
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    n_items: tuple[int, ...]
    #: Mean corrected label minus mean score per bin (positive: the predictor is too low).
    residual: tuple[float, ...]
    contribution: tuple[float, ...]
    #: The gap between score and truth the test finds at the 5% level 80% of the time
    #: (``CalibrationTest.detectable_gap``); absent from summaries of earlier versions.
    detectable_gap: float | None = field(default=None, metadata=OMIT_NONE)
    #: Items scoring exactly 0 or 1 the test left out (``CalibrationTest.n_extremes``).
    n_extremes: int = 0

    @classmethod
    def from_test(cls, test) -> CalibrationTestSummary:
        return cls(
            float(test.statistic),
            float(test.p_value),
            int(test.df),
            test.method,
            finite(test.lower),
            finite(test.upper),
            tuple(int(n) for n in test.n_items),
            finite(test.residual),
            finite(test.contribution),
            float(test.detectable_gap),
            int(test.n_extremes),
        )


@dataclass(frozen=True, repr=False)
class Verdict(Section):
    """What the report, ``bayescal fit`` and the notebook display open with: one sentence
    (:mod:`bayescal.report.verdict`) and the numbers behind it."""

    sentence: str
    nc_ece: PosteriorSummary
    #: The calibration test's p-value; None when the test could not run (the warnings say why).
    p_value: float | None
    #: ``P(NC-ECE <= tolerance)`` under the posterior.
    prob_within_tolerance: float
    tolerance: float
    #: The naive ECEs the verdict replaces: ``soft_vote`` and ``majority_vote``.
    naive: dict[str, float]
    #: Multi-class: the ECE the verdict reads (``top_label``); absent for binary labels.
    kind: str | None = field(default=None, metadata=OMIT_NONE)

    def text(self) -> list[str]:
        """The verdict as the first lines ``bayescal fit`` prints."""
        low, high = self.nc_ece.interval
        which = "" if self.kind is None else f"{self.kind.replace('_', '-')} "
        return [
            f"verdict: {self.sentence}",
            f"  {which}NC-ECE {self.nc_ece.median:.4f} [{low:.4f}, {high:.4f}] ({self.nc_ece.level:.0%}); "
            f"{within_tolerance_text(self.prob_within_tolerance, self.tolerance)}; naive ECE "
            f"{self.naive['soft_vote']:.4f} (soft vote), {self.naive['majority_vote']:.4f} "
            "(majority vote)",
        ]


@dataclass(frozen=True, repr=False)
class OneSided(Section):
    """A one-sided upper bound at ``level`` and the chance that the quantity is at most
    ``tolerance``."""

    upper_bound: float
    level: float
    chance_within: float
    tolerance: float


@dataclass(frozen=True, repr=False)
class RecalibrationPreview(Section):
    """What recalibrating would buy: corrected maps fitted on half the items (each posterior draw
    of the channels fits one map, :func:`bayescal.bayes.posterior_recalibration`) and the NC-ECE
    before and after, both scored on the other half with the same draws."""

    n_fit: int
    n_eval: int
    #: NC-ECE of the original scores on the evaluation half.
    before: PosteriorSummary
    #: NC-ECE of each map's scores on the evaluation half, by method (``platt``, ``histogram``).
    after: dict[str, PosteriorSummary]
    #: The posterior draws that fitted a map each, evenly spaced through the chains (at most
    #: :data:`bayescal.app.analysis.PREVIEW_DRAWS`); None in a summary written before it was kept.
    n_draws: int | None = None
    #: By method, each map's one-sided upper bound at the level and the chance that its NC-ECE
    #: is at most the tolerance (0.01): near 0 a two-sided interval misses the target from
    #: above; absent from summaries written before they were kept.
    after_bound: dict[str, OneSided] | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, repr=False)
class Band(Section):
    lower: tuple[float | None, ...]
    median: tuple[float | None, ...]
    upper: tuple[float | None, ...]


class ReliabilityDiagram(NamedTuple):
    """The corrected band and the labelled overlay curves of a reliability diagram."""

    band: ReliabilityBand
    curves: dict[str, ReliabilityCurve]


@dataclass(frozen=True, repr=False)
class ReliabilitySummary(Section):
    """Per-bin data of the reliability diagram (``None`` for an empty bin)."""

    level: float
    edges: tuple[float | None, ...]
    counts: tuple[int, ...]
    mean_score: tuple[float | None, ...]
    corrected: Band
    #: Naive curves (``soft_vote``, ``majority_vote``) and, with a truth column, ``oracle``.
    curves: dict[str, tuple[float | None, ...]]

    #: How the report's legend names each curve.
    LABELS: typing.ClassVar[dict[str, str]] = {
        "soft_vote": "soft vote (naive)",
        "majority_vote": "majority vote (naive)",
        "oracle": "oracle (truth column)",
    }

    @classmethod
    def from_band(cls, band: ReliabilityBand, curves: dict[str, ReliabilityCurve]):
        return cls(
            band.level,
            finite(band.edges),
            tuple(int(n) for n in band.counts),
            finite(band.mean_predicted),
            Band(finite(band.lower), finite(band.median), finite(band.upper)),
            {name: finite(curve.mean_target) for name, curve in curves.items()},
        )

    def band_and_curves(self) -> ReliabilityDiagram:
        """The band and the labelled overlay curves, as :func:`bayescal.report.plot_reliability` takes them."""
        nan = lambda values: np.array([np.nan if x is None else x for x in values], dtype=float)  # noqa: E731
        edges, counts, mean_score = nan(self.edges), np.asarray(self.counts), nan(self.mean_score)
        corrected = self.corrected
        band = ReliabilityBand(
            edges,
            counts,
            mean_score,
            nan(corrected.lower),
            nan(corrected.median),
            nan(corrected.upper),
            self.level,
        )
        curves = {
            self.LABELS.get(name, name): ReliabilityCurve(edges, counts, mean_score, nan(values))
            for name, values in self.curves.items()
        }
        return ReliabilityDiagram(band, curves)


@dataclass(frozen=True, repr=False)
class CheckRow(Section):
    """One row of :func:`bayescal.check_model`'s table."""

    check: str
    subject: str
    observed: float | None
    expected: float | None
    lower: float | None
    upper: float | None
    p_value: float | None
    flag: bool
    note: str


@dataclass(frozen=True, repr=False)
class ChecksSummary(Section):
    verdicts: tuple[str, ...]
    flagged: int
    table: tuple[CheckRow, ...]
    #: Mass of the posterior predictive intervals (absent from summaries written before 0.2).
    level: float | None = field(default=None, metadata=OMIT_NONE)

    @classmethod
    def from_checks(cls, checks) -> ChecksSummary:
        """From the :class:`~bayescal.bayes.ModelChecks` of :func:`bayescal.check_model`."""
        table = checks.table
        rows = []
        for row in table.astype(object).to_dict(orient="records"):
            values = {
                name: None if isinstance(x, float) and not np.isfinite(x) else x
                for name, x in row.items()
            }
            rows.append(CheckRow(**{**values, "flag": bool(values["flag"])}))
        return cls(tuple(checks.verdicts), int(table["flag"].sum()), tuple(rows), checks.level)

    def heading(self, *, of: str = "") -> str:
        """``Model checks [of ...]`` and the mass of their intervals, as the text and the demo
        print it."""
        heading = f"Model checks of {of}" if of else "Model checks"
        if self.level is None:
            return heading
        return f"{heading} (posterior predictive, {self.level:.0%} intervals)"

    def frame(self):
        """The table as a DataFrame, with NaN where a value is undefined (as check_model gives it)."""
        import pandas as pd

        frame = pd.DataFrame([dataclasses.asdict(row) for row in self.table])
        for column in ("observed", "expected", "lower", "upper", "p_value"):
            frame[column] = frame[column].astype(np.float64)
        return frame.assign(flag=frame["flag"].astype(bool))


@dataclass(frozen=True, repr=False)
class ClassBalance(Section):
    prevalence_posterior_mean: float
    interval: tuple[float, float]


@dataclass(frozen=True, repr=False)
class RecordSummary(Section):
    """The fields of a checkable calibration record that apply without an anchor."""

    n_items: int
    class_balance: ClassBalance
    provenance: str
    n_annotators: int
    repeat_rate: float
    fitted_or_held_out: str
    interval_method: str
    binning: str
    #: With a truth column: the record of the predictor thresholded at 0.5 against it.
    against_truth: CalibrationRecord | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, repr=False)
class RunRecord(Section):
    """What repeats a run exactly and ties its files together.

    ``id`` is new on every run and is also the posterior's attribute ``bayescal_run_id``: a
    report refuses a ``posterior.nc`` of another run.  ``seed``, ``chain_method``, ``devices``
    and ``versions`` (Python, bayescal, JAX, jaxlib, NumPyro, ArviZ) repeat the draws.
    """

    id: str
    seed: int
    chain_method: str
    devices: int
    versions: dict[str, str]


class FitSummary(Section):
    """A whole fit's summary (binary :class:`Summary`, or the multi-class one), whose
    ``timings`` a results folder completes as it writes."""

    def with_timings(self, **seconds: float):
        """A copy with more steps in ``timings`` (rounded to the millisecond)."""
        timings = {**self.timings, **{k: round(x, 3) for k, x in seconds.items()}}
        return dataclasses.replace(self, timings=timings)


@dataclass(frozen=True, repr=False)
class Summary(FitSummary):
    """Every number of a fit's report (the guide "Files and the command line").

    ``timings`` (seconds of each step) and ``run.id`` are the only parts that differ between two
    runs of one command; ``input`` records the table, its columns and its SHA-256 when the fit
    came from a file.
    """

    bayescal_version: str
    data: DataSummary
    model: ModelSummary
    identification: Identification
    #: Per annotator, its false-positive rate ``a`` and sensitivity ``b``.
    channels: dict[str, AnnotatorChannels]
    #: ``prevalence``, or ``prevalence[g]`` per score group for Hui–Walter.
    prevalence: dict[str, ParameterSummary]
    diagnostics: Diagnostics
    ece: ECESummary
    reliability: ReliabilitySummary
    checks: ChecksSummary
    record: RecordSummary
    timings: dict[str, float]
    input: dict | None = field(default=None, metadata=OMIT_NONE)
    #: Absent from summaries written before bayescal 0.2.
    run: RunRecord | None = field(default=None, metadata=OMIT_NONE)
    #: The warnings shown while the fit ran, one line each (:func:`bayescal._api.recorded_warnings`).
    warnings: tuple[str, ...] = ()
    #: Absent from summaries written by earlier versions.
    verdict: Verdict | None = field(default=None, metadata=OMIT_NONE)
    calibration_test: CalibrationTestSummary | None = field(default=None, metadata=OMIT_NONE)
    recalibration: RecalibrationPreview | None = field(default=None, metadata=OMIT_NONE)
    rates: RatesSummary | None = field(default=None, metadata=OMIT_NONE)

    def text(self, *, checks: bool = True) -> list[str]:
        """The summary as the lines ``bayescal fit`` prints (the model checks last); a crowd's
        annotators as the first :data:`SHOWN_NAMES` and how many more."""
        ece = self.ece
        frequentist, posterior = ece.nc_ece.frequentist, ece.nc_ece.posterior
        low, high = posterior.interval
        lines = [
            *([] if self.verdict is None else self.verdict.text()),
            f"{self.data.n_items} items, annotators {abbreviated(self.data.annotators, SHOWN_NAMES)}; "
            f"model {self.model.name} ({self.model.why})",
            f"identification: {self.identification.status}",
            f"  naive ECE (soft vote)         {ece.naive['soft_vote']:.4f}",
            f"  naive ECE (majority vote)     {ece.naive['majority_vote']:.4f}",
            "  NC-ECE (EM channels)          "
            + (
                f"{frequentist.value:.4f}"
                + (
                    f"  [{frequentist.interval[0]:.4f}, {frequentist.interval[1]:.4f}]"
                    if frequentist.interval is not None
                    else ""
                )
                + (f"  by {frequentist.estimator}" if frequentist.estimator else "")
                if frequentist.value is not None
                else f"not available ({frequentist.reason})"
            ),
            f"  NC-ECE (posterior median)     {posterior.median:.4f}  [{low:.4f}, {high:.4f}] "
            f"({posterior.level:.0%})",
        ]
        if ece.gold is not None:
            alone = ece.gold.gold_only
            lines.append(
                f"  ECE of the gold items alone   {alone.value:.4f}  [{alone.interval[0]:.4f}, "
                f"{alone.interval[1]:.4f}]  ({ece.gold.n_gold} items; NC-ECE above is "
                f"{ece.gold.estimator} with them)"
            )
            for name, judge in list(ece.gold.judges.items())[:SHOWN_NAMES]:
                lines.append(f"  {name} against the gold:  {judge.text()}")
        if ece.oracle.value is not None:
            lines.append(f"  oracle ECE (truth column)     {ece.oracle.value:.4f}")
        if self.rates is not None:
            lines += self.rates.text()
        if checks:
            lines += [f"{self.checks.heading()}:", *(f"  {line}" for line in self.checks.verdicts)]
        return lines


def _plain(value):
    if isinstance(value, Section):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not (getattr(value, f.name) is None and f.metadata.get("omit_none"))
        }
    if hasattr(value, "to_dict"):  # Priors, CalibrationRecord
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): _plain(x) for k, x in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(x) for x in value]
    return value


def _build(kind, value):
    """``value`` (plain JSON) as an instance of the annotated type ``kind``."""
    if value is None:
        return None
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return _build(next(a for a in arguments if a is not type(None)), value)
    if isinstance(kind, type) and issubclass(kind, Section):
        hints = typing.get_type_hints(kind)
        return kind(
            **{
                f.name: _build(hints[f.name], value[f.name])
                for f in dataclasses.fields(kind)
                if f.name in value
            }
        )
    if hasattr(kind, "from_dict"):  # Priors, CalibrationRecord
        return kind.from_dict(value)
    if origin is dict:
        return {k: _build(arguments[1], x) for k, x in value.items()}
    if origin is tuple:
        item = arguments[0]  # tuple[X, ...] and the pairs tuple[float, float]
        return tuple(_build(item, x) for x in value)
    return value
