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
    with pytest.raises(
        ValueError, match=r"score, annotators and gold name the columns of a DataFrame"
    ):
        bc.analyse(simulation.data, gold="gold")
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
