"""Multi-class recalibration under every posterior draw of the confusion matrices
(:func:`bayescal.bayes.posterior_recalibration` on multi-class data).

Each draw's corrected one-hot labels of the fitting sample (:mod:`bayescal.correction.known_confusions`)
fit one temperature or vector scaling map (:mod:`bayescal.recalibration.class_maps`, within its
box), and each map is scored by the same draw's top-label or classwise NC-ECE on the evaluation
sample, in equal-width bins of its own recalibrated probabilities, with the Bayesian bootstrap
and the debiasing of :func:`bayescal.nc_ece_posterior` (:mod:`bayescal.bayes.class_posterior`).
Beside it, the posterior NC-ECE of the original probabilities (``base``) and of the map fitted
to each item's shares of its labels (``naive``), on the same evaluation sample.  Maps that
stopped on their box's edge, or did not converge, are counted and said in one line.

With gold items in the fitting sample each draw's map minimises the rectified cross-entropy
(:meth:`~bayescal.correction.rectified.RectifiedLoss.of_classes`, one ``lambda`` at the
posterior-mean corrected labels), as :func:`bayescal.recalibrate` does; in the evaluation
sample the base and naive rows' bin means are rectified as :func:`bayescal.nc_ece_posterior`
rectifies them, and each draw's map is scored with the gold items' classes in place of their
corrected labels (the binary posterior recalibration's rule; unlike it, a gold item none of
whose annotators can be inverted is left out of the scoring, as ``nc_ece_posterior`` leaves
it).  With a wrong channel model the recalibrated row, scored against the gold labels, and
the rectified base row are therefore not alike, as for binary data.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_LEVEL, DEFAULT_N_BINS, announce, warn_caller
from ..correction.known_confusions import class_weights
from ..correction.rectified import RectifiedLoss
from ..data.annotated_scores import warn_of_shared_items
from ..exceptions import RecalibrationWarning
from ..metrics.classes import CALIBRATION_KINDS
from ..recalibration import DEFAULT_EPS
from ..recalibration.class_maps import CLASS_MAPS, CLASS_METHODS
from .class_posterior import (
    ClassPosteriorECE,
    DrawCorrections,
    check_class_data,
    draw_moments,
    gold_draw_moments,
    kept_draws,
    summarised,
    warn_if_prior_pulls,
)
from .posterior_ece import UNCERTAINTY, PosteriorRecalibration

__all__ = ["ClassMapDraws", "class_posterior_recalibration"]

#: Maps fitted per draw above which the fit says what it is doing.
ANNOUNCED_MAPS = 500


class ClassMapDraws(NamedTuple):
    """The maps fitted under every draw: their parameters by name (``temperature`` (S,), or
    ``scales`` (S, C) and ``biases`` (S, C - 1)), and which stopped on the box's edge or did
    not converge (S,)."""

    parameters: dict
    on_boundary: np.ndarray
    converged: np.ndarray


def _fitted_maps(method, eps, corrections: DrawCorrections, fit_data) -> list:
    """One map per draw, fitted quietly to the draw's corrected labels of the labelled items;
    with gold items, to the rectified targets of every item (the rectified cross-entropy,
    :meth:`~bayescal.correction.rectified.RectifiedLoss.of_classes`, as
    :func:`bayescal.recalibrate` fits it), one loss for all draws, its ``lambda`` at the
    posterior-mean corrected labels (any ``lambda`` keeps the loss unbiased)."""
    family = CLASS_MAPS[method]
    labelled = corrections.labelled
    if fit_data.n_gold:
        mean = (
            sum(corrected.sum(axis=0) for _, corrected in corrections.chunks())
            / corrections.n_draws
        )
        every = np.zeros((fit_data.n_items, fit_data.n_classes))
        every[labelled] = mean
        loss = RectifiedLoss.of_classes(every, labelled, fit_data.gold, fit_data.gold_weights)

        weighs = loss.weighing(labelled)  # the rows of zero mass left out, as recalibrate does

        def targets_of(corrected):
            every[labelled] = corrected
            return (loss.rectified(every.T).T * fit_data.n_items)[weighs]  # mean mass about 1

        x = family(eps=eps).log_probabilities(fit_data.probabilities[weighs])
    else:

        def targets_of(corrected):
            return corrected

        x = family(eps=eps).log_probabilities(fit_data.probabilities[labelled])
    return [
        family(eps=eps).solve(x, targets_of(targets))
        for _, corrected in corrections.chunks()
        for targets in corrected
    ]


class _GoldLabelled(NamedTuple):
    """Draw corrections whose gold items are scored against their gold class (the
    model-based targets, as the binary posterior recalibration scores its maps): what
    :func:`~bayescal.bayes.class_posterior.draw_moments` reads of a ``DrawCorrections``."""

    corrections: DrawCorrections
    one_hot: np.ndarray  # (n_labelled, C), rows of the gold items
    known: np.ndarray  # (n_labelled,)

    @property
    def n_items(self) -> int:
        return self.corrections.n_items

    @property
    def n_draws(self) -> int:
        return self.corrections.n_draws

    @property
    def confusion(self) -> np.ndarray:
        return self.corrections.confusion

    def chunks(self):
        for rows, corrected in self.corrections.chunks():
            yield rows, np.where(self.known[:, None], self.one_hot, corrected)

    @classmethod
    def of(cls, corrections: DrawCorrections, data) -> _GoldLabelled:
        gold = data.gold[corrections.labelled].astype(np.int64)
        known = gold != v.MISSING
        return cls(corrections, np.eye(data.n_classes)[np.where(known, gold, 0)], known)


def _map_draws(method: str, maps: list, n_classes: int) -> ClassMapDraws:
    """The parameters and flags of the per-draw maps, the edge and convergence said once."""
    theta = np.stack([fitted.parameters() for fitted in maps])
    parameters = (
        {"temperature": theta[:, 0]}
        if method == "temperature"
        else {"scales": theta[:, :n_classes], "biases": theta[:, n_classes:]}
    )
    draws = ClassMapDraws(
        parameters,
        np.array([fitted.on_boundary_ for fitted in maps]),
        np.array([fitted.converged_ for fitted in maps]),
    )
    problems = []
    if draws.on_boundary.any():
        problems.append(f"{int(draws.on_boundary.sum())} stopped on the box's edge")
    if not draws.converged.all():
        problems.append(f"{int((~draws.converged).sum())} did not converge")
    if problems:
        warn_caller(
            f"posterior_recalibration: of the {len(maps)} {method} maps fitted per draw, "
            + " and ".join(problems)
            + " (with corrected labels outside the simplex the cross-entropy can fall without "
            "bound; those maps are the edge's)",
            RecalibrationWarning,
        )
    return draws


def class_posterior_recalibration(
    fit_data,
    eval_data,
    fit,
    *,
    method="temperature",
    kind="top_label",
    weights="iv",
    n_bins=DEFAULT_N_BINS,
    level=DEFAULT_LEVEL,
    uncertainty="total",
    tolerance=0.01,
    eps=DEFAULT_EPS,
    seed=0,
    max_draws=None,
):
    """What :func:`bayescal.bayes.posterior_recalibration` computes for multi-class data
    (module docstring): a :class:`~bayescal.bayes.PosteriorRecalibration` whose ``maps`` is a
    :class:`ClassMapDraws` and whose NC-ECEs are
    :class:`~bayescal.bayes.class_posterior.ClassPosteriorECE` of ``kind``."""
    positions = check_class_data(fit_data, fit, "fit_data")
    check_class_data(eval_data, fit, "eval_data")
    # one weight per annotator serves both samples: the same annotators in one order
    v.check_same_annotators(
        eval_data.annotator_names, fit_data.annotator_names, "eval_data", "fit_data"
    )
    method = v.as_choice(method, "method", CLASS_METHODS)
    kind = v.as_choice(kind, "kind", CALIBRATION_KINDS)
    weights = class_weights(weights, fit_data.n_annotators)
    n_bins = v.as_n_bins(n_bins, eval_data.n_items, refuse_sparse=v.SPARSE_DRAWS)
    level = v.as_open_probability(level, "level")
    uncertainty = v.as_choice(uncertainty, "uncertainty", UNCERTAINTY)
    tolerance = v.as_probability(tolerance, "tolerance")
    seed = v.as_seed(seed)
    warn_of_shared_items(
        fit_data.item_ids, "fit_data", eval_data.item_ids, "eval_data", "posterior_recalibration"
    )

    warn_if_prior_pulls(fit, fit_data, "model", "posterior_recalibration")
    # the two samples have the same annotators in one order (checked above): one set of draws
    confusion, proportion = kept_draws(fit, positions, max_draws)
    fitting = DrawCorrections(fit_data, confusion, proportion, weights)
    announce(
        f"posterior_recalibration: fitting a {method} map to each of {fitting.n_draws} draws",
        fitting.n_draws > ANNOUNCED_MAPS,
    )
    maps = _fitted_maps(method, eps, fitting, fit_data)
    map_draws = _map_draws(method, maps, fit_data.n_classes)

    scoring = DrawCorrections(eval_data, confusion, proportion, weights)
    evaluated = eval_data.probabilities[scoring.labelled]

    def recalibrated_probabilities(rows: slice) -> np.ndarray:
        return np.stack([maps[draw].predict(evaluated) for draw in range(rows.start, rows.stop)])

    family = CLASS_MAPS[method]
    votes = np.stack(
        [(fit_data.annotations == k).sum(axis=1) for k in range(fit_data.n_classes)], axis=1
    )
    naive_map = family(eps=eps).fit(
        fit_data.probabilities, votes / votes.sum(axis=1, keepdims=True)
    )

    def posterior(probabilities) -> ClassPosteriorECE:
        # every row scored on the same evaluation items and draws, from one seed: the base
        # row is nc_ece_posterior(eval_data, fit, strategy="uniform", ...) to the last digit
        # (with gold, its rectified bin means, whose bootstrap draws differ from the other
        # rows'); each draw's own map's probabilities are scored with the gold items'
        # classes in place of their corrected labels
        if callable(probabilities):
            targets = _GoldLabelled.of(scoring, eval_data) if eval_data.n_gold else scoring
            pushed = draw_moments(
                targets,
                probabilities,
                kind,
                n_bins,
                "uniform",
                uncertainty,
                np.random.default_rng(seed),
            )
        elif eval_data.n_gold:
            pushed = gold_draw_moments(
                scoring,
                replace(eval_data, scores=probabilities),
                kind,
                n_bins,
                "uniform",
                uncertainty,
                seed,
                "rectified",
            )
        else:
            pushed = draw_moments(
                scoring,
                probabilities[scoring.labelled],
                kind,
                n_bins,
                "uniform",
                uncertainty,
                np.random.default_rng(seed),
            )
        return summarised(pushed, kind, eval_data.classes, uncertainty, level, tolerance)

    mean_theta = np.mean([fitted.parameters() for fitted in maps], axis=0)
    return PosteriorRecalibration(
        method=method,
        maps=map_draws,
        map=family.with_parameters(mean_theta, fit_data.n_classes, eps=eps),
        recalibrated=posterior(recalibrated_probabilities),
        base=posterior(eval_data.probabilities),
        naive=posterior(naive_map.predict(eval_data.probabilities)),
        naive_map=naive_map,
    )
