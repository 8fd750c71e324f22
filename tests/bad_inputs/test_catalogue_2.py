"""The second bad-input catalogue (measured at commit 530cac2, kept beside the project as
``BAD_INPUTS_2.md``): its rows as tests, each with its outcome now.  Rows fixed so far: the
sampler's draws (#111, #112, #228), duplicate keys in JSON files (#125, #132), two unclear prior
errors (#128, #130), a frame with a column named twice (#211), one column in two roles of a
long table (#219), the demo's folder and arguments (#172, #174-#176), channels and truth
matched by name or index (#235, #252-#255), a symlinked ``--out`` (#159, #160); #151 is in
``test_results_folders.py``."""

import json

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.bayes.priors import read_priors
from tests.bad_inputs.test_command import WIDE, _rows, _text, _write_files, main
from tests.helpers import fake_fit


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_row111_112_228_fewer_than_four_draws_are_refused_before_sampling(draws):
    with pytest.raises(ValueError, match=rf"num_samples must be >= 4: .*; saw {draws}$"):
        bc.fit_bayes(bc.toy_data(200, seed=1).data, num_samples=draws)
    with pytest.raises(ValueError, match="num_samples must be >= 4"):
        bc.SamplerSettings(num_samples=draws)


def test_row111_the_command_refuses_two_draws_in_one_line(tmp_path, monkeypatch, capsys):
    table = _write_files(tmp_path, {"t.csv": _text(_rows())})
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", table, *WIDE, "--samples", "2", "--out", "out"
    )
    assert (status, out) == (2, "")
    assert err.startswith("bayescal: error: num_samples must be >= 4") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "document, named, key",
    [
        ('{"sensitivity": [8, 2], "sensitivity": [1, 1]}', False, "sensitivity"),
        ('{"flat": {}, "flat": {"sensitivity": [8, 2]}}', True, "flat"),
        ('{"expert": {"prevalence": [2, 2], "prevalence": [1, 1]}}', True, "prevalence"),
    ],
)
def test_row125_132_a_key_named_twice_is_refused_naming_it(tmp_path, document, named, key):
    path = tmp_path / "priors.json"
    path.write_text(document)
    with pytest.raises(ValueError, match=rf"the key '{key}' appears twice in one object"):
        read_priors(path, named=named)


def test_row125_the_command_says_which_key_is_twice(tmp_path, monkeypatch, capsys):
    table = _write_files(
        tmp_path,
        {"t.csv": _text(_rows()), "prior.json": '{"sensitivity": [8, 2], "sensitivity": [1, 1]}'},
    )
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", table, *WIDE, "--prior", "prior.json", "--out", "o"
    )
    assert (status, out) == (2, "")
    assert "the key 'sensitivity' appears twice in one object" in err


def test_row128_130_prior_errors_say_what_they_saw(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"sensitivity": {"a": 8, "b": 2}}))
    with pytest.raises(ValueError, match=r"e\.g\. \[8, 2\]; saw the mapping \{'a': 8, 'b': 2\}"):
        read_priors(path)
    path.write_text("{}")
    with pytest.raises(
        ValueError, match=r"expected an object of named priors.*; saw an empty object"
    ):
        read_priors(path, named=True)


def test_row211_a_frame_with_a_column_named_twice_is_refused():
    frame = pd.DataFrame([[0.1, 1, 0], [0.8, 1, 1]], columns=["p", "a0", "a0"])
    with pytest.raises(
        ValueError, match="frame has 2 columns named 'a0'; give each column its own"
    ):
        bc.AnnotatedScores.from_frame(frame, score="p", annotators=["a0"])


def test_row219_one_column_in_two_roles_of_a_long_table_is_refused():
    labels = pd.DataFrame({"item": [0, 1], "label": [1, 0]})
    scores = pd.DataFrame({"item": [0, 1], "score": [0.2, 0.3]})
    with pytest.raises(ValueError, match="column 'item' is named as item and as annotator"):
        bc.AnnotatedScores.from_long(labels, scores, annotator="item")


def _demo(capsys, *argv):
    """``bayescal demo ARGV`` in this process: (exit status, standard output, standard error)."""
    from bayescal.app import cli

    try:
        status = cli.main(["demo", *map(str, argv)])
    except SystemExit as stop:  # argparse's usage errors
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_row172_the_demo_needs_two_items_and_says_so(capsys):
    status, out, err = _demo(capsys, "--n", 1, "--no-bayes")
    assert (status, out) == (2, "")
    assert (
        err.splitlines()[-1]
        == "bayescal demo: error: argument --n: expected an integer >= 2; saw 1"
    )


def test_row175_an_out_that_is_a_file_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "a_file.txt").write_text("mine")
    status, out, err = _demo(capsys, "--out", tmp_path / "a_file.txt", "--n", 200)
    assert (status, out) == (2, "")
    assert (
        err
        == f"bayescal: error: {tmp_path}/a_file.txt exists and is not a directory; choose another --out\n"
    )
    assert (tmp_path / "a_file.txt").read_text() == "mine"


def test_row174_a_users_toy_csv_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "toy.csv").write_text("the user's own table\n")
    status, out, err = _demo(capsys, "--out", tmp_path, "--n", 200)
    assert (status, out) == (2, "")
    assert "toy.csv was not written by bayescal demo" in err and err.count("\n") == 1
    assert (tmp_path / "toy.csv").read_text() == "the user's own table\n"


def test_row176_a_users_file_in_fit_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "fit").mkdir()
    (tmp_path / "fit" / "mine.txt").write_text("keep me")
    status, out, err = _demo(capsys, "--out", tmp_path, "--n", 200)
    assert (status, out) == (2, "")
    assert "holds ['mine.txt'], which bayescal did not write" in err
    assert not (tmp_path / "toy.csv").exists()  # nothing written: refused before the work


def test_row174_the_demo_rewrites_its_own_folder(tmp_path):
    """The demo's own toy.csv is recognised by the checksum its fit recorded (no sampling
    needed to test the rule)."""
    import hashlib

    from bayescal.app.demo import check_demo_folder

    (tmp_path / "fit").mkdir()
    (tmp_path / "toy.csv").write_text("score,a0\n0.5,1\n")
    digest = hashlib.sha256((tmp_path / "toy.csv").read_bytes()).hexdigest()
    summary = {"input": {"sha256": {"table": digest}}}
    (tmp_path / "fit" / "summary.json").write_text(json.dumps(summary))
    check_demo_folder(tmp_path)  # its own: accepted
    (tmp_path / "toy.csv").write_text("score,a0\n0.5,0\n")  # edited since: not the demo's
    with pytest.raises(FileExistsError, match=r"toy\.csv was not written by bayescal demo"):
        check_demo_folder(tmp_path)


# --- rule 2: channels and truth are matched by name or index, never by position ---------------

SHIFTED = bc.toy_data(3000, condition="shifted", seed=4)


def _reordered(data, order):
    return bc.AnnotatedScores(
        data.scores,
        data.annotations[:, order],
        annotator_names=[data.annotator_names[j] for j in order],
    )


def _em(data):
    with pytest.warns(bc.SaturatedModelWarning):
        return bc.dawid_skene_em(data)


def test_row254_255_a_fit_and_its_channels_meet_reordered_columns_by_name():
    data = SHIFTED.data
    fit = _em(data)
    reordered = _reordered(data, [2, 0, 1])
    expected = bc.noise_corrected_ece(data, fit.channels)
    assert fit.channels.names == ("a0", "a1", "a2")
    assert bc.noise_corrected_ece(reordered, fit.channels) == pytest.approx(expected, rel=1e-12)
    assert bc.noise_corrected_ece(reordered, fit) == pytest.approx(expected, rel=1e-12)  # #254
    test = bc.calibration_test(data, fit.channels)
    again = bc.calibration_test(reordered, fit.channels)
    assert again.statistic == pytest.approx(test.statistic, rel=1e-12)


def test_row255_named_channels_meeting_other_annotators_are_refused():
    renamed = bc.AnnotatedScores(
        SHIFTED.data.scores, SHIFTED.data.annotations, annotator_names=["x", "y", "z"]
    )
    fit = _em(SHIFTED.data)
    with pytest.raises(ValueError, match=r"data must have the annotators of the channels"):
        bc.noise_corrected_ece(renamed, fit.channels)
    with pytest.raises(ValueError, match=r"data must have the annotators of the channels"):
        bc.calibration_test(renamed, fit.channels)


def test_rule2_unnamed_channels_meet_only_unnamed_annotators():
    """A bare array of channels cannot be checked against named columns: refused, naming the
    fix; on data whose annotators are unnamed (a0, a1, ...) it meets them by position."""
    bare = bc.Channels(SHIFTED.channels.a, SHIFTED.channels.b)
    named = bc.AnnotatedScores(
        SHIFTED.data.scores, SHIFTED.data.annotations, annotator_names=["x", "y", "z"]
    )
    said = (
        r"^channels: the channels are unnamed and data names its annotators x, y, z: name the "
        r"channels, Channels\(a, b, names=\[...\]\), so that each meets its own annotator's "
        r"column$"
    )
    for call in (
        lambda: bc.noise_corrected_ece(named, bare),
        lambda: bc.calibration_test(named, bare),
        lambda: bc.recalibrate(named, method="platt", channels=bare),
    ):
        with pytest.raises(ValueError, match=said):
            call()
    by_name = bc.Channels(bare.a, bare.b, names=["x", "y", "z"])
    assert bc.noise_corrected_ece(named, by_name) == pytest.approx(
        bc.noise_corrected_ece(SHIFTED.data, bare), rel=1e-12
    )


def test_row252_253_recalibrate_matches_a_fit_by_name():
    data = SHIFTED.data
    fit = _em(data)
    platt = bc.recalibrate(data, method="platt", channels=fit)
    again = bc.recalibrate(_reordered(data, [1, 2, 0]), method="platt", channels=fit)
    assert again.slope_ == pytest.approx(platt.slope_, rel=1e-9)
    renamed = bc.AnnotatedScores(data.scores, data.annotations, annotator_names=["x", "y", "z"])
    with pytest.raises(ValueError, match="must have the annotators of the dawid_skene_em fit"):
        bc.recalibrate(renamed, method="platt", channels=fit)


def test_row235_a_truth_series_is_matched_to_a_sorted_frame_by_index():
    from bayescal.app.analysis import _as_table

    frame = pd.DataFrame(
        {"score": SHIFTED.data.scores, **dict(zip("xyz", SHIFTED.data.annotations.T))}
    ).assign(truth=SHIFTED.labels)
    shuffled = frame.sort_values("score")
    _, truth = _as_table(shuffled, "score", list("xyz"), frame["truth"])
    assert (truth == shuffled["truth"].to_numpy()).all()
    with pytest.raises(ValueError, match=r"truth has no label for 1 row\(s\) of data"):
        _as_table(shuffled, "score", list("xyz"), frame["truth"].iloc[1:])


@pytest.mark.parametrize("seed", range(5))
def test_rule2_random_column_permutations_give_identical_numbers(seed):
    """A property of its own: whatever the column order, a fit's channels give the same
    NC-ECE, calibration statistic and recalibration map."""
    rng = np.random.default_rng(seed)
    channels = bc.Channels(
        rng.uniform(0.02, 0.3, 4), rng.uniform(0.7, 0.98, 4), names=["p", "q", "r", "s"]
    )
    sim = bc.simulate_annotated(1500, channels, seed=seed)
    data = bc.AnnotatedScores(sim.data.scores, sim.data.annotations, annotator_names=list("pqrs"))
    order = rng.permutation(4)
    shuffled = _reordered(data, order)
    for meets in (channels, bc.dawid_skene_em(data)):
        assert bc.noise_corrected_ece(shuffled, meets) == pytest.approx(
            bc.noise_corrected_ece(data, meets), rel=1e-12
        )
    known = bc.calibration_test(data, channels).statistic
    assert bc.calibration_test(shuffled, channels).statistic == pytest.approx(known, rel=1e-12)


def test_rule2_the_same_seed_draws_the_same_numbers_whatever_the_column_order():
    """Issue 38 item 8: the Bayesian bootstrap of the posterior NC-ECE (with and without
    gold), the calibration test's H0 posterior draw and its replicates draw in the
    annotators' name order, not the columns' (an interval once moved from 0.0824 to 0.0836)."""
    sim = bc.simulate_annotated(
        2000, bc.Channels([0.1, 0.2, 0.15, 0.25], [0.8, 0.9, 0.85, 0.7]), seed=3
    )
    gold = np.where(np.arange(2000) < 300, sim.labels, -1)
    data = bc.AnnotatedScores(
        sim.data.scores, sim.data.annotations, annotator_names=list("pqrs"), gold=gold
    )
    spread = np.linspace(-0.02, 0.02, 40)[:, None]
    fit = fake_fit(
        data,
        sim.channels.a + spread,
        sim.channels.b - spread[::-1],
        np.full(40, sim.labels.mean()),
    )
    shuffled = data.in_annotator_order(["r", "p", "s", "q"])
    assert (shuffled.annotations[:, 0] == data.annotations[:, 2]).all()
    assert (shuffled.gold == data.gold).all()
    for estimator in ("rectified", "model"):
        given = bc.nc_ece_posterior(data, fit, gold_estimator=estimator).draws
        assert bc.nc_ece_posterior(shuffled, fit, gold_estimator=estimator).draws == (
            pytest.approx(given, rel=1e-9, abs=1e-12)
        )
    without_gold = [
        bc.AnnotatedScores(d.scores, d.annotations, annotator_names=d.annotator_names)
        for d in (data, shuffled)
    ]
    first, second = (bc.nc_ece_posterior(d, fit).draws for d in without_gold)
    assert second == pytest.approx(first, rel=1e-9, abs=1e-12)
    # the fit's own items in another column order are its items: the H0 posterior draw
    tests = [bc.calibration_test(d, fit, seed=4) for d in (data, shuffled)]
    assert "drawn from their posterior under H0" in tests[1].method
    assert tests[1].statistic == pytest.approx(tests[0].statistic, rel=1e-9)
    assert tests[1].p_value == pytest.approx(tests[0].p_value, rel=1e-9)
    responses = shuffled.responses()
    assert [shuffled.annotator_names[j] for j in responses.annotator[:4]] == list("pqrs")


# --- rule 5: one staging rule for every results folder -----------------------------------------


@pytest.mark.parametrize("target", ["a results folder", "nothing (a dangling link)"])
def test_row159_160_a_symlinked_out_is_refused_before_any_work(
    tmp_path, monkeypatch, capsys, target
):
    real = tmp_path / "real"
    if target == "a results folder":
        real.mkdir()
        (real / "summary.json").write_text("{}")
    (tmp_path / "link").symlink_to(real)
    table = _write_files(tmp_path, {"t.csv": _text(_rows())})
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", table, *WIDE, "--out", "link", "--force"
    )
    assert (status, out) == (2, "")
    assert (
        err == f"bayescal: error: link is a symbolic link (to {real}); a results folder is "
        "replaced whole, so give the folder itself\n"
    )
    assert (tmp_path / "link").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # a fake fit's draws
def test_row183_a_posterior_push_through_refuses_more_bins_than_items():
    from tests.helpers import fake_fit

    sim = bc.toy_data(1000, seed=3)
    rng = np.random.default_rng(3)
    draws = np.clip(sim.channels.a + rng.normal(0, 0.02, (40, 3)), 0.01, 0.4)
    fit = fake_fit(sim.data, draws, 1 - draws, rng.uniform(0.4, 0.5, 40))
    # memory followed the bins: draws x 10**6 moments (69 s for 1 000 items)
    with pytest.raises(
        ValueError,
        match=r"n_bins must not exceed the number of items \(1000\): each posterior draw keeps "
        r"one moment per bin.*; saw 1000000$",
    ):
        bc.nc_ece_posterior(sim.data, fit, n_bins=10**6)
    with pytest.raises(ValueError, match=r"n_bins must not exceed the number of items \(500\)"):
        bc.bayes.posterior_recalibration(
            sim.data.subset(np.arange(500)),
            sim.data.subset(np.arange(500, 1000)),
            fit,
            n_bins=501,
        )
    assert bc.nc_ece_posterior(sim.data, fit, n_bins=1000).draws.shape == (40,)


@pytest.mark.parametrize("bins", ["100000", "1000000"])
def test_row181_182_the_command_refuses_more_bins_than_items_before_sampling(
    tmp_path, monkeypatch, capsys, bins
):
    table = _write_files(tmp_path, {"t.csv": _text(_rows(50))})
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", table, *WIDE, "--n-bins", bins, "--out", "o"
    )
    assert (status, out) == (2, "")
    assert err == (
        f"bayescal: error: n_bins must not exceed the number of items (50): each posterior draw "
        f"keeps one moment per bin, so memory would follow the bins, not the items; use fewer "
        f"bins or 'auto'; saw {bins}\n"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # a fake fit's draws
def test_row181_cells_and_prior_sensitivity_refuse_more_bins_than_items_before_sampling(
    monkeypatch,
):
    from bayescal.bayes import sampler
    from tests.helpers import fake_fit

    sim = bc.toy_data(60, seed=3)
    rng = np.random.default_rng(3)
    draws = np.clip(sim.channels.a + rng.normal(0, 0.02, (40, 3)), 0.01, 0.4)
    fit = fake_fit(sim.data, draws, 1 - draws, rng.uniform(0.4, 0.5, 40))
    with pytest.warns(bc.BinningWarning):
        cells = sim.data.cells(n_bins=100, by_group=False)
    with pytest.raises(ValueError, match=r"n_bins must not exceed the number of items \(60\)"):
        bc.nc_ece_posterior(cells, fit)

    def never(*args, **kwargs):
        raise AssertionError("sampled")

    monkeypatch.setattr(sampler.Sampler, "run", never)
    with pytest.raises(ValueError, match=r"n_bins must not exceed the number of items \(60\)"):
        bc.prior_sensitivity(sim.data, priors={"flat": bc.Priors()}, n_bins=61)
