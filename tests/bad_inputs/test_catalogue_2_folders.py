"""The second catalogue's rows on results folders (``BAD_INPUTS_2.md``, area ``folders``):
``bayescal report`` on folders that are not whole, or hold something in the way of what it
writes, and ``--out`` places that are no folder.  A refusal is one line naming the path, exit 2,
and leaves the folder as it was; a folder that is whole is re-rendered in place."""

import json
import shutil

import pytest

from tests.bad_inputs.test_command import WIDE, _rows, _text, main

#: annotator names with markup, an entity, path separators and 300 characters (rows 26-28)
ODD_NAMES = ("<script>alert(1)</script>", "a&amp;b/../etc", "<b>bob</b>" + "x" * 300)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A results folder of a short fit of 400 toy items, annotators named :data:`ODD_NAMES`."""
    import warnings

    import bayescal as bc
    from bayescal.report.folders import write_analysis

    folder = tmp_path_factory.mktemp("fit") / "run"
    with warnings.catch_warnings():
        # short chains on three annotators: R-hat and saturation warnings, not the point here
        warnings.simplefilter("ignore", bc.SamplingWarning)
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)
        toy = bc.toy_data(400, seed=2).data
        analysis = bc.analyse(
            bc.AnnotatedScores(toy.scores, toy.annotations, annotator_names=ODD_NAMES),
            seed=1,
            sampler=bc.SamplerSettings(num_chains=2, num_warmup=50, num_samples=50),
        )
        write_analysis(folder, analysis)
    return folder


def _copy(run_folder, tmp_path, name="run"):
    copy = tmp_path / name
    shutil.copytree(run_folder, copy)
    return copy


def _report(tmp_path, monkeypatch, capsys, folder):
    """``bayescal report FOLDER``: (status, stdout, the error's line or stderr)."""
    status, out, err = main(tmp_path, monkeypatch, capsys, "report", folder)
    if status != 0:
        assert (status, out, err.count("\n")) == (2, "", 1), err
        return status, out, err.removeprefix("bayescal: error: ").rstrip("\n")
    return status, out, err


def _without(folder, key):
    path = folder / "summary.json"
    document = json.loads(path.read_text())
    del document[key]
    path.write_text(json.dumps(document))


@pytest.mark.parametrize("key", ["record", "checks", "timings"])
def test_row149_a_summary_missing_a_required_section_is_named(
    run_folder, tmp_path, monkeypatch, capsys, key
):
    folder = _copy(run_folder, tmp_path)
    _without(folder, key)
    _, _, message = _report(tmp_path, monkeypatch, capsys, folder)
    assert message == (
        f"{folder / 'summary.json'}: not a bayescal fit summary (missing {key}); re-run bayescal fit"
    )


@pytest.mark.parametrize("key", ["verdict", "calibration_test", "recalibration", "warnings"])
def test_row150_a_summary_missing_an_optional_section_is_rendered(
    run_folder, tmp_path, monkeypatch, capsys, key
):
    folder = _copy(run_folder, tmp_path)
    _without(folder, key)
    status, _, err = _report(tmp_path, monkeypatch, capsys, folder)
    assert status == 0, err
    assert (folder / "report.html").stat().st_mtime_ns > (
        run_folder / "report.html"
    ).stat().st_mtime_ns


def test_row150_151_a_summary_without_its_run_id_vouches_for_no_posterior(
    run_folder, tmp_path, monkeypatch, capsys
):
    # was: rendered, with channels.png from whatever posterior.nc lay beside it (row 151)
    folder = _copy(run_folder, tmp_path)
    _without(folder, "run")
    before = (folder / "report.html").read_bytes()
    _, _, message = _report(tmp_path, monkeypatch, capsys, folder)
    assert message == (
        f"{folder / 'summary.json'} records no run id, so {folder / 'posterior.nc'} cannot be "
        "checked to be its fit's; re-run bayescal fit"
    )
    assert (folder / "report.html").read_bytes() == before


def test_row153_156_a_folder_of_another_command_an_empty_one_or_a_file(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "recalibrate", "t.csv", *WIDE, "--out", "r"
    )
    assert status == 0, err
    (tmp_path / "empty").mkdir()
    for folder in ("r", "empty", "t.csv"):
        _, _, message = _report(tmp_path, monkeypatch, capsys, folder)
        assert message == (
            f"{folder}/summary.json: no such file; is {folder} a directory written by bayescal fit?"
        )


def test_row154_155_a_file_or_folder_in_the_way_of_the_report_is_named(
    run_folder, tmp_path, monkeypatch, capsys
):
    folder = _copy(run_folder, tmp_path)
    shutil.rmtree(folder / "figures")
    (folder / "figures").write_text("mine")
    _, _, message = _report(tmp_path, monkeypatch, capsys, folder)
    assert message == (
        f"{folder / 'figures'} is a file; the report draws its figures in a folder of that "
        "name: move the file"
    )
    assert (folder / "figures").read_text() == "mine"
    folder = _copy(run_folder, tmp_path, "other")
    (folder / "report.html").unlink()
    (folder / "report.html").mkdir()
    _, _, message = _report(tmp_path, monkeypatch, capsys, folder)
    assert message == (
        f"{folder / 'report.html'} is a folder; the report is written to a file of that "
        "name: move the folder"
    )
    assert (folder / "report.html").is_dir()


def test_row157_a_users_notes_in_the_folder_are_kept(run_folder, tmp_path, monkeypatch, capsys):
    folder = _copy(run_folder, tmp_path)
    (folder / "notes.txt").write_text("keep")
    status, _, err = _report(tmp_path, monkeypatch, capsys, folder)
    assert status == 0, err
    assert (folder / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(p.name for p in run_folder.iterdir()), "notes.txt"]
    )


def _recalibrate(tmp_path, monkeypatch, capsys, out, *options):
    (tmp_path / "t.csv").write_text(_text(_rows()))
    return main(
        tmp_path, monkeypatch, capsys, "recalibrate", "t.csv", *WIDE, "--out", out, *options
    )


@pytest.mark.parametrize(
    "out, options, message",
    [
        ("", [], "argument --out: expected a folder; saw an empty path ''"),
        (".", ["--force"], r". holds ['t.csv'], which bayescal did not write; --force replaces a results folder whole, so choose another directory"),
        ("t.csv/sub", [], "t.csv/sub: cannot create a folder in {tmp}/t.csv (Not a directory); choose another directory"),
    ],
    ids=["row161 empty", "row162 the working folder", "row163 under a file"],
)  # fmt: skip
def test_row161_162_163_an_out_that_is_no_results_folder_is_refused_before_any_work(
    tmp_path, monkeypatch, capsys, out, options, message
):
    status, stdout, err = _recalibrate(tmp_path, monkeypatch, capsys, out, *options)
    assert (status, stdout) == (2, "")
    assert err.splitlines()[-1].endswith(f"error: {message.format(tmp=tmp_path)}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_row164_a_trailing_slash_names_the_same_folder(tmp_path, monkeypatch, capsys):
    status, _, err = _recalibrate(tmp_path, monkeypatch, capsys, "r/")
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["map.json", "recalibrated.csv"]


def test_row169_a_place_where_no_folder_can_be_made_is_refused_before_the_fit(
    tmp_path, monkeypatch, capsys
):
    import errno
    import tempfile

    from bayescal.app import analysis

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    def never(*args):
        raise AssertionError("fitted")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", read_only)
    monkeypatch.setattr(analysis, "_fit_em", never)
    (tmp_path / "t.csv").write_text(_text(_rows()))
    status, _, err = main(tmp_path, monkeypatch, capsys, "fit", "t.csv", *WIDE, "--out", "o")
    assert status == 2
    assert err == (
        f"bayescal: error: o: cannot create a folder in {tmp_path} (Read-only file system); "
        "choose another directory\n"
    )


@pytest.mark.parametrize("old", [False, True], ids=["row170 new folder", "row171 --force"])
def test_row170_171_a_full_disk_names_the_folder_and_changes_nothing(
    tmp_path, monkeypatch, capsys, old
):
    import errno

    from bayescal.report import folders

    if old:
        (tmp_path / "r").mkdir()
        (tmp_path / "r" / "map.json").write_text("old")

    def full(path, content):
        raise OSError(errno.ENOSPC, "No space left on device")  # as write() says it: no file

    monkeypatch.setattr(folders, "write_atomic", full)
    status, _, err = _recalibrate(tmp_path, monkeypatch, capsys, "r", *(["--force"] if old else []))
    assert status == 2
    assert err.splitlines()[-1] + "\n" == (
        "bayescal: error: r: could not write the results (No space left on device); "
        + ("the old folder is as it was\n" if old else "nothing was written\n")
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == (["r", "t.csv"] if old else ["t.csv"])
    if old:
        assert [p.name for p in (tmp_path / "r").iterdir()] == ["map.json"]
        assert (tmp_path / "r" / "map.json").read_text() == "old"


def test_row26_27_28_odd_annotator_names_are_text_in_the_report_and_never_paths(
    run_folder, tmp_path, monkeypatch, capsys
):
    folder = _copy(run_folder, tmp_path)
    status, _, err = _report(tmp_path, monkeypatch, capsys, folder)
    assert (status, err) == (0, "")  # no layout warning for a 300-character name (row 27)
    page = (folder / "report.html").read_text()
    assert "<script>alert" not in page and "<b>bob" not in page
    long_name = "&lt;b&gt;bob&lt;/b&gt;" + "x" * 300  # whole in the tables; cut in the figure
    for escaped in ("&lt;script&gt;alert(1)&lt;/script&gt;", "a&amp;amp;b/../etc", long_name):
        assert escaped in page
    assert {p.name for p in (folder / "figures").iterdir()} == {
        p.name for p in (run_folder / "figures").iterdir()
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # nothing written by a name
    assert not any(part in p.name for p in folder.rglob("*") for part in ("script", "etc", "bob"))


def test_row167_two_runs_replacing_one_folder_at_once_leave_one_of_them_whole(tmp_path):
    """Row 167, two ``fit --force`` into one folder at once, at the step that decides it: two
    staged writes of one folder, each swapped in while the other is writing, 200 times (the
    swap's two renames once let the other writer land between them: about one pair in 30
    failed with ENOTEMPTY and left a hidden ``.old`` folder).  (Rows 165 and 166, two fits at
    once on one empty compiled-sampler cache, are
    tests/bayes/test_fit.py::test_a_second_process_loads_the_stored_sampler_and_draws_the_same.)"""
    import threading

    from bayescal.report.folders import staged_output

    for trial in range(200):
        folder = tmp_path / str(trial)
        out = folder / "run"
        out.mkdir(parents=True)
        (out / "summary.json").write_text("old")
        both_staged = threading.Barrier(2)
        failures = []

        def write(name, out=out, both_staged=both_staged, failures=failures):
            try:
                with staged_output(out, force=True) as staging:
                    (staging / "summary.json").write_text(name)
                    both_staged.wait(timeout=30)  # each swaps in while the other has written
                    (staging / "posterior.nc").write_text(name)
            except BaseException as error:  # reported below: a thread's exception would be lost
                failures.append(error)

        threads = [threading.Thread(target=write, args=(name,)) for name in ("first", "second")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [], trial
        run = {p.name: p.read_text() for p in out.iterdir()}
        assert set(run) == {"summary.json", "posterior.nc"}, trial
        assert run["summary.json"] == run["posterior.nc"] in ("first", "second"), trial  # whole
        assert sorted(p.name for p in folder.iterdir()) == ["run"], trial  # nothing left beside
