"""Metrics against clean labels: the calibration errors that the noise correction estimates,
and the statistics of checking one judge against labels or against another.

- :mod:`~bayescal.metrics.calibration` — binned ECE, MCE and the reliability curve (Guo et al.
  2017; Futami and Fujisawa; paper §2), for binary labels and, through
  :mod:`~bayescal.metrics.classes`, top-label and classwise for multi-class predictions.
- :mod:`~bayescal.metrics.kernels` — the compiled single-pass kernels behind the equal-width
  binned metrics (Numba, imported when a kernel first runs).
- :mod:`~bayescal.metrics.agreement` — agreement between judges (Cohen's kappa, Krippendorff's
  alpha) and the tests of checking a judge against labels.
- :mod:`~bayescal.metrics.record` — what a calibration number must carry, and a judge's error
  rates against labels.
- :mod:`~bayescal.metrics.triage` — a density threshold for anomaly triage when labels are
  scarce.

:class:`Interval` (lower, upper) is the interval every result of bayescal reports.
"""

from .._api import Interval
from .agreement import (
    ABSTAIN,
    HolmSidak,
    IndependenceCheck,
    KappaInterval,
    KSResult,
    NoiseCorrectedAccuracy,
    accuracy_under_label_noise,
    cohens_kappa,
    holm_sidak,
    independence_check,
    kappa_interval,
    krippendorff_alpha,
    ks_two_sample,
    mcnemar_exact,
    wilson_interval,
)
from .calibration import (
    BinnedMoments,
    ClasswiseReliability,
    ReliabilityBand,
    ReliabilityCurve,
    calibration_moments,
    expected_calibration_error,
    max_calibration_error,
    reliability_curve,
)
from .record import CalibrationRecord, ErrorRates, calibration_record, error_rates, youden_index
from .triage import LogitKDEThreshold, logit_kde_threshold

__all__ = [
    "ABSTAIN",
    "BinnedMoments",
    "CalibrationRecord",
    "ClasswiseReliability",
    "ErrorRates",
    "HolmSidak",
    "IndependenceCheck",
    "Interval",
    "KSResult",
    "KappaInterval",
    "LogitKDEThreshold",
    "NoiseCorrectedAccuracy",
    "ReliabilityBand",
    "ReliabilityCurve",
    "accuracy_under_label_noise",
    "calibration_moments",
    "calibration_record",
    "cohens_kappa",
    "error_rates",
    "expected_calibration_error",
    "holm_sidak",
    "independence_check",
    "kappa_interval",
    "krippendorff_alpha",
    "ks_two_sample",
    "logit_kde_threshold",
    "max_calibration_error",
    "mcnemar_exact",
    "reliability_curve",
    "wilson_interval",
    "youden_index",
]
