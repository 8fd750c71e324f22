"""Which Bayesian model a data set gets, and its matching EM estimate (the choice behind
:func:`bayescal.analyse` and ``bayescal fit``'s ``--model auto``)."""

from __future__ import annotations

from typing import NamedTuple

from . import _validation as v
from ._api import old_spellings
from .channels import ChannelFit, crowd_em, dawid_skene_em, grouped_em, score_groups
from .channels.crowd_em import CROWD_ANNOTATORS, SPARSE_LABELS
from .data import AnnotatedScores

__all__ = [
    "EM_ESTIMATES",
    "MODEL_CHOICES",
    "EMFit",
    "ModelChoice",
    "em_estimate",
    "frequentist_channels",
    "model_data",
    "with_pairs",
]

#: ``model`` values of :func:`analyse` (and ``--model`` of the command line).
MODEL_CHOICES = (
    "auto",
    "dawid-skene",
    "hui-walter",
    "hierarchical-dawid-skene",
    "shared-difficulty",
)
#: Score groups used for two annotators when none are given.
DEFAULT_GROUPS = 5


class ModelChoice(NamedTuple):
    """The Bayesian model to fit, why, and the data it is fitted to."""

    name: str
    why: str
    data: AnnotatedScores


class EMFit(NamedTuple):
    """The EM estimate of the channels and the data it was fitted to."""

    fit: ChannelFit
    data: AnnotatedScores


def _choose_model(data: AnnotatedScores, model: str) -> tuple[str, str]:
    """The Bayesian model to fit and why.  ``auto`` chooses among the conditional-independence
    models: the hierarchical Dawid–Skene model for a crowd (more than
    :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators, or any annotator with fewer
    than :data:`SPARSE_LABELS` labels), the marginal Dawid–Skene model for 3+ annotators who
    each labelled many items, Hui–Walter with score groups for 2."""
    model = v.as_choice(model, "model", MODEL_CHOICES)
    if model != "auto":
        return model.replace("-", "_"), f"chosen: {model}"
    n_annotators = data.n_annotators
    if n_annotators == 2:
        return "hui_walter", "auto: two annotators need score groups (Hui–Walter)" + (
            "" if data.groups is not None else f"; {DEFAULT_GROUPS} equal-width groups were formed"
        )
    fewest = int((data.annotations >= 0).sum(axis=0).min())
    if n_annotators > CROWD_ANNOTATORS or fewest < SPARSE_LABELS:
        reason = (
            f"{n_annotators} annotators (more than {CROWD_ANNOTATORS})"
            if n_annotators > CROWD_ANNOTATORS
            else f"an annotator with {fewest} labels (fewer than {SPARSE_LABELS})"
        )
        return (
            "hierarchical_dawid_skene",
            f"auto: {reason}: a crowd, whose workers' channels are pooled (hierarchical Dawid–Skene)",
        )
    return (
        "dawid_skene",
        f"auto: {n_annotators} annotators with {fewest}+ labels each identify the marginal "
        "Dawid–Skene model",
    )


@old_spellings()
def model_data(data, *, model: str = "auto") -> ModelChoice:
    """The model to fit, why, and the data it is fitted to (with score groups for Hui–Walter)."""
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    name, why = _choose_model(data, model)
    if name == "hui_walter" and data.groups is None:
        data = AnnotatedScores(
            data.scores,
            data.annotations,
            groups=score_groups(data.scores, n_groups=DEFAULT_GROUPS),
            annotator_names=data.annotator_names,
        )
    return ModelChoice(name, why, data)


#: The EM estimate that matches each Bayesian model.
EM_ESTIMATES = {
    "dawid_skene": dawid_skene_em,
    "hui_walter": grouped_em,
    # no EM of the item effect: the independent model's EM is the frequentist baseline
    "shared_difficulty": dawid_skene_em,
}


@old_spellings()
def frequentist_channels(data, *, model: str = "auto", seed: int = 0) -> EMFit:
    """The EM estimate that matches the Bayesian model of :func:`model_data`: Dawid–Skene EM, or
    grouped EM on score groups, with the data it was fitted to; for a crowd (more than
    :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators) Dawid–Skene EM on the
    sparse responses (:func:`bayescal.crowd_em`)."""
    name, _, data = model_data(data, model=model)
    return EMFit(em_estimate(name, data, data, v.as_seed(seed)), data)


def em_estimate(name: str, data: AnnotatedScores, counts, seed: int, dependent=None) -> ChannelFit:
    """The EM fit of model ``name``: on the pattern counts ``counts`` (or the data), or for a
    crowd on the data's sparse responses, whose cost does not grow with the number of
    annotators; with the ``dependent`` pairs (names) of a model that has them."""
    if name == "hierarchical_dawid_skene" or data.n_annotators > CROWD_ANNOTATORS:
        if dependent:
            raise ValueError(
                f"dependent: the model for a crowd ({name}, or more than {CROWD_ANNOTATORS} "
                "annotators) has no dependent pairs; name a model of a few annotators, "
                "model='dawid-skene' or 'hui-walter'"
            )
        return crowd_em(data)
    return EM_ESTIMATES[name](counts, seed=seed, dependent=dependent)


def with_pairs(why: str, pairs) -> str:
    """The model choice's reason ``why``, naming the dependent ``pairs`` (of names) if any."""
    if not pairs:
        return why
    return why + "; dependent pairs: " + ", ".join(f"{j} ~ {k}" for j, k in pairs)
