"""The comparison of shown outputs with what the code prints (tests/shown_outputs.py) tells
drift from the sampler's own spread, and the stored outputs name the stack that made them."""

import json

from tests import shown_outputs
from tests.shown_outputs import STACK_PACKAGES, drift, numerical_stack, stack_change

STORED = (
    "  NC-ECE 0.0809 [0.0670, 0.0963] (90%)\n"
    "  Pattern counts: sampled-posterior p = 0.383, posterior predictive p = 0.610: the model "
    "reproduces the pattern counts.\n"
    "     ess_bulk  r_hat\n"
    "a[0]     1375  1.003\n"
)


def test_on_the_storing_stack_every_character_counts():
    assert drift(STORED, STORED, exact=True) == ""
    moved = STORED.replace("0.0809", "0.0810")
    assert "0.0810" in drift(moved, STORED, exact=True)
    assert drift(STORED + "one more line\n", STORED, exact=True) != ""


def test_on_another_stack_numbers_move_within_the_tolerance_and_words_not_at_all():
    # within 0.01 + 10%: a sampler's spread; a single draw's p may be anything
    other_draws = (
        STORED.replace("0.0809", "0.0822")
        .replace("0.383", "0.912")
        .replace("0.610", "0.655")
        .replace("1375  1.003", "1290  1.001")
    )
    assert drift(other_draws, STORED, exact=False) == ""
    assert drift(other_draws, STORED, exact=True) != ""
    # spaces do not count, numbers do: a column that widened with its number
    assert drift(STORED.replace("a[0]     1375", "a[0]    13750"), STORED, exact=False) != ""
    assert drift(STORED.replace("a[0]     1375", "a[0]      1380"), STORED, exact=False) == ""
    assert "beyond the tolerance" in drift(STORED.replace("0.610", "0.910"), STORED, exact=False)
    flipped = STORED.replace("reproduces the pattern counts", "misses the pattern counts")
    assert "misses" in drift(flipped, STORED, exact=False)
    # the single draw's p, in either of the forms printed
    assert drift(STORED.replace("p = 0.383", "p < 0.001"), STORED, exact=False) == ""
    # digits inside a word are the word's
    assert "w013" in drift(
        STORED.replace("a[0]", "a[0] w013"), STORED.replace("a[0]", "a[0] w012"), exact=False
    )


def test_the_stored_outputs_name_the_stack_that_made_them():
    """`make outputs` records the stack; a test run on it compares exactly."""
    stored = shown_outputs.stored_stack()
    assert set(stored) == {"machine", *STACK_PACKAGES}


def test_a_stack_change_names_the_versions_that_moved(tmp_path, monkeypatch):
    record = tmp_path / "stack.json"
    monkeypatch.setattr(shown_outputs, "STACK_FILE", record)
    shown_outputs.record_stack()
    assert stack_change() == ""
    record.write_text(json.dumps({**numerical_stack(), "jax": "0.0.1"}))
    assert stack_change() == f"jax 0.0.1 -> {numerical_stack()['jax']}"
