"""Split-sample recalibration by simulation, in the spirit of paper App. G.2.

Each replicate draws ``n`` items with uniform scores, a miscalibrated truth ``m`` (a §6.1
condition) and conditionally independent annotators, builds equal-width score groups, and cuts
the items into independent thirds: channel sample, fitting sample and evaluation sample
(App. E.5).  :func:`bayescal.recalibration.recalibration_study` then fits the channels (grouped EM by default:
two annotators are identified by the score groups, Hui–Walter), the Naive and Corrected maps,
and scores every predictor; the oracle ECE replaces the evaluation labels by ``m(Z)`` (the
paper's Gaussian oracle, App. F.5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _validation as v
from .._api import DEFAULT_N_BINS, old_spellings
from ..channels import Channels, score_groups
from ..data.annotated_scores import AnnotatedScores
from ..recalibration import METHODS, recalibration_study
from ..simulate.panels import TOY_CONDITIONS, simulate_annotated, toy_calibration

__all__ = ["recalibration_simulation"]

#: Two annotators with different error rates (false-positive rate a, sensitivity b).
TWO_ANNOTATORS = Channels([0.10, 0.20], [0.75, 0.90])


@old_spellings()
def recalibration_simulation(
    *,
    replicates=40,
    n=12000,
    channels=TWO_ANNOTATORS,
    condition="shifted",
    n_groups=5,
    methods=METHODS,
    estimator="grouped_em",
    n_bins=DEFAULT_N_BINS,
    first_seed=0,
) -> pd.DataFrame:
    """One row per replicate, method and fit (base, naive, corrected).

    Parameters
    ----------
    replicates : int, default 40
        Seeds ``first_seed, first_seed + 1, ...``.
    n : int, default 12 000
        Items per replicate, cut into thirds (at least 3 x 100).
    channels : Channels, default two annotators a = (0.10, 0.20), b = (0.75, 0.90)
    condition : {"shifted", "nonlinear", "calibrated"}, default "shifted"
        The §6.1 calibration function ``m`` applied to uniform scores.
    n_groups : int, default 5
        Equal-width score groups for the grouped channel estimators.
    methods, estimator, n_bins
        As in :func:`bayescal.recalibration.recalibration_study`.
    first_seed : int, default 0

    Returns
    -------
    pandas.DataFrame
        Columns ``seed``, ``method``, ``fit``, ``nc_ece``, ``soft_vote_ece``, ``oracle_ece``
        and ``map``.
    """
    replicates = v.as_int(replicates, "replicates", minimum=1)
    n = v.as_int(n, "n", minimum=300)
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    calibration = toy_calibration(v.as_choice(condition, "condition", TOY_CONDITIONS))
    n_groups = v.as_int(n_groups, "n_groups", minimum=1)
    first_seed = v.as_seed(first_seed)
    third = n // 3
    tables = []
    for seed in range(first_seed, first_seed + replicates):
        simulation = simulate_annotated(n, channels, calibration=calibration, seed=seed)
        scores = simulation.data.scores
        data = AnnotatedScores(
            scores, simulation.data.annotations, groups=score_groups(scores, n_groups=n_groups)
        )
        channel_part, fit_part, eval_part = (
            data.subset(np.arange(k * third, (k + 1) * third)) for k in range(3)
        )
        study = recalibration_study(
            channel_part,
            fit_part,
            eval_part,
            methods=methods,
            estimator=estimator,
            n_bins=n_bins,
            oracle=calibration(eval_part.scores),
        )
        tables.append(study.table.reset_index().assign(seed=seed))
    table = pd.concat(tables, ignore_index=True)
    return table[["seed", *[c for c in table.columns if c != "seed"]]]
