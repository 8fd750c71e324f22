"""Prior–data conflict: when a prior, not the data, decides a channel or a class proportion.

A prior the user chose (anything but the flat default) can hold a parameter where the data
would not let it be: ``{"sensitivity": [1e9, 1]}`` fixes every sensitivity at 1 whatever the
labels say, and NC-ECE is then measured against that prior (second bad-input catalogue,
row 122: 0.184 where the oracle is 0.079).  The estimate from the data alone is the EM fit the
analysis makes anyway (maximum likelihood, no prior).  A parameter is in conflict when that
estimate lies outside the posterior's central :data:`CONFLICT_LEVEL` interval and is more
than :data:`MATERIAL_GAP` from the posterior median: an informative prior on weak data widens
or moves the posterior a little, and is not named; one that overrules strong data is.
"""

from __future__ import annotations

import numpy as np

from .._api import abbreviated, warn_caller
from ..exceptions import PriorConflictWarning
from .priors import Priors

__all__ = ["CONFLICT_LEVEL", "MATERIAL_GAP", "prior_conflicts", "warn_prior_conflicts"]

#: The posterior's central interval the data-alone estimate must fall outside.
CONFLICT_LEVEL = 0.999
#: ... and how far from the posterior median, on the probability scale, to matter.
MATERIAL_GAP = 0.02


def prior_conflicts(fit, channel_fit) -> list[str]:
    """The parameters of ``fit`` (a BayesFit) in conflict with the data alone, estimated by
    ``channel_fit`` (an EM ChannelFit of the same data), each described in a few words; empty
    under the default flat priors, for a failed EM fit, and for the hierarchical model (whose
    channels' prior is its population, not the Priors)."""
    # a model on a crowd's responses (hierarchical) takes its channels' prior from its population
    if fit.priors == Priors() or not channel_fit.ok or fit.spec.on_responses:
        return []
    names = list(channel_fit.annotator_names)
    a, b, prevalence = fit.draws()
    drawn = {}
    for rate, draws, estimate in (
        ("a", a, channel_fit.channels.a),
        ("b", b, channel_fit.channels.b),
    ):
        for position, name in enumerate(fit.annotator_names):
            if name in names:  # channels per score group have no one EM estimate to compare
                drawn[f"{rate}[{name}]"] = (draws[:, position], estimate[names.index(name)])
    proportions = np.atleast_1d(np.asarray(channel_fit.prevalence, float))
    prevalence = prevalence.reshape(prevalence.shape[0], -1)
    if prevalence.shape[1] == proportions.size:
        for group, estimate in enumerate(proportions):
            label = "prevalence" if proportions.size == 1 else f"prevalence[{group}]"
            drawn[label] = (prevalence[:, group], estimate)
    tail = (1.0 - CONFLICT_LEVEL) / 2.0
    conflicts = []
    for label, (draws, estimate) in drawn.items():
        low, median, high = np.quantile(draws, [tail, 0.5, 1.0 - tail])
        if not low <= estimate <= high and abs(estimate - median) > MATERIAL_GAP:
            conflicts.append(
                f"{label} (the data alone: {estimate:.3f}; the posterior: {median:.3f} "
                f"[{low:.3f}, {high:.3f}])"
            )
    return conflicts


def warn_prior_conflicts(fit, channel_fit) -> None:
    """One :class:`~bayescal.PriorConflictWarning` naming the parameters of
    :func:`prior_conflicts`, if any."""
    conflicts = prior_conflicts(fit, channel_fit)
    if conflicts:
        warn_caller(
            f"the prior, not the data, decides {abbreviated(conflicts, 3)}: the estimate from "
            f"the data alone ({channel_fit.method}) lies outside the posterior's "
            f"{CONFLICT_LEVEL:.1%} interval, so NC-ECE rests on the prior there. Check the "
            "prior; bayescal sensitivity compares it with others",
            PriorConflictWarning,
        )
