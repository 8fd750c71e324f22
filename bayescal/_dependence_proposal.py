"""Propose a dependent pair when the model checks show correlated errors (issue 19, item 4).

The analysis behind ``bayescal fit`` fits the model it chose (or the one named); when that
model assumes independence and the pairwise check flags annotators who agree *more* often than
it predicts, this module says so in one line, naming the pair to refit with ``--dependent``.
It never refits on its own: which pair errs together is a claim about how the judges were made.

The flagged pair is not always the culprit.  A latent-class model meeting a strongly dependent
pair can take that pair's shared errors as the truth, and then it is the *other* annotators
who agree more than it predicts (measured: four annotators with a shared-error pair at rho =
0.2, the check flagged the complementary pair).  So every flagged pair is ranked by how much a
dependent EM fit (:func:`bayescal.dawid_skene_em` or :func:`bayescal.grouped_em` with
``dependent``, cheap on pattern counts) gains in log-likelihood over independence, and the best
is proposed.  With four annotators a pair and its complement fit equally well (the two models
are observationally equivalent here: measured gains equal to 0.1 log-likelihood units), and the
line says that the data cannot tell them apart.
"""

from __future__ import annotations

import warnings
from itertools import combinations
from shlex import quote

from ._api import warn_caller
from .channels import ChannelFit, dawid_skene_em, grouped_em
from .exceptions import DependenceWarning, IdentificationError

__all__ = ["propose_dependence"]

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
    of the pattern counts ``counts``, a :class:`~bayescal.cells.CellStatistics`, from the
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
