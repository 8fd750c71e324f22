"""Multi-class Dawid–Skene EM on response-pattern counts: every annotator's confusion matrix
and the class proportions (Dawid and Skene 1979; the binary model of :mod:`bayescal.channels.em`
with ``C`` classes).

Model: ``Y ~ Categorical(pi)`` and annotator ``j`` answers ``k`` with probability
``T_j[Y, k]``, the annotators independent given ``Y``.  For a response pattern ``s`` with
observed set ``O`` and count ``c_s``:

    log p(s | Y = y) = sum_{j in O} log T_j[y, s_j]

E-step (log space): ``w_sy = P(Y = y | s)``.  M-step with a symmetric Dirichlet(alpha) prior
on every row of every ``T_j`` (MAP, ``alpha >= 1``; ``alpha = 1`` is the maximum likelihood, as
``crowd_em``'s Beta(1, 1)):

    T_j[y, k] = (sum_s c_s w_sy [s_j = k] + alpha - 1) / (sum_s c_s w_sy [j in O_s] + C (alpha - 1))
    pi_y = sum_s c_s w_sy / n.

A missing response drops out of both sums.  Each iteration costs O(patterns x K x C), not
O(items).  Iteration stops when the mean log posterior (the log-likelihood plus the prior's
``(alpha - 1) sum log T``) changes by less than ``tol``.

**Orientation without a wall.**  The likelihood is the same under any relabelling of the latent
classes.  Each start's estimate is relabelled by the permutation ``sigma`` that maximises the
label-weighted diagonal ``sum_j n_j sum_y T_j[sigma(y), y]`` (a linear assignment on the
population's summed confusion), the multi-class form of the binary rule (the label-weighted gap
``sum_j n_j (b_j - a_j)`` positive); then the start of highest log-likelihood is kept.  At
``C = 2`` the fit is the binary EM's (``a_j = T_j[0, 1]``, ``b_j = T_j[1, 1]``).

**One coin** (``structure="one_coin"``, for small panels): ``T_j[y, y] = p_j`` and every
other cell ``(1 - p_j) / (C - 1)``, one parameter per annotator; the M-step sets ``p_j`` to
the share of the annotator's expected cells on the diagonal (the prior's ``alpha - 1`` counted in
every cell).
Its latent classes are tied to the answers through the diagonal, so it is not relabelled.

**By distance** (``structure="by_distance"``, for an ordinal scale whose codes are in the
scale's order): the odds of each answer against the right one depend only on how far it lies
from it::

    T_j[y, k] = r_j[|y - k|] / sum_k' r_j[|y - k'|],    r_j[0] = 1,

``C - 1`` parameters an annotator (one per distance, the one-coin model's form per distance)
against the full model's ``C (C - 1)``: a judge who slips to the next grade more often than two
grades away is described by a few numbers, and a row seen rarely borrows from the others.  The
M-step maximises the expected log-likelihood of the annotator's expected cells ``N_j[y, k]``,
``sum N_j[y, k] log r_j[|y - k|] - sum_y N_j[y, .] log sum_k' r_j[|y - k'|]``, concave in
``log r_j``, by Newton's method (:func:`by_distance`).  Like the one-coin model it ties the
latent classes to the answers and is not relabelled.

Starts: the majority vote (one M-step from each pattern's vote shares), then seeded random
diagonally dominant ones.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import optimize

from .. import _validation as v
from .._api import warn_caller
from ..exceptions import ConvergenceWarning, IdentificationError

__all__ = ["CONFUSION_STRUCTURES", "ConfusionEstimate", "confusion_em"]

#: The confusion matrices' forms (module docstring); the first is the default.
CONFUSION_STRUCTURES = ("full", "one_coin", "by_distance")
#: Probabilities are kept at least this inside logarithms (a perfect annotator's zero cells).
EPS = 1e-12
#: The log-odds of an answer at some distance against the right one are kept within this much
#: (a distance never seen answered would run to minus infinity by maximum likelihood).
MAX_LOG_ODDS = 30.0
#: The share of the uniform row mixed into every row of a start given (``init``): a cell at 0
#: would stay at 0 under EM.
START_LIFT = 1e-3
#: The most memory the dense EM's one-hot answers (patterns x annotators x classes, float64)
#: may take; a crowd's patterns are nearly all distinct and would take far more.
MAX_PATTERN_BYTES = 2**30


class ConfusionEstimate(NamedTuple):
    """A multi-class EM fit (module docstring).

    Attributes
    ----------
    confusion : ndarray, shape (K, C, C)
        ``T_j[y, k] = P(A_j = k | Y = y)``.
    prevalence : ndarray, shape (C,)
    loglik : float
        The log-likelihood of the pattern counts at the estimate.
    converged : bool
    n_iter : int
    """

    confusion: np.ndarray
    prevalence: np.ndarray
    loglik: float
    converged: bool
    n_iter: int


class _Patterns(NamedTuple):
    """The distinct (response pattern, gold label) rows: the patterns (P, K), their counts
    (P,), one-hot answers (P, K, C), zero where a response is missing, and each row's gold
    label (P,; -1 for none)."""

    patterns: np.ndarray
    counts: np.ndarray
    answers: np.ndarray
    gold: np.ndarray

    @classmethod
    def of(cls, annotations: np.ndarray, n_classes: int, gold=None) -> _Patterns:
        with_gold = np.column_stack(
            [annotations, np.full(annotations.shape[0], v.MISSING) if gold is None else gold]
        )
        rows, counts = np.unique(with_gold, axis=0, return_counts=True)
        patterns = rows[:, :-1]
        size = patterns.size * n_classes * 8
        if size > MAX_PATTERN_BYTES:
            raise ValueError(
                f"annotations: the dense multi-class EM would hold {size / 2**30:.1f} GiB of "
                f"one-hot answers ({patterns.shape[0]} distinct patterns x "
                f"{patterns.shape[1]} annotators x {n_classes} classes); fit a crowd with "
                "crowd_em, which runs on its sparse responses"
            )
        answers = (patterns[:, :, None] == np.arange(n_classes)).astype(np.float64)
        return cls(patterns, counts.astype(np.float64), answers, rows[:, -1])

    def with_gold(self, posterior: np.ndarray) -> np.ndarray:
        """The class posteriors with every gold row's set to its one-hot gold label."""
        known = self.gold != v.MISSING
        posterior[known] = np.eye(posterior.shape[1])[self.gold[known]]
        return posterior

    def e_step(self, confusion, prevalence) -> tuple[float, np.ndarray]:
        """The log-likelihood and the class posteriors (P, C); a gold row's term is
        ``log p(s, Y = g)`` and its posterior its gold label."""
        log_t = np.log(np.maximum(confusion, EPS))  # (K, C(y), C(k))
        joint = np.einsum("pkc,kyc->py", self.answers, log_t) + np.log(np.maximum(prevalence, EPS))
        posterior, total = normalised(joint, axis=1)
        known = self.gold != v.MISSING
        total[known] = joint[known, self.gold[known]]
        return float(self.counts @ total), self.with_gold(posterior)

    def m_step(
        self, posterior, alpha: float, structure: str, tied=None
    ) -> tuple[np.ndarray, np.ndarray]:
        weighted = posterior * self.counts[:, None]  # (P, C(y))
        cells = tie_rows(np.einsum("py,pkc->kyc", weighted, self.answers) + (alpha - 1.0), tied)
        if structure == "one_coin":  # only the diagonal's share is free (module docstring)
            n_classes = cells.shape[1]
            right = np.trace(cells, axis1=1, axis2=2) / cells.sum(axis=(1, 2))  # (K,)
            wrong = (1.0 - right) / (n_classes - 1)
            eye = np.eye(n_classes)
            confusion = right[:, None, None] * eye + wrong[:, None, None] * (1.0 - eye)
        elif structure == "by_distance":
            confusion = by_distance(cells)
        else:
            confusion = cells / cells.sum(axis=2, keepdims=True)
        return confusion, weighted.sum(axis=0) / self.counts.sum()


def as_tie_groups(tied, n_classes: int) -> np.ndarray:
    """``tied`` as each of the ``n_classes`` classes' tie group (C,) of non-negative
    integers, or its error."""
    groups = np.asarray(tied)
    if groups.shape != (n_classes,) or groups.dtype.kind not in "iu" or (groups < 0).any():
        raise ValueError(
            f"tied must give each of the {n_classes} classes a non-negative integer group; saw "
            f"{groups.tolist()!r}"
        )
    return groups


def tie_rows(cells: np.ndarray, tied) -> np.ndarray:
    """The expected cells (K, C(y), C(k)) with every row replaced by the sum of its tie
    group's rows (``tied`` (C,), each class's group; None ties nothing): normalised, the rows
    of a group are one row, the M-step of the model in which every annotator answers the
    classes of a group alike (:mod:`bayescal.channels.confused_classes`)."""
    if tied is None:
        return cells
    same = (tied[:, None] == tied[None, :]).astype(np.float64)
    return np.einsum("yz,kzc->kyc", same, cells)


def by_distance(cells: np.ndarray, n_newton: int = 50) -> np.ndarray:
    """The by-distance confusion matrices (K, C, C) of highest likelihood for expected cells
    ``cells`` (K, C(y), C(k)) (module docstring): per annotator, the log-odds
    ``rho_d = log r_d`` (``rho_0 = 0``) maximising::

        f(rho) = sum_{y,k} N[y, k] rho_|y-k| - sum_y n_y log sum_k exp(rho_|y-k|),

    concave, by Newton steps halved until ``f`` rises, with gradient
    ``M_d - sum_y n_y Q_y[d]`` and Hessian ``-sum_y n_y (diag Q_y - Q_y Q_y^T)``, where ``M_d``
    is the cells' count at distance ``d`` and ``Q_y[d]`` row ``y``'s probability of an answer
    there; ``rho`` kept within ``MAX_LOG_ODDS``."""
    n_annotators, n_classes, _ = cells.shape
    classes = np.arange(n_classes)
    distance = np.abs(classes[:, None] - classes[None, :])
    at = (distance[:, :, None] == classes[None, None, 1:]).astype(np.float64)  # (y, k, d >= 1)
    seen = np.einsum("jyk,ykd->jd", cells, at)  # M_d
    rows = cells.sum(axis=2)  # n_y

    def rows_and_objective(rho):
        logits = np.einsum("ykd,jd->jyk", at, rho)
        largest = logits.max(axis=2, keepdims=True)
        log_total = np.log(np.exp(logits - largest).sum(axis=2)) + largest[..., 0]
        confusion = np.exp(logits - log_total[..., None])
        return confusion, (seen * rho).sum(axis=1) - (rows * log_total).sum(axis=1)

    # start: each distance's share of the cells against the diagonal's, per cell
    per_cell = np.maximum(seen / at.sum(axis=(0, 1)), EPS)
    diagonal = np.maximum(np.trace(cells, axis1=1, axis2=2) / n_classes, EPS)
    rho = np.clip(np.log(per_cell / diagonal[:, None]), -MAX_LOG_ODDS, MAX_LOG_ODDS)
    confusion, objective = rows_and_objective(rho)
    for _ in range(n_newton):
        shares = np.einsum("jyk,ykd->jyd", confusion, at)  # Q_y[d]
        gradient = seen - np.einsum("jy,jyd->jd", rows, shares)
        outer = np.einsum("jyd,jye->jyde", shares, shares)
        hessian = np.einsum("jy,jyde->jde", rows, outer) - np.einsum(
            "jy,jyd,de->jde", rows, shares, np.eye(n_classes - 1)
        )
        ridge = 1e-9 * np.eye(n_classes - 1) * (1.0 + rows.sum(axis=1))[:, None, None]
        step = -np.linalg.solve(hessian - ridge, gradient[..., None])[..., 0]
        size = np.ones(n_annotators)
        while True:  # halve each annotator's step until its objective rises
            trial = np.clip(rho + size[:, None] * step, -MAX_LOG_ODDS, MAX_LOG_ODDS)
            trial_confusion, trial_objective = rows_and_objective(trial)
            worse = trial_objective < objective - 1e-12 * np.abs(objective)
            if not worse.any() or size.min() < 1e-6:
                break
            size[worse] /= 2.0
        better = ~worse
        previous = rho.copy()
        rho[better], objective[better] = trial[better], trial_objective[better]
        confusion[better] = trial_confusion[better]
        # the accepted move, not the step: a distance never answered sits on the clip,
        # where its step stays large and its move is 0
        if np.abs(rho - previous).max() < 1e-10:
            break
    return confusion


def require_classes_given(labels: np.ndarray, gold, n_classes: int, where: str) -> None:
    """Refuse labels (every annotator's, and the gold) that never name some class: nothing
    tells that class's items apart, so its confusion rows and proportion would be made up (the
    EM returns a phantom class, not an error)."""
    given = np.zeros(n_classes, dtype=bool)
    for codes in (labels,) if gold is None else (labels, gold):
        given[codes[codes != v.MISSING]] = True
    if not given.all():
        missing = np.flatnonzero(~given).tolist()
        raise IdentificationError(
            f"{where}: class code(s) {missing} never appear among the labels or the gold: "
            "their confusion rows and proportions cannot be estimated; drop those classes "
            "from the data (or label some of their items)"
        )


def require_confusions_identified(labels: np.ndarray, gold, n_classes: int, where: str) -> None:
    """Refuse what cannot identify multi-class confusion matrices: a class no label nor gold
    names (:func:`require_classes_given`), or fewer than three annotators without gold labels
    of every class (Dawid–Skene needs three conditionally independent annotators)."""
    require_classes_given(labels, gold, n_classes, where)
    gold_classes = 0 if gold is None else np.unique(gold[gold != v.MISSING]).size
    if labels.shape[1] < 3 and gold_classes < n_classes:
        raise IdentificationError(
            f"{where}: {labels.shape[1]} annotator(s) cannot identify their confusion "
            "matrices without gold labels of every class (Dawid-Skene needs three "
            "conditionally independent annotators, as dawid_skene_em does; gold of "
            f"{gold_classes} of the {n_classes} classes given); add annotators or gold"
        )


def normalised(joint: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``(exp(joint) / sum exp(joint), log sum exp(joint))`` along ``axis``: the class
    posteriors and the log-likelihood terms of log joint probabilities.  Written out, not
    scipy's ``logsumexp``, whose checks cost more than the sum on the small arrays of a
    panel's patterns and on the long rows of a crowd's items."""
    largest = joint.max(axis=axis, keepdims=True)
    shifted = np.exp(joint - largest)
    totals = shifted.sum(axis=axis, keepdims=True)
    return shifted / totals, np.squeeze(largest + np.log(totals), axis=axis)


def _majority_start(patterns: _Patterns, alpha: float, structure: str, tied):
    """One M-step from each pattern's shares of votes per class (a pattern without a vote
    cannot occur: every item has a label)."""
    votes = patterns.answers.sum(axis=1)
    shares = patterns.with_gold(votes / votes.sum(axis=1, keepdims=True))
    # smoothed: a cell at 0 stays at 0 under EM, and a vote may miss a class
    return patterns.m_step(shares, max(alpha, 1.5), structure, tied)


def as_start(init, n_annotators: int, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``init`` as a start ``(confusion, prevalence)`` of ``n_annotators`` matrices of
    ``n_classes`` classes (each row mixed with ``START_LIFT`` of the uniform row), or its
    error."""
    if not isinstance(init, tuple) or len(init) != 2:
        raise TypeError(
            "init must be a tuple (confusion, prevalence) (dawid_skene_em also takes the "
            f"ConfusionFit of a multi-class fit); saw {type(init).__name__}"
        )
    confusion = v.as_confusion_matrices(init[0], "init confusion")
    prevalence = v.as_probabilities(init[1], "init prevalence")
    if (
        confusion.shape != (n_annotators, n_classes, n_classes)
        or prevalence.shape != (n_classes,)
        or abs(prevalence.sum() - 1.0) > v.ROW_SUM_TOLERANCE
    ):
        raise ValueError(
            f"init must hold ({n_annotators}, {n_classes}, {n_classes}) matrices and "
            f"{n_classes} proportions summing to 1; saw {confusion.shape} and proportions "
            f"{np.round(prevalence, 6).tolist()}"
        )
    # a cell at 0 stays at 0 under EM: every cell is lifted a little, as the majority
    # vote's start is smoothed
    return (1.0 - START_LIFT) * confusion + START_LIFT / n_classes, prevalence


def _random_start(rng, n_annotators: int, n_classes: int, structure: str):
    """Rows drawn around a diagonal of 0.6-0.9 (the rest split at random, or evenly for one
    coin; by distance, the by-distance rows nearest them), class proportions from a flat
    Dirichlet."""
    diagonal = rng.uniform(0.6, 0.9, (n_annotators, n_classes))
    if structure == "one_coin":
        diagonal[:] = diagonal[:, :1]
        split = np.full((n_annotators, n_classes, n_classes - 1), 1.0 / (n_classes - 1))
    else:
        split = rng.dirichlet(np.ones(n_classes - 1), (n_annotators, n_classes))
    rest = split * (1.0 - diagonal[..., None])
    confusion = np.empty((n_annotators, n_classes, n_classes))
    for y in range(n_classes):
        others = [k for k in range(n_classes) if k != y]
        confusion[:, y, y] = diagonal[:, y]
        confusion[:, y, others] = rest[:, y]
    if structure == "by_distance":  # the nearest by-distance rows, read as cells
        confusion = by_distance(confusion)
    return confusion, rng.dirichlet(np.ones(n_classes))


def orient(confusion: np.ndarray, prevalence: np.ndarray, labels_per_annotator: np.ndarray):
    """The estimate relabelled by the class permutation that maximises the label-weighted
    diagonal ``sum_j n_j sum_y T_j[sigma(y), y]`` (module docstring)."""
    population = np.einsum("j,jyk->yk", labels_per_annotator, confusion)
    rows, columns = optimize.linear_sum_assignment(population, maximize=True)
    order = rows[np.argsort(columns)]  # the latent class that becomes class k
    return confusion[:, order, :], prevalence[order]


def confusion_em(
    annotations,
    n_classes,
    *,
    structure="full",
    smoothing=1.0,
    n_starts=10,
    tol=1e-8,
    max_iter=1000,
    seed=0,
    gold=None,
    tied=None,
    init=None,
) -> ConfusionEstimate:
    """Multi-class Dawid–Skene EM (module docstring).

    Parameters
    ----------
    annotations : array_like of int, shape (n, K)
        Class codes ``0 .. n_classes - 1``, ``-1`` for missing; every item needs a label, and
        ``K >= 3`` (fewer are not identified: an :class:`~bayescal.IdentificationError`).
    n_classes : int
        ``C >= 2``.
    structure : {"full", "one_coin", "by_distance"}, default "full"
        Every cell free, the one-coin (symmetric) model of small panels, or the by-distance
        model of an ordinal scale whose codes follow the scale (module docstring).
    smoothing : float, default 1
        The symmetric Dirichlet ``alpha >= 1`` of every confusion row (1: maximum likelihood;
        2 adds a pseudo-label to every cell, keeping a class an annotator was never seen
        answering away from 0).
    n_starts : int, default 10
        The majority-vote start, then seeded random ones.
    tol : float, default 1e-8
        Stop when the mean log posterior changes by less than this.
    max_iter : int, default 1000
    seed : int, default 0
    gold : array_like of int, shape (n,), optional
        Human-verified class codes of some items, ``-1`` elsewhere: a gold item's class is
        known in every E-step (its term ``log p(s, Y = g)``), the gold fixes the classes (no
        relabelling), and with gold of every class fewer than three annotators are fitted.
    tied : array_like of int, shape (n_classes,), optional
        Each class's tie group, for the full structure: the classes of a group get one row
        in every annotator's matrix (every annotator answers them alike; their split of the
        proportion is then not identified without gold of both and stays where the start put
        it).  The tie names its classes, so the estimate is not relabelled: start it from a
        fit (``init``).  The model :mod:`bayescal.channels.confused_classes` tests against.
    init : tuple (confusion, prevalence), optional
        The first start in place of the majority vote: (K, C, C) matrices and (C,)
        proportions (a refit of data drawn from a fit starts at the fit), every row mixed
        with 0.1% of the uniform row (a cell at 0 would stay at 0).

    Returns
    -------
    ConfusionEstimate
        The oriented start of highest log posterior (the log-likelihood without smoothing);
        ``loglik`` is its log-likelihood.
    """
    n_classes = v.as_int(n_classes, "n_classes", minimum=2)
    annotations = v.as_class_annotations(annotations, "annotations", n_classes)
    v.check_items_annotated(annotations, "annotations")
    if gold is not None:
        gold = v.as_class_gold(gold, annotations.shape[0], n_classes)
    require_confusions_identified(annotations, gold, n_classes, "annotations")
    gold_classes = 0 if gold is None else np.unique(gold[gold != v.MISSING]).size
    structure = v.as_choice(structure, "structure", CONFUSION_STRUCTURES)
    if tied is not None:
        tied = as_tie_groups(tied, n_classes)
        if structure != "full":
            raise ValueError(
                f"tied: ties rows of the full confusion matrices; structure {structure!r} "
                "fixes their form itself"
            )
    alpha = float(v.as_finite_vector([smoothing], "smoothing")[0])
    if alpha < 1:
        raise ValueError(f"smoothing must be a Dirichlet alpha >= 1 (1: no smoothing); saw {alpha}")
    n_starts = v.as_int(n_starts, "n_starts", minimum=1)
    tol, max_iter = v.as_tolerance(tol), v.as_int(max_iter, "max_iter", minimum=1)
    rng = np.random.default_rng(v.as_seed(seed))
    if init is not None:
        init = as_start(init, annotations.shape[1], n_classes)
    patterns = _Patterns.of(annotations, n_classes, gold)
    has_gold = bool(gold_classes)
    n_labels = (annotations != v.MISSING).sum(axis=0).astype(np.float64)
    n_items = patterns.counts.sum()
    best, best_objective = None, -np.inf
    for start in range(n_starts):
        if start == 0 and init is not None:
            confusion, prevalence = init
        elif start == 0:
            confusion, prevalence = _majority_start(patterns, alpha, structure, tied)
        else:
            confusion, prevalence = _random_start(rng, annotations.shape[1], n_classes, structure)
        previous, converged, n_iter = -np.inf, False, 0
        for n_iter in range(max_iter + 1):
            loglik, posterior = patterns.e_step(confusion, prevalence)
            objective = loglik + (alpha - 1.0) * np.log(np.maximum(confusion, EPS)).sum()
            if abs(objective - previous) / n_items < tol:
                converged = True
                break
            if n_iter == max_iter:
                break
            confusion, prevalence = patterns.m_step(posterior, alpha, structure, tied)
            previous = objective
        # gold names the classes itself, and so does a tie (its start, init, sets them)
        if structure == "full" and not has_gold and tied is None:
            confusion, prevalence = orient(confusion, prevalence, n_labels)
        if best is None or objective > best_objective:  # MAP's target with smoothing
            best_objective = objective
            best = ConfusionEstimate(confusion, prevalence, loglik, converged, n_iter)
    if not best.converged:
        warn_caller(
            f"confusion_em: the best start did not converge in {max_iter} iterations (the "
            f"mean log posterior still moved by {tol:g} or more); raise max_iter",
            ConvergenceWarning,
        )
    return best
