"""The conventions every public function follows.

- Data first, options keyword-only; one name and one default for the credible level
  (:data:`DEFAULT_LEVEL`) and for the number of evaluation bins (:data:`DEFAULT_N_BINS`).
- For one release after a change, a call in an old spelling (an option passed by position, a
  renamed keyword, a name that moved to another module) is answered with an error or warning
  that names the new spelling; ``CHANGELOG.md`` lists every change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import numbers
import sys
import types
import warnings
from typing import NamedTuple

import numpy as np

__all__ = [
    "DEFAULT_FIT_BINS",
    "DEFAULT_LEVEL",
    "DEFAULT_N_BINS",
    "Interval",
    "Result",
    "abbreviated",
    "announce",
    "chance_text",
    "fingerprint",
    "lazy_names",
    "moved_modules",
    "moved_names",
    "old_spellings",
    "p_value_text",
    "recorded_warnings",
    "silenced",
    "warn_caller",
    "within_tolerance_text",
]

#: Probability mass of every reported interval (credible, predictive or confidence) unless a
#: call says otherwise.
DEFAULT_LEVEL = 0.9
#: Equal-width evaluation bins of every ECE unless a call says otherwise (the paper's choice).
DEFAULT_N_BINS = 10
#: Bins a histogram-binning recalibration map is fitted on unless a call says otherwise.
DEFAULT_FIT_BINS = 10


def _is_own(module: str) -> bool:
    """Whether a module is bayescal's (the NumPyro programs are imported as bayescal.models)."""
    return module == "bayescal" or module.startswith("bayescal.")


def warn_caller(message: str, category: type[Warning]) -> None:
    """Warn at the user's line: the first frame outside bayescal's own files.

    A fixed ``stacklevel`` breaks whenever a wrapper (e.g. :func:`old_spellings`) or a helper
    adds a frame; walking the stack does not.  (``skip_file_prefixes`` does this from
    Python 3.12 on.)
    """
    frame, level = inspect.currentframe().f_back, 2
    while frame is not None and (
        _is_own(frame.f_globals.get("__name__", ""))
        or frame.f_globals.get("__name__") == "importlib"  # importlib.import_module
        or _is_import_machinery(frame)
    ):
        frame = frame.f_back
        # warnings.warn skips the import machinery's frames without counting them
        if frame is not None and not _is_import_machinery(frame):
            level += 1
    warnings.warn(message, category, stacklevel=level)


def _is_import_machinery(frame) -> bool:
    """Whether a frame is the import system's (importlib._bootstrap), which warnings skips."""
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


@contextlib.contextmanager
def silenced(*categories: type[Warning]):
    """Silence the warnings of the named ``categories`` inside the block, and only those: a
    helper computation (a refit on a replicate, a fit on half of the items) does not repeat what
    the real computation said; every other warning, numerical ones included, still shows."""
    if not categories or Warning in categories:
        raise ValueError("silenced needs the categories to silence, never Warning itself")
    with warnings.catch_warnings():
        for category in categories:
            warnings.simplefilter("ignore", category)
        yield


#: Seconds the replicates run before their progress bar shows: a short test stays silent.
PROGRESS_DELAY = 2.0


def replicate_bar(n_replicates: int, description: str, progress: bool):
    """The progress bar (tqdm) of ``n_replicates`` replicates (a Monte Carlo null, a bootstrap),
    shown after :data:`PROGRESS_DELAY` seconds when ``progress``, and gone when done."""
    from tqdm import tqdm

    return tqdm(
        total=n_replicates,
        desc=description,
        unit="replicate",
        leave=False,
        delay=PROGRESS_DELAY,
        disable=not progress,
    )


def announce(text: str, enabled: bool = True) -> None:
    """A step that can take seconds says so as it starts: ``bayescal: text...`` on standard
    error, at once, when ``enabled`` (the caller asked for progress).  Standard error is where
    a notebook shows it under the cell and where a shell keeps it out of ``--json`` output,
    so that neither sits silent while a sampler compiles or a report is drawn."""
    if enabled:
        print(f"bayescal: {text}...", file=sys.stderr, flush=True)


@contextlib.contextmanager
def recorded_warnings():
    """Record every warning shown inside this block, once each, as the line
    ``"message (Category)"`` in the list it yields, and show it as before.

    A results folder keeps what the console said: a report opened later must not drop the
    warning that its numbers are single items' noise.  Only the warnings the filters let
    through are recorded (a warning ignored, or raised as an error, is not shown)."""
    lines: list[str] = []
    show = warnings.showwarning

    def show_and_record(message, category, filename, lineno, file=None, line=None):
        text = f"{message} ({category.__name__})"
        if text not in lines:
            lines.append(text)
        show(message, category, filename, lineno, file, line)

    warnings.showwarning = show_and_record
    try:
        yield lines
    finally:
        warnings.showwarning = show


def fingerprint(kind: str, names, *arrays) -> str:
    """``"<kind>:<sha256>"`` of a data set's names and arrays (their dtype, shape and bytes):
    what a fit records of its data, so that a later call can tell the same data (channels
    reused) from other items (a split) without keeping the data."""
    import hashlib

    digest = hashlib.sha256(repr(tuple(str(name) for name in names)).encode())
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return f"{kind}:{digest.hexdigest()}"


def abbreviated(names, count: int) -> str:
    """``"w1, w2, w3"``, or for more than ``count`` names the first ``count`` and how many more
    (``"w1, w2 and 198 more"``): a crowd's names in one readable line."""
    names = [str(name) for name in names]
    shown = ", ".join(names[:count])
    return f"{shown} and {len(names) - count} more" if len(names) > count else shown


def named_annotators(names, count: int = 5) -> tuple[str, bool]:
    """Annotators named in a warning's one line, and whether they are several (for the verb):
    ``"annotator w012"``, ``"annotators w005, w023 and w024"``, or beyond ``count`` the first
    ``count`` and how many more (``"12 annotators: w1, ..., w5 and 7 more"``).  A name that
    holds a comma or " and " is quoted, so that the list stays readable."""
    names = [str(name) for name in names]
    shown = [repr(name) if "," in name or " and " in name else name for name in names[:count]]
    if len(names) == 1:
        return f"annotator {shown[0]}", False
    if len(names) > count:
        return f"{len(names)} annotators: {', '.join(shown)} and {len(names) - count} more", True
    return f"annotators {', '.join(shown[:-1])} and {shown[-1]}", True


#: Below this a p-value is written "< 0.001": its digits say nothing more a reader can use.
SMALLEST_P_SHOWN = 0.001


def p_value_text(p, *, named: str | None = None) -> str:
    """A p-value as every output writes it: three decimals (``0.383``), ``"< 0.001"`` below
    :data:`SMALLEST_P_SHOWN`, an em dash when there is none (None or NaN); after its ``named``
    when given (``"p = 0.383"``, ``"p < 0.001"``)."""
    if p is None or p != p:
        text = "—"
    else:
        text = f"< {SMALLEST_P_SHOWN:g}" if p < SMALLEST_P_SHOWN else f"{p:.3f}"
    if named is None:
        return text
    return f"{named} {text}" if text.startswith("<") else f"{named} = {text}"


def chance_text(probability: float) -> str:
    """A posterior probability as a reader takes it in: a whole percentage, ``"< 1%"`` or
    ``"> 99%"`` at the ends (two decimals of a probability read as a certainty there)."""
    if probability < 0.005:
        return "< 1%"
    if probability > 0.995:
        return "> 99%"
    return f"{probability:.0%}"


def within_tolerance_text(probability: float, tolerance: float) -> str:
    """``P(NC-ECE <= tolerance)`` in words: what the verdicts and tables print."""
    return f"chance that NC-ECE is at most {tolerance:g}: {chance_text(probability)}"


class Interval(NamedTuple):
    """An interval ``(lower, upper)``; a result keeps its probability mass as ``level``."""

    lower: float
    upper: float


#: A nested value is shown whole when its own repr is at most this long.
SHORT = 60


def _brief(value) -> str:
    """One short token for a field's value: numbers and words as they are, containers by size."""
    if isinstance(value, bool | str | type(None)) or isinstance(value, numbers.Integral):
        return repr(value)
    if isinstance(value, numbers.Real):
        return f"{float(value):.4g}"
    if isinstance(value, np.ndarray):
        return f"<array {value.shape}>"
    if isinstance(value, dict):
        return f"<{len(value)} entries>"
    if isinstance(value, tuple | list) and not hasattr(value, "_fields"):
        if len(value) <= 4 and all(isinstance(x, numbers.Number | str) for x in value):
            return "(" + ", ".join(_brief(x) for x in value) + ")"
        return f"<{len(value)} items>"
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and len(shape) == 2:  # a table
        return f"<{type(value).__name__} {shape[0]} x {shape[1]}>"
    text = repr(value)
    return text if len(text) <= SHORT and "\n" not in text else f"<{type(value).__name__}>"


class Result:
    """Mixin of result dataclasses (declared with ``repr=False``): a one-line repr that shows
    numbers and words and summarises arrays, tables and nested results by their size."""

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{f.name}={_brief(getattr(self, f.name))}" for f in dataclasses.fields(self) if f.repr
        )
        return f"{type(self).__name__}({shown})"


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

        checked.old_spellings = renamed  # what a test of the old spellings calls with
        return checked

    return decorate


def moved_names(module: str, moves: dict[str, str]):
    """A module ``__getattr__`` that still finds names moved elsewhere, with a
    ``DeprecationWarning`` naming the new place (``moves``: old name -> ``"module:new name"``)."""

    def __getattr__(name: str):
        if name not in moves:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        target, new = moves[name].split(":")
        warn_caller(
            f"{module}.{name} is {target}.{new} since bayescal {CHANGED_IN}", DeprecationWarning
        )
        return getattr(importlib.import_module(target), new)

    return __getattr__


def lazy_names(package: str, lazy: dict[str, str], moves: dict[str, str] | None = None):
    """A package's ``__getattr__`` and ``__dir__`` that import ``lazy`` names (name -> module,
    or a subpackage -> itself) on first use, so that importing the package stays light, and still find the names of
    ``moves`` (see :func:`moved_names`) with a ``DeprecationWarning``."""
    moved = moved_names(package, moves or {})

    def __getattr__(name: str):
        if name in lazy:
            module = importlib.import_module(lazy[name])
            # a lazy subpackage is the module itself; a lazy name is found in its module
            return module if module.__name__ == f"{package}.{name}" else getattr(module, name)
        return moved(name)

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(lazy))

    return __getattr__, __dir__


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The import system's last resort for a package's old module paths (``moves``: old module
    -> its new modules): ``import bayescal.inference`` gives :mod:`bayescal.bayes.fit`, with a
    ``DeprecationWarning`` at the importing line; a module split in several is searched name by
    name.  No shim file is left behind, and a name that was never a module still fails."""

    def __init__(self, moves: dict[str, tuple[str, ...]]):
        self.moves = moves
        self._own_specs: dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in self.moves else None

    def create_module(self, spec):
        targets = self.moves[spec.name]
        warn_caller(
            f"{spec.name} is {' and '.join(targets)} since bayescal {CHANGED_IN}",
            DeprecationWarning,
        )
        if len(targets) == 1:
            found = importlib.import_module(targets[0])
            self._own_specs[found.__name__] = found.__spec__
            return found
        module = types.ModuleType(spec.name, f"Moved to {' and '.join(targets)}.")

        def __getattr__(name: str):
            for target in targets:
                found = importlib.import_module(target)
                if hasattr(found, name):
                    return getattr(found, name)
            raise AttributeError(f"module {spec.name!r} has no attribute {name!r}")

        module.__getattr__ = __getattr__
        return module

    def exec_module(self, module) -> None:
        """Nothing to run: :meth:`create_module` returned the new module itself.  The import
        system has just set that module's ``__spec__`` to the old path's; it gets its own back,
        or its relative imports would see a parent package other than ``__package__``
        (``ImportWarning: __package__ != __spec__.parent``)."""
        if module.__name__ in self._own_specs:
            module.__spec__ = self._own_specs.pop(module.__name__)


def moved_modules(moves: dict[str, tuple[str, ...]]) -> None:
    """Let the old module paths of ``moves`` (old -> new modules) resolve, for one release after
    a move (see :class:`_MovedModules`); installed once, after every other finder."""
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules(moves))
