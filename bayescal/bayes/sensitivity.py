"""How much do the posterior channels and NC-ECE depend on the prior?

Two complementary studies:

- :func:`prior_sensitivity` refits the model under a list (or :func:`prior_grid`) of
  :class:`~bayescal.Priors` and tabulates how the posterior of every channel, every class
  proportion and NC-ECE moves: mean, sd, credible interval, and the shift of the mean from the
  reference fit in units of the reference posterior sd.  One compiled sampler serves every
  prior (the prior parameters are traced arguments of :class:`~bayescal.bayes.fit.Sampler`),
  so a grid of ten priors costs ten fits' sampling time and one compilation.
- :func:`power_scaling` is the power-scaling diagnostic of Kallioinen et al. (2023) through
  ArviZ's ``psens``: how much the posterior would move if the prior (or the likelihood) were
  raised to a power near 1, estimated by importance sampling from one fit.  A sensitivity of
  0.05 or more counts as sensitive.  Diagnoses: prior *and* likelihood sensitive: "prior-data
  conflict"; prior sensitive only: "strong prior / weak likelihood"; likelihood insensitive:
  "weak likelihood".  A flat Beta(1, 1) prior has log density 0, so power-scaling it changes
  nothing and its prior sensitivity is always 0.
"""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _validation as v
from .._api import DEFAULT_LEVEL, DEFAULT_N_BINS, Result, old_spellings
from ..channels.base import as_data
from ..data.annotated_scores import require_binary
from ..models.stack import arviz
from .bayes_fit import BayesFit, named_parameters
from .fit import check_fit, check_priors, sampler_for
from .posterior import PosteriorECE, nc_ece_posterior
from .priors import Priors
from .sampler_settings import SamplerSettings, sampler_settings

__all__ = ["PriorSensitivity", "power_scaling", "prior_grid", "prior_sensitivity"]

#: Power-scaling sensitivity at or above this counts as sensitive (Kallioinen et al. 2023).
PSENS_THRESHOLD = 0.05


@old_spellings()
def prior_grid(
    *, false_positive=((1.0, 1.0),), sensitivity=((1.0, 1.0),), prevalence=((1.0, 1.0),)
) -> dict[str, Priors]:
    """Every combination of the given Beta pairs, named by their settings.

    Examples
    --------
    >>> list(prior_grid(sensitivity=[(1, 1), (8, 2)]))
    ['fp=(1,1) sens=(1,1) prev=(1,1)', 'fp=(1,1) sens=(8,2) prev=(1,1)']
    """
    grid = {}
    axes = {"false_positive": false_positive, "sensitivity": sensitivity, "prevalence": prevalence}
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"{name} must be a sequence of (alpha, beta) pairs; saw {values!r}")
    short = lambda pair: f"({pair[0]:g},{pair[1]:g})"  # noqa: E731
    for fp, sens, prev in itertools.product(*axes.values()):
        try:
            priors = Priors(false_positive=fp, sensitivity=sens, prevalence=prev)
        except ValueError as error:
            raise ValueError(
                f"prior grid entry false_positive={fp!r}, sensitivity={sens!r}, prevalence={prev!r}: {error}"
            ) from None
        grid[
            f"fp={short(priors.false_positive)} sens={short(priors.sensitivity)} prev={short(priors.prevalence)}"
        ] = priors
    return grid


def _named_priors(priors) -> dict[str, Priors]:
    if isinstance(priors, Priors):
        priors = [priors]
    if isinstance(priors, dict):
        named = dict(priors)
    elif isinstance(priors, (list, tuple)):
        named = {f"prior {i}": p for i, p in enumerate(priors)}
    else:
        raise TypeError(
            f"priors must be a list of bayescal.Priors or a dict of them by name; saw {type(priors).__name__}"
        )
    if not named:
        raise ValueError("priors must hold at least one bayescal.Priors; saw none")
    for name, prior in named.items():
        if not isinstance(prior, Priors):
            raise TypeError(
                f"priors[{name!r}] must be a bayescal.Priors; saw {type(prior).__name__} {prior!r}"
            )
    return named


def _parameter_draws(fit: BayesFit, ece: PosteriorECE) -> dict[str, np.ndarray]:
    """Every scalar quantity of a fit, named for the table: a[name], b[name], prevalence[...], nc_ece."""
    draws = named_parameters(*fit.draws(), fit.annotator_names, fit.group_ids)
    draws["nc_ece"] = ece.draws
    return draws


#: A posterior mean that moves by at most this many reference standard deviations has moved
#: well within its own uncertainty (a 90% interval spans about 3.3 of them).
SMALL_SHIFT = 0.5
#: Beyond this many, the prior moves the mean by more than its own posterior sd: the prior, not
#: the labels, decides it.
LARGE_SHIFT = 1.0


@dataclass(frozen=True, eq=False, repr=False)
class PriorSensitivity(Result):
    """Posteriors of one model under several priors.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (prior, quantity) with columns ``mean``, ``sd``, ``lower``, ``upper``
        (equal-tailed interval at ``level``), ``shift`` = (mean - reference mean) / reference
        sd, and ``interval_overlap``: the share of the reference interval that the prior's
        interval covers.  Quantities are ``a[annotator]``, ``b[annotator]``, ``prevalence``
        (one per score group for Hui–Walter) and ``nc_ece``.
    fits : dict of str to BayesFit
    ece : dict of str to PosteriorECE
    reference : str
        The prior the shifts are measured from.
    level : float
    """

    table: pd.DataFrame
    fits: dict
    ece: dict
    reference: str
    level: float

    def __repr__(self) -> str:
        return (
            f"PriorSensitivity({len(self.fits)} priors, reference {self.reference!r}, "
            f"{self.level:.0%} intervals, largest |shift| {self.table['shift'].abs().max():.3g} sd)"
        )

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + self.table.round(4).to_html(
            classes="bayescal-sensitivity"
        )

    @old_spellings()
    def largest_shifts(self, *, count: int = 5) -> pd.DataFrame:
        """The ``count`` rows with the largest ``|shift|``, excluding the reference."""
        others = self.table.drop(index=self.reference, level="prior")
        return others.reindex(others["shift"].abs().sort_values(ascending=False).index).head(count)

    def conclusion(self) -> str:
        """The table in one or two plain sentences: how far the priors moved NC-ECE and the
        quantity they moved most, in reference standard deviations, and what that means
        (:data:`SMALL_SHIFT`, :data:`LARGE_SHIFT`)."""
        others = self.table.drop(index=self.reference, level="prior")
        if others.empty:
            return "Only the reference prior was fitted: there is nothing to compare."
        ece = others.xs("nc_ece", level="quantity")["shift"].abs()
        (prior, quantity), row = next(iter(self.largest_shifts(count=1).iterrows()))
        largest = abs(row["shift"])
        moved = (
            f"Against the reference prior {self.reference!r}, NC-ECE moved by at most "
            f"{ece.max():.2f} reference sd; the largest move is {quantity} under {prior!r} "
            f"({largest:.2f} sd)."
        )
        if largest <= SMALL_SHIFT:
            verdict = "The conclusions do not depend on these priors."
        elif largest <= LARGE_SHIFT:
            verdict = (
                "The priors move some quantities by a noticeable part of their uncertainty: "
                "report this table beside the result."
            )
        else:
            verdict = (
                f"The priors matter: the labels alone do not pin down {quantity}; report the "
                "result under each prior, or collect more labels (gold items identify the "
                "channels best)."
            )
        return f"{moved} {verdict}"


@old_spellings(renamed={"interval": "level"})
def prior_sensitivity(
    data,
    *,
    model="dawid_skene",
    priors=None,
    reference=None,
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    sampler=None,
    num_chains=None,
    num_warmup=None,
    num_samples=None,
    seed=None,
    progress=None,
    dependent=None,
) -> PriorSensitivity:
    """Refit under each prior and tabulate how the posterior moves (module docstring).

    Parameters
    ----------
    data : AnnotatedScores
    model : {"dawid_skene", "hui_walter", "hierarchical_dawid_skene"}, default "dawid_skene"
        The hierarchical model takes its channels' prior from the population of workers, so
        its priors may differ in ``prevalence`` only (others are refused before sampling).
    priors : list of Priors, dict of name to Priors, or Priors
        The priors to compare, e.g. :func:`prior_grid`; a list is named ``"prior 0"``, ...
    reference : str, optional
        Name of the reference prior; default the first.
    n_bins : int or "auto", default 10
        Evaluation bins of NC-ECE (:func:`bayescal.nc_ece_posterior` on ``data``).
    level : float in (0, 1), default 0.9
        Mass of the credible intervals.
    sampler : SamplerSettings, optional
        NUTS settings, as in :func:`bayescal.fit_bayes`, but without a progress bar by default
        (``SamplerSettings(progress=False)``); every prior uses the same seed, and with
        ``progress`` each prior's run shows a bar where standard error is a terminal.
    num_chains, num_warmup, num_samples, seed, progress : optional
        A field of ``sampler`` given as a keyword, in its place.
    dependent : pair or list of pairs of annotator names, optional
        Pairs whose errors may be correlated given ``Y``, in every prior's fit
        (:func:`bayescal.fit_bayes`'s ``dependent``; their shares stay uniform, within
        their covariances' bounds or, for pairs that close a cycle, as their conditional log
        odds ratios' Logistic(0, 2), whatever the prior of the channels).

    Returns
    -------
    PriorSensitivity
        A :class:`~bayescal.SamplingWarning` names the prior whose fit failed its
        diagnostics.
    """
    require_binary(data, "prior_sensitivity")
    data = as_data(data)
    named = _named_priors(priors)
    reference = next(iter(named)) if reference is None else reference
    if reference not in named:
        raise ValueError(
            f"reference must be one of the prior names {list(named)}; saw {reference!r}"
        )
    level = v.as_open_probability(level, "level")
    bins = v.as_n_bins(n_bins, data.n_items, refuse_sparse=v.SPARSE_DRAWS)  # before sampling
    settings = sampler_settings(
        sampler,
        SamplerSettings(progress=False),
        num_chains=num_chains,
        num_warmup=num_warmup,
        num_samples=num_samples,
        seed=seed,
        progress=progress,
    )
    seed = settings.seed
    sampler, observed = sampler_for(
        data, model, settings, caller="prior_sensitivity", dependent=dependent
    )
    if not sampler.spec.sensitivity:  # refused before the first prior is sampled
        raise ValueError(
            f"model: a {sampler.model!r} fit is for comparison ({sampler.spec.purpose}) and has "
            "no NC-ECE to compare across priors"
        )
    for prior in named.values():  # every prior checked before the first fit
        check_priors(prior, sampler.spec)

    fits, eces, draws = {}, {}, {}
    for name, prior in named.items():
        fit = sampler.fit(observed, prior, seed, item_ids=getattr(data, "item_ids", None))
        check_fit(fit, under=name)
        fits[name] = fit
        eces[name] = nc_ece_posterior(data, fit, n_bins=bins, level=level, seed=seed)
        draws[name] = _parameter_draws(fit, eces[name])

    tail = (1.0 - level) / 2.0
    rows = []
    for name, quantities in draws.items():
        for quantity, values in quantities.items():
            ref = draws[reference][quantity]
            ref_low, ref_high = np.quantile(ref, [tail, 1.0 - tail])
            low, high = np.quantile(values, [tail, 1.0 - tail])
            ref_sd = ref.std(ddof=1)
            overlap = (
                max(0.0, min(high, ref_high) - max(low, ref_low)) / (ref_high - ref_low)
                if ref_high > ref_low
                else float(low <= ref_low <= high)
            )
            rows.append(
                {
                    "prior": name,
                    "quantity": quantity,
                    "mean": values.mean(),
                    "sd": values.std(ddof=1),
                    "lower": low,
                    "upper": high,
                    "shift": (values.mean() - ref.mean()) / ref_sd if ref_sd > 0 else 0.0,
                    "interval_overlap": overlap,
                }
            )
    table = pd.DataFrame(rows).set_index(["prior", "quantity"])
    return PriorSensitivity(table, fits, eces, reference, level)


def _diagnosis(prior: float, likelihood: float) -> str:
    if prior >= PSENS_THRESHOLD and likelihood >= PSENS_THRESHOLD:
        return "prior-data conflict"
    if prior >= PSENS_THRESHOLD:
        return "strong prior / weak likelihood"
    if likelihood < PSENS_THRESHOLD:
        return "weak likelihood"
    return "-"


def power_scaling(fit) -> pd.DataFrame:
    """Power-scaling sensitivity of every parameter to the prior and to the likelihood.

    Parameters
    ----------
    fit : BayesFit

    Returns
    -------
    pandas.DataFrame
        One row per parameter (``a[annotator]``, ``b[annotator]``, ``prevalence``...), with
        ``prior`` and ``likelihood`` sensitivities (ArviZ ``psens``, Kallioinen et al. 2023)
        and a ``diagnosis`` (module docstring).  The likelihood is the whole pattern-count
        likelihood: each pattern's log-likelihood weighted by its count.
    """
    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal.BayesFit; saw {type(fit).__name__}")
    idata = fit.idata
    az = arviz()
    if "log_prior" not in idata.groups():
        raise ValueError(
            "fit has no log_prior group (saved by an older bayescal?): refit it to run power_scaling"
        )
    # The stored log-likelihood is per item of each pattern; psens sums it, so weight by the counts.
    weighted = idata.log_likelihood["counts"] * idata.constant_data["counts"]
    scaled = az.InferenceData(
        posterior=idata.posterior,
        log_likelihood=weighted.to_dataset(name="counts"),
        log_prior=idata.log_prior,
    )
    names = ["a", "b", "prevalence"]
    with np.errstate(invalid="ignore", divide="ignore"):
        prior = az.psens(scaled, component="prior", var_names=names)
        likelihood = az.psens(scaled, component="likelihood", var_names=names)
    rows = []
    for name in names:
        values_prior = np.atleast_1d(prior[name].values)
        values_likelihood = np.atleast_1d(likelihood[name].values)
        labels = (
            [f"{name}[{x}]" for x in prior[name].coords[prior[name].dims[0]].values]
            if prior[name].dims
            else [name]
        )
        for label, p, lik in zip(labels, values_prior, values_likelihood):
            rows.append(
                {
                    "parameter": label,
                    "prior": float(p),
                    "likelihood": float(lik),
                    "diagnosis": _diagnosis(p, lik),
                }
            )
    return pd.DataFrame(rows).set_index("parameter")
