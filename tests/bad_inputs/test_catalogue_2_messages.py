"""The second catalogue's unclear errors (``BAD_INPUTS_2.md``, rule 9): each was an error
already, but its message misled (a folder called "no such file", a line number where every
other message counts rows, two spellings of one name printed alike).  Each test names its row
and asserts the whole message's point: what is wrong, where, and what to do."""

import os
import unicodedata

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.data.tables import read_long_tables, read_wide_table
from tests.bad_inputs.test_command import NAMES, WIDE, _rows, _text, main


def _wide(path, **options):
    return read_wide_table(path, score="p", annotators=list(NAMES), **options)


def test_row47_a_comment_above_the_header_is_named_as_one(tmp_path):
    path = tmp_path / "comment.csv"
    path.write_text("# exported from labelling tool v2\n" + _text(_rows()))
    with pytest.raises(bc.TableError) as error:
        _wide(path)
    assert str(error.value) == (
        f"{path}: row 0: 5 cells under a header of 1 columns; name every column in the "
        "header, or remove the extra cells; the header line '# exported from labelling tool "
        "v2' starts with '#': if it is a comment, delete it (the header is the first line)"
    )


def test_a_first_column_named_hash_is_a_column_not_a_comment(tmp_path):
    path = tmp_path / "hash.csv"
    path.write_text(_text(_rows(), header="#,p,ann,bob,cy"))
    table = _wide(path)
    assert table.data.n_items == len(_rows())


def test_row53_a_row_with_an_extra_field_is_counted_in_rows_not_lines(tmp_path):
    rows = _rows()
    rows[4] = [*rows[4], "9"]  # line 6 of the file, row 4 below the header
    path = tmp_path / "extra.csv"
    path.write_text(_text(rows))
    with pytest.raises(bc.TableError, match=r"extra\.csv: row 4: 6 cells under a header of 5 "):
        _wide(path)


@pytest.mark.parametrize(
    ("typed", "header", "said"),
    [
        ("a0", "a0 ", "column 'a0 ' differs from 'a0' only in spaces: rename it in the header"),
        (
            unicodedata.normalize("NFC", "José"),
            unicodedata.normalize("NFD", "José"),
            "is written with other Unicode code points (composed and decomposed accents)",
        ),
    ],
    ids=["row23-trailing-space", "row20-decomposed-accent"],
)
def test_rows20_23_a_column_written_almost_alike_is_named(tmp_path, typed, header, said):
    path = tmp_path / "near.csv"
    path.write_text(_text(_rows(), header=f"id,p,{header},bob,cy"))
    with pytest.raises(bc.TableError) as error:
        read_wide_table(path, score="p", annotators=[typed, "bob", "cy"])
    assert f"no column {typed!r}" in str(error.value) and said in str(error.value)


def test_a_column_merely_absent_gets_no_hint(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(_text(_rows()))
    with pytest.raises(bc.TableError) as error:
        read_wide_table(path, score="p", annotators=["dan", "bob", "cy"])
    assert str(error.value).endswith("(columns: id, p, ann, bob, cy)")


def test_row59_a_folder_is_called_a_folder(tmp_path):
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(bc.TableError, match=r"dir\.csv: is a folder; expected a table file$"):
        _wide(tmp_path / "dir.csv")


def test_row60_standard_input_and_a_pipe_are_named(tmp_path, monkeypatch, capsys):
    status, _, err = main(tmp_path, monkeypatch, capsys, "recalibrate", "-", *WIDE, "--out", "o")
    assert status == 2
    assert err.strip() == (
        "bayescal: error: -: a table is read from a file, not from standard input; save it "
        "and pass its path"
    )
    os.mkfifo(tmp_path / "fifo.csv")
    with pytest.raises(
        bc.TableError, match=r"fifo\.csv: not a regular file \(a pipe or a device\)"
    ):
        _wide(tmp_path / "fifo.csv")


def test_row40_a_timestamp_score_column_is_named_as_dates(tmp_path):
    frame = pd.DataFrame({"p": pd.to_datetime([1.0e9, 2.0e9, 3.0e9]), "ann": [0, 1, 1]})
    frame["bob"], frame["cy"] = [1, 1, 0], [0, 1, 1]
    frame.to_parquet(tmp_path / "ts.parquet")
    with pytest.raises(
        bc.TableError,
        match=r"column 'p' holds dates or durations \(datetime64\[ns\]\); expected a number$",
    ):
        _wide(tmp_path / "ts.parquet")


def test_row68_ids_alike_as_numbers_but_not_as_text_are_named(tmp_path):
    labels = pd.DataFrame(
        {"item": ["0.0", "0.0", "1.0", "1.0"], "annotator": ["x", "y"] * 2, "label": [0, 1, 1, 1]}
    )
    labels.to_csv(tmp_path / "labels.csv", index=False)
    pd.DataFrame({"item": [0, 1], "score": [0.2, 0.7]}).to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(bc.TableError) as error:
        read_long_tables(tmp_path / "labels.csv", tmp_path / "s.csv", score="score")
    assert str(error.value).endswith(
        "item '0.0' has no row in "
        f"{tmp_path / 's.csv'} (ids are compared as text: '0.0' is not '0'; write the ids "
        "alike in both tables)"
    )


def test_row216_an_empty_item_id_in_the_scores_is_named_where_it_is():
    labels = pd.DataFrame(
        {"item": [0, 0, 1, 1], "annotator": ["x", "y"] * 2, "label": [0, 1, 1, 1]}
    )
    scores = pd.DataFrame({"item": [0.0, np.nan], "score": [0.2, 0.7]})
    with pytest.raises(
        ValueError,
        match=r"^scores column 'item', row 1: expected an id; saw an empty cell \(1 in all\)$",
    ):
        bc.AnnotatedScores.from_long(labels, scores)
    scores = pd.DataFrame({"item": np.array([0, 5]), "score": [0.2, 0.7]})
    with pytest.raises(ValueError, match=r"^labels mention item 1, which has no row in scores$"):
        bc.AnnotatedScores.from_long(labels, scores)  # 1, not np.int64(1)


def test_row221_a_level_given_as_text_says_the_range_it_needs():
    data = bc.toy_data(200, seed=1).data
    with pytest.raises(
        TypeError, match=r"^level must be a number strictly between 0 and 1; saw '0\.9'$"
    ):
        bc.analyse(data, level="0.9")


def test_row104_a_pair_given_twice_is_called_repeated():
    data = bc.toy_data(200, seed=1).data
    with pytest.raises(
        ValueError,
        match=r"dependent: the pair \('a1', 'a0'\) is given twice \(as \('a0', 'a1'\) and "
        r"\('a1', 'a0'\)\); give each pair once$",
    ):
        bc.dawid_skene_em(data, dependent=[("a0", "a1"), ("a1", "a0")])
