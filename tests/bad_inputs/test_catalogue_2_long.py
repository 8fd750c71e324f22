"""The second catalogue's rows on ``bayescal recalibrate --long`` (``BAD_INPUTS_2.md``, areas
``long`` and ``crowd``): ids are read as text, as written; a valid awkward pair of tables gives
the clean tables' map, and a bad one is refused in one line naming the file, column and row
(exit 2, no folder).  The command runs in this process."""

import json

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from tests.bad_inputs.test_catalogue_2_tables import _long
from tests.bad_inputs.test_command import NAMES, N, main


def _recalibrate(
    tmp_path, monkeypatch, capsys, *options, labels="labels.csv", scores="scores.csv", score="p"
):
    """``bayescal recalibrate LABELS --long --scores SCORES --score SCORE ...``: (status,
    stderr, the map's parameters and annotators, or None)."""
    out = tmp_path / "out"
    status, stdout, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", labels, "--long", "--scores", scores,
        "--score", score, *options, "--out", out,
    )  # fmt: skip
    if status != 0:
        assert (status, stdout, err.count("\n")) == (2, "", 1), err
        assert not out.exists()
        return status, err.removeprefix("bayescal: error: ").rstrip("\n"), None
    written = json.loads((out / "map.json").read_text())
    return status, err, (written["map"]["parameters"], written["channels"]["annotators"])


@pytest.fixture
def clean(tmp_path, monkeypatch, capsys):
    """The clean long tables' map (its parameters)."""
    folder = tmp_path / "clean"
    folder.mkdir()
    _long(folder, list(NAMES))
    status, err, (parameters, names) = _recalibrate(folder, monkeypatch, capsys)
    assert status == 0 and names == sorted(NAMES), err
    return parameters


def test_row65_scored_items_without_a_label_are_mapped_and_counted(tmp_path, monkeypatch, capsys):
    _long(tmp_path, list(NAMES), items=range(N - 10))
    status, err, _ = _recalibrate(tmp_path, monkeypatch, capsys)
    assert status == 0, err
    assert "10 of 400 items have no label" in err and "fitted on the 390 labelled items" in err
    assert len(pd.read_csv(tmp_path / "out" / "recalibrated.csv")) == N


def test_row67_a_label_for_an_item_without_a_score(tmp_path, monkeypatch, capsys):
    labels, _ = _long(tmp_path, list(NAMES))
    with labels.open("a") as file:
        file.write("5000,ann,1\n")
    _, message, _ = _recalibrate(tmp_path, monkeypatch, capsys)  # status 2 checked there
    assert message == (
        f"labels.csv: column 'item', row {3 * N}: item '5000' has no row in scores.csv"
    )


@pytest.mark.parametrize(
    "ids, options",
    [
        (["1", "2", "3"], ["--annotators", "1,2,3"]),
        (["Ann", "ann", "ANN"], []),
        (["1", "1.0", "2"], []),
        (["a0", "a0 ", "b"], []),
    ],
    ids=["row72 integer ids", "row75 ids differing in case", "row73 '1' and '1.0'",
         "row76 'a0' and 'a0 '"],
)  # fmt: skip
def test_row72_73_75_76_annotator_ids_are_text_as_written(
    tmp_path, monkeypatch, capsys, clean, ids, options
):
    # '1' and '1.0' were one worker (ids read as numbers): they are two, as written, and so
    # are 'a0' and 'a0 '; their labels are the clean table's three annotators' labels
    _long(tmp_path, ids)
    status, err, (parameters, names) = _recalibrate(tmp_path, monkeypatch, capsys, *options)
    assert status == 0, err
    assert names == (ids if options else sorted(ids))
    assert parameters == pytest.approx(clean, rel=1e-9)


def test_row74_shuffled_rows_give_the_same_map(tmp_path, monkeypatch, capsys, clean):
    labels, scores = _long(tmp_path, list(NAMES))
    rng = np.random.default_rng(74)
    for path in (labels, scores):
        frame = pd.read_csv(path, dtype=str)
        frame.sample(frac=1, random_state=rng).to_csv(path, index=False)
    status, err, (parameters, _) = _recalibrate(tmp_path, monkeypatch, capsys)
    assert status == 0, err
    assert parameters == pytest.approx(clean, rel=1e-9)


def test_row78_labels_written_true_and_false(tmp_path, monkeypatch, capsys, clean):
    labels, _ = _long(tmp_path, list(NAMES))
    text = labels.read_text().splitlines()
    text = [text[0], *(line[:-1] + ("True" if line[-1] == "1" else "False") for line in text[1:])]
    labels.write_text("\n".join(text) + "\n")
    status, err, (parameters, _) = _recalibrate(tmp_path, monkeypatch, capsys)
    assert status == 0, err
    assert parameters == pytest.approx(clean, rel=1e-9)


def test_row79_parquet_ids_stored_as_float_in_one_table_and_int_in_the_other(
    tmp_path, monkeypatch, capsys, clean
):
    labels, scores = _long(tmp_path, list(NAMES))
    pd.read_csv(labels).to_parquet(tmp_path / "labels.parquet")  # item: int64
    frame = pd.read_csv(scores)
    frame.assign(item=frame["item"].astype(float)).to_parquet(tmp_path / "scores.parquet")
    status, err, (parameters, _) = _recalibrate(
        tmp_path, monkeypatch, capsys, labels="labels.parquet", scores="scores.parquet"
    )
    assert status == 0, err
    assert parameters == pytest.approx(clean, rel=1e-9)


def test_row77_item_ids_differing_by_a_space_are_two_items(tmp_path, monkeypatch, capsys):
    labels, _ = _long(tmp_path, list(NAMES))
    labels.write_text(labels.read_text().replace("\n0,", "\n 0,", 1))
    _, message, _ = _recalibrate(tmp_path, monkeypatch, capsys)  # status 2 checked there
    assert message.startswith(
        "labels.csv: column 'item', row 0: item ' 0' has no row in scores.csv"
    )


def test_row80_a_blank_score_of_a_labelled_item(tmp_path, monkeypatch, capsys):
    _, scores = _long(tmp_path, list(NAMES))
    lines = scores.read_text().splitlines()
    lines[6] = lines[6].split(",")[0] + ","
    scores.write_text("\n".join(lines) + "\n")
    _, message, _ = _recalibrate(tmp_path, monkeypatch, capsys)  # status 2 checked there
    assert message == "scores.csv: column 'p', row 5: expected a value; saw an empty cell"


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"scores": "labels.csv", "score": "label"},
            "labels.csv: row 1: duplicated item id (item '0' appears on an earlier row)",
        ),
        (
            {"options": ["--item", "annotator", "--annotator", "item"]},
            "scores.csv: no column 'annotator' (columns: item, p)",
        ),
        ({"options": ["--label", "item"]}, "column 'item' is named as item and as label; each column has one role"),
        ({"options": ["--annotators", "ann,bob,ann"]}, "the annotators name 'ann' twice; name each annotator once"),
    ],
    ids=["row81 the labels as scores", "row82 item and annotator swapped", "row83 --label item",
         "row84 an annotator twice"],
)  # fmt: skip
def test_row81_to_84_options_that_name_the_wrong_columns(
    tmp_path, monkeypatch, capsys, options, message
):
    _long(tmp_path, list(NAMES))
    arguments = dict(options)
    status, seen, _ = _recalibrate(
        tmp_path, monkeypatch, capsys, *arguments.pop("options", ()), **arguments
    )
    assert (status, seen) == (2, message)


def _crowd(tmp_path, who, seed=85):
    """Long tables of a crowd: ``who`` is a list of (item, worker id) pairs; each worker's
    channel is drawn at random, and the items' scores and truth are a toy simulation's."""
    rng = np.random.default_rng(seed)
    sim = bc.toy_data(max(i for i, _ in who) + 1, seed=seed)
    workers = sorted({w for _, w in who})
    a = dict(zip(workers, rng.uniform(0.05, 0.25, len(workers))))
    b = dict(zip(workers, rng.uniform(0.7, 0.95, len(workers))))
    lines = ["item,annotator,label"] + [
        f"{i},{w},{int(rng.random() < (b[w] if sim.labels[i] else a[w]))}" for i, w in who
    ]
    (tmp_path / "labels.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "scores.csv").write_text(
        "item,p\n" + "".join(f"{i},{z:.6f}\n" for i, z in enumerate(sim.data.scores))
    )
    return sim


def _map_json(tmp_path):
    return json.loads((tmp_path / "out" / "map.json").read_text())


def test_row86_one_worker_on_95_percent_of_the_items_and_forty_on_two_labels_each(
    tmp_path, monkeypatch, capsys
):
    rng = np.random.default_rng(86)
    n = 2000
    who = [(i, "main") for i in range(n) if rng.random() < 0.95]
    who += [(i, f"w{w}") for i in range(n) for w in rng.choice(40, 2, replace=False)]
    _crowd(tmp_path, who)
    status, err, _ = _recalibrate(tmp_path, monkeypatch, capsys)
    assert status == 0, err
    written = _map_json(tmp_path)
    assert written["channels"]["estimator"] == "crowd_em" and written["map"]["method"] == "platt"
    assert len(written["channels"]["annotators"]) == 41


def test_row88_six_thousand_workers_of_one_label_each_share_the_pooled_channel(
    tmp_path, monkeypatch, capsys
):
    n = 2000
    _crowd(tmp_path, [(i, f"w{3 * i + k}") for i in range(n) for k in range(3)])
    status, err, _ = _recalibrate(tmp_path, monkeypatch, capsys)
    assert status == 0, err
    written = _map_json(tmp_path)
    assert written["channels"]["estimator"] == "crowd_em"
    assert len(written["channels"]["pooled"]) == 3 * n  # every worker: one label is no channel


def test_row94_a_crowd_giving_each_item_one_label_is_refused(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(94)
    _crowd(tmp_path, [(i, f"w{rng.integers(50)}") for i in range(1000)])
    _, message, _ = _recalibrate(tmp_path, monkeypatch, capsys)  # status 2 checked there
    assert "no item has labels from two annotators (1000 items, at most one label each)" in message
