"""Frequentist estimators of annotator channels (paper §4, App. D, F).

Every estimator takes an :class:`~bayescal.AnnotatedScores` or the cells of a table
(:class:`~bayescal.data.CellStatistics`), runs on the (group, pattern) counts
(:meth:`~bayescal.AnnotatedScores.compress`), and returns a :class:`ChannelFit` whose channels
are positively oriented, or whose ``failure`` says why there is no admissible estimate.

- :func:`hui_walter_moments` — K = 2, two score groups, closed form (App. D.2).
- :func:`hui_walter_gmm` — K = 2, L >= 2 score groups, constrained GMM (App. D.3).
- :func:`third_moment` — K >= 3, closed form (Prop. D.2).
- :func:`dawid_skene_em` — K >= 3, marginal EM.
- :func:`grouped_em` — shared channels, one prevalence per score group.
- :func:`crowd_em` — Dawid–Skene EM on a crowd's sparse responses (many workers, few labels
  each), with Beta smoothing for sparse workers; it takes
  :class:`~bayescal.data.Responses` too.
- :mod:`~bayescal.channels.confusion_em` — multi-class Dawid–Skene EM on an annotation
  array: every annotator's confusion matrix, oriented to the diagonal without a wall;
  :func:`dawid_skene_em` runs it on multi-class data and returns a :class:`ConfusionFit`
  (:class:`ConfusionChannels`); :func:`confused_classes` tests which classes every
  annotator answers alike and merges them.
- :func:`score_groups` — build score groups from thresholds or bins.
- :class:`CoLabelling` — who labelled what, and what it identifies: the one rule every
  estimator and model applies before fitting.
"""

from .._api import moved_names
from .base import MIN_GAP, ChannelFit, Channels, channels_for
from .co_labelling import CoLabelling
from .confused_classes import ClassMerge, confused_classes
from .confusion_fit import ConfusionChannels, ConfusionFit
from .crowd_em import crowd_em
from .em import dawid_skene_em, grouped_em
from .gmm import hui_walter_gmm
from .groups import score_groups
from .moments import hui_walter_moments, third_moment

__all__ = [
    "MIN_GAP",
    "ChannelFit",
    "Channels",
    "ClassMerge",
    "CoLabelling",
    "ConfusionChannels",
    "ConfusionFit",
    "channels_for",
    "confused_classes",
    "crowd_em",
    "dawid_skene_em",
    "grouped_em",
    "hui_walter_gmm",
    "hui_walter_moments",
    "score_groups",
    "third_moment",
]

__getattr__ = moved_names(
    "bayescal.channels",
    {
        **{
            name: f"bayescal.exceptions:{name}"
            for name in (
                "ChannelFitError",
                "ConvergenceWarning",
                "IdentificationError",
                "SaturatedModelWarning",
                "WeakIdentificationWarning",
            )
        },
        # The estimators take cells as data since 0.2.
        "dawid_skene_em_counts": "bayescal.channels:dawid_skene_em",
        "grouped_em_counts": "bayescal.channels:grouped_em",
    },
)
