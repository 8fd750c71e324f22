"""How an estimate shares one sample between fitting channels and evaluating (paper App.
C.3-C.4): mode ``"split"``'s two samples and mode ``"crossfit"``'s folds, for binary and
multi-class data alike."""

from __future__ import annotations

import numpy as np

from .. import _validation as v

__all__ = ["fold_assignment", "split_sample"]


def split_sample(data, split_fraction, rng) -> tuple:
    """Mode ``"split"``'s two samples of ``data``: a random ``split_fraction`` of the items to
    fit channels on, and the rest to evaluate."""
    if (
        isinstance(split_fraction, bool)
        or not isinstance(split_fraction, (int, float))
        or not 0 < split_fraction < 1
    ):
        raise ValueError(f"split_fraction must be a number in (0, 1); saw {split_fraction!r}")
    order = rng.permutation(data.n_items)
    n_fit = round(split_fraction * data.n_items)
    if not 0 < n_fit < data.n_items:
        raise ValueError(
            f"split_fraction={split_fraction} leaves an empty sample out of {data.n_items} items"
        )
    return data.subset(order[:n_fit]), data.subset(order[n_fit:])


def fold_assignment(n_items: int, n_folds, rng) -> tuple[np.ndarray, int]:
    """Mode ``"crossfit"``'s random fold of each item, and the number of folds."""
    n_folds = v.as_int(n_folds, "n_folds", minimum=2)
    if n_folds > n_items:
        raise ValueError(f"n_folds must not exceed the number of items ({n_items}); saw {n_folds}")
    return rng.permutation(n_items) % n_folds, n_folds
