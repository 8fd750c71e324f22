"""The ``bayescal`` command.  This is the only module that reads ``argv``.

Commands
--------
``bayescal fit TABLE --score COL --annotators A,B,... --out DIR``
    Fit a table's annotators and report naive ECE, NC-ECE with an interval and the model
    checks; writes ``DIR/summary.json`` (its fields: the documentation's guide "Files and the
    command line"), ``DIR/posterior.nc``, ``DIR/report.html`` and ``DIR/figures/*.png``.  ``--long --scores FILE`` reads one row per response instead.
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
import os
import re
import signal
import sys
import threading
import warnings

from .._api import DEFAULT_FIT_BINS, DEFAULT_N_BINS
from .._version import __version__
from ..bayes.compile_cache import CACHE_ENV
from ..recalibration import METHODS
from ..simulate.panels import TOY_CONDITIONS
from .commands import (
    run_apply,
    run_demo_command,
    run_fit,
    run_labels,
    run_plan,
    run_recalibrate,
    run_report,
    run_sensitivity,
)
from .model_choice import MODEL_CHOICES

DEMO_EXAMPLE = "example: bayescal demo --condition shifted --n 8000 --seed 0"
FIT_EXAMPLE = "example: bayescal fit examples/judged.csv --score score --annotators ann,bob,cy,dee --out results"
REPORT_EXAMPLE = "example: bayescal report results"
RECALIBRATE_EXAMPLE = "example: bayescal recalibrate examples/judged.csv --score score --annotators ann,bob,cy,dee --method platt --out recalibrated"
SENSITIVITY_EXAMPLE = "example: bayescal sensitivity examples/judged.csv --score score --annotators ann,bob,cy,dee --priors examples/priors.json"
APPLY_EXAMPLE = (
    "example: bayescal apply recalibrated/map.json new_scores.csv --score score --out applied"
)
LABELS_EXAMPLE = "example: bayescal labels responses.csv --long --item doc --annotator worker --label label --out labels"
PLAN_EXAMPLE = "example: bayescal plan examples/judged.csv --score score --annotators ann,bob,cy,dee --sizes 100,200,400"
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


def _acceptance_argument(text: str) -> float:
    """argparse type: NUTS's target acceptance, a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number strictly between 0 and 1; saw {text!r}"
        ) from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1; saw {value}")
    return value


def _model_argument(text: str) -> str:
    """argparse type: a model of :data:`~bayescal.app.model_choice.MODEL_CHOICES`, in either
    spelling (``dawid_skene`` or ``dawid-skene``), as bayescal prints it."""
    name = text.replace("-", "_")
    if name not in MODEL_CHOICES:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(MODEL_CHOICES)} (hyphens for underscores accepted); "
            f"saw {text!r}"
        )
    return name


def _folder_argument(text: str) -> str:
    """argparse type: a folder's path; an empty one would name the working folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a folder; saw an empty path {text!r}")
    return text


class _Renamed(argparse.Action):
    """An option renamed in 0.2: using it is an error that names the new spelling."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is called {self.new} since bayescal 0.2")


def _names(text: str) -> list[str]:
    """Comma-separated column names; a name in double quotes is taken as it is, spaces and
    commas included (``'"cy, jr", " ann "'``), the others are stripped of spaces."""
    names = []
    for token in re.findall(r'\s*("[^"]*"|[^,]*)\s*(?:,|$)', text)[:-1] if text else []:
        name = token[1:-1] if len(token) >= 2 and token[0] == token[-1] == '"' else token.strip()
        if name:
            names.append(name)
    if not names or text.count('"') % 2:
        raise argparse.ArgumentTypeError(f"expected comma-separated column names; saw {text!r}")
    return names


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers of gold items; saw {text!r}"
        ) from None
    if min(sizes) < 2:
        raise argparse.ArgumentTypeError(
            f"expected numbers of gold items of 2 or more; saw {text!r}"
        )
    return sizes


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
        "--score",
        required=True,
        type=_names,
        help="column of the predictor's scores in [0, 1] (bayescal fit: or, for multi-class "
        "labels, the comma-separated columns of the class probabilities, one per class)",
    )
    command.add_argument(
        "--annotators",
        type=_names,
        action="extend",
        help="comma-separated annotator columns, may be repeated; a name with spaces or commas in "
        "double quotes (--annotators '\"cy, jr\"') (wide format; with --long: which annotators to keep)",
    )
    command.add_argument(
        "--truth", help="column of true 0/1 labels, if known (oracle ECE; never used for fitting)"
    )
    command.add_argument(
        "--gold",
        help="column of human-verified 0/1 labels on some items, empty elsewhere: used in every "
        "fit, unlike --truth, a simulation's oracle; the gold items must be a random sample "
        "of the items (with --long, a column of --scores)",
    )
    command.add_argument(
        "--gold-weights",
        metavar="COLUMN",
        help="column of each gold item's probability of having been chosen, in (0, 1], when "
        "the gold is not a simple random sample (select_for_gold's inclusion, or a design "
        "stratified by score)",
    )
    long = command.add_argument_group("long format", LONG_HELP)
    long.add_argument("--long", action="store_true", help="TABLE is in long format")
    long.add_argument(
        "--scores",
        help="CSV or Parquet table of the items: --item and --score columns (and --truth, --gold)",
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
    _cache_argument(command)
    command.add_argument(
        "--json",
        action="store_true",
        help="print the machine-readable result on stdout instead of the text summary",
    )
    command.add_argument("--debug", action="store_true", help="show the traceback of an error")


def _class_arguments(command: argparse.ArgumentParser) -> None:
    """The classes of multi-class labels (several --score columns)."""
    classes = command.add_argument_group(
        "multi-class labels",
        "With several --score columns (one per class) the labels, the gold and the truth hold "
        "class names (or the codes 0, 1, ... when --classes is not given).",
    )
    classes.add_argument(
        "--classes",
        type=_names,
        help="comma-separated class names, in the order of the --score columns (the "
        "labels' spellings; default 0, 1, ...)",
    )
    classes.add_argument(
        "--ordinal",
        action="store_true",
        help="the classes form a scale in the order given (grades 1-5, fail < partial < pass)",
    )
    classes.add_argument(
        "--normalize",
        action="store_true",
        help="divide each row of class probabilities by its sum (rows must otherwise sum to 1 "
        "within 1e-6)",
    )


def _cache_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--no-cache",
        action="store_true",
        help="compile the sampler afresh and keep nothing (default: compiled samplers are kept "
        "in the per-user cache folder, or $BAYESCAL_CACHE_DIR, for later runs)",
    )


def _bins_argument(command: argparse.ArgumentParser, flag: str, default: int, what: str) -> None:
    command.add_argument(
        flag,
        type=_integer_argument(1, allow_auto=True),
        default=default,
        help=f"{what}, or 'auto' = round(n^(1/3)) (default: {default})",
    )


def _sampler_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--model",
        type=_model_argument,
        metavar="{" + ",".join(MODEL_CHOICES) + "}",
        default="auto",
        help="Bayesian model (default: auto = hierarchical Dawid–Skene for a crowd: more than "
        "12 annotators or any with fewer than 30 labels; Dawid–Skene for 3+ annotators; "
        "Hui–Walter for 2)",
    )
    _bins_argument(command, "--n-bins", DEFAULT_N_BINS, "equal-width evaluation bins")
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
        "--samples",
        type=_integer_argument(1),
        help="draws per chain (default: the model's: 1000, 2000 for hierarchical_dawid_skene, "
        "continued up to twice by as many while R-hat or ESS fall short)",
    )
    command.add_argument(
        "--extensions",
        type=_integer_argument(0),
        help="how many times a fit short of R-hat or ESS continues every chain by as many "
        "draws again (default: 2 when --samples is not given, else 0)",
    )
    command.add_argument(
        "--target-accept",
        type=_acceptance_argument,
        help="NUTS's target acceptance in (0, 1); nearer 1 when a fit warns of divergent "
        "transitions (default: the model's: 0.8 for most, 0.99 for hierarchical_dawid_skene)",
    )


def _dependent_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--dependent",
        nargs=2,
        action="append",
        metavar=("NAME", "NAME"),
        help="two annotators whose errors may be correlated given the true label: the models "
        "get a covariance for the pair (repeat for more pairs; names with commas or spaces "
        "work, quoted as one argument each)",
    )


def _output_arguments(command: argparse.ArgumentParser, required: bool = True) -> None:
    command.add_argument(
        "--out",
        required=required,
        type=_folder_argument,
        help="output directory (must not exist unless --force)",
    )
    command.add_argument(
        "--force",
        action="store_true",
        help="replace an existing results folder whole (never one holding other files or the input)",
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
        "--n",
        type=_integer_argument(2),
        default=8000,
        help="number of items, at least 2: the recalibration is fitted on one half and scored "
        "on the other (default: 8000)",
    )
    demo.add_argument(
        "--seed", type=_integer_argument(0), default=0, help="random seed (default: 0)"
    )
    _bins_argument(demo, "--n-bins", DEFAULT_N_BINS, "equal-width evaluation bins")
    demo.add_argument(
        "--no-bayes", action="store_true", help="skip the Bayesian fit and the report (quicker)"
    )
    _cache_argument(demo)
    demo.add_argument(
        "--out",
        default="bayescal-demo",
        type=_folder_argument,
        help="directory of the demo's table (toy.csv) and of its fit (fit/), both rewritten on "
        "every run; a toy.csv or fit/ the demo did not write is refused (default: bayescal-demo)",
    )
    demo.add_argument("--debug", action="store_true", help="show the traceback of an error")

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
    _class_arguments(fit)
    _sampler_arguments(fit)
    _dependent_argument(fit)
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
            "column, <score>_recalibrated. It also prints the NC-ECE before and after, with 90% "
            "intervals, on a random half of the items that a map fitted on the other half never saw "
            "(the items a map is fitted to flatter it)."
        ),
        epilog=RECALIBRATE_EXAMPLE,
    )
    _table_arguments(recalibrate)
    recalibrate.add_argument(
        "--method", choices=METHODS, default="platt", help="recalibration map (default: platt)"
    )
    _bins_argument(
        recalibrate, "--fit-bins", DEFAULT_FIT_BINS, "bins the histogram map is fitted on"
    )
    recalibrate.add_argument("--n-bins", action=_Renamed, new="--fit-bins")
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
    _dependent_argument(sensitivity)
    _output_arguments(sensitivity, required=False)

    apply = commands.add_parser(
        "apply",
        help="apply a map saved by bayescal recalibrate to new scores",
        description=(
            "Read MAP (DIR/map.json of bayescal recalibrate) and the score column of TABLE, and "
            "write DIR/recalibrated.<csv|parquet> (TABLE with one added column, "
            "<score>_recalibrated) and DIR/applied.json (the map and the inputs). No label is "
            "needed: the map was fitted where the labels were."
        ),
        epilog=APPLY_EXAMPLE,
    )
    apply.add_argument("map", help="map.json written by bayescal recalibrate")
    apply.add_argument("table", help="CSV or Parquet file of the scores to map, one row per item")
    apply.add_argument("--score", required=True, help="column of the scores in [0, 1]")
    apply.add_argument(
        "--json",
        action="store_true",
        help="print the machine-readable record on stdout instead of the text summary",
    )
    apply.add_argument("--debug", action="store_true", help="show the traceback of an error")
    _output_arguments(apply)

    labels = commands.add_parser(
        "labels",
        help="aggregate the annotators' labels: each item's P(Y = 1) and its label, no scores needed",
        description=(
            "Estimate the annotators' channels by Dawid–Skene EM on their labels (bayescal.crowd_em: "
            "any number of annotators, sparse workers share a pooled channel), and write "
            "DIR/labels.<csv|parquet> (each item's id, number of labels, gold label if given, "
            "P(Y = 1) given its labels and the aggregated label, 1 where P(Y = 1) >= 0.5) and "
            "DIR/labels.json (the channels and the inputs). No score column is read."
        ),
        epilog=LABELS_EXAMPLE,
    )
    labels.add_argument(
        "table", help="CSV or Parquet file, one row per item (or per response with --long)"
    )
    labels.add_argument(
        "--annotators",
        type=_names,
        action="extend",
        help="comma-separated annotator columns (wide format; with --long: which annotators to keep)",
    )
    labels.add_argument(
        "--long",
        action="store_true",
        help="TABLE holds one row per response: --item, --annotator, --label",
    )
    labels.add_argument(
        "--item",
        help="item id column (default: item with --long; a wide table's row number otherwise)",
    )
    labels.add_argument(
        "--annotator", default="annotator", help="annotator column of --long (default: annotator)"
    )
    labels.add_argument(
        "--label", default="label", help="label column of --long, 0/1/empty (default: label)"
    )
    labels.add_argument(
        "--gold",
        help="column of human-verified 0/1 labels on some items, empty elsewhere (with --long, "
        "repeated on the item's rows): used in the fit, and an item's gold label is its label",
    )
    labels.add_argument(
        "--json",
        action="store_true",
        help="print the machine-readable record on stdout instead of the text summary",
    )
    labels.add_argument("--debug", action="store_true", help="show the traceback of an error")
    _output_arguments(labels)

    plan = commands.add_parser(
        "plan",
        help="how many gold labels to buy: expected interval widths by number of gold items",
        description=(
            "Fit the annotators' channels by EM (with the gold items already there, --gold) and "
            "print the expected widths of the NC-ECE and positive-rate intervals for each number "
            "of random gold items in --sizes (bayescal.plan_gold)."
        ),
        epilog=PLAN_EXAMPLE,
    )
    _table_arguments(plan)
    plan.add_argument(
        "--sizes",
        type=_sizes,
        default=[100, 200, 400, 800],
        help="comma-separated numbers of gold items in all (default: 100,200,400,800)",
    )
    return parser


def _use_host_devices(count: int) -> None:
    """Give JAX ``count`` CPU devices so that NUTS chains run in parallel.

    Only the command line may do this: it changes process-wide state, and it works only before
    JAX starts (later it has no effect, and the chains are vectorised instead)."""
    if "jax" not in sys.modules:
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={count}"
        ).strip()


COMMANDS = {
    "demo": run_demo_command,
    "fit": run_fit,
    "report": run_report,
    "recalibrate": run_recalibrate,
    "apply": run_apply,
    "labels": run_labels,
    "sensitivity": run_sensitivity,
    "plan": run_plan,
}


#: The signals that end a command in one line, and how each is named there.
STOPPING_SIGNALS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def main(argv: list[str] | None = None) -> int:
    """The command.  Ctrl-C ends it with one line, ``bayescal: interrupted``, and exit status 130;
    SIGTERM (a job scheduler's stop) with ``bayescal: terminated`` and 143 (:func:`_stopped`;
    the caller's handlers are restored on return)."""
    if threading.current_thread() is not threading.main_thread():  # only there can they be set
        return _main(argv)
    previous = {number: signal.signal(number, _stopped) for number in STOPPING_SIGNALS}
    try:
        return _main(argv)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stopped(signum, frame) -> None:
    """Ctrl-C or SIGTERM: undo the results folder being written
    (:func:`bayescal.report.folders.abandon_staged_output`), say so in one line and exit
    128 + the signal's number at once.  A handler rather than ``KeyboardInterrupt``: the
    exception can land in a callback that swallows it (JAX's garbage-collection hook), and
    ``os._exit`` does not wait for a compilation running in another thread.

    It imports nothing: the signal can land while the module it needs is half imported (an
    import there then fails, and the user saw its traceback).  A results folder is staged only
    once that module is whole, so until then there is nothing to undo."""
    folders = sys.modules.get("bayescal.report.folders")
    abandon_staged_output = getattr(folders, "abandon_staged_output", None)
    if abandon_staged_output is not None:
        abandon_staged_output()
    print(f"bayescal: {STOPPING_SIGNALS[signum]}", file=sys.stderr, flush=True)
    os._exit(128 + signum)


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "no_cache", False):
        os.environ[CACHE_ENV] = (
            "off"  # read by bayescal.bayes.compile_cache when a sampler is needed
        )
    _use_host_devices(4)
    try:
        with warnings.catch_warnings():
            if (
                not args.debug
            ):  # a warning is one line, like an error; --debug keeps Python's format
                warnings.showwarning = _one_line_warnings()
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


def _one_line_warnings():
    """A ``warnings.showwarning`` that prints each warning as one line, and a warning said
    before in this command not again (the demo's two fits, or a cross-fit's folds, would
    repeat it word for word)."""
    said = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = f"bayescal: warning: {message} ({category.__name__})"
        if text not in said:
            said.add(text)
            print(text, file=sys.stderr)

    return show


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
