"""Simulation studies: interval coverage, simulation-based calibration,
split-sample recalibration and the behaviour of the model checks.

Some import the Bayesian stack, so ``import bayescal`` does not import them.
"""

from .checks import model_check_study
from .coverage import posterior_coverage
from .recalibration import recalibration_simulation
from .sbc import simulation_based_calibration
from .toy import ToyStudy, toy_study

__all__ = [
    "ToyStudy",
    "model_check_study",
    "posterior_coverage",
    "recalibration_simulation",
    "simulation_based_calibration",
    "toy_study",
]
