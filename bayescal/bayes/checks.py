"""Model checks for the Bayesian channel models: does the fitted model reproduce the annotations?

Every check is a posterior predictive check (Gelman, Meng and Stern 1996) on the (group,
response pattern) counts, the sufficient statistics of both models.  For each posterior draw
``theta_s`` the counts of every (group, missingness mask) cell are replicated,
``y_rep ~ Multinomial(n_cell, p(pattern | group, theta_s))``, over *every* response combination
the mask allows (also those never observed), and a statistic of the observed counts is compared
with its replicated distribution:

- ``ppc``: a discrepancy ``D(y, theta)``, Pearson's ``sum_r (y_r - E_r)^2 / E_r`` or the
  deviance ``G^2 = 2 sum_r y_r log(y_r / E_r)``, with ``E_r`` the expected count; the posterior
  predictive p-value is ``P(D(y_rep, theta) >= D(y, theta) | y)``.
- ``pattern``: each pattern's count (observed minus expected is the residual).
- ``pairwise_agreement``: for each annotator pair, the share of co-labelled items on which the
  two agree.  Under conditional independence given Y (the model's assumption) the expected
  agreement is ``sum_g w_g [mu_g (b_j b_k + (1-b_j)(1-b_k)) + (1-mu_g)(a_j a_k + (1-a_j)(1-a_k))]``
  ("Do the judges fail independently?", with annotator-specific rates); annotators
  whose errors are shared agree more often than that.
- ``positive_count``: each annotator's number of positive labels.
- ``votes_per_item``: the number of items with v positive votes, v = 0 .. K.

A statistic is *flagged* when its observed value lies outside the central ``level`` interval of
its replicated values (for ``ppc``: when the p-value is below ``1 - level``).  With many
statistics, some flags arise by chance at that rate.

Whether a check *can* see misfit depends on the model: a saturated model (as many parameters
as free cells, e.g. Dawid–Skene with three annotators) reproduces the pattern frequencies
exactly, so its checks pass by construction; a weakly identified model (score groups with
nearly equal class proportions, annotators with tiny gaps) fits but cannot pin its channels.
:func:`check_model` states both in ``model`` rows.

Crowds (the hierarchical model, or more than 12 annotators; :func:`uses_crowd_checks`, decided
before sampling) are checked on their sparse responses instead (:mod:`bayescal.bayes.checks`:
per-worker positive counts and agreement with the other workers of an item, votes per item,
pairwise agreement of pairs with enough shared items, flagged by Benjamini–Hochberg).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .. import _html
from .. import _validation as v
from .._api import DEFAULT_LEVEL, abbreviated, old_spellings, p_value_text
from ..channels.crowd_em import CROWD_ANNOTATORS
from ..correction.calibration_test import replicate_labels
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..data.responses import Responses
from ..models import PatternDesign
from .bayes_fit import BayesFit
from .registry import channel_model

__all__ = ["DISCREPANCIES", "ModelChecks", "check_model", "check_table", "verdicts"]


# --- checks that scale to crowds ------------------------------------------------------------------
# Model checks that scale to crowds: posterior predictive checks on the sparse responses.
#
# The checks of :mod:`bayescal.bayes.checks` replicate the counts of every response combination of every
# missingness mask; a crowd has about one mask per item, so those layouts grow without bound.
# These checks replicate the responses themselves, on the (item, worker) pairs that were labelled:
# for each of up to :data:`MAX_DRAWS` posterior draws, every item's latent label
# ``Y_i ~ Bernoulli(prevalence)`` and every response ``A_ij ~ Bernoulli(a_j + (b_j - a_j) Y_i)``
# are drawn anew (O(responses) per draw; a dependent pair's two answers jointly, given ``Y_i``,
# and with a shared difficulty through each item's drawn effect), and statistics of the
# observed responses are compared with their replicated distribution:
#
# - ``positive_count``: each worker's number of positive labels;
# - ``agreement_with_others``: each worker's share of agreeing label pairs with the other workers
#   of the same items (a worker whose errors the model misdescribes stands out here);
# - ``votes_per_item``: the number of items with ``v`` positive votes of ``m`` labels, for each
#   number of labels ``m`` that at least :data:`MIN_SHARED_ITEMS` items have;
# - ``pairwise_agreement``: the share of shared items on which two workers agree, only for pairs
#   with at least :data:`MIN_SHARED_ITEMS` shared items (fewer say nothing).
#
# Each row's two-sided posterior predictive p-value is ``2 min(P(T_rep >= T), P(T_rep <= T))``,
# or beyond every replicate the replicates' normal tail (:func:`statistic_rows`).
# With hundreds of workers, dozens of rows fall outside a 90% interval by chance alone, so the
# rows are flagged by the Benjamini–Hochberg procedure across each check's rows: a row is
# flagged when its adjusted p-value (its q-value) is below ``1 - level``, which holds the false
# discovery rate among the flagged rows of a check at ``1 - level``.

#: Posterior draws replicated (an even subsample of the fit's draws when it has more).
MAX_DRAWS = 400
#: Pairs of workers, and numbers of labels per item, with fewer items than this are not checked.
MIN_SHARED_ITEMS = 20
#: An annotator is called weakly identified when the 5% posterior quantile of its gap's size
#: |b - a| is below this (a credibility floor of the model checks, not the informativeness
#: threshold ``MIN_GAP``): an adversarial annotator's labels inform as much as a good one's.
WEAK_GAP_QUANTILE = 0.1


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values) of ``p_values`` (m,):
    ``q_(i) = min_{k >= i} min(1, m p_(k) / k)`` over the sorted p-values."""
    p_values = np.asarray(p_values, dtype=float)
    m = p_values.size
    if m == 0:
        return p_values
    order = np.argsort(p_values)
    scaled = p_values[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


class _Statistics:
    """The checked statistics of one set of responses (observed or replicated), given the
    layout: which items, workers and within-item pairs the labels belong to."""

    def __init__(self, responses: Responses):
        self.responses = responses
        self.per_item = responses.labels_per_item()
        # every pair of labels of the same item, as indices into the responses
        order = np.argsort(responses.item, kind="stable")
        starts = np.concatenate([[0], np.cumsum(self.per_item)])
        first, second = [], []
        for m in np.unique(self.per_item[self.per_item >= 2]):
            items = np.flatnonzero(self.per_item == m)
            j, k = np.triu_indices(m, 1)
            first.append(order[starts[items][:, None] + j].ravel())
            second.append(order[starts[items][:, None] + k].ravel())
        self.first = np.concatenate(first) if first else np.zeros(0, np.int64)
        self.second = np.concatenate(second) if second else np.zeros(0, np.int64)
        workers = responses.annotator
        low = np.minimum(workers[self.first], workers[self.second])
        high = np.maximum(workers[self.first], workers[self.second])
        pair_key = low * responses.n_annotators + high
        keys, self.pair_index, shared = np.unique(pair_key, return_inverse=True, return_counts=True)
        self.pairs = keys[shared >= MIN_SHARED_ITEMS]
        self.pair_shared = shared[shared >= MIN_SHARED_ITEMS]
        self.pair_kept = shared >= MIN_SHARED_ITEMS
        # label pairs each worker is part of (its "others" on the same items)
        self.others = np.bincount(
            workers, weights=self.per_item[responses.item] - 1, minlength=responses.n_annotators
        )
        counts = np.bincount(self.per_item)
        self.label_counts = [m for m in range(2, counts.size) if counts[m] >= MIN_SHARED_ITEMS]

    def of(self, labels: np.ndarray) -> dict[str, np.ndarray]:
        """Every statistic of responses with these ``labels`` (R,)."""
        r = self.responses
        n_workers = r.n_annotators
        positive = np.bincount(r.item, weights=labels, minlength=r.n_items)
        agree_pair = labels[self.first] == labels[self.second]
        # a label agrees with the others of its item that gave the same answer
        agreeing = np.where(
            labels == 1, positive[r.item] - 1, self.per_item[r.item] - positive[r.item] - 1
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            agreement = (
                np.bincount(r.annotator, weights=agreeing, minlength=n_workers) / self.others
            )
            pairwise = (
                np.bincount(self.pair_index, weights=agree_pair, minlength=self.pair_kept.size)[
                    self.pair_kept
                ]
                / self.pair_shared
            )
        votes = [
            np.bincount(positive[self.per_item == m].astype(int), minlength=m + 1)
            for m in self.label_counts
        ]
        return {
            "positive_count": np.bincount(r.annotator, weights=labels, minlength=n_workers),
            "agreement_with_others": agreement,
            "votes_per_item": np.concatenate(votes) if votes else np.zeros(0),
            "pairwise_agreement": pairwise,
        }

    def subjects(self, names) -> dict[str, list[str]]:
        n_workers = self.responses.n_annotators
        return {
            "positive_count": list(names),
            "agreement_with_others": list(names),
            "votes_per_item": [
                f"{v} of {m} positive" for m in self.label_counts for v in range(m + 1)
            ],
            "pairwise_agreement": [
                f"{names[key // n_workers]}-{names[key % n_workers]}" for key in self.pairs
            ],
        }


def statistic_rows(
    check: str,
    subjects,
    observed,
    replicated,
    expected,
    level: float,
    notes=None,
    *,
    corrected=False,
) -> list[dict]:
    """Rows comparing observed statistics (m,) with replicated (S, m) and model-expected (S, m)
    values: the central ``level`` interval of the replicated values, the two-sided posterior
    predictive p-value, and the flag, which is the observed value outside the interval, or
    with ``corrected`` a Benjamini–Hochberg q-value below ``1 - level`` (said in the note).

    With ``corrected``, where the observed value lies beyond every one of the ``S`` replicates
    the count says only that ``p < 2 / S``, and a p-value of 0 would be flagged by
    Benjamini–Hochberg whatever the number of rows; a true model puts a statistic there by
    chance in about 2 rows of ``S + 1`` (measured: 8-12 of 304 rows flagged at the true
    channels of a 150-worker crowd with 50 replicates).  Such a row's p-value is the normal
    tail of the replicates, ``2 Phi(-|T - mean| / sd)`` (its statistics are sums of labels),
    at most ``2 / (S + 1)`` and that when the replicates are all equal; it tells a statistic
    just beyond the replicates from one far beyond them (a copying pair).  For a sum of a
    few labels (a sparse worker's) the normal tail is too thin: at the true channels of a
    300-worker crowd with heavy-tailed workloads, 0-2 of about 650 rows a seed were flagged,
    mostly sparse workers' agreement with the others."""
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(replicated, [tail, 1.0 - tail], axis=0)
    above = (replicated >= observed).mean(axis=0)
    below = (replicated <= observed).mean(axis=0)
    p_value = np.minimum(1.0, 2.0 * np.minimum(above, below))
    if corrected:
        resolved = 2.0 / (replicated.shape[0] + 1)  # the smallest p-value S replicates tell
        spread = replicated.std(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):  # replicates all equal: sd 0
            tail = 2.0 * special.ndtr(-np.abs(observed - replicated.mean(axis=0)) / spread)
        # never above what the replicates resolve; replicates all equal tell no tail at all
        tail = np.where(spread > 0, np.minimum(tail, resolved), resolved)
        p_value = np.where(p_value == 0.0, tail, p_value)
        q_value = benjamini_hochberg(p_value)
        flags = q_value < 1.0 - level
        notes = [
            f"Benjamini–Hochberg across the {p_value.size} rows of this check: q = {q:.3g}"
            for q in q_value
        ]
    else:
        flags = (observed < lower) | (observed > upper)
    return [
        {
            "check": check,
            "subject": subject,
            "observed": float(observed[i]),
            "expected": float(expected[:, i].mean()),
            "lower": float(lower[i]),
            "upper": float(upper[i]),
            "p_value": float(p_value[i]),
            "flag": bool(flags[i]),
            "note": "" if notes is None else notes[i],
        }
        for i, subject in enumerate(subjects)
    ]


def crowd_check_rows(
    responses: Responses,
    a: np.ndarray,
    b: np.ndarray,
    prevalence: np.ndarray,
    level: float,
    rng,
    *,
    pairs: np.ndarray | None = None,
    covariance: np.ndarray | None = None,
    loading: np.ndarray | None = None,
) -> list[dict]:
    """The rows of the crowd checks (module docstring) of draws ``a, b`` (S, K) and
    ``prevalence`` (S,) on ``responses``, in :data:`bayescal.bayes.checks.COLUMNS`.  A gold
    item's class is observed, so every replicate keeps it (as the pattern checks do); the
    others' are drawn from the prevalence.  The labels are drawn as the calibration test's
    null draws them (:func:`~bayescal.correction.calibration_test.replicate_labels`), so the
    dependent ``pairs`` (D, 2) answer jointly with their ``covariance`` draws (S, D, 2) and a
    shared difficulty's ``loading`` draws (S, 2) enter every label."""
    statistics = _Statistics(responses)
    chosen = np.linspace(0, a.shape[0] - 1, min(MAX_DRAWS, a.shape[0])).round().astype(int)
    observed = statistics.of(responses.label.astype(float))
    replicated = {name: [] for name in observed}
    known = np.zeros(responses.n_items, bool) if responses.gold is None else responses.gold >= 0
    for s in chosen:
        # an item's chance of Y = 1: its gold class (0 or 1, drawn with certainty) or the
        # prevalence
        chance = np.where(known, responses.gold == 1, prevalence[s])
        labels, _ = replicate_labels(
            rng,
            chance,
            responses.item,
            responses.annotator,
            a[s],
            b[s],
            pairs,
            None if covariance is None else covariance[s],
            None if loading is None else loading[s],
        )
        for name, values in statistics.of(labels.astype(float)).items():
            replicated[name].append(values)
    subjects = statistics.subjects(responses.annotator_names)
    rows = []
    for check, values in observed.items():
        if values.size == 0:
            continue
        simulated = np.array(replicated[check])
        defined = ~np.isnan(values)
        simulated, values = simulated[:, defined], values[defined]
        names = [name for name, ok in zip(subjects[check], defined) if ok]
        rows += statistic_rows(check, names, values, simulated, simulated, level, corrected=True)
    return rows


def crowd_status_rows(
    names, a: np.ndarray, b: np.ndarray, n_responses: int, parameters: int
) -> list[dict]:
    """The ``model`` rows of the crowd checks for draws ``a, b`` (S, K) of workers ``names``
    from a fit of ``parameters`` free parameters: what is checked, and which workers the data
    cannot tell from random (flagged only when fewer than three informative workers remain)."""
    gap_floor = _gap_floor(a, b)
    weak = [name for name, value in zip(names, gap_floor) if value < WEAK_GAP_QUANTILE]
    return [
        {
            "check": "model",
            "subject": "saturation",
            "observed": float(n_responses - parameters),
            "flag": False,
            "note": (
                f"{n_responses - parameters} degrees of freedom ({n_responses} labels, "
                f"{parameters} parameters), checked label by label as a crowd's"
            ),
        },
        {
            "check": "model",
            "subject": "identification",
            "observed": float(gap_floor.max()),
            "flag": bool(len(weak) > a.shape[1] - 3),
            "note": _gap_note(float(gap_floor.max()), "largest")
            + (
                f"; the 5% posterior quantile of |b - a| is below {WEAK_GAP_QUANTILE} for "
                f"{len(weak)} of {a.shape[1]} workers ({abbreviated(weak, 8)}): their labels carry little"
                if weak
                else "; no sign of weak identification"
            ),
        },
    ]


def _gap_floor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each annotator's 5% posterior quantile of ``|b - a|`` (K,), of draws (S, K)."""
    return np.quantile(np.abs(b - a), 0.05, axis=0)


def _gap_note(value: float, which: str) -> str:
    """What an ``identification`` row's number is: the ``which`` (smallest or largest) of the
    annotators' 5% posterior quantiles of ``|b - a|``."""
    return f"the {which} annotator's 5% posterior quantile of |b - a| is {value:.3f}"


# --- the checks -----------------------------------------------------------------------------------

#: Discrepancies of the global check.
DISCREPANCIES = ("chi2", "g2")
#: A grouped model is called weakly identified when the 5% posterior quantile of the spread of
#: its group prevalences (max - min) is below this (an annotator: WEAK_GAP_QUANTILE).
MIN_PREVALENCE_SPREAD = 0.05

#: Replicates drawn at the single posterior draw of the sampled-posterior p-value.
SAMPLED_REPLICATES = 1000

COLUMNS = ["check", "subject", "observed", "expected", "lower", "upper", "p_value", "flag", "note"]


@dataclass(frozen=True, eq=False)
class ModelChecks:
    """Every posterior predictive check of a fit: one table and its verdicts in plain words.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per check and subject (columns in :func:`check_model`).
    verdicts : tuple of str
        The table in plain words, most important first (:func:`verdicts`).
    level : float
        The central replicated interval outside which a statistic is flagged.
    """

    table: pd.DataFrame
    verdicts: tuple[str, ...]
    level: float

    @property
    def flagged(self) -> pd.DataFrame:
        """The rows whose observed statistic lies outside its replicated interval."""
        return self.table[self.table["flag"]]

    def __repr__(self) -> str:
        return (
            f"ModelChecks({len(self.table)} checks at {self.level:.0%}, "
            f"{len(self.flagged)} flagged; {self.verdicts[0]})"
        )

    def _repr_html_(self) -> str:
        return _html.checks_table(self.verdicts, self.table.itertuples())


#: Up to this many annotators a pattern's name spells out every one (``-`` for no label);
#: beyond, it names those who answered (a crowd's item has three labels of hundreds).
SPELLED_OUT = 6


def _pattern_name(pattern: np.ndarray, names) -> str:
    every = len(names) <= SPELLED_OUT
    return " ".join(
        f"{name}={'-' if x < 0 else int(x)}" for name, x in zip(names, pattern) if every or x >= 0
    )


def _fitted_data(fit: BayesFit, data: AnnotatedScores) -> AnnotatedScores:
    """The data with their columns in the fit's order, after checking they are the fit's data."""
    if not isinstance(data, AnnotatedScores):
        hint = (
            " (the data come before the fit since bayescal 0.2)"
            if isinstance(data, BayesFit)
            else ""
        )
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}{hint}")
    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal.BayesFit; saw {type(fit).__name__}")
    v.annotator_positions(data.annotator_names, fit.annotators, "data", "the fit")
    data = data.in_annotator_order(fit.annotators)  # the replicated patterns follow it
    if fit.spec.grouped:
        fit.check_groups_of(data)
    if not fit.was_fitted_to(data):
        raise ValueError(
            f"data are not the data this fit was fitted to: their pattern counts differ ({data.n_items} "
            f"items against the fit's {sum(fit.fitted_counts.values()):.0f}); check the model on the data it was fitted to"
        )
    return data


def uses_crowd_checks(model, n_annotators: int) -> bool:
    """Whether :func:`check_model` checks a fit of ``model`` (a name) on ``n_annotators`` with
    the checks that scale to crowds (the hierarchical model, or more than
    :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators) rather than on the
    complete pattern layout: decided from the model and the data, before sampling."""
    return channel_model(model).on_responses or n_annotators > CROWD_ANNOTATORS


def _row_probabilities(fit: BayesFit, design: PatternDesign) -> np.ndarray:
    """``p(pattern_r | group_r, mask_r, theta_s)`` for every draw and complete-design row: (S, R),
    under the fitted model (with its dependent pairs' covariances, when it has them)."""
    return np.exp(fit.row_log_likelihood(design))


def _replicate(design: PatternDesign, probabilities: np.ndarray, rng) -> np.ndarray:
    """Replicated counts (S, R): a multinomial per (group, mask) cell and draw."""
    replicated = np.zeros(probabilities.shape)
    for rows, size in zip(design.cell_rows, design.cell_sizes):
        rows = rows[rows >= 0]
        cell = probabilities[:, rows]
        # Rows of a cell sum to one up to rounding; renormalise so numpy accepts them.
        replicated[:, rows] = rng.multinomial(round(size), cell / cell.sum(axis=1, keepdims=True))
    return replicated


def _cell_sizes_of_rows(design: PatternDesign) -> np.ndarray:
    sizes = np.zeros(design.counts.size)
    for rows, size in zip(design.cell_rows, design.cell_sizes):
        sizes[rows[rows >= 0]] = size
    return sizes


def _discrepancy(counts: np.ndarray, expected: np.ndarray, kind: str) -> np.ndarray:
    """Pearson chi-square or deviance of counts (S, R) or (R,) against expected counts (S, R)."""
    if kind == "chi2":
        return ((counts - expected) ** 2 / expected).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, counts * np.log(counts / expected), 0.0)
    return 2.0 * terms.sum(axis=-1)


def _status_rows(fit: BayesFit, design: PatternDesign, grouped: bool) -> list[dict]:
    """Saturation and weak identification, as ``model`` rows."""
    a, b, prevalence = fit.draws()
    n_annotators = a.shape[1]
    free_cells = int(sum((rows >= 0).sum() - 1 for rows in design.cell_rows))
    parameters = (
        2 * n_annotators
        + (design.n_groups if grouped else 1)
        + 2 * design.n_pairs
        + (2 if design.difficulty else 0)
    )
    df = free_cells - parameters
    saturated = df <= 0
    rows = [
        {
            "check": "model",
            "subject": "saturation",
            "observed": float(df),
            "flag": bool(saturated),
            "note": (
                f"saturated: {parameters} parameters for {free_cells} free cells, so the model reproduces the "
                "pattern frequencies exactly and the checks cannot detect misfit"
                if saturated
                else f"{df} degrees of freedom ({free_cells} free cells, {parameters} parameters)"
            ),
        }
    ]
    weak = []
    gap_floor = _gap_floor(a, b)
    small = [
        name for name, value in zip(fit.annotator_names, gap_floor) if value < WEAK_GAP_QUANTILE
    ]
    if small:
        weak.append(
            f"the 5% posterior quantile of |b - a| is below {WEAK_GAP_QUANTILE} for {small}"
        )
    # with channels per score group each group is a Dawid–Skene model of its own: the class
    # proportions need not differ to identify it
    if grouped and prevalence.shape[1] > 1 and not fit.spec.channels_by_group:
        spread = np.quantile(prevalence.max(axis=1) - prevalence.min(axis=1), 0.05)
        if spread < MIN_PREVALENCE_SPREAD:
            weak.append(
                f"the score groups' class proportions may not differ (5% posterior quantile of their spread "
                f"{spread:.3f} < {MIN_PREVALENCE_SPREAD})"
            )
    rows.append(
        {
            "check": "model",
            "subject": "identification",
            "observed": float(gap_floor.min()),
            "flag": bool(weak),
            "note": _gap_note(float(gap_floor.min()), "smallest")
            + (
                "; weakly identified: " + "; ".join(weak)
                if weak
                else "; no sign of weak identification"
            ),
        }
    )
    return rows


@old_spellings(
    renamed={"interval": "level"}, was="check_model(fit, data, interval, discrepancy, seed)"
)
def check_model(data, fit, *, level=DEFAULT_LEVEL, discrepancy="chi2", seed=0) -> ModelChecks:
    """All posterior predictive checks of a fit, as one table with its verdicts (module docstring).

    Parameters
    ----------
    data : AnnotatedScores
        The data ``fit`` was fitted to (same annotators, score groups and pattern counts).
    fit : BayesFit
    level : float in (0, 1), default 0.9
        Central posterior predictive interval; a statistic outside it is flagged (and the
        global checks at the p-value ``1 - level``).
    discrepancy : {"chi2", "g2"}, default "chi2"
        Pearson chi-square or deviance for the global ``ppc`` row.
    seed : int, default 0
        Seeds the replicated counts.

    Returns
    -------
    ModelChecks
        ``table`` has one row per check and subject, columns ``check``, ``subject``, ``observed``,
        ``expected`` (posterior mean under the model), ``lower`` and ``upper`` (the replicated
        interval), ``p_value``, ``flag`` and ``note``.  ``check`` is one of ``model`` (rows
        ``saturation`` and ``identification``), ``ppc``, ``pairwise_agreement``,
        ``positive_count``, ``votes_per_item`` and ``pattern``; for crowds
        (:func:`uses_crowd_checks`) ``model``, ``positive_count``, ``agreement_with_others``,
        ``votes_per_item`` and ``pairwise_agreement`` (:mod:`bayescal.bayes.checks`).
        Annotators are named by ``data.annotator_names``; ``verdicts`` says it in sentences.
    """
    require_binary(data, "check_model")
    data = _fitted_data(fit, data)
    level = v.as_open_probability(level, "level")
    kind = v.as_choice(discrepancy, "discrepancy", DISCREPANCIES)
    rng = np.random.default_rng(v.as_seed(seed))
    if uses_crowd_checks(fit.model, data.n_annotators):
        a, b, prevalence = fit.draws()
        responses = data.responses()
        # every recorded site is a free parameter (or one to one with them: the population's
        # mean of logit b is its mean of logit a plus the gap), but for the channels of the
        # workers summed out: theirs is the population's mean channel
        parameters = sum(int(np.prod(draws.shape[2:])) for draws in fit.chains.values())
        parameters -= 2 * len(fit.summed_out)
        rows = crowd_status_rows(fit.annotator_names, a, b, responses.n_responses, parameters)
        rows += crowd_check_rows(
            responses,
            a,
            b,
            prevalence,
            level,
            rng,
            pairs=fit.pair_index if fit.dependent else None,
            covariance=fit.covariance_draws(),
            loading=fit.loading_draws(),
        )
        table = pd.DataFrame(rows, columns=COLUMNS)
        return ModelChecks(table, tuple(verdicts(table)), level)
    grouped = fit.spec.grouped
    design = fit.spec.pattern_design(data.compress(), pairs=fit.pair_index, complete=True)
    probabilities = _row_probabilities(fit, design)
    expected = probabilities * _cell_sizes_of_rows(design)
    replicated = _replicate(design, probabilities, rng)
    observed = design.counts
    names = data.annotator_names  # the design's columns, in the fit's order (_fitted_data)
    rows = _status_rows(fit, design, grouped)

    label = {"chi2": "Pearson chi-square", "g2": "deviance G^2"}[kind]
    realised, simulated = (
        _discrepancy(observed, expected, kind),
        _discrepancy(replicated, expected, kind),
    )
    # The sampled-posterior p-value (Gosselin 2011): one posterior draw, many replicates at it.
    # The ordinary posterior predictive p-value uses the data twice and piles up near 0.5 when
    # the model is true; the sampled one is uniform then, so its flags keep their nominal rate.
    chosen = int(rng.integers(probabilities.shape[0]))
    at_draw = np.repeat(probabilities[chosen][None], SAMPLED_REPLICATES, axis=0)
    sampled = _discrepancy(_replicate(design, at_draw, rng), expected[chosen], kind)
    for subject, realised_values, simulated_values, note in (
        (
            label,
            realised,
            simulated,
            "posterior predictive p-value P(D(y_rep) >= D(y)); observed is the posterior mean of D(y, theta)",
        ),
        (
            f"{label}, sampled posterior draw",
            realised[chosen : chosen + 1],
            sampled,
            f"sampled-posterior p-value (Gosselin 2011): draw {chosen}, {SAMPLED_REPLICATES} replicates; uniform when the model holds",
        ),
    ):
        p_value = float((simulated_values >= realised_values).mean())
        rows.append(
            {
                "check": "ppc",
                "subject": subject,
                "observed": float(realised_values.mean()),
                "expected": float(simulated_values.mean()),
                "lower": float(np.quantile(simulated_values, (1 - level) / 2)),
                "upper": float(np.quantile(simulated_values, (1 + level) / 2)),
                "p_value": p_value,
                "flag": p_value < 1.0 - level,
                "note": note,
            }
        )

    positive, negative = design.positive, design.negative
    pairs = [(j, k) for j in range(len(names)) for k in range(j + 1, len(names))]
    if pairs:
        both = np.stack([positive[:, j] + negative[:, j] > 0 for j in range(len(names))], axis=1)
        agree = np.stack(
            [(positive[:, j] * positive[:, k] + negative[:, j] * negative[:, k]) for j, k in pairs],
            axis=1,
        )
        together = np.stack([(both[:, j] & both[:, k]) * 1.0 for j, k in pairs], axis=1)
        shared = observed @ together
        usable = shared > 0
        ratio = lambda counts: (counts @ agree)[..., usable] / shared[usable]  # noqa: E731
        subjects = [f"{names[j]}-{names[k]}" for (j, k), ok in zip(pairs, usable) if ok]
        notes = [f"{int(n)} items labelled by both" for n in shared[usable]]
        rows += statistic_rows(
            "pairwise_agreement",
            subjects,
            ratio(observed),
            ratio(replicated),
            ratio(expected),
            level,
            notes,
        )

    rows += statistic_rows(
        "positive_count",
        list(names),
        observed @ positive,
        replicated @ positive,
        expected @ positive,
        level,
    )
    votes = positive.sum(axis=1).astype(int)
    histogram = np.stack([(votes == k) * 1.0 for k in range(len(names) + 1)], axis=1)
    subjects = [f"{k} positive vote{'s' if k != 1 else ''}" for k in range(len(names) + 1)]
    rows += statistic_rows(
        "votes_per_item",
        subjects,
        observed @ histogram,
        replicated @ histogram,
        expected @ histogram,
        level,
    )

    missing = 1.0 - positive - negative
    patterns = (positive - missing).astype(int)
    group_ids = design.group_ids[design.group_index]
    subjects = [
        _pattern_name(pattern, names) + (f" (group {int(g)})" if grouped else "")
        for pattern, g in zip(patterns, group_ids)
    ]
    rows += statistic_rows("pattern", subjects, observed, replicated, expected, level)
    table = pd.DataFrame(rows, columns=COLUMNS)
    return ModelChecks(table, tuple(verdicts(table)), level)


def check_table(checks) -> pd.DataFrame:
    """The table of a :class:`ModelChecks` (or the table itself), checked for its columns."""
    table = checks.table if isinstance(checks, ModelChecks) else checks
    if not isinstance(table, pd.DataFrame) or not set(COLUMNS) <= set(table.columns):
        raise TypeError(
            "checks must be the ModelChecks returned by bayescal.check_model (or its table)"
        )
    return table


def _p_values(global_rows: pd.DataFrame) -> str:
    classic, sampled = global_rows.iloc[0], global_rows.iloc[1]
    return (
        f"{p_value_text(sampled['p_value'], named='sampled-posterior p')}, "
        f"{p_value_text(classic['p_value'], named='posterior predictive p')}"
    )


#: Flagged pairs spelled out in the verdicts (the table has them all).
MAX_PAIR_VERDICTS = 5


def verdicts(checks) -> list[str]:
    """Plain-language verdicts of :func:`check_model`'s table, most important first."""
    table = check_table(checks)
    lines = []
    status = table[table["check"] == "model"].set_index("subject")
    saturated = bool(status.loc["saturation", "flag"])
    lines.append(f"Model: {status.loc['saturation', 'note']}.")
    if status.loc["identification", "flag"]:
        lines.append("Identification: " + status.loc["identification", "note"] + ".")
    global_rows = table[table["check"] == "ppc"]
    if global_rows.empty:  # the crowd checks: no pattern counts
        pass
    elif saturated:
        lines.append(
            f"Pattern counts ({global_rows.iloc[0]['subject']}): {_p_values(global_rows)}; uninformative because the model is saturated."
        )
    elif global_rows.iloc[1]["flag"]:
        lines.append(
            f"Pattern counts ({global_rows.iloc[0]['subject']}): {_p_values(global_rows)}: the counts are unlikely under the model; see the flagged patterns."
        )
    else:
        lines.append(
            f"Pattern counts ({global_rows.iloc[0]['subject']}): {_p_values(global_rows)}: the model reproduces the pattern counts."
        )
    if saturated:
        lines.append(
            "Pairwise agreement and the other count checks: matched by construction in a saturated model, so "
            "conditional independence cannot be tested here; more annotators would make it testable."
        )
        return lines
    pairs = table[(table["check"] == "pairwise_agreement") & table["flag"]]
    for _, row in pairs.head(MAX_PAIR_VERDICTS).iterrows():
        direction = "more" if row["observed"] > row["upper"] else "less"
        lines.append(
            f"Pair {row['subject']}: agree on {row['observed']:.3f} of shared items, {direction} often than the model "
            f"predicts ({row['expected']:.3f}, {row['lower']:.3f}-{row['upper']:.3f}): their errors may be "
            + (
                "correlated."
                if direction == "more"
                else "anti-correlated or the channels differ between items."
            )
        )
    if len(pairs) > MAX_PAIR_VERDICTS:
        lines.append(
            f"... and {len(pairs) - MAX_PAIR_VERDICTS} more flagged pairs (see the table)."
        )
    if pairs.empty and (table["check"] == "pairwise_agreement").any():
        lines.append("Pairwise agreement: every pair agrees as often as the model predicts.")
    for check, label in (
        ("positive_count", "positive counts"),
        ("agreement_with_others", "agreement with the other workers of an item"),
        ("votes_per_item", "votes per item"),
        ("pattern", "patterns"),
    ):
        flagged = table[(table["check"] == check) & table["flag"]]
        if not flagged.empty:
            shown = ", ".join(flagged["subject"].head(4)) + (", ..." if len(flagged) > 4 else "")
            lines.append(f"Flagged {label}: {shown}.")
    return lines
