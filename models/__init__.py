"""NumPyro programs of bayescal, shipped as ``bayescal.models``.

This directory is mapped into the package by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``; import it as ``bayescal.models``, never as ``models``.  Importing it imports
numpyro, so ``import bayescal`` does not import it.  Which model runs which program, on which
data and with which structure, is declared once in :mod:`bayescal.bayes.registry`.

- :func:`latent_class_model` — the latent class model on pattern counts: Dawid–Skene, Hui–Walter
  (a class proportion per score group), channels per score group, dependent pairs and a shared
  item difficulty are this one program under the structure of its :class:`PatternDesign`.
- :func:`hierarchical_dawid_skene` — crowds: the workers' channels partially pooled, on the
  :class:`ResponseDesign` of their sparse responses.
- :func:`class_latent_model` — the multi-class latent class model (Dawid–Skene with Dirichlet
  confusion rows) on the pattern counts of a :class:`ClassPatternDesign`; its draws are
  relabelled after sampling (:mod:`~bayescal.models.relabelling`).
- :func:`class_crowd_model` — multi-class crowds: the workers' confusion matrices drawn from
  a population, on the :class:`ClassResponseDesign` of their sparse responses; relabelled
  the same way.  :mod:`~bayescal.models.class_rows` holds what the two multi-class designs share.
- :mod:`~bayescal.models.channel_prior` — the prior of a channel (two Betas, or a Dirichlet
  per confusion row).
- :mod:`~bayescal.models.orientation` — the flat models' draws folded onto the population's
  orientation.
- :mod:`~bayescal.models.cyclic_fields` — the Newton solve of a cycle's joint inside a
  program (:mod:`bayescal.channels.cyclic_joint`).
- :mod:`~bayescal.models.stack` — NumPyro and ArviZ, imported without their notices.
"""

from bayescal.channels.cyclic_joint import use_program_solver

# NumPyro's first import must pass .stack, which keeps its import-time notices away
# (tqdm.auto's in Jupyter); the programs below import NumPyro themselves
from . import stack  # noqa: F401
from .class_crowd import CLASS_CROWD_START, class_crowd_model
from .class_latent import class_latent_model, class_majority_start
from .class_pattern_design import ClassPatternDesign
from .class_response_design import ClassResponseDesign
from .cyclic_fields import solve_fields
from .hierarchical_dawid_skene import (
    ORIENTED_START,
    POPULATION_SITES,
    hierarchical_dawid_skene,
    population_log_density,
    population_mean_channel,
)
from .latent_class import DIFFICULTY_START, latent_class_model, majority_start
from .orientation import fold_orientation, labels_per_channel, mirrored_chains
from .pattern_design import PatternDesign, check_complete_layout, row_key
from .relabelling import relabelled
from .response_design import ResponseDesign

# a cycle's joint inside a program is solved here, where JAX lives (cyclic_fields)
use_program_solver(solve_fields)

#: Sites every chain starts at (the rest at random on the unconstrained scale), by name.
START_VALUES = {**ORIENTED_START, **DIFFICULTY_START}

__all__ = [
    "CLASS_CROWD_START",
    "POPULATION_SITES",
    "START_VALUES",
    "ClassPatternDesign",
    "ClassResponseDesign",
    "PatternDesign",
    "ResponseDesign",
    "check_complete_layout",
    "class_crowd_model",
    "class_latent_model",
    "class_majority_start",
    "fold_orientation",
    "hierarchical_dawid_skene",
    "labels_per_channel",
    "latent_class_model",
    "majority_start",
    "mirrored_chains",
    "population_log_density",
    "population_mean_channel",
    "relabelled",
    "row_key",
]
