import math

import pytest

import bayescal as bc


def test_defaults_and_array_layout():
    priors = bc.Priors()
    assert priors.as_array().tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]


def test_the_folded_priors_chance_of_an_adversarial_annotator():
    """Two annotators under flat priors, by hand: d_j = b_j - a_j has the triangular density
    1 - |x| on (-1, 1), and P(d_1 < 0 < d_1 + d_2) + P(d_1 > 0 > d_1 + d_2) = 2 * integral over
    x in (0, 1) of (1 - x) P(d_2 > x) dx = 2 * integral (1 - x)^3 / 2 dx = 1/4."""
    assert bc.Priors().adversarial_probability(2) == pytest.approx(0.25, abs=0.004)
    assert bc.Priors().adversarial_probability(1) == 0.0
    informative = bc.Priors(false_positive=(2, 8), sensitivity=(8, 2))
    assert 0.0 < informative.adversarial_probability(3) < 0.005
    with pytest.raises(ValueError, match="n_annotators must be"):
        bc.Priors().adversarial_probability(0)


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
