"""The HTML report of a multi-class fit, rendered from its
:class:`~bayescal.report.class_summary.ClassSummary` and figures.

The same self-contained document as the binary report (:mod:`bayescal.report.html_report`,
whose parts it shares): the verdict, the top label's reliability diagram, the top-label and
classwise ECE, each class's NC-ECE and reliability diagram, the annotators' confusion
matrices as heat maps, then the details collapsed.  Key numbers sit in elements with stable
``id`` s (``nc-ece-posterior-median-top-label``).
"""

from __future__ import annotations

import html

from .._html import cell, number, row, table
from .class_summary import KIND_NAMES, ClassSummary
from .html_report import (
    calibration_test_html,
    check_figure_names,
    details_html,
    figure_html,
    html_document,
    interval_text,
    png_bytes,
    verdict_html,
    warnings_html,
)

__all__ = ["CLASS_CAPTIONS", "class_report_html", "class_summary_html", "draw_class_figures"]

#: Figure names of the multi-class report and the caption each gets.
CLASS_CAPTIONS = {
    "reliability": "Top-label reliability diagram. Blue: posterior median of each confidence "
    "bin's noise-corrected accuracy (how often the predicted class is the true one), with its "
    "credible band; the naive curves score the predictor against the raw votes and are biased; "
    "the dotted diagonal is perfect calibration.",
    "class_reliability": "Each class's reliability diagram: the predicted probability of the "
    "class against the noise-corrected fraction of items of that class, per bin (the classwise "
    "ECE's problems).",
    "confusion": "The annotators' confusion matrices, posterior mean: row y, column k is the "
    "chance that the annotator says k when the true class is y. A perfect annotator is 1 on "
    "the diagonal.",
}

#: What the multi-class NC-ECEs are, said where the report first names them.
CLASS_NC_ECE_MEANING = (
    "NC-ECE, the noise-corrected expected calibration error, is the predictor's ECE against the "
    "true classes, which no one has seen: the annotators' labels are corrected for their "
    "estimated confusion matrices first. Top-label NC-ECE compares the confidence (the largest "
    "probability) with how often the predicted class is right; classwise NC-ECE compares each "
    "class's probability with how often the item is of that class, averaged over the classes. "
    "0 is perfect calibration."
)


def _checked(summary) -> ClassSummary:
    if not isinstance(summary, ClassSummary):
        raise TypeError(
            f"summary must be a bayescal.report.class_summary.ClassSummary; saw "
            f"{type(summary).__name__}"
        )
    return summary


def _ece_section(summary: ClassSummary) -> str:
    """Each kind's naive, corrected and oracle ECE side by side."""
    kinds = list(summary.ece)

    def line(label: str, values, key: str, note: str = "") -> str:
        cells = [
            cell(number(value), f"{key}-{kind.replace('_', '-')}")
            for kind, value in zip(kinds, values)
        ]
        return row(cell(label, text=True), *cells, cell(note, text=True))

    eces = [summary.ece[kind] for kind in kinds]
    level = eces[0].posterior.level
    rows = [
        line(
            "naive: soft vote (shares of the votes)",
            [e.naive["soft_vote"] for e in eces],
            "naive-soft-vote",
            "biased",
        ),
        line(
            "naive: majority vote",
            [e.naive["majority_vote"] for e in eces],
            "naive-majority-vote",
            "biased",
        ),
        line(
            "NC-ECE, EM matrices (frequentist)",
            [e.frequentist.value for e in eces],
            "nc-ece-frequentist",
            "; ".join(
                dict.fromkeys(e.frequentist.reason or e.frequentist.estimator or "" for e in eces)
            ),
        ),
        line(
            "NC-ECE, posterior median",
            [e.posterior.median for e in eces],
            "nc-ece-posterior-median",
            f"{level:.0%} intervals: "
            + ", ".join(
                f"{KIND_NAMES[kind]} {interval_text(e.posterior.interval)}"
                for kind, e in zip(kinds, eces)
            ),
        ),
        line(
            "oracle ECE (truth column)",
            [e.oracle.value for e in eces],
            "oracle-ece",
            eces[0].oracle.reason or "true labels",
        ),
    ]
    evaluated = eces[0].n_evaluated
    note = (
        ""
        if evaluated == summary.data.n_items
        else f'<p class="note" id="n-evaluated">NC-ECE scores {evaluated} of the '
        f"{summary.data.n_items} items: the others have labels only from annotators whose "
        "confusion matrix cannot be inverted; the naive and oracle ECEs score every item.</p>"
    )
    return table(["estimate", *(KIND_NAMES[kind] for kind in kinds), "note"], rows) + note


def _class_section(summary: ClassSummary) -> str:
    """Each class's NC-ECE (the classwise ECE is their mean) and its proportion."""
    classwise = summary.ece["classwise"].classes or {}
    rows = [
        row(
            cell(name, text=True),
            cell(number(posterior.median), f"class-nc-ece-{name}"),
            cell(interval_text(posterior.interval), text=True, nowrap=True),
            cell(number(summary.proportion[name].posterior_mean, 3)),
        )
        for name, posterior in classwise.items()
    ]
    level = summary.ece["classwise"].posterior.level
    return table(
        ["class", "NC-ECE (posterior median)", f"{level:.0%} interval", "class proportion"], rows
    )


def _annotator_section(summary: ClassSummary) -> str:
    """Each annotator's accuracy on each true class (the matrix's diagonal), posterior mean
    with the EM estimate beside it."""
    classes = summary.data.classes
    rows = []
    for name, entry in summary.confusion.items():
        mean, em = entry.matrix(), None if entry.em is None else entry.matrix("em")
        cells = [
            cell(
                number(mean[k, k], 3) + ("" if em is None else f" (EM {number(em[k, k], 3)})"),
                f"accuracy-{name}-{label}",
                nowrap=True,
            )
            for k, label in enumerate(classes)
        ]
        rows.append(row(cell(name, text=True), *cells, cell(number(entry.max_r_hat, 3))))
    return "\n".join(
        [
            table(["annotator", *(f"P(says {c} | is {c})" for c in classes), "max R-hat"], rows),
            '<p class="note">The diagonal of each confusion matrix: how often the annotator '
            "gives an item of each class its right label (posterior mean; EM in brackets). The "
            "whole matrices are the heat maps.</p>",
        ]
    )


def _model_section(summary: ClassSummary) -> str:
    model, diagnostics = summary.model, summary.diagnostics
    own, other = model.priors.confusion
    return (
        f'<p>Model: <b id="model-name">{html.escape(model.name)}</b> ({html.escape(model.why)}); '
        f"priors: each confusion row Dirichlet with {own:g} on its own class and {other:g} on "
        f"each other, class proportions Dirichlet({model.priors.proportion:g}); "
        f"{model.chains} chains × {model.draws_per_chain} draws.</p>"
        f'<p>Sampling diagnostics: max R-hat <span id="max-r-hat">{number(diagnostics.max_r_hat, 3)}</span>, '
        f'min bulk ESS <span id="min-ess">{number(diagnostics.min_ess_bulk, 0)}</span>, '
        f'divergences <span id="divergences">{diagnostics.divergences}</span>.</p>'
    )


def _data_section(summary: ClassSummary) -> str:
    data = summary.data
    scale = "ordinal (a scale in this order)" if data.ordinal else "nominal"
    missing = ", ".join(f"{name} {rate:.1%}" for name, rate in data.missing_by_annotator.items())
    merged = (
        f" Merged, because the labels do not tell their classes apart: "
        f"{html.escape(', '.join(data.merged))}."
        if data.merged
        else ""
    )
    return (
        f"<p>{data.n_items} items, {len(data.classes)} classes ({html.escape(', '.join(data.classes))}; "
        f"{scale}), {len(data.annotators)} annotators, {data.n_gold} gold items; labels missing: "
        f"{data.missing_rate:.1%} overall ({html.escape(missing)}).{merged}</p>"
    )


def _meaning() -> str:
    return f'<p class="note" id="nc-ece-meaning">{html.escape(CLASS_NC_ECE_MEANING)}</p>'


def _tables(summary: ClassSummary, shown) -> list[str]:
    """The report's parts in order; ``shown(name)`` places a figure (nothing in a notebook)."""
    return [
        verdict_html(summary.verdict),
        _meaning(),
        shown("reliability"),
        warnings_html(summary.warnings),
        f"<h2>Expected calibration error ({summary.n_bins} equal-width bins)</h2>",
        _ece_section(summary),
        "<h2>Classes</h2>",
        _class_section(summary),
        shown("class_reliability"),
        "<h2>Annotators</h2>",
        _annotator_section(summary),
        shown("confusion"),
        details_html(
            "calibration-test",
            "Calibration test (top label), bin by bin",
            calibration_test_html(summary.calibration_test),
        ),
        details_html("model", "Model and diagnostics", _model_section(summary)),
        details_html("data", "Data", _data_section(summary)),
    ]


def class_summary_html(summary: ClassSummary) -> str:
    """The report's tables without its figures: how a notebook shows a multi-class analysis."""
    summary = _checked(summary)
    return "\n".join(part for part in _tables(summary, lambda name: "") if part)


def class_report_html(summary: ClassSummary, figures: dict[str, bytes]) -> str:
    """The multi-class report as one self-contained HTML document.

    Parameters
    ----------
    summary : ClassSummary
    figures : dict of str to bytes
        PNG images by name (keys of :data:`CLASS_CAPTIONS`); absent ones are left out.
    """
    summary = _checked(summary)
    check_figure_names(figures, CLASS_CAPTIONS)

    def shown(name: str) -> str:
        return figure_html(name, figures[name], CLASS_CAPTIONS) if name in figures else ""

    body = [
        "<h1>bayescal calibration report (multi-class)</h1>",
        *(part for part in _tables(summary, shown) if part),
        f'<footer class="note">Written by bayescal {html.escape(summary.bayescal_version)}.</footer>',
    ]
    return html_document(body)


#: The top-label diagram follows the verdict at the report's full width (inches, dots per inch).
RELIABILITY_SIZE, RELIABILITY_DPI = (7.0, 5.6), 150


def draw_class_figures(summary: ClassSummary) -> dict[str, bytes]:
    """The report's figures as PNG bytes, from the summary alone, drawn off pyplot
    (:func:`bayescal.report.plotting.detached_figures`)."""
    from .class_plots import plot_class_reliability, plot_confusion_matrices
    from .plotting import detached_figures, fallback_fonts, plot_reliability

    summary = _checked(summary)
    with detached_figures(), fallback_fonts():
        band, curves = summary.reliability.top_label.band_and_curves()
        top = plot_reliability(band, curves=curves)
        top.set_xlabel("confidence (largest probability) in bin")
        top.set_ylabel("accuracy in bin (predicted class is the true one)")
        top.set_title("Top-label reliability diagram")
        top.figure.set_size_inches(*RELIABILITY_SIZE)
        classes = plot_class_reliability(
            {
                name: diagram.band_and_curves()
                for name, diagram in summary.reliability.classes.items()
            }
        )
        matrices = {name: entry.matrix() for name, entry in summary.confusion.items()}
        confusion = plot_confusion_matrices(matrices, summary.data.classes)
        return {
            "reliability": png_bytes(top, dpi=RELIABILITY_DPI),
            "class_reliability": png_bytes(classes[0]),
            "confusion": png_bytes(confusion[0]),
        }
