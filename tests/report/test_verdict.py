"""The verdict a report opens with (issue 18 item 3): where the band leaves the diagonal, the
sentence, the annotator flags, and a summary written before there was a verdict."""

import html
import json

import numpy as np
import pytest

from bayescal.app.analysis import PREVIEW_DRAWS
from bayescal.report.html_report import _annotator_flag, report_html, summary_html
from bayescal.report.summary import ChannelEstimate, ParameterSummary, Summary
from bayescal.report.verdict import off_diagonal_ranges, verdict_sentence

EDGES = np.linspace(0, 1, 11)
SCORES = (EDGES[:-1] + EDGES[1:]) / 2


def _band(truth, half_width=0.02):
    truth = np.asarray(truth, float)
    return EDGES, SCORES, truth - half_width, truth + half_width


def test_bins_whose_band_excludes_the_score_read_as_ranges_of_one_kind():
    # too low below 0.3 and too high above 0.7: scores further from 0.5 than the truth
    truth = SCORES.copy()
    truth[:3] += 0.1
    truth[7:] -= 0.1
    assert off_diagonal_ranges(*_band(truth)) == [
        ("over-confident", 0.0, pytest.approx(0.3)),
        ("over-confident", pytest.approx(0.7), 1.0),
    ]
    # too high below 0.5 and too low above: scores nearer 0.5 than the truth
    truth = SCORES.copy()
    truth[2:4] -= 0.1
    truth[6] += 0.1
    assert off_diagonal_ranges(*_band(truth)) == [
        ("under-confident", pytest.approx(0.2), pytest.approx(0.4)),
        ("under-confident", pytest.approx(0.6), pytest.approx(0.7)),
    ]
    # a band that holds the score, and an empty bin, break a run
    truth = SCORES + 0.1
    lower, upper = truth - 0.02, truth + 0.02
    lower[4], upper[4] = 0.0, 1.0
    mean = SCORES.copy()
    mean[7] = np.nan
    ranges = off_diagonal_ranges(EDGES, mean, lower, upper)
    assert [(kind, round(low, 1), round(high, 1)) for kind, low, high in ranges] == [
        ("over-confident", 0.0, 0.4),
        ("under-confident", 0.5, 0.7),
        ("under-confident", 0.8, 1.0),
    ]


def test_the_sentence_says_whether_and_where():
    over = [("over-confident", 0.0, 0.4), ("over-confident", 0.7, 1.0)]
    too_sure = "(there the scores are further from 0.5 than the true rate: too sure)"
    assert verdict_sentence(1e-8, over) == (
        f"miscalibrated (calibration test p < 0.001): over-confident below 0.4 and above 0.7 "
        f"{too_sure}"
    )
    three = [*over[:1], ("over-confident", 0.5, 0.6), over[1]]
    assert "over-confident below 0.4, between 0.5 and 0.6 and above 0.7 (" in verdict_sentence(
        1e-8, three
    )
    mixed = [("under-confident", 0.2, 0.4), ("over-confident", 0.0, 1.0)]
    assert verdict_sentence(0.012, mixed) == (
        "miscalibrated (calibration test p = 0.012): under-confident between 0.2 and 0.4 "
        "(there the scores are closer to 0.5 than the true rate: not sure enough); "
        f"over-confident everywhere {too_sure}"
    )
    assert (
        verdict_sentence(0.41, over) == "no evidence of miscalibration (calibration test p = 0.410)"
    )
    # a "no evidence" says what it rules out: the test's detectable gap (rule 3 of the second
    # bad-input catalogue: 50 items, one bin, said nothing of the test's power)
    assert verdict_sentence(0.41, over, detectable_gap=0.1934) == (
        "no evidence of miscalibration (calibration test p = 0.410; a gap below 0.19 between "
        "score and truth could go unseen: even with known channels the test finds one of that "
        "size only 80% of the time)"
    )
    assert verdict_sentence(1e-8, over, detectable_gap=0.1934).startswith("miscalibrated (")
    assert "no single bin" in verdict_sentence(0.03, [])
    assert verdict_sentence(None, []).startswith("no calibration test")


def _entry(gap_interval, r_hat=1.0):
    rate = ChannelEstimate(0.2, (0.1, 0.3), r_hat, 1000.0)
    gap = ParameterSummary(float(np.mean(gap_interval)), gap_interval, r_hat, 1000.0)
    return type("Entry", (), {"a": rate, "b": rate, "gap": gap})()


def test_annotators_are_flagged_for_a_reader_choosing_judges():
    assert _annotator_flag(_entry((0.4, 0.6))) == ""
    assert _annotator_flag(_entry((-0.5, -0.3))) == "adversarial (b < a)"
    assert _annotator_flag(_entry((-0.05, 0.1))) == "chance level"
    assert _annotator_flag(_entry((0.4, 0.6), r_hat=1.05)) == "not converged (R-hat 1.050)"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A results folder's summary.json, written by a fit of the toy data (1 200 draws: more
    than the recalibration preview fits maps for)."""
    import warnings

    import bayescal as bc

    sim = bc.toy_data(1500, condition="shifted", seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analysis = bc.analyse(
            sim.data,
            seed=1,
            sampler=bc.SamplerSettings(num_chains=2, num_warmup=300, num_samples=600),
        )
    return analysis, json.loads(analysis.to_json())


def test_the_notebook_display_and_the_report_open_with_the_verdict(written):
    analysis, document = written
    display = analysis._repr_html_()
    assert display.startswith('<section class="verdict" id="verdict">')
    assert document["verdict"]["sentence"].startswith("miscalibrated (calibration test p < 0.001)")
    assert html.escape(document["verdict"]["sentence"]) in display
    page = report_html(analysis.summary, {})
    assert page.index('id="verdict"') < page.index("<h2>")  # before every section
    assert analysis.summary.text()[0] == f"verdict: {document['verdict']['sentence']}"
    # the annotators, most informative first, with the gap's interval
    gaps = [document["channels"][name]["gap"]["posterior_mean"] for name in ("a0", "a1", "a2")]
    shown = [page.index(f'id="gap-{name}"') for name in ("a0", "a1", "a2")]
    assert np.argsort(shown).tolist() == np.argsort(-np.array(gaps)).tolist()
    # what to do: the shifted predictor gains from either map, scored on the same held-out half
    preview = document["recalibration"]
    assert preview["n_fit"] + preview["n_eval"] == 1500
    assert preview["n_draws"] == PREVIEW_DRAWS == 1000  # evenly spaced through the chains
    assert "one map for each of 1000 of the 1200 posterior draws of the channels, evenly " in page
    for method in ("platt", "histogram"):
        assert preview["after"][method]["median"] < preview["before"]["median"]
    assert html.escape('bc.recalibrate(data, method="') in page  # no input table: Python


def test_a_summary_written_before_the_verdict_still_renders(written):
    _, document = written
    new = ("verdict", "calibration_test", "recalibration")
    old = {key: value for key, value in document.items() if key not in new}
    for channel in old["channels"].values():
        del channel["gap"]
    summary = Summary.from_dict(old)
    assert summary.verdict is None and summary.calibration_test is None
    page = report_html(summary, {})
    assert 'id="verdict"' not in page and "The calibration test did not run" in page
    assert "What to do: recalibrate" not in page
    assert not summary_html(summary).startswith("<section")
    assert summary.text()[0].startswith("1500 items")
    # a preview written before its draws were counted fitted a map for every draw
    document = {**document, "recalibration": dict(document["recalibration"])}
    del document["recalibration"]["n_draws"]
    page = report_html(Summary.from_dict(document), {})
    assert "(one map per posterior draw of the channels)" in page


@pytest.mark.parametrize(
    ("p", "plain", "named"),
    [
        (0.3834, "0.383", "p = 0.383"),
        (0.05, "0.050", "p = 0.050"),
        (0.00099, "< 0.001", "p < 0.001"),
        (None, "—", "p = —"),
        (float("nan"), "—", "p = —"),
    ],
)
def test_every_output_writes_a_p_value_alike(p, plain, named):
    from bayescal._api import p_value_text

    assert p_value_text(p) == plain and p_value_text(p, named="p") == named


@pytest.mark.parametrize(
    ("probability", "text"), [(0.0, "< 1%"), (0.004, "< 1%"), (0.42, "42%"), (0.999, "> 99%")]
)
def test_a_posterior_chance_is_written_as_a_percentage(probability, text):
    from bayescal._api import within_tolerance_text

    assert within_tolerance_text(probability, 0.01) == f"chance that NC-ECE is at most 0.01: {text}"


def test_a_top_labels_confidence_too_high_is_over_confident_at_any_score():
    edges = np.linspace(0.0, 1.0, 5)
    mean_score = np.array([0.2, 0.4, 0.6, 0.9])
    lower, upper = np.array([0.05, 0.5, 0.3, 0.95]), np.array([0.15, 0.6, 0.5, 0.99])
    # binary scores: too high below 0.5 is under-confident (closer to 0.5 than the truth)
    assert off_diagonal_ranges(edges, mean_score, lower, upper)[0][0] == "under-confident"
    ranges = off_diagonal_ranges(edges, mean_score, lower, upper, confidence=True)
    assert ranges == [
        ("over-confident", 0.0, 0.25),
        ("under-confident", 0.25, 0.5),
        ("over-confident", 0.5, 0.75),
        ("under-confident", 0.75, 1.0),
    ]
    sentence = verdict_sentence(0.001, ranges[:1], confidence=True)
    assert sentence == (
        "miscalibrated (calibration test p = 0.001): over-confident at confidence below 0.25 "
        "(there the predicted class is right less often than its probability says)"
    )
