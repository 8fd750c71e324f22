"""Results folders: what ``bayescal fit``, ``recalibrate`` and ``sensitivity`` write, and reading
a fit's folder back for its report.

A fit's folder holds ``summary.json`` (the numbers, README "summary.json"), ``posterior.nc``
(the channel posterior), ``report.html`` and ``figures/*.png``.  Every file is written
atomically (:func:`bayescal.io.write_atomic`); :func:`render_report` redraws the report from
the saved files alone, without refitting (``bayescal report DIR``).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import time
from typing import NamedTuple

from ._api import old_spellings
from .exceptions import TableError
from .folders import staged_output
from .io import read_json, write_atomic, write_json, write_table
from .report import draw_figures, report_html
from .summary import Summary

__all__ = [
    "FIGURE_DIRECTORY",
    "POSTERIOR_FILE",
    "REPORT_FILE",
    "SUMMARY_FILE",
    "Written",
    "load_summary",
    "render_report",
    "write_analysis",
    "write_recalibration",
    "write_sensitivity",
]

SUMMARY_FILE = "summary.json"
POSTERIOR_FILE = "posterior.nc"
REPORT_FILE = "report.html"
FIGURE_DIRECTORY = "figures"


class Written(NamedTuple):
    """What :func:`write_analysis` wrote: the summary as written and the report's path."""

    summary: Summary
    report: pathlib.Path


def write_analysis(
    out, analysis, *, force: bool = False, input_record: dict | None = None, read_seconds=None
) -> Written:
    """Write an :class:`~bayescal.analysis.Analysis` into the folder ``out``, whole.

    Writes ``posterior.nc`` (with the run's id, and the input's SHA-256 when known, as
    attributes), the report with its figures, and ``summary.json`` last (with ``input_record``
    as its ``input`` and the seconds of reading, when given, and of writing added to
    ``timings``), all into a fresh folder that then replaces ``out``
    (:func:`~bayescal.folders.staged_output`: an interrupted run leaves ``out`` as it was, and an
    existing ``out`` needs ``force``).  Returns the summary as written and the report's path.
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
        analysis.bayes_fit.save(staging / POSTERIOR_FILE, run=run)
        written = time.perf_counter()
        # the report shows no timings: it is the same when re-rendered
        render_report(staging, summary=summary)
        summary = summary.with_timings(
            write_posterior=written - start, report=time.perf_counter() - written
        )
        write_json(staging / SUMMARY_FILE, summary.to_dict())
    return Written(summary, out / REPORT_FILE)


def load_summary(directory) -> Summary:
    """``summary.json`` of a results folder, with a one-line error when it is absent or broken."""
    path = pathlib.Path(directory) / SUMMARY_FILE
    document = read_json(path, hint=f"; is {directory} a directory written by bayescal fit?")
    try:
        return Summary.from_dict(document)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}; re-run bayescal fit") from None


@old_spellings()
def render_report(directory, *, summary: Summary | None = None) -> pathlib.Path:
    """Draw the figures and write ``report.html`` from ``summary.json`` and ``posterior.nc``.

    Parameters
    ----------
    directory : str or path
        A results folder of ``bayescal fit``.  Nothing is refitted; the figures go to
        ``directory/figures/*.png`` and inline into ``report.html``, each written atomically.
    summary : Summary, optional
        The folder's summary when the caller holds it (``bayescal fit``, before writing
        summary.json); by default it is read from summary.json.

    Returns
    -------
    pathlib.Path
        The report's path.
    """
    from .bayes_fit import BayesFit

    directory = pathlib.Path(directory)
    summary = load_summary(directory) if summary is None else summary
    posterior = directory / POSTERIOR_FILE
    if not posterior.is_file():
        raise FileNotFoundError(
            f"{posterior}: no such file; the report needs the saved posterior of bayescal fit"
        )
    fit = BayesFit.load(posterior)
    if summary.run is not None and fit.run.get("run_id") != summary.run.id:
        raise ValueError(
            f"{posterior} is from another run ({fit.run.get('run_id', 'no run id')}) than "
            f"{directory / SUMMARY_FILE} ({summary.run.id}); re-run bayescal fit"
        )
    figures = draw_figures(summary, fit)
    (directory / FIGURE_DIRECTORY).mkdir(exist_ok=True)
    for name, png in figures.items():
        write_atomic(directory / FIGURE_DIRECTORY / f"{name}.png", png)
    return write_atomic(directory / REPORT_FILE, report_html(summary, figures))


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
    out, table, fitted, channel_fit, column: str, input_record: dict, *, force=False, inputs=()
):
    """``bayescal recalibrate``'s folder, written whole (:func:`~bayescal.folders.staged_output`):
    ``map.json`` (the map, the channels it was fitted with and the input) and the input table
    with the recalibrated scores added as ``column``.  Returns the map document and the
    table's path."""
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
    }
    recalibrated = table.frame.assign(**{column: fitted.predict(table.data.scores)})
    name = f"recalibrated{table.path.suffix.lower()}"
    out = pathlib.Path(out)
    with staged_output(out, force=force, inputs=inputs) as staging:
        write_json(staging / "map.json", document)
        write_table(staging / name, recalibrated, like=table.path)
    return document, out / name


def write_sensitivity(out, result, model: str, why: str, *, force=False, inputs=()) -> dict:
    """``bayescal sensitivity``'s folder: ``sensitivity.csv`` (the table) and ``sensitivity.json``
    (the table's rows with the model, its dependent pairs, the reference prior and the level).
    Returns the document
    (``out=None`` writes nothing)."""
    frame = result.table.reset_index()
    fit = next(iter(result.fits.values()))
    document = {
        "model": model,
        "why": why,
        "dependent": [f"{j} ~ {k}" for j, k in fit.dependent],
        "reference": result.reference,
        "level": result.level,
        "rows": json.loads(frame.to_json(orient="records")),
    }
    if out is not None:
        with staged_output(out, force=force, inputs=inputs) as staging:
            write_atomic(staging / "sensitivity.csv", frame.to_csv(index=False))
            write_json(staging / "sensitivity.json", document)
    return document
