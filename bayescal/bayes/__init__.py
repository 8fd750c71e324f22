"""The Bayesian channel models: NUTS fits, the posterior object, and every posterior draw pushed
through NC-ECE and recalibration, with the checks and studies of a fit.

Importing this package is light: JAX, NumPyro and ArviZ are imported when a name below that
needs them is first used.

- :mod:`~bayescal.bayes.priors` — :class:`Priors`, the Beta priors of the channel models,
  :class:`ClassPriors`, the Dirichlet priors of the multi-class one, and priors files.
- :mod:`~bayescal.bayes.fit` — :func:`fit_bayes`: NUTS on a model of :mod:`bayescal.models`,
  identification checked before sampling.
- :mod:`~bayescal.bayes.sampler_settings` — :class:`SamplerSettings`: chains, warm-up, draws,
  seed and progress, shared by every caller of the sampler.
- :mod:`~bayescal.bayes.sampler` and :mod:`~bayescal.bayes.compile_cache` — the compiled NUTS
  sampler, one per model and layout, kept on disk for later processes.
- :mod:`~bayescal.bayes.bayes_fit` — :class:`BayesFit`, the posterior object (one ArviZ
  ``InferenceData``); :mod:`~bayescal.bayes.class_fit` — :class:`ClassBayesFit`, its
  multi-class counterpart.
- :mod:`~bayescal.bayes.diagnostics` — rank-normalised R-hat, bulk and tail ESS.
- :mod:`~bayescal.bayes.posterior` — NC-ECE and recalibration maps for every posterior draw;
  :mod:`~bayescal.bayes.class_posterior` — top-label and classwise NC-ECE for every draw of a
  multi-class fit, and :mod:`~bayescal.bayes.class_recalibration` its recalibration;
  :mod:`~bayescal.bayes.posterior_ece` — the results both give.
- :mod:`~bayescal.bayes.checks` — posterior predictive checks of a fit.
- :mod:`~bayescal.bayes.sensitivity` — prior sensitivity: a grid of priors, power scaling.
- :mod:`~bayescal.bayes.comparison` — PSIS-LOO on pattern counts and model comparison.
"""

from .._api import lazy_names
from .priors import ClassPriors, Priors, read_priors
from .sampler_settings import SamplerSettings

_LAZY = {
    "fit_bayes": "bayescal.bayes.fit",
    "BayesFit": "bayescal.bayes.bayes_fit",
    "ClassBayesFit": "bayescal.bayes.class_fit",
    "ClassPosteriorECE": "bayescal.bayes.class_posterior",
    "nc_ece_posterior": "bayescal.bayes.posterior",
    "PosteriorECE": "bayescal.bayes.posterior",
    "posterior_recalibration": "bayescal.bayes.posterior",
    "PosteriorRecalibration": "bayescal.bayes.posterior",
    "check_model": "bayescal.bayes.checks",
    "ModelChecks": "bayescal.bayes.checks",
    "verdicts": "bayescal.bayes.checks",
    "prior_sensitivity": "bayescal.bayes.sensitivity",
    "prior_grid": "bayescal.bayes.sensitivity",
    "power_scaling": "bayescal.bayes.sensitivity",
    "PriorSensitivity": "bayescal.bayes.sensitivity",
    "compare_models": "bayescal.bayes.comparison",
    "pattern_loo": "bayescal.bayes.comparison",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = ["ClassPriors", "Priors", "SamplerSettings", "read_priors", *_LAZY]
