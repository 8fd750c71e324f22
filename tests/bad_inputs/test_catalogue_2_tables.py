"""The second catalogue's tables (``BAD_INPUTS_2.md``, rule 4: a table is read as its author
meant it): a trailing separator, a blank header cell, ids as text, Latin-1 anywhere in the
file, decimal commas, scores one float step outside [0, 1], Parquet indexes, blank text cells,
a score table listing more items than were labelled, and annotator names as a ``pandas.Index``.
Each test names its rows; the last test is the rule's property test on tables the catalogue
does not have."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.data.tables import read_long_tables, read_wide_table
from tests.bad_inputs.test_command import NAMES, SIM, WIDE, _rows, _text, main

N = 400


def _wide(path, **change):
    """The clean table's reading, for comparison."""
    return read_wide_table(path, score="p", annotators=list(NAMES), **change)


@pytest.fixture
def clean(tmp_path):
    path = tmp_path / "clean.csv"
    path.write_text(_text(_rows()))
    return _wide(path)


def _same_data(table, reference):
    np.testing.assert_array_equal(table.data.scores, reference.data.scores)
    np.testing.assert_array_equal(table.data.annotations, reference.data.annotations)
    assert table.data.annotator_names == reference.data.annotator_names


def test_row51_a_separator_ending_every_row_shifts_no_column(tmp_path, clean):
    path = tmp_path / "trailing.csv"
    path.write_text("id,p,ann,bob,cy\n" + "".join(",".join(row) + ",\n" for row in _rows()))
    _same_data(_wide(path), clean)  # pandas had made "id" the index: p held ann's labels


def test_row51_a_value_past_the_header_is_refused_naming_its_row(tmp_path):
    rows = [[*row, ""] for row in _rows()]
    rows[3][-1] = "7"
    path = tmp_path / "longer.csv"
    path.write_text(_text(rows))
    with pytest.raises(bc.TableError, match=r"row 3: 6 cells under a header of 5 columns"):
        _wide(path)


def test_row24_a_blank_header_cell_is_written_back_blank(tmp_path, monkeypatch, capsys):
    text = _text(_rows(), header=",p,ann,bob,cy")  # pandas' to_csv with its default index
    (tmp_path / "t.csv").write_text(text)
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", "t.csv", *WIDE, "--out", "r"
    )
    assert status == 0, err
    written = (tmp_path / "r" / "recalibrated.csv").read_text().splitlines()
    assert written[0].startswith(",p,ann,bob,cy,")  # was "Unnamed: 0,p,..."
    assert [line.split(",")[:5] for line in written[1:]] == [
        line.split(",") for line in text.splitlines()[1:]
    ]


def _long(tmp_path, ids, items=None, scores_items=None):
    """A long table of ``SIM``'s labels whose annotators are ``ids`` (text as written)."""
    items = range(N) if items is None else items
    lines = ["item,annotator,label"]
    lines += [f"{i},{ids[j]},{SIM.data.annotations[i, j]}" for i in items for j in range(len(ids))]
    labels, scores = tmp_path / "labels.csv", tmp_path / "scores.csv"
    labels.write_text("\n".join(lines) + "\n")
    listed = range(N) if scores_items is None else scores_items
    scores.write_text("item,p\n" + "".join(f"{i},{SIM.data.scores[i]:.6f}\n" for i in listed))
    return labels, scores


def test_row69_70_ids_007_and_7_are_two_workers(tmp_path):
    labels, scores = _long(tmp_path, ["007", "7", "12"])
    table = read_long_tables(labels, scores, score="p")
    assert table.data.annotator_names == ("007", "12", "7")  # was one worker "7"
    assert table.data.n_annotators == 3


def test_row71_the_annotators_named_as_written(tmp_path):
    labels, scores = _long(tmp_path, ["007", "7", "12"])
    table = read_long_tables(labels, scores, score="p", annotators=["007", "7", "12"])
    assert table.data.annotator_names == ("007", "7", "12")
    np.testing.assert_array_equal(table.data.annotations, SIM.data.annotations[:N])


def test_row66_a_score_table_listing_more_items_drops_them_with_a_warning(tmp_path):
    labels, scores = _long(tmp_path, list(NAMES), items=range(300))
    with pytest.warns(bc.DataWarning, match=r"100 of 400 items have no label .*row 300"):
        table = read_long_tables(labels, scores, score="p")
    assert table.data.n_items == 300
    np.testing.assert_array_equal(table.data.annotations, SIM.data.annotations[:300])
    assert len(table.frame) == 300 and table.frame["item"].tolist() == list(map(str, range(300)))
    with pytest.raises(bc.TableError, match="row 300: no annotator labelled this item"):
        read_long_tables(labels, scores, score="p", unlabelled="refuse")


@pytest.mark.parametrize("command", ["fit", "sensitivity"])
def test_row66_the_fitting_commands_read_a_longer_score_table(tmp_path, monkeypatch, command):
    from bayescal.app import cli
    from bayescal.app.commands import _read_input

    _long(tmp_path, list(NAMES), items=range(300))
    monkeypatch.chdir(tmp_path)
    args = cli.build_parser().parse_args(
        [command, "labels.csv", "--long", "--scores", "scores.csv", "--score", "p"]
        + ["--out", "o"]
        + (["--priors", "p.json"] if command == "sensitivity" else [])
    )
    with pytest.warns(bc.DataWarning, match="100 of 400 items have no label"):
        assert _read_input(args).data.n_items == 300


def test_row66_recalibrate_maps_every_score_of_a_longer_score_table(tmp_path, monkeypatch, capsys):
    _long(tmp_path, list(NAMES), items=range(300))
    status, _, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "recalibrate",
        "labels.csv",
        "--long",
        "--scores",
        "scores.csv",
        "--score",
        "p",
        "--out",
        "r",
    )
    assert status == 0, err
    assert err.count("no label") == 1 and "fitted on the 300 labelled items" in err
    assert len(pd.read_csv(tmp_path / "r" / "recalibrated.csv")) == N


def test_row217_an_empty_annotator_id_is_refused_naming_its_row():
    labels = pd.DataFrame({"item": [0, 0, 1], "annotator": ["x", np.nan, "x"], "label": [1, 0, 1]})
    scores = pd.DataFrame({"item": [0, 1], "score": [0.2, 0.9]})
    with pytest.raises(
        ValueError, match=r"labels column 'annotator', row 1: expected an id; saw an empty cell"
    ):
        bc.AnnotatedScores.from_long(labels, scores)


def test_row49_a_latin1_byte_past_the_first_64_kb_reads_as_latin1(tmp_path, clean):
    rows = [[*row, ""] for row in _rows()]
    rows[0][-1], rows[-1][-1] = "x" * 70_000, "é"  # the only non-ASCII byte, past 64 KB
    path = tmp_path / "latin.csv"
    path.write_bytes(_text(rows, header="id,p,ann,bob,cy,note").encode("latin-1"))
    table = _wide(path)
    _same_data(table, clean)
    assert table.frame["note"].iloc[-1] == "é"


def test_row50_a_semicolon_table_with_decimal_commas(tmp_path, monkeypatch, capsys, clean):
    rows = [[row[0], row[1].replace(".", ","), *row[2:]] for row in _rows()]
    path = tmp_path / "eu.csv"
    path.write_text(_text(rows, sep=";"))
    _same_data(_wide(path), clean)
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", "eu.csv", *WIDE, "--out", "r"
    )
    assert status == 0, err
    written = (tmp_path / "r" / "recalibrated.csv").read_text().splitlines()
    assert written[1].split(";")[1] == rows[0][1]  # the cells as written
    assert "," in written[1].split(";")[-1] and "." not in written[1].split(";")[-1]


def test_row11_scores_one_float_step_outside_are_clipped_with_a_warning(tmp_path):
    rows = _rows()
    rows[0][1], rows[1][1] = repr(1.0000000000000002), "-1e-17"
    path = tmp_path / "ulp.csv"
    path.write_text(_text(rows))
    with pytest.warns(bc.DataWarning, match=r"scores: 2 score\(s\) lie within 1e-12 .* clipped"):
        table = _wide(path)
    assert table.data.scores[0] == 1.0 and table.data.scores[1] == 0.0
    rows[0][1] = "1.000001"
    path.write_text(_text(rows))
    with pytest.raises(bc.TableError, match=r"row 0: expected a score in \[0, 1\]; saw 1.000001"):
        _wide(path)


def test_row11_the_api_clips_round_off_and_refuses_more():
    with pytest.warns(bc.DataWarning, match="1 score"):
        data = bc.AnnotatedScores([1 + 2**-52, 0.5], [[1], [0]])
    assert data.scores.max() == 1.0
    with pytest.raises(ValueError, match=r"scores must lie in \[0, 1\]; saw 1.001"):
        bc.AnnotatedScores([1.001, 0.5], [[1], [0]])


def _parquet_frame():
    return pd.DataFrame(
        {
            "item": [f"i{i:03d}" for i in range(N)],
            "p": SIM.data.scores[:N],
            **{name: SIM.data.annotations[:N, j] for j, name in enumerate(NAMES)},
        }
    )


@pytest.mark.parametrize(
    "index, kept",
    [(["item"], ["item"]), (["group", "item"], ["group", "item"])],
    ids=["named index (row 41)", "MultiIndex (row 42)"],
)
def test_row41_42_a_parquet_index_is_kept_as_columns(tmp_path, monkeypatch, capsys, index, kept):
    frame = _parquet_frame().assign(group=np.arange(N) % 3)
    frame.set_index(index).to_parquet(tmp_path / "t.parquet")
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", "t.parquet", *WIDE, "--out", "r"
    )
    assert status == 0, err
    written = pd.read_parquet(tmp_path / "r" / "recalibrated.parquet")
    for column in kept:
        assert written[column].tolist() == frame[column].tolist()


def test_row45_a_score_table_with_item_ids_as_its_index(tmp_path):
    labels, scores = _long(tmp_path, list(NAMES))
    frame = pd.read_csv(scores, dtype={"item": str}).set_index("item")
    frame.to_parquet(tmp_path / "scores.parquet")
    table = read_long_tables(labels, tmp_path / "scores.parquet", score="p")
    np.testing.assert_array_equal(table.data.annotations, SIM.data.annotations[:N])


def test_row45_an_index_that_is_also_a_column_is_refused(tmp_path):
    frame = _parquet_frame()
    frame.set_index(frame["item"].rename("p")).to_parquet(tmp_path / "t.parquet")
    with pytest.raises(bc.TableError, match="the index 'p' is also a column; rename one"):
        read_wide_table(tmp_path / "t.parquet", score="p", annotators=list(NAMES))


def test_row43_a_blank_text_cell_in_a_parquet_label_column_is_missing(tmp_path):
    frame = _parquet_frame()
    frame["ann"] = frame["ann"].astype(str).where(np.arange(N) % 5 > 0, "")
    frame.to_parquet(tmp_path / "t.parquet")
    table = read_wide_table(tmp_path / "t.parquet", score="p", annotators=list(NAMES))
    assert (table.data.annotations[::5, 0] == -1).all()
    np.testing.assert_array_equal(table.data.annotations[1::5], SIM.data.annotations[1:N:5])


def test_row209_annotators_as_a_pandas_index_or_an_array():
    frame = _parquet_frame()
    for names in (frame.columns[2:5], np.array(NAMES)):
        data = bc.AnnotatedScores.from_frame(frame, score="p", annotators=names)
        assert data.annotator_names == NAMES


@pytest.mark.parametrize("seed", range(4))
def test_rule4_any_dialect_of_one_table_reads_as_the_same_data(tmp_path, seed):
    """Property: a table written with a random separator, decimal mark, encoding, trailing
    separators and id style reads as the data of its plain UTF-8 comma form."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    scores = rng.random(n).round(6)
    labels = rng.integers(-1, 2, (n, 3))
    labels[(labels < 0).all(axis=1), 0] = 1
    sep = str(rng.choice([",", ";", "\t"]))
    decimal = "," if sep == ";" and rng.random() < 0.7 else "."
    trailing = sep if rng.random() < 0.5 else ""
    names = ["André", "007", "7"] if rng.random() < 0.5 else ["a", "b", "c"]
    header = sep.join(["id", "p", *names])
    lines = [header]
    for i in range(n):
        cells = [f"{i:04d}", f"{scores[i]}".replace(".", decimal)]
        cells += ["" if x < 0 else str(x) for x in labels[i]]
        lines.append(sep.join(cells) + trailing)
    encoding = str(rng.choice(["utf-8", "latin-1", "utf-8-sig"]))
    path = tmp_path / "t.csv"
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no repair is needed: nothing may be said
        table = read_wide_table(path, score="p", annotators=names)
    np.testing.assert_array_equal(table.data.scores, scores)
    np.testing.assert_array_equal(table.data.annotations, labels)
    assert table.data.annotator_names == tuple(names)
    assert table.frame.columns.tolist() == ["id", "p", *names]
    assert table.frame["id"].iloc[-1] == f"{n - 1:04d}"


def test_rule4_a_blank_first_line_and_a_latin1_0x85_in_the_header(tmp_path, clean):
    path = tmp_path / "odd.csv"
    path.write_text("\n" + _text(_rows()))  # pandas skips the blank line: so does the header
    _same_data(_wide(path), clean)
    rows = [[*row, "x"] for row in _rows()]
    # byte 0x85 is a Latin-1 character ("…" in cp1252), not a line end
    path.write_bytes(_text(rows, header="id,p,ann,bob,cy,note\x85").encode("latin-1"))
    table = _wide(path)
    _same_data(table, clean)
    assert table.frame.columns[-1] == "note\x85"


def test_rule4_an_id_with_a_comma_beside_decimal_points_is_not_a_decimal_comma(tmp_path, clean):
    rows = [[f"{row[0]},5", *row[1:]] for row in _rows()]
    path = tmp_path / "ids.csv"
    path.write_text(_text(rows, sep=";"))
    table = _wide(path)
    _same_data(table, clean)
    assert table.frame["id"].iloc[3] == "3,5"
