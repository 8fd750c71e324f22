"""The conventions every public function follows (DESIGN.md §1, "API conventions").

- Data first, options keyword-only; one name and one default for the credible level
  (:data:`DEFAULT_LEVEL`) and for the number of evaluation bins (:data:`DEFAULT_N_BINS`).
- For one release after a change, a call in an old spelling (an option passed by position, a
  renamed keyword, a name that moved to another module) is answered with an error or warning
  that names the new spelling; ``CHANGELOG.md`` lists every change.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from typing import NamedTuple

__all__ = ["DEFAULT_LEVEL", "DEFAULT_N_BINS", "Interval", "moved_names", "old_spellings"]

#: Probability mass of every reported interval (credible, predictive or confidence) unless a
#: call says otherwise.
DEFAULT_LEVEL = 0.9
#: Equal-width evaluation bins of every ECE unless a call says otherwise (the paper's choice).
DEFAULT_N_BINS = 10


class Interval(NamedTuple):
    """An interval ``(lower, upper)``; a result keeps its probability mass as ``level``."""

    lower: float
    upper: float


#: The release that changed the spellings checked here.
CHANGED_IN = "0.2"


def old_spellings(*, renamed: dict[str, str] | None = None, was: str | None = None):
    """Decorate a public function whose signature changed: a call in the old spelling raises a
    ``TypeError`` naming the new one, instead of Python's bare "takes 2 positional arguments".

    Parameters
    ----------
    renamed : dict of str to str, optional
        Old keyword -> new keyword (e.g. ``{"interval": "level"}``).
    was : str, optional
        The old signature, quoted in the message when the positional arguments do not fit the
        new one (e.g. ``"noise_corrected_ece(scores, annotations, channels, n_bins, ...)"``).
    """
    renamed = dict(renamed or {})

    def decorate(function):
        signature = inspect.signature(function).replace(return_annotation=inspect.Signature.empty)
        positional = [
            p.name
            for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        name = function.__qualname__

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for old, new in renamed.items():
                if old in kwargs:
                    raise TypeError(
                        f"{name}(): the argument {old}= is called {new}= since bayescal "
                        f"{CHANGED_IN}; pass {new}={kwargs[old]!r}"
                    )
            if len(args) > len(positional):
                raise TypeError(
                    f"{name}{signature} takes {len(positional)} positional argument(s) "
                    f"({', '.join(positional)}) and its options by keyword since bayescal "
                    f"{CHANGED_IN}; saw {len(args)} positional arguments"
                    + (f" (the old spelling was {was})" if was else "")
                )
            return function(*args, **kwargs)

        return checked

    return decorate


def moved_names(module: str, moves: dict[str, str]):
    """A module ``__getattr__`` that still finds names moved elsewhere, with a
    ``DeprecationWarning`` naming the new place (``moves``: old name -> ``"module:new name"``)."""

    def __getattr__(name: str):
        if name not in moves:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target, new = moves[name].split(":")
        warnings.warn(
            f"{module}.{name} is {target}.{new} since bayescal {CHANGED_IN}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(target), new)

    return __getattr__
