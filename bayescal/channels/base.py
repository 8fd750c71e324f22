"""Annotator channels, and what every channel estimator shares: the result type, orientation and
identification checks.

Orientation: the latent label is only defined up to exchanging its two values,
``(a_j, b_j, mu) -> (b_j, a_j, 1 - mu)``.  bayescal orients every fit by the population (the
larger total gap ``sum_j (b_j - a_j)``), or, when an ``anchor`` annotator is named, by
``b_anchor > a_anchor``.  An individual annotator with ``b_j < a_j`` is then estimated as
adversarial, one with ``|b_j - a_j| < 1e-4`` (paper App. G) as uninformative; a fit whose
annotators are all uninformative is a *failure with a reason*, never a silent value.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace

import numpy as np

from .. import _html
from .. import _validation as v
from .._api import abbreviated, warn_caller
from ..data.annotated_scores import AnnotatedScores
from ..data.cells import CellStatistics
from ..exceptions import (
    ChannelFitError,
    IdentificationError,
    SaturatedModelWarning,
    WeakIdentificationWarning,
)
from .label_posteriors import ChannelParameters, PredictsLabels

#: The one threshold of an informative annotator, for the whole package: a channel
#: with ``|b - a|`` below it is uninformative.  Estimators reject such an estimate (paper App. G:
#: "estimated gaps greater than 10^-4"); the correction gives such a user-built channel weight 0.
MIN_GAP = 1e-4

#: The moment estimators need this many items in each score group: fewer gives moments that
#: are noise rather than information.
MIN_GROUP_ITEMS = 10


@dataclass(frozen=True, eq=False)
class Channels:
    """Binary noise channels of K annotators (paper §2, Assumption 1).

    Parameters
    ----------
    a : array_like, shape (K,)
        False-positive rates ``a_j = P(A_j = 1 | Y = 0)``, each in [0, 1].
    b : array_like, shape (K,)
        Sensitivities ``b_j = P(A_j = 1 | Y = 1)``, each in [0, 1].  The false-negative rate is
        ``1 - b_j``.
    adversarial : bool, default False
        ``True`` says that annotators with ``b_j < a_j`` (whose 1 means ``Y = 0`` more often
        than ``Y = 1``) are meant; the correction uses them either way, and warns without it.
        Fitted channels set it when an anchored fit found such an annotator.
    names : sequence of str, optional
        The annotators the channels belong to.  Named channels meet data by name (columns in
        another order are the same annotators; other names are refused).  Unnamed ones meet
        only data whose annotators are unnamed too (``a0, a1, ...``), by position: on a
        table's named columns they are refused, since a reordered table would hand each
        channel another annotator's labels.  A fit's channels carry its annotators' names.

    A scalar is taken as one annotator.  The arrays are stored read-only.  A channel with
    ``|b_j - a_j| < MIN_GAP`` (1e-4) is allowed here but carries no information about Y: the
    correction gives it weight 0, with a warning.
    """

    a: np.ndarray
    b: np.ndarray
    adversarial: bool = field(default=False, kw_only=True)
    names: tuple[str, ...] | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        a = v.as_probabilities(np.atleast_1d(self.a), "a")
        b = v.as_probabilities(np.atleast_1d(self.b), "b")
        if a.shape != b.shape:
            raise ValueError(
                f"a and b must have one entry per annotator each; saw {a.size} and {b.size} entries"
            )
        if not isinstance(self.adversarial, (bool, np.bool_)):
            raise TypeError(f"adversarial must be True or False; saw {self.adversarial!r}")
        a.setflags(write=False)
        b.setflags(write=False)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "adversarial", bool(self.adversarial))
        if self.names is not None:
            object.__setattr__(self, "names", v.as_annotator_names(self.names, a.size, "names"))

    @classmethod
    def from_error_rates(cls, false_positive, false_negative) -> Channels:
        """Channels from false-positive rates ``a_j`` and false-negative rates ``1 - b_j``."""
        fnr = v.as_probabilities(np.atleast_1d(false_negative), "false_negative")
        return cls(a=false_positive, b=1.0 - fnr)

    @property
    def gap(self) -> np.ndarray:
        """``d_j = b_j - a_j`` (the Youden index); informative when non-zero."""
        return self.b - self.a

    @property
    def n_annotators(self) -> int:
        return int(self.a.size)

    def __repr__(self) -> str:
        flag = ", adversarial=True" if self.adversarial else ""
        named = "" if self.names is None else f", names={list(self.names)}"
        return (
            f"Channels(a={np.round(self.a, 4).tolist()}, b={np.round(self.b, 4).tolist()}"
            f"{flag}{named})"
        )

    def for_annotators(self, names, *, where: str = "data", of: str = "the channels") -> Channels:
        """These channels in the order of the annotators ``names`` of ``where`` (the data they
        correct), by :func:`annotator_order`'s rule: by name, or by position when neither side
        names its annotators."""
        positions = annotator_order(self.names, self.n_annotators, names, where, of)
        if positions is None:
            return self
        return Channels(
            self.a[positions], self.b[positions], adversarial=self.adversarial, names=tuple(names)
        )

    @property
    def confusion(self) -> np.ndarray:
        """The (K, 2, 2) confusion matrices ``T_j[y, k] = P(A_j = k | Y = y)``:
        ``[[1 - a_j, a_j], [1 - b_j, b_j]]`` (Dawid and Skene 1979)."""
        return np.stack([1.0 - self.a, self.a, 1.0 - self.b, self.b], axis=1).reshape(-1, 2, 2)


def annotator_order(
    own, n_own: int, names, where: str, of: str, spelled: str = "Channels(a, b, names=[...])"
) -> np.ndarray | None:
    """The positions that put channels named ``own`` (None: unnamed) in the order of the
    annotators ``names`` of ``where``, or None when they are in that order already: matched by
    name when the channels are named, by position when neither the channels nor the data name
    their annotators (``a0, a1, ...``); ``of`` is what the errors call the channels and
    ``spelled`` how named ones are built.

    A channel applied to another annotator's column gives a wrong number without any sign
    of it (by position, reordered columns gave 0.0765 instead of 0.0906), so named channels
    meeting other names are refused, unnamed ones meeting named data are refused, and
    unnamed ones must have one channel per column."""
    names = tuple(str(name) for name in names)
    if own is None:
        if n_own != len(names):
            raise ValueError(
                f"channels must describe every annotator column ({len(names)}); "
                f"saw {n_own} channel(s)"
            )
        if names != v.as_annotator_names(None, len(names), "names"):
            # the data's columns are named (a table's, a crowd's workers): unnamed channels
            # would meet them by position, which a reordered table turns into another
            # annotator's channel without a sign
            raise ValueError(
                f"channels: {of} are unnamed and {where} names its annotators "
                f"{abbreviated(names, 6)}: name the channels, {spelled}, so that "
                "each meets its own annotator's column"
            )
        return None
    if tuple(own) == names:
        return None
    return v.annotator_positions(names, own, where, of)


def channels_for(channels, names, *, where: str = "data") -> Channels:
    """The channels of ``channels`` (:class:`Channels`, or a successful :class:`ChannelFit`)
    for the annotators ``names`` of ``where``, in their order (:meth:`Channels.for_annotators`):
    a fit's channels carry its annotators' names, so a fit meets data by name."""
    of = "the channels"
    if isinstance(channels, ChannelFit):
        if channels.failure is not None:
            raise ChannelFitError(
                f"channels: the {channels.method} fit failed ({channels.failure})"
            )
        channels, of = channels.channels, f"the {channels.method} fit"
    if not isinstance(channels, Channels):
        raise TypeError(
            f"channels must be a bayescal.Channels or a ChannelFit; saw {type(channels).__name__}"
        )
    return channels.for_annotators(names, where=where, of=of)


@dataclass(frozen=True, eq=False)
class ChannelFit(PredictsLabels):
    """Result of a channel estimator.

    Attributes
    ----------
    method : str
        Name of the estimator.
    channels : Channels or None
        Oriented channel estimates; None when the fit failed.
    prevalence : float, ndarray or None
        ``mu = P(Y = 1)``: one value for a marginal model, one per score group (ordered as
        ``group_ids``) for a grouped model; None when the fit failed.
    group_ids : ndarray of int
        The score-group ids that ``prevalence`` refers to (one entry for a marginal model).
    group_counts : ndarray of int
        Number of items in each of those groups.
    loglik : float or None
        Log-likelihood of the pattern counts at the estimate (likelihood methods only).
    objective : float or None
        Minimised objective (GMM only).
    converged : bool
        Whether the iterative method met its tolerance (closed forms: True).
    n_iter : int
        Iterations of the selected run (closed forms: 0).
    failure : str or None
        Why the fit failed, or None.
    annotator_names : tuple of str
    smoothing : (float, float) or None
        The Beta(alpha, beta) prior on every a_j and b_j of a MAP fit (:func:`crowd_em`);
        None for a maximum-likelihood fit.
    pooled : tuple of str
        The workers who share the pooled channel of the sparse workers (:func:`crowd_em`'s
        ``pool``); empty when each has its own.
    data_fingerprint : str
        ``"cells:<sha256>"`` of the cells it was fitted on (``"responses:<sha256>"`` for
        :func:`crowd_em`), so that a later call can tell the same data (channels reused) from
        other items (a split): :attr:`bayescal.data.CellStatistics.fingerprint`.
    dependent : tuple of (str, str)
        The pairs of annotators fitted with a conditional covariance (``dependent=`` of
        :func:`dawid_skene_em`, :func:`grouped_em` and :func:`crowd_em`;
        :mod:`bayescal.channels.dependence`); empty when the model
        assumes independence given ``Y``.
    covariance : ndarray of shape (D, 2) or None
        Each dependent pair's covariance ``P(A_j = A_k = 1 | Y = y) - p_j p_k`` given
        ``Y = 0`` and ``Y = 1``; None without dependent pairs.
    options : tuple of (str, object)
        The keyword arguments the estimator was called with away from its defaults
        (``(("n_starts", 20), ("seed", 3))``; ``dependent`` is its own field): what a refit
        passes again (the calibration test's refitting bootstrap), so that it repeats this
        fit rather than the defaults'.  Empty for a fit with the defaults.
    item_ids : ndarray or None
        The ids of the items it was fitted on (``AnnotatedScores.item_ids``), or
        None when they had none: where the fit meets other items, those it shares with them
        are named (a split whose samples overlap is no split; pattern counts cannot tell).
    """

    method: str
    channels: Channels | None
    prevalence: float | np.ndarray | None
    group_ids: np.ndarray
    group_counts: np.ndarray
    annotator_names: tuple[str, ...]
    loglik: float | None = None
    objective: float | None = None
    converged: bool = True
    n_iter: int = 0
    failure: str | None = None
    smoothing: tuple[float, float] | None = None
    pooled: tuple[str, ...] = ()
    data_fingerprint: str = ""
    dependent: tuple[tuple[str, str], ...] = ()
    covariance: np.ndarray | None = None
    options: tuple[tuple[str, object], ...] = ()
    item_ids: np.ndarray | None = None

    def __post_init__(self) -> None:
        # the estimate belongs to the fit's annotators: its channels carry their names, so
        # that they meet other data by name (Channels.for_annotators)
        channels = self.channels
        if channels is not None and channels.names is None:
            if channels.n_annotators == len(self.annotator_names):
                named = Channels(
                    channels.a,
                    channels.b,
                    adversarial=channels.adversarial,
                    names=self.annotator_names,
                )
                object.__setattr__(self, "channels", named)

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def overall_prevalence(self) -> float | None:
        """Count-weighted mean prevalence ``sum_g (n_g / n) mu_g`` (the marginal ``mu``)."""
        if self.prevalence is None:
            return None
        return float(np.average(np.atleast_1d(self.prevalence), weights=self.group_counts))

    @property
    def described(self) -> str:
        """The method as reports name it, with the pooled workers when there are any:
        ``"crowd_em (37 workers with few labels share one pooled channel)"``."""
        if not self.pooled:
            return self.method
        return (
            f"{self.method} ({len(self.pooled)} workers with few labels share one pooled channel)"
        )

    def require(self) -> ChannelFit:
        """Return self, or raise :class:`ChannelFitError` with the failure reason."""
        if self.failure is not None:
            raise ChannelFitError(f"{self.method} failed: {self.failure}")
        return self

    def parameters(self) -> ChannelParameters:
        """The estimate as the one draw a label probability takes, its rates kept inside
        (0, 1) as its E-step keeps them (a failed fit raises :class:`ChannelFitError`)."""
        fit = self.require()
        prevalence = np.atleast_1d(np.asarray(fit.prevalence, np.float64))
        return ChannelParameters(
            fit.channels.a[None, :],
            fit.channels.b[None, :],
            prevalence[None, :],
            fit.annotator_names,
            tuple(fit.group_ids.tolist()) if prevalence.size > 1 else (),
            pairs=fit.dependent,
            covariance=None if fit.covariance is None else fit.covariance[None],
        ).clipped()

    def __repr__(self) -> str:
        if self.failure is not None:
            return f"ChannelFit(method={self.method!r}, failure={self.failure!r})"
        prevalence = np.round(np.atleast_1d(self.prevalence), 4).tolist()
        smoothing = "" if self.smoothing is None else f", smoothing=Beta{self.smoothing}"
        pooled = f", pooled={len(self.pooled)} workers" if self.pooled else ""
        dependent = (
            f", dependent={list(self.dependent)}, covariance={np.round(self.covariance, 4).tolist()}"
            if self.dependent
            else ""
        )
        return (
            f"ChannelFit(method={self.method!r}, {self.channels!r}, prevalence={prevalence}, "
            f"converged={self.converged}, n_iter={self.n_iter}{smoothing}{pooled}{dependent})"
        )

    def _repr_html_(self) -> str:
        """The estimate as a table: each annotator's a, b and gap, then the class proportions."""
        status = html.escape(
            f"{self.method}: "
            + (f"failed ({self.failure})" if self.failure else f"converged={self.converged}")
            + f", {self.n_iter} iterations"
            + ("" if self.loglik is None else f", log-likelihood {self.loglik:.2f}")
        )
        if self.failure is not None:
            return f"<p>{status}</p>"
        rows = [
            _html.row(
                _html.cell(name),
                *(_html.cell(_html.number(float(x))) for x in (a, b, b - a)),
            )
            for name, a, b in zip(self.annotator_names, self.channels.a, self.channels.b)
        ]
        prevalence = [
            _html.row(
                _html.cell(f"group {int(g)}"),
                _html.cell(int(n)),
                _html.cell(_html.number(float(mu))),
            )
            for g, n, mu in zip(self.group_ids, self.group_counts, np.atleast_1d(self.prevalence))
        ]
        return "\n".join(
            [
                f"<p>{status}</p>",
                _html.table(
                    ["annotator", "false-positive rate a", "sensitivity b", "gap b - a"], rows
                ),
                _html.table(["score group", "items", "class proportion"], prevalence),
            ]
        )


def as_counts(data: object) -> CellStatistics:
    """The (score group, response pattern) cells every estimator runs on: of an
    :class:`~bayescal.AnnotatedScores` (:meth:`~bayescal.AnnotatedScores.compress`), or of cells
    built elsewhere (a table larger than memory, :mod:`bayescal.data.cells`), pooled over their bins."""
    if isinstance(data, AnnotatedScores):
        counts = data.compress()
    elif isinstance(data, CellStatistics):
        counts = data.by_pattern()
    else:
        raise TypeError(
            "data must be a bayescal.AnnotatedScores or bayescal.data.CellStatistics; "
            f"saw {type(data).__name__}"
        )
    if counts.counts.sum() < 2:  # say so, rather than blame the first annotator's one label
        raise ValueError(
            f"data: there is {int(counts.counts.sum())} item; channels cannot be estimated from "
            "fewer than two items (every annotator's labels are then constant)"
        )
    return counts


def as_data(data: object) -> AnnotatedScores:
    if not isinstance(data, AnnotatedScores):
        raise TypeError(f"data must be a bayescal.AnnotatedScores; saw {type(data).__name__}")
    return data


def check_annotators(counts: CellStatistics) -> None:
    """Every annotator needs responses.  One who always gives the same label is kept: the
    estimators find it uninformative (``|b - a| < 1e-4``) and the correction gives it weight 0
    (a crowd has such workers; one must not stop an analysis)."""
    for name, column in zip(counts.annotator_names, counts.patterns.T):
        if not (column != v.MISSING).any():
            raise ValueError(f"data: annotator {name!r} has no responses; drop that column")


def require_identified(n_annotators: int, n_groups: int, method: str, gold=None) -> None:
    """One annotator, or two in one score group, is not identified (paper App. D.1), unless
    gold items identify a channel (``gold``, a
    :class:`~bayescal.channels.co_labelling.GoldCoverage`)."""
    if gold is not None and gold.identified:
        return
    with_gold = (
        f" The data's {gold.described()}."
        if gold is not None
        else " Or give a few hundred items a human-verified label (gold=, --gold): with gold "
        "items of both classes one annotator is identified."
    )
    if n_annotators == 1:
        raise IdentificationError(
            f"{method}: one annotator cannot identify its channel: any (a, b) with a < P(A=1|Z) < b "
            "fits the data equally well (paper App. D.1). Add annotators: three or more identify "
            "the marginal Dawid–Skene model; two identify it with score groups." + with_gold
        )
    if n_annotators == 2 and n_groups < 2:
        raise IdentificationError(
            # no groups given, or every item in one of them (cut points above every score)
            f"{method}: two annotators in one score group are not identified (paper App. D.1). "
            "Give the data at least two score groups that hold items and whose class "
            "proportions differ, e.g. "
            "groups=score_groups(scores, n_groups=2), and fit grouped_em, hui_walter_moments or "
            "hui_walter_gmm (Hui–Walter, paper §4.2); or add a third annotator." + with_gold
        )


def warn_saturated(method: str, why: str) -> None:
    warn_caller(
        f"{method}: the model is saturated ({why}): it has as many parameters as free cells, so it "
        "fits the response frequencies exactly and leaves no degrees of freedom to check its fit",
        SaturatedModelWarning,
    )


def warn_if_groups_inseparable(counts: CellStatistics, method: str) -> None:
    """Warn when no pair of score groups differs in any annotator's mean response by 2 SE.

    The grouped model with K = 2 is identified only if the groups' class proportions differ,
    and then every annotator's mean response differs between groups (``q_j1 - q_j0 =
    d_j (mu_1 - mu_0)``).  This does not test ``mu_1 != mu_0`` itself (paper App. D.2); it
    flags data in which it cannot be seen.
    """
    group_ids, index = np.unique(counts.groups, return_inverse=True)
    observed = (counts.patterns != v.MISSING) * counts.counts[:, None]
    positive = (counts.patterns == 1) * counts.counts[:, None]
    n = np.zeros((group_ids.size, counts.patterns.shape[1]))
    ones = np.zeros_like(n)
    np.add.at(n, index, observed)
    np.add.at(ones, index, positive)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = ones / n
        var = mean * (1 - mean) / n
    best = 0.0
    for g in range(group_ids.size):
        for h in range(g + 1, group_ids.size):
            se = np.sqrt(var[g] + var[h])
            z = np.abs(mean[g] - mean[h]) / np.where(se > 0, se, np.inf)
            best = max(best, float(np.nanmax(z)))
    if best < 2.0:
        names = ", ".join(str(int(g)) for g in group_ids)
        warn_caller(
            f"{method}: score groups {names} have response means that differ by less than two "
            f"standard errors (largest |difference| / SE = {best:.2f}); their class proportions may "
            "not differ, and the two-annotator model is then only weakly identified",
            WeakIdentificationWarning,
        )


def orient(
    a: np.ndarray,
    b: np.ndarray,
    prevalence: np.ndarray,
    anchor: int | None,
    names: tuple[str, ...],
    labels: np.ndarray | None = None,
    *,
    by_gold: bool = False,
):
    """Apply the global label exchange if needed; return ``(a, b, prevalence, failure)``.

    With ``by_gold`` (a fit that conditioned on gold labels) the gold has fixed the
    orientation and the estimate is never exchanged.

    With ``anchor=None`` the population decides: the orientation with the larger total gap,
    each annotator's gap weighted by its number of ``labels`` when given (a crowd's worker
    with three labels does not outweigh one with three thousand);
    with an anchor, that annotator's gap alone (it must be at least 1e-4).  One odd annotator
    never fails a fit: one with ``b_j < a_j`` is estimated as adversarial
    (``Channels.adversarial``), one with ``|b_j - a_j| < 1e-4`` as uninformative (the
    correction gives it weight 0); a fit fails only when no annotator is informative.
    """
    gap = b - a
    if not by_gold and flips(a, b, anchor, labels):
        a, b, prevalence, gap = b, a, 1.0 - prevalence, -gap
    failure = None
    if anchor is not None and gap[anchor] < MIN_GAP:
        failure = (
            f"the anchor annotator {names[anchor]!r} has an estimated gap {gap[anchor]:.3g} "
            f"below {MIN_GAP:g}, so it cannot orient the others"
        )
    elif not (np.abs(gap) >= MIN_GAP).any():
        failure = (
            f"every annotator has an estimated gap below {MIN_GAP:g} (largest |b - a| = "
            f"{np.abs(gap).max():.3g}): the labels carry no information about the class"
        )
    return a, b, prevalence, failure


def flips(a: np.ndarray, b: np.ndarray, anchor: int | None, labels=None) -> bool:
    """Whether :func:`orient` exchanges the two classes of the estimate ``(a, b)``."""
    gap = b - a
    weights = np.ones_like(gap) if labels is None else np.asarray(labels, dtype=float)
    return bool(gap[anchor] < 0 if anchor is not None else (weights * gap).sum() < 0)


def _unidentified_without_the_uninformative(
    informative: np.ndarray, names: tuple[str, ...], n_groups: int, marginal: bool, gold=None
) -> str | None:
    """The reason a fit is not identified by its informative annotators alone (paper App. D.1):
    one, or two with a single class proportion; ``None`` when it is, or when ``gold`` (a
    :class:`~bayescal.channels.co_labelling.GoldCoverage`) identifies an informative one."""
    if informative.all():
        return None
    if gold is not None and set(gold.identified) & {
        name for name, ok in zip(names, informative) if ok
    }:
        return None
    kept = [name for name, ok in zip(names, informative) if ok]
    if len(kept) == 1 or (len(kept) == 2 and (marginal or n_groups < 2)):
        return (
            f"only {kept} are informative (the others' estimated gaps are below {MIN_GAP:g}), "
            "and they do not identify the model (paper App. D.1)"
        )
    return None


def as_anchor(anchor: object, n_annotators: int) -> int | None:
    if anchor is None:
        return None
    anchor = v.as_int(anchor, "anchor", minimum=0)
    if anchor >= n_annotators:
        raise ValueError(f"anchor must be an annotator index in [0, {n_annotators}); saw {anchor}")
    return anchor


def group_layout(counts: CellStatistics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct group ids, each pattern row's group index, and the item count of each group."""
    group_ids, index = np.unique(counts.groups, return_inverse=True)
    return group_ids, index, np.bincount(index, weights=counts.counts).astype(np.int64)


def fitted(
    method,
    counts,
    group_ids,
    group_counts,
    a,
    b,
    prevalence,
    anchor,
    marginal,
    *,
    dependence=None,
    gold=None,
    **extra,
) -> ChannelFit:
    """Orient raw estimates and package them (or the failure) as a :class:`ChannelFit`;
    ``dependence`` is ``(pair names, covariance (D, 2))`` of a dependent model, whose classes
    are exchanged with the channels'; ``gold`` the
    :class:`~bayescal.channels.co_labelling.GoldCoverage` of a fit that conditioned on gold
    labels (their orientation is kept, and what they identify is identified)."""
    by_gold = gold is not None and sum(gold.n_gold) > 0
    if dependence is not None:
        names, covariance = dependence
        flipped = not by_gold and flips(np.asarray(a, float), np.asarray(b, float), anchor)
        extra |= {"dependent": names, "covariance": covariance[:, ::-1] if flipped else covariance}
    prevalence = np.asarray(prevalence, dtype=np.float64)
    bad = [
        name
        for name, x in (("a", a), ("b", b), ("prevalence", prevalence))
        if not np.all(np.isfinite(x))
    ]
    if bad:
        return failed(
            method,
            counts,
            group_ids,
            group_counts,
            f"non-finite estimate of {', '.join(bad)}",
            **extra,
        )
    a, b, prevalence, failure = orient(
        np.asarray(a, float),
        np.asarray(b, float),
        prevalence,
        anchor,
        counts.annotator_names,
        by_gold=by_gold,
    )
    if failure is None:
        failure = _unidentified_without_the_uninformative(
            np.abs(b - a) >= MIN_GAP, counts.annotator_names, group_ids.size, marginal, gold
        )
    if failure is None:
        outside = [
            name
            for name, x in (("a", a), ("b", b), ("prevalence", prevalence))
            if (x < 0).any() or (x > 1).any()
        ]
        if outside:
            failure = f"infeasible estimate: {', '.join(outside)} outside [0, 1]"
    if failure is not None:
        return failed(method, counts, group_ids, group_counts, failure, **extra)
    return ChannelFit(
        method=method,
        # an anchored fit may orient an adversarial annotator b < a: estimated, not a mistake
        channels=Channels(a, b, adversarial=bool((b < a).any())),
        prevalence=float(prevalence[0]) if marginal else prevalence,
        group_ids=group_ids,
        group_counts=group_counts,
        annotator_names=counts.annotator_names,
        data_fingerprint=counts.fingerprint,
        **extra,
    )


def best_start(
    method, counts, group_ids, group_counts, anchor, marginal, candidates, gold=None
) -> ChannelFit:
    """The admissible fit of several starts with the least loss.

    ``candidates`` are ``(loss, a, b, prevalence, extra)``: a start's raw estimate, packaged
    by :func:`fitted` (orientation and the admissibility checks; ``extra`` its keywords) only
    when every start of less loss failed, since packaging each of ten EM starts cost as much
    as a sixth of the EM fit in a bootstrap of refits.  Ties go to the earlier start.  When no
    start is admissible, a failed fit that names the failure of the start with the least loss
    and keeps its ``loglik``, ``objective`` and ``n_iter``.  ``gold`` as in :func:`fitted`.
    """
    best = None
    # a start whose loss is NaN (its likelihood undefined) comes last: NaN would not sort
    in_order = sorted(candidates, key=lambda start: (bool(np.isnan(start[0]).any()), start[0]))
    for _, a, b, prevalence, extra in in_order:
        fit = fitted(
            method,
            counts,
            group_ids,
            group_counts,
            a,
            b,
            prevalence,
            anchor,
            marginal,
            gold=gold,
            **extra,
        )
        if fit.ok:
            return fit
        best = best or fit
    return failed(
        method,
        counts,
        group_ids,
        group_counts,
        f"no start gave an admissible fit; the best one: {best.failure}",
        loglik=best.loglik,
        objective=best.objective,
        n_iter=best.n_iter,
    )


def failed(method, counts, group_ids, group_counts, failure: str, **extra) -> ChannelFit:
    extra.setdefault("converged", False)
    return ChannelFit(
        method=method,
        channels=None,
        prevalence=None,
        group_ids=group_ids,
        group_counts=group_counts,
        annotator_names=counts.annotator_names,
        failure=failure,
        data_fingerprint=counts.fingerprint,
        **extra,
    )


def records_options(estimator):
    """``estimator`` (``data, **options -> ChannelFit``) whose fit records, as
    :attr:`ChannelFit.options`, the keyword arguments it was called with away from their
    defaults (``dependent`` aside: its own field), so that a refit repeats them, and as
    :attr:`ChannelFit.item_ids` the ids of the data's items (when they have any)."""
    import functools
    import inspect

    parameters = inspect.signature(estimator).parameters

    @functools.wraps(estimator)
    def recording(data, **options):
        fit = estimator(data, **options)
        chosen = tuple(
            (name, value)
            for name, value in options.items()
            if name != "dependent" and not _is_default(value, parameters[name].default)
        )
        return replace(fit, options=chosen, item_ids=getattr(data, "item_ids", None))

    return recording


def _is_default(value, default) -> bool:
    plain = (bool, int, float, str, np.generic)
    return value is default or (
        isinstance(value, plain) and isinstance(default, plain) and bool(value == default)
    )
