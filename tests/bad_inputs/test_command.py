"""The bad-input catalogue (../shared/BAD_INPUTS.md, issue 16), the command on a user's tables:
rows #1-#14 (one line naming the file, column and row, exit 2, no folder written) and rows
#20-#25 and #33 (awkward but valid tables: the clean table's numbers, or a result with a
one-line warning).  The command runs in this process (``bayescal.app.cli.main``), as the console
script runs it."""

import json
import os
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.app import cli
from bayescal.data.tables import read_wide_table

N = 400
SIM = bc.toy_data(N, seed=11)
NAMES = ("ann", "bob", "cy")
WIDE = ["--score", "p", "--annotators", "ann,bob,cy"]


def _rows(n=N):
    """The clean table's data rows: an id, the score, three annotators' labels (as text)."""
    return [
        [str(i), f"{score:.6f}", *map(str, labels)]
        for i, (score, labels) in enumerate(zip(SIM.data.scores[:n], SIM.data.annotations[:n]))
    ]


def _text(rows, header="id,p,ann,bob,cy", sep=",", newline="\n"):
    return newline.join([header.replace(",", sep), *(sep.join(row) for row in rows)]) + newline


def _changed(row, column, value):
    rows = _rows()
    rows[row][column] = value
    return _text(rows)


def _long_labels(extra=""):
    lines = ["item,annotator,label"]
    lines += [
        f"{i},{name},{SIM.data.annotations[i, j]}" for i in range(N) for j, name in enumerate(NAMES)
    ]
    return "\n".join(lines) + "\n" + extra


def _long_scores(first_id="0"):
    lines = ["item,p", *(f"{i},{s:.6f}" for i, s in enumerate(SIM.data.scores))]
    lines[1] = f"{first_id},{SIM.data.scores[0]:.6f}"
    return "\n".join(lines) + "\n"


def _parquet_bytes():
    import io

    buffer = io.BytesIO()
    pd.DataFrame(_rows(), columns=["id", "p", *NAMES]).to_parquet(buffer)
    return buffer.getvalue()


def main(tmp_path, monkeypatch, capsys, *argv):
    """``bayescal ARGV`` in this process: (exit status, standard output, standard error)."""
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))  # restored afterwards
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.resetwarnings()  # a fresh interpreter's filters, not the suite's "error"
        try:
            status = cli.main([str(a) for a in argv])
        except SystemExit as exit_:  # argparse's usage errors
            status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


#: (files to write: name -> text or bytes, the table's name, arguments, the error line).
#: ``{folder}`` in a message is the case's folder.
ERRORS = {
    # row 1
    "score names a missing column": (
        {"t.csv": _text(_rows())},
        ["--score", "q", "--annotators", "ann"],
        "{folder}/t.csv: no column 'q' (columns: id, p, ann, bob, cy)",
    ),
    # row 2
    "score 'high'": (
        {"t.csv": _changed(7, 1, "high")},
        WIDE,
        "{folder}/t.csv: column 'p', row 7: expected a number; saw 'high'",
    ),
    "score '17.9%'": (
        {"t.csv": _changed(7, 1, "17.9%")},
        WIDE,
        "{folder}/t.csv: column 'p', row 7: expected a number; saw '17.9%'",
    ),
    # row 3
    "scores as 0-100": (
        {"t.csv": _text([[r[0], f"{100 * float(r[1]):.2f}", *r[2:]] for r in _rows()])},
        WIDE,
        f"{{folder}}/t.csv: column 'p', row 0: expected a score in [0, 1]; saw {100 * SIM.data.scores[0]:.2f}",
    ),
    # row 4
    "NaN score": (
        {"t.csv": _changed(7, 1, "nan")},
        WIDE,
        "{folder}/t.csv: column 'p', row 7: expected a value; saw an empty cell",
    ),
    "inf score": (
        {"t.csv": _changed(7, 1, "inf")},
        WIDE,
        "{folder}/t.csv: column 'p', row 7: expected a score in [0, 1]; saw inf",
    ),
    # row 5
    "label yes": (
        {"t.csv": _changed(3, 2, "yes")},
        WIDE,
        "{folder}/t.csv: column 'ann', row 3: expected 0, 1 or empty; saw 'yes'",
    ),
    "label 2": (
        {"t.csv": _changed(3, 3, "2")},
        WIDE,
        "{folder}/t.csv: column 'bob', row 3: expected 0, 1 or empty; saw 2",
    ),
    "label -1": (
        {"t.csv": _changed(3, 4, "-1")},
        WIDE,
        "{folder}/t.csv: column 'cy', row 3: expected 0, 1 or empty; saw -1",
    ),
    "label ?": (
        {"t.csv": _changed(3, 2, "?")},
        WIDE,
        "{folder}/t.csv: column 'ann', row 3: expected 0, 1 or empty; saw '?'",
    ),
    # row 7: a spreadsheet's empty rows are cells without values, not the end of the table
    "Excel-style trailing ,,,, rows": (
        {"t.csv": _text(_rows()) + ",,,,\n" * 3},
        WIDE,
        f"{{folder}}/t.csv: column 'p', row {N}: expected a value; saw an empty cell",
    ),
    # row 8: nothing is ever unpickled
    "Parquet named .csv": (
        {"t.csv": _parquet_bytes()},
        WIDE,
        "{folder}/t.csv: not a text table (it holds NUL bytes: a binary file, or UTF-16 text); "
        "save it as CSV in UTF-8",
    ),
    "a .pkl file": (
        {"t.pkl": pickle.dumps(pd.DataFrame({"p": [0.5]}))},
        WIDE,
        "{folder}/t.pkl: expected a table ending in .csv, .tsv, .parquet, .pq; saw '.pkl'",
    ),
    "a pickle named .parquet": (
        {"t.parquet": pickle.dumps(pd.DataFrame({"p": [0.5]}))},
        WIDE,
        "{folder}/t.parquet: cannot be read as PARQUET (ArrowInvalid: Could not open Parquet "
        "input source '{folder}/t.parquet': Parquet magic bytes not found in footer. Either the "
        "file is corrupted or this is not a parquet file.)",
    ),
    # row 9
    "an empty file": (
        {"t.csv": ""},
        WIDE,
        "{folder}/t.csv: the file is empty; expected a header line and one row per item",
    ),
    "a header only": (
        {"t.csv": "id,p,ann,bob,cy\n"},
        WIDE,
        "{folder}/t.csv: the table has no rows",
    ),
    # row 10
    "an annotator listed twice": (
        {"t.csv": _text(_rows())},
        ["--score", "p", "--annotators", "ann,bob,ann"],
        "the annotators name 'ann' twice; name each annotator once",
    ),
    "an annotator with no labels": (
        {"t.csv": _text([[*r, ""] for r in _rows()], header="id,p,ann,bob,cy,dee")},
        ["--score", "p", "--annotators", "ann,bob,cy,dee"],
        "{folder}/t.csv: column 'dee': the annotator gave no label at all; drop it",
    ),
    # row 12
    "a truth column with a gap": (
        {
            "t.csv": _text(
                [[*r, "" if i == 5 else str(SIM.labels[i])] for i, r in enumerate(_rows())],
                header="id,p,ann,bob,cy,y",
            )
        },
        [*WIDE, "--truth", "y"],
        "{folder}/t.csv: column 'y', row 5: expected a value; saw an empty cell",
    ),
    # row 13
    "long format without --scores": (
        {"t.csv": _long_labels()},
        ["--score", "p", "--long"],
        "--long needs --scores, the table of item scores",
    ),
    "long format, a repeated (item, annotator)": (
        {"t.csv": _long_labels("3,ann,1\n"), "s.csv": _long_scores()},
        ["--score", "p", "--long", "--scores", "s.csv"],
        f"{{folder}}/t.csv: row {3 * N}: duplicated (item, annotator) pair (item '3', "
        "annotator 'ann' appears on an earlier row)",
    ),
    "long format, item ids that do not match": (
        {"t.csv": _long_labels(), "s.csv": _long_scores(first_id="00")},
        ["--score", "p", "--long", "--scores", "s.csv"],
        "{folder}/t.csv: column 'item', row 0: item '0' has no row in s.csv (ids are compared "
        "as text: '0' is not '00'; write the ids alike in both tables)",
    ),
    # row 14: score groups and priors
    "a threshold outside (0, 1)": (
        {"t.csv": _text(_rows())},
        [*WIDE, "--thresholds", "0.5,1.5"],
        "thresholds must lie strictly inside (0, 1); saw [0.5, 1.5]",
    ),
    "thresholds out of order": (
        {"t.csv": _text(_rows())},
        [*WIDE, "--thresholds", "0.6,0.4"],
        "thresholds must be strictly increasing; saw [0.6, 0.4]",
    ),
}

#: row 14's prior files (``bayescal fit --prior FILE``): the file's text and the error's end.
BAD_PRIORS = {
    "not JSON": (
        "sensitivity: 8, 2",
        "not valid JSON (Expecting value: line 1 column 1 (char 0))",
    ),
    "a number": (
        "42",
        "the prior: expected an object with keys among false_positive, "
        "sensitivity, prevalence (or, for multi-class labels, confusion, proportion); saw int",
    ),
    "a list": (
        "[8, 2]",
        "the prior: expected an object with keys among false_positive, "
        "sensitivity, prevalence (or, for multi-class labels, confusion, proportion); saw list",
    ),
    "an unknown key": (
        '{"fpr": [1, 9]}',
        "the prior: expected an object with keys among false_positive, sensitivity, "
        "prevalence (or, for multi-class labels, confusion, proportion); saw ['fpr']",
    ),
    "one number": (
        '{"prevalence": [1]}',
        "the prior: prevalence must be a pair (alpha, beta) of Beta parameters; saw (1,)",
    ),
    "a negative parameter": (
        '{"sensitivity": [-1, 2]}',
        "the prior: sensitivity must hold two positive, finite Beta parameters; saw (-1, 2)",
    ),
    "text for a number": (
        '{"sensitivity": ["8", 2]}',
        "the prior: sensitivity must hold two positive, finite Beta parameters; saw ('8', 2)",
    ),
}


def _write_files(folder, files):
    for name, content in files.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return folder / next(iter(files))


@pytest.mark.parametrize("command", ["fit", "recalibrate"])
@pytest.mark.parametrize("case", list(ERRORS))
def test_rows_1_to_14_a_bad_table_is_one_line_naming_file_column_and_row(
    tmp_path, monkeypatch, capsys, case, command
):
    files, arguments, message = ERRORS[case]
    table = _write_files(tmp_path, files)
    status, out, err = main(
        tmp_path, monkeypatch, capsys, command, table, *arguments, "--out", tmp_path / "out"
    )
    assert (status, out) == (2, "")
    assert err == f"bayescal: error: {message.format(folder=tmp_path)}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", list(BAD_PRIORS))
def test_row14_a_bad_prior_file_is_one_line_naming_it(tmp_path, monkeypatch, capsys, case):
    text, message = BAD_PRIORS[case]
    table = _write_files(tmp_path, {"t.csv": _text(_rows()), "prior.json": text})
    status, out, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "fit",
        table,
        *WIDE,
        "--prior",
        tmp_path / "prior.json",
        "--out",
        tmp_path / "out",
    )
    assert (status, out) == (2, "")
    assert err == f"bayescal: error: {tmp_path}/prior.json: {message}\n"


@pytest.mark.parametrize(
    "arguments, usage_error",
    [
        (["--groups", "1"], "argument --groups: expected an integer >= 2; saw 1"),
        (
            ["--thresholds", "a,b"],
            "argument --thresholds: expected comma-separated numbers in (0, 1); saw 'a,b'",
        ),
    ],
)
def test_row14_bad_group_options_are_usage_errors(
    tmp_path, monkeypatch, capsys, arguments, usage_error
):
    table = _write_files(tmp_path, {"t.csv": _text(_rows())})
    status, out, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "recalibrate",
        table,
        *WIDE,
        *arguments,
        "--out",
        tmp_path / "out",
    )
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == f"bayescal recalibrate: error: {usage_error}"


def test_row12_an_existing_recalibrated_column_is_refused_before_any_fit(
    tmp_path, monkeypatch, capsys
):
    table = _write_files(
        tmp_path,
        {"t.csv": _text([[*r, "0.5"] for r in _rows()], header="id,p,ann,bob,cy,p_recalibrated")},
    )
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", table, *WIDE, "--out", tmp_path / "out"
    )
    assert (status, out) == (2, "")  # no EM warning before it: refused before the fit
    assert err == (
        f"bayescal: error: {table}: the table already has a column 'p_recalibrated', where the "
        "recalibrated scores would go; rename it\n"
    )


#: row 20: each of these tables reads as the clean table (the same scores and labels).
SAME_AS_CLEAN = {
    "CRLF line ends": lambda: _text(_rows(), newline="\r\n"),
    "a UTF-8 byte-order mark": lambda: "\ufeff" + _text(_rows()),
    "quoted numbers": lambda: _text([[f'"{cell}"' for cell in r] for r in _rows()]),
    "trailing blank lines": lambda: _text(_rows()) + "\n\n\n",
    "spaces around values": lambda: _text([[f" {cell} " for cell in r] for r in _rows()]),
    "labels as 1.0 and 0.0": lambda: _text([[*r[:2], *(f"{c}.0" for c in r[2:])] for r in _rows()]),
    "labels as True and False": lambda: _text(
        [[*r[:2], *("True" if c == "1" else "False" for c in r[2:])] for r in _rows()]
    ),
    "semicolons": lambda: _text(_rows(), sep=";"),
}


@pytest.mark.parametrize("case", list(SAME_AS_CLEAN))
@pytest.mark.parametrize("suffix", [".csv", ".CSV"])
def test_row20_awkward_spellings_read_as_the_clean_table(tmp_path, case, suffix):
    clean = read_wide_table(
        _write_files(tmp_path, {"clean.csv": _text(_rows())}), score="p", annotators=NAMES
    )
    path = tmp_path / f"awkward{suffix}"
    path.write_bytes(SAME_AS_CLEAN[case]().encode("utf-8"))
    awkward = read_wide_table(path, score="p", annotators=NAMES)
    np.testing.assert_array_equal(awkward.data.scores, clean.data.scores)
    np.testing.assert_array_equal(awkward.data.annotations, clean.data.annotations)


def test_row20_scores_exactly_0_and_1_are_scores(tmp_path):
    rows = _rows()
    rows[0][1], rows[1][1] = "0", "1"
    table = read_wide_table(
        _write_files(tmp_path, {"t.csv": _text(rows)}), score="p", annotators=NAMES
    )
    assert table.data.scores[:2].tolist() == [0.0, 1.0]


def _recalibrate(tmp_path, monkeypatch, capsys, columns: dict, score="p"):
    """``bayescal recalibrate`` on the clean scores and the given annotator columns (0/1/""):
    (exit status, standard output, the warning lines)."""
    names = list(columns)
    rows = [
        [f"{SIM.data.scores[i]:.6f}", *(str(columns[name][i]) for name in names)] for i in range(N)
    ]
    header = ",".join(["p", *(f'"{name}"' for name in names)])
    table = _write_files(tmp_path, {"t.csv": _text(rows, header=header)})
    quoted = ",".join(f'"{name}"' for name in names if name != score)
    status, out, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "recalibrate",
        table,
        "--score",
        score,
        "--annotators",
        quoted,
        "--out",
        tmp_path / "out",
    )
    return status, out, err.splitlines()


def _annotator(rng, a, b, truth=SIM.labels):
    """Labels of an annotator with false-positive rate ``a`` and sensitivity ``b``."""
    return (rng.random(truth.size) < np.where(truth == 1, b, a)).astype(int)


SATURATED = (
    "bayescal: warning: dawid_skene_em: the model is saturated (7 parameters for 7 free cells): "
    "it has as many parameters as free cells, so it fits the response frequencies exactly and "
    "leaves no degrees of freedom to check its fit (SaturatedModelWarning)"
)


def _platt(tmp_path, monkeypatch, capsys, columns):
    """The fitted Platt map's (slope, intercept) and the warning lines."""
    status, out, warnings_ = _recalibrate(tmp_path, monkeypatch, capsys, columns)
    assert status == 0 and out.startswith("bayescal recalibrate: PlattScaling(")
    parameters = json.loads((tmp_path / "out" / "map.json").read_text())["map"]["parameters"]
    return np.array([parameters["slope"], parameters["intercept"]]), warnings_


def _three_and(column):
    columns = {name: SIM.data.annotations[:, j] for j, name in enumerate(NAMES)}
    return {**columns, "odd": column}


def test_row33_23_an_adversarial_annotator_counts_reversed_with_one_warning(
    tmp_path, monkeypatch, capsys
):
    """The catalogue's case: refused, with advice naming an option the command lacks.  Now the
    population orients the model and the adversarial annotator's labels count reversed: the
    map lies within 0.06 of the one fitted at the true channels, not near the one that reads
    the annotator as honest (slope 0.27 lower)."""
    rng = np.random.default_rng(3)
    odd = _annotator(rng, a=0.8, b=0.2)
    fitted, warnings_ = _platt(tmp_path, monkeypatch, capsys, _three_and(odd))
    assert len(warnings_) == 1 and warnings_[0].startswith(
        "bayescal: warning: dawid_skene_em: annotator odd is estimated adversarial "
        "(b < a by more than twice its standard error"
    )
    data = bc.AnnotatedScores(
        np.round(SIM.data.scores, 6), np.column_stack([SIM.data.annotations, odd])
    )
    a, b = SIM.channels.a, SIM.channels.b
    maps = {
        read: bc.recalibrate(data, method="platt", channels=channels)
        for read, channels in {
            "as adversarial": bc.Channels([*a, 0.8], [*b, 0.2], adversarial=True),
            "as honest": bc.Channels([*a, 0.2], [*b, 0.8]),
        }.items()
    }
    true_map = np.array([maps["as adversarial"].slope_, maps["as adversarial"].intercept_])
    np.testing.assert_allclose(fitted, true_map, atol=0.06)
    assert maps["as adversarial"].slope_ - maps["as honest"].slope_ > 0.25


def test_row33_23_an_annotator_with_three_labels_barely_moves_the_map(
    tmp_path_factory, monkeypatch, capsys
):
    """Refused at the catalogue's commit; now its three labels count for three items: the map
    lies within 0.02 of the one fitted without it (400 items)."""
    columns = _three_and(np.array([*SIM.labels[:3], *[""] * (N - 3)], dtype=object))
    fitted, warnings_ = _platt(tmp_path_factory.mktemp("odd"), monkeypatch, capsys, columns)
    del columns["odd"]
    alone, saturated = _platt(tmp_path_factory.mktemp("alone"), monkeypatch, capsys, columns)
    assert saturated == [SATURATED]
    np.testing.assert_allclose(fitted, alone, atol=0.02)
    assert all(line.endswith("(ChannelWarning)") for line in warnings_)


def test_row22_annotators_who_all_agree_give_the_clean_labels_map(tmp_path, monkeypatch, capsys):
    """Three annotators who give the true label: the corrected labels are the true ones, so the
    map is the one fitted to the truth.  That they agree on every item is said first (rule 8 of
    the second catalogue: one annotator copying another looks the same)."""
    columns = dict.fromkeys(NAMES, SIM.labels)
    status, out, warnings_ = _recalibrate(tmp_path, monkeypatch, capsys, columns)
    copies = (
        f"bayescal: warning: data: ann and bob ({N} items), ann and cy ({N} items), bob and cy "
        f"({N} items): each pair gave the same label on every item both labelled, so one copies "
        "the other (or neither ever errs). A model of annotators independent given Y takes such "
        "a pair's labels for the truth (their channels come out perfect) and measures NC-ECE "
        "against them: leave one of each pair out (DependenceWarning)"
    )
    assert status == 0 and warnings_ == [copies, SATURATED]
    truth = bc.AnnotatedScores(np.round(SIM.data.scores, 6), np.column_stack([SIM.labels] * 3))
    on_truth = bc.recalibrate(truth, method="platt", channels=bc.Channels([0.0] * 3, [1.0] * 3))
    assert out.startswith(f"bayescal recalibrate: {on_truth!r} fitted")


def test_row22_two_annotators_without_groups_use_the_default_score_groups(
    tmp_path, monkeypatch, capsys
):
    columns = {name: SIM.data.annotations[:, j] for j, name in enumerate(NAMES[:2])}
    status, out, warnings_ = _recalibrate(tmp_path, monkeypatch, capsys, columns)
    assert status == 0 and warnings_ == []
    assert "fitted to labels corrected by grouped_em" in out


def test_row25_an_annotator_column_as_the_score_is_a_valid_0_1_score(tmp_path, monkeypatch, capsys):
    """Scores of only 0 and 1 are scores: two groups, a saturated Hui–Walter model, one warning."""
    columns = {name: SIM.data.annotations[:, j] for j, name in enumerate(NAMES)}
    status, out, warnings_ = _recalibrate(tmp_path, monkeypatch, capsys, columns, score="ann")
    assert status == 0 and "fitted to labels corrected by grouped_em" in out
    assert warnings_ == [
        "bayescal: warning: grouped_em: the model is saturated (6 parameters for 6 free cells): it has "
        "as many parameters as free cells, so it fits the response frequencies exactly and leaves "
        "no degrees of freedom to check its fit (SaturatedModelWarning)"
    ]


def test_row30_more_bins_than_items_are_refused_before_sampling(tmp_path, monkeypatch, capsys):
    """The catalogue's case: ``fit --n-bins 20000`` on 500 items printed NC-ECE 0.44 without a
    word.  It then warned; since the second catalogue (rows 181-183: memory followed the bins,
    23.7 GB for 50 items) the command refuses it in one line, before sampling."""
    table = _write_files(tmp_path, {"t.csv": _text(_rows())})
    status, out, err = main(
        tmp_path, monkeypatch, capsys, "fit", table, *WIDE, "--n-bins", "2000", "--out", "out"
    )
    assert (status, out) == (2, "")
    assert err.startswith(
        f"bayescal: error: n_bins must not exceed the number of items ({N}): each posterior draw"
    )
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_row24_sixty_sparse_annotators_in_long_format_recalibrate_without_noise(
    tmp_path, monkeypatch, capsys
):
    """The catalogue's case worked, with a stray numpy "invalid value encountered in divide"
    on the console: 60 workers with varied channels, three labels per item, 1500 items (a
    crowd: the channels come from crowd_em, on the sparse responses)."""
    rng = np.random.default_rng(8)
    sim = bc.toy_data(1500, seed=8)
    a, b = rng.uniform(0.05, 0.3, 60), rng.uniform(0.7, 0.95, 60)
    lines = ["item,annotator,label"]
    for i, label in enumerate(sim.labels):
        for w in rng.choice(60, 3, replace=False):
            lines.append(f"it{i},w{w},{int(rng.random() < (b[w] if label else a[w]))}")
    scores = ["item,p", *(f"it{i},{s:.6f}" for i, s in enumerate(sim.data.scores))]
    labels = _write_files(
        tmp_path, {"labels.csv": "\n".join(lines) + "\n", "scores.csv": "\n".join(scores) + "\n"}
    )
    status, out, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "recalibrate",
        labels,
        "--long",
        "--scores",
        "scores.csv",
        "--score",
        "p",
        "--out",
        "out",
    )
    assert (status, err) == (0, "")
    assert out.startswith("bayescal recalibrate: PlattScaling(") and "by crowd_em" in out


def test_recalibrate_a_crowd_in_long_format_with_odd_workers_named_in_one_line_each(
    tmp_path, monkeypatch, capsys
):
    """Issue 17: 30 workers (good, spammers, constant, adversarial), 3 labels per item, as a
    long table.  The channels are estimated on the sparse responses (crowd_em); each kind of
    odd worker is one warning line; nothing is refused."""
    crowd = bc.simulate_crowd(6000, 30, labels_per_item=3, seed=1)
    labels, scores = crowd.long_tables()
    labels.to_csv(tmp_path / "labels.csv", index=False)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    status, out, err = main(
        tmp_path,
        monkeypatch,
        capsys,
        "recalibrate",
        "labels.csv",
        "--long",
        "--scores",
        "scores.csv",
        "--score",
        "score",
        "--out",
        "out",
    )
    assert status == 0 and "fitted to labels corrected by crowd_em" in out
    lines = err.splitlines()
    assert all(line.startswith("bayescal: warning: ") for line in lines)
    assert any("estimated adversarial" in line for line in lines)
    assert any("gave one label value only" in line for line in lines)
    document = json.loads((tmp_path / "out" / "map.json").read_text())
    assert document["channels"]["estimator"] == "crowd_em"
    assert len(document["channels"]["annotators"]) == 30
    assert document["channels"]["pooled"] == []  # every worker has 30 labels or more


def test_recalibrate_a_crowd_of_sparse_workers_says_they_share_the_pooled_channel(
    tmp_path, monkeypatch, capsys
):
    """Issue 17: the workers with fewer than 30 labels share one channel; the command says how
    many in its line and map.json names them."""
    crowd = bc.simulate_crowd(1500, 60, labels_per_item=3, worker_mix={"good": 1.0}, seed=4)
    labels, scores = crowd.long_tables()
    labels.to_csv(tmp_path / "labels.csv", index=False)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.ChannelWarning)
        expected = bc.crowd_em(crowd.data).pooled
    assert 10 < len(expected) < 60
    status, out, _ = main(
        tmp_path, monkeypatch, capsys, "recalibrate", "labels.csv", "--long", "--scores",
        "scores.csv", "--score", "score", "--out", "out",
    )  # fmt: skip
    assert status == 0
    assert f"by crowd_em ({len(expected)} workers with few labels share one pooled channel)" in out
    document = json.loads((tmp_path / "out" / "map.json").read_text())
    assert document["channels"]["pooled"] == list(expected)
