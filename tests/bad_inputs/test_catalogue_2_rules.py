"""Property tests of the second catalogue's rules 5, 6 and 7 (``BAD_INPUTS_2.md``), each on
inputs the catalogue does not have (rules 1, 2, 4 and 8 have theirs beside their rows):

5. one staging rule for every command: a results folder the run could not replace whole is
   refused before any work, by every command that writes one alike, and left as it was;
6. no traceback and no runaway: any sampler settings and bin count either pass, and are
   valid, or are refused in one line before any fit;
7. a key named twice anywhere in a JSON file is refused, naming it; a file without one reads
   as ``json.loads`` reads it.
"""

import json

import numpy as np
import pytest

import bayescal as bc
from bayescal.data.tables import read_json
from tests.bad_inputs.test_command import WIDE, _rows, _text, main


def _random_document(rng, depth=0):
    """A random JSON object: numbers, text, lists and objects nested up to three deep."""
    document = {}
    for k in range(int(rng.integers(1, 5))):
        kind = rng.integers(0, 4 if depth < 3 else 2)
        key = f"k{int(rng.integers(0, 50))}_{k}"
        if kind == 0:
            document[key] = float(np.round(rng.normal(), 3))
        elif kind == 1:
            document[key] = str(rng.choice(["flat", "Ω µ 判定", "", "a,b"]))
        elif kind == 2:
            document[key] = [int(x) for x in rng.integers(0, 9, 2)]
        else:
            document[key] = _random_document(rng, depth + 1)
    return document


def _objects(document, path=()):
    """Every object of ``document`` with its path of keys."""
    yield path, document
    for key, value in document.items():
        if isinstance(value, dict):
            yield from _objects(value, (*path, key))


def _with_a_key_twice(document, target, key) -> str:
    """``document`` as JSON text, the object at ``target`` naming ``key`` twice."""

    def dump(value, path):
        if not isinstance(value, dict):
            return json.dumps(value)
        items = [f"{json.dumps(k)}: {dump(v, (*path, k))}" for k, v in value.items()]
        if path == target:
            items.append(f"{json.dumps(key)}: 0")
        return "{" + ", ".join(items) + "}"

    return dump(document, ())


@pytest.mark.parametrize("seed", range(40))
def test_rule7_a_key_named_twice_anywhere_is_refused_naming_it(tmp_path, seed):
    rng = np.random.default_rng(seed)
    document = _random_document(rng)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(document))
    assert read_json(path) == json.loads(path.read_text())
    objects = list(_objects(document))
    target, chosen = objects[int(rng.integers(len(objects)))]
    key = str(rng.choice(list(chosen)))
    path.write_text(_with_a_key_twice(document, target, key))
    with pytest.raises(ValueError, match=rf"the key {key!r} appears twice in one object"):
        read_json(path)


#: Sampler and bin settings drawn at random for rule 6, with what makes each valid.
SETTINGS = {
    # each setting valid more often than not, so that about a third of the draws pass
    "--chains": (lambda rng: int(rng.choice([0, 1, 2, 3, 4])), lambda value, n: value >= 1),
    "--warmup": (lambda rng: int(rng.choice([0, 1, 5, 50, 500])), lambda value, n: value >= 1),
    "--samples": (lambda rng: int(rng.choice([1, 2, 3, 4, 50, 500])), lambda value, n: value >= 4),
    "--n-bins": (
        lambda rng: int(rng.choice([0, 1, 5, 10, 10**6])),
        lambda value, n: 1 <= value <= n,
    ),
}


class _Reached(Exception):
    """The stubbed EM fit was reached: every check before the first fit passed."""


@pytest.mark.parametrize("seed", range(16))
def test_rule6_any_settings_pass_valid_or_are_refused_in_one_line_before_any_fit(
    tmp_path, monkeypatch, capsys, seed
):
    from bayescal.app import analysis

    def reached(*args):
        raise _Reached

    monkeypatch.setattr(analysis, "_fit_em", reached)
    rng = np.random.default_rng(seed)
    n = int(rng.choice([5, 50]))
    (tmp_path / "t.csv").write_text(_text(_rows(n)))
    settings = {option: draw(rng) for option, (draw, _) in SETTINGS.items()}
    valid = all(SETTINGS[option][1](value, n) for option, value in settings.items())
    arguments = [str(x) for pair in settings.items() for x in pair]
    try:
        status, out, err = main(
            tmp_path, monkeypatch, capsys, "fit", "t.csv", *WIDE, *arguments, "--out", "o"
        )
    except _Reached:
        assert valid, settings  # an invalid setting would have met the fit
        return
    assert not valid, (settings, err)
    assert (status, out) == (2, "")
    last = err.strip().splitlines()[-1]
    assert last.startswith(("bayescal: error: ", "bayescal fit: error: ")), err
    assert "Traceback" not in err and not (tmp_path / "o").exists()


#: How each command is run, up to ``--out`` and its folder (rule 5).
COMMANDS = {
    "fit": ["fit", "t.csv", *WIDE],
    "recalibrate": ["recalibrate", "t.csv", *WIDE],
    "sensitivity": ["sensitivity", "t.csv", *WIDE, "--priors", "p.json"],
}  # (the demo's --out is a workspace it rewrites; its results folder fit/ is rows 174-176)


def _place(tmp_path, kind):
    """An --out of one kind, and the options the place needs: (path, extra arguments)."""
    out = tmp_path / "out"
    if kind == "a file":
        out.write_text("mine")
    elif kind == "a folder of other files":
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    elif kind == "a symbolic link":
        (tmp_path / "target").mkdir()
        out.symlink_to(tmp_path / "target")
    elif kind == "an existing folder without --force":
        out.mkdir()
        (out / "summary.json").write_text("old")
        return out, []
    elif kind == "the folder of the input":
        return tmp_path, []
    elif kind == "under a file":
        (tmp_path / "afile").write_text("mine")
        return tmp_path / "afile" / "out", []
    return out, ["--force"]


PLACES = [
    "a file",
    "a folder of other files",
    "a symbolic link",
    "an existing folder without --force",
    "the folder of the input",
    "under a file",
]


def _snapshot(tmp_path):
    return sorted(
        (str(p.relative_to(tmp_path)), p.is_symlink() or p.is_dir() or p.read_bytes())
        for p in tmp_path.rglob("*")
    )


@pytest.mark.parametrize("place", PLACES)
def test_rule5_every_command_refuses_a_place_it_cannot_replace_whole_before_any_work(
    tmp_path, monkeypatch, capsys, place
):
    import warnings

    messages = {}
    for command, argv in COMMANDS.items():
        folder = tmp_path / command
        folder.mkdir()
        (folder / "t.csv").write_text(_text(_rows()))
        (folder / "p.json").write_text(json.dumps({"flat": {}}))
        out, extra = _place(folder, place)
        before = _snapshot(folder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bc.SaturatedModelWarning)
            status, stdout, err = main(folder, monkeypatch, capsys, *argv, "--out", out, *extra)
        assert (status, stdout) == (2, ""), (command, err)
        assert err.count("\n") == 1 and "Traceback" not in err, (command, err)
        assert _snapshot(folder) == before, command
        messages[command] = err.split(": error: ", 1)[1].replace(str(folder), "FOLDER")
    assert len(set(messages.values())) == 1, messages  # one rule, said alike by every command
