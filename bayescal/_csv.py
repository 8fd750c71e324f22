"""The dialect of a CSV file as users save them: the separator, the text encoding, the header.

Spreadsheets in many locales save ``;``-separated files, ``.tsv`` files are tab-separated, and
older tools write Latin-1 (or UTF-8 with a byte-order mark).  :func:`sniff` reads the first
64 KB once and decides, so that a table reads the same whatever saved it; it refuses what no
choice makes a text table (NUL bytes: a binary file, or UTF-16) and a header naming a column
twice (pandas would silently rename the second ``ann.1`` and the analysis would ignore it).
"""

from __future__ import annotations

import codecs
import csv
import pathlib
from typing import NamedTuple

from .exceptions import TableError

__all__ = ["CsvFormat", "sniff"]

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
