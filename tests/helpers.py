"""Helpers shared by the test modules."""

import numpy as np
from bayescal.models import PatternDesign

import bayescal as bc
from bayescal.bayes_fit import BayesFit


def fake_fit(data, a, b, prevalence):
    """A BayesFit whose draws are given (one chain), for exact comparisons."""
    design = PatternDesign.from_counts(data.compress(), grouped=False)
    samples = {
        "a": np.asarray(a, float)[None],
        "b": np.asarray(b, float)[None],
        "prevalence": np.asarray(prevalence, float)[None],
    }
    draws = samples["a"].shape[1]
    extra = {
        "diverging": np.zeros((1, draws), bool),
        "energy": np.zeros((1, draws)),
        "num_steps": np.ones((1, draws), int),
        "accept_prob": np.ones((1, draws)),
    }
    return BayesFit.from_run(
        samples, extra, design, bc.Priors(), "dawid_skene", data.annotator_names
    )
