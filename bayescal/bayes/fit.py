"""Run NUTS on a model of :mod:`bayescal.models` and return one posterior object.

:func:`fit_bayes` builds the pattern design from ``data.compress()``, checks identification
*before* sampling, samples in float64 (inside ``jax.enable_x64``, so the caller's JAX
configuration is untouched), spreads the chains over the CPU devices there are (one after
another on a single device; never vectorised, see :class:`Sampler`), keeps compiled samplers
for later processes (:mod:`bayescal.bayes.compile_cache`), and packs the run into a
:class:`~bayescal.bayes.BayesFit` (an ArviZ ``InferenceData`` with its diagnostics).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import old_spellings, warn_caller
from ..channels.base import (
    as_counts,
    warn_if_groups_inseparable,
)
from ..channels.co_labelling import require_fittable
from ..channels.confusion_em import require_confusions_identified
from ..channels.crowd_em import (
    as_responses,
    require_crowd_identified,
    require_crowd_pairs_checked,
)
from ..channels.dependence import (
    dependent_pairs,
    require_dependence_identified,
    warn_unchecked,
)
from ..channels.difficulty import MAX_LIKELIHOOD_ERROR, likelihood_error
from ..channels.em import dependent_estimate, independent_estimate
from ..channels.odd_annotators import (
    constant_annotators,
    posterior_odd_annotators,
    warn_odd_annotators,
)
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..data.cells import CellStatistics
from ..data.responses import Responses
from ..exceptions import (
    IdentificationError,
    QuadratureWarning,
)
from ..models import ResponseDesign
from .bayes_fit import BayesFit, check_diagnostics
from .class_fit import ClassBayesFit
from .priors import ClassPriors, Priors
from .registry import ChannelModel, channel_model, choose_class_model, model_names
from .sampler import Sampler
from .sampler_settings import SamplerSettings, sampler_settings

__all__ = ["check_fit", "check_priors", "fit_bayes", "sampler_for"]


# --- what a fit of a pattern model settles before sampling ----------------------------------------
# What a fit of a pattern model settles before sampling (:func:`bayescal.fit_bayes`,
# :func:`bayescal.prior_sensitivity`): the model's structure, and whether the data identify it.
#
# Dependent pairs and the shared difficulty are counted against the data's cells and checked by
# the rank of the pattern probabilities' Jacobian (:mod:`bayescal.channels.dependence`) at an
# estimate: the dependent EM fit for pairs, the independent EM channels with loadings
# :data:`DIFFICULTY_CHECK_LOADINGS` for the shared difficulty (no EM of the item effect).

#: Loadings of the point at which the shared-difficulty model's identification is checked
#: (with the independent EM channels): away from 0, where a loading's effect is of second
#: order and every Jacobian loses rank.
DIFFICULTY_CHECK_LOADINGS = (0.5, 0.5)


def pattern_model(counts: CellStatistics, model: ChannelModel, dependent, where: str):
    """Check ``model`` (with the ``dependent`` pairs) on the pattern counts before sampling:
    refuse what the data cannot identify, warn of weak identification, and return the checked
    dependent pairs (:class:`~bayescal.channels.dependence.DependentPairs`)."""
    grouped = model.grouped
    n_annotators = counts.patterns.shape[1]
    n_groups = np.unique(counts.groups).size if grouped else 1
    require_fittable(counts, n_groups, where)
    pairs = dependent_pairs(dependent, counts.annotator_names)
    if pairs and not model.dependent_pairs:
        takes = " or ".join(repr(name) for name in model_names(dependent_pairs=True))
        raise ValueError(
            f"dependent: model {model.name!r} takes no dependent pairs; fit named dependent "
            f"pairs with model={takes}"
        )
    if model.channels_by_group:
        _require_groups_identified(counts, where)
    if pairs or model.difficulty:
        check = grouped and not model.difficulty
        require_dependence_identified(counts, check, pairs, where, difficulty=model.difficulty)
        estimate = (  # the shared difficulty's at the silent independent EM fit
            _difficulty_check_point(independent_estimate(counts, grouped))
            if model.difficulty
            else dependent_estimate(counts, grouped, pairs)
        )
        warn_unchecked(estimate, where)
        require_dependence_identified(counts, check, pairs, where, estimate, model.difficulty)
    if grouped and n_annotators == 2:
        warn_if_groups_inseparable(counts, where)
    return pairs


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


# --- NUTS on a model, one posterior object --------------------------------------------------------


@old_spellings()
def fit_bayes(
    data,
    *,
    model="dawid_skene",
    priors=None,
    sampler=None,
    num_chains=None,
    num_warmup=None,
    num_samples=None,
    target_accept=None,
    seed=None,
    progress=None,
    dependent=None,
) -> BayesFit:
    """Sample the posterior of a channel model with NUTS.

    Parameters
    ----------
    data : AnnotatedScores, CellStatistics or Responses
        ``"dawid_skene"`` needs K >= 3 annotators (groups are ignored); ``"hui_walter"`` uses
        ``data.groups`` (K >= 3, or K = 2 with at least two score groups).  The (group,
        pattern) counts are all the two need: cells of a table larger than memory
        (:func:`bayescal.data.cell_statistics_from_frame`) serve as well.
        ``"hierarchical_dawid_skene"`` runs on the sparse responses (an ``AnnotatedScores``
        or :class:`bayescal.data.Responses`; K >= 3 workers, some item labelled twice).
        Multi-class ``AnnotatedScores`` (three classes or more) are fitted by the multi-class
        Dawid–Skene model (:mod:`bayescal.models.class_latent`; ``model="dawid_skene"``, K >= 3
        judges or gold of every class, at most 12 judges) or, for a crowd, its hierarchical
        form (:mod:`bayescal.models.class_crowd`; ``model="hierarchical_dawid_skene"``, the
        workers' confusion matrices drawn from a population, on the sparse responses) into a
        :class:`~bayescal.bayes.ClassBayesFit`, each draw relabelled
        (:mod:`bayescal.models.relabelling`).
    model : {"dawid_skene", "hui_walter", "hierarchical_dawid_skene", "shared_difficulty", \
"hui_walter_by_group"}
        Default ``"dawid_skene"``.  The hierarchical model pools the workers' channels (for
        crowds; hyperpriors in :mod:`bayescal.models.hierarchical_dawid_skene`), and its fit
        also holds the population's parameters.  ``"shared_difficulty"`` (K >= 4) adds a
        random item effect per class, items hard for every judge
        (:mod:`bayescal.channels.difficulty`); its fit holds the ``loading`` draws.
        ``"hui_walter_by_group"`` (K >= 3) gives every score group its own channels, a
        Dawid–Skene model per group: compared with ``"hui_walter"`` by
        :func:`bayescal.compare_models`, it tests whether the noise depends on the score (the
        assumption NC-ECE rests on).  Its annotators are named ``"name [group g]"``.
    priors : Priors, optional
        Default: flat Beta(1, 1) priors, no annotator held to ``a_j < b_j`` (the flat models
        fold each draw onto the population's orientation: :mod:`bayescal.bayes.priors`).
        The hierarchical model uses only ``priors.prevalence``, and refuses other channel priors.
        Multi-class data take a :class:`~bayescal.bayes.ClassPriors` (default: flat
        Dirichlet rows and proportions; the hierarchical model reads only its proportions'
        concentration).
    sampler : SamplerSettings, optional
        How NUTS runs; default ``SamplerSettings()``: 4 chains of 1000 warm-up iterations and
        the model's kept draws at the model's target acceptance (1000 at 0.8 for most; 2000 at
        0.99 for the hierarchical model, whose population's spread mixes slowly), continued
        by as many draws again, up to twice, while R-hat or ESS fall short
        (``SamplerSettings.extensions``; ``fit.run["extensions"]`` says how many ran), seed 0,
        a progress bar where standard error is a terminal.  The chains are
        spread over the CPU devices (:func:`bayescal.bayes.sampler.chain_devices`); JAX has
        one unless ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` (or
        ``numpyro.set_host_device_count(N)``) ran before JAX started, as ``bayescal`` does.
        On one device they run one after another.  The compiled sampler is kept on disk for
        later processes (:mod:`bayescal.bayes.compile_cache`; ``BAYESCAL_CACHE_DIR=off`` turns
        it off): the draws are the same with or without it.
    num_chains, num_warmup, num_samples, target_accept, seed, progress : optional
        A field of ``sampler`` given as a keyword, in its place.
    dependent : pair or list of pairs of annotator names, optional
        Pairs whose errors may be correlated given ``Y`` (``"dawid_skene"``,
        ``"hui_walter"`` and ``"hierarchical_dawid_skene"``, whose pair must have labelled at
        least 20 items together beside two other labels, and whose tree of pairs must have an
        information of full rank at the crowd's EM estimate,
        :func:`bayescal.channels.crowd_em.require_crowd_pairs_checked`; Dendukuri and Joseph
        2001).  Each pair gets a covariance given ``Y = 0`` and ``Y = 1``, sampled uniformly
        within the bounds that keep every pattern probability valid
        (:mod:`bayescal.channels.dependence`).  Pairs that close a cycle get the pairwise
        log-linear joint instead, each pair's conditional log odds ratio ``J ~ Logistic(0,
        2)`` (:mod:`bayescal.channels.cyclic_joint`); the hierarchical model refuses them.  The
        marginal channels keep their meaning, so NC-ECE and :func:`bayescal.posterior_ece` use
        them as they are.

    Returns
    -------
    BayesFit or ClassBayesFit
        A :class:`SamplingWarning` is issued when R-hat > 1.01, bulk or tail ESS < 400, or any
        transition diverged; a :class:`QuadratureWarning` when a shared-difficulty fit's
        loadings go beyond its quadrature's accuracy (:func:`check_fit`).  With
        ``dependent``, the fit also holds ``covariance`` draws.

    Raises
    ------
    IdentificationError
        Before sampling, for a configuration the data cannot identify; for dependent pairs,
        by counting parameters against the data's cells and by the rank of the Jacobian at
        the dependent EM estimate (:func:`bayescal.dawid_skene_em` with ``dependent``).
    """
    settings = sampler_settings(
        sampler,
        SamplerSettings(),
        num_chains=num_chains,
        num_warmup=num_warmup,
        num_samples=num_samples,
        target_accept=target_accept,
        seed=seed,
        progress=progress,
    )
    if isinstance(data, AnnotatedScores) and data.is_multiclass:
        return _fit_classes(data, model, priors, settings, dependent)
    require_binary(data, "fit_bayes")
    priors = Priors() if priors is None else priors
    if not isinstance(priors, Priors):
        raise TypeError(f"priors must be a bayescal.Priors; saw {type(priors).__name__}")
    nuts, observed = sampler_for(data, model, settings, caller="fit_bayes", dependent=dependent)
    check_priors(priors, nuts.spec)
    fit = nuts.fit(observed, priors, settings.seed, item_ids=getattr(data, "item_ids", None))
    check_fit(fit)
    # the odd annotators named as the EM estimators name them (bayescal.channels.odd_annotators)
    draws = fit.draws()
    crowd = nuts.spec.on_responses
    odd = posterior_odd_annotators(
        draws.a, draws.b, _constant(observed, draws.a.shape[1]), crowd=crowd
    )
    warn_odd_annotators(fit.model, fit.annotator_names, odd, posterior=True)
    return fit


def _fit_classes(data, model, priors, settings: SamplerSettings, dependent) -> ClassBayesFit:
    """:func:`fit_bayes` on multi-class data: the multi-class model named ``model``
    (:data:`~bayescal.bayes.registry.CLASS_MODELS`) under ``priors`` (a
    :class:`~bayescal.bayes.ClassPriors`), identification checked before sampling."""
    spec, _ = choose_class_model(data.n_annotators, model)
    priors = ClassPriors.of(priors)
    if dependent is not None:
        raise ValueError(
            f"dependent: the multi-class model {spec.name!r} has no dependent pairs; saw "
            f"{dependent!r}"
        )
    where = f"fit_bayes(model={spec.name!r})"
    crowd = spec.for_crowds
    check_priors(priors, spec)
    require_confusions_identified(data.annotations, data.gold, data.n_classes, where)
    if crowd and not data.n_gold and ((data.annotations != v.MISSING).sum(axis=1) < 2).all():
        raise IdentificationError(
            f"{where}: no item has labels from two annotators ({data.n_items} items, at most one "
            "label each) and no item is gold, so the workers' confusion matrices are not "
            "identified; give some items two labels or more, or gold items"
        )
    design = spec.design_class().from_data(data)
    nuts = Sampler.run_as(design, spec, settings)
    fit = nuts.fit(data, priors, settings.seed, item_ids=data.item_ids)
    check_diagnostics(fit.diagnostics)
    return fit


def _constant(observed, n_channels: int) -> np.ndarray:
    """The annotators (K,) who gave two labels or more, all of one value (with channels per
    score group, a channel per group and annotator, none is read)."""
    if isinstance(observed, Responses):
        labels = observed.labels_per_annotator()
        positives = np.bincount(observed.annotator, observed.label, observed.n_annotators)
    else:
        labels = observed.counts @ (observed.patterns >= 0)
        positives = observed.counts @ (observed.patterns == 1)
    if labels.size != n_channels:
        return np.zeros(n_channels, bool)
    return constant_annotators(labels, positives)


def check_fit(fit: BayesFit, *, under: str | None = None) -> None:
    """Warn of what makes a fit's posterior unreliable: failed NUTS diagnostics
    (:func:`~bayescal.bayes.bayes_fit.check_diagnostics`, a :class:`SamplingWarning`), and for the
    shared-difficulty model a quadrature that misses the data's log-likelihood by more than
    :data:`~bayescal.channels.difficulty.MAX_LIKELIHOOD_ERROR`
    (:func:`~bayescal.channels.difficulty.likelihood_error`, a :class:`QuadratureWarning`).
    ``under``: the prior's name in a sensitivity study, added to the parameters' names."""
    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal.BayesFit; saw {type(fit).__name__}")
    if under is not None and not isinstance(under, str):
        raise TypeError(f"under must be a prior's name (str) or None; saw {under!r}")
    named = "" if under is None else f" under prior {under!r}"
    check_diagnostics(fit.diagnostics.rename(index=lambda p: f"{p}{named}"))
    loadings = fit.loading_draws()
    if loadings is None:
        return
    rows = np.array([key[1] for key in fit.fitted_counts])
    a, b, prevalence = fit.draws()
    error = np.median(
        likelihood_error(
            a,
            b,
            prevalence,
            loadings,
            (rows == 1) * 1.0,
            (rows == 0) * 1.0,
            np.fromiter(fit.fitted_counts.values(), np.float64),
        )
    )
    if error > MAX_LIKELIHOOD_ERROR:
        medians = ", ".join(f"{m:.2f}" for m in np.median(loadings, axis=0))
        warn_caller(
            f"the shared-difficulty fit{named} has loadings (posterior medians {medians}) its "
            f"quadrature does not integrate accurately: the data's log-likelihood is off by "
            f"{error:.1f} at the median draw, and the channels with it. So large a loading "
            "often means another dependence than a shared difficulty: check the pairwise "
            "agreement (bayescal.check_model) and compare a model with a dependent pair "
            "(compare_models)",
            QuadratureWarning,
        )


def check_priors(priors: Priors | ClassPriors, model: ChannelModel) -> None:
    """Refuse channel priors a hierarchical model would ignore: its channels' prior is the
    population (hyperpriors in :mod:`bayescal.models.hierarchical_dawid_skene` and, for
    multi-class crowds, :mod:`bayescal.models.class_crowd`)."""
    if isinstance(priors, ClassPriors):
        if model.for_crowds and priors.confusion != ClassPriors().confusion:
            raise ValueError(
                f"priors.confusion: model {model.name!r} draws the workers' confusion rows from "
                "its population (hyperpriors in bayescal.models.class_crowd) and reads only "
                f"priors.proportion; saw confusion={priors.confusion}"
            )
        return
    flat = Priors()
    ignored = [
        f"{name}={getattr(priors, name)}"
        for name in ("false_positive", "sensitivity")
        if getattr(priors, name) != getattr(flat, name)
    ]
    if model.on_responses and ignored:
        raise ValueError(
            f"priors: model {model.name!r} takes its channels' prior from the population of workers "
            f"(its hyperpriors are documented in bayescal.models.hierarchical_dawid_skene) and "
            f"uses only priors.prevalence; saw {', '.join(ignored)}"
        )


class SamplerSetup(NamedTuple):
    """A checked fit's sampler and the data as it fits them (:func:`sampler_for`)."""

    sampler: Sampler
    data: CellStatistics | Responses


def sampler_for(
    data, model, settings: SamplerSettings, *, caller: str, dependent=None
) -> SamplerSetup:
    """The checked settings of a fit, identification checked *before* sampling (and weak
    identification warned of), and the :class:`Sampler` for the data's layout, with the data
    as the sampler fits them (pattern counts, or responses for the hierarchical model): what
    :func:`fit_bayes` and :func:`bayescal.prior_sensitivity` share."""
    model = channel_model(model)
    where = f"{caller}(model={model.name!r})"
    if model.on_responses:
        responses = as_responses(data)
        require_crowd_identified(responses, where)
        pairs = dependent_pairs(dependent, responses.annotator_names)
        require_crowd_pairs_checked(responses, pairs, where)
        design = ResponseDesign.from_responses(responses, pairs=pairs.index)
        return SamplerSetup(Sampler.run_as(design, model, settings), responses)
    counts = as_counts(data)
    pairs = pattern_model(counts, model, dependent, where)
    return SamplerSetup(
        Sampler.run_as(model.pattern_design(counts, pairs=pairs.index), model, settings), counts
    )
