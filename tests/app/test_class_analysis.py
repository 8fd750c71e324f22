"""`analyse` and `bayescal fit` on multi-class data: the numbers, the summary, the results
folder and its report, and the refusals."""

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.app import class_analysis, cli
from bayescal.app.class_analysis import ClassAnalysis
from bayescal.bayes import ClassPriors, SamplerSettings
from bayescal.exceptions import ChannelWarning
from bayescal.report import load_summary, render_report
from bayescal.report.class_report import CLASS_CAPTIONS, class_report_html, class_summary_html
from bayescal.report.class_summary import ClassSummary
from bayescal.simulate import graded_confusion, simulate_classes

CLASSES = ["fail", "partial", "pass"]
#: Short NUTS runs: the analysis' plumbing is under test, not the sampler.
QUICK = SamplerSettings(num_chains=2, num_warmup=1000, num_samples=1000, progress=False)
QUICK_OPTIONS = ["--chains", "2", "--warmup", "1000", "--samples", "1000", "--quiet"]


@pytest.fixture(scope="module")
def graded():
    confusion = np.stack([graded_confusion(3, accuracy) for accuracy in (0.85, 0.75, 0.8)])
    return simulate_classes(900, confusion, classes=CLASSES, ordinal=True, seed=5)


@pytest.fixture(scope="module")
def analysis(graded):
    return bc.analyse(graded.data, truth=graded.labels, sampler=QUICK)


def _binned_ece(targets, scores, n_bins=10):
    """The binned ECE of targets in [0, 1] against scores, written out as paper Eq. 2 reads."""
    index = np.minimum((scores * n_bins).astype(int), n_bins - 1)
    return sum(abs(np.sum(targets[index == b] - scores[index == b])) for b in range(n_bins)) / len(
        scores
    )


@pytest.mark.slow  # one multi-class fit, shared by the module
def test_the_analysis_gives_every_multiclass_number(graded, analysis):
    data, summary = graded.data, analysis.summary
    assert isinstance(analysis, ClassAnalysis) and isinstance(summary, ClassSummary)
    assert summary.data.classes == tuple(CLASSES) and summary.data.ordinal
    probabilities = data.probabilities
    predicted = probabilities.argmax(axis=1)
    confidence = probabilities.max(axis=1)
    # the naive votes, by hand: the share of the votes for the predicted class, and the
    # majority's indicator split equally at a tie
    counts = np.stack([(data.annotations == k).sum(axis=1) for k in range(3)], axis=1)
    shares = counts / counts.sum(axis=1, keepdims=True)
    most = counts == counts.max(axis=1, keepdims=True)
    majority = most / most.sum(axis=1, keepdims=True)
    rows = np.arange(data.n_items)
    top = summary.ece["top_label"]
    assert top.naive["soft_vote"] == pytest.approx(
        _binned_ece(shares[rows, predicted], confidence), abs=1e-12
    )
    assert top.naive["majority_vote"] == pytest.approx(
        _binned_ece(majority[rows, predicted], confidence), abs=1e-12
    )
    classwise = summary.ece["classwise"]
    assert classwise.naive["majority_vote"] == pytest.approx(
        np.mean([_binned_ece(majority[:, k], probabilities[:, k]) for k in range(3)]), abs=1e-12
    )
    for kind, ece in summary.ece.items():
        oracle = bc.expected_calibration_error(graded.labels, probabilities, kind=kind)
        assert ece.oracle.value == pytest.approx(oracle, abs=1e-12)
        posterior = bc.nc_ece_posterior(data, analysis.bayes_fit, kind=kind, seed=0)
        assert ece.posterior.median == posterior.median
        em = bc.nc_ece_estimate(data, kind=kind, estimator=analysis.channel_fit)
        assert ece.frequentist.value == em.estimate
        # the corrected ECE is near the truth, the naive ones are not (fixed seed)
        low, high = ece.posterior.interval
        assert low <= oracle <= high, (kind, low, oracle, high)
        assert abs(ece.naive["majority_vote"] - oracle) > 2 * abs(ece.posterior.median - oracle)
    assert classwise.posterior.median == pytest.approx(
        np.median(analysis.posteriors["classwise"].draws), abs=1e-12
    )
    assert list(classwise.classes) == CLASSES and top.classes is None
    # the matrices: EM as fitted, the posterior mean near the simulation's (900 items)
    for j, name in enumerate(data.annotator_names):
        entry = summary.confusion[name]
        np.testing.assert_array_equal(
            entry.matrix("em"), analysis.channel_fit.channels.confusion[j]
        )
        np.testing.assert_allclose(entry.matrix(), graded.confusion[j], atol=0.06)
        assert (entry.matrix("lower") <= entry.matrix()).all()
        assert (entry.matrix() <= entry.matrix("upper")).all()
    assert set(summary.proportion) == set(CLASSES)


def test_classes_every_judge_confuses_are_merged_before_the_analysis_and_said_once():
    # four grades; every judge answers grades 3 and 4 alike (both rows their mean)
    confusion = np.stack([graded_confusion(4, 0.8)] * 3)
    confusion[:, 2:] = confusion[:, 2:].mean(axis=1, keepdims=True)
    graded = simulate_classes(1500, confusion, classes=["1", "2", "3", "4"], ordinal=True, seed=2)
    truth = np.array(graded.data.classes)[graded.labels]  # grades by name
    inputs, _ = class_analysis._read(graded.data, truth, "auto", None, None, 10, 0.9)
    with pytest.warns(ChannelWarning) as said:
        (merged, merge), parts = class_analysis._fit_em(inputs, 0)
    assert [str(w.message) for w in said] == [f"analyse: {merge.sentence()}"]
    assert "the labels do not tell the classes '3' and '4' apart" in merge.sentence()
    assert merged.data.classes == ("1", "2", "3|4") and merge.data is merged.data
    np.testing.assert_array_equal(merged.truth, np.minimum(graded.labels, 2))
    assert parts["data"].classes == ("1", "2", "3|4") and parts["data"].merged == ("3|4",)


@pytest.mark.slow  # one multi-class fit, shared by the module
def test_a_merge_is_said_in_the_report_and_the_printed_lines(analysis):
    summary = analysis.summary
    merged = replace(summary, data=replace(summary.data, merged=("partial|pass",)))
    assert "Merged, because the labels do not tell their classes apart: partial|pass." in (
        class_summary_html(merged)
    )
    assert "(partial|pass merged: not told apart)" in merged.text()[2]
    assert analysis.merge.groups == () and summary.data.merged == ()


@pytest.mark.slow  # one multi-class fit, shared by the module
def test_the_verdict_reads_the_top_label_in_plain_words(analysis):
    verdict = analysis.summary.verdict
    # the simulated predictor is over-confident: the test and the band both say so
    assert verdict.kind == "top_label" and verdict.p_value < 0.05
    assert verdict.sentence.startswith("miscalibrated (calibration test p ")
    assert "over-confident at confidence" in verdict.sentence
    assert "right less often than its probability says" in verdict.sentence
    lines = analysis.summary.text()
    assert lines[0] == f"verdict: {verdict.sentence}"
    assert lines[1].startswith("  top-label NC-ECE ")
    assert "3 ordinal classes fail, partial, pass" in lines[2]
    assert repr(analysis).startswith("ClassAnalysis(900 items, 3 annotators, 3 classes, ")
    assert 'id="verdict-sentence"' in analysis._repr_html_()


@pytest.mark.slow  # one multi-class fit, shared by the module
def test_the_results_folder_round_trips_and_redraws(analysis, tmp_path):
    report = analysis.report(tmp_path / "out", progress=False)
    folder = report.parent
    assert sorted(p.name for p in folder.iterdir()) == [
        "figures",
        "posterior.nc",
        "report.html",
        "summary.json",
    ]
    assert sorted(p.stem for p in (folder / "figures").iterdir()) == sorted(CLASS_CAPTIONS)
    loaded = load_summary(folder)
    assert isinstance(loaded, ClassSummary)
    document = json.loads((folder / "summary.json").read_text())
    assert document["kind"] == "multiclass" and loaded.to_dict() == document
    assert loaded.ece == analysis.summary.ece and loaded.verdict == analysis.summary.verdict
    text = report.read_text()
    top = analysis.summary.ece["top_label"].posterior.median
    assert f'id="nc-ece-posterior-median-top-label">{top:.4f}<' in text
    assert 'id="class-nc-ece-partial"' in text and 'id="figure-confusion"' in text
    assert analysis.summary.verdict.sentence in text
    redrawn = render_report(folder)
    assert redrawn.read_text() == text  # the report follows from the saved files alone


@pytest.mark.slow  # one multi-class fit, shared by the module
def test_the_multiclass_report_refuses_what_it_cannot_show(analysis):
    with pytest.raises(ValueError, match=r"figures must be named among"):
        class_report_html(analysis.summary, {"channels": b""})
    with pytest.raises(TypeError, match=r"summary must be a .*ClassSummary; saw dict"):
        class_report_html({}, {})
    with pytest.raises(ValueError, match=r"class_name must be one of the classes"):
        analysis.plot(class_name="excellent")


def test_analyse_refuses_what_the_multiclass_model_cannot_fit(graded):
    data = graded.data
    with pytest.raises(ValueError, match=r"model must be one of .*'dawid_skene'.*saw 'hui_walter'"):
        bc.analyse(data, model="hui_walter", sampler=QUICK)
    with pytest.raises(ValueError, match=r"dependent: the multi-class model has no dependent"):
        bc.analyse(data, dependent=("a0", "a1"), sampler=QUICK)
    with pytest.raises(ValueError, match=r"'excellent' is not one of the classes"):
        bc.analyse(data, truth=["excellent"] * data.n_items, sampler=QUICK)
    with pytest.raises(
        TypeError, match=r"priors: multi-class data take a bayescal.bayes.ClassPriors"
    ):
        bc.analyse(data, priors=bc.bayes.Priors(), sampler=QUICK)
    crowd = bc.AnnotatedScores(data.probabilities, np.tile(data.annotations, 5), classes=CLASSES)
    with pytest.raises(ValueError, match=r"15 annotators are a crowd .*'hierarchical_dawid"):
        bc.analyse(crowd, model="dawid_skene", sampler=QUICK)
    grades = bc.AnnotatedScores(data.probabilities, data.annotations, classes=["1", "2", "3"])
    truth = np.resize([1, 2, 3], data.n_items)
    truth[7] = 0  # integers are the grades' names here: 0 is none of them
    with pytest.raises(ValueError, match=r"truth, row 7: '0' is not one of the classes"):
        bc.analyse(grades, truth=truth, sampler=QUICK)
    priors = ClassPriors(confusion=(2, 1), proportion=3)
    assert ClassPriors.from_dict(priors.to_dict()) == priors


def _graded_table(graded, folder):
    data = graded.data
    frame = pd.DataFrame(data.probabilities, columns=[f"p_{c}" for c in CLASSES])
    for j, name in enumerate(data.annotator_names):
        frame[name] = [CLASSES[c] if c >= 0 else None for c in data.annotations[:, j]]
    frame["truth"] = [CLASSES[c] for c in graded.labels]
    path = folder / "graded.csv"
    frame.to_csv(path, index=False)
    return path


def test_analyse_reads_a_multiclass_dataframe_with_its_class_options(graded, tmp_path):
    from bayescal.app.analysis import _as_table

    frame = pd.read_csv(_graded_table(graded, tmp_path))
    scores = [f"p_{c}" for c in CLASSES]
    frame[scores] *= 0.9  # rows summing to 0.9: normalize=True divides them back
    data, truth = _as_table(
        frame,
        scores,
        ["a0", "a1", "a2"],
        "truth",
        classes=CLASSES,
        ordinal=True,
        normalize=True,
    )
    np.testing.assert_array_equal(data.annotations, graded.data.annotations)
    np.testing.assert_allclose(data.probabilities, graded.data.probabilities, atol=1e-12)
    assert data.classes == tuple(CLASSES) and data.ordinal
    assert list(truth) == [CLASSES[c] for c in graded.labels]
    # the frame reaches the multi-class analysis, whose model check refuses a binary model
    with pytest.raises(ValueError, match=r"model must be one of .*'dawid_skene'.*saw 'hui_walter'"):
        bc.analyse(
            frame,
            score=scores,
            annotators=["a0", "a1", "a2"],
            classes=CLASSES,
            normalize=True,
            model="hui_walter",
            sampler=QUICK,
        )
    with pytest.raises(ValueError, match=r"rows summing to 1 .*pass normalize=True"):
        bc.analyse(frame, score=scores, annotators=["a0", "a1", "a2"], classes=CLASSES)


@pytest.mark.slow  # a multi-class fit of its own, from the command
def test_bayescal_fit_reads_a_multiclass_table(graded, tmp_path, capsys):
    table = _graded_table(graded, tmp_path)
    scores = ",".join(f"p_{c}" for c in CLASSES)
    argv = ["fit", str(table), "--score", scores, "--annotators", "a0,a1,a2", "--truth", "truth"]
    out = tmp_path / "results"
    classes = ["--classes", ",".join(CLASSES), "--ordinal"]
    assert cli.main([*argv, *classes, "--out", str(out), *QUICK_OPTIONS]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("bayescal fit: verdict: miscalibrated")
    assert "3 ordinal classes fail, partial, pass, annotators a0, a1, a2" in printed
    summary = load_summary(out)
    assert summary.input["classes"] == CLASSES and summary.input["score"] == scores.split(",")
    oracle = bc.expected_calibration_error(graded.labels, graded.data.probabilities)
    assert summary.ece["top_label"].oracle.value == pytest.approx(oracle, abs=1e-12)
    # the options of multi-class labels need several score columns, and only fit reads them
    assert cli.main([*argv[:3], "p_fail", *argv[4:], "--classes", "a,b", "--out", "x"]) == 2
    assert (
        "--classes, --ordinal and --normalize describe multi-class labels"
        in capsys.readouterr().err
    )
    recalibrate = ["recalibrate", str(table), "--score", scores, "--annotators", "a0,a1,a2"]
    assert cli.main([*recalibrate, "--out", str(tmp_path / "map")]) == 2
    assert "--score must name one column here" in capsys.readouterr().err


def test_a_multiclass_table_takes_no_score_groups(tmp_path, capsys):
    argv = ["fit", str(tmp_path / "absent.csv"), "--score", "p_a,p_b,p_c", "--groups", "3"]
    assert cli.main([*argv, "--annotators", "x,y,z", "--out", str(tmp_path / "out")]) == 2
    assert "--groups and --thresholds cut one score into groups" in capsys.readouterr().err
