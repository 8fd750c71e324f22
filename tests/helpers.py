"""Helpers shared by the test modules."""

import shutil
from dataclasses import replace

import numpy as np
import pytest
from bayescal.models import PatternDesign, ResponseDesign

import bayescal as bc
from bayescal.bayes.bayes_fit import BayesFit
from bayescal.bayes.registry import channel_model
from bayescal.correction.known_channels import is_crowd

#: The xdist group of the tests that use the session's hierarchical fit of the crowds guide's crowd
#: (tests/conftest.py ``crowd_of_30_fit``): one process runs them all and fits it once.
CROWD_FIT_GROUP = "crowd_fit"
#: The xdist group of the tests that start a local Dask cluster: its scheduler binds the HTTP
#: port 8787 even with ``dashboard_address=None``, so two clusters started at once in two test
#: processes collide ("Port 8787 is already in use", an error under the suite's filters).  One
#: process runs them, one after another.
DASK_CLUSTER_GROUP = "dask_cluster"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: The flags a headless Chromium needs on a machine without network or sandbox (the machine notes).
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The tests that render HTML in Chromium skip, saying why, where it is not installed.
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (apt-get install chromium); .ci/run installs it, so CI runs this test",
)


def fake_fit(data, a, b, prevalence, model="dawid_skene", loading=None):
    """A BayesFit of ``data`` (its item ids too) whose draws are given (one chain), for exact
    comparisons; ``model`` a pattern model's name (with channels per score group, ``a, b`` are
    (S, L K) and ``prevalence`` (S, L); with ``shared_difficulty``, ``loading`` (S, 2))."""
    design = (
        ResponseDesign.from_responses(data.responses())
        if is_crowd(data)
        else channel_model(model).pattern_design(data.compress())
    )
    samples = {
        "a": np.asarray(a, float)[None],
        "b": np.asarray(b, float)[None],
        "prevalence": np.asarray(prevalence, float)[None],
    }
    if loading is not None:
        samples["loading"] = np.asarray(loading, float)[None]
    draws = samples["a"].shape[1]
    extra = {
        "diverging": np.zeros((1, draws), bool),
        "energy": np.zeros((1, draws)),
        "num_steps": np.ones((1, draws), int),
        "accept_prob": np.ones((1, draws)),
    }
    return BayesFit.from_run(
        samples,
        extra,
        design,
        bc.Priors(),
        model,
        data.annotator_names,
        item_ids=data.item_ids,
    )


def small_fake_fit():
    """A fake fit of 300 toy items with given, varied draws (one chain of 20)."""
    sim = bc.toy_data(300, seed=0)
    return fake_fit(
        sim.data,
        np.tile(sim.channels.a, (20, 1)) + np.linspace(0, 0.01, 20)[:, None],
        np.tile(sim.channels.b, (20, 1)),
        np.linspace(0.3, 0.5, 20),
    )


def label_probability_by_rows(fit, data):
    """Each item's mean over the draws of ``P(Y = 1 | A_i) = exp(log p(A_i, Y = 1) - log
    p(A_i))``, both from the model's own row log-likelihood (a row with gold label 1 scores
    the joint): an independent route to ``fit.predict_proba(data)`` for any pattern model."""
    groups = np.zeros(data.n_items, np.int64) if not fit.group_ids else data.groups
    keys, inverse = np.unique(
        np.column_stack([groups, data.annotations]), axis=0, return_inverse=True
    )
    patterns = keys[:, 1:]
    design = PatternDesign(
        (patterns == 1) * 1.0,
        (patterns == 0) * 1.0,
        np.searchsorted(np.array(fit.group_ids or (0,)), keys[:, 0]),
        np.array(fit.group_ids or (0,)),
        np.ones(len(keys)),
        pairs=fit.pair_index,
        grouped=bool(fit.group_ids),
        difficulty=fit.spec.difficulty,
        channels_by_group=fit.spec.channels_by_group,
    )
    joint = fit.row_log_likelihood(replace(design, gold=np.ones(len(keys))))
    marginal = fit.row_log_likelihood(design)
    return np.exp(joint - marginal).mean(axis=0)[inverse.ravel()]


def integrated_pattern_probability(rates, loading, rows):
    """``p(s | Y) = int phi(r) prod_j Phi(+-(alpha_j + beta r)) dr`` of each complete response
    row (0 or 1 in every column), by adaptive quadrature (``rates``: the class's marginal
    channels); the shared difficulty's reference (:mod:`bayescal.channels.difficulty`)."""
    from scipy.integrate import quad
    from scipy.special import ndtr, ndtri

    alpha = ndtri(rates) * np.sqrt(1.0 + loading**2)

    def integrand(r, sign):
        return (
            np.exp(-(r**2) / 2) / np.sqrt(2 * np.pi) * np.prod(ndtr(sign * (alpha + loading * r)))
        )

    return np.array(
        [
            quad(
                integrand,
                -np.inf,
                np.inf,
                args=(np.where(row == 1, 1.0, -1.0),),
                epsabs=1e-16,
                epsrel=1e-13,
                limit=500,
            )[0]
            for row in rows
        ]
    )


#: Three classes, three judges: the second confuses the adjacent grades 1 and 2 and never
#: mistakes class 0; the third errs evenly (multi-class tests).
GRADED_CONFUSION = np.array(
    [
        [[0.8, 0.15, 0.05], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]],
        [[1.0, 0.0, 0.0], [0.0, 0.6, 0.4], [0.0, 0.35, 0.65]],
        [[0.7, 0.15, 0.15], [0.15, 0.7, 0.15], [0.15, 0.15, 0.7]],
    ]
)


def binary_confusion(a, b) -> np.ndarray:
    """The (K, 2, 2) confusion matrices of binary channels ``a, b``."""
    a, b = np.asarray(a), np.asarray(b)
    return np.stack([np.column_stack([1 - a, a]), np.column_stack([1 - b, b])], axis=1)


def simulate_class_annotations(confusion, n, prevalence, seed, missing=0.0):
    """``(labels (n,), codes (n, K))``: classes drawn with ``prevalence``, each annotator's
    code from its confusion row; with ``missing``, each label dropped with that probability
    but one kept per item."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(len(prevalence), n, p=prevalence)
    cumulative = np.cumsum(confusion[:, labels], axis=2)  # (K, n, C)
    codes = (rng.random((confusion.shape[0], n, 1)) > cumulative).sum(axis=2).T
    codes = np.minimum(codes, confusion.shape[1] - 1)
    if missing:
        gone = rng.random(codes.shape) < missing
        gone[np.arange(n), rng.integers(0, codes.shape[1], n)] = False
        codes = np.where(gone, -1, codes)
    return labels, codes
