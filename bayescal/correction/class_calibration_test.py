"""The calibration test of multi-class data, from noisy annotators: the multi-class form of
:mod:`bayescal.correction.calibration_test` (Dawid and Skene 1979 for the channels).

``H0: Y_i ~ Categorical(p_i)`` given the predicted probabilities ``p_i`` (the canonical null of
a calibrated predictor).  The statistic scores the binary problems of ``kind``
(:mod:`bayescal.metrics.classes`): top-label, the predicted class's coordinate against the
confidence, or classwise, every class's coordinate against its probability.  Each problem's
bins (of the confidence, or of ``p_ik``) with fewer than ``min_bin_items`` labelled items are
merged into their neighbours, as for binary labels, and every (problem, bin) is a cell ``c``:

    T_c = sum_{i, k: (i, k) in c} (U_ik - p_ik),

``U_i`` the item's corrected one-hot label (:mod:`bayescal.correction.known_confusions`), with
the IV weights at the class proportions ``mean_i p_i`` (fixed by H0, not by the labels).  Under
H0 ``E[U_i | p_i] = p_i`` and

    Cov(U_i | p_i) = diag(p_i) - p_i p_i^T + sum_y p_iy Cov(U_i | Y_i = y),

the last term from the confusion matrices (``Correction.given_class_covariances`` of
:mod:`bayescal.correction.known_confusions`).  Summed over the items into the cells' covariance ``V``
(a top-label item adds to one cell; a classwise item to one cell per class, and its
coordinates sum to 1, so ``V`` is singular),

    X = T^T V^+ T

is chi-square with ``rank(V)`` degrees of freedom under H0 as the cells fill.  Known confusion
matrices use that reference.  Matrices estimated from the same items (a
:class:`~bayescal.channels.ConfusionFit` of these data) carry estimation error the reference
lacks: each of ``n_replicates`` replicates draws ``Y_i ~ Categorical(p_i)`` and every observed
label from the fitted matrices (who labelled what kept), refits the same estimator with the
same options (``dawid_skene_em`` from one start, the fitted matrices the replicate was drawn
from), and computes ``X`` at the refitted matrices; ``p = (1 + #{X* >= X}) / (1 + B)``.  Where
the likelihood is flat (classes every annotator confuses, which the fit splits along the
noise), a refit stays near its start while the fit searched, and the null is too narrow: merge
such classes first (:func:`bayescal.channels.confused_classes`, as ``analyse`` does).
Items with no label from an annotator whose matrix can be inverted are left out
(``n_unlabelled``).

**Gold items** (``data.gold``) enter as in the binary test: each cell's sum is ``n_c`` times
its rectified mean's residual (:mod:`bayescal.correction.rectified`), for a simple random
sample of gold

    T_c = sum_O (n_c lambda_c / N_c)(U_ik - p_ik)
          + sum_G (n_c w_i / m_c)(Y_ik - lambda_c U_ik - (1 - lambda_c) p_ik),

``O`` the cell's ``N_c`` items without gold, ``G`` its gold items of weights ``w = 1 / pi``
summing to ``m_c``, and ``lambda_c`` the cell's (:func:`~bayescal.correction.rectified.bin_lambdas`,
taken at the observed labels); gold drawn with inclusion probabilities takes the all-items
form (:func:`~bayescal.correction.rectified.rectified_factors`).  The sums are centred under
H0 whatever the channel model; their variance is still the model's.  Each term is
``g (Y_ik - p_ik) + h (U_ik - p_ik)``, and ``U - Y`` has mean 0 given ``Y``, so an item's
block of ``V`` is ``(g + h)(g + h)^T o (diag p - p p^T) + h h^T o sum_y p_y Cov(U | Y = y)``.
A replicate draws the gold items' classes with the others' and refits with them as gold.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from .. import _validation as v
from .._api import replicate_bar, silenced, warn_caller
from ..channels.confusion_fit import ConfusionChannels, confusion_matrices_for
from ..exceptions import ChannelWarning, ConvergenceWarning
from ..metrics.calibration import assign_bins
from ..metrics.classes import CALIBRATION_KINDS
from .calibration_result import (
    CalibrationTest,
    gap_of_quadratic_form,
    merged_groups,
    monte_carlo_p_value,
)
from .class_estimation import CLASS_ESTIMATORS, report_class_unlabelled
from .estimators import estimator_function
from .known_confusions import correction_of
from .rectified import GoldRows, bin_lambdas, rectified_factors

__all__ = ["class_calibration_test"]

#: Eigenvalues of the cells' covariance below this share of the largest count as 0 (an
#: item's classwise residuals sum to 0 exactly, so the classwise cells' sums do).
RANK_TOLERANCE = 1e-10
#: Items per pass of the null covariance times C^3: each item's C x C x C block of its set's
#: given-class covariances is gathered (a crowd's items each have their own set).
NULL_VALUES = 2_000_000


class _Layout:
    """What every replicate of one test shares: the items, their problems' scores and cells."""

    def __init__(self, data, kind: str, n_bins, strategy: str, min_bin_items: int, labelled):
        probabilities = data.probabilities[labelled]
        self.probabilities = probabilities
        n_items, n_classes = probabilities.shape
        if kind == "top_label":
            self.columns = np.argmax(probabilities, axis=1)[:, None]  # (n, 1) the problem's class
        else:
            self.columns = np.broadcast_to(np.arange(n_classes), (n_items, n_classes))
        scores = np.take_along_axis(probabilities, self.columns, axis=1)  # (n, P)
        self.scores = scores
        cells = np.empty(scores.shape, dtype=np.int64)
        lower, upper, first = [], [], 0
        for problem in range(scores.shape[1]):
            index, edges = assign_bins(scores[:, problem], n_bins, strategy)
            per_bin = np.bincount(index, minlength=edges.size - 1)
            group = merged_groups(per_bin, min_bin_items)
            cells[:, problem] = first + group[index]
            for g in range(group.max() + 1):
                members = np.flatnonzero(group == g)
                lower.append(edges[members[0]])
                upper.append(edges[members[-1] + 1])
            first += group.max() + 1
        self.cells, self.n_cells = cells, first
        self.lower, self.upper = np.array(lower), np.array(upper)
        self.n_items = np.bincount(cells.ravel(), minlength=first)
        # each (item, problem) term is g (Y - p) + h (U - p): without gold g = 0, h = 1
        self.gold = None
        self.gold_factor = np.zeros(scores.shape)
        self.corrected_factor = np.ones(scores.shape)

    def with_gold(self, gold: np.ndarray, weight: np.ndarray, correction) -> None:
        """Take the tested items' gold class codes ``gold`` (-1 for none) and weights
        ``1 / pi`` ``weight`` into the cells' sums (module docstring), each cell's lambda at
        the corrected labels of ``correction``."""
        is_gold = gold != v.MISSING
        cells = self.cells.ravel()
        n_problems = self.columns.shape[1]
        gold_of_row = np.repeat(is_gold, n_problems)
        rows = GoldRows(
            cells,
            np.take_along_axis(correction.labels(), self.columns, axis=1).ravel(),
            np.where(gold_of_row, (gold[:, None] == self.columns).ravel(), v.MISSING),
            np.ones(cells.size),
            np.repeat(weight, n_problems),
        )
        g, h = rectified_factors(
            cells, gold_of_row, rows.weights, self.n_items, bin_lambdas(rows, self.n_cells)
        )
        self.gold = gold
        self.gold_factor = g.reshape(self.cells.shape)
        self.corrected_factor = h.reshape(self.cells.shape)

    def statistic(self, correction, gold=None) -> tuple[float, int, np.ndarray, np.ndarray, float]:
        """``(X, df, T, diag V, n^T V^+ n)`` at one correction of the layout's items (with
        gold, at the gold class codes ``gold``, default the observed ones)."""
        corrected = np.take_along_axis(correction.labels(), self.columns, axis=1)
        terms = self.corrected_factor * (corrected - self.scores)
        if self.gold is not None:
            gold = self.gold if gold is None else gold
            known = (gold[:, None] == self.columns).astype(np.float64)
            terms = terms + self.gold_factor * (known - self.scores)
        residual = np.bincount(self.cells.ravel(), terms.ravel(), minlength=self.n_cells)
        covariance = self._null_covariance(correction)
        values, vectors = np.linalg.eigh(covariance)
        kept = values > RANK_TOLERANCE * values.max()
        basis, kept_values = vectors[:, kept], values[kept]
        statistic = float(((basis.T @ residual) ** 2 / kept_values).sum())
        coefficient = float(((basis.T @ self.n_items) ** 2 / kept_values).sum())
        return statistic, int(kept.sum()), residual, np.diag(covariance), coefficient

    def _null_covariance(self, correction) -> np.ndarray:
        """``V`` (cells x cells): the sum over items of their problems' block of
        ``Cov(U_i | p_i)`` under H0 (module docstring)."""
        given_class, group = correction.given_class_covariances()
        n_problems, n_classes = self.columns.shape[1], self.probabilities.shape[1]
        flat = np.zeros(self.n_cells**2)
        label_factor = self.gold_factor + self.corrected_factor  # g + h
        step = max(1, NULL_VALUES // n_classes**3)
        for start in range(0, group.size, step):
            items = slice(start, start + step)
            p = self.probabilities[items]
            noise = np.einsum("ny,nyab->nab", p, given_class[group[items]])
            label = p[:, :, None] * np.eye(n_classes) - p[:, :, None] * p[:, None, :]
            columns, cells = self.columns[items], self.cells[items]
            every = np.arange(p.shape[0])
            pairs, values = [], []
            for one in range(n_problems):
                for other in range(n_problems):
                    at = (every, columns[:, one], columns[:, other])
                    values.append(
                        label_factor[items, one] * label_factor[items, other] * label[at]
                        + self.corrected_factor[items, one]
                        * self.corrected_factor[items, other]
                        * noise[at]
                    )
                    pairs.append(cells[:, one] * self.n_cells + cells[:, other])
            # one sum over the pass's cells, whatever the number of problems
            flat += np.bincount(np.concatenate(pairs), np.concatenate(values), minlength=flat.size)
        return flat.reshape(self.n_cells, self.n_cells)


def _correction(data, confusion, prevalence, names, labelled=None):
    """The correction of ``data``'s labels (of the ``labelled`` items, when given)."""
    annotations = data.annotations if labelled is None else data.annotations[labelled]
    return correction_of(annotations, confusion, "iv", prevalence, names, False)


def class_calibration_test(data, channels, *, kind, bins, n_replicates, rng, progress):
    """What :func:`~bayescal.calibration_test` does with multi-class ``data`` (module
    docstring); ``bins`` is ``(n_bins, strategy, min_bin_items)``, checked there."""
    kind = v.as_choice("top_label" if kind is None else kind, "kind", CALIBRATION_KINDS)
    fit, confusion = confusion_matrices_for(data, channels, "channels")
    known = channels if fit is None else fit.channels
    if fit is not None and fit.data_fingerprint != data.responses().fingerprint:
        raise ValueError(
            f"channels: this {fit.method} fit was fitted on other items (the fingerprint of the "
            "labels it records differs): the multi-class test refits on replicates of the "
            "items tested only; pass its ConfusionChannels (fit.channels) to treat the matrices "
            "as known, which leaves their estimation error out of the null"
        )
    prevalence = data.probabilities.mean(axis=0)
    names = data.annotator_names
    first = _correction(data, confusion, prevalence, names)
    labelled = first.labelled
    report_class_unlabelled(labelled)
    layout = _Layout(data, kind, *bins, labelled)
    if data.n_gold:
        inclusion = np.ones(data.n_items) if data.gold_weights is None else data.gold_weights
        gold = data.gold[labelled]
        layout.with_gold(gold, 1.0 / np.where(gold != v.MISSING, inclusion[labelled], 1.0), first)
    statistic, df, residual, variance, coefficient = layout.statistic(first)
    if fit is None:
        p_value, how = (
            float(stats.chi2.sf(statistic, df)),
            "known confusion matrices; chi-square reference",
        )
        null_size = 0
    else:
        null = _refitted_null(
            data, fit, confusion, prevalence, layout, labelled, n_replicates, rng, progress
        )
        p_value = monte_carlo_p_value(null, statistic)
        how = (
            f"confusion matrices by {fit.method}, refitted on every replicate (refitting "
            f"parametric bootstrap); p-value from {null.size} replicates under H0"
        )
        null_size = int(null.size)
    return CalibrationTest(
        statistic=statistic,
        p_value=p_value,
        df=df,
        detectable_gap=gap_of_quadratic_form(df, coefficient),
        method=(
            f"multi-class ({kind.replace('_', '-')}) test: quadratic form of the cells' "
            "noise-corrected residuals, covariance known under Y ~ Cat(p), bins under "
            f"{bins[2]} items merged; {how}"
        ),
        lower=layout.lower,
        upper=layout.upper,
        n_items=layout.n_items,
        residual=residual / layout.n_items,
        contribution=residual**2 / variance,
        n_tested=int(labelled.sum()),
        n_unlabelled=int((~labelled).sum()),
        channels_from="known" if fit is None else "reuse",
        n_replicates=null_size,
        channels=known,
    )


def _refitted_null(data, fit, confusion, prevalence, layout, labelled, n_replicates, rng, progress):
    """The statistics of ``n_replicates`` replicates drawn under H0 from the fitted matrices,
    each at its own refit (module docstring)."""
    options = dict(fit.options)
    if fit.method == "dawid_skene_em":
        # a replicate is drawn from the fitted matrices: they are its start, and one start
        # finds its maximum (the fit's own starts searched the real data's likelihood), at a
        # tenth of the default ten starts' time
        options |= {"n_starts": 1, "init": (confusion, prevalence)}
    refit, _ = estimator_function(
        fit.method, options, names=CLASS_ESTIMATORS, known=(ConfusionChannels,)
    )
    observed = data.annotations != v.MISSING
    rows, columns = np.nonzero(observed)
    cumulative = np.cumsum(confusion, axis=2)  # (K, C(y), C(k))
    n_classes = data.n_classes
    names = data.annotator_names
    class_cumulative = np.cumsum(data.probabilities, axis=1)  # Y ~ Cat(p) by inversion
    null = []
    with replicate_bar(n_replicates, "calibration test (refitting bootstrap)", progress) as bar:
        for _ in range(n_replicates):
            truth = (rng.random((data.n_items, 1)) > class_cumulative).sum(axis=1)
            truth = np.minimum(truth, n_classes - 1)
            chance = cumulative[columns, truth[rows]]  # (R, C)
            answers = np.minimum((rng.random((rows.size, 1)) > chance).sum(axis=1), n_classes - 1)
            annotations = np.full(data.annotations.shape, v.MISSING, dtype=np.int64)
            annotations[rows, columns] = answers
            gold = None if data.gold is None else np.where(data.gold != v.MISSING, truth, -1)
            # every other field kept (an ordinal scale's, which a by-distance refit needs)
            replicate = replace(data, annotations=annotations, gold=gold)
            with silenced(ChannelWarning, ConvergenceWarning):
                refitted = refit(replicate).channels.confusion
                correction = _correction(replicate, refitted, prevalence, names, labelled)
            if correction.labelled.all():
                tested_gold = None if gold is None else gold[labelled]
                null.append(layout.statistic(correction, tested_gold)[0])
            bar.update(1)
    if len(null) < n_replicates:
        warn_caller(
            f"calibration_test: on {n_replicates - len(null)} of {n_replicates} replicates the "
            "refitted matrices left some tested item without a usable label; the p-value is "
            "over the others",
            ChannelWarning,
        )
    return np.array(null)
