"""Which Bayesian model a data set gets, and its matching EM estimate (the choice behind
:func:`bayescal.analyse` and ``bayescal fit``'s ``--model auto``)."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from shlex import quote
from typing import NamedTuple

from .. import _validation as v
from .. import channels as estimators
from .._api import old_spellings, silenced, warn_caller
from ..bayes.registry import (
    AUTO,
    ChannelModel,
    channel_model,
    choose_model,
    em_estimator,
    model_names,
)
from ..channels import ChannelFit, crowd_em, score_groups
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..exceptions import FIT_WARNINGS, DependenceWarning, IdentificationError

__all__ = ["MODEL_CHOICES", "EMFit", "ModelChoice", "frequentist_channels", "model_data"]


#: ``model`` values of :func:`analyse` (and ``--model`` of the command line); the hyphenated
#: spellings are accepted too.
MODEL_CHOICES = (AUTO, *model_names(in_analysis=True))
#: Score groups used for two annotators when none are given.
DEFAULT_GROUPS = 5


class ModelChoice(NamedTuple):
    """The Bayesian model to fit (its name), why, and the data it is fitted to."""

    name: str
    why: str
    data: AnnotatedScores

    @property
    def spec(self) -> ChannelModel:
        """The model and what applies to it (:mod:`bayescal.bayes.registry`)."""
        return channel_model(self.name)


class EMFit(NamedTuple):
    """The EM estimate of the channels and the data it was fitted to."""

    fit: ChannelFit
    data: AnnotatedScores


@old_spellings()
def model_data(data, *, model: str = "auto") -> ModelChoice:
    """The model to fit, why, and the data it is fitted to (with score groups for Hui–Walter)."""
    require_binary(data, "model_data")
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    chosen, why = choose_model(data, model)
    if chosen.grouped and data.groups is None:
        data = replace(data, groups=score_groups(data.scores, n_groups=DEFAULT_GROUPS))
        why += f"; {DEFAULT_GROUPS} equal-width groups were formed"
    elif not chosen.grouped and data.n_groups > 1:  # given, and silently unused otherwise
        why += (
            f"; the {data.n_groups} score groups given are not used (this model has one "
            "prevalence; model hui_walter fits one per group)"
        )
    return ModelChoice(chosen.name, why, data)


@old_spellings()
def frequentist_channels(data, *, model: str = "auto", seed: int = 0) -> EMFit:
    """The EM estimate that matches the Bayesian model of :func:`model_data`: Dawid–Skene EM, or
    grouped EM on score groups, with the data it was fitted to; for a crowd (more than
    :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators) Dawid–Skene EM on the
    sparse responses (:func:`bayescal.crowd_em`)."""
    require_binary(data, "frequentist_channels")
    name, _, data = model_data(data, model=model)
    return EMFit(em_estimate(name, data, data, v.as_seed(seed)), data)


def em_estimate(name: str, data: AnnotatedScores, counts, seed: int, dependent=None) -> ChannelFit:
    """The EM fit that matches model ``name`` (its registry entry's ``em``): on the pattern
    counts ``counts`` (or the data), or for a crowd on the data's sparse responses, whose cost
    does not grow with the number of annotators; with the ``dependent`` pairs (names) of a
    model that has them."""
    estimator = em_estimator(name, data.n_annotators)
    if estimator == "crowd_em":
        return crowd_em(data, dependent=dependent)
    return getattr(estimators, estimator)(counts, seed=seed, dependent=dependent)


def with_pairs(why: str, pairs) -> str:
    """The model choice's reason ``why``, naming the dependent ``pairs`` (of names) if any."""
    if not pairs:
        return why
    return why + "; dependent pairs: " + ", ".join(f"{j} ~ {k}" for j, k in pairs)


# --- a dependent pair proposed by the checks ------------------------------------------------------
# Propose a dependent pair when the model checks show correlated errors.
#
# The analysis behind ``bayescal fit`` fits the model it chose (or the one named); when that
# model assumes independence and the pairwise check flags annotators who agree *more* often than
# it predicts, this module says so in one line, naming the pair to refit with ``--dependent``.
# It never refits on its own: which pair errs together is a claim about how the judges were made.
#
# The flagged pair is not always the culprit.  A latent-class model meeting a strongly dependent
# pair can take that pair's shared errors as the truth, and then it is the *other* annotators
# who agree more than it predicts (measured: four annotators with a shared-error pair at rho =
# 0.2, the check flagged the complementary pair; five annotators, one copying another but for
# 5% of its labels, flagged the three independent pairs and never the copy).  So once a pair is
# flagged, every pair of annotators, flagged or not, is ranked by how much a dependent EM fit
# (:func:`bayescal.dawid_skene_em` or :func:`bayescal.grouped_em` with ``dependent``, a few
# hundredths of a second on pattern counts) gains in log-likelihood over independence, and the
# best is proposed (the copy above: +429 against +187 for the best flagged pair).  With four annotators a pair and its complement fit equally well (the two models
# are observationally equivalent here: measured gains equal to 0.1 log-likelihood units), and the
# line says that the data cannot tell them apart.

#: Two gains closer than this (log-likelihood units) fit the data equally well.
EQUAL_FIT = 1.0


def _gain(counts, model: str, pair, independent: ChannelFit, seed: int) -> float | None:
    """Log-likelihood of the dependent EM fit with ``pair`` over the independent fit's (both
    from the starts of ``seed``); None when that pair is not identified with these annotators
    or the fit fails."""
    estimator = getattr(estimators, channel_model(model).em)  # the EM that takes pairs
    with silenced(*FIT_WARNINGS):  # a trial fit: the real fit has said these
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
    gains = {pair: _gain(counts, model, pair, independent, seed) for pair in by_subject.values()}
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
        # a model that takes no pairs (the shared difficulty): the proposal names one that does
        switch = (
            ""
            if channel_model(model).dependent_pairs
            else f"--model {model_names(dependent_pairs=True)[0]} "
        )
        # the copy case (module comment): the pair that fits best may not be a flagged one
        unflagged = "" if (j, k) in flagged else ", though not flagged itself,"
        line = (
            f"the pairwise check flags {shown} (agreeing more often than the fitted "
            f"model predicts): errors may be correlated. A dependent pair {j} ~ {k}{unflagged} "
            f"fits best (EM log-likelihood +{gain:.1f}); refit with {switch}--dependent {quote(j)} {quote(k)} "
            f"(fit_bayes(..., dependent=[({j!r}, {k!r})])) and compare with compare_models "
            "(an elpd difference below 4 means the two predict alike)"
        )
        if len(names) == 4:
            complement = tuple(n for n in names if n not in (j, k))
            other = gains.get(complement)  # every pair's gain is in hand
            if other is not None and abs(other - gain) < EQUAL_FIT:
                line += (
                    f"; with four annotators {complement[0]} ~ {complement[1]} fits as well "
                    "and the data cannot tell the two apart: name the pair you know errs "
                    "together (same model family, trained together)"
                )
    warn_caller(line, DependenceWarning)
    return line
