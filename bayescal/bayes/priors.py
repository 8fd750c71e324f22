"""Prior settings of the Bayesian channel models, kept free of numpyro, and priors files.

The models put independent Beta priors on each annotator's false-positive rate ``a_j`` and
sensitivity ``b_j``, and a Beta prior on each class proportion.  No annotator is held to
``a_j < b_j``: the flat models fold every draw onto the population's orientation
(:mod:`bayescal.models.orientation`: a draw whose label-weighted gap ``sum_j n_j (b_j - a_j)``
is negative is replaced by its mirror image ``(b, a, 1 - mu)``), and the hierarchical model
orients by its population's mean gap.  The folded draws follow the posterior under

    p(theta) = p0(theta) + p0(S theta)   on   sum_j n_j (b_j - a_j) > 0,

``p0`` the product of the Betas and ``S`` the mirror image: with the default flat priors,
uniform on that half of the cube.  An annotator may therefore be adversarial (``b_j < a_j``)
a priori, with the probability :meth:`Priors.adversarial_probability` gives.
"""

from __future__ import annotations

import math
import numbers
import pathlib
from dataclasses import asdict, dataclass

import numpy as np

from .. import _validation as v
from .._api import old_spellings
from ..data.tables import read_json

__all__ = ["ClassPriors", "Priors", "read_priors"]

#: Monte Carlo draws of :meth:`Priors.adversarial_probability`.
ADVERSARIAL_DRAWS = 200_000


def _beta_pair(value: object, name: str) -> tuple[float, float]:
    if isinstance(value, dict):  # {"a": 8, "b": 2}: its len is 2, but it is no pair
        raise ValueError(
            f"{name} must be a pair (alpha, beta) of Beta parameters, e.g. [8, 2]; saw the "
            f"mapping {value!r}"
        )
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be a pair (alpha, beta) of Beta parameters; saw {value!r}")
    pair = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x) or x <= 0:
            raise ValueError(
                f"{name} must hold two positive, finite Beta parameters; saw {tuple(value)!r}"
            )
        pair.append(float(x))
    return pair[0], pair[1]


@dataclass(frozen=True, kw_only=True)
class Priors:
    """Beta priors of the channel models.

    Parameters
    ----------
    false_positive : (alpha, beta), default (1, 1)
        Beta prior on each ``a_j = P(A_j = 1 | Y = 0)``, before the fold (module docstring).
    sensitivity : (alpha, beta), default (1, 1)
        Beta prior on each ``b_j = P(A_j = 1 | Y = 1)``, before the fold.
    prevalence : (alpha, beta), default (1, 1)
        Beta prior on each class proportion ``mu`` (one per score group in Hui–Walter).

    Examples
    --------
    >>> round(Priors().adversarial_probability(3), 2)
    0.3
    """

    false_positive: tuple[float, float] = (1.0, 1.0)
    sensitivity: tuple[float, float] = (1.0, 1.0)
    prevalence: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        for name in ("false_positive", "sensitivity", "prevalence"):
            object.__setattr__(self, name, _beta_pair(getattr(self, name), name))

    def adversarial_probability(self, n_annotators: int) -> float:
        """The prior probability that a given annotator of ``n_annotators``, all with as many
        labels, is adversarial (``b_j < a_j``) after the fold (module docstring):
        ``P(d_1 < 0, sum_j d_j > 0) + P(d_1 > 0, sum_j d_j < 0)``, ``d_j = b_j - a_j`` under the
        two Betas.  A seeded Monte Carlo estimate of 200 000 draws (standard error below
        0.0015); 0 for one annotator, whose own gap orients it."""
        n_annotators = v.as_int(n_annotators, "n_annotators", minimum=1)
        rng = np.random.default_rng(0)
        adversarial, drawn = 0, 0
        chunk = max(1, 4_000_000 // n_annotators)  # at most 32 MB a gap array
        while drawn < ADVERSARIAL_DRAWS:
            size = min(chunk, ADVERSARIAL_DRAWS - drawn)
            gap = rng.beta(*self.sensitivity, (size, n_annotators)) - rng.beta(
                *self.false_positive, (size, n_annotators)
            )
            adversarial += int(((gap[:, 0] < 0) != (gap.sum(axis=1) < 0)).sum())
            drawn += size
        return adversarial / ADVERSARIAL_DRAWS

    def as_array(self) -> np.ndarray:
        """(3, 2) array of the Beta parameters: false positive, sensitivity, prevalence."""
        return np.array([self.false_positive, self.sensitivity, self.prevalence], dtype=np.float64)

    def to_dict(self) -> dict[str, list[float]]:
        return {name: list(pair) for name, pair in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict) -> Priors:
        return cls(**{name: tuple(pair) for name, pair in values.items()})


# Every prior by keyword since 0.2: a positional one names the new spelling.
Priors.__init__ = old_spellings()(Priors.__init__)


@dataclass(frozen=True, kw_only=True)
class ClassPriors:
    """Dirichlet priors of the multi-class channel model
    (:mod:`bayescal.models.class_latent`).

    Parameters
    ----------
    confusion : (own, other), default (1, 1)
        Every row of every confusion matrix, ``T_j[y] ~ Dirichlet(other + (own - other)
        e_y)``: the concentration on the row's own class and on each other class.  The default
        is uniform on the simplex; ``(2, 1)`` leans towards judges better than chance.
        With ``own == other`` the prior, and so the posterior, is the same under every
        relabelling of the classes; with ``own > other`` it leans towards judges better than
        chance.  Either way each draw is relabelled after sampling
        (:mod:`bayescal.models.relabelling`).
    proportion : float, default 1
        The class proportions, ``pi ~ Dirichlet(proportion * 1)``.

    Examples
    --------
    >>> ClassPriors(confusion=(2, 1)).as_array().tolist()
    [2.0, 1.0, 1.0]
    """

    confusion: tuple[float, float] = (1.0, 1.0)
    proportion: float = 1.0

    def __post_init__(self) -> None:
        pair = self.confusion
        if isinstance(pair, (str, bytes, dict)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(
                f"confusion must be a pair (own, other) of Dirichlet concentrations, e.g. (2, 1); "
                f"saw {pair!r}"
            )
        object.__setattr__(self, "confusion", tuple(v.as_positive(x, "confusion") for x in pair))
        object.__setattr__(self, "proportion", v.as_positive(self.proportion, "proportion"))

    def as_array(self) -> np.ndarray:
        """(3,) array: the rows' concentration on their own class and on each other, and the
        proportions'."""
        return np.array([*self.confusion, self.proportion], dtype=np.float64)

    def to_dict(self) -> dict:
        return {"confusion": list(self.confusion), "proportion": self.proportion}

    @classmethod
    def of(cls, priors) -> ClassPriors:
        """``priors`` checked as the priors of multi-class data (None: the default); binary
        :class:`Priors` are refused by name, before any work."""
        if priors is None:
            return cls()
        if not isinstance(priors, cls):
            raise TypeError(
                "priors: multi-class data take a bayescal.bayes.ClassPriors (Dirichlet confusion "
                "rows; in a priors file, the keys confusion and proportion); saw "
                f"{type(priors).__name__}"
            )
        return priors

    @classmethod
    def from_dict(cls, values: dict) -> ClassPriors:
        """The priors :meth:`to_dict` wrote."""
        return cls(confusion=tuple(values["confusion"]), proportion=values["proportion"])


# --- priors files ----------------------------------------------------------------------------


@old_spellings()
def read_priors(path, *, named: bool = False):
    """Priors from a JSON file.

    Parameters
    ----------
    path : str or path
        One prior, ``{"false_positive": [1, 1], "sensitivity": [8, 2], "prevalence": [1, 1]}``
        (absent keys keep the flat default), or with ``named=True`` an object of named priors,
        ``{"flat": {}, "expert": {"sensitivity": [8, 2]}}``, the first being the reference.
        A prior of multi-class labels has the keys of :class:`ClassPriors`,
        ``{"confusion": [4, 1], "proportion": 1}``.

    Returns
    -------
    Priors or ClassPriors, or dict of str to them
    """

    path = pathlib.Path(path)
    document = read_json(path)
    binary = ("false_positive", "sensitivity", "prevalence")
    multiclass = ("confusion", "proportion")

    def one(values, where: str):
        keys = set(values) if isinstance(values, dict) else set()
        kind, allowed = (ClassPriors, multiclass) if keys & set(multiclass) else (Priors, binary)
        if not isinstance(values, dict) or keys - set(allowed):
            unknown = (
                sorted(set(values) - set(allowed))
                if isinstance(values, dict)
                else type(values).__name__
            )
            raise ValueError(
                f"{path}: {where}: expected an object with keys among {', '.join(allowed)} "
                f"(or, for multi-class labels, {', '.join(multiclass)}); saw {unknown}"
            )
        try:
            return kind(
                **{
                    key: tuple(pair) if isinstance(pair, list) else pair
                    for key, pair in values.items()
                }
            )
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: {where}: {error}") from None

    if not named:
        return one(document, "the prior")
    if not isinstance(document, dict) or not document:
        seen = "an empty object" if document == {} else type(document).__name__
        raise ValueError(
            f'{path}: expected an object of named priors, e.g. {{"flat": {{}}, "expert": {{"sensitivity": [8, 2]}}}}; saw {seen}'
        )
    return {str(name): one(values, f"prior {name!r}") for name, values in document.items()}
