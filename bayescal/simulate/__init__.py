"""Seeded simulators: annotated scores with known channels and calibration, for tests, studies
and the examples.

- :mod:`~bayescal.simulate.panels` — a panel of annotators who label every item: the paper's
  toy study (§6.1), any channels and calibration map, a dependent pair, pairs from the
  pairwise log-linear model (trees or cycles), a shared item difficulty.
- :mod:`~bayescal.simulate.classes` — a multi-class panel: a classifier's probabilities,
  judges with known confusion matrices, and the population top-label and classwise ECE.
- :mod:`~bayescal.simulate.crowds` — a crowd: many workers, each labelling a few items, of four
  kinds (good, spammer, constant, adversarial).
"""

from .._api import moved_names
from .classes import ClassSimulation, graded_confusion, simulate_classes
from .crowds import simulate_crowd
from .panels import (
    TOY_CONDITIONS,
    Simulation,
    simulate_annotated,
    simulate_dependent,
    simulate_difficulty,
    simulate_log_linear,
    toy_data,
)

__all__ = [
    "TOY_CONDITIONS",
    "ClassSimulation",
    "Simulation",
    "graded_confusion",
    "simulate_annotated",
    "simulate_classes",
    "simulate_crowd",
    "simulate_dependent",
    "simulate_difficulty",
    "simulate_log_linear",
    "toy_data",
]

#: The names of the former ``bayescal.simulate`` module kept in its modules.
__getattr__ = moved_names(
    "bayescal.simulate",
    {name: f"bayescal.simulate.panels:{name}" for name in ("TOY_CHANNELS", "toy_calibration")},
)
