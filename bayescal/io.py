"""Reading tables and writing results safely (issue 9, "Files and safety").

- Tables are CSV or Parquet, chosen by the file suffix, one row per item (wide format).  A bad
  table raises :class:`TableError` with one line naming the file, the column and the row; the
  input file is only ever read.
- Results are written atomically: each file goes to a temporary name in the same directory and
  is renamed into place, so an interrupted run never leaves a half-written file.
- An output directory that already exists is refused unless ``force=True``.
- JSON is strict: NaN or infinity is refused (an undefined quantity is ``null`` with a reason,
  decided by the caller), so what bayescal writes any JSON reader can read.
"""

from __future__ import annotations

import json
import os
import pathlib
import tempfile

import numpy as np

from .data import AnnotatedScores

__all__ = ["TableError", "prepare_output", "read_wide_table", "write_atomic", "write_json"]

#: File suffixes understood by :func:`read_wide_table`.
TABLE_SUFFIXES = (".csv", ".parquet", ".pq")


class TableError(ValueError):
    """A table bayescal cannot use; the message is one line naming the column and row."""


def _read(path: pathlib.Path):
    import pandas as pd

    if not path.is_file():
        raise TableError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TableError(f"{path}: expected a table ending in {', '.join(TABLE_SUFFIXES)}; saw {suffix or 'no suffix'!r}")
    try:
        return pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
    except Exception as error:  # the parsers raise many types; the user needs the reason, once
        raise TableError(f"{path}: cannot be read as {suffix[1:].upper()} ({type(error).__name__}: {error})") from None


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


def read_wide_table(path, score, annotators, groups=None, truth=None):
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

    Returns
    -------
    (AnnotatedScores, ndarray or None)
        The data, and the truth column if asked for.

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
    wanted = [score, *annotators, *(c for c in (groups, truth) if c is not None)]
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise TableError(f"{path}: no column {missing[0]!r} (columns: {', '.join(map(str, frame.columns))})")
    if len(frame) == 0:
        raise TableError(f"{path}: the table has no rows")
    checks = [(score, None, "a number"), *((name, (0, 1), "0, 1 or empty") for name in annotators)]
    if truth is not None:
        checks.append((truth, (0, 1), "0 or 1"))
    for column, allowed, expected in checks:
        found = _first_bad_row(frame, column, allowed)
        if found is not None:
            raise TableError(f"{path}: column {column!r}, row {found[0]}: expected {expected}; saw {found[1]!r}")
    for column in (score, *(c for c in (truth,) if c is not None)):
        empty = frame[column].isna().to_numpy()
        if empty.any():
            raise TableError(f"{path}: column {column!r}, row {int(np.flatnonzero(empty)[0])}: expected a value; saw an empty cell")
    for name in annotators:
        if frame[name].isna().all():
            raise TableError(f"{path}: column {name!r}: the annotator gave no label at all; drop the column")
    scores = frame[score].to_numpy(dtype=np.float64)
    outside = (scores < 0) | (scores > 1)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise TableError(f"{path}: column {score!r}, row {row}: expected a score in [0, 1]; saw {float(scores[row])!r}")
    unlabelled = frame[annotators].isna().all(axis=1).to_numpy()
    if unlabelled.any():
        raise TableError(f"{path}: row {int(np.flatnonzero(unlabelled)[0])}: no annotator labelled this item; drop the row")
    try:
        data = AnnotatedScores.from_frame(frame, score=score, annotators=annotators, groups=groups)
    except (TypeError, ValueError) as error:
        raise TableError(f"{path}: {error}") from None
    labels = None if truth is None else frame[truth].to_numpy(dtype=np.int64)
    return data, labels


def prepare_output(path, force=False) -> pathlib.Path:
    """Create the output directory; an existing one is refused unless ``force`` (then reused)."""
    path = pathlib.Path(path)
    if path.exists():
        if not path.is_dir():
            raise FileExistsError(f"{path} exists and is not a directory")
        if not force:
            raise FileExistsError(f"{path} already exists; choose another directory or pass --force to overwrite its files")
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_atomic(path, content) -> pathlib.Path:
    """Write text or bytes to ``path`` through a temporary file in the same directory and a rename,
    or, given a callable, call it with the temporary path (for writers that take a file name)."""
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    os.close(handle)
    try:
        if callable(content):
            content(temporary)
        elif isinstance(content, bytes):
            pathlib.Path(temporary).write_bytes(content)
        else:
            pathlib.Path(temporary).write_text(content, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise
    return path


def write_json(path, document) -> pathlib.Path:
    """Strict JSON (no NaN or infinity), written atomically."""
    try:
        text = json.dumps(document, indent=2, allow_nan=False)
    except ValueError as error:
        raise ValueError(f"{path}: refusing to write NaN or infinity to JSON ({error}); report undefined values as null with a reason") from None
    return write_atomic(path, text + "\n")
