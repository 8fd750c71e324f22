"""The whole job: :func:`analyse` on one table, and the ``bayescal`` command.

Importing this package is light (``bayescal --help`` answers without JAX); the names below are
imported on first use.

- :mod:`~bayescal.app.analysis` — :func:`analyse`: read, choose the model, fit, correct, test,
  recalibrate, check and summarise, as :class:`Analysis`.
- :mod:`~bayescal.app.class_analysis` — the same on multi-class data, as
  :class:`ClassAnalysis` (confusion matrices, top-label and classwise NC-ECE).
- :mod:`~bayescal.app.steps` — what both share: the steps timed and announced, the test run
  or warned about, the run's versions.
- :mod:`~bayescal.app.model_choice` — which Bayesian model a data set gets, its matching EM
  estimate, and a dependent pair proposed by the checks.
- :mod:`~bayescal.app.commands` — what ``bayescal fit``, ``report``, ``recalibrate`` and
  ``sensitivity`` do with their arguments.
- :mod:`~bayescal.app.demo` — ``bayescal demo``.
- :mod:`~bayescal.app.cli` — the ``bayescal`` command (the only module that reads ``argv``).
"""

from .._api import lazy_names

_LAZY = {
    "analyse": "bayescal.app.analysis",
    "Analysis": "bayescal.app.analysis",
    "ClassAnalysis": "bayescal.app.class_analysis",
    "frequentist_channels": "bayescal.app.model_choice",
    "model_data": "bayescal.app.model_choice",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = list(_LAZY)
