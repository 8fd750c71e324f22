"""What every analysis shares, binary (:mod:`bayescal.app.analysis`) or multi-class
(:mod:`bayescal.app.class_analysis`): its steps timed and announced, the calibration test run
or warned about, a posterior's summary, and the versions a run's draws depend on."""

from __future__ import annotations

import time
import warnings

from .._api import announce, warn_caller
from .._version import __version__
from ..correction.calibration_test import calibration_test
from ..exceptions import BinningWarning
from ..report.summary import PosteriorSummary

__all__ = ["STEP_LINES", "Steps", "posterior_section", "run_versions", "tested_or_warned"]


#: What each step of an analysis that can take seconds says as it starts (with progress on).
STEP_LINES = {
    "em": "estimating the annotators' channels by EM",
    "nuts": "sampling the posterior of the channels (NUTS)",
    "push_through": "NC-ECE of every posterior draw",
    "checks": "checking the model against the labels",
    "calibration_test": "testing the calibration",
    "recalibration_preview": "fitting recalibration maps on half of the items (the preview)",
    "rates": "corrected rates",
}


class Steps:
    """Runs the steps of an analysis in order, each ``step(*args) -> (result, parts)``: it keeps
    each step's wall time (``Summary.timings``) and the parts of the :class:`Summary` it
    returns (field name -> section), and with ``progress`` says which step starts
    (:data:`STEP_LINES`)."""

    def __init__(self, progress: bool = False):
        self.timings: dict[str, float] = {}
        self.parts: dict = {}
        self.progress = progress

    def __call__(self, name: str, step, *args):
        if name in STEP_LINES:
            announce(STEP_LINES[name], self.progress)
        start = time.perf_counter()
        try:
            result, parts = step(*args)
        finally:
            self.timings[name] = round(time.perf_counter() - start, 3)
        self.parts |= parts
        return result


def tested_or_warned(data, fit, n_bins, seed, progress):
    """:func:`bayescal.calibration_test` with the fit (a draw of the channels' posterior under
    H0), or None with a warning when these data cannot be tested (too few informative labels
    for a bin): the verdict then says so rather than stop the analysis."""
    try:
        with warnings.catch_warnings():  # more bins than items: said once, by the analysis
            warnings.filterwarnings("ignore", "n_bins = ", BinningWarning)
            return calibration_test(data, fit, n_bins=n_bins, seed=seed, progress=progress)
    except ValueError as error:
        warn_caller(f"calibration_test could not run: {error}", BinningWarning)
        return None


def posterior_section(ece, level: float) -> PosteriorSummary:
    return PosteriorSummary(float(ece.median), tuple(float(x) for x in ece.interval), level)


def run_versions() -> dict[str, str]:
    """The versions a run's draws depend on (ArviZ's without importing it: two seconds)."""
    import platform
    from importlib import metadata

    versions = {"python": platform.python_version(), "bayescal": __version__}
    for package in ("jax", "jaxlib", "numpyro", "arviz"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions
