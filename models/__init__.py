"""NumPyro programs of bayescal, shipped as ``bayescal.models``.

This directory is mapped into the package by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``; import it as ``bayescal.models``, never as ``models``.  Importing it imports
numpyro, so ``import bayescal`` does not import it.

- :func:`dawid_skene` — marginal latent-class model, K >= 3 annotators.
- :func:`hui_walter` — grouped model, shared channels, one prevalence per score group.
- :func:`hierarchical_dawid_skene` — crowds: workers' channels partially pooled.

The first two run on a :class:`PatternDesign` built from ``AnnotatedScores.compress()``, the
third on a :class:`ResponseDesign` of the sparse responses (:func:`design_class`).
"""

from ._common import OrientedChannels, PatternDesign, check_complete_layout, pattern_log_prob
from .dawid_skene import dawid_skene
from .hierarchical_dawid_skene import (
    ORIENTED_START,
    POPULATION_SITES,
    hierarchical_dawid_skene,
    population_log_density,
)
from .hui_walter import hui_walter
from .response_design import ResponseDesign

#: The models whose data are sparse responses (a ResponseDesign), not pattern counts.
RESPONSE_MODELS = ("hierarchical_dawid_skene",)


def design_class(model: str):
    """The design class a model's program runs on."""
    return ResponseDesign if model in RESPONSE_MODELS else PatternDesign


__all__ = [
    "ORIENTED_START",
    "POPULATION_SITES",
    "RESPONSE_MODELS",
    "OrientedChannels",
    "PatternDesign",
    "ResponseDesign",
    "check_complete_layout",
    "dawid_skene",
    "design_class",
    "hierarchical_dawid_skene",
    "hui_walter",
    "pattern_log_prob",
    "population_log_density",
]
