"""bayescal: calibration of a binary predictor judged by several noisy annotators.

The top-level namespace holds the light, numpy/scipy-only API (data model, metrics, noise
correction, channel estimators, recalibration, simulators).  ``import bayescal`` must not
import numpyro, arviz, matplotlib or dask; the Bayesian parts, and
:func:`analyse` (the work of ``bayescal fit``), are reached lazily through ``__getattr__``.

Conventions (``CHANGELOG.md`` lists the changes that brought them): data first, options by
keyword; intervals at ``level`` (default :data:`DEFAULT_LEVEL`); evaluation bins ``n_bins``
(default :data:`DEFAULT_N_BINS`); bins a histogram map is fitted on ``fit_bins`` (default
:data:`DEFAULT_FIT_BINS`).
"""

from ._api import DEFAULT_FIT_BINS, DEFAULT_LEVEL, DEFAULT_N_BINS, Interval, moved_names
from ._version import __version__
from .cells import CellStatistics
from .channels import (
    ChannelFit,
    Channels,
    crowd_em,
    dawid_skene_em,
    grouped_em,
    hui_walter_gmm,
    hui_walter_moments,
    score_groups,
    third_moment,
)
from .correction import (
    aggregation_weights,
    corrected_labels,
    label_posterior,
    majority_vote_ece,
    majority_vote_labels,
    noise_corrected_ece,
    soft_vote_ece,
    soft_vote_labels,
)
from .crowds import simulate_crowd
from .data import AnnotatedScores
from .estimation import NCECEResult, nc_ece_estimate
from .exceptions import (
    BinningWarning,
    ChannelFitError,
    ChannelWarning,
    ConvergenceWarning,
    DependenceWarning,
    IdentificationError,
    NotFittedError,
    QuadratureWarning,
    RecalibrationWarning,
    SamplingWarning,
    SaturatedModelWarning,
    TableError,
    WeakIdentificationWarning,
)
from .metrics import (
    BinnedMoments,
    ReliabilityBand,
    ReliabilityCurve,
    calibration_moments,
    expected_calibration_error,
    max_calibration_error,
    reliability_curve,
)
from .priors import Priors
from .recalibration import (
    HistogramBinning,
    PlattScaling,
    RecalibrationStudy,
    TemperatureScaling,
    corrected_log_loss,
    recalibrate,
    recalibration_study,
)
from .significance import CalibrationTest, calibration_test
from .simulate import (
    Simulation,
    simulate_annotated,
    simulate_dependent,
    simulate_difficulty,
    toy_data,
)

#: Heavy parts reached lazily, so that ``import bayescal`` loads neither numpyro nor arviz.
_LAZY = {
    "fit_bayes": "bayescal.inference",
    "BayesFit": "bayescal.bayes_fit",
    "nc_ece_posterior": "bayescal.posterior",
    "PosteriorECE": "bayescal.posterior",
    "posterior_recalibration": "bayescal.posterior_maps",
    "PosteriorRecalibration": "bayescal.posterior_maps",
    "check_model": "bayescal.checks",
    "verdicts": "bayescal.checks",
    "prior_sensitivity": "bayescal.sensitivity",
    "prior_grid": "bayescal.sensitivity",
    "power_scaling": "bayescal.sensitivity",
    "PriorSensitivity": "bayescal.sensitivity",
    "ModelChecks": "bayescal.checks",
    "analyse": "bayescal.analysis",
    "compare_models": "bayescal.model_comparison",
    "pattern_loo": "bayescal.model_comparison",
    "Analysis": "bayescal.analysis",
}


#: Names of earlier releases, found for one more release with a DeprecationWarning.
_moved = moved_names(
    "bayescal",
    {
        "PatternCounts": "bayescal.cells:CellStatistics",
        "nc_ece": "bayescal.estimation:nc_ece_estimate",
        "posterior_ece": "bayescal.posterior:nc_ece_posterior",
    },
)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    return _moved(name)


def __dir__():
    return sorted(list(globals()) + list(_LAZY))


__all__ = [
    "DEFAULT_FIT_BINS",
    "DEFAULT_LEVEL",
    "DEFAULT_N_BINS",
    "AnnotatedScores",
    "BinnedMoments",
    "BinningWarning",
    "CalibrationTest",
    "CellStatistics",
    "ChannelFit",
    "ChannelFitError",
    "ChannelWarning",
    "Channels",
    "ConvergenceWarning",
    "DependenceWarning",
    "HistogramBinning",
    "IdentificationError",
    "Interval",
    "NCECEResult",
    "NotFittedError",
    "PlattScaling",
    "Priors",
    "QuadratureWarning",
    "RecalibrationStudy",
    "RecalibrationWarning",
    "ReliabilityBand",
    "ReliabilityCurve",
    "SamplingWarning",
    "SaturatedModelWarning",
    "Simulation",
    "TableError",
    "TemperatureScaling",
    "WeakIdentificationWarning",
    "__version__",
    "aggregation_weights",
    "calibration_moments",
    "calibration_test",
    "corrected_labels",
    "corrected_log_loss",
    "crowd_em",
    "dawid_skene_em",
    "expected_calibration_error",
    "grouped_em",
    "hui_walter_gmm",
    "hui_walter_moments",
    "label_posterior",
    "majority_vote_ece",
    "majority_vote_labels",
    "max_calibration_error",
    "nc_ece_estimate",
    "noise_corrected_ece",
    "recalibrate",
    "recalibration_study",
    "reliability_curve",
    "score_groups",
    "simulate_annotated",
    "simulate_crowd",
    "simulate_dependent",
    "simulate_difficulty",
    "soft_vote_ece",
    "soft_vote_labels",
    "third_moment",
    "toy_data",
]
