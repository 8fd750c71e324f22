"""Reading the tables users bring: CSV, TSV or Parquet, wide or long, and strict JSON.

- Tables are CSV (``,``, ``;`` or tab separated, UTF-8 or Latin-1, the dialect sniffed by
  :func:`sniff`), TSV or Parquet, chosen by the file suffix.  A bad table raises
  :class:`~bayescal.TableError` with one line naming the file, the column and the row; the input
  file is only ever read.  Item ids are read as text (``"0001"`` is not ``"1"``), and a table
  written back with added columns (:attr:`Table.frame`) carries every other cell as it was.
- JSON is strict: NaN or infinity is refused (an undefined quantity is ``null`` with a reason,
  decided by the caller), so what bayescal writes any JSON reader can read.

Writing results lives with the results folders (:mod:`bayescal.report.folders`).
"""

from __future__ import annotations

import codecs
import csv
import functools
import io
import json
import pathlib
import re
import unicodedata
import warnings
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import Result, old_spellings, warn_caller
from ..exceptions import DataWarning, TableError
from .annotated_scores import AnnotatedScores, score_column_names
from .responses import Responses

__all__ = [
    "LabelTable",
    "ScoreTable",
    "Table",
    "file_sha256",
    "read_json",
    "read_label_table",
    "read_long_tables",
    "read_score_table",
    "read_wide_table",
]


#: File suffixes understood by :func:`read_wide_table`.
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
#: Of those, the text tables.
TEXT_SUFFIXES = (".csv", ".tsv")
#: What a reader does with an item no annotator labelled: refuse the table, keep the item (an
#: all-missing row), or drop it with a one-line warning.
UNLABELLED = ("refuse", "keep", "drop")


def _read(path: pathlib.Path, text_columns=(), *, all_text: bool = False):
    """The table at ``path``; in a text table the ``text_columns`` (ids) are read as text, and
    with ``all_text`` every cell is (empty cells as ``""``)."""
    import pandas as pd

    _require_file(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TableError(
            f"{path}: expected a table ending in {', '.join(TABLE_SUFFIXES)}; saw {suffix or 'no suffix'!r}"
        )
    try:
        if suffix not in TEXT_SUFFIXES:
            return _index_as_columns(path, pd.read_parquet(path))
        dialect = sniff(path)
        options = (
            # read once the data were: a row's empty cells past the header were checked then
            {"dtype": object, "keep_default_na": False, "usecols": range(len(dialect.header))}
            if all_text
            else {"dtype": dict.fromkeys(text_columns, str), "decimal": dialect.decimal}
        )
        with warnings.catch_warnings():
            # index_col=False: a row ending in its separator (every row written "...,1,") is
            # read as its cells, not shifted onto the first column as an index; a row whose
            # extra cell holds a value would be cut silently, so that warning is an error here
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                path,
                sep=dialect.sep,
                encoding=dialect.encoding,
                names=dialect.header,  # as written: a blank header cell stays "", not "Unnamed: 0"
                header=0,
                index_col=False,
                **options,
            )
    except TableError:
        raise
    except pd.errors.ParserWarning:
        raise TableError(
            _longer_row(path, dialect)
            or f"{path}: a row has more cells than the header; name every column in the header"
        ) from None
    except Exception as error:  # the parsers raise many types; the user needs the reason, once
        if isinstance(error, pd.errors.ParserError) and (longer := _longer_row(path, dialect)):
            raise TableError(longer) from None  # rows counted as everywhere else, not lines
        raise TableError(
            f"{path}: cannot be read as {suffix[1:].upper()} ({type(error).__name__}: {error})"
        ) from None


def _index_as_columns(path: pathlib.Path, frame):
    """A Parquet table's index as its first columns when it holds anything (item ids saved
    with ``set_index("item")``, a MultiIndex): the index is data its author kept, and a table
    written back must keep it too.  A default 0, 1, ... index is dropped."""
    import pandas as pd

    index = frame.index
    if isinstance(index, pd.RangeIndex) and index.name is None:
        return frame
    names = [name for name in index.names if name is not None]
    clash = [name for name in names if name in frame.columns]
    if clash:
        raise TableError(f"{path}: the index {clash[0]!r} is also a column; rename one of them")
    return frame.reset_index()


def _require_file(path: pathlib.Path) -> None:
    """A table is a regular file: it is read more than once (its dialect, then its cells), which
    standard input and a pipe cannot be."""
    if str(path) == "-":
        raise TableError(
            "-: a table is read from a file, not from standard input; save it and pass its path"
        )
    if path.is_dir():
        raise TableError(f"{path}: is a folder; expected a table file")
    if path.exists() and not path.is_file():
        raise TableError(
            f"{path}: not a regular file (a pipe or a device); a table is read more than once, "
            "so save it to a file and pass its path"
        )
    if not path.exists():
        raise TableError(f"{path}: no such file")


def _longer_row(path: pathlib.Path, dialect: CsvFormat) -> str | None:
    """The message for the first data row with a value past the header's last column (rows
    counted from 0 below the header, as in every other message), or None without one."""
    with open(path, encoding=dialect.encoding, newline="") as file:
        for row, cells in enumerate(csv.reader(file, delimiter=dialect.sep)):
            if (
                row
                and len(cells) > len(dialect.header)
                and any(cell.strip() for cell in cells[len(dialect.header) :])
            ):
                first = dialect.sep.join(dialect.header)
                comment = (
                    f"; the header line {first!r} starts with '#': if it is a comment, delete "
                    "it (the header is the first line)"
                    if first.startswith("#")
                    else ""
                )
                return (
                    f"{path}: row {row - 1}: {len(cells)} cells under a header of "
                    f"{len(dialect.header)} columns; name every column in the header, or remove the extra cells{comment}"
                )
    return None


def _first_bad_row(frame, column: str, allowed=None) -> tuple[int, object] | None:
    """The first row whose value is not a number (or not in ``allowed``), and that value."""
    import pandas as pd

    raw = v.blank_as_missing(frame[column])
    numeric = pd.to_numeric(raw, errors="coerce")
    bad = raw.notna() & numeric.isna()
    if allowed is not None:
        bad |= numeric.notna() & ~numeric.isin(allowed)
    if not bad.any():
        return None
    row = int(np.flatnonzero(bad.to_numpy())[0])
    value = raw.iloc[row]
    return row, value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False, repr=False)
class Table(Result):
    """A table read for bayescal.

    Attributes
    ----------
    data : AnnotatedScores
    truth : ndarray of int or None
        The truth column, when one was named.
    path : pathlib.Path
        The item-level table (the wide table, or the score table of the long format); its
        suffix is the output format.
    frame : pandas.DataFrame
        That table with every cell as text, one row per item in the order of ``data``, read on
        first use: outputs add columns to it and carry the others through unchanged.
    rows : ndarray of int or None
        The rows of that table ``data`` holds, when items without labels were dropped.
    """

    data: AnnotatedScores
    truth: np.ndarray | None
    path: pathlib.Path
    rows: np.ndarray | None = None

    @functools.cached_property
    def frame(self):
        return _text_frame(self.path, self.rows)


def _text_frame(path: pathlib.Path, rows: np.ndarray | None = None):
    """The table at ``path`` with every cell as text (its ``rows`` only, when given): what an
    output carries through unchanged beside the columns it adds."""
    frame = _read(path, all_text=True)
    return frame if rows is None else frame.iloc[rows].reset_index(drop=True)


@dataclass(frozen=True, eq=False, repr=False)
class ScoreTable(Result):
    """A table of scores alone, to apply a fitted recalibration map to (``bayescal apply``).

    Attributes
    ----------
    scores : ndarray, shape (n,)
    path : pathlib.Path
        The table; its suffix is the output format.
    frame : pandas.DataFrame
        The table with every cell as text, read on first use.
    """

    scores: np.ndarray
    path: pathlib.Path

    @functools.cached_property
    def frame(self):
        return _text_frame(self.path)


def read_score_table(path, *, score) -> ScoreTable:
    """Read the column ``score`` of a CSV or Parquet table: numbers in [0, 1], no empty cell.

    Raises
    ------
    TableError
        A missing column, an empty table, or a cell that is not a score: one line naming the
        column and the (0-based data) row.
    """
    path = pathlib.Path(path)
    frame = _read(path)
    _require_columns(path, frame, [score])
    _item_columns(path, frame, [score], None, False)
    scores = v.as_scores(frame[score].to_numpy(dtype=np.float64), f"column {score!r}")
    return ScoreTable(scores, path)


@dataclass(frozen=True, eq=False, repr=False)
class LabelTable(Result):
    """Annotators' labels without scores, to aggregate (``bayescal labels``).

    Attributes
    ----------
    responses : Responses
        The labels, with the gold labels when a gold column was named.
    items : list of str
        Each item's id, in the order of the responses' items: the item column's text, or the
        row number of a wide table without one.
    item : str
        The item id column's name (``"item"`` for row numbers).
    path : pathlib.Path
        The table; its suffix is the output format.
    """

    responses: Responses
    items: list
    item: str
    path: pathlib.Path


def read_label_table(
    path, *, annotators=None, long=False, item=None, annotator="annotator", label="label", gold=None
) -> LabelTable:
    """Read the labels of a CSV or Parquet table, wide or long, without any score.

    Parameters
    ----------
    path : str or path
    annotators : sequence of str, optional
        Wide: the annotator columns (0, 1 or empty), required.  Long: keep only these
        annotators (default: all).
    long : bool, default False
        One row per response, with columns ``item``, ``annotator`` and ``label``.
    item : str, optional
        The item id column (text); long tables default to ``"item"``, wide ones to the row
        number.
    annotator, label : str
        The long table's annotator and label columns.
    gold : str, optional
        Column of human-verified 0/1 labels, empty where an item has none.  In a long table it
        repeats on each of an item's rows; two different gold labels of one item are refused.

    Returns
    -------
    LabelTable
        Every item, those without any label included (their probability is then the class
        proportion, as the caller says).

    Raises
    ------
    TableError
        A missing column, a label or gold other than 0/1/empty, an empty id, a repeated item
        (wide) or (item, annotator) pair (long), an item with two gold labels, or an annotator
        without any label: one line naming the column and the (0-based data) row.
    """
    path = pathlib.Path(path)
    if long:
        item = "item" if item is None else item
        v.check_column_roles({"item": item, "annotator": annotator, "label": label, "gold": gold})
        frame = _read(path, [item, annotator])
        _require_columns(path, frame, [item, annotator, label, *([gold] if gold else [])])
        _check_filled(path, frame, [item, annotator])
        _first_duplicate(path, frame, [item, annotator], "(item, annotator) pair")
    else:
        if annotators is None:
            raise ValueError("annotators is required for a wide table (or pass long=True)")
        annotators = list(annotators)
        v.check_column_roles({"item": item, "annotator": annotators, "gold": gold})
        frame = _read(path, [item] if item else [])
        _require_columns(path, frame, [*annotators, *(c for c in (item, gold) if c)])
        if item is not None:
            _check_filled(path, frame, [item])
            _first_duplicate(path, frame, [item], "item id")
    checked = [label] if long else annotators
    _check_values(
        path,
        frame,
        [(name, (0, 1), "0, 1 or empty") for name in (*checked, *([gold] if gold else []))],
    )
    if long:
        responses, ids = _long_responses(path, frame, item, annotator, label, annotators, gold)
    else:
        ids = frame[item].astype(str).tolist() if item else [str(r) for r in range(len(frame))]
        responses = Responses.from_dense(
            np.column_stack([v.annotation_column(frame[c], f"column {c!r}") for c in annotators]),
            annotator_names=annotators,
            gold=None if gold is None else v.annotation_column(frame[gold], f"column {gold!r}"),
        )
    given = responses.labels_per_annotator()
    for j in np.flatnonzero(given == 0):
        raise TableError(
            f"{path}: annotator {responses.annotator_names[j]!r} gave no label at all; drop it"
        )
    return LabelTable(responses, ids, item or "item", path)


def _refuse_silent_annotators(path: pathlib.Path, frame, who, label: str) -> None:
    """Refuse a long table in which an annotator (``who``, each row's) has rows but no label."""
    labelled = frame[label].notna().groupby(who, sort=False).any()
    if not labelled.all():
        name = labelled.index[~labelled.to_numpy()][0]
        row = int(np.flatnonzero(who.eq(name).to_numpy())[0])
        raise TableError(
            f"{path}: column {label!r}, row {row}: annotator {name!r} gave no label at all (every label is empty); drop the annotator"
        )


def _kept_annotators(path: pathlib.Path, frame, who, annotator: str, annotators):
    """The rows of a long table whose annotator (``who``, each row's) is one of
    ``annotators``; one of them without any row is refused."""
    wanted = [str(name) for name in annotators]
    absent = [name for name in wanted if not who.eq(name).any()]
    if absent:
        raise TableError(f"{path}: column {annotator!r}: no response from annotator {absent[0]!r}")
    return frame[who.isin(wanted)]


def _long_responses(path, frame, item, annotator, label, annotators, gold):
    """The responses of a long label table (every item kept, in order of first appearance)
    and the item ids."""
    who = frame[annotator].astype(str)
    _refuse_silent_annotators(path, frame, who, label)
    if annotators is not None:
        frame = _kept_annotators(path, frame, who, annotator, annotators)
    ids = list(dict.fromkeys(frame[item].astype(str)))
    responses = Responses.from_long(
        frame.assign(**{item: frame[item].astype(str)}),
        items=ids,
        item=item,
        annotator=annotator,
        label=label,
    )
    if gold is None:
        return responses, ids
    ids_of_rows = frame[item].astype(str).reset_index(drop=True)
    values = frame[gold].reset_index(drop=True)
    given = values.notna().to_numpy()
    first = values[given].groupby(ids_of_rows[given], sort=False).transform("first")
    differs = np.flatnonzero((values[given] != first).to_numpy())
    if differs.size:
        row = int(np.flatnonzero(given)[differs[0]])
        raise TableError(
            f"{path}: column {gold!r}, row {row}: item {ids_of_rows[row]!r} has two different "
            "gold labels"
        )
    labels = np.full(len(ids), v.MISSING, np.int8)
    position = {name: k for k, name in enumerate(ids)}
    labelled = ids_of_rows[given]
    labels[labelled.map(position).to_numpy()] = values[given].to_numpy(dtype=np.int8)
    return replace(responses, gold=labels), ids


def _require_columns(path: pathlib.Path, frame, wanted) -> None:
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise TableError(
            f"{path}: no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
            + _near_column(missing[0], frame.columns)
        )
    if len(frame) == 0:
        raise TableError(f"{path}: the table has no rows")


def _near_column(name: str, columns) -> str:
    """A note naming the column ``name`` was surely meant for: the same text but for spaces
    around it, or written with other Unicode code points (``José`` composed or decomposed),
    which a terminal prints alike; otherwise ``""``."""
    for column in map(str, columns):
        if column.strip() == name.strip():
            return (
                f"; column {column!r} differs from {name!r} only in spaces: rename it in the header"
            )
        if unicodedata.normalize("NFC", column) == unicodedata.normalize("NFC", name):
            return (
                f"; column {column!r} prints as {name!r} but is written with other Unicode "
                "code points (composed and decomposed accents): rename it in the header"
            )
    return ""


def _check_values(path: pathlib.Path, frame, checks) -> None:
    """Every (column, allowed values or None for any number, what was expected) holds."""
    for column, allowed, expected in checks:
        if frame[column].dtype.kind in "mM":  # to_numeric would make nanoseconds of them
            raise TableError(
                f"{path}: column {column!r} holds dates or durations ({frame[column].dtype}); "
                f"expected {expected}"
            )
        found = _first_bad_row(frame, column, allowed)
        if found is not None:
            raise TableError(
                f"{path}: column {column!r}, row {found[0]}: expected {expected}; saw {found[1]!r}"
            )


def _check_filled(path: pathlib.Path, frame, columns) -> None:
    """No empty cell in ``columns``."""
    for column in columns:
        empty = frame[column].isna().to_numpy()
        if empty.any():
            raise TableError(
                f"{path}: column {column!r}, row {int(np.flatnonzero(empty)[0])}: expected a value; saw an empty cell"
            )


def _item_columns(
    path: pathlib.Path, frame, scores: list[str], truth: str | None, named_labels: bool
) -> np.ndarray | None:
    """Check the score columns (numbers in [0, 1], no gap) and the truth column (no gap; 0/1
    unless the labels are class names, read with the classes by :func:`_class_truth`); return
    the 0/1 truth labels."""
    checks = [(score, None, "a number") for score in scores]
    if truth is not None and not named_labels:
        checks.append((truth, (0, 1), "0 or 1"))
    _check_values(path, frame, checks)
    _check_filled(path, frame, [*scores, *([] if truth is None else [truth])])
    for score in scores:
        values = frame[score].to_numpy(dtype=np.float64)
        # within float round-off of [0, 1]: clipped, and said, by AnnotatedScores
        outside = (values < -v.SCORE_ROUND_OFF) | (values > 1 + v.SCORE_ROUND_OFF)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise TableError(
                f"{path}: column {score!r}, row {row}: expected a score in [0, 1]; saw "
                f"{float(values[row])!r}"
            )
    return None if truth is None or named_labels else frame[truth].to_numpy(dtype=np.int64)


def _class_truth(path: pathlib.Path, frame, truth: str | None, classes) -> np.ndarray | None:
    """The truth column of a table whose labels are class names, as class codes."""
    if truth is None:
        return None
    try:
        return v.class_label_column(frame[truth], classes, f"column {truth!r}")
    except ValueError as error:
        raise TableError(f"{path}: {error}") from None


def _built(where, build, *args, **kwargs) -> AnnotatedScores:
    """``build(*args, **kwargs)``, an :class:`AnnotatedScores` constructor, its errors one
    line naming ``where`` (the table)."""
    try:
        return build(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise TableError(f"{where}: {error}") from None


def _label_checks(columns, named_labels: bool) -> list:
    """The value checks of label columns: 0, 1 or empty, unless they hold class names (which
    :class:`AnnotatedScores` matches to the classes, naming any other)."""
    if named_labels:
        return []
    return [(name, (0, 1), "0, 1 or empty") for name in columns]


def _labelled_table(
    path: pathlib.Path,
    data: AnnotatedScores,
    truth: np.ndarray | None,
    where: str,
    unlabelled: str,
) -> Table:
    """The Table of ``data`` once every annotator gave a label and every item got one, or
    (``unlabelled``) its unlabelled items were kept or dropped (:data:`UNLABELLED`)."""
    observed = data.annotations != -1
    for j in np.flatnonzero(~observed.any(axis=0)):
        raise TableError(
            f"{path}: {where} {data.annotator_names[j]!r}: the annotator gave no label at all; drop it"
        )
    empty = ~observed.any(axis=1)
    if unlabelled == "keep" or not empty.any():
        return Table(data, truth, path)
    first = int(np.flatnonzero(empty)[0])
    if unlabelled == "refuse":
        raise TableError(f"{path}: row {first}: no annotator labelled this item; drop the row")
    warn_caller(
        f"{path}: {int(empty.sum())} of {data.n_items} items have no label (the first on row "
        f"{first}); they are left out",
        DataWarning,
    )
    rows = np.flatnonzero(~empty)
    return Table(data.subset(rows), None if truth is None else truth[rows], path, rows)


@old_spellings()
def read_wide_table(
    path,
    *,
    score,
    annotators,
    groups=None,
    truth=None,
    unlabelled="refuse",
    gold=None,
    gold_weights=None,
    classes=None,
    ordinal=False,
    normalize=False,
) -> Table:
    """Read a CSV or Parquet table with one row per item.

    Parameters
    ----------
    path : str or path
    score : str or sequence of str
        Column of the predictor's scores, numbers in [0, 1]; or, for multi-class labels, one
        column of probabilities per class, in the order of ``classes``.
    annotators : sequence of str
        One column per annotator: 0, 1 or empty; or class names (with several score
        columns or ``classes``).
    groups : str, optional
        Column of score-group ids.
    truth : str, optional
        Column of true 0/1 labels (for the oracle ECE of a simulation or an audited set).
    unlabelled : {"refuse", "keep", "drop"}, default "refuse"
        An item no annotator labelled is refused (nothing estimates its class), kept (for
        ``bayescal recalibrate``, which fits on the labelled items and maps every score), or
        dropped with a :class:`~bayescal.DataWarning`.
    gold : str, optional
        Column of human-verified 0/1 labels, empty where an item has none
        (``AnnotatedScores.gold``: used in every fit; the gold items must be a
        random sample of the items, or drawn with known inclusion probabilities).
    gold_weights : str, optional
        Column of each gold item's inclusion probability, in (0, 1] (``select_for_gold``'s
        ``inclusion``, or a design stratified by score); read on the gold items only.
    classes, ordinal, normalize
        As :class:`~bayescal.AnnotatedScores`: the class names (the labels' spellings, and
        the truth's), whether they form a scale, and whether to divide each probability row
        by its sum.

    Returns
    -------
    Table

    Raises
    ------
    TableError
        Missing columns, non-numeric scores, labels other than 0/1/empty (or than the
        classes), an annotator column with no label at all, or scores outside [0, 1]: one line
        naming the column and the (0-based data) row.
    """
    path = pathlib.Path(path)
    frame = _read(path)
    annotators = list(annotators)
    scores = score_column_names(score, frame.columns)
    named_labels = classes is not None or len(scores) > 1
    v.check_column_roles(
        {
            "score": scores,
            "annotator": annotators,
            "groups": groups,
            "truth": truth,
            "gold": gold,
            "gold_weights": gold_weights,
        }
    )
    optional = (groups, truth, gold, gold_weights)
    _require_columns(path, frame, [*scores, *annotators, *(c for c in optional if c is not None)])
    _check_values(
        path, frame, _label_checks([*annotators, *([gold] if gold else [])], named_labels)
    )
    labels = _item_columns(path, frame, scores, truth, named_labels)
    data = _built(
        path,
        AnnotatedScores.from_frame,
        frame,
        score=score,
        annotators=annotators,
        groups=groups,
        gold=gold,
        gold_weights=gold_weights,
        classes=classes,
        ordinal=ordinal,
        normalize=normalize,
    )
    if named_labels:
        labels = _class_truth(path, frame, truth, data.classes)
    unlabelled = v.as_choice(unlabelled, "unlabelled", UNLABELLED)
    return _labelled_table(path, data, labels, "column", unlabelled)


def _first_duplicate(path: pathlib.Path, frame, columns: list[str], what: str) -> None:
    duplicated = frame.duplicated(subset=columns).to_numpy()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        values = ", ".join(f"{c} {frame[c].iloc[row]!r}" for c in columns)
        raise TableError(
            f"{path}: row {row}: duplicated {what} ({values} appears on an earlier row)"
        )


@old_spellings()
def read_long_tables(
    labels_path,
    scores_path,
    *,
    score,
    item="item",
    annotator="annotator",
    label="label",
    annotators=None,
    truth=None,
    unlabelled="drop",
    gold=None,
    gold_weights=None,
    classes=None,
    ordinal=False,
    normalize=False,
) -> Table:
    """Read a long label table (one row per response) and a score table (one row per item).

    Parameters
    ----------
    labels_path : str or path
        CSV or Parquet with columns ``item``, ``annotator`` and ``label`` (0, 1 or empty).
    scores_path : str or path
        CSV or Parquet with columns ``item`` and ``score`` (and ``truth`` if named); its row
        order is the item order.
    score, item, annotator, label : str
        Column names.
    annotators : sequence of str, optional
        Keep only these annotators, in this order (default: all, sorted by name).
    truth : str, optional
        Column of true 0/1 labels in the score table.
    gold, gold_weights : str, optional
        Columns of the score table: human-verified 0/1 labels, empty where an item has none,
        and the gold items' inclusion probabilities (as in :func:`read_wide_table`).
    unlabelled : {"refuse", "keep", "drop"}, default "drop"
        As in :func:`read_wide_table`: an item of the score table without any label.  A score
        table listing more items than were labelled is the usual case, so such items are
        dropped, with a :class:`~bayescal.DataWarning` saying how many.
    classes, ordinal, normalize
        As in :func:`read_wide_table`: ``score`` then names one column per class, and the
        labels are class names.

    Returns
    -------
    Table
        ``frame`` is the score table.

    Raises
    ------
    TableError
        As :func:`read_wide_table`, and for an item listed twice in the score table, an
        (item, annotator) pair labelled twice, or a label whose item has no score.
    ValueError
        One column named in two roles (``label="item"``), or an annotator of ``annotators``
        named twice.
    """
    labels_path, scores_path = pathlib.Path(labels_path), pathlib.Path(scores_path)
    v.check_column_roles({"item": item, "annotator": annotator, "label": label})
    scores = score_column_names(score, ())
    named_labels = classes is not None or len(scores) > 1
    v.check_column_roles(
        {"item": item, "score": scores, "truth": truth, "gold": gold, "gold_weights": gold_weights}
    )
    if annotators is not None:
        v.check_column_roles({"annotator": list(map(str, annotators))})
    # ids are text: item "0001" in one table is not "1" in the other, worker "007" is not "7"
    responses, frame = _read(labels_path, [item, annotator]), _read(scores_path, [item])
    _require_columns(labels_path, responses, [item, annotator, label])
    _require_columns(
        scores_path,
        frame,
        [item, *scores, *(c for c in (truth, gold, gold_weights) if c is not None)],
    )
    _check_values(labels_path, responses, _label_checks([label], named_labels))
    if gold is not None:
        _check_values(scores_path, frame, _label_checks([gold], named_labels))
    _check_filled(labels_path, responses, [item, annotator])
    _first_duplicate(scores_path, frame, [item], "item id")
    _first_duplicate(labels_path, responses, [item, annotator], "(item, annotator) pair")
    unknown = ~responses[item].isin(frame[item]).to_numpy()
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        missing = responses[item].iloc[row]
        raise TableError(
            f"{labels_path}: column {item!r}, row {row}: item {missing!r} has no row in "
            f"{scores_path}" + v.id_spelling_hint(missing, frame[item].unique())
        )
    who = responses[annotator].astype(str)
    _refuse_silent_annotators(labels_path, responses, who, label)
    if annotators is not None:
        annotators = list(annotators)
        responses = _kept_annotators(labels_path, responses, who, annotator, annotators)
    truth_labels = _item_columns(scores_path, frame, scores, truth, named_labels)
    data = _built(
        f"{labels_path} with {scores_path}",
        AnnotatedScores.from_long,
        responses,
        frame,
        item=item,
        annotator=annotator,
        label=label,
        score=score,
        gold=gold,
        gold_weights=gold_weights,
        classes=classes,
        ordinal=ordinal,
        normalize=normalize,
    )
    if named_labels:
        truth_labels = _class_truth(scores_path, frame, truth, data.classes)
    if annotators is not None:  # the order asked for, not sorted order
        order = [data.annotator_names.index(name) for name in map(str, annotators)]
        data = replace(
            data,
            annotations=data.annotations[:, order],
            annotator_names=[data.annotator_names[j] for j in order],
        )
    unlabelled = v.as_choice(unlabelled, "unlabelled", UNLABELLED)
    return _labelled_table(scores_path, data, truth_labels, "annotator", unlabelled)


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes (hex), read in 1 MB blocks."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@old_spellings()
def read_json(path, *, hint: str = "") -> object:
    """A JSON file, with one-line errors for an absent file (``hint`` appended), bad JSON, or
    an object naming a key twice: JSON parsers keep the last value silently, so a priors file
    with two ``"flat"`` entries would change the reference prior without a word."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file{hint}")
    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique_keys(path))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from None


def _unique_keys(path: pathlib.Path):
    """A ``json.loads`` object hook that refuses a key named twice in one object."""

    def build(pairs: list) -> dict:
        keys = [key for key, _ in pairs]
        twice = sorted({key for key in keys if keys.count(key) > 1})
        if twice:
            raise ValueError(
                f"{path}: the key {twice[0]!r} appears twice in one object; "
                "JSON keeps only the last, so write each key once"
            )
        return dict(pairs)

    return build


# --- the dialect of a CSV file as users save them ------------------------------------------------
# Spreadsheets in many locales save ``;``-separated files with decimal commas, ``.tsv`` files
# are tab-separated, and older tools write Latin-1 (or UTF-8 with a byte-order mark).
# :func:`sniff` decides once, so that a table reads the same whatever saved it; it refuses what
# no choice makes a text table (NUL bytes: a binary file, or UTF-16) and a header naming a
# column twice (pandas would silently rename the second ``ann.1`` and the analysis would ignore
# it).

#: Separators tried, in the order that breaks ties.
SEPARATORS = (",", ";", "\t")
#: How much of the file the separator and decimal mark are decided on.
SAMPLE_BYTES = 1 << 16
#: A number written with a decimal comma (``0,3135``, ``-1,5e-3``).
DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
#: A number written with a decimal point.
DECIMAL_POINT = re.compile(r"[+-]?\d*\.\d+(?:[eE][+-]?\d+)?")


class CsvFormat(NamedTuple):
    """What :func:`pandas.read_csv` needs to read the file as written."""

    sep: str
    encoding: str
    #: the header's column names as written (a blank cell is ``""``)
    header: tuple[str, ...]
    #: ``","`` when a ``;``-separated file writes its numbers with decimal commas
    decimal: str = "."


def _encoding(path: pathlib.Path, sample: bytes) -> str:
    """UTF-8 (``utf-8-sig`` with a byte-order mark) when the whole file decodes as UTF-8,
    Latin-1 otherwise: one Latin-1 byte anywhere (an accented name on the last row) makes the
    file Latin-1, and every byte is a Latin-1 character."""
    # "utf-8-sig" drops a byte-order mark on reading and writes one back (so only when present)
    encoding = "utf-8-sig" if sample.startswith(codecs.BOM_UTF8) else "utf-8"
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                decoder.decode(block)  # incremental: a character cut between blocks is whole
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "latin-1"
    return encoding


def sniff(path: pathlib.Path) -> CsvFormat:
    """The separator, encoding, header and decimal mark of the CSV file ``path``.

    The encoding is decided on the whole file (:func:`_encoding`).  The separator is a tab for
    ``.tsv``, else the one of ``,``, ``;`` and tab that occurs most in the header line (a
    comma on a tie), counted in the first line that is not blank.  A ``;``-separated file whose
    first 64 KB hold numbers with decimal commas (``0,3135``) and none with a decimal point is
    read with decimal commas.

    Raises
    ------
    TableError
        The file is empty, holds NUL bytes, or its header names a column twice (both positions named).
    """
    with open(path, "rb") as file:
        sample = file.read(SAMPLE_BYTES)
    if b"\x00" in sample:
        raise TableError(
            f"{path}: not a text table (it holds NUL bytes: a binary file, or UTF-16 text); "
            "save it as CSV in UTF-8"
        )
    if not sample.strip():
        raise TableError(f"{path}: the file is empty; expected a header line and one row per item")
    encoding = _encoding(path, sample)
    text = codecs.getincrementaldecoder(encoding)().decode(sample, final=False)
    # the header is the first line with a cell (pandas skips blank lines), and lines end at
    # "\n" only: str.splitlines would also cut at U+0085, which is a Latin-1 character
    header = next((line for line in text.split("\n") if line.strip()), "")
    if path.suffix.lower() == ".tsv":
        sep = "\t"
    else:
        sep = max(SEPARATORS, key=lambda s: (header.count(s), -SEPARATORS.index(s)))
    rows = (row for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep) if row)
    names = next(rows, [])
    seen = {}
    for position, name in enumerate(names):
        if name in seen:
            raise TableError(
                f"{path}: the header names column {name!r} twice (columns {seen[name]} and "
                f"{position}, counting from 0); rename one"
            )
        seen[name] = position
    decimal = "."
    if sep == ";":
        cells = {cell.strip() for row in rows for cell in row}
        # decimal commas when numbers are written so and none with a decimal point (an id
        # "12,5" beside scores "0.25" is text, not a number)
        if any(map(DECIMAL_COMMA.fullmatch, cells)) and not any(
            map(DECIMAL_POINT.fullmatch, cells)
        ):
            decimal = ","
    return CsvFormat(sep, encoding, tuple(names), decimal)
