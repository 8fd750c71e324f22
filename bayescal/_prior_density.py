"""The log prior density of every draw of a fit, per parameter: the InferenceData's
``log_prior`` group, for power-scaling sensitivity (``az.psens``; :mod:`bayescal.sensitivity`).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .channels.dependence import covariance_bounds
from .models import POPULATION_SITES, population_log_density
from .priors import Priors

__all__ = ["log_prior_terms"]


def _beta_log_pdf(x, alpha: float, beta: float):
    """``log Beta(x; alpha, beta) = (alpha-1) log x + (beta-1) log(1-x) - log B(alpha, beta)``
    (scipy.special, not scipy.stats: the latter costs 0.7 s to import)."""
    return (
        special.xlogy(alpha - 1.0, x)
        + special.xlog1py(beta - 1.0, -x)
        - special.betaln(alpha, beta)
    )


def _covariance_range(a: np.ndarray, b: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``U_y - L_y`` (..., D, 2): the width of each pair's covariance bounds given ``Y = 0``
    and ``Y = 1`` at channels ``a, b`` (..., K)."""
    widths = []
    for rates in (a, b):
        lower, upper = covariance_bounds(rates[..., pairs[:, 0]], rates[..., pairs[:, 1]])
        widths.append(upper - lower)
    return np.stack(widths, axis=-1)


def log_prior_terms(samples: dict, priors: Priors, pairs: np.ndarray) -> dict:
    """Log prior density of every draw, per parameter, for power-scaling sensitivity (az.psens):
    ``{name: (dims, array)}``.  Like the programs' log densities it omits constants (``-log P(a
    < b)`` of the flat models, the hyperpriors' normalisers): a constant changes no power-scaling
    weight once the weights are normalised."""
    a, b, prevalence = samples["a"], samples["b"], samples["prevalence"]
    draw, annotator = ("chain", "draw"), ("chain", "draw", "annotator")
    prevalence_dims = (*draw, "group") if prevalence.ndim == 3 else draw
    terms = {"prevalence": (prevalence_dims, _beta_log_pdf(prevalence, *priors.prevalence))}
    if "population_mean" not in samples:
        terms["a"] = (annotator, _beta_log_pdf(a, *priors.false_positive))
        terms["b"] = (annotator, _beta_log_pdf(b, *priors.sensitivity))
        if "covariance" in samples:  # uniform within its bounds given the channels
            terms["covariance"] = (
                ("chain", "draw", "pair", "class"),
                -np.log(_covariance_range(a, b, pairs)),
            )
        if "loading" in samples:  # HalfNormal(1)
            loading = samples["loading"]
            terms["loading"] = (
                ("chain", "draw", "class"),
                0.5 * np.log(2.0 / np.pi) - 0.5 * loading**2,
            )
        return terms
    channel, population = population_log_density(
        special.logit(a), special.logit(b), {site: samples[site] for site in POPULATION_SITES}
    )
    terms["channel"] = (annotator, channel)
    terms["population"] = (draw, population)
    return terms
