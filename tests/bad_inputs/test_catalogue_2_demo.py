"""The second catalogue's rows on ``bayescal demo`` (``BAD_INPUTS_2.md``, area ``demo``): a
small or odd demo runs, and says each warning once, in one line; a bad option is a usage error.
The command runs in this process."""

from tests.bad_inputs.test_command import main


def test_row173_twenty_items_without_the_posterior(tmp_path, monkeypatch, capsys):
    status, out, err = main(tmp_path, monkeypatch, capsys, "demo", "--n", "20", "--no-bayes")
    assert status == 0, err
    assert out.startswith("bayescal demo: paper §6.1 toy data, condition 'shifted', n = 20")
    assert "not available (skipped (--no-bayes))" in out


def test_row177_no_items_is_a_usage_error(tmp_path, monkeypatch, capsys):
    status, out, err = main(tmp_path, monkeypatch, capsys, "demo", "--n", "0")
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == (
        "bayescal demo: error: argument --n: expected an integer >= 2; saw 0"
    )
    assert list(tmp_path.iterdir()) == []


def test_row178_more_bins_than_items_warn_once_each_in_one_line(tmp_path, monkeypatch, capsys):
    status, _, err = main(
        tmp_path, monkeypatch, capsys, "demo", "--n-bins", "5000", "--n", "100", "--no-bayes"
    )
    assert status == 0, err
    lines = err.splitlines()
    assert lines and all(line.startswith("bayescal: warning: ") for line in lines)
    assert len(lines) == len(set(lines))  # the demo's two fits said them twice
    assert lines[0] == (
        "bayescal: warning: n_bins = 5000 exceeds the 100 item(s) to bin: most bins hold one "
        "item or none, so the ECE measures single items' noise; use fewer bins or "
        "n_bins='auto' (BinningWarning)"
    )
