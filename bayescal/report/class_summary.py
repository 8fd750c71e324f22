"""The summary of a multi-class fit (``summary.json`` of ``bayescal fit`` on multi-class data)
as typed, frozen dataclasses, the multi-class counterpart of :class:`~bayescal.report.Summary`.

:func:`bayescal.analyse` fills a :class:`ClassSummary` when the data have three classes or
more; :meth:`ClassSummary.to_dict` gives its strict JSON document, marked ``"kind":
"multiclass"``, and :meth:`ClassSummary.from_dict` reads it back
(:func:`bayescal.report.folders.load_summary` picks the class by that mark).  Undefined numbers
are ``None`` with a reason, never NaN, as in the binary summary, whose sections it shares.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._api import abbreviated, within_tolerance_text
from ..bayes.priors import ClassPriors
from .summary import (
    OMIT_NONE,
    SHOWN_NAMES,
    CalibrationTestSummary,
    Diagnostics,
    Estimate,
    FitSummary,
    ParameterSummary,
    PosteriorSummary,
    ReliabilitySummary,
    RunRecord,
    Section,
    Verdict,
    finite,
)

__all__ = [
    "MULTICLASS_SUMMARY",
    "ClassDataSummary",
    "ClassECE",
    "ClassModelSummary",
    "ClassReliability",
    "ClassSummary",
    "ConfusionSummary",
]

#: The mark of a multi-class ``summary.json`` (its ``kind``).
MULTICLASS_SUMMARY = "multiclass"

#: How the text and the report name each multi-class ECE.
KIND_NAMES = {"top_label": "top-label", "classwise": "classwise (mean over classes)"}


@dataclass(frozen=True, repr=False)
class ClassDataSummary(Section):
    n_items: int
    annotators: tuple[str, ...]
    classes: tuple[str, ...]
    #: Whether the classes form a scale in their order (``AnnotatedScores.ordinal``).
    ordinal: bool
    missing_rate: float
    missing_by_annotator: dict[str, float]
    n_gold: int
    #: The classes made of several that every annotator answers alike, merged by the
    #: analysis (:func:`bayescal.channels.confused_classes`), e.g. ``"4|5"``; empty for none.
    merged: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class ClassModelSummary(Section):
    name: str
    why: str
    priors: ClassPriors
    chains: int
    draws_per_chain: int


def _rows(matrix) -> tuple[tuple[float | None, ...], ...]:
    return tuple(finite(row) for row in np.asarray(matrix, dtype=np.float64))


@dataclass(frozen=True, repr=False)
class ConfusionSummary(Section):
    """One annotator's confusion matrix ``T[y, k] = P(A = k | Y = y)`` (rows the true class):
    each cell's posterior mean and equal-tailed interval, and the EM estimate."""

    posterior_mean: tuple[tuple[float, ...], ...]
    lower: tuple[tuple[float, ...], ...]
    upper: tuple[tuple[float, ...], ...]
    #: The EM estimate (``dawid_skene_em``), ``None`` when EM failed.
    em: tuple[tuple[float, ...], ...] | None
    #: The largest R-hat of the matrix's cells.
    max_r_hat: float | None

    @classmethod
    def from_draws(cls, draws: np.ndarray, level: float, em, max_r_hat) -> ConfusionSummary:
        """From one annotator's draws (S, C, C) of its matrix."""
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
        return cls(
            _rows(draws.mean(axis=0)),
            _rows(low),
            _rows(high),
            None if em is None else _rows(em),
            finite([max_r_hat])[0],
        )

    def matrix(self, which: str = "posterior_mean") -> np.ndarray:
        """One of the matrices as a (C, C) array: ``posterior_mean``, ``lower``, ``upper`` or
        ``em``."""
        return np.array(getattr(self, which), dtype=np.float64)


@dataclass(frozen=True, repr=False)
class ClassECE(Section):
    """One multi-class ECE (``top_label`` or ``classwise``): naive, noise-corrected (EM and
    posterior) and, with a truth column, the oracle."""

    #: Against each item's share of votes (``soft_vote``) and its most frequent class, split
    #: equally at a tie (``majority_vote``).
    naive: dict[str, float]
    frequentist: Estimate
    posterior: PosteriorSummary
    #: ``P(NC-ECE <= tolerance)`` under the posterior.
    prob_within_tolerance: float
    tolerance: float
    oracle: Estimate
    #: The items NC-ECE scores: those with a label from an annotator whose matrix can be
    #: inverted (the naive and oracle ECEs score every item).
    n_evaluated: int
    #: Classwise: each class's NC-ECE posterior (the ECE above is their mean).
    classes: dict[str, PosteriorSummary] | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, repr=False)
class ClassReliability(Section):
    """The reliability diagrams: the top label's confidence against its corrected accuracy, and
    each class's probability against its corrected frequency (the classwise problems)."""

    top_label: ReliabilitySummary
    classes: dict[str, ReliabilitySummary]


@dataclass(frozen=True, repr=False)
class ClassSummary(FitSummary):
    """Every number of a multi-class fit's report.

    ``timings`` and ``run.id`` are the only parts that differ between two runs of one
    command; ``input`` records the table, its columns and its SHA-256 when the fit came from
    a file.
    """

    kind: str
    bayescal_version: str
    data: ClassDataSummary
    model: ClassModelSummary
    #: Per annotator, its confusion matrix.
    confusion: dict[str, ConfusionSummary]
    #: The class proportions, by class.
    proportion: dict[str, ParameterSummary]
    diagnostics: Diagnostics
    n_bins: int
    #: ``top_label`` and ``classwise``.
    ece: dict[str, ClassECE]
    reliability: ClassReliability
    verdict: Verdict
    timings: dict[str, float]
    calibration_test: CalibrationTestSummary | None = field(default=None, metadata=OMIT_NONE)
    input: dict | None = field(default=None, metadata=OMIT_NONE)
    run: RunRecord | None = field(default=None, metadata=OMIT_NONE)
    #: The warnings shown while the fit ran, one line each.
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind != MULTICLASS_SUMMARY:
            raise ValueError(
                f"kind must be {MULTICLASS_SUMMARY!r} in a multi-class summary; saw {self.kind!r}"
            )

    def text(self) -> list[str]:
        """The summary as the lines ``bayescal fit`` prints: the verdict, then each ECE."""
        data = self.data
        scale = "ordinal " if data.ordinal else ""
        merged = f" ({', '.join(data.merged)} merged: not told apart)" if data.merged else ""
        lines = [
            *self.verdict.text(),
            f"{data.n_items} items, {len(data.classes)} {scale}classes "
            f"{abbreviated(data.classes, SHOWN_NAMES)}{merged}, annotators "
            f"{abbreviated(data.annotators, SHOWN_NAMES)}; model {self.model.name} "
            f"({self.model.why})",
        ]
        for kind, ece in self.ece.items():
            posterior, frequentist = ece.posterior, ece.frequentist
            low, high = posterior.interval
            em = (
                f"{frequentist.value:.4f}"
                if frequentist.value is not None
                else f"n/a ({frequentist.reason})"
            )
            lines += [
                f"  {KIND_NAMES[kind]} ECE:",
                f"    naive (soft vote) {ece.naive['soft_vote']:.4f}, (majority vote) "
                f"{ece.naive['majority_vote']:.4f}",
                f"    NC-ECE (EM channels) {em}; posterior median {posterior.median:.4f} "
                f"[{low:.4f}, {high:.4f}] ({posterior.level:.0%}); "
                f"{within_tolerance_text(ece.prob_within_tolerance, ece.tolerance)}",
            ]
            if ece.oracle.value is not None:
                lines.append(f"    oracle (truth column) {ece.oracle.value:.4f}")
            if ece.n_evaluated < data.n_items:
                lines.append(
                    f"    NC-ECE scores {ece.n_evaluated} of the {data.n_items} items (the "
                    "others have labels only from annotators whose matrix cannot be inverted)"
                )
        return lines
