"""Simulation-based calibration of the Bayesian channel models (Talts et al. 2018).

Draw parameters and pattern counts from the prior predictive of the very program that is fitted,
fit each simulated data set with NUTS (one compiled sampler for all of them), and record the rank
of every true parameter among its posterior draws.  If the sampler and the model agree, every
rank is uniform on ``0 .. n_draws``.  A flat model's prior draw is folded onto the population's
orientation by the simulated data's label counts, as its fit's draws are
(:mod:`bayescal.models.orientation`): the ranks test the folded prior, under which an annotator
may be adversarial.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import jax
import numpy as np
import pandas as pd
from scipy import stats
from tqdm import tqdm

from .. import _validation as v
from .._api import old_spellings
from ..bayes.fit import check_priors
from ..bayes.priors import ClassPriors, Priors
from ..bayes.registry import channel_model, class_channel_model
from ..bayes.sampler import Sampler, recorded_sites
from ..bayes.sampler_settings import SamplerSettings, sampler_settings
from ..channels.dependence import dependent_pairs
from ..data.annotated_scores import AnnotatedScores
from ..data.responses import Responses
from ..models import (
    ClassPatternDesign,
    ClassResponseDesign,
    ResponseDesign,
    fold_orientation,
    relabelled,
)
from ..models.stack import Predictive


@dataclass(frozen=True, eq=False)
class SBCResult:
    """Ranks and uniformity tests of a simulation-based calibration.

    Attributes
    ----------
    ranks : pandas.DataFrame
        One row per simulation, one column per scalar parameter; values in ``0 .. n_draws``.
    p_values : pandas.Series
        Chi-square test of uniform ranks (``n_rank_bins`` equal bins) for each parameter.
    family_level : float
        Family-wise level; each test is made at ``family_level / n_parameters`` (Bonferroni).
    n_draws : int
        Posterior draws each rank is taken among.
    """

    ranks: pd.DataFrame
    p_values: pd.Series
    family_level: float
    n_draws: int

    @property
    def passed(self) -> bool:
        return bool((self.p_values > self.family_level / self.p_values.size).all())


def _template(n_items: int, n_annotators: int, n_groups: int) -> AnnotatedScores:
    """A layout with ``n_items`` spread evenly over ``n_groups`` groups and no missing response."""
    groups = np.arange(n_items) % n_groups
    return AnnotatedScores(
        np.full(n_items, 0.5), np.zeros((n_items, n_annotators), dtype=int), groups=groups
    )


def _crowd_layout(n_items: int, n_workers: int, labels_per_item: int, seed: int) -> tuple:
    """Which workers label which item in a simulated crowd: each item labelled by
    ``labels_per_item`` workers drawn uniformly; ``(items, workers)``, a response each."""
    rng = np.random.default_rng(seed)
    workers = np.concatenate(
        [rng.choice(n_workers, labels_per_item, replace=False) for _ in range(n_items)]
    )
    return np.repeat(np.arange(n_items), labels_per_item), workers


def _crowd_template(
    n_items: int, n_workers: int, labels_per_item: int, seed: int, dependent=None
) -> ResponseDesign:
    """An uncompressed response layout (:func:`_crowd_layout`; the answers are placeholders,
    the prior predictive draws them), with the ``dependent`` pairs of workers."""
    items, workers = _crowd_layout(n_items, n_workers, labels_per_item, seed)
    responses = Responses(
        items,
        workers,
        np.zeros(workers.size, np.int8),
        n_items,
        tuple(f"w{j}" for j in range(n_workers)),
    )
    pairs = dependent_pairs(dependent, responses.annotator_names)
    return ResponseDesign.from_responses(responses, compress=False, pairs=pairs.index)


def _labels_per_item(labels_per_item, n_annotators: int) -> int:
    """``labels_per_item`` of a simulated crowd, checked: 2 .. ``n_annotators``."""
    labels_per_item = v.as_int(labels_per_item, "labels_per_item", minimum=2)
    if labels_per_item > n_annotators:
        raise ValueError(
            f"labels_per_item must be at most n_annotators ({n_annotators}); saw {labels_per_item}"
        )
    return labels_per_item


def _categorical(rng, probabilities: np.ndarray) -> np.ndarray:
    """One class code drawn from each row of ``probabilities`` (..., C)."""
    uniform = rng.random((*probabilities.shape[:-1], 1))
    drawn = (uniform > np.cumsum(probabilities, axis=-1)).sum(axis=-1)
    return np.minimum(drawn, probabilities.shape[-1] - 1)  # a cumulative sum short of 1 by rounding


def _scalars(samples: dict, names) -> dict[str, np.ndarray]:
    """Every scalar parameter as an array over the leading (draw) axis."""
    out = {}
    for name in names:
        values = np.asarray(samples[name])
        flat = values.reshape(values.shape[0], -1)
        for j in range(flat.shape[1]):
            out[f"{name}[{j}]" if flat.shape[1] > 1 or name != "prevalence" else name] = flat[:, j]
    return out


@old_spellings()
def simulation_based_calibration(
    *,
    model="dawid_skene",
    n_simulations=100,
    n_items=1000,
    n_annotators=3,
    n_groups=1,
    labels_per_item=3,
    priors=None,
    sampler=None,
    num_warmup=None,
    num_samples=None,
    thin=10,
    n_rank_bins=10,
    family_level=0.01,
    seed=None,
    progress=None,
    fit_priors=None,
    dependent=None,
    n_classes=None,
) -> SBCResult:
    """Run SBC for ``"dawid_skene"``, ``"hui_walter"``, ``"hierarchical_dawid_skene"`` or
    ``"shared_difficulty"``.

    Parameters
    ----------
    model : {"dawid_skene", "hui_walter", "hierarchical_dawid_skene", "shared_difficulty"}
    n_simulations : int
    n_items, n_annotators, n_groups, labels_per_item
        The simulated layout (``n_groups`` only for Hui–Walter).  The hierarchical model's
        crowd has ``n_annotators`` workers, each item labelled by ``labels_per_item`` of them
        drawn uniformly; its ranks include the population's parameters.
    priors : Priors or ClassPriors, optional
        Default: ``Priors(false_positive=(2, 8), sensitivity=(8, 2), prevalence=(2, 2))``,
        informative enough that the simulated data identify the model; for the hierarchical
        model (whose channels' prior is the population) ``Priors(prevalence=(2, 2))``.
    sampler : SamplerSettings, optional
        NUTS settings of every fit: one chain per simulation (``num_chains`` must be 1); default
        ``SamplerSettings(num_chains=1, num_warmup=500, num_samples=1000, progress=False)``.
        ``seed`` seeds the prior draws and the fits; ``progress`` shows a bar over the
        simulations.
    num_warmup, num_samples, seed, progress : optional
        A field of ``sampler`` given as a keyword, in its place.
    thin : int, default 10
        Ranks are taken among ``num_samples / thin`` draws of each fit.  The
        thinning matters: autocorrelated draws make ranks pile up at the ends (Talts et al.
        2018, §5) — with the Hui–Walter model and K = 2, ``thin=4`` of 400 draws failed where
        ``thin=10`` of 1000 passes.
    n_rank_bins : int
        Bins of the chi-square uniformity test.
    family_level : float
        Family-wise level over all parameters (Bonferroni).
    fit_priors : Priors or ClassPriors, optional
        Priors of the fits, when they should differ from the simulating ones: a deliberately
        mismatched fit is the negative control showing the check can fail.  Default: ``priors``.
    dependent : pair or list of pairs of annotator names, optional
        Dependent pairs (the simulated annotators are named ``a0``, ``a1``, ..., a crowd's
        workers ``w0``, ``w1``, ...): their covariances are drawn from the prior (uniform
        within their bounds) and ranked too.
    n_classes : int, optional
        Simulate and fit a multi-class model, at least 3 classes; ``priors`` and
        ``fit_priors`` are :class:`~bayescal.bayes.ClassPriors`.  ``model="dawid_skene"``, the
        panel's: every one of ``n_annotators`` (3 or more) answers every item
        (``labels_per_item`` is not read), confusion rows and class proportions drawn from
        the Dirichlet priors, default ``ClassPriors(confusion=(4, 1), proportion=2)``.
        ``model="hierarchical_dawid_skene"``, the crowd's: the population, the workers'
        matrices and the proportions drawn from the program's prior
        (:mod:`bayescal.models.class_crowd`; ``priors`` sets only the proportions'
        concentration, default ``ClassPriors(proportion=2)``), each item labelled by
        ``labels_per_item`` of the ``n_annotators`` workers.  The ranked parameters are the
        confusion matrices and the proportions, the true ones relabelled as the draws are
        (:mod:`bayescal.models.relabelling`): under a prior that leans on the diagonal that is
        the prior the fit has only approximately (the relabelled copy it favours), closely
        when it leans strongly.

    Returns
    -------
    SBCResult
    """
    multiclass = n_classes is not None
    model = class_channel_model(model) if multiclass else channel_model(model)
    settings = sampler_settings(
        sampler,
        SamplerSettings(num_chains=1, num_warmup=500, num_samples=1000, progress=False),
        num_warmup=num_warmup,
        num_samples=num_samples,
        seed=seed,
        progress=progress,
    )
    if settings.num_chains != 1:
        raise ValueError(
            f"sampler: simulation-based calibration ranks the draws of one chain per simulation; "
            f"saw num_chains={settings.num_chains}"
        )
    seed = settings.seed
    n_simulations = v.as_int(n_simulations, "n_simulations", minimum=2)
    n_items = v.as_int(n_items, "n_items", minimum=1)
    n_annotators = v.as_int(n_annotators, "n_annotators", minimum=2)
    if multiclass:
        if dependent is not None or n_groups != 1:
            raise ValueError(
                "n_classes: the multi-class model has no dependent pairs nor score groups; "
                f"saw dependent={dependent!r}, n_groups={n_groups!r}"
            )
        n_classes = v.as_int(n_classes, "n_classes", minimum=3)
        crowd = model.for_crowds
        if not crowd and n_annotators < 3:
            raise ValueError(
                "n_annotators: the multi-class model needs three judges or more (without gold); "
                f"saw {n_annotators}"
            )
        priors = priors or (
            ClassPriors(proportion=2.0)
            if crowd
            else ClassPriors(confusion=(4.0, 1.0), proportion=2.0)
        )
        for prior in (priors, fit_priors or priors):
            if not isinstance(prior, ClassPriors):
                raise TypeError(
                    "priors and fit_priors of the multi-class model must be ClassPriors; saw "
                    f"{type(prior).__name__}"
                )
            check_priors(prior, model)
        if crowd:
            layout = _crowd_layout(
                n_items, n_annotators, _labels_per_item(labels_per_item, n_annotators), seed
            )
            design, simulations = _class_crowd_simulations(
                model, n_simulations, layout, n_annotators, n_classes, priors, seed
            )
        else:
            design, simulations = _class_simulations(
                n_simulations, n_items, n_annotators, n_classes, priors, seed
            )
    else:
        priors = priors or _default_priors(model)
        design, simulations = _simulations(
            model,
            n_simulations,
            n_items,
            n_annotators,
            n_groups,
            labels_per_item,
            priors,
            fit_priors,
            dependent,
            seed,
        )
    sites = recorded_sites(model, design)
    # the study's bar runs over the simulations, not over each fit's iterations
    sampler = Sampler.run_as(design, model, replace(settings, progress=False))
    ranks = {}
    for s in tqdm(range(n_simulations), desc="SBC", disable=not settings.progress, leave=False):
        simulated, truth = simulations(s)
        truth = _scalars({name: value[None] for name, value in truth.items()}, sites)
        samples, _ = sampler.run(simulated, fit_priors or priors, seed + 1 + s)
        draws = _scalars({name: value[0, ::thin] for name, value in samples.items()}, sites)
        for name, values in draws.items():
            ranks.setdefault(name, []).append(int((values < truth[name][0]).sum()))
    n_draws = len(range(0, sampler.num_samples, thin))
    table = pd.DataFrame(ranks)
    edges = np.linspace(0, n_draws + 1, n_rank_bins + 1)
    p_values = pd.Series(
        {
            name: stats.chisquare(np.histogram(column, bins=edges)[0]).pvalue
            for name, column in table.items()
        },
        name="p_value",
    )
    return SBCResult(table, p_values, family_level, n_draws)


def _default_priors(model) -> Priors:
    """The binary models' simulating priors (:func:`simulation_based_calibration`)."""
    if model.on_responses:
        return Priors(prevalence=(2.0, 2.0))
    return Priors(false_positive=(2.0, 8.0), sensitivity=(8.0, 2.0), prevalence=(2.0, 2.0))


def _simulations(
    model,
    n_simulations,
    n_items,
    n_annotators,
    n_groups,
    labels_per_item,
    priors,
    fit_priors,
    dependent,
    seed,
):
    """A binary model's layout and ``simulation(s) -> (design, truth)``: parameters and pattern
    counts drawn from the prior predictive of the very program that is fitted; a flat model's
    truth folded as its fit's draws are."""
    n_groups = v.as_int(n_groups, "n_groups", minimum=1) if model.grouped else 1
    if dependent is not None and not model.dependent_pairs:
        raise ValueError(f"dependent: model {model.name!r} takes no dependent pairs")
    if model.on_responses:
        labels_per_item = _labels_per_item(labels_per_item, n_annotators)
        design = _crowd_template(n_items, n_annotators, labels_per_item, seed, dependent)
    else:
        template = _template(n_items, n_annotators, n_groups)
        pairs = dependent_pairs(dependent, template.annotator_names).index
        design = model.pattern_design(template.compress(), pairs=pairs, complete=True)
    for prior in (priors, fit_priors or priors):
        check_priors(prior, model)
    with jax.enable_x64(True):
        prior_draws = Predictive(model.load_program(), num_samples=n_simulations)(
            jax.random.PRNGKey(seed), design, priors.as_array()
        )
        prior_draws = {name: np.asarray(value) for name, value in prior_draws.items()}
    sites = recorded_sites(model, design)

    def simulation(s: int):
        simulated = (
            replace(design, codes=prior_draws["codes"][s])
            if model.on_responses
            else replace(design, counts=prior_draws["counts"][s])
        )
        truth = {name: prior_draws[name][s] for name in sites}
        if model.folded:  # the prior draw folded as the fit's draws are: the prior the fit has
            truth = fold_orientation(truth, simulated)
        return simulated, truth

    return design, simulation


def _class_simulations(n_simulations, n_items, n_annotators, n_classes, priors, seed):
    """The multi-class model's layout (as many rows as a simulated data set can have, the
    fewer of ``n_items`` and the ``C^K`` patterns, so that each fits one compiled sampler) and
    ``simulation(s) -> (design, truth)``:
    confusion rows and class proportions drawn from the Dirichlet priors
    (:mod:`bayescal.models.class_latent`), then the classes and the answers; the truth
    relabelled as the fit's draws are (:mod:`bayescal.models.relabelling`), the prior the fit
    has."""
    own, other, proportion = priors.as_array()
    concentration = other + (own - other) * np.eye(n_classes)
    rows = min(n_items, n_classes**n_annotators)
    design = ClassPatternDesign(np.zeros((rows, n_annotators, n_classes)), np.zeros(rows))

    def simulation(s: int):
        rng = np.random.default_rng([seed, s])
        confusion = np.stack(
            [[rng.dirichlet(row) for row in concentration] for _ in range(n_annotators)]
        )
        pi = rng.dirichlet(np.full(n_classes, proportion))
        classes = rng.choice(n_classes, n_items, p=pi)
        rows = confusion[np.arange(n_annotators)[None, :], classes[:, None]]  # (n, K, C)
        answers = _categorical(rng, rows)
        truth = relabelled({"confusion": confusion[None], "proportion": pi[None]})
        return ClassPatternDesign.from_codes(answers, n_classes), {
            name: value[0] for name, value in truth.items()
        }

    return design, simulation


def _class_crowd_simulations(model, n_simulations, layout, n_workers, n_classes, priors, seed):
    """The multi-class crowd model's layout (a row per item of the crowd ``layout``, an
    ``(items, workers)`` pair per response) and ``simulation(s) -> (design, truth)``: the
    population, the workers' confusion matrices and the class proportions drawn from the prior
    of the very program that is fitted (:mod:`bayescal.models.class_crowd`), then the classes
    and the answers; the truth relabelled as the fit's draws are."""
    items, workers = layout
    n_items = int(items.max()) + 1
    annotations = np.full((n_items, n_workers), -1)
    annotations[items, workers] = 0
    # the placeholder answers make items with the same workers one row: padded back to a row
    # an item, as many as a simulated crowd (its answers differing) can have
    design = ClassResponseDesign.from_codes(annotations, n_classes).padded(n_items)
    with jax.enable_x64(True):
        prior_draws = Predictive(model.load_program(), num_samples=n_simulations)(
            jax.random.PRNGKey(seed), design, priors.as_array(), design.counts
        )
    confusions = np.asarray(prior_draws["confusion"])
    proportions = np.asarray(prior_draws["proportion"])

    def simulation(s: int):
        rng = np.random.default_rng([seed, s])
        classes = rng.choice(n_classes, n_items, p=proportions[s] / proportions[s].sum())
        annotations[items, workers] = _categorical(rng, confusions[s][workers, classes[items]])
        truth = relabelled({"confusion": confusions[s][None], "proportion": proportions[s][None]})
        simulated = ClassResponseDesign.from_codes(annotations, n_classes)
        return simulated, {name: value[0] for name, value in truth.items()}

    return design, simulation
