"""The second catalogue's rows on ``bayescal fit`` (``BAD_INPUTS_2.md``, areas ``wide``,
``crowd``, ``args`` and ``priors``).

Where a row is about what the fit is given (the model chosen and why, the score groups, the
data as read) the test stops there, or at the EM fit of the same model, whose estimate is
compared with the simulation's oracle; a fit of every design would cost the suite minutes, and
the models themselves are tested in ``tests/bayes``.  Where the row is about the posterior or
its warnings, the command runs in this process with short chains (2 x 50 warm-up + 50 draws).
"""

import json

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.app import cli
from bayescal.app.commands import _read_input
from bayescal.app.model_choice import frequentist_channels, model_data
from tests.bad_inputs.test_command import NAMES, SIM, WIDE, _rows, _text, main

QUICK = ["--chains", "2", "--warmup", "50", "--samples", "50", "--quiet"]


def _labels(truth, channels, rng, observed=None):
    """Annotations of ``channels`` on items of class ``truth`` (-1 where not ``observed``)."""
    a, b = np.asarray(channels.a), np.asarray(channels.b)
    p = np.where(truth[:, None] == 1, b, a)
    labels = (rng.random(p.shape) < p).astype(np.int8)
    return labels if observed is None else np.where(observed, labels, -1).astype(np.int8)


def _em_nc_ece(data, model="auto"):
    """NC-ECE with the channels of the EM fit that matches the model ``fit`` would choose."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)  # three dense annotators
        fitted = frequentist_channels(data, model=model)
    return bc.noise_corrected_ece(fitted.data, fitted.fit.channels)


def _same_counts(first, second):
    """The pattern counts a model is fitted to are the same."""
    one, other = first.compress(), second.compress()
    for field in ("groups", "patterns", "counts"):
        np.testing.assert_array_equal(getattr(one, field), getattr(other, field))
    assert one.annotator_names == other.annotator_names


def _choice(data, model="auto"):
    chosen = model_data(data, model=model)
    return chosen.name, chosen.why


def test_row15_thirty_dense_annotators_are_a_crowd_whose_em_estimate_is_near_the_oracle():
    rng = np.random.default_rng(15)
    channels = bc.Channels(rng.uniform(0.05, 0.2, 30), rng.uniform(0.75, 0.95, 30))
    sim = bc.simulate_annotated(2000, channels, seed=15)
    name, why = _choice(sim.data)
    assert name == "hierarchical_dawid_skene"
    assert why.startswith("auto: 30 annotators (more than 12): a crowd")
    assert _em_nc_ece(sim.data) == pytest.approx(sim.population_binned_ece(10), abs=0.02)


def test_row16_twelve_dense_annotators_are_dawid_skene_with_every_pattern():
    rng = np.random.default_rng(16)
    channels = bc.Channels(rng.uniform(0.05, 0.2, 12), rng.uniform(0.75, 0.95, 12))
    sim = bc.simulate_annotated(5000, channels, seed=16)
    name, why = _choice(sim.data)
    assert name == "dawid_skene"
    assert (
        why == "auto: 12 annotators with 5000+ labels each identify the marginal Dawid–Skene model"
    )
    assert _em_nc_ece(sim.data) == pytest.approx(sim.population_binned_ece(10), abs=0.02)


def _chosen(tmp_path, monkeypatch, *options, n=None):
    """What ``bayescal fit`` would fit on the clean table read with ``options``: (the data as
    read, the model named, the model chosen, why)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text(_text(_rows(n) if n else _rows()))
    args = cli.build_parser().parse_args(["fit", "t.csv", *options, "--out", "o"])
    data = _read_input(args).data
    return (data, args.model, *_choice(data, args.model))


def test_row17_score_groups_a_model_does_not_use_are_said_to_be_unused(tmp_path, monkeypatch):
    _, _, name, why = _chosen(tmp_path, monkeypatch, *WIDE, "--thresholds", "0.5")
    assert name == "dawid_skene"
    assert why.endswith(
        "; the 2 score groups given are not used (this model has one prevalence; model "
        "hui_walter fits one per group)"
    )


def test_row115_hui_walter_on_data_without_groups_forms_five(tmp_path, monkeypatch):
    data, model, name, why = _chosen(tmp_path, monkeypatch, *WIDE, "--model", "hui-walter")
    assert (name, why) == ("hui_walter", "chosen: hui_walter; 5 equal-width groups were formed")
    assert _em_nc_ece(data, model) == pytest.approx(_em_nc_ece(data), abs=0.02)


TWO = ["--score", "p", "--annotators", "ann,bob"]


def test_row117_cut_points_that_leave_one_score_group_are_refused_naming_them(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", "t.csv", *TWO, "--thresholds", "0.99", "--out", "o"
    )
    top = max(float(row[1]) for row in _rows())
    assert (status, out) == (2, "")
    assert err == (
        "bayescal: error: --thresholds 0.99: every item falls in one score group (the scores run "
        f"from {min(float(row[1]) for row in _rows()):g} to {top:g}); choose cut points inside "
        "that range\n"
    )


def test_row118_fifty_score_groups_of_two_annotators(tmp_path, monkeypatch):
    data, _, name, why = _chosen(tmp_path, monkeypatch, *TWO, "--groups", "50")
    assert (name, why) == ("hui_walter", "auto: two annotators need score groups (Hui–Walter)")
    assert data.n_groups == np.unique(bc.channels.score_groups(data.scores, n_groups=50)).size
    assert _em_nc_ece(data) == pytest.approx(SIM.population_binned_ece(10), abs=0.05)


def _one_rare_annotator(n=2000, seed=93):
    sim = bc.toy_data(n, seed=seed)
    annotations = np.c_[sim.data.annotations, np.full(n, -1, np.int8)]
    annotations[5, 3] = sim.labels[5]
    return sim, bc.AnnotatedScores(sim.data.scores, annotations)


def test_row93_a_fourth_annotator_with_one_label_makes_a_crowd():
    sim, data = _one_rare_annotator()
    name, why = _choice(data)
    assert name == "hierarchical_dawid_skene"
    assert why.startswith("auto: an annotator with 1 labels (fewer than 30): a crowd")
    with pytest.warns(bc.ChannelWarning) as said:
        value = _em_nc_ece(data)
    messages = [str(warning.message) for warning in said]
    assert len(messages) == 2
    assert messages[0].startswith("data: a3 gives one label in all, which shows nothing of how")
    assert messages[1].startswith(  # one label: too few to tell (was: "constant")
        "crowd_em: annotator a3 is indistinguishable from random answers"
    )
    assert value == pytest.approx(sim.population_binned_ece(10), abs=0.02)


def test_row92_two_disjoint_pools_of_three(tmp_path):
    sim = bc.toy_data(2000, seed=92)
    first = np.arange(2000) < 500
    annotations = np.full((2000, 6), -1, np.int8)
    annotations[first, :3] = sim.data.annotations[first]
    annotations[~first, 3:] = sim.data.annotations[~first]
    data = bc.AnnotatedScores(
        sim.data.scores, annotations, annotator_names=["a0", "a1", "a2", "b0", "b1", "b2"]
    )
    name, _ = _choice(data)
    assert name == "dawid_skene"
    assert _em_nc_ece(data) == pytest.approx(sim.population_binned_ece(10), abs=0.02)


def test_row85_one_worker_on_most_items_and_forty_sparse_ones():
    rng = np.random.default_rng(85)
    n = 2000
    sim = bc.toy_data(n, seed=85)
    channels = bc.Channels(rng.uniform(0.05, 0.2, 41), rng.uniform(0.75, 0.95, 41))
    observed = np.zeros((n, 41), bool)
    observed[:, 0] = rng.random(n) < 0.95
    for i in range(n):
        observed[i, 1 + rng.choice(40, 2, replace=False)] = True
    data = bc.AnnotatedScores(sim.data.scores, _labels(sim.labels, channels, rng, observed))
    name, _ = _choice(data)
    assert name == "hierarchical_dawid_skene"
    assert _em_nc_ece(data) == pytest.approx(sim.population_binned_ece(10), abs=0.02)


def _read(tmp_path, text, *options, name="t.csv"):
    (tmp_path / name).write_text(text)
    args = cli.build_parser().parse_args(["fit", name, *options, "--out", "o"])
    return _read_input(args).data


def test_row3_6_8_rows_duplicated_or_shuffled_and_annotators_reordered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = _rows()
    clean = _read(tmp_path, _text(rows), *WIDE)
    reference = _em_nc_ece(clean)
    # every row twice (row 3): every pattern's share is the same, so the EM estimate is too
    assert _em_nc_ece(_read(tmp_path, _text(rows + rows), *WIDE)) == pytest.approx(reference)
    # rows shuffled (row 6): the same pattern counts, which are all a model is fitted to
    order = np.random.default_rng(6).permutation(len(rows))
    shuffled = _read(tmp_path, _text([rows[i] for i in order]), *WIDE)
    _same_counts(shuffled, clean)
    assert _em_nc_ece(shuffled) == pytest.approx(reference, rel=1e-9)
    # annotators named in another order (row 8): the same estimate
    reordered = _read(tmp_path, _text(rows), "--score", "p", "--annotators", "cy,ann,bob")
    assert reordered.annotator_names == ("cy", "ann", "bob")
    assert _em_nc_ece(reordered) == pytest.approx(reference, rel=1e-9)


def test_row18_a_wide_table_and_its_long_form_are_the_same_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(18)
    annotations = np.where(rng.random(SIM.data.annotations.shape) < 0.25, -1, SIM.data.annotations)
    annotations[(annotations < 0).all(axis=1), 0] = 1
    rows = [
        [str(i), f"{SIM.data.scores[i]:.6f}", *("" if x < 0 else str(x) for x in annotations[i])]
        for i in range(len(annotations))
    ]
    wide = _read(tmp_path, _text(rows), *WIDE)
    long_rows = [
        f"{i},{name},{annotations[i, j]}"
        for i in rng.permutation(len(rows))
        for j, name in enumerate(NAMES)
        if annotations[i, j] >= 0
    ]
    (tmp_path / "scores.csv").write_text(
        "item,p\n" + "".join(f"{row[0]},{row[1]}\n" for row in rows)
    )
    long = _read(
        tmp_path,
        "item,annotator,label\n" + "\n".join(long_rows) + "\n",
        "--long",
        "--scores",
        "scores.csv",
        "--score",
        "p",
        name="labels.csv",
    )
    np.testing.assert_array_equal(long.scores, wide.scores)
    np.testing.assert_array_equal(long.annotations, wide.annotations)
    _same_counts(long, wide)


def test_row113_chains_that_never_moved_have_an_infinite_r_hat_said_without_warnings():
    import warnings

    from bayescal.bayes.diagnostics import rank_normalized_rhat

    stuck = np.repeat([[0.2], [0.3]], 50, axis=1)  # a warm-up of 1: every move rejected
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was: NumPy's "divide by zero" and "invalid value"
        assert rank_normalized_rhat(stuck) == np.inf
        assert np.isnan(rank_normalized_rhat(np.full((2, 50), 0.2)))


#: Sampler settings of other tests' fits of the same layout (model, annotators, groups, pattern
#: rows), so that the suite compiles each layout once: tests/bayes/test_fit.py's defaults for
#: two annotators in two groups, test_data_sets_of_similar_size_share_one_compiled_sampler's
#: for four complete annotators.
SHARED = {
    2: ["--chains", "4", "--warmup", "1000", "--samples", "1000", "--quiet"],
    4: ["--chains", "2", "--warmup", "300", "--samples", "300", "--quiet"],
}


def _fit(tmp_path, monkeypatch, capsys, rows, *options, header="id,p,ann,bob,cy", quick=QUICK):
    """``bayescal fit`` with short chains on ``rows``: (status, stdout, stderr, summary)."""
    (tmp_path / "t.csv").write_text(_text(rows, header=header))
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", "t.csv", *(options or WIDE), *quick,
        "--out", "o", "--force",
    )  # fmt: skip
    assert status == 0, err
    return out, err, json.loads((tmp_path / "o" / "summary.json").read_text())


def _posterior(summary):
    return summary["ece"]["nc_ece"]["posterior"]


def test_row2_fifty_items_say_what_the_test_could_miss(tmp_path, monkeypatch, capsys):
    out, _, summary = _fit(tmp_path, monkeypatch, capsys, _rows(50))
    verdict = out.splitlines()[0]
    assert verdict.startswith("bayescal fit: verdict: no evidence of miscalibration")
    assert "could go unseen" in verdict
    assert summary["calibration_test"]["df"] == 1  # the bins merged into one


def test_row4_97_one_score_value_or_one_bin_give_an_interval_around_the_truth(
    tmp_path, monkeypatch, capsys
):
    rows = [[row[0], "0.5", *row[2:]] for row in _rows()]
    _, _, summary = _fit(tmp_path, monkeypatch, capsys, rows)
    oracle = abs(SIM.labels[: len(rows)].mean() - 0.5)  # one bin: |mean label - 0.5|
    low, high = _posterior(summary)["interval"]
    assert low <= oracle <= high
    _, _, summary = _fit(tmp_path, monkeypatch, capsys, _rows(50), *WIDE, "--n-bins", "1")
    low, high = _posterior(summary)["interval"]
    assert summary["ece"]["n_bins"] == 1 and 0 <= low <= high < 0.3
    assert summary["calibration_test"]["df"] == 1


def test_row114_one_chain_runs_and_warns_of_r_hat(tmp_path, monkeypatch, capsys):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "fit", "t.csv", *WIDE, "--chains", "1", "--warmup", "50",
        "--samples", "50", "--quiet", "--out", "o",
    )  # fmt: skip
    assert status == 0, err
    assert "R-hat" in err and "(SamplingWarning)" in err


PRIORS = {
    "row122 b forced to 1": ({"sensitivity": [1e9, 1]}, lambda s: (s["b"] > 0.999).all()),
    "row123 a > b a priori": ({"false_positive": [8, 2], "sensitivity": [2, 8]}, lambda s: (s["b"] > s["a"]).all()),
    "row124 a U-shaped prevalence": ({"prevalence": [1e-3, 1e-3]}, lambda s: ((0 < s["a"]) & (s["a"] < s["b"]) & (s["b"] < 1)).all()),
}  # fmt: skip


@pytest.mark.parametrize("prior, holds", PRIORS.values(), ids=PRIORS.keys())
def test_row122_123_124_extreme_priors_fit(tmp_path, monkeypatch, capsys, prior, holds):
    (tmp_path / "prior.json").write_text(json.dumps(prior))
    _, err, summary = _fit(tmp_path, monkeypatch, capsys, _rows(), *WIDE, "--prior", "prior.json")
    # row 122's prior overrules the data (the catalogue: no prior-data conflict note); the
    # others' posteriors still follow the data (b > a holds in row 123 despite its prior)
    conflict = "(PriorConflictWarning)" in err
    assert conflict == (prior == PRIORS["row122 b forced to 1"][0]), err
    if conflict:
        assert "the prior, not the data, decides a[ann] (the data alone: 0." in err
    channels = {
        rate: np.array([summary["channels"][name][rate]["posterior_mean"] for name in NAMES])
        for rate in ("a", "b")
    }
    assert holds(channels)


@pytest.mark.parametrize(
    "alpha, beta", [(0.05, 70.0), (70.0, 0.05)], ids=["row9 prevalence 0.07%", "row10 99.9%"]
)
def test_row9_10_a_class_almost_absent_is_said_to_be_weakly_informed(
    tmp_path, monkeypatch, capsys, alpha, beta
):
    rng = np.random.default_rng(9)
    n = 20_000
    scores = rng.beta(alpha, beta, n)  # calibrated: the truth is drawn at the score
    truth = (rng.random(n) < scores).astype(int)
    channels = bc.Channels([0.05, 0.1, 0.08, 0.12], [0.9, 0.85, 0.8, 0.92])
    labels = _labels(truth, channels, rng)
    rows = [[str(i), repr(float(scores[i])), *map(str, labels[i])] for i in range(n)]
    options = ["--score", "p", "--annotators", "a,b,c,d"]
    _, err, summary = _fit(
        tmp_path, monkeypatch, capsys, rows, *options, header="id,p,a,b,c,d", quick=SHARED[4]
    )
    low, high = _posterior(summary)["interval"]
    assert low <= 0.005 and high < 0.02  # calibrated by construction: an ECE near 0
    if alpha < 1:  # 11 positives: the sensitivities rest on them, and the check says so
        assert summary["identification"]["status"] == "weakly identified"
    else:  # 25 negatives: the false-positive rates' intervals are wide, and the short run's
        # diagnostics are warned of (ESS; R-hat too while the chains started anywhere)
        low, high = summary["channels"]["a"]["a"]["interval"]
        assert high - low > 0.2 and "NUTS diagnostics failed" in err


def _sensitivity(tmp_path, monkeypatch, capsys, priors, *, out="s"):
    """``bayescal sensitivity`` with short chains: (status, stdout, stderr)."""
    (tmp_path / "t.csv").write_text(_text(_rows()))
    if not isinstance(priors, str):
        (tmp_path / "p.json").write_text(priors if isinstance(priors, str) else json.dumps(priors))
        priors = "p.json"
    return main(
        tmp_path, monkeypatch, capsys, "sensitivity", "t.csv", *WIDE, "--priors", priors,
        *QUICK, "--out", out,
    )  # fmt: skip


@pytest.mark.parametrize(
    "priors, message",
    [
        ([{"sensitivity": [8, 2]}], r"expected an object of named priors.*; saw list"),
        (
            {"flat": {}, "bad": {"sensitivity": [0, 2]}},
            r"prior 'bad': sensitivity must hold two positive",
        ),
        ("nonexist.json", r"nonexist\.json: no such file"),
    ],
    ids=["row133 a list", "row134 the second invalid", "row136 no file"],
)
def test_row133_134_136_a_bad_priors_file_is_refused_before_any_fit(
    tmp_path, monkeypatch, capsys, priors, message
):
    import re

    status, out, err = _sensitivity(tmp_path, monkeypatch, capsys, priors)
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert re.search(message, err) and not (tmp_path / "s").exists()


def test_row129_135_one_prior_with_any_name_is_its_own_reference(tmp_path, monkeypatch, capsys):
    status, out, err = _sensitivity(tmp_path, monkeypatch, capsys, {"Ω µ 判定": {}})
    assert status == 0, err
    rows = json.loads((tmp_path / "s" / "sensitivity.json").read_text())["rows"]
    assert {row["prior"] for row in rows} == {"Ω µ 判定"}
    assert all(row["shift"] == 0 for row in rows)
    assert "reference prior 'Ω µ 判定'" in out


def test_row131_two_identical_priors_are_both_fitted_alike(tmp_path, monkeypatch, capsys):
    same = {"sensitivity": [8, 2]}
    status, _, err = _sensitivity(tmp_path, monkeypatch, capsys, {"one": same, "two": same})
    assert status == 0, err
    rows = json.loads((tmp_path / "s" / "sensitivity.json").read_text())["rows"]
    by_prior = {
        prior: {row["quantity"]: row["mean"] for row in rows if row["prior"] == prior}
        for prior in ("one", "two")
    }
    assert by_prior["one"].keys() == by_prior["two"].keys()
    for quantity, mean in by_prior["one"].items():  # one seed, one prior: the same draws
        assert by_prior["two"][quantity] == pytest.approx(mean, rel=1e-12), quantity


def test_row119_a_score_group_of_one_item_is_weakly_identified(tmp_path, monkeypatch, capsys):
    rows = _rows()
    top, second = sorted(float(row[1]) for row in rows)[-1:-3:-1]
    options = [*TWO, "--thresholds", f"{(top + second) / 2:.6f}"]  # the top group: one item
    _, _, summary = _fit(tmp_path, monkeypatch, capsys, rows, *options, quick=SHARED[2])
    assert summary["data"]["groups"] == {"0": len(rows) - 1, "1": 1}
    assert summary["identification"]["status"] == "weakly identified"


def test_row180_ten_thousand_columns_beside_the_annotators(tmp_path, monkeypatch, capsys):
    extra = [f"c{k}" for k in range(10_000)]
    rows = [[*row, *(str((i * k) % 7) for k in range(10_000))] for i, row in enumerate(_rows(50))]
    header = ",".join(["id,p,ann,bob,cy", *extra])
    _, _, wide = _fit(tmp_path, monkeypatch, capsys, rows, header=header)
    assert wide["data"]["annotators"] == list(NAMES) and wide["data"]["n_items"] == len(rows)


@pytest.mark.slow
# one label per worker shows the population's mean channel and nothing of its spread: the
# spread's draws mix slowly, and the run says so (ESS below 400 for the population's sites)
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")
def test_row87_workers_of_one_label_each_are_said_summed_out_and_the_verdict_sees_the_gap(
    monkeypatch,
):
    """Workers of one label each, three per item (the catalogue's 6 000 workers on 2 000
    items, here 3 000 on 1 000): no worker's channel is identified on its own.  The catalogue's
    run sampled for five minutes, said nothing of it, missed the oracle and said "no evidence
    (p = 0.82)" where known channels give p = 1e-4.  Now: said in one line before sampling;
    the hierarchical model sums the workers out (their channel is the population's mean
    channel; the times are in benchmarks/RESULTS.md); the interval covers the oracle; and the calibration test, whose H0 draw gives
    them one shared channel as the fit does, finds the miscalibration."""
    from bayescal.app import analysis

    n = 1000
    rng = np.random.default_rng(87)
    sim = bc.toy_data(n, seed=87)
    channels = bc.Channels(rng.uniform(0.05, 0.25, 3 * n), rng.uniform(0.7, 0.95, 3 * n))
    observed = np.zeros((n, 3 * n), bool)
    observed[np.repeat(np.arange(n), 3), np.arange(3 * n)] = True
    data = bc.AnnotatedScores(sim.data.scores, _labels(sim.labels, channels, rng, observed))
    assert bc.calibration_test(data, channels).p_value < 1e-6  # what known channels see
    fit_bayes, said_before = analysis._fit_bayes, []

    def fit_after_saying(*args, **kwargs):
        said_before.append([str(w.message) for w in said])
        return fit_bayes(*args, **kwargs)

    monkeypatch.setattr(analysis, "_fit_bayes", fit_after_saying)
    sampler = bc.SamplerSettings(num_chains=2, num_warmup=200, num_samples=400)
    with pytest.warns(bc.ChannelWarning) as said:
        result = bc.analyse(data, truth=sim.labels, sampler=sampler)
    assert said_before == [
        [
            "data: a0, a1, a2, a3, a4 and 2995 more give one label in all, which shows nothing "
            "of how an annotator errs: such a channel is not identified on its own. A crowd "
            "model gives it the population's channel (or crowd_em the pooled one), so the "
            "interval rests on that model; give such annotators more items"
        ]
    ]
    fit, summary = result.bayes_fit, result.summary
    assert fit.model == "hierarchical_dawid_skene" and len(fit.summed_out) == 3 * n
    low, high = summary.ece.nc_ece.posterior.interval
    assert low < summary.ece.oracle.value < high
    assert summary.verdict.sentence.startswith("miscalibrated (calibration test p < 0.001)")
    with pytest.warns(bc.ChannelWarning, match="give one label in all"):
        value = _em_nc_ece(data)
    assert value == pytest.approx(summary.ece.oracle.value, abs=0.03)


def test_row179_a_large_table_of_five_annotators_fits_near_the_oracle(
    tmp_path, monkeypatch, capsys
):
    """Row 179 at a tenth of its size (10^5 rows, five annotators): what grows with the rows
    is reading, compressing, the push-through and the preview; the 10^6-row run and its
    seconds per step are ``benchmarks/fit_end_to_end.py``'s."""
    n = 100_000
    channels = bc.Channels([0.05, 0.1, 0.15, 0.2, 0.1], [0.8, 0.85, 0.9, 0.75, 0.95])
    sim = bc.simulate_annotated(n, channels, calibration=lambda z: 0.15 + 0.7 * z, seed=179)
    frame = pd.DataFrame({"p": sim.data.scores.round(6)})
    for j in range(5):
        frame[f"a{j}"] = sim.data.annotations[:, j]
    frame.to_csv(tmp_path / "t.csv", index=False)
    options = ["--score", "p", "--annotators", "a0,a1,a2,a3,a4", *QUICK]
    status, _, err = main(tmp_path, monkeypatch, capsys, "fit", "t.csv", *options, "--out", "o")
    assert status == 0, err
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    low, high = _posterior(summary)["interval"]
    assert low <= sim.population_binned_ece(10) <= high
