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

from ._api import (
    DEFAULT_FIT_BINS,
    DEFAULT_LEVEL,
    DEFAULT_N_BINS,
    Interval,
    lazy_names,
    moved_modules,
)
from ._version import __version__
from .bayes.priors import Priors
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
from .correction.calibration_test import CalibrationTest, calibration_test
from .correction.estimation import NCECEResult, nc_ece_estimate
from .correction.known_channels import (
    aggregation_weights,
    corrected_labels,
    label_posterior,
    majority_vote_ece,
    majority_vote_labels,
    noise_corrected_ece,
    soft_vote_ece,
    soft_vote_labels,
)
from .data.annotated_scores import AnnotatedScores
from .data.cells import CellStatistics
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
from .metrics.calibration import (
    BinnedMoments,
    ReliabilityBand,
    ReliabilityCurve,
    calibration_moments,
    expected_calibration_error,
    max_calibration_error,
    reliability_curve,
)
from .recalibration import (
    HistogramBinning,
    PlattScaling,
    RecalibrationStudy,
    TemperatureScaling,
    corrected_log_loss,
    recalibrate,
    recalibration_study,
)
from .simulate.crowds import simulate_crowd
from .simulate.panels import (
    Simulation,
    simulate_annotated,
    simulate_dependent,
    simulate_difficulty,
    toy_data,
)

#: Heavy parts reached lazily, so that ``import bayescal`` loads neither numpyro nor arviz.
_LAZY = {
    "fit_bayes": "bayescal.bayes.fit",
    "BayesFit": "bayescal.bayes.bayes_fit",
    "nc_ece_posterior": "bayescal.bayes.posterior",
    "PosteriorECE": "bayescal.bayes.posterior",
    "posterior_recalibration": "bayescal.bayes.posterior",
    "PosteriorRecalibration": "bayescal.bayes.posterior",
    "check_model": "bayescal.bayes.checks",
    "verdicts": "bayescal.bayes.checks",
    "prior_sensitivity": "bayescal.bayes.sensitivity",
    "prior_grid": "bayescal.bayes.sensitivity",
    "power_scaling": "bayescal.bayes.sensitivity",
    "PriorSensitivity": "bayescal.bayes.sensitivity",
    "ModelChecks": "bayescal.bayes.checks",
    "analyse": "bayescal.app.analysis",
    "compare_models": "bayescal.bayes.comparison",
    "pattern_loo": "bayescal.bayes.comparison",
    "Analysis": "bayescal.app.analysis",
}


#: Names of earlier releases, found for one more release with a DeprecationWarning.
_MOVED = {
    "PatternCounts": "bayescal.data.cells:CellStatistics",
    "nc_ece": "bayescal.correction.estimation:nc_ece_estimate",
    "posterior_ece": "bayescal.bayes.posterior:nc_ece_posterior",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, _MOVED)

#: The modules of earlier releases and where their names live now: each folder of the package
#: is one layer (data, metrics, channels, correction, simulate, recalibration, bayes, studies,
#: report, app).  ``import bayescal.inference`` still works for one release, with a
#: DeprecationWarning; this adds one finder to ``sys.meta_path``, consulted only for these names.
moved_modules(
    {
        "bayescal.agreement": ("bayescal.metrics.agreement",),
        "bayescal.record": ("bayescal.metrics.record",),
        "bayescal.triage": ("bayescal.metrics.triage",),
        "bayescal.responses": ("bayescal.data.responses",),
        "bayescal.cells": ("bayescal.data.cells",),
        "bayescal.io": ("bayescal.data.tables", "bayescal.report.folders", "bayescal.bayes.priors"),
        "bayescal.estimation": ("bayescal.correction.estimation",),
        "bayescal.significance": ("bayescal.correction.calibration_test",),
        "bayescal.crowds": ("bayescal.simulate.crowds",),
        "bayescal.priors": ("bayescal.bayes.priors",),
        "bayescal.convergence": ("bayescal.bayes.diagnostics",),
        "bayescal.bayes_fit": ("bayescal.bayes.bayes_fit",),
        "bayescal.inference": ("bayescal.bayes.fit",),
        "bayescal.posterior": ("bayescal.bayes.posterior",),
        "bayescal.posterior_maps": ("bayescal.bayes.posterior",),
        "bayescal.checks": ("bayescal.bayes.checks",),
        "bayescal.sensitivity": ("bayescal.bayes.sensitivity",),
        "bayescal.model_comparison": ("bayescal.bayes.comparison",),
        "bayescal.summary": ("bayescal.report.summary",),
        "bayescal.plotting": ("bayescal.report.plotting",),
        "bayescal.folders": ("bayescal.report.folders",),
        "bayescal.results": ("bayescal.report.folders",),
        "bayescal.analysis": ("bayescal.app.analysis",),
        "bayescal.commands": ("bayescal.app.commands",),
        "bayescal.demo": ("bayescal.app.demo",),
        "bayescal.cli": ("bayescal.app.cli",),
    }
)

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
