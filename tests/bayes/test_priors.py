import math

import pytest

import bayescal as bc


def test_defaults_and_array_layout():
    priors = bc.Priors()
    assert priors.as_array().tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    assert priors.orientation_mass == pytest.approx(0.5, abs=1e-10)


def test_orientation_mass_hand_computed():
    # a ~ Beta(1, 1), b ~ Beta(2, 1): P(a < b) = integral (1 - x^2) dx = 2/3
    assert bc.Priors(sensitivity=(2, 1)).orientation_mass == pytest.approx(2 / 3, abs=1e-10)


def test_dict_round_trip():
    priors = bc.Priors(false_positive=(2, 8), sensitivity=(8, 2), prevalence=(1, 1))
    assert bc.Priors.from_dict(priors.to_dict()) == priors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"false_positive": (0, 1)},
            r"false_positive must hold two positive, finite Beta parameters; saw \(0, 1\)",
        ),
        ({"sensitivity": (1, -2)}, r"sensitivity must hold two positive, finite Beta parameters"),
        ({"prevalence": (1, math.inf)}, r"prevalence must hold two positive, finite"),
        ({"prevalence": (1,)}, r"prevalence must be a pair \(alpha, beta\)"),
        ({"prevalence": "flat"}, r"prevalence must be a pair"),
    ],
)
def test_non_positive_or_malformed_parameters_are_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.Priors(**kwargs)
