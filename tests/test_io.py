"""Reading tables and writing results safely: one-line errors, atomic writes, no overwrites."""

import json
import os

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.io import TableError, prepare_output, read_wide_table, write_atomic, write_json


@pytest.fixture()
def table():
    return pd.DataFrame({"p": [0.1, 0.6, 0.9], "ann": [0, 1, 1], "bob": [0.0, np.nan, 1.0], "y": [0, 1, 1]})


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_reads_csv_and_parquet_the_same_way(table, tmp_path, suffix):
    path = tmp_path / f"t{suffix}"
    table.to_csv(path, index=False) if suffix == ".csv" else table.to_parquet(path)
    before = path.read_bytes()
    data, truth = read_wide_table(path, "p", ["ann", "bob"], truth="y")
    assert data.annotations.tolist() == [[0, 0], [1, -1], [1, 1]] and truth.tolist() == [0, 1, 1]
    assert data.annotator_names == ("ann", "bob")
    assert path.read_bytes() == before  # the input is only read


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop(columns="bob"), r"no column 'bob'"),
        (lambda t: t.assign(p=["0.1", "high", "0.9"]), r"column 'p', row 1: expected a number; saw 'high'"),
        (lambda t: t.assign(ann=[0, 2, 1]), r"column 'ann', row 1: expected 0, 1 or empty; saw 2"),
        (lambda t: t.assign(bob=np.nan), r"column 'bob': the annotator gave no label at all"),
        (lambda t: t.assign(p=[0.1, 1.2, 0.9]), r"column 'p', row 1: expected a score in \[0, 1\]; saw 1.2"),
        (lambda t: t.assign(p=[0.1, np.nan, 0.9]), r"column 'p', row 1: expected a value; saw an empty cell"),
        (lambda t: t.assign(ann=[0, np.nan, 1], bob=[0, np.nan, 1]), r"row 1: no annotator labelled this item"),
        (lambda t: t.assign(y=[0, 1, 5]), r"column 'y', row 2: expected 0 or 1; saw 5"),
        (lambda t: t.iloc[:0], "the table has no rows"),
    ],
)
def test_bad_tables_give_one_line_naming_column_and_row(table, tmp_path, change, message):
    path = tmp_path / "bad.csv"
    change(table).to_csv(path, index=False)
    with pytest.raises(TableError, match=message) as error:
        read_wide_table(path, "p", ["ann", "bob"], truth="y")
    assert "\n" not in str(error.value) and str(path) in str(error.value)


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(TableError, match="no such file"):
        read_wide_table(tmp_path / "absent.csv", "p", ["a"])
    (tmp_path / "t.xlsx").write_text("x")
    with pytest.raises(TableError, match=r"expected a table ending in .csv, .parquet, .pq; saw '.xlsx'"):
        read_wide_table(tmp_path / "t.xlsx", "p", ["a"])
    (tmp_path / "broken.parquet").write_text("not parquet")
    with pytest.raises(TableError, match="cannot be read as PARQUET"):
        read_wide_table(tmp_path / "broken.parquet", "p", ["a"])


def test_output_directory_is_never_overwritten_without_force(tmp_path):
    out = prepare_output(tmp_path / "run")
    (out / "summary.json").write_text("{}")
    with pytest.raises(FileExistsError, match="already exists; choose another directory or pass --force"):
        prepare_output(out)
    assert prepare_output(out, force=True) == out and (out / "summary.json").exists()


def test_atomic_writes_leave_nothing_half_written(tmp_path):
    target = tmp_path / "summary.json"
    write_json(target, {"ece": {"naive": 0.1, "posterior": None, "reason": "no fit"}})
    assert json.loads(target.read_text())["ece"]["posterior"] is None
    with pytest.raises(ValueError, match="refusing to write NaN or infinity"):
        write_json(target, {"ece": float("nan")})
    assert json.loads(target.read_text())["ece"]["naive"] == 0.1  # the old file is intact

    def interrupted(name):
        with open(name, "w") as handle:
            handle.write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, interrupted)
    assert json.loads(target.read_text())["ece"]["naive"] == 0.1
    assert sorted(os.listdir(tmp_path)) == ["summary.json"]  # no temporary file left behind


def test_a_fit_saves_atomically_as_netcdf(tmp_path):
    from tests.helpers import fake_fit

    sim = bc.toy_data(300, seed=0)
    fit = fake_fit(sim.data, np.tile(sim.channels.a, (20, 1)), np.tile(sim.channels.b, (20, 1)), np.full(20, 0.5))
    path = write_atomic(tmp_path / "posterior.nc", fit.save)
    loaded = bc.BayesFit.load(path)
    np.testing.assert_array_equal(loaded.draws()[0], fit.draws()[0])
