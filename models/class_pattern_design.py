"""The pattern counts the multi-class latent class program reads: the distinct rows of class
codes a panel gave, with how many items gave each, and each row's gold class.

One :class:`ClassPatternDesign` serves the compiled sampler (its layout and padded arrays), the
log-likelihood of posterior draws in NumPy (``ClassPatternDesign.log_prob``, which the
program traces with ``jax.numpy``) and a stored fit's ``constant_data``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .class_rows import CODE_DTYPE, ClassRows, log_confusion

__all__ = ["ClassPatternDesign"]


@dataclass(frozen=True, eq=False)
class ClassPatternDesign(ClassRows):
    """Rows of response patterns of class codes the likelihood sums over, with their counts.

    ``answers`` is (R, K, C): row ``r``'s one-hot answer of annotator ``j`` (all 0 where it
    gave none); ``gold`` (R,) each row's gold class as a float (-1 for none), or None for data
    without gold items: a gold row's class is known, so only its term enters.  ``classes``
    names the classes (default ``("0", "1", ...)``); the program does not read it.
    """

    answers: np.ndarray
    counts: np.ndarray
    gold: np.ndarray | None = None
    classes: tuple[str, ...] = ()

    @property
    def n_annotators(self) -> int:
        return int(self.answers.shape[1])

    @property
    def n_classes(self) -> int:
        return int(self.answers.shape[2])

    @classmethod
    def from_codes(cls, codes, n_classes: int, gold=None, classes=()) -> ClassPatternDesign:
        """The design of items' class codes ``codes`` (n, K; -1 missing) with ``gold`` (n,)
        class codes (-1 for none) or None: one row per distinct (pattern, gold class)."""
        codes = np.asarray(codes, np.int64)
        gold_of_item = np.full(codes.shape[0], -1) if gold is None else np.asarray(gold, np.int64)
        rows, counts = np.unique(np.column_stack([codes, gold_of_item]), axis=0, return_counts=True)
        answers = (rows[:, :-1, None] == np.arange(n_classes)) * 1.0
        return cls(
            answers,
            counts.astype(np.float64),
            None if gold is None else rows[:, -1].astype(np.float64),
            tuple(classes),
        )

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    def arrays(self) -> tuple:
        """The arrays the program reads besides the counts (with gold, the rows' gold classes)."""
        return (self.answers,) + ((self.gold,) if self.has_gold else ())

    def with_arrays(self, answers, gold=None) -> ClassPatternDesign:
        return replace(self, answers=answers, gold=gold)

    def padded(self, rows: int) -> ClassPatternDesign:
        """This design with rows of no answer and count 0 appended up to ``rows``: they add
        exactly 0 to the log-likelihood (``log sum_y pi_y = 0``, times a count of 0)."""
        extra = rows - self.counts.size
        return replace(
            self,
            answers=np.pad(self.answers, ((0, extra), (0, 0), (0, 0))),
            counts=np.pad(self.counts, (0, extra)),
            gold=self.padded_gold(extra),
        )

    def layout(self) -> tuple:
        """The shapes compiled code depends on (tagged apart from the binary designs')."""
        return ("classes", self.n_annotators, self.n_classes) + (("gold",) if self.has_gold else ())

    def labels_per_annotator(self) -> np.ndarray:
        """How many labels (K,) each annotator gave."""
        return self.counts @ self.answers.sum(axis=-1)

    # --- the likelihood, shared by the program (jax.numpy) and the posterior (numpy) ---------------

    def log_prob(self, confusion, proportion, xp):
        """``log p(row r | draw)`` (..., R) of confusion matrices ``confusion`` (..., K, C, C)
        and class proportions ``proportion`` (..., C):

            log sum_y pi_y prod_j T_j[y, a_rj],

        the product over the annotators row ``r`` has; a gold row keeps only its class's
        term.  ``xp`` is ``jax.numpy`` or ``numpy``."""
        # log T at LOG_ZERO for a cell of 0: 0 x log 0 must add 0 for the judges a row's item
        # was not answered by (an einsum would make it NaN)
        log_rows = log_confusion(confusion, xp)
        # sum_j log T_j[y, a_rj] of every row and class: (..., R, C(y))
        given_class = xp.einsum("rjk,...jyk->...ry", self.answers, log_rows)
        return self.marginal(given_class, proportion, xp)

    # --- what a stored fit keeps of its data ------------------------------------------------------

    def codes(self) -> np.ndarray:
        """The rows as class codes (R, K), -1 for missing (``CODE_DTYPE``)."""
        answered = self.answers.sum(axis=-1) > 0
        return np.where(answered, self.answers.argmax(axis=-1), -1).astype(CODE_DTYPE)

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``."""
        variables = {
            "counts": (("pattern",), self.counts),
            "patterns": (("pattern", "annotator"), self.codes()),
        }
        if self.has_gold:
            variables["pattern_gold"] = (
                ("pattern",),
                self.gold.astype(CODE_DTYPE),
            )
        return variables

    def fitted_counts(self) -> dict:
        """Items per pattern of class codes (a tuple, -1 missing), the gold class after the
        pattern for a gold row; rows of count 0 left out."""
        gold = np.full(self.counts.size, -1) if self.gold is None else self.gold
        seen = {}
        for pattern, label, count in zip(self.codes(), gold, self.counts):
            if count > 0:
                key = tuple(int(x) for x in pattern) + (() if label < 0 else (int(label),))
                seen[key] = seen.get(key, 0.0) + float(count)
        return seen

    @classmethod
    def from_constant_data(cls, variables: dict, classes: tuple) -> ClassPatternDesign:
        """The design :meth:`constant_data` describes (``variables``: name -> (dims, array)),
        its rows as stored."""
        gold = variables.get("pattern_gold")
        return cls(
            (np.asarray(variables["patterns"][1])[..., None] == np.arange(len(classes))) * 1.0,
            np.asarray(variables["counts"][1], np.float64),
            None if gold is None else np.asarray(gold[1], np.float64),
            tuple(classes),
        )
