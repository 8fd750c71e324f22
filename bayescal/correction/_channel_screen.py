"""The one rule for the channels the correction meets (uninformative and adversarial
annotators), apart from the correction itself.

An annotator with ``|b_j - a_j| < MIN_GAP`` (1e-4, :data:`bayescal.channels.MIN_GAP`, the
threshold the estimators use too) carries no information about Y: the correction gives it
weight 0 by treating its labels as missing, and says so once; an item left with no label is
refused.  A negatively oriented annotator (``b_j < a_j``) is corrected as it is, with a warning
unless the channels say ``adversarial=True``.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as v
from .._api import abbreviated, named_annotators, warn_caller
from ..channels import MIN_GAP, Channels
from ..exceptions import ChannelWarning

__all__ = ["check_channels", "screen_channels", "without_uninformative"]


def check_channels(channels: object, n_annotators: int | None = None) -> Channels:
    """``channels`` if it is a :class:`Channels` with ``n_annotators`` channels."""
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    if n_annotators is not None and channels.n_annotators != n_annotators:
        raise ValueError(
            f"channels must describe every annotator column ({n_annotators}); "
            f"saw {channels.n_annotators} channel(s)"
        )
    return channels


def screen_channels(
    channels: object, n_annotators: int | None = None, names=None
) -> tuple[Channels, np.ndarray]:
    """The one rule for channels the correction meets.

    An annotator with ``|b_j - a_j| < MIN_GAP`` (1e-4) carries no information about Y: it gets
    weight 0 (its labels are treated as missing), with one :class:`~bayescal.ChannelWarning`
    naming every such annotator; an error only when none is informative.  A negatively
    oriented one (``b_j < a_j``) is corrected as it is, with a warning unless the channels say
    ``adversarial=True``.

    Returns the channels to invert (the uninformative ones replaced by ``a = 0, b = 1``, never
    observed) and the (K,) mask of informative annotators.
    """
    channels = check_channels(channels, n_annotators)
    names = [str(j) for j in range(channels.n_annotators)] if names is None else list(names)
    gap = channels.gap
    informative = np.abs(gap) >= MIN_GAP
    if not informative.any():
        raise ValueError(
            f"channels: no annotator is informative (every |b - a| < {MIN_GAP:g}; gaps "
            f"{np.round(gap, 6).tolist()}): the labels carry no information about Y"
        )
    if not informative.all():
        listed, several = named_annotators([n for n, ok in zip(names, informative) if not ok])
        warn_caller(
            f"channels: {listed} {'have' if several else 'has'} |b - a| < {MIN_GAP:g}: "
            "no information about Y, weight 0 in the correction",
            ChannelWarning,
        )
    negative = informative & (gap < 0)
    if negative.any() and not channels.adversarial:
        listed, several = named_annotators([n for n, bad in zip(names, negative) if bad])
        warn_caller(
            f"channels: {listed} {'have' if several else 'has'} b < a (a 1 from them means "
            f"Y = 0 more often) and {'are' if several else 'is'} corrected as such. If a and b "
            "were swapped, fix the channels; if adversarial on purpose, build them with "
            "Channels(..., adversarial=True)",
            ChannelWarning,
        )
    if informative.all():
        return channels, informative
    usable = Channels(
        np.where(informative, channels.a, 0.0),
        np.where(informative, channels.b, 1.0),
        adversarial=True,
        names=channels.names,
    )
    return usable, informative


def without_uninformative(
    annotations: np.ndarray, informative: np.ndarray, names, refuse_lost: bool
):
    """The annotations with the uninformative annotators' labels set missing; with
    ``refuse_lost``, an item left with no label is refused (nothing is known of its class)."""
    kept = np.where(informative, annotations, v.MISSING)
    lost = (kept == v.MISSING).all(axis=1) & (annotations != v.MISSING).any(axis=1)
    if refuse_lost and lost.any():
        dropped = [str(n) for n, ok in zip(names, informative) if not ok]
        example = annotations[int(np.argmax(lost))]
        given = ", ".join(  # the labels given, by annotator: a crowd's row is mostly missing
            f"{names[j]}={example[j]}" for j in np.flatnonzero(example != v.MISSING)
        )
        raise ValueError(
            f"{int(lost.sum())} item(s) (or response patterns) are labelled only by the "
            f"uninformative annotator(s) {abbreviated(dropped, 12)}, e.g. the labels {given}: "
            "nothing is known of their class; drop them or those annotators"
        )
    return kept
