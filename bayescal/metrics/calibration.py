"""Binned calibration metrics: ECE, MCE, reliability curve (Guo et al. 2017; Futami and Fujisawa; paper §2).

Every metric here is built from one quantity, the *calibration moment* of each bin,

    r_l = (1/n) * sum_i (t_i - z_i) * 1{z_i in B_l},

so that ``ECE = sum_l |r_l|``.  With binary targets ``t = y`` this is the usual binned ECE
(``|B_l|/n * |acc(B_l) - conf(B_l)|`` summed over non-empty bins); with corrected labels
``t = U`` it is the noise-corrected ECE of :mod:`bayescal.correction.known_channels` (paper Eq. 7).  Keeping
one moment function for both is what makes "perfect channels give exactly the clean ECE" hold
to the last bit.

Binning conventions
-------------------
``strategy="uniform"`` (equal width, Guo et al. 2017): bin index ``min(floor(z * M), M - 1)`` in
float64 arithmetic, so bins are ``[k/M, (k+1)/M)`` and a score of exactly 1 falls in the last
bin.  Empty bins contribute nothing.

``strategy="quantile"`` (equal mass, Futami and Fujisawa): the edges are the empirical quantiles of the
scores at ``k/M`` (numpy's default linear interpolation), bins are ``[e_k, e_{k+1})`` and the
last bin is closed.  Tie rule: equal scores always share a bin.  When several edges coincide
(many tied scores), a score equal to that edge goes to the *highest* bin whose lower edge it
equals, and the bins squeezed between the duplicate edges stay empty and are ignored.  So the
number of non-empty bins can be smaller than ``M``, and the metric is a function of the
multiset of (score, target) pairs, not of their order.

``n_bins="auto"`` uses ``round(n ** (1/3))``, the order that balances binning bias and
sampling error (Futami and Fujisawa; paper §3, M ≍ n^(1/3)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, Result, old_spellings
from .classes import CALIBRATION_KINDS, binary_problems

__all__ = [
    "BinnedMoments",
    "ClasswiseReliability",
    "ReliabilityBand",
    "ReliabilityCurve",
    "calibration_moments",
    "expected_calibration_error",
    "max_calibration_error",
    "reliability_curve",
]


@dataclass(frozen=True, eq=False, repr=False)
class BinnedMoments(Result):
    """Per-bin sufficient statistics of a calibration metric.

    Attributes
    ----------
    edges : ndarray, shape (M + 1,)
        Bin edges (``[0, 1/M, ..., 1]`` for uniform bins, score quantiles for quantile bins).
    counts : ndarray of int, shape (M,)
        Number of items in each bin.
    moments : ndarray, shape (M,)
        ``r_l = (1/n) sum_i (t_i - z_i) 1{z_i in B_l}``; zero for an empty bin.
    n_items : int
        Sample size ``n``.
    """

    edges: np.ndarray
    counts: np.ndarray
    moments: np.ndarray
    n_items: int

    @property
    def ece(self) -> float:
        """``sum_l |r_l|`` (paper Eq. 2 for clean labels, Eq. 7 for corrected labels)."""
        return float(np.abs(self.moments).sum())

    @property
    def mce(self) -> float:
        """``max_l |r_l| n / |B_l|`` over non-empty bins: the largest bin gap ``|acc - conf|``."""
        nonempty = self.counts > 0
        return float(np.max(np.abs(self.moments[nonempty]) * self.n_items / self.counts[nonempty]))


@dataclass(frozen=True, eq=False, repr=False)
class ReliabilityCurve(Result):
    """Reliability diagram data, one entry per bin.

    Attributes
    ----------
    edges : ndarray, shape (M + 1,)
    counts : ndarray of int, shape (M,)
    mean_predicted : ndarray, shape (M,)
        Mean score in each bin (``conf(B_l)``); NaN for an empty bin, where it is undefined.
    mean_target : ndarray, shape (M,)
        Mean target in each bin (``acc(B_l)``); NaN for an empty bin.
    """

    edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    mean_target: np.ndarray

    @property
    def nonempty(self) -> np.ndarray:
        """Boolean mask of the bins that hold at least one item."""
        return self.counts > 0

    @property
    def ece(self) -> float:
        """The binned ECE the curve shows, ``sum_l |B_l|/n |acc(B_l) - conf(B_l)|`` (paper
        Eq. 2), over its non-empty bins."""
        shown = self.nonempty
        gaps = np.abs(self.mean_target[shown] - self.mean_predicted[shown])
        return float(self.counts[shown] @ gaps / self.counts.sum())


@dataclass(frozen=True, eq=False, repr=False)
class ClasswiseReliability(Result):
    """Reliability diagram data of each class of a multi-class prediction: class ``k``'s
    probabilities against ``1{y = k}`` (:func:`reliability_curve` with ``kind="classwise"``).

    Attributes
    ----------
    curves : tuple of ReliabilityCurve
        One per class, in class order.
    """

    curves: tuple

    @property
    def n_classes(self) -> int:
        return len(self.curves)


@dataclass(frozen=True, eq=False, repr=False)
class ReliabilityBand(Result):
    """Reliability diagram of corrected labels with a credible band, one entry per bin.

    The posterior version of :class:`ReliabilityCurve`: each bin's corrected mean label
    ``conf(B_l) + r_l n / |B_l|`` has a posterior (paper Eq. 7 per bin), summarised by its
    median and equal-tailed interval.  Built by :meth:`bayescal.PosteriorECE.reliability_band`;
    kept here, free of the Bayesian stack, so a saved report can be redrawn from numbers alone.

    Attributes
    ----------
    edges : ndarray, shape (M + 1,)
    counts : ndarray of int, shape (M,)
    mean_predicted : ndarray, shape (M,)
        Mean score in each bin; NaN for an empty bin.
    lower, median, upper : ndarray, shape (M,)
        Posterior quantiles ``(1 - level)/2``, 0.5 and ``(1 + level)/2`` of the corrected mean
        label; NaN for an empty bin.  They may leave [0, 1]: corrected labels are unbiased, not
        bounded.
    level : float
    """

    edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    lower: np.ndarray
    median: np.ndarray
    upper: np.ndarray
    level: float

    @property
    def nonempty(self) -> np.ndarray:
        """Boolean mask of the bins that hold at least one item."""
        return self.counts > 0


def assign_bins(scores: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """Bin index of each (validated) score and the bin edges; conventions in the module docstring."""
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.quantile(scores, np.linspace(0.0, 1.0, n_bins + 1))
    return bin_index(scores, edges, strategy), edges


def bin_index(scores: np.ndarray, edges: np.ndarray, strategy: str) -> np.ndarray:
    """Bin of each (validated) score for edges made by :func:`assign_bins`.

    Fitted binned maps (:class:`bayescal.recalibration.HistogramBinning`) keep their edges and
    bin new scores with this, so fitting and prediction follow one convention.
    """
    if strategy == "uniform":
        n_bins = edges.size - 1
        # astype(int) truncates, which is floor for non-negative scores; computing from n_bins
        # rather than searching the edges keeps k/n_bins exactly on its bin's lower edge.
        return np.minimum((scores * n_bins).astype(np.int64), n_bins - 1)
    # side="right": a score equal to an interior edge starts the bin above it, and with
    # duplicate edges it skips to the highest of them, so ties never straddle bins.
    return np.searchsorted(edges[1:-1], scores, side="right")


def binned_moments(
    targets: np.ndarray, scores: np.ndarray, n_bins: int, strategy: str
) -> BinnedMoments:
    """Calibration moments of already validated inputs (shared by ECE and NC-ECE)."""
    return moments_in_bins(targets, scores, assign_bins(scores, n_bins, strategy)[1], strategy)


def moments_in_bins(
    targets: np.ndarray, scores: np.ndarray, edges: np.ndarray, strategy: str
) -> BinnedMoments:
    """:func:`binned_moments` in bins already made (``edges`` of :func:`assign_bins`, e.g. of a
    larger sample than the items scored here)."""
    n_bins = edges.size - 1
    index = bin_index(scores, edges, strategy)
    n = scores.shape[0]
    counts = np.bincount(index, minlength=n_bins)
    # Target and score sums apart, as the pattern route of NC-ECE forms them: with binary
    # targets the first sum is an exact integer, and the two routes agree to the last bit.
    moments = (
        np.bincount(index, weights=targets, minlength=n_bins)
        - np.bincount(index, weights=scores, minlength=n_bins)
    ) / n
    return BinnedMoments(edges=edges, counts=counts, moments=moments, n_items=n)


def _validated_binary(y_true: object, y_prob: object, n_bins: object, strategy: object):
    labels = v.as_binary_labels(y_true, "y_true")
    scores = v.as_probabilities(y_prob, "y_prob")
    v.check_same_length(labels, "y_true", scores, "y_prob")
    bins = v.as_n_bins(n_bins, scores.shape[0])
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    return labels.astype(np.float64), scores, bins, strategy


@old_spellings()
def calibration_moments(
    targets, scores, *, n_bins=DEFAULT_N_BINS, strategy="uniform"
) -> BinnedMoments:
    """Per-bin calibration moments ``r_l = (1/n) sum_i (t_i - z_i) 1{z_i in B_l}``.

    Parameters
    ----------
    targets : array_like, shape (n,)
        Finite real targets: binary labels, or corrected labels ``U`` (which may lie outside
        [0, 1], paper §3).
    scores : array_like, shape (n,)
        Predicted probabilities in [0, 1].
    n_bins : int or "auto", default 10
        ``"auto"`` = ``round(n ** (1/3))`` (Futami and Fujisawa).
    strategy : {"uniform", "quantile"}, default "uniform"

    Returns
    -------
    BinnedMoments
        ``.ece`` gives ``sum_l |r_l|``; the absolute values are taken per bin *after* summing
        over items, which is what makes the corrected version unbiased bin by bin (paper
        Lemma C.2).
    """
    target_array = v.as_finite_vector(targets, "targets")
    score_array = v.as_scores(scores)
    v.check_same_length(target_array, "targets", score_array, "scores")
    bins = v.as_n_bins(n_bins, score_array.shape[0])
    strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
    return binned_moments(target_array, score_array, bins, strategy)


@old_spellings()
def expected_calibration_error(
    y_true, y_prob, *, n_bins=DEFAULT_N_BINS, strategy="uniform", kind=None, normalize=False
) -> float:
    """Binned expected calibration error against clean labels (Guo et al. 2017; paper Eq. 2).

    ``ECE = sum_m |B_m|/n * |acc(B_m) - conf(B_m)| = sum_m |(1/n) sum_{i in B_m} (y_i - p_i)|``

    With a matrix of class probabilities, ``kind`` chooses the multi-class error, each a
    binary ECE as above (:mod:`bayescal.metrics.classes`): ``"top_label"`` scores the
    confidence ``max_k p_ik`` against ``1{y_i = argmax_k p_ik}``; ``"classwise"`` is the
    **mean** over the classes ``k`` of the ECE of ``p_ik`` against ``1{y_i = k}``.

    Parameters
    ----------
    y_true : array_like of int, shape (n,)
        0/1 labels; with ``kind`` or a matrix ``y_prob``, class indices ``0 .. C - 1``.
    y_prob : array_like, shape (n,) or (n, C)
        Predicted probabilities of class 1, in [0, 1]; or each item's probabilities of the
        ``C`` classes, rows summing to 1 (within 1e-6).
    n_bins : int or "auto", default 10
        Number of bins ``M``; ``"auto"`` = ``round(n ** (1/3))``.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (conventions in the module docstring), on each binary
        problem's own scores.
    kind : {"top_label", "classwise"}, optional
        The multi-class error; default ``"top_label"`` for a matrix ``y_prob`` of three
        classes or more (a two-column matrix needs ``kind``, or its second column for the
        binary ECE), the binary ECE for a vector (a vector with ``kind`` is the two classes
        ``[1 - p, p]``).
    normalize : bool, default False
        Divide each row of a matrix ``y_prob`` by its sum first (for rows that do not sum to 1).

    Returns
    -------
    float
        A value in [0, 1].

    Examples
    --------
    >>> expected_calibration_error([1, 0, 1, 0], [0.9] * 4, n_bins=2)
    0.4
    >>> probabilities = [[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.1, 0.8, 0.1]]
    >>> round(expected_calibration_error([0, 1, 2, 1], probabilities, n_bins=2), 10)
    0.075

    (Top-label: confidences 0.7, 0.6, 0.6, 0.8 all in bin [0.5, 1], three of four right:
    ``|0.75 - 0.675| = 0.075``.  Classwise would average three binary ECEs.)
    """
    problems = _binary_problems(y_true, y_prob, kind, normalize)
    return float(np.mean([_label_moments(*problem, n_bins, strategy).ece for problem in problems]))


def _binary_problems(y_true, y_prob, kind, normalize) -> tuple:
    """The binary problems of the input (:func:`bayescal.metrics.classes.binary_problems`):
    ``y_true`` and ``y_prob`` themselves when ``kind`` is None and ``y_prob`` is not a
    matrix (``normalize`` with a vector goes on, to be refused there).  A two-column matrix
    needs ``kind``: it is most often ``predict_proba``'s output, whose binary ECE is that of
    its second column, and whose top-label ECE is another number."""
    matrix = _is_matrix(y_prob)
    if kind is None and not matrix and not normalize:
        return ((y_true, y_prob),)
    if kind is None and matrix and np.shape(y_prob)[1] == 2:
        raise ValueError(
            "y_prob has two columns: pass y_prob[:, 1] for the binary ECE of class 1, or "
            "kind='top_label' or kind='classwise' for the two-class errors (they differ)"
        )
    return binary_problems(
        y_true, y_prob, CALIBRATION_KINDS[0] if kind is None else kind, normalize=normalize
    )


def _is_matrix(y_prob) -> bool:
    """Whether ``y_prob`` is 2-D; ragged input is not (the binary checks then name it)."""
    try:
        return np.ndim(y_prob) == 2
    except ValueError:  # numpy refuses a ragged nested list
        return False


def _label_moments(y_true, y_prob, n_bins, strategy) -> BinnedMoments:
    """The binned moments of binary labels: one compiled pass for equal-width bins."""
    if v.as_choice(strategy, "strategy", v.BIN_STRATEGIES) == "uniform":
        return _uniform_label_moments(y_true, y_prob, n_bins)
    labels, scores, bins, strategy = _validated_binary(y_true, y_prob, n_bins, strategy)
    return binned_moments(labels, scores, bins, strategy)


def _uniform_label_moments(y_true, y_prob, n_bins) -> BinnedMoments:
    """Equal-width moments of binary labels in one compiled pass that also checks the input.

    ``r_l = (n_l^1 - sum_{i in B_l} z_i) / n`` with ``n_l^1`` the positives of bin l
    (:mod:`bayescal.metrics.kernels`); NC-ECE forms its moments the same way, which keeps NC-ECE with
    perfect channels equal to this to the last bit."""
    from .kernels import binary_bin_counts

    labels, scores = v.as_numeric_array(y_true, "y_true"), v.as_numeric_array(y_prob, "y_prob")
    if labels.ndim != 1 or scores.ndim != 1 or labels.size == 0 or scores.size == 0:
        _validated_binary(
            y_true, y_prob, n_bins, "uniform"
        )  # raises the message naming the argument
    v.check_same_length(labels, "y_true", scores, "y_prob")
    bins = v.as_n_bins(n_bins, scores.size)
    binned = binary_bin_counts(scores.astype(np.float64, copy=False), labels, bins)
    if binned is None:  # the plain checks name the argument and the position
        _validated_binary(y_true, y_prob, n_bins, "uniform")
        raise AssertionError(
            "the compiled checks failed an input the plain checks passed"
        )  # pragma: no cover
    counts, score_sums = binned
    return BinnedMoments(
        np.linspace(0.0, 1.0, bins + 1),
        counts.sum(axis=1),
        (counts[:, 1] - score_sums) / scores.size,
        scores.size,
    )


@old_spellings()
def max_calibration_error(y_true, y_prob, *, n_bins=DEFAULT_N_BINS, strategy="uniform") -> float:
    """Maximum calibration error ``max_m |acc(B_m) - conf(B_m)|`` over non-empty bins (Guo et al. 2017).

    Parameters and binning as in :func:`expected_calibration_error`.  Always ``>= ECE``.
    """
    labels, scores, bins, strategy = _validated_binary(y_true, y_prob, n_bins, strategy)
    return binned_moments(labels, scores, bins, strategy).mce


@old_spellings()
def reliability_curve(
    y_true, y_prob, *, n_bins=DEFAULT_N_BINS, strategy="uniform", kind=None, normalize=False
):
    """Per-bin mean prediction and mean label, the data of a reliability diagram (Guo et al. 2017).

    Parameters and binning as in :func:`expected_calibration_error`.  Empty bins are kept so
    that every array has one entry per bin; their means are NaN (undefined), which matplotlib
    skips when plotting.  Use ``curve.nonempty`` to select the defined bins.

    Returns
    -------
    ReliabilityCurve or ClasswiseReliability
        One curve for binary labels and for ``kind="top_label"`` (mean confidence against
        accuracy); for ``kind="classwise"`` one curve per class.
    """
    problems = _binary_problems(y_true, y_prob, kind, normalize)
    curves = tuple(_label_curve(*problem, n_bins, strategy) for problem in problems)
    if kind == "classwise":
        return ClasswiseReliability(curves)
    return curves[0]


def _label_curve(y_true, y_prob, n_bins, strategy) -> ReliabilityCurve:
    return binned_curve(*_validated_binary(y_true, y_prob, n_bins, strategy))


def binned_curve(targets, scores, bins: int, strategy: str) -> ReliabilityCurve:
    """The reliability curve of checked ``targets`` (n,) against ``scores`` (n,) in ``bins``
    bins (``strategy`` as in :func:`reliability_curve`): each bin's mean score and mean target,
    ``mean_target[l] = sum_{i in B_l} t_i / |B_l|`` (NaN for an empty bin).  The targets are
    0/1 labels, or a naive target in [0, 1] such as an item's share of votes; the caller has
    checked them.

    Returns
    -------
    ReliabilityCurve
    """
    index, edges = assign_bins(scores, bins, strategy)
    counts = np.bincount(index, minlength=bins)
    with np.errstate(
        invalid="ignore", divide="ignore"
    ):  # 0/0 -> NaN marks empty bins, as documented
        mean_predicted = np.bincount(index, weights=scores, minlength=bins) / counts
        mean_target = np.bincount(index, weights=targets, minlength=bins) / counts
    return ReliabilityCurve(
        edges=edges, counts=counts, mean_predicted=mean_predicted, mean_target=mean_target
    )
