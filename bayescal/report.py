"""The HTML report of ``bayescal fit``, rendered from saved results alone.

A results directory holds ``summary.json`` (the numbers, documented in the README) and
``posterior.nc`` (the channel posterior).  :func:`render_report` reads both, draws the figures
(PNG, also kept in ``figures/``) and writes ``report.html``: one self-contained file with the
figures inline as base64 PNG, no script and no network reference, so it can be mailed or
archived as is.  ``bayescal report DIR`` calls it to re-render without refitting.

:func:`report_html` is the pure part (summary and figure bytes in, HTML text out); every key
number sits in an element with a stable ``id`` (e.g. ``nc-ece-posterior-median``) so that a
reader, or a test in a browser, can find it.
"""

from __future__ import annotations

import base64
import html
import io
import pathlib

from .io import read_json, write_atomic

__all__ = ["POSTERIOR_FILE", "REPORT_FILE", "SUMMARY_FILE", "render_report", "report_html"]

SUMMARY_FILE = "summary.json"
POSTERIOR_FILE = "posterior.nc"
REPORT_FILE = "report.html"
FIGURE_DIRECTORY = "figures"

#: Figure names and the caption each gets in the report.
CAPTIONS = {
    "reliability": "Reliability diagram. Blue: posterior median of each bin's noise-corrected fraction positive, with its credible band; "
    "the naive curves score the predictor against the raw votes and are biased; the dotted diagonal is perfect calibration.",
    "channels": "Annotator channels: false-positive rate a and sensitivity b, posterior median and interval (red cross: EM estimate).",
    "patterns": "Posterior predictive check: observed minus expected count of each response pattern, with the replicated interval (red: outside).",
    "agreement": "Pairwise agreement of the annotators against what conditional independence predicts (red: outside the replicated interval).",
}

STYLE = """
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


def _number(value, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _cell(value, identifier: str | None = None, text: bool = False) -> str:
    attributes = (f' id="{identifier}"' if identifier else "") + (' class="text"' if text else "")
    return f"<td{attributes}>{html.escape(str(value))}</td>"


def _interval(entry: dict, digits: int = 4) -> str:
    low, high = entry["interval"]
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _table(header: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _data_section(summary: dict) -> str:
    data = summary["data"]
    groups = "".join(
        f"<tr>{_cell(g)}{_cell(n, f'group-{g}-size')}</tr>" for g, n in data["groups"].items()
    )
    source = summary.get("input", {})
    lines = [
        "<h2>Data</h2>",
        _table(
            ["quantity", "value"],
            [
                f"<tr>{_cell('table')}{_cell(source.get('table', '—'), 'input-table', text=True)}</tr>",
                f"<tr>{_cell('items')}{_cell(data['n_items'], 'n-items')}</tr>",
                f"<tr>{_cell('annotators')}{_cell(', '.join(data['annotators']), 'annotators', text=True)}</tr>",
                f"<tr>{_cell('missing labels')}{_cell(format(data['missing_rate'], '.1%'), 'missing-rate')}</tr>",
                *(
                    f"<tr>{_cell(f'… of {name}')}{_cell(format(rate, '.1%'), f'missing-{name}')}</tr>"
                    for name, rate in data.get("missing_by_annotator", {}).items()
                ),
            ],
        ),
        "<p>Score groups and their sizes:</p>",
        _table(["group", "items"], [groups]),
    ]
    return "\n".join(lines)


def _model_section(summary: dict) -> str:
    model, identification, diagnostics = (
        summary["model"],
        summary["identification"],
        summary["diagnostics"],
    )
    priors = ", ".join(f"{name} Beta({a:g}, {b:g})" for name, (a, b) in model["priors"].items())
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in identification["notes"])
    return "\n".join(
        [
            "<h2>Model and identification</h2>",
            f'<p>Model: <b id="model-name">{html.escape(model["name"])}</b> ({html.escape(model["why"])}); priors: {html.escape(priors)}; '
            f"{model['chains']} chains × {model['draws_per_chain']} draws.</p>",
            f'<p>Identification status: <span class="status" id="identification-status">{html.escape(identification["status"])}</span></p>',
            f"<ul>{notes}</ul>",
            f'<p>Sampling diagnostics: max R-hat <span id="max-r-hat">{_number(diagnostics["max_r_hat"], 3)}</span>, '
            f'min bulk ESS <span id="min-ess">{_number(diagnostics["min_ess_bulk"], 0)}</span>, '
            f'divergences <span id="divergences">{diagnostics["divergences"]}</span>.</p>',
        ]
    )


def _channel_section(summary: dict) -> str:
    level = summary["ece"]["nc_ece"]["posterior"]["level"]
    rows = []
    for annotator, entry in summary["channels"].items():
        for label, name in (("a", "false-positive rate a"), ("b", "sensitivity b")):
            value = entry[label]
            key = f"{label}-{annotator}"
            rows.append(
                "<tr>"
                + _cell(annotator)
                + _cell(name, text=True)
                + _cell(_number(value["em"]), f"{key}-em")
                + _cell(_number(value["posterior_mean"]), f"{key}-posterior")
                + _cell(_interval(value), f"{key}-interval")
                + _cell(_number(value["r_hat"], 3))
                + _cell(_number(value["ess_bulk"], 0))
                + "</tr>"
            )
    for parameter, value in summary["prevalence"].items():
        rows.append(
            f"<tr>{_cell(parameter)}{_cell('class proportion', text=True)}{_cell('—')}"
            f"{_cell(_number(value['posterior_mean']))}{_cell(_interval(value))}{_cell(_number(value['r_hat'], 3))}{_cell(_number(value['ess_bulk'], 0))}</tr>"
        )
    header = [
        "annotator",
        "parameter",
        "EM",
        "posterior mean",
        f"{level:.0%} interval",
        "R-hat",
        "bulk ESS",
    ]
    return "<h2>Annotator channels</h2>\n" + _table(header, rows)


def _ece_section(summary: dict) -> str:
    ece = summary["ece"]
    frequentist, posterior, oracle = (
        ece["nc_ece"]["frequentist"],
        ece["nc_ece"]["posterior"],
        ece["oracle"],
    )
    level = posterior["level"]
    rows = [
        f"<tr>{_cell('naive: soft vote (mean of the votes)', text=True)}{_cell(_number(ece['naive']['soft_vote']), 'naive-soft-vote')}{_cell('biased', text=True)}</tr>",
        f"<tr>{_cell('naive: majority vote', text=True)}{_cell(_number(ece['naive']['majority_vote']), 'naive-majority-vote')}{_cell('biased', text=True)}</tr>",
        f"<tr>{_cell('NC-ECE, EM channels (frequentist)', text=True)}{_cell(_number(frequentist['value']), 'nc-ece-frequentist')}"
        f"{_cell(frequentist.get('reason', frequentist.get('estimator', '')), text=True)}</tr>",
        f"<tr>{_cell('NC-ECE, posterior median', text=True)}{_cell(_number(posterior['median']), 'nc-ece-posterior-median')}"
        f"{_cell(f'{level:.0%} interval ' + _interval(posterior), 'nc-ece-posterior-interval', text=True)}</tr>",
        f"<tr>{_cell('oracle ECE (truth column)', text=True)}{_cell(_number(oracle['value']), 'oracle-ece')}{_cell(oracle.get('reason', 'true labels'), text=True)}</tr>",
    ]
    return f"<h2>Expected calibration error ({ece['n_bins']} equal-width bins)</h2>\n" + _table(
        ["estimate", "ECE", "note"], rows
    )


def _checks_section(summary: dict) -> str:
    checks = summary["checks"]
    verdicts = "".join(f"<li>{html.escape(line)}</li>" for line in checks["verdicts"])
    rows = []
    for row in checks["table"]:
        interval = "—" if row["lower"] is None else f"[{row['lower']:.3g}, {row['upper']:.3g}]"
        rows.append(
            ('<tr class="flagged">' if row["flag"] else "<tr>")
            + _cell(row["check"])
            + _cell(row["subject"], text=True)
            + _cell(_number(row["observed"], 3))
            + _cell(_number(row["expected"], 3))
            + _cell(interval)
            + _cell(_number(row["p_value"], 3))
            + _cell("yes" if row["flag"] else "")
            + "</tr>"
        )
    return "\n".join(
        [
            "<h2>Model checks</h2>",
            f'<p>In plain words (<span id="checks-flagged">{checks["flagged"]}</span> rows flagged):</p>',
            f'<ul id="verdicts">{verdicts}</ul>',
            _table(
                [
                    "check",
                    "subject",
                    "observed",
                    "expected",
                    "replicated interval",
                    "p-value",
                    "flag",
                ],
                rows,
            ),
        ]
    )


def _record_section(summary: dict) -> str:
    record = summary["record"]
    balance = record["class_balance"]
    fields = [
        ("sample size", record["n_items"]),
        (
            "class balance (posterior mean prevalence)",
            f"{balance['prevalence_posterior_mean']:.3f} {_interval(balance, 3)}",
        ),
        ("label provenance", record["provenance"]),
        ("annotator count", record["n_annotators"]),
        ("repeat rate (items labelled more than once)", f"{record['repeat_rate']:.1%}"),
        ("fitted or held out", record["fitted_or_held_out"]),
        ("interval method", record["interval_method"]),
        ("binning", record["binning"]),
    ]
    rows = [f"<tr>{_cell(name, text=True)}{_cell(value, text=True)}</tr>" for name, value in fields]
    parts = [
        "<h2>Calibration record (seeds/003 fields that apply)</h2>",
        _table(["field", "value"], rows),
    ]
    judged = record.get("against_truth")
    if judged is not None:
        rates = judged["rates"]
        kappa = judged["kappa"]
        accuracy = (
            "—"
            if judged["accuracy"] is None
            else f"{judged['accuracy']:.3f} {_interval({'interval': judged['accuracy_interval']}, 3)} (Wilson)"
        )
        kappa_text = (
            "—"
            if kappa is None
            else f"{kappa['estimate']:.3f} [{kappa['lower']:.3f}, {kappa['upper']:.3f}] (bootstrap, {kappa['n_valid']} of {kappa['n_boot']} replicates)"
        )
        baseline = judged["baseline"]
        truth_rows = [
            (
                "items, positive / negative",
                f"{judged['n_items']}, {judged['n_positive']} / {judged['n_negative']}",
            ),
            ("accuracy", accuracy),
            ("Cohen's kappa", kappa_text),
            (
                "false accepts / false rejects",
                f"{rates['false_positive']} / {rates['false_negative']}",
            ),
            ("Youden index (prevalence-free)", _number(judged["youden"], 3)),
            (
                "baseline: constant predictor",
                f"always {baseline['predicts']}: accuracy {_number(baseline.get('accuracy'), 3)}",
            ),
        ]
        parts += [
            "<p>The predictor as a judge (score ≥ 0.5) against the truth column:</p>",
            _table(
                ["field", "value"],
                [
                    f"<tr>{_cell(name, text=True)}{_cell(value, text=True)}</tr>"
                    for name, value in truth_rows
                ],
            ),
        ]
        parts += [f'<p class="note">{html.escape(note)}</p>' for note in judged["notes"]]
    return "\n".join(parts)


def _figure(name: str, png: bytes) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    caption = CAPTIONS[name]
    return f'<figure id="figure-{name}"><img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}"><figcaption>{html.escape(caption)}</figcaption></figure>'


def report_html(summary: dict, figures: dict[str, bytes]) -> str:
    """The report as one self-contained HTML document.

    Parameters
    ----------
    summary : dict
        The document of ``summary.json`` (README, "summary.json").
    figures : dict of str to bytes
        PNG images by name (keys of :data:`CAPTIONS`); absent ones are left out.
    """
    if not isinstance(summary, dict):
        raise TypeError(f"summary must be the dict of summary.json; saw {type(summary).__name__}")
    unknown = set(figures) - set(CAPTIONS)
    if unknown:
        raise ValueError(f"figures must be named among {sorted(CAPTIONS)}; saw {sorted(unknown)}")
    shown = lambda *names: [_figure(name, figures[name]) for name in names if name in figures]  # noqa: E731
    body = [
        "<h1>bayescal calibration report</h1>",
        f'<p class="note">bayescal {html.escape(summary["bayescal_version"])}. NC-ECE is the noise-corrected expected '
        "calibration error: the predictor's ECE against the unseen true labels, estimated from the noisy annotators.</p>",
        _data_section(summary),
        _model_section(summary),
        _channel_section(summary),
        *shown("channels"),
        _ece_section(summary),
        *shown("reliability"),
        _checks_section(summary),
        *shown("patterns", "agreement"),
        _record_section(summary),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>bayescal report</title>'
        f"<style>{STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _png(ax) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    ax.figure.savefig(buffer, format="png", dpi=110)
    plt.close(ax.figure)
    return buffer.getvalue()


def _figures(summary: dict, fit) -> dict[str, bytes]:
    import matplotlib

    matplotlib.use("Agg")  # files only, on a machine without a screen
    import numpy as np
    import pandas as pd

    from .correction import Channels
    from .pipeline import reliability_from_summary
    from .plotting import (
        plot_channels,
        plot_pairwise_agreement,
        plot_ppc_residuals,
        plot_reliability,
    )

    band, curves = reliability_from_summary(summary["reliability"])
    figures = {"reliability": _png(plot_reliability(band, curves))}
    entries = summary["channels"].values()
    references = {}
    if all(entry["a"]["em"] is not None for entry in entries):
        references["EM"] = Channels(
            np.array([e["a"]["em"] for e in entries]), np.array([e["b"]["em"] for e in entries])
        )
    figures["channels"] = _png(
        plot_channels(
            fit, references=references, level=summary["ece"]["nc_ece"]["posterior"]["level"]
        )
    )
    checks = pd.DataFrame(summary["checks"]["table"]).fillna(value=np.nan)
    for column in ("observed", "expected", "lower", "upper", "p_value"):
        checks[column] = checks[column].astype(np.float64)
    checks["flag"] = checks["flag"].astype(bool)
    for name, plot, check in (
        ("patterns", plot_ppc_residuals, "pattern"),
        ("agreement", plot_pairwise_agreement, "pairwise_agreement"),
    ):
        if (checks["check"] == check).any():
            figures[name] = _png(plot(checks))
    return figures


def load_summary(directory) -> dict:
    """``summary.json`` of a results directory, with a one-line error when it is absent or broken."""
    path = pathlib.Path(directory) / SUMMARY_FILE
    summary = read_json(path, hint=f"; is {directory} a directory written by bayescal fit?")
    missing = [
        key
        for key in (
            "data",
            "model",
            "identification",
            "channels",
            "ece",
            "reliability",
            "checks",
            "record",
        )
        if key not in summary
    ]
    if not isinstance(summary, dict) or missing:
        raise ValueError(
            f"{path}: not a bayescal fit summary (missing {', '.join(missing) or 'everything'}); re-run bayescal fit"
        )
    return summary


def render_report(directory, summary=None) -> pathlib.Path:
    """Draw the figures and write ``report.html`` from ``summary.json`` and ``posterior.nc``.

    Parameters
    ----------
    directory : str or path
        A results directory of ``bayescal fit``.  Nothing is refitted; the figures go to
        ``directory/figures/*.png`` and inline into ``report.html``, each written atomically.
    summary : dict, optional
        The directory's summary when the caller holds it (``bayescal fit``, before writing
        summary.json); by default it is read from summary.json.

    Returns
    -------
    pathlib.Path
        The report's path.
    """
    from .inference import BayesFit

    directory = pathlib.Path(directory)
    summary = load_summary(directory) if summary is None else summary
    posterior = directory / POSTERIOR_FILE
    if not posterior.is_file():
        raise FileNotFoundError(
            f"{posterior}: no such file; the report needs the saved posterior of bayescal fit"
        )
    figures = _figures(summary, BayesFit.load(posterior))
    (directory / FIGURE_DIRECTORY).mkdir(exist_ok=True)
    for name, png in figures.items():
        write_atomic(directory / FIGURE_DIRECTORY / f"{name}.png", png)
    return write_atomic(directory / REPORT_FILE, report_html(summary, figures))
