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
import json
import pathlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _validation as v
from .._api import Result, old_spellings
from ..exceptions import TableError
from .annotated_scores import AnnotatedScores

__all__ = ["Table", "file_sha256", "read_json", "read_long_tables", "read_wide_table"]


#: File suffixes understood by :func:`read_wide_table`.
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
#: Of those, the text tables.
TEXT_SUFFIXES = (".csv", ".tsv")
#: What a reader does with an item no annotator labelled.
UNLABELLED = ("refuse", "keep")


def _read(path: pathlib.Path, text_columns=(), *, all_text: bool = False):
    """The table at ``path``; in a text table the ``text_columns`` (ids) are read as text, and
    with ``all_text`` every cell is (empty cells as ``""``)."""
    import pandas as pd

    if not path.is_file():
        raise TableError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TableError(
            f"{path}: expected a table ending in {', '.join(TABLE_SUFFIXES)}; saw {suffix or 'no suffix'!r}"
        )
    try:
        if suffix not in TEXT_SUFFIXES:
            return pd.read_parquet(path)
        dialect = sniff(path)
        options = (
            {"dtype": str, "keep_default_na": False}
            if all_text
            else {"dtype": dict.fromkeys(text_columns, str)}
        )
        return pd.read_csv(path, sep=dialect.sep, encoding=dialect.encoding, **options)
    except TableError:
        raise
    except Exception as error:  # the parsers raise many types; the user needs the reason, once
        raise TableError(
            f"{path}: cannot be read as {suffix[1:].upper()} ({type(error).__name__}: {error})"
        ) from None


def _first_bad_row(frame, column: str, allowed=None) -> tuple[int, object] | None:
    """The first row whose value is not a number (or not in ``allowed``), and that value."""
    import pandas as pd

    raw = frame[column]
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
    """

    data: AnnotatedScores
    truth: np.ndarray | None
    path: pathlib.Path

    @functools.cached_property
    def frame(self):
        return _read(self.path, all_text=True)


def _require_columns(path: pathlib.Path, frame, wanted) -> None:
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise TableError(
            f"{path}: no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})"
        )
    if len(frame) == 0:
        raise TableError(f"{path}: the table has no rows")


def _check_values(path: pathlib.Path, frame, checks) -> None:
    """Every (column, allowed values or None for any number, what was expected) holds."""
    for column, allowed, expected in checks:
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


def _item_columns(path: pathlib.Path, frame, score: str, truth: str | None) -> np.ndarray | None:
    """Check the score column (numbers in [0, 1], no gap) and the truth column (0/1, no gap);
    return the truth labels."""
    checks = [(score, None, "a number")] + (
        [(truth, (0, 1), "0 or 1")] if truth is not None else []
    )
    _check_values(path, frame, checks)
    _check_filled(path, frame, [column for column, _, _ in checks])
    scores = frame[score].to_numpy(dtype=np.float64)
    outside = (scores < 0) | (scores > 1)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise TableError(
            f"{path}: column {score!r}, row {row}: expected a score in [0, 1]; saw {float(scores[row])!r}"
        )
    return None if truth is None else frame[truth].to_numpy(dtype=np.int64)


def _check_labelled(
    path: pathlib.Path, data: AnnotatedScores, where: str, unlabelled: str = "refuse"
) -> None:
    """Every annotator gave a label and, unless ``unlabelled="keep"``, every item got one."""
    observed = data.annotations != -1
    for j in np.flatnonzero(~observed.any(axis=0)):
        raise TableError(
            f"{path}: {where} {data.annotator_names[j]!r}: the annotator gave no label at all; drop it"
        )
    rows = ~observed.any(axis=1)
    if unlabelled == "refuse" and rows.any():
        raise TableError(
            f"{path}: row {int(np.flatnonzero(rows)[0])}: no annotator labelled this item; drop the row"
        )


@old_spellings()
def read_wide_table(
    path, *, score, annotators, groups=None, truth=None, unlabelled="refuse"
) -> Table:
    """Read a CSV or Parquet table with one row per item.

    Parameters
    ----------
    path : str or path
    score : str
        Column of the predictor's scores, numbers in [0, 1].
    annotators : sequence of str
        One column per annotator: 0, 1 or empty.
    groups : str, optional
        Column of score-group ids.
    truth : str, optional
        Column of true 0/1 labels (for the oracle ECE of a simulation or an audited set).
    unlabelled : {"refuse", "keep"}, default "refuse"
        An item no annotator labelled is refused (nothing estimates its class), or kept (for
        ``bayescal recalibrate``, which fits on the labelled items and maps every score).

    Returns
    -------
    Table

    Raises
    ------
    TableError
        Missing columns, non-numeric scores, labels other than 0/1/empty, an annotator column
        with no label at all, or scores outside [0, 1]: one line naming the column and the
        (0-based data) row.
    """
    path = pathlib.Path(path)
    frame = _read(path)
    annotators = list(annotators)
    v.check_column_roles(
        {"score": score, "annotator": annotators, "groups": groups, "truth": truth}
    )
    _require_columns(
        path, frame, [score, *annotators, *(c for c in (groups, truth) if c is not None)]
    )
    _check_values(path, frame, [(name, (0, 1), "0, 1 or empty") for name in annotators])
    labels = _item_columns(path, frame, score, truth)
    try:
        data = AnnotatedScores.from_frame(frame, score=score, annotators=annotators, groups=groups)
    except (TypeError, ValueError) as error:
        raise TableError(f"{path}: {error}") from None
    _check_labelled(path, data, "column", v.as_choice(unlabelled, "unlabelled", UNLABELLED))
    return Table(data, labels, path)


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
    unlabelled="refuse",
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
    unlabelled : {"refuse", "keep"}, default "refuse"
        As in :func:`read_wide_table`: an item of the score table without any label.

    Returns
    -------
    Table
        ``frame`` is the score table.

    Raises
    ------
    TableError
        As :func:`read_wide_table`, and for an item listed twice in the score table, an
        (item, annotator) pair labelled twice, or a label whose item has no score.
    """
    labels_path, scores_path = pathlib.Path(labels_path), pathlib.Path(scores_path)
    # ids join as text: "0001" in one table is not "1" in the other
    responses, frame = _read(labels_path, [item]), _read(scores_path, [item])
    _require_columns(labels_path, responses, [item, annotator, label])
    _require_columns(scores_path, frame, [item, score, *(c for c in (truth,) if c is not None)])
    _check_values(labels_path, responses, [(label, (0, 1), "0, 1 or empty")])
    _check_filled(labels_path, responses, [item, annotator])
    _first_duplicate(scores_path, frame, [item], "item id")
    _first_duplicate(labels_path, responses, [item, annotator], "(item, annotator) pair")
    unknown = ~responses[item].isin(frame[item]).to_numpy()
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise TableError(
            f"{labels_path}: column {item!r}, row {row}: item {responses[item].iloc[row]!r} has no row in {scores_path}"
        )
    who = responses[annotator].astype(str)
    labelled = responses[label].notna().groupby(who, sort=False).any()
    if not labelled.all():
        name = labelled.index[~labelled.to_numpy()][0]
        row = int(np.flatnonzero(who.eq(name).to_numpy())[0])
        raise TableError(
            f"{labels_path}: column {label!r}, row {row}: annotator {name!r} gave no label at all (every label is empty); drop the annotator"
        )
    if annotators is not None:
        annotators = list(annotators)
        absent = [name for name in annotators if not who.eq(str(name)).any()]
        if absent:
            raise TableError(
                f"{labels_path}: column {annotator!r}: no response from annotator {absent[0]!r}"
            )
        responses = responses[who.isin([str(name) for name in annotators])]
    truth_labels = _item_columns(scores_path, frame, score, truth)
    data = AnnotatedScores.from_long(
        responses, frame, item=item, annotator=annotator, label=label, score=score
    )
    if annotators is not None:  # the order asked for, not sorted order
        order = [data.annotator_names.index(name) for name in map(str, annotators)]
        data = AnnotatedScores(
            data.scores,
            data.annotations[:, order],
            annotator_names=[data.annotator_names[j] for j in order],
        )
    _check_labelled(
        scores_path, data, "annotator", v.as_choice(unlabelled, "unlabelled", UNLABELLED)
    )
    return Table(data, truth_labels, scores_path)


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
# Spreadsheets in many locales save ``;``-separated files, ``.tsv`` files are tab-separated, and
# older tools write Latin-1 (or UTF-8 with a byte-order mark).  :func:`sniff` reads the first
# 64 KB once and decides, so that a table reads the same whatever saved it; it refuses what no
# choice makes a text table (NUL bytes: a binary file, or UTF-16) and a header naming a column
# twice (pandas would silently rename the second ``ann.1`` and the analysis would ignore it).

#: Separators tried, in the order that breaks ties.
SEPARATORS = (",", ";", "\t")
#: How much of the file the decision reads.
SAMPLE_BYTES = 1 << 16


class CsvFormat(NamedTuple):
    """What :func:`pandas.read_csv` needs to read the file: ``sep`` and ``encoding``."""

    sep: str
    encoding: str


def sniff(path: pathlib.Path) -> CsvFormat:
    """The separator and encoding of the CSV file ``path``, its header checked.

    UTF-8 (with or without a byte-order mark) when the first 64 KB decode as UTF-8, Latin-1
    otherwise (every byte is a Latin-1 character).  The separator is a tab for ``.tsv``, else
    the one of ``,``, ``;`` and tab that occurs most in the header line (a comma on a tie).

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
    # "utf-8-sig" drops a byte-order mark on reading and writes one back (so only when present)
    encoding = "utf-8-sig" if sample.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        # incremental: a character cut by the end of the sample is not an error
        text = codecs.getincrementaldecoder(encoding)().decode(sample, final=False)
    except UnicodeDecodeError:
        text, encoding = sample.decode("latin-1"), "latin-1"
    header = text.splitlines()[0] if text else ""
    if path.suffix.lower() == ".tsv":
        sep = "\t"
    else:
        sep = max(SEPARATORS, key=lambda s: (header.count(s), -SEPARATORS.index(s)))
    names = next(csv.reader([header], delimiter=sep), [])
    seen = {}
    for position, name in enumerate(names):
        if name in seen:
            raise TableError(
                f"{path}: the header names column {name!r} twice (columns {seen[name]} and "
                f"{position}, counting from 0); rename one"
            )
        seen[name] = position
    return CsvFormat(sep, encoding)
