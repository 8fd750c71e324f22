"""The bad-input catalogue (../shared/BAD_INPUTS.md, issue 16), tables: every case with its
exact outcome.  Each test names its catalogue row (#N) or the issue's item."""

import csv
import io

import numpy as np
import pytest

import bayescal as bc
from bayescal.data.tables import TableError, read_long_tables, read_wide_table
from bayescal.report.folders import write_table

HEADER = "id,zip,p,ann,bob,cy\n"


def _judged_rows(n=300, seed=0):
    """Rows of a wide table with text-like ids (zero-padded) and three annotators."""
    sim = bc.toy_data(n, seed=seed)
    rows = []
    for i, (score, labels) in enumerate(zip(sim.data.scores, sim.data.annotations)):
        rows.append([f"{i:05d}", f"0{2134 + i}", f"{score:.6f}", *map(str, labels)])
    return rows


def _write(path, rows, sep=",", encoding="utf-8", header=HEADER):
    text = header.replace(",", sep) + "".join(sep.join(row) + "\n" for row in rows)
    path.write_bytes(text.encode(encoding))
    return path


def test_row26_issue7_a_duplicate_header_is_refused_naming_both_positions(tmp_path):
    path = _write(tmp_path / "dup.csv", _judged_rows(20), header="id,zip,p,ann,ann,cy\n")
    with pytest.raises(
        TableError,
        match=r"dup\.csv: the header names column 'ann' twice \(columns 3 and 4, counting from 0\); rename one$",
    ):
        read_wide_table(path, score="p", annotators=["ann", "cy"])


@pytest.mark.parametrize(
    "sep, encoding, suffix",
    [
        (";", "utf-8", ".csv"),
        ("\t", "utf-8", ".tsv"),
        (",", "latin-1", ".csv"),
        (",", "utf-8-sig", ".csv"),
    ],
)
def test_row6_issue22_semicolons_tabs_latin1_and_a_bom_read_as_the_plain_table(
    tmp_path, sep, encoding, suffix
):
    rows = _judged_rows(50)
    rows[0][1] = "Zoë"  # a non-ASCII cell, in an id column
    plain = read_wide_table(
        _write(tmp_path / "plain.csv", rows), score="p", annotators=["ann", "bob", "cy"]
    )
    other = read_wide_table(
        _write(tmp_path / f"other{suffix}", rows, sep=sep, encoding=encoding),
        score="p",
        annotators=["ann", "bob", "cy"],
    )
    np.testing.assert_array_equal(other.data.scores, plain.data.scores)
    np.testing.assert_array_equal(other.data.annotations, plain.data.annotations)
    assert other.frame["zip"].iloc[0] == "Zoë"


def test_row6_issue22_a_binary_file_named_csv_is_refused(tmp_path):
    path = tmp_path / "utf16.csv"
    path.write_bytes(HEADER.encode("utf-16"))
    with pytest.raises(TableError, match=r"utf16\.csv: not a text table \(it holds NUL bytes"):
        read_wide_table(path, score="p", annotators=["ann"])


@pytest.mark.parametrize("sep, suffix", [(",", ".csv"), (";", ".csv"), ("\t", ".tsv")])
def test_row27_issue5_columns_other_than_the_score_are_carried_through_unchanged(
    tmp_path, sep, suffix
):
    rows = _judged_rows(40)
    rows[3][1] = ""  # an empty cell stays empty, not "nan"
    path = _write(tmp_path / f"ids{suffix}", rows, sep=sep)
    table = read_wide_table(path, score="p", annotators=["ann", "bob", "cy"])
    out = write_table(tmp_path / f"out{suffix}", table.frame.assign(p_recalibrated=0.5), like=path)
    written = list(csv.reader(io.StringIO(out.read_text()), delimiter=sep))
    original = list(csv.reader(io.StringIO(path.read_text()), delimiter=sep))
    assert [row[:-1] for row in written] == original  # 00000 stays 00000, zip 02134 stays 02134
    assert written[0][-1] == "p_recalibrated" and written[1][-1] == "0.5"


def test_row28_issue5_long_format_ids_join_as_text(tmp_path):
    (tmp_path / "scores.csv").write_text("item,p\n0000,0.2\n0,0.7\n")
    (tmp_path / "labels.csv").write_text(
        "item,annotator,label\n0000,ann,0\n0000,bob,0\n0000,cy,1\n0,ann,1\n0,bob,1\n0,cy,1\n"
    )
    table = read_long_tables(tmp_path / "labels.csv", tmp_path / "scores.csv", score="p")
    assert table.data.n_items == 2  # "0000" and "0" are two items, not one
    np.testing.assert_array_equal(table.data.annotations, [[0, 0, 1], [1, 1, 1]])
    (tmp_path / "labels.csv").write_text("item,annotator,label\n00,ann,1\n")
    with pytest.raises(
        TableError,
        match=r"labels\.csv: column 'item', row 0: item '00' has no row in .*scores\.csv",
    ):
        read_long_tables(tmp_path / "labels.csv", tmp_path / "scores.csv", score="p")


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--annotators", "ann,bob,cy"], ["ann", "bob", "cy"]),
        (["--annotators", " ann , bob "], ["ann", "bob"]),
        (["--annotators", '" cy ","cy,jr"', "--annotators", "ann"], [" cy ", "cy,jr", "ann"]),
        (["--annotators", "ann", "--annotators", "bob"], ["ann", "bob"]),
    ],
)
def test_row32_issue8_annotator_names_with_spaces_or_commas_can_be_named(tmp_path, argv, names):
    from bayescal.app.cli import build_parser

    args = build_parser().parse_args(["fit", "t.csv", "--score", "p", "--out", "o", *argv])
    assert args.annotators == names
    header = "p," + ",".join(f'"{name}"' for name in names) + "\n"
    path = tmp_path / "t.csv"
    path.write_text(
        header
        + "0.5,"
        + ",".join(["1"] * len(names))
        + "\n0.2,"
        + ",".join(["0"] * len(names))
        + "\n"
    )
    table = read_wide_table(path, score="p", annotators=args.annotators)
    assert list(table.data.annotator_names) == names


def test_row32_an_unclosed_quote_in_annotators_is_an_argument_error(capsys):
    from bayescal.app.cli import build_parser

    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(
            ["fit", "t.csv", "--score", "p", "--annotators", '"cy', "--out", "o"]
        )
    assert stop.value.code == 2
    assert (
        "argument --annotators: expected comma-separated column names; saw '\"cy'"
        in capsys.readouterr().err
    )


def test_row11_issue21_a_single_item_table_says_so():
    with pytest.raises(
        ValueError,
        match=r"^data: there is 1 item; channels cannot be estimated from fewer than two items",
    ):
        bc.dawid_skene_em(bc.AnnotatedScores([0.5], [[1, 0, 1]]))


def test_row35_issue9_recalibrate_fits_on_the_labelled_items_and_maps_every_score(tmp_path):
    import subprocess
    import sys

    rows = _judged_rows(400)
    rows[7][3:] = ["", "", ""]  # item 7: no label at all
    path = _write(tmp_path / "t.csv", rows)
    script = __import__("pathlib").Path(sys.executable).with_name("bayescal")
    run = subprocess.run(
        [str(script), "recalibrate", str(path), "--score", "p", "--annotators", "ann,bob,cy",
         "--method", "platt", "--out", str(tmp_path / "out")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[0] == (
        "bayescal: warning: 1 of 400 items have no label: the map is fitted on the 399 labelled "
        "items and applied to every item's score (RecalibrationWarning)"
    )  # (then the saturation of three-annotator Dawid–Skene)
    written = list(csv.reader(io.StringIO((tmp_path / "out" / "recalibrated.csv").read_text())))
    assert len(written) == 401 and written[8][:6] == rows[7] and float(written[8][6]) > 0
