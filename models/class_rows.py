"""What the two designs of multi-class labels share: a panel's patterns
(:mod:`.class_pattern_design`) and a crowd's responses (:mod:`.class_response_design`) are both
rows of items with counts and an optional gold class, and their likelihoods differ only in how
a row's ``sum_j log T_j[y, a_j]`` is gathered."""

from __future__ import annotations

import numpy as np

__all__ = ["CODE_DTYPE", "LOG_ZERO", "ClassRows", "log_confusion"]

#: The stored class codes' type: int16 holds any number of classes a panel can be fitted with
#: (int8 would wrap beyond 127).
CODE_DTYPE = np.int16
#: ``log 0`` as a finite number, so that an unanswered judge's ``0 x log T`` is 0, not NaN.
LOG_ZERO = -1e300


def log_confusion(confusion, xp):
    """``log T`` with a cell of exactly 0 at :data:`LOG_ZERO` (``xp``: ``jax.numpy`` or
    ``numpy``)."""
    return xp.where(confusion > 0, xp.log(xp.where(confusion > 0, confusion, 1.0)), LOG_ZERO)


class ClassRows:
    """The part of a multi-class design that is rows of items: ``counts`` (R,), ``gold`` (R,)
    each row's gold class as a float (-1 for none) or None, ``classes`` (default ``("0",
    "1", ...)``), ``n_classes``, and the constructor ``from_codes(annotations, n_classes,
    gold, classes)`` of the subclass."""

    def __post_init__(self) -> None:
        if not self.classes:
            object.__setattr__(self, "classes", tuple(str(k) for k in range(self.n_classes)))

    @property
    def has_gold(self) -> bool:
        return self.gold is not None

    @classmethod
    def from_data(cls, data):
        """The design of multi-class :class:`~bayescal.AnnotatedScores` (its gold included)."""
        gold = data.gold if data.n_gold else None  # a gold column without a gold label: none
        return cls.from_codes(data.annotations, data.n_classes, gold, data.classes)

    def observed(self, data):
        """The design of ``data`` (multi-class AnnotatedScores), to run on this layout."""
        return self.from_data(data)

    def gold_classes(self) -> np.ndarray:
        """The (C,) mask of the classes some gold row (of a positive count) names."""
        named = np.zeros(self.n_classes, bool)
        if self.has_gold:
            named[self.gold[(self.gold >= 0) & (self.counts > 0)].astype(np.int64)] = True
        return named

    def padded_gold(self, extra: int):
        """The gold column with ``extra`` rows of no gold appended (None without gold)."""
        return None if self.gold is None else np.pad(self.gold, (0, extra), constant_values=-1)

    def marginal(self, given_class, proportion, xp):
        """``log sum_y pi_y exp(given_class[..., r, y])`` (..., R) of each row's log
        probability given each class (..., R, C), a gold row keeping only its class's term."""
        joint = given_class + xp.log(proportion)[..., None, :]
        if self.has_gold:
            known = self.gold[:, None] >= 0
            other = known & (self.gold[:, None] != xp.arange(self.n_classes))
            joint = xp.where(other, -xp.inf, joint)
        peak = xp.max(joint, axis=-1, keepdims=True)
        return xp.log(xp.sum(xp.exp(joint - peak), axis=-1)) + peak[..., 0]
