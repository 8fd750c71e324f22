"""Seeded data generators of the paper (§6.1 toy study; App. D.1 and two-group settings).

Both generators return a :class:`Simulation`: the observable data (scores and annotations),
the true labels that a real study never sees, the true channels, the calibration function
``m(z) = P(Y = 1 | Z = z)`` and the population ECE ``E|m(Z) - Z|``, computed by numerical
integration (not by sampling), which is the reference the paper's toy errors are measured
against (App. F.5).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import special

from .. import _validation as v
from .._api import Result, old_spellings
from ..channels import Channels
from ..channels.cyclic_joint import draw_answers, joint_of_interaction
from ..channels.dependence import MAX_LINKED
from ..channels.difficulty import answer_probability, probit_intercept
from ..channels.pattern_likelihood import LinkedSet, linked_sets, lone_pairs
from ..data.annotated_scores import AnnotatedScores

__all__ = [
    "TOY_CHANNELS",
    "TOY_CONDITIONS",
    "Simulation",
    "simulate_annotated",
    "simulate_dependent",
    "simulate_difficulty",
    "simulate_log_linear",
    "toy_calibration",
    "toy_data",
]

#: The three annotators of §6.1: false-positive rates (0.08, 0.13, 0.18) and false-negative
#: rates (0.16, 0.11, 0.06), i.e. sensitivities (0.84, 0.89, 0.94).
TOY_CHANNELS = Channels.from_error_rates(
    false_positive=(0.08, 0.13, 0.18), false_negative=(0.16, 0.11, 0.06)
)

#: Conditions of §6.1; only ``m`` changes between them.
TOY_CONDITIONS = ("calibrated", "shifted", "nonlinear")


def _calibrated(z):
    return np.asarray(z, dtype=np.float64)


def _shifted(z):
    return special.expit(0.65 * special.logit(z) - 0.3)


def _nonlinear(z):
    return np.clip(z + 0.12 * np.sin(2.0 * np.pi * np.asarray(z)), 0.02, 0.98)


_TOY_M = {"calibrated": _calibrated, "shifted": _shifted, "nonlinear": _nonlinear}


@dataclass(frozen=True)
class _ScoreLaw:
    """How the generator draws scores: ``Z = score_of(T)`` with ``T`` of density ``density`` on
    [lower, upper] and ``inverse`` mapping a score back to ``t`` (``score_of`` is monotone)."""

    score_of: Callable[[float], float]
    inverse: Callable[[float], float]
    density: Callable[[float], float]
    lower: float
    upper: float

    def expectation(
        self, function: Callable[[float], float], z_low: float = 0.0, z_high: float = 1.0
    ) -> float:
        """``E[function(Z) 1{z_low <= Z <= z_high}]`` by adaptive quadrature over t."""
        ends = sorted(
            float(np.clip(self.inverse(z), self.lower, self.upper)) for z in (z_low, z_high)
        )
        from scipy import integrate  # here: it imports scipy.optimize (0.4 s)

        value, _ = integrate.quad(
            lambda t: function(float(self.score_of(t))) * self.density(t),
            *ends,
            limit=500,
            epsabs=1e-13,
            epsrel=1e-10,
        )
        return float(value)


@dataclass(frozen=True, eq=False, repr=False)
class Simulation(Result):
    """A simulated data set with the truth behind it.

    Attributes
    ----------
    data : AnnotatedScores
        What a user would observe: scores and annotations.
    labels : ndarray of int, shape (n,)
        The true labels ``Y`` (for oracle ECE only).
    channels : Channels
        The true annotator channels.
    calibration : callable
        ``m(z) = P(Y = 1 | Z = z)``, vectorised.
    population_ece : float
        ``E|m(Z) - Z|`` under the score distribution of the generator, by numerical integration.
    worker_types : tuple of str, optional
        Each annotator's kind in a simulated crowd (:func:`bayescal.simulate_crowd`).
    """

    data: AnnotatedScores
    labels: np.ndarray
    channels: Channels
    calibration: Callable[[np.ndarray], np.ndarray]
    population_ece: float
    score_law: _ScoreLaw = field(repr=False)
    worker_types: tuple[str, ...] | None = None

    def with_gold(self, n_gold: int, *, seed: int = 0) -> Simulation:
        """The simulation with a human-verified label (the true ``Y``) on ``n_gold`` items
        drawn at random without replacement: ``data.gold`` holds them, -1 elsewhere (the gold items
        are a random sample)."""
        n_gold = v.as_int(n_gold, "n_gold", minimum=1)
        if n_gold > self.data.n_items:
            raise ValueError(
                f"n_gold must be at most the number of items ({self.data.n_items}); saw {n_gold}"
            )
        chosen = np.random.default_rng(v.as_seed(seed)).choice(
            self.data.n_items, n_gold, replace=False
        )
        gold = np.full(self.data.n_items, v.MISSING, dtype=np.int8)
        gold[chosen] = self.labels[chosen]
        return replace(self, data=replace(self.data, gold=gold, gold_weights=None))

    def long_tables(self):
        """The data in long form, as a labelling project stores them: ``(labels, scores)``
        DataFrames for :meth:`bayescal.AnnotatedScores.from_long` (and ``bayescal ... --long``).

        ``labels`` has one row per response (``item``, ``annotator``, ``label``), item by
        item; ``scores`` one row per item (``item``, ``score``, ``truth``).  Item ids are
        text, ``i0``, ``i1``, ...
        """
        import pandas as pd

        item, annotator = np.nonzero(self.data.annotations != v.MISSING)
        ids = np.array([f"i{i}" for i in range(self.data.n_items)], dtype=object)
        labels = pd.DataFrame(
            {
                "item": ids[item],
                "annotator": np.asarray(self.data.annotator_names, dtype=object)[annotator],
                "label": self.data.annotations[item, annotator],
            }
        )
        scores = pd.DataFrame({"item": ids, "score": self.data.scores, "truth": self.labels})
        if self.data.gold is not None:
            scores["gold"] = pd.array(
                np.where(self.data.gold == v.MISSING, None, self.data.gold), dtype="Int8"
            )
        return labels, scores

    def population_bin_moments(self, n_bins: int) -> np.ndarray:
        """``r_l = E[(m(Z) - Z) 1{Z in B_l}]`` for ``n_bins`` equal-width bins, by integration.

        ``sum_l |r_l|`` is the population *binned* ECE, the quantity a binned estimator
        targets (paper App. B, ``ECE_B(f) <= ECE(f)``).
        """
        n_bins = v.as_int(n_bins, "n_bins", minimum=1)
        residual = lambda z: np.asarray(self.calibration(z)).item() - z  # noqa: E731
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        return np.array(
            [self.score_law.expectation(residual, lo, hi) for lo, hi in itertools.pairwise(edges)]
        )

    def population_binned_ece(self, n_bins: int) -> float:
        """``sum_l |r_l|`` over ``n_bins`` equal-width bins (see :meth:`population_bin_moments`)."""
        return float(np.abs(self.population_bin_moments(n_bins)).sum())


def toy_calibration(condition: str) -> Callable[[np.ndarray], np.ndarray]:
    """``m(z)`` of a §6.1 condition: ``"calibrated"`` ``m(z) = z``; ``"shifted"``
    ``m(z) = sigma(0.65 logit(z) - 0.3)``; ``"nonlinear"`` ``m(z) = clip(z + 0.12 sin(2 pi z), 0.02, 0.98)``.
    """
    return _TOY_M[v.as_choice(condition, "condition", TOY_CONDITIONS)]


def _toy_input_density(x):
    density = np.exp(-0.5 * (x + 1.0) ** 2) + np.exp(-0.5 * (x - 1.0) ** 2)
    return 0.5 * density / np.sqrt(2.0 * np.pi)  # equal mixture of N(-1, 1) and N(1, 1)


# Beyond |x| = 14 the toy's input mixture has mass below 1e-30: nothing an integral can see.
_TOY_LAW = _ScoreLaw(
    lambda x: special.expit(0.3 - x),
    lambda z: 0.3 - special.logit(z),
    _toy_input_density,
    -14.0,
    14.0,
)
_UNIFORM_LAW = _ScoreLaw(lambda t: t, lambda z: z, lambda t: 1.0, 0.0, 1.0)


def _annotate(labels: np.ndarray, channels: Channels, rng: np.random.Generator) -> np.ndarray:
    """Each annotator answers independently given Y: ``A_j ~ Bernoulli(a_j + d_j Y)``."""
    positive_rate = channels.a[None, :] + channels.gap[None, :] * labels[:, None]
    return (rng.random(positive_rate.shape) < positive_rate).astype(np.int8)


def _simulation(scores, calibration, channels, rng, law: _ScoreLaw) -> Simulation:
    """Draw labels and annotations for ``scores``; the population ECE is integrated once m is checked."""
    m = np.asarray(calibration(scores), dtype=np.float64)
    if m.shape != scores.shape or not np.all(np.isfinite(m)) or (m < 0).any() or (m > 1).any():
        raise ValueError(
            "calibration must map an array of scores in [0, 1] to probabilities in [0, 1], elementwise"
        )
    labels = (rng.random(scores.shape) < m).astype(np.int64)
    data = AnnotatedScores(scores, _annotate(labels, channels, rng))
    population_ece = law.expectation(lambda z: abs(np.asarray(calibration(z)).item() - z))
    return Simulation(data, labels, channels, calibration, population_ece, law)


def _is_one_pair(pair) -> bool:
    """Whether ``pair`` is two indices (not a list of pairs)."""
    return (
        hasattr(pair, "__len__")
        and not isinstance(pair, (str, bytes))
        and len(pair) == 2
        and all(np.ndim(x) == 0 for x in pair)
    )


@old_spellings()
def toy_data(n: int, *, condition: str = "shifted", seed: int = 0) -> Simulation:
    """The toy data of paper §6.1.

    ``X ~ ½ N(-1, 1) + ½ N(1, 1)``, ``Z = f(X) = sigma(0.3 - X)``, ``Y | Z ~ Bernoulli(m(Z))``
    with ``m`` from :func:`toy_calibration`, and three annotators who each label every item,
    independently given Y, with the channels :data:`TOY_CHANNELS`.

    Parameters
    ----------
    n : int
        Number of items (>= 1).
    condition : {"calibrated", "shifted", "nonlinear"}, default "shifted"
    seed : int, default 0

    Returns
    -------
    Simulation
        ``population_ece`` integrates ``|m(f(x)) - f(x)|`` against the mixture density of X.
    """
    n = v.as_int(n, "n", minimum=1)
    calibration = toy_calibration(condition)
    rng = np.random.default_rng(v.as_seed(seed))
    x = rng.normal(np.where(rng.random(n) < 0.5, -1.0, 1.0), 1.0)
    return _simulation(_TOY_LAW.score_of(x), calibration, TOY_CHANNELS, rng, _TOY_LAW)


@old_spellings()
def simulate_annotated(
    n: int, channels: Channels, *, calibration=None, seed: int = 0
) -> Simulation:
    """K conditionally independent annotators on a uniform score with a given calibration.

    ``Z ~ Uniform(0, 1)``, ``Y | Z ~ Bernoulli(m(Z))`` and ``A_j | Y ~ Bernoulli(a_j + d_j Y)``.
    A non-constant ``m`` makes the prevalence depend on the score, so score groups have
    different class proportions: the two-group Hui–Walter setting for K = 2 (paper §4.2).
    The App. D.1 pair ``(a, b, m) = (0.2, 0.8, 0.25 + 0.5 z)`` and
    ``(0.1, 0.9, 0.3125 + 0.375 z)`` gives one annotator the same response law
    ``q(z) = 0.35 + 0.3 z`` with ECE 1/8 and 5/32.

    Parameters
    ----------
    n : int
        Number of items (>= 1).
    channels : Channels
        One channel per annotator.
    calibration : callable, optional
        Vectorised ``m(z)`` with values in [0, 1]; default ``m(z) = z`` (calibrated).
    seed : int, default 0

    Returns
    -------
    Simulation
        ``population_ece`` is ``integral_0^1 |m(z) - z| dz``.
    """
    n = v.as_int(n, "n", minimum=1)
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    if calibration is None:
        calibration = _calibrated
    elif not callable(calibration):
        raise TypeError(f"calibration must be a callable m(z); saw {type(calibration).__name__}")
    rng = np.random.default_rng(v.as_seed(seed))
    scores = rng.random(n)
    return _simulation(scores, calibration, channels, rng, _UNIFORM_LAW)


@old_spellings()
def simulate_dependent(
    n: int,
    channels: Channels,
    *,
    pair=(0, 1),
    shared_error=None,
    copying=0.0,
    calibration=None,
    seed: int = 0,
) -> Simulation:
    """Like :func:`simulate_annotated`, but two annotators err together.

    Two mechanisms, each named by its share of the items (at most one of them non-zero):

    - ``shared_error``: on a random share ``rho`` of the items both annotators of ``pair``
      give the wrong label ``1 - Y`` together (the item misleads them both); on the other
      items they answer independently from their channels.  Each keeps a binary channel:
      ``a' = rho + (1 - rho) a`` and ``b' = (1 - rho) b``.
    - ``copying``: on a random share ``rho`` of the items the second annotator of ``pair``
      copies the first one's label; its channel becomes ``a'_k = rho a_j + (1 - rho) a_k``
      (and ``b'_k`` alike), and given ``Y`` the pair's covariance is ``rho p_j (1 - p_j)``.
      Several pairs copy in the order given, each on its own random share, so that
      ``[(0, 1), (1, 2)]`` makes a chain (a1 copies a0, then a2 copies a1): given ``Y`` a
      tree of dependent pairs (:mod:`bayescal.channels.dependence`).

    ``channels`` of the result holds the channels each annotator then has.  The dependence
    uses its own random stream, so the labels and the other annotators are those of
    ``simulate_annotated(n, channels, calibration, seed)``.

    Parameters
    ----------
    n : int
    channels : Channels
        At least two annotators.
    pair : (int, int) or list of them, default (0, 1)
        The two annotators that err together (with ``copying``, the second copies the first).
        With ``copying`` also several pairs, copied in their order; no annotator copies twice.
    shared_error : float in [0, 1], optional
        Default 0.05, or 0 when ``copying`` is given.
    copying : float in [0, 1], default 0
    calibration : callable, optional
    seed : int, default 0

    Returns
    -------
    Simulation
    """
    simulation = simulate_annotated(n, channels, calibration=calibration, seed=seed)
    share = v.as_probability(copying, "copying")
    if shared_error is None:
        shared_error = 0.0 if share > 0 else 0.05
    rho = v.as_probability(shared_error, "shared_error")
    if rho > 0 and share > 0:
        raise ValueError(
            f"shared_error and copying are two mechanisms; give one of them (saw {rho} and {share})"
        )
    pairs = [pair] if _is_one_pair(pair) else list(pair) if hasattr(pair, "__iter__") else [pair]
    if len(pairs) > 1 and not share > 0:
        raise ValueError(f"pair: several pairs are for copying; saw {pair!r} without copying")
    index = []
    for one in pairs:
        if not _is_one_pair(one):
            raise ValueError(f"pair must be two annotator indices (j, k); saw {one!r}")
        members = [v.as_int(x, "pair", minimum=0) for x in one]
        if members[0] == members[1] or max(members) >= channels.n_annotators:
            raise ValueError(
                f"pair must be two different annotator indices below {channels.n_annotators}; saw {tuple(one)!r}"
            )
        index.append(members)
    copiers = [second for _, second in index]
    if len(set(copiers)) < len(copiers):
        raise ValueError(f"pair: an annotator copies in two pairs; saw {pair!r}")
    # each annotator copies at most once and before anyone copies from it: the copies then
    # form a tree (a cycle would need its first source to copy later), Markov along its paths
    for i, (source, _) in enumerate(index):
        if source in copiers[i + 1 :]:
            raise ValueError(
                f"pair: annotator {source} is copied from before it copies; give the pairs in "
                f"the order they copy (a chain from its start), so the labels form the tree "
                f"of pairs they state; saw {pair!r}"
            )
    rng = np.random.default_rng([v.as_seed(seed), 1])
    annotations = simulation.data.annotations.copy()
    a, b = channels.a.copy(), channels.b.copy()
    if share > 0:
        for first, second in index:
            copied = rng.random(simulation.data.n_items) < share
            annotations[copied, second] = annotations[copied, first]
            a[second] = share * a[first] + (1 - share) * a[second]
            b[second] = share * b[first] + (1 - share) * b[second]
    else:
        members = index[0]
        misled = rng.random(simulation.data.n_items) < rho
        annotations[np.ix_(misled, members)] = (1 - simulation.labels[misled])[:, None]
        a[members], b[members] = rho + (1 - rho) * a[members], (1 - rho) * b[members]
    return replace(
        simulation,
        data=AnnotatedScores(simulation.data.scores, annotations),
        channels=Channels(a, b),
    )


def simulate_log_linear(
    n: int, channels: Channels, pairs, interaction, *, calibration=None, seed: int = 0
) -> Simulation:
    """Like :func:`simulate_annotated`, but the annotators of ``pairs`` answer, given ``Y``,
    from the pairwise log-linear model of :mod:`bayescal.channels.cyclic_joint`: each set of
    annotators the pairs join (a pair, a tree, or pairs that close a cycle) draws its answers
    jointly from

        P(x_M | Y = y) proportional to exp(sum_j h_jy x_j + sum_{(j, k)} J_jky x_j x_k),

    with the fields ``h`` set so that every annotator keeps its channel in ``channels``
    exactly, and ``J`` the pairs' conditional log odds ratios ``interaction``.  The labels and
    the annotators outside the pairs are those of ``simulate_annotated(n, channels,
    calibration, seed)``; the joint answers use their own random stream.

    Parameters
    ----------
    n : int
    channels : Channels
    pairs : (int, int) or list of them
        The dependent pairs, as annotator indices; each pair once, at least one.
    interaction : float, or array of shape (D,) or (D, 2)
        Each pair's conditional log odds ratio given ``Y = 0`` and ``Y = 1`` (one value: the
        same for every pair and class; (D,): the same in both classes).
    calibration : callable, optional
    seed : int, default 0

    Returns
    -------
    Simulation
        ``channels`` are the given ones, each annotator's marginal channel.  The pairs'
        covariances are :func:`bayescal.channels.cyclic_joint.covariance_of_interaction` of
        each set.
    """
    simulation = simulate_annotated(n, channels, calibration=calibration, seed=seed)
    pairs = [] if pairs is None else [pairs] if _is_one_pair(pairs) else list(pairs)
    if not pairs:  # the answers would be independent: simulate_annotated's, under another name
        raise ValueError(
            "pairs: give at least one dependent pair (j, k); saw none "
            "(simulate_annotated draws annotators independent given Y)"
        )
    index = []
    for one in pairs:
        if not _is_one_pair(one):
            raise ValueError(f"pairs must be pairs of annotator indices (j, k); saw {one!r}")
        j, k = (v.as_int(x, "pairs", minimum=0) for x in one)
        if j == k or max(j, k) >= channels.n_annotators or {j, k} in map(set, index):
            raise ValueError(
                f"pairs must be distinct pairs of two different annotator indices below "
                f"{channels.n_annotators}; saw {tuple(one)!r}"
            )
        index.append((j, k))
    index = np.array(index, np.int64).reshape(-1, 2)
    sets = linked_sets(index)
    for linked in sets:
        if linked.members.size > MAX_LINKED:
            raise ValueError(
                f"pairs: at most {MAX_LINKED} annotators may be joined through shared ones "
                f"(their joint has 2^m answer patterns); saw {linked.members.size} joined by "
                f"{index[linked.pairs].tolist()}"
            )
    try:
        strength = np.asarray(interaction, np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"interaction must be numbers; saw {interaction!r}") from None
    if strength.ndim == 1:
        strength = strength[:, None]
    try:
        strength = np.broadcast_to(strength, (len(index), 2))
    except ValueError:
        raise ValueError(
            f"interaction must be one value, (D,) or (D, 2) for D = {len(index)} pairs; "
            f"saw shape {np.shape(interaction)}"
        ) from None
    if not np.all(np.isfinite(strength)):
        raise ValueError(f"interaction must be finite; saw {np.asarray(interaction).tolist()}")
    for j in np.unique(index):
        rates = (float(channels.a[j]), float(channels.b[j]))
        if not all(0.0 < rate < 1.0 for rate in rates):
            raise ValueError(
                f"channels: annotator {j} is in a dependent pair, whose joint needs its rates "
                f"strictly inside (0, 1); saw a = {rates[0]}, b = {rates[1]}"
            )
    rng = np.random.default_rng([v.as_seed(seed), 2])
    annotations = simulation.data.annotations.copy()
    sets += tuple(LinkedSet(index[d], np.array([d])) for d in lone_pairs(index, sets))
    for linked in sets:
        log_joint = np.stack(
            [
                joint_of_interaction(
                    rates[linked.members], strength[linked.pairs, y], linked.ends(index)
                )
                for y, rates in enumerate((channels.a, channels.b))
            ]
        )
        annotations[:, linked.members] = draw_answers(rng, log_joint, simulation.labels)
    return replace(simulation, data=AnnotatedScores(simulation.data.scores, annotations))


@old_spellings()
def simulate_difficulty(
    n: int,
    channels: Channels,
    *,
    loading=(1.0, 1.0),
    score_dependence=0.0,
    calibration=None,
    seed: int = 0,
) -> Simulation:
    """Annotators who share an item difficulty: the model of
    :mod:`bayescal.channels.difficulty`, on a uniform score.

    ``Z ~ Uniform(0, 1)``, ``Y | Z ~ Bernoulli(m(Z))``, an item effect
    ``R = c Phi^-1(Z) + sqrt(1 - c^2) eps`` with ``eps ~ N(0, 1)`` and ``c`` the
    ``score_dependence``, and ``A_j | Y = y, R ~ Bernoulli(Phi(alpha_jy + beta_y R))`` with
    ``alpha_jy = Phi^-1(p_jy) sqrt(1 + beta_y^2)`` (``p_j0 = a_j``, ``p_j1 = b_j``).

    With ``c = 0`` the difficulty is independent of the score and ``channels`` are each
    annotator's marginal channels, exactly.  With ``c != 0`` the items the predictor scores
    high are easier (or harder) for every judge: ``R`` is still standard normal, but it
    depends on the score and therefore on ``Y``, the channels differ between score bins, and
    NC-ECE's assumption fails (the violation of :mod:`bayescal.channels.difficulty`).  The
    channels given ``Y`` are then integrated numerically over ``Z | Y`` and returned in
    ``channels``.

    Parameters
    ----------
    n : int
    channels : Channels
        The marginal channels (when ``score_dependence`` is 0).
    loading : (float, float), default (1, 1)
        ``beta_0, beta_1 >= 0``.
    score_dependence : float in [-1, 1], default 0
    calibration : callable, optional
    seed : int, default 0

    Returns
    -------
    Simulation
    """
    n = v.as_int(n, "n", minimum=1)
    if not isinstance(channels, Channels):
        raise TypeError(f"channels must be a bayescal.Channels; saw {type(channels).__name__}")
    beta = np.asarray(loading, dtype=np.float64)
    if beta.shape != (2,) or not np.all(np.isfinite(beta)) or (beta < 0).any():
        raise ValueError(
            f"loading must be two non-negative numbers (beta_0, beta_1); saw {loading!r}"
        )
    c = float(score_dependence)
    if not -1.0 <= c <= 1.0:
        raise ValueError(f"score_dependence must be in [-1, 1]; saw {score_dependence!r}")
    if (
        (channels.a <= 0).any()
        or (channels.a >= 1).any()
        or (channels.b <= 0).any()
        or (channels.b >= 1).any()
    ):
        raise ValueError("channels must lie inside (0, 1): a probit channel has no 0 or 1")
    calibration = _calibrated if calibration is None else calibration
    if not callable(calibration):
        raise TypeError(f"calibration must be a callable m(z); saw {type(calibration).__name__}")
    rng = np.random.default_rng(v.as_seed(seed))
    scores = rng.random(n)
    simulation = _simulation(scores, calibration, channels, rng, _UNIFORM_LAW)
    effect = c * special.ndtri(scores) + np.sqrt(1.0 - c**2) * rng.standard_normal(n)
    positive = simulation.labels[:, None] == 1
    chance = answer_probability(
        np.where(positive, channels.b[None, :], channels.a[None, :]),
        np.where(positive, beta[1], beta[0]),
        effect[:, None],
    )
    annotations = (rng.random(chance.shape) < chance).astype(np.int8)
    given = channels
    if c != 0.0:  # the channels given Y: integrate over Z | Y (a midpoint rule)
        alpha = [probit_intercept(channels.a, beta[0]), probit_intercept(channels.b, beta[1])]
        z = (np.arange(20000) + 0.5) / 20000
        m = np.asarray(calibration(z), dtype=np.float64)
        rates = []
        for y, weight in ((0, 1.0 - m), (1, m)):
            shifted = alpha[y][None, :] + beta[y] * c * special.ndtri(z)[:, None]
            inner = special.ndtr(shifted / np.sqrt(1.0 + beta[y] ** 2 * (1.0 - c**2)))
            rates.append(weight @ inner / weight.sum())
        given = Channels(rates[0], rates[1])
    return replace(simulation, data=AnnotatedScores(scores, annotations), channels=given)
