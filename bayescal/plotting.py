"""Plots of bayescal's result objects (DESIGN.md §1).

Matplotlib is imported inside each function, so importing this module stays cheap and
``import bayescal`` never loads it.  Every function takes a result object, draws on ``ax``
(or on new Axes when none is given) and returns the Axes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["plot_pairwise_agreement", "plot_ppc_residuals", "plot_prior_sensitivity"]

FLAG_COLOUR = "tab:red"
PLAIN_COLOUR = "tab:blue"


def _axes(ax, size=(7.0, 3.5)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _check_rows(table, check: str) -> pd.DataFrame:
    from .checks import COLUMNS

    if not isinstance(table, pd.DataFrame) or not set(COLUMNS) <= set(table.columns):
        raise TypeError("checks must be the DataFrame returned by bayescal.checks.check_model")
    rows = table[table["check"] == check]
    if rows.empty:
        raise ValueError(f"checks has no {check!r} rows to plot")
    return rows


def _observed_in_interval(ax, rows: pd.DataFrame, offset, rotation: int) -> None:
    """Each subject's replicated interval as a grey bar and its observed value as a point (red
    when flagged), all shifted by ``offset``; the observed points are the last collection."""
    position = np.arange(len(rows))
    colours = np.where(rows["flag"].to_numpy(), FLAG_COLOUR, PLAIN_COLOUR)
    ax.vlines(position, rows["lower"] - offset, rows["upper"] - offset, colors="0.6", linewidth=4, alpha=0.6, label="replicated (interval)")
    ax.scatter(position, rows["observed"] - offset, c=colours, zorder=4, label="observed (red: outside)")
    ax.set_xticks(position, rows["subject"], rotation=rotation, ha="right", fontsize=7)


def plot_ppc_residuals(checks, ax=None):
    """Observed minus expected count of every response pattern, with its replicated interval.

    Parameters
    ----------
    checks : pandas.DataFrame
        The table of :func:`bayescal.checks.check_model`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    rows = _check_rows(checks, "pattern")
    ax = _axes(ax, size=(max(6.0, 0.25 * len(rows)), 3.8))
    _observed_in_interval(ax, rows, offset=rows["expected"].to_numpy(), rotation=60)
    ax.axhline(0.0, color="0.3", linewidth=0.8)
    ax.set_ylabel("observed - expected count")
    ax.set_title("Posterior predictive check per response pattern")
    ax.legend(fontsize=7, loc="best")
    return ax


def plot_pairwise_agreement(checks, ax=None):
    """Observed agreement of every annotator pair against what conditional independence predicts.

    Parameters
    ----------
    checks : pandas.DataFrame
        The table of :func:`bayescal.checks.check_model`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    rows = _check_rows(checks, "pairwise_agreement")
    ax = _axes(ax, size=(max(5.0, 0.5 * len(rows)), 3.5))
    ax.scatter(np.arange(len(rows)), rows["expected"], marker="_", s=200, color="0.2", zorder=3, label="predicted (mean)")
    _observed_in_interval(ax, rows, offset=0.0, rotation=45)
    ax.set_ylabel("share of shared items agreed on")
    ax.set_title("Pairwise agreement under conditional independence")
    ax.legend(fontsize=7, loc="best")
    return ax


def plot_prior_sensitivity(result, quantities=None, axes=None):
    """Posterior mean and interval of each quantity under each prior, one panel per quantity.

    Parameters
    ----------
    result : PriorSensitivity
        From :func:`bayescal.sensitivity.prior_sensitivity`.
    quantities : list of str, optional
        Rows of ``result.table`` to show (e.g. ``["nc_ece", "b[a0]"]``); default all, NC-ECE first.
    axes : sequence of matplotlib Axes, optional
        One per quantity.

    Returns
    -------
    ndarray of matplotlib Axes
    """
    from .sensitivity import PriorSensitivity

    if not isinstance(result, PriorSensitivity):
        raise TypeError(f"result must be a bayescal.sensitivity.PriorSensitivity; saw {type(result).__name__}")
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
        _, grid = plt.subplots(rows, columns, figsize=(3.2 * columns, 0.35 * len(priors) * rows + 1.2 * rows), squeeze=False, layout="constrained")
        for extra in grid.ravel()[len(quantities):]:
            extra.set_visible(False)
        axes = grid.ravel()[: len(quantities)]
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != len(quantities):
        raise ValueError(f"axes must hold one Axes per quantity ({len(quantities)}); saw {axes.size}")
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
    axes[0].figure.suptitle(f"Posterior under each prior ({result.level:.0%} intervals; reference in red)", fontsize=9)
    return axes
