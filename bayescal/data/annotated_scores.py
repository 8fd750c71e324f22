"""The data model: scores of a fixed predictor and the labels of K noisy annotators.

:class:`AnnotatedScores` holds, for n items,

- ``scores`` — the predictor's probabilities ``Z_i`` in [0, 1]; with three classes or more,
  the (n, C) matrix of class probabilities;
- ``annotations`` — an (n, K) matrix of 0/1 labels (class codes ``0 .. C - 1``) with ``-1``
  for a missing response;
- ``classes`` — the class names, in the order of the probability columns and the codes, and
  ``ordinal``, whether they form a scale;
- ``groups`` — optional score-group ids (non-negative integers) for the grouped
  Hui–Walter models (paper §4.2);
- ``annotator_names`` — the column names when built from a table, ``a0, a1, ...`` otherwise;
- ``gold`` — optional human-verified labels (0/1) on some items, ``-1`` elsewhere, used in
  every fit and estimate, with ``gold_weights``, their inclusion probabilities,
  when the gold items were sampled by score.  Not ``truth``, a simulation's oracle, which no
  fit ever reads.

Every likelihood in bayescal runs on :meth:`AnnotatedScores.compress`: the distinct
(group, response pattern) cells and their counts, so that its cost does not grow with n; every
binned ECE runs on :meth:`AnnotatedScores.cells` (:class:`~bayescal.data.CellStatistics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, replace

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, abbreviated, old_spellings, warn_caller
from ..exceptions import DataWarning
from .cells import CellStatistics, tabulate
from .responses import Responses

__all__ = ["AnnotatedScores"]

#: A repr names at most this many annotators one by one; a crowd's are counted, six named.
REPR_ANNOTATORS = 12

#: Where multi-class data go, for the errors of the steps that refuse them.
MULTICLASS_STEPS = (
    "multi-class data are analysed whole by analyse (bayescal fit), fitted by dawid_skene_em, "
    "crowd_em or fit_bayes, and taken by nc_ece_estimate(data, kind=...), "
    "nc_ece_posterior(data, fit, kind=...), calibration_test and recalibrate"
)


def _read_only(array: np.ndarray) -> np.ndarray:
    """Freeze an array the validators just made (each returns its own copy, never the caller's
    array, which may change later)."""
    array.setflags(write=False)
    return array


def _scores_and_classes(scores, classes, normalize) -> tuple[np.ndarray, tuple[str, ...]]:
    """The score column (binary) or the probability matrix (three classes or more), and the
    class names.  A two-column matrix is binary data: its second column is the score."""
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be True or False; saw {normalize!r}")
    if np.ndim(scores) == 2 and np.shape(scores)[1] >= 2:  # one column: a 1-D slip, said so
        probabilities = v.as_class_probabilities(scores, "scores", normalize=normalize)
        names = v.as_class_names(classes, probabilities.shape[1])
        if probabilities.shape[1] == 2:
            return np.ascontiguousarray(probabilities[:, 1]), names
        return probabilities, names
    if normalize:
        raise ValueError(
            "normalize divides each row of a class-probability matrix by its sum; scores here "
            "are one score per item (binary), which have no rows to normalize"
        )
    names = None if classes is None else v.as_class_names(classes, None)
    if names is not None and len(names) != 2:
        raise ValueError(
            f"scores must be an (n_items, {len(names)}) matrix of class probabilities for the "
            f"{len(names)} classes given; saw one score per item (binary labels)"
        )
    return v.as_scores(scores), v.as_class_names(names, 2)


@dataclass(frozen=True, eq=False)
class AnnotatedScores:
    """Scores of a fixed predictor and K noisy annotators' labels, binary or multi-class.

    Parameters
    ----------
    scores : array_like, shape (n,) or (n, C)
        Predicted probabilities, finite, in [0, 1]: one per item (the positive class's), or
        an (n, C) matrix of class probabilities whose rows sum to 1 within 1e-6 (or pass
        ``normalize=True``).  A two-column matrix is binary data, its second column the score;
        with three columns or more the data are *multi-class*, and only the steps that say
        so take them (the others raise a ValueError): ``dawid_skene_em``, ``crowd_em``,
        ``nc_ece_estimate(data, kind=...)``, ``calibration_test`` and ``recalibrate``.
    annotations : array_like of int, shape (n, K)
        0/1 labels, or class codes ``0 .. C - 1``; ``-1`` marks a missing response.  An
        all-missing column or row is allowed here and rejected only by the estimators it makes
        undefined.
    groups : array_like of int, shape (n,), optional
        Score-group ids (non-negative integers), used by the grouped Hui–Walter models.
    annotator_names : sequence of str, optional
        Defaults to ``("a0", "a1", ...)``.
    gold : array_like of int, shape (n,), optional
        Human-verified labels: 0/1 (class codes, for multi-class data) on the verified items,
        ``-1`` elsewhere.  Every channel fit
        conditions on them, and NC-ECE uses them.  Assumption: the gold items are
        a random sample of the items, or a sample stratified by score with known inclusion
        probabilities (``gold_weights``).
    gold_weights : array_like of float, shape (n,), optional
        Each gold item's inclusion probability pi_i, in (0, 1] (the other entries are not
        read; NaN is fine there).  Omitted: the gold items are a simple random sample.
    item_ids : sequence, shape (n,), optional
        Each item's id, kept as text (a long table's item column fills it): a split carries
        them, so that a fit and a test, or the three samples of a recalibration study, can be
        told to share items (a :class:`~bayescal.DataWarning` says so).  Ids must
        be distinct.
    classes : sequence of str, optional
        The class names, one per probability column and in their order (code ``k`` is
        ``classes[k]``); defaults to ``("0", "1", ...)``.
    ordinal : bool, default False
        Whether the classes form a scale in the order given (grades 1-5, fail < partial <
        pass).  Reports keep the order; ``dawid_skene_em(structure="by_distance")`` reads
        it, and :meth:`merge_classes` merges adjacent grades only; the other estimators
        treat every class alike.
    normalize : bool, default False
        Divide each row of a probability matrix by its sum (rows that do not sum to 1
        within 1e-6 are refused otherwise).  Not stored.

    The arrays are copied and stored read-only.

    Examples
    --------
    >>> data = AnnotatedScores([0.2, 0.7, 0.9], [[0, 0], [1, -1], [1, 1]])
    >>> data.n_items, data.n_annotators, data.annotator_names
    (3, 2, ('a0', 'a1'))
    >>> grades = AnnotatedScores(
    ...     [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]], [[0, 0], [2, -1]], classes=["fail", "partial", "pass"]
    ... )
    >>> grades.n_classes, grades.is_multiclass
    (3, True)
    """

    scores: np.ndarray
    annotations: np.ndarray
    _: KW_ONLY
    groups: np.ndarray | None = None
    annotator_names: tuple[str, ...] | None = None
    gold: np.ndarray | None = None
    gold_weights: np.ndarray | None = None
    item_ids: np.ndarray | None = None
    classes: tuple[str, ...] | None = None
    ordinal: bool = False
    normalize: InitVar[bool] = False

    def __post_init__(self, normalize: bool) -> None:
        scores, classes = _scores_and_classes(self.scores, self.classes, normalize)
        n_items, n_classes = scores.shape[0], len(classes)
        if n_classes == 2:
            annotations = v.as_annotations(self.annotations, "annotations", n_items=n_items)
            gold = None if self.gold is None else v.as_gold(self.gold, n_items)
        else:
            annotations = v.as_class_annotations(self.annotations, "annotations", n_classes)
            if annotations.shape[0] != n_items:
                raise ValueError(
                    f"annotations must have one row per item ({n_items} rows); saw "
                    f"{annotations.shape[0]} rows"
                )
            codes = v.class_code_dtype(n_classes)
            annotations = annotations.astype(codes)
            gold = None
            if self.gold is not None:
                gold = v.as_class_gold(self.gold, n_items, n_classes).astype(codes)
        if not isinstance(self.ordinal, (bool, np.bool_)):
            raise TypeError(f"ordinal must be True or False; saw {self.ordinal!r}")
        groups = None if self.groups is None else _read_only(v.as_group_ids(self.groups, n_items))
        if self.gold_weights is not None and gold is None:
            raise ValueError(
                "gold_weights are the inclusion probabilities of gold items; give gold too"
            )
        weights = None if self.gold_weights is None else v.as_gold_weights(self.gold_weights, gold)
        object.__setattr__(self, "scores", _read_only(scores))
        object.__setattr__(self, "annotations", _read_only(annotations))
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "gold", None if gold is None else _read_only(gold))
        object.__setattr__(self, "gold_weights", None if weights is None else _read_only(weights))
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "ordinal", bool(self.ordinal))
        if self.item_ids is not None:
            object.__setattr__(self, "item_ids", v.as_item_ids(self.item_ids, n_items))
        object.__setattr__(
            self,
            "annotator_names",
            v.as_annotator_names(self.annotator_names, annotations.shape[1], "annotator_names"),
        )

    @property
    def n_classes(self) -> int:
        """Number of classes (2 for binary labels)."""
        return len(self.classes)

    @property
    def is_multiclass(self) -> bool:
        """Whether the labels have three classes or more: ``scores`` is then the (n, C) matrix of
        class probabilities, and only the multi-class estimators take these data."""
        return self.n_classes > 2

    @property
    def probabilities(self) -> np.ndarray:
        """The (n, C) class probabilities: ``scores`` of multi-class data, ``[1 - Z, Z]`` of
        binary data."""
        if self.is_multiclass:
            return self.scores
        return np.column_stack([1.0 - self.scores, self.scores])

    def require_binary(self, where: str) -> AnnotatedScores:
        """These data, or a ValueError naming ``where`` when they are multi-class: everything
        built on the binary channel (a, b), its pattern cells and the binary score column runs on
        binary labels only."""
        if self.is_multiclass:
            raise ValueError(
                f"{where}: data are multi-class ({self.n_classes} classes: "
                f"{abbreviated(self.classes, 5)}), and {where} handles binary labels only; "
                f"{MULTICLASS_STEPS}"
            )
        return self

    @property
    def n_items(self) -> int:
        return int(self.scores.shape[0])

    @property
    def n_annotators(self) -> int:
        return int(self.annotations.shape[1])

    @property
    def n_groups(self) -> int:
        """Number of distinct score groups present (1 when the data have no groups)."""
        return 1 if self.groups is None else int(np.unique(self.groups).size)

    @property
    def n_gold(self) -> int:
        """Number of items with a gold label (0 without gold)."""
        return 0 if self.gold is None else int((self.gold != v.MISSING).sum())

    def __repr__(self) -> str:
        missing = float((self.annotations == v.MISSING).mean())
        gold = f", n_gold={self.n_gold}" if self.gold is not None else ""
        classes = (
            f", classes={list(self.classes)}{', ordinal' if self.ordinal else ''}"
            if self.is_multiclass
            else ""
        )
        names = self.annotator_names
        annotators = (  # a crowd's thousands of names would bury the line
            f"{list(names)}"
            if len(names) <= REPR_ANNOTATORS
            else f"{len(names)} ({abbreviated(names, 6)})"
        )
        return (
            f"AnnotatedScores(n_items={self.n_items}, annotators={annotators}"
            f"{classes}, n_groups={self.n_groups}, missing={missing:.1%}{gold})"
        )

    def compress(self) -> CellStatistics:
        """The distinct (group, response pattern) cells with their counts.

        The likelihood of every channel model depends on the data only through these counts,
        so fitting costs O(number of distinct patterns) rather than O(n).  This pass is the
        only O(nK) step of a fit: each row is encoded as one integer in base 3 (missing, 0, 1)
        after its group id, and the codes are counted (:func:`bayescal.data.cells.tabulate`).
        Binary labels only.
        """
        return self.cells(n_bins=1, by_group=True)

    def responses(self) -> Responses:
        """The labels as sparse (item, annotator, label) triples, item by item
        (:class:`bayescal.data.Responses`: what the crowd estimators run on), with the
        data's number of classes."""
        return Responses.from_dense(
            self.annotations,
            annotator_names=self.annotator_names,
            gold=self.gold,
            n_classes=self.n_classes,
        )

    def cells(self, *, n_bins=DEFAULT_N_BINS, strategy="uniform", by_group=True) -> CellStatistics:
        """The items grouped into cells of (score group, evaluation bin, response pattern).

        Parameters
        ----------
        n_bins : int or "auto", default 10
            Evaluation bins (``"auto"`` = ``round(n ** (1/3))``).
        strategy : {"uniform", "quantile"}, default "uniform"
            Equal-width or equal-mass bins, as in :func:`bayescal.expected_calibration_error`.
        by_group : bool, default True
            Keep the score groups apart; ``False`` pools them (evaluation needs no groups).

        Returns
        -------
        CellStatistics
            Binary labels only: the cells of multi-class data are refused (ValueError).
        """
        self.require_binary("AnnotatedScores.cells")
        bins = v.as_n_bins(n_bins, self.n_items)
        strategy = v.as_choice(strategy, "strategy", v.BIN_STRATEGIES)
        if not isinstance(by_group, bool):
            raise TypeError(f"by_group must be True or False; saw {by_group!r}")
        return tabulate(
            self.scores,
            self.annotations,
            self.annotator_names,
            groups=self.groups if by_group else None,
            n_bins=bins,
            strategy=strategy,
            gold=self.gold,
        )

    def subset(self, items) -> AnnotatedScores:
        """The data restricted to ``items`` (integer positions or a boolean mask), e.g. for
        splits.  Positions drawn with replacement (a bootstrap) leave the subset without
        ``item_ids``: its copies are not items of their own."""
        index = np.asarray(items)
        if index.dtype == bool:
            if index.shape != (self.n_items,):
                raise ValueError(
                    f"items as a boolean mask must have shape ({self.n_items},); saw {index.shape}"
                )
        elif not np.issubdtype(index.dtype, np.integer) or index.ndim != 1:
            raise TypeError(
                f"items must be a 1-D array of integer positions or a boolean mask; saw dtype {index.dtype}"
            )
        elif index.size and (index.min() < -self.n_items or index.max() >= self.n_items):
            raise ValueError(
                f"items must be positions in [0, {self.n_items}); saw values from {index.min()} to {index.max()}"
            )

        def kept(array):
            return None if array is None else array[index]

        ids = kept(self.item_ids)
        if ids is not None and np.unique(ids).size < ids.size:
            # drawn with replacement (a bootstrap): the copies are not items of their own
            ids = None
        return AnnotatedScores(
            scores=self.scores[index],
            annotations=self.annotations[index],
            groups=kept(self.groups),
            annotator_names=self.annotator_names,
            gold=kept(self.gold),
            gold_weights=kept(self.gold_weights),
            item_ids=ids,
            classes=self.classes,
            ordinal=self.ordinal,
        )

    def merge_classes(self, groups) -> AnnotatedScores:
        """These data with each group of classes made one class: its probability the sum of
        the group's, every label and gold label of a member its label, named by the members
        joined with ``"|"`` (grades ``"4"`` and ``"5"`` become ``"4|5"``) and placed where
        its first member stood.  What to do with classes every annotator confuses
        (:func:`bayescal.channels.confused_classes` finds them): their difference cannot be corrected,
        their sum can.

        Parameters
        ----------
        groups : sequence of sequences of str
            Disjoint groups of two classes or more, by name; on an ordinal scale each group
            must be adjacent grades, so that the merged scale keeps its order.  The result
            keeps three classes or more (two would be binary data; fit those as such).

        Returns
        -------
        AnnotatedScores
            Multi-class, with the same items, annotators, gold weights and ids.
        """
        self.require_multiclass("merge_classes")
        new_code = merged_class_codes(self.classes, self.ordinal, groups)
        n_merged = int(new_code.max()) + 1
        if n_merged < 3:
            raise ValueError(
                f"groups would leave {n_merged} classes of {list(self.classes)}; merging to "
                "two classes makes binary data: fit those as binary labels"
            )
        names = tuple(
            "|".join(np.asarray(self.classes)[new_code == code]) for code in range(n_merged)
        )
        probabilities = np.zeros((self.n_items, n_merged))
        np.add.at(probabilities.T, new_code, self.scores.T)

        def recoded(labels):
            if labels is None:
                return None
            labels = labels.astype(np.int64)
            return np.where(labels == v.MISSING, v.MISSING, new_code[labels])

        return replace(
            self,
            scores=probabilities,
            annotations=recoded(self.annotations),
            gold=recoded(self.gold),
            classes=names,
        )

    def require_multiclass(self, where: str) -> None:
        """Nothing, or a ValueError naming ``where`` when these data are binary (the steps
        that read classes, as :meth:`require_binary` guards the binary ones)."""
        if not self.is_multiclass:
            raise ValueError(
                f"{where}: data are binary (classes {list(self.classes)}); it takes multi-class "
                "data"
            )

    def in_annotator_order(self, names, *, name="data", of="the order given") -> AnnotatedScores:
        """These data with their annotator columns in the order of ``names``, the same
        annotators matched by name (a fit's order, which its pattern counts follow); other
        annotators are refused, the error calling these data ``name`` and ``names`` ``of``."""
        positions = v.annotator_positions(self.annotator_names, names, name, of)
        if (positions == np.arange(positions.size)).all():
            return self
        return replace(
            self,
            annotations=self.annotations[:, np.argsort(positions)],
            annotator_names=tuple(names),
        )

    @classmethod
    @old_spellings()
    def from_frame(
        cls,
        frame,
        *,
        score: str | Sequence[str],
        annotators: Sequence[str],
        groups: str | None = None,
        gold: str | None = None,
        gold_weights: str | None = None,
        item_id: str | None = None,
        classes: Sequence[str] | None = None,
        ordinal: bool = False,
        normalize: bool = False,
    ) -> AnnotatedScores:
        """Build from a wide table: one score column (or one column per class) and one column
        per annotator.

        Parameters
        ----------
        frame : pandas.DataFrame
            One row per item.  Annotator columns hold 0/1 (integers, floats, booleans or
            nullable integers); NaN or ``pd.NA`` marks a missing response.  With ``classes``,
            or with three classes or more, they hold class names (or the codes ``0, 1, ...``
            when no names are given), matched as text (an integer-valued number as the
            integer: ``4.0`` is ``"4"``).
        score : str or sequence of str
            Name of the score column; or the class-probability columns, one per class in
            the order of ``classes``; or one column whose cells are lists of class
            probabilities.
        annotators : sequence of str
            Names of the annotator columns (a list, or a ``pandas.Index`` such as
            ``frame.columns[2:5]``); they become ``annotator_names``.
        groups : str, optional
            Name of a column of score-group ids.
        gold, gold_weights : str, optional
            Names of a column of human-verified labels (0/1, empty where an item has none) and
            of a column of the gold items' inclusion probabilities (:class:`AnnotatedScores`;
            the gold items must be a random sample, or one stratified by score with those
            probabilities).
        item_id : str, optional
            Name of a column that names each item once: its values, as text, become
            ``item_ids``, by which a fit and a test (or a split's samples) that share items
            are told apart from a clean split.
        classes, ordinal, normalize
            As :class:`AnnotatedScores`: the class names (the labels' spellings), whether they
            form a scale, and whether to divide each probability row by its sum.

        Examples
        --------
        >>> import pandas as pd
        >>> table = pd.DataFrame({"p": [0.1, 0.8], "ann": [0, 1], "bob": [None, 1]})
        >>> AnnotatedScores.from_frame(table, score="p", annotators=["ann", "bob"]).annotations.tolist()
        [[0, -1], [1, 1]]
        >>> graded = pd.DataFrame(
        ...     {"p1": [0.6, 0.1], "p2": [0.3, 0.2], "p3": [0.1, 0.7], "judge": [1, 3], "human": ["2", None]}
        ... )
        >>> data = AnnotatedScores.from_frame(
        ...     graded, score=["p1", "p2", "p3"], annotators=["judge", "human"], classes=["1", "2", "3"]
        ... )
        >>> data.annotations.tolist()
        [[0, 1], [2, -1]]
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame; saw {type(frame).__name__}")
        if isinstance(annotators, (pd.Index, np.ndarray)):  # df.columns[2:5] names columns too
            annotators = annotators.tolist()
        if (
            isinstance(annotators, str)
            or not isinstance(annotators, Sequence)
            or len(annotators) == 0
        ):
            raise ValueError(
                f"annotators must be a non-empty list of column names; saw {annotators!r}"
            )
        optional = {
            "groups": groups,
            "gold": gold,
            "gold_weights": gold_weights,
            "item id": item_id,
        }
        score_columns = score_column_names(score, frame.columns)
        wanted = [*score_columns, *annotators] + [
            name for name in optional.values() if name is not None
        ]
        missing = [name for name in wanted if name not in frame.columns]
        if missing:
            raise ValueError(
                f"frame has no column(s) {missing}; its columns are {list(frame.columns)}"
            )
        v.check_column_roles({"score": score_columns, "annotator": annotators, **optional})
        _check_unique_columns(frame, wanted, "frame")
        scores = _score_values(frame, score_columns)
        read_labels = _label_reader(scores, classes)
        columns = [read_labels(frame[name], f"annotator column {name!r}") for name in annotators]
        return cls(
            scores=scores,
            annotations=np.column_stack(columns),
            groups=None
            if groups is None
            else v.numeric_column(frame[groups], f"groups column {groups!r}"),
            annotator_names=[str(name) for name in annotators],
            item_ids=None if item_id is None else _id_column(frame[item_id], item_id),
            classes=classes,
            ordinal=ordinal,
            normalize=normalize,
            **_gold_columns(frame, gold, gold_weights, scores, score_columns, read_labels),
        )

    @classmethod
    @old_spellings()
    def from_long(
        cls,
        labels,
        scores,
        *,
        item: str = "item",
        annotator: str = "annotator",
        label: str = "label",
        score: str | Sequence[str] = "score",
        groups: str | None = None,
        gold: str | None = None,
        gold_weights: str | None = None,
        classes: Sequence[str] | None = None,
        ordinal: bool = False,
        normalize: bool = False,
    ) -> AnnotatedScores:
        """Build from a long label table joined with a score table.

        Parameters
        ----------
        labels : pandas.DataFrame
            One row per (item, annotator) response, with columns ``item``, ``annotator`` and
            ``label`` (0/1, or class names as in :meth:`from_frame`).  A NaN label, or an
            absent row, is a missing response.  Each (item, annotator) pair may appear at most
            once.
        scores : pandas.DataFrame
            One row per item, with columns ``item`` and ``score`` (and ``groups`` if given);
            ``score`` may name one column per class, or a column of probability lists, as in
            :meth:`from_frame`.
            Its row order is the item order of the result.  Items without any label are kept
            with an all-missing row; a label whose item has no score is an error.
        item, annotator, label, score, groups : str
            Column names.  Annotators are ordered by sorted name.
        gold, gold_weights : str, optional
            Columns of ``scores``: each item's human-verified label (0/1, empty where it has
            none) and the gold items' inclusion probabilities, as in :meth:`from_frame`.
        classes, ordinal, normalize
            As :class:`AnnotatedScores`.
        """
        import pandas as pd

        for name, frame in (("labels", labels), ("scores", scores)):
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(f"{name} must be a pandas DataFrame; saw {type(frame).__name__}")
        v.check_column_roles({"item": item, "annotator": annotator, "label": label})
        optional = {"groups": groups, "gold": gold, "gold_weights": gold_weights}
        score_columns = score_column_names(score, scores.columns)
        v.check_column_roles({"item": item, "score": score_columns, **optional})
        for name, frame, needed in (
            ("labels", labels, [item, annotator, label]),
            (
                "scores",
                scores,
                [item, *score_columns]
                + [column for column in optional.values() if column is not None],
            ),
        ):
            absent = [column for column in needed if column not in frame.columns]
            if absent:
                raise ValueError(
                    f"{name} has no column(s) {absent}; its columns are {list(frame.columns)}"
                )
            _check_unique_columns(frame, needed, name)
        for name, frame, columns in (
            ("labels", labels, (item, annotator)),
            ("scores", scores, (item,)),
        ):
            for column in columns:
                empty = frame[column].isna().to_numpy()
                if empty.any():  # str(NaN) would make a worker, or an item, named "nan"
                    raise ValueError(
                        f"{name} column {column!r}, row {int(np.flatnonzero(empty)[0])}: "
                        f"expected an id; saw an empty cell ({int(empty.sum())} in all)"
                    )
        item_index = pd.Index(scores[item])
        if not item_index.is_unique:
            duplicated = item_index[item_index.duplicated()][0]
            raise ValueError(
                f"scores must list each item once; item {duplicated!r} appears more than once"
            )
        responses = labels.loc[labels[label].notna(), [item, annotator, label]]
        pairs = responses.duplicated(subset=[item, annotator])
        if pairs.any():
            first = responses.loc[pairs].iloc[0]
            raise ValueError(
                f"labels must hold at most one label per (item, annotator); "
                f"item {first[item]!r} has several from annotator {first[annotator]!r}"
            )
        rows = item_index.get_indexer(responses[item])
        if (rows < 0).any():
            unknown = responses[item].to_numpy()[rows < 0][0]
            raise ValueError(
                f"labels mention item {v.plain_id(unknown)!r}, which has no row in scores"
                + v.id_spelling_hint(unknown, item_index)
            )
        names = sorted(pd.unique(responses[annotator]), key=str)
        if not names:
            raise ValueError("labels must contain at least one non-missing label")
        v.warn_ids_spaced_apart(names, "annotator")
        columns = pd.Index(names).get_indexer(responses[annotator])
        score_values = _score_values(scores, score_columns)
        read_labels = _label_reader(score_values, classes)
        values = read_labels(responses[label], f"label column {label!r}")
        n_classes = score_values.shape[1] if score_values.ndim == 2 else 2
        annotations = np.full(
            (len(item_index), len(names)), v.MISSING, dtype=v.class_code_dtype(n_classes)
        )
        annotations[rows, columns] = values
        return cls(
            scores=score_values,
            annotations=annotations,
            groups=None
            if groups is None
            else v.numeric_column(scores[groups], f"groups column {groups!r}"),
            annotator_names=[str(name) for name in names],
            # ids as text; items pandas keeps apart but text does not (1 and "1") get none
            item_ids=item_index if item_index.astype(str).is_unique else None,
            classes=classes,
            ordinal=ordinal,
            normalize=normalize,
            **_gold_columns(scores, gold, gold_weights, score_values, score_columns, read_labels),
        )


def merged_class_codes(classes: tuple[str, ...], ordinal: bool, groups) -> np.ndarray:
    """Each class's code (C,) once the ``groups`` of class names are merged
    (:meth:`AnnotatedScores.merge_classes`, which says what is refused): the merged classes
    numbered in the order of their first members."""
    if isinstance(groups, str) or not isinstance(groups, Sequence):
        raise TypeError(
            f"groups must be a sequence of groups of class names, e.g. [('4', '5')]; saw {groups!r}"
        )
    first = np.arange(len(classes))
    seen: set[str] = set()
    for group in groups:
        if isinstance(group, str) or not isinstance(group, Sequence) or len(group) < 2:
            raise ValueError(f"groups: each group must name two classes or more; saw {group!r}")
        unknown = [name for name in group if name not in classes]
        if unknown:
            raise ValueError(f"groups: {unknown} are not classes of the data {list(classes)}")
        twice = seen.intersection(group)
        if twice or len(set(group)) < len(group):
            raise ValueError(
                "groups must be disjoint, each class named once; saw "
                f"{sorted(twice) or list(group)} twice"
            )
        seen.update(group)
        members = sorted(classes.index(name) for name in group)
        if ordinal and members[-1] - members[0] != len(members) - 1:
            raise ValueError(
                "groups: on an ordinal scale a group must be adjacent grades, so that the "
                f"merged scale keeps its order; saw {list(group)} of {list(classes)}"
            )
        first[members] = members[0]
    return np.searchsorted(np.unique(first), first)


def _id_column(column, name: str) -> np.ndarray:
    """The item ids of the column ``name``: one per row, none empty, each once as text."""
    empty = int(column.isna().sum())
    if empty:
        raise ValueError(
            f"item id column {name!r} has {empty} empty cell(s); give every item an id"
        )
    return v.as_item_ids(column.to_numpy(), len(column), f"item id column {name!r}")


def score_column_names(score, columns) -> list:
    """The score argument of a table reader as a list of column names: one (the score, or a
    column of probability lists; a tuple that names a column of ``columns`` is one name) or
    one per class."""
    import pandas as pd

    if isinstance(score, (pd.Index, np.ndarray)):
        score = score.tolist()
    if isinstance(score, str) or (isinstance(score, tuple) and score in columns):
        return [score]
    if (
        isinstance(score, Sequence)
        and len(score) >= 2
        and all(isinstance(name, str) for name in score)
    ):
        return list(score)
    raise ValueError(
        "score must name the score column, or the class-probability columns (two or more); "
        f"saw {score!r}"
    )


def _score_values(frame, columns: list[str]) -> np.ndarray:
    """The scores (n,) of one numeric column, or the class probabilities (n, C) of one column
    per class or of one column whose cells are lists; checked by :class:`AnnotatedScores`."""
    if len(columns) > 1:
        return np.column_stack(
            [v.numeric_column(frame[name], f"score column {name!r}") for name in columns]
        )
    column = frame[columns[0]]
    cells = column.dropna()
    if not len(cells) or not isinstance(cells.iloc[0], (list, tuple, np.ndarray)):
        return v.numeric_column(column, f"score column {columns[0]!r}")
    lengths = column.map(
        lambda cell: len(cell) if isinstance(cell, (list, tuple, np.ndarray)) else -1
    )
    if (lengths != lengths.iloc[0]).any():
        row = int(np.flatnonzero((lengths != lengths.iloc[0]).to_numpy())[0])
        raise ValueError(
            f"score column {columns[0]!r} must hold one list of {lengths.iloc[0]} class "
            f"probabilities per row; row {row} holds {column.iloc[row]!r}"
        )
    return v.as_numeric_array(np.stack(column.to_numpy()), f"score column {columns[0]!r}")


def _label_reader(scores: np.ndarray, classes):
    """The reader of a table's label columns (annotators, gold): 0/1 for binary data whose
    classes are not named, else each label's class code, matched by name
    (:func:`bayescal._validation.class_label_column`)."""
    n_classes = scores.shape[1] if scores.ndim == 2 else 2
    if classes is None and n_classes == 2:
        return v.annotation_column
    names = v.as_class_names(classes, n_classes)
    return lambda column, description: v.class_label_column(column, names, description)


def _gold_columns(frame, gold, gold_weights, scores, score, read_labels) -> dict:
    """The ``gold`` and ``gold_weights`` arguments read from ``frame``'s columns of those
    names (empty cells: no gold label, no weight; labels read by ``read_labels``); a gold
    label on a row without a score is refused by name here, before the score check would
    blame the score alone."""
    if gold is None:
        if gold_weights is not None:
            raise ValueError(
                "gold_weights names the column of the gold items' inclusion probabilities; "
                "name the gold column too (gold=...)"
            )
        return {}
    labels = read_labels(frame[gold], f"gold column {gold!r}")
    unscored = (labels != v.MISSING) & np.isnan(scores.reshape(len(labels), -1)).any(axis=1)
    if unscored.any():
        row = int(np.flatnonzero(unscored)[0])
        raise ValueError(
            f"gold column {gold!r}, row {row}: a gold label on an item without a score "
            f"(score column {score[0] if len(score) == 1 else score!r} is empty there; "
            f"{int(unscored.sum())} such row(s)); every item needs a score"
        )
    weights = (
        None
        if gold_weights is None
        else v.numeric_column(frame[gold_weights], f"gold_weights column {gold_weights!r}")
    )
    return {"gold": labels, "gold_weights": weights}


def _check_unique_columns(frame, wanted: list, name: str) -> None:
    """Refuse a column the call reads that the frame holds twice: ``frame[column]`` would be a
    table, not a column, and which of the two was meant cannot be told."""
    twice = [column for column in wanted if (frame.columns == column).sum() > 1]
    if twice:
        raise ValueError(
            f"{name} has {(frame.columns == twice[0]).sum()} columns named {twice[0]!r}; "
            "give each column its own name"
        )


def require_binary(data, where: str) -> None:
    """Refuse multi-class :class:`AnnotatedScores` or :class:`~bayescal.data.Responses` at
    ``where``, a step built on binary channels (anything else passes: the step checks its own
    input)."""
    if isinstance(data, AnnotatedScores):
        data.require_binary(where)
    elif isinstance(data, Responses) and data.n_classes > 2:
        raise ValueError(
            f"{where}: the responses are multi-class ({data.n_classes} classes), and {where} "
            f"handles binary labels only; {MULTICLASS_STEPS}"
        )


def refuse_multiclass_gold(n_gold: int, where: str) -> None:
    """Refuse gold labels at ``where``, a multi-class step that does not use them yet, rather
    than fit or score as if there were none."""
    if n_gold:
        raise ValueError(
            f"{where}: data have {n_gold} gold labels, which the multi-class {where} does not "
            "use yet; drop them (gold=None) to use the annotators alone"
        )


# Groups and names by keyword since 0.2: a third positional argument names the new spelling.
AnnotatedScores.__init__ = old_spellings()(AnnotatedScores.__init__)


def ids_differ(first, second) -> bool:
    """Whether two sets of item ids (``item_ids`` of data or of a fit) are known to name other
    items: both are given and they differ as sets.  Without ids, pattern counts decide."""
    if first is None or second is None:
        return False
    return len(first) != len(second) or not np.array_equal(np.sort(first), np.sort(second))


def warn_of_shared_items(first, first_role: str, second, second_role: str, where: str) -> None:
    """One :class:`~bayescal.exceptions.DataWarning` when two sets of items meant to be apart
    (a fit's items and a test's, the samples of a split) share some by id: their pattern
    counts alone cannot tell, so an overlap would pass as a clean split.  ``first`` and
    ``second`` are item ids (``AnnotatedScores.item_ids``, ``item_ids`` of a fit); nothing
    is said where either is None."""
    if first is None or second is None:
        return
    shared = np.intersect1d(first, second)
    if shared.size == 0:
        return
    warn_caller(
        f"{where}: {shared.size} of the {len(first)} items of {first_role} are also among "
        f"the {len(second)} of {second_role} (by id, e.g. {str(shared[0])!r}): the "
        "samples are not apart, and what is computed on one is not independent of the other",
        DataWarning,
    )
