"""NumPyro programs of bayescal, shipped as ``bayescal.models``.

This directory is mapped into the package by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``; import it as ``bayescal.models``, never as ``models``.  Importing it imports
numpyro, so ``import bayescal`` does not import it.

- :func:`dawid_skene` — marginal latent-class model, K >= 3 annotators.
- :func:`hui_walter` — grouped model, shared channels, one prevalence per score group.
- :func:`hierarchical_dawid_skene` — crowds: workers' channels partially pooled.
- :func:`shared_difficulty` — items hard for every judge: a random item effect per class.
- :func:`hui_walter_by_group` — channels per score group, to test whether the noise depends on
  the score.

The first two run on a :class:`PatternDesign` built from ``AnnotatedScores.compress()``, the
third on a :class:`ResponseDesign` of the sparse responses (:func:`design_class`).
"""

from dataclasses import replace

# NumPyro's first import must pass bayescal.models.stack, which keeps its import-time notices away
# (tqdm.auto's in Jupyter); the programs below import NumPyro themselves
from . import stack  # noqa: F401
from ._common import OrientedChannels, PatternDesign, check_complete_layout, pattern_log_prob
from .dawid_skene import dawid_skene
from .hierarchical_dawid_skene import (
    ORIENTED_START,
    POPULATION_SITES,
    hierarchical_dawid_skene,
    population_log_density,
)
from .hui_walter import hui_walter, hui_walter_by_group
from .response_design import ResponseDesign
from .shared_difficulty import DIFFICULTY_START, majority_start, shared_difficulty

#: The models whose data are sparse responses (a ResponseDesign), not pattern counts.
RESPONSE_MODELS = ("hierarchical_dawid_skene",)


#: Sites every chain starts at (the rest at random on the unconstrained scale), by name.
START_VALUES = {**ORIENTED_START, **DIFFICULTY_START}

#: The models whose likelihood integrates a shared item difficulty.
DIFFICULTY_MODELS = ("shared_difficulty",)
#: The models with a class proportion per score group ...
GROUPED_MODELS = ("hui_walter", "hui_walter_by_group")
#: ... and those among them with channels per score group.
GROUP_CHANNEL_MODELS = ("hui_walter_by_group",)


def design_class(model: str):
    """The design class a model's program runs on."""
    return ResponseDesign if model in RESPONSE_MODELS else PatternDesign


def design_from_constant_data(model: str, variables: dict):
    """The design of a stored fit of ``model`` (its ``constant_data`` variables)."""
    design = design_class(model).from_constant_data(variables)
    if model in DIFFICULTY_MODELS:
        return replace(design, difficulty=True)
    return replace(design, channels_by_group=True) if model in GROUP_CHANNEL_MODELS else design


__all__ = [
    "DIFFICULTY_MODELS",
    "GROUPED_MODELS",
    "GROUP_CHANNEL_MODELS",
    "ORIENTED_START",
    "POPULATION_SITES",
    "RESPONSE_MODELS",
    "START_VALUES",
    "OrientedChannels",
    "PatternDesign",
    "ResponseDesign",
    "check_complete_layout",
    "dawid_skene",
    "design_class",
    "design_from_constant_data",
    "hierarchical_dawid_skene",
    "hui_walter",
    "hui_walter_by_group",
    "majority_start",
    "pattern_log_prob",
    "population_log_density",
    "shared_difficulty",
]
