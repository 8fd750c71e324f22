"""bayescal labels (issue 37, item 7): aggregated labels from a long or wide table without
scores, with the gold where given, and one-line refusals of bad tables."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.data import Responses
from tests.bad_inputs.test_command import main


@pytest.fixture(scope="module")
def crowd():
    return bc.simulate_crowd(1200, 60, labels_per_item=3, seed=8)


def _long_table(crowd, gold_every=None):
    responses = crowd.data.responses()
    frame = pd.DataFrame(
        {
            "doc": [f"d{i:04d}" for i in responses.item],
            "worker": [f"w{j:03d}" for j in responses.annotator],
            "label": responses.label,
        }
    )
    if gold_every:
        gold = responses.item % gold_every == 0
        frame["human"] = np.where(gold, crowd.labels[responses.item], np.nan)
    return frame


def test_a_long_crowd_is_aggregated_with_its_gold(crowd, tmp_path, monkeypatch, capsys):
    frame = _long_table(crowd, gold_every=10)
    frame.to_csv(tmp_path / "long.csv", index=False)
    argv = ["labels", "long.csv", "--long", "--item", "doc", "--annotator", "worker"]
    status, out, err = main(tmp_path, monkeypatch, capsys, *argv, "--gold", "human", "--out", "agg")
    assert status == 0, err
    assert out.startswith(
        "bayescal labels: 1200 items, 120 of them gold, 60 annotators, 3600 labels"
    )
    written = pd.read_csv(tmp_path / "agg" / "labels.csv")
    assert list(written.columns) == ["doc", "n_labels", "gold", "p_positive", "label"]
    items = written["doc"].str.slice(1).astype(int).to_numpy()
    truth = crowd.labels[items]
    gold = written["gold"].notna().to_numpy()
    assert gold.sum() == 120
    np.testing.assert_array_equal(written["p_positive"][gold], truth[gold])
    np.testing.assert_array_equal(written["label"], written["p_positive"] >= 0.5)
    # the Python route gives the same numbers
    responses = Responses.from_long(frame, item="doc", annotator="worker")
    responses = dataclass_with_gold(responses, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.ChannelWarning)
        fit = bc.crowd_em(responses)
    np.testing.assert_allclose(written["p_positive"], fit.predict_proba(responses), rtol=1e-9)
    # better than the majority vote of the same labels
    majority = bc.correction.majority_vote_labels(crowd.data.annotations)[items] > 0.5
    assert (written["label"] == truth)[~gold].mean() > (majority == truth)[~gold].mean()
    record = json.loads((tmp_path / "agg" / "labels.json").read_text())
    assert record["n_items"] == 1200 and record["n_gold"] == 120
    assert record["estimator"].startswith("crowd_em")
    assert {a["name"] for a in record["annotators"]} == set(frame["worker"])
    assert record["input"]["gold"] == "human" and len(record["input"]["sha256"]) == 64
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--gold", "human", "--out", "agg")
    assert status == 2 and "agg already exists" in err


def dataclass_with_gold(responses, frame):
    """``responses`` with the gold of ``frame``'s ``human`` column, item by item."""
    from dataclasses import replace

    given = frame.dropna(subset=["human"]).drop_duplicates("doc")
    order = pd.Index(pd.unique(frame["doc"]))
    gold = np.full(responses.n_items, -1, np.int8)
    gold[order.get_indexer(given["doc"])] = given["human"].astype(np.int8)
    return replace(responses, gold=gold)


def test_a_wide_table_by_row_number_or_item_column(tmp_path, monkeypatch, capsys):
    simulation = bc.toy_data(800, seed=5)
    frame = pd.DataFrame(simulation.data.annotations, columns=["ann", "bob", "cy"])
    frame.loc[3, "bob"] = np.nan  # a missing label
    frame.insert(0, "id", [f"x{i}" for i in range(800)])
    frame.to_csv(tmp_path / "wide.csv", index=False)
    wide = ["labels", "wide.csv", "--annotators", "ann,bob,cy"]
    for extra in (["--out", "rows"], ["--item", "id", "--out", "ids"]):
        status, _, err = main(tmp_path, monkeypatch, capsys, *wide, *extra)
        assert status == 0, err
    by_row = pd.read_csv(tmp_path / "rows" / "labels.csv")
    assert list(by_row.columns) == ["item", "n_labels", "p_positive", "label"]
    assert by_row["item"].tolist()[:2] == [0, 1] and by_row["n_labels"][3] == 2
    by_id = pd.read_csv(tmp_path / "ids" / "labels.csv")
    assert by_id["id"].tolist()[:2] == ["x0", "x1"]
    np.testing.assert_allclose(by_id["p_positive"], by_row["p_positive"], rtol=1e-12)
    assert (by_id["label"] == simulation.labels).mean() > 0.9


def test_an_item_without_labels_gets_the_class_proportion_and_a_warning(
    crowd, tmp_path, monkeypatch, capsys
):
    frame = _long_table(crowd)
    frame.loc[frame["doc"] == "d0005", "label"] = np.nan
    frame.to_csv(tmp_path / "long.csv", index=False)
    argv = ["labels", "long.csv", "--long", "--item", "doc", "--annotator", "worker", "--out", "o"]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv)
    assert status == 0, err
    written = pd.read_csv(tmp_path / "o" / "labels.csv").set_index("doc")
    record = json.loads((tmp_path / "o" / "labels.json").read_text())
    assert "1 of 1200 items have no label: their P(Y = 1) is the class proportion" in err
    assert written.loc["d0005", "n_labels"] == 0
    assert written.loc["d0005", "p_positive"] == pytest.approx(record["prevalence"], rel=1e-12)


@pytest.mark.parametrize(
    ("edit", "extra", "message"),
    [
        (lambda f: f.rename(columns={"worker": "who"}), [], "long.csv: no column 'worker'"),
        (lambda f: f.assign(label=f["label"].replace(1, 2)), [], "column 'label', row"),
        (
            lambda f: f.assign(human=np.where(f.index == 1, 1 - f["human"].fillna(0), f["human"])),
            ["--gold", "human"],
            "column 'human', row 1: item 'd0000' has two different gold labels",
        ),
        (
            lambda f: pd.concat([f, f.iloc[[0]]]),
            [],
            "duplicated (item, annotator) pair (doc 'd0000', worker",
        ),
        (
            lambda f: f.assign(label=np.where(f["worker"] == "w000", np.nan, f["label"])),
            [],
            "annotator 'w000' gave no label at all (every label is empty); drop the annotator",
        ),
    ],
)
def test_bad_long_tables_are_refused_in_one_line(
    crowd, tmp_path, monkeypatch, capsys, edit, extra, message
):
    frame = edit(_long_table(crowd, gold_every=10))
    frame.to_csv(tmp_path / "long.csv", index=False)
    argv = ["labels", "long.csv", "--long", "--item", "doc", "--annotator", "worker", *extra]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--out", "o")
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


def test_a_wide_table_needs_its_annotators_and_one_judge_needs_gold(tmp_path, monkeypatch, capsys):
    frame = pd.DataFrame({"judge": bc.toy_data(300, seed=1).data.annotations[:, 0]})
    frame.to_csv(tmp_path / "one.csv", index=False)
    status, _, err = main(tmp_path, monkeypatch, capsys, "labels", "one.csv", "--out", "o")
    assert status == 2 and "--annotators is required for a wide table (or pass --long)" in err
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "labels", "one.csv", "--annotators", "judge", "--out", "o"
    )
    assert status == 2 and "gold" in err, err
