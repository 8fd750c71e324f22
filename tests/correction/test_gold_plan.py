"""plan_gold: expected interval widths by number of random gold items (its agreement with the
widths realised is measured in benchmarks/gold_plan.py)."""

import numpy as np
import pytest

import bayescal as bc
from bayescal.simulate.panels import toy_calibration

PANEL = bc.Channels([0.1, 0.15, 0.2, 0.25], [0.75, 0.85, 0.9, 0.8])


def _simulation(n_gold=200):
    # miscalibrated, as the plan is read: near NC-ECE 0 its interval sits on the bound
    simulation = bc.simulate.simulate_annotated(
        3000, PANEL, calibration=toy_calibration("shifted"), seed=7
    )
    return simulation.with_gold(n_gold, seed=7) if n_gold else simulation


def test_widths_shrink_with_the_gold_and_the_rate_like_one_over_its_root():
    plan = bc.correction.plan_gold(_simulation().data, "dawid_skene_em", sizes=[100, 400, 1600])
    assert plan.from_gold and plan.sizes == (100, 400, 1600)
    assert np.all(np.diff(plan.nc_ece_width) < 0) and np.all(np.diff(plan.positive_rate_width) < 0)
    # four times the gold, a little more than half the width: the other items' term does not
    # shrink with the gold
    ratio = plan.positive_rate_width[0] / plan.positive_rate_width[1]
    assert 1.6 < ratio < 2.0
    assert list(plan.table().index) == [100, 400, 1600]


def test_a_fit_plans_as_its_estimator_does():
    data = _simulation().data
    by_name = bc.correction.plan_gold(data, "dawid_skene_em", sizes=[200])
    by_fit = bc.correction.plan_gold(data, bc.dawid_skene_em(data), sizes=[200])
    assert by_fit.nc_ece_width == by_name.nc_ece_width


def test_without_gold_the_model_plans():
    plain = bc.correction.plan_gold(_simulation(n_gold=0).data, PANEL, sizes=[200])
    with_gold = bc.correction.plan_gold(_simulation().data, PANEL, sizes=[200])
    assert not plain.from_gold
    # the model's residuals and the gold's describe the same items: widths within a third
    assert plain.nc_ece_width[0] == pytest.approx(with_gold.nc_ece_width[0], rel=0.33)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sizes": [1]}, r"sizes must be an integer >= 2|sizes must be"),
        ({"sizes": [5000]}, r"sizes must be at most the number of items \(3000\); saw 5000"),
        ({"level": 1.5}, r"level must"),
    ],
)
def test_bad_plans_are_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bc.correction.plan_gold(_simulation().data, "dawid_skene_em", **kwargs)
    with pytest.raises(TypeError, match=r"data must be a bayescal.AnnotatedScores"):
        bc.correction.plan_gold(_simulation().data.annotations, "dawid_skene_em")
