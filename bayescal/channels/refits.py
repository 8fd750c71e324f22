"""Refits of many data sets by one estimator: what every bootstrap of refitted channels runs.

The EM estimators fit a batch together (:func:`bayescal.channels.em.em_refits`: the same fits,
the iterations of all in one batch of matrix products); the others one call each.  A refit is
silent (what it would say was said of the real fit) and ``None`` where the estimator refuses
the data set or finds no admissible estimate.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._api import silenced
from ..exceptions import FIT_WARNINGS, ChannelFitError, IdentificationError
from .base import ChannelFit
from .crowd_em import crowd_em
from .em import EM_METHODS, dawid_skene_em, em_refits, grouped_em
from .gmm import hui_walter_gmm
from .moments import hui_walter_moments, third_moment

__all__ = ["refit_all"]

_ESTIMATORS = {
    estimator.__name__: estimator
    for estimator in (
        crowd_em,
        dawid_skene_em,
        grouped_em,
        hui_walter_gmm,
        hui_walter_moments,
        third_moment,
    )
}


def refit_all(method: str, batch: Iterable, dependent=None, options=()) -> list[ChannelFit | None]:
    """The admissible fit of estimator ``method`` (by name, with the ``dependent`` pairs and
    the keyword ``options``, pairs of name and value as :attr:`ChannelFit.options` records
    them) to each data set of ``batch``, or ``None`` (module docstring).  The EM estimators
    batch the refits only with their defaults (:func:`~bayescal.channels.em.em_refits`)."""
    if method in EM_METHODS and not options:
        fits = em_refits(method, batch, dependent)
    else:
        estimator = _ESTIMATORS[method]
        keywords = {**dict(options), **_pairs(dependent)}
        fits = [refit_one(lambda data: estimator(data, **keywords), data) for data in batch]
    return [fit if fit is not None and fit.ok else None for fit in fits]


def refit_one(estimate, data) -> ChannelFit | None:
    """``estimate(data)`` (a callable data -> ChannelFit), silent; ``None`` when it refuses
    the data or finds no admissible estimate."""
    with silenced(*FIT_WARNINGS):
        try:
            fit = estimate(data)
        except (ChannelFitError, IdentificationError):
            return None
    return fit if fit.ok else None


def _pairs(dependent) -> dict:
    return {"dependent": dependent} if dependent else {}
