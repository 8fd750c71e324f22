"""The held-out check of a recalibration map (issue 37, item 8): NC-ECE before and after on
the half of the items the map was not fitted to, with bootstrap intervals."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.recalibration.held_out import MIN_HALF, held_out_check
from bayescal.simulate.panels import toy_calibration

PANEL = bc.Channels([0.1, 0.15, 0.2, 0.1], [0.85, 0.8, 0.75, 0.9])


@pytest.fixture(scope="module")
def simulation():
    return bc.simulate.simulate_annotated(
        4000, PANEL, calibration=toy_calibration("shifted"), seed=6
    )


def test_the_map_is_scored_on_the_half_it_never_saw(simulation):
    data = simulation.data
    check = held_out_check(data, seed=1)
    assert (check.n_fit, check.n_held_out) == (2000, 2000)
    # the same split, fitted and scored by hand
    order = np.random.default_rng(1).permutation(4000)
    fitting = data.subset(np.sort(order[:2000]))
    held_out = data.subset(np.sort(order[2000:]))
    by_hand = bc.recalibrate(fitting, method="platt", channels="dawid_skene_em")
    np.testing.assert_allclose(
        check.fitted.predict(held_out.scores), by_hand.predict(held_out.scores), rtol=1e-12
    )
    # against the clean labels of the held-out half: the map fixes most of the error
    truth = simulation.labels[np.sort(order[2000:])]
    clean_before = bc.expected_calibration_error(truth, held_out.scores)
    clean_after = bc.expected_calibration_error(truth, by_hand.predict(held_out.scores))
    assert check.before_interval.lower <= clean_before <= check.before_interval.upper
    assert check.after_interval.lower <= clean_after <= check.after_interval.upper
    assert check.after < check.before / 2
    record = check.to_record()
    assert record["before_interval"] == list(check.before_interval) and record["level"] == 0.9
    assert check.text().startswith(
        "held out: a map fitted on 2000 items, scored on the other 2000: NC-ECE "
    )


def test_known_channels_are_used_as_they_are(simulation):
    check = held_out_check(simulation.data, estimator=PANEL, method="histogram", n_bootstrap=20)
    assert 0 <= check.after_interval.lower <= check.after <= check.after_interval.upper
    assert check.text().endswith("after (90% intervals)")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"data": "table"}, TypeError, r"data must be a bayescal.AnnotatedScores; saw str"),
        ({"method": "isotonic"}, ValueError, r"method must be one of"),
        ({"n_bootstrap": 1}, ValueError, r"n_bootstrap"),
        ({"level": 1.0}, ValueError, r"level"),
    ],
)
def test_bad_inputs_are_refused_by_name(simulation, kwargs, error, message):
    arguments = {"data": simulation.data, **kwargs}
    with pytest.raises(error, match=message):
        held_out_check(arguments.pop("data"), **arguments)


def test_too_few_items_to_split_are_refused(simulation):
    small = simulation.data.subset(np.arange(2 * MIN_HALF - 1))
    with pytest.raises(ValueError, match=r"data must hold at least 100 items to be split"):
        held_out_check(small)
