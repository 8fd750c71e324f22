"""Model checks that scale to crowds: posterior predictive checks on the sparse responses.

The checks of :mod:`bayescal.checks` replicate the counts of every response combination of every
missingness mask; a crowd has about one mask per item, so those layouts grow without bound.
These checks replicate the responses themselves, on the (item, worker) pairs that were labelled:
for each of up to :data:`MAX_DRAWS` posterior draws, every item's latent label
``Y_i ~ Bernoulli(prevalence)`` and every response ``A_ij ~ Bernoulli(a_j + (b_j - a_j) Y_i)``
are drawn anew (O(responses) per draw), and statistics of the observed responses are compared
with their replicated distribution:

- ``positive_count``: each worker's number of positive labels;
- ``agreement_with_others``: each worker's share of agreeing label pairs with the other workers
  of the same items (a worker whose errors the model misdescribes stands out here);
- ``votes_per_item``: the number of items with ``v`` positive votes of ``m`` labels, for each
  number of labels ``m`` that at least :data:`MIN_SHARED_ITEMS` items have;
- ``pairwise_agreement``: the share of shared items on which two workers agree, only for pairs
  with at least :data:`MIN_SHARED_ITEMS` shared items (fewer say nothing).

Each row's two-sided posterior predictive p-value is ``2 min(P(T_rep >= T), P(T_rep <= T))``.
With hundreds of workers, dozens of rows fall outside a 90% interval by chance alone, so the
rows are flagged by the Benjamini–Hochberg procedure across each check's rows: a row is
flagged when its adjusted p-value (its q-value) is below ``1 - level``, which holds the false
discovery rate among the flagged rows of a check at ``1 - level``.
"""

from __future__ import annotations

import numpy as np

from ._api import abbreviated
from .responses import Responses

__all__ = [
    "MAX_DRAWS",
    "MIN_SHARED_ITEMS",
    "WEAK_GAP_QUANTILE",
    "benjamini_hochberg",
    "crowd_check_rows",
    "crowd_status_rows",
    "statistic_rows",
]

#: Posterior draws replicated (an even subsample of the fit's draws when it has more).
MAX_DRAWS = 400
#: Pairs of workers, and numbers of labels per item, with fewer items than this are not checked.
MIN_SHARED_ITEMS = 20
#: An annotator is called weakly identified when the 5% posterior quantile of its gap b - a is
#: below this (a credibility floor of the model checks, not the informativeness threshold
#: ``MIN_GAP``); :mod:`bayescal.checks` uses it too.
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
    with ``corrected`` a Benjamini–Hochberg q-value below ``1 - level`` (said in the note)."""
    tail = (1.0 - level) / 2.0
    lower, upper = np.quantile(replicated, [tail, 1.0 - tail], axis=0)
    above = (replicated >= observed).mean(axis=0)
    below = (replicated <= observed).mean(axis=0)
    p_value = np.minimum(1.0, 2.0 * np.minimum(above, below))
    if corrected:
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
    responses: Responses, a: np.ndarray, b: np.ndarray, prevalence: np.ndarray, level: float, rng
) -> list[dict]:
    """The rows of the crowd checks (module docstring) of draws ``a, b`` (S, K) and
    ``prevalence`` (S,) on ``responses``, in :data:`bayescal.checks.COLUMNS`."""
    statistics = _Statistics(responses)
    chosen = np.linspace(0, a.shape[0] - 1, min(MAX_DRAWS, a.shape[0])).round().astype(int)
    observed = statistics.of(responses.label.astype(float))
    replicated = {name: [] for name in observed}
    for s in chosen:
        truth = rng.random(responses.n_items) < prevalence[s]
        rate = np.where(truth[responses.item], b[s, responses.annotator], a[s, responses.annotator])
        for name, values in statistics.of((rng.random(rate.size) < rate) * 1.0).items():
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
    gap_floor = np.quantile(b - a, 0.05, axis=0)
    weak = [name for name, value in zip(names, gap_floor) if value < WEAK_GAP_QUANTILE]
    return [
        {
            "check": "model",
            "subject": "saturation",
            "observed": float(n_responses - parameters),
            "flag": False,
            "note": (
                f"checked on the {n_responses} sparse responses (crowd checks, "
                f"bayescal._crowd_checks): {parameters} free parameters"
            ),
        },
        {
            "check": "model",
            "subject": "identification",
            "observed": float(gap_floor.max()),
            "flag": bool(len(weak) > a.shape[1] - 3),
            "note": (
                f"the 5% posterior quantile of b - a is below {WEAK_GAP_QUANTILE} for "
                f"{len(weak)} of {a.shape[1]} workers ({abbreviated(weak, 8)}): their labels carry little"
                if weak
                else "no sign of weak identification"
            ),
        },
    ]
