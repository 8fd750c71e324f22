"""bayescal: calibration of a binary predictor judged by several noisy annotators.

The top-level namespace holds the light, numpy/scipy-only API (data model, metrics, noise
correction, simulators).  ``import bayescal`` must not import numpyro, arviz, matplotlib or
dask (DESIGN.md §1); the Bayesian parts will be reached lazily through ``__getattr__``.
"""

from .correction import (
    Channels,
    aggregation_weights,
    corrected_labels,
    majority_vote_ece,
    noise_corrected_ece,
    soft_vote_ece,
)
from .data import AnnotatedScores, PatternCounts
from .metrics import (
    BinnedMoments,
    ReliabilityCurve,
    calibration_moments,
    expected_calibration_error,
    max_calibration_error,
    reliability_curve,
)
from .simulate import Simulation, simulate_annotated, toy_data

__version__ = "0.1.0.dev0"

__all__ = [
    "AnnotatedScores",
    "BinnedMoments",
    "Channels",
    "PatternCounts",
    "ReliabilityCurve",
    "Simulation",
    "aggregation_weights",
    "calibration_moments",
    "corrected_labels",
    "expected_calibration_error",
    "majority_vote_ece",
    "max_calibration_error",
    "noise_corrected_ece",
    "reliability_curve",
    "simulate_annotated",
    "soft_vote_ece",
    "toy_data",
]
