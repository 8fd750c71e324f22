"""Recalibration maps: temperature and Platt scaling, projected histogram binning (paper §5, App. E).

Each family fits one map per row of a target matrix at once (:class:`MapDraws`, used by
:func:`bayescal.bayes.posterior_recalibration` for posterior draws) and offers the scikit-learn shell
``fit(scores, targets)`` / ``predict(scores)`` for one map, with fitted attributes ending in
``_``.  The logistic families minimise the corrected log loss with the solver of
:mod:`bayescal.recalibration._solver`; histograms are closed form.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import DEFAULT_FIT_BINS, old_spellings, warn_caller
from ..correction.target_draws import TargetDraws
from ..exceptions import RecalibrationWarning
from ..metrics.calibration import assign_bins, bin_index
from ._base import MapDraws, RecalibrationMap, as_eps
from ._solver import item_shares, minimise

__all__ = [
    "DEFAULT_EPS",
    "FAMILIES",
    "METHODS",
    "HistogramBinning",
    "MapDraws",
    "PlattScaling",
    "TemperatureScaling",
    "make_map",
    "map_from_dict",
]

#: Map families, in the order the paper lists them.
METHODS = ("temperature", "platt", "histogram")
#: Default input clipping: logits stay within +-13.8.
DEFAULT_EPS = 1e-6


def projected_bin_means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bin means of the targets projected onto [0, 1]; an empty bin takes the projected overall mean.

    ``sums`` is (S, J), one row per target set; ``counts`` the items per bin, (J,) or per set
    (S, J), or their total weights in a weighted fit (any positive total, below 1 too)."""
    totals = counts.sum(axis=-1, keepdims=True)
    overall = sums.sum(axis=1, keepdims=True) / np.where(totals > 0, totals, 1.0)
    means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), overall)
    return np.clip(means, 0.0, 1.0)


def _per_bin(flat: np.ndarray, values: np.ndarray, size: int, bins: int) -> np.ndarray:
    """Sums (size, bins) of ``values`` (size, n) by the bin of each draw and item, ``flat``
    their flattened (draw, bin) index."""
    return np.bincount(flat, np.ravel(values), size * bins).reshape(size, bins)


class LogisticScaling(RecalibrationMap):
    """Temperature and Platt scaling: ``sigma(theta . x(s))`` with box-constrained ``theta``."""

    CONSTRUCTOR = ("eps",)
    _lower: np.ndarray
    _upper: np.ndarray
    _start: np.ndarray

    @old_spellings()
    def __init__(self, *, eps=DEFAULT_EPS):
        self.eps = eps

    def _settings(self) -> dict:
        return {"eps": as_eps(self.eps)}

    _fitted_settings = _settings  # prediction needs only the clipping level

    @classmethod
    def _features(cls, scores: np.ndarray, eps: float) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def _theta(cls, parameters: dict) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def _parameters(cls, theta: np.ndarray) -> dict:
        raise NotImplementedError

    @classmethod
    def _fit_draws(cls, scores, targets: TargetDraws, eps) -> MapDraws:
        """Fit one map per draw of ``targets``, each on the items with a target in its draw
        (weighted by ``targets.weights``, if given)."""
        features = cls._features(scores, eps)
        # the items that weigh are the ones whose scores must tell the parameters apart
        weighs = slice(None) if targets.weights is None else targets.weights > 0
        cls._warn_unidentified(features[weighs])
        moments = np.empty((targets.n_draws, features.shape[1]))
        has_target = None
        for rows, values, has in targets.chunks():
            if has is not None:
                if has_target is None:
                    has_target = np.ones((targets.n_draws, scores.size), dtype=bool)
                has_target[rows] = has
            shares = item_shares(has, targets.weights, scores.size)
            moments[rows] = (shares * values) @ features
        if has_target is not None and has_target.all():
            has_target = None  # the means over every item are cheaper
        start = cls._start[None, :]
        if targets.n_draws > 1:
            # Posterior draws give nearby problems: start them all from the mean problem's optimum.
            start = minimise(
                features,
                moments.mean(axis=0, keepdims=True),
                cls._lower,
                cls._upper,
                start,
                weights=targets.weights,
            ).theta
        solution = minimise(
            features, moments, cls._lower, cls._upper, start, has_target, targets.weights
        )
        return MapDraws(
            cls,
            cls._parameters(solution.theta),
            solution.converged,
            solution.on_boundary,
            solution.n_iter,
            {"eps": eps},
        )

    @classmethod
    def _warn_unidentified(cls, features: np.ndarray) -> None:
        """Warn when the scores cannot tell the parameters apart: the features' Gram matrix is
        singular.  Scores that are all 0.5 (logit 0) leave the temperature free, and scores of
        one value leave Platt's slope and intercept free in all but their sum; the solver then
        stops wherever it started, and the parameters it reports mean nothing."""
        gram = features.T @ features
        if np.linalg.matrix_rank(gram) == gram.shape[0]:
            return
        warn_caller(
            # both families' first feature is the clipped score's logit
            f"{cls.__name__}: every score is {special.expit(features[0, 0]):g}, so the scores do not identify the "
            f"map's {' and '.join(cls.PARAMETERS)}: the map predicts one value for every score, "
            "and its parameters are not an estimate",
            RecalibrationWarning,
        )

    @classmethod
    def predict_with(cls, parameters: dict, settings: dict, scores: np.ndarray) -> np.ndarray:
        return special.expit(cls._theta(parameters) @ cls._features(scores, settings["eps"]).T)


def clipped_logits(scores: np.ndarray, eps: float) -> np.ndarray:
    """``s = logit(clip(z, eps, 1 - eps))`` (App. E.2)."""
    return special.logit(np.clip(scores, eps, 1.0 - eps))


class TemperatureScaling(LogisticScaling):
    """Temperature scaling ``g(z) = sigma(logit(z) / T)``, ``0.05 <= T <= 20`` (paper App. E.2; Guo et al. 2017).

    Fitted by the corrected log loss (module docstring) over ``1/T`` in [0.05, 20], where
    the loss is convex.

    Parameters
    ----------
    eps : float in (0, 0.5), default 1e-6
        Scores are clipped to ``[eps, 1 - eps]`` before the logit.

    Attributes
    ----------
    temperature_ : float
    converged_, on_boundary_ : bool
    n_iter_ : int

    Examples
    --------
    >>> z = np.array([0.1, 0.3, 0.6, 0.9]); y = np.array([0, 1, 0, 1])
    >>> 0.05 <= TemperatureScaling().fit(z, y).temperature_ <= 20
    True
    """

    method = "temperature"
    PARAMETERS = ("temperature",)
    BOX = "0.05 <= temperature <= 20"
    # The solver works with theta = 1/T, in which the loss is convex.
    _lower, _upper, _start = np.array([0.05]), np.array([20.0]), np.array([1.0])

    @classmethod
    def _features(cls, scores, eps):
        return clipped_logits(scores, eps)[:, None]

    @classmethod
    def _theta(cls, parameters):
        return 1.0 / np.asarray(parameters["temperature"]).reshape(-1, 1)

    @classmethod
    def _parameters(cls, theta):
        return {"temperature": 1.0 / theta[:, 0]}

    def describe(self) -> str:
        return f"temperature={self.temperature_:.4g}"


class PlattScaling(LogisticScaling):
    """Platt scaling ``g(z) = sigma(u logit(z) + v)``, ``-10 <= u, v <= 10`` (paper App. E.2; Platt 1999).

    Fitted by the corrected log loss (module docstring).  Platt's own method fits decision
    values with smoothed targets; pass those targets to reproduce it.

    Parameters
    ----------
    eps : float in (0, 0.5), default 1e-6
        Scores are clipped to ``[eps, 1 - eps]`` before the logit.

    Attributes
    ----------
    slope_, intercept_ : float
        ``u`` and ``v``.
    converged_, on_boundary_ : bool
    n_iter_ : int
    """

    method = "platt"
    PARAMETERS = ("slope", "intercept")
    BOX = "-10 <= slope, intercept <= 10"
    _lower, _upper, _start = np.array([-10.0, -10.0]), np.array([10.0, 10.0]), np.array([1.0, 0.0])

    @classmethod
    def _features(cls, scores, eps):
        logits = clipped_logits(scores, eps)
        return np.column_stack([logits, np.ones_like(logits)])

    @classmethod
    def _theta(cls, parameters):
        return np.column_stack(
            [
                np.asarray(parameters["slope"]).reshape(-1),
                np.asarray(parameters["intercept"]).reshape(-1),
            ]
        )

    @classmethod
    def _parameters(cls, theta):
        return {"slope": theta[:, 0].copy(), "intercept": theta[:, 1].copy()}

    def describe(self) -> str:
        return f"slope={self.slope_:.4g}, intercept={self.intercept_:.4g}"


class HistogramBinning(RecalibrationMap):
    """Projected histogram binning (paper §5, App. E.3; Gupta and Ramdas 2021).

    ``J`` bins of the original score; the value of bin ``h`` is ``clip(mean of the targets in
    h, 0, 1)``, and an empty bin gets ``clip(mean of all targets, 0, 1)``.

    Parameters
    ----------
    fit_bins : int or "auto", default 10
        Number of fitting bins ``J`` (``"auto"`` = round(n^(1/3))); at most the number of items.
        (``n_bins`` always means evaluation bins in bayescal.)
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins, or equal-mass bins of the fitting scores (edges kept for prediction).

    Attributes
    ----------
    values_ : ndarray, shape (J,)
    edges_ : ndarray, shape (J + 1,)
    counts_ : ndarray of int, shape (J,)
        Fitting items per bin.
    """

    method = "histogram"
    PARAMETERS = ("values",)
    CONSTRUCTOR = ("fit_bins", "strategy")
    BOX = "values in [0, 1] by projection"

    @old_spellings(renamed={"n_bins": "fit_bins"})
    def __init__(self, *, fit_bins=DEFAULT_FIT_BINS, strategy="uniform"):
        self.fit_bins = fit_bins
        self.strategy = strategy

    def _settings(self) -> dict:
        # checks the kind of value now; "auto" is resolved at fit time
        v.as_n_bins(self.fit_bins, None, "fit_bins")
        return {
            "fit_bins": self.fit_bins,
            "strategy": v.as_choice(self.strategy, "strategy", v.BIN_STRATEGIES),
        }

    def _fitted_settings(self) -> dict:
        return {"edges": self.edges_, "strategy": self.strategy, "counts": self.counts_}

    def _restore(self, settings: dict) -> None:
        self.edges_ = settings["edges"]
        self.counts_ = settings["counts"]

    @classmethod
    def _fit_draws(cls, scores, targets: TargetDraws, fit_bins, strategy) -> MapDraws:
        """Fit one histogram per draw of ``targets``, each on the items with a target in its
        draw (each bin's mean weighted by ``targets.weights``, if given)."""
        bins = v.as_n_bins(fit_bins, scores.size, "fit_bins", refuse_sparse=v.SPARSE_HISTOGRAM)
        index, edges = assign_bins(scores, bins, strategy)
        shared = np.ones(scores.size) if targets.weights is None else targets.weights
        sums = np.empty((targets.n_draws, bins))
        # items per bin (what the map records) and their total weight (what the means divide by)
        draw_counts = np.broadcast_to(np.bincount(index, minlength=bins), sums.shape) * 1.0
        draw_weights = np.broadcast_to(np.bincount(index, shared, minlength=bins), sums.shape) * 1.0
        for rows, values, has in targets.chunks():
            size = values.shape[0]
            flat = (index + bins * np.arange(size)[:, None]).ravel()
            weight = shared if has is None else has * shared
            if has is not None:
                draw_counts[rows] = _per_bin(flat, has, size, bins)
                draw_weights[rows] = _per_bin(flat, weight, size, bins)
            sums[rows] = _per_bin(flat, weight * values, size, bins)
        n_sets = targets.n_draws
        return MapDraws(
            cls,
            {"values": projected_bin_means(sums, draw_weights)},
            np.ones(n_sets, bool),
            np.zeros(n_sets, bool),
            np.zeros(n_sets, np.int64),
            {
                "edges": edges,
                "strategy": strategy,
                # a crowd's draws differ in which items have a target: their mean, rounded
                "counts": np.rint(draw_counts.mean(axis=0)).astype(np.int64),
                "fit_bins": bins,
            },
        )

    @classmethod
    def predict_with(cls, parameters, settings, scores):
        return np.asarray(parameters["values"])[
            :, bin_index(scores, settings["edges"], settings["strategy"])
        ]

    def describe(self) -> str:
        return (
            f"fit_bins={self.values_.size}, values=[{', '.join(f'{x:.3f}' for x in self.values_)}]"
        )


FAMILIES = {
    "temperature": TemperatureScaling,
    "platt": PlattScaling,
    "histogram": HistogramBinning,
}


def map_from_dict(document):
    """Rebuild a fitted map from a map's ``to_dict()`` output (e.g. the ``map`` of ``bayescal
    recalibrate``'s map.json), refusing one whose parameters or settings no fit could give: a
    parameter missing or not a finite number, a temperature not above 0, histogram values
    outside [0, 1] or not one per bin of edges that rise within [0, 1]."""
    if not isinstance(document, dict) or not {"method", "parameters", "settings"} <= set(document):
        raise ValueError(
            f"document must be a dict with method, parameters and settings (from to_dict); saw {document!r:.80}"
        )
    family = FAMILIES[v.as_choice(document["method"], "document['method']", METHODS)]
    parameters, settings = document["parameters"], document["settings"]
    if not isinstance(parameters, dict) or set(parameters) != set(family.PARAMETERS):
        raise ValueError(
            f"document['parameters'] must hold {', '.join(family.PARAMETERS)} for a "
            f"{document['method']} map; saw {parameters!r:.80}"
        )
    if not isinstance(settings, dict):
        raise ValueError(f"document['settings'] must be a dict; saw {settings!r:.80}")
    settings = dict(settings)
    if "n_bins" in settings:  # a map.json written before 0.2 named the fitting bins n_bins
        settings["fit_bins"] = settings.pop("n_bins")
    arrays = {
        name: _finite(value, f"document['parameters']['{name}']")
        for name, value in parameters.items()
    }
    missing = [name for name in family.CONSTRUCTOR if name not in settings]
    if missing:
        raise ValueError(f"document['settings'] lacks {', '.join(missing)}")
    if family is HistogramBinning:
        _check_histogram(arrays["values"], settings)
        v.as_choice(settings["strategy"], "document['settings']['strategy']", v.BIN_STRATEGIES)
        v.as_n_bins(settings["fit_bins"], None, "document['settings']['fit_bins']")
    else:
        for name, array in arrays.items():
            if array.ndim != 0:
                raise ValueError(
                    f"document['parameters']['{name}'] must be one number; saw {array.tolist()!r:.80}"
                )
        as_eps(settings["eps"])
        if family is TemperatureScaling and not arrays["temperature"] > 0:
            raise ValueError(
                "document['parameters']['temperature'] must be above 0; saw "
                f"{float(arrays['temperature'])}"
            )
    return family.from_parameters(arrays, settings)


def _finite(value, name: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers; saw {value!r:.80}") from None
    if array.size == 0 or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite numbers; saw {value!r:.80}")
    return array


def _check_histogram(values: np.ndarray, settings: dict) -> None:
    """A histogram's ``values`` and ``settings`` (edges, counts, made arrays here) as a fit
    leaves them."""
    for name in ("edges", "counts"):
        if name not in settings:
            raise ValueError(f"document['settings'] lacks {name}")
        settings[name] = _finite(settings[name], f"document['settings']['{name}']")
    edges = settings["edges"]
    if (
        edges.ndim != 1
        or edges.size < 2
        or np.any(np.diff(edges) < 0)  # tied scores repeat a quantile edge
        or edges[0] < 0.0
        or edges[-1] > 1.0
    ):
        raise ValueError(
            "document['settings']['edges'] must rise within [0, 1]; saw "
            f"{np.round(edges, 4).tolist()!r:.80}"
        )
    if values.shape != (edges.size - 1,) or values.min() < 0.0 or values.max() > 1.0:
        raise ValueError(
            f"document['parameters']['values'] must be {edges.size - 1} numbers in [0, 1], one "
            f"per bin; saw {np.round(values, 4).tolist()!r:.80}"
        )


def make_map(method: str, *, fit_bins, strategy, eps):
    """An unfitted map of ``method`` whose settings are validated now (errors name the argument)."""
    method = v.as_choice(method, "method", METHODS)
    made = (
        HistogramBinning(fit_bins=fit_bins, strategy=strategy)
        if method == "histogram"
        else FAMILIES[method](eps=eps)
    )
    made._settings()
    return made
