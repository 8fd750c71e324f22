"""Input checks shared by every public function.

Each helper takes the user's value and the *argument name* it came from, converts it to the
array type the numerical code expects, and raises ``ValueError``/``TypeError`` whose message
names the argument, what was expected and what was seen.  Nothing here is
public API; the public functions call these helpers eagerly, before any computation, so that
no bad input can surface later as a NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ._api import abbreviated, warn_caller
from .exceptions import BinningWarning, DataWarning

#: Code for a missing annotation in an annotation matrix.
MISSING = -1

#: Code of a judge's explicit abstention ("cannot determine") in a verdict array.
ABSTAIN = -1

#: Binning strategies understood by :mod:`bayescal.metrics.calibration`.
BIN_STRATEGIES = ("uniform", "quantile")


def _describe(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_numeric_array(value: object, name: str) -> np.ndarray:
    """Convert to a numeric numpy array or raise a TypeError naming ``name``."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers; saw a string {_describe(value)}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested lists, for example
        raise TypeError(
            f"{name} must be an array of numbers; saw {_describe(value)} ({exc})"
        ) from exc
    if array.dtype == bool:
        return array.astype(np.int64)
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers; saw dtype {array.dtype}")
    return array


def first_index(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` as a tuple of ints."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _position(index: tuple[int, ...]) -> str:
    return f"position {index[0]}" if len(index) == 1 else f"row {index[0]}, column {index[1]}"


def check_finite(array: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(array)
    if bad.any():
        index = first_index(bad)
        raise ValueError(
            f"{name} must be finite; saw {array[index].item()!r} at {_position(index)} "
            f"({int(bad.sum())} non-finite value(s) in all)"
        )


def as_probabilities(value: object, name: str, *, ndim: int = 1) -> np.ndarray:
    """Float64 array of finite values in [0, 1] with ``ndim`` dimensions, non-empty."""
    array = as_numeric_array(value, name).astype(np.float64)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array; saw shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty; saw shape {array.shape}")
    check_finite(array, name)
    outside = (array < 0.0) | (array > 1.0)
    if outside.any():
        index = first_index(outside)
        raise ValueError(
            f"{name} must lie in [0, 1]; saw {array[index].item()!r} at {_position(index)}"
        )
    return array


#: How far outside [0, 1] a score may lie and still be float round-off (``1 + 2**-52`` from a
#: softmax, ``-1e-17`` from ``1 - p``): such a score is clipped, with a warning.
SCORE_ROUND_OFF = 1e-12


def as_scores(value: object, name: str = "scores") -> np.ndarray:
    """A predictor's scores as :func:`as_probabilities` gives them, with scores within
    :data:`SCORE_ROUND_OFF` of [0, 1] clipped to it and the clipping said (a
    :class:`~bayescal.exceptions.DataWarning` naming how many and the farthest); farther out is
    refused."""
    array = as_numeric_array(value, name).astype(np.float64)
    with np.errstate(invalid="ignore"):  # NaN is refused below, by as_probabilities
        off = ((array < 0.0) & (array >= -SCORE_ROUND_OFF)) | (
            (array > 1.0) & (array <= 1.0 + SCORE_ROUND_OFF)
        )
    if off.any():
        farthest = array[off][np.argmax(np.abs(array[off] - 0.5))]
        warn_caller(
            f"{name}: {int(off.sum())} score(s) lie within {SCORE_ROUND_OFF:g} outside [0, 1] "
            f"(float round-off; the farthest {farthest.item()!r}); clipped to [0, 1]",
            DataWarning,
        )
        array = np.clip(array, 0.0, 1.0)
    return as_probabilities(array, name)


def as_finite_vector(value: object, name: str) -> np.ndarray:
    """Float64 1-D array of finite real numbers, non-empty (corrected labels may leave [0, 1])."""
    array = as_numeric_array(value, name).astype(np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; saw shape {array.shape}")
    check_finite(array, name)
    return array


def as_binary_labels(value: object, name: str) -> np.ndarray:
    """Int64 1-D array of 0/1 labels (bool and float 0.0/1.0 are accepted), non-empty."""
    array = as_numeric_array(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of 0/1 labels; saw shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty")
    not_binary = ~np.isin(array, (0, 1))
    if not_binary.any():
        index = first_index(not_binary)
        raise ValueError(
            f"{name} must contain only 0 and 1; saw {array[index].item()!r} at {_position(index)}"
        )
    return array.astype(np.int64)


def as_annotations(value: object, name: str, *, n_items: int | None = None) -> np.ndarray:
    """Int8 (n, K) matrix with values 0, 1 and -1 (missing).

    Float input is accepted when its values are exactly 0, 1 or -1; NaN is *not* taken as
    missing here, because one array convention is easier to check than two (tables with NaN
    go through :meth:`bayescal.AnnotatedScores.from_frame`).
    """
    array = as_numeric_array(value, name)
    if array.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_items, n_annotators); saw shape {array.shape}"
            + (
                " (for one annotator pass a column, e.g. labels[:, None])"
                if array.ndim == 1
                else ""
            )
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(
            f"{name} must have at least one item and one annotator; saw shape {array.shape}"
        )
    if n_items is not None and array.shape[0] != n_items:
        raise ValueError(
            f"{name} must have one row per item ({n_items} rows); saw {array.shape[0]} rows"
        )
    return _labels_or_missing(array, name, "missing")


#: How far a row of class probabilities may sum from 1 and still be float round-off (a softmax
#: in float32 is off by up to about 1e-7 a row).
ROW_SUM_TOLERANCE = 1e-6


def as_class_probabilities(value: object, name: str, *, normalize: bool = False) -> np.ndarray:
    """Float64 (n, C) matrix of class probabilities, ``C >= 2``, each in [0, 1] and each row
    summing to 1 within :data:`ROW_SUM_TOLERANCE`.  With ``normalize`` every row is divided by
    its sum first (a row summing to 0 is refused; the quotients of non-negative entries are at
    most 1).  Checked in three passes over the matrix (row sums, least and largest entry): a
    NaN or an infinity makes its row's sum so."""
    array = as_numeric_array(value, name).astype(np.float64, copy=False)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] < 2:
        raise ValueError(
            f"{name} must be an (n_items, n_classes) matrix of class probabilities with at "
            f"least one item and two classes; saw shape {array.shape}"
        )
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be True or False; saw {_describe(normalize)}")
    sums = array.sum(axis=1)
    if not np.isfinite(sums).all():
        check_finite(array, name)
    if array.min() < 0.0 or (not normalize and array.max() > 1.0):
        as_probabilities(array, name, ndim=2)  # names the first entry outside [0, 1]
    if normalize:
        if (sums <= 0).any():
            row = int(np.flatnonzero(sums <= 0)[0])
            raise ValueError(
                f"{name} cannot be normalized: row {row} sums to {sums[row].item()!r}, not a "
                "positive number"
            )
        array = array / sums[:, None]
        sums = array.sum(axis=1)
    off = np.abs(sums - 1.0) > ROW_SUM_TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise ValueError(
            f"{name} must have rows summing to 1 (within {ROW_SUM_TOLERANCE:g}); row {row} sums "
            f"to {sums[row].item()!r} ({int(off.sum())} such row(s)); pass normalize=True to "
            "divide each row by its sum"
        )
    return array


def as_class_labels(value: object, name: str, n_classes: int) -> np.ndarray:
    """Int64 1-D array of class indices ``0 .. n_classes - 1`` (integer-valued floats are
    accepted), non-empty."""
    array = as_numeric_array(value, name)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array of class indices; saw shape {array.shape}"
        )
    return _class_codes(
        array, name, 0, n_classes, "class indices 0 to {top} (one per column of the probabilities)"
    )


def _class_codes(array: np.ndarray, name: str, lowest: int, n_classes: int, what: str):
    """``array`` as int64 after checking it holds integers from ``lowest`` to ``n_classes -
    1``, or a ValueError saying ``what`` (formatted with ``top``) and the first bad value."""
    # comparisons, not np.isin: a few times faster on a large array
    invalid = (array < lowest) | (array >= n_classes)
    if not np.issubdtype(array.dtype, np.integer):
        invalid |= array != np.floor(array)
    if invalid.any():
        index = first_index(invalid)
        raise ValueError(
            f"{name} must hold {what.format(top=n_classes - 1)}; saw {array[index].item()!r} "
            f"at {_position(index)}"
        )
    return array.astype(np.int64, copy=False)


def as_confusion_matrices(value: object, name: str, n_classes: int | None = None) -> np.ndarray:
    """Float64 (K, C, C) confusion matrices ``T_j[y, k] = P(A_j = k | Y = y)``: ``K >= 1``,
    ``C >= 2`` (``n_classes`` when given), each entry in [0, 1] and each row summing to 1 within
    :data:`ROW_SUM_TOLERANCE`."""
    array = as_numeric_array(value, name).astype(np.float64, copy=False)
    if (
        array.ndim != 3
        or array.shape[0] == 0
        or array.shape[1] < 2
        or array.shape[1:]
        != (
            array.shape[1],
            array.shape[1],
        )
    ):
        raise ValueError(
            f"{name} must be (n_annotators, n_classes, n_classes) confusion matrices, at least "
            f"one annotator and two classes; saw shape {array.shape}"
        )
    if n_classes is not None and array.shape[1] != n_classes:
        raise ValueError(
            f"{name} must have {n_classes} classes (as the annotations); saw {array.shape[1]}"
        )
    check_finite(array, name)
    outside = (array < 0.0) | (array > 1.0)
    if outside.any():
        j, y, k = first_index(outside)
        raise ValueError(
            f"{name} must hold probabilities in [0, 1]; saw {array[j, y, k].item()!r} at "
            f"annotator {j}, row {y}, column {k}"
        )
    sums = array.sum(axis=2)
    off = np.abs(sums - 1.0) > ROW_SUM_TOLERANCE
    if off.any():
        j, y = first_index(off)
        raise ValueError(
            f"{name} must have rows P(A_j = . | Y = y) summing to 1 (within "
            f"{ROW_SUM_TOLERANCE:g}); annotator {j}, row {y} sums to {sums[j, y].item()!r}"
        )
    return array


def as_class_annotations(value: object, name: str, n_classes: int) -> np.ndarray:
    """Int64 (n, K) matrix of class codes ``0 .. n_classes - 1``, ``-1`` for missing."""
    array = as_numeric_array(value, name)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_items, n_annotators) with at least one "
            f"item and one annotator; saw shape {array.shape}"
        )
    return _class_codes(
        array, name, MISSING, n_classes, f"class codes 0 to {{top}}, or {MISSING} for missing"
    )


def as_class_gold(value: object, n_items: int, n_classes: int) -> np.ndarray:
    """Int64 gold labels of multi-class data, one per item: class codes ``0 .. n_classes -
    1``, ``-1`` where an item has no gold label."""
    array = as_numeric_array(value, "gold")
    if array.ndim != 1 or array.shape[0] != n_items:
        raise ValueError(
            f"gold must be a 1-D array with one entry per item ({n_items}); saw shape {array.shape}"
        )
    return _class_codes(
        array,
        "gold",
        MISSING,
        n_classes,
        f"class codes 0 to {{top}}, or {MISSING} for no gold label",
    )


def _labels_or_missing(array: np.ndarray, name: str, missing: str) -> np.ndarray:
    """``array`` as int8 after checking it holds only 0, 1 and -1 (``missing`` says what -1
    means), or a ValueError naming ``name`` and the first bad value."""
    # Comparisons, not np.isin: a few times faster, and every table passes through here.
    if np.issubdtype(array.dtype, np.integer):
        invalid = (array < MISSING) | (array > 1)
    else:
        invalid = ~((array == 0) | (array == 1) | (array == MISSING))
    if invalid.any():
        index = first_index(invalid)
        raise ValueError(
            f"{name} must contain only 0, 1 or {MISSING} ({missing}); saw "
            f"{array[index].item()!r} at {_position(index)}"
        )
    return array.astype(np.int8)


def as_class_names(
    classes: object, n_classes: int | None, name: str = "classes"
) -> tuple[str, ...]:
    """``n_classes`` distinct class names as text (``"0", "1", ...`` when ``classes`` is
    None), in the order of the probability columns and the class codes; with ``n_classes``
    None, two names or more."""
    if classes is None:
        return tuple(str(code) for code in range(n_classes))
    if isinstance(classes, str) or not hasattr(classes, "__len__"):
        raise TypeError(f"{name} must be a sequence of class names; saw {_describe(classes)}")
    names = tuple(str(plain_id(c)) for c in classes)
    if n_classes is None and len(names) < 2:
        raise ValueError(f"{name} must name two classes or more; saw {_describe(list(names))}")
    if n_classes is not None and len(names) != n_classes:
        raise ValueError(
            f"{name} must name each of the {n_classes} classes (one per probability column); "
            f"saw {len(names)}: {_describe(list(names))}"
        )
    if len(set(names)) < len(names):
        twice = next(c for c in names if names.count(c) > 1)
        raise ValueError(f"{name} must be distinct as text; {twice!r} appears more than once")
    return names


def class_code_dtype(n_classes: int) -> type:
    """The integer type that stores class codes ``-1 .. n_classes - 1``: int8 up to 127
    classes (the binary annotations' type), int16 beyond."""
    return np.int8 if n_classes <= np.iinfo(np.int8).max else np.int16


def class_label_column(series, classes: tuple[str, ...], description: str) -> np.ndarray:
    """A table column of class labels as codes, each cell its class's position in ``classes``
    (``-1`` where a cell is empty).  Cells are matched to the names as text, an
    integer-valued number as the integer (``3.0`` is ``"3"``, as a column with empty cells
    stores ``3``): a 1-5 scale reads with ``classes=["1", ..., "5"]``, and class codes with the
    default names ``"0", "1", ...``."""
    series = blank_as_missing(series)
    empty = series.isna().to_numpy()
    codes = np.full(len(series), MISSING, dtype=np.int64)
    import pandas as pd  # loaded with the first table read, not with bayescal

    filled = series[~empty]
    if pd.api.types.is_numeric_dtype(filled.dtype) and not pd.api.types.is_bool_dtype(filled.dtype):
        values = filled.to_numpy(dtype=np.float64)
        whole = values == np.floor(values)
        text = np.where(whole, values.astype(np.int64).astype(str), values.astype(str))
    else:  # each distinct cell once: a label column holds a few values many times
        position, distinct = pd.factorize(filled)
        text = np.array([_label_text(cell) for cell in distinct], dtype=str)[position]
    found = pd.Index(classes).get_indexer(text)
    if (found < 0).any():
        row = int(np.flatnonzero(~empty)[np.flatnonzero(found < 0)[0]])
        unknown = sorted(set(text[found < 0].tolist()))
        raise ValueError(
            f"{description}, row {row}: {str(text[found < 0][0])!r} is not one of the classes "
            f"{list(classes)} (labels not among them: {abbreviated(unknown, 5)})"
        )
    codes[~empty] = found
    return codes


def _label_text(cell) -> str:
    """A label cell as the text its class is named by: an integer-valued number as the integer
    (``3.0`` is ``"3"``)."""
    if isinstance(cell, numbers.Real) and not isinstance(cell, bool) and float(cell).is_integer():
        return str(int(cell))
    return str(plain_id(cell))


def check_items_annotated(annotations: np.ndarray, name: str) -> None:
    """Raise if some item (row) has no observed annotation."""
    empty = (annotations == MISSING).all(axis=1)
    if empty.any():
        rows = np.flatnonzero(empty)
        shown = ", ".join(str(int(r)) for r in rows[:5]) + (", ..." if rows.size > 5 else "")
        raise ValueError(
            f"{name} has {rows.size} item(s) with no observed annotation (rows {shown}); "
            "such items carry no label information: drop them first"
        )


def as_annotator_names(names: object, n_annotators: int, name: str) -> tuple[str, ...]:
    """One distinct name (a string) for each of ``n_annotators`` annotators; ``None`` gives
    ``a0, a1, ...``."""
    if names is None:
        return tuple(f"a{j}" for j in range(n_annotators))
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"{name} must be a sequence of strings; saw {names!r}")
    names = tuple(str(entry) for entry in names)
    if len(names) != n_annotators:
        raise ValueError(
            f"{name} must name each of the {n_annotators} annotator columns; saw {len(names)} names"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"{name} must be unique; saw {list(names)}")
    return names


def annotator_positions(
    seen: Sequence[str], expected: Sequence[str], name: str, of: str, *, subset: bool = False
) -> np.ndarray:
    """Where each of the data's annotators ``seen`` is among ``expected`` (a fit's), matched by
    name, so that ``a[:, positions]`` are the fit's channels in the data's column order.

    Columns in another order are the same annotators (matched, not refused); other names are
    refused: a channel applied to another annotator's column gives a wrong number without any
    sign of it (by position, reordered columns once gave 0.0795 instead of 0.0601).  With
    ``subset``, the data may hold some of the annotators only (new items labelled by a few of
    a crowd's workers).
    """
    seen, expected = tuple(seen), tuple(expected)
    if subset:
        strangers = [annotator for annotator in seen if annotator not in expected]
        if strangers:
            raise ValueError(
                f"{name} must have annotators of {of} only ({abbreviated(expected, 6)}); "
                f"saw {abbreviated(strangers, 6)}, whose channels were not estimated"
            )
    elif sorted(seen) != sorted(expected):
        raise ValueError(
            f"{name} must have the annotators of {of}: {list(expected)}; saw {list(seen)}"
        )
    return np.array([expected.index(annotator) for annotator in seen], dtype=np.intp)


def check_same_annotators(seen: Sequence[str], expected: Sequence[str], name: str, of: str) -> None:
    """Refuse data whose annotators are not those, in that order, of the fit it meets.

    Channels are per annotator: a fit applied to other annotators' columns (or to the same ones
    in another order) would correct each column with another annotator's channel and return a
    wrong number without any sign of it.
    """
    if tuple(seen) != tuple(expected):
        raise ValueError(
            f"{name} must have the annotators of {of}, in its order: {list(expected)}; "
            f"saw {list(seen)}"
        )


def check_column_roles(roles: dict) -> None:
    """Refuse a column named in two roles (score, annotator, groups, truth) or an annotator
    named twice: a truth column also read as an annotator would grade the annotators against
    themselves, and nothing in the numbers would show it.

    ``roles`` maps a role to a column name, a sequence of names, or ``None`` (not used).
    """
    seen = {}
    for role, columns in roles.items():
        if columns is None:
            continue
        for column in [columns] if isinstance(columns, str) else list(columns):
            if column in seen and seen[column] == role:
                raise ValueError(f"the {role}s name {column!r} twice; name each {role} once")
            if column in seen:
                raise ValueError(
                    f"column {column!r} is named as {seen[column]} and as {role}; "
                    "each column has one role"
                )
            seen[column] = role


def check_same_length(
    first: np.ndarray, first_name: str, second: np.ndarray, second_name: str
) -> None:
    if first.shape[0] != second.shape[0]:
        raise ValueError(
            f"{first_name} and {second_name} must have the same number of items; "
            f"saw {first.shape[0]} and {second.shape[0]}"
        )


def as_int(value: object, name: str, *, minimum: int | None = None) -> int:
    """A Python int (bool and non-integral floats are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer; saw {_describe(value)} of type {type(value).__name__}"
        )
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; saw {value}")
    return value


#: Why a fitted histogram refuses more bins than items.
SPARSE_HISTOGRAM = "a fitted histogram's empty bins have no value"
#: Why a posterior push-through refuses more bins than items.
SPARSE_DRAWS = (
    "each posterior draw keeps one moment per bin, so memory would follow the bins, not the "
    "items; use fewer bins or 'auto'"
)


def as_n_bins(
    value: object, n_items: int | None, name: str = "n_bins", *, refuse_sparse: str = ""
) -> int:
    """Number of bins: a positive integer, or ``"auto"`` = round(n^(1/3)) (Futami and Fujisawa).

    More bins than the ``n_items`` they will hold warns (:class:`~bayescal.BinningWarning`):
    most bins then hold one item or none, and the ECE is mostly the noise of single items.
    With ``refuse_sparse``, the reason (:data:`SPARSE_HISTOGRAM`, :data:`SPARSE_DRAWS`), it
    is an error.  ``n_items=None`` checks the kind of value only (``"auto"`` is resolved
    later).
    """
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be a positive integer or 'auto'; saw {value!r}")
        return None if n_items is None else max(1, round(n_items ** (1.0 / 3.0)))
    if isinstance(value, float | np.floating) and float(value).is_integer():
        value = int(value)  # 10.0, e.g. from a JSON file or a NumPy array, means 10 bins
    bins = as_int(value, name, minimum=1)
    if n_items is not None and bins > n_items and refuse_sparse:
        raise ValueError(
            f"{name} must not exceed the number of items ({n_items}): {refuse_sparse}; saw {bins}"
        )
    if n_items is not None and bins > n_items:
        warn_caller(
            f"{name} = {bins} exceeds the {n_items} item(s) to bin: most bins hold one item or "
            f"none, so the ECE measures single items' noise; use fewer bins or {name}='auto'",
            BinningWarning,
        )
    return bins


def as_choice(value: object, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; saw {_describe(value)}")
    return value


def as_open_probability(value: object, name: str) -> float:
    """A scalar strictly inside (0, 1): a credible or confidence level, a class proportion."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number strictly between 0 and 1; saw {_describe(value)}")
    if not 0.0 < value < 1.0:
        # (a level of 90 meant 0.9: say what the range is, not just that 90 is outside [0, 1])
        raise ValueError(f"{name} must lie strictly between 0 and 1; saw {value!r}")
    return as_probability(value, name)


def as_probability(value: object, name: str) -> float:
    """A scalar in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1]; saw {_describe(value)}")
    value = float(value)
    if not np.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1]; saw {value!r}")
    return value


def as_positive(value: object, name: str) -> float:
    """A positive, finite scalar (a concentration, a scale)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a positive, finite number; saw {_describe(value)}")
    return float(value)


def as_tolerance(value: object, name: str = "tol") -> float:
    """A convergence tolerance: a positive, finite number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a positive number; saw {value!r}")
    return float(value)


def as_seed(value: object, name: str = "seed", *, bits: int | None = None) -> int:
    """A non-negative integer seed; ``bits`` caps it below ``2**bits`` (JAX keys take 63)."""
    seed = as_int(value, name, minimum=0)
    if bits is not None and seed >= 1 << bits:
        raise ValueError(f"{name} must be below 2**{bits}; saw {seed}")
    return seed


def as_verdicts(value: object, name: str, abstain: bool = True) -> np.ndarray:
    """A 1-D int array of a judge's verdicts 0/1 (and ABSTAIN when allowed), non-empty."""
    array = as_numeric_array(value, name)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; saw shape {array.shape}")
    allowed = (0, 1, ABSTAIN) if abstain else (0, 1)
    bad = ~np.isin(array, allowed)
    if bad.any():
        index = int(np.argmax(bad))
        described = "0, 1 or -1 (abstain)" if abstain else "0 or 1"
        raise ValueError(
            f"{name} must contain only {described}; saw {array[index].item()!r} at position {index}"
        )
    return array.astype(np.int64)


def as_group_ids(groups: object, n_items: int) -> np.ndarray:
    """Non-negative integer score-group ids, one per item (int64)."""
    array = as_numeric_array(groups, "groups")
    if array.ndim != 1:
        raise ValueError(f"groups must be a 1-D array of score-group ids; saw shape {array.shape}")
    if array.shape[0] != n_items:
        raise ValueError(f"groups must have one entry per item ({n_items}); saw {array.shape[0]}")
    check_finite(array.astype(np.float64), "groups")
    bad = (array < 0) | (array != np.round(array))
    if bad.any():
        index = first_index(bad)
        raise ValueError(
            f"groups must be non-negative integer ids; saw {array[index].item()!r} at position {index[0]}"
        )
    return array.astype(np.int64)


def as_gold(gold: object, n_items: int) -> np.ndarray:
    """Gold labels, one per item: int8 of 0, 1 and -1 (no gold label).  Booleans, and floats
    equal to 0, 1 or -1, are accepted; NaN is not (tables go through ``from_frame``)."""
    array = as_numeric_array(gold, "gold")
    if array.ndim != 1 or array.shape[0] != n_items:
        raise ValueError(
            f"gold must be a 1-D array with one entry per item ({n_items}); saw shape {array.shape}"
        )
    return _labels_or_missing(array, "gold", "no gold label")


def as_gold_weights(weights: object, gold: np.ndarray) -> np.ndarray:
    """Inclusion probabilities pi_i of the gold items, float64 (n,), NaN on the others: each
    gold item's in (0, 1] (what the others hold is not read)."""
    array = as_numeric_array(weights, "gold_weights").astype(np.float64)
    if array.shape != gold.shape:
        raise ValueError(
            f"gold_weights must have one entry per item ({gold.size}); saw shape {array.shape}"
        )
    labelled = gold != MISSING
    with np.errstate(invalid="ignore"):
        bad = labelled & ~((array > 0.0) & (array <= 1.0))
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise ValueError(
            "gold_weights must be each gold item's inclusion probability, in (0, 1]; saw "
            f"{array[index].item()!r} at position {index} ({int(bad.sum())} such gold item(s))"
        )
    return np.where(labelled, array, np.nan)


def blank_as_missing(series):
    """``series`` with its blank text cells (``""``, spaces) as missing: a blank cell of a text
    column is an empty cell, as it is in a CSV file, whatever stored it (a Parquet string
    column keeps ``""``)."""
    if series.dtype == object or str(series.dtype) in ("str", "string"):
        try:  # vectorised: a cell that is not text strips to NaN, which is not blank
            blank = series.str.strip().eq("").fillna(False)
        except AttributeError:  # an object column without text: nothing is blank
            return series
        series = series.mask(blank.astype(bool))
    return series


def numeric_column(series, name: str) -> np.ndarray:
    """A table column as float64, NaN where a cell is empty (``name`` describes the column).

    A text column may hold numbers as text (``"0"``, ``"0.25"``); a blank text cell is empty,
    as it is in a CSV file."""
    series = blank_as_missing(series)
    try:
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold numbers; saw dtype {series.dtype} ({exc})") from exc


def annotation_column(series, description: str) -> np.ndarray:
    """0/1 labels of a table column as int8, NaN -> -1 (missing)."""
    values = numeric_column(series, description)
    missing = np.isnan(values)
    bad = ~missing & ~np.isin(values, (0.0, 1.0))
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{description} must contain only 0, 1 or NaN (missing); saw {values[position].item()!r} at row {position}"
        )
    return np.where(missing, MISSING, values).astype(np.int8)


def as_item_ids(ids: object, n_items: int, name: str = "item_ids") -> np.ndarray:
    """One distinct id per item, as text (a read-only array of ``n_items`` strings): what
    tells the same item in two data sets apart from another; ``name`` is what errors call
    ``ids``."""
    if isinstance(ids, str | set | dict) or not hasattr(ids, "__len__"):
        raise TypeError(f"{name} must be a sequence of {n_items} ids; saw {type(ids).__name__}")
    text = np.asarray(ids).astype(str)  # fixed-width text: no object per item
    if text.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; saw shape {text.shape}")
    if text.size != n_items:
        raise ValueError(f"{name} must hold one id per item ({n_items}); saw {text.size}")
    unique, counts = np.unique(text, return_counts=True)
    if (counts > 1).any():
        repeated = unique[counts > 1]
        raise ValueError(
            f"{name} must name each item once; {repeated.size} id(s) repeat, e.g. "
            f"{str(repeated[0])!r}"
        )
    text.setflags(write=False)
    return text


def plain_id(value: object) -> object:
    """An id as a message shows it: a NumPy scalar as the Python value it holds (``1``, not
    ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def id_spelling_hint(unknown: object, known) -> str:
    """A note for a message about the id ``unknown`` missing from ``known`` (a sequence or a
    pandas Index): when an id there is the same number written otherwise (``'0.0'`` against
    ``'0'``, which ids read as text keep apart), name it; otherwise ``""``."""
    try:
        number = float(unknown)
    except (TypeError, ValueError):
        return ""
    for candidate in known:
        try:
            same = float(candidate) == number
        except (TypeError, ValueError):
            continue
        if same:
            return (
                f" (ids are compared as text: {plain_id(unknown)!r} is not "
                f"{plain_id(candidate)!r}; write the ids alike in both tables)"
            )
    return ""


def warn_ids_spaced_apart(names, what: str) -> None:
    """One :class:`~bayescal.DataWarning` when ids of ``names`` (text) differ only by spaces
    at their ends (``'w1'`` and ``'w1 '``): read as text, as ids are, they are two ``what``
    (a worker's labels split in two, each with half the evidence), which their author rarely
    means; the first few such sets are named."""
    by_stripped = {}
    for name in names:
        by_stripped.setdefault(str(name).strip(), []).append(str(name))
    clashes = [spellings for spellings in by_stripped.values() if len(spellings) > 1]
    if clashes:
        shown = "; ".join(" and ".join(repr(x) for x in spellings) for spellings in clashes[:3])
        more = f" (and {len(clashes) - 3} more sets)" if len(clashes) > 3 else ""
        warn_caller(
            f"{what} ids {shown}{more} differ only by spaces at their ends: they are read as "
            f"different {what}s; strip the spaces if they are one",
            DataWarning,
        )
