"""The `bayescal` command."""

import html
import json
import pathlib
import re
import shlex
import subprocess
import sys
import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.app import cli


def _figures(text):
    return {
        label.strip(): float(value)
        for label, value in re.findall(r"^  (\S.+?)\s+(\d\.\d{4})$", text, re.M)
    }


def test_demo_prints_the_ece_figures_and_the_population_value(capsys, tmp_path):
    assert cli.main(["demo", "--out", str(tmp_path / "demo")]) == 0
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
    posterior = re.search(
        r"posterior median, 90% credible interval\)\s+(\d\.\d{4})  \[(\d\.\d{4}), (\d\.\d{4})\]",
        out,
    )
    median, low, high = (float(x) for x in posterior.groups())
    assert low <= median <= high and low <= oracle <= high
    # Model checks: the three-annotator Dawid–Skene model is saturated, and the demo says so.
    assert (
        "Model checks of the Bayesian Dawid–Skene fit (posterior predictive, 90% intervals):" in out
    )
    assert "  Model: saturated: 7 parameters for 7 free cells" in out
    assert "conditional independence cannot be tested here" in out
    # Recalibration section: Platt fitted on one half, scored on the other.
    assert (
        "Recalibration by Platt scaling, fitted on items 0-3999 and evaluated on items 4000-7999"
        in out
    )
    rows = {
        name: (float(em), float(oracle_ece), float(med), float(lo), float(hi))
        for name, em, oracle_ece, med, lo, hi in re.findall(
            r"^  (base|naive|corrected)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+(\d\.\d{4}) \[(\d\.\d{4}), (\d\.\d{4})\]$",
            out,
            re.M,
        )
    }
    assert set(rows) == {"base", "naive", "corrected"}
    for _em, _oracle_ece, med, lo, hi in rows.values():
        assert lo <= med <= hi
    # Shifted toy: corrected fitting beats naive fitting and the original scores, by the oracle,
    # by NC-ECE with EM channels and by the posterior median.
    for column in (0, 1, 2):
        assert rows["corrected"][column] < rows["naive"][column] < rows["base"][column]
    # Last, the simulated table goes through bayescal fit, and the demo ends with the report's path.
    assert (
        f"The same table through bayescal fit {tmp_path / 'demo' / 'toy.csv'} --score score --annotators a0,a1,a2 --truth truth"
        in out
    )
    report = tmp_path / "demo" / "fit" / "report.html"
    assert out.rstrip().splitlines()[-1] == f"Report: {report}" and report.is_file()
    summary = json.loads((tmp_path / "demo" / "fit" / "summary.json").read_text())
    assert f"  oracle ECE (truth column)     {summary['ece']['oracle']['value']:.4f}" in out
    assert (
        round(summary["ece"]["oracle"]["value"], 4)
        == figures["clean labels  (oracle: only a simulator knows Y)"]
    )


def test_demo_options(capsys):
    assert (
        cli.main(
            [
                "demo",
                "--condition",
                "calibrated",
                "--n",
                "500",
                "--seed",
                "3",
                "--n-bins",
                "auto",
                "--no-bayes",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "condition 'calibrated', n = 500, seed = 3" in out
    assert "round(n^(1/3)) equal-width bins" in out
    assert re.search(r"^  corrected\s+\d\.\d{4}\s+\d\.\d{4}  not available$", out, re.M)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--n", "1"], "expected an integer >= 2; saw 1"),
        (["demo", "--n", "many"], "expected an integer >= 2; saw 'many'"),
        (["demo", "--seed", "-2"], "expected a non-negative integer; saw -2"),
        (["demo", "--n-bins", "0"], "expected a positive integer or 'auto'; saw 0"),
        (["demo", "--condition", "odd"], "invalid choice: 'odd'"),
        (
            ["fit", "t.csv", "--target-accept", "1"],
            "expected a number strictly between 0 and 1; saw 1.0",
        ),
        (["fit", "t.csv", "--target-accept", "high"], "strictly between 0 and 1; saw 'high'"),
        (["fit", "t.csv", "--extensions", "-1"], "expected a non-negative integer; saw -1"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_bad_arguments_exit_with_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_the_sampler_options_reach_the_settings_and_unnamed_ones_stay_the_models():
    from bayescal.app.commands import _sampler_settings

    parser = cli.build_parser()
    required = ["fit", "t.csv", "--score", "s", "--out", "o"]
    named = ["--samples", "300", "--extensions", "1", "--target-accept", "0.95"]
    args = parser.parse_args([*required, *named])
    assert _sampler_settings(args) == bc.SamplerSettings(
        num_samples=300, extensions=1, target_accept=0.95, progress=False
    )
    settings = _sampler_settings(parser.parse_args([*required, "--quiet"]))
    assert (settings.num_samples, settings.extensions, settings.target_accept) == (None,) * 3
    assert _sampler_settings(parser.parse_args([*required, "--extensions", "0"])).extensions == 0


def test_demo_with_too_few_items_reports_the_failed_fit_instead_of_crashing(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("always", bc.BinningWarning)  # shown, as a user sees it
        assert cli.main(["demo", "--n", "2", "--no-bayes"]) == 0
    out, err = capsys.readouterr()
    # the demo's warnings are one line, as every command's
    assert "bayescal: warning: n_bins = 10 exceeds the 2 item" in err
    assert "(BinningWarning)" in err and "warnings.warn" not in err
    assert "NC-ECE  (channels estimated by grouped EM)         not available (" in out
    assert "not available (skipped (--no-bayes))" in out
    assert "  not available (too few items to split)" in out
    assert len(_figures(out)) == 5


#: The score and annotator columns of the judged_table fixture.
JUDGED = ["--score", "p", "--annotators", "ann,bob,cy"]
#: Short NUTS runs: the command's plumbing is under test here, not the sampler.
QUICK = ["--chains", "2", "--warmup", "400", "--samples", "500", "--quiet"]


def run(*argv, cwd=None):
    """The installed console script in a subprocess, as a user runs it."""
    script = pathlib.Path(sys.executable).with_name("bayescal")
    return subprocess.run(
        [str(script), *map(str, argv)], capture_output=True, text=True, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def judged_table(tmp_path_factory):
    import pandas as pd

    import bayescal as bc

    folder = tmp_path_factory.mktemp("fit")
    sim = bc.toy_data(1500, seed=4)
    labels = sim.data.annotations.astype(float)
    labels[::7, 1] = float("nan")
    pd.DataFrame(
        {
            "p": sim.data.scores,
            "ann": labels[:, 0],
            "bob": labels[:, 1],
            "cy": labels[:, 2],
            "y": sim.labels,
        }
    ).to_csv(folder / "judged.csv", index=False)
    return folder


def no_constants(name):
    raise AssertionError(f"summary.json holds {name}")


def test_fit_report_and_refusal_in_a_subprocess(judged_table):
    import bayescal as bc

    table = judged_table / "judged.csv"
    before = (table.read_bytes(), table.stat().st_mtime_ns)
    out = judged_table / "results"
    result = run(
        "fit",
        table,
        *JUDGED,
        "--truth",
        "y",
        "--out",
        out,
        "--json",
        *QUICK,
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout, parse_constant=no_constants)
    summary = json.loads((out / "summary.json").read_text(), parse_constant=no_constants)
    assert printed == summary
    # issue 18: the verdict, with the calibration test it rests on and the NC-ECE it quotes
    verdict, test = summary["verdict"], summary["calibration_test"]
    assert verdict["p_value"] == test["p_value"] and 0 <= test["p_value"] <= 1
    assert verdict["nc_ece"] == summary["ece"]["nc_ece"]["posterior"]
    assert verdict["naive"] == summary["ece"]["naive"] and verdict["tolerance"] == 0.01
    assert verdict["sentence"].startswith(("miscalibrated", "no evidence of miscalibration"))
    assert test["df"] == len(test["residual"]) and "posterior under H0" in test["method"]
    ece = summary["ece"]
    assert set(ece) == {"n_bins", "naive", "nc_ece", "oracle"}
    low, high = ece["nc_ece"]["posterior"]["interval"]
    assert (
        low <= ece["nc_ece"]["posterior"]["median"] <= high
        and ece["nc_ece"]["posterior"]["level"] == 0.9
    )
    assert abs(ece["nc_ece"]["frequentist"]["value"] - ece["oracle"]["value"]) < abs(
        ece["naive"]["soft_vote"] - ece["oracle"]["value"]
    )
    assert summary["data"]["n_items"] == 1500 and summary["input"]["annotators"] == [
        "ann",
        "bob",
        "cy",
    ]
    assert (
        summary["model"]["name"] == "dawid_skene"
        and summary["model"]["chains"] == 2
        and summary["model"]["draws_per_chain"] == 500
    )
    assert (
        summary["channels"]["bob"]["b"]["interval"][0]
        < summary["channels"]["bob"]["b"]["posterior_mean"]
    )
    assert bc.BayesFit.load(out / "posterior.nc").annotator_names == ("ann", "bob", "cy")
    # bob's missing labels add a cell of two-annotator patterns: 10 free cells for 7 parameters.
    assert (
        summary["checks"]["verdicts"][0]
        == "Model: 3 degrees of freedom (10 free cells, 7 parameters)."
    )
    assert summary["identification"]["status"] == "identified"
    assert sorted(p.name for p in (out / "figures").iterdir()) == [
        "agreement.png",
        "channels.png",
        "patterns.png",
        "reliability.png",
    ]
    report = (out / "report.html").read_text()
    assert f'id="nc-ece-posterior-median">{ece["nc_ece"]["posterior"]["median"]:.4f}<' in report
    # the report's recalibration command runs as written and writes the map
    command = html.unescape(re.search(r'<pre id="recalibrate-command">([^<]*)<', report).group(1))
    words = shlex.split(command)
    assert words[:2] == ["bayescal", "recalibrate"] and "--method" in words
    (judged_table / "from-report").mkdir()
    recalibrated = run(*words[1:], "--quiet", cwd=judged_table / "from-report")
    assert recalibrated.returncode == 0, recalibrated.stderr
    assert (judged_table / "from-report" / "recalibrated" / "map.json").is_file()
    assert (table.read_bytes(), table.stat().st_mtime_ns) == before  # the input is only read
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temporary file left

    # The directory exists now: refused without --force, before any fitting.
    refused = run("fit", table, *JUDGED, "--out", out, *QUICK)
    assert refused.returncode == 2 and refused.stdout == ""
    assert (
        refused.stderr
        == f"bayescal: error: {out} already exists; choose another directory or pass --force to replace it\n"
    )

    # A file in the way of --out is refused before any fitting, with --force as well.
    in_the_way = out.parent / "a-file"
    in_the_way.write_text("keep me")
    refused = run("fit", table, *JUDGED, "--out", in_the_way, "--force", *QUICK)
    assert refused.returncode == 2 and refused.stderr == (
        f"bayescal: error: {in_the_way} exists and is not a directory\n"
    )
    assert in_the_way.read_text() == "keep me"

    # Re-rendering reads the saved results only: a summary edited by hand shows up in the report.
    summary["ece"]["naive"]["soft_vote"] = 0.98765
    (out / "summary.json").write_text(json.dumps(summary))
    (out / "report.html").unlink()
    rendered = run("report", out)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout.strip() == f"Wrote {out / 'report.html'}"
    assert 'id="naive-soft-vote">0.9877<' in (out / "report.html").read_text()
    missing = run("report", judged_table / "nowhere")
    assert (
        missing.returncode == 2
        and missing.stderr.count("\n") == 1
        and "summary.json: no such file" in missing.stderr
    )


def test_fit_long_format_with_two_annotators_in_a_subprocess(judged_table):
    import pandas as pd

    wide = pd.read_csv(judged_table / "judged.csv").rename_axis("item").reset_index()
    wide[["item", "p"]].to_parquet(judged_table / "scores.parquet")
    long = wide.melt(id_vars="item", value_vars=["ann", "cy"], var_name="rater", value_name="vote")
    long.to_parquet(judged_table / "labels.parquet")
    out = judged_table / "long"
    result = run(
        "fit",
        judged_table / "labels.parquet",
        "--long",
        "--scores",
        judged_table / "scores.parquet",
        "--score",
        "p",
        "--annotator",
        "rater",
        "--label",
        "vote",
        "--groups",
        "3",
        "--out",
        out,
        *QUICK,
    )
    assert result.returncode == 0, result.stderr
    assert "model hui_walter (auto: two annotators need score groups (Hui–Walter))" in result.stdout
    assert result.stdout.strip().endswith(f"and the report {out / 'report.html'}")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["data"]["annotators"] == ["ann", "cy"] and sorted(summary["data"]["groups"]) == [
        "0",
        "1",
        "2",
    ]
    assert summary["input"]["long"] is True


@pytest.mark.filterwarnings("default::bayescal.exceptions.SaturatedModelWarning")
@pytest.mark.filterwarnings(
    "default::bayescal.exceptions.SamplingWarning"
)  # short runs may warn too
def test_fit_prints_warnings_as_one_line_each(judged_table, capsys):
    import pandas as pd

    # every item labelled by all three: the model is saturated (with bob's gaps it is not:
    # their tables are checkable), which is said in one line
    complete = pd.read_csv(judged_table / "judged.csv").dropna()
    complete.to_csv(judged_table / "complete.csv", index=False)
    out = judged_table / "warned"
    assert (
        cli.main(
            [
                "fit",
                str(judged_table / "complete.csv"),
                *JUDGED,
                "--out",
                str(out),
                *QUICK,
            ]
        )
        == 0
    )
    lines = capsys.readouterr().err.splitlines()
    assert "bayescal: warning: dawid_skene_em: the model is saturated" in lines[0] and lines[
        0
    ].endswith("(SaturatedModelWarning)")
    assert all(line.startswith("bayescal: warning: ") for line in lines)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_recalibrate_writes_the_map_and_the_table_with_one_added_column(judged_table, suffix):
    import pandas as pd

    from bayescal.recalibration import map_from_dict

    source = pd.read_csv(judged_table / "judged.csv")
    table = judged_table / f"recal{suffix}"
    source.to_csv(table, index=False) if suffix == ".csv" else source.to_parquet(table, index=False)
    out = judged_table / f"recal-out{suffix}"
    result = run(
        "recalibrate",
        table,
        *JUDGED,
        "--method",
        "platt",
        "--truth",
        "y",
        "--out",
        out,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads((out / "map.json").read_text())
    assert (
        document["map"]["method"] == "platt"
        and document["channels"]["estimator"] == "dawid_skene_em"
    )
    written = (
        pd.read_csv(out / "recalibrated.csv")
        if suffix == ".csv"
        else pd.read_parquet(out / "recalibrated.parquet")
    )
    assert list(written.columns) == [*list(source.columns), "p_recalibrated"]
    pd.testing.assert_frame_equal(written[source.columns], source)
    np.testing.assert_allclose(
        written["p_recalibrated"],
        map_from_dict(document["map"]).predict(source["p"].to_numpy()),
        rtol=1e-12,
    )
    # The toy predictor is shifted: the corrected map moves the scores towards the truth,
    # which --truth reports (its help promises the oracle ECE) and never uses for fitting.
    before = bc.expected_calibration_error(source["y"], source["p"], n_bins=10)
    after = bc.expected_calibration_error(source["y"], written["p_recalibrated"], n_bins=10)
    assert after < before / 2
    assert document["oracle_ece"] == {"before": before, "after": after, "n_bins": 10}
    assert (
        f"oracle ECE (truth column, 10 bins): {before:.4f} before, {after:.4f} after (in sample: "
        "the map was fitted to these items' labels)\n" in result.stdout
    )
    # issue 37, item 8: before and after on the half the check's map was not fitted to
    held_out = document["held_out"]
    assert held_out["n_fit"] + held_out["n_held_out"] == len(source)
    assert held_out["after"] < held_out["before"] and held_out["level"] == 0.9
    low, high = held_out["before_interval"]
    assert (
        f"held out: a map fitted on {held_out['n_fit']} items, scored on the other "
        f"{held_out['n_held_out']}: NC-ECE {held_out['before']:.4f} [{low:.4f}, {high:.4f}] before"
        in result.stdout
    )


def test_recalibrate_histogram_on_long_tables(judged_table):
    import pandas as pd

    wide = pd.read_csv(judged_table / "judged.csv").rename_axis("item").reset_index()
    wide[["item", "p"]].to_csv(judged_table / "scores.csv", index=False)
    wide.melt(
        id_vars="item", value_vars=["ann", "bob", "cy"], var_name="annotator", value_name="label"
    ).to_csv(judged_table / "labels.csv", index=False)
    out = judged_table / "recal-long"
    result = run(
        "recalibrate",
        judged_table / "labels.csv",
        "--long",
        "--scores",
        judged_table / "scores.csv",
        "--score",
        "p",
        "--method",
        "histogram",
        "--out",
        out,
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["map"]["method"] == "histogram"
    written = pd.read_csv(out / "recalibrated.csv")
    assert (
        list(written.columns) == ["item", "p", "p_recalibrated"]
        and len(np.unique(written["p_recalibrated"])) <= 10
    )


def test_sensitivity_prints_and_writes_the_table(judged_table):
    import pandas as pd

    import bayescal as bc

    priors = judged_table / "priors.json"
    priors.write_text(
        json.dumps({"flat": {}, "sharp": {"sensitivity": [40, 4], "false_positive": [4, 40]}})
    )
    out = judged_table / "sensitivity"
    result = run(
        "sensitivity",
        judged_table / "judged.csv",
        *JUDGED,
        "--priors",
        priors,
        "--truth",
        "y",
        "--out",
        out,
        *QUICK,
    )
    assert result.returncode == 0, result.stderr
    assert "reference prior 'flat'" in result.stdout and "nc_ece" in result.stdout
    assert "shift = (mean - reference mean) / reference sd" in result.stdout
    source = pd.read_csv(judged_table / "judged.csv")
    oracle = bc.expected_calibration_error(source["y"], source["p"], n_bins=10)
    assert result.stdout.endswith(f"\noracle ECE (truth column): {oracle:.4f}\n")
    document = json.loads((out / "sensitivity.json").read_text())
    assert document["oracle_ece"] == oracle
    assert document["conclusion"].startswith("Against the reference prior 'flat', NC-ECE moved")
    assert f"\n{document['conclusion']}\n" in result.stdout
    rows = document["rows"]
    assert {row["prior"] for row in rows} == {"flat", "sharp"} and len(rows) == 2 * 8
    assert all(row["shift"] == 0 for row in rows if row["prior"] == "flat")
    assert any(abs(row["shift"]) > 0.1 for row in rows if row["prior"] == "sharp")
    assert (
        (out / "sensitivity.csv")
        .read_text()
        .startswith("prior,quantity,mean,sd,lower,upper,shift,interval_overlap")
    )


def _bad_tables(folder):
    """Every bad-table case of the issue: (files to write, arguments, message)."""
    import pandas as pd

    good = pd.DataFrame(
        {
            "item": ["i1", "i2", "i3"],
            "p": [0.2, 0.5, 0.9],
            "ann": [0, 1, 1],
            "bob": [1.0, None, 0.0],
        }
    )
    long = pd.DataFrame(
        {"item": ["i1", "i2", "i2"], "annotator": ["ann", "ann", "bob"], "label": [0, 1, 1]}
    )
    wide = ["--score", "p", "--annotators", "ann,bob"]
    return {
        "missing column": (
            good.drop(columns="bob"),
            None,
            wide,
            "bad.csv: no column 'bob' (columns: item, p, ann)",
        ),
        "non-numeric score": (
            good.assign(p=["0.2", "high", "0.9"]),
            None,
            wide,
            "bad.csv: column 'p', row 1: expected a number; saw 'high'",
        ),
        "label other than 0/1/empty": (
            good.assign(ann=[0, 1, 7]),
            None,
            wide,
            "bad.csv: column 'ann', row 2: expected 0, 1 or empty; saw 7",
        ),
        "empty annotator column": (
            good.assign(bob=None),
            None,
            wide,
            "bad.csv: column 'bob': the annotator gave no label at all; drop it",
        ),
        "duplicated item id (long)": (
            long,
            good[["item", "p"]].assign(item=["i1", "i2", "i1"]),
            ["--score", "p", "--long"],
            "scores.csv: row 2: duplicated item id (item 'i1' appears on an earlier row)",
        ),
        "duplicated response (long)": (
            pd.concat([long, long.iloc[[1]]]),
            good[["item", "p"]],
            ["--score", "p", "--long"],
            "bad.csv: row 3: duplicated (item, annotator) pair (item 'i2', annotator 'ann' appears on an earlier row)",
        ),
        "empty annotator (long)": (
            long.assign(label=[0, 1, None]),
            good[["item", "p"]],
            ["--score", "p", "--long"],
            "bad.csv: column 'label', row 2: annotator 'bob' gave no label at all (every label is empty); drop the annotator",
        ),
    }


@pytest.mark.parametrize("case", list(_bad_tables(pathlib.Path("."))))
@pytest.mark.parametrize("command", ["fit", "recalibrate"])
def test_bad_tables_exit_2_with_one_line_naming_column_and_row(tmp_path, case, command):
    frame, scores, arguments, message = _bad_tables(tmp_path)[case]
    frame.to_csv(tmp_path / "bad.csv", index=False)
    if scores is not None:
        scores.to_csv(tmp_path / "scores.csv", index=False)
        arguments = [*arguments, "--scores", tmp_path / "scores.csv"]
    result = run(command, tmp_path / "bad.csv", *arguments, "--out", tmp_path / "out")
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr.count("\n") == 1
        and result.stderr.startswith("bayescal: error: ")
        and "Traceback" not in result.stderr
    )
    assert message in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (
            ["--score", "p"],
            "--annotators is required for a wide table (or pass --long with --scores)",
        ),
        (["--score", "p", "--long"], "--long needs --scores, the table of item scores"),
        (
            ["--score", "p", "--annotators", "ann", "--prior", "absent.json"],
            "absent.json: no such file",
        ),
    ],
)
def test_bad_arguments_of_fit_exit_2(tmp_path, arguments, message):
    pd_frame = {"p": [0.5], "ann": [1]}
    import pandas as pd

    pd.DataFrame(pd_frame).to_csv(tmp_path / "t.csv", index=False)
    result = run("fit", tmp_path / "t.csv", *arguments, "--out", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == f"bayescal: error: {message}\n"


def test_debug_shows_the_traceback(tmp_path):
    (tmp_path / "t.csv").write_text("p,ann\n0.5,1\n")
    result = run(
        "fit",
        tmp_path / "t.csv",
        "--score",
        "p",
        "--annotators",
        "zed",
        "--out",
        tmp_path / "out",
        "--debug",
    )
    assert result.returncode == 1 and "Traceback" in result.stderr and "TableError" in result.stderr


@pytest.mark.parametrize("command", ["fit", "report", "recalibrate", "sensitivity", "demo"])
def test_every_command_has_help_with_an_example(command):
    result = run(command, "--help")
    assert result.returncode == 0 and f"example: bayescal {command}" in result.stdout


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_on_a_terminal_unless_quiet(judged_table, quiet):
    import fcntl
    import os
    import pty
    import struct
    import termios

    parent, child = pty.openpty()  # standard error is a terminal, as in a shell
    fcntl.ioctl(
        child, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0)
    )  # tqdm draws nothing 0 columns wide
    script = pathlib.Path(sys.executable).with_name("bayescal")
    argv = [
        str(script),
        "fit",
        str(judged_table / "judged.csv"),
        *JUDGED,
        "--out",
        str(judged_table / f"tty-{quiet}"),
        "--chains",
        "2",
        "--warmup",
        "50",
        "--samples",
        "50",
    ]
    process = subprocess.Popen(
        argv + (["--quiet"] if quiet else []), stdout=subprocess.DEVNULL, stderr=child
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(parent, 4096)
        except OSError:  # the terminal closed: the command has ended
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=600) == 0
    os.close(parent)
    assert (b"NUTS (2 chains)" in seen) is not quiet


@pytest.mark.slow
def test_fit_and_sensitivity_take_a_long_table_of_200_workers(tmp_path):
    """Issue 17: a crowd of 200 workers of every kind (3 labels an item, heavy-tailed workloads)
    as a long table.  ``fit --model auto`` chooses the hierarchical model and says why, each kind
    of odd worker is one warning line, the first line names a few workers and counts the rest;
    ``sensitivity`` refits under two prevalence priors and prints its table in brief."""
    crowd = bc.simulate_crowd(1500, 200, labels_per_item=3, seed=2)
    labels, scores = crowd.long_tables()
    labels.to_csv(tmp_path / "labels.csv", index=False)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    table = ["labels.csv", "--long", "--scores", "scores.csv", "--score", "score"]
    # short chains (what is tested is the command, not the posterior): NUTS warns, in one line
    quick = [
        "--chains",
        "2",
        "--warmup",
        "100",
        "--samples",
        "100",
        "--target-accept",
        "0.8",
        "--quiet",
    ]
    fit = run("fit", *table, "--out", "fit", *quick, cwd=tmp_path)
    assert fit.returncode == 0, fit.stderr
    verdict, numbers, first = fit.stdout.splitlines()[:3]
    assert verdict.startswith("bayescal fit: verdict: ") and numbers.startswith("  NC-ECE ")
    assert first.startswith(
        "1500 items, annotators w000, w001, w002, w003, w004, w005, w006, w007, "
        "w008, w009, w010, w011 and 188 more; model hierarchical_dawid_skene (auto: 200 "
        "annotators (more than 12)"
    )
    warned = [line for line in fit.stderr.splitlines() if line]
    assert all(line.startswith("bayescal: warning: ") for line in warned)
    for kind in ("estimated adversarial", "indistinguishable from random", "constant (they gave"):
        assert sum(kind in line for line in warned) == 1
    summary = json.loads((tmp_path / "fit" / "summary.json").read_text())
    assert len(summary["data"]["annotators"]) == 200
    # the EM baseline says how many sparse workers it pooled, in the terminal and the summary
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the odd workers' lines, asserted above
        pooled = len(bc.crowd_em(crowd.data).pooled)
    estimator = f"crowd_em ({pooled} workers with few labels share one pooled channel)"
    assert pooled > 0 and f"  by {estimator}" in fit.stdout
    assert summary["ece"]["nc_ece"]["frequentist"]["estimator"] == estimator
    low, high = summary["ece"]["nc_ece"]["posterior"]["interval"]
    assert low < crowd.population_binned_ece(10) < high
    report = (tmp_path / "fit" / "report.html").read_text()
    assert "10 most and 10 least informative of 200 annotators" in report
    # second catalogue, row 158: a crowd fit's folder is re-rendered from what it saved
    (tmp_path / "fit" / "report.html").unlink()
    assert cli.main(["report", str(tmp_path / "fit")]) == 0  # in this process: no start-up
    assert (tmp_path / "fit" / "report.html").read_text() == report

    (tmp_path / "priors.json").write_text(
        json.dumps({"flat": {"prevalence": [1, 1]}, "rare": {"prevalence": [2, 8]}})
    )
    sensitivity = run("sensitivity", *table, "--priors", "priors.json", "--out", "sens", *quick, cwd=tmp_path)  # fmt: skip
    assert sensitivity.returncode == 0, sensitivity.stderr
    out = sensitivity.stdout
    assert "model hierarchical_dawid_skene" in out and "reference prior 'flat'" in out
    assert (
        "Largest shifts from the reference:" in out
        and "(all 804 rows in sens/sensitivity.csv)" in out
    )
    rows = json.loads((tmp_path / "sens" / "sensitivity.json").read_text())["rows"]
    assert len(rows) == 2 * (2 * 200 + 2)  # a and b per worker, prevalence, nc_ece; per prior
    shifted = {row["prior"]: row for row in rows if row["quantity"] == "prevalence"}
    assert shifted["rare"]["mean"] < shifted["flat"]["mean"]  # Beta(2, 8) pulls it down


@pytest.fixture(scope="module")
def judges_table(tmp_path_factory):
    """Five judges, the first two sharing errors (rho 0.2), named with a comma and a space."""
    import pandas as pd

    channels = bc.Channels([0.1, 0.15, 0.2, 0.1, 0.15], [0.85, 0.8, 0.75, 0.9, 0.8])
    sim = bc.simulate.simulate_dependent(3000, channels, pair=(0, 1), shared_error=0.2, seed=0)
    names = ["gpt, mini", "gpt large", "claude", "gemini", "llama"]
    frame = pd.DataFrame(sim.data.annotations.astype(float), columns=names).replace(-1, np.nan)
    frame.insert(0, "score", sim.data.scores)
    path = tmp_path_factory.mktemp("judges") / "judges.csv"
    frame.to_csv(path, index=False)
    return path


JUDGES = ["--score", "score", "--annotators", '"gpt, mini",gpt large,claude,gemini,llama']


@pytest.mark.filterwarnings("default::bayescal.exceptions.DependenceWarning")
def test_fit_proposes_the_dependent_pair_in_one_line_and_fits_it_when_named(
    judges_table, tmp_path, capsys
):
    """Issue 19: without --dependent the flagged pair is proposed (the model is not switched);
    with --dependent (names with a comma and a space) both models get its covariance."""
    assert cli.main(["fit", str(judges_table), *JUDGES, "--out", str(tmp_path / "a"), *QUICK]) == 0
    err = capsys.readouterr().err
    proposal = [line for line in err.splitlines() if "DependenceWarning" in line]
    assert len(proposal) == 1
    assert "refit with --dependent 'gpt, mini' 'gpt large'" in proposal[0]
    # the comparison it proposes, with the rule to read it by (issue 38 item 3)
    assert proposal[0].endswith(
        "compare with compare_models (an elpd difference below 4 means the two predict "
        "alike) (DependenceWarning)"
    )
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["model"]["dependent"] == []
    argv = ["fit", str(judges_table), *JUDGES, "--out", str(tmp_path / "b"), *QUICK]
    assert cli.main([*argv, "--dependent", "gpt, mini", "gpt large"]) == 0
    err = capsys.readouterr().err
    assert "DependenceWarning" not in err
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["model"]["dependent"] == ["gpt, mini ~ gpt large"]
    assert "dependent pairs: gpt, mini ~ gpt large" in summary["model"]["why"]
    assert summary["calibration_test"]["method"].count("refitting parametric bootstrap") == 1
    # second catalogue, row 158: a dependent-pair fit's folder is re-rendered from what it saved
    report = (tmp_path / "b" / "report.html").read_text()
    (tmp_path / "b" / "report.html").unlink()
    assert cli.main(["report", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / "report.html").read_text() == report


# QUICK's two chains of 500 draws: R-hat of one rate may come out 1.011 at an ESS of 800 (the
# chains agree to the third digit); what is tested is the command, not the posterior
@pytest.mark.filterwarnings("default::bayescal.exceptions.SamplingWarning")
def test_sensitivity_fits_every_prior_with_the_dependent_pair(judges_table, tmp_path, capsys):
    """`bayescal sensitivity --dependent NAME NAME`: every prior's fit has the pair's
    covariances, and the document says so; an unknown name is refused before any fit."""
    priors = tmp_path / "priors.json"
    priors.write_text(json.dumps({"flat": {}, "sharp": {"sensitivity": [40, 4]}}))
    argv = ["sensitivity", str(judges_table), *JUDGES, "--priors", str(priors), *QUICK]
    pair = ["--dependent", "gpt, mini", "gpt large"]
    assert cli.main([*argv, *pair, "--out", str(tmp_path / "out")]) == 0
    document = json.loads((tmp_path / "out" / "sensitivity.json").read_text())
    assert document["why"].endswith("; dependent pairs: gpt, mini ~ gpt large")
    assert document["dependent"] == ["gpt, mini ~ gpt large"]
    assert "dependent pairs: gpt, mini ~ gpt large" in capsys.readouterr().out
    bad = ["--dependent", "gpt", "claude", "--out", str(tmp_path / "bad")]
    assert cli.main([*argv, *bad]) == 2
    assert "dependent: 'gpt' is not an annotator of the data" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_fit_refuses_an_unknown_dependent_name(judges_table, tmp_path):
    result = run(
        "fit",
        judges_table,
        *JUDGES,
        "--dependent",
        "gpt",
        "claude",
        "--out",
        tmp_path / "out",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "dependent: 'gpt' is not an annotator of the data" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("spelled", ["dawid_skene", "dawid-skene"])
def test_fit_takes_a_model_in_either_spelling_and_names_it_in_one(spelled, capsys):
    from bayescal.app.cli import build_parser

    args = build_parser().parse_args(
        ["fit", "table.csv", "--score", "s", "--out", "o", "--model", spelled]
    )
    assert args.model == "dawid_skene"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "t.csv", "--score", "s", "--out", "o", "--model", "x"])
    assert "expected one of auto, dawid_skene, hui_walter" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["fit", "--help"])
    assert "{auto,dawid_skene,hui_walter,hierarchical_dawid_skene,shared_difficulty}" in (
        capsys.readouterr().out.replace("\n", "").replace(" ", "")
    )
