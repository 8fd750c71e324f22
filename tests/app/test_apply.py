"""bayescal apply: a map saved by bayescal recalibrate applied to new scores, without labels."""

import json

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.recalibration.maps import map_from_dict
from tests.bad_inputs.test_command import main


@pytest.fixture
def fitted_map(tmp_path, monkeypatch, capsys):
    """A map.json of bayescal recalibrate, and a table of new scores with an id column."""
    simulation = bc.toy_data(1500, condition="shifted", seed=3)
    data = simulation.data
    frame = pd.DataFrame({"p": data.scores})
    for k, name in enumerate(data.annotator_names):
        frame[name] = data.annotations[:, k]
    frame.to_csv(tmp_path / "labelled.csv", index=False)
    annotators = ",".join(data.annotator_names)
    argv = ["recalibrate", "labelled.csv", "--score", "p", "--annotators", annotators]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv, "--out", "fitted")
    assert status == 0, err
    new = bc.toy_data(300, condition="shifted", seed=4).data.scores
    pd.DataFrame({"id": [f"n{i:03d}" for i in range(300)], "p": new}).to_csv(
        tmp_path / "new.csv", index=False
    )
    return new


def test_the_saved_map_maps_new_scores_and_records_its_inputs(
    fitted_map, tmp_path, monkeypatch, capsys
):
    argv = ["apply", "fitted/map.json", "new.csv", "--score", "p", "--out", "applied"]
    status, out, err = main(tmp_path, monkeypatch, capsys, *argv)
    assert status == 0, err
    assert out.startswith("bayescal apply: PlattScaling(") and "applied to 300 scores" in out
    written = pd.read_csv(tmp_path / "applied" / "recalibrated.csv")
    saved = json.loads((tmp_path / "fitted" / "map.json").read_text())
    expected = map_from_dict(saved["map"]).predict(fitted_map)
    np.testing.assert_allclose(written["p_recalibrated"], expected, rtol=1e-12)
    assert list(written["id"][:2]) == ["n000", "n001"]  # the other columns carried through
    record = json.loads((tmp_path / "applied" / "applied.json").read_text())
    assert record["map"] == saved["map"] and record["output_column"] == "p_recalibrated"
    assert set(record["input"]["sha256"]) == {"map", "table"}
    # one run per folder: the same folder again needs --force
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv)
    assert status == 2 and "applied already exists" in err
    status, out, _ = main(tmp_path, monkeypatch, capsys, *argv, "--force", "--json")
    assert status == 0 and json.loads(out)["output_column"] == "p_recalibrated"


@pytest.mark.parametrize(
    ("map_text", "table_text", "score", "message"),
    [
        (None, None, "q", "new.csv: no column 'q' (columns: id, p)"),
        ("[1, 2]", None, "p", "not a map.json of bayescal recalibrate (expected an object"),
        ('{"map": {"method": "platt"}}', None, "p", "its 'map' entry is not a fitted map"),
        (
            '{"map": {"method": "platt", "parameters": [1, 2], "settings": {"eps": 1e-6}}}',
            None,
            "p",
            "document['parameters'] must hold slope, intercept for a platt map",
        ),
        (
            '{"map": {"method": "platt", "parameters": {"slope": NaN, "intercept": 0}, '
            '"settings": {"eps": 1e-6}}}',
            None,
            "p",
            "document['parameters']['slope'] must be finite numbers",
        ),
        (
            '{"map": {"method": "histogram", "parameters": {"values": [0.2, 0.7, 0.9]}, '
            '"settings": {"edges": [0, 0.5, 1], "counts": [5, 5], "strategy": "uniform", '
            '"fit_bins": 2}}}',
            None,
            "p",
            "document['parameters']['values'] must be 2 numbers in [0, 1], one per bin",
        ),
        (
            '{"map": {"method": "histogram", "parameters": {"values": [1.5, 0.2]}, '
            '"settings": {"edges": [0, 0.5, 1], "counts": [5, 5], "strategy": "uniform", '
            '"fit_bins": 2}}}',
            None,
            "p",
            "must be 2 numbers in [0, 1], one per bin; saw [1.5, 0.2]",
        ),
        (
            '{"map": {"method": "platt", "parameters": {"slope": [1, 2], "intercept": [0, 0]}, '
            '"settings": {"eps": 1e-6}}}',
            None,
            "p",
            "document['parameters']['slope'] must be one number; saw [1.0, 2.0]",
        ),
        (
            '{"map": {"method": "histogram", "parameters": {"values": [0.2, 0.4]}, '
            '"settings": {"edges": [0, 0.5, 1], "counts": [5, 5], "strategy": "bogus", '
            '"fit_bins": 2}}}',
            None,
            "p",
            "document['settings']['strategy'] must be one of",
        ),
        (
            '{"map": {"method": "histogram", "parameters": {"values": [0.2, 0.4]}, '
            '"settings": {"edges": [0, 0.7, 0.5], "counts": [5, 5], "strategy": "uniform", '
            '"fit_bins": 2}}}',
            None,
            "p",
            "document['settings']['edges'] must rise within [0, 1]",
        ),
        ("{", None, "p", "not valid JSON"),
        ("absent", None, "p", "no such file (MAP is the map.json that bayescal recalibrate"),
        (None, "id,p\na,0.2\nb,high\n", "p", "new.csv: column 'p', row 1: expected a number"),
        (
            None,
            "id,p\na,0.2\nb,1.7\n",
            "p",
            "new.csv: column 'p', row 1: expected a score in [0, 1]",
        ),
    ],
)
def test_bad_maps_and_tables_are_refused_in_one_line(
    fitted_map, tmp_path, monkeypatch, capsys, map_text, table_text, score, message
):
    map_file = "fitted/map.json"
    if map_text == "absent":
        map_file = "absent.json"
    elif map_text is not None:
        (tmp_path / "other.json").write_text(map_text)
        map_file = "other.json"
    if table_text is not None:
        (tmp_path / "new.csv").write_text(table_text)
    argv = ["apply", map_file, "new.csv", "--score", score, "--out", "applied"]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv)
    assert status == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "applied").exists()  # nothing written


def test_the_input_table_already_holding_the_output_column_is_refused(
    fitted_map, tmp_path, monkeypatch, capsys
):
    pd.DataFrame({"p": [0.1, 0.9], "p_recalibrated": [0, 0]}).to_csv(
        tmp_path / "new.csv", index=False
    )
    argv = ["apply", "fitted/map.json", "new.csv", "--score", "p", "--out", "applied"]
    status, _, err = main(tmp_path, monkeypatch, capsys, *argv)
    assert status == 2 and "already has a column 'p_recalibrated'" in err
