"""NC-ECE bin means with gold items: model-based and rectified (prediction-powered).

With gold items (human-verified labels ``Y`` on a random sample of the items) a bin's mean of
``Y`` can be estimated two ways from the corrected labels ``U`` of the channel model:

- **model-based**: the mean over the bin's items of ``Y`` where it is known and ``U`` elsewhere.
  Efficient when the channel model holds; biased when it does not (judges who copy each other,
  items hard for every judge), as NC-ECE without gold is.
- **rectified** (PPI++, Angelopoulos, Duchi and Zrnic 2023): with the ``N`` other items ``O``
  and the ``n`` gold items ``G`` of the bin, of a simple random sample of gold,

      m_hat = lambda (1/N) sum_O U_i + (1/n) sum_G (Y_i - lambda U_i),

  unbiased for any ``lambda`` whatever the channel model.  The first mean runs over the bin's
  other items, as ``ppi_py`` takes an independent unlabelled set.  ``lambda`` minimises the
  variance as ``ppi_py`` tunes it (:func:`ppi_lambda`), and the CLT standard error is
  ``sqrt(lambda^2 Var_O(U) / N + Var_G(Y - lambda U) / n)`` (divisors N and n, ``ppi_py``'s
  convention).
- **rectified with inclusion probabilities** (gold drawn item by item with probabilities
  ``pi_i``, stratified by score or chosen by :func:`~bayescal.correction.select_for_gold`;
  active inference, Zrnic and Candès 2024): with the bin's ``N + n`` items ``B`` and weights
  ``w_i = 1 / pi_i``,

      m_hat = lambda (1/(N + n)) sum_B U_i + sum_G w_i (Y_i - lambda U_i) / sum_G w_i,

  the second term the self-normalised (Hájek) mean of ``Y - lambda U`` over the bin.  The first
  mean runs over *all* the bin's items: when ``pi`` varies among a bin's items (by how sure
  the judges are), the items left without gold are no longer a random sample of the bin.
  ``lambda`` minimises the design variance of the Hájek mean, estimated with replacement
  (the factor ``1 - pi`` left out, as it is near 1 for a few hundred gold items):
  ``lambda = sum_G w^2 (Y - Ybar)(U - Ubar) / sum_G w^2 (U - Ubar)^2`` (:func:`weighted_lambda`,
  bars the weighted means).  The standard error is
  ``sqrt(Var_w(Y) / (N + n) + sum_G w^2 (d - dbar)^2 / (sum_G w)^2)``, ``d = Y - lambda U``:
  the bin's own mean of Y varies about its expectation, and the Hájek mean about the bin's.
  With equal weights this is the first estimator with ``lambda`` rescaled by ``N / (N + n)``.

Either ``lambda`` is clipped to [0, 1]; a bin with fewer than :data:`MIN_BIN_GOLD` gold items
uses the one ``lambda`` of all items pooled.

The bin moment NC-ECE sums is ``r_l = (n_l / n)(m_hat_l - zbar_l)``, ``n_l`` the bin's items and
``zbar_l`` their mean score.  Everything runs on *rows*: items, or cells of items that share a
bin, a corrected label, a gold label and a weight (:class:`GoldRows`), so that pattern cells and
single items go through one computation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import Result
from ..metrics.calibration import BinnedMoments

__all__ = [
    "GOLD_ESTIMATORS",
    "MIN_BIN_GOLD",
    "GoldRows",
    "MeanProblem",
    "RectifiedBins",
    "RectifiedLoss",
    "bin_lambdas",
    "gold_moment_draws",
    "gold_was_weighted",
    "ppi_lambda",
    "rectified_factors",
    "rectified_mean",
    "tuned_lambda",
    "weighted_lambda",
    "weighted_variance",
]

#: The estimators of a bin's mean of Y with gold (module docstring); the first is the default.
GOLD_ESTIMATORS = ("rectified", "model")
#: A bin with fewer gold items than this uses the pooled lambda: its own covariance of Y and
#: U would be mostly noise.  Measured (``benchmarks/RESULTS.md``): with 20 gold items a bin,
#: each bin's own lambda gave its moments 6-21% more variance than the pooled one; with 50,
#: the two were within 5%; with 100, its own was up to 2.5% better.
MIN_BIN_GOLD = 40


class GoldRows(NamedTuple):
    """Rows of items for the estimators with gold: each row stands for ``counts`` items that
    share its evaluation bin, corrected label ``targets`` (``U``), gold label (-1 for none) and
    weight (``1/pi`` for a gold item sampled with probability ``pi``; 1 otherwise)."""

    bins: np.ndarray
    targets: np.ndarray
    gold: np.ndarray
    counts: np.ndarray
    weights: np.ndarray

    def subset(self, keep: np.ndarray) -> GoldRows:
        return GoldRows(*(column[keep] for column in self))


@dataclass(frozen=True, eq=False, repr=False)
class RectifiedBins(Result):
    """The rectified bin means and what went into them.

    Attributes
    ----------
    moments : BinnedMoments
        ``r_l = (n_l / n)(m_hat_l - zbar_l)``.
    means : ndarray, shape (M,)
        ``m_hat_l`` (NaN for an empty bin).
    standard_errors : ndarray, shape (M,)
        CLT standard error of ``m_hat_l`` (module docstring); 0 for an empty bin.
    lambdas : ndarray, shape (M,)
        The ``lambda`` each bin used (1 for a bin without gold: its mean is the model's).
    gold_counts : ndarray of int, shape (M,)
        Gold items per bin.
    """

    moments: BinnedMoments
    means: np.ndarray
    standard_errors: np.ndarray
    lambdas: np.ndarray
    gold_counts: np.ndarray

    @property
    def bins_without_gold(self) -> int:
        """Non-empty bins with no gold item, whose means are the model's alone."""
        return int(((self.gold_counts == 0) & (self.moments.counts > 0)).sum())


class MeanProblem(NamedTuple):
    """One mean estimated from gold rows ``(y, u, c, w)`` and other rows ``(u_other,
    c_other)``: ``w`` already self-normalised to mean 1 over the gold items; ``weighted``
    whether the gold was drawn with inclusion probabilities (some weight differs from 1), which
    selects the estimator of the module docstring."""

    y: np.ndarray
    u: np.ndarray
    c: np.ndarray
    w: np.ndarray
    u_other: np.ndarray
    c_other: np.ndarray
    weighted: bool = False

    @classmethod
    def of(cls, rows: GoldRows, weighted: bool | None = None) -> MeanProblem:
        """The problem of ``rows``; ``weighted`` as decided for all the rows a bin is one of
        (:func:`gold_was_weighted`), or by these rows alone when not given."""
        gold = rows.gold != v.MISSING
        c, w = rows.counts[gold], rows.weights[gold]
        n = c.sum()
        if weighted is None:
            weighted = gold_was_weighted(rows)
        w = w * n / (c * w).sum() if n > 0 else w
        return cls(
            rows.gold[gold].astype(np.float64),
            rows.targets[gold],
            c,
            w,
            rows.targets[~gold],
            rows.counts[~gold],
            weighted,
        )

    @property
    def n(self) -> float:
        return float(self.c.sum())

    @property
    def n_other(self) -> float:
        return float(self.c_other.sum())

    def imputed(self) -> float:
        """The mean of ``U`` the estimate starts from: over the other items, or over all the
        items with inclusion probabilities (module docstring)."""
        total = (self.c_other * self.u_other).sum()
        if self.weighted:
            return float((total + (self.c * self.u).sum()) / (self.n + self.n_other))
        return float(total / self.n_other) if self.n_other else 0.0

    def _usable(self, lam: float) -> float:
        """``lambda``, or 0 where the PPI form has no other item to impute from: a bin whose
        items are all gold has the gold mean."""
        return lam if self.weighted or self.n_other else 0.0

    def estimate(self, lam: float) -> float:
        lam = self._usable(lam)
        return lam * self.imputed() + (self.c * self.w * (self.y - lam * self.u)).sum() / self.n

    def standard_error(self, lam: float) -> float:
        """The CLT standard error of :meth:`estimate` (module docstring)."""
        lam = self._usable(lam)
        if self.weighted:
            residual = self.y - lam * self.u
            centred = residual - (self.c * self.w * residual).sum() / self.n
            design = (self.c * (self.w * centred) ** 2).sum() / self.n**2
            spread = weighted_variance(self.y, self.c * self.w)
            return float(np.sqrt(spread / (self.n + self.n_other) + design))
        rectifier = weighted_variance(self.w * (self.y - lam * self.u), self.c) / self.n
        if not self.n_other:
            return float(np.sqrt(rectifier))
        return float(
            np.sqrt(
                lam**2 * weighted_variance(self.u_other, self.c_other) / self.n_other + rectifier
            )
        )


def gold_was_weighted(rows: GoldRows) -> bool:
    """Whether the gold of ``rows`` was drawn with inclusion probabilities (a gold weight
    differs from 1), which selects the estimator of the module docstring for every bin."""
    return bool((rows.weights[rows.gold != v.MISSING] != 1.0).any())


def rectified_factors(cells, is_gold, weight, n_items, lambdas) -> tuple[np.ndarray, np.ndarray]:
    """The factors ``(g, h)`` of each row's term ``g (Y - Z) + h (U - Z)`` in its cell's sum
    ``T_c = n_c (m_hat_c - zbar_c)`` of the rectified mean (module docstring), what the
    calibration tests with gold sum: rows in ``cells`` (R,), which are gold (``is_gold``),
    their weights ``1 / pi`` (``weight``, 1 off the gold), the cells' items ``n_items`` (M,)
    and lambdas (M,).  With ``r = n_c w / sum_G w`` on a gold row:

    - a simple random sample of gold (PPI form): ``g = r``, ``h = -r lambda`` on the gold and
      ``h = n_c lambda / N_c`` on the ``N_c`` others, exactly centred under ``E[Y | Z] = Z``;
      a cell of gold only takes ``lambda = 0``;
    - gold drawn with inclusion probabilities (all-items form): ``g = r`` and
      ``h = lambda (1 - g)``, so that ``lambda (U - Z)`` runs over every item and the Hájek
      mean of ``Y - lambda U - (1 - lambda) Z`` over the gold; centred over the gold's draw
      (the Hájek mean's ratio bias aside), its variance given the gold drawn conservative.

    A cell without gold has ``g = 0, h = 1``: its plain sum of ``U - Z``."""
    n_cells = n_items.size
    n_gold = np.bincount(cells, is_gold, n_cells)
    gold_mass = np.bincount(cells, np.where(is_gold, weight, 0.0), n_cells)
    n_other = n_items - n_gold
    with np.errstate(invalid="ignore", divide="ignore"):  # cells without one of the two
        rectifier = n_items / gold_mass
        other = np.where(n_gold > 0, n_items * lambdas / n_other, 1.0)
    g = np.where(is_gold, rectifier[cells] * weight, 0.0)
    if (weight[is_gold] != 1.0).any():
        return g, lambdas[cells] * (1.0 - g)
    lam = np.where(n_other > 0, lambdas, 0.0)[cells]
    return g, np.where(is_gold, -g * lam, other[cells])


def weighted_variance(x: np.ndarray, counts: np.ndarray, ddof: int = 0) -> float:
    """The variance of values ``x`` repeated ``counts`` times, divisor ``sum(counts) - ddof``."""
    total = counts.sum()
    mean = (counts * x).sum() / total
    return float((counts * (x - mean) ** 2).sum() / (total - ddof))


def tuned_lambda(problem: MeanProblem) -> float:
    """The variance-minimising ``lambda`` of the problem's estimator: :func:`weighted_lambda`
    with inclusion probabilities, else :func:`ppi_lambda`."""
    return weighted_lambda(problem) if problem.weighted else ppi_lambda(problem)


def weighted_lambda(problem: MeanProblem) -> float:
    """The ``lambda`` minimising the Hájek mean's design variance (module docstring):

        lambda = sum_G c w^2 (Y - Ybar)(U - Ubar) / sum_G c w^2 (U - Ubar)^2,

    bars the means weighted by ``c w``; clipped to [0, 1], 0 when ``U`` never varies."""
    if problem.n < 1:
        return 0.0
    c, w = problem.c, problem.w
    y = problem.y - (c * w * problem.y).sum() / problem.n
    u = problem.u - (c * w * problem.u).sum() / problem.n
    spread = (c * w**2 * u**2).sum()
    if spread <= 0:
        return 0.0
    return float(np.clip((c * w**2 * y * u).sum() / spread, 0.0, 1.0))


def ppi_lambda(problem: MeanProblem) -> float:
    """The power-tuning ``lambda`` of a mean (PPI++), as ``ppi_py`` computes it:

        lambda = Cov_G(g, h) / ((1 + n / N) Var_{G+O}(h)),

    ``g = w (Y - theta)``, ``h = w (U - theta)`` on the gold items and ``h = U - theta`` on the
    others, ``theta`` the estimate with ``lambda = 1``; the covariance with divisor ``n``, the
    variance over all ``n + N`` items with divisor ``n + N - 1``; clipped to [0, 1].  Without
    other items, or with corrected labels that never vary, ``lambda = 0`` (the gold mean)."""
    if not problem.n_other or problem.n < 1:
        return 0.0
    theta = problem.estimate(1.0)
    g = problem.w * (problem.y - theta)
    h = problem.w * (problem.u - theta)
    c = problem.c
    covariance = (c * (g - (c * g).sum() / problem.n) * (h - (c * h).sum() / problem.n)).sum()
    covariance /= problem.n
    spread = weighted_variance(
        np.concatenate([h, problem.u_other - theta]), np.concatenate([c, problem.c_other]), ddof=1
    )
    if spread <= 0:
        return 0.0
    return float(np.clip(covariance / ((1.0 + problem.n / problem.n_other) * spread), 0.0, 1.0))


def _gold_counts(rows: GoldRows, n_bins: int) -> np.ndarray:
    is_gold = rows.gold != v.MISSING
    return np.bincount(rows.bins[is_gold], weights=rows.counts[is_gold], minlength=n_bins)


def bin_lambdas(rows: GoldRows, n_bins: int) -> np.ndarray:
    """The ``lambda`` of each bin (M,): its own (:func:`tuned_lambda`) with at least
    :data:`MIN_BIN_GOLD` gold items, the pooled one with fewer, 1 without any (the bin's mean
    is then the model's)."""
    gold_counts = _gold_counts(rows, n_bins)
    weighted = gold_was_weighted(rows)
    pooled = tuned_lambda(MeanProblem.of(rows, weighted)) if gold_counts.sum() else 1.0
    lambdas = np.where(gold_counts > 0, pooled, 1.0)
    for b in np.flatnonzero(gold_counts >= MIN_BIN_GOLD):
        lambdas[b] = tuned_lambda(MeanProblem.of(rows.subset(rows.bins == b), weighted))
    return lambdas


def rectified_mean(y, predictions, other_predictions, weights=None) -> tuple[float, float, float]:
    """The rectified (PPI++) mean of a quantity known on the gold items (``y``, their
    ``predictions`` from the corrected labels, and ``weights`` ``1/pi``) and predicted on the
    other items (``other_predictions``): ``(estimate, lambda, standard error)`` (module
    docstring).  ``y`` need not be 0/1: any quantity linear in the label (an item's accuracy
    at a threshold, its Brier term) is rectified alike."""
    y = np.asarray(y, np.float64)
    ones = np.ones(y.size)
    w = ones if weights is None else np.asarray(weights, np.float64)
    problem = MeanProblem(
        y,
        np.asarray(predictions, np.float64),
        ones,
        w * y.size / w.sum(),
        np.asarray(other_predictions, np.float64),
        np.ones(np.size(other_predictions)),
        bool((w != 1.0).any()),
    )
    lam = tuned_lambda(problem)
    return problem.estimate(lam), lam, problem.standard_error(lam)


class RectifiedLoss(NamedTuple):
    """The rectified loss of a recalibration map with gold items, as a weighted fit (PPI++ for
    M-estimation, Angelopoulos, Duchi and Zrnic 2023, in the all-items form of the module
    docstring):

        L(f) = lambda mean_i l(f_i, U_i) + sum_G w_i [l(f_i, Y_i) - lambda l(f_i, U_i)] / sum_G w_i,

    unbiased for the loss against the true labels whatever the channel model, because the log
    loss ``l(f, t) = softplus(eta) - t eta`` is affine in the target: item ``i`` weighs
    ``omega_i = lambda / n + (1 - lambda) s_i`` (:meth:`weights`) with the target
    ``nu_i / omega_i``, ``nu_i = lambda U_i / n + s_i (Y_i - lambda U_i)`` (:meth:`targets`,
    :meth:`rectified`), ``s_i = w_i / sum_G w`` on the gold items (0 elsewhere), ``w = 1 / pi``
    (equal for a random sample).  The multi-class cross-entropy ``l(f, t) = (sum_k t_k)
    logsumexp(z) - t . z`` is linear in its target vector, so the same holds with ``U_i`` the
    corrected one-hot label and ``Y_i`` the gold one-hot label (:meth:`of_classes`): the loss of
    targets ``nu_i``, whose rows need not sum to 1.

    Attributes
    ----------
    lam : float
        ``lambda``, tuned for the mean of ``Y`` (:func:`tuned_lambda`; pooled over the ``C``
        coordinates' rows stacked, for classes) by :meth:`of` and :meth:`of_classes`.
    share : ndarray, shape (n,)
        ``s_i``.
    labels : ndarray, shape (n,) or (C, n)
        ``Y_i`` on the gold items, 0 elsewhere (for classes, one row per class: the one-hot
        gold labels).
    """

    lam: float
    share: np.ndarray
    labels: np.ndarray

    @classmethod
    def of(cls, targets, has_target, gold, inclusion=None) -> RectifiedLoss:
        """The loss of corrected labels ``targets`` where ``has_target`` (elsewhere the
        prediction 0, which the gold rectifies like any other), gold labels ``gold`` and the
        gold items' inclusion probabilities ``inclusion`` (None: a simple random sample)."""
        loss = cls._of(np.asarray(targets)[None], has_target, gold, gold[None], inclusion)
        return loss._replace(labels=loss.labels[0])

    @classmethod
    def of_classes(cls, targets, has_target, gold, inclusion=None) -> RectifiedLoss:
        """:meth:`of` of corrected one-hot labels ``targets`` (n, C) and gold class codes
        ``gold`` (n,; -1 for none): one ``lambda`` for the ``C`` coordinates, the
        variance-minimising one of their rows stacked (a pooled ``lambda``: any fixed one keeps
        the loss unbiased, tuning only trims its variance)."""
        classes = np.arange(targets.shape[1])
        one_hot = (gold[None, :] == classes[:, None]).astype(np.float64)  # (C, n)
        return cls._of(np.asarray(targets).T, has_target, gold, one_hot, inclusion)

    @classmethod
    def _of(cls, targets, has_target, gold, labels, inclusion) -> RectifiedLoss:
        """The loss of ``targets`` (D, n) and gold values ``labels`` (D, n) of the items whose
        ``gold`` (n,) is not missing: ``lambda`` tuned on the D coordinates' rows stacked."""
        is_gold = gold != v.MISSING
        if not is_gold.any():
            raise ValueError("gold: the rectified loss needs gold items; saw none")
        w = np.ones(gold.size)
        if inclusion is not None:
            w = np.where(is_gold, 1.0 / np.where(is_gold, inclusion, 1.0), 1.0)
        u = np.where(has_target, targets, 0.0)
        size = u.size
        rows = GoldRows(
            np.zeros(size, np.int64),
            u.ravel(),
            np.where(is_gold, labels, v.MISSING).ravel(),
            np.ones(size),
            np.tile(w, u.shape[0]),
        )
        lam = tuned_lambda(MeanProblem.of(rows))
        share = np.where(is_gold, w, 0.0)
        return cls(lam, share / share.sum(), np.where(is_gold, labels, 0.0))

    def _omega(self) -> np.ndarray:
        return self.lam / self.share.size + (1.0 - self.lam) * self.share

    def weights(self) -> np.ndarray:
        """``omega`` (n,) scaled to mean 1 over the items that weigh (with ``lambda = 0``,
        only the gold items do)."""
        omega = self._omega()
        return omega * (omega > 0).sum() / omega.sum()

    def weighing(self, has_target: np.ndarray) -> np.ndarray:
        """The items (n,) whose rectified targets can be other than 0: the gold items, and
        with ``lambda > 0`` those with a corrected label (``has_target``)."""
        return (self.share > 0) | (has_target & (self.lam > 0))

    def rectified(self, u: np.ndarray) -> np.ndarray:
        """``nu`` (..., n) of corrected labels ``u`` (..., n; 0 where an item has none): the
        targets of the unweighted loss, ``sum_i l(f_i, nu_i)`` being ``L(f)``."""
        return self.lam * u / self.share.size + self.share * (self.labels - self.lam * u)

    def targets(self, u: np.ndarray) -> np.ndarray:
        """The fitting targets (..., n) of corrected labels ``u`` (..., n), 0 where an item has
        none; an item that does not weigh keeps its ``u``."""
        omega = self._omega()
        weighs = omega > 0
        return np.where(weighs, self.rectified(u) / np.where(weighs, omega, 1.0), u)


def rectified_bins(
    rows: GoldRows, bin_score_sums: np.ndarray, edges: np.ndarray, n_items: int
) -> RectifiedBins:
    """The rectified bin means of ``rows`` (module docstring) and their NC-ECE moments;
    ``bin_score_sums`` (M,) are the sums of the scores of every item of each bin (``n_items``
    in all)."""
    n_bins = edges.size - 1
    items = np.bincount(rows.bins, weights=rows.counts, minlength=n_bins)
    gold_counts = _gold_counts(rows, n_bins)
    lambdas = bin_lambdas(rows, n_bins)
    weighted = gold_was_weighted(rows)
    means = np.full(n_bins, np.nan)
    errors = np.zeros(n_bins)
    for b in np.flatnonzero(items > 0):
        here = rows.subset(rows.bins == b)
        if gold_counts[b] == 0:  # nothing to rectify with: the model's mean alone
            means[b] = (here.counts * here.targets).sum() / items[b]
            errors[b] = np.sqrt(weighted_variance(here.targets, here.counts) / items[b])
            continue
        problem = MeanProblem.of(here, weighted)
        means[b] = problem.estimate(lambdas[b])
        errors[b] = problem.standard_error(lambdas[b])
    with np.errstate(invalid="ignore"):
        moments = np.where(items > 0, (items * means - bin_score_sums) / n_items, 0.0)
    return RectifiedBins(
        BinnedMoments(edges, items.astype(np.int64), moments, n_items),
        means,
        errors,
        lambdas,
        gold_counts.astype(np.int64),
    )


def model_bins(
    rows: GoldRows, bin_score_sums: np.ndarray, edges: np.ndarray, n_items: int
) -> BinnedMoments:
    """The model-based NC-ECE moments of ``rows``: each item's target its gold label where it
    has one, its corrected label elsewhere (no weights: either target is unbiased for the
    item's own Y, however the gold items were chosen)."""
    targets = np.where(rows.gold != v.MISSING, rows.gold, rows.targets)
    n_bins = edges.size - 1
    items = np.bincount(rows.bins, weights=rows.counts, minlength=n_bins)
    sums = np.bincount(rows.bins, weights=rows.counts * targets, minlength=n_bins)
    return BinnedMoments(edges, items.astype(np.int64), (sums - bin_score_sums) / n_items, n_items)


def bootstrap_weights(rows: GoldRows, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Bayesian-bootstrap weights (S, R) of the rows (Rubin 1981): row ``r``'s ``Gamma(count_r,
    1)``, mean and variance its count.  A gold row of gold drawn with inclusion probabilities
    (Poisson sampling) gets ``Gamma(count / (1 - pi), 1 - pi)`` instead: the same mean, the
    variance ``count (1 - pi)`` of the design (the frequentist bootstrap's reason,
    :func:`bayescal.correction.gold_interval.resampled_items`), and no spread at ``pi = 1``."""
    shape = (n_draws, rows.counts.size)
    if not gold_was_weighted(rows):
        return rng.gamma(np.broadcast_to(rows.counts, shape))
    spread = np.where(rows.gold != v.MISSING, 1.0 - 1.0 / rows.weights, 1.0)
    varies = spread > 0
    scale = np.where(varies, spread, 1.0)
    drawn = rng.gamma(rows.counts / scale, scale, shape)
    return np.where(varies, drawn, rows.counts)


def gold_moment_draws(
    rows: GoldRows,
    labels: np.ndarray,
    score_mean: np.ndarray,
    score_sd: np.ndarray,
    lambdas: np.ndarray,
    estimator: str,
    uncertainty: str,
    rng: np.random.Generator,
    has_label: np.ndarray | None = None,
) -> np.ndarray:
    """Draws (S, M) of the bin moments with gold, one per draw of the rows' corrected labels
    ``labels`` (S, R) (``rows.targets`` is not read), ``lambdas`` (M,) fixed
    (:func:`bin_lambdas`: any lambda keeps the rectified means unbiased).

    ``uncertainty="total"`` adds a Bayesian bootstrap of the items (Rubin 1981), as
    :func:`bayescal.nc_ece_posterior` does: a row's share :func:`bootstrap_weights`, normalised
    over the rows, and its mean score ``mean + sd / sqrt(count + 1) * eps``; the gold items and the
    others are then reweighted alike, and each bin's two means (module docstring) are taken
    under the draw's weights (with inclusion probabilities, the mean of ``U`` over all the
    bin's items).  ``"channels"`` keeps the rows' counts and mean scores.  A row
    without a label in a draw (``has_label`` (S, R) False: the crowd rule) weighs 0 there.
    """
    n_draws, n_bins = labels.shape[0], lambdas.size
    is_gold = rows.gold != v.MISSING
    if uncertainty == "total":
        weights = bootstrap_weights(rows, n_draws, rng)
        scores = score_mean + score_sd / np.sqrt(rows.counts + 1) * rng.standard_normal(
            labels.shape
        )
    else:
        weights = np.broadcast_to(rows.counts, labels.shape).astype(np.float64)
        scores = np.broadcast_to(score_mean, labels.shape)
    if has_label is not None:
        weights = weights * has_label
    weights = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
    flat = (rows.bins + n_bins * np.arange(n_draws)[:, None]).ravel()

    def by_bin(values):
        return np.bincount(flat, np.asarray(values).ravel(), n_draws * n_bins).reshape(
            n_draws, n_bins
        )

    share = by_bin(weights)
    score_sums = by_bin(weights * scores)
    if estimator == "model":
        targets = np.where(is_gold, rows.gold, labels)
        return by_bin(weights * targets) - score_sums
    gold_weights = weights * (is_gold * rows.weights)
    other_weights = weights * ~is_gold
    gold_mass, other_mass = by_bin(gold_weights), by_bin(other_weights)
    with np.errstate(invalid="ignore", divide="ignore"):  # a bin without gold, or others
        gold_y = by_bin(gold_weights * np.where(is_gold, rows.gold, 0)) / gold_mass
        gold_u = by_bin(gold_weights * labels) / gold_mass
        other_u = by_bin(other_weights * labels) / other_mass
        model = by_bin(weights * labels) / share
    if gold_was_weighted(rows):  # inclusion probabilities: U over all items
        other_u, other_mass = model, share
    means = np.where(
        gold_mass > 0,
        np.where(other_mass > 0, gold_y + lambdas * (other_u - gold_u), gold_y),
        model,
    )
    return np.where(share > 0, share * means - score_sums, 0.0)
