"""Recalibration maps fitted from noisy labels (paper §5, App. E).

A fixed predictor's scores ``z`` are recalibrated by a map ``g`` fitted to *targets*: the
noise-corrected labels ``U`` of paper §3 (``"corrected"``), or the mean annotator response
(``"naive"``, which pulls the map towards the annotators' error rates and is kept as the
baseline the paper compares against).

Logistic families (App. E.2).  Scores are clipped to ``[eps, 1 - eps]`` and mapped to logits
``s = log(z / (1 - z))``:

- temperature scaling ``g(z) = sigma(s / T)`` with ``0.05 <= T <= 20``;
- Platt scaling ``g(z) = sigma(u s + v)`` with ``-10 <= u, v <= 10``.

Both minimise the corrected log loss (paper §5, App. E.2)

    R(g) = (1/n) sum_i [softplus(eta_i) - U_i eta_i],     eta_i = logit g(z_i),

which is ``-U log p - (1 - U) log(1 - p)`` written so that it is stable and defined for
``U`` outside [0, 1].  The log loss is affine in the label, so ``E[U | Y, Z] = Y`` makes the
expected corrected loss the clean-label risk (Natarajan et al. 2013; paper Theorem E.1).  The
loss is convex in the parameters (``eta`` is linear in ``u, v`` and in ``1/T``), but with
targets outside [0, 1] it can decrease without bound, which is why the parameter sets are
compact boxes: a fit that ends on a box edge warns (:class:`~bayescal.RecalibrationWarning`).

The minimiser is a projected Newton method with Armijo backtracking along the projection arc
(Bertsekas 1982), vectorised over a leading axis of target sets, so that
:func:`bayescal.bayes.posterior_recalibration` fits one map per posterior draw in one pass
and a single fit is the case of one target set.

Projected histogram binning (paper §5, App. E.3; Gupta and Ramdas 2021): ``J`` fixed bins of
the *original* score; each bin's value is the mean target in the bin projected onto [0, 1]; an
empty bin gets the projected mean of all fitting targets.

Multi-class maps (:mod:`~bayescal.recalibration.class_maps`): temperature and vector scaling
of class probabilities, fitted to corrected one-hot labels within boxes, the same way.

Evaluation of a fitted map (:func:`recalibration_study`, App. E.5) bins the *transformed*
scores ``g(z)``; :func:`held_out_check` scores a map on the half of the items it was not
fitted to, with intervals.
"""

from ._solver import corrected_log_loss
from .class_maps import CLASS_METHODS, ClassTemperatureScaling, VectorScaling
from .held_out import HeldOutCheck, held_out_check
from .maps import (
    DEFAULT_EPS,
    METHODS,
    HistogramBinning,
    MapDraws,
    PlattScaling,
    TemperatureScaling,
    make_map,
    map_from_dict,
)
from .workflow import TARGETS, RecalibrationStudy, recalibrate, recalibration_study

__all__ = [
    "CLASS_METHODS",
    "DEFAULT_EPS",
    "METHODS",
    "TARGETS",
    "ClassTemperatureScaling",
    "HeldOutCheck",
    "HistogramBinning",
    "MapDraws",
    "PlattScaling",
    "RecalibrationStudy",
    "TemperatureScaling",
    "VectorScaling",
    "corrected_log_loss",
    "held_out_check",
    "make_map",
    "map_from_dict",
    "recalibrate",
    "recalibration_study",
]
