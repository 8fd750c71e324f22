"""The posterior object of a multi-class channel model: a :class:`ClassBayesFit` holds one ArviZ
``InferenceData``, as :class:`~bayescal.bayes.BayesFit` does for binary labels.

Its groups: ``posterior`` (``confusion`` by annotator, class and answer; ``proportion`` by
class), ``sample_stats``, ``log_likelihood`` (one value per pattern row; ``constant_data.counts``
holds how many items share it), ``observed_data`` and ``constant_data`` (the patterns as class
codes), and the priors in ``attrs``.  The draws are relabelled to the population's diagonally
dominant labelling (:mod:`bayescal.models.relabelling`; the classes gold items name keep their
labels) before the diagnostics are computed: a chain that wandered between labellings would
otherwise fail R-hat for a symmetry of the likelihood, not for a failed sampler.
"""

from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _validation as v
from .._api import DEFAULT_LEVEL, abbreviated
from .._version import __version__
from ..channels.confusion_fit import ConfusionChannels
from ..models.stack import arviz
from . import _netcdf
from .bayes_fit import MULTICLASS_KIND, RUN_ATTRIBUTES, inference_data
from .diagnostics import diagnostics_table
from .priors import ClassPriors
from .registry import ChannelModel, class_channel_model

__all__ = ["ClassBayesFit", "ConfusionDraws"]


class ConfusionDraws(NamedTuple):
    """Posterior draws of a multi-class fit, chains stacked."""

    confusion: np.ndarray  # (S, K, C, C)
    proportion: np.ndarray  # (S, C)


@dataclass(frozen=True, eq=False)
class ClassBayesFit:
    """A posterior over multi-class annotators' confusion matrices and the class proportions.

    Built by :func:`bayescal.fit_bayes` on multi-class data, not by hand.

    Attributes
    ----------
    chains : dict of str to ndarray
        The draws by chain: ``confusion`` (chains, draws, K, C, C), ``T_j[y, k] = P(A_j = k |
        Y = y)``, and ``proportion`` (chains, draws, C), relabelled
        (:mod:`bayescal.models.relabelling`).
    diagnostics : pandas.DataFrame
        One row per parameter (``confusion[annotator, class, answer]``, ``proportion[class]``):
        ``r_hat`` (rank-normalised), ``ess_bulk``, ``ess_tail``, and the run's total
        ``divergences`` in every row.
    model : str
    priors : ClassPriors
    annotator_names : tuple of str
    classes : tuple of str
    fitted_counts : dict
        Items per row of the fitted design: a panel's pattern of class codes (a tuple, -1
        missing), a crowd's response codes ``C j + k``; gold rows with their gold class.
    labels : ndarray of shape (K,)
        How many labels each annotator gave in the fitted data.
    run : dict of str to str
        How the sampler ran (``chain_method``, ``devices``, ``compiled_from``, ``extensions``).
    idata : arviz.InferenceData
        The posterior object (groups in the module docstring), built on first use.
    item_ids : ndarray or None
        The ids of the items it was fitted on, or None.
    """

    chains: dict
    diagnostics: pd.DataFrame
    model: str
    priors: ClassPriors
    annotator_names: tuple[str, ...]
    classes: tuple[str, ...]
    fitted_counts: dict
    labels: np.ndarray
    run: dict
    _build_groups: Callable  # () -> (attrs, {group name: _netcdf.Group})
    item_ids: np.ndarray | None = None

    @functools.cached_property
    def _groups(self) -> tuple[dict, dict]:
        return self._build_groups()

    @functools.cached_property
    def idata(self):
        return inference_data(*self._groups)

    @property
    def spec(self) -> ChannelModel:
        return class_channel_model(self.model)

    @property
    def num_chains(self) -> int:
        return int(self.chains["confusion"].shape[0])

    @property
    def n_draws(self) -> int:
        return int(np.prod(self.chains["confusion"].shape[:2]))

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def draws(self) -> ConfusionDraws:
        """``confusion`` (S, K, C, C) and ``proportion`` (S, C), chains stacked."""
        return ConfusionDraws(
            *(
                self.chains[name].reshape(self.n_draws, *self.chains[name].shape[2:])
                for name in ("confusion", "proportion")
            )
        )

    def labels_per_annotator(self) -> np.ndarray:
        """How many labels (K,) each annotator gave in the fitted data."""
        return self.labels.copy()

    def prior_share(self) -> float | None:
        """The Dirichlet prior's pseudo-counts per confusion row (``own + (C - 1) other``) as
        a share of them plus the median annotator's labels per row (its labels over C): how
        far the prior pulls the matrices (toward uniform under flat rows).  None for the
        hierarchical model, whose rows are pulled toward the population the data estimate,
        not toward a fixed prior: that pooling is what its workers' few labels need."""
        if self.spec.for_crowds:
            return None
        own, other = self.priors.confusion
        mass = own + (self.n_classes - 1) * other
        return float(mass / (mass + np.median(self.labels_per_annotator()) / self.n_classes))

    def posterior_mean(self) -> ConfusionChannels:
        """The posterior mean confusion matrices, as channels to correct with."""
        return ConfusionChannels(
            self.draws().confusion.mean(axis=0), names=self.annotator_names, classes=self.classes
        )

    def summary(self, *, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Posterior mean, sd and highest-density interval of every parameter, with diagnostics."""
        level = v.as_open_probability(level, "level")
        table = arviz().summary(
            self.idata, var_names=["confusion", "proportion"], kind="stats", hdi_prob=level
        )
        return table.join(self.diagnostics)

    def save(self, path, *, run: dict | None = None) -> None:
        """Write the posterior as ArviZ's netCDF layout (``arviz.from_netcdf`` reads it;
        :meth:`load` reads it back); ``run`` adds entries to ``run`` in the file only, as
        :meth:`bayescal.BayesFit.save` does."""
        attrs, groups = self._groups
        _netcdf.write(pathlib.Path(path), attrs, groups, run)

    @classmethod
    def load(cls, path) -> ClassBayesFit:
        """A fit written by :meth:`save`."""
        attrs, groups = _netcdf.read(path)
        if attrs.get("bayescal_kind") != MULTICLASS_KIND:
            raise ValueError(
                f"{path}: not a multi-class posterior of bayescal (written by ClassBayesFit.save); "
                "a binary one is read by bayescal.BayesFit.load"
            )
        posterior, stats = groups["posterior"], groups["sample_stats"]
        chains = {name: posterior.variables[name][1] for name in ("confusion", "proportion")}
        names = tuple(str(n) for n in posterior.coords["annotator"])
        classes = tuple(str(c) for c in posterior.coords["class"])
        divergences = int(stats.variables["diverging"][1].sum())
        constant = groups["constant_data"].variables
        item_ids = constant["item_id"][1] if "item_id" in constant else None
        model = str(attrs["bayescal_model"])
        design = class_channel_model(model).design_class().from_constant_data(constant, classes)
        run = {
            key.removeprefix("bayescal_"): value
            for key, value in attrs.items()
            if key in RUN_ATTRIBUTES
        }
        return cls(
            chains,
            _diagnostics(chains, names, classes, divergences),
            model,
            ClassPriors(**json.loads(attrs["bayescal_priors"])),
            names,
            classes,
            design.fitted_counts(),
            design.labels_per_annotator(),
            run,
            lambda: (attrs, groups),
            item_ids,
        )

    @classmethod
    def from_run(
        cls,
        samples: dict,
        extra: dict,
        design,
        priors: ClassPriors,
        model: str,
        names,
        *,
        run: dict | None = None,
        item_ids: np.ndarray | None = None,
    ) -> ClassBayesFit:
        """Pack a :class:`~bayescal.bayes.sampler.Sampler` run of a multi-class model (its
        relabelled draws), with its diagnostics; ``run`` goes into the InferenceData's
        attributes as ``bayescal_<name>``."""
        names = tuple(str(name) for name in names)
        classes = design.classes
        divergences = int(np.sum(extra["diverging"]))
        run = {name: str(value) for name, value in (run or {}).items()}
        samples = {name: np.asarray(value) for name, value in samples.items()}
        return cls(
            samples,
            _diagnostics(samples, names, classes, divergences),
            model,
            priors,
            names,
            classes,
            design.fitted_counts(),
            design.labels_per_annotator(),
            run,
            functools.partial(_groups, samples, extra, design, priors, model, names, run, item_ids),
            item_ids,
        )

    def __repr__(self) -> str:
        draws_per_chain = self.chains["confusion"].shape[1]
        return (
            f"ClassBayesFit(model={self.model!r}, annotators=[{abbreviated(self.annotator_names, 8)}], "
            f"classes=[{abbreviated(self.classes, 8)}], chains={self.num_chains}, "
            f"draws_per_chain={draws_per_chain})"
        )


def named_parameters(chains: dict, names: tuple, classes: tuple) -> dict[str, np.ndarray]:
    """Every scalar parameter by the name ArviZ gives it (``confusion[judge, A, B]``,
    ``proportion[A]``), draws on the leading axes."""
    confusion, proportion = chains["confusion"], chains["proportion"]
    named = {
        f"confusion[{name}, {y}, {k}]": confusion[..., j, a, b]
        for j, name in enumerate(names)
        for a, y in enumerate(classes)
        for b, k in enumerate(classes)
    }
    return named | {f"proportion[{y}]": proportion[..., a] for a, y in enumerate(classes)}


def _diagnostics(chains: dict, names: tuple, classes: tuple, divergences: int) -> pd.DataFrame:
    """R-hat, bulk and tail ESS of every parameter, rounded as the binary fit's are."""
    return diagnostics_table(named_parameters(chains, names, classes), divergences)


#: Values of the per-draw likelihood's largest intermediate held at once (a crowd's gathers
#: its rows' responses per class: draws x rows x width x classes).
LIKELIHOOD_VALUES = 20_000_000


def _log_likelihood(design, confusion, proportion) -> np.ndarray:
    """``log p(row | draw)`` (chains, draws, R) of every draw, a few draws at a time."""
    per_draw = design.counts.size * int(np.prod(design.arrays()[0].shape[1:])) * len(design.classes)
    step = max(1, LIKELIHOOD_VALUES // per_draw)
    flat_confusion = confusion.reshape(-1, *confusion.shape[2:])
    flat_proportion = proportion.reshape(-1, proportion.shape[-1])
    rows = [
        design.log_prob(
            flat_confusion[start : start + step], flat_proportion[start : start + step], np
        )
        for start in range(0, flat_confusion.shape[0], step)
    ]
    return np.concatenate(rows).reshape(*confusion.shape[:2], -1)


def _groups(
    samples: dict, extra: dict, design, priors: ClassPriors, model: str, names, run: dict, item_ids
) -> tuple[dict, dict]:
    """A run as the InferenceData's attributes and groups (ArviZ's layout)."""
    confusion, proportion = samples["confusion"], samples["proportion"]
    coords = {
        "chain": np.arange(confusion.shape[0]),
        "draw": np.arange(confusion.shape[1]),
        "annotator": list(names),
        "class": list(design.classes),
        "answer": list(design.classes),
        "pattern": np.arange(design.counts.size),
        "item": np.arange(0 if item_ids is None else len(item_ids)),
    }
    dataset = _netcdf.group_maker(coords)
    draw = ("chain", "draw")
    groups = {
        "posterior": dataset(
            {
                "confusion": ((*draw, "annotator", "class", "answer"), confusion),
                "proportion": ((*draw, "class"), proportion),
            }
        ),
        "sample_stats": dataset(
            {
                "diverging": (draw, extra["diverging"]),
                "energy": (draw, extra["energy"]),
                "n_steps": (draw, extra["num_steps"]),
                "acceptance_rate": (draw, extra["accept_prob"]),
            }
        ),
        "log_likelihood": dataset(
            {"counts": ((*draw, "pattern"), _log_likelihood(design, confusion, proportion))}
        ),
        "observed_data": dataset({"counts": (("pattern",), design.counts)}),
        "constant_data": dataset(
            design.constant_data()
            | ({} if item_ids is None else {"item_id": (("item",), np.asarray(item_ids))})
        ),
    }
    attrs = {
        "bayescal_model": model,
        "bayescal_kind": MULTICLASS_KIND,
        "bayescal_priors": json.dumps(priors.to_dict()),
        "bayescal_version": __version__,
        **{f"bayescal_{name}": str(value) for name, value in run.items()},
    }
    return attrs, groups
