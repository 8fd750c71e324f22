"""What ``bayescal fit``, ``report``, ``recalibrate`` and ``sensitivity`` do with their parsed
arguments: read the table, run the library, write the results folder, and return the text to
print (the argument parsing and the printing are :mod:`bayescal.app.cli`'s).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
import time

import numpy as np

from .. import _validation as v
from .._api import DEFAULT_N_BINS, announce, warn_caller
from .._validation import MISSING
from ..channels import score_groups
from ..exceptions import DataWarning, RecalibrationWarning

__all__ = ["run_fit", "run_recalibrate", "run_report", "run_sensitivity"]


def _read_input(args, keep_unlabelled: bool = False):
    """The Table of the command's arguments (wide, or long with --scores), with score groups.

    Items without any label are kept with ``keep_unlabelled`` (``recalibrate`` maps every
    score); otherwise each reader's default applies: refused in a wide table, dropped with a
    warning from a long one's score table (which usually lists more items than were labelled).
    """
    from ..data.tables import read_long_tables, read_wide_table

    score, classes = _score_argument(args)
    if args.long:
        if args.scores is None:
            raise ValueError("--long needs --scores, the table of item scores")
        table = read_long_tables(
            args.table,
            args.scores,
            score=score,
            item=args.item,
            annotator=args.annotator,
            label=args.label,
            annotators=args.annotators,
            truth=args.truth,
            unlabelled="keep" if keep_unlabelled else "drop",
            gold=args.gold,
            gold_weights=args.gold_weights,
            **classes,
        )
    else:
        if args.annotators is None:
            raise ValueError(
                "--annotators is required for a wide table (or pass --long with --scores)"
            )
        if args.scores is not None:
            raise ValueError("--scores is only for --long tables")
        table = read_wide_table(
            args.table,
            score=score,
            annotators=args.annotators,
            truth=args.truth,
            unlabelled="keep" if keep_unlabelled else "refuse",
            gold=args.gold,
            gold_weights=args.gold_weights,
            **classes,
        )
    if args.groups is not None or args.thresholds is not None:
        data = table.data
        groups = score_groups(data.scores, thresholds=args.thresholds, n_groups=args.groups)
        if np.unique(groups).size < 2:  # Hui–Walter needs two groups that hold items
            option = (
                f"--thresholds {','.join(f'{t:g}' for t in args.thresholds)}"
                if args.thresholds is not None
                else f"--groups {args.groups}"
            )
            raise ValueError(
                f"{option}: every item falls in one score group (the scores run from "
                f"{data.scores.min():g} to {data.scores.max():g}); choose cut points inside "
                "that range"
            )
        table = dataclasses.replace(
            table,
            data=dataclasses.replace(data, groups=groups),
        )
    return table


def _score_argument(args) -> tuple:
    """``--score`` as the readers take it (one column, or one per class) and the class options
    (``bayescal fit`` only: the other commands handle binary scores)."""
    score = args.score[0] if len(args.score) == 1 else args.score
    if not hasattr(args, "classes"):
        if len(args.score) > 1:
            raise ValueError(
                f"--score must name one column here: this command handles binary scores (saw "
                f"{len(args.score)} columns); bayescal fit reads multi-class tables"
            )
        return score, {}
    if len(args.score) > 1 and (args.groups is not None or args.thresholds is not None):
        raise ValueError(
            "--groups and --thresholds cut one score into groups (Hui–Walter); a multi-class "
            f"table has {len(args.score)} score columns"
        )
    if (args.classes is not None or args.ordinal or args.normalize) and len(args.score) < 2:
        raise ValueError(
            "--classes, --ordinal and --normalize describe multi-class labels: name one "
            f"--score column per class (saw one, {score!r})"
        )
    return score, {"classes": args.classes, "ordinal": args.ordinal, "normalize": args.normalize}


def _inputs(args) -> list:
    """The files the command reads: a results folder may never hold one."""
    return [args.table, args.scores, getattr(args, "prior", None), getattr(args, "priors", None)]


def _output_directory(args) -> pathlib.Path | None:
    """Refuse, before any work (not after a long fit), an --out the results cannot replace
    whole (:func:`bayescal.report.folders.check_output`)."""
    from ..report.folders import check_output

    if args.out is None:
        return None
    return check_output(args.out, force=args.force, inputs=_inputs(args), force_option="--force")


def _progress(args) -> bool:
    return not args.quiet and sys.stderr.isatty()


def _sampler_settings(args):
    """``--chains``, ``--warmup``, ``--samples``, ``--extensions``, ``--target-accept``,
    ``--seed`` and the progress bars."""
    from ..bayes.sampler_settings import SamplerSettings

    return SamplerSettings(
        num_chains=args.chains,
        num_warmup=args.warmup,
        num_samples=args.samples,
        extensions=args.extensions,
        target_accept=args.target_accept,
        seed=args.seed,
        progress=_progress(args),
    )


def _input_record(args) -> dict:
    from ..data.tables import file_sha256

    files = {"table": args.table, "scores": args.scores}
    columns = {"item": args.item, "annotator": args.annotator, "label": args.label}
    return {
        "table": str(args.table),
        "scores": args.scores,
        "score": args.score[0] if len(args.score) == 1 else args.score,
        **(
            {"classes": args.classes, "ordinal": args.ordinal, "normalize": args.normalize}
            if len(args.score) > 1
            else {}
        ),
        "annotators": args.annotators,
        "truth": args.truth,
        "gold": args.gold,
        "gold_weights": args.gold_weights,
        "long": args.long,
        **(columns if args.long else {}),
        "sha256": {role: file_sha256(path) for role, path in files.items() if path is not None},
    }


def run_fit(args) -> str:
    """``bayescal fit``: read, analyse, write the results folder; the text to print."""
    from ..bayes.priors import read_priors
    from ..report.folders import POSTERIOR_FILE, SUMMARY_FILE, write_analysis
    from .analysis import analyse

    out = _output_directory(args)
    priors = read_priors(args.prior) if args.prior is not None else None
    start = time.perf_counter()
    table = _read_input(args)
    read_seconds = time.perf_counter() - start
    analysis = analyse(
        table.data,
        truth=table.truth,
        model=args.model,
        priors=priors,
        n_bins=args.n_bins,
        sampler=_sampler_settings(args),
        dependent=_dependent(args),
    )
    summary, report = write_analysis(
        out,
        analysis,
        force=args.force,
        input_record=_input_record(args),
        read_seconds=read_seconds,
        progress=_progress(args),
    )
    if args.json:
        return json.dumps(summary.to_dict(), indent=2, allow_nan=False)
    first, *rest = summary.text()
    return "\n".join(
        [
            f"bayescal fit: {first}",
            *rest,
            f"Wrote {out / SUMMARY_FILE}, {out / POSTERIOR_FILE} and the report {report}",
        ]
    )


def run_demo_command(args) -> str:
    """``bayescal demo``: the demo's text (its folder is checked before any work)."""
    from .demo import run_demo

    return run_demo(
        args.condition, args.n, args.seed, args.n_bins, bayes=not args.no_bayes, out=args.out
    )


def run_report(args) -> str:
    from ..report.folders import render_report

    return f"Wrote {render_report(args.directory)}"


def run_recalibrate(args) -> str:
    """``bayescal recalibrate``: EM channels, a map fitted to corrected labels, recalibrated scores."""
    from ..recalibration import recalibrate
    from ..recalibration.held_out import MIN_HALF, held_out_check
    from ..report.folders import check_new_column, write_recalibration
    from .model_choice import frequentist_channels

    out = _output_directory(args)
    table = _read_input(args, keep_unlabelled=True)
    column = f"{args.score[0]}_recalibrated"  # one column: _read_input refuses more
    check_new_column(table, column)
    labelled = (table.data.annotations != MISSING).any(axis=1)
    if not labelled.all():  # fitted on the labelled items, applied to every score
        warn_caller(
            f"{int((~labelled).sum())} of {labelled.size} items have no label: the map is fitted "
            f"on the {int(labelled.sum())} labelled items and applied to every item's score",
            RecalibrationWarning,
        )
    channel_fit, data = frequentist_channels(table.data.subset(labelled), seed=args.seed)
    if channel_fit.failure:
        raise ValueError(
            f"{channel_fit.method} failed ({channel_fit.failure}); the map needs estimated channels"
        )
    fitted = recalibrate(
        data, method=args.method, channels=channel_fit.channels, fit_bins=args.fit_bins
    )
    held_out = None
    if data.n_items >= 2 * MIN_HALF:
        announce("checking the map on the items it was not fitted to", _progress(args))
        held_out = held_out_check(
            data,
            method=args.method,
            estimator=channel_fit.method,
            fit_bins=args.fit_bins,
            seed=args.seed,
            progress=_progress(args),
        )
    oracle = None
    if table.truth is not None:  # every item's score is mapped, so every item is scored
        oracle = {
            "before": _oracle_ece(table, table.data.scores, DEFAULT_N_BINS),
            "after": _oracle_ece(table, fitted.predict(table.data.scores), DEFAULT_N_BINS),
            "n_bins": DEFAULT_N_BINS,
        }
    document, output = write_recalibration(
        out,
        table,
        fitted,
        channel_fit,
        column,
        _input_record(args),
        force=args.force,
        inputs=_inputs(args),
        oracle=oracle,
        held_out=held_out,
    )
    if args.json:
        return json.dumps(document, indent=2, allow_nan=False)
    lines = [
        f"bayescal recalibrate: {fitted!r} fitted to labels corrected by {channel_fit.described}",
        held_out.text()
        if held_out is not None
        else f"held out: not checked (fewer than {2 * MIN_HALF} labelled items to split)",
    ]
    if oracle is not None:
        lines.append(
            f"oracle ECE (truth column, {DEFAULT_N_BINS} bins): {oracle['before']:.4f} before, "
            f"{oracle['after']:.4f} after (in sample: the map was fitted to these items' labels)"
        )
    return "\n".join([*lines, f"Wrote {out / 'map.json'} and {output}"])


def run_apply(args) -> str:
    """``bayescal apply``: a map saved by ``bayescal recalibrate`` applied to new scores."""
    from ..data.tables import file_sha256, read_json, read_score_table
    from ..recalibration.maps import map_from_dict
    from ..report.folders import check_output, write_applied

    inputs = [args.map, args.table]
    out = check_output(args.out, force=args.force, inputs=inputs, force_option="--force")
    document = read_json(args.map, hint=" (MAP is the map.json that bayescal recalibrate writes)")
    if not isinstance(document, dict) or "map" not in document:
        raise ValueError(
            f"{args.map}: not a map.json of bayescal recalibrate (expected an object with a "
            f"'map' entry; saw {'keys ' + ', '.join(document) if isinstance(document, dict) else type(document).__name__})"
        )
    try:
        fitted = map_from_dict(document["map"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"{args.map}: its 'map' entry is not a fitted map ({error})") from None
    table = read_score_table(args.table, score=args.score)
    record = {
        "map": document["map"],
        "map_file": str(args.map),
        "input": {
            "table": str(args.table),
            "score": args.score,
            "sha256": {"map": file_sha256(args.map), "table": file_sha256(args.table)},
        },
    }
    applied, output = write_applied(
        out, table, fitted, f"{args.score}_recalibrated", record, force=args.force, inputs=inputs
    )
    if args.json:
        return json.dumps(applied, indent=2, allow_nan=False)
    return (
        f"bayescal apply: {fitted!r} from {args.map} applied to {table.scores.size} scores\n"
        f"Wrote {out / 'applied.json'} and {output}"
    )


def run_labels(args) -> str:
    """``bayescal labels``: each item's probability of the positive class given its labels,
    and its aggregated label, from Dawid–Skene EM on the labels alone (:func:`crowd_em`)."""
    from ..channels.crowd_em import crowd_em
    from ..data.tables import file_sha256, read_label_table
    from ..report.folders import check_output, write_labels

    if not args.long and args.annotators is None:
        raise ValueError("--annotators is required for a wide table (or pass --long)")
    out = check_output(args.out, force=args.force, inputs=[args.table], force_option="--force")
    table = read_label_table(
        args.table,
        annotators=args.annotators,
        long=args.long,
        item=args.item,
        annotator=args.annotator,
        label=args.label,
        gold=args.gold,
    )
    responses = table.responses
    fit = crowd_em(responses).require()
    probability = fit.predict_proba(responses)
    unlabelled = int((responses.labels_per_item() == 0).sum())
    if unlabelled:
        warn_caller(
            f"{unlabelled} of {responses.n_items} items have no label: their P(Y = 1) is the "
            f"class proportion, {fit.overall_prevalence:.3f}",
            DataWarning,
        )
    record = {
        "estimator": fit.described,
        "prevalence": fit.overall_prevalence,
        "annotators": [
            {"name": name, "false_positive": float(a), "sensitivity": float(b), "labels": int(n)}
            for name, a, b, n in zip(
                fit.annotator_names,
                fit.channels.a,
                fit.channels.b,
                responses.labels_per_annotator(),
            )
        ],
        "input": {
            "table": str(args.table),
            "long": bool(args.long),
            "item": table.item,
            "gold": args.gold,
            "sha256": file_sha256(args.table),
        },
    }
    document, output = write_labels(out, table, probability, record, force=args.force)
    if args.json:
        return json.dumps(document, indent=2, allow_nan=False)
    positive = float(np.mean(probability >= 0.5))
    gold = f", {document['n_gold']} of them gold" if document["n_gold"] else ""
    return (
        f"bayescal labels: {responses.n_items} items{gold}, {responses.n_annotators} annotators, "
        f"{responses.n_responses} labels; channels by {fit.described}\n"
        f"Aggregated label 1 for {positive:.1%} of the items (mean P(Y = 1) "
        f"{probability.mean():.3f})\n"
        f"Wrote {output} and {out / 'labels.json'}"
    )


def run_plan(args) -> str:
    """``bayescal plan``: the expected interval widths by number of random gold items
    (:func:`bayescal.plan_gold`, with the EM fit of the model the data choose)."""
    from ..correction.gold_plan import plan_gold
    from .model_choice import frequentist_channels

    table = _read_input(args)
    channel_fit, data = frequentist_channels(table.data, seed=args.seed)
    if channel_fit.failure:
        raise ValueError(
            f"{channel_fit.method} failed ({channel_fit.failure}); the plan needs estimated channels"
        )
    plan = plan_gold(data, channel_fit, sizes=args.sizes, seed=args.seed)
    if args.json:
        return json.dumps(
            {
                "level": plan.level,
                "from_gold": plan.from_gold,
                "rows": [
                    {"gold_items": size, "nc_ece_width": ece, "positive_rate_width": rate}
                    for size, ece, rate in zip(
                        plan.sizes, plan.nc_ece_width, plan.positive_rate_width
                    )
                ],
            },
            indent=2,
        )
    source = (
        f"from the residuals of the {data.n_gold} gold items there"
        if plan.from_gold
        else "from the model: the data have no gold yet"
    )
    lines = [
        f"bayescal plan: expected widths of {plan.level:.0%} intervals by number of random "
        f"gold items ({source}; channels by {channel_fit.described}). The NC-ECE widths are the "
        "posterior interval's; the frequentist bootstrap's run about a fifth wider.",
        "  gold items   NC-ECE width   positive rate width",
    ]
    lines += [
        f"  {size:>10}   {ece:>12.4f}   {rate:>19.4f}"
        for size, ece, rate in zip(plan.sizes, plan.nc_ece_width, plan.positive_rate_width)
    ]
    return "\n".join(lines)


def _oracle_ece(table, scores, n_bins: int) -> float:
    """ECE of ``scores`` against the table's truth column (a check on simulated or audited
    data; the truth is never used for fitting)."""
    from ..metrics.calibration import expected_calibration_error

    return expected_calibration_error(table.truth, scores, n_bins=n_bins)


def _dependent(args) -> list[tuple[str, str]] | None:
    """The ``--dependent NAME NAME`` pairs, or None."""
    return [tuple(pair) for pair in args.dependent] if args.dependent else None


def run_sensitivity(args) -> str:
    """``bayescal sensitivity``: the prior-sensitivity table."""
    from ..bayes.priors import read_priors
    from ..bayes.sensitivity import prior_sensitivity
    from ..report.folders import write_sensitivity
    from .model_choice import model_data, with_pairs

    out = _output_directory(args)
    named = read_priors(args.priors, named=True)
    table = _read_input(args)
    name, why, data = model_data(table.data, model=args.model)
    dependent = _dependent(args)
    result = prior_sensitivity(
        data,
        model=name,
        priors=named,
        n_bins=args.n_bins,
        sampler=_sampler_settings(args),
        dependent=dependent,
    )
    why = with_pairs(why, dependent)
    oracle = (
        None
        if table.truth is None
        else _oracle_ece(table, table.data.scores, v.as_n_bins(args.n_bins, data.n_items))
    )
    document = write_sensitivity(
        out, result, name, why, force=args.force, inputs=_inputs(args), oracle=oracle
    )
    if args.json:
        return json.dumps(document, indent=2, allow_nan=False)
    text = (
        f"bayescal sensitivity: model {name} ({why}); reference prior {result.reference!r}; "
        f"{result.level:.0%} intervals; shift = (mean - reference mean) / reference sd\n"
        f"{_sensitivity_text(result, out)}\n{result.conclusion()}"
    )
    return text if oracle is None else f"{text}\noracle ECE (truth column): {oracle:.4f}"


#: Rows of the sensitivity table printed whole; a longer one (a crowd's) is printed in brief.
PRINTED_ROWS = 60


def _sensitivity_text(result, out) -> str:
    """The sensitivity table for the terminal: whole, or for a crowd the NC-ECE and prevalence
    rows, the largest shifts of the others, and where the whole table is."""
    table = result.table.round(4)
    with _wide_display():
        if len(table) <= PRINTED_ROWS:
            return table.to_string()
        quantity = table.index.get_level_values("quantity")
        headline = table[(quantity == "nc_ece") | quantity.str.startswith("prevalence")]
        where = f"{out}/sensitivity.csv" if out is not None else "sensitivity.csv, with --out DIR"
        return (
            f"{headline.to_string()}\nLargest shifts from the reference:\n"
            f"{result.largest_shifts(count=10).round(4).to_string()}\n"
            f"(all {len(table)} rows in {where})"
        )


def _wide_display():
    import pandas as pd

    return pd.option_context("display.width", 200, "display.max_rows", 500)
