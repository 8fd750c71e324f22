"""How the model checks behave on simulated data: their p-values when the model is true, and
how often they flag a pair of annotators that share errors.

Each replicate simulates K annotators with :func:`bayescal.simulate.simulate_dependent` (with
``shared_error=0`` the data come from the Dawid–Skene model itself), fits the Bayesian
Dawid–Skene model with flat priors (one compiled sampler on the complete pattern layout serves
every replicate), and runs :func:`bayescal.bayes.check_model`.
"""

from __future__ import annotations

import pandas as pd
from tqdm import tqdm

from .. import _validation as v
from .._api import DEFAULT_LEVEL, old_spellings
from ..bayes.checks import check_model
from ..bayes.priors import Priors
from ..bayes.sampler import Sampler
from ..bayes.sampler_settings import SamplerSettings, sampler_settings
from ..channels import Channels
from ..simulate.panels import simulate_dependent

__all__ = ["FIVE_ANNOTATORS", "model_check_study"]

#: Five annotators; with K = 5 the marginal model has 31 free cells for 11 parameters.
FIVE_ANNOTATORS = Channels([0.10, 0.15, 0.20, 0.10, 0.15], [0.85, 0.90, 0.80, 0.85, 0.90])


@old_spellings(renamed={"interval": "level"})
def model_check_study(
    *,
    replicates=100,
    n=2000,
    channels=FIVE_ANNOTATORS,
    shared_error=0.0,
    pair=(0, 1),
    level=DEFAULT_LEVEL,
    sampler=None,
    num_chains=None,
    num_warmup=None,
    num_samples=None,
    first_seed=None,
    progress=None,
) -> pd.DataFrame:
    """The :func:`~bayescal.bayes.check_model` table of every replicate, with a ``seed`` column.

    Parameters
    ----------
    replicates : int, default 100
    n : int, default 2000
        Items per replicate (every annotator labels every item).
    channels : Channels, default :data:`FIVE_ANNOTATORS`
    shared_error, pair
        As in :func:`bayescal.simulate.simulate_dependent`; 0 simulates the model itself.
    level : float in (0, 1), default 0.9
        Passed to ``check_model``.
    sampler : SamplerSettings, optional
        NUTS settings of every fit; default
        ``SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, progress=False)``.
        ``progress`` shows a bar over the replicates.
    num_chains, num_warmup, num_samples, progress : optional
        A field of ``sampler`` given as a keyword, in its place.
    first_seed : int, optional
        ``sampler``'s ``seed`` (0 unless it says otherwise) given as a keyword: replicate ``r``
        uses seed ``first_seed + r``
        for the data, the sampler and the check.
    """
    replicates = v.as_int(replicates, "replicates", minimum=1)
    n = v.as_int(n, "n", minimum=1)
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    settings = sampler_settings(
        sampler,
        SamplerSettings(num_chains=2, num_warmup=500, num_samples=500, progress=False),
        num_chains=num_chains,
        num_warmup=num_warmup,
        num_samples=num_samples,
        seed=first_seed,
        progress=progress,
    )
    # Every replicate is fitted on the complete layout (all 2^K patterns), so the sampler compiles once.
    sampler = Sampler.for_complete_layout(channels.n_annotators, settings)
    priors = Priors()
    tables = []
    seeds = range(settings.seed, settings.seed + replicates)
    for seed in tqdm(seeds, desc="model checks", disable=not settings.progress, leave=False):
        data = simulate_dependent(n, channels, pair=pair, shared_error=shared_error, seed=seed).data
        fit = sampler.fit(data.compress(), priors, seed)
        tables.append(check_model(data, fit, level=level, seed=seed).table.assign(seed=seed))
    return pd.concat(tables, ignore_index=True)
