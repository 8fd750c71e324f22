"""The pattern counts the multi-class latent class program reads: the distinct rows of class
codes a panel gave, with how many items gave each, and each row's gold class.

One :class:`ClassPatternDesign` serves the compiled sampler (its layout and padded arrays), the
log-likelihood of posterior draws in NumPy (``ClassPatternDesign.log_prob``, which the
program traces with ``jax.numpy``) and a stored fit's ``constant_data``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = ["ClassPatternDesign"]


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
        return cls.from_codes(data.annotations, data.n_classes, data.gold, data.classes)

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
        log_rows = xp.log(confusion)  # (..., K, C(y), C(answer))
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
        """The rows as class codes (R, K), -1 for missing (int8)."""
        answered = self.answers.sum(axis=-1) > 0
        return np.where(answered, self.answers.argmax(axis=-1), -1).astype(np.int8)

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``."""
        variables = {
            "counts": (("pattern",), self.counts),
            "patterns": (("pattern", "annotator"), self.codes()),
        }
        if self.has_gold:
            variables["pattern_gold"] = (("pattern",), self.gold.astype(np.int8))
        return variables
