"""The second catalogue's identification rows (``BAD_INPUTS_2.md``, rule 1: identification
follows who labelled what, not how many annotators there are): #89 and #91, three annotators
each labelling a third of the items alone, ran to NC-ECE 0.397 where the oracle is 0.079.  The
rule is one (:class:`bayescal.channels.co_labelling.CoLabelling`), applied by every estimator
and model before any fit or sampling; the last test is its property test on random
co-labelling designs."""

import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.bayes.fit import pattern_model
from bayescal.bayes.registry import channel_model
from tests.bad_inputs.test_command import main


def _one_label_each(n=1000, seed=1):
    """Row 89: every item labelled by exactly one of three annotators."""
    sim = bc.toy_data(n, seed=seed)
    annotations = np.full_like(sim.data.annotations, -1)
    who = np.random.default_rng(seed).integers(0, 3, n)
    annotations[np.arange(n), who] = sim.data.annotations[np.arange(n), who]
    return bc.AnnotatedScores(sim.data.scores, annotations)


ONE_LABEL = r"no item has labels from two annotators \(1000 items, at most one label each\)"


@pytest.mark.parametrize(
    "estimate",
    [
        bc.dawid_skene_em,
        bc.crowd_em,
        bc.channels.third_moment,
        lambda data: bc.grouped_em(
            bc.AnnotatedScores(
                data.scores,
                data.annotations,
                groups=bc.channels.score_groups(data.scores, n_groups=2),
            )
        ),
        lambda data: bc.nc_ece_estimate(data, estimator="dawid_skene_em"),
    ],
    ids=["dawid_skene_em", "crowd_em", "third_moment", "grouped_em", "nc_ece_estimate"],
)
def test_row89_91_one_label_per_item_is_refused_by_every_estimator(estimate):
    with pytest.raises(bc.IdentificationError, match=ONE_LABEL):
        estimate(_one_label_each())


@pytest.mark.parametrize("model", ["dawid_skene", "hui_walter", "hierarchical_dawid_skene"])
def test_row89_every_model_refuses_it_before_sampling(model, monkeypatch):
    from bayescal.bayes import sampler

    def never(*args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(sampler.Sampler, "run", never)
    with pytest.raises(bc.IdentificationError, match=ONE_LABEL):
        bc.fit_bayes(_one_label_each(), model=model)


@pytest.mark.parametrize("command", ["fit", "recalibrate"], ids=["row89", "row90"])
def test_row89_90_the_commands_refuse_it_in_one_line_before_any_fit(
    tmp_path, monkeypatch, capsys, command
):
    data = _one_label_each()
    lines = ["p,a0,a1,a2"] + [
        ",".join([f"{z:.6f}", *("" if x < 0 else str(x) for x in row)])
        for z, row in zip(data.scores, data.annotations)
    ]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    status, out, err = main(
        tmp_path, monkeypatch, capsys, command, "t.csv", "--score", "p",
        "--annotators", "a0,a1,a2", "--out", "o",
    )  # fmt: skip
    assert (status, out) == (2, "")
    assert err.startswith("bayescal: error: dawid_skene_em: no item has labels from two")
    assert err.count("\n") == 1 and not (tmp_path / "o").exists()


def test_pairs_only_warn_that_the_class_proportion_is_not_identified():
    sim = bc.toy_data(1000, seed=2)
    annotations = sim.data.annotations.copy()
    annotations[np.arange(1000), np.random.default_rng(2).integers(0, 3, 1000)] = -1
    with pytest.warns(bc.WeakIdentificationWarning, match="no item has three labels"):
        fit = bc.dawid_skene_em(bc.AnnotatedScores(sim.data.scores, annotations))
    assert fit.ok  # estimated and said, not refused: the rates' bounds may still pin it


def test_an_annotator_seen_alone_is_named_and_the_analysis_goes_on():
    sim = bc.simulate_annotated(1200, bc.Channels([0.1] * 4, [0.9] * 4), seed=3)
    annotations = sim.data.annotations.copy()
    annotations[:600, 3] = -1  # a3 labels only the items the others left
    annotations[600:, :3] = -1
    annotations[600:, 0] = sim.data.annotations[600:, 0]  # ... but a0 labels them too
    annotations[900:, 0] = -1
    data = bc.AnnotatedScores(sim.data.scores, annotations)
    assert bc.dawid_skene_em(data).ok  # a3 shares items 600-899 with a0: not alone
    annotations[600:, 0] = -1
    annotations[600:, 3] = sim.data.annotations[600:, 3]
    lonely = bc.AnnotatedScores(sim.data.scores, annotations)
    with pytest.warns(bc.ChannelWarning, match=r"a3 shares no item with another annotator"):
        bc.dawid_skene_em(lonely)


def _design(rng):
    """A random co-labelling design: K annotators, each item labelled by 1-3 of them with
    random shares (some designs with no second or third label at all)."""
    k = int(rng.integers(3, 7))
    n = int(rng.integers(60, 400))
    shares = rng.dirichlet(np.ones(3)) * (rng.random(3) < 0.7)
    shares = shares / shares.sum() if shares.sum() else np.array([1.0, 0, 0])
    per_item = rng.choice([1, 2, 3], size=n, p=shares)
    annotations = np.full((n, k), -1, np.int8)
    for i, m in enumerate(per_item):
        annotations[i, rng.choice(k, m, replace=False)] = rng.integers(0, 2, m)
    for j in np.flatnonzero((annotations < 0).all(axis=0)):  # every annotator labels something
        annotations[int(rng.integers(n)), j] = 1
    if rng.random() < 0.5:  # and one who labels five items of its own, alone
        loner = np.full((n + 5, 1), -1, np.int8)
        loner[n:, 0] = rng.integers(0, 2, 5)
        annotations = np.column_stack([np.vstack([annotations, np.full((5, k), -1)]), loner])
    return bc.AnnotatedScores(rng.random(annotations.shape[0]), annotations)


@pytest.mark.parametrize("seed", range(12))
def test_rule1_random_designs_are_refused_exactly_when_no_item_has_two_labels(seed):
    """Property: from the labels alone, what every estimator and model does before fitting:
    refuse when no item has two labels, warn when none has three, name the annotators who
    share no item with another."""
    data = _design(np.random.default_rng(seed))
    seen = data.annotations >= 0
    per_item = seen.sum(axis=1)
    alone = [
        name
        for j, name in enumerate(data.annotator_names)
        if not (seen[:, j] & (per_item >= 2)).any()
    ]
    checks = {
        "dawid_skene_em": lambda: bc.dawid_skene_em(data),
        "crowd_em": lambda: bc.crowd_em(data.responses()),
        "fit_bayes": lambda: pattern_model(
            data.compress(), channel_model("dawid_skene"), None, "fit_bayes"
        ),
    }
    for name, check in checks.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if per_item.max() < 2:
                with pytest.raises(bc.IdentificationError, match="no item has labels from two"):
                    check()
                continue
            check()
        said = [str(w.message) for w in caught]
        weak = any("no item has three labels" in line for line in said)
        assert weak == (per_item.max() < 3), (name, said)
        named = [line for line in said if "no item with another annotator" in line]
        assert bool(named) == bool(alone), (name, said)
        for worker in alone:
            assert worker in named[0], (name, named)


def test_co_labelling_names_what_it_needs():
    data = bc.toy_data(50, seed=1).data
    with pytest.raises(
        TypeError, match=r"counts must be a bayescal.data.CellStatistics .*; saw AnnotatedScores"
    ):
        bc.channels.CoLabelling.of_cells(data)
    with pytest.raises(
        TypeError, match=r"responses must be a bayescal.data.Responses .*; saw AnnotatedScores"
    ):
        bc.channels.CoLabelling.of_responses(data)
    measured = bc.channels.CoLabelling.of_cells(data.compress())
    assert measured.items_by_labels == {3: 50} and measured.isolated == ()
