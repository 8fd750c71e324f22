"""What a calibration number must carry, and the error rates of a judge against labels.

The two directional error rates come in a *decided* form (abstentions left out) and a
*labeled* form (an abstention counts as a miss), with per-class counts; Youden's index is the
prevalence-free summary; :func:`calibration_record` gathers every field a calibration number
needs to be checkable, with the constant-predictor baseline beside it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_LEVEL, Result, old_spellings
from .._validation import ABSTAIN
from .agreement import KappaInterval, kappa_interval, wilson_interval

__all__ = ["CalibrationRecord", "ErrorRates", "calibration_record", "error_rates", "youden_index"]


@dataclass(frozen=True, repr=False)
class ErrorRates(Result):
    """Directional error rates of a judge against 0/1 truth.

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


def _judged(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Trusted 0/1 labels and a judge's verdicts (0, 1, or ABSTAIN), of one length."""
    truth = v.as_verdicts(y_true, "y_true", abstain=False)
    pred = v.as_verdicts(y_pred, "y_pred")
    v.check_same_length(truth, "y_true", pred, "y_pred")
    return truth, pred


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@old_spellings(renamed={"pred": "y_pred", "truth": "y_true"}, was="error_rates(pred, truth)")
def error_rates(*, y_true, y_pred) -> ErrorRates:
    """FAR and FRR in decided and labeled form, with per-class counts and abstentions.

    Parameters
    ----------
    y_true : array_like of int
        Trusted 0/1 labels.
    y_pred : array_like of int
        The judge's verdicts: 1 pass, 0 fail, -1 (:data:`ABSTAIN`) cannot determine.

    Both by keyword in this release: their order changed in 0.2 (it was ``(pred, truth)``).
    """
    truth, pred = _judged(y_true, y_pred)
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


@old_spellings(renamed={"pred": "y_pred", "truth": "y_true"}, was="youden_index(pred, truth)")
def youden_index(*, y_true, y_pred) -> float:
    """Youden's J = sensitivity + specificity - 1 on the decided subset (Youden 1950).

    Prevalence-free, unlike accuracy and kappa, so it compares across sets with different class
    balance.  Raises when either class has no decided item.
    """
    rates = error_rates(y_true=y_true, y_pred=y_pred)
    if rates.frr_decided is None or rates.far_decided is None:
        raise ValueError(
            "youden_index needs decided items of both classes in truth; one class has none"
        )
    return (1.0 - rates.frr_decided) + (1.0 - rates.far_decided) - 1.0


PROVENANCES = ("human", "proxy")


@dataclass(frozen=True, repr=False)
class CalibrationRecord(Result):
    """The fields a calibration number has to carry to be checkable.

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

    @classmethod
    def from_dict(cls, document: dict) -> CalibrationRecord:
        """Read :meth:`to_dict` output back (the derived abstention rates are recomputed)."""
        values = dict(document)
        rates = {k: x for k, x in values["rates"].items() if k in ErrorRates.__dataclass_fields__}
        values["rates"] = ErrorRates(**rates)
        values["kappa"] = None if values["kappa"] is None else KappaInterval(**values["kappa"])
        if values["accuracy_interval"] is not None:
            values["accuracy_interval"] = tuple(values["accuracy_interval"])
        values["notes"] = tuple(values["notes"])
        return cls(**values)

    @old_spellings()
    def to_json(self, *, indent: int = 2) -> str:
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


@old_spellings(
    renamed={"pred": "y_pred", "truth": "y_true"}, was="calibration_record(pred, truth, name, ...)"
)
def calibration_record(
    *,
    y_true,
    y_pred,
    name="judge",
    provenance="human",
    n_annotators=1,
    repeat_rate=0.0,
    held_out=True,
    level=DEFAULT_LEVEL,
    n_boot=2000,
    seed=0,
) -> CalibrationRecord:
    """Everything a checkable calibration record carries, computed from verdicts and labels.

    Parameters
    ----------
    y_true : array_like of int
        The trusted 0/1 labels.
    y_pred : array_like of int
        Verdicts 1 / 0, -1 (:data:`ABSTAIN`) for cannot determine.  ``y_true`` and ``y_pred``
        are passed by keyword in this release: their order changed in 0.2.
    name : str
    provenance : {"human", "proxy"}
    n_annotators : int
        Annotators behind ``y_true``.
    repeat_rate : float in [0, 1]
        Share of items labeled more than once.
    held_out : bool
        Whether the judge never saw (was never tuned on) these labels.
    level, n_boot, seed
        Interval level, bootstrap replicates and seed of the kappa interval.
    """
    truth, pred = _judged(y_true, y_pred)
    if not isinstance(name, str):
        raise TypeError(f"name must be a string; saw {type(name).__name__}")
    provenance = v.as_choice(provenance, "provenance", PROVENANCES)
    n_annotators = v.as_int(n_annotators, "n_annotators", minimum=1)
    repeat_rate = v.as_probability(repeat_rate, "repeat_rate")
    if not isinstance(held_out, bool):
        raise TypeError(f"held_out must be True or False; saw {held_out!r}")
    level = v.as_open_probability(level, "level")
    notes = []
    rates = error_rates(y_true=truth, y_pred=pred)
    decided = pred != ABSTAIN
    correct = int((pred[decided] == truth[decided]).sum())
    accuracy = correct / int(decided.sum()) if decided.any() else None
    interval = wilson_interval(correct, int(decided.sum()), level=level) if decided.any() else None
    try:
        kappa = kappa_interval(pred, truth, n_boot=n_boot, level=level, seed=seed)
    except ValueError as error:
        kappa = None
        notes.append(f"kappa: {error}")
    try:
        youden = youden_index(y_true=truth, y_pred=pred)
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
    baseline_rates = error_rates(y_true=truth, y_pred=constant)
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
