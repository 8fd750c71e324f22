"""Plots of a multi-class fit: the annotators' confusion matrices as heat maps and the
reliability diagrams of the top label and of every class (matplotlib is imported when a plot
is drawn)."""

from __future__ import annotations

import math

import numpy as np

from .plotting import axes_grid, plot_reliability, tick_label

__all__ = ["plot_class_reliability", "plot_confusion_matrices"]

#: Heat maps (and reliability diagrams) per row of a figure.
PANELS_PER_ROW = 4
#: Cells are written in the heat map up to this many classes; beyond, the colour alone.
WRITTEN_CLASSES = 8


def _grid(n_panels: int, inches: float) -> list:
    """``n_panels`` Axes, :data:`PANELS_PER_ROW` to a row, each about ``inches`` square; the
    unused ones of the last row hidden."""
    columns = min(n_panels, PANELS_PER_ROW)
    rows = math.ceil(n_panels / columns)
    axes = axes_grid(rows, columns, (inches * columns, inches * rows))
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return axes[:n_panels]


def plot_confusion_matrices(matrices: dict, classes, *, title: str = "posterior mean"):
    """Each annotator's confusion matrix ``T[y, k] = P(label k | true class y)`` as a heat map
    (rows the true class, columns the label given; a good annotator is dark on the diagonal).

    Parameters
    ----------
    matrices : dict of str to array of shape (C, C)
        By annotator name.
    classes : sequence of str
        The class names, in the order of the rows and columns.
    title : str
        What the matrices are, said in each panel's title.

    Returns
    -------
    list of matplotlib Axes
        One per annotator.
    """
    classes = [str(c) for c in classes]
    if not matrices:
        raise ValueError("matrices must hold at least one annotator's matrix; saw none")
    shaped = {}
    for name, matrix in matrices.items():
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.shape != (len(classes), len(classes)):
            raise ValueError(
                f"matrices[{name!r}] must be ({len(classes)}, {len(classes)}), one row and "
                f"column per class; saw shape {matrix.shape}"
            )
        shaped[name] = matrix
    size = max(2.6, 0.45 * len(classes) + 1.2)
    axes = _grid(len(shaped), size)
    ticks = range(len(classes))
    for ax, (name, matrix) in zip(axes, shaped.items()):
        image = ax.imshow(matrix, cmap="Blues", vmin=0.0, vmax=1.0)
        if len(classes) <= WRITTEN_CLASSES:
            for (y, k), value in np.ndenumerate(matrix):
                colour = "white" if value > 0.6 else "black"
                ax.text(k, y, f"{value:.2f}", ha="center", va="center", fontsize=7, color=colour)
        ax.set_xticks(ticks, classes, fontsize=7, rotation=90 if len(classes) > 5 else 0)
        ax.set_yticks(ticks, classes, fontsize=7)
        ax.set_xlabel("label given", fontsize=8)
        ax.set_ylabel("true class", fontsize=8)
        ax.set_title(f"{tick_label(name)} ({title})", fontsize=9)
    axes[0].figure.colorbar(image, ax=axes, shrink=0.8, label="P(label | true class)")
    return axes


def plot_class_reliability(diagrams: dict):
    """One reliability diagram per class: the class's probability against its corrected
    frequency, with the credible band and the naive curves.

    Parameters
    ----------
    diagrams : dict of str to ReliabilityDiagram
        By class name, each ``(band, curves)`` as
        :meth:`bayescal.report.summary.ReliabilitySummary.band_and_curves` gives it.

    Returns
    -------
    list of matplotlib Axes
    """
    if not diagrams:
        raise ValueError("diagrams must hold at least one class's diagram; saw none")
    axes = _grid(len(diagrams), 3.4)
    for ax, (name, (band, curves)) in zip(axes, diagrams.items()):
        plot_reliability(band, curves=curves, ax=ax)
        ax.set_title(f"class {tick_label(name)}", fontsize=9)
        ax.set_xlabel(f"probability of {tick_label(name)} in bin", fontsize=8)
        ax.set_ylabel(f"fraction {tick_label(name)} in bin", fontsize=8)
    for ax in axes[1:]:
        legend = ax.get_legend()
        if legend is not None:  # one legend, in the first panel
            legend.remove()
    return axes
