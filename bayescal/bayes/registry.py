"""The channel models bayescal fits, each declared once.

A :class:`ChannelModel` says what a model is and what applies to it: its name, its NumPyro
program in :mod:`bayescal.models`, the data it runs on (pattern counts or a crowd's sparse
responses), its structure (a class proportion per score group, channels per score group, a
shared item difficulty, named dependent pairs), its identification rule, the frequentist
estimate it is compared with, and whether its prior sensitivity can be studied.
Every other module asks :func:`channel_model` (or a fit's ``spec``); none compares model names.

A model is named in one spelling, ``dawid_skene``, everywhere bayescal prints it;
``dawid-skene`` is accepted wherever a name is.  Importing this module imports neither JAX nor
NumPyro: a model's program is imported when it is first asked for.

============================  =====================================================
model                         what it is
============================  =====================================================
``dawid_skene``               latent class model, one class proportion (paper §4.3)
``hui_walter``                shared channels, a class proportion per score group
                              (paper §4.2, App. D.5)
``shared_difficulty``         a random item effect per class (Qu, Tan and Kutner 1996)
``hierarchical_dawid_skene``  crowds: the workers' channels partially pooled
``hui_walter_by_group``       channels per score group, to test by LOO whether the
                              noise depends on the score; NC-ECE corrects each
                              group's items with the group's channels
============================  =====================================================

Multi-class data have their own models (:data:`CLASS_MODELS`, :func:`class_channel_model`):
``dawid_skene`` there is the multi-class latent class model with Dirichlet confusion rows
(:mod:`bayescal.models.class_latent`), on the pattern counts of class codes.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace

from ..channels.co_labelling import GoldCoverage
from ..channels.crowd_em import CROWD_ANNOTATORS, SPARSE_LABELS

__all__ = [
    "AUTO",
    "CLASS_MODELS",
    "MODELS",
    "ChannelModel",
    "channel_model",
    "choose_class_model",
    "choose_model",
    "class_channel_model",
    "model_names",
]

#: The data a model's likelihood runs on.
DATA_KINDS = ("pattern counts", "responses", "class pattern counts", "class responses")


@dataclass(frozen=True)
class ChannelModel:
    """One channel model and what applies to it.

    Attributes
    ----------
    name : str
        The name bayescal prints (``"dawid_skene"``); :attr:`spelling` is the hyphenated one
        that is accepted too.
    title : str
        The name in words (``"Dawid–Skene"``).
    program : str
        Its NumPyro program, a function of :mod:`bayescal.models` (:meth:`load_program`).
    data : {"pattern counts", "responses", "class pattern counts", "class responses"}
        What the likelihood runs on: the (group, pattern) counts of
        :meth:`~bayescal.AnnotatedScores.compress` (a ``PatternDesign``), or a crowd's sparse
        responses (a ``ResponseDesign``); for multi-class labels a panel's patterns of class
        codes (a ``ClassPatternDesign``) or a crowd's class responses (a
        ``ClassResponseDesign``).
    grouped : bool
        A class proportion per score group.
    channels_by_group : bool
        Each score group has its own channels.
    difficulty : bool
        A shared item difficulty, integrated by quadrature
        (:mod:`bayescal.channels.difficulty`).
    dependent_pairs : bool
        Named pairs of annotators may be given a covariance given ``Y``
        (:mod:`bayescal.channels.dependence`).
    identification : str
        What the data need for the model to be identified, in words; the checks are run
        before sampling (:func:`bayescal.fit_bayes`).
    em : str or None
        The frequentist estimate it is compared with, an estimator of :mod:`bayescal.channels`.
    target_accept : float
        NUTS's target acceptance rate during warmup, unless the sampler's settings name one
        (:class:`~bayescal.bayes.SamplerSettings`).
    num_samples : int
        Kept draws a chain, unless the sampler's settings name them.
    in_analysis : bool
        Offered by :func:`bayescal.analyse` and ``bayescal fit --model``.
    sensitivity : bool
        Its prior sensitivity can be studied (:func:`bayescal.prior_sensitivity`).
    purpose : str
        For a model fitted to be compared, not to correct with: what the comparison tells.
    multiclass : bool
        A model of multi-class labels (:data:`CLASS_MODELS`): confusion matrices, each draw
        relabelled after sampling (:mod:`bayescal.models.relabelling`).
    """

    name: str
    title: str
    program: str
    data: str
    identification: str
    em: str | None
    grouped: bool = False
    channels_by_group: bool = False
    difficulty: bool = False
    dependent_pairs: bool = False
    target_accept: float = 0.8
    num_samples: int = 1000
    in_analysis: bool = True
    sensitivity: bool = True
    purpose: str = ""
    multiclass: bool = False

    @property
    def spelling(self) -> str:
        """The hyphenated spelling, accepted wherever a name is (``"dawid-skene"``)."""
        return self.name.replace("_", "-")

    @property
    def on_responses(self) -> bool:
        """Whether the likelihood runs on a crowd's sparse responses."""
        return self.data == "responses"

    @property
    def for_crowds(self) -> bool:
        """Whether the model pools a crowd's workers (binary or multi-class responses)."""
        return self.data in ("responses", "class responses")

    @property
    def folded(self) -> bool:
        """Whether each draw is folded onto the population's orientation after sampling
        (:mod:`bayescal.models.orientation`; the pattern models, no annotator held to
        ``a_j < b_j``).  The hierarchical model, on responses, orients by its population's
        mean gap in the prior instead; either way an annotator may be adversarial.  The
        multi-class models relabel their draws instead (:attr:`multiclass`)."""
        return not (self.on_responses or self.multiclass)

    def load_program(self):
        """The NumPyro program (imports :mod:`bayescal.models`, and so NumPyro)."""
        return getattr(importlib.import_module("bayescal.models"), self.program)

    def design_class(self):
        """The design class the program reads: ``PatternDesign``, ``ResponseDesign``,
        ``ClassPatternDesign`` or ``ClassResponseDesign``."""
        models = importlib.import_module("bayescal.models")
        if self.multiclass:
            return models.ClassResponseDesign if self.for_crowds else models.ClassPatternDesign
        return models.ResponseDesign if self.on_responses else models.PatternDesign

    def pattern_design(self, counts, *, pairs=None, complete: bool = False):
        """The ``PatternDesign`` of the cells ``counts`` with this model's structure (``pairs``:
        the dependent pairs' columns; ``complete``: every response combination of each cell,
        for checks and prior-predictive simulation)."""
        return self.design_class().from_counts(
            counts,
            grouped=self.grouped,
            complete=complete,
            pairs=pairs,
            difficulty=self.difficulty,
            channels_by_group=self.channels_by_group,
        )

    def design_from_constant_data(self, variables: dict):
        """The design of a stored fit (its ``constant_data`` variables: name -> (dims, array))."""
        design = self.design_class().from_constant_data(variables)
        if self.on_responses:
            return design
        return replace(
            design,
            grouped=self.grouped,
            difficulty=self.difficulty,
            channels_by_group=self.channels_by_group,
        )


_PATTERN_IDENTIFICATION = (
    "three annotators or more who labelled many of the same items; two, with two score groups or "
    "more whose class proportions differ"
)

#: Every model, by name.
MODELS = {
    model.name: model
    for model in (
        ChannelModel(
            name="dawid_skene",
            title="Dawid–Skene",
            program="latent_class_model",
            data="pattern counts",
            identification="three annotators or more",
            em="dawid_skene_em",
            dependent_pairs=True,
        ),
        ChannelModel(
            name="hui_walter",
            title="Hui–Walter",
            program="latent_class_model",
            data="pattern counts",
            identification=_PATTERN_IDENTIFICATION,
            em="grouped_em",
            grouped=True,
            dependent_pairs=True,
        ),
        ChannelModel(
            name="hierarchical_dawid_skene",
            title="hierarchical Dawid–Skene",
            program="hierarchical_dawid_skene",
            data="responses",
            identification="three workers or more, and some item labelled twice",
            em="crowd_em",
            dependent_pairs=True,
            # the population's spread makes a funnel: at 0.8 with 1 000 draws (and the spread's
            # HalfNormal prior of before), 23 of 40 default fits of four crowds warned
            # (divergences, short ESS); at 0.99 with 2 000, 8 of 60 (benchmarks/RESULTS.md,
            # "The crowd model's defaults")
            target_accept=0.99,
            num_samples=2000,
        ),
        ChannelModel(
            name="shared_difficulty",
            title="shared difficulty",
            program="latent_class_model",
            data="pattern counts",
            identification="four annotators or more (the loadings are checked by the rank of "
            "the pattern probabilities' Jacobian)",
            # no EM of the item effect: the independent model's EM is the frequentist baseline
            em="dawid_skene_em",
            difficulty=True,
            # regions of high curvature (measured at 0.8: 3 to 58 divergent transitions per fit
            # of 3 000 items of four annotators)
            target_accept=0.95,
        ),
        ChannelModel(
            name="hui_walter_by_group",
            title="Hui–Walter with channels per score group",
            program="latent_class_model",
            data="pattern counts",
            identification="two score groups or more, each with three annotators or more",
            em=None,
            grouped=True,
            channels_by_group=True,
            in_analysis=False,
            sensitivity=False,
            purpose="its channels per score group test whether the noise depends on the score, "
            "by compare_models against 'hui_walter'",
        ),
    )
}


#: The models of multi-class labels, by the name a multi-class fit gives them (the binary
#: model's of the same structure).
CLASS_MODELS = {
    model.name: model
    for model in (
        ChannelModel(
            name="dawid_skene",
            title="multi-class Dawid–Skene",
            program="class_latent_model",
            data="class pattern counts",
            identification="three annotators or more (two or one, with gold items of every class)",
            em="dawid_skene_em",
            in_analysis=False,
            sensitivity=False,
            multiclass=True,
        ),
        ChannelModel(
            name="hierarchical_dawid_skene",
            title="hierarchical multi-class Dawid–Skene",
            program="class_crowd_model",
            data="class responses",
            identification="a crowd whose items have two labels or more (or gold items)",
            em="crowd_em",
            # the workers' spreads make a mild funnel: at 0.8, three divergences in 2 000
            # draws of a 10-class crowd, none at 0.9; over 100 such crowds 39 fits still
            # warned, half on divergences, half on R-hat (benchmarks/RESULTS.md,
            # "multi-class crowd coverage")
            target_accept=0.9,
            in_analysis=False,
            sensitivity=False,
            multiclass=True,
        ),
    )
}


def class_channel_model(name, argument: str = "model") -> ChannelModel:
    """The multi-class model named ``name`` (either spelling); a ``ValueError`` naming
    ``argument``, the choices, and that the others are binary, otherwise."""
    if not (isinstance(name, str) and name.replace("-", "_") in CLASS_MODELS):
        choices = ", ".join(repr(n) for n in CLASS_MODELS)
        raise ValueError(
            f"{argument} must be one of {choices} for multi-class data (the other models are "
            f"binary); saw {name!r}"
        )
    return CLASS_MODELS[name.replace("-", "_")]


def model_names(*, in_analysis: bool = False, dependent_pairs: bool = False) -> tuple[str, ...]:
    """The models' names: all, or those :func:`bayescal.analyse` offers (``in_analysis``), or
    those that take dependent pairs (``dependent_pairs``)."""
    return tuple(
        name
        for name, model in MODELS.items()
        if (model.in_analysis or not in_analysis) and (model.dependent_pairs or not dependent_pairs)
    )


def channel_model(name, argument: str = "model", *, in_analysis: bool = False) -> ChannelModel:
    """The model named ``name``, in either spelling (``"dawid_skene"`` or ``"dawid-skene"``);
    a ``ValueError`` naming ``argument`` and the choices otherwise."""
    names = model_names(in_analysis=in_analysis)
    if not (isinstance(name, str) and name.replace("-", "_") in names):
        choices = ", ".join(repr(n) for n in names)
        raise ValueError(
            f"{argument} must be one of {choices} (hyphens for underscores accepted); saw {name!r}"
        )
    return MODELS[name.replace("-", "_")]


def em_estimator(name: str, n_annotators: int) -> str:
    """The EM estimator compared with model ``name`` on data of ``n_annotators``: for a crowd
    (a model on sparse responses, or more than
    :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators) ``"crowd_em"``, whose
    cost does not grow with the number of annotators; otherwise the model's ``em``."""
    model = channel_model(name)
    if model.on_responses or n_annotators > CROWD_ANNOTATORS:
        return "crowd_em"
    return model.em


#: The choice that lets the data choose (:func:`choose_model`).
AUTO = "auto"


def choose_class_model(n_annotators: int, model=AUTO) -> tuple[ChannelModel, str]:
    """The multi-class model to fit to data of ``n_annotators`` and why: the one named (in
    either spelling), or with ``"auto"`` the hierarchical Dawid–Skene model for a crowd (more
    than :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators: the workers'
    confusion matrices pooled) and the Dawid–Skene model for a panel.  A panel's model named
    for a crowd is refused: its pattern layout holds items x annotators x classes."""
    crowd = n_annotators > CROWD_ANNOTATORS
    if model == AUTO:
        if crowd:
            return (
                CLASS_MODELS["hierarchical_dawid_skene"],
                f"auto: a crowd of {n_annotators} annotators (more than {CROWD_ANNOTATORS}), "
                "whose confusion matrices are pooled",
            )
        return CLASS_MODELS["dawid_skene"], f"auto: a panel of {n_annotators} annotators"
    chosen = class_channel_model(model)
    if crowd and not chosen.for_crowds:
        crowd_model = next(m.name for m in CLASS_MODELS.values() if m.for_crowds)
        raise ValueError(
            f"model: multi-class data of {n_annotators} annotators are a crowd (more than "
            f"{CROWD_ANNOTATORS}); fit them with model={crowd_model!r} (the workers' "
            "confusion matrices pooled)"
        )
    return chosen, f"chosen: {chosen.name}"


def choose_model(data, model=AUTO) -> tuple[ChannelModel, str]:
    """The model to fit to ``data`` (an :class:`~bayescal.AnnotatedScores`) and why: the one
    named (in either spelling), or with ``"auto"`` one of the conditional-independence models
    that :func:`bayescal.analyse` offers — the hierarchical Dawid–Skene model for a crowd (more
    than :data:`~bayescal.channels.crowd_em.CROWD_ANNOTATORS` annotators, or an annotator with
    fewer than :data:`~bayescal.channels.crowd_em.SPARSE_LABELS` labels), the marginal
    Dawid–Skene model for three annotators or more who each labelled many items, Hui–Walter
    (with score groups) for two; with gold items that identify a channel
    (:class:`~bayescal.channels.co_labelling.GoldCoverage`) the marginal Dawid–Skene model for
    one or two annotators too, and the reason says what the gold identifies."""
    if model != AUTO:
        try:
            chosen = channel_model(model, in_analysis=True)
        except ValueError:
            choices = ", ".join(repr(name) for name in (AUTO, *model_names(in_analysis=True)))
            raise ValueError(
                f"model must be one of {choices} (hyphens for underscores accepted); saw {model!r}"
            ) from None
        return chosen, f"chosen: {chosen.name}"
    n_annotators = data.n_annotators
    gold = GoldCoverage.of_cells(data.compress()) if data.n_gold else None
    with_gold = "" if gold is None else f"; {gold.described()}"
    if gold is not None and gold.identified and n_annotators <= 2:
        return (
            MODELS["dawid_skene"],
            f"auto: {n_annotators} annotator(s) and {gold.described()}: the marginal "
            "Dawid–Skene model, fitted with the gold items",
        )
    if n_annotators == 2:
        return (
            MODELS["hui_walter"],
            "auto: two annotators need score groups (Hui–Walter)" + with_gold,
        )
    fewest = int((data.annotations >= 0).sum(axis=0).min())
    if n_annotators > CROWD_ANNOTATORS or fewest < SPARSE_LABELS:
        reason = (
            f"{n_annotators} annotators (more than {CROWD_ANNOTATORS})"
            if n_annotators > CROWD_ANNOTATORS
            else f"an annotator with {fewest} labels (fewer than {SPARSE_LABELS})"
        )
        return (
            MODELS["hierarchical_dawid_skene"],
            f"auto: {reason}: a crowd, whose workers' channels are pooled (hierarchical "
            "Dawid–Skene)" + with_gold,
        )
    return (
        MODELS["dawid_skene"],
        f"auto: {n_annotators} annotators with {fewest}+ labels each identify the marginal "
        "Dawid–Skene model" + with_gold,
    )
