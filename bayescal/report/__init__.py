"""What a fit shows its user: the summary, the HTML report, the figures and the results folder.

- :mod:`~bayescal.report.summary` — :class:`Summary`, the numbers of a fit (``summary.json``)
  as typed, frozen dataclasses.
- :mod:`~bayescal.report.class_summary` — :class:`ClassSummary`, the same for multi-class
  labels, sharing the binary summary's sections.
- :mod:`~bayescal.report.verdict` — the sentence a report opens with, in plain words.
- :mod:`~bayescal.report.html_report` — the HTML report rendered from a summary and figures;
  :mod:`~bayescal.report.class_report` the multi-class one, from its parts.
- :mod:`~bayescal.report.plotting` — plots of bayescal's result objects (matplotlib is imported
  when a plot is drawn); :mod:`~bayescal.report.class_plots` the confusion heat maps and the
  classes' reliability diagrams.
- :mod:`~bayescal.report.folders` — results folders: one run each, written whole, read back
  for a report.
"""

from .._api import moved_names
from .class_plots import plot_class_reliability, plot_confusion_matrices
from .class_summary import ClassSummary
from .folders import load_summary, render_report
from .plotting import (
    plot_channels,
    plot_ece_posterior,
    plot_pairwise_agreement,
    plot_ppc_residuals,
    plot_prior_sensitivity,
    plot_reliability,
    plot_toy_study,
)
from .summary import Summary

__all__ = [
    "ClassSummary",
    "Summary",
    "load_summary",
    "plot_channels",
    "plot_class_reliability",
    "plot_confusion_matrices",
    "plot_ece_posterior",
    "plot_pairwise_agreement",
    "plot_ppc_residuals",
    "plot_prior_sensitivity",
    "plot_reliability",
    "plot_toy_study",
    "render_report",
]

#: The names of the former ``bayescal.report`` module.
__getattr__ = moved_names(
    "bayescal.report",
    {
        name: f"bayescal.report.html_report:{name}"
        for name in ("draw_figures", "report_html", "summary_html")
    },
)
