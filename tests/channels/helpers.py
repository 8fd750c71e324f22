"""Data builders shared by the channel-estimator tests."""

import numpy as np

import bayescal as bc

PATTERNS = [(0, 0), (0, 1), (1, 0), (1, 1)]


def two_annotator_table(table):
    """AnnotatedScores from per-group counts of the patterns (0,0), (0,1), (1,0), (1,1)."""
    scores, annotations, groups = [], [], []
    for g, cells in enumerate(table):
        for pattern, count in zip(PATTERNS, cells):
            scores += [0.25 + 0.5 * g] * count
            annotations += [pattern] * count
            groups += [g] * count
    return bc.AnnotatedScores(scores, annotations, groups=groups)


def with_groups(simulation, **kwargs):
    """The simulation's data with score groups from :func:`bayescal.channels.score_groups`."""
    data = simulation.data
    return bc.AnnotatedScores(
        data.scores, data.annotations, groups=bc.channels.score_groups(data.scores, **kwargs)
    )


def hide(data, rate, seed):
    """Responses missing completely at random, keeping one response per item."""
    rng = np.random.default_rng(seed)
    annotations = data.annotations.copy()
    hidden = rng.random(annotations.shape) < rate
    rows = np.flatnonzero(hidden.all(axis=1))
    hidden[rows, rng.integers(0, annotations.shape[1], rows.size)] = False
    annotations[hidden] = -1
    return bc.AnnotatedScores(data.scores, annotations, groups=data.groups)


def channel_error(fit, channels):
    """Mean absolute error over all (a_j, b_j)."""
    return float(
        np.mean(np.abs(np.concatenate([fit.channels.a - channels.a, fit.channels.b - channels.b])))
    )
