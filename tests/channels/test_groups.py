import numpy as np
import pytest

import bayescal as bc


def test_threshold_groups_follow_g_equals_one_z_at_least_t():
    assert bc.channels.score_groups([0.1, 0.5, 0.49, 0.7], thresholds=0.5).tolist() == [0, 1, 0, 1]
    assert bc.channels.score_groups([0.1, 0.3, 0.6, 1.0], thresholds=[0.3, 0.6]).tolist() == [
        0,
        1,
        2,
        2,
    ]


def test_uniform_and_quantile_groups():
    scores = np.linspace(0.0, 1.0, 101)
    assert np.bincount(bc.channels.score_groups(scores, n_groups=4)).tolist() == [25, 25, 25, 26]
    quantile = bc.channels.score_groups(scores**3, n_groups=4, strategy="quantile")
    assert np.bincount(quantile).tolist() == [25, 25, 25, 26]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({}, r"exactly one of thresholds or n_groups; saw neither"),
        ({"thresholds": 0.5, "n_groups": 2}, r"saw both"),
        ({"thresholds": [0.6, 0.4]}, r"thresholds must be strictly increasing; saw \[0.6, 0.4\]"),
        ({"thresholds": [0.0]}, r"thresholds must lie strictly inside \(0, 1\)"),
        ({"thresholds": [float("nan")]}, r"thresholds must be finite"),
        ({"n_groups": 0}, r"n_groups must be >= 1; saw 0"),
        ({"n_groups": 3, "strategy": "kmeans"}, r"strategy must be one of"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bc.channels.score_groups([0.2, 0.8], **kwargs)
