"""The bad-input catalogue (issue 16), results folders: one run per folder, the input never
written, Ctrl-C answered in one line (rows #15-#19, #29, #31, #36-#38; items 4, 6, 11-13)."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from bayescal.report import folders
from bayescal.report.folders import check_output, staged_output

JUDGED = ["--score", "score", "--annotators", "ann,bob,cy,dee"]
EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "judged.csv"


def _bayescal(*argv, environment=None):
    script = pathlib.Path(sys.executable).with_name("bayescal")
    return subprocess.Popen(
        [str(script), *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(environment or {})},
    )


def test_staged_output_replaces_a_folder_whole_or_not_at_all(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("old")
    (out / "figures").mkdir()
    for interruption in (RuntimeError("disk full"), KeyboardInterrupt()):
        with pytest.raises(type(interruption)), staged_output(out, force=True) as staging:
            (staging / "summary.json").write_text("new")
            raise interruption
        assert (out / "summary.json").read_text() == "old"
    with staged_output(out, force=True) as staging:
        (staging / "summary.json").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]  # the old figures went too
    assert (out / "summary.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no staging folder left


def test_row29_issue6_a_folder_holding_the_input_is_never_replaced(tmp_path):
    # the catalogue's case: the input is named recalibrated.csv, the name of recalibrate's output
    table = tmp_path / "data" / "recalibrated.csv"
    table.parent.mkdir()
    table.write_text("score,ann\n0.5,1\n")
    with pytest.raises(
        ValueError,
        match=r"data holds the input .*recalibrated\.csv; a results folder is replaced whole "
        r"and the input is never written, so choose another directory$",
    ):
        check_output(table.parent, force=True, inputs=[None, table])
    assert table.read_text() == "score,ann\n0.5,1\n"


def test_row15_a_folder_with_other_files_or_without_force_is_refused(tmp_path):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    with pytest.raises(
        FileExistsError,
        match=r"mine holds \['notes.txt'\], which bayescal did not write; force=True replaces a "
        r"results folder whole, so choose another directory$",
    ):
        check_output(other, force=True)
    assert (other / "notes.txt").read_text() == "keep"
    with pytest.raises(
        FileExistsError,
        match=r"mine already exists; choose another directory or pass force=True to replace it",
    ):
        check_output(other)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(FileExistsError, match=r"a-file exists and is not a directory$"):
        check_output(tmp_path / "a-file", force=True)


def test_row16_17_issue11_a_place_where_no_folder_can_be_made_is_refused_before_any_work(tmp_path):
    # (a read-only folder does not stop root, who runs CI; a file where a folder should be
    # takes the same path: no folder can be created there)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(
        PermissionError,
        match=r"out: cannot create a folder in .*a-file \(Not a directory\); choose another directory$",
    ):
        check_output(tmp_path / "a-file" / "out")


def _catches(process, number: int) -> bool:
    """Whether ``process`` has a handler of its own for signal ``number`` (Linux's
    /proc/PID/status lists the caught signals as a bit mask)."""
    status = pathlib.Path(f"/proc/{process.pid}/status").read_text()
    mask = int(
        next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16
    )
    return bool(mask >> (number - 1) & 1)


def test_a_stop_while_the_folders_module_is_half_imported_ends_in_one_line(monkeypatch, capsys):
    """Ctrl-C during start-up landed while ``bayescal.report.folders`` was being imported: the
    handler's own import of it failed, and the user saw an ImportError's traceback."""
    import types

    from bayescal.app import cli

    half = types.ModuleType("bayescal.report.folders")  # its functions not yet defined
    monkeypatch.setitem(sys.modules, "bayescal.report.folders", half)

    def leave(status):
        raise SystemExit(status)

    monkeypatch.setattr(os, "_exit", leave)
    with pytest.raises(SystemExit) as stop:
        cli._stopped(signal.SIGINT, None)
    assert stop.value.code == 130 and capsys.readouterr().err == "bayescal: interrupted\n"


#: (command, signal, exit status, last line): Ctrl-C in a fit (first catalogue, rows 36-37) and
#: in a sensitivity study (second catalogue, row 137), and a scheduler's SIGTERM (row 168).
STOPS = [
    ("fit", signal.SIGINT, 130, "bayescal: interrupted"),
    ("sensitivity", signal.SIGINT, 130, "bayescal: interrupted"),
    ("fit", signal.SIGTERM, 143, "bayescal: terminated"),
]


@pytest.mark.slow
def test_row36_37_issue12_a_stop_signal_ends_in_one_line_and_leaves_the_folder_as_it_was(
    tmp_path,
):
    (tmp_path / "priors.json").write_text(
        json.dumps({"flat": {}, "strong": {"sensitivity": [8, 2]}})
    )
    processes = []
    for k, (command, _, _, _) in enumerate(STOPS):  # the three at once: one wait for all
        out = tmp_path / f"run{k}"
        out.mkdir()
        (out / "summary.json").write_text("old")
        priors = ["--priors", tmp_path / "priors.json"] if command == "sensitivity" else []
        argv = [command, EXAMPLE, *JUDGED, *priors, "--out", out, "--force", "--quiet"]
        argv += ["--warmup", "20000", "--samples", "20000"]
        # the compiled-sampler cache off: it compiles, so it is at work when the signal lands
        processes.append(_bayescal(*argv, environment={"BAYESCAL_CACHE_DIR": "off"}))
    deadline = time.monotonic() + 120
    while not all(_catches(p, signal.SIGTERM) for p in processes):  # bayescal's own handlers
        assert time.monotonic() < deadline, "the commands never set their signal handlers"
        time.sleep(0.1)
    time.sleep(2)  # into the imports, the compilation or the sampling
    for process, (_, number, _, _) in zip(processes, STOPS):
        process.send_signal(number)
    for k, (process, (command, _, status, last)) in enumerate(zip(processes, STOPS)):
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == status, (command, stderr)
        assert stderr.strip().splitlines()[-1] == last and "Traceback" not in stderr
        out = tmp_path / f"run{k}"
        assert [p.name for p in out.iterdir()] == ["summary.json"]
        assert (out / "summary.json").read_text() == "old"
    # no staging folder left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["priors.json", "run0", "run1", "run2"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two results folders of two fits of the same data (short chains)."""
    import warnings

    import bayescal as bc
    from bayescal.report.folders import write_analysis

    folder = tmp_path_factory.mktemp("runs")
    data = bc.toy_data(600, seed=2).data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains and a saturated model: not the point here
        for name, seed in (("one", 1), ("two", 2)):
            analysis = bc.analyse(
                data,
                seed=seed,
                sampler=bc.SamplerSettings(num_chains=2, num_warmup=50, num_samples=50),
            )
            write_analysis(folder / name, analysis)
    return folder


@pytest.mark.slow
def test_row31_issue4_a_report_refuses_the_posterior_of_another_run(two_runs, tmp_path):
    from bayescal.report.folders import render_report

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for name in ("summary.json", "posterior.nc"):
        source = two_runs / ("two" if name == "posterior.nc" else "one") / name
        (mixed / name).write_bytes(source.read_bytes())
    summary = json.loads((mixed / "summary.json").read_text())
    with pytest.raises(  # (and second catalogue, row 152)
        ValueError,
        match=rf"posterior\.nc is from another run \([0-9a-f]{{32}}\) than .*summary\.json "
        rf"\({summary['run']['id']}\); re-run bayescal fit$",
    ):
        render_report(mixed)
    run = summary["run"]
    assert set(run) == {"id", "seed", "chain_method", "devices", "versions"}
    assert set(run["versions"]) == {"python", "bayescal", "jax", "jaxlib", "numpyro", "arviz"}
    assert render_report(two_runs / "one").name == "report.html"  # its own posterior: fine
    # second catalogue, row 151: a summary without its run id cannot vouch for any posterior
    del summary["run"]
    (mixed / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(ValueError, match=r"summary\.json records no run id, so .*posterior\.nc"):
        render_report(mixed)


@pytest.mark.slow
@pytest.mark.parametrize(
    "file, content, message",
    [
        (
            "summary.json",
            "42",
            r"summary\.json: document must be a dict; saw int; re-run bayescal fit$",
        ),
        ("summary.json", "{", r"summary\.json: not valid JSON"),
        (
            "summary.json",
            None,
            r"summary\.json: not a bayescal fit summary \(missing reliability\)",
        ),
        (
            "posterior.nc",
            b"\x89HDF\r\n\x1a\n trunc",
            r"posterior\.nc: not a netCDF file of a posterior",
        ),
        (
            "posterior.nc",
            b"\x80\x04\x95 pickle",
            r"posterior\.nc: not a netCDF file of a posterior",
        ),
    ],
)
def test_row18_19_38_issue13_a_broken_results_file_is_named_in_one_line(
    two_runs, tmp_path, file, content, message
):
    from bayescal.report.folders import render_report

    folder = tmp_path / "broken"
    folder.mkdir()
    for name in ("summary.json", "posterior.nc"):
        (folder / name).write_bytes((two_runs / "one" / name).read_bytes())
    if content is None:  # a summary without its reliability section
        document = json.loads((folder / file).read_text())
        del document["reliability"]
        content = json.dumps(document)
    (folder / file).write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ValueError, match=message):
        render_report(folder)


def test_abandoning_a_staged_output_undoes_a_half_done_swap(tmp_path):
    """What the Ctrl-C handler does before it exits, at each moment of a write."""

    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("old")
    writing = staged_output(out, force=True)
    staging = writing.__enter__()  # (the handler exits the process: the block never ends)
    (staging / "summary.json").write_text("new")
    folders.abandon_staged_output()  # interrupted while writing
    assert not staging.exists() and (out / "summary.json").read_text() == "old"
    # interrupted between the two renames of the swap: the old folder goes back
    staging = tmp_path / ".run.x.partial"
    staging.mkdir()
    old = staging.with_suffix(".old0")
    out.rename(old)
    folders._IN_FLIGHT[staging] = [out, [old]]
    folders.abandon_staged_output()
    assert (out / "summary.json").exists() and not old.exists() and not staging.exists()
    assert folders._IN_FLIGHT == {}
