"""Prior settings of the Bayesian channel models, kept free of numpyro, and priors files.

The models put independent Beta priors on each annotator's false-positive rate ``a_j`` and
sensitivity ``b_j`` *conditioned on positive orientation* ``a_j < b_j`` (Youden index > 0):

    p(a_j, b_j) = Beta(a_j; fp) Beta(b_j; sens) 1{a_j < b_j} / P_orient,
    P_orient = P(a < b) under the unconditioned product = integral f_fp(x) (1 - F_sens(x)) dx,

and a Beta prior on each class proportion.  The conditioning is what keeps the two labels from
switching: the posterior lives on ``a_j < b_j`` and NUTS reaches it through a smooth bijection
(no rejection wall).  Its implied marginals differ from the Betas it is built from: with the
default flat priors, (a_j, b_j) is uniform on the triangle ``0 < a < b < 1``, so
``a_j ~ Beta(1, 2)`` (mean 1/3) and ``b_j ~ Beta(2, 1)`` (mean 2/3).
"""

from __future__ import annotations

import math
import numbers
import pathlib
from dataclasses import asdict, dataclass

import numpy as np

from .._api import old_spellings
from ..data.tables import read_json

__all__ = ["Priors", "read_priors"]


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
        Beta prior on each ``a_j = P(A_j = 1 | Y = 0)``, before conditioning on ``a_j < b_j``.
    sensitivity : (alpha, beta), default (1, 1)
        Beta prior on each ``b_j = P(A_j = 1 | Y = 1)``, before conditioning on ``a_j < b_j``.
    prevalence : (alpha, beta), default (1, 1)
        Beta prior on each class proportion ``mu`` (one per score group in Hui–Walter).

    Examples
    --------
    >>> Priors(sensitivity=(8, 2)).orientation_mass > 0.5
    True
    """

    false_positive: tuple[float, float] = (1.0, 1.0)
    sensitivity: tuple[float, float] = (1.0, 1.0)
    prevalence: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        for name in ("false_positive", "sensitivity", "prevalence"):
            object.__setattr__(self, name, _beta_pair(getattr(self, name), name))

    @property
    def orientation_mass(self) -> float:
        """``P(a < b)`` under the unconditioned product of the two channel Betas."""
        from scipy import integrate, stats  # here: scipy.stats costs 0.7 s to import

        fp, sens = stats.beta(*self.false_positive), stats.beta(*self.sensitivity)
        value, _ = integrate.quad(lambda x: fp.pdf(x) * sens.sf(x), 0.0, 1.0, limit=200)
        return float(value)

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

    Returns
    -------
    Priors, or dict of str to Priors
    """

    path = pathlib.Path(path)
    document = read_json(path)
    allowed = ("false_positive", "sensitivity", "prevalence")

    def one(values, where: str):
        if not isinstance(values, dict) or set(values) - set(allowed):
            unknown = (
                sorted(set(values) - set(allowed))
                if isinstance(values, dict)
                else type(values).__name__
            )
            raise ValueError(
                f"{path}: {where}: expected an object with keys among {', '.join(allowed)}; saw {unknown}"
            )
        try:
            return Priors(
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
