"""crowd_em: Dawid–Skene EM on sparse responses; the Responses container it runs on."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal._api import named_annotators
from bayescal.channels.crowd_em import DEFAULT_SMOOTHING, MIN_TRIPLE_ITEMS, SPARSE_LABELS
from bayescal.data.responses import Responses
from bayescal.exceptions import ChannelWarning, ConvergenceWarning


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_unsmoothed_it_is_the_dense_dawid_skene_maximum_likelihood():
    """On the paper's three annotators (every item labelled by all) the sparse EM reaches the
    pattern-count EM's estimate: the same likelihood, another layout."""
    data = bc.toy_data(5000, seed=3).data
    dense = bc.dawid_skene_em(data, tol=1e-13, max_iter=20000)
    sparse = bc.crowd_em(data, smoothing=None, tol=1e-13, max_iter=20000)
    assert sparse.smoothing is None and sparse.converged
    np.testing.assert_allclose(sparse.channels.a, dense.channels.a, atol=1e-6)
    np.testing.assert_allclose(sparse.channels.b, dense.channels.b, atol=1e-6)
    assert sparse.prevalence == pytest.approx(float(dense.prevalence), abs=1e-6)
    assert sparse.loglik == pytest.approx(dense.loglik, rel=1e-9)


def _crowd(seed=1):
    return bc.simulate_crowd(20000, 30, labels_per_item=3, seed=seed)


def test_a_crowd_is_estimated_and_its_odd_workers_are_named_by_kind():
    """Default mix over 30 workers: 24 good, 3 spammers, 2 constant, 1 adversarial.  Each odd
    kind is one warning line naming exactly those workers; the good workers' channels are
    within 0.05 of the truth (they have 594 labels or more)."""
    crowd = _crowd()
    with pytest.warns(ChannelWarning) as record:
        fit = bc.crowd_em(crowd.data)
    types = np.array(crowd.worker_types)
    names = np.array(crowd.data.annotator_names)
    lines = [str(w.message) for w in record]
    assert len(lines) == 3 and all(w.filename == __file__ for w in record)
    for kind, phrase in (
        ("adversarial", "estimated adversarial"),
        ("spammer", "indistinguishable from random answers"),
        ("constant", "constant (they gave one label value only)"),
    ):
        (line,) = [line for line in lines if phrase in line]
        listed, several = named_annotators(names[types == kind])
        assert line.startswith(f"crowd_em: {listed} {'are' if several else 'is'} {phrase}")
    good = types == "good"
    assert np.abs(fit.channels.a[good] - crowd.channels.a[good]).max() < 0.05
    assert np.abs(fit.channels.b[good] - crowd.channels.b[good]).max() < 0.05
    adversarial = types == "adversarial"  # 636 labels; true gap -0.22
    error = fit.channels.gap[adversarial] - crowd.channels.gap[adversarial]
    assert (fit.channels.gap[adversarial] < 0).all() and np.abs(error).max() < 0.15
    assert fit.channels.adversarial
    assert fit.prevalence == pytest.approx(crowd.labels.mean(), abs=0.02)
    assert fit.smoothing is None  # every worker has more than SPARSE_LABELS labels


def test_smoothing_is_the_default_for_sparse_workers_and_keeps_channels_inside():
    """A worker with three agreeing labels sits on the boundary (b = 1) unsmoothed; the
    default Beta(2, 2) prior keeps every channel inside (0, 1) and its gap small (each worker
    its own channel, ``pool=None``)."""
    crowd = bc.simulate_crowd(3000, 200, labels_per_item=3, worker_mix={"good": 1}, seed=2)
    per_worker = (crowd.data.annotations >= 0).sum(axis=0)
    assert per_worker.min() < SPARSE_LABELS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        smoothed = bc.crowd_em(crowd.data, pool=None)
        plain = bc.crowd_em(crowd.data, smoothing=None, pool=None)
    assert smoothed.smoothing == DEFAULT_SMOOTHING and plain.smoothing is None
    channels = np.concatenate([smoothed.channels.a, smoothed.channels.b])
    assert (channels > 0).all() and (channels < 1).all()
    edges = np.concatenate([plain.channels.a, plain.channels.b])
    assert ((edges == 0) | (edges == 1)).any()
    assert "smoothing=Beta(2.0, 2.0)" in repr(smoothed)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.ChannelWarning")
def test_smoothing_lowers_the_nc_ece_error_of_a_sparse_crowd():
    """200 good workers, 3 labels per item, 3000 items (15 labels per worker on average), 10
    seeded replicates: NC-ECE with the smoothed channels errs less, against the population
    binned ECE, than with the maximum-likelihood channels, whose boundary values (b = 1 from
    a few agreeing labels) give a sparse worker a large weight.  Measured: RMSE 0.014 against
    0.021 (the true channels: 0.008)."""
    errors = {"smoothed": [], "plain": []}
    for seed in range(10):
        crowd = bc.simulate_crowd(3000, 200, labels_per_item=3, worker_mix={"good": 1}, seed=seed)
        reference = crowd.population_binned_ece(10)
        for name, smoothing in (("smoothed", "auto"), ("plain", None)):
            fit = bc.crowd_em(crowd.data, smoothing=smoothing, pool=None)
            errors[name].append(bc.noise_corrected_ece(crowd.data, fit.channels) - reference)
    rmse = {name: float(np.sqrt(np.mean(np.square(e)))) for name, e in errors.items()}
    assert rmse["smoothed"] < 0.8 * rmse["plain"]


def test_a_mirror_image_fit_is_oriented_by_the_population():
    """Reversing every label gives the same channels with a and b swapped back: the
    label-weighted mean gap decides the orientation, not a start."""
    crowd = bc.simulate_crowd(5000, 12, labels_per_item=4, worker_mix={"good": 1}, seed=4)
    flipped = crowd.data.annotations.copy()
    flipped[flipped >= 0] = 1 - flipped[flipped >= 0]
    reversed_data = bc.AnnotatedScores(crowd.data.scores, flipped)
    fit = bc.crowd_em(crowd.data)
    mirror = bc.crowd_em(reversed_data)
    np.testing.assert_allclose(mirror.channels.a, 1 - fit.channels.b, atol=1e-6)
    np.testing.assert_allclose(mirror.channels.b, 1 - fit.channels.a, atol=1e-6)
    assert (fit.channels.gap > 0).all() and (mirror.channels.gap > 0).all()


def test_max_iter_reached_warns_and_says_so():
    with pytest.warns(ConvergenceWarning, match=r"crowd_em: no convergence within max_iter=2"):
        fit = bc.crowd_em(bc.toy_data(500, seed=0).data, max_iter=2)
    assert not fit.converged and fit.n_iter == 2


def test_responses_from_a_long_table_and_from_wide_data_agree():
    crowd = bc.simulate_crowd(800, 25, labels_per_item=(2, 5), seed=5)
    labels, scores = crowd.long_tables()
    from_long = Responses.from_long(labels.sample(frac=1, random_state=0), items=scores["item"])
    from_wide = crowd.data.responses()
    order = np.lexsort((from_long.annotator, from_long.item))
    np.testing.assert_array_equal(from_long.item[order], from_wide.item)
    np.testing.assert_array_equal(from_long.annotator[order], from_wide.annotator)
    np.testing.assert_array_equal(from_long.label[order], from_wide.label)
    assert from_long.annotator_names == from_wide.annotator_names
    np.testing.assert_array_equal(from_wide.labels_per_item(), (crowd.data.annotations >= 0).sum(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        assert repr(bc.crowd_em(from_long)) == repr(bc.crowd_em(crowd.data))
    assert repr(from_wide) == f"Responses(n_items=800, n_annotators=25, n_responses={len(labels)})"


def test_a_long_table_with_empty_labels_and_text_ids():
    labels = pd.DataFrame(
        {"item": ["x", "x", "y", "z"], "annotator": ["b", "a", "a", "a"], "label": [1, 0, None, 1]}
    )
    responses = Responses.from_long(labels)
    assert responses.annotator_names == ("a", "b") and responses.n_items == 2  # y: no label
    assert responses.item.tolist() == [0, 0, 1] and responses.annotator.tolist() == [1, 0, 0]


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: bc.crowd_em(np.zeros((3, 3))), TypeError, r"data must be a bayescal.data.Responses or bayescal.AnnotatedScores; saw ndarray"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, smoothing=(0.5, 2)), ValueError, r"smoothing must be 'auto', None or a pair \(alpha, beta\) of Beta parameters >= 1; saw \(0.5, 2\)"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, smoothing="map"), ValueError, r"smoothing must be one of 'auto'; saw 'map'"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, pool="sparse"), ValueError, r"pool must be one of 'auto'; saw 'sparse'"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, pool=0), ValueError, r"pool must be .*1.*saw 0"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, tol=0), ValueError, r"tol must be a positive number; saw 0"),
        (lambda: bc.crowd_em(bc.toy_data(50).data, max_iter=0), ValueError, r"max_iter must be >= 1; saw 0"),
        (lambda: Responses([0, 0], [0, 0], [1, 0], 1, ("a",)), ValueError, r"responses must hold one label per \(item, annotator\) pair; item 0 has two from annotator 'a'"),
        (lambda: Responses([0, 3], [0, 0], [1, 0], 2, ("a",)), ValueError, r"item indices must lie in \[0, 2\); saw 0 to 3"),
        (lambda: Responses([0.5], [0], [1], 2, ("a",)), TypeError, r"item must be a 1-D array of integer indices"),
        (lambda: Responses([0], [0], [2], 2, ("a",)), ValueError, r"label must contain only 0 and 1; saw 2"),
        (lambda: Responses([0, 1], [0], [1, 1], 2, ("a",)), ValueError, r"item, annotator and label must have one entry per response each; saw 2, 1 and 2"),
        (lambda: Responses([0], [0], [1], 1, ()), TypeError, r"annotator_names must be a non-empty sequence of str"),
        (lambda: Responses.from_long(pd.DataFrame({"item": [1]})), ValueError, r"labels has no column\(s\) \['annotator', 'label'\]"),
        (lambda: Responses.from_long(pd.DataFrame({"item": ["q"], "annotator": ["a"], "label": [1]}), items=["p"]), ValueError, r"labels: item 'q' \(row 0\) is not among items"),
        (lambda: Responses.from_long({"item": [1]}), TypeError, r"labels must be a pandas DataFrame; saw dict"),
    ],
)  # fmt: skip
def test_bad_input_names_the_argument(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_the_analysis_estimates_a_crowd_on_its_sparse_responses():
    """More than CROWD_ANNOTATORS annotators: the EM baseline is crowd_em; up to it, the
    pattern-count Dawid–Skene EM.  The NC-ECE estimate takes it by name as well."""
    from bayescal.app.model_choice import frequentist_channels
    from bayescal.channels.crowd_em import CROWD_ANNOTATORS

    crowd = bc.simulate_crowd(
        6000, CROWD_ANNOTATORS + 1, labels_per_item=3, worker_mix={"good": 1}, seed=3
    )
    assert frequentist_channels(crowd.data).fit.method == "crowd_em"
    few = bc.simulate_crowd(
        6000, CROWD_ANNOTATORS, labels_per_item=3, worker_mix={"good": 1}, seed=3
    )
    assert frequentist_channels(few.data).fit.method == "dawid_skene_em"
    estimate = bc.nc_ece_estimate(crowd.data, estimator="crowd_em")
    assert estimate.estimator == "crowd_em"
    assert abs(estimate.estimate - crowd.population_binned_ece(10)) < 0.02


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.ChannelWarning")
def test_a_smoothed_fit_reports_the_log_likelihood_not_the_log_posterior():
    """``loglik`` is the likelihood at the estimate, computed here item by item on the wide
    table: the prior's term, which the MAP iteration maximises with it, is left out."""
    crowd = bc.simulate_crowd(400, 40, labels_per_item=3, seed=8)
    fit = bc.crowd_em(crowd.data)
    assert fit.smoothing == DEFAULT_SMOOTHING
    a, b, mu = fit.channels.a, fit.channels.b, fit.prevalence
    annotations = crowd.data.annotations
    seen = annotations >= 0
    one = np.where(seen, np.where(annotations == 1, b, 1 - b), 1.0).prod(axis=1)
    zero = np.where(seen, np.where(annotations == 1, a, 1 - a), 1.0).prod(axis=1)
    assert fit.loglik == pytest.approx(np.log(mu * one + (1 - mu) * zero).sum(), rel=1e-10)


def test_the_em_nc_ece_of_a_crowd_is_one_figure_whichever_function_computes_it():
    # nc_ece_estimate (reuse) and noise_corrected_ece with the same channels both run on the
    # responses under the crowd rule, so a notebook and `bayescal fit` report the same number
    crowd = bc.simulate_crowd(1500, 30, labels_per_item=3, seed=11)
    with pytest.warns(bc.ChannelWarning):
        result = bc.nc_ece_estimate(crowd.data, estimator="crowd_em", n_bins=10)
        direct = bc.noise_corrected_ece(crowd.data, result.fits[0].channels, n_bins=10)
    assert result.estimate == pytest.approx(direct, abs=1e-12)
    assert result.moments.n_items <= crowd.data.n_items


def _pooled_truth(crowd, pooled):
    """The channel of a label drawn from the pooled workers' labels: each worker's rate
    weighted by its labels on items of that class (the mixture the pooled channel estimates)."""
    annotations = crowd.data.annotations[:, pooled]
    seen = annotations >= 0
    positive = crowd.labels.astype(bool)
    n0, n1 = seen[~positive].sum(axis=0), seen[positive].sum(axis=0)
    a = (n0 * crowd.channels.a[pooled]).sum() / n0.sum()
    b = (n1 * crowd.channels.b[pooled]).sum() / n1.sum()
    return a, b


def test_pooling_gives_the_sparse_workers_one_channel_the_mixture_of_theirs():
    """Heavy-tailed workloads, 400 workers (spammers among them): the 238 workers with fewer
    than 30 labels (4 158 labels in all) share one channel, within 0.04 of the label-weighted
    mixture of their true channels (seeds 4-7 measured errors up to 0.025); the others keep
    their own, and the result names the pooled workers."""
    crowd = bc.simulate_crowd(
        10000, 400, labels_per_item=3, worker_mix={"good": 0.8, "spammer": 0.2}, seed=4
    )
    per_worker = (crowd.data.annotations >= 0).sum(axis=0)
    sparse = per_worker < SPARSE_LABELS
    assert sparse.sum() == 238
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        fit = bc.crowd_em(crowd.data, pool="auto")
        assert bc.crowd_em(crowd.data).pooled == fit.pooled  # the default
    names = np.array(crowd.data.annotator_names)
    assert fit.pooled == tuple(names[sparse])
    assert f"pooled={sparse.sum()} workers" in repr(fit)
    assert fit.described == "crowd_em (238 workers with few labels share one pooled channel)"
    a, b = fit.channels.a, fit.channels.b
    assert np.ptp(a[sparse]) == 0 and np.ptp(b[sparse]) == 0
    assert np.unique(a[~sparse]).size == (~sparse).sum()
    true_a, true_b = _pooled_truth(crowd, sparse)
    assert a[sparse][0] == pytest.approx(true_a, abs=0.04)
    assert b[sparse][0] == pytest.approx(true_b, abs=0.04)


def test_pooling_is_not_done_where_it_would_not_be_identified():
    """Every worker sparse and two labels per item: one pooled channel would be a two-trial
    binomial mixture (2 free frequencies, 3 parameters), so each worker keeps its own; one
    sparse worker alone has nobody to pool with."""
    crowd = bc.simulate_crowd(
        600, 60, labels_per_item=2, workload="uniform", worker_mix={"good": 1.0}, seed=5
    )
    assert (crowd.data.annotations >= 0).sum(axis=0).max() < SPARSE_LABELS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        with pytest.warns(bc.WeakIdentificationWarning, match="no item has three labels"):
            bc.crowd_em(crowd.data, pool=None)
        warnings.simplefilter("ignore", bc.WeakIdentificationWarning)  # said just above
        assert bc.crowd_em(crowd.data, pool="auto").pooled == ()
        assert bc.crowd_em(crowd.data, pool=None).pooled == ()
        many = bc.simulate_crowd(3000, 20, labels_per_item=3, workload="uniform", seed=5)
        one = bc.crowd_em(many.data, pool=int((many.data.annotations >= 0).sum(axis=0).min()) + 1)
        # a few items with a third label do not identify one channel
        annotations = crowd.data.annotations.copy()
        for item in range(MIN_TRIPLE_ITEMS - 1):
            annotations[item, np.flatnonzero(annotations[item] < 0)[0]] = 1
        few_triples = bc.AnnotatedScores(crowd.data.scores, annotations)
        assert bc.crowd_em(few_triples).pooled == ()
        # three labels on every item do: every worker shares the one channel
        triples = bc.simulate_crowd(
            300, 60, labels_per_item=3, workload="uniform", worker_mix={"good": 1.0}, seed=5
        )
        assert (triples.data.annotations >= 0).sum(axis=0).max() < SPARSE_LABELS
        assert len(bc.crowd_em(triples.data).pooled) == 60
    assert one.pooled == () and one.described == "crowd_em"


def test_a_pooled_constant_worker_is_still_named_on_its_own_labels():
    """A pooled worker is named when its own labels are constant, never by the pooled channel
    it is given (too few labels to call it random or adversarial)."""
    crowd = bc.simulate_crowd(
        3000, 150, labels_per_item=3, worker_mix={"good": 0.9, "constant": 0.1}, seed=6
    )
    per_worker = (crowd.data.annotations >= 0).sum(axis=0)
    constant = np.array(crowd.worker_types) == "constant"
    assert (per_worker[constant] < SPARSE_LABELS).any()
    with pytest.warns(ChannelWarning) as record:
        fit = bc.crowd_em(crowd.data, pool="auto")
    assert fit.pooled
    (line,) = [str(w.message) for w in record if "constant (they gave" in str(w.message)]
    names = np.array(crowd.data.annotator_names)
    assert all(name in line for name in names[constant][:5])
    assert "those with few labels share the pooled channel" in line
    # a good worker with 10 labels cannot be told from a random one: pooled, it is not named
    (random,) = [str(w.message) for w in record if "indistinguishable from random" in str(w)]
    assert not any(f"'{name}'" in random for name in fit.pooled)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.ChannelWarning")
def test_the_pooled_channel_takes_the_workload_bias_out_of_nc_ece():
    """Issue 17: 600 workers with 10 labels each (2 000 items, 3 labels per item, 10%
    spammers), 30 seeded replicates, the error each EM channel set adds to the NC-ECE of the
    true channels on the same data.  Each worker's own smoothed channel adds +0.007 on average
    (E[1/d] != 1/d with 10 labels); the pooled channel +0.001.  Tolerance 0.004, about 1.5
    standard errors of a 30-replicate mean (the benchmark's 100 replicates: +0.0075 and
    +0.0024, benchmarks/RESULTS.md)."""
    added = {None: [], "auto": []}
    for seed in range(30):
        crowd = bc.simulate_crowd(
            2000, 600, labels_per_item=3, workload="uniform",
            worker_mix={"good": 0.9, "spammer": 0.1}, seed=seed,
        )  # fmt: skip
        known = bc.noise_corrected_ece(crowd.data, crowd.channels)
        for pool, errors in added.items():
            fit = bc.crowd_em(crowd.data, pool=pool)
            errors.append(bc.noise_corrected_ece(crowd.data, fit.channels) - known)
    assert abs(np.mean(added["auto"])) < 0.004 < np.mean(added[None])


def test_a_pooled_channel_that_is_adversarial_is_said_in_one_line():
    """Ten busy good workers and 200 sparse adversarial ones (about 15 labels each): no
    adversarial worker can be told alone, but their pooled channel, on 3 000 labels, can."""
    rng = np.random.default_rng(7)
    n = 3000
    truth = rng.random(n) < 0.4
    annotations = np.full((n, 210), -1, dtype=np.int8)
    rows = np.arange(n)
    for column, (a, b) in ((rng.choice(10, n), (0.1, 0.9)), (10 + rng.choice(200, n), (0.8, 0.2))):
        annotations[rows, column] = rng.random(n) < np.where(truth, b, a)
    second = (annotations[rows, :10] >= 0).argmax(axis=1)  # a second good label on each item
    annotations[rows, (second + 1 + rng.choice(9, n)) % 10] = rng.random(n) < np.where(
        truth, 0.9, 0.1
    )
    data = bc.AnnotatedScores(rng.random(n), annotations)
    with pytest.warns(ChannelWarning) as record:
        fit = bc.crowd_em(data)
    assert len(fit.pooled) == 200
    (line,) = [str(w.message) for w in record if "pooled channel" in str(w.message)]
    assert line.startswith("crowd_em: the pooled channel of the 200 workers with few labels")
    assert "is estimated adversarial" in line
    assert fit.channels.gap[10:].max() < -0.4  # the mixture of the adversaries: b - a = -0.6


def _copying_panel(n=4000, seed=0):
    """Five annotators, a1 copying a0 on 30% of the items, a fifth of the labels missing."""
    rng = np.random.default_rng(seed)
    scores = rng.uniform(0, 1, n)
    y = rng.random(n) < scores
    a = np.array([0.1, 0.15, 0.2, 0.1, 0.25])
    b = np.array([0.85, 0.8, 0.9, 0.75, 0.8])
    labels = (rng.random((n, 5)) < np.where(y[:, None], b, a)).astype(int)
    copied = rng.random(n) < 0.3
    labels[copied, 1] = labels[copied, 0]
    labels[rng.random((n, 5)) < 0.2] = -1
    return bc.AnnotatedScores(scores, labels, annotator_names=[f"a{j}" for j in range(5)])


@pytest.mark.parametrize(
    "dependent",
    [
        ("a0", "a1"),
        [("a0", "a1"), ("a1", "a2")],
        ("a1", "a0"),
        [("a2", "a1"), ("a1", "a0")],
        [("a0", "a1"), ("a1", "a2"), ("a2", "a0")],
    ],
    ids=["pair", "tree", "pair named later column first", "tree named backwards", "cycle"],
)
def test_with_dependent_pairs_it_is_the_dense_dependent_maximum_likelihood(dependent):
    """A pair (or a tree of pairs, or pairs that close a cycle) in the sparse EM: unsmoothed,
    it reaches the pattern-count EM's dependent estimate (the same likelihood, another
    layout), channels and covariances within 1e-6, from the majority vote where the dense EM
    takes the best of its starts."""
    data = _copying_panel()
    dense = bc.dawid_skene_em(data, dependent=dependent, tol=1e-13, max_iter=20000)
    sparse = bc.crowd_em(
        data, dependent=dependent, smoothing=None, pool=None, tol=1e-13, max_iter=20000
    )
    assert sparse.converged and sparse.dependent == dense.dependent
    for mine, theirs in [
        (sparse.channels.a, dense.channels.a),
        (sparse.channels.b, dense.channels.b),
        (sparse.covariance, dense.covariance),
    ]:
        np.testing.assert_allclose(mine, theirs, atol=1e-6)
    assert sparse.prevalence == pytest.approx(float(dense.prevalence), abs=1e-6)
    assert sparse.loglik == pytest.approx(dense.loglik, rel=1e-9)
    independent = bc.crowd_em(data, smoothing=None, pool=None, tol=1e-13, max_iter=20000)
    assert independent.loglik < sparse.loglik - 10  # the copying pair's covariance is real
    flipped = data.annotations.copy()
    flipped[flipped >= 0] = 1 - flipped[flipped >= 0]
    mirror = bc.crowd_em(
        bc.AnnotatedScores(data.scores, flipped, annotator_names=data.annotator_names),
        dependent=dependent,
        smoothing=None,
        pool=None,
        tol=1e-13,
        max_iter=20000,
    )  # oriented back, its classes' covariances exchanged with its channels
    np.testing.assert_allclose(mirror.channels.a, 1 - sparse.channels.b, atol=1e-6)
    np.testing.assert_allclose(mirror.covariance, sparse.covariance[:, ::-1], atol=1e-6)


def test_a_pairs_workers_are_not_pooled_and_not_smoothed():
    """Pair workers with fewer labels than the pooling threshold keep their own channels (the
    pair's covariances need them), fitted by maximum likelihood beside smoothed sparse
    workers; the pairs' covariances travel with the fit."""
    crowd = bc.simulate_crowd(600, 20, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    labels = crowd.data.annotations.copy()
    labels[:, :2] = -1
    rng = np.random.default_rng(3)
    both = rng.choice(600, 25, replace=False)  # the pair labels 25 items together, nothing else
    y = crowd.labels[both]
    labels[both, 0] = rng.random(25) < np.where(y == 1, 0.9, 0.1)
    labels[both, 1] = labels[both, 0]
    few = labels.copy()
    few[:, 2:4] = np.where(np.arange(600)[:, None] < 20, labels[:, 2:4], -1)  # two sparse ones
    data = bc.AnnotatedScores(crowd.data.scores, few, annotator_names=crowd.data.annotator_names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)
        fit = bc.crowd_em(data, dependent=(data.annotator_names[0], data.annotator_names[1]))
    names = data.annotator_names
    assert names[0] not in fit.pooled and names[1] not in fit.pooled
    assert fit.smoothing == DEFAULT_SMOOTHING and fit.covariance.shape == (1, 2)
    assert fit.dependent == ((names[0], names[1]),)
    # copies given either class: the pair's covariance is most of what its rates allow
    for y, rates in enumerate((fit.channels.a, fit.channels.b)):
        p0, p1 = rates[0], rates[1]
        upper = min(p0 * (1 - p1), (1 - p0) * p1)
        assert fit.covariance[0, y] > 0.8 * upper


def test_dependent_pairs_are_checked_and_binary_only():
    data = _copying_panel(n=300)
    three = np.where(data.annotations[:, :3] >= 0, data.annotations[:, :3], 0)
    alone = bc.AnnotatedScores(data.scores, three, annotator_names=["a0", "a1", "a2"])
    # beside the pair, one label an item: two blocks, which identify no class
    with pytest.raises(bc.IdentificationError, match=r"pair \('a0', 'a1'\) labelled 0 items"):
        bc.crowd_em(alone, dependent=("a0", "a1"))
    with pytest.raises(ValueError, match="dependent: 'a9' is not an annotator"):
        bc.crowd_em(data, dependent=("a0", "a9"))
    classes = bc.AnnotatedScores(
        np.full((4, 3), 1 / 3), [[0, 1, 2], [1, 1, 2], [2, 0, 1], [0, 0, 0]]
    )
    with pytest.raises(ValueError, match="dependent: dependent pairs are binary; the data have 3"):
        bc.crowd_em(classes, dependent=("a0", "a1"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ChannelWarning)  # four items
        assert bc.crowd_em(classes, dependent=()).method == "crowd_em"  # no pairs: no refusal


def test_the_calibration_tests_refits_carry_the_pairs():
    """A refit of a crowd_em fit with pairs (what the calibration test's bootstrap runs on each
    replicate) fits the pairs again: on the same data it is the same fit, covariances too."""
    from bayescal.channels.refits import refit_all

    data = _copying_panel(n=1500)
    fit = bc.crowd_em(data, dependent=("a0", "a1"))
    (refit,) = refit_all("crowd_em", [data], dependent=fit.dependent, options=fit.options)
    assert refit.dependent == fit.dependent
    np.testing.assert_allclose(refit.covariance, fit.covariance, rtol=1e-12)
    with pytest.warns(ChannelWarning, match="1 of 1500 items have no label"):  # all missing
        result = bc.calibration_test(data, fit, n_replicates=19, seed=1, progress=False)
    assert "bootstrap" in result.method and 0 < result.p_value <= 1
