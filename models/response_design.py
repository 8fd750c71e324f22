"""The sparse responses of a crowd as the hierarchical model reads them.

Each row of :class:`ResponseDesign` is one item (or several items with the same workers and
answers, counted), its responses padded to the widest row.  A response is the code
``2 j + label`` of worker ``j``; :func:`code_table` gives each code's log probability, so the
per-item sums of the likelihood are sums along a row (no scatter) and memory is
O(responses), never items x workers.  The design also decides which workers the program
samples centred (those with at least :data:`CENTRED_LABELS` labels; the model's docstring
says why), and which it does not sample at all: a worker with one label in all is summed out
of the likelihood (the model's docstring shows that this is exact), so that a crowd of
thousands of one-label workers costs no more than its other workers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import jax.numpy as jnp
import numpy as np
from scipy import special

from .pattern_design import row_key

#: Workers with at least this many labels are sampled centred, the others non-centred.
CENTRED_LABELS = 30
CENTRED_STEP = 8


@dataclass(frozen=True, eq=False)
class ResponseDesign:
    """Items as rows of padded responses, with the counts of items sharing a row.

    Attributes
    ----------
    codes : ndarray of int32, shape (R, L)
        ``2 j + label`` of each response of the row; ``2 K`` pads a row shorter than ``L``.
    counts : ndarray of float64, shape (R,)
        Items with exactly this row's responses.
    position : ndarray of int64, shape (K,)
        Where worker ``j`` is in the sampled order (the ``n_centred`` centred workers first);
        every summed-out worker is at ``K - n_summed_out``, the row of the population's mean
        channel, after the sampled workers.
    n_centred : int
    n_summed_out : int
        Workers with one label in all, not sampled: their label's probability is the
        population's mean channel (:func:`bayescal.models.population_mean_channel`).
    gold : ndarray of float64, shape (R,), or None
        The gold label of the row's items (-1 for none; rows of gold items are kept apart):
        such a row scores ``log p(answers | Y = gold) + log P(Y = gold)``.  None without gold.
    """

    codes: np.ndarray
    counts: np.ndarray
    position: np.ndarray
    n_centred: int
    n_summed_out: int = 0
    gold: np.ndarray | None = None

    #: A crowd's model has no dependent pairs, no shared difficulty and no channels per
    #: group (the interface of PatternDesign).
    pairs = np.zeros((0, 2), np.int64)
    difficulty = False
    channels_by_group = False

    @property
    def n_annotators(self) -> int:
        return int(self.position.size)

    @property
    def width(self) -> int:
        return int(self.codes.shape[1])

    @property
    def has_gold(self) -> bool:
        return self.gold is not None

    @property
    def summed_out(self) -> np.ndarray:
        """Which workers (K,) are summed out rather than sampled."""
        return self.position == self.n_annotators - self.n_summed_out  # the row after them

    @classmethod
    def from_responses(
        cls,
        responses,
        *,
        compress: bool = True,
        centred_labels: int = CENTRED_LABELS,
        sum_out_single: bool = True,
    ) -> ResponseDesign:
        """The design of a :class:`bayescal.data.Responses`: one row per labelled item,
        identical rows (answers and gold label) merged and counted when ``compress``; workers
        with one label in all summed out when ``sum_out_single``."""
        n_workers = responses.n_annotators
        order = np.lexsort((responses.annotator, responses.item))
        item = responses.item[order]
        codes = 2 * responses.annotator[order] + responses.label[order].astype(np.int64)
        labelled, starts, per_item = np.unique(item, return_index=True, return_counts=True)
        width = int(per_item.max())
        rows = np.full((labelled.size, width), 2 * n_workers, dtype=np.int32)
        rows[
            np.repeat(np.arange(labelled.size), per_item),
            np.arange(item.size) - np.repeat(starts, per_item),
        ] = codes
        counts = np.ones(labelled.size)
        gold = responses.gold[labelled] if responses.has_gold else None
        if compress:
            keyed = rows if gold is None else np.column_stack([rows, gold])
            keyed, counts = np.unique(keyed, axis=0, return_counts=True)
            rows = keyed if gold is None else keyed[:, :-1]
            gold = None if gold is None else keyed[:, -1]
        labels = responses.labels_per_annotator()
        # the most-labelled workers, as many as have centred_labels, rounded down to a multiple
        # of CENTRED_STEP: similar crowds then share a layout (and a compiled sampler)
        n_centred = int((labels >= centred_labels).sum()) // CENTRED_STEP * CENTRED_STEP
        centred = np.zeros(n_workers, bool)
        centred[np.argsort(-labels, kind="stable")[:n_centred]] = True
        summed_out = (labels == 1) if sum_out_single else np.zeros(n_workers, bool)
        return cls(
            rows,
            counts.astype(np.float64),
            _positions(centred, summed_out),
            n_centred,
            int(summed_out.sum()),
            None if gold is None else gold.astype(np.float64),
        )

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    def arrays(self) -> tuple:
        """The arrays the program reads besides the counts (with gold, the rows' labels)."""
        return (self.codes, self.position, *((self.gold,) if self.has_gold else ()))

    def with_arrays(self, codes, position, gold=None) -> ResponseDesign:
        return replace(self, codes=codes, position=position, gold=gold)

    def padded(self, rows: int) -> ResponseDesign:
        """This design with rows of no response and count 0 appended up to ``rows``."""
        extra = rows - self.counts.size
        return replace(
            self,
            codes=np.pad(self.codes, ((0, extra), (0, 0)), constant_values=2 * self.n_annotators),
            counts=np.pad(self.counts, (0, extra)),
            gold=None if self.gold is None else np.pad(self.gold, (0, extra), constant_values=-1),
        )

    def layout(self) -> tuple:
        """The shapes compiled code depends on."""
        gold = ("gold",) if self.has_gold else ()
        return (self.n_annotators, self.n_centred, self.n_summed_out, self.width, *gold)

    # --- what a posterior needs of its data (bayescal.bayes.bayes_fit; numpy on draws) --------------

    def row_log_likelihood(self, a, b, prevalence, covariance=None, loading=None) -> np.ndarray:
        """``log p(row r | draw)`` of draws ``a, b`` (..., K) and ``prevalence`` (...): (..., R),
        computed a few draws at a time (the responses of every draw at once would be
        draws x responses).  ``covariance`` and ``loading`` must be None: a crowd's model has
        no dependent pairs and no shared difficulty."""
        if covariance is not None or loading is not None:
            raise ValueError(
                "covariance, loading: the hierarchical model has no dependent pairs and no "
                "shared difficulty"
            )
        lead = prevalence.shape
        a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
        prevalence = prevalence.reshape(-1)
        out = np.empty((prevalence.size, self.counts.size))
        step = max(1, LIKELIHOOD_CHUNK // max(1, self.codes.size))
        for start in range(0, prevalence.size, step):
            part = slice(start, start + step)
            log0 = code_table(special.logit(a[part]), xp=np)[:, self.codes].sum(axis=-1)
            log1 = code_table(special.logit(b[part]), xp=np)[:, self.codes].sum(axis=-1)
            out[part] = gold_mixture(
                np.log1p(-prevalence[part])[:, None] + log0,
                np.log(prevalence[part])[:, None] + log1,
                self.gold,
                np.logaddexp,
                xp=np,
            )
        return out.reshape(*lead, self.counts.size)

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``."""
        centred = np.zeros(self.n_annotators, np.int8)
        centred[self.position < self.n_centred] = 1
        variables = {
            "counts": (("pattern",), self.counts),
            "codes": (("pattern", "response"), self.codes),
            "centred": (("annotator",), centred),
            "summed_out": (("annotator",), self.summed_out.astype(np.int8)),
        }
        if self.has_gold:
            variables["pattern_gold"] = (("pattern",), self.gold.astype(np.int8))
        return variables

    @classmethod
    def from_constant_data(cls, variables: dict) -> ResponseDesign:
        """The design :meth:`constant_data` describes (``variables``: name -> (dims, array))."""
        centred = np.asarray(variables["centred"][1]).astype(bool)
        summed_out = (
            np.asarray(variables["summed_out"][1]).astype(bool)
            if "summed_out" in variables
            else np.zeros_like(centred)  # saved before workers were summed out: all sampled
        )
        gold = variables.get("pattern_gold")
        return cls(
            np.asarray(variables["codes"][1], np.int32),
            np.asarray(variables["counts"][1], np.float64),
            _positions(centred, summed_out),
            int(centred.sum()),
            int(summed_out.sum()),
            None if gold is None else np.asarray(gold[1], np.float64),
        )

    def fitted_counts(self) -> dict:
        """Items per row: ``(0, codes)``, the codes ``2 j + label`` of the row's responses,
        and the gold label after them for a row of gold items (:func:`row_key`)."""
        pad = 2 * self.n_annotators
        gold = np.full(self.counts.size, -1) if self.gold is None else self.gold
        return {
            row_key(0, [x for x in row if x < pad], label): float(c)
            for row, label, c in zip(self.codes, gold, self.counts)
            if c > 0
        }


#: Responses x draws computed at once by ResponseDesign.row_log_likelihood (memory bound).
LIKELIHOOD_CHUNK = 1 << 22


def _positions(centred: np.ndarray, summed_out: np.ndarray) -> np.ndarray:
    """Where each worker is in the sampled order: the centred ones first, then the other
    sampled ones, each set in order; every summed-out worker at the row after them (the
    population's mean channel)."""
    sampled_order = np.concatenate(
        [np.flatnonzero(centred), np.flatnonzero(~centred & ~summed_out)]
    )
    position = np.full(centred.size, sampled_order.size, dtype=np.int64)
    position[sampled_order] = np.arange(sampled_order.size)
    return position


def gold_mixture(joint0, joint1, gold, logaddexp, xp=jnp):
    """A row's log-likelihood from its two joint terms ``log P(Y = y) + log p(row | Y = y)``:
    the mixture ``logaddexp(joint0, joint1)``, or for a row of gold items (``gold`` (R,) 0 or
    1; None for no gold) its known class's term."""
    mixture = logaddexp(joint0, joint1)
    if gold is None:
        return mixture
    return xp.where(gold == 1, joint1, xp.where(gold == 0, joint0, mixture))


def code_table(logit_rate, xp=jnp):
    """``[log(1 - r_0), log r_0, log(1 - r_1), ..., 0]``: the log probability of each code
    ``2 j + label``, and 0 for the padding code ``2 K``, of the rates ``r = sigmoid(logit_rate)``
    (..., K): (..., 2 K + 1).  ``xp`` is ``jax.numpy`` in the program, ``numpy`` on draws."""
    log_pair = xp.stack([-xp.logaddexp(0.0, logit_rate), -xp.logaddexp(0.0, -logit_rate)], axis=-1)
    table = log_pair.reshape(*logit_rate.shape[:-1], -1)
    return xp.concatenate([table, xp.zeros((*logit_rate.shape[:-1], 1))], axis=-1)
