"""Recalibration maps fitted from noisy labels (paper §5, App. E; DESIGN.md §6).

A fixed predictor's scores ``z`` are recalibrated by a map ``g`` fitted to *targets*: the
noise-corrected labels ``U`` of paper §3 (``"corrected"``), or the mean annotator response
(``"naive"``, which pulls the map towards the annotators' error rates and is kept as the
baseline the paper compares against).

Logistic families (App. E.2).  Scores are clipped to ``[eps, 1 - eps]`` and mapped to logits
``s = log(z / (1 - z))``:

- temperature scaling ``g(z) = sigma(s / T)`` with ``0.05 <= T <= 20``;
- Platt scaling ``g(z) = sigma(u s + v)`` with ``-10 <= u, v <= 10``.

Both minimise the corrected log loss (paper §5, App. E.2)

    R(g) = (1/n) sum_i [softplus(eta_i) - U_i eta_i],     eta_i = logit g(z_i),

which is ``-U log p - (1 - U) log(1 - p)`` written so that it is stable and defined for
``U`` outside [0, 1].  The log loss is affine in the label, so ``E[U | Y, Z] = Y`` makes the
expected corrected loss the clean-label risk (Natarajan et al. 2013; paper Theorem E.1).  The
loss is convex in the parameters (``eta`` is linear in ``u, v`` and in ``1/T``), but with
targets outside [0, 1] it can decrease without bound, which is why the parameter sets are
compact boxes: a fit that ends on a box edge warns (:class:`RecalibrationWarning`).

The minimiser is a projected Newton method with Armijo backtracking along the projection arc
(Bertsekas 1982), vectorised over a leading axis of target sets, so that
:func:`bayescal.posterior.posterior_recalibration` fits one map per posterior draw in one pass
and a single fit is the case of one target set.

Projected histogram binning (paper §5, App. E.3; Gupta and Ramdas 2021): ``J`` fixed bins of
the *original* score; each bin's value is the mean target in the bin projected onto [0, 1]; an
empty bin gets the projected mean of all fitting targets.

Evaluation of a fitted map (:func:`recalibration_study`, App. E.5) bins the *transformed*
scores ``g(z)``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from . import _validation as v
from .correction import Channels, _as_estimator, _corrected_labels, _fit_or_raise, _soft_vote
from .data import AnnotatedScores
from .metrics import assign_bins, bin_index, binned_moments

__all__ = [
    "HistogramBinning",
    "MapDraws",
    "PlattScaling",
    "RecalibrationStudy",
    "RecalibrationWarning",
    "TemperatureScaling",
    "corrected_log_loss",
    "map_from_dict",
    "recalibrate",
    "recalibration_study",
]

#: Map families, in the order the paper lists them.
METHODS = ("temperature", "platt", "histogram")
#: Fitting targets: corrected labels U, or the naive mean annotator response.
TARGETS = ("corrected", "naive")
#: Default input clipping: logits stay within +-13.8.
DEFAULT_EPS = 1e-6

#: Projected Newton: stop when every free component of the gradient is below this ...
GRADIENT_TOLERANCE = 1e-10
#: ... or after this many iterations (Newton on these smooth 1-2 parameter problems needs < 15).
MAX_ITERATIONS = 100
#: A fit whose line search finds no decrease counts as converged if its gradient is below this.
STALL_TOLERANCE = 1e-6
#: A predicted decrease below this is beneath the loss's rounding error (losses are O(1)).
NEGLIGIBLE_DECREASE = 1e-13
#: Armijo sufficient-decrease constant and the number of step halvings tried.
ARMIJO = 1e-4
MAX_HALVINGS = 60
#: Ridge on the Newton system: keeps it solvable when every prediction saturates.
RIDGE = 1e-12
#: Parameter sets x items evaluated at once (arrays of 8 MB: the solver's memory stays small
#: and its passes stay in cache-friendly pieces).
CHUNK = 1_000_000


class RecalibrationWarning(UserWarning):
    """A recalibration fit ended on the edge of its parameter box or did not converge."""


def corrected_log_loss(logits, targets) -> np.ndarray:
    """Per-item corrected log loss ``softplus(eta) - U eta`` (paper §5, App. E.2).

    Equal to the log loss ``-U log p - (1 - U) log(1 - p)`` of ``p = sigma(eta)``, but finite
    and accurate for any real ``eta`` and any target ``U``, including corrected labels outside
    [0, 1] (for which it may be negative).

    Parameters
    ----------
    logits : array_like, shape (n,)
        ``eta = logit p`` of the predictions.
    targets : array_like, shape (n,)
        Labels, corrected labels or soft targets (any finite reals).

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> float(corrected_log_loss([0.0], [1.0])[0]) == float(np.log(2.0))
    True
    """
    logits = v.as_finite_vector(logits, "logits")
    targets = v.as_finite_vector(targets, "targets")
    v.check_same_length(logits, "logits", targets, "targets")
    return np.logaddexp(0.0, logits) - targets * logits


# --------------------------------------------------------------------------- the solver


@dataclass(frozen=True)
class _Solution:
    theta: np.ndarray  # (S, d)
    loss: np.ndarray  # (S,)
    n_iter: np.ndarray  # (S,)
    converged: np.ndarray  # (S,)
    on_boundary: np.ndarray  # (S,)


def _softplus_terms(theta: np.ndarray, features: np.ndarray):
    """``mean_i softplus(theta . x_i)`` for each row of ``theta``, with its gradient and Hessian.

    One ``exp`` per item serves all three: with ``e = exp(-|eta|)``, ``softplus(eta) =
    max(eta, 0) + log1p(e)``, ``sigma(|eta|) = 1 / (1 + e)`` and ``sigma'(eta) = sigma(|eta|)
    (1 - sigma(|eta|))``, all free of overflow.
    """
    n_sets, dim = theta.shape
    n = features.shape[0]
    value = np.empty(n_sets)
    gradient = np.empty((n_sets, dim))
    hessian = np.empty((n_sets, dim, dim))
    outer = (features[:, :, None] * features[:, None, :]).reshape(n, dim * dim)
    step = max(1, CHUNK // n)
    for start in range(0, n_sets, step):
        rows = slice(start, start + step)
        eta = theta[rows] @ features.T
        e = np.exp(-np.abs(eta))
        value[rows] = (np.maximum(eta, 0.0) + np.log1p(e)).mean(axis=1)
        q = 1.0 / (1.0 + e)
        hessian[rows] = ((q * (1.0 - q)) @ outer / n).reshape(-1, dim, dim)
        gradient[rows] = np.where(eta >= 0.0, q, 1.0 - q) @ features / n
    return value, gradient, hessian


def _minimise(features, moments, lower, upper, start) -> _Solution:
    """``argmin_{lower <= theta <= upper} mean_i softplus(theta . x_i) - theta . m`` per row ``m`` of ``moments``.

    ``theta . m`` with ``m = mean_i U_i x_i`` is the target term of the corrected loss, so one
    target set is one row.  Projected Newton (Bertsekas 1982): components on a bound whose
    gradient points outward are held, the Newton step is taken in the others, and the step is
    halved along the projection arc until the Armijo condition holds.  Each trial point is
    evaluated with its derivatives, so an accepted first step costs one pass over the items.
    """
    n_sets, dim = moments.shape
    theta = np.clip(np.broadcast_to(start, (n_sets, dim)), lower, upper).astype(np.float64)
    n_iter = np.zeros(n_sets, dtype=np.int64)
    converged = np.zeros(n_sets, dtype=bool)

    def objective(candidate, rows):
        value, gradient, hessian = _softplus_terms(candidate, features)
        return value - (candidate * moments[rows]).sum(axis=1), gradient - moments[rows], hessian

    loss, gradient, hessian = objective(theta, np.arange(n_sets))
    working = np.arange(n_sets)
    identity = np.eye(dim)
    for _ in range(MAX_ITERATIONS):
        position = theta[working]
        g = gradient[working]
        held = ((position <= lower) & (g > 0)) | ((position >= upper) & (g < 0))
        free_gradient = np.where(held, 0.0, g)
        done = np.abs(free_gradient).max(axis=1) <= GRADIENT_TOLERANCE
        converged[working[done]] = True
        working, position, g, held, free_gradient = (
            x[~done] for x in (working, position, g, held, free_gradient)
        )
        if working.size == 0:
            break
        free = ~held
        system = (
            np.where(free[:, :, None] & free[:, None, :], hessian[working], identity)
            + RIDGE * identity
        )
        direction = -np.linalg.solve(system, free_gradient[..., None])[..., 0]
        step = np.ones(working.size)
        pending = np.arange(working.size)
        for _ in range(MAX_HALVINGS):
            candidate = np.clip(
                position[pending] + step[pending, None] * direction[pending], lower, upper
            )
            value, new_gradient, new_hessian = objective(candidate, working[pending])
            decrease = (g[pending] * (candidate - position[pending])).sum(axis=1)
            # Near the optimum the predicted decrease is below the rounding error of the loss and
            # the Armijo test is noise: there Newton converges quadratically, so take the step.
            accepted = (value <= loss[working[pending]] + ARMIJO * decrease) | (
                -decrease <= NEGLIGIBLE_DECREASE
            )
            rows = working[pending[accepted]]
            theta[rows], loss[rows], gradient[rows], hessian[rows] = (
                candidate[accepted],
                value[accepted],
                new_gradient[accepted],
                new_hessian[accepted],
            )
            pending = pending[~accepted]
            step[pending] /= 2.0
            if pending.size == 0:
                break
        n_iter[working] += 1
        # No step of any length decreases the loss: optimal to rounding error if the gradient is
        # small; otherwise the fit is left unconverged (and reported as such).
        converged[working[pending]] = np.abs(free_gradient[pending]).max(axis=1) <= STALL_TOLERANCE
        working = np.delete(working, pending)
    on_boundary = ((theta <= lower) | (theta >= upper)).any(axis=1)
    return _Solution(theta, loss, n_iter, converged, on_boundary)


# --------------------------------------------------------------------------- fitted maps


def _projected_bin_means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bin means of the targets projected onto [0, 1]; an empty bin takes the projected overall mean.

    ``sums`` is (S, J), one row per target set; ``counts`` (J,) the items per bin."""
    overall = sums.sum(axis=1, keepdims=True) / counts.sum()
    means = np.where(counts > 0, sums / np.maximum(counts, 1), overall)
    return np.clip(means, 0.0, 1.0)


@dataclass(frozen=True, eq=False)
class MapDraws:
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

    def predict(self, scores: np.ndarray, rows=slice(None)) -> np.ndarray:
        """Predictions of the maps in ``rows`` for validated ``scores``: shape (len(rows), n)."""
        return _FAMILIES[self.method]._predict_parameters(
            {k: p[rows] for k, p in self.parameters.items()}, self.settings, scores
        )

    def map(self, row: int):
        """The fitted map of one target set, as a usable estimator object."""
        return _FAMILIES[self.method]._from_parameters(
            {k: p[row] for k, p in self.parameters.items()}, self.settings
        )

    def mean_map(self):
        """The map whose parameters are the means over the target sets (the posterior-mean map)."""
        return _FAMILIES[self.method]._from_parameters(
            {k: p.mean(axis=0) for k, p in self.parameters.items()}, self.settings
        )

    def warn(self, subject: str, stacklevel: int = 3) -> None:
        """Warn when some fits ended on the parameter box edge or stopped before converging."""
        problems = []
        if self.on_boundary.any():
            where = self.map(int(np.argmax(self.on_boundary)))
            problems.append(
                (f"{int(self.on_boundary.sum())} of {self.n_draws} " if self.n_draws > 1 else "")
                + f"{self.method} fit{'s' if self.n_draws > 1 else ''} ended on the edge of the parameter box "
                f"(e.g. {where!r}; box: {_FAMILIES[self.method].BOX}): the corrected loss keeps decreasing "
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


def _fitting_inputs(scores, targets) -> tuple[np.ndarray, np.ndarray]:
    scores = v.as_probabilities(scores, "scores")
    targets = v.as_finite_vector(targets, "targets")
    v.check_same_length(scores, "scores", targets, "targets")
    return scores, targets


def _as_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not 0.0 < eps < 0.5:
        raise ValueError(
            f"eps must be a number in (0, 0.5) (the input clipping level); saw {eps!r}"
        )
    return float(eps)


class _RecalibrationMap:
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
        scores, targets = _fitting_inputs(scores, targets)
        fitted = self._fit_draws(scores, np.arange(scores.size), targets[None, :])
        fitted.warn(type(self).__name__)
        self._adopt(fitted, 0)
        return self

    def _fit_draws(self, scores: np.ndarray, cell: np.ndarray, labels: np.ndarray) -> MapDraws:
        """Fit one map of this family and settings per row of ``labels`` (S, G), item i having
        target ``labels[:, cell[i]]`` (the posterior version fits every draw's labels at once)."""
        return self._fit_cells(scores, cell, labels, **self._settings())

    def predict(self, scores) -> np.ndarray:
        """Recalibrated probabilities of ``scores`` (array_like in [0, 1])."""
        if not hasattr(self, "converged_"):
            raise RuntimeError(
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
            raise RuntimeError(
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
        return f"{type(self).__name__}({self._describe()})"


class _LogisticScaling(_RecalibrationMap):
    """Temperature and Platt scaling: ``sigma(theta . x(s))`` with box-constrained ``theta``."""

    CONSTRUCTOR = ("eps",)
    _lower: np.ndarray
    _upper: np.ndarray
    _start: np.ndarray

    def __init__(self, eps=DEFAULT_EPS):
        self.eps = eps

    def _settings(self) -> dict:
        return {"eps": _as_eps(self.eps)}

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
            start = _minimise(
                features, moments.mean(axis=0, keepdims=True), cls._lower, cls._upper, start
            ).theta
        solution = _minimise(features, moments, cls._lower, cls._upper, start)
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


def _clipped_logits(scores: np.ndarray, eps: float) -> np.ndarray:
    """``s = logit(clip(z, eps, 1 - eps))`` (App. E.2)."""
    return special.logit(np.clip(scores, eps, 1.0 - eps))


class TemperatureScaling(_LogisticScaling):
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
        return _clipped_logits(scores, eps)[:, None]

    @classmethod
    def _theta(cls, parameters):
        return 1.0 / np.asarray(parameters["temperature"]).reshape(-1, 1)

    @classmethod
    def _parameters(cls, theta):
        return {"temperature": 1.0 / theta[:, 0]}

    def _describe(self) -> str:
        return f"temperature={self.temperature_:.4g}"


class PlattScaling(_LogisticScaling):
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
        logits = _clipped_logits(scores, eps)
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

    def _describe(self) -> str:
        return f"slope={self.slope_:.4g}, intercept={self.intercept_:.4g}"


class HistogramBinning(_RecalibrationMap):
    """Projected histogram binning (paper §5, App. E.3; Gupta and Ramdas 2021).

    ``J`` bins of the original score; the value of bin ``h`` is ``clip(mean of the targets in
    h, 0, 1)``, and an empty bin gets ``clip(mean of all targets, 0, 1)``.

    Parameters
    ----------
    n_bins : int or "auto", default 10
        Number of fitting bins ``J`` (``"auto"`` = round(n^(1/3))); at most the number of items.
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
    CONSTRUCTOR = ("n_bins", "strategy")
    BOX = "values in [0, 1] by projection"

    def __init__(self, n_bins=10, strategy="uniform"):
        self.n_bins = n_bins
        self.strategy = strategy

    def _settings(self) -> dict:
        v.as_n_bins(self.n_bins, 1)  # checks the kind of value now; "auto" is resolved at fit time
        return {
            "n_bins": self.n_bins,
            "strategy": v.as_choice(self.strategy, "strategy", v.BIN_STRATEGIES),
        }

    def _fitted_settings(self) -> dict:
        return {"edges": self.edges_, "strategy": self.strategy, "counts": self.counts_}

    def _restore(self, settings: dict) -> None:
        self.edges_ = settings["edges"]
        self.counts_ = settings["counts"]

    @classmethod
    def _fit_cells(cls, scores, cell, labels, n_bins, strategy) -> MapDraws:
        """Fit one histogram per row of ``labels`` (S, G); item i has target ``labels[:, cell[i]]``."""
        bins = v.as_n_bins(n_bins, scores.size)
        if bins > scores.size:
            raise ValueError(
                f"n_bins must not exceed the number of fitting items ({scores.size}); saw {bins}"
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
            {"values": _projected_bin_means(sums, counts)},
            np.ones(n_sets, bool),
            np.zeros(n_sets, bool),
            np.zeros(n_sets, np.int64),
            {"edges": edges, "strategy": strategy, "counts": counts, "n_bins": bins},
        )

    @classmethod
    def _predict_parameters(cls, parameters, settings, scores):
        return np.asarray(parameters["values"])[
            :, bin_index(scores, settings["edges"], settings["strategy"])
        ]

    def _describe(self) -> str:
        return f"n_bins={self.values_.size}, values=[{', '.join(f'{x:.3f}' for x in self.values_)}]"


_FAMILIES = {
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
    family = _FAMILIES[v.as_choice(document["method"], "document['method']", METHODS)]
    settings = dict(document["settings"])
    for name in ("edges", "counts"):
        if name in settings:
            settings[name] = np.asarray(settings[name])
    return family._from_parameters(
        {k: np.asarray(p, dtype=np.float64) for k, p in document["parameters"].items()}, settings
    )


def _make_map(method: str, n_bins, strategy, eps):
    """An unfitted map of ``method`` whose settings are validated now (errors name the argument)."""
    method = v.as_choice(method, "method", METHODS)
    made = (
        HistogramBinning(n_bins=n_bins, strategy=strategy)
        if method == "histogram"
        else _FAMILIES[method](eps=eps)
    )
    made._settings()
    return made


# --------------------------------------------------------------------------- workflows


def _channels_for(channels, data: AnnotatedScores, where: str) -> Channels:
    """Known channels, the channels of a successful ChannelFit, or an estimator fitted on ``data``."""
    from .channels import ChannelFit, ChannelFitError

    if channels is None:
        raise ValueError(
            "channels are required for corrected targets: pass Channels, a ChannelFit, or an estimator "
            "name such as 'dawid_skene_em' (or use targets='naive')"
        )
    if isinstance(channels, ChannelFit):
        if channels.failure is not None:
            raise ChannelFitError(
                f"channels: the {channels.method} fit failed ({channels.failure})"
            )
        return channels.channels
    fit_channels, name = _as_estimator(channels, {}, argument="channels")
    return (
        channels
        if fit_channels is None
        else _fit_or_raise(fit_channels, name, data, where).channels
    )


def _targets(data: AnnotatedScores, kind: str, channels: Channels | None, weights) -> np.ndarray:
    """Per-item fitting targets: corrected labels (weights fitted on ``data``) or the soft vote."""
    if kind == "naive":
        return _soft_vote(data.annotations)
    return _corrected_labels(data.annotations, channels, weights, None)


def recalibrate(
    data,
    method="platt",
    channels=None,
    targets="corrected",
    weights="iv",
    n_bins=10,
    strategy="uniform",
    eps=DEFAULT_EPS,
):
    """Fit a recalibration map to a predictor's scores from noisy annotations (paper §5).

    Parameters
    ----------
    data : AnnotatedScores
        The fitting sample: scores and annotations.
    method : {"platt", "temperature", "histogram"}, default "platt"
    channels : Channels, ChannelFit, str or callable
        The annotator channels for ``targets="corrected"``: known channels, a fitted
        :class:`bayescal.ChannelFit`, or an estimator name (e.g. ``"dawid_skene_em"``) or
        callable fitted here on ``data``.  Channels estimated on a separate sample follow the
        paper's split workflow (App. E.5); see :func:`recalibration_study`.
    targets : {"corrected", "naive"}, default "corrected"
        Corrected labels ``U`` (unbiased for Y), or the naive mean annotator response.
    weights : rule name or array_like, default "iv"
        How corrected labels are combined (:func:`bayescal.corrected_labels`).
    n_bins, strategy
        Fitting bins of ``"histogram"`` (:class:`HistogramBinning`).
    eps : float, default 1e-6
        Input clipping of the logistic maps.

    Returns
    -------
    TemperatureScaling, PlattScaling or HistogramBinning
        The fitted map; ``predict(scores)`` gives recalibrated probabilities.
    """
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    method = v.as_choice(method, "method", METHODS)
    kind = v.as_choice(targets, "targets", TARGETS)
    v.check_items_annotated(data.annotations, "data.annotations")
    fitted_channels = _channels_for(channels, data, "data") if kind == "corrected" else None
    return _make_map(method, n_bins, strategy, eps).fit(
        data.scores, _targets(data, kind, fitted_channels, weights)
    )


@dataclass(frozen=True, eq=False)
class RecalibrationStudy:
    """Base, Naive and Corrected recalibration side by side (paper App. E.5).

    Attributes
    ----------
    table : pandas.DataFrame
        Index ``(method, fit)`` with ``fit`` in ``base``, ``naive``, ``corrected`` (the base row
        repeated in every method's block); columns ``nc_ece`` (corrected labels of the
        evaluation sample), ``soft_vote_ece`` (naive), ``oracle_ece`` (only when ``oracle`` was
        given) and ``map`` (the fitted parameters).  All ECEs bin the transformed scores.
    maps : dict
        ``(method, fit) -> fitted map`` for ``fit`` in ``naive``, ``corrected``.
    channels : Channels
        The channels used for fitting and evaluation.
    channel_fit : ChannelFit or None
        The channel estimate (None when channels were given).
    """

    table: object
    maps: dict
    channels: Channels
    channel_fit: object


def _check_samples(samples: dict) -> None:
    for name, sample in samples.items():
        if not isinstance(sample, AnnotatedScores):
            raise TypeError(
                f"{name} must be a bayescal.AnnotatedScores; saw {type(sample).__name__}"
            )
        v.check_items_annotated(sample.annotations, f"{name}.annotations")
    (first, reference), *others = samples.items()
    for name, sample in others:
        if sample.annotator_names != reference.annotator_names:
            raise ValueError(
                f"{name} must have the annotators of {first} {list(reference.annotator_names)}; saw {list(sample.annotator_names)}"
            )


def recalibration_study(
    channel_data,
    fit_data,
    eval_data,
    methods=METHODS,
    estimator="dawid_skene_em",
    weights="iv",
    fit_bins=10,
    n_bins=15,
    eps=DEFAULT_EPS,
    oracle=None,
    estimator_options=None,
) -> RecalibrationStudy:
    """The split-sample recalibration workflow of paper App. E.5 (Algorithm 1).

    1. Channels are estimated on ``channel_data`` (or given).
    2. For each method, a map is fitted on ``fit_data`` twice: to the mean annotator responses
       (Naive) and to the corrected labels (Corrected; IV plug-in weights from ``fit_data``).
    3. Each predictor (the original scores = Base, and every fitted map) is evaluated on
       ``eval_data`` with ``n_bins`` equal-width bins of its *transformed* score: NC-ECE with the
       channels of step 1, the naive soft-vote ECE, and, given ``oracle``, the oracle ECE.

    Parameters
    ----------
    channel_data, fit_data, eval_data : AnnotatedScores
        Three samples with the same annotators (independent samples in the paper's guarantees).
    methods : sequence of {"temperature", "platt", "histogram"}, default all three
    estimator : str, callable or Channels, default "dawid_skene_em"
        As in :func:`bayescal.nc_ece`; known :class:`Channels` skip step 1.  Two annotators
        need ``"grouped_em"`` or ``"hui_walter_gmm"`` with ``channel_data.groups``.
    weights : rule name or array_like, default "iv"
    fit_bins : int, default 10
        Fitting bins of the histogram map (the paper uses ten equal-width bins).
    n_bins : int or "auto", default 15
        Equal-width evaluation bins of the transformed scores.
    eps : float, default 1e-6
        Input clipping of the logistic maps.
    oracle : array_like, shape (n_eval,), optional
        The true labels of ``eval_data`` or their probabilities ``m(Z)`` (the paper's Gaussian
        oracle ECE replaces labels by ``m(Z_i)``, App. F.5).
    estimator_options : dict, optional

    Returns
    -------
    RecalibrationStudy
    """
    import pandas as pd

    _check_samples({"channel_data": channel_data, "fit_data": fit_data, "eval_data": eval_data})
    if isinstance(methods, str) or not hasattr(methods, "__iter__"):
        raise TypeError(
            f"methods must be a sequence of method names from {METHODS}; saw {methods!r}"
        )
    methods = [v.as_choice(m, "methods", METHODS) for m in methods]
    if not methods:
        raise ValueError(f"methods must name at least one of {METHODS}; saw an empty sequence")
    evaluation_bins = v.as_n_bins(n_bins, eval_data.n_items)
    truth = None if oracle is None else v.as_probabilities(oracle, "oracle")
    if truth is not None:
        v.check_same_length(truth, "oracle", eval_data.scores, "eval_data.scores")
    if estimator_options is not None and not isinstance(estimator_options, dict):
        raise TypeError(f"estimator_options must be a dict; saw {type(estimator_options).__name__}")
    fit_channels, name = _as_estimator(estimator, estimator_options or {})
    channel_fit = (
        None
        if fit_channels is None
        else _fit_or_raise(fit_channels, name, channel_data, "channel_data")
    )
    channels = estimator if channel_fit is None else channel_fit.channels

    fitting_targets = {kind: _targets(fit_data, kind, channels, weights) for kind in TARGETS}
    evaluation_targets = {
        "nc_ece": _targets(eval_data, "corrected", channels, weights),
        "soft_vote_ece": _soft_vote(eval_data.annotations),
    }
    if truth is not None:
        evaluation_targets["oracle_ece"] = truth

    def evaluated(predictions) -> dict:
        return {
            column: binned_moments(target, predictions, evaluation_bins, "uniform").ece
            for column, target in evaluation_targets.items()
        }

    base = {**evaluated(eval_data.scores), "map": "identity"}
    rows, index, maps = [], [], {}
    for method in methods:
        rows.append(base)
        index.append((method, "base"))
        for kind in ("naive", "corrected"):
            fitted = _make_map(method, fit_bins, "uniform", eps).fit(
                fit_data.scores, fitting_targets[kind]
            )
            maps[(method, kind)] = fitted
            rows.append({**evaluated(fitted.predict(eval_data.scores)), "map": fitted._describe()})
            index.append((method, kind))
    table = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["method", "fit"]))
    return RecalibrationStudy(table, maps, channels, channel_fit)
