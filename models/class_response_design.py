"""The sparse class responses of a multi-class crowd as its hierarchical program reads them.

Each row of :class:`ClassResponseDesign` is one item (or several items with the same workers,
answers and gold class, counted), its responses padded to the widest row.  A response is the
code ``C j + k`` of worker ``j`` answering class ``k``; a table of every code's log probability
under each true class (:func:`code_table`) turns each row's sum over its workers into a sum
along the row, so memory is O(responses), never items x workers x classes as the panel's
pattern design (:mod:`.class_pattern_design`) would be for a crowd.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .class_rows import CODE_DTYPE, ClassRows, log_confusion

__all__ = ["ClassResponseDesign", "code_table"]


def code_table(confusion, xp):
    """``log T_j[y, k]`` of every code ``C j + k`` and true class ``y``: (..., K C + 1, C(y)),
    the last row 0 (the padding's code adds nothing); a cell of exactly 0 at ``LOG_ZERO``.
    ``confusion`` (..., K, C(y), C(k)); ``xp`` is ``jax.numpy`` or ``numpy``."""
    by_code = xp.swapaxes(log_confusion(confusion, xp), -1, -2)  # (..., K, C(k), C(y))
    shape = by_code.shape
    flat = xp.reshape(by_code, (*shape[:-3], shape[-3] * shape[-2], shape[-1]))
    padding = xp.zeros((*shape[:-3], 1, shape[-1]))
    return xp.concatenate([flat, padding], axis=-2)


@dataclass(frozen=True, eq=False)
class ClassResponseDesign(ClassRows):
    """Items as rows of padded class responses, with the counts of items sharing a row.

    Attributes
    ----------
    codes : ndarray of int32, shape (R, L)
        ``C j + k`` of each response of the row; ``C K`` pads a row shorter than ``L``.
    counts : ndarray of float64, shape (R,)
        Items with exactly this row's responses (and gold class).
    n_annotators, n_classes : int
    gold : ndarray of float64, shape (R,), or None
        The row's gold class (-1 for none): only its term enters.  None without gold.
    classes : tuple of str
        The class names (default ``("0", "1", ...)``); the program does not read them.
    """

    codes: np.ndarray
    counts: np.ndarray
    n_annotators: int
    n_classes: int
    gold: np.ndarray | None = None
    classes: tuple[str, ...] = ()

    @property
    def width(self) -> int:
        return int(self.codes.shape[1])

    @classmethod
    def from_codes(cls, annotations, n_classes: int, gold=None, classes=()) -> ClassResponseDesign:
        """The design of items' class codes ``annotations`` (n, K; -1 missing) with ``gold``
        (n,) class codes (-1 for none) or None: one row per distinct labelled item (its
        responses and gold class); items without a label add nothing and are left out."""
        annotations = np.asarray(annotations, np.int64)
        n_annotators = annotations.shape[1]
        items, workers = np.nonzero(annotations != -1)
        codes = n_classes * workers + annotations[items, workers]
        labelled, starts, per_item = np.unique(items, return_index=True, return_counts=True)
        rows = np.full((labelled.size, int(per_item.max())), n_classes * n_annotators, np.int64)
        rows[
            np.repeat(np.arange(labelled.size), per_item),
            np.arange(items.size) - np.repeat(starts, per_item),
        ] = codes
        gold_of_row = None if gold is None else np.asarray(gold, np.int64)[labelled]
        keyed = rows if gold_of_row is None else np.column_stack([rows, gold_of_row])
        keyed, counts = np.unique(keyed, axis=0, return_counts=True)
        return cls(
            (keyed if gold_of_row is None else keyed[:, :-1]).astype(np.int32),
            counts.astype(np.float64),
            n_annotators,
            n_classes,
            None if gold_of_row is None else keyed[:, -1].astype(np.float64),
            tuple(classes),
        )

    # --- what the Sampler needs of a design (bayescal.bayes.sampler) --------------------------------

    def arrays(self) -> tuple:
        """The arrays the program reads besides the counts (with gold, the rows' gold classes)."""
        return (self.codes,) + ((self.gold,) if self.has_gold else ())

    def with_arrays(self, codes, gold=None) -> ClassResponseDesign:
        return replace(self, codes=codes, gold=gold)

    def padded(self, rows: int) -> ClassResponseDesign:
        """This design with rows of no response and count 0 appended up to ``rows``: they add
        exactly 0 to the log-likelihood (``log sum_y pi_y = 0``, times a count of 0)."""
        extra = rows - self.counts.size
        pad = self.n_classes * self.n_annotators
        return replace(
            self,
            codes=np.pad(self.codes, ((0, extra), (0, 0)), constant_values=pad),
            counts=np.pad(self.counts, (0, extra)),
            gold=self.padded_gold(extra),
        )

    def layout(self) -> tuple:
        """The shapes compiled code depends on (tagged apart from the panel's designs)."""
        return ("class responses", self.n_annotators, self.n_classes, self.width) + (
            ("gold",) if self.has_gold else ()
        )

    def labels_per_annotator(self) -> np.ndarray:
        """How many labels (K,) each annotator gave."""
        workers = self.codes // self.n_classes
        answered = workers < self.n_annotators
        return np.bincount(
            workers[answered],
            np.broadcast_to(self.counts[:, None], self.codes.shape)[answered],
            minlength=self.n_annotators,
        )

    # --- the likelihood, shared by the program (jax.numpy) and the posterior (numpy) ---------------

    def log_prob(self, confusion, proportion, xp):
        """``log p(row r | draw)`` (..., R) of confusion matrices ``confusion`` (..., K, C, C)
        and class proportions ``proportion`` (..., C):

            log sum_y pi_y prod_{j answers k in row r} T_j[y, k];

        a gold row keeps only its class's term.  ``xp`` is ``jax.numpy`` or ``numpy``."""
        table = code_table(confusion, xp)  # (..., K C + 1, C(y))
        # (..., R, C(y)), one gather per response slot, summed: under XLA on the CPU, one
        # gather of all (R, L) codes and the scatter of its gradient took up to 1.6 times as
        # long (benchmarks/RESULTS.md)
        given_class = sum(
            xp.take(table, self.codes[:, slot], axis=-2) for slot in range(self.width)
        )
        return self.marginal(given_class, proportion, xp)

    # --- what a stored fit keeps of its data ------------------------------------------------------

    def constant_data(self) -> dict:
        """The data as the InferenceData's ``constant_data`` variables: ``{name: (dims, array)}``."""
        variables = {
            "counts": (("pattern",), self.counts),
            "responses": (("pattern", "response"), self.codes),
            "shape": (("dimension",), np.array([self.n_annotators, self.n_classes])),
        }
        if self.has_gold:
            variables["pattern_gold"] = (("pattern",), self.gold.astype(CODE_DTYPE))
        return variables

    def fitted_counts(self) -> dict:
        """Items per row of response codes (a tuple, padding left out), the gold class after
        them for a gold row; rows of count 0 left out."""
        gold = np.full(self.counts.size, -1) if self.gold is None else self.gold
        pad = self.n_classes * self.n_annotators
        seen = {}
        for row, label, count in zip(self.codes, gold, self.counts):
            if count > 0:
                key = tuple(int(x) for x in row if x != pad)
                key += () if label < 0 else ("gold", int(label))
                seen[key] = seen.get(key, 0.0) + float(count)
        return seen

    @classmethod
    def from_constant_data(cls, variables: dict, classes: tuple) -> ClassResponseDesign:
        """The design :meth:`constant_data` describes (``variables``: name -> (dims, array))."""
        gold = variables.get("pattern_gold")
        n_annotators, n_classes = (int(x) for x in variables["shape"][1])
        return cls(
            np.asarray(variables["responses"][1], np.int32),
            np.asarray(variables["counts"][1], np.float64),
            n_annotators,
            n_classes,
            None if gold is None else np.asarray(gold[1], np.float64),
            tuple(classes),
        )
