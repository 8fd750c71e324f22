"""Simulation studies (DESIGN.md §1): interval coverage and simulation-based calibration.

They import the Bayesian stack, so ``import bayescal`` does not import them.
"""

from .coverage import posterior_coverage
from .sbc import simulation_based_calibration

__all__ = ["posterior_coverage", "simulation_based_calibration"]
