"""The second catalogue's rows on the command's arguments and prior files (``BAD_INPUTS_2.md``,
areas ``args`` and ``priors``): each is refused before any sampling, in one line naming the
argument (or the file and key) and what it saw, exit status 2, and no results folder."""

import json
import re

import pytest

from tests.bad_inputs.test_command import WIDE, _rows, _text, main

PRIOR_FILES = {
    "p120.json": {"sensitivity": [0, 1]},
    "p121.json": {"false_positive": [-1, 2]},
    "p126.json": {"Sensitivity": [8, 2]},
    "p127.json": {"sensitivity": [8, 2, 3]},
}

REFUSED = [
    # (rows, arguments, the message's last line)
    ("95", ["--n-bins", "0"], r"argument --n-bins: expected a positive integer or 'auto'; saw 0$"),
    ("96", ["--n-bins", "1.5"], r"--n-bins: expected a positive integer or 'auto'; saw '1.5'$"),
    ("98", ["--seed", "-1"], r"argument --seed: expected a non-negative integer; saw -1$"),
    ("99", ["--seed", str(2**63)], r"seed must be below 2\*\*63; saw 9223372036854775808$"),
    ("99", ["--seed", str(10**23)], r"seed must be below 2\*\*63; saw 100000000000000000000000$"),
    ("100", ["--chains", "0"], r"argument --chains: expected a positive integer; saw 0$"),
    ("101", ["--dependent", "ann", "zz"], r"dependent: 'zz' is not an annotator of the data"),
    (
        "102",
        ["--dependent", "ann", "ann"],
        r"a pair needs two different annotators; saw \('ann', 'ann'\)",
    ),
    (
        "103",
        # pairs may share an annotator since issue 38 (a tree of pairs); three annotators
        # cannot identify two pairs, which is still refused before any sampling
        ["--dependent", "ann", "bob", "--dependent", "bob", "cy"],
        r"cannot be identified: the model has 11 parameters .* for 7 free cells",
    ),
    (
        "105",
        ["--dependent", "ann", "bob"],
        r"cannot be identified: the model has 9 parameters .* for 7 free cells",
    ),
    (
        "106",
        ["--thresholds", "0.7,0.3"],
        r"thresholds must be strictly increasing; saw \[0.7, 0.3\]",
    ),
    (
        "107",
        ["--thresholds", "0,1"],
        r"thresholds must lie strictly inside \(0, 1\); saw \[0.0, 1.0\]",
    ),
    (
        "108",
        ["--thresholds", "0.5,0.5"],
        r"thresholds must be strictly increasing; saw \[0.5, 0.5\]",
    ),
    ("109", ["--thresholds", "nan"], r"thresholds must be finite; saw nan at position 0"),
    (
        "116",
        ["--model", "shared-difficulty"],
        r"the shared-difficulty model \(one loading per class\) cannot be identified",
    ),
    ("120", ["--prior", "p120.json"], r"p120\.json: the prior: sensitivity must hold two positive"),
    (
        "121",
        ["--prior", "p121.json"],
        r"p121\.json: the prior: false_positive must hold two positive",
    ),
    (
        "126",
        ["--prior", "p126.json"],
        r"keys among false_positive, sensitivity, prevalence \(or, for multi-class labels, "
        r"confusion, proportion\); saw \['Sensitivity'\]",
    ),
    (
        "127",
        ["--prior", "p127.json"],
        r"sensitivity must be a pair \(alpha, beta\) of Beta parameters; saw \(8, 2, 3\)",
    ),
]


@pytest.mark.parametrize(("rows", "arguments", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_rows_95_to_127_bad_arguments_are_refused_in_one_line_before_any_work(
    tmp_path, monkeypatch, capsys, rows, arguments, message
):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    for name, content in PRIOR_FILES.items():
        (tmp_path / name).write_text(json.dumps(content))
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", "t.csv", *WIDE, "--quiet", "--out", "run", *arguments
    )
    lines = err.strip().splitlines()
    assert status == 2 and out == "", (status, out)
    assert lines[-1].startswith(("bayescal: error: ", "bayescal fit: error: ")), err
    assert re.search(message, lines[-1]), lines[-1]
    assert not (tmp_path / "run").exists()


def test_row110_an_empty_annotator_list_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "fit", "t.csv", "--score", "p", "--annotators", ""
    )
    assert status == 2
    assert (
        err.strip()
        .splitlines()[-1]
        .endswith("argument --annotators: expected comma-separated column names; saw ''")
    )
