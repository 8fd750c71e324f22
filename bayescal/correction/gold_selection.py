"""Which items to send to humans next: gold drawn where it tells most, with recorded
inclusion probabilities (active inference, Zrnic and Candès 2024; Gligoric et al. 2025).

The rectified bin mean with inclusion probabilities (:mod:`bayescal.correction.rectified`) has
the design variance ``sum_i (1 - pi_i) / pi_i (d_i - dbar)^2 / N^2`` (``d = Y - lambda U``,
``dbar`` the bin's mean), smallest for a given budget at ``pi_i ∝ sd_i``,

    sd_i^2 = E[(d_i - dbar)^2 | A_i] = q_i (1 - q_i) + (q_i - lambda U_i - dbar)^2,

``q_i = P(Y_i = 1 | A_i)`` the label posterior of the channel fit at the prevalence of the
item's score bin (its mean corrected label) and ``dbar`` the bin's mean of ``q - lambda U``:
items on which the judges disagree get gold more often.  Each item is drawn on its own
(Poisson sampling) with ``pi_i = clip(c sd_i, pi_min, 1)``, ``c`` such that the expected number
of new gold items is the budget, and ``pi_min > 0`` so that every item keeps a weight
``1 / pi_i``.  No item is ever chosen for sure by its rank: a top-n choice leaves the items it
passes over with probability 0, and no weight can then make the estimate unbiased.  Earlier
gold counts: an item's inclusion probability over both rounds is ``1 - (1 - pi0_i)(1 - pi_i)``,
``pi0`` that of the earlier round (``n_gold / n`` for a random sample), and that is what the
items, once labelled, carry as ``gold_weights``.

What it buys is bounded by the spread of ``sd_i``: against random gold, a mean's variance can
fall at best to ``mean(sd)^2 / mean(sd^2)`` of it (``GoldSelection.best_variance_ratio``).
The corrected labels ``U`` are the predictions, and they differ from ``q`` on every response
pattern, so ``sd`` varies less than ``q (1 - q)`` does (measured in ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, Result, old_spellings
from ..data.annotated_scores import AnnotatedScores, require_binary
from ..metrics.calibration import assign_bins
from .gold_plan import label_predictions, residual_spread

__all__ = ["GoldSelection", "select_for_gold"]

#: The least residual sd an item is given: an item whose label the model is sure of (perfect
#: judges) would otherwise leave the budget out of reach of any scale.
SPREAD_FLOOR = 1e-9


@dataclass(frozen=True, eq=False, repr=False)
class GoldSelection(Result):
    """The items drawn for gold and every item's inclusion probability.

    Attributes
    ----------
    items : ndarray of int
        Positions of the items to label, none of them gold already.
    inclusion : ndarray, shape (n,)
        Each item's probability of being gold after this round, both rounds counted: pass it
        as ``gold_weights`` with the new labels (:class:`~bayescal.AnnotatedScores`), and as
        ``earlier`` to a next round.
    round_inclusion : ndarray, shape (n,)
        This round's probability ``pi_i`` alone.
    budget : int
        The expected number of new gold items (the draw gives about that many).
    pi_min : float
        The floor of ``pi_i``.
    best_variance_ratio : float
        ``mean(sd)^2 / mean(sd^2)`` over the items that could be drawn: the most this design
        can cut a mean's variance against the same budget of random gold (module docstring).
    """

    items: np.ndarray
    inclusion: np.ndarray
    round_inclusion: np.ndarray
    budget: int
    pi_min: float
    best_variance_ratio: float

    def table(self):
        """One row per item: its inclusion probabilities and whether it was drawn."""
        import pandas as pd

        chosen = np.zeros(self.inclusion.size, dtype=bool)
        chosen[self.items] = True
        return pd.DataFrame(
            {
                "this round": self.round_inclusion,
                "inclusion": self.inclusion,
                "drawn": chosen,
            }
        ).rename_axis("item")


def _scale(spread: np.ndarray, budget: int, pi_min: float) -> float:
    """The ``c`` for which ``clip(c spread, pi_min, 1)`` sums to ``budget`` (bisection: the
    sum grows with ``c`` from ``n pi_min`` to ``n``)."""
    low, high = 0.0, 1.0
    while np.clip(high * spread, pi_min, 1.0).sum() < budget:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if np.clip(middle * spread, pi_min, 1.0).sum() < budget:
            low = middle
        else:
            high = middle
    return high


def _earlier_inclusion(data: AnnotatedScores, earlier) -> np.ndarray:
    """Each item's probability of being gold before this round (module docstring)."""
    if earlier is not None:
        if not isinstance(earlier, GoldSelection):
            raise TypeError(
                "earlier must be the GoldSelection of the round before; saw "
                f"{type(earlier).__name__}"
            )
        if earlier.inclusion.size != data.n_items:
            raise ValueError(
                f"earlier must be a selection of these {data.n_items} items; it holds "
                f"{earlier.inclusion.size}"
            )
        return earlier.inclusion
    if not data.n_gold:
        return np.zeros(data.n_items)
    if data.gold_weights is not None:
        raise ValueError(
            "earlier is needed: data's gold was drawn with inclusion probabilities "
            "(gold_weights), which say nothing of the items left without gold; pass the "
            "GoldSelection of that round as earlier="
        )
    return np.full(data.n_items, data.n_gold / data.n_items)


@old_spellings()
def select_for_gold(
    data,
    fit,
    budget,
    *,
    pi_min=None,
    earlier=None,
    n_bins=DEFAULT_N_BINS,
    weights="iv",
    seed=0,
) -> GoldSelection:
    """Draw the items to send to humans next, each with probability ``pi_i ∝ sd_i`` of its
    residual ``Y - lambda U`` (module docstring), and record every item's inclusion
    probability.

    Parameters
    ----------
    data : AnnotatedScores
        The items, with the gold labels already bought (``data.gold``), if any.
    fit : str, Channels, ChannelFit or callable
        The channels, as ``estimator`` of :func:`bayescal.nc_ece_estimate` (e.g.
        ``"dawid_skene_em"``, fitted here with the gold).
    budget : int
        The expected number of new gold items, at least 1 and below the number of items
        without gold.
    pi_min : float, optional
        The floor of ``pi_i``, in (0, budget / m] for ``m`` items without gold; default a
        quarter of that uniform rate.  Every item keeps a chance, so every gold item a finite
        weight ``1 / pi_i``.
    earlier : GoldSelection, optional
        The round that drew ``data``'s gold, when it was drawn by this function (its
        probabilities are combined with this round's).  Without it, the gold already there
        must be a simple random sample (no ``gold_weights``).
    n_bins : int, default 10
        The equal-width evaluation bins whose means ``dbar`` centre the residuals.
    weights : rule name or array_like, default "iv"
        The corrected labels' aggregation weights.
    seed : int, default 0
        Seeds the draw.

    Returns
    -------
    GoldSelection
        Label ``result.items``, then build the data with ``gold=`` the labels and
        ``gold_weights=result.inclusion``: the rectified estimators weight each gold item by
        ``1 / pi_i`` (:mod:`bayescal.correction.rectified`).
    """
    require_binary(data, "select_for_gold")
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    gold = np.full(data.n_items, v.MISSING) if data.gold is None else data.gold
    eligible = gold == v.MISSING
    budget = v.as_int(budget, "budget", minimum=1)
    if budget >= eligible.sum():
        raise ValueError(
            f"budget must be below the {int(eligible.sum())} items without gold; saw {budget}"
        )
    uniform = budget / eligible.sum()
    if pi_min is None:
        pi_min = uniform / 4.0
    pi_min = v.as_open_probability(pi_min, "pi_min")
    if pi_min > uniform:
        raise ValueError(
            f"pi_min must be at most budget / (items without gold) = {uniform:.4g}, or the "
            f"floor alone would exceed the budget; saw {pi_min}"
        )
    before = _earlier_inclusion(data, earlier)
    bins = v.as_n_bins(n_bins, data.n_items)
    rng = np.random.default_rng(v.as_seed(seed))
    index, _ = assign_bins(data.scores, bins, "uniform")
    targets, posterior = label_predictions(data, fit, weights, index)
    inverse = np.ones(data.n_items)
    if data.gold_weights is not None:
        inverse[~eligible] = 1.0 / data.gold_weights[~eligible]
    _, lam = residual_spread(targets, gold, inverse, posterior, data.n_gold + budget)
    predicted = posterior - lam * targets
    centre = np.bincount(index, predicted, bins) / np.maximum(np.bincount(index, None, bins), 1)
    spread = np.sqrt(posterior * (1.0 - posterior) + (predicted - centre[index]) ** 2)
    # an item the model is sure of keeps the floor, and the budget stays reachable however
    # many such items there are (the scale then lifts the others to 1 first)
    spread = np.maximum(spread, SPREAD_FLOOR)
    # the gold items get the rule too: their chance in this round, had they had none before
    this_round = np.clip(_scale(spread[eligible], budget, pi_min) * spread, pi_min, 1.0)
    chosen = np.flatnonzero(eligible & (rng.random(data.n_items) < this_round))
    candidates = spread[eligible]
    return GoldSelection(
        chosen,
        1.0 - (1.0 - before) * (1.0 - this_round),
        this_round,
        budget,
        float(pi_min),
        float(candidates.mean() ** 2 / np.mean(candidates**2)),
    )
