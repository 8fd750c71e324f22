"""corrected_rates: the predictor's rates and the population's positive rate from corrected
labels and gold items, with bootstrap intervals."""

import numpy as np
import pytest

import bayescal as bc


def _judge(n_gold=200, seed=2):
    simulation = bc.simulate.simulate_annotated(
        5000,
        bc.Channels([0.15], [0.8]),
        calibration=lambda z: 0.1 + 0.8 * np.asarray(z),
        seed=seed,
    )
    return simulation.with_gold(n_gold, seed=seed)


def _truth(simulation, threshold=0.5):
    y, z = simulation.labels, simulation.data.scores
    yhat = z >= threshold
    return {
        "positive_rate": y.mean(),
        "accuracy": (yhat == y).mean(),
        "brier": ((z - y) ** 2).mean(),
        "tpr": yhat[y == 1].mean(),
        "fpr": yhat[y == 0].mean(),
        "precision": y[yhat].mean(),
    }


def test_one_judge_with_gold_recovers_every_rate_within_its_interval():
    simulation = _judge()
    rates = bc.correction.corrected_rates(simulation.data, n_bootstrap=100)
    assert rates.estimator == "rectified" and rates.n_gold == 200
    for name, value in _truth(simulation).items():
        low, high = rates.intervals[name]
        assert low <= value <= high, (name, value, rates.intervals[name])
    # the judge's own pass rate is far off (a = 0.15, b = 0.8 at a prevalence near 1/2)
    assert abs(rates.raw_positive_rates["a0"] - simulation.labels.mean()) > 0.02
    assert list(rates.table().index) == list(_truth(simulation))


def test_known_channels_without_gold_give_the_corrected_means():
    simulation = _judge()
    plain = bc.AnnotatedScores(simulation.data.scores, simulation.data.annotations)
    panel = bc.simulate.simulate_annotated(
        5000, bc.Channels([0.1, 0.2, 0.25], [0.8, 0.85, 0.9]), seed=4
    )
    rates = bc.correction.corrected_rates(panel.data, estimator=panel.channels, n_bootstrap=20)
    targets = bc.correction.corrected_labels(panel.data.annotations, panel.channels)
    assert rates.estimator == "model"
    assert rates.estimates["positive_rate"] == pytest.approx(targets.mean(), abs=1e-12)
    z = panel.data.scores
    assert rates.estimates["brier"] == pytest.approx(np.mean(z**2 + (1 - 2 * z) * targets))
    with pytest.raises(bc.IdentificationError, match=r"one annotator"):
        bc.correction.corrected_rates(plain)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"threshold": 1.0}, ValueError, r"threshold must"),
        ({"n_bootstrap": 1}, ValueError, r"n_bootstrap must"),
        ({"progress": "no"}, TypeError, r"progress must be True or False; saw str"),
        ({"estimator": "median"}, ValueError, r"estimator must be one of"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        bc.correction.corrected_rates(_judge().data, **kwargs)
    with pytest.raises(TypeError, match=r"data must be a bayescal.AnnotatedScores; saw list"):
        bc.correction.corrected_rates([0.1, 0.2])
