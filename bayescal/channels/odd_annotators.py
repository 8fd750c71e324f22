"""One rule for the odd annotators of a fitted channel set, shared by the EM estimators and
the Bayesian fits (estimate them, flag them, weight them down, say so in one line).

An annotator is

- *constant* when it gave two or more labels, all of one value (its rates cannot be told
  apart; a single label is no sign of it: a crowd of one label per worker is not constant);
- *indistinguishable from random* when ``|b_j - a_j|`` is within twice its standard error
  of 0, ``SE_j = sqrt(a_j (1 - a_j) / n0_j + b_j (1 - b_j) / n1_j)`` with ``n1_j`` the
  expected number of its labels on items with Y = 1 and ``n0_j`` the rest: a spammer, a
  guesser, or too few labels to tell;
- *adversarial* when ``b_j < a_j`` by more than that (its 1 means Y = 0 more often).

A random guesser whose estimate came out ``b < a`` by chance is therefore called random, not
adversarial.  Each kind is one :class:`~bayescal.exceptions.ChannelWarning` naming its
annotators; the correction uses them all, with little or no weight for the first two.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from .._api import named_annotators, warn_caller
from ..exceptions import ChannelWarning

__all__ = [
    "OddAnnotators",
    "constant_annotators",
    "odd_annotators",
    "posterior_odd_annotators",
    "warn_odd_annotators",
]

#: Names shown in one warning; the rest are counted.
SHOWN = 5

#: What each kind's line says after the names (:func:`warn_odd_annotators`).
ADVERSARIAL_TEXT = (
    "estimated adversarial (b < a by more than twice its standard error: their 1 means "
    "Y = 0 more often); the correction uses them as such"
)
RANDOM_TEXT = (
    "indistinguishable from random answers (|b - a| within twice its standard error of "
    "0); the correction gives them little weight"
)
CONSTANT_START = "constant (they gave one label value only); "
#: A warnings filter's ``message`` that matches every line of :func:`warn_odd_annotators`,
#: whichever estimator wrote it (and no other line, a pooled channel's included).
ODD_LINES = (
    r"\w+: .+ (is|are) "
    + f"({re.escape(ADVERSARIAL_TEXT)}|{re.escape(RANDOM_TEXT)}|{re.escape(CONSTANT_START)})"
)


class OddAnnotators(NamedTuple):
    """Boolean masks (K,) of the three kinds (module docstring); they do not overlap."""

    constant: np.ndarray
    random: np.ndarray
    adversarial: np.ndarray


def odd_annotators(a, b, labels, class1, positives) -> OddAnnotators:
    """The kinds of ``K`` annotators with channels ``a, b`` (K,) who gave ``labels`` (K,)
    labels, ``class1`` (K,) of them expected on items with Y = 1, ``positives`` (K,) of them 1."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    labels, class1 = np.asarray(labels, float), np.asarray(class1, float)
    constant = constant_annotators(labels, positives)
    error = np.sqrt(
        a * (1 - a) / np.maximum(labels - class1, 1.0) + b * (1 - b) / np.maximum(class1, 1.0)
    )
    random = ~constant & (labels > 0) & (np.abs(b - a) <= 2 * error)
    return OddAnnotators(constant, random, ~constant & ~random & (b < a))


def constant_annotators(labels, positives) -> np.ndarray:
    """The annotators (K,) who gave two labels or more (``labels``), all of one value
    (``positives`` of them 1)."""
    labels, positives = np.asarray(labels), np.asarray(positives)
    return (labels > 1) & ((positives == 0) | (positives == labels))


def posterior_odd_annotators(a, b, constant, *, crowd: bool) -> OddAnnotators:
    """The kinds of annotators with channel draws ``a, b`` (S, K) by the rule of
    :func:`odd_annotators`, the posterior standard deviation of the gap ``b - a`` for its
    standard error, and ``constant`` (K,) read from the labels (never random or adversarial),
    named as the EM estimators name them.  A ``crowd``'s (:func:`bayescal.crowd_em`): the
    constant ones and every random one.  A panel's (:func:`bayescal.dawid_skene_em`): only
    those whose gap is below 0 on average, adversarial or random (the others, and the
    constant ones, are left to the correction's weights: a few dense annotators on small data
    would all be named)."""
    gap = np.asarray(b, float) - np.asarray(a, float)
    mean, spread = gap.mean(axis=0), gap.std(axis=0)
    constant = np.asarray(constant, bool)
    random = ~constant & (np.abs(mean) <= 2 * spread)
    adversarial = ~constant & (mean < -2 * spread)
    if crowd:
        return OddAnnotators(constant, random, adversarial)
    return OddAnnotators(np.zeros_like(constant), random & (mean < 0), adversarial)


def warn_odd_annotators(
    method: str,
    names,
    odd: OddAnnotators,
    *,
    smoothed: bool = False,
    pooled: bool = False,
    posterior: bool = False,
) -> None:
    """One warning line per kind present, naming its annotators (the first :data:`SHOWN`);
    ``smoothed``, ``pooled`` and ``posterior`` (a Bayesian fit's, finite by its prior) say
    where a constant annotator's channel comes from."""
    names = np.asarray(names, dtype=object)
    texts = (
        (odd.adversarial, ADVERSARIAL_TEXT),
        (odd.random, RANDOM_TEXT),
        (
            odd.constant,
            CONSTANT_START
            + (
                "those with few labels share the pooled channel, the others have "
                if pooled
                else "each has "
            )
            + (
                "a finite channel from the prior"
                if posterior
                else "a finite channel from the smoothing"
                if smoothed
                else "a = b on the boundary"
            )
            + " and little or no weight in the correction",
        ),
    )
    for mask, text in texts:
        if mask.any():
            listed, several = named_annotators(names[mask], SHOWN)
            warn_caller(f"{method}: {listed} {'are' if several else 'is'} {text}", ChannelWarning)
