"""Recalibration maps: temperature and Platt scaling, projected histogram binning (paper §5, App. E).

Each family fits one map per row of a target matrix at once (:class:`MapDraws`, used by
:func:`bayescal.posterior_recalibration` for posterior draws) and offers the scikit-learn shell
``fit(scores, targets)`` / ``predict(scores)`` for one map, with fitted attributes ending in
``_``.  The logistic families minimise the corrected log loss with the solver of
:mod:`bayescal.recalibration._solver`; histograms are closed form.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import Result, old_spellings
from ..exceptions import NotFittedError, RecalibrationWarning
from ..metrics import assign_bins, bin_index
from ._solver import GRADIENT_TOLERANCE, MAX_ITERATIONS, minimise

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

    ``sums`` is (S, J), one row per target set; ``counts`` (J,) the items per bin."""
    overall = sums.sum(axis=1, keepdims=True) / counts.sum()
    means = np.where(counts > 0, sums / np.maximum(counts, 1), overall)
    return np.clip(means, 0.0, 1.0)


@dataclass(frozen=True, eq=False, repr=False)
class MapDraws(Result):
    """Maps of one family fitted to S target sets at once (S = 1 for an ordinary fit).

    Attributes
    ----------
    method : str
        ``"temperature"``, ``"platt"`` or ``"histogram"``.
    parameters : dict of str to ndarray
        Fitted parameters, one row per target set: ``temperature`` (S,); ``slope`` and
        ``intercept`` (S,); or ``values`` (S, J) for histograms.
    converged : ndarray of bool, shape (S,)
    on_boundary : ndarray of bool, shape (S,)
        Whether the fit ended on the edge of its parameter box (never for histograms).
    n_iter : ndarray of int, shape (S,)
        Newton iterations (0 for histograms, which are closed form).
    settings : dict
        What prediction needs besides the parameters: ``eps``, or the histogram's ``edges``,
        ``strategy`` and ``counts``.
    """

    method: str
    parameters: dict
    converged: np.ndarray
    on_boundary: np.ndarray
    n_iter: np.ndarray
    settings: dict = field(repr=False)

    @property
    def n_draws(self) -> int:
        return int(self.converged.size)

    def predict(self, scores: np.ndarray, *, rows=slice(None)) -> np.ndarray:
        """Predictions of the maps in ``rows`` for validated ``scores``: shape (len(rows), n)."""
        return FAMILIES[self.method]._predict_parameters(
            {k: p[rows] for k, p in self.parameters.items()}, self.settings, scores
        )

    def map(self, row: int):
        """The fitted map of one target set, as a usable estimator object."""
        return FAMILIES[self.method]._from_parameters(
            {k: p[row] for k, p in self.parameters.items()}, self.settings
        )

    def mean_map(self):
        """The map whose parameters are the means over the target sets (the posterior-mean map)."""
        return FAMILIES[self.method]._from_parameters(
            {k: p.mean(axis=0) for k, p in self.parameters.items()}, self.settings
        )

    def warn(self, subject: str, *, stacklevel: int = 3) -> None:
        """Warn when some fits ended on the parameter box edge or stopped before converging."""
        problems = []
        if self.on_boundary.any():
            where = self.map(int(np.argmax(self.on_boundary)))
            problems.append(
                (f"{int(self.on_boundary.sum())} of {self.n_draws} " if self.n_draws > 1 else "")
                + f"{self.method} fit{'s' if self.n_draws > 1 else ''} ended on the edge of the parameter box "
                f"(e.g. {where!r}; box: {FAMILIES[self.method].BOX}): the corrected loss keeps decreasing "
                "beyond it, typically because the targets lie far outside [0, 1] (check the channels) or "
                "the scores separate them perfectly"
            )
        if not self.converged.all():
            problems.append(
                f"{int((~self.converged).sum())} of {self.n_draws} {self.method} fit(s) stopped after "
                f"{MAX_ITERATIONS} Newton iterations without meeting the gradient tolerance {GRADIENT_TOLERANCE:g}"
            )
        if problems:
            warnings.warn(
                f"{subject}: " + "; ".join(problems), RecalibrationWarning, stacklevel=stacklevel
            )


def fitting_inputs(scores, targets) -> tuple[np.ndarray, np.ndarray]:
    scores = v.as_probabilities(scores, "scores")
    targets = v.as_finite_vector(targets, "targets")
    v.check_same_length(scores, "scores", targets, "targets")
    return scores, targets


def as_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not 0.0 < eps < 0.5:
        raise ValueError(
            f"eps must be a number in (0, 0.5) (the input clipping level); saw {eps!r}"
        )
    return float(eps)


class RecalibrationMap:
    """scikit-learn-like shell shared by the three families: ``fit`` returns self, ``predict``
    returns probabilities, fitted attributes end in ``_``."""

    method: str
    BOX: str

    def fit(self, scores, targets):
        """Fit the map to ``targets`` (clean, corrected or soft labels; any finite reals).

        Parameters
        ----------
        scores : array_like, shape (n,)
            The predictor's scores in [0, 1].
        targets : array_like, shape (n,)
            Fitting targets, e.g. :func:`bayescal.corrected_labels`; they may leave [0, 1].

        Returns
        -------
        self
        """
        scores, targets = fitting_inputs(scores, targets)
        fitted = self.fit_draws(scores, np.arange(scores.size), targets[None, :])
        fitted.warn(type(self).__name__)
        self._adopt(fitted, 0)
        return self

    def fit_draws(self, scores: np.ndarray, cell: np.ndarray, labels: np.ndarray) -> MapDraws:
        """Fit one map of this family and settings per row of ``labels`` (S, G), item i having
        target ``labels[:, cell[i]]`` (the posterior version fits every draw's labels at once)."""
        return self._fit_cells(scores, cell, labels, **self._settings())

    def predict(self, scores) -> np.ndarray:
        """Recalibrated probabilities of ``scores`` (array_like in [0, 1])."""
        if not hasattr(self, "converged_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet: call fit(scores, targets) first"
            )
        scores = v.as_probabilities(scores, "scores")
        return self._predict_parameters(self._fitted_parameters(), self._fitted_settings(), scores)[
            0
        ]

    def _adopt(self, fitted: MapDraws, row: int) -> None:
        for name, values in fitted.parameters.items():
            setattr(self, name + "_", values[row] if values.ndim > 1 else float(values[row]))
        self._restore(fitted.settings)
        self.converged_ = bool(fitted.converged[row])
        self.on_boundary_ = bool(fitted.on_boundary[row])
        self.n_iter_ = int(fitted.n_iter[row])

    def _fitted_parameters(self) -> dict:
        return {name: np.asarray(getattr(self, name + "_"))[None] for name in self.PARAMETERS}

    @classmethod
    def _from_parameters(cls, parameters: dict, settings: dict):
        fitted = cls(**{k: settings[k] for k in cls.CONSTRUCTOR})
        fitted._adopt(
            MapDraws(
                cls.method,
                {k: np.asarray(p)[None, ...] for k, p in parameters.items()},
                np.ones(1, bool),
                np.zeros(1, bool),
                np.zeros(1, np.int64),
                settings,
            ),
            0,
        )
        return fitted

    def _restore(self, settings: dict) -> None:
        """Set the fitted settings that are not parameters (histogram edges); none by default."""

    def to_dict(self) -> dict:
        """The fitted map as plain JSON values; :func:`map_from_dict` rebuilds it."""
        if not hasattr(self, "converged_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet: call fit(scores, targets) first"
            )
        plain = lambda value: np.asarray(value).tolist() if isinstance(value, np.ndarray) else value  # noqa: E731
        return {
            "method": self.method,
            "parameters": {name: plain(getattr(self, name + "_")) for name in self.PARAMETERS},
            "settings": {
                name: plain(value)
                for name, value in {
                    **{k: getattr(self, k) for k in self.CONSTRUCTOR},
                    **self._fitted_settings(),
                }.items()
            },
            "converged": self.converged_,
            "on_boundary": self.on_boundary_,
        }

    def __repr__(self) -> str:
        if not hasattr(self, "converged_"):
            return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self.CONSTRUCTOR)})"
        return f"{type(self).__name__}({self.describe()})"


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
    def _fit_cells(cls, scores, cell, labels, eps) -> MapDraws:
        """Fit one map per row of ``labels`` (S, G); item i has target ``labels[:, cell[i]]``."""
        features = cls._features(scores, eps)
        cell_sums = np.column_stack(
            [np.bincount(cell, weights=f, minlength=labels.shape[1]) for f in features.T]
        )
        moments = labels @ cell_sums / scores.size
        start = cls._start[None, :]
        if labels.shape[0] > 1:
            # Posterior draws give nearby problems: start them all from the mean problem's optimum.
            start = minimise(
                features, moments.mean(axis=0, keepdims=True), cls._lower, cls._upper, start
            ).theta
        solution = minimise(features, moments, cls._lower, cls._upper, start)
        return MapDraws(
            cls.method,
            cls._parameters(solution.theta),
            solution.converged,
            solution.on_boundary,
            solution.n_iter,
            {"eps": eps},
        )

    @classmethod
    def _predict_parameters(
        cls, parameters: dict, settings: dict, scores: np.ndarray
    ) -> np.ndarray:
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
    def __init__(self, *, fit_bins=10, strategy="uniform"):
        self.fit_bins = fit_bins
        self.strategy = strategy

    def _settings(self) -> dict:
        # checks the kind of value now; "auto" is resolved at fit time
        v.as_n_bins(self.fit_bins, 1, "fit_bins")
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
    def _fit_cells(cls, scores, cell, labels, fit_bins, strategy) -> MapDraws:
        """Fit one histogram per row of ``labels`` (S, G); item i has target ``labels[:, cell[i]]``."""
        bins = v.as_n_bins(fit_bins, scores.size, "fit_bins")
        if bins > scores.size:
            raise ValueError(
                f"fit_bins must not exceed the number of fitting items ({scores.size}); saw {bins}"
            )
        index, edges = assign_bins(scores, bins, strategy)
        counts = np.bincount(index, minlength=bins)
        # Items sharing a (cell, bin) pair share a target in every set: sum over those pairs.
        pairs, pair_counts = np.unique(cell * bins + index, return_counts=True)
        pair_cell, pair_bin = np.divmod(pairs, bins)
        sums = np.stack(
            [
                np.bincount(pair_bin, weights=row[pair_cell] * pair_counts, minlength=bins)
                for row in labels
            ]
        )
        n_sets = labels.shape[0]
        return MapDraws(
            cls.method,
            {"values": projected_bin_means(sums, counts)},
            np.ones(n_sets, bool),
            np.zeros(n_sets, bool),
            np.zeros(n_sets, np.int64),
            {"edges": edges, "strategy": strategy, "counts": counts, "fit_bins": bins},
        )

    @classmethod
    def _predict_parameters(cls, parameters, settings, scores):
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
    """Rebuild a fitted map from :meth:`to_dict` output (e.g. the ``map`` of ``bayescal recalibrate``'s map.json)."""
    if not isinstance(document, dict) or not {"method", "parameters", "settings"} <= set(document):
        raise ValueError(
            f"document must be a dict with method, parameters and settings (from to_dict); saw {document!r:.80}"
        )
    family = FAMILIES[v.as_choice(document["method"], "document['method']", METHODS)]
    settings = dict(document["settings"])
    if "n_bins" in settings:  # a map.json written before 0.2 named the fitting bins n_bins
        settings["fit_bins"] = settings.pop("n_bins")
    for name in ("edges", "counts"):
        if name in settings:
            settings[name] = np.asarray(settings[name])
    return family._from_parameters(
        {k: np.asarray(p, dtype=np.float64) for k, p in document["parameters"].items()}, settings
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
