"""The ``bayescal`` command.  This is the only module that reads ``argv``.

Commands
--------
``bayescal fit TABLE --score COL --annotators A,B,... --out DIR``
    Fit a table's annotators and report naive ECE, NC-ECE with an interval and the model
    checks; writes DIR/summary.json (README: "summary.json"), DIR/posterior.nc, DIR/report.html
    and DIR/figures/*.png.  ``--long --scores FILE`` reads one row per response instead.
``bayescal report DIR``
    Re-render the report from summary.json and posterior.nc, without refitting.
``bayescal recalibrate TABLE ... --method M --out DIR``
    Fit a map to EM-corrected labels; write its parameters and the recalibrated table.
``bayescal sensitivity TABLE ... --priors FILE``
    Refit under named priors and tabulate how the posterior moves.
``bayescal demo``
    Simulate the paper's toy data (§6.1) and compare the predictor's clean-label ECE with the
    naive noisy-label ECEs and the noise-corrected ECE with true and with estimated channels;
    check the Bayesian fit against the annotations; recalibrate the predictor by Platt scaling
    fitted to naive and to corrected labels (paper §5); then run ``fit`` on the simulated table
    and end with the path of its report.

Errors are one line on standard error and exit status 2 (``--debug`` shows the traceback);
warnings are one line each.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
import time
import warnings

import numpy as np

from . import __version__
from .channels import SaturatedModelWarning, score_groups
from .correction import majority_vote_ece, nc_ece, noise_corrected_ece, soft_vote_ece
from .data import AnnotatedScores
from .metrics import expected_calibration_error
from .pipeline import MODEL_CHOICES
from .recalibration import METHODS, recalibration_study
from .simulate import TOY_CONDITIONS, toy_data

DEMO_EXAMPLE = "example: bayescal demo --condition shifted --n 8000 --seed 0"
FIT_EXAMPLE = "example: bayescal fit examples/judged.csv --score score --annotators ann,bob,cy,dee --out results"
REPORT_EXAMPLE = "example: bayescal report results"
RECALIBRATE_EXAMPLE = "example: bayescal recalibrate examples/judged.csv --score score --annotators ann,bob,cy,dee --method platt --out recalibrated"
SENSITIVITY_EXAMPLE = "example: bayescal sensitivity examples/judged.csv --score score --annotators ann,bob,cy,dee --priors examples/priors.json"
LONG_HELP = "with --long, TABLE holds one row per response (columns --item, --annotator, --label) and --scores names the table of item scores"


def _integer_argument(minimum: int, allow_auto: bool = False):
    """argparse type: an integer >= minimum (or the word 'auto' when allowed)."""
    expected = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}"
    ) + (" or 'auto'" if allow_auto else "")

    def parse(text: str) -> int | str:
        if allow_auto and text == "auto":
            return text
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}; saw {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {expected}; saw {value}")
        return value

    return parse


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated column names; saw {text!r}")
    return names


def _thresholds(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers in (0, 1); saw {text!r}"
        ) from None


def _table_arguments(command: argparse.ArgumentParser) -> None:
    """The input table, its columns and the run options shared by fit, recalibrate and sensitivity."""
    command.add_argument(
        "table", help="CSV or Parquet file, one row per item (or per response with --long)"
    )
    command.add_argument(
        "--score", required=True, help="column of the predictor's scores in [0, 1]"
    )
    command.add_argument(
        "--annotators",
        type=_names,
        help="comma-separated annotator columns (wide format; with --long: which annotators to keep)",
    )
    command.add_argument(
        "--truth", help="column of true 0/1 labels, if known (oracle ECE; never used for fitting)"
    )
    long = command.add_argument_group("long format", LONG_HELP)
    long.add_argument("--long", action="store_true", help="TABLE is in long format")
    long.add_argument(
        "--scores",
        help="CSV or Parquet table of the items: --item and --score columns (and --truth)",
    )
    long.add_argument("--item", default="item", help="item id column (default: item)")
    long.add_argument(
        "--annotator", default="annotator", help="annotator column (default: annotator)"
    )
    long.add_argument("--label", default="label", help="label column, 0/1/empty (default: label)")
    grouping = command.add_mutually_exclusive_group()
    grouping.add_argument(
        "--groups",
        type=_integer_argument(2),
        help="number of equal-width score groups (Hui–Walter)",
    )
    grouping.add_argument(
        "--thresholds", type=_thresholds, help="comma-separated score cut points of the groups"
    )
    command.add_argument(
        "--seed", type=_integer_argument(0), default=0, help="random seed (default: 0)"
    )
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.add_argument(
        "--json",
        action="store_true",
        help="print the machine-readable result on stdout instead of the text summary",
    )
    command.add_argument("--debug", action="store_true", help="show the traceback of an error")


def _sampler_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--model",
        choices=MODEL_CHOICES,
        default="auto",
        help="Bayesian model (default: auto = Dawid–Skene for 3+ annotators, Hui–Walter for 2)",
    )
    command.add_argument(
        "--n-bins",
        type=_integer_argument(1, allow_auto=True),
        default=10,
        help="equal-width evaluation bins (default: 10)",
    )
    command.add_argument(
        "--chains", type=_integer_argument(1), default=4, help="NUTS chains (default: 4)"
    )
    command.add_argument(
        "--warmup",
        type=_integer_argument(1),
        default=1000,
        help="warm-up iterations per chain (default: 1000)",
    )
    command.add_argument(
        "--samples", type=_integer_argument(1), default=1000, help="draws per chain (default: 1000)"
    )


def _output_arguments(command: argparse.ArgumentParser, required: bool = True) -> None:
    command.add_argument(
        "--out", required=required, help="output directory (must not exist unless --force)"
    )
    command.add_argument(
        "--force", action="store_true", help="write into an existing output directory"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayescal",
        description="Calibration of a binary predictor judged by several noisy annotators.",
    )
    parser.add_argument("--version", action="version", version=f"bayescal {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = commands.add_parser(
        "demo",
        help="simulate the paper's toy data, compare naive ECE with noise-corrected ECE, write a report",
        description=(
            "Simulate the toy data of paper §6.1 (three annotators with known channels) and print the "
            "predictor's ECE against the true labels, against naive soft and majority votes, and the "
            "noise-corrected ECE (NC-ECE) computed from the noisy labels with the true channels and "
            "with channels estimated from the same labels by grouped EM; then fit the simulated table as "
            "bayescal fit would and write its report."
        ),
        epilog=DEMO_EXAMPLE,
    )
    demo.add_argument(
        "--condition",
        choices=TOY_CONDITIONS,
        default="shifted",
        help="calibration condition (default: shifted)",
    )
    demo.add_argument(
        "--n", type=_integer_argument(1), default=8000, help="number of items (default: 8000)"
    )
    demo.add_argument(
        "--seed", type=_integer_argument(0), default=0, help="random seed (default: 0)"
    )
    demo.add_argument(
        "--n-bins",
        type=_integer_argument(1, allow_auto=True),
        default=10,
        help="equal-width evaluation bins, or 'auto' = round(n^(1/3)) (default: 10, as in the paper)",
    )
    demo.add_argument(
        "--no-bayes", action="store_true", help="skip the Bayesian fit and the report (quicker)"
    )
    demo.add_argument(
        "--out",
        default="bayescal-demo",
        help="directory of the demo's table and report; its files are rewritten on every run (default: bayescal-demo)",
    )

    fit = commands.add_parser(
        "fit",
        help="fit the annotators of a table and report ECE with credible intervals",
        description=(
            "Read a CSV or Parquet table with one row per item (a score column and one 0/1 column per "
            "annotator, empty = no label), estimate the annotators' channels (EM and the Bayesian model), "
            "and report the naive ECE, the noise-corrected ECE (frequentist, and posterior median with its "
            "interval) and the model checks. Writes DIR/summary.json, DIR/posterior.nc, DIR/report.html "
            "and DIR/figures/*.png."
        ),
        epilog=FIT_EXAMPLE,
    )
    _table_arguments(fit)
    _sampler_arguments(fit)
    fit.add_argument(
        "--prior",
        help='JSON file of Beta priors, e.g. {"sensitivity": [8, 2]} (keys false_positive, sensitivity, prevalence; default flat)',
    )
    _output_arguments(fit)

    report = commands.add_parser(
        "report",
        help="re-render report.html of a fit's results directory without refitting",
        description="Redraw the figures and rewrite DIR/report.html from DIR/summary.json and DIR/posterior.nc.",
        epilog=REPORT_EXAMPLE,
    )
    report.add_argument("directory", help="results directory written by bayescal fit")
    report.add_argument("--debug", action="store_true", help="show the traceback of an error")

    recalibrate = commands.add_parser(
        "recalibrate",
        help="fit a recalibration map to noise-corrected labels and write recalibrated scores",
        description=(
            "Estimate the annotators' channels by EM (Dawid–Skene for 3+ annotators, grouped EM on score "
            "groups for 2), fit the map to the noise-corrected labels (paper §5), and write DIR/map.json "
            "(its parameters) and DIR/recalibrated.<csv|parquet>: the input item table with one added "
            "column, <score>_recalibrated."
        ),
        epilog=RECALIBRATE_EXAMPLE,
    )
    _table_arguments(recalibrate)
    recalibrate.add_argument(
        "--method", choices=METHODS, default="platt", help="recalibration map (default: platt)"
    )
    recalibrate.add_argument(
        "--n-bins",
        type=_integer_argument(1, allow_auto=True),
        default=10,
        help="bins of the histogram map (default: 10)",
    )
    _output_arguments(recalibrate)

    sensitivity = commands.add_parser(
        "sensitivity",
        help="refit under several priors and tabulate how the posterior moves",
        description=(
            'Fit the Bayesian model once per prior in a JSON file of named priors, e.g. {"flat": {}, '
            '"expert": {"sensitivity": [8, 2]}} (the first is the reference), and print each quantity\'s '
            "posterior mean, interval and shift from the reference (in reference sd). With --out, also "
            "writes DIR/sensitivity.csv and DIR/sensitivity.json."
        ),
        epilog=SENSITIVITY_EXAMPLE,
    )
    _table_arguments(sensitivity)
    _sampler_arguments(sensitivity)
    sensitivity.add_argument("--priors", required=True, help="JSON file of named priors")
    _output_arguments(sensitivity, required=False)
    return parser


def _read_input(args):
    """The Table of the command's arguments (wide, or long with --scores), with score groups."""
    from .io import read_long_tables, read_wide_table

    if args.long:
        if args.scores is None:
            raise ValueError("--long needs --scores, the table of item scores")
        table = read_long_tables(
            args.table,
            args.scores,
            args.score,
            item=args.item,
            annotator=args.annotator,
            label=args.label,
            annotators=args.annotators,
            truth=args.truth,
        )
    else:
        if args.annotators is None:
            raise ValueError(
                "--annotators is required for a wide table (or pass --long with --scores)"
            )
        if args.scores is not None:
            raise ValueError("--scores is only for --long tables")
        table = read_wide_table(args.table, args.score, args.annotators, truth=args.truth)
    if args.groups is not None or args.thresholds is not None:
        data = table.data
        groups = score_groups(data.scores, thresholds=args.thresholds, n_groups=args.groups)
        table = dataclasses.replace(
            table,
            data=AnnotatedScores(
                data.scores, data.annotations, groups=groups, annotator_names=data.annotator_names
            ),
        )
    return table


def _output_directory(args) -> pathlib.Path | None:
    """Refuse an existing --out before any work (not after a long fit)."""
    from .io import prepare_output

    if args.out is None:
        return None
    out = pathlib.Path(args.out)
    if out.exists() and not args.force:
        prepare_output(out)
    return out


def _progress(args) -> bool:
    return not args.quiet and sys.stderr.isatty()


def _bayes_options(args) -> dict:
    return {"num_chains": args.chains, "num_warmup": args.warmup, "num_samples": args.samples}


def _input_record(args) -> dict:
    return {
        "table": str(args.table),
        "scores": args.scores,
        "score": args.score,
        "annotators": args.annotators,
        "truth": args.truth,
        "long": args.long,
    }


def fit_text(summary: dict, checks: bool = True) -> list[str]:
    """The text summary of a fit (also the end of the demo, which prints its checks before)."""
    ece = summary["ece"]
    frequentist = ece["nc_ece"]["frequentist"]
    posterior = ece["nc_ece"]["posterior"]
    lines = [
        f"{summary['data']['n_items']} items, annotators {', '.join(summary['data']['annotators'])}; model {summary['model']['name']} ({summary['model']['why']})",
        f"identification: {summary['identification']['status']}",
        f"  naive ECE (soft vote)         {ece['naive']['soft_vote']:.4f}",
        f"  naive ECE (majority vote)     {ece['naive']['majority_vote']:.4f}",
        "  NC-ECE (EM channels)          "
        + (
            f"{frequentist['value']:.4f}"
            if frequentist["value"] is not None
            else f"not available ({frequentist['reason']})"
        ),
        f"  NC-ECE (posterior median)     {posterior['median']:.4f}  [{posterior['interval'][0]:.4f}, {posterior['interval'][1]:.4f}] ({posterior['level']:.0%})",
    ]
    if ece["oracle"]["value"] is not None:
        lines.append(f"  oracle ECE (truth column)     {ece['oracle']['value']:.4f}")
    return lines + (
        ["Model checks:"] + [f"  {line}" for line in summary["checks"]["verdicts"]]
        if checks
        else []
    )


def write_fit(
    out: pathlib.Path,
    table,
    input_record: dict,
    model="auto",
    priors=None,
    n_bins=10,
    seed=0,
    progress=False,
    bayes_options=None,
    read_seconds=None,
):
    """Analyse a table and write posterior.nc, the report and summary.json into ``out``.

    Returns the :class:`~bayescal.pipeline.Analysis`, the summary and the report's path.
    ``summary["timings"]`` gets the seconds of every step (``read`` when ``read_seconds`` is
    given, then those of :func:`bayescal.pipeline.analyse`, ``write_posterior`` and ``report``)."""
    from .io import prepare_output, write_atomic, write_json
    from .pipeline import analyse
    from .report import POSTERIOR_FILE, SUMMARY_FILE, render_report

    analysis = analyse(
        table.data,
        truth=table.truth,
        model=model,
        priors=priors,
        n_bins=n_bins,
        seed=seed,
        progress=progress,
        bayes_options=bayes_options,
    )
    summary = dict(analysis.summary, input=input_record)
    timings = summary["timings"] = {
        **({"read": round(read_seconds, 3)} if read_seconds is not None else {}),
        **summary["timings"],
    }
    prepare_output(out, force=True)
    start = time.perf_counter()
    write_atomic(out / POSTERIOR_FILE, analysis.bayes_fit.save)
    timings["write_posterior"] = round(time.perf_counter() - start, 3)
    start = time.perf_counter()
    report = render_report(
        out, summary
    )  # the report shows no timings: it is the same when re-rendered
    timings["report"] = round(time.perf_counter() - start, 3)
    write_json(out / SUMMARY_FILE, summary)
    return analysis, summary, report


def run_fit(args) -> str:
    """``bayescal fit``: read, analyse, write the results directory; the text to print."""
    from .io import read_priors

    out = _output_directory(args)
    priors = read_priors(args.prior) if args.prior is not None else None
    start = time.perf_counter()
    table = _read_input(args)
    _, summary, report = write_fit(
        out,
        table,
        _input_record(args),
        model=args.model,
        priors=priors,
        n_bins=args.n_bins,
        seed=args.seed,
        progress=_progress(args),
        bayes_options=_bayes_options(args),
        read_seconds=time.perf_counter() - start,
    )
    if args.json:
        return json.dumps(summary, indent=2, allow_nan=False)
    first, *rest = fit_text(summary)
    return "\n".join(
        [
            f"bayescal fit: {first}",
            *rest,
            f"Wrote {out / 'summary.json'}, {out / 'posterior.nc'} and the report {report}",
        ]
    )


def run_report(args) -> str:
    from .report import render_report

    return f"Wrote {render_report(args.directory)}"


def run_recalibrate(args) -> str:
    """``bayescal recalibrate``: EM channels, a map fitted to corrected labels, recalibrated scores."""
    from .io import prepare_output, write_json, write_table
    from .pipeline import frequentist_channels
    from .recalibration import recalibrate

    out = _output_directory(args)
    table = _read_input(args)
    channel_fit, data = frequentist_channels(table.data, seed=args.seed)
    if channel_fit.failure:
        raise ValueError(
            f"{channel_fit.method} failed ({channel_fit.failure}); the map needs estimated channels"
        )
    fitted = recalibrate(
        data, method=args.method, channels=channel_fit.channels, n_bins=args.n_bins
    )
    column = f"{args.score}_recalibrated"
    if column in table.frame.columns:
        raise ValueError(
            f"the table already has a column {column!r}; rename it before recalibrating"
        )
    document = {
        "map": fitted.to_dict(),
        "channels": {
            "estimator": channel_fit.method,
            "a": channel_fit.channels.a.tolist(),
            "b": channel_fit.channels.b.tolist(),
            "annotators": list(data.annotator_names),
        },
        "input": _input_record(args),
        "output_column": column,
    }
    prepare_output(out, force=True)
    write_json(out / "map.json", document)
    output = write_table(
        out / f"recalibrated{table.path.suffix.lower()}",
        table.frame.assign(**{column: fitted.predict(data.scores)}),
    )
    if args.json:
        return json.dumps(document, indent=2, allow_nan=False)
    return f"bayescal recalibrate: {fitted!r} fitted to labels corrected by {channel_fit.method}\nWrote {out / 'map.json'} and {output}"


def run_sensitivity(args) -> str:
    """``bayescal sensitivity``: the prior-sensitivity table."""
    from .io import prepare_output, read_priors, write_atomic, write_json
    from .pipeline import model_data
    from .sensitivity import prior_sensitivity

    out = _output_directory(args)
    named = read_priors(args.priors, named=True)
    name, why, data = model_data(_read_input(args).data, args.model)
    result = prior_sensitivity(
        data,
        model=name,
        priors=named,
        n_bins=args.n_bins,
        seed=args.seed,
        progress=_progress(args),
        **_bayes_options(args),
    )
    frame = result.table.reset_index()
    records = json.loads(frame.to_json(orient="records"))
    if out is not None:
        prepare_output(out, force=True)
        write_atomic(out / "sensitivity.csv", frame.to_csv(index=False))
        write_json(
            out / "sensitivity.json",
            {
                "model": name,
                "why": why,
                "reference": result.reference,
                "level": result.level,
                "rows": records,
            },
        )
    if args.json:
        return json.dumps(
            {"model": name, "reference": result.reference, "level": result.level, "rows": records},
            indent=2,
            allow_nan=False,
        )
    with _wide_display():
        text = result.table.round(4).to_string()
    return f"bayescal sensitivity: model {name} ({why}); reference prior {result.reference!r}; {result.level:.0%} intervals\n{text}"


def _wide_display():
    import pandas as pd

    return pd.option_context("display.width", 200, "display.max_rows", 500)


def run_demo(
    condition: str, n: int, seed: int, n_bins: int | str, bayes: bool = True, out="bayescal-demo"
) -> str:
    """The demo's report as text (the numbers are computed here, printing is the caller's)."""
    simulation = toy_data(n, condition=condition, seed=seed)
    observed = simulation.data
    # The paper's toy study fits grouped EM on five equal-width score groups (App. G.2).
    data = AnnotatedScores(
        observed.scores, observed.annotations, groups=score_groups(observed.scores, n_groups=5)
    )
    try:
        estimated, failure = nc_ece(data, "grouped_em", n_bins=n_bins, seed=seed), None
    except ValueError as error:  # a failed or unidentified fit (tiny n): report it, keep the rest
        estimated, failure = None, str(error)
    analysis, summary, report, bayes_failure = (
        _demo_fit(simulation, pathlib.Path(out), n_bins, seed)
        if bayes
        else (None, None, None, "skipped (--no-bayes)")
    )
    fit, posterior = (
        (analysis.bayes_fit, analysis.posterior) if analysis is not None else (None, None)
    )
    truth = simulation.channels

    lines = [
        f"bayescal demo: paper §6.1 toy data, condition {condition!r}, n = {n}, seed = {seed}",
        "",
        "Annotator channels: false-positive rate a, sensitivity b",
        f"{'annotator':<9}  {'true a':>6}  {'true b':>6}  {'EM a':>6}  {'EM b':>6}  {'posterior a [90%]':>22}  {'posterior b [90%]':>22}",
    ]
    draws = fit.draws() if fit is not None else None
    for j, name in enumerate(data.annotator_names):
        line = f"{name:<9}  {truth.a[j]:>6.3f}  {truth.b[j]:>6.3f}"
        if estimated is not None:
            fitted = estimated.fits[0].channels
            line += f"  {fitted.a[j]:>6.3f}  {fitted.b[j]:>6.3f}"
        else:
            line += f"  {'-':>6}  {'-':>6}"
        if draws is not None:
            for values in (draws[0][:, j], draws[1][:, j]):
                low, high = np.quantile(values, [0.05, 0.95])
                line += f"  {values.mean():>6.3f} [{low:.3f}, {high:.3f}]"
        lines.append(line)
    if estimated is not None or draws is not None:
        lines.append(
            "(EM: grouped EM on 5 equal-width score groups; posterior: Bayesian Dawid–Skene, NUTS, flat priors)"
        )

    rows = [
        ("population ECE  E|m(Z) - Z|  (numerical integral)", f"{simulation.population_ece:.4f}"),
        (
            "clean labels  (oracle: only a simulator knows Y)",
            f"{expected_calibration_error(simulation.labels, data.scores, n_bins):.4f}",
        ),
        (
            "soft vote  (naive: mean of the noisy labels)",
            f"{soft_vote_ece(data.scores, data.annotations, n_bins):.4f}",
        ),
        (
            "majority vote  (naive)",
            f"{majority_vote_ece(data.scores, data.annotations, n_bins):.4f}",
        ),
        (
            "NC-ECE  (true channels, inverse-variance weights)",
            f"{noise_corrected_ece(data.scores, data.annotations, truth, n_bins):.4f}",
        ),
        (
            "NC-ECE  (channels estimated by grouped EM)",
            f"{estimated.estimate:.4f}" if estimated else f"not available ({failure})",
        ),
        (
            "NC-ECE  (posterior median, 90% credible interval)",
            f"{posterior.median:.4f}  [{posterior.interval[0]:.4f}, {posterior.interval[1]:.4f}]"
            if posterior
            else f"not available ({bayes_failure})",
        ),
    ]
    bins = f"{n_bins} equal-width bins" if n_bins != "auto" else "round(n^(1/3)) equal-width bins"
    width = max(len(label) for label, _ in rows)
    lines += ["", f"ECE of the predictor ({bins}):"]
    lines += [f"  {label:<{width}}  {value}" for label, value in rows]
    lines += [
        "",
        "The naive ECEs score the predictor against noisy labels and are biased; NC-ECE uses the",
        "noisy labels alone (plus channels, known or estimated from the same labels) and estimates",
        "the clean-label ECE. The credible interval carries the channel and the evaluation-sample",
        "uncertainty (posterior_ece, uncertainty='total').",
    ]
    lines += [
        "",
        "Model checks of the Bayesian Dawid–Skene fit (posterior predictive, 95% intervals):",
    ]
    lines += (
        [f"  {line}" for line in summary["checks"]["verdicts"]]
        if summary
        else [f"  not available ({bayes_failure})"]
    )
    lines += _recalibration_lines(simulation, data, estimated, fit, n_bins, bins, seed)
    if summary is not None:
        names = ",".join(observed.annotator_names)
        command = f"bayescal fit {out}/toy.csv --score score --annotators {names} --truth truth --out {out}/fit --force"
        lines += [
            "",
            f"The same table through {command}:",
            *(f"  {line}" for line in fit_text(summary, checks=False)),
            f"Report: {report}",
        ]
    return "\n".join(lines)


def _demo_fit(simulation, out: pathlib.Path, n_bins, seed: int):
    """Write the simulated table as CSV and run ``bayescal fit`` on it: the demo's one Bayesian
    fit (Dawid–Skene, flat priors).  Returns the analysis, summary and report path, or the
    reason there are none."""
    import pandas as pd

    from .io import prepare_output, read_wide_table, write_table

    data = simulation.data
    names = list(data.annotator_names)
    prepare_output(out, force=True)  # the demo's own directory: rewritten on every run
    table_path = write_table(
        out / "toy.csv",
        pd.DataFrame(
            {
                "score": data.scores,
                **dict(zip(names, data.annotations.T)),
                "truth": simulation.labels,
            }
        ),
    )
    record = {
        "table": str(table_path),
        "scores": None,
        "score": "score",
        "annotators": names,
        "truth": "truth",
        "long": False,
    }
    try:
        with warnings.catch_warnings():
            # Three annotators make Dawid–Skene saturated: the demo says so, and what it means.
            warnings.simplefilter("ignore", SaturatedModelWarning)
            return (
                *write_fit(
                    out / "fit",
                    read_wide_table(table_path, "score", names, truth="truth"),
                    record,
                    n_bins=n_bins,
                    seed=seed,
                    progress=True,
                ),
                None,
            )
    except ValueError as error:  # too few items to fit: report it, keep the rest of the demo
        return None, None, None, str(error)


def _recalibration_lines(
    simulation, data, estimated, fit, n_bins, bins: str, seed: int
) -> list[str]:
    """Platt scaling fitted on one half of the items and scored on the other: Base, Naive and
    Corrected, by NC-ECE with the EM channels, by the oracle, and by the posterior."""
    half = data.n_items // 2
    fitting, evaluation = data.subset(np.arange(half)), data.subset(np.arange(half, data.n_items))
    lines = [
        "",
        f"Recalibration by Platt scaling, fitted on items 0-{half - 1} and evaluated on items {half}-{data.n_items - 1}",
        f"(channels from all items; ECE in {bins} of the recalibrated score; naive = fitted to the",
        "mean of the noisy labels, corrected = fitted to the noise-corrected labels):",
    ]
    if half < 2:
        return [*lines, "  not available (too few items to split)"]
    em = {}
    if estimated is not None:
        study = recalibration_study(
            data,
            fitting,
            evaluation,
            methods=["platt"],
            estimator=estimated.fits[0].channels,
            n_bins=n_bins,
            oracle=simulation.labels[half:],
        )
        em = study.table.loc["platt"]
    if fit is not None:
        from .posterior import posterior_recalibration  # the Bayesian stack loads only when used

    posterior = (
        posterior_recalibration(fit, fitting, evaluation, method="platt", n_bins=n_bins, seed=seed)
        if fit is not None
        else None
    )
    header = f"  {'predictor':<11}  {'NC-ECE (EM)':>11}  {'oracle ECE':>10}  NC-ECE posterior median [90% interval]"
    lines.append(header)
    for row, result in (("base", "base"), ("naive", "naive"), ("corrected", "recalibrated")):
        frequentist = (
            f"{em.loc[row, 'nc_ece']:>11.4f}  {em.loc[row, 'oracle_ece']:>10.4f}"
            if len(em)
            else f"{'-':>11}  {'-':>10}"
        )
        if posterior is not None:
            draws = getattr(posterior, result)
            bayes = f"{draws.median:.4f} [{draws.interval[0]:.4f}, {draws.interval[1]:.4f}]"
        else:
            bayes = "not available"
        lines.append(f"  {row:<11}  {frequentist}  {bayes}")
    return lines


def _use_host_devices(count: int) -> None:
    """Give JAX ``count`` CPU devices so that NUTS chains run in parallel.

    Only the command line may do this: it changes process-wide state, and it works only before
    JAX starts (later it has no effect, and the chains are vectorised instead)."""
    if "jax" not in sys.modules:
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={count}"
        ).strip()


COMMANDS = {
    "fit": run_fit,
    "report": run_report,
    "recalibrate": run_recalibrate,
    "sensitivity": run_sensitivity,
}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        if not args.no_bayes:
            _use_host_devices(4)
        print(
            run_demo(
                args.condition,
                args.n,
                args.seed,
                args.n_bins,
                bayes=not args.no_bayes,
                out=args.out,
            )
        )
        return 0
    _use_host_devices(4)
    try:
        with warnings.catch_warnings():
            if (
                not args.debug
            ):  # a warning is one line, like an error; --debug keeps Python's format
                warnings.showwarning = _one_line_warning
            print(COMMANDS[args.command](args))
    except (
        ValueError,
        TypeError,
        OSError,
    ) as error:  # bad tables, arguments, files; unidentified models
        if args.debug:
            raise
        print(f"bayescal: error: {error}", file=sys.stderr)
        return 2
    return 0


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"bayescal: warning: {message} ({category.__name__})", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
