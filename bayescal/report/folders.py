"""Results folders: what ``bayescal fit``, ``recalibrate`` and ``sensitivity`` write, written
whole and safely, and a fit's folder read back for its report.

- Every file is written atomically (:func:`write_atomic`): to a temporary name in the same
  directory, then renamed into place, so an interrupted run never leaves a half-written file.
  JSON is strict (:func:`write_json` refuses NaN and infinity).
- A run writes into a fresh folder beside ``--out`` and swaps it in at the end
  (:func:`staged_output`), so an interrupted run leaves the old folder as it was and a folder
  never mixes the files of two runs.  An existing folder is replaced only with ``force``, and
  never one holding files bayescal does not write (:data:`RESULT_ENTRIES`) or the run's own
  input.  Every problem a run would meet only at its end (a file in the way, a place where no
  folder can be made) is found before any work (:func:`check_output`).
- A fit's folder holds ``summary.json`` (the numbers), ``posterior.nc`` (the channel
  posterior), ``report.html`` and ``figures/*.png``; :func:`render_report` redraws the report
  from the saved files alone, without refitting (``bayescal report DIR``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import pathlib
import shutil
import tempfile
import time
from typing import NamedTuple

from .._api import announce, old_spellings
from ..channels.label_posteriors import aggregated_labels
from ..data.tables import TABLE_SUFFIXES, TEXT_SUFFIXES, CsvFormat, read_json, sniff
from ..exceptions import TableError
from .class_report import class_report_html, draw_class_figures
from .class_summary import MULTICLASS_SUMMARY, ClassSummary
from .html_report import draw_figures, report_html
from .summary import Summary

__all__ = [
    "FIGURE_DIRECTORY",
    "POSTERIOR_FILE",
    "REPORT_FILE",
    "RESULT_ENTRIES",
    "SUMMARY_FILE",
    "Written",
    "abandon_staged_output",
    "check_output",
    "load_summary",
    "render_report",
    "staged_output",
    "write_analysis",
    "write_applied",
    "write_atomic",
    "write_json",
    "write_labels",
    "write_recalibration",
    "write_sensitivity",
    "write_table",
]


# --- files written atomically ------------------------------------------------------------------


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Read once at import: os.umask can only be read by setting it, which is not thread-safe.
UMASK = _current_umask()


def write_atomic(path, content) -> pathlib.Path:
    """Write text or bytes to ``path`` through a temporary file in the same directory and a rename,
    or, given a callable, call it with the temporary path (for writers that take a file name)."""
    path = pathlib.Path(path)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".partial"
    )
    os.close(handle)
    os.chmod(temporary, 0o666 & ~UMASK)  # mkstemp makes 0600; results are ordinary files
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
        raise ValueError(
            f"{path}: refusing to write NaN or infinity to JSON ({error}); report undefined values as null with a reason"
        ) from None
    return write_atomic(path, text + "\n")


def write_table(path, frame, *, like=None) -> pathlib.Path:
    """Write a DataFrame as CSV, TSV or Parquet (by the suffix of ``path``), atomically; a text
    table in the separator, encoding and decimal mark of the text table ``like`` when given
    (UTF-8 and the suffix's separator otherwise)."""
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TableError(
            f"{path}: expected a table ending in {', '.join(TABLE_SUFFIXES)}; saw {suffix or 'no suffix'!r}"
        )
    if suffix not in TEXT_SUFFIXES:
        return write_atomic(path, lambda temporary: frame.to_parquet(temporary, index=False))
    dialect = (
        sniff(pathlib.Path(like))
        if like is not None
        else CsvFormat("\t" if suffix == ".tsv" else ",", "utf-8", ())
    )
    return write_atomic(
        path,
        lambda temporary: frame.to_csv(
            temporary,
            index=False,
            sep=dialect.sep,
            encoding=dialect.encoding,
            decimal=dialect.decimal,  # a column added to a decimal-comma table writes like it
        ),
    )


# --- one run per folder -------------------------------------------------------------------------


#: What bayescal writes into a results folder: a folder holding anything else is never replaced.
RESULT_ENTRIES = frozenset(
    {"summary.json", "posterior.nc", "report.html", "figures", "map.json", "sensitivity.csv"}
    | {"sensitivity.json", "applied.json", "labels.json"}
    | {f"recalibrated{suffix}" for suffix in TABLE_SUFFIXES}
    | {f"labels{suffix}" for suffix in TABLE_SUFFIXES}
)


@old_spellings()
def check_output(
    path, *, force: bool = False, inputs=(), force_option: str = "force=True"
) -> pathlib.Path:
    """Refuse, before any work, a results folder that :func:`staged_output` could not write.

    Refused: a symbolic link; an existing ``path`` without ``force``; a file in its way; an
    existing folder holding entries bayescal does not write (:data:`RESULT_ENTRIES`; replacing
    it would delete them); a folder holding one of the run's ``inputs``; a place where no folder
    can be created (read-only, no permission).  ``force_option`` is how the messages name
    ``force`` to the caller: the keyword in Python, ``"--force"`` on the command line.
    """
    path = pathlib.Path(path)
    if path.is_symlink():  # replaced whole, a link would become a folder and leave its target
        raise FileExistsError(
            f"{path} is a symbolic link (to {os.readlink(path)}); a results folder is replaced "
            "whole, so give the folder itself"
        )
    if path.exists():
        if not path.is_dir():
            raise FileExistsError(f"{path} exists and is not a directory")
        if not force:
            raise FileExistsError(
                f"{path} already exists; choose another directory or pass {force_option} to replace it"
            )
        foreign = sorted(entry.name for entry in path.iterdir() if entry.name not in RESULT_ENTRIES)
        if foreign:
            raise FileExistsError(
                f"{path} holds {foreign[:3]}, which bayescal did not write; {force_option} replaces a "
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


#: Every staged_output of this process in flight: staging folder -> [results folder, the
#: folders its swap moved out of the way, oldest first], so that a Ctrl-C handler can undo them
#: before exiting.
_IN_FLIGHT: dict[pathlib.Path, list] = {}


def abandon_staged_output() -> None:
    """Undo every :func:`staged_output` in flight: remove its staging folder and, if a swap was
    half done, put the folder it last moved out of the way back.  For a handler that exits at
    once (``bayescal`` on Ctrl-C); never raises."""
    for staging, (path, moved) in list(_IN_FLIGHT.items()):
        _put_back(path, moved)
        shutil.rmtree(staging, ignore_errors=True)
        _IN_FLIGHT.pop(staging, None)


def _put_back(path: pathlib.Path, moved: list) -> None:
    """After a swap that did not finish: the last folder moved out of ``path`` goes back if
    ``path`` is empty; every other moved folder is removed.  Never raises."""
    for number, folder in enumerate(reversed(moved)):
        if number == 0 and not path.exists():
            with contextlib.suppress(OSError):  # left where it is, then, rather than lost
                os.rename(folder, path)
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _swap_in(staging: pathlib.Path, path: pathlib.Path, moved: list) -> None:
    """Put ``staging`` at ``path``, moving whatever is there out of the way into ``moved``.

    Two renames cannot replace a folder atomically, and another writer of ``path`` (a second
    ``fit --force``) can land between them: its folder then fills ``path`` again before ours
    (ENOTEMPTY), or empties it before we move it (ENOENT).  Each step is retried until ours is
    in place, so one of the writers' folders ends up whole, never a failure or a mix."""
    while True:
        try:
            os.rename(staging, path)  # onto nothing, or onto an empty folder
            return
        except OSError as error:
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        out_of_the_way = staging.with_suffix(f".old{len(moved)}")
        try:
            os.rename(path, out_of_the_way)
        except FileNotFoundError:
            continue  # the other writer moved it first
        moved.append(out_of_the_way)


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
    moved = []
    _IN_FLIGHT[staging] = [path, moved]
    try:
        yield staging
        try:
            _swap_in(staging, path, moved)
        except BaseException:
            _put_back(path, moved)
            raise
        for folder in moved:
            shutil.rmtree(folder, ignore_errors=True)
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OSError) and error.filename is None:
            # a full disk fails a write() with "[Errno 28] No space left on device", naming
            # no file: say which folder could not be written, and that nothing changed
            unnamed = OSError(
                f"{path}: could not write the results ({error.strerror or error}); "
                + ("the old folder is as it was" if path.exists() else "nothing was written")
            )
            unnamed.errno = error.errno
            raise unnamed from error
        raise
    finally:
        _IN_FLIGHT.pop(staging, None)


# --- what a run writes, and its report redrawn ---------------------------------------------------

SUMMARY_FILE = "summary.json"
POSTERIOR_FILE = "posterior.nc"
REPORT_FILE = "report.html"
FIGURE_DIRECTORY = "figures"


class Written(NamedTuple):
    """What :func:`write_analysis` wrote: the summary as written and the report's path."""

    summary: Summary
    report: pathlib.Path


def write_analysis(
    out,
    analysis,
    *,
    force: bool = False,
    input_record: dict | None = None,
    read_seconds=None,
    progress: bool = False,
) -> Written:
    """Write an :class:`~bayescal.app.Analysis` into the folder ``out``, whole.

    Writes ``posterior.nc`` (with the run's id, and the input's SHA-256 when known, as
    attributes), the report with its figures, and ``summary.json`` last (with ``input_record``
    as its ``input`` and the seconds of reading, when given, and of writing added to
    ``timings``), all into a fresh folder that then replaces ``out``
    (:func:`~bayescal.report.folders.staged_output`: an interrupted run leaves ``out`` as it was, and an
    existing ``out`` needs ``force``).  With ``progress``, each of the two writes says so as it
    starts.  Returns the summary as written and the report's path.
    """
    summary = analysis.summary
    if input_record is not None:
        summary = dataclasses.replace(summary, input=input_record)
    if read_seconds is not None:
        summary = dataclasses.replace(
            summary, timings={"read": round(read_seconds, 3), **summary.timings}
        )
    inputs = [] if input_record is None else [input_record.get("table"), input_record.get("scores")]
    run = {"run_id": summary.run.id}
    if input_record is not None and "sha256" in input_record:
        run["input_sha256"] = json.dumps(input_record["sha256"], sort_keys=True)
    out = pathlib.Path(out)
    with staged_output(out, force=force, inputs=inputs) as staging:
        start = time.perf_counter()
        announce(f"writing the posterior ({POSTERIOR_FILE})", progress)
        analysis.bayes_fit.save(staging / POSTERIOR_FILE, run=run)
        written = time.perf_counter()
        announce(f"drawing the figures and writing the report ({REPORT_FILE})", progress)
        # the report shows no timings: it is the same when re-rendered
        render_report(staging, summary=summary)
        summary = summary.with_timings(
            write_posterior=written - start, report=time.perf_counter() - written
        )
        write_json(staging / SUMMARY_FILE, summary.to_dict())
    return Written(summary, out / REPORT_FILE)


def load_summary(directory) -> Summary | ClassSummary:
    """``summary.json`` of a results folder (a :class:`Summary`, or a :class:`ClassSummary`
    for multi-class labels), with a one-line error when it is absent or broken."""
    path = pathlib.Path(directory) / SUMMARY_FILE
    document = read_json(path, hint=f"; is {directory} a directory written by bayescal fit?")
    multiclass = isinstance(document, dict) and document.get("kind") == MULTICLASS_SUMMARY
    try:
        return (ClassSummary if multiclass else Summary).from_dict(document)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}; re-run bayescal fit") from None


@old_spellings()
def render_report(directory, *, summary: Summary | ClassSummary | None = None) -> pathlib.Path:
    """Draw the figures and write ``report.html`` from ``summary.json`` and ``posterior.nc``.

    Parameters
    ----------
    directory : str or path
        A results folder of ``bayescal fit``.  Nothing is refitted; the figures go to
        ``directory/figures/*.png`` and inline into ``report.html``, each written atomically.
    summary : Summary or ClassSummary, optional
        The folder's summary when the caller holds it (``bayescal fit``, before writing
        summary.json); by default it is read from summary.json.

    Returns
    -------
    pathlib.Path
        The report's path.
    """
    from ..bayes.bayes_fit import BayesFit
    from ..bayes.class_fit import ClassBayesFit

    directory = pathlib.Path(directory)
    summary = load_summary(directory) if summary is None else summary
    _check_report_entries(directory)
    posterior = directory / POSTERIOR_FILE
    if not posterior.is_file():
        raise FileNotFoundError(
            f"{posterior}: no such file; the report needs the saved posterior of bayescal fit"
        )
    multiclass = isinstance(summary, ClassSummary)
    fit = (ClassBayesFit if multiclass else BayesFit).load(posterior)
    if summary.run is None:  # nothing ties the two files together: another fit's would draw
        raise ValueError(
            f"{directory / SUMMARY_FILE} records no run id, so {posterior} cannot be checked to "
            "be its fit's; re-run bayescal fit"
        )
    if fit.run.get("run_id") != summary.run.id:
        raise ValueError(
            f"{posterior} is from another run ({fit.run.get('run_id', 'no run id')}) than "
            f"{directory / SUMMARY_FILE} ({summary.run.id}); re-run bayescal fit"
        )
    figures = draw_class_figures(summary) if multiclass else draw_figures(summary, fit)
    (directory / FIGURE_DIRECTORY).mkdir(exist_ok=True)
    for name, png in figures.items():
        write_atomic(directory / FIGURE_DIRECTORY / f"{name}.png", png)
    document = (class_report_html if multiclass else report_html)(summary, figures)
    return write_atomic(directory / REPORT_FILE, document)


def _check_report_entries(directory: pathlib.Path) -> None:
    """Refuse, before any drawing, a file where the figures' folder goes or a folder where
    the report goes: the write would fail at the end with the system's bare error."""
    if (directory / FIGURE_DIRECTORY).exists() and not (directory / FIGURE_DIRECTORY).is_dir():
        raise FileExistsError(
            f"{directory / FIGURE_DIRECTORY} is a file; the report draws its figures in a "
            "folder of that name: move the file"
        )
    if (directory / REPORT_FILE).is_dir():
        raise IsADirectoryError(
            f"{directory / REPORT_FILE} is a folder; the report is written to a file of that "
            "name: move the folder"
        )


def check_new_column(table, column: str) -> None:
    """Refuse a ``table`` that already has ``column``, the name the recalibrated scores would
    take: writing them would replace the user's column without a word.  ``bayescal
    recalibrate`` calls it before any fit, :func:`write_recalibration` again before writing."""
    if column in table.frame.columns:
        raise TableError(
            f"{table.path}: the table already has a column {column!r}, where the recalibrated "
            "scores would go; rename it"
        )


def write_recalibration(
    out,
    table,
    fitted,
    channel_fit,
    column: str,
    input_record: dict,
    *,
    force=False,
    inputs=(),
    oracle: dict | None = None,
    held_out=None,
):
    """``bayescal recalibrate``'s folder, written whole (:func:`~bayescal.report.folders.staged_output`):
    ``map.json`` (the map, the channels it was fitted with, the input, the ``held_out`` check
    when there is one (:class:`~bayescal.recalibration.held_out.HeldOutCheck`), and with a
    truth column the ``oracle_ece`` before and after) and the input table with the
    recalibrated scores added as ``column``.  Returns the map document and the table's path."""
    check_new_column(table, column)
    document = {
        "map": fitted.to_dict(),
        "channels": {
            "estimator": channel_fit.method,
            "a": channel_fit.channels.a.tolist(),
            "b": channel_fit.channels.b.tolist(),
            "annotators": list(channel_fit.annotator_names),
            # the crowd's workers that share the pooled channel of the sparse workers
            "pooled": list(channel_fit.pooled),
        },
        "input": input_record,
        "output_column": column,
        **({} if held_out is None else {"held_out": held_out.to_record()}),
        **({} if oracle is None else {"oracle_ece": oracle}),
    }
    return document, _write_mapped(
        out, "map.json", document, table, fitted.predict(table.data.scores), column, force, inputs
    )


def write_applied(
    out, table, fitted, column: str, record: dict, *, force=False, inputs=()
) -> tuple[dict, pathlib.Path]:
    """``bayescal apply``'s folder, written whole: ``applied.json`` (``record``: the map and
    where it came from, the input table, the column) and the table ``table`` (a
    :class:`~bayescal.data.ScoreTable`) with the mapped scores added as ``column``.  Returns
    the document and the table's path."""
    check_new_column(table, column)
    document = {**record, "output_column": column}
    return document, _write_mapped(
        out, "applied.json", document, table, fitted.predict(table.scores), column, force, inputs
    )


def _write_mapped(out, record_name, document, table, mapped, column, force, inputs):
    """Stage ``record_name`` (``document``) and the item table with ``mapped`` as ``column``;
    the table's path in ``out``."""
    recalibrated = table.frame.assign(**{column: mapped})
    name = f"recalibrated{table.path.suffix.lower()}"
    out = pathlib.Path(out)
    with staged_output(out, force=force, inputs=inputs) as staging:
        write_json(staging / record_name, document)
        write_table(staging / name, recalibrated, like=table.path)
    return out / name


def write_labels(
    out, table, probability, record: dict, *, force=False
) -> tuple[dict, pathlib.Path]:
    """``bayescal labels``' folder, written whole: ``labels.<suffix>`` (one row per item of
    ``table``, a :class:`~bayescal.data.LabelTable`: its id, number of labels, gold label
    when the table has a gold column, ``p_positive`` = ``probability`` and the aggregated
    ``label``) and ``labels.json`` (``record`` with the item and gold counts).  Returns the
    document and the table's path."""
    import pandas as pd

    responses = table.responses
    columns = {table.item: table.items, "n_labels": responses.labels_per_item()}
    if responses.gold is not None:  # empty where an item has none
        columns["gold"] = pd.Series(responses.gold, dtype="Int8").mask(responses.gold < 0)
    columns |= {"p_positive": probability, "label": aggregated_labels(probability)}
    n_gold = 0 if responses.gold is None else int((responses.gold >= 0).sum())
    document = {**record, "n_items": responses.n_items, "n_gold": n_gold}
    name = f"labels{table.path.suffix.lower()}"
    out = pathlib.Path(out)
    with staged_output(out, force=force, inputs=[table.path]) as staging:
        write_json(staging / "labels.json", document)
        write_table(staging / name, pd.DataFrame(columns), like=table.path)
    return document, out / name


def write_sensitivity(
    out, result, model: str, why: str, *, force=False, inputs=(), oracle: float | None = None
) -> dict:
    """``bayescal sensitivity``'s folder: ``sensitivity.csv`` (the table) and ``sensitivity.json``
    (the table's rows with the model, its dependent pairs, the reference prior, the level, and
    with a truth column its ``oracle_ece``).  Returns the document (``out=None`` writes
    nothing)."""
    frame = result.table.reset_index()
    fit = next(iter(result.fits.values()))
    document = {
        "model": model,
        "why": why,
        "dependent": [f"{j} ~ {k}" for j, k in fit.dependent],
        "reference": result.reference,
        "level": result.level,
        "conclusion": result.conclusion(),
        "rows": json.loads(frame.to_json(orient="records")),
        **({} if oracle is None else {"oracle_ece": oracle}),
    }
    if out is not None:
        with staged_output(out, force=force, inputs=inputs) as staging:
            write_atomic(staging / "sensitivity.csv", frame.to_csv(index=False))
            write_json(staging / "sensitivity.json", document)
    return document
