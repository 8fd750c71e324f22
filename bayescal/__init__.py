"""bayescal: calibration of a binary predictor judged by noisy annotators.

The top level holds the workflow: the data (:class:`AnnotatedScores`), the channel estimators,
the noise-corrected ECE (:func:`noise_corrected_ece`, :func:`nc_ece_estimate`,
:func:`nc_ece_posterior`), the gold to buy (:func:`plan_gold`, :func:`select_for_gold`), the
calibration test, recalibration, the Bayesian fit and its
checks, the simulators of the two data shapes, the result types of these, the defaults and the
exceptions.  Everything else lives in its folder, one layer each (``bayescal.metrics``,
``data``, ``channels``, ``correction``, ``simulate``, ``recalibration``, ``bayes``, ``studies``,
``report``, ``app``), reached as ``bayescal.<folder>.<name>``.

``import bayescal`` does not import numpyro, arviz, matplotlib or dask: the Bayesian parts, the
analysis and the folders above ``recalibration`` load on first use.

Conventions (``CHANGELOG.md`` lists the changes that brought them): data first, options by
keyword; intervals at ``level`` (default :data:`DEFAULT_LEVEL`); evaluation bins ``n_bins``
(default :data:`DEFAULT_N_BINS`); bins a histogram map is fitted on ``fit_bins`` (default
:data:`DEFAULT_FIT_BINS`).
"""

from . import _api
from ._api import DEFAULT_FIT_BINS, DEFAULT_LEVEL, DEFAULT_N_BINS
from ._version import __version__ as __version__
from .bayes.priors import Priors
from .bayes.sampler_settings import SamplerSettings
from .channels import ChannelFit, Channels, crowd_em, dawid_skene_em, grouped_em, hui_walter_gmm
from .correction import (
    CalibrationTest,
    calibration_test,
    nc_ece_estimate,
    noise_corrected_ece,
    plan_gold,
    select_for_gold,
)
from .data import AnnotatedScores
from .exceptions import (
    BinningWarning,
    ChannelFitError,
    ChannelWarning,
    ConvergenceWarning,
    DataWarning,
    DependenceWarning,
    IdentificationError,
    NotFittedError,
    PriorConflictWarning,
    QuadratureWarning,
    RecalibrationWarning,
    SamplingWarning,
    SaturatedModelWarning,
    TableError,
    WeakIdentificationWarning,
)
from .metrics import expected_calibration_error
from .recalibration import recalibrate
from .simulate import simulate_annotated, simulate_crowd, toy_data

#: The folders, one layer each, in their import order (``bayescal.bayes`` and those above it
#: load on first use).
_FOLDERS = (
    "metrics",
    "data",
    "channels",
    "correction",
    "simulate",
    "recalibration",
    "bayes",
    "studies",
    "report",
    "app",
)

#: Heavy parts reached lazily, so that ``import bayescal`` loads neither numpyro nor arviz.
_LAZY = {
    "fit_bayes": "bayescal.bayes.fit",
    "BayesFit": "bayescal.bayes.bayes_fit",
    "nc_ece_posterior": "bayescal.bayes.posterior",
    "PosteriorECE": "bayescal.bayes.posterior",
    "check_model": "bayescal.bayes.checks",
    "prior_sensitivity": "bayescal.bayes.sensitivity",
    "compare_models": "bayescal.bayes.comparison",
    "analyse": "bayescal.app.analysis",
    "Analysis": "bayescal.app.analysis",
    **{folder: f"bayescal.{folder}" for folder in _FOLDERS},
}


#: Names of earlier releases, found for one more release with a DeprecationWarning: renamed
#: names, and the names that left the top level for their folder (CHANGELOG.md lists them).
_MOVED = {
    "PatternCounts": "bayescal.data:CellStatistics",
    "nc_ece": "bayescal.correction:nc_ece_estimate",
    "posterior_ece": "bayescal.bayes:nc_ece_posterior",
    "ModelChecks": "bayescal.bayes:ModelChecks",
    "pattern_loo": "bayescal.bayes:pattern_loo",
    "posterior_recalibration": "bayescal.bayes:posterior_recalibration",
    "PosteriorRecalibration": "bayescal.bayes:PosteriorRecalibration",
    "power_scaling": "bayescal.bayes:power_scaling",
    "prior_grid": "bayescal.bayes:prior_grid",
    "PriorSensitivity": "bayescal.bayes:PriorSensitivity",
    "verdicts": "bayescal.bayes:verdicts",
    "hui_walter_moments": "bayescal.channels:hui_walter_moments",
    "score_groups": "bayescal.channels:score_groups",
    "third_moment": "bayescal.channels:third_moment",
    "aggregation_weights": "bayescal.correction:aggregation_weights",
    "corrected_labels": "bayescal.correction:corrected_labels",
    "label_posterior": "bayescal.correction:label_posterior",
    "majority_vote_ece": "bayescal.correction:majority_vote_ece",
    "majority_vote_labels": "bayescal.correction:majority_vote_labels",
    "NCECEResult": "bayescal.correction:NCECEResult",
    "soft_vote_ece": "bayescal.correction:soft_vote_ece",
    "soft_vote_labels": "bayescal.correction:soft_vote_labels",
    "CellStatistics": "bayescal.data:CellStatistics",
    "BinnedMoments": "bayescal.metrics:BinnedMoments",
    "calibration_moments": "bayescal.metrics:calibration_moments",
    "Interval": "bayescal.metrics:Interval",
    "max_calibration_error": "bayescal.metrics:max_calibration_error",
    "reliability_curve": "bayescal.metrics:reliability_curve",
    "ReliabilityBand": "bayescal.metrics:ReliabilityBand",
    "ReliabilityCurve": "bayescal.metrics:ReliabilityCurve",
    "corrected_log_loss": "bayescal.recalibration:corrected_log_loss",
    "HistogramBinning": "bayescal.recalibration:HistogramBinning",
    "PlattScaling": "bayescal.recalibration:PlattScaling",
    "recalibration_study": "bayescal.recalibration:recalibration_study",
    "RecalibrationStudy": "bayescal.recalibration:RecalibrationStudy",
    "TemperatureScaling": "bayescal.recalibration:TemperatureScaling",
    "simulate_dependent": "bayescal.simulate:simulate_dependent",
    "simulate_difficulty": "bayescal.simulate:simulate_difficulty",
    "Simulation": "bayescal.simulate:Simulation",
}
__getattr__, __dir__ = _api.lazy_names(__name__, _LAZY, _MOVED)

#: The modules of earlier releases and where their names live now: each folder of the package
#: is one layer (data, metrics, channels, correction, simulate, recalibration, bayes, studies,
#: report, app).  ``import bayescal.inference`` still works for one release, with a
#: DeprecationWarning; this adds one finder to ``sys.meta_path``, consulted only for these names.
_api.moved_modules(
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

#: The public names (the lazy ones included): the workflow, its inputs and results, the
#: defaults and the exceptions.
__all__ = [
    "DEFAULT_FIT_BINS",
    "DEFAULT_LEVEL",
    "DEFAULT_N_BINS",
    "Analysis",
    "AnnotatedScores",
    "BayesFit",
    "BinningWarning",
    "CalibrationTest",
    "ChannelFit",
    "ChannelFitError",
    "ChannelWarning",
    "Channels",
    "ConvergenceWarning",
    "DataWarning",
    "DependenceWarning",
    "IdentificationError",
    "NotFittedError",
    "PosteriorECE",
    "PriorConflictWarning",
    "Priors",
    "QuadratureWarning",
    "RecalibrationWarning",
    "SamplerSettings",
    "SamplingWarning",
    "SaturatedModelWarning",
    "TableError",
    "WeakIdentificationWarning",
    "analyse",
    "calibration_test",
    "check_model",
    "compare_models",
    "crowd_em",
    "dawid_skene_em",
    "expected_calibration_error",
    "fit_bayes",
    "grouped_em",
    "hui_walter_gmm",
    "nc_ece_estimate",
    "nc_ece_posterior",
    "noise_corrected_ece",
    "plan_gold",
    "prior_sensitivity",
    "recalibrate",
    "select_for_gold",
    "simulate_annotated",
    "simulate_crowd",
    "toy_data",
]
