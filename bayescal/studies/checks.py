"""How the model checks behave on simulated data: their p-values when the model is true, and
how often they flag a pair of annotators that share errors.

Each replicate simulates K annotators with :func:`bayescal.simulate.simulate_dependent` (with
``shared_error=0`` the data come from the Dawid–Skene model itself), fits the Bayesian
Dawid–Skene model with flat priors (one compiled sampler on the complete pattern layout serves
every replicate), and runs :func:`bayescal.bayes.check_model`.
"""

from __future__ import annotations

import pandas as pd

from .. import _validation as v
from .._api import DEFAULT_LEVEL, old_spellings
from ..bayes.checks import check_model
from ..bayes.priors import Priors
from ..bayes.sampler import Sampler
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
    num_chains=2,
    num_warmup=500,
    num_samples=500,
    first_seed=0,
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
    num_chains, num_warmup, num_samples : int
        NUTS settings of every fit.
    first_seed : int
        Replicate ``r`` uses seed ``first_seed + r`` for the data, the sampler and the check.
    """
    replicates = v.as_int(replicates, "replicates", minimum=1)
    n = v.as_int(n, "n", minimum=1)
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    first_seed = v.as_seed(first_seed)
    # Every replicate is fitted on the complete layout (all 2^K patterns), so the sampler compiles once.
    sampler = Sampler.for_complete_layout(
        channels.n_annotators, num_chains, num_warmup, num_samples
    )
    priors = Priors()
    tables = []
    for seed in range(first_seed, first_seed + replicates):
        data = simulate_dependent(n, channels, pair=pair, shared_error=shared_error, seed=seed).data
        fit = sampler.fit(data.compress(), priors, seed)
        tables.append(check_model(data, fit, level=level, seed=seed).table.assign(seed=seed))
    return pd.concat(tables, ignore_index=True)
