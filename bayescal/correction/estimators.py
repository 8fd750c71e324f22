"""What an estimate's ``estimator=`` may be: an estimator's name, a callable ``data -> fit``, or
known channels, turned into one callable for every workflow that estimates channels on the
way (NC-ECE, its multi-class form, recalibration, rates, the gold plan)."""

from __future__ import annotations

from .. import _validation as v
from .. import channels
from ..channels import Channels
from ..exceptions import ChannelFitError

__all__ = ["BINARY_ESTIMATORS", "estimator_function", "fit_or_raise"]

#: The channel estimators of binary data that ``estimator=`` names.
BINARY_ESTIMATORS = (
    "dawid_skene_em",
    "grouped_em",
    "hui_walter_moments",
    "hui_walter_gmm",
    "third_moment",
    "crowd_em",
)


def estimator_function(
    estimator,
    options: dict,
    *,
    argument: str = "estimator",
    names: tuple[str, ...] = BINARY_ESTIMATORS,
    known: tuple[type, ...] = (Channels,),
):
    """A callable data -> fit and its name, from one of the estimators ``names``, a callable,
    or known channels (an instance of ``known``: then ``(None, "known channels")``).

    ``argument`` is the caller's parameter name, for the error message."""
    if isinstance(estimator, known):
        return None, "known channels"
    if isinstance(estimator, str):
        name = v.as_choice(estimator, argument, names)
        function = getattr(channels, name)
        return (lambda data: function(data, **options)), name
    if callable(estimator):
        return (lambda data: estimator(data, **options)), getattr(
            estimator, "__name__", "custom estimator"
        )
    kinds = " or ".join(kind.__name__ for kind in known)
    raise TypeError(
        f"{argument} must be one of {names}, a {kinds}, or a callable; saw "
        f"{type(estimator).__name__}"
    )


def fit_or_raise(fit_channels, name: str, sample, where: str):
    """Run an estimator from :func:`estimator_function` on ``sample``; a failed fit raises,
    naming ``where``."""
    fit = fit_channels(sample)
    if fit.failure is not None:
        raise ChannelFitError(f"{name} failed on {where}: {fit.failure}")
    return fit
