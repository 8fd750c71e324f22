"""Simulation studies (DESIGN.md §1): interval coverage, simulation-based calibration and
split-sample recalibration.

Some import the Bayesian stack, so ``import bayescal`` does not import them.
"""

from .coverage import posterior_coverage
from .recalibration import recalibration_simulation
from .sbc import simulation_based_calibration

__all__ = ["posterior_coverage", "recalibration_simulation", "simulation_based_calibration"]
