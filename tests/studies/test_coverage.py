"""Reduced coverage study of nc_ece_posterior on the paper's toy design (the full one, 100
replicates per condition, is benchmarks/coverage_posterior_ece.py; results in RESULTS.md)."""

import pytest

from bayescal.studies import posterior_coverage


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["shifted", "nonlinear"])
def test_total_intervals_cover_the_population_binned_ece(condition):
    # 30 fresh replicates: 90% intervals should cover in about 90% (binomial SD 5.5%); accept >= 75%.
    table = posterior_coverage(condition=condition, replicates=30, first_seed=5000)
    total = table[table.uncertainty == "total"]
    channels = table[table.uncertainty == "channels"]
    assert total["covered"].mean() >= 0.75
    # The literal channel-only interval leaves the evaluation noise out and covers less.
    assert channels["covered"].mean() < total["covered"].mean()


@pytest.mark.slow
def test_calibrated_predictor_interval_reaches_zero():
    table = posterior_coverage(condition="calibrated", replicates=30, first_seed=5000)
    total = table[table.uncertainty == "total"]
    assert total["lower_below_0.005"].mean() >= 0.75
    assert (
        table[table.uncertainty == "channels"]["lower"] > 0.005
    ).mean() > 0.9  # raw sums never reach 0
