"""The second catalogue's rows on ``bayescal recalibrate`` with a wide table (``BAD_INPUTS_2.md``,
areas ``names``, ``parquet``, ``csv``, ``files`` and ``recalibrate``): an awkward but valid
table gives the clean table's map (never a number of its own), and a bad one is refused in one
line naming the file, column and row, exit 2, no folder.  The command runs in this process."""

import json
import os
import stat
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.app import cli
from tests.bad_inputs.test_command import NAMES, SIM, WIDE, N, _rows, _text, main

HEADER = "id,p,ann,bob,cy"


def _recalibrate(tmp_path, monkeypatch, capsys, table, *options, annotators=WIDE[2:]):
    """``bayescal recalibrate TABLE --score p ...``: (status, stdout, stderr, the results
    folder)."""
    out = tmp_path / "out"
    status, stdout, stderr = main(
        tmp_path, monkeypatch, capsys, "recalibrate", table, "--score", "p",
        *annotators, *options, "--out", out,
    )  # fmt: skip
    return status, stdout, stderr, out


def _parameters(out):
    return json.loads((out / "map.json").read_text())["map"]["parameters"]


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The clean table's Platt map and recalibrated scores."""
    folder = tmp_path_factory.mktemp("clean")
    (folder / "t.csv").write_text(_text(_rows()))
    out = folder / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)  # three annotators: 7 for 7
        assert cli.main(["recalibrate", str(folder / "t.csv"), *WIDE, "--out", str(out)]) == 0
    return _parameters(out), pd.read_csv(out / "recalibrated.csv")["p_recalibrated"].to_numpy()


def _same_map(out, clean, rtol=1e-9):
    parameters, recalibrated = clean
    for name, value in _parameters(out).items():
        assert value == pytest.approx(parameters[name], rel=rtol), name
    written = out / "recalibrated.csv"
    if not written.exists():
        written = out / "recalibrated.parquet"
        frame = pd.read_parquet(written)
    else:
        frame = pd.read_csv(written)
    np.testing.assert_allclose(frame["p_recalibrated"], recalibrated, rtol=max(rtol, 1e-6))


def _annotator_options(names):
    return ["--annotators", ",".join(f'"{name}"' for name in names)]


@pytest.mark.parametrize(
    "names",
    [("Ann", "ann", "ANN"), ("1", "2", "3"), ("nan", "NA", "null"), ("line\nbreak", "b", "c")],
    ids=["row19 names differing in case", "row21 numbers", "row22 missing-value words",
         "row25 a newline in a quoted name"],
)  # fmt: skip
def test_row19_21_22_25_odd_header_names_are_names(tmp_path, monkeypatch, capsys, clean, names):
    quoted = ",".join(f'"{name}"' for name in names)
    (tmp_path / "t.csv").write_text(_text(_rows(), header=f"id,p,{quoted}"))
    status, _, err, out = _recalibrate(
        tmp_path, monkeypatch, capsys, "t.csv", annotators=_annotator_options(names)
    )
    assert status == 0, err
    _same_map(out, clean)
    assert json.loads((out / "map.json").read_text())["channels"]["annotators"] == list(names)
    written = pd.read_csv(out / "recalibrated.csv", dtype=str, keep_default_na=False)
    assert written.columns.tolist() == ["id", "p", *names, "p_recalibrated"]
    assert written[list(names)].to_numpy().tolist() == [row[2:] for row in _rows()]


def _parquet(tmp_path, **columns):
    """The clean table as Parquet, with some columns replaced."""
    frame = pd.DataFrame(_rows(), columns=HEADER.split(","))
    frame["p"] = frame["p"].astype(float)
    for name in NAMES:
        frame[name] = frame[name].astype(int)
    for name, column in columns.items():
        frame[name] = column(frame[name])
    frame.to_parquet(tmp_path / "t.parquet")
    return "t.parquet"


def _with_missing(dtype):
    def column(labels):
        values = labels.astype(dtype)
        values.iloc[::7] = pd.NA
        return values

    return column


PARQUET_SAME = {
    "row29 categorical 0/1": {name: lambda x: x.astype("category") for name in NAMES},
    "row30 categorical '0'/'1'": {name: lambda x: x.astype(str).astype("category") for name in NAMES},
    "row31 bool": {name: lambda x: x.astype(bool) for name in NAMES},
    "row34 float32 score": {"p": lambda x: x.astype(np.float32)},
    "row35 decimal128 score": {"p": lambda x: x.astype(pd.ArrowDtype(__import__("pyarrow").decimal128(10, 6)))},
    "row36 arrow string score": {"p": lambda x: x.map("{:.6f}".format).astype("string[pyarrow]")},
}  # fmt: skip


@pytest.mark.parametrize("change", PARQUET_SAME.values(), ids=PARQUET_SAME.keys())
def test_row29_to_36_parquet_column_types_give_the_clean_map(
    tmp_path, monkeypatch, capsys, clean, change
):
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, _parquet(tmp_path, **change))
    assert status == 0, err
    # float32 holds a six-decimal score to 6e-8: the map moves by less than 1e-6
    _same_map(out, clean, rtol=1e-6)


def test_row29_to_33_the_written_parquet_keeps_the_column_types_read(tmp_path, monkeypatch, capsys):
    table = _parquet(
        tmp_path,
        ann=lambda x: x.astype(str).astype("category"),
        bob=_with_missing("Int8"),
        cy=_with_missing("boolean"),
    )
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, table)
    assert status == 0, err
    read = pd.read_parquet(tmp_path / table)
    written = pd.read_parquet(out / "recalibrated.parquet")
    assert written.dtypes.drop("p_recalibrated").to_dict() == read.dtypes.to_dict()
    pd.testing.assert_frame_equal(written.drop(columns="p_recalibrated"), read)


@pytest.mark.parametrize("dtype", ["boolean", "Int8"], ids=["row32 boolean", "row33 Int8"])
def test_row32_33_nullable_labels_read_na_as_missing(tmp_path, monkeypatch, capsys, dtype):
    table = _parquet(tmp_path, ann=_with_missing(dtype))
    (tmp_path / "t.csv").write_text(
        _text([[*row[:2], "" if i % 7 == 0 else row[2], *row[3:]] for i, row in enumerate(_rows())])
    )
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, table)
    assert status == 0, err
    reference = tmp_path / "reference"
    reference.mkdir()
    (reference / "t.csv").write_text((tmp_path / "t.csv").read_text())
    status, _, err, blank = _recalibrate(reference, monkeypatch, capsys, "t.csv")
    assert status == 0, err
    assert _parameters(out) == _parameters(blank)  # NA is the blank cell of a CSV


def test_row37_a_half_float_score_gives_the_map_to_its_precision(
    tmp_path, monkeypatch, capsys, clean
):
    table = _parquet(tmp_path, p=lambda x: x.astype(np.float16))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, table)
    assert status == 0, err
    slope = _parameters(out)["slope"]
    # float16 rounds a score by up to 2.4e-4 of itself: the slope moves by about that much
    assert slope == pytest.approx(clean[0]["slope"], abs=1e-3)


@pytest.mark.parametrize("names", [(1, 2, 3), ("1", "2", "3")], ids=["row38 int", "row39 str"])
def test_row38_39_parquet_column_names_that_are_numbers(
    tmp_path, monkeypatch, capsys, clean, names
):
    frame = pd.read_parquet(tmp_path / _parquet(tmp_path)).rename(columns=dict(zip(NAMES, names)))
    if isinstance(names[0], int):
        with pytest.warns(UserWarning, match="column names of mixed type"):  # pandas' own
            frame.to_parquet(tmp_path / "t.parquet")
    else:
        frame.to_parquet(tmp_path / "t.parquet")
    status, _, err, out = _recalibrate(
        tmp_path, monkeypatch, capsys, "t.parquet", annotators=["--annotators", "1,2,3"]
    )
    assert status == 0, err
    _same_map(out, clean)


def _refused(tmp_path, monkeypatch, capsys, table, *options, annotators=WIDE[2:]):
    status, out, err, folder = _recalibrate(
        tmp_path, monkeypatch, capsys, table, *options, annotators=annotators
    )
    assert (status, out, err.count("\n")) == (2, "", 1), err
    assert not folder.exists()
    return err.removeprefix("bayescal: error: ").rstrip("\n")


def test_row44_a_parquet_table_without_rows(tmp_path, monkeypatch, capsys):
    table = _parquet(tmp_path)
    pd.read_parquet(tmp_path / table).iloc[:0].to_parquet(tmp_path / table)
    assert _refused(tmp_path, monkeypatch, capsys, table) == "t.parquet: the table has no rows"


def test_row46_a_label_cell_of_spaces_is_an_empty_cell(tmp_path, monkeypatch, capsys):
    rows = _rows()
    rows[0][4] = " "
    (tmp_path / "t.csv").write_text(_text(rows))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv")
    assert status == 0, err  # was "expected 0, 1 or empty; saw ' '": it looks empty, and is
    rows[0][4] = ""
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "t.csv").write_text(_text(rows))
    status, _, err, blank = _recalibrate(tmp_path / "blank", monkeypatch, capsys, "t.csv")
    assert status == 0, err
    assert _parameters(out) == _parameters(blank)


def test_row55_a_dash_for_a_missing_label_is_refused_naming_the_cell(tmp_path, monkeypatch, capsys):
    rows = _rows()
    rows[0][4] = "-"
    (tmp_path / "t.csv").write_text(_text(rows))
    message = _refused(tmp_path, monkeypatch, capsys, "t.csv")
    assert message == "t.csv: column 'cy', row 0: expected 0, 1 or empty; saw '-'"


@pytest.mark.parametrize(
    "text",
    [
        "\n" + _text(_rows()),
        _text(_rows()).replace("\n", ",\n"),
        _text(_rows(), newline="\r"),
        _text(_rows(), header="id,p,ann,bob,cy").replace("id,", "id;a;b;c,", 1),
    ],
    ids=["row48 a blank first line", "row52 a comma ending every line", "row54 CR line ends",
         "row56 semicolons inside a header name"],
)  # fmt: skip
def test_row48_52_54_56_csv_dialects_give_the_clean_map(tmp_path, monkeypatch, capsys, clean, text):
    (tmp_path / "t.csv").write_text(text, newline="")
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv")
    assert status == 0, err
    _same_map(out, clean)


def test_row57_a_gzipped_csv_is_refused_naming_the_suffixes(tmp_path, monkeypatch, capsys):
    import gzip

    (tmp_path / "judged.csv.gz").write_bytes(gzip.compress(_text(_rows()).encode()))
    message = _refused(tmp_path, monkeypatch, capsys, "judged.csv.gz")
    assert (
        message == "judged.csv.gz: expected a table ending in .csv, .tsv, .parquet, .pq; saw '.gz'"
    )


def test_row58_paths_with_spaces_and_accents(tmp_path, monkeypatch, capsys, clean):
    folder = tmp_path / "my data é"
    folder.mkdir()
    (folder / "jugé table.csv").write_text(_text(_rows()))
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", folder / "jugé table.csv", *WIDE,
        "--out", folder / "sortie é",
    )  # fmt: skip
    assert status == 0, err
    _same_map(folder / "sortie é", clean)


def test_row61_63_a_symlinked_read_only_input_is_read_and_never_written(
    tmp_path, monkeypatch, capsys, clean
):
    source = tmp_path / "source.csv"
    source.write_text(_text(_rows()))
    source.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    (tmp_path / "link.csv").symlink_to(source)
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "link.csv")
    assert status == 0, err
    _same_map(out, clean)
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    assert (tmp_path / "link.csv").is_symlink()


@pytest.mark.parametrize(
    "annotators",
    [["--annotators", "ann", "--annotators", "bob,cy"], ["--annotators", "ann,,bob,cy"]],
    ids=["row62 repeated", "row64 an empty name"],
)
def test_row62_64_annotators_repeated_or_with_an_empty_name(
    tmp_path, monkeypatch, capsys, clean, annotators
):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err, out = _recalibrate(
        tmp_path, monkeypatch, capsys, "t.csv", annotators=annotators
    )
    assert status == 0, err
    _same_map(out, clean)
    assert json.loads((out / "map.json").read_text())["channels"]["annotators"] == list(NAMES)


def _hard(rows, count=20):
    """``rows`` with the first ``count`` scores exactly 0 or 1."""
    rows = [row[:] for row in rows]
    for i in range(count):
        rows[i][1] = "1" if i % 2 else "0"
    return rows


def _written(out):
    return pd.read_csv(out / "recalibrated.csv")["p_recalibrated"].to_numpy()


@pytest.mark.parametrize(
    "method", ["platt", "temperature", "histogram"], ids=["row138", "row139", "row140"]
)
def test_row138_139_140_scores_exactly_0_or_1_get_finite_increasing_maps(
    tmp_path, monkeypatch, capsys, method
):
    (tmp_path / "t.csv").write_text(_text(_hard(_rows())))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv", "--method", method)
    assert status == 0, err
    recalibrated, scores = _written(out), np.array([float(row[1]) for row in _hard(_rows())])
    assert np.isfinite(recalibrated).all() and ((recalibrated >= 0) & (recalibrated <= 1)).all()
    if method != "histogram":  # increasing, never reaching 0 or 1: the clipped logits are +-13.8
        order = np.argsort(scores, kind="stable")
        assert (np.diff(recalibrated[order]) >= 0).all()
        assert 0 < recalibrated[scores == 0].max() < recalibrated[scores == 1].min() < 1


def test_row141_a_blank_score_refuses_the_table_naming_its_row(tmp_path, monkeypatch, capsys):
    rows = _hard(_rows()) + [[str(N + i), "", *_rows()[i][2:]] for i in range(5)]
    (tmp_path / "t.csv").write_text(_text(rows))
    message = _refused(tmp_path, monkeypatch, capsys, "t.csv")
    assert message == f"t.csv: column 'p', row {N}: expected a value; saw an empty cell"


def _corrected_mean(out, table):
    """The mean corrected label of the map's channels: a one-bin histogram's value."""
    from bayescal.correction import corrected_labels
    from bayescal.data.tables import read_wide_table

    channels = json.loads((out / "map.json").read_text())["channels"]
    data = read_wide_table(table, score="p", annotators=list(NAMES)).data
    return corrected_labels(data.annotations, bc.Channels(channels["a"], channels["b"])).mean()


def test_row142_one_histogram_bin_maps_every_score_to_the_corrected_mean_label(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err, out = _recalibrate(
        tmp_path, monkeypatch, capsys, "t.csv", "--method", "histogram", "--fit-bins", "1"
    )
    assert status == 0, err
    np.testing.assert_allclose(_written(out), _corrected_mean(out, tmp_path / "t.csv"), rtol=1e-12)


def test_row143_144_ten_items(tmp_path, monkeypatch, capsys):
    (tmp_path / "t.csv").write_text(_text(_rows(10)))
    status, _, err, out = _recalibrate(
        tmp_path, monkeypatch, capsys, "t.csv", "--method", "histogram", "--fit-bins", "auto"
    )
    assert status == 0, err
    assert len(_parameters(out)["values"]) == 2  # round(10 ** (1/3))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv", "--force")
    assert status == 0, err
    # ten items separate perfectly: the fit stops on the box edge, and says so
    assert json.loads((out / "map.json").read_text())["map"]["on_boundary"] is True
    assert "ended on the edge of the parameter box" in err and "(RecalibrationWarning)" in err


def test_row145_a_truth_column_is_checked_though_never_fitted(tmp_path, monkeypatch, capsys):
    rows = [[*row, str(int(label))] for row, label in zip(_rows(), SIM.labels)]
    (tmp_path / "t.csv").write_text(_text(rows, header=HEADER + ",truth"))
    status, _, err, _ = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv", "--truth", "truth")
    assert status == 0, err
    rows[3][-1] = "2"
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "t.csv").write_text(_text(rows, header=HEADER + ",truth"))
    message = _refused(tmp_path / "bad", monkeypatch, capsys, "t.csv", "--truth", "truth")
    assert message == "t.csv: column 'truth', row 3: expected 0 or 1; saw 2"


@pytest.mark.parametrize("method", ["temperature", "platt"], ids=["row146", "row147"])
def test_row146_147_scores_of_one_value_say_the_map_is_not_identified(
    tmp_path, monkeypatch, capsys, method
):
    (tmp_path / "t.csv").write_text(_text([[row[0], "0.5", *row[2:]] for row in _rows()]))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv", "--method", method)
    assert status == 0, err
    assert "every score is 0.5, so the scores do not identify the map's" in err
    recalibrated = _written(out)
    assert np.ptp(recalibrated) == 0
    if method == "platt":  # one value: the corrected mean label, the only thing identified
        assert recalibrated[0] == pytest.approx(_corrected_mean(out, tmp_path / "t.csv"), abs=1e-6)
    else:  # any temperature maps 0.5 to 0.5 (was: "temperature=1", said as if fitted)
        assert recalibrated[0] == 0.5


def test_row148_ten_thousand_columns_are_carried_through(tmp_path, monkeypatch, capsys, clean):
    extra = [f"c{k}" for k in range(10_000)]
    rows = [[*row, *(str((i * k) % 7) for k in range(10_000))] for i, row in enumerate(_rows(20))]
    (tmp_path / "t.csv").write_text(_text(rows, header=",".join([HEADER, *extra])))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv")
    assert status == 0, err
    written = pd.read_csv(out / "recalibrated.csv", dtype=str)
    assert written.columns.tolist() == [*HEADER.split(","), *extra, "p_recalibrated"]
    assert written.drop(columns="p_recalibrated").to_numpy().tolist() == rows


def test_row12_denormal_scores_are_scores_near_0(tmp_path, monkeypatch, capsys, clean):
    rows = _rows()
    rows[0][1], rows[1][1] = "1e-320", "5e-324"
    (tmp_path / "t.csv").write_text(_text(rows))
    status, _, err, out = _recalibrate(tmp_path, monkeypatch, capsys, "t.csv")
    assert status == 0, err
    recalibrated = _written(out)
    assert np.isfinite(recalibrated).all() and recalibrated[0] == recalibrated[1] > 0
    # two items moved to logit -13.8 (the clipping level) pull the slope down, not past 0
    assert 0 < _parameters(out)["slope"] < clean[0]["slope"]
