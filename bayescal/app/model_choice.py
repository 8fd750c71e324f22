"""Which Bayesian model a data set gets, and its matching EM estimate (the choice behind
:func:`bayescal.analyse` and ``bayescal fit``'s ``--model auto``)."""

from __future__ import annotations

import warnings
from itertools import combinations
from shlex import quote
from typing import NamedTuple

from .. import _validation as v
from .._api import old_spellings, warn_caller
from ..channels import ChannelFit, crowd_em, dawid_skene_em, grouped_em, score_groups
from ..channels.crowd_em import CROWD_ANNOTATORS, SPARSE_LABELS
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import DependenceWarning, IdentificationError

__all__ = ["MODEL_CHOICES", "EMFit", "ModelChoice", "frequentist_channels", "model_data"]


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


# --- a dependent pair proposed by the checks ------------------------------------------------------
# Propose a dependent pair when the model checks show correlated errors (issue 19, item 4).
#
# The analysis behind ``bayescal fit`` fits the model it chose (or the one named); when that
# model assumes independence and the pairwise check flags annotators who agree *more* often than
# it predicts, this module says so in one line, naming the pair to refit with ``--dependent``.
# It never refits on its own: which pair errs together is a claim about how the judges were made.
#
# The flagged pair is not always the culprit.  A latent-class model meeting a strongly dependent
# pair can take that pair's shared errors as the truth, and then it is the *other* annotators
# who agree more than it predicts (measured: four annotators with a shared-error pair at rho =
# 0.2, the check flagged the complementary pair).  So every flagged pair is ranked by how much a
# dependent EM fit (:func:`bayescal.dawid_skene_em` or :func:`bayescal.grouped_em` with
# ``dependent``, cheap on pattern counts) gains in log-likelihood over independence, and the best
# is proposed.  With four annotators a pair and its complement fit equally well (the two models
# are observationally equivalent here: measured gains equal to 0.1 log-likelihood units), and the
# line says that the data cannot tell them apart.

#: Two gains closer than this (log-likelihood units) fit the data equally well.
EQUAL_FIT = 1.0


def _gain(counts, model: str, pair, independent: ChannelFit, seed: int) -> float | None:
    """Log-likelihood of the dependent EM fit with ``pair`` over the independent fit's (both
    from the starts of ``seed``); None when that pair is not identified with these annotators
    or the fit fails."""
    estimator = grouped_em if model == "hui_walter" else dawid_skene_em
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = estimator(counts, dependent=pair, seed=seed)
        except IdentificationError:
            return None
    return fit.loglik - independent.loglik if fit.ok else None


def propose_dependence(table, counts, model: str, independent: ChannelFit, seed: int) -> str | None:
    """Warn (:class:`~bayescal.DependenceWarning`, one line) proposing the dependent pair to
    refit, when the pairwise check of ``table`` (a :func:`bayescal.check_model` table of a
    model without dependent pairs) flags annotators who agree more often than predicted;
    return the line, or None when nothing is flagged or ``independent`` (the matching EM fit
    of the pattern counts ``counts``, a :class:`~bayescal.data.CellStatistics`, from the
    starts of ``seed``) failed."""
    rows = table[(table["check"] == "pairwise_agreement") & table["flag"]]
    rows = rows[rows["observed"] > rows["upper"]]
    if rows.empty or not independent.ok:
        return None
    names = counts.annotator_names
    by_subject = {f"{j}-{k}": (j, k) for j, k in combinations(names, 2)}
    flagged = [by_subject[s] for s in rows["subject"] if s in by_subject]
    gains = {pair: _gain(counts, model, pair, independent, seed) for pair in flagged}
    gains = {pair: gain for pair, gain in gains.items() if gain is not None}
    shown = ", ".join(f"{j} ~ {k}" for j, k in flagged)
    if not gains:
        line = (
            f"the pairwise check flags {shown} (agreeing more often than the fitted "
            "model predicts), but no single dependent pair is identified with these "
            "annotators; their errors may be correlated, which biases the channels and NC-ECE"
        )
    else:
        (j, k), gain = max(gains.items(), key=lambda item: item[1])
        # the shared-difficulty model takes no pairs: the proposal names the model that does
        switch = "--model dawid-skene " if model == "shared_difficulty" else ""
        line = (
            f"the pairwise check flags {shown} (agreeing more often than the fitted "
            f"model predicts): errors may be correlated. A dependent pair {j} ~ {k} "
            f"fits best (EM log-likelihood +{gain:.1f}); refit with {switch}--dependent {quote(j)} {quote(k)} "
            f"(fit_bayes(..., dependent=[({j!r}, {k!r})])) and compare with compare_models"
        )
        if len(names) == 4:
            complement = tuple(n for n in names if n not in (j, k))
            other = _gain(counts, model, complement, independent, seed)
            if other is not None and abs(other - gain) < EQUAL_FIT:
                line += (
                    f"; with four annotators {complement[0]} ~ {complement[1]} fits as well "
                    "and the data cannot tell the two apart: name the pair you know errs "
                    "together (same model family, trained together)"
                )
    warn_caller(line, DependenceWarning)
    return line
