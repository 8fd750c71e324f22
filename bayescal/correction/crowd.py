"""Bin moments of a crowd from its sparse responses, per channel draw.

With more than :data:`bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators the (bin,
response pattern) cells of :mod:`bayescal.data.cells` are as many as the items, so the corrections
run on the responses instead: O(draws x responses), in chunks of draws
(:mod:`bayescal.correction.target_draws`).  One rule for every
path that corrects a crowd's labels (the crowd rule): an uninformative worker (``|b - a| <
MIN_GAP``) weighs 0, and an item whose informative IV precision is below
:data:`MIN_ITEM_PRECISION` counts as unlabelled, said in one warning line.  The posterior
push-through (:func:`bayescal.nc_ece_posterior`) runs every draw through it; the plug-in
:func:`bayescal.noise_corrected_ece` and :func:`bayescal.recalibrate` one set of channels
(:func:`bayescal.correction.known_channels.crowd_corrected_labels`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .._api import warn_caller
from ..channels.base import MIN_GAP
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import ChannelWarning
from .target_draws import TargetDraws, moment_draws
from .weights import PREVALENCE_CLIP, raw_rule_weights

#: An item whose corrected label has IV precision sum_j 1/v_j below this in a draw (variance
#: above 1, where a label's variance is at most 1/4) counts as unlabelled in that draw.
MIN_ITEM_PRECISION = 1.0


def _corrected_responses(worker, label, a, b):
    """``U_ij = (A_ij - a_j) / d_j`` (s, R) of each response under draws ``a, b`` (s, K), 0 for
    an uninformative worker (``|d_j| < MIN_GAP``), and which workers are informative (s, K)."""
    gap = b - a
    informative = np.abs(gap) >= MIN_GAP
    safe_gap = np.where(informative, gap, 1.0)
    corrected = np.where(informative[:, worker], (label - a[:, worker]) / safe_gap[:, worker], 0.0)
    return corrected, informative


def _plugin_prevalence(incidence, worker, corrected, informative):
    """The App. F.4 plug-in class proportion (s,): the mean over the items with an informative
    label of their equally weighted corrected labels, clipped to ``PREVALENCE_CLIP``."""
    per_item = (incidence @ informative[:, worker].T.astype(float)).T  # labels counted
    has = per_item > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        equal = (incidence @ corrected.T).T / per_item
    return np.clip(
        np.where(has, equal, 0.0).sum(axis=1) / np.maximum(has.sum(axis=1), 1), *PREVALENCE_CLIP
    )


def _item_targets(incidence, worker, label, a, b, rule, prevalence):
    """Corrected labels ``U_i`` (s, n) of draws ``a, b`` (s, K) and which items are labelled.

    ``U_ij = (A_ij - a_j) / d_j`` for each response, weights of the rule (IV with the App. F.4
    plug-in prevalence unless ``prevalence`` is given), an uninformative worker (``|d_j| <
    MIN_GAP``) weighing 0, and ``U_i`` the weighted mean over the item's responses.  An item
    whose informative IV precision is below :data:`MIN_ITEM_PRECISION` (or, for other rules,
    whose weights are all 0) is unlabelled: target 0, ``labelled`` False.
    """
    corrected, informative = _corrected_responses(worker, label, a, b)
    if isinstance(rule, str):
        if prevalence is None:
            prevalence = _plugin_prevalence(incidence, worker, corrected, informative)
        with np.errstate(invalid="ignore", divide="ignore"):  # d = 0: weight 0 below
            raw = raw_rule_weights(a, b, np.broadcast_to(prevalence, a.shape[:1]), rule)
    else:
        raw = np.broadcast_to(rule, a.shape)
    weight = np.where(informative, raw, 0.0)[:, worker]  # (s, R)
    mass = (incidence @ weight.T).T  # (s, n)
    labelled = mass >= MIN_ITEM_PRECISION if isinstance(rule, str) and rule == "iv" else mass > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        targets = np.where(labelled, (incidence @ (weight * corrected).T).T / mass, 0.0)
    return targets, labelled


def _responses(data: AnnotatedScores):
    """The crowd's response-by-item incidence (n, R), and each response's worker and label."""
    responses = data.responses()
    item = responses.item
    incidence = sparse.csr_matrix(
        (np.ones(item.size), (item, np.arange(item.size))), shape=(data.n_items, item.size)
    )
    return incidence, responses.annotator, responses.label.astype(float)


def report_unlabelled(dropped: np.ndarray, n_items: int) -> None:
    """Refuse draws without a labelled item (no moment: never a NaN); say once how many items
    count as unlabelled."""
    if dropped.max() == n_items:
        raise ValueError(
            f"in {int((dropped == n_items).sum())} of {dropped.size} draws no item has a label "
            "from an informative worker (every worker's gap |b - a| too small to correct), so "
            "NC-ECE is undefined there; the fit cannot tell these workers from random answers"
        )
    if dropped.max() > 0:
        median, most = int(np.median(dropped)), int(dropped.max())
        if dropped.size == 1:
            how_many = f"{most} of {n_items} items"
        elif median > 0:
            how_many = f"{median} of {n_items} items (median over draws; up to {most})"
        else:  # in a few draws only: "0 of n items" would read as none
            how_many = (
                f"up to {most} of {n_items} items (in {int((dropped > 0).sum())} of "
                f"{dropped.size} draws)"
            )
        warn_caller(
            f"{how_many} have labels only from workers too uninformative to correct "
            f"them (together the labels tell less than {MIN_ITEM_PRECISION:g} perfectly reliable "
            "label would) and count as unlabelled",
            ChannelWarning,
        )


def crowd_targets(data: AnnotatedScores, a, b, rule, prevalence=None):
    """Corrected labels ``U_i`` (n,) of a crowd's items with one set of channels ``a, b`` (K,),
    and which items are labelled (n,), under the crowd rule (:func:`report_unlabelled` says how
    many are not)."""
    incidence, worker, label = _responses(data)
    targets, labelled = _item_targets(incidence, worker, label, a[None], b[None], rule, prevalence)
    return targets[0], labelled[0]


def crowd_prevalence(data: AnnotatedScores, a, b) -> float:
    """The App. F.4 plug-in class proportion of a crowd's items with channels ``a, b`` (K,): the
    IV weights' prevalence when ``data`` is the sample they are fitted on."""
    incidence, worker, label = _responses(data)
    corrected, informative = _corrected_responses(worker, label, a[None], b[None])
    return float(_plugin_prevalence(incidence, worker, corrected, informative)[0])


def crowd_target_draws(data: AnnotatedScores, a, b, rule) -> TargetDraws:
    """Each item's corrected label under every draw ``a, b`` (S, K) by the crowd rule
    (:func:`_item_targets`, the App. F.4 plug-in prevalence of ``data`` per draw), a chunk of
    draws at a time: O(draws x responses), never draws x items x annotators."""
    incidence, worker, label = _responses(data)
    return TargetDraws(
        a.shape[0],
        data.n_items,
        lambda rows: _item_targets(incidence, worker, label, a[rows], b[rows], rule, None),
        width=worker.size,
    )


def response_moment_draws(
    data: AnnotatedScores, edges, strategy, a, b, rule, uncertainty: str, seed: int
) -> np.ndarray:
    """Draws (S, M) of the bin moments of a crowd, from its sparse responses.

    Per draw the corrected labels of :func:`crowd_target_draws`; an unlabelled item's moment
    drops out and the bin moments average over the labelled items (a warning says how many
    items that is).  ``"total"`` takes the Bayesian bootstrap weights item by item.
    """
    targets = crowd_target_draws(data, a, b, rule)
    moments = moment_draws(targets, data.scores, edges, strategy, uncertainty, seed)[0]
    report_unlabelled(targets.dropped, data.n_items)
    return moments
