"""Plots of bayescal's result objects.

Matplotlib is imported inside each function, so importing this module stays cheap and
``import bayescal`` never loads it.  Every function takes a result object, draws on ``ax``
(or on new Axes when none is given) and returns the Axes.  New Axes are pyplot's, except inside
:func:`detached_figures` (the report's files), where they belong to a plain ``Figure`` on an
Agg canvas: nothing of pyplot's state (backend, open figures) is touched.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np
import pandas as pd

from .._api import DEFAULT_LEVEL, old_spellings

__all__ = [
    "plot_channels",
    "plot_ece_posterior",
    "plot_pairwise_agreement",
    "plot_ppc_residuals",
    "plot_prior_sensitivity",
    "plot_reliability",
    "plot_toy_study",
]


# --- fonts for text in any script -----------------------------------------------------------------
# Fonts for figures whose text may be in any script (annotator names in CJK, say).
#
# matplotlib's own font, DejaVu Sans, lacks the CJK glyphs; matplotlib falls back glyph by glyph
# along a list of families, so the report's figures list the wide-coverage fonts installed here
# after it (:func:`fallback_fonts`).  Imported with matplotlib, by the figures only.

#: Installed fonts tried, in order, for the glyphs DejaVu Sans lacks (annotator names in CJK
#: scripts, say): matplotlib falls back glyph by glyph along a list of families.
FALLBACK_FONTS = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "Hiragino Sans",
    "PingFang SC",
    "Microsoft YaHei",
    "Malgun Gothic",
    "Arial Unicode MS",
    "Noto Sans",
)


def font_families() -> list[str]:
    """DejaVu Sans (matplotlib's own font), then the :data:`FALLBACK_FONTS` installed here."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(name for name in FALLBACK_FONTS if name in installed)]


@contextlib.contextmanager
def fallback_fonts():
    """Text drawn inside this block takes each glyph from the first of :func:`font_families`
    that has it; a glyph none has is drawn as a box, silently (one warning per glyph would say
    nothing the figure does not show).  matplotlib's settings are restored on leaving."""
    import warnings

    import matplotlib

    with matplotlib.rc_context({"font.family": font_families()}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        yield


# --- the plots ------------------------------------------------------------------------------------

FLAG_COLOUR = "tab:red"
PLAIN_COLOUR = "tab:blue"


#: Whether new Axes are drawn off pyplot (:func:`detached_figures`); a context variable, so
#: threads and notebooks drawing at the same time do not see each other's choice.
_DETACHED = contextvars.ContextVar("bayescal_detached_figures", default=False)


@contextlib.contextmanager
def detached_figures():
    """New Axes drawn inside this block belong to plain ``Figure`` objects on an Agg canvas,
    never to pyplot: a notebook's backend and open figures stay as they are."""
    token = _DETACHED.set(True)
    try:
        yield
    finally:
        _DETACHED.reset(token)


def _axes(ax, size=(7.0, 3.5)):
    if ax is not None:
        return ax
    return axes_grid(1, 1, size)[0]


def axes_grid(n_rows: int, n_columns: int, size) -> list:
    """A new figure of ``size`` inches with ``n_rows`` x ``n_columns`` Axes, row by row: on a
    plain Agg figure inside :func:`detached_figures`, else on a pyplot figure."""
    if _DETACHED.get():
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        figure = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.subplots(n_rows, n_columns, squeeze=False)
    else:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(n_rows, n_columns, figsize=size, layout="constrained", squeeze=False)
    return list(axes.ravel())


def _check_rows(checks, check: str) -> pd.DataFrame:
    from ..bayes.checks import check_table

    table = check_table(checks)
    rows = table[table["check"] == check]
    if rows.empty:
        raise ValueError(f"checks has no {check!r} rows to plot")
    return rows


#: Most subjects (patterns, pairs) one check figure shows; a crowd has thousands.
MAX_SUBJECTS = 40


def _most_telling(rows: pd.DataFrame, what: str) -> tuple[pd.DataFrame, str]:
    """At most :data:`MAX_SUBJECTS` rows, in their order: the flagged ones first, then those
    whose observed value lies farthest from the expected one in units of the replicated
    interval's width; and the title's note saying so (empty when every row is shown)."""
    if len(rows) <= MAX_SUBJECTS:
        return rows, ""
    width = (rows["upper"] - rows["lower"]).to_numpy()
    distance = np.abs(rows["observed"] - rows["expected"]).to_numpy() / np.maximum(width, 1e-12)
    order = np.lexsort((-distance, ~rows["flag"].to_numpy()))[:MAX_SUBJECTS]
    note = f" (the {MAX_SUBJECTS} of {len(rows)} {what} farthest from the model, flagged first)"
    return rows.iloc[np.sort(order)], note


def _observed_in_interval(ax, rows: pd.DataFrame, offset, rotation: int) -> None:
    """Each subject's replicated interval as a grey bar and its observed value as a point (red
    when flagged), all shifted by ``offset``; the observed points are the last collection."""
    position = np.arange(len(rows))
    colours = np.where(rows["flag"].to_numpy(), FLAG_COLOUR, PLAIN_COLOUR)
    ax.vlines(
        position,
        rows["lower"] - offset,
        rows["upper"] - offset,
        colors="0.6",
        linewidth=4,
        alpha=0.6,
        label="replicated (interval)",
    )
    ax.scatter(
        position, rows["observed"] - offset, c=colours, zorder=4, label="observed (red: outside)"
    )
    labels = [_short(str(subject)) for subject in rows["subject"]]
    ax.set_xticks(position, labels, rotation=rotation, ha="right", fontsize=7)


#: Longest tick label drawn whole; a longer one (a pattern of many annotators) is cut, so that
#: the labels never squeeze the axes away (the table keeps the full name).
LABEL_CHARS = 40


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


@old_spellings()
def plot_ppc_residuals(checks, *, ax=None):
    """Observed minus expected count of every response pattern, with its replicated interval
    (at most :data:`MAX_SUBJECTS` patterns: the flagged ones, then the farthest from the model).

    Parameters
    ----------
    checks : pandas.DataFrame
        The table of :func:`bayescal.bayes.check_model`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    rows, note = _most_telling(_check_rows(checks, "pattern"), "patterns")
    ax = _axes(ax, size=(max(6.0, 0.25 * len(rows)), 3.8))
    _observed_in_interval(ax, rows, offset=rows["expected"].to_numpy(), rotation=60)
    ax.axhline(0.0, color="0.3", linewidth=0.8)
    ax.set_ylabel("observed - expected count")
    ax.set_title("Posterior predictive check per response pattern" + note, fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return ax


@old_spellings()
def plot_pairwise_agreement(checks, *, ax=None):
    """Observed agreement of every annotator pair against what conditional independence predicts
    (at most :data:`MAX_SUBJECTS` pairs, chosen as in :func:`plot_ppc_residuals`).

    Parameters
    ----------
    checks : pandas.DataFrame
        The table of :func:`bayescal.bayes.check_model`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    rows, note = _most_telling(_check_rows(checks, "pairwise_agreement"), "pairs")
    ax = _axes(ax, size=(max(5.0, 0.5 * len(rows)), 3.5))
    ax.scatter(
        np.arange(len(rows)),
        rows["expected"],
        marker="_",
        s=200,
        color="0.2",
        zorder=3,
        label="predicted (mean)",
    )
    _observed_in_interval(ax, rows, offset=0.0, rotation=45)
    ax.set_ylabel("share of shared items agreed on")
    ax.set_title("Pairwise agreement under conditional independence" + note, fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return ax


@old_spellings()
def plot_prior_sensitivity(result, *, quantities=None, axes=None):
    """Posterior mean and interval of each quantity under each prior, one panel per quantity.

    Parameters
    ----------
    result : PriorSensitivity
        From :func:`bayescal.bayes.prior_sensitivity`.
    quantities : list of str, optional
        Rows of ``result.table`` to show (e.g. ``["nc_ece", "b[a0]"]``); default all, NC-ECE first.
    axes : sequence of matplotlib Axes, optional
        One per quantity.

    Returns
    -------
    ndarray of matplotlib Axes
    """
    from ..bayes.sensitivity import PriorSensitivity

    if not isinstance(result, PriorSensitivity):
        raise TypeError(
            f"result must be a bayescal.bayes.PriorSensitivity; saw {type(result).__name__}"
        )
    table = result.table
    available = list(dict.fromkeys(table.index.get_level_values("quantity")))
    if quantities is None:
        quantities = ["nc_ece"] + [q for q in available if q != "nc_ece"]
    unknown = [q for q in quantities if q not in available]
    if unknown:
        raise ValueError(f"quantities must be among {available}; saw {unknown}")
    priors = list(dict.fromkeys(table.index.get_level_values("prior")))
    if axes is None:
        import matplotlib.pyplot as plt

        columns = min(4, len(quantities))
        rows = int(np.ceil(len(quantities) / columns))
        _, grid = plt.subplots(
            rows,
            columns,
            figsize=(3.2 * columns, 0.35 * len(priors) * rows + 1.2 * rows),
            squeeze=False,
            layout="constrained",
        )
        for extra in grid.ravel()[len(quantities) :]:
            extra.set_visible(False)
        axes = grid.ravel()[: len(quantities)]
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != len(quantities):
        raise ValueError(
            f"axes must hold one Axes per quantity ({len(quantities)}); saw {axes.size}"
        )
    position = np.arange(len(priors))
    for ax, quantity in zip(axes, quantities):
        rows = table.xs(quantity, level="quantity").loc[priors]
        colours = [FLAG_COLOUR if name == result.reference else PLAIN_COLOUR for name in priors]
        ax.hlines(position, rows["lower"], rows["upper"], colors=colours, linewidth=2)
        ax.scatter(rows["mean"], position, c=colours, zorder=3)
        leftmost = ax.get_subplotspec() is None or ax.get_subplotspec().is_first_col()
        ax.set_yticks(position, priors if leftmost else [""] * len(priors), fontsize=7)
        ax.invert_yaxis()
        ax.set_title(quantity, fontsize=9)
    axes[0].figure.suptitle(
        f"Posterior under each prior ({result.level:.0%} intervals; reference in red)", fontsize=9
    )
    return axes


def _posterior_ece(posterior):
    from ..bayes.posterior import PosteriorECE

    if not isinstance(posterior, PosteriorECE):
        raise TypeError(
            f"posterior must be a bayescal.PosteriorECE; saw {type(posterior).__name__}"
        )
    return posterior


@old_spellings()
def plot_reliability(posterior, *, curves=None, ax=None):
    """Reliability diagram of the corrected labels with a posterior credible band per bin.

    Parameters
    ----------
    posterior : PosteriorECE or ReliabilityBand
        From :func:`bayescal.nc_ece_posterior` (fixed scores), or its ``reliability_band()`` (what
        a saved report keeps): the corrected curve is the posterior median of each bin's
        corrected mean label, the band its ``level`` interval.
    curves : dict of str to ReliabilityCurve, optional
        Curves to overlay, e.g. ``{"oracle": reliability_curve(y, z), "majority vote":
        reliability_curve(majority_vote_labels(annotations, ties="positive"), z)}``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    from ..metrics.calibration import ReliabilityBand, ReliabilityCurve

    band = (
        posterior
        if isinstance(posterior, ReliabilityBand)
        else _posterior_ece(posterior).reliability_band()
    )
    curves = {} if curves is None else curves
    if not isinstance(curves, dict) or not all(
        isinstance(c, ReliabilityCurve) for c in curves.values()
    ):
        raise TypeError("curves must be a dict of name to bayescal.metrics.ReliabilityCurve")
    ax = _axes(ax, size=(4.5, 4.5))
    shown = band.nonempty
    confidence = band.mean_predicted[shown]
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, label="perfect calibration")
    ax.fill_between(
        confidence,
        band.lower[shown],
        band.upper[shown],
        color=PLAIN_COLOUR,
        alpha=0.25,
        label=f"corrected, {band.level:.0%} credible band",
    )
    ax.plot(
        confidence,
        band.median[shown],
        marker="o",
        color=PLAIN_COLOUR,
        label="corrected (posterior median)",
    )
    for (name, curve), colour in zip(
        curves.items(), ("tab:green", "tab:orange", "tab:purple", "tab:brown")
    ):
        ax.plot(
            curve.mean_predicted[curve.nonempty],
            curve.mean_target[curve.nonempty],
            marker="s",
            markersize=4,
            color=colour,
            label=name,
        )
    ax.set_xlabel("mean score in bin")
    ax.set_ylabel("fraction positive in bin")
    ax.set_xlim(0, 1)
    ax.set_title("Reliability diagram")
    ax.legend(fontsize=7, loc="upper left")
    _bin_counts(ax, band)
    return ax


#: The bin-count bars fill at most this share of the reliability diagram's height.
COUNT_BARS_HEIGHT = 0.2


def _bin_counts(ax, band) -> None:
    """Each bin's number of items as a grey bar along the foot of the diagram, on an axis of
    its own at the right (as netcal and scikit-learn show them): a bin of a few items has a
    wide band for that reason."""
    edges = np.asarray(band.edges, float)
    counts = np.asarray(band.counts, float)
    bars = ax.twinx()
    bars.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="0.5", alpha=0.2)
    bars.set_ylim(0, max(counts.max(), 1.0) / COUNT_BARS_HEIGHT)
    bars.set_yticks([0, counts.max()])  # the scale of the bars, not of the whole height
    bars.set_ylabel("items in bin", fontsize=8, color="0.4")
    bars.tick_params(axis="y", labelsize=7, colors="0.4")
    # the curves are drawn over the bars
    ax.set_zorder(bars.get_zorder() + 1)
    ax.patch.set_visible(False)


@old_spellings()
def plot_ece_posterior(posterior, *, references=None, ax=None):
    """Histogram of the NC-ECE draws with the median, the credible interval and reference values.

    Parameters
    ----------
    posterior : PosteriorECE
    references : dict of str to float, optional
        Vertical lines, e.g. ``{"soft vote": 0.116, "oracle": 0.091}``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    posterior = _posterior_ece(posterior)
    references = {} if references is None else references
    if not isinstance(references, dict):
        raise TypeError(
            f"references must be a dict of name to value; saw {type(references).__name__}"
        )
    ax = _axes(ax, size=(5.0, 3.2))
    ax.hist(posterior.draws, bins=40, color=PLAIN_COLOUR, alpha=0.6)
    ax.axvline(
        posterior.median, color=PLAIN_COLOUR, linewidth=2, label=f"median {posterior.median:.4f}"
    )
    low, high = posterior.interval
    ax.axvspan(
        low,
        high,
        color=PLAIN_COLOUR,
        alpha=0.1,
        label=f"{posterior.level:.0%} interval [{low:.4f}, {high:.4f}]",
    )
    for (name, value), colour in zip(
        references.items(), ("tab:green", "tab:orange", "tab:purple", "tab:brown")
    ):
        ax.axvline(float(value), color=colour, linestyle="--", label=f"{name} {float(value):.4f}")
    ax.set_xlabel("NC-ECE")
    ax.set_ylabel("posterior draws")
    ax.set_title("Posterior of the noise-corrected ECE")
    ax.legend(fontsize=7)
    return ax


@old_spellings()
def plot_channels(fit, *, references=None, level=DEFAULT_LEVEL, ax=None):
    """Forest plot of every annotator's false-positive rate a and sensitivity b.

    Parameters
    ----------
    fit : BayesFit
    references : dict of str to Channels, optional
        Point values to mark, e.g. ``{"EM": em_fit.channels, "true": simulation.channels}``.
    level : float, default 0.9
        Credible level of the intervals.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    from ..bayes.bayes_fit import BayesFit
    from ..channels import Channels

    if not isinstance(fit, BayesFit):
        raise TypeError(f"fit must be a bayescal.BayesFit; saw {type(fit).__name__}")
    references = {} if references is None else references
    if not isinstance(references, dict) or not all(
        isinstance(c, Channels) for c in references.values()
    ):
        raise TypeError("references must be a dict of name to bayescal.Channels")
    for reference, channels in references.items():  # e.g. K channels for a fit of L x K
        if channels.n_annotators != len(fit.annotator_names):
            raise ValueError(
                f"references[{reference!r}] must have one channel per annotator of the fit "
                f"({len(fit.annotator_names)}); saw {channels.n_annotators}"
            )
    a, b, _ = fit.draws()
    shown, note = shown_workers(np.median(b - a, axis=0), "annotators")
    names = [fit.annotator_names[j] for j in shown]
    # one row per annotator, a just above b: a crowd's 20 shown workers fit a screen
    ax = _axes(ax, size=(7.0, ROW_INCHES * len(names) + 1.4))
    tail = (1.0 - level) / 2.0
    for kind, draws, offset, colour, what in (
        ("a", a, -ROW_OFFSET, A_COLOUR, CHANNEL_LABELS[0]),
        ("b", b, ROW_OFFSET, PLAIN_COLOUR, CHANNEL_LABELS[1]),
    ):
        low, mid, high = np.quantile(draws[:, shown], [tail, 0.5, 1.0 - tail], axis=0)
        rows = np.arange(len(names)) + offset
        ax.hlines(rows, low, high, color=colour, linewidth=2)
        ax.plot(mid, rows, "o", color=colour, markersize=4, label=what)
        for (reference, channels), marker in zip(references.items(), ("x", "+", "d", "s")):
            values = (channels.a if kind == "a" else channels.b)[shown]
            ax.plot(
                values,
                rows,
                marker,
                linestyle="none",
                color="tab:red" if marker == "x" else "tab:green",
                label=reference if kind == "a" else None,
            )
    ax.set_yticks(np.arange(len(names)), [tick_label(name) for name in names], fontsize=8)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlim(-0.02, 1.02)  # a marker at 0 or 1 shows whole
    ax.set_xlabel("probability of a positive label")
    ax.set_title(f"Channels: posterior median and {level:.0%} interval{note}", fontsize=9)
    # beside the axes, clear of every row (the constrained layout makes room for it); a and b
    # first, then the references
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] not in CHANNEL_LABELS)
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        fontsize=7,
        loc="center left",
        bbox_to_anchor=(1.01, 0.5),
    )
    return ax


#: Inches per annotator row of the channel plot, and how far a and b sit from its centre.
ROW_INCHES = 0.28
ROW_OFFSET = 0.17
#: The false-positive rate's colour beside the sensitivity's (``PLAIN_COLOUR``).
A_COLOUR = "tab:orange"
CHANNEL_LABELS = ("a, false-positive rate", "b, sensitivity")


#: Annotator names longer than this are cut in a figure's tick labels (the report's tables
#: show them whole): a 300-character name would squeeze the axes to nothing.
TICK_LABEL_LENGTH = 40


def tick_label(name: str) -> str:
    return name if len(name) <= TICK_LABEL_LENGTH else name[: TICK_LABEL_LENGTH - 1] + "…"


#: A crowd's channel plot and the report's channel table show this many of the most and as
#: many of the least informative annotators.
SHOWN_EACH_END = 10


def shown_workers(gap: np.ndarray, what: str) -> tuple[np.ndarray, str]:
    """Which annotators a figure or table shows, most informative first (largest ``gap``,
    e.g. the posterior median of b - a): all when at most ``2 SHOWN_EACH_END``, else the
    :data:`SHOWN_EACH_END` most and least informative; and a note saying so (empty when all
    are shown)."""
    order = np.argsort(-np.asarray(gap), kind="stable")
    if order.size <= 2 * SHOWN_EACH_END:
        return np.arange(order.size), ""
    chosen = np.concatenate([order[:SHOWN_EACH_END], order[-SHOWN_EACH_END:]])
    note = (
        f"\n(the {SHOWN_EACH_END} most and {SHOWN_EACH_END} least informative of "
        f"{order.size} {what}, by median b - a)"
    )
    return chosen, note


@old_spellings()
def plot_toy_study(study, *, condition="calibrated", ax=None):
    """MAE (x 100) of every method against the sample size, with one Monte Carlo SE (paper Figure 1).

    Parameters
    ----------
    study : ToyStudy
    condition : str, default "calibrated"
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    from ..studies.toy import ToyStudy

    if not isinstance(study, ToyStudy):
        raise TypeError(f"study must be a bayescal.studies.ToyStudy; saw {type(study).__name__}")
    summary = study.summary()
    conditions = list(dict.fromkeys(summary.index.get_level_values("condition")))
    if condition not in conditions:
        raise ValueError(
            f"condition must be one of the study's conditions {conditions}; saw {condition!r}"
        )
    rows = summary.xs(condition, level="condition")
    ax = _axes(ax, size=(5.0, 3.5))
    for method in dict.fromkeys(rows.index.get_level_values("method")):
        curve = rows.xs(method, level="method")
        ax.errorbar(
            curve.index,
            curve["mae_x100"],
            yerr=curve["mae_se_x100"],
            marker="o",
            capsize=3,
            label=method,
        )
    ax.set_xscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("MAE x 100")
    ax.set_title(f"NC-ECE error, {condition} condition")
    ax.legend(fontsize=7)
    return ax
