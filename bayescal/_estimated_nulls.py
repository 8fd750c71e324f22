"""The nulls of :func:`bayescal.calibration_test` at estimated channels (module docstring of
:mod:`bayescal.significance`): the refitting parametric bootstrap of a ChannelFit, and the
sampled-posterior p-value or posterior predictive null of a BayesFit.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from . import _validation as v
from . import channels as estimators
from ._api import warn_caller
from ._calibration_layout import CalibrationLayout, replicate_labels
from ._h0_posterior import H0_SWEEPS, h0_posterior_draw
from .channels import ChannelFit, Channels
from .channels.crowd_em import as_responses
from .channels.dependence import dependent_pairs
from .data import AnnotatedScores
from .exceptions import BinningWarning, ChannelFitError, IdentificationError

__all__ = ["bootstrap_test", "posterior_test"]

#: Share of the bootstrap's refits that may fail (no admissible estimate on a replicate)
#: before the p-value says so with a warning.
TOLERATED_FAILURES = 0.05


def bootstrap_test(data, fit: ChannelFit, fit_data, bins, n_replicates, rng):
    """The refitting parametric bootstrap of an EM or moment fit (module docstring)."""
    fit.require()
    v.check_same_annotators(data.annotator_names, fit.annotator_names, "data", "the fit")
    reuse = fit.data_fingerprint == fingerprint_of(data, fit.data_fingerprint)
    if reuse and fit_data is not None:
        raise ValueError(
            "fit_data is for channels fitted on other items; these channels were fitted on "
            "data itself (the same fingerprint): leave fit_data out"
        )
    if not reuse:
        if fit_data is None:
            raise ValueError(
                f"channels: this {fit.method} fit was not fitted on data (the fingerprint of "
                "the data it records differs): pass the items it was fitted on as fit_data, so "
                "that the bootstrap refits on replicates of them; or pass Channels to treat "
                "the channels as known, which leaves their estimation error out of the null"
            )
        if not isinstance(fit_data, AnnotatedScores):
            raise TypeError(
                f"fit_data must be a bayescal.AnnotatedScores; saw {type(fit_data).__name__}"
            )
        if fit.data_fingerprint != fingerprint_of(fit_data, fit.data_fingerprint):
            raise ValueError(
                f"fit_data are not the items this {fit.method} fit was fitted on (the "
                "fingerprint of the data it records differs)"
            )
    pairs = dependent_pairs(fit.dependent or None, data.annotator_names).index
    covariance = fit.covariance if fit.dependent else np.zeros((0, 2))
    layout = CalibrationLayout.of(data, fit.channels, *bins, dependence=(pairs, covariance))
    truth = np.asarray(fit.channels.a, float), np.asarray(fit.channels.b, float)
    fitted_on = data if reuse else fit_data
    fitted_responses = (layout.item, layout.annotator)
    if not reuse:
        responses = fit_data.responses()
        fitted_responses = (responses.item, responses.annotator)
    refit = getattr(estimators, fit.method)
    null, failures = [], 0
    for _ in range(n_replicates):
        label = layout.replicate(rng, *truth, covariance)
        fit_label = (
            label
            if reuse
            else replicate_labels(
                rng, fit_data.scores, *fitted_responses, *truth, pairs, covariance
            )
        )
        refit_of = refitted(refit, fitted_on, *fitted_responses, fit_label, fit.dependent)
        if refit_of is None:
            failures += 1
            continue
        null.append(layout.statistic(label, refit_of.a, refit_of.b, refit_of.covariance))
    if failures > TOLERATED_FAILURES * n_replicates:
        if failures == n_replicates:
            raise ChannelFitError(
                f"calibration_test: {fit.method} found no admissible estimate on any of the "
                f"{n_replicates} bootstrap replicates; the test cannot account for the "
                "channels' estimation error"
            )
        warn_caller(
            f"calibration_test: {fit.method} failed on {failures} of {n_replicates} bootstrap "
            "replicates; the p-value is over the others, which may understate the channels' "
            "estimation error",
            BinningWarning,
        )
    how = (
        f"channels by {fit.method}, refitted on every replicate"
        + ("" if reuse else " of the items they were fitted on (split)")
        + " (refitting parametric bootstrap)"
    )
    return layout.result(null=np.array(null), channels_from="reuse" if reuse else "split", how=how)


class Refit(NamedTuple):
    """A bootstrap replicate's refitted channels and dependent pairs' covariances."""

    a: np.ndarray
    b: np.ndarray
    covariance: np.ndarray  # (D, 2); (0, 2) without dependent pairs


def refitted(estimator, data, item, annotator, label, dependent) -> Refit | None:
    """The channels (and the ``dependent`` pairs' covariances) ``estimator`` fits (its
    defaults) to ``data`` with its labels replaced by ``label``; None when the replicate has no
    admissible estimate."""
    annotations = np.full(data.annotations.shape, -1, dtype=np.int8)
    annotations[item, annotator] = label
    replicate = AnnotatedScores(
        data.scores, annotations, groups=data.groups, annotator_names=data.annotator_names
    )
    with warnings.catch_warnings():  # a replicate's odd workers were said of the real fit
        warnings.simplefilter("ignore")
        try:
            fit = estimator(replicate, **({"dependent": dependent} if dependent else {}))
        except (ChannelFitError, IdentificationError):
            return None
    if not fit.ok:
        return None
    covariance = fit.covariance if dependent else np.zeros((0, 2))
    return Refit(np.asarray(fit.channels.a, float), np.asarray(fit.channels.b, float), covariance)


def fingerprint_of(data: AnnotatedScores, recorded: str) -> str:
    """The fingerprint of ``data`` of the kind ``recorded`` is (cells or responses)."""
    if recorded.startswith("responses:"):
        return as_responses(data).fingerprint
    return data.compress().fingerprint


def posterior_test(data, fit, bins, n_replicates, rng):
    """The sampled-posterior p-value under H0 (reuse) or the posterior predictive null (split)
    of a BayesFit (module docstring)."""
    positions = v.annotator_positions(data.annotator_names, fit.annotator_names, "data", "the fit")
    draws = fit.draws()
    a_draws, b_draws = draws.a[:, positions], draws.b[:, positions]
    chosen = int(rng.integers(a_draws.shape[0]))
    mean = Channels(a_draws.mean(axis=0), b_draws.mean(axis=0), adversarial=True)
    pairs = np.argsort(positions)[fit.pair_index]  # the pairs' columns in data
    covariance_draws = fit.covariance_draws()
    if covariance_draws is None:
        covariance_draws = np.zeros((a_draws.shape[0], 0, 2))
    if fit.model == "hui_walter_by_group":  # models.GROUP_CHANNEL_MODELS (a layer above)
        raise ValueError(
            "channels: a hui_walter_by_group fit (channels per score group) tests whether the "
            "noise depends on the score; calibration_test with channels per group is not "
            "implemented"
        )
    if fit.loading_draws() is not None:
        raise ValueError(
            "channels: calibration_test's nulls at a shared-difficulty fit are not implemented "
            "(the item effect correlates every pair of annotators given Y, which the test's "
            "variance and replicates do not carry); test with the channels as known "
            "(Channels of the fit's posterior mean) only as a rough guide"
        )
    if fit.was_fitted_to(data) and fit.dependent:
        raise ValueError(
            f"channels: the channels' posterior under H0 of a fit with dependent pairs "
            f"{list(fit.dependent)} is not implemented (its Gibbs run assumes annotators "
            "independent given Y); pass the dependent EM fit of these items, "
            "dawid_skene_em(data, dependent=...), for the refitting bootstrap, or a fit of "
            "other items"
        )
    if fit.was_fitted_to(data):
        responses = data.responses()
        drawn = h0_posterior_draw(
            data.scores,
            responses.item,
            responses.annotator,
            responses.label,
            a_draws[chosen],
            b_draws[chosen],
            fit.priors.as_array(),
            oriented=fit.orients_channels,
            sweeps=H0_SWEEPS,
            rng=rng,
        )
        layout = CalibrationLayout.of(
            data,
            Channels(*drawn, adversarial=True),
            *bins,
            selected_by=mean,
            responses=responses,
        )
        how = (
            f"channels drawn from their posterior under H0 ({H0_SWEEPS} Gibbs sweeps from "
            f"draw {chosen} of the {fit.model} fit of these items; sampled-posterior p-value)"
        )
        return layout.result(channels_from="reuse", how=how)
    drawn = Channels(a_draws[chosen], b_draws[chosen], adversarial=True)  # an estimate's signs
    layout = CalibrationLayout.of(
        data, drawn, *bins, selected_by=mean, dependence=(pairs, covariance_draws[chosen])
    )
    truth = rng.integers(a_draws.shape[0], size=n_replicates)
    null = np.array(
        [
            layout.statistic(
                layout.replicate(rng, a_draws[t], b_draws[t], covariance_draws[t]),
                layout.a,
                layout.b,
                layout.covariance,
            )
            for t in truth
        ]
    )
    how = (
        f"channels at posterior draw {chosen} of a {fit.model} fit of other items, true "
        "channels of each replicate drawn from its posterior (posterior predictive null)"
    )
    return layout.result(null=null, channels_from="split", how=how)
