"""Property tests of the second catalogue's rules 3, 5, 6 and 7 (``BAD_INPUTS_2.md``), each on
inputs the catalogue does not have (rules 1, 2, 4 and 8 have theirs beside their rows; rule 3's
size and power on hard classifiers are in ``tests/correction``):

3. the calibration test accounts for every score of exactly 0 or 1: known channels and EM
   fits test them, a BayesFit of these items leaves them out and says how many, or refuses
   data of nothing else;

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
from bayescal.correction.calibration_test import MIN_BIN_ITEMS
from bayescal.data.tables import read_json
from tests.bad_inputs.test_command import WIDE, _rows, _text, main
from tests.helpers import fake_fit


def _soft_and_hard(rng):
    """Uniform calibrated scores beside a random number of a hard classifier's 0 and 1 whose
    P(Y = 1 | Z = 0) = P(Y = 0 | Z = 1) is a random gap (the rule counts them whatever their
    calibration), shuffled: (data, channels, n hard)."""
    channels = bc.toy_data(10, seed=0).channels
    n_soft, n_hard = 0, 0
    while n_soft + n_hard < 40:  # fewer than a bin in all is refused whatever the scores
        n_soft = int(rng.choice([0, 10, 29, 30, 200, 600]))
        n_hard = int(rng.choice([10, 29, 30, 200, 600]))
    gap = float(rng.uniform(0, 0.3))
    seed = int(rng.integers(2**31))
    soft = bc.simulate_annotated(max(n_soft, 1), channels, seed=seed).data
    hard = bc.simulate_annotated(
        max(n_hard, 1), channels, calibration=lambda z: np.where(z < 0.5, gap, 1 - gap), seed=seed
    ).data
    scores = np.concatenate([soft.scores, (hard.scores >= 0.5).astype(float)])
    annotations = np.concatenate([soft.annotations, hard.annotations])
    keep = np.r_[np.arange(n_soft), soft.n_items + np.arange(n_hard)]
    order = rng.permutation(keep)
    return bc.AnnotatedScores(scores[order], annotations[order]), channels, n_hard


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")  # K = 3
@pytest.mark.parametrize("seed", range(12))
def test_rule3_every_score_of_0_or_1_is_tested_or_counted_out_aloud(seed):
    data, channels, n_hard = _soft_and_hard(np.random.default_rng(seed))
    known = bc.calibration_test(data, channels)
    em = bc.calibration_test(data, bc.dawid_skene_em(data), n_replicates=19, seed=seed)
    assert (known.n_extremes, known.n_tested) == (em.n_extremes, em.n_tested) == (0, data.n_items)
    rng = np.random.default_rng(seed)
    draws = [x + rng.normal(0, 0.01, (20, 3)) for x in (channels.a, channels.b)]
    fit = fake_fit(data, *draws, np.full(20, 0.5))
    if n_hard >= MIN_BIN_ITEMS > data.n_items - n_hard:  # too few soft ones left to test
        with pytest.raises(ValueError, match=r"calibration_test\(data, dawid_skene_em\(data\)\)"):
            bc.calibration_test(data, fit, seed=seed)
        return
    if n_hard < MIN_BIN_ITEMS:  # too few for a bin of their own: they stay in theirs, unsaid
        result = bc.calibration_test(data, fit, seed=seed)
        assert (result.n_extremes, result.n_tested) == (0, data.n_items)
        return
    with pytest.warns(bc.BinningWarning) as record:
        result = bc.calibration_test(data, fit, seed=seed)
    assert len(record) == 1 and str(record[0].message).startswith(
        f"calibration_test: {n_hard} of {data.n_items} items score exactly 0 or 1 and are left out"
    )
    assert (result.n_extremes, result.n_tested) == (n_hard, data.n_items - n_hard)
    assert f"{n_hard} items scoring exactly 0 or 1 not tested" in result.method


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
