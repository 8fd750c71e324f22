"""The `bayescal` command."""

import re
import subprocess
import sys

import pytest

from bayescal import cli


def _figures(text):
    return {label.strip(): float(value) for label, value in re.findall(r"^  (.+?)\s+(\d\.\d{4})$", text, re.M)}


def test_demo_prints_the_ece_figures_and_the_population_value(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    figures = _figures(out)
    assert len(figures) == 6  # the posterior row ends with its interval, checked below
    assert "condition 'shifted', n = 8000" in out
    oracle = figures["clean labels  (oracle: only a simulator knows Y)"]
    nc = figures["NC-ECE  (true channels, inverse-variance weights)"]
    soft = figures["soft vote  (naive: mean of the noisy labels)"]
    # The point of the demo: the corrected figure tracks the oracle, the naive one does not.
    assert abs(nc - oracle) < abs(soft - oracle)
    estimated = figures["NC-ECE  (channels estimated by grouped EM)"]
    assert abs(estimated - oracle) < abs(soft - oracle)
    assert "EM: grouped EM on 5 equal-width score groups" in out
    posterior = re.search(r"posterior median, 90% credible interval\)\s+(\d\.\d{4})  \[(\d\.\d{4}), (\d\.\d{4})\]", out)
    median, low, high = (float(x) for x in posterior.groups())
    assert low <= median <= high and low <= oracle <= high
    # Model checks: the three-annotator Dawid–Skene model is saturated, and the demo says so.
    assert "Model checks of the Bayesian Dawid–Skene fit (posterior predictive, 95% intervals):" in out
    assert "  Model: saturated: 7 parameters for 7 free cells" in out
    assert "conditional independence cannot be tested here" in out
    # Recalibration section: Platt fitted on one half, scored on the other.
    assert "Recalibration by Platt scaling, fitted on items 0-3999 and evaluated on items 4000-7999" in out
    rows = {
        name: (float(em), float(oracle_ece), float(med), float(lo), float(hi))
        for name, em, oracle_ece, med, lo, hi in re.findall(
            r"^  (base|naive|corrected)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d\.\d{4}) \[(\d\.\d{4}), (\d\.\d{4})\]$", out, re.M
        )
    }
    assert set(rows) == {"base", "naive", "corrected"}
    for em, oracle_ece, med, lo, hi in rows.values():
        assert lo <= med <= hi
    # Shifted toy: corrected fitting beats naive fitting and the original scores, by the oracle,
    # by NC-ECE with EM channels and by the posterior median.
    for column in (0, 1, 2):
        assert rows["corrected"][column] < rows["naive"][column] < rows["base"][column]


def test_demo_options(capsys):
    assert cli.main(["demo", "--condition", "calibrated", "--n", "500", "--seed", "3", "--n-bins", "auto", "--no-bayes"]) == 0
    out = capsys.readouterr().out
    assert "condition 'calibrated', n = 500, seed = 3" in out
    assert "round(n^(1/3)) equal-width bins" in out
    assert re.search(r"^  corrected\s+\d\.\d{4}\s+\d\.\d{4}  not available$", out, re.M)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--n", "0"], "expected a positive integer; saw 0"),
        (["demo", "--n", "many"], "expected a positive integer; saw 'many'"),
        (["demo", "--seed", "-2"], "expected a non-negative integer; saw -2"),
        (["demo", "--n-bins", "0"], "expected a positive integer or 'auto'; saw 0"),
        (["demo", "--condition", "odd"], "invalid choice: 'odd'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_bad_arguments_exit_with_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_help_shows_an_example():
    result = subprocess.run([sys.executable, "-m", "bayescal.cli", "demo", "--help"], capture_output=True, text=True, check=True)
    assert "example: bayescal demo" in result.stdout


def test_demo_with_too_few_items_reports_the_failed_fit_instead_of_crashing(capsys):
    assert cli.main(["demo", "--n", "2", "--no-bayes"]) == 0
    out = capsys.readouterr().out
    assert "NC-ECE  (channels estimated by grouped EM)         not available (" in out
    assert "not available (skipped (--no-bayes))" in out
    assert "  not available (too few items to split)" in out
    assert len(_figures(out)) == 5


@pytest.fixture(scope="module")
def judged_table(tmp_path_factory):
    import bayescal as bc
    import pandas as pd

    folder = tmp_path_factory.mktemp("fit")
    sim = bc.toy_data(1500, seed=4)
    labels = sim.data.annotations.astype(float)
    labels[::7, 1] = float("nan")
    pd.DataFrame({"p": sim.data.scores, "ann": labels[:, 0], "bob": labels[:, 1], "cy": labels[:, 2], "y": sim.labels}).to_csv(folder / "judged.csv", index=False)
    return folder


@pytest.mark.filterwarnings("ignore::bayescal.channels.SaturatedModelWarning")
def test_fit_writes_a_strict_summary_and_the_posterior(judged_table, capsys):
    import json

    import bayescal as bc

    out = judged_table / "results"
    assert cli.main(["fit", str(judged_table / "judged.csv"), "--score", "p", "--annotators", "ann,bob,cy", "--truth", "y", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "model dawid_skene (auto: 3 annotators identify the marginal Dawid–Skene model)" in text

    def no_constants(name):
        raise AssertionError(f"summary.json holds {name}")

    summary = json.loads((out / "summary.json").read_text(), parse_constant=no_constants)
    ece = summary["ece"]
    assert set(ece) == {"n_bins", "naive", "nc_ece", "oracle"}
    low, high = ece["nc_ece"]["posterior"]["interval"]
    assert low <= ece["nc_ece"]["posterior"]["median"] <= high and ece["nc_ece"]["posterior"]["level"] == 0.9
    assert abs(ece["nc_ece"]["frequentist"]["value"] - ece["oracle"]["value"]) < abs(ece["naive"]["soft_vote"] - ece["oracle"]["value"])
    assert summary["data"]["n_items"] == 1500 and summary["input"]["annotators"] == ["ann", "bob", "cy"]
    assert summary["channels"]["bob"]["b"]["interval"][0] < summary["channels"]["bob"]["b"]["posterior_mean"]
    assert bc.BayesFit.load(out / "posterior.nc").annotator_names == ("ann", "bob", "cy")
    # bob's missing labels add a cell of two-annotator patterns: 10 free cells for 7 parameters.
    assert summary["checks"]["verdicts"][0] == "Model: 3 degrees of freedom (10 free cells, 7 parameters)."
    # The directory exists now: refused without --force (before any fitting), accepted with it.
    argv = ["fit", str(judged_table / "judged.csv"), "--score", "p", "--annotators", "ann,bob,cy", "--out", str(out), "--quiet"]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == f"bayescal: error: {out} already exists; choose another directory or pass --force to overwrite its files"
    assert cli.main(argv + ["--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ece"]["oracle"] == {"value": None, "reason": "no truth column given"}


def test_fit_with_two_annotators_uses_score_groups_and_says_so(judged_table, capsys):
    out = judged_table / "two"
    assert cli.main(["fit", str(judged_table / "judged.csv"), "--score", "p", "--annotators", "ann,cy", "--out", str(out), "--quiet"]) == 0
    assert "two annotators need score groups (Hui–Walter); 5 equal-width groups were formed" in capsys.readouterr().out


@pytest.mark.filterwarnings("default::bayescal.channels.SaturatedModelWarning")
def test_fit_prints_warnings_as_one_line_each(judged_table, capsys):
    out = judged_table / "warned"
    assert cli.main(["fit", str(judged_table / "judged.csv"), "--score", "p", "--annotators", "ann,bob,cy", "--out", str(out), "--quiet"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert "bayescal: warning: dawid_skene_em: the model is saturated" in lines[0] and lines[0].endswith("(SaturatedModelWarning)")
    assert all(line.startswith("bayescal: warning: ") for line in lines)


def test_fit_reports_a_bad_table_in_one_line_and_exits_2(judged_table, capsys):
    argv = ["fit", str(judged_table / "judged.csv"), "--score", "p", "--annotators", "ann,zed", "--out", str(judged_table / "never")]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no column 'zed'" in err and "Traceback" not in err
    assert not (judged_table / "never").exists()
    with pytest.raises(ValueError, match="no column 'zed'"):
        cli.main(argv + ["--debug"])
