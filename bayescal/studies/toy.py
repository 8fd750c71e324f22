"""The paper's toy study (§6.1, App. G.2): NC-ECE errors by condition, sample size and method.

Each replicate draws the toy data of :func:`bayescal.toy_data` and estimates the predictor's
ECE from the noisy labels alone, with ten equal-width evaluation bins:

- ``true channels``: NC-ECE with the supplied channels (inverse-variance weights);
- ``EM reuse``, ``EM cross-fit``, ``EM split``: NC-ECE with channels from grouped EM on five
  equal-width score groups (App. G.2), fitted on all items, out of fold (5 folds), or on a
  random half with the other half evaluated (:func:`bayescal.nc_ece`);
- ``Bayes``: the posterior median of NC-ECE under the Bayesian Dawid–Skene model with flat
  priors (:func:`bayescal.nc_ece_posterior`), with its credible interval.

Errors are measured against the population ECE ``E|m(Z) - Z|`` (App. F.5); summaries give
bias, MAE and RMSE over replicates (x 100, as the paper reports them), the Monte Carlo standard
error of the MAE, and, for ``Bayes``, how often the interval covers the population *binned*
ECE, which is what a binned estimator targets.

Replicates run through an ``executor`` (``bayescal.studies._executor``): in-process by default,
a process pool, or a Dask ``Client`` for grids that outgrow one machine.  Replicate ``r`` uses
seed ``first_seed + r`` in every condition and size, so the results do not depend on the
executor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _validation as v
from .._api import DEFAULT_LEVEL, Result, old_spellings
from ..bayes.sampler_settings import SamplerSettings, sampler_settings
from ..channels import score_groups
from ..correction.estimation import nc_ece_estimate
from ..correction.known_channels import noise_corrected_ece
from ..data.annotated_scores import AnnotatedScores
from ..exceptions import ChannelFitError
from ..simulate.panels import TOY_CHANNELS, TOY_CONDITIONS, toy_data
from ._executor import check_executor, run_tasks

__all__ = ["TOY_METHODS", "TOY_SIZES", "ToyStudy", "toy_study"]

#: Sample sizes of the paper's Figure 1.
TOY_SIZES = (1000, 2000, 4000, 8000, 16000)
#: Estimators compared, in the order of the tables.
TOY_METHODS = ("true channels", "EM reuse", "EM cross-fit", "EM split", "Bayes")
_EM_MODES = {"EM reuse": "reuse", "EM cross-fit": "crossfit", "EM split": "split"}


#: The toy study's NUTS settings unless a call says otherwise: short chains, many replicates.
TOY_SAMPLER = SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, progress=False)


@dataclass(frozen=True)
class _Settings:
    """What a replicate needs besides its condition, size and seed (picklable for workers)."""

    methods: tuple
    n_bins: int
    n_groups: int
    level: float
    nuts: SamplerSettings


def _bayes(data: AnnotatedScores, settings: _Settings, seed: int):
    """Posterior NC-ECE of one replicate; the compiled sampler is shared across replicates of
    a worker by the sampler cache of :mod:`bayescal.bayes.fit`."""
    from ..bayes.posterior import nc_ece_posterior
    from ..bayes.priors import Priors
    from ..bayes.sampler import Sampler

    sampler = Sampler.for_complete_layout(data.n_annotators, settings.nuts)
    fit = sampler.fit(data.compress(), Priors(), seed)
    return nc_ece_posterior(data, fit, n_bins=settings.n_bins, level=settings.level, seed=seed)


def toy_replicate(condition: str, n: int, seed: int, settings: _Settings) -> list[dict]:
    """One replicate: a row per method with its estimate, error and (Bayes) interval."""
    simulation = toy_data(n, condition=condition, seed=seed)
    scores = simulation.data.scores
    data = AnnotatedScores(
        scores, simulation.data.annotations, groups=score_groups(scores, n_groups=settings.n_groups)
    )
    target = simulation.population_ece
    binned_target = (
        simulation.population_binned_ece(settings.n_bins) if "Bayes" in settings.methods else np.nan
    )
    rows = []
    for method in settings.methods:
        row = {
            "condition": condition,
            "n": n,
            "seed": seed,
            "method": method,
            "population_ece": target,
        }
        interval = (np.nan, np.nan)
        try:
            if method == "true channels":
                estimate = noise_corrected_ece(data, TOY_CHANNELS, n_bins=settings.n_bins)
            elif method == "Bayes":
                posterior = _bayes(data, settings, seed)
                estimate, interval = posterior.median, posterior.interval
            else:
                estimate = nc_ece_estimate(
                    data,
                    estimator="grouped_em",
                    mode=_EM_MODES[method],
                    n_bins=settings.n_bins,
                    seed=seed,
                ).estimate
            failure = ""
        except ChannelFitError as error:  # a failed channel fit is a result to count, not a crash
            estimate, failure = np.nan, str(error)
        row.update(
            estimate=estimate,
            error=estimate - target,
            lower=interval[0],
            upper=interval[1],
            covered=bool(interval[0] <= binned_target <= interval[1])
            if method == "Bayes" and not failure
            else None,
            binned_target=binned_target if method == "Bayes" else np.nan,
            failure=failure,
        )
        rows.append(row)
    return rows


@dataclass(frozen=True, eq=False, repr=False)
class ToyStudy(Result):
    """Per-replicate results of :func:`toy_study` and the paper-style summaries.

    Attributes
    ----------
    results : pandas.DataFrame
        One row per condition, size, replicate and method: ``estimate``, ``population_ece``,
        ``error``; for ``Bayes`` also ``lower``, ``upper``, ``binned_target`` and ``covered``
        (NaN / None for the point estimators); ``failure`` is "" or the reason a channel fit
        failed (its estimate is then NaN and it is left out of the summaries, but counted).
    level : float
        Credible level of the Bayesian intervals.
    """

    results: pd.DataFrame
    level: float

    def summary(self) -> pd.DataFrame:
        """Bias, MAE (with its Monte Carlo SE), SD and RMSE of the errors (x 100), coverage and
        failures, by condition, size and method."""
        ok = self.results[self.results["failure"] == ""]
        grouped = ok.groupby(["condition", "n", "method"], sort=False)["error"]
        table = pd.DataFrame(
            {
                "bias_x100": 100 * grouped.mean(),
                "mae_x100": 100 * grouped.apply(lambda e: e.abs().mean()),
                "mae_se_x100": 100
                * grouped.apply(
                    lambda e: e.abs().std(ddof=1) / np.sqrt(e.size) if e.size > 1 else np.nan
                ),
                "sd_x100": 100 * grouped.std(ddof=1),
                "rmse_x100": 100 * grouped.apply(lambda e: np.sqrt((e**2).mean())),
                "replicates": grouped.size(),
            }
        )
        bayes = ok[ok["method"] == "Bayes"]
        if not bayes.empty:
            table["coverage"] = (
                bayes.groupby(["condition", "n", "method"], sort=False)["covered"]
                .mean()
                .astype(float)
            )
        failures = self.results.groupby(["condition", "n", "method"], sort=False)["failure"].apply(
            lambda f: int((f != "").sum())
        )
        return table.join(failures.rename("failures"), how="right")

    @old_spellings()
    def table(self, *, n: int = 8000) -> pd.DataFrame:
        """The paper's Table 1 layout at one sample size: rows (condition, method)."""
        summary = self.summary()
        sizes = summary.index.get_level_values("n")
        if n not in set(sizes):
            raise ValueError(f"n must be one of the study's sizes {sorted(set(sizes))}; saw {n}")
        return summary.xs(n, level="n")


@old_spellings(renamed={"interval": "level"})
def toy_study(
    *,
    conditions=TOY_CONDITIONS,
    sizes=TOY_SIZES,
    replicates=200,
    methods=TOY_METHODS,
    n_bins=10,
    n_groups=5,
    level=DEFAULT_LEVEL,
    sampler=None,
    num_chains=None,
    num_warmup=None,
    num_samples=None,
    first_seed=None,
    executor=None,
    progress=None,
) -> ToyStudy:
    """Run the paper's §6.1 toy study (module docstring).

    Parameters
    ----------
    conditions : sequence of {"calibrated", "shifted", "nonlinear"}, default all three
    sizes : sequence of int, default (1000, 2000, 4000, 8000, 16000)
    replicates : int, default 200 (as in the paper)
    methods : sequence of names from :data:`TOY_METHODS`, default all
        Leave out ``"Bayes"`` for a quick frequentist study.
    n_bins : int, default 10
        Equal-width evaluation bins (paper: ten).
    n_groups : int, default 5
        Equal-width score groups of grouped EM (paper: five).
    level : float, default 0.9
        Credible level of the Bayesian interval.
    sampler : SamplerSettings, optional
        NUTS settings of the Bayesian fits (one compiled sampler per worker); default
        ``SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, progress=False)``.
        Its ``seed`` is the first replicate's, and ``progress`` a bar over the replicates.
    num_chains, num_warmup, num_samples, progress : optional
        A field of ``sampler`` given as a keyword, in its place.
    first_seed : int, optional
        ``sampler``'s ``seed`` given as a keyword: replicate ``r`` uses ``first_seed + r``.
    executor : None, "local", "process", concurrent.futures.Executor or dask.distributed.Client
        Where replicates run; results are identical whichever runs them.

    Returns
    -------
    ToyStudy
    """
    if isinstance(conditions, str) or not hasattr(conditions, "__iter__"):
        raise TypeError(
            f"conditions must be a sequence of condition names from {TOY_CONDITIONS}; saw {conditions!r}"
        )
    conditions = [v.as_choice(c, "conditions", TOY_CONDITIONS) for c in conditions]
    if isinstance(methods, str) or not hasattr(methods, "__iter__"):
        raise TypeError(
            f"methods must be a sequence of method names from {TOY_METHODS}; saw {methods!r}"
        )
    methods = tuple(v.as_choice(m, "methods", TOY_METHODS) for m in methods)
    if not hasattr(sizes, "__iter__"):
        raise TypeError(f"sizes must be a sequence of sample sizes; saw {sizes!r}")
    sizes = [v.as_int(n, "sizes", minimum=20) for n in sizes]
    if not conditions or not methods or not sizes:
        raise ValueError("conditions, sizes and methods must each name at least one entry")
    replicates = v.as_int(replicates, "replicates", minimum=1)
    level = v.as_open_probability(level, "level")
    nuts = sampler_settings(
        sampler,
        TOY_SAMPLER,
        num_chains=num_chains,
        num_warmup=num_warmup,
        num_samples=num_samples,
        seed=first_seed,
        progress=progress,
    )
    settings = _Settings(
        methods,
        v.as_int(n_bins, "n_bins", minimum=1),
        v.as_int(n_groups, "n_groups", minimum=2),
        level,
        nuts,
    )
    check_executor(executor)
    tasks = [
        (c, n, nuts.seed + r, settings)
        for c in conditions
        for n in sizes
        for r in range(replicates)
    ]
    rows = run_tasks(
        toy_replicate, tasks, executor=executor, progress=nuts.progress, description="toy study"
    )
    return ToyStudy(pd.DataFrame([row for replicate in rows for row in replicate]), level)
