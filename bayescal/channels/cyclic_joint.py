"""The joint of annotators whose dependent pairs close a cycle: the pairwise log-linear model.

Pairs that share annotators and form a tree get the junction-tree product of their tables
(:mod:`bayescal.channels.dependence`).  On a cycle no product of pair tables sums to 1, and
pair covariances, each free within its own bounds, may admit no joint at all (``x_0 = x_1``,
``x_1 = x_2`` and ``x_0 != x_2`` are each a valid table).  A set ``M`` of ``m`` annotators
joined by pairs ``E`` that hold a cycle answers, given ``Y = y``, from the pairwise
log-linear model (the Ising model on the graph of its pairs)

    P(x_M | Y = y) = exp(sum_{j in M} h_j x_j + sum_{(j, k) in E} J_jk x_j x_k - A(h, J)),

``A`` the log of the sum over the ``2^m`` answer patterns.  Among all joints of ``M`` with the
annotators' channels ``p_j`` (``a_j`` given ``Y = 0``, ``b_j`` given ``Y = 1``) and the pairs'
covariances ``c_jk = P(x_j = x_k = 1 | y) - p_j p_k``, it is the one of maximum entropy; on a
tree it is the junction-tree product itself, so the two models are one family.  Its
sufficient statistics are the answers and the pairs' products, so

* **From channels and covariances** (the estimators' parameters, the mean coordinates
  ``mu = (p, c + p_j p_k)``) the natural parameters ``theta = (h, J)`` minimise the convex
  ``A(theta) - theta . mu``: :func:`natural_parameters`, by Newton's method.  Such ``theta``
  exists only inside the marginal polytope: the programs' draws never leave it, and the EM's
  moment-matching M-step may reach its boundary, not cross it (:func:`_solve` says what
  happens there).
* **From channels and interactions** (the programs' coordinates, Barndorff-Nielsen's mixed
  parametrisation): every ``p`` in ``(0, 1)^m`` and every ``J`` give exactly one joint, so
  ``J`` can be given any prior and every draw is valid; ``h`` solves ``E[x] = p`` with ``J``
  held (:func:`covariance_of_interaction`).  ``J_jk`` is the pair's conditional log odds ratio:
  ``log OR(x_j, x_k | the other members' answers)``.

A missing answer is summed out over the patterns that agree with the observed ones
(:func:`cyclic_log_factor`), exactly.  Inside a NumPyro program the Newton iterations run on
stopped gradients and one last step carries them (:mod:`bayescal.models.cyclic_fields`): at
the solution that step's derivative is the implicit function's, ``d theta / d mu =
A''(theta)^-1``.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np

__all__ = [
    "covariance_of_interaction",
    "cyclic_log_factor",
    "draw_answers",
    "joint_of_covariance",
    "joint_of_interaction",
    "log_softmax",
    "natural_parameters",
    "newton_step",
    "pattern_log_probabilities",
    "states",
    "statistic_moments",
    "sufficient_statistics",
    "use_program_solver",
]

#: How a program solves for the free natural parameters, ``(free, fixed, target,
#: statistics) -> free`` (:func:`_solve`): set by :mod:`bayescal.models` on import
#: (:func:`use_program_solver`).
program_solver = None
#: The most Newton steps of a NumPy solve, which stops once the moments match to
#: :data:`CONVERGED`; moments on the boundary take them all (:func:`_solve`).
NUMPY_ITERATIONS = 60
#: The largest miss of the moments at which a NumPy solve stops.
CONVERGED = 1e-13
#: Moments a NumPy solve misses by more than this lie outside the polytope: NaN.
OUTSIDE = 1e-7
#: The largest change of a natural parameter in one Newton step (a damped Newton method: the
#: full step can overshoot where ``A`` is far from quadratic).
MAX_STEP = 2.0
#: The step lengths the line search of a damped step tries, longest first (:func:`newton_step`).
STEP_SHARES = 2.0 ** -np.arange(10)
#: Armijo's constant: a step must lower the objective by this share of its linear prediction.
ARMIJO = 1e-4
#: How many of NumPy's solves :func:`natural_parameters` keeps, the oldest dropped first:
#: an EM iteration's two classes, with room to spare.
_RECENT_SOLVES = 8
_recent_solves: dict = {}
#: Threads (a dask worker's) share the kept solves: one reads or writes them at a time.
_recent_lock = threading.Lock()
#: Added to the Newton step's Hessian (the answers' covariance) so that a joint whose
#: patterns' probabilities underflow still gives a step; its effect on a step is of its order.
RIDGE = 1e-12


@cache
def states(m: int) -> np.ndarray:
    """Every answer pattern of ``m`` annotators, (2^m, m) of 0.0 and 1.0, the first member's
    answer the slowest to change (read-only: one array serves every caller)."""
    patterns = ((np.arange(2**m)[:, None] >> np.arange(m)[::-1]) & 1).astype(np.float64)
    patterns.setflags(write=False)
    return patterns


def sufficient_statistics(ends: np.ndarray, m: int) -> np.ndarray:
    """The sufficient statistics of every pattern, (2^m, m + E): the answers, then each pair's
    product ``x_j x_k`` (``ends`` (E, 2), the pairs' positions among the set's members)."""
    x = states(m)
    return np.concatenate([x, x[:, ends[:, 0]] * x[:, ends[:, 1]]], axis=1)


def _log_sum_exp(logits, xp):
    """``log sum exp`` over the last axis (...,), its largest term taken out first."""
    top = xp.max(logits, axis=-1)
    return top + xp.log(xp.sum(xp.exp(logits - top[..., None]), axis=-1))


def log_softmax(logits, xp=np):
    """``logits`` (..., S) less their :func:`_log_sum_exp`: log probabilities of patterns."""
    return logits - _log_sum_exp(logits, xp)[..., None]


def _objective(free, fixed, target, statistics, xp):
    """``A(theta) - theta_free . target``: the convex function of the free natural parameters
    (..., F) whose minimum the solve finds (its gradient is ``E[T_free] - target``)."""
    logits = xp.concatenate([free, fixed], axis=-1) @ statistics.T
    return _log_sum_exp(logits, xp) - xp.sum(free * target, axis=-1)


def newton_step(free, fixed, target, statistics, xp, damped=True):
    """One Newton step of the free natural parameters (..., F), those of the first F
    statistics, towards ``E[T_free] = target`` (..., F), the rest (..., G) held; and how far
    the moments were from ``target`` before it (..., the largest difference).

    Damped (every step but a program's last): the direction is capped at :data:`MAX_STEP`
    per coordinate and its length chosen by a backtracking line search on the convex
    :func:`_objective` (the longest of :data:`STEP_SHARES` that lowers it enough, Armijo's
    rule), so the solve converges from any start: a capped full step alone cycles between
    two points on symmetric designs (equal channels, one interaction).  NumPy tries the full
    step first and searches only where it is not enough, which near the solution is nowhere;
    a program, whose arrays have one shape, tries every length at once (the same step)."""
    theta = xp.concatenate([free, fixed], axis=-1)
    probability = xp.exp(log_softmax(theta @ statistics.T, xp))  # (..., S)
    mean, hessian = statistic_moments(probability, statistics[:, : free.shape[-1]], xp)
    hessian = hessian + RIDGE * xp.eye(free.shape[-1])
    delta = _solve_positive_definite(hessian, target - mean, xp)
    missed = xp.max(xp.abs(target - mean), axis=-1)
    if not damped:
        return free + delta, missed
    largest = xp.max(xp.abs(delta), axis=-1, keepdims=True)
    delta = delta * xp.minimum(1.0, MAX_STEP / xp.maximum(largest, 1e-300))
    rows = (free, fixed, target, delta, mean)
    if xp is not np:
        return _line_search(statistics, STEP_SHARES, xp, *rows)[0], missed
    # the rows searched again are picked by a mask of the batch: every input on its shape
    batch = np.broadcast_shapes(*(x.shape[:-1] for x in rows))
    rows = tuple(np.broadcast_to(x, (*batch, x.shape[-1])) for x in rows)
    step, enough = _line_search(statistics, STEP_SHARES[:1], np, *rows)
    if not enough.all():
        short = ~enough
        step[short] = _line_search(statistics, STEP_SHARES, np, *(x[short] for x in rows))[0]
    return step, missed


def statistic_moments(probability, statistics, xp=np):
    """``E[T]`` (..., d) and ``Cov(T)`` (..., d, d) of the statistics ``statistics`` (S, d) of
    the patterns, under their probabilities ``probability`` (..., S)."""
    mean = probability @ statistics
    centred = statistics - mean[..., None, :]  # (..., S, d)
    return mean, xp.einsum("...s,...sf,...sg->...fg", probability, centred, centred)


def _line_search(statistics, shares, xp, free, fixed, target, delta, mean):
    """The step ``free + s delta`` (..., F) of the longest ``s`` of ``shares`` (L,) that lowers
    :func:`_objective` enough (Armijo's rule; none enough: the shortest), and whether one
    was (...,)."""
    candidates = free[..., None, :] + shares[:, None] * delta[..., None, :]  # (..., L, F)
    held = xp.broadcast_to(fixed[..., None, :], (*candidates.shape[:-1], fixed.shape[-1]))
    value = _objective(candidates, held, target[..., None, :], statistics, xp)  # (..., L)
    now = _objective(free, fixed, target, statistics, xp)[..., None]
    slope = xp.sum((mean - target) * delta, axis=-1)[..., None]  # < 0: a descent direction
    # the rounding allowance lets a step at the solution pass, where no decrease is measurable
    enough = value <= now + ARMIJO * shares * slope + 1e-12 * (1.0 + xp.abs(now))
    found = xp.any(enough, axis=-1)
    chosen = xp.where(found, xp.argmax(enough, axis=-1), shares.size - 1)
    step = xp.take_along_axis(candidates, chosen[..., None, None], axis=-2)[..., 0, :]
    return step, found


def _solve_positive_definite(matrix, vector, xp):
    """``matrix^-1 vector`` for positive definite ``matrix`` (..., F, F) and ``vector``
    (..., F).  NumPy's LAPACK for NumPy; inside a program Cholesky written out for the few
    unknowns of a cycle's fields (at most :data:`~bayescal.channels.dependence.MAX_LINKED`),
    because a compiled sampler that calls LAPACK crashed when loaded from the sampler cache
    (:mod:`bayescal.bayes.compile_cache`; measured: a segmentation fault on the first load)."""
    if xp is np:
        return np.linalg.solve(matrix, vector[..., None])[..., 0]
    n = matrix.shape[-1]
    lower = [[None] * n for _ in range(n)]
    for j in range(n):
        diagonal = matrix[..., j, j] - sum(lower[j][k] ** 2 for k in range(j))
        lower[j][j] = xp.sqrt(diagonal)
        for i in range(j + 1, n):
            off = matrix[..., i, j] - sum(lower[i][k] * lower[j][k] for k in range(j))
            lower[i][j] = off / lower[j][j]
    forward = []
    for i in range(n):
        done = sum(lower[i][k] * forward[k] for k in range(i))
        forward.append((vector[..., i] - done) / lower[i][i])
    solution = [None] * n
    for i in reversed(range(n)):
        done = sum(lower[k][i] * solution[k] for k in range(i + 1, n))
        solution[i] = (forward[i] - done) / lower[i][i]
    return xp.stack(solution, axis=-1)


def _solve(free, fixed, target, statistics, xp):
    """The free natural parameters that match ``target``, by damped Newton steps.

    NumPy stops once the moments match to :data:`CONVERGED`, after at most
    :data:`NUMPY_ITERATIONS` steps.  Moments on the polytope's boundary (a pattern of
    probability 0; an EM estimate with a pair's table on its bound) have infinite natural
    parameters: the steps walk towards them, each pattern's probability falling like
    ``e^-theta``, and stop with the moments matched to rounding.  Moments outside the polytope
    have no joint at all: they get NaN, as a rate outside [0, 1] would.

    Inside a program (``xp`` JAX's) the solve is :data:`program_solver`'s, which
    :mod:`bayescal.models` sets when it is imported (:func:`use_program_solver`): the NumPyro layer is where JAX's loops
    and stopped gradients live (module docstring)."""
    if xp is np:
        for _ in range(NUMPY_ITERATIONS):
            free, missed = newton_step(free, fixed, target, statistics, np)
            if np.max(missed, initial=0.0) < CONVERGED:
                break
        _, missed = newton_step(free, fixed, target, statistics, np)
        return np.where((missed > OUTSIDE)[..., None], np.nan, free)
    if program_solver is None:
        raise RuntimeError(
            "a cycle's joint on traced arrays is solved by bayescal.models; import it first"
        )
    return program_solver(free, fixed, target, statistics)


def use_program_solver(solver) -> None:
    """Solve on traced arrays with ``solver`` (:data:`program_solver`): what
    :mod:`bayescal.models` calls when it is imported, so that this layer imports no JAX."""
    global program_solver
    program_solver = solver


def _independent_start(rates, xp):
    """The natural parameters of independent answers: ``h = logit p``, ``J = 0``."""
    return xp.log(rates) - xp.log1p(-rates)


def natural_parameters(rates, covariance, ends, xp=np):
    """``(h, J)`` (..., m) and (..., E) of the joint whose channels are ``rates`` (..., m) and
    whose pairs ``ends`` (E, 2) (positions in the set) have ``covariance`` (..., E): the
    maximum-entropy joint (module docstring).  NumPy's answers are read-only: the last few
    are kept (:data:`_RECENT_SOLVES`), because an EM iteration reads each joint three times
    (the E-step, then the M-step's rows and their completions) and the solve is its cost."""
    ends = np.asarray(ends, np.int64).reshape(-1, 2)
    if xp is not np:
        return _natural_parameters(rates, covariance, ends, xp)
    key = tuple(
        (x.dtype.str, x.shape, x.tobytes()) for x in map(np.asarray, (rates, covariance, ends))
    )
    with _recent_lock:
        solved = _recent_solves.get(key)
    if solved is None:
        solved = _natural_parameters(rates, covariance, ends, np)
        for x in solved:
            x.setflags(write=False)
        with _recent_lock:
            _recent_solves[key] = solved
            while len(_recent_solves) > _RECENT_SOLVES:
                del _recent_solves[next(iter(_recent_solves))]  # the oldest
    return solved


def _natural_parameters(rates, covariance, ends, xp):
    m = rates.shape[-1]
    target = xp.concatenate(
        [rates, covariance + rates[..., ends[:, 0]] * rates[..., ends[:, 1]]], axis=-1
    )
    start = xp.concatenate(
        [_independent_start(rates, xp), xp.zeros(covariance.shape, dtype=rates.dtype)], axis=-1
    )
    empty = xp.zeros((*rates.shape[:-1], 0), dtype=rates.dtype)
    theta = _solve(start, empty, target, sufficient_statistics(ends, m), xp)
    return theta[..., :m], theta[..., m:]


def joint_of_interaction(rates, interaction, ends, xp=np):
    """``log P(x | Y)`` of every answer pattern (..., 2^m), in the order of :func:`states`, of
    the joint whose channels are ``rates`` (..., m) and whose pairs ``ends`` (E, 2) (positions
    among the members) have the conditional log odds ratios ``interaction`` (..., E): the
    mixed coordinates (module docstring); the fields ``h`` solve ``E[x] = p``."""
    ends = np.asarray(ends, np.int64).reshape(-1, 2)
    statistics = sufficient_statistics(ends, rates.shape[-1])
    h = _solve(_independent_start(rates, xp), interaction, rates, statistics, xp)
    return pattern_log_probabilities(h, interaction, ends, xp)


def covariance_of_interaction(rates, interaction, ends, xp=np):
    """The pairs' covariances (..., E) of :func:`joint_of_interaction`."""
    ends = np.asarray(ends, np.int64).reshape(-1, 2)
    m = rates.shape[-1]
    both = (
        xp.exp(joint_of_interaction(rates, interaction, ends, xp))
        @ sufficient_statistics(ends, m)[:, m:]
    )
    return both - rates[..., ends[:, 0]] * rates[..., ends[:, 1]]


def pattern_log_probabilities(h, interaction, ends, xp=np):
    """``log P(x | Y)`` of every answer pattern of the set (..., 2^m), in the order of
    :func:`states`."""
    m = h.shape[-1]
    statistics = sufficient_statistics(np.asarray(ends, np.int64).reshape(-1, 2), m)
    return log_softmax(xp.concatenate([h, interaction], axis=-1) @ statistics.T, xp)


def joint_of_covariance(rates, covariance, ends, xp=np):
    """``log P(x | Y)`` of every answer pattern (..., 2^m), in the order of :func:`states`, of
    the joint whose channels are ``rates`` (..., m) and whose pairs ``ends`` (E, 2) have
    ``covariance`` (..., E): the mean coordinates (module docstring)."""
    h, interaction = natural_parameters(rates, covariance, ends, xp)
    return pattern_log_probabilities(h, interaction, ends, xp)


def draw_answers(rng, log_joint, truth) -> np.ndarray:
    """Every member's answer to every item (n, m) of 0 and 1, each item's pattern drawn from
    its class's joint: ``log_joint`` (2, 2^m) given ``Y = 0, 1`` and ``truth`` (n,) the
    classes."""
    patterns = states(log_joint.shape[-1].bit_length() - 1)
    answers = np.empty((truth.size, patterns.shape[1]), np.int8)
    for y in (0, 1):
        items = np.flatnonzero(truth == y)
        chance = np.exp(log_joint[y])
        drawn = rng.choice(patterns.shape[0], size=items.size, p=chance / chance.sum())
        answers[items] = patterns[drawn]
    return answers


def cyclic_log_factor(
    positive, negative, members, ends, rates, xp, covariance=None, interaction=None
):
    """``log(P(s_M | Y = y) / prod_{j in M observed} f_j(s_j))`` of each row (..., P) for the
    annotators ``members`` (m,) of a set whose pairs ``ends`` (E, 2) (positions among the
    members) close a cycle, at the channels ``rates`` (..., K) and either the pairs'
    ``covariance`` or their ``interaction`` (each (..., E); module docstring): the joint's
    probability of the observed answers, every missing one summed out over the patterns that
    agree with the rest, over the independent model's, ``f_j(x) = p_j^x (1 - p_j)^(1 - x)``."""
    p = rates[..., members]  # (..., m)
    if interaction is None:
        log_joint = joint_of_covariance(p, covariance, ends, xp)  # (..., S)
    else:
        log_joint = joint_of_interaction(p, interaction, ends, xp)
    x = states(len(members))  # (S, m)
    pos, neg = positive[:, members], negative[:, members]  # (P, m)
    # a pattern agrees with a row when no observed answer differs from it
    agree = ((pos @ (1.0 - x).T + neg @ x.T) == 0) * 1.0  # (P, S)
    top = xp.max(log_joint, axis=-1, keepdims=True)
    observed = top + xp.log(xp.exp(log_joint - top) @ agree.T)  # (..., P)
    log_f = xp.einsum("pm,...m->...p", pos, xp.log(p)) + xp.einsum(
        "pm,...m->...p", neg, xp.log1p(-p)
    )
    return observed - log_f
