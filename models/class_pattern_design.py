"""The pattern counts the multi-class latent class program reads: the distinct rows of class
codes a panel gave, with how many items gave each, and each row's gold class.

One :class:`ClassPatternDesign` serves the compiled sampler (its layout and padded arrays), the
log-likelihood of posterior draws in NumPy (``ClassPatternDesign.log_prob``, which the
program traces with ``jax.numpy``) and a stored fit's ``constant_data``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["LOG_ZERO", "ClassPatternDesign"]

#: The stored class codes' type: int16 holds any number of classes a panel can be fitted with
#: (int8 would wrap beyond 127).
CODE_DTYPE = np.int16
#: ``log 0`` as a finite number, so that an unanswered judge's ``0 x log T`` is 0, not NaN.
LOG_ZERO = -1e300


@dataclass(frozen=True, eq=False)
class ClassPatternDesign:
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

    def __post_init__(self) -> None:
        if not self.classes:
            object.__setattr__(self, "classes", tuple(str(k) for k in range(self.n_classes)))

    @property
    def n_annotators(self) -> int:
        return int(self.answers.shape[1])

    @property
    def n_classes(self) -> int:
        return int(self.answers.shape[2])

    @property
    def has_gold(self) -> bool:
        return self.gold is not None

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

    @classmethod
    def from_data(cls, data) -> ClassPatternDesign:
        """The design of multi-class :class:`~bayescal.AnnotatedScores` (its gold included)."""
        gold = data.gold if data.n_gold else None  # a gold column without a gold label: none
        return cls.from_codes(data.annotations, data.n_classes, gold, data.classes)

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    def gold_classes(self) -> np.ndarray:
        """The (C,) mask of the classes some gold row (of a positive count) names."""
        named = np.zeros(self.n_classes, bool)
        if self.has_gold:
            named[self.gold[(self.gold >= 0) & (self.counts > 0)].astype(np.int64)] = True
        return named

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
            gold=None if self.gold is None else np.pad(self.gold, (0, extra), constant_values=-1),
        )

    def layout(self) -> tuple:
        """The shapes compiled code depends on (tagged apart from the binary designs')."""
        return ("classes", self.n_annotators, self.n_classes) + (("gold",) if self.has_gold else ())

    def observed(self, data) -> ClassPatternDesign:
        """The design of ``data`` (multi-class AnnotatedScores), to run on this layout."""
        return self.from_data(data)

    # --- the likelihood, shared by the program (jax.numpy) and the posterior (numpy) ---------------

    def log_prob(self, confusion, proportion, xp):
        """``log p(row r | draw)`` (..., R) of confusion matrices ``confusion`` (..., K, C, C)
        and class proportions ``proportion`` (..., C):

            log sum_y pi_y prod_j T_j[y, a_rj],

        the product over the annotators row ``r`` has; a gold row keeps only its class's
        term.  ``xp`` is ``jax.numpy`` or ``numpy``."""
        # log T, with a cell of exactly 0 at LOG_ZERO: 0 x log 0 must add 0 for the judges a
        # row's item was not answered by (an einsum would make it NaN)
        log_rows = xp.where(
            confusion > 0, xp.log(xp.where(confusion > 0, confusion, 1.0)), LOG_ZERO
        )
        # sum_j log T_j[y, a_rj] of every row and class: (..., R, C(y))
        given_class = xp.einsum("rjk,...jyk->...ry", self.answers, log_rows)
        joint = given_class + xp.log(proportion)[..., None, :]
        if self.has_gold:
            known = self.gold[:, None] >= 0
            other = known & (self.gold[:, None] != xp.arange(self.n_classes))
            joint = xp.where(other, -xp.inf, joint)
        peak = xp.max(joint, axis=-1, keepdims=True)
        return xp.log(xp.sum(xp.exp(joint - peak), axis=-1)) + peak[..., 0]

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
