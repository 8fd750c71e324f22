"""NumPyro programs of bayescal, shipped as ``bayescal.models``.

This directory is mapped into the package by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``; import it as ``bayescal.models``, never as ``models``.  Importing it imports
numpyro, so ``import bayescal`` does not import it.

- :func:`dawid_skene` — marginal latent-class model, K >= 3 annotators.
- :func:`hui_walter` — grouped model, shared channels, one prevalence per score group.

Both run on a :class:`PatternDesign` built from ``AnnotatedScores.compress()``.
"""

from ._common import OrientedChannels, PatternDesign, check_complete_layout, pattern_log_prob
from .dawid_skene import dawid_skene
from .hui_walter import hui_walter

__all__ = [
    "OrientedChannels",
    "PatternDesign",
    "check_complete_layout",
    "dawid_skene",
    "hui_walter",
    "pattern_log_prob",
]
