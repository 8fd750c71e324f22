"""Classes that every annotator confuses: found by a likelihood-ratio test of one class fewer,
and merged (Dawid and Skene 1979's latent class model).

When every annotator answers two classes alike (``T_j[y] = T_j[y']`` for every ``j``), no
label tells them apart: the difference ``U_y - U_y'`` of the corrected one-hot labels has no
unbiased estimate, and the EM fits a split of the two that follows the noise, every matrix
well conditioned (in simulated panels of three judges who all answer grades 4 and 5 alike,
the top-label NC-ECE read 0.157 above the clean ECE on average).  Their sum can still be
corrected, so the classes are merged (:meth:`bayescal.AnnotatedScores.merge_classes`).

**The test.**  Tying two classes' rows in every annotator's matrix
(:func:`~bayescal.channels.confusion_em.tie_rows`) leaves a model of ``C - 1`` latent classes
answering in ``C`` codes.  Its EM is run from one start per pair of classes (adjacent grades
only, on an ordinal scale): the fit, with the pair's rows replaced by their proportion-weighted
mean and tied.  The best run's log-likelihood ``l_1`` against the fit's ``l_0`` gives

    LR = 2 (l_0 - l_1),    df = m (C - 1) + 1,

``m`` the fit's distinct matrices (the annotators, the pooled sparse workers counting as one):
each loses a row of ``C - 1`` free cells, and the proportions one (none when gold items of
both classes identify their split).  The classes are told apart when ``P(chi2_df > LR) <
alpha``.  Otherwise two codes are merged, the data refitted with the fit's own estimator and
options, and the test repeated.

**Which codes.**  They are read from the best run's rows, not from the pair it tied: the
likelihood is the same under a relabelling of the latent classes, and a run may as well spend
its tie on two copies of a clear class and let a free row answer the confused pair.  Its
``C - 1`` distinct rows are matched to the codes by the largest label-weighted joint diagonal
(a linear assignment), and the code left over joins the row that answers it most.  A pair is
named but not merged (``unmerged``) when it would leave two classes (binary data) or, on an
ordinal scale, when it is not two adjacent grades (the merged scale keeps its order).

**The reference.**  Under the tie the split of the tied classes' proportion is not
identified, so the chi-squared reference is approximate, and a smoothed fit (``crowd_em``'s
Dirichlet for sparse workers) gives the ratio of two posterior modes, not of two maxima of the
likelihood.  The default ``alpha`` of 0.001 lies far from both kinds of data: in simulated
panels and crowds whose annotators all answer two classes alike the first test's median p
was 0.22 and 0.64, and with one annotator telling them apart below 1e-29 (100 data sets each:
all merged, and none).  A pair of rare classes that the labels tell apart only weakly may be
merged: two classes of 150 items each, every judge right 70% of the time and swapping them
24%, were merged in 8 of 100 data sets (83 of 100 when one judge of three answers them
alike), and the merged NC-ECE was as close to its clean value as the unmerged one.  A round costs ``C (C - 1) / 2`` tied EMs (``C - 1`` on a scale), each
from a start near its maximum: 3 s for a 10-class crowd of 2 000 items.

Only the full confusion matrices are tested: the one-coin and by-distance forms tie their rows
to the answers themselves.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

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
        chi-squared p-value, in the order run: those of ``alpha`` or more found a pair the
        labels do not tell apart.
    alpha : float
        The significance level.
    unmerged : tuple of str
        Two classes of ``data`` that the labels do not tell apart but that are not merged:
        two classes would be left (binary data: fit them as such), or they are not adjacent
        grades of an ordinal scale; empty otherwise.
    """

    groups: tuple[tuple[str, ...], ...]
    data: AnnotatedScores
    fit: ConfusionFit
    codes: np.ndarray
    statistics: tuple[float, ...]
    dfs: tuple[int, ...]
    p_values: tuple[float, ...]
    alpha: float
    unmerged: tuple[str, ...] = ()

    def sentence(self) -> str | None:
        """What the test found, in one line, or None when every class is told apart."""
        if not self.groups and not self.unmerged:
            return None
        smallest = min(p for p in self.p_values if p >= self.alpha)
        test = f"(likelihood-ratio test of one class fewer, p = {smallest:.2g} or more, at {self.alpha:g})"
        said = []
        if self.groups:
            merged = "; ".join(" and ".join(repr(name) for name in group) for group in self.groups)
            said.append(
                f"the labels do not tell the classes {merged} apart {test}: their difference "
                "cannot be corrected, so they are merged into "
                f"{', '.join(repr('|'.join(group)) for group in self.groups)}"
            )
        if self.unmerged:
            pair = " and ".join(repr(name) for name in self.unmerged)
            why = (
                "merging them would leave two classes; analyse them as binary labels"
                if self.data.n_classes == 3
                else "they are not adjacent grades of the scale, so they are not merged"
            )
            said.append(
                f"the labels do not tell the classes {pair} apart"
                + ("" if self.groups else f" {test}")
                + f": their difference cannot be corrected, and {why}"
            )
        return "; ".join(said)


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
    data.require_multiclass("confused_classes")
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
    unmerged: tuple[str, ...] = ()
    original = data
    while True:
        statistic, df, (first, second) = _best_tie(data, fit, options)
        p_value = float(stats.chi2.sf(statistic, df))
        statistics.append(statistic)
        dfs.append(df)
        p_values.append(p_value)
        if p_value < alpha:
            break
        # a merge would leave binary data, or break the scale's order: said, not done
        if data.n_classes == 3 or (data.ordinal and second != first + 1):
            unmerged = (data.classes[first], data.classes[second])
            break
        members[first] = sorted(members[first] + members.pop(second), key=original.classes.index)
        data = original.merge_classes([group for group in members if len(group) > 1])
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
        unmerged=unmerged,
    )


def _candidate_pairs(data: AnnotatedScores) -> list[tuple[int, int]]:
    """Every pair of classes; adjacent grades only on an ordinal scale."""
    return [
        (y, k)
        for y in range(data.n_classes)
        for k in range(y + 1, data.n_classes)
        if not data.ordinal or k == y + 1
    ]


def _option(estimator, options: dict, name: str):
    """The fit's option ``name``: as recorded, or the estimator's default."""
    if name in options:
        return options[name]
    return inspect.signature(estimator).parameters[name].default


def _tied_start(confusion: np.ndarray, prevalence: np.ndarray, pair) -> np.ndarray:
    """The fit's matrices (M, C, C) with the rows of ``pair`` replaced by their mean weighted
    by the classes' proportions: the tied model's start nearest the fit."""
    first, second = pair
    share = prevalence[first] / max(prevalence[first] + prevalence[second], 1e-300)
    start = confusion.copy()
    start[:, [first, second]] = (
        share * confusion[:, first] + (1.0 - share) * confusion[:, second]
    )[:, None]
    return start


def _answered_pair(rows: np.ndarray, prevalence: np.ndarray, labels: np.ndarray):
    """The two codes one of the tied model's ``C - 1`` distinct rows answers (module
    docstring): the rows (M, C - 1, C) of every channel, with the latent proportions and each
    channel's labels, are matched to the codes by the largest label-weighted joint diagonal
    (a linear assignment), and the code left over joins the row that answers it most."""
    joint = np.einsum("m,mrk->rk", labels, rows) * prevalence[:, None]  # (C - 1, C)
    matched, codes = optimize.linear_sum_assignment(joint, maximize=True)
    code_of = dict(zip(matched.tolist(), codes.tolist()))
    left = next(k for k in range(joint.shape[1]) if k not in code_of.values())
    chosen = max(code_of, key=lambda r: joint[r, left])
    return tuple(sorted((code_of[chosen], left)))


def _best_tie(data: AnnotatedScores, fit: ConfusionFit, options: dict):
    """``(LR, df, pair)``: the likelihood ratio of the fit against its best tie of two
    classes (module docstring), its degrees of freedom and that pair of codes."""
    pooled = np.isin(np.asarray(data.annotator_names), fit.pooled)
    channel_of = shared_channel_index(pooled)
    # one matrix a channel: a pooled channel's is each of its workers'
    _, first_worker = np.unique(channel_of, return_index=True)
    matrices = fit.channels.confusion[first_worker]
    responses = data.responses() if _REFITS[fit.method] is crowd_em else None
    best = None
    for pair in _candidate_pairs(data):
        tie = np.arange(data.n_classes)
        tie[pair[1]] = pair[0]
        init = (_tied_start(matrices, fit.prevalence, pair), fit.prevalence)
        with silenced(*FIT_WARNINGS):
            if responses is not None:
                tied = class_crowd_em(
                    responses,
                    channel_of,
                    fit.smoothing,
                    _option(crowd_em, options, "tol"),
                    _option(crowd_em, options, "max_iter"),
                    tied=tie,
                    init=init,
                )
            else:
                tied = confusion_em(
                    data.annotations,
                    data.n_classes,
                    gold=data.gold,
                    tied=tie,
                    init=init,
                    n_starts=1,
                    tol=_option(dawid_skene_em, options, "tol"),
                    max_iter=_option(dawid_skene_em, options, "max_iter"),
                )
        if best is None or tied.loglik > best[0].loglik:
            best = (tied, pair)
    tied, (kept, duplicate) = best
    prevalence = tied.prevalence.copy()
    prevalence[kept] += prevalence[duplicate]
    labels = np.bincount(channel_of, (data.annotations != v.MISSING).sum(axis=0))
    best_pair = _answered_pair(
        np.delete(tied.confusion[first_worker], duplicate, axis=1),
        np.delete(prevalence, duplicate),
        labels,
    )
    # each channel loses a row of C - 1 free cells; the proportions one more, unless gold
    # items of both tied classes identify their split
    gold = () if data.gold is None else set(np.unique(data.gold[data.gold != v.MISSING]))
    split_identified = set(best_pair) <= set(gold)
    df = len(first_worker) * (data.n_classes - 1) + (0 if split_identified else 1)
    return max(0.0, 2.0 * (fit.loglik - tied.loglik)), df, best_pair
