"""What every recalibration map shares: the draws of one family fitted to many target sets
(:class:`MapDraws`) and the scikit-learn-like shell of one fitted map (:class:`RecalibrationMap`).
The families themselves are in :mod:`bayescal.recalibration.maps`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as v
from .._api import Result, warn_caller
from ..correction.target_draws import TargetDraws
from ..exceptions import NotFittedError, RecalibrationWarning
from ._solver import GRADIENT_TOLERANCE, MAX_ITERATIONS

__all__ = ["MapDraws", "RecalibrationMap", "as_eps", "as_sample_weight", "fitting_inputs"]


@dataclass(frozen=True, eq=False, repr=False)
class MapDraws(Result):
    """Maps of one family fitted to S target sets at once (S = 1 for an ordinary fit).

    Attributes
    ----------
    family : type
        The map's class (:class:`~bayescal.recalibration.TemperatureScaling`, ...), whose
        ``predict_with`` and ``from_parameters`` rebuild the fitted maps.
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

    family: type
    parameters: dict
    converged: np.ndarray
    on_boundary: np.ndarray
    n_iter: np.ndarray
    settings: dict = field(repr=False)

    @property
    def method(self) -> str:
        """``"temperature"``, ``"platt"`` or ``"histogram"``."""
        return self.family.method

    @property
    def n_draws(self) -> int:
        return int(self.converged.size)

    def predict(self, scores: np.ndarray, *, rows=slice(None)) -> np.ndarray:
        """Predictions of the maps in ``rows`` for validated ``scores``: shape (len(rows), n)."""
        return self.family.predict_with(
            {k: p[rows] for k, p in self.parameters.items()}, self.settings, scores
        )

    def map(self, row: int):
        """The fitted map of one target set, as a usable estimator object."""
        return self.family.from_parameters(
            {k: p[row] for k, p in self.parameters.items()}, self.settings
        )

    def mean_map(self):
        """The map whose parameters are the means over the target sets (the posterior-mean map)."""
        return self.family.from_parameters(
            {k: p.mean(axis=0) for k, p in self.parameters.items()}, self.settings
        )

    def warn(self, subject: str) -> None:
        """Warn when some fits ended on the parameter box edge or stopped before converging."""
        problems = []
        if self.on_boundary.any():
            where = self.map(int(np.argmax(self.on_boundary)))
            problems.append(
                (f"{int(self.on_boundary.sum())} of {self.n_draws} " if self.n_draws > 1 else "")
                + f"{self.method} fit{'s' if self.n_draws > 1 else ''} ended on the edge of the parameter box "
                f"(e.g. {where!r}; box: {self.family.BOX}): the corrected loss keeps decreasing "
                "beyond it, typically because the targets lie far outside [0, 1] (check the channels) or "
                "the scores separate them perfectly"
            )
        if not self.converged.all():
            problems.append(
                f"{int((~self.converged).sum())} of {self.n_draws} {self.method} fit(s) stopped after "
                f"{MAX_ITERATIONS} Newton iterations without meeting the gradient tolerance {GRADIENT_TOLERANCE:g}"
            )
        if problems:
            warn_caller(f"{subject}: " + "; ".join(problems), RecalibrationWarning)


def fitting_inputs(scores, targets) -> tuple[np.ndarray, np.ndarray]:
    scores = v.as_scores(scores)
    targets = v.as_finite_vector(targets, "targets")
    v.check_same_length(scores, "scores", targets, "targets")
    return scores, targets


def as_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """Item weights of a fit (n,), finite, non-negative, not all 0; None for equal weights."""
    if sample_weight is None:
        return None
    weights = v.as_finite_vector(sample_weight, "sample_weight")
    if weights.size != n:
        raise ValueError(f"sample_weight must have one weight per score ({n}); saw {weights.size}")
    if (weights < 0).any() or not weights.any():
        raise ValueError(
            "sample_weight must be non-negative and not all 0; saw "
            f"{'a negative weight' if (weights < 0).any() else 'only zeros'}"
        )
    return weights


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

    def fit(self, scores, targets, sample_weight=None):
        """Fit the map to ``targets`` (clean, corrected or soft labels; any finite reals).

        Parameters
        ----------
        scores : array_like, shape (n,)
            The predictor's scores in [0, 1].
        targets : array_like, shape (n,)
            Fitting targets, e.g. :func:`bayescal.correction.corrected_labels`; they may leave [0, 1].
        sample_weight : array_like, shape (n,), optional
            Non-negative item weights: the loss is ``sum_i w_i loss_i / sum_i w_i`` (a
            histogram's bin values the weighted means).  The rectified fit with gold items
            (:class:`bayescal.correction.rectified.RectifiedLoss`) is one such fit.

        Returns
        -------
        self
        """
        scores, targets = fitting_inputs(scores, targets)
        weights = as_sample_weight(sample_weight, scores.size)
        fitted = self.fit_draws(scores, TargetDraws.fixed(targets, weights))
        fitted.warn(type(self).__name__)
        self._adopt(fitted, 0)
        return self

    def fit_draws(self, scores: np.ndarray, targets: TargetDraws) -> MapDraws:
        """Fit one map of this family and settings per draw of ``targets``, each on the items
        with a target in its draw (the posterior version fits every draw's labels at once)."""
        return self._fit_draws(scores, targets, **self._settings())

    def predict(self, scores) -> np.ndarray:
        """Recalibrated probabilities of ``scores`` (array_like in [0, 1])."""
        if not hasattr(self, "converged_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet: call fit(scores, targets) first"
            )
        scores = v.as_scores(scores)
        return self.predict_with(self._fitted_parameters(), self._fitted_settings(), scores)[0]

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
    def from_parameters(cls, parameters: dict, settings: dict):
        fitted = cls(**{k: settings[k] for k in cls.CONSTRUCTOR})
        fitted._adopt(
            MapDraws(
                cls,
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
