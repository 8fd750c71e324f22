"""Coverage of the posterior NC-ECE intervals on the paper's toy study (§6.1).

Each replicate simulates the toy data, fits the Bayesian Dawid–Skene model with flat priors
(one compiled sampler serves every replicate), and records whether each kind of interval of
:func:`bayescal.nc_ece_posterior` covers the *population binned ECE*
``sum_l |E[(m(Z) - Z) 1{Z in B_l}]|``, integrated from the simulator.
"""

from __future__ import annotations

import pandas as pd
from tqdm import tqdm

from .. import _validation as v
from .._api import DEFAULT_LEVEL, old_spellings
from ..bayes.posterior import UNCERTAINTY, nc_ece_posterior
from ..bayes.priors import Priors
from ..bayes.sampler import Sampler
from ..bayes.sampler_settings import SamplerSettings, sampler_settings
from ..simulate.panels import TOY_CHANNELS, TOY_CONDITIONS, toy_data


@old_spellings(renamed={"interval": "level"})
def posterior_coverage(
    *,
    condition="shifted",
    replicates=100,
    n=8000,
    n_bins=10,
    level=DEFAULT_LEVEL,
    first_seed=None,
    sampler=None,
    num_chains=None,
    num_warmup=None,
    num_samples=None,
    progress=None,
) -> pd.DataFrame:
    """One row per replicate and uncertainty kind: the interval, the target and whether it covers.

    Parameters
    ----------
    condition : {"calibrated", "shifted", "nonlinear"}
    replicates : int
        Seeds ``first_seed, first_seed + 1, ...`` (the data and the sampler use the same seed).
    n, n_bins, level
        Sample size, equal-width evaluation bins and credible level.
    first_seed : int, optional
        ``sampler``'s ``seed`` (0 unless it says otherwise) given as a keyword.
    sampler : SamplerSettings, optional
        NUTS settings of every fit; default
        ``SamplerSettings(num_warmup=500, num_samples=1000, progress=False)``.  ``progress``
        shows a bar over the replicates.
    num_chains, num_warmup, num_samples, progress : optional
        A field of ``sampler`` given as a keyword, in its place.

    Returns
    -------
    pandas.DataFrame
        Columns ``seed, uncertainty, target, lower, upper, median, covered, lower_below_0.005``.
    """
    condition = v.as_choice(condition, "condition", TOY_CONDITIONS)
    replicates = v.as_int(replicates, "replicates", minimum=1)
    settings = sampler_settings(
        sampler,
        SamplerSettings(num_warmup=500, num_samples=1000, progress=False),
        num_chains=num_chains,
        num_warmup=num_warmup,
        num_samples=num_samples,
        seed=first_seed,
        progress=progress,
    )
    priors = Priors()
    sampler = Sampler.for_complete_layout(TOY_CHANNELS.n_annotators, settings)
    rows = []
    seeds = range(settings.seed, settings.seed + replicates)
    for seed in tqdm(seeds, desc="coverage", disable=not settings.progress, leave=False):
        simulation = toy_data(n, condition=condition, seed=seed)
        fit = sampler.fit(simulation.data.compress(), priors, seed)
        target = simulation.population_binned_ece(n_bins)
        for uncertainty in UNCERTAINTY:
            result = nc_ece_posterior(
                simulation.data,
                fit,
                n_bins=n_bins,
                level=level,
                uncertainty=uncertainty,
                seed=seed,
            )
            lower, upper = result.interval
            rows.append(
                {
                    "seed": seed,
                    "uncertainty": uncertainty,
                    "target": target,
                    "lower": lower,
                    "upper": upper,
                    "median": result.median,
                    "covered": lower <= target <= upper,
                    "lower_below_0.005": lower <= 0.005,
                }
            )
    return pd.DataFrame(rows)
