"""The sparse responses of a crowd as the hierarchical model reads them.

Each row of :class:`ResponseDesign` is one item (or several items with the same workers and
answers, counted), its responses padded to the widest row.  A response is the code
``2 j + label`` of worker ``j``; :func:`code_table` gives each code's log probability, so the
per-item sums of the likelihood are sums along a row (no scatter) and memory is
O(responses), never items x workers.  The design also counts each worker's labels, which
set how far the program samples the worker centred (the model's docstring says why), and
decides which workers it does not sample at all: a worker with one label in all is summed out
of the likelihood (the model's docstring shows that this is exact), so that a crowd of
thousands of one-label workers costs no more than its other workers.

Named dependent pairs of workers (:mod:`bayescal.channels.dependence`) add their terms to a
row's two class log-likelihoods, from the pair members' answers read off the row's codes
(:meth:`ResponseDesign.pair_terms`); a pair's members are never summed out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import jax.numpy as jnp
import numpy as np
from scipy import special

from bayescal.channels.pattern_likelihood import dependence_log_factor

from .pattern_design import row_key


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
        Where worker ``j`` is in the sampled order (the sampled workers in their order); every
        summed-out worker is at ``K - n_summed_out``, the row of the population's mean
        channel, after the sampled workers.
    labels : ndarray of float64, shape (K,)
        Each worker's labels, items counted (:func:`labels_per_worker`): how far the program
        samples the worker centred.
    n_summed_out : int
        Workers with one label in all, not sampled: their label's probability is the
        population's mean channel (:func:`bayescal.models.population_mean_channel`).
    gold : ndarray of float64, shape (R,), or None
        The gold label of the row's items (-1 for none; rows of gold items are kept apart):
        such a row scores ``log p(answers | Y = gold) + log P(Y = gold)``.  None without gold.
    pairs : ndarray of int, shape (D, 2)
        The workers of each dependent pair; (0, 2) for none.
    """

    codes: np.ndarray
    counts: np.ndarray
    position: np.ndarray
    labels: np.ndarray
    n_summed_out: int = 0
    gold: np.ndarray | None = None
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))

    #: A crowd's model has no shared difficulty and no channels per group (the interface of
    #: PatternDesign).
    difficulty = False
    channels_by_group = False

    @property
    def n_pairs(self) -> int:
        return int(self.pairs.shape[0])

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
        sum_out_single: bool = True,
        pairs=None,
    ) -> ResponseDesign:
        """The design of a :class:`bayescal.data.Responses`: one row per labelled item,
        identical rows (answers and gold label) merged and counted when ``compress``; workers
        with one label in all summed out when ``sum_out_single``, unless in one of the
        dependent ``pairs`` (D, 2) of workers."""
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
        counts = counts.astype(np.float64)
        labels = labels_per_worker(rows, counts, n_workers)
        pairs = np.zeros((0, 2), np.int64) if pairs is None else np.asarray(pairs, np.int64)
        summed_out = (labels == 1) if sum_out_single else np.zeros(n_workers, bool)
        summed_out[pairs.ravel()] = False
        return cls(
            rows,
            counts,
            _positions(summed_out),
            labels,
            int(summed_out.sum()),
            None if gold is None else gold.astype(np.float64),
            pairs.reshape(-1, 2),
        )

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    def arrays(self) -> tuple:
        """The arrays the program reads besides the counts (with gold, the rows' labels)."""
        return (self.codes, self.position, self.labels, *((self.gold,) if self.has_gold else ()))

    def with_arrays(self, codes, position, labels, gold=None) -> ResponseDesign:
        return replace(self, codes=codes, position=position, labels=labels, gold=gold)

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
        pairs = (tuple(map(tuple, self.pairs.tolist())),) if self.n_pairs else ()
        return (self.n_annotators, self.n_summed_out, self.width, *gold, *pairs)

    # --- what a posterior needs of its data (bayescal.bayes.bayes_fit; numpy on draws) --------------

    def row_log_likelihood(self, a, b, prevalence, covariance=None, loading=None) -> np.ndarray:
        """``log p(row r | draw)`` of draws ``a, b`` (..., K), ``prevalence`` (...) and the
        dependent pairs' ``covariance`` (..., D, 2): (..., R), computed a few draws at a time
        (the responses of every draw at once would be draws x responses).  ``loading`` must be
        None: a crowd's model has no shared difficulty."""
        if loading is not None:
            raise ValueError("loading: the hierarchical model has no shared difficulty")
        if (covariance is None) != (self.n_pairs == 0):
            raise ValueError(
                f"covariance: the design has {self.n_pairs} dependent pair(s); give their "
                "covariances exactly when it has some"
            )
        lead = prevalence.shape
        a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
        if covariance is not None:
            covariance = covariance.reshape(-1, self.n_pairs, 2)
        prevalence = prevalence.reshape(-1)
        out = np.empty((prevalence.size, self.counts.size))
        step = max(1, LIKELIHOOD_CHUNK // max(1, self.codes.size))
        for start in range(0, prevalence.size, step):
            part = slice(start, start + step)
            log0 = code_table(special.logit(a[part]), xp=np)[:, self.codes].sum(axis=-1)
            log1 = code_table(special.logit(b[part]), xp=np)[:, self.codes].sum(axis=-1)
            if covariance is not None:
                extra0, extra1 = self.pair_terms(a[part], b[part], covariance[part], np)
                log0, log1 = log0 + extra0, log1 + extra1
            out[part] = gold_mixture(
                np.log1p(-prevalence[part])[:, None] + log0,
                np.log(prevalence[part])[:, None] + log1,
                self.gold,
                np.logaddexp,
                xp=np,
            )
        return out.reshape(*lead, self.counts.size)

    def pair_answers(self):
        """The dependent pairs' workers' answers to each row, read off its codes: indicators
        (R, M) of a 1 and of a 0 (both 0 where the worker gave none), the workers in the order
        of :meth:`pair_members` (the codes are traced inside the program: array operations
        only)."""
        members = self.pair_members()
        codes = self.codes[..., None]  # (R, L, 1)
        positive = (codes == 2 * members + 1).any(axis=-2) * 1.0
        negative = (codes == 2 * members).any(axis=-2) * 1.0
        return positive, negative

    def pair_members(self) -> np.ndarray:
        """The workers of the dependent pairs (M,), in increasing order."""
        return np.unique(self.pairs)

    def pair_terms(self, a, b, covariance, xp, interaction=None):
        """The dependent pairs' additions ``(log0, log1)`` (..., R) to each row's class
        log-likelihoods (:func:`~bayescal.channels.pattern_likelihood.dependence_log_factor`),
        at channels ``a, b`` (..., K) and covariances (..., D, 2); ``interaction`` (..., D, 2),
        the conditional log odds ratios of pairs that close a cycle, gives their joint in the
        program's coordinates instead (:mod:`bayescal.channels.cyclic_joint`)."""
        members = self.pair_members()
        local = np.searchsorted(members, self.pairs)
        positive, negative = self.pair_answers()
        return tuple(
            dependence_log_factor(
                positive,
                negative,
                local,
                rates[..., members],
                covariance[..., y],
                xp,
                None if interaction is None else interaction[..., y],
            )
            for y, rates in enumerate((a, b))
        )

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``
        (with ``dependent_pairs``, the pairs' workers, when there are any)."""
        variables = {
            "counts": (("pattern",), self.counts),
            "codes": (("pattern", "response"), self.codes),
            "summed_out": (("annotator",), self.summed_out.astype(np.int8)),
        }
        if self.n_pairs:
            variables["dependent_pairs"] = (("pair", "member"), self.pairs)
        if self.has_gold:
            variables["pattern_gold"] = (("pattern",), self.gold.astype(np.int8))
        return variables

    @classmethod
    def from_constant_data(cls, variables: dict) -> ResponseDesign:
        """The design :meth:`constant_data` describes (``variables``: name -> (dims, array))."""
        codes = np.asarray(variables["codes"][1], np.int32)
        counts = np.asarray(variables["counts"][1], np.float64)
        if "summed_out" in variables:
            summed_out = np.asarray(variables["summed_out"][1]).astype(bool)
        else:  # saved before workers were summed out: all sampled ("centred": one a worker)
            summed_out = np.zeros(np.asarray(variables["centred"][1]).size, bool)
        gold = variables.get("pattern_gold")
        pairs = variables.get("dependent_pairs", (None, np.zeros((0, 2), np.int64)))[1]
        return cls(
            codes,
            counts,
            _positions(summed_out),
            labels_per_worker(codes, counts, summed_out.size),
            int(summed_out.sum()),
            None if gold is None else np.asarray(gold[1], np.float64),
            np.asarray(pairs, np.int64).reshape(-1, 2),
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


def _positions(summed_out: np.ndarray) -> np.ndarray:
    """Where each worker is in the sampled order: the sampled ones in order, every summed-out
    worker at the row after them (the population's mean channel)."""
    sampled = ~summed_out
    position = np.full(summed_out.size, sampled.sum(), dtype=np.int64)
    position[sampled] = np.arange(sampled.sum())
    return position


def labels_per_worker(codes: np.ndarray, counts: np.ndarray, n_workers: int) -> np.ndarray:
    """Each worker's labels (K,), float64: the rows' responses ``codes`` (R, L) (``2 j +
    label``, ``2 K`` padding) weighted by the rows' item ``counts`` (R,)."""
    given = codes < 2 * n_workers
    items = np.broadcast_to(counts[:, None], codes.shape)
    return np.bincount((codes // 2)[given], weights=items[given], minlength=n_workers)


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
