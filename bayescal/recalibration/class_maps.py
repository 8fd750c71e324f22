"""Multi-class recalibration maps fitted to corrected one-hot labels: temperature scaling and
vector scaling (Guo et al. 2017), within boxes.

Both map an item's class probabilities ``p_i`` through its log-probabilities
``x_i = log max(p_i, eps)`` to ``softmax(z_i)``:

- temperature scaling, ``z_i = x_i / T`` with ``0.05 <= T <= 20`` (the binary box);
- vector scaling, ``z_ik = w_k x_ik + b_k`` with ``0.05 <= w_k <= 20``, ``-10 <= b_k <= 10``
  and ``b_0 = 0`` (adding one number to every ``b_k`` leaves the map as it is).

They minimise the mean cross-entropy against targets ``U_i`` (one-hot labels, or corrected
one-hot labels ``U_i = 1/C + Q sum_j W_j Q^T (T_j^T)^-1 e_{A_ij}``,
:mod:`bayescal.correction.known_confusions`):

    L(theta) = (1/n) sum_i [ (sum_k U_ik) logsumexp(z_i) - sum_k U_ik z_ik ].

``L`` is linear in ``U``, so with corrected labels it is unbiased for the cross-entropy
against the true labels at every ``theta``, and its minimiser estimates the clean fit's.  A
corrected label may leave the simplex (negative coordinates), and the corrected
cross-entropy can then decrease without bound (as ``T -> 0``, for example): the box keeps the
fit finite, and a fit that stops on the box's edge says so in one
:class:`~bayescal.RecalibrationWarning` and in ``on_boundary_``.  The box is searched by
L-BFGS-B with the analytic gradient ``dL/dz_ik = (sum_k U_ik) softmax(z_i)_k - U_ik``.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .. import _validation as v
from .._api import warn_caller
from ..exceptions import NotFittedError, RecalibrationWarning
from ._base import as_eps
from ._solver import STALL_TOLERANCE
from .maps import DEFAULT_EPS

__all__ = ["CLASS_MAPS", "CLASS_METHODS", "ClassTemperatureScaling", "VectorScaling"]
#: A parameter this close to a bound (relative to the box's width) is on the box's edge.
EDGE = 1e-6


def _log_probabilities(probabilities, eps: float, name: str) -> np.ndarray:
    """``log max(p, eps)`` of a checked (n, C) probability matrix."""
    return np.log(np.maximum(v.as_class_probabilities(probabilities, name), eps))


def _loss_and_gradient(z: np.ndarray, targets: np.ndarray, mass: np.ndarray):
    """The mean cross-entropy of logits ``z`` (n, C) against ``targets`` (each row summing to
    ``mass``), and its gradient with respect to ``z``."""
    largest = z.max(axis=1, keepdims=True)
    shifted = np.exp(z - largest)
    totals = shifted.sum(axis=1, keepdims=True)
    log_normaliser = largest[:, 0] + np.log(totals[:, 0])
    n = z.shape[0]
    loss = float((mass * log_normaliser).sum() - (targets * z).sum()) / n
    return loss, (mass[:, None] * shifted / totals - targets) / n


class _ClassMap:
    """What the two families share: checks, the boxed fit and the edge's warning.  A family
    says, for C classes, its parameter vector's box (``_bounds``), start (``_starting``) and
    box in words (``_box``); its logits of the log-probabilities (``_logits``) and the
    gradient of the loss through them (``_logit_gradient``); and how the vector becomes its
    fitted attributes and back (``_adopt``, ``_theta``)."""

    def __init__(self, *, eps=DEFAULT_EPS):
        self.eps = eps

    def fit(self, probabilities, targets) -> _ClassMap:
        """Fit to ``probabilities`` (n, C) and ``targets`` (n, C): one-hot labels, corrected
        one-hot labels (rows summing to 1, coordinates anywhere), or the rectified targets of
        :meth:`~bayescal.correction.rectified.RectifiedLoss.rectified` (rows of any sum, which
        weighs the row in the loss)."""
        x = _log_probabilities(probabilities, as_eps(self.eps), "probabilities")
        targets = v.as_numeric_array(targets, "targets").astype(np.float64)
        if targets.shape != x.shape:
            raise ValueError(
                f"targets must have the shape of probabilities {x.shape}; saw {targets.shape}"
            )
        v.check_finite(targets, "targets")
        self.solve(x, targets)
        if self.on_boundary_:
            warn_caller(
                f"{type(self).__name__}: the fit stopped on the box's edge ({self._box()}): "
                "the cross-entropy still falls there (with corrected labels outside the simplex "
                "it can fall without bound), so the map is the edge's, not a minimum",
                RecalibrationWarning,
            )
        if not self.converged_:
            warn_caller(
                f"{type(self).__name__}: L-BFGS-B stopped without converging ({self.message_})",
                RecalibrationWarning,
            )
        return self

    def solve(self, x: np.ndarray, targets: np.ndarray) -> _ClassMap:
        """:meth:`fit` of checked log-probabilities ``x`` (n, C) and ``targets``, saying
        nothing: ``on_boundary_`` and ``converged_`` tell, and a caller fitting many maps (one
        per posterior draw, :mod:`bayescal.bayes.class_recalibration`) says it once."""
        mass = targets.sum(axis=1)
        lower, upper = self._bounds(x.shape[1])

        def objective(theta):
            loss, gradient = _loss_and_gradient(self._logits(theta, x), targets, mass)
            return loss, self._logit_gradient(theta, x, gradient)

        start = np.clip(self._starting(x.shape[1]), lower, upper)
        result = optimize.minimize(
            objective,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(lower, upper)),
            options={"maxiter": 1000, "ftol": 1e-14, "gtol": 1e-10},
        )
        width = upper - lower
        at_lower, at_upper = result.x - lower <= EDGE * width, upper - result.x <= EDGE * width
        edge = at_lower | at_upper
        # a gradient that pushes out of the box at a bound is not one the fit can follow
        free = np.where(
            (at_lower & (result.jac > 0)) | (at_upper & (result.jac < 0)), 0.0, result.jac
        )
        self._adopt(result.x)
        # L-BFGS-B's line search can stop "abnormally" at the optimum, where rounding hides
        # any decrease: a free gradient that small is converged (the binary solver's rule)
        self.converged_ = bool(result.success or np.abs(free).max() < STALL_TOLERANCE)
        self.message_ = str(result.message)
        self.on_boundary_ = bool(edge.any())
        self.n_iter_ = int(result.nit)
        self.n_classes_ = x.shape[1]
        return self

    def log_probabilities(self, probabilities) -> np.ndarray:
        """``log max(p, eps)`` of checked class ``probabilities`` (n, C): what :meth:`solve`
        takes."""
        return _log_probabilities(probabilities, as_eps(self.eps), "probabilities")

    @classmethod
    def with_parameters(cls, theta, n_classes: int, *, eps=DEFAULT_EPS) -> _ClassMap:
        """A fitted map of the parameter vector ``theta`` (as :meth:`parameters` gives it), for
        ``n_classes`` classes: e.g. the posterior mean of maps fitted per draw.  ``theta``
        must have the family's size for ``n_classes`` and lie in its box."""
        n_classes = v.as_int(n_classes, "n_classes", minimum=2)
        theta = v.as_finite_vector(theta, "theta")
        fitted = cls(eps=eps)
        lower, upper = fitted._bounds(n_classes)
        if theta.size != lower.size or (theta < lower).any() or (theta > upper).any():
            raise ValueError(
                f"theta must be {lower.size} parameters of {cls.__name__} for {n_classes} "
                f"classes within its box ({fitted._box()}); saw {theta.tolist()}"
            )
        fitted._adopt(theta)
        fitted.converged_, fitted.on_boundary_, fitted.n_iter_ = True, False, 0
        fitted.message_, fitted.n_classes_ = "given", n_classes
        return fitted

    def parameters(self) -> np.ndarray:
        """The fitted parameters as one vector: ``[T]``, or the scales then the biases
        ``b_1 .. b_{C-1}``."""
        if not hasattr(self, "n_classes_"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet: call fit(probabilities, targets) first"
            )
        return self._theta()

    def predict(self, probabilities) -> np.ndarray:
        """The recalibrated class probabilities (n, C)."""
        if not hasattr(self, "n_classes_"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet: call fit(probabilities, targets) first"
            )
        x = _log_probabilities(probabilities, as_eps(self.eps), "probabilities")
        if x.shape[1] != self.n_classes_:
            raise ValueError(
                f"probabilities must have the {self.n_classes_} classes the map was fitted on; "
                f"saw {x.shape[1]}"
            )
        z = self._logits(self._theta(), x)
        z -= z.max(axis=1, keepdims=True)
        shifted = np.exp(z)
        return shifted / shifted.sum(axis=1, keepdims=True)


class ClassTemperatureScaling(_ClassMap):
    """Multi-class temperature scaling ``softmax(log p / T)``, ``0.05 <= T <= 20``, fitted to
    (corrected) one-hot labels (module docstring).

    Attributes
    ----------
    temperature_ : float
    converged_, on_boundary_ : bool
    n_iter_ : int

    Examples
    --------
    >>> probabilities = np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    >>> fitted = ClassTemperatureScaling().fit(probabilities, np.eye(3)[[0, 2, 2]])
    >>> 0.05 <= fitted.temperature_ <= 20
    True
    """

    def _bounds(self, n_classes: int):
        return np.array([0.05]), np.array([20.0])

    def _starting(self, n_classes: int) -> np.ndarray:
        return np.array([1.0])

    def _box(self) -> str:
        return "0.05 <= T <= 20"

    def _logits(self, theta, x):
        return x / theta[0]

    def _logit_gradient(self, theta, x, gradient):
        return np.array([-(gradient * x).sum() / theta[0] ** 2])

    def _adopt(self, theta):
        self.temperature_ = float(theta[0])

    def _theta(self):
        return np.array([self.temperature_])


class VectorScaling(_ClassMap):
    """Vector scaling ``softmax(w * log p + b)``: a scale ``0.05 <= w_k <= 20`` and a bias
    ``-10 <= b_k <= 10`` per class, ``b_0 = 0``, fitted to (corrected) one-hot labels (module
    docstring).

    Attributes
    ----------
    scales_, biases_ : ndarray, shape (C,)
    converged_, on_boundary_ : bool
    n_iter_ : int
    """

    def _bounds(self, n_classes: int):
        lower = np.concatenate([np.full(n_classes, 0.05), np.full(n_classes - 1, -10.0)])
        upper = np.concatenate([np.full(n_classes, 20.0), np.full(n_classes - 1, 10.0)])
        return lower, upper

    def _starting(self, n_classes: int) -> np.ndarray:
        return np.concatenate([np.ones(n_classes), np.zeros(n_classes - 1)])

    def _box(self) -> str:
        return "0.05 <= w_k <= 20, -10 <= b_k <= 10"

    @staticmethod
    def _split(theta: np.ndarray, n_classes: int):
        return theta[:n_classes], np.concatenate([[0.0], theta[n_classes:]])

    def _logits(self, theta, x):
        scales, biases = self._split(theta, x.shape[1])
        return x * scales + biases

    def _logit_gradient(self, theta, x, gradient):
        return np.concatenate([(gradient * x).sum(axis=0), gradient[:, 1:].sum(axis=0)])

    def _adopt(self, theta):
        n_classes = (theta.size + 1) // 2
        self.scales_, self.biases_ = self._split(theta, n_classes)

    def _theta(self):
        return np.concatenate([self.scales_, self.biases_[1:]])


#: The multi-class map families by method name.
CLASS_MAPS = {"temperature": ClassTemperatureScaling, "vector": VectorScaling}
CLASS_METHODS = tuple(CLASS_MAPS)
