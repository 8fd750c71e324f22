"""The analysis with gold items: one judge and a human-verified subset, in Python and on the
command line (DESIGN §9)."""

import json

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.report.html_report import report_html
from bayescal.report.summary import Summary
from tests.bad_inputs.test_command import main

SETTINGS = bc.SamplerSettings(num_chains=2, num_warmup=400, num_samples=600)


def _judged(seed=3, n_gold=200):
    simulation = bc.simulate.simulate_annotated(
        2000,
        bc.Channels([0.15, 0.1], [0.8, 0.9]),
        calibration=lambda z: 0.1 + 0.8 * np.asarray(z),
        seed=seed,
    ).with_gold(n_gold, seed=seed)
    _, scores = simulation.long_tables()
    table = scores.assign(
        judge=simulation.data.annotations[:, 0],
        second=simulation.data.annotations[:, 1],
    )
    return simulation, table


@pytest.fixture(scope="module")
def analysis():
    simulation, table = _judged()
    return simulation, bc.analyse(
        table, score="score", annotators=["judge"], gold="gold", truth="truth", sampler=SETTINGS
    )


@pytest.mark.slow
def test_one_judge_with_gold_is_analysed_and_says_what_the_gold_did(analysis):
    simulation, result = analysis
    summary = result.summary
    assert (
        "200 gold items" in summary.model.why
        and "identify the channel of judge" in summary.model.why
    )
    gold = summary.ece.gold
    assert gold.n_gold == 200 and gold.estimator == "rectified"
    population = simulation.population_binned_ece(10)
    for estimate in (summary.ece.nc_ece.frequentist, gold.gold_only):
        low, high = estimate.interval
        assert low <= population <= high, (estimate, population)
    judge = gold.judges["judge"]
    assert (
        judge.n_items == 200
        and judge.sensitivity_interval[0] <= 0.8 <= judge.sensitivity_interval[1]
    )
    text = "\n".join(summary.text(checks=False))
    assert "ECE of the gold items alone" in text and "judge against the gold:  sensitivity" in text
    page = report_html(summary, {})
    assert "ECE of the 200 gold items alone" in page and "judge against the gold" in page
    assert "Corrected rates (rectified with 200 gold items" in page
    # the positive rate lies within 1.5 half-widths (about 2.5 standard errors) of 0.5, the
    # population's (one 90% interval of one seed misses one time in ten: this one just does)
    rate = summary.rates.estimates["positive_rate"]
    half = (rate.interval[1] - rate.interval[0]) / 2
    assert abs(rate.value - 0.5) < 1.5 * half
    assert "corrected rates (rectified with 200 gold items" in text
    # the results document keeps every gold number, and reads back
    document = json.loads(result.to_json())
    assert Summary.from_dict(document).ece.gold == gold


#: ``bayescal fit`` of the judge's table, before the options a test adds
FIT = ["fit", "judged.csv", "--score", "score", "--annotators", "judge", "--out", "out"]


def test_the_gold_column_is_refused_by_name(tmp_path, monkeypatch, capsys):
    _, table = _judged()
    table.loc[3, "gold"] = 2
    table.to_csv(tmp_path / "judged.csv", index=False)
    status, _, err = main(tmp_path, monkeypatch, capsys, *FIT, "--gold", "gold")
    assert status != 0 and "column 'gold', row 3" in err and "0, 1 or empty" in err
    status, _, err = main(tmp_path, monkeypatch, capsys, *FIT, "--gold", "human")
    assert status != 0 and "human" in err


def test_one_judge_without_gold_is_told_that_gold_would_identify_it(tmp_path, monkeypatch, capsys):
    _, table = _judged()
    table.to_csv(tmp_path / "judged.csv", index=False)
    status, _, err = main(tmp_path, monkeypatch, capsys, *FIT)
    assert status != 0 and "one annotator cannot identify its channel" in err
    assert "--gold" in err


def test_gold_names_a_column_only_of_a_dataframe():
    simulation, _ = _judged()
    classes = np.array(["a", "b", "c"])  # an array: compared by identity, never by ==
    for option, value in [("gold", "gold"), ("gold_weights", "w"), ("classes", classes)]:
        with pytest.raises(
            ValueError,
            match=rf"^{option}: these read the columns of a DataFrame \(an AnnotatedScores "
            r"carries .*\); saw data of type AnnotatedScores$",
        ):
            bc.analyse(simulation.data, **{option: value})
    frame = pd.DataFrame({"p": [0.1, 0.9], "a": [0, 1]})
    with pytest.raises(ValueError, match=r"column 'a' is named as annotator and as gold"):
        bc.analyse(frame, score="p", annotators=["a"], gold="a")


def test_the_plan_command_prints_the_widths_by_number_of_gold_items(tmp_path, monkeypatch, capsys):
    _, table = _judged()
    table.to_csv(tmp_path / "judged.csv", index=False)
    argv = ["plan", "judged.csv", "--score", "score", "--annotators", "judge", "--gold", "gold"]
    # far apart: an interval clipped at 0 can widen a little before it shrinks (GoldPlan)
    status, out, _ = main(tmp_path, monkeypatch, capsys, *argv, "--sizes", "100,1600")
    assert status == 0 and "from the residuals of the 200 gold items there" in out
    widths = [float(line.split()[1]) for line in out.splitlines()[2:]]
    assert len(widths) == 2 and widths[0] > widths[1] > 0
    status, out, _ = main(tmp_path, monkeypatch, capsys, *argv, "--sizes", "200", "--json")
    assert status == 0 and json.loads(out)["rows"][0]["gold_items"] == 200
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--sizes", "1,2")
    assert status == 2 and "expected numbers of gold items of 2 or more; saw '1,2'" in err


def test_inclusion_probabilities_are_read_from_a_column_on_the_command_line(
    tmp_path, monkeypatch, capsys
):
    """Gold drawn by select_for_gold, its inclusion probabilities a column of the table: the
    plan command reads them (as every command does through --gold-weights), and a missing
    column or a bad probability is named."""
    simulation, table = _judged()  # its random gold column is replaced below
    data = bc.AnnotatedScores(simulation.data.scores, simulation.data.annotations[:, :1])
    selection = bc.select_for_gold(data, bc.Channels([0.15], [0.8]), 150)
    gold = np.full(table.shape[0], np.nan)
    gold[selection.items] = simulation.labels[selection.items]
    table = table.assign(gold=gold, inclusion=selection.inclusion)
    table.to_csv(tmp_path / "judged.csv", index=False)
    argv = ["plan", "judged.csv", "--score", "score", "--annotators", "judge", "--gold", "gold"]
    status, out, err = main(
        tmp_path, monkeypatch, capsys, *argv, "--gold-weights", "inclusion", "--json"
    )
    assert status == 0, err
    assert json.loads(out)["from_gold"]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--gold-weights", "pi")
    assert status != 0 and "pi" in err
    table.loc[selection.items[0], "inclusion"] = 0.0
    table.to_csv(tmp_path / "judged.csv", index=False)
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--gold-weights", "inclusion")
    assert status != 0 and "gold_weights must be each gold item's inclusion probability" in err


def test_the_readers_and_analyse_take_the_weights_column(tmp_path):
    simulation, table = _judged()
    table = table.assign(inclusion=0.1)
    table.to_csv(tmp_path / "judged.csv", index=False)
    read = bc.data.read_wide_table(
        tmp_path / "judged.csv",
        score="score",
        annotators=["judge"],
        gold="gold",
        gold_weights="inclusion",
    )
    gold = read.data.gold >= 0
    np.testing.assert_array_equal(read.data.gold_weights[gold], 0.1)
    labels, scores = simulation.long_tables()
    labels.to_csv(tmp_path / "labels.csv", index=False)
    scores.assign(inclusion=0.1).to_csv(tmp_path / "scores.csv", index=False)
    long = bc.data.read_long_tables(
        tmp_path / "labels.csv",
        tmp_path / "scores.csv",
        score="score",
        gold="gold",
        gold_weights="inclusion",
    )
    np.testing.assert_array_equal(long.data.gold_weights[long.data.gold >= 0], 0.1)
    with pytest.raises(ValueError, match=r"column 'gold' is named as gold and as gold_weights"):
        bc.analyse(table, score="score", annotators=["judge"], gold="gold", gold_weights="gold")
