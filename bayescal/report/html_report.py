"""The HTML report of a fit, rendered from its :class:`~bayescal.report.Summary` and figures.

:func:`report_html` gives one self-contained document: figures inline as base64 PNG, no script
and no network reference, so it can be mailed or archived as is.  Every key number sits in an
element with a stable ``id`` (e.g. ``nc-ece-posterior-median``) so that a reader, or a test in a
browser, can find it.  :func:`summary_html` is the same tables without figures, which a notebook
shows for an :class:`~bayescal.app.Analysis`; :func:`draw_figures` draws the figures from
the summary and the channel posterior.  Reading and writing results folders is
:mod:`bayescal.report.folders`.
"""

from __future__ import annotations

import base64
import html
import io
import shlex

import numpy as np

from .._api import chance_text, p_value_text
from .._html import ChannelRow, cell, channel_table, checks_table, number, row, table
from ..bayes.registry import em_estimator
from ..channels.crowd_em import CROWD_ANNOTATORS
from .plotting import shown_workers
from .summary import Summary

__all__ = ["CAPTIONS", "draw_figures", "report_html", "summary_html"]

#: Figure names and the caption each gets in the report.
CAPTIONS = {
    "reliability": "Reliability diagram. Blue: posterior median of each bin's noise-corrected fraction positive, with its credible band; "
    "the naive curves score the predictor against the raw votes and are biased; the dotted diagonal is perfect calibration.",
    "channels": "Annotator channels: false-positive rate a and sensitivity b, posterior median and interval (red cross: EM estimate).",
    "patterns": "Posterior predictive check: observed minus expected count of each response pattern, with the replicated interval (red: outside).",
    "agreement": "Pairwise agreement of the annotators against what conditional independence predicts (red: outside the replicated interval).",
}

STYLE = """
.verdict { border: 2px solid #444; border-radius: 6px; padding: .6em 1em; margin: 1em 0; background: #f7f7f2; }
.verdict p { margin: .3em 0; } .verdict .sentence { font-size: 1.25em; font-weight: bold; }
details { margin: .6em 0; } details > summary { cursor: pointer; font-size: 1.1em; font-weight: bold; padding: .2em 0; }
#figure-reliability img { width: 100%; }
body { font-family: system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: right; }
th:first-child, td:first-child, td.text { text-align: left; }
tr.flagged td { background: #fde8e8; }
.status { font-weight: bold; } .note { color: #555; font-size: .9em; }
figure { margin: 1em 0; } figcaption { font-size: .85em; color: #555; max-width: 45em; }
img { max-width: 100%; }
"""


def interval_text(pair, digits: int = 4) -> str:
    low, high = pair
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def pairs_rows(rows) -> list[str]:
    """Two-column rows ``(field, value)``, both shown as text."""
    return [row(cell(name, text=True), cell(value, text=True)) for name, value in rows]


def verdict_html(verdict) -> str:
    """The box the report opens with (:class:`~bayescal.report.summary.Verdict`); empty for a summary
    written before there was one."""
    if verdict is None:
        return ""
    nc_ece = verdict.nc_ece
    which = "" if verdict.kind is None else f"{verdict.kind.replace('_', '-')} "
    p_value = p_value_text(verdict.p_value)
    return (
        '<section class="verdict" id="verdict">'
        f'<p class="sentence" id="verdict-sentence">{html.escape(verdict.sentence)}</p>'
        f"<p>{which}NC-ECE (posterior median) "
        f'<b id="verdict-nc-ece">{nc_ece.median:.4f}</b>, {nc_ece.level:.0%} interval '
        f'<span id="verdict-nc-ece-interval">{interval_text(nc_ece.interval)}</span>; '
        f'calibration test p-value <b id="verdict-p-value">{p_value}</b>; '
        f"chance that NC-ECE is at most {verdict.tolerance:g} "
        "(a predictor that close to calibrated needs no fixing): "
        f'<b id="verdict-prob-within-tolerance">{chance_text(verdict.prob_within_tolerance)}</b>.</p>'
        '<p class="note">It replaces the naive ECE against the raw votes: '
        f'<span id="verdict-naive-soft-vote">{verdict.naive["soft_vote"]:.4f}</span> (soft vote), '
        f'<span id="verdict-naive-majority-vote">{verdict.naive["majority_vote"]:.4f}</span> '
        "(majority vote), both biased by the annotators' noise.</p></section>"
    )


#: What NC-ECE is, said where the report first names it.
NC_ECE_MEANING = (
    "NC-ECE, the noise-corrected expected calibration error, is the predictor's ECE against "
    "the true labels, which no one has seen: the annotators' labels are corrected for their "
    "estimated errors first. 0 is perfect calibration; 0.05 means that the scores are 5 "
    "percentage points away from the true rate of positives, on average over the score bins."
)


def _meaning() -> str:
    """What NC-ECE is, under the verdict that first names it (the report and the notebook view)."""
    return f'<p class="note" id="nc-ece-meaning">{html.escape(NC_ECE_MEANING)}</p>'


#: How the report names each map of the recalibration preview.
MAP_NAMES = {"platt": "Platt scaling", "histogram": "histogram binning"}


def _recalibration_section(summary: Summary) -> str:
    """What to do: the NC-ECE before and after the corrected maps, both on the same held-out
    half, and the command that writes the better map (empty for an older summary)."""
    preview = summary.recalibration
    if preview is None:
        return ""
    level = preview.before.level
    bounds = preview.after_bound or {}

    def bound_cells(method=None) -> list[str]:
        """A map's upper bound and chance within the tolerance (none for the original
        scores, or in a summary written before they were kept)."""
        if not bounds:
            return []
        if method not in bounds:
            return [cell("—"), cell("—")]
        bound = bounds[method]
        return [
            cell(number(bound.upper_bound), f"recalibration-{method}-upper-bound"),
            cell(chance_text(bound.chance_within), text=True),
        ]

    rows = [
        row(
            cell("original scores", text=True),
            cell(number(preview.before.median), "recalibration-before"),
            cell(interval_text(preview.before.interval), text=True, nowrap=True),
            *bound_cells(),
        )
    ]
    for method, after in preview.after.items():
        rows.append(
            row(
                cell(f"{MAP_NAMES.get(method, method)} (corrected)", text=True),
                cell(number(after.median), f"recalibration-{method}"),
                cell(interval_text(after.interval), text=True, nowrap=True),
                *bound_cells(method),
            )
        )
    header = ["scores", "NC-ECE (posterior median)", f"{level:.0%} interval"]
    if bounds:
        tolerance = next(iter(bounds.values())).tolerance
        header += [f"{level:.0%} upper bound", f"chance that NC-ECE ≤ {tolerance:g}"]
    best = min(preview.after, key=lambda method: preview.after[method].median)
    total = summary.model.chains * summary.model.draws_per_chain
    draws = (
        "one map per posterior draw of the channels"
        if preview.n_draws in (None, total)
        else f"one map for each of {preview.n_draws} of the {total} posterior draws of the "
        "channels, evenly spaced through the chains"
    )
    return "\n".join(
        [
            "<h2>What to do: recalibrate</h2>",
            f"<p>Maps fitted to the noise-corrected labels of {preview.n_fit} items ({draws}), "
            f"scored with the original scores on the other {preview.n_eval}:</p>",
            table(header, rows),
            *(
                [
                    f'<p class="note">After a map, NC-ECE lies near 0, where a two-sided '
                    "interval misses it from above more often than its level says: read the "
                    f"upper bound (NC-ECE is below it with {level:.0%} probability) and the "
                    "chance that the map's NC-ECE is small enough to need nothing more.</p>"
                ]
                if bounds
                else []
            ),
            f'<p class="note">The original scores\' NC-ECE here '
            f"({number(preview.before.median)}) is measured on the {preview.n_eval} items the "
            f"maps never saw, so that every row is scored on the same items; the headline "
            f"({number(summary.ece.nc_ece.posterior.median)}) is measured on all "
            f"{summary.data.n_items}. A map scored on the items it was fitted to would look "
            "better than it is.</p>",
            f"<p>To write the {html.escape(MAP_NAMES.get(best, best))} map fitted to every item:</p>",
            f'<pre id="recalibrate-command">{html.escape(_recalibrate_command(summary, best))}</pre>',
        ]
    )


#: The long format's column options and their defaults (``bayescal recalibrate --long``).
LONG_COLUMNS = {"item": "item", "annotator": "annotator", "label": "label"}


def _recalibrate_command(summary: Summary, method: str) -> str:
    """``bayescal recalibrate`` for the input the fit read (wide or long, with its gold
    columns); for an analysis run from Python, the ``bc.recalibrate`` call with the EM
    estimator of the fitted model (``crowd_em`` for a crowd)."""
    source = summary.input or {}
    # a summary written before the input record kept the gold column and a long table's
    # column names cannot say them: its command would read other columns, or drop the gold
    had_gold = summary.ece.gold is not None
    unrecorded = (had_gold and "gold" not in source) or (
        source.get("long") and "item" not in source
    )
    if (
        unrecorded
        or not all(source.get(key) for key in ("table", "score"))
        or not (source.get("long") or source.get("annotators"))
    ):
        estimator = em_estimator(summary.model.name, len(summary.data.annotators))
        return f'bc.recalibrate(data, method="{method}", channels="{estimator}")'
    words = ["bayescal", "recalibrate", source["table"]]
    if source.get("long"):
        words += ["--long", "--scores", source["scores"]]
        for option, default in LONG_COLUMNS.items():
            if source.get(option, default) != default:
                words += [f"--{option}", source[option]]
    words += ["--score", source["score"]]
    if source.get("annotators"):
        # a name with a comma or a space goes in double quotes (bayescal's --annotators)
        names = [f'"{n}"' if "," in n or " " in n else n for n in source["annotators"]]
        words += ["--annotators", ",".join(names)]
    for option in ("gold", "gold_weights"):
        if source.get(option):
            words += [f"--{option.replace('_', '-')}", source[option]]
    return shlex.join([*words, "--method", method, "--out", "recalibrated"])


def details_html(name: str, title: str, body: str) -> str:
    """A section collapsed by default: opened by a click, no script."""
    return (
        f'<details id="details-{name}"><summary>{html.escape(title)}</summary>\n{body}\n</details>'
    )


def calibration_test_html(test) -> str:
    """The calibration test's statistic and its bins (a
    :class:`~bayescal.report.summary.CalibrationTestSummary`, or None when it did not run)."""
    if test is None:
        return "<p>The calibration test did not run (see the warnings).</p>"
    rows = [
        row(
            cell(f"{low:.2f}–{high:.2f}", text=True),
            cell(n),
            cell(number(residual)),
            cell(number(contribution, 2)),
        )
        for low, high, n, residual, contribution in zip(
            test.lower, test.upper, test.n_items, test.residual, test.contribution
        )
    ]
    return "\n".join(
        [
            f"<p>Statistic {test.statistic:.2f} on {test.df} degrees of freedom, p-value "
            f'<span id="calibration-test-p-value">{p_value_text(test.p_value)}</span>. '
            f"{html.escape(test.method)}.</p>",
            table(["scores", "items", "corrected label − score", "share of the statistic"], rows),
            '<p class="note">A positive residual: the predictor is too low there. The test '
            "cannot see miscalibration that cancels within a bin.</p>",
        ]
    )


def labels_given(summary: Summary) -> dict[str, int]:
    """Each annotator's number of labels: its items, ``n_items (1 - missing rate)``."""
    data = summary.data
    return {
        name: round(data.n_items * (1.0 - rate)) for name, rate in data.missing_by_annotator.items()
    }


def _is_crowd(summary: Summary) -> bool:
    """A crowd's workers each label a few items: their missing rates (54-99%) say little, their
    numbers of labels say how much each is known."""
    return len(summary.data.annotators) > CROWD_ANNOTATORS


def _data_section(summary: Summary) -> str:
    data = summary.data
    source = summary.input or {}
    groups = "".join(row(cell(g), cell(n, f"group-{g}-size")) for g, n in data.groups.items())
    if _is_crowd(summary):
        counts = np.array(list(labels_given(summary).values()))
        workers = [
            row(cell("annotators"), cell(f"{len(data.annotators)} workers", "annotators")),
            row(
                cell("labels per worker"),
                cell(
                    f"median {np.median(counts):g} (from {counts.min()} to {counts.max()}; "
                    f"{counts.sum()} in all)",
                    "labels-per-worker",
                    text=True,
                ),
            ),
        ]
    else:
        workers = [
            row(cell("annotators"), cell(", ".join(data.annotators), "annotators", text=True)),
            row(cell("missing labels"), cell(format(data.missing_rate, ".1%"), "missing-rate")),
            *(
                row(cell(f"… of {name}"), cell(format(rate, ".1%"), f"missing-{name}"))
                for name, rate in data.missing_by_annotator.items()
            ),
        ]
    rows = [
        row(cell("table"), cell(source.get("table", "—"), "input-table", text=True)),
        row(cell("items"), cell(data.n_items, "n-items")),
        *workers,
    ]
    # a model without score groups has one group of every item: nothing to show
    grouped = len(data.groups) > 1
    return "\n".join(
        [
            table(["quantity", "value"], rows),
            *(
                ["<p>Score groups and their sizes:</p>", table(["group", "items"], [groups])]
                if grouped
                else []
            ),
        ]
    )


def _model_section(summary: Summary) -> str:
    model, identification, diagnostics = summary.model, summary.identification, summary.diagnostics
    priors = ", ".join(
        f"{name} Beta({a:g}, {b:g})" for name, (a, b) in model.priors.to_dict().items()
    )
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in identification.notes)
    return "\n".join(
        [
            f'<p>Model: <b id="model-name">{html.escape(model.name)}</b> ({html.escape(model.why)}); '
            f"priors: {html.escape(priors)}; {model.chains} chains × {model.draws_per_chain} draws.</p>",
            '<p>Identification status: <span class="status" id="identification-status">'
            f"{html.escape(identification.status)}</span></p>",
            f"<ul>{notes}</ul>",
            f'<p>Sampling diagnostics: max R-hat <span id="max-r-hat">{number(diagnostics.max_r_hat, 3)}</span>, '
            f'min bulk ESS <span id="min-ess">{number(diagnostics.min_ess_bulk, 0)}</span>, '
            f'divergences <span id="divergences">{diagnostics.divergences}</span>.</p>',
        ]
    )


#: The flag of an annotator whose gap's interval holds 0, explained above the table.
CHANCE_FLAG = "chance level"

#: An annotator is flagged when the R-hat of its a, b or gap is above this (Vehtari et al. 2021).
FLAG_R_HAT = 1.01


def _annotator_flag(entry) -> str:
    """What a reader choosing judges must know of one annotator, or ``""``."""
    low, high = entry.gap.interval
    flags = []
    if high < 0:
        flags.append("adversarial (b < a)")
    elif low <= 0:
        flags.append(CHANCE_FLAG)
    r_hats = [x.r_hat for x in (entry.a, entry.b, entry.gap) if x.r_hat is not None]
    if r_hats and max(r_hats) > FLAG_R_HAT:
        flags.append(f"not converged (R-hat {max(r_hats):.3f})")
    return "; ".join(flags)


def _annotator_section(summary: Summary) -> str:
    """One row per annotator, most informative first (posterior mean of ``b - a`` with its
    interval), with its missing rate and flags: the table for choosing which judges to keep.
    A crowd shows its most and least informative; every annotator is in summary.json."""
    entries = [(name, entry) for name, entry in summary.channels.items() if entry.gap is not None]
    if not entries:  # a summary written before the gap was recorded
        return ""
    gaps = np.array([entry.gap.posterior_mean for _, entry in entries])
    shown, note = shown_workers(gaps, "annotators")
    missing, labels = summary.data.missing_by_annotator, labels_given(summary)
    crowd = _is_crowd(summary)
    rows = []
    for name, entry in (entries[j] for j in shown[np.argsort(-gaps[shown], kind="stable")]):
        flag = _annotator_flag(entry)
        rows.append(
            row(
                cell(name),
                cell(number(entry.gap.posterior_mean, 3), f"gap-{name}"),
                cell(interval_text(entry.gap.interval, 3), text=True, nowrap=True),
                cell(number(entry.a.posterior_mean, 3)),
                cell(number(entry.b.posterior_mean, 3)),
                cell(labels.get(name, 0), f"labels-{name}"),
                *([] if crowd else [cell(format(missing.get(name, 0.0), ".1%"))]),
                cell(flag, f"flag-{name}", text=True, nowrap=True),
                flagged=bool(flag),
            )
        )
    level = summary.ece.nc_ece.posterior.level
    header = [
        "annotator",
        "gap b − a",
        f"{level:.0%} interval",
        "false-positive rate a",
        "sensitivity b",
        "labels",
        *([] if crowd else ["missing"]),
        "flag",
    ]
    text = (
        "Most informative first (posterior mean of the gap b − a; 0 is a coin flip; "
        f"{CHANCE_FLAG}: the interval of b − a holds 0). "
    ) + (
        f"{note.strip().strip('()').replace('median', 'mean').capitalize()}; every annotator "
        "is in summary.json."
        if note
        else ""
    )
    return f'<p class="note">{html.escape(text)}</p>\n' + table(header, rows)


def _channel_section(summary: Summary) -> str:
    """Every channel parameter, posterior and EM, with R-hat and ESS (a crowd: its most and
    least informative)."""
    rows = []
    entries = list(summary.channels.items())
    gap = [entry.b.posterior_mean - entry.a.posterior_mean for _, entry in entries]
    shown, note = shown_workers(np.array(gap), "annotators")
    for annotator, entry in (entries[j] for j in shown):
        for label, name in (("a", "false-positive rate a"), ("b", "sensitivity b")):
            value = getattr(entry, label)
            key = f"{label}-{annotator}"
            rows.append(ChannelRow(annotator, name, value.em, *_estimates(value), key))
    rows += [
        ChannelRow(parameter, "class proportion", None, *_estimates(value))
        for parameter, value in summary.prevalence.items()
    ]
    level = summary.ece.nc_ece.posterior.level
    note = (
        f"<p>{html.escape(note.strip().strip('()').replace('median', 'mean'))}, most informative "
        "first; every annotator is in summary.json.</p>\n"
        if note
        else ""
    )
    return note + channel_table(rows, level)


def _estimates(value) -> tuple:
    """Posterior mean, interval, R-hat and bulk ESS of a parameter's summary."""
    return value.posterior_mean, value.interval, value.r_hat, value.ess_bulk


def _rates_section(summary: Summary) -> str:
    """The corrected rates (with gold items), or nothing."""
    rates = summary.rates
    if rates is None:
        return ""
    rows = [
        row(
            cell(name.replace("_", " "), text=True),
            cell(number(estimate.value)),
            cell(interval_text(estimate.interval), text=True, nowrap=True),
            cell(number(rates.model[name])),
        )
        for name, estimate in rates.estimates.items()
    ]
    raw = ", ".join(f"{name} {value:.3f}" for name, value in rates.raw_positive_rates.items())
    return (
        f"<p>Corrected rates ({rates.estimator} with {rates.n_gold} gold items, predictor's "
        f"threshold {rates.threshold:g}); the annotators' raw positive rates: "
        f"{html.escape(raw)}.</p>\n"
        + table(["rate", rates.estimator, f"{rates.level:.0%} interval", "model-based"], rows)
    )


def _gold_rows(gold, level: float) -> list[str]:
    """The gold items' rows of the ECE table: their ECE alone, and each judge against them."""
    if gold is None:
        return []
    alone = gold.gold_only
    rows = [
        row(
            cell(f"ECE of the {gold.n_gold} gold items alone", text=True),
            cell(number(alone.value), "gold-only-ece"),
            cell(
                f"{level:.0%} interval {interval_text(alone.interval)}; NC-ECE above is "
                f"{gold.estimator} with the gold items",
                text=True,
            ),
        )
    ]
    for name, judge in gold.judges.items():
        rows.append(
            row(
                cell(f"{name} against the gold", text=True),
                cell(number(judge.kappa)),
                cell(f"kappa; {judge.text()}", text=True),
            )
        )
    return rows


def _ece_section(summary: Summary) -> str:
    ece = summary.ece
    frequentist, posterior, oracle = ece.nc_ece.frequentist, ece.nc_ece.posterior, ece.oracle
    rows = [
        row(
            cell("naive: soft vote (mean of the votes)", text=True),
            cell(number(ece.naive["soft_vote"]), "naive-soft-vote"),
            cell("biased", text=True),
        ),
        row(
            cell("naive: majority vote", text=True),
            cell(number(ece.naive["majority_vote"]), "naive-majority-vote"),
            cell("biased", text=True),
        ),
        row(
            cell("NC-ECE, EM channels (frequentist)", text=True),
            cell(number(frequentist.value), "nc-ece-frequentist"),
            cell(
                (
                    ""
                    if frequentist.interval is None
                    else f"{posterior.level:.0%} interval {interval_text(frequentist.interval)}; "
                )
                + (frequentist.reason or frequentist.estimator or ""),
                text=True,
            ),
        ),
        row(
            cell("NC-ECE, posterior median", text=True),
            cell(number(posterior.median), "nc-ece-posterior-median"),
            cell(
                f"{posterior.level:.0%} interval " + interval_text(posterior.interval),
                "nc-ece-posterior-interval",
                text=True,
            ),
        ),
        *_gold_rows(ece.gold, posterior.level),
        row(
            cell("oracle ECE (truth column)", text=True),
            cell(number(oracle.value), "oracle-ece"),
            cell(oracle.reason or "true labels", text=True),
        ),
    ]
    return table(["estimate", "ECE", "note"], rows)


def _record_section(summary: Summary) -> str:
    record = summary.record
    balance = record.class_balance
    fields = [
        ("sample size", record.n_items),
        (
            "class balance (posterior mean prevalence)",
            f"{balance.prevalence_posterior_mean:.3f} {interval_text(balance.interval, 3)}",
        ),
        ("label provenance", record.provenance),
        ("annotator count", record.n_annotators),
        ("repeat rate (items labelled more than once)", f"{record.repeat_rate:.1%}"),
        ("fitted or held out", record.fitted_or_held_out),
        ("interval method", record.interval_method),
        ("binning", record.binning),
    ]
    parts = [table(["field", "value"], pairs_rows(fields))]
    judged = record.against_truth
    if judged is not None:
        accuracy = (
            "—"
            if judged.accuracy is None
            else f"{judged.accuracy:.3f} {interval_text(judged.accuracy_interval, 3)} (Wilson)"
        )
        kappa = judged.kappa
        kappa_text = (
            "—"
            if kappa is None
            else f"{kappa.estimate:.3f} [{kappa.lower:.3f}, {kappa.upper:.3f}] "
            f"(bootstrap, {kappa.n_valid} of {kappa.n_boot} replicates)"
        )
        baseline = judged.baseline
        truth_rows = [
            (
                "items, positive / negative",
                f"{judged.n_items}, {judged.n_positive} / {judged.n_negative}",
            ),
            ("accuracy", accuracy),
            ("Cohen's kappa", kappa_text),
            (
                "false accepts / false rejects",
                f"{judged.rates.false_positive} / {judged.rates.false_negative}",
            ),
            ("Youden index (prevalence-free)", number(judged.youden, 3)),
            (
                "baseline: constant predictor",
                f"always {baseline['predicts']}: accuracy {number(baseline.get('accuracy'), 3)}",
            ),
        ]
        parts += [
            "<p>The predictor as a judge (score ≥ 0.5) against the truth column:</p>",
            table(["field", "value"], pairs_rows(truth_rows)),
            *(f'<p class="note">{html.escape(note)}</p>' for note in judged.notes),
        ]
    return "\n".join(parts)


def check_figure_names(figures: dict, captions: dict) -> None:
    """Refuse a figure the report has no caption, and so no place, for."""
    unknown = set(figures) - set(captions)
    if unknown:
        raise ValueError(f"figures must be named among {sorted(captions)}; saw {sorted(unknown)}")


def figure_html(name: str, png: bytes, captions: dict[str, str] = CAPTIONS) -> str:
    """A figure inline (base64 PNG) with its caption from ``captions``."""
    encoded = base64.b64encode(png).decode("ascii")
    caption = html.escape(captions[name])
    return (
        f'<figure id="figure-{name}"><img alt="{caption}" src="data:image/png;base64,{encoded}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _checked(summary) -> Summary:
    if not isinstance(summary, Summary):
        raise TypeError(f"summary must be a bayescal.report.Summary; saw {type(summary).__name__}")
    return summary


def summary_html(summary: Summary) -> str:
    """The report's tables without its figures: how a notebook shows an analysis, the verdict
    first."""
    summary = _checked(summary)
    return "\n".join(
        [
            verdict_html(summary.verdict),
            _meaning(),
            _recalibration_section(summary),
            f"<h2>Expected calibration error ({summary.ece.n_bins} equal-width bins)</h2>",
            _ece_section(summary),
            _rates_section(summary),
            "<h2>Annotators</h2>",
            _annotator_section(summary),
            details_html(
                "channels", "Channel estimates, parameter by parameter", _channel_section(summary)
            ),
            details_html("checks", "Model checks", _checks_section(summary)),
            details_html("model", "Model, identification and diagnostics", _model_section(summary)),
            details_html("data", "Data", _data_section(summary)),
        ]
    )


def report_html(summary: Summary, figures: dict[str, bytes]) -> str:
    """The report as one self-contained HTML document: the verdict, the reliability diagram,
    the ECE table and the annotators first; the details collapsed (``<details>``, no script).

    Parameters
    ----------
    summary : Summary
    figures : dict of str to bytes
        PNG images by name (keys of :data:`CAPTIONS`); absent ones are left out.
    """
    summary = _checked(summary)
    check_figure_names(figures, CAPTIONS)

    def shown(*names) -> str:
        return "\n".join(figure_html(name, figures[name]) for name in names if name in figures)

    body = [
        "<h1>bayescal calibration report</h1>",
        verdict_html(summary.verdict),
        _meaning(),
        shown("reliability"),
        _recalibration_section(summary),
        warnings_html(summary.warnings),
        f"<h2>Expected calibration error ({summary.ece.n_bins} equal-width bins)</h2>",
        _ece_section(summary),
        _rates_section(summary),
        "<h2>Annotators</h2>",
        _annotator_section(summary),
        shown("channels"),
        details_html(
            "channels", "Channel estimates, parameter by parameter", _channel_section(summary)
        ),
        details_html(
            "calibration-test",
            "Calibration test, bin by bin",
            calibration_test_html(summary.calibration_test),
        ),
        details_html(
            "checks", "Model checks", _checks_section(summary) + shown("patterns", "agreement")
        ),
        details_html("model", "Model, identification and diagnostics", _model_section(summary)),
        details_html("data", "Data", _data_section(summary)),
        details_html(
            "record", "Calibration record (the fields that apply)", _record_section(summary)
        ),
        f'<footer class="note">Written by bayescal {html.escape(summary.bayescal_version)}.</footer>',
    ]
    return html_document(body)


def html_document(body: list[str]) -> str:
    """The report's parts as one self-contained document with its style."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>bayescal report</title>'
        f"<style>{STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _checks_section(summary: Summary) -> str:
    return checks_table(summary.checks.verdicts, summary.checks.table)


def warnings_html(lines) -> str:
    """The warnings the fit showed on the console, first: a reader of the report later must
    see them too (more bins than items, an adversarial annotator, failed diagnostics)."""
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f'<h2>Warnings</h2>\n<ul id="warnings">{items}</ul>'


def png_bytes(ax, *, dpi: int = 110) -> bytes:
    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


#: The reliability diagram follows the verdict at the report's full width: drawn larger and
#: sharper than the other figures (inches, dots per inch).
RELIABILITY_SIZE, RELIABILITY_DPI = (7.0, 5.6), 150


def draw_figures(summary: Summary, fit) -> dict[str, bytes]:
    """The report's figures as PNG bytes, from the summary and the channel posterior ``fit``,
    drawn off pyplot (:func:`bayescal.report.plotting.detached_figures`): a notebook's backend and
    figures are never touched.  Names in any script are drawn with an installed font that has
    their glyphs (:func:`bayescal.report.plotting.fallback_fonts`)."""
    from .plotting import detached_figures, fallback_fonts

    with detached_figures(), fallback_fonts():
        return _figures(summary, fit)


def _em_label(summary: Summary) -> str:
    """The EM's name in the channel figure, saying why the crosses of sparse workers sit
    together: crowd_em gives the workers with too few labels their pool's shared channel."""
    pooled = sum(bool(entry.em_pooled) for entry in summary.channels.values())
    if not pooled:
        return "EM"
    return f"EM ({pooled} workers with\nfew labels share the\npool's channel)"


def _figures(summary: Summary, fit) -> dict[str, bytes]:
    from ..channels import Channels
    from .plotting import (
        plot_channels,
        plot_pairwise_agreement,
        plot_ppc_residuals,
        plot_reliability,
    )

    summary = _checked(summary)
    band, curves = summary.reliability.band_and_curves()
    reliability = plot_reliability(band, curves=curves)
    reliability.figure.set_size_inches(*RELIABILITY_SIZE)
    figures = {"reliability": png_bytes(reliability, dpi=RELIABILITY_DPI)}
    entries = summary.channels.values()
    references = {}
    if all(entry.a.em is not None for entry in entries):
        references[_em_label(summary)] = Channels(
            np.array([e.a.em for e in entries]),
            np.array([e.b.em for e in entries]),
            names=list(summary.channels),
        )
    level = summary.ece.nc_ece.posterior.level
    figures["channels"] = png_bytes(plot_channels(fit, references=references, level=level))
    checks = summary.checks.frame()
    for name, plot, check in (
        ("patterns", plot_ppc_residuals, "pattern"),
        ("agreement", plot_pairwise_agreement, "pairwise_agreement"),
    ):
        if (checks["check"] == check).any():
            figures[name] = png_bytes(plot(checks))
    return figures
