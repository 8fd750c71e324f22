"""The Bayesian stack (ArviZ and NumPyro), imported without its import-time notices.

Every module that uses ArviZ or NumPyro imports it from here, and :mod:`bayescal.models`
imports this module before its programs import NumPyro, so that these notices never reach
bayescal's users, nor fail a run where warnings are errors (tests/test_architecture.py checks
that NumPyro's first import passes here, from every way in).
ArviZ is imported only when first needed (:func:`arviz`): it costs about two seconds (it
imports scipy.stats and matplotlib and compiles Numba functions), which a fit does not need.

- ArviZ 0.23 announces its 1.0 refactor with a ``FutureWarning`` on the first import of each
  day; the message starts with a newline, and a warning filter matches from the first
  character, hence the leading ``\\s*``;
- NumPyro imports ``tqdm.auto``, which warns in Jupyter without ipywidgets (bayescal's progress
  bars are plain tqdm).
"""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="IProgress not found")
    from numpyro import handlers
    from numpyro.distributions.transforms import biject_to
    from numpyro.infer import Predictive
    from numpyro.infer.hmc import hmc
    from numpyro.infer.util import constrain_fn, potential_energy

__all__ = [
    "Predictive",
    "arviz",
    "biject_to",
    "constrain_fn",
    "handlers",
    "hmc",
    "potential_energy",
]


def arviz():
    """The ``arviz`` module, imported on first use without its notices."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"\s*ArviZ is undergoing a major refactor", category=FutureWarning
        )
        import arviz as az
    return az
