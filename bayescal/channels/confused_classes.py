"""Classes that every annotator confuses: found by a likelihood-ratio test of one class fewer,
and merged (Dawid and Skene 1979's latent class model).

When every annotator answers two classes alike (``T_j[y] = T_j[y']`` for every ``j``), no
label tells them apart: the difference ``U_y - U_y'`` of the corrected one-hot labels has no
unbiased estimate, and the EM fits a split of the two that follows the noise (in a simulated
panel of three judges who all answer grades 4 and 5 alike, the fitted split gave the 5-grade
top-label NC-ECE 0.105 against a clean 0.066, with every matrix well conditioned).  Their sum
can still be corrected, so the classes are merged (:meth:`bayescal.AnnotatedScores.merge_classes`).

**The test.**  Tying two latent classes' rows in every annotator's matrix
(:func:`~bayescal.channels.confusion_em.tie_rows`) leaves a model of ``C - 1`` latent classes
answering in ``C`` codes.  Its log-likelihood ``l_1`` against the fit's ``l_0`` gives

    LR = 2 (l_0 - l_1),    df = m (C - 1) + 1,

``m`` the fit's distinct matrices (the annotators, the pooled sparse workers counting as one):
each loses a row of ``C - 1`` free cells, and the proportions one.  The classes are
distinguishable when ``P(chi2_df > LR) < alpha``; otherwise the tied pair is merged, the data
refitted with the fit's own estimator and options, and the test repeated, until it rejects or
three classes are left (two would be binary data).  Under the tie the split of the tied
classes' proportion is not identified, so the chi-squared reference is approximate; the
default ``alpha`` of 0.001 lies far from both: in simulated panels and crowds whose
annotators all answer two classes alike the first test's median p was 0.22 and 0.64, and
with one annotator telling them apart below 1e-29 (100 data sets each, all merged and none
merged, respectively).

**Which classes.**  Any two latent classes may be tied, and the likelihood does not say which
(it is the same under a relabelling): the tie starts from the pair the fit confuses most (the
largest ``P(Y = y, A = y') + P(Y = y', A = y)`` summed over the annotators by their labels),
and the EM's orientation then puts the tied rows on the two codes they answer.  Those are
merged.  On an ordinal scale only adjacent grades are tied and merged, so that the scale keeps
its order.

Only the full confusion matrices are tested: the one-coin and by-distance forms tie their rows
to the answers themselves.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .. import _validation as v
from .._api import Result, silenced
from ..data.annotated_scores import AnnotatedScores, merged_class_codes
from ..exceptions import FIT_WARNINGS
from .class_crowd_em import class_crowd_em
from .confusion_em import confusion_em
from .confusion_fit import ConfusionFit
from .crowd_em import crowd_em, shared_channel_index
from .em import dawid_skene_em

__all__ = ["MERGE_ALPHA", "ClassMerge", "confused_classes"]

#: The test's significance level: classes are merged unless a likelihood ratio this unlikely
#: under the tie says they differ.
MERGE_ALPHA = 1e-3

_REFITS = {"dawid_skene_em": dawid_skene_em, "crowd_em": crowd_em}


@dataclass(frozen=True, eq=False, repr=False)
class ClassMerge(Result):
    """The classes every annotator confuses, by the likelihood-ratio test of one class fewer
    (module docstring).

    Attributes
    ----------
    groups : tuple of tuple of str
        Each group of classes to merge, by name (empty: every class is told apart); pass it
        to :meth:`bayescal.AnnotatedScores.merge_classes`.
    data : AnnotatedScores
        The data with the groups merged (the data given when there is none).
    fit : ConfusionFit
        The fit of ``data`` (the fit given when nothing was merged, else its estimator's
        refit with the same options).
    codes : ndarray of int, shape (C,)
        Each class of the data given: its code in ``data`` (to recode other labels, a truth
        column's, as the merge recoded the annotations).
    statistics, dfs, p_values : tuple
        Each test's likelihood ratio ``2 (l_0 - l_1)``, its degrees of freedom and its
        chi-squared p-value, in the order run: those of ``alpha`` or more merged a pair.
    alpha : float
        The significance level.
    """

    groups: tuple[tuple[str, ...], ...]
    data: AnnotatedScores
    fit: ConfusionFit
    codes: np.ndarray
    statistics: tuple[float, ...]
    dfs: tuple[int, ...]
    p_values: tuple[float, ...]
    alpha: float

    def sentence(self) -> str | None:
        """The merge in one line, or None when every class is told apart."""
        if not self.groups:
            return None
        merged = "; ".join(" and ".join(repr(name) for name in group) for group in self.groups)
        smallest = min(p for p in self.p_values if p >= self.alpha)
        return (
            f"every annotator answers the classes {merged} alike (likelihood-ratio test of "
            f"one class fewer, p = {smallest:.2g} or more, at {self.alpha:g}): their "
            "difference cannot be corrected, so they are merged into "
            f"{', '.join(repr('|'.join(group)) for group in self.groups)}"
        )


def confused_classes(data, fit, *, alpha=MERGE_ALPHA) -> ClassMerge:
    """The classes every annotator confuses, tested and merged (module docstring).

    Parameters
    ----------
    data : AnnotatedScores
        Multi-class data.
    fit : ConfusionFit
        Its fit by :func:`~bayescal.dawid_skene_em` or :func:`~bayescal.crowd_em` with full
        confusion matrices; a merge is refitted by the same estimator with the same options.
    alpha : float, default 0.001
        The test's significance level.

    Returns
    -------
    ClassMerge

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 4, 3000)
    >>> # three judges, right 80% of the time on grades 1-2; grades 3 and 4 a coin flip
    >>> confusion = np.array([[.8, .1, .05, .05], [.1, .8, .05, .05], [.05, .05, .45, .45],
    ...                       [.05, .05, .45, .45]])
    >>> answers = np.stack([[rng.choice(4, p=confusion[y]) for y in truth] for _ in range(3)], 1)
    >>> data = AnnotatedScores(np.full((3000, 4), 0.25), answers, classes=["1", "2", "3", "4"])
    >>> merge = confused_classes(data, dawid_skene_em(data))
    >>> merge.groups, merge.data.classes
    ((('3', '4'),), ('1', '2', '3|4'))
    """
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be an AnnotatedScores; saw {type(data).__name__}")
    data._require_multiclass("confused_classes")
    if not isinstance(fit, ConfusionFit) or fit.method not in _REFITS:
        raise TypeError(
            "fit must be the ConfusionFit of dawid_skene_em or crowd_em on these data; saw "
            f"{type(fit).__name__}" + (f" of {fit.method}" if isinstance(fit, ConfusionFit) else "")
        )
    if fit.data_fingerprint != data.responses().fingerprint:
        raise ValueError("fit: was fitted on other labels than data's; fit these data")
    # a start given to the fit has the classes before the merge: the refits start anew
    options = {name: value for name, value in fit.options if name != "init"}
    if options.get("structure", "full") != "full":
        raise ValueError(
            f"fit: has {options['structure']!r} confusion matrices, whose form ties the rows "
            "to the answers; the test ties rows of the full matrices (fit with the default "
            "structure)"
        )
    alpha = v.as_open_probability(alpha, "alpha")
    # each current class's classes of the data given, in order
    members = [[name] for name in data.classes]
    statistics, dfs, p_values = [], [], []
    original = data
    while data.n_classes > 3:
        statistic, df, tied = _tied_test(data, fit, options)
        p_value = float(stats.chi2.sf(statistic, df))
        statistics.append(statistic)
        dfs.append(df)
        p_values.append(p_value)
        if p_value < alpha or tied is None:
            break
        first, second = tied
        members[first] = sorted(members[first] + members.pop(second), key=original.classes.index)
        groups = [group for group in members if len(group) > 1]
        data = original.merge_classes(groups)
        with silenced(*FIT_WARNINGS):  # said of the first fit
            fit = _REFITS[fit.method](data, **options)
    groups = [group for group in members if len(group) > 1]
    return ClassMerge(
        groups=tuple(tuple(group) for group in groups),
        data=data,
        fit=fit,
        codes=merged_class_codes(original.classes, original.ordinal, groups),
        statistics=tuple(statistics),
        dfs=tuple(dfs),
        p_values=tuple(p_values),
        alpha=alpha,
    )


def _most_confused(fit: ConfusionFit, data: AnnotatedScores) -> tuple[int, int]:
    """The pair of classes the fit confuses most (module docstring); adjacent grades only on an
    ordinal scale."""
    labels = (data.annotations != v.MISSING).sum(axis=0).astype(np.float64)
    answered = np.einsum("j,jyk->yk", labels, fit.channels.confusion) * fit.prevalence[:, None]
    both = answered + answered.T
    pairs = [
        (y, k)
        for y in range(data.n_classes)
        for k in range(y + 1, data.n_classes)
        if not data.ordinal or k == y + 1
    ]
    return max(pairs, key=lambda pair: both[pair])


def _option(estimator, options: dict, name: str):
    """The fit's option ``name``: as recorded, or the estimator's default."""
    if name in options:
        return options[name]
    return inspect.signature(estimator).parameters[name].default


def _tied_test(data: AnnotatedScores, fit: ConfusionFit, options: dict):
    """``(LR, df, tied)``: the likelihood ratio of the fit against the tied model, its degrees
    of freedom and the two codes the tied rows answer (None when they are not adjacent grades
    of an ordinal scale, which are not merged)."""
    first, second = _most_confused(fit, data)
    tie = np.arange(data.n_classes)
    tie[second] = first
    pooled = np.isin(np.asarray(data.annotator_names), fit.pooled)
    with silenced(*FIT_WARNINGS):
        if fit.method == "crowd_em":
            tied = class_crowd_em(
                data.responses(),
                shared_channel_index(pooled),
                fit.smoothing,
                _option(crowd_em, options, "tol"),
                _option(crowd_em, options, "max_iter"),
                tied=tie,
            )
        else:
            keywords = {
                name: _option(dawid_skene_em, options, name)
                for name in ("n_starts", "tol", "max_iter", "seed")
            }
            tied = confusion_em(
                data.annotations, data.n_classes, gold=data.gold, tied=tie, **keywords
            )
    n_matrices = data.n_annotators - int(pooled.sum()) + int(pooled.any())
    df = n_matrices * (data.n_classes - 1) + 1
    statistic = max(0.0, 2.0 * (fit.loglik - tied.loglik))
    rows = tied.confusion
    alike = [
        (y, k)
        for y in range(data.n_classes)
        for k in range(y + 1, data.n_classes)
        if np.allclose(rows[:, y], rows[:, k], rtol=0.0, atol=1e-12)
    ]
    pair = alike[0] if len(alike) == 1 else (first, second)
    if data.ordinal and pair[1] != pair[0] + 1:
        return statistic, df, None
    return statistic, df, pair
