"""Seeded multi-class simulations: a classifier's probabilities over C classes, the true classes,
and judges who answer with known confusion matrices, with the population top-label and
classwise ECE they are scored against.

The law.  An item's class is ``Y ~ Categorical(pi)``; its features are ``X = s e_Y + N(0, I)``
(``s`` the ``separation``), whose true class posterior is

    q(y | x) = softmax(s x + log pi)_y.

The classifier says ``p(x) = softmax(t s x)``: blind to the class proportions, and
overconfident by the ``sharpness`` ``t`` (calibrated only when ``t = 1`` and the classes are
equally common).  The population ECE of a kind is the binned ECE of ``p`` with each bin's
accuracy the mean of ``q`` over it (``q`` of the predicted class, or of each class), by Monte
Carlo over fresh features (``ClassSimulation.population_ece``): no label noise enters it.

Judge ``j`` answers ``A_j | Y = y ~ Categorical(T_j[y])``.  :func:`graded_confusion` builds the
matrix of a judge of an ordinal scale, whose errors fall on the nearer grades.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import Result
from ..data.annotated_scores import AnnotatedScores
from ..metrics.calibration import assign_bins
from ..metrics.classes import CALIBRATION_KINDS, problem_columns

__all__ = ["ClassSimulation", "graded_confusion", "simulate_classes"]

#: Features drawn per pass of ``ClassSimulation.population_ece`` (passes x C floats).
POPULATION_PASS = 500_000


@dataclass(frozen=True, eq=False, repr=False)
class ClassSimulation(Result):
    """A simulated multi-class data set with the truth behind it (module docstring).

    Attributes
    ----------
    data : AnnotatedScores
        What a user observes: the classifier's probabilities and the judges' class codes.
    labels : ndarray of int, shape (n,)
        The true classes (for the ECE against them, an oracle a user lacks).
    confusion : ndarray, shape (K, C, C)
        The judges' confusion matrices.
    proportion : ndarray, shape (C,)
    separation, sharpness : float
    """

    data: AnnotatedScores
    labels: np.ndarray
    confusion: np.ndarray
    proportion: np.ndarray
    separation: float
    sharpness: float

    def population_ece(
        self, *, kind="top_label", n_bins=10, n_draws=4_000_000, seed=12345
    ) -> float:
        """The classifier's population top-label or classwise ECE in ``n_bins`` equal-width
        bins: each bin's accuracy the mean true class posterior of its items (module
        docstring), over ``n_draws`` fresh feature draws, rounded down to whole passes of
        500 000 (seeded; Monte Carlo error about ``1e-4`` at the default)."""
        kind = v.as_choice(kind, "kind", CALIBRATION_KINDS)
        n_bins = v.as_int(n_bins, "n_bins", minimum=1)
        n_draws = v.as_int(n_draws, "n_draws", minimum=POPULATION_PASS)
        rng = np.random.default_rng(v.as_seed(seed))
        n_classes = self.proportion.size
        moments = np.zeros((1 if kind == "top_label" else n_classes, n_bins))
        for _ in range(n_draws // POPULATION_PASS):
            _, features = _features(rng, POPULATION_PASS, self.proportion, self.separation)
            truth = _softmax(self.separation * features + np.log(self.proportion))
            rows = np.arange(POPULATION_PASS)
            for p, (column, scores) in enumerate(
                problem_columns(_classifier(features, self.separation, self.sharpness), kind)
            ):
                bins = assign_bins(scores, n_bins, "uniform")[0]
                accuracy = truth[rows, column]
                moments[p] += np.bincount(bins, accuracy - scores, minlength=n_bins)
        drawn = POPULATION_PASS * (n_draws // POPULATION_PASS)
        return float(np.abs(moments / drawn).sum(axis=1).mean())


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def _classifier(features: np.ndarray, separation: float, sharpness: float) -> np.ndarray:
    """The classifier's probabilities ``softmax(t s x)`` of ``features`` (n, C)."""
    return _softmax(sharpness * separation * features)


def _features(rng, n_items: int, proportion: np.ndarray, separation: float):
    """Classes and features ``s e_y + N(0, I)`` of ``n_items`` items (in this order: the
    classes, then the noise)."""
    classes = rng.choice(proportion.size, n_items, p=proportion)
    noise = rng.normal(size=(n_items, proportion.size))
    return classes, separation * np.eye(proportion.size)[classes] + noise


def graded_confusion(n_classes: int, accuracy: float, *, spread: float = 1.0) -> np.ndarray:
    """The confusion matrix (C, C) of a judge of an ordinal scale: right with probability
    ``accuracy``, and otherwise on grade ``k`` with weight ``exp(-|k - y| / spread)`` (near
    misses likelier; a large ``spread`` spreads the errors evenly).

    Examples
    --------
    >>> graded_confusion(3, 0.8).round(3).tolist()[1]
    [0.1, 0.8, 0.1]
    """
    n_classes = v.as_int(n_classes, "n_classes", minimum=2)
    accuracy = v.as_probability(accuracy, "accuracy")
    spread = v.as_positive(spread, "spread")
    grades = np.arange(n_classes)
    weights = np.exp(-np.abs(grades[:, None] - grades[None, :]) / spread)
    np.fill_diagonal(weights, 0.0)
    return accuracy * np.eye(n_classes) + (1 - accuracy) * weights / weights.sum(
        axis=1, keepdims=True
    )


def simulate_classes(
    n,
    confusion,
    *,
    proportion=None,
    separation=1.5,
    sharpness=2.0,
    classes=None,
    ordinal=False,
    seed=0,
) -> ClassSimulation:
    """Simulate a multi-class panel (module docstring): ``n`` items, every judge answering
    every item.

    Parameters
    ----------
    n : int
    confusion : array_like, shape (K, C, C)
        The judges' confusion matrices, ``T_j[y, k] = P(A_j = k | Y = y)``, ``C >= 3``.
    proportion : array_like of shape (C,), optional
        The class proportions ``pi`` (default equal).
    separation : float, default 1.5
        ``s``: how far the features set the classes apart.
    sharpness : float, default 2.0
        ``t``: the classifier's overconfidence (1 is calibrated for equal proportions).
    classes : sequence of str, optional
        The class names (default ``"0"``, ``"1"``, ...).
    ordinal : bool, default False
        Declare the classes an ordered scale (``AnnotatedScores(ordinal=...)``).
    seed : int, default 0

    Returns
    -------
    ClassSimulation
    """
    confusion = v.as_confusion_matrices(confusion, "confusion")
    n_classes = confusion.shape[1]
    if n_classes < 3:
        raise ValueError(
            "confusion must hold matrices of three classes or more (two classes are binary "
            f"data: bayescal.simulate.simulate_annotated); saw {n_classes}"
        )
    n = v.as_int(n, "n", minimum=1)
    if proportion is None:
        proportion = np.full(n_classes, 1.0 / n_classes)
    proportion = v.as_probabilities(proportion, "proportion")
    if proportion.size != n_classes or abs(proportion.sum() - 1.0) > v.ROW_SUM_TOLERANCE:
        raise ValueError(
            f"proportion must be {n_classes} class proportions summing to 1 (one per row of "
            f"confusion); saw {proportion.tolist()}"
        )
    proportion = proportion / proportion.sum()  # within 1e-6 of 1; the draws want it exact
    separation = v.as_positive(separation, "separation")
    sharpness = v.as_positive(sharpness, "sharpness")
    rng = np.random.default_rng(v.as_seed(seed))
    labels, features = _features(rng, n, proportion, float(separation))
    cumulative = confusion[:, labels].cumsum(axis=2)  # (K, n, C)
    answers = (rng.random((confusion.shape[0], n, 1)) > cumulative).sum(axis=2).T
    data = AnnotatedScores(
        _classifier(features, separation, sharpness),
        np.minimum(answers, n_classes - 1),  # a cumulative sum that rounds below 1
        classes=None if classes is None else list(classes),
        ordinal=ordinal,
    )
    return ClassSimulation(data, labels, confusion, proportion, separation, sharpness)
