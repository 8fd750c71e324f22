"""The posterior object of a channel model: a :class:`BayesFit` holds one ArviZ ``InferenceData``.

Its groups: ``posterior`` (a, b, prevalence), ``sample_stats``, ``log_likelihood`` (one value
per pattern row = per item of that pattern; ``constant_data.counts`` holds how many items share
it, for LOO weighting), ``log_prior`` (the prior log density of every draw, per parameter, for
power-scaling sensitivity; for the hierarchical model per worker's channel under the population
and per draw of the hyperpriors), ``observed_data``, ``constant_data`` (the patterns, or the
hierarchical model's response codes) and the priors in ``attrs``.
The diagnostics (rank-normalised R-hat, bulk and tail ESS, divergences; Vehtari et al. 2021,
:mod:`bayescal.bayes.diagnostics`) come with it, and :func:`check_diagnostics` warns when they fail.

A fresh fit builds its groups (arrays, :class:`bayescal.bayes._netcdf.Group`) on first use, and wraps
them in an ``InferenceData`` on first use of :attr:`BayesFit.idata`: the draws, the diagnostics
and everything computed from them need neither ArviZ (two seconds to import) nor the
per-pattern log-likelihood, and :meth:`BayesFit.save` / :meth:`BayesFit.load` write and read
ArviZ's netCDF layout with h5netcdf alone (:mod:`bayescal.bayes._netcdf`).
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import special

from .. import _html
from .. import _validation as v
from .._api import DEFAULT_LEVEL, abbreviated, old_spellings, warn_caller
from .._version import __version__
from ..channels import Channels
from ..channels.cyclic_joint import natural_parameters
from ..channels.label_posteriors import ChannelParameters, PredictsLabels
from ..channels.pattern_likelihood import covariance_bounds, interaction_log_prior, linked_sets
from ..data.annotated_scores import ids_differ
from ..exceptions import SamplingWarning
from ..models import POPULATION_SITES, ResponseDesign, population_log_density, row_key
from ..models.stack import arviz
from . import _netcdf
from .diagnostics import diagnostics_table
from .priors import Priors
from .registry import ChannelModel, channel_model

__all__ = ["BayesFit", "ChannelDraws", "PointwiseLogLikelihood"]


# --- the log prior density of every draw ----------------------------------------------------------
# The log prior density of every draw of a fit, per parameter: the InferenceData's
# ``log_prior`` group, for power-scaling sensitivity (``az.psens``; :mod:`bayescal.bayes.sensitivity`).


def _beta_log_pdf(x, alpha: float, beta: float):
    """``log Beta(x; alpha, beta) = (alpha-1) log x + (beta-1) log(1-x) - log B(alpha, beta)``
    (scipy.special, not scipy.stats: the latter costs 0.7 s to import)."""
    return (
        special.xlogy(alpha - 1.0, x)
        + special.xlog1py(beta - 1.0, -x)
        - special.betaln(alpha, beta)
    )


def _covariance_range(a: np.ndarray, b: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``U_y - L_y`` (..., D, 2): the width of each pair's covariance bounds given ``Y = 0``
    and ``Y = 1`` at channels ``a, b`` (..., K)."""
    widths = []
    for rates in (a, b):
        lower, upper = covariance_bounds(rates[..., pairs[:, 0]], rates[..., pairs[:, 1]])
        widths.append(upper - lower)
    return np.stack(widths, axis=-1)


def _covariance_term(a, b, covariance, pairs) -> tuple:
    """The dependent pairs' log prior density, in the coordinates the program reads each
    pair's uniform share in: a covariance uniform within its bounds given the channels,
    ``-log(U_y - L_y)``; a pair that closes a cycle, the Logistic(0,
    :data:`~bayescal.channels.pattern_likelihood.INTERACTION_SCALE`) density of its
    conditional log odds ratio ``J``, read off each draw's joint
    (:mod:`bayescal.channels.cyclic_joint`)."""
    term = -np.log(_covariance_range(a, b, pairs))
    for linked in linked_sets(pairs):
        if linked.is_tree:
            continue
        for y, rates in enumerate((a, b)):
            _, interaction = natural_parameters(
                rates[..., linked.members], covariance[..., linked.pairs, y], linked.ends(pairs)
            )
            term[..., linked.pairs, y] = interaction_log_prior(interaction)
    return ("chain", "draw", "pair", "class"), term


def _orientation_term(a, b, prevalence, priors: Priors, design) -> tuple:
    """``log(1 + p0(S theta) / p0(theta))`` of every draw (:func:`log_prior_terms`): the
    covariances' and loadings' priors are the same at ``S theta``, so only the channels and
    class proportions enter."""
    mirrored = (
        _beta_log_pdf(b, *priors.false_positive)
        + _beta_log_pdf(a, *priors.sensitivity)
        - _beta_log_pdf(a, *priors.false_positive)
        - _beta_log_pdf(b, *priors.sensitivity)
    )
    classes = _beta_log_pdf(1.0 - prevalence, *priors.prevalence) - _beta_log_pdf(
        prevalence, *priors.prevalence
    )
    if design.channels_by_group:  # each group's own fold: (chain, draw, group)
        groups = mirrored.reshape(*a.shape[:2], design.n_groups, -1).sum(axis=-1) + classes
        return ("chain", "draw", "group"), np.logaddexp(0.0, groups)
    total = mirrored.sum(axis=-1) + (classes.sum(axis=-1) if classes.ndim == 3 else classes)
    return ("chain", "draw"), np.logaddexp(0.0, total)


def log_prior_terms(samples: dict, priors: Priors, design) -> dict:
    """Log prior density of every draw, per parameter, for power-scaling sensitivity (az.psens):
    ``{name: (dims, array)}``.  Like the programs' log densities it omits constants (the
    hyperpriors' normalisers): a constant changes no power-scaling weight once the weights are
    normalised.  A flat model's folded draws (:mod:`bayescal.models.orientation`) have the prior
    ``p0(theta) + p0(S theta)``, not a product over parameters: the term ``orientation``,
    ``log(1 + p0(S theta) / p0(theta))`` (per score group when each has its own channels; 0
    up to a constant under flat priors), makes the terms sum to it.  A worker the hierarchical
    model summed out has no channel of its own to have a prior (its term is 0)."""
    pairs = design.pairs
    a, b, prevalence = samples["a"], samples["b"], samples["prevalence"]
    draw, annotator = ("chain", "draw"), ("chain", "draw", "annotator")
    prevalence_dims = (*draw, "group") if prevalence.ndim == 3 else draw
    terms = {"prevalence": (prevalence_dims, _beta_log_pdf(prevalence, *priors.prevalence))}
    if "population_mean" not in samples:
        terms["a"] = (annotator, _beta_log_pdf(a, *priors.false_positive))
        terms["b"] = (annotator, _beta_log_pdf(b, *priors.sensitivity))
        if "covariance" in samples:
            terms["covariance"] = _covariance_term(a, b, samples["covariance"], pairs)
        if "loading" in samples:  # HalfNormal(1)
            loading = samples["loading"]
            terms["loading"] = (
                ("chain", "draw", "class"),
                0.5 * np.log(2.0 / np.pi) - 0.5 * loading**2,
            )
        if not design.has_gold:
            terms["orientation"] = _orientation_term(a, b, prevalence, priors, design)
        return terms
    channel, population = population_log_density(
        special.logit(a), special.logit(b), {site: samples[site] for site in POPULATION_SITES}
    )
    terms["channel"] = (annotator, np.where(design.summed_out, 0.0, channel))
    terms["population"] = (draw, population)
    if "covariance" in samples:
        terms["covariance"] = _covariance_term(a, b, samples["covariance"], pairs)
    return terms


# --- the posterior object -------------------------------------------------------------------------


def inference_data(attrs: dict, groups: dict):
    """The ``arviz.InferenceData`` of a fit's attributes and groups (name ->
    :class:`~bayescal.bayes._netcdf.Group`), built when a fit's ``idata`` is first asked for."""
    return arviz().InferenceData(
        attrs=attrs, **{name: group.to_xarray() for name, group in groups.items()}
    )


#: InferenceData attributes that record how the sampler ran, and the results folder's run id
#: (BayesFit.run).
RUN_ATTRIBUTES = (
    "bayescal_chain_method",
    "bayescal_devices",
    "bayescal_compiled_from",
    "bayescal_extensions",
    "bayescal_run_id",
    "bayescal_input_sha256",
)

#: The ``bayescal_kind`` attribute of a multi-class fit's file (a binary fit's has none).
MULTICLASS_KIND = "multiclass"

#: The two rates of a channel, the coordinate of the hierarchical model's population parameters.
RATES = ("a", "b")

#: Diagnostic thresholds (Vehtari et al. 2021): rank-normalised R-hat and bulk / tail ESS.
RHAT_MAX = 1.01
ESS_MIN = 400


class ChannelDraws(NamedTuple):
    """Posterior draws of a fit, chains stacked."""

    a: np.ndarray  # (S, K)
    b: np.ndarray  # (S, K)
    prevalence: np.ndarray  # (S,), or (S, L) with L score groups


class PointwiseLogLikelihood(NamedTuple):
    """A fit's log-likelihood per pattern row and draw, with the items of each row."""

    values: np.ndarray  # (S, R)
    counts: np.ndarray  # (R,)


@dataclass(frozen=True, eq=False)
class BayesFit(PredictsLabels):
    """A posterior over annotator channels and class proportions.

    Built by :func:`bayescal.fit_bayes` (or :meth:`load`), not by hand.

    Attributes
    ----------
    chains : dict of str to ndarray
        The draws by chain: ``a`` and ``b`` (C, D, K), ``prevalence`` (C, D) or (C, D, L);
        for the hierarchical model also ``population_mean`` and ``population_spread`` (C, D,
        2: logit a, logit b), ``population_correlation`` and the random workers' share
        ``population_random_share`` (C, D).
    diagnostics : pandas.DataFrame
        One row per parameter: ``r_hat`` (rank-normalised), ``ess_bulk``, ``ess_tail``, and the
        total ``divergences`` of the run in every row.
    model : str
    priors : Priors
    annotator_names : tuple of str
    group_ids : tuple of int
        The score groups of the Hui–Walter class proportions (``()`` for Dawid–Skene).
    fitted_counts : dict
        The data it was fitted to: items per (score group, response pattern), the pattern a
        tuple of 0, 1 and -1 (missing); patterns never seen are left out.  For the
        hierarchical model, items per ``(0, codes)``, the codes ``2 j + label`` of an item's
        responses (sparse: no tuple of every worker).
    run : dict of str to str
        How the sampler ran: ``chain_method`` (``parallel`` or ``sequential``), ``devices`` and
        ``compiled_from`` (``compiled``, ``memory`` or ``disk``, see
        :mod:`bayescal.bayes.compile_cache`) and ``extensions``, the times the chains were
        continued because R-hat or ESS fell short (``SamplerSettings.extensions``);
        also in the InferenceData's attributes.  A fit loaded
        from a results folder also has its ``run_id`` and ``input_sha256``.
    idata : arviz.InferenceData
        The posterior object (groups in the module docstring), built on first use.
    dependent : tuple of (str, str)
        The pairs fitted with a conditional covariance (``fit_bayes(..., dependent=...)``);
        their draws are ``chains["covariance"]`` (C, D, pairs, 2: given ``Y = 0`` and
        ``Y = 1``).  Empty for models of independent annotators.
    summed_out : tuple of str
        The workers of one label in all that the hierarchical model summed out rather than
        sampled (:mod:`bayescal.models.hierarchical_dawid_skene`): their draws of ``a`` and
        ``b`` are the population's mean channel, one channel they share.  Empty otherwise.
    item_ids : ndarray or None
        The ids of the items it was fitted on (``AnnotatedScores.item_ids``;
        stored in ``constant_data`` as ``item_id``), or None when they had none: where the fit
        meets other items, those it shares with them are named (pattern counts cannot tell a
        split whose samples overlap from a clean one).
    """

    chains: dict
    diagnostics: pd.DataFrame
    model: str
    priors: Priors
    annotator_names: tuple[str, ...]
    group_ids: tuple[int, ...]
    fitted_counts: dict
    run: dict
    _build_groups: Callable  # () -> (attrs, {group name: _netcdf.Group})
    dependent: tuple[tuple[str, str], ...] = ()
    summed_out: tuple[str, ...] = ()
    item_ids: np.ndarray | None = None

    @functools.cached_property
    def _groups(self) -> tuple[dict, dict]:
        return self._build_groups()

    @functools.cached_property
    def idata(self):
        return inference_data(*self._groups)

    @property
    def num_chains(self) -> int:
        return int(self.chains["a"].shape[0])

    @property
    def n_draws(self) -> int:
        return int(self.chains["a"].shape[0] * self.chains["a"].shape[1])

    def _stacked(self, name: str) -> np.ndarray:
        return self.chains[name].reshape(self.n_draws, *self.chains[name].shape[2:])

    def draws(self) -> ChannelDraws:
        """``a`` (S, K), ``b`` (S, K) and ``prevalence`` (S,) or (S, L), chains stacked."""
        return ChannelDraws(self._stacked("a"), self._stacked("b"), self._stacked("prevalence"))

    def loading_draws(self) -> np.ndarray | None:
        """The shared-difficulty model's loadings (S, 2) given ``Y = 0`` and ``Y = 1``, chains
        stacked; ``None`` for the other models."""
        return self._stacked("loading") if "loading" in self.chains else None

    def row_log_likelihood(self, design) -> np.ndarray:
        """``log p(row r | draw s)`` (S, R) of the rows of ``design`` (a
        :class:`~bayescal.models.PatternDesign` with this fit's dependent pairs and model)
        under every draw: what the model checks replicate from."""
        return design.row_log_likelihood(
            *self.draws(), self.covariance_draws(), self.loading_draws()
        )

    def covariance_draws(self) -> np.ndarray | None:
        """The dependent pairs' covariances (S, D, 2) given ``Y = 0`` and ``Y = 1``, chains
        stacked; ``None`` for a model of independent annotators."""
        return self._stacked("covariance") if self.dependent else None

    def pointwise_log_likelihood(self) -> PointwiseLogLikelihood:
        """``log p(row r | draw s)`` (S, R), chains stacked, and the items of each row (R,): the
        ``log_likelihood`` and ``constant_data.counts`` groups (every item of a row shares its
        value), for count-weighted PSIS-LOO (:mod:`bayescal.bayes.comparison`)."""
        groups = self._groups[1]
        _, values = groups["log_likelihood"].variables["counts"]
        _, counts = groups["constant_data"].variables["counts"]
        values = np.asarray(values, np.float64)
        return PointwiseLogLikelihood(
            values.reshape(self.n_draws, -1), np.asarray(counts, np.float64)
        )

    @property
    def pair_index(self) -> np.ndarray:
        """(D, 2) columns of :attr:`dependent` among ``annotator_names``."""
        names = list(self.annotator_names)
        pairs = [(names.index(j), names.index(k)) for j, k in self.dependent]
        return np.array(pairs, np.int64).reshape(-1, 2)

    @property
    def spec(self) -> ChannelModel:
        """The fit's model and what applies to it (:mod:`bayescal.bayes.registry`)."""
        return channel_model(self.model)

    @property
    def has_gold(self) -> bool:
        """Whether the fit conditioned on gold items (its rows of gold items carry their label,
        :func:`bayescal.models.row_key`)."""
        return any(len(key) == 3 for key in self.fitted_counts)

    def check_groups_of(self, data, *, name: str = "data") -> None:
        """Refuse ``data`` (an :class:`~bayescal.AnnotatedScores` or cells) without the fit's
        score groups ``group_ids``: a Hui–Walter fit's class proportions, or channels, are
        those groups'."""
        fitted = np.array(self.group_ids)
        seen = np.array([]) if data.groups is None else np.unique(data.groups)
        if not np.array_equal(seen, fitted):
            raise ValueError(
                f"{name} must have the fit's score groups {fitted.tolist()}; saw "
                + ("no groups" if data.groups is None else f"{seen.tolist()}")
            )

    def was_fitted_to(self, data) -> bool:
        """Whether ``data`` (an :class:`~bayescal.AnnotatedScores` with the fit's annotators,
        in any column order) have the pattern counts ``fitted_counts`` the fit was fitted to:
        the same items, told apart from other items (a split) without the data.  Where the fit
        and ``data`` both have ``item_ids``, the ids must be the same too."""
        if ids_differ(self.item_ids, data.item_ids):
            return False
        if sorted(data.annotator_names) == sorted(self.annotators):
            data = data.in_annotator_order(self.annotators)
        if self.spec.on_responses:
            return (
                ResponseDesign.from_responses(data.responses()).fitted_counts()
                == self.fitted_counts
            )
        counts = data.compress()
        groups = counts.groups if self.group_ids else np.zeros_like(counts.groups)
        gold = np.full(counts.n_cells, -1) if counts.gold is None else counts.gold
        seen = {}
        for g, p, label, c in zip(groups, counts.patterns, gold, counts.counts):
            key = row_key(g, p, label)
            seen[key] = seen.get(key, 0.0) + float(c)
        return seen == self.fitted_counts

    @property
    def annotators(self) -> tuple[str, ...]:
        """Each annotator named once: ``annotator_names``, or with channels per score
        group (named ``"name [group g]"``, group by group) the names without the group."""
        names = self.annotator_names
        if not self.spec.channels_by_group:
            return names
        first_group = names[: len(names) // len(self.group_ids)]
        return tuple(name.rsplit(" [group ", 1)[0] for name in first_group)

    def parameters(self) -> ChannelParameters:
        """The draws as the parameters a label probability takes (chains stacked)."""
        draws = self.draws()
        prevalence = draws.prevalence
        return ChannelParameters(
            draws.a,
            draws.b,
            prevalence if prevalence.ndim == 2 else prevalence[:, None],
            self.annotators,
            self.group_ids,
            pairs=self.dependent,
            covariance=self.covariance_draws(),
            loading=self.loading_draws(),
            channels_by_group=self.spec.channels_by_group,
        )

    def posterior_mean(self) -> Channels:
        a, b, _ = self.draws()
        return Channels(a.mean(axis=0), b.mean(axis=0), names=self.annotator_names)

    @old_spellings(renamed={"interval": "level"})
    def summary(self, *, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Posterior mean, sd and highest-density interval of every parameter, with diagnostics."""
        level = v.as_open_probability(level, "level")
        names = ["a", "b", "prevalence"] + [
            name for name in ("covariance", "loading") if name in self.chains
        ]
        table = arviz().summary(self.idata, var_names=names, kind="stats", hdi_prob=level)
        return table.join(self.diagnostics)

    @classmethod
    def from_run(
        cls,
        samples: dict,
        extra: dict,
        design,
        priors: Priors,
        model: str,
        names,
        *,
        run: dict | None = None,
        item_ids: np.ndarray | None = None,
    ) -> BayesFit:
        """Pack a :class:`~bayescal.bayes.sampler.Sampler` run, with its diagnostics; ``run`` (how it ran, e.g.
        ``chain_method``) goes into the InferenceData's attributes as ``bayescal_<name>``;
        ``item_ids`` are the fitted items' ids (``item_ids``)."""
        names = tuple(str(name) for name in names)
        if design.channels_by_group:  # a channel per (group, annotator)
            names = tuple(f"{name} [group {int(g)}]" for g in design.group_ids for name in names)
        groups = tuple(int(g) for g in design.group_ids) if samples["prevalence"].ndim == 3 else ()
        divergences = int(np.sum(extra["diverging"]))
        run = {name: str(value) for name, value in (run or {}).items()}
        dependent = _dependent(design, names)
        return cls(
            {name: np.asarray(value) for name, value in samples.items()},
            _diagnostics(samples, names, groups, divergences, dependent),
            model,
            priors,
            names,
            groups,
            design.fitted_counts(),
            run,
            functools.partial(_groups, samples, extra, design, priors, model, names, run, item_ids),
            dependent,
            _summed_out(design, names),
            item_ids,
        )

    def save(self, path, *, run: dict | None = None) -> None:
        """Write the InferenceData to netCDF (ArviZ's layout: ``arviz.from_netcdf`` reads it);
        :meth:`load` restores an identical fit.  ``run`` adds entries to ``run`` in the file
        only (a results folder's ``run_id`` and ``input_sha256``), as ``bayescal_<name>``
        attributes."""
        attrs, groups = self._groups
        _netcdf.write(path, attrs, groups, run)

    @classmethod
    def load(cls, path) -> BayesFit:
        """The fit :meth:`save` wrote to ``path``.  Raises ``ValueError`` naming the file when
        it is not a posterior of bayescal."""
        attrs, stored = _netcdf.read(path)
        missing = [g for g in ("posterior", "sample_stats", "constant_data") if g not in stored]
        if missing or "bayescal_model" not in attrs:
            raise ValueError(
                f"{path}: not a posterior written by bayescal (missing "
                f"{missing or ['the bayescal_model attribute']}); write it with BayesFit.save"
            )
        if attrs.get("bayescal_kind") == MULTICLASS_KIND:
            raise ValueError(
                f"{path}: a multi-class posterior; read it with bayescal.bayes.ClassBayesFit.load"
            )
        posterior, constant_data = stored["posterior"], stored["constant_data"].variables
        chains = {name: values for name, (_, values) in posterior.variables.items()}
        names = tuple(str(name) for name in posterior.coords["annotator"])
        groups = tuple(int(g) for g in posterior.coords.get("group", ()))
        divergences = int(stored["sample_stats"].variables["diverging"][1].sum())
        design = channel_model(str(attrs["bayescal_model"])).design_from_constant_data(
            constant_data
        )
        dependent = _dependent(design, names)
        return cls(
            chains,
            _diagnostics(chains, names, groups, divergences, dependent),
            str(attrs["bayescal_model"]),
            Priors.from_dict(json.loads(attrs["bayescal_priors"])),
            names,
            groups,
            design.fitted_counts(),
            {k.removeprefix("bayescal_"): str(x) for k, x in attrs.items() if k in RUN_ATTRIBUTES},
            lambda: (attrs, stored),
            dependent,
            _summed_out(design, names),
            constant_data["item_id"][1] if "item_id" in constant_data else None,
        )

    def __repr__(self) -> str:
        draws_per_chain = self.chains["a"].shape[1]
        return (
            f"BayesFit(model={self.model!r}, annotators=[{abbreviated(self.annotator_names, 8)}], "
            f"chains={self.num_chains}, draws_per_chain={draws_per_chain})"
        )

    def _repr_html_(self) -> str:
        """The channel table of the report: posterior mean, equal-tailed interval, R-hat, ESS."""
        level = DEFAULT_LEVEL
        a, b, prevalence = self.draws()
        tail = (1.0 - level) / 2.0
        rows = []

        def add(subject, parameter, draws, row_name):
            diagnostics = self.diagnostics.loc[row_name]
            interval = tuple(float(x) for x in np.quantile(draws, [tail, 1.0 - tail]))
            rows.append(
                _html.ChannelRow(
                    subject,
                    parameter,
                    None,
                    float(np.mean(draws)),
                    interval,
                    float(diagnostics["r_hat"]),
                    float(diagnostics["ess_bulk"]),
                )
            )

        for j, name in enumerate(self.annotator_names):
            add(name, "false-positive rate a", a[:, j], f"a[{name}]")
            add(name, "sensitivity b", b[:, j], f"b[{name}]")
        parameters = [p for p in self.diagnostics.index if p.startswith("prevalence")]
        for parameter, draws in zip(parameters, np.atleast_2d(prevalence.T)):
            add(parameter, "class proportion", draws, parameter)
        divergences = int(self.diagnostics["divergences"].iloc[0])
        head = f"<p>{html.escape(repr(self))}; {divergences} divergent transition(s)</p>"
        return head + _html.channel_table(rows, level)


def named_parameters(a, b, prevalence, names, groups) -> dict[str, np.ndarray]:
    """Every scalar parameter by the name ArviZ gives it, in ArviZ's order: ``a[name]`` for
    each annotator, then ``b[name]``, then ``prevalence`` or ``prevalence[group]``.  The
    arrays hold the draws on their leading axes ((C, D) by chain, or (S,) stacked) and the
    annotators or groups on the last."""
    named = {f"a[{name}]": a[..., j] for j, name in enumerate(names)}
    named |= {f"b[{name}]": b[..., j] for j, name in enumerate(names)}
    if groups:
        named |= {f"prevalence[{group}]": prevalence[..., g] for g, group in enumerate(groups)}
    else:
        named["prevalence"] = prevalence
    return named


def population_parameters(chains: dict) -> dict[str, np.ndarray]:
    """The hierarchical model's population parameters by the name ArviZ gives them
    (``population_mean[a]`` ...), empty for the other models."""
    named = {}
    for site in POPULATION_SITES:
        if site in chains:
            values = chains[site]
            if values.ndim == chains["prevalence"].ndim:
                named[site] = values
            else:
                named |= {f"{site}[{rate}]": values[..., r] for r, rate in enumerate(RATES)}
    return named


def covariance_parameters(chains: dict, dependent: tuple) -> dict[str, np.ndarray]:
    """The dependent pairs' covariances by the name ArviZ gives them (``covariance[j ~ k,
    0]`` given ``Y = 0`` ...), and the shared difficulty's loadings (``loading[0]``,
    ``loading[1]``); empty for models without them."""
    named = {
        f"covariance[{j} ~ {k}, {y}]": chains["covariance"][..., d, y]
        for d, (j, k) in enumerate(dependent)
        for y in (0, 1)
    }
    if "loading" in chains:
        named |= {f"loading[{y}]": chains["loading"][..., y] for y in (0, 1)}
    return named


def _summed_out(design, names: tuple) -> tuple[str, ...]:
    """The names of the workers ``design`` sums out (only a crowd's design sums any out)."""
    summed_out = getattr(design, "summed_out", np.zeros(len(names), bool))
    return tuple(name for name, out in zip(names, summed_out) if out)


def _diagnostics(
    chains: dict, names: tuple, groups: tuple, divergences: int, dependent: tuple = ()
) -> pd.DataFrame:
    """R-hat, bulk and tail ESS of every parameter (rows named as ArviZ names them), and the
    run's divergences in every row."""
    named = named_parameters(chains["a"], chains["b"], chains["prevalence"], names, groups)
    named |= population_parameters(chains) | covariance_parameters(chains, dependent)
    return diagnostics_table(named, divergences)


#: Parameters a diagnostics warning names before saying how many more (a crowd's thousands of
#: channels would make the line unreadable; ``fit.diagnostics`` has them all).
SHOWN_PARAMETERS = 8


def _high_r_hat(diagnostics: pd.DataFrame) -> list:
    """The parameters whose R-hat exceeds :data:`RHAT_MAX`."""
    return diagnostics.index[diagnostics["r_hat"] > RHAT_MAX].tolist()


def _low_ess(diagnostics: pd.DataFrame) -> list:
    """The parameters whose bulk or tail ESS is under :data:`ESS_MIN`."""
    return diagnostics.index[(diagnostics[["ess_bulk", "ess_tail"]] < ESS_MIN).any(axis=1)].tolist()


def falls_short(diagnostics: pd.DataFrame) -> list:
    """The parameters whose R-hat exceeds 1.01 or whose bulk or tail ESS is under 400: what
    longer chains can mend (divergent transitions and constant draws they cannot)."""
    return list(dict.fromkeys(_high_r_hat(diagnostics) + _low_ess(diagnostics)))


def check_diagnostics(diagnostics: pd.DataFrame) -> None:
    """Warn (:class:`~bayescal.SamplingWarning`) when R-hat > 1.01, bulk or tail ESS < 400, or
    any transition diverged."""
    problems = []
    diverged = diagnostics["divergences"].iloc[0] > 0
    if diverged:
        problems.append(f"{diagnostics['divergences'].iloc[0]} divergent transition(s)")
    high = _high_r_hat(diagnostics)
    if high:
        problems.append(f"R-hat > {RHAT_MAX} for {abbreviated(high, SHOWN_PARAMETERS)}")
    low = _low_ess(diagnostics)
    if low:
        problems.append(f"bulk or tail ESS < {ESS_MIN} for {abbreviated(low, SHOWN_PARAMETERS)}")
    undefined = diagnostics.index[
        diagnostics[["r_hat", "ess_bulk", "ess_tail"]].isna().any(axis=1)
    ].tolist()
    if undefined:
        problems.append(
            "R-hat or ESS undefined (constant draws?) for "
            + abbreviated(undefined, SHOWN_PARAMETERS)
        )
    if problems:
        warn_caller(
            "NUTS diagnostics failed: "
            + "; ".join(problems)
            + ". Run more warmup/samples or chains"
            # smaller steps cross a region of high curvature that the adapted step jumps over
            + (", with target_accept nearer 1 for the divergences" if diverged else "")
            + ", or check identification (score groups that barely differ, tiny gaps) before "
            "using this posterior",
            SamplingWarning,
        )


def _dependent(design, names: tuple) -> tuple[tuple[str, str], ...]:
    """The dependent pairs of a fit's ``design`` named by its annotators ``names``."""
    return tuple((names[j], names[k]) for j, k in design.pairs)


def _groups(
    samples: dict, extra: dict, design, priors: Priors, model: str, names, run: dict, item_ids
) -> tuple[dict, dict]:
    """A :class:`~bayescal.bayes.sampler.Sampler` run as the InferenceData's attributes and groups (arrays laid out as
    ArviZ lays them out, :class:`bayescal.bayes._netcdf.Group`; groups in the module docstring)."""
    dependent = _dependent(design, names)
    a, b, prevalence = samples["a"], samples["b"], samples["prevalence"]
    grouped = prevalence.ndim == 3
    coords = {
        "chain": np.arange(a.shape[0]),
        "draw": np.arange(a.shape[1]),
        "annotator": list(names),
        "group": design.group_ids.tolist() if grouped else [0],
        "pattern": np.arange(design.counts.size),
        "rate": list(RATES),
        "pair": [f"{j} ~ {k}" for j, k in dependent],
        "column": np.arange(design.n_annotators),
        "class": [0, 1],
        "member": [0, 1],
        "item": np.arange(0 if item_ids is None else len(item_ids)),
    }
    draw, annotator = ("chain", "draw"), ("chain", "draw", "annotator")
    prevalence_dims = (*draw, "group") if grouped else draw
    dataset = _netcdf.group_maker(coords)
    # the hierarchical model's population, or the dependent pairs' covariances
    more = {
        site: ((*draw, "rate") if samples[site].ndim == 3 else draw, samples[site])
        for site in POPULATION_SITES
        if site in samples
    }
    covariance, loading = samples.get("covariance"), samples.get("loading")
    if covariance is not None:
        more["covariance"] = ((*draw, "pair", "class"), covariance)
    if loading is not None:
        more["loading"] = ((*draw, "class"), loading)
    groups = {
        "posterior": dataset(
            {
                "a": (annotator, a),
                "b": (annotator, b),
                "prevalence": (prevalence_dims, prevalence),
                **more,
            }
        ),
        "sample_stats": dataset(
            {
                "diverging": (draw, extra["diverging"]),
                "energy": (draw, extra["energy"]),
                "n_steps": (draw, extra["num_steps"]),
                "acceptance_rate": (draw, extra["accept_prob"]),
            }
        ),
        "log_likelihood": dataset(
            {
                "counts": (
                    (*draw, "pattern"),
                    design.row_log_likelihood(a, b, prevalence, covariance, loading),
                )
            }
        ),
        "log_prior": dataset(log_prior_terms(samples, priors, design)),
        "observed_data": dataset({"counts": (("pattern",), design.counts)}),
        "constant_data": dataset(
            design.constant_data()
            | ({} if item_ids is None else {"item_id": (("item",), np.asarray(item_ids))})
        ),
    }
    attrs = {
        "bayescal_model": model,
        "bayescal_priors": json.dumps(priors.to_dict()),
        "bayescal_version": __version__,
        **{f"bayescal_{name}": str(value) for name, value in run.items()},
    }
    return attrs, groups
