"""Rule 3 of the second bad-input catalogue (``BAD_INPUTS_2.md``, row 5): the calibration test
on scores of exactly 0 or 1.  With channels drawn under H0 (a BayesFit of these items) such an
item's class is fixed by H0, so the drawn channels take up any miscalibration there: the test
leaves those items out, says so, and refuses data scoring only 0 or 1, naming the EM fit's
refitting bootstrap, which sees them."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.report.verdict import verdict_sentence
from tests.helpers import fake_fit

pytestmark = pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")


def _hard(sim, rng, hidden_positives=0.3):
    """``sim``'s items scored by their class (a hard classifier), with ``hidden_positives`` of
    the positives scored 0: P(Y = 1 | Z = 0) is then about 0.2 where calibration says 0."""
    labels = sim.labels.astype(float)
    hidden = (labels == 1) & (rng.random(labels.size) < hidden_positives)
    return np.where(hidden, 0.0, labels)


def _posterior_about(channels, seed=0):
    """A fake fit whose 20 draws sit within 0.01 of ``channels``."""
    rng = np.random.default_rng(seed)
    a = channels.a + rng.normal(0, 0.01, (20, channels.a.size))
    b = channels.b + rng.normal(0, 0.01, (20, channels.b.size))
    return a, b


def test_row5_a_hard_classifier_is_refused_by_the_bayes_test_and_seen_by_the_others():
    sim = bc.toy_data(1000, condition="calibrated", seed=3)
    scores = _hard(sim, np.random.default_rng(3))
    data = bc.AnnotatedScores(scores, sim.data.annotations)
    truth_at_zero = sim.labels[scores == 0].mean()
    assert truth_at_zero > 0.15  # the miscalibration the catalogue's p = 0.64 missed
    fit = fake_fit(data, *_posterior_about(sim.channels), np.full(20, 0.4))
    with pytest.raises(
        ValueError,
        match=r"data: 0 items .*; 1000 more score exactly 0 or 1, with channels drawn under H0 "
        r".*cannot see it: test with an EM fit, calibration_test\(data, dawid_skene_em\(data\)\)",
    ):
        bc.calibration_test(data, fit, seed=0)
    # known channels and the refitting bootstrap of an EM fit both see it
    assert bc.calibration_test(data, sim.channels).p_value < 1e-6
    em = bc.calibration_test(data, bc.dawid_skene_em(data), n_replicates=39, seed=0)
    assert em.p_value <= 0.05 and em.n_extremes == 0


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_row5_the_analysis_tests_a_hard_classifier_by_the_em_bootstrap():
    """``bayescal fit`` on the catalogue's hard classifier said "no evidence (p = 0.64)"."""
    sim = bc.toy_data(1000, condition="calibrated", seed=3)
    names = list(sim.data.annotator_names)
    frame = pd.DataFrame(sim.data.annotations, columns=names)
    frame["score"] = _hard(sim, np.random.default_rng(3))
    analysis = bc.analyse(
        frame,
        score="score",
        annotators=names,
        sampler=bc.SamplerSettings(num_chains=2, num_warmup=300, num_samples=300),
    )
    test, verdict = analysis.summary.calibration_test, analysis.summary.verdict
    assert "refitting parametric bootstrap" in test.method and test.n_extremes == 0
    assert verdict.sentence.startswith("miscalibrated (calibration test p ")
    assert test.p_value == verdict.p_value <= 0.05


@pytest.mark.parametrize("calibrated", [True, False])
def test_row5_hard_scores_beside_soft_ones_are_left_out_said_and_the_rest_tested(calibrated):
    """400 hard scores (by class, so calibrated there) beside 600 soft ones, calibrated or
    shifted: the 400 are left out in one warning, and the 600 decide."""
    condition = "calibrated" if calibrated else "shifted"
    sim = bc.toy_data(1000, condition=condition, seed=4)
    scores = sim.data.scores.copy()
    scores[:400] = sim.labels[:400]
    data = bc.AnnotatedScores(scores, sim.data.annotations)
    fit = fake_fit(data, *_posterior_about(sim.channels), np.full(20, 0.4))
    with pytest.warns(bc.BinningWarning) as record:
        result = bc.calibration_test(data, fit, seed=0)
    said = [str(w.message) for w in record]
    assert said == [
        "calibration_test: 400 of 1000 items score exactly 0 or 1 and are left out of the "
        "test: with channels drawn under H0 (a BayesFit of these items) their class is taken "
        "as known, so the channels would take up any miscalibration there and the test cannot "
        "see it; an EM fit's refitting bootstrap, calibration_test(data, dawid_skene_em(data)), "
        "tests them"
    ]
    assert (result.n_extremes, result.n_tested) == (400, 600)
    assert "400 items scoring exactly 0 or 1 not tested" in result.method
    if calibrated:
        assert result.p_value > 0.05
    else:
        assert result.p_value < 1e-3
    # known channels and an EM fit test every item
    assert bc.calibration_test(data, sim.channels).n_extremes == 0


def test_a_few_rounded_scores_of_0_or_1_stay_in_their_bins_unsaid():
    """Fewer than a bin's worth (min_bin_items, 30): they cannot be tested as a bin, and their
    miscalibration moves the ECE by at most their share (29 of 1 000 here)."""
    sim = bc.toy_data(1000, condition="calibrated", seed=4)
    scores = sim.data.scores.copy()
    scores[:29] = sim.labels[:29]
    data = bc.AnnotatedScores(scores, sim.data.annotations)
    fit = fake_fit(data, *_posterior_about(sim.channels), np.full(20, 0.4))
    result = bc.calibration_test(data, fit, seed=0)  # no warning (warnings are errors here)
    assert (result.n_extremes, result.n_tested) == (0, 1000)


def test_row5_the_verdict_narrows_no_evidence_to_the_scores_tested():
    assert verdict_sentence(0.41, [], n_extremes=400) == (
        "no evidence of miscalibration at scores strictly between 0 and 1 (calibration test "
        "p = 0.410); the 400 scores of exactly 0 or 1 were not tested (see the warnings)"
    )
    assert (
        verdict_sentence(0.41, []) == "no evidence of miscalibration (calibration test p = 0.410)"
    )
    # a rejection needs no such caveat: the items tested already show it
    assert verdict_sentence(0.001, [], n_extremes=400).startswith("miscalibrated (")
