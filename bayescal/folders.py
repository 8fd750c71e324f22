"""Results folders: each holds one run, is written whole, and never holds the run's input.

A run writes into a fresh folder beside ``--out`` and swaps it in at the end
(:func:`staged_output`), so an interrupted run leaves the old folder as it was and a folder never
mixes the files of two runs.  An existing folder is replaced only with ``force``, and never one
holding files bayescal does not write (:data:`RESULT_ENTRIES`) or the run's own input.  Every
problem a run would meet only at its end (a file in the way, a place where no folder can be
made) is found before any work (:func:`check_output`).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import tempfile

from ._api import old_spellings
from .io import TABLE_SUFFIXES, UMASK

__all__ = ["RESULT_ENTRIES", "abandon_staged_output", "check_output", "staged_output"]

#: What bayescal writes into a results folder: a folder holding anything else is never replaced.
RESULT_ENTRIES = frozenset(
    {"summary.json", "posterior.nc", "report.html", "figures", "map.json", "sensitivity.csv"}
    | {"sensitivity.json"}
    | {f"recalibrated{suffix}" for suffix in TABLE_SUFFIXES}
)


@old_spellings()
def check_output(path, *, force: bool = False, inputs=()) -> pathlib.Path:
    """Refuse, before any work, a results folder that :func:`staged_output` could not write.

    Refused: an existing ``path`` without ``force``; a file in its way; an existing folder
    holding entries bayescal does not write (:data:`RESULT_ENTRIES`; replacing it would delete
    them); a folder holding one of the run's ``inputs``; a place where no folder can be created
    (read-only, no permission).
    """
    path = pathlib.Path(path)
    if path.exists():
        if not path.is_dir():
            raise FileExistsError(f"{path} exists and is not a directory")
        if not force:
            raise FileExistsError(
                f"{path} already exists; choose another directory or pass --force to replace it"
            )
        foreign = sorted(entry.name for entry in path.iterdir() if entry.name not in RESULT_ENTRIES)
        if foreign:
            raise FileExistsError(
                f"{path} holds {foreign[:3]}, which bayescal did not write; --force replaces a "
                "results folder whole, so choose another directory"
            )
    resolved = path.resolve()
    for source in inputs:
        if source is not None and resolved in pathlib.Path(source).resolve().parents:
            raise ValueError(
                f"{path} holds the input {source}; a results folder is replaced whole and the "
                "input is never written, so choose another directory"
            )
    parent = next(p for p in resolved.parents if p.exists())
    try:
        tempfile.TemporaryDirectory(dir=parent).cleanup()
    except OSError as error:
        raise PermissionError(
            f"{path}: cannot create a folder in {parent} ({error.strerror}); choose another directory"
        ) from None
    return path


#: Every staged_output of this process in flight: staging folder -> [results folder, old folder
#: while it is swapped out, else None], so that a Ctrl-C handler can undo them before exiting.
_IN_FLIGHT: dict[pathlib.Path, list] = {}


def abandon_staged_output() -> None:
    """Undo every :func:`staged_output` in flight: remove its staging folder and, if a swap was
    half done, put the old folder back.  For a handler that exits at once (``bayescal`` on
    Ctrl-C); never raises."""
    for staging, (path, old) in list(_IN_FLIGHT.items()):
        if old is not None and old.exists():
            if path.exists():  # the swap was done: the new folder stays
                shutil.rmtree(old, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.rename(old, path)
        shutil.rmtree(staging, ignore_errors=True)
        _IN_FLIGHT.pop(staging, None)


@contextlib.contextmanager
def staged_output(path, *, force: bool = False, inputs=()):
    """Write a results folder whole: yields a fresh, empty folder beside ``path``; when the block
    ends it replaces ``path`` (an old folder is removed), and on any error or interrupt it is
    removed and ``path`` is left as it was.  Checks as :func:`check_output` first."""
    path = check_output(path, force=force, inputs=inputs)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(
        tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    )
    os.chmod(staging, 0o777 & ~UMASK)  # mkdtemp makes 0700; results are ordinary folders
    state = _IN_FLIGHT[staging] = [path, None]
    try:
        yield staging
        if path.exists():
            state[1] = old = staging.with_suffix(".old")
            os.rename(path, old)
            try:
                os.rename(staging, path)
            except BaseException:
                os.rename(old, path)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        _IN_FLIGHT.pop(staging, None)
