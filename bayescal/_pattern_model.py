"""What a fit of a pattern model settles before sampling (:func:`bayescal.fit_bayes`,
:func:`bayescal.prior_sensitivity`): the model's structure, and whether the data identify it.

Dependent pairs and the shared difficulty are counted against the data's cells and checked by
the rank of the pattern probabilities' Jacobian (:mod:`bayescal.channels.dependence`) at an
estimate: the dependent EM fit for pairs, the independent EM channels with loadings
:data:`DIFFICULTY_CHECK_LOADINGS` for the shared difficulty (no EM of the item effect).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._api import warn_caller
from .cells import CellStatistics
from .channels._base import check_annotators, require_identified, warn_if_groups_inseparable
from .channels.dependence import DependentPairs, dependent_pairs, require_dependence_identified
from .channels.em import adversarial_annotators, dependent_estimate, independent_estimate
from .exceptions import ChannelWarning, IdentificationError, WeakIdentificationWarning
from .models import DIFFICULTY_MODELS, GROUP_CHANNEL_MODELS, GROUPED_MODELS

__all__ = ["DIFFICULTY_CHECK_LOADINGS", "PatternModel", "pattern_model"]

#: Loadings of the point at which the shared-difficulty model's identification is checked
#: (with the independent EM channels): away from 0, where a loading's effect is of second
#: order and every Jacobian loses rank.
DIFFICULTY_CHECK_LOADINGS = (0.5, 0.5)


class PatternModel(NamedTuple):
    """The structure of a pattern model's fit."""

    grouped: bool  # a class proportion per score group
    pairs: DependentPairs
    difficulty: bool  # a shared item difficulty
    by_group: bool  # channels per score group


def pattern_model(counts: CellStatistics, model: str, dependent, where: str) -> PatternModel:
    """Check ``model`` (with the ``dependent`` pairs) on the pattern counts before sampling:
    refuse what the data cannot identify, warn of weak identification, and return the
    structure the sampler's design needs."""
    grouped = model in GROUPED_MODELS
    by_group = model in GROUP_CHANNEL_MODELS
    difficulty = model in DIFFICULTY_MODELS
    n_annotators = counts.patterns.shape[1]
    require_identified(n_annotators, np.unique(counts.groups).size if grouped else 1, where)
    check_annotators(counts)
    pairs = dependent_pairs(dependent, counts.annotator_names)
    if (difficulty or by_group) and pairs:
        raise ValueError(
            f"dependent: model {model!r} takes no dependent pairs; fit named dependent pairs "
            "with model='dawid_skene' or 'hui_walter'"
        )
    if by_group:
        _require_groups_identified(counts, where)
    # one silent EM fit for what is checked at it: the adversarial annotators, and the shared
    # difficulty's identification (channels per group have no pooled fit to check)
    independent = None if by_group else independent_estimate(counts, grouped)
    if pairs or difficulty:
        check = grouped and not difficulty
        require_dependence_identified(counts, check, pairs, where, difficulty=difficulty)
        estimate = (
            _difficulty_check_point(independent)
            if difficulty
            else dependent_estimate(counts, grouped, pairs)
        )
        if estimate is None:
            warn_caller(
                f"{where}: EM found no estimate to check the Jacobian's rank at; only the "
                "parameters were counted against the data's cells",
                WeakIdentificationWarning,
            )
        require_dependence_identified(counts, check, pairs, where, estimate, difficulty)
    if grouped and n_annotators == 2:
        warn_if_groups_inseparable(counts, where)
    if independent is not None:
        _warn_of_adversarial(counts, grouped, independent, where)
    return PatternModel(grouped, pairs, difficulty, by_group)


def _warn_of_adversarial(counts: CellStatistics, grouped: bool, fit, where: str) -> None:
    """The pattern models orient every annotator, ``a_j < b_j`` (:mod:`bayescal.priors`), so
    an adversarial one (``b_j < a_j``) is fitted at the bound ``a_j = b_j``: as uninformative,
    with a channel not its own and no weight in the correction (measured: a = 0.6, b = 0.3
    came out a = 0.450, b = 0.452).  Say so, for the annotators the EM fit estimates
    adversarial (``fit``, :func:`~bayescal.channels.em.adversarial_annotators`)."""
    names = adversarial_annotators(counts, grouped, fit)
    if names:
        warn_caller(
            f"{where}: annotator(s) {list(names)} are estimated adversarial by EM (b < a by "
            "more than twice its standard error); this model orients every annotator (a < b) "
            "and fits them at its bound a = b, as uninformative: their channels here are not "
            "theirs, and the correction gives them no weight. dawid_skene_em (or grouped_em) "
            "and the hierarchical model estimate them as they are",
            ChannelWarning,
        )


def _require_groups_identified(counts: CellStatistics, where: str) -> None:
    """Channels per score group make every group a Dawid–Skene model of its own: refuse one
    group, or a group with fewer than three annotators who labelled in it."""
    group_ids = np.unique(counts.groups)
    if group_ids.size < 2:
        raise IdentificationError(
            f"{where}: channels per score group need two score groups or more; saw "
            f"{group_ids.size} (give the data groups, e.g. groups=score_groups(scores, n_groups=2))"
        )
    for group in group_ids:
        present = (counts.patterns[counts.groups == group] >= 0).any(axis=0)
        if present.sum() < 3:
            raise IdentificationError(
                f"{where}: channels per score group make each group a Dawid–Skene model of its "
                f"own, which needs three annotators or more; score group {int(group)} has "
                f"{int(present.sum())} with labels"
            )


def _difficulty_check_point(fit):
    """Where the shared-difficulty model's Jacobian is checked: the independent EM channels
    (``fit``) with :data:`DIFFICULTY_CHECK_LOADINGS` (``None``, the count alone, when EM
    fails)."""
    if not fit.ok:
        return None
    loadings = np.array(DIFFICULTY_CHECK_LOADINGS)
    return fit.channels.a, fit.channels.b, fit.prevalence, np.zeros((0, 2)), loadings
