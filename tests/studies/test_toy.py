"""The toy study: the paper's stated findings at reduced size, and identical results on every executor."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from bayescal.studies import toy_study
from tests.helpers import DASK_CLUSTER_GROUP

FREQUENTIST = ("true channels", "EM reuse", "EM cross-fit", "EM split")


@pytest.fixture(scope="module")
def study():
    return toy_study(sizes=[1000, 8000], replicates=40, methods=FREQUENTIST)


def test_errors_fall_with_n_and_estimated_channels_stay_close_to_supplied_ones(study):
    """seeds/001 §6.1: NC-ECE errors decrease with N; estimated noise rates perform close to
    supplied ones (calibrated condition)."""
    mae = study.summary()["mae_x100"]
    for condition in ("calibrated", "shifted", "nonlinear"):
        for method in FREQUENTIST:
            assert mae[(condition, 8000, method)] < 0.6 * mae[(condition, 1000, method)]
    calibrated = study.table(n=8000).loc["calibrated", "mae_x100"]
    assert (
        abs(calibrated["EM reuse"] - calibrated["true channels"])
        < 0.15 * calibrated["true channels"]
    )


def test_reuse_and_cross_fitting_beat_splitting_at_8000(study):
    """seeds/001 §6.1: at N = 8000 reuse and cross-fitting have similar errors, both below splitting."""
    table = study.table(n=8000)["mae_x100"]
    for condition in ("calibrated", "shifted", "nonlinear"):
        reuse, crossfit, split = (
            table[(condition, m)] for m in ("EM reuse", "EM cross-fit", "EM split")
        )
        assert reuse < split and crossfit < split
        assert abs(reuse - crossfit) < 0.1 * reuse


def test_summary_layout_and_errors_against_the_population_ece(study):
    results = study.results
    assert set(results["method"]) == set(FREQUENTIST) and (results["failure"] == "").all()
    np.testing.assert_allclose(results["error"], results["estimate"] - results["population_ece"])
    table = study.table(n=8000)
    assert list(table.columns) == [
        "bias_x100",
        "mae_x100",
        "mae_se_x100",
        "sd_x100",
        "rmse_x100",
        "replicates",
        "failures",
    ]
    assert (table["replicates"] == 40).all()
    with pytest.raises(
        ValueError, match=r"n must be one of the study's sizes \[1000, 8000\]; saw 4000"
    ):
        study.table(n=4000)


@pytest.mark.slow
@pytest.mark.xdist_group(DASK_CLUSTER_GROUP)
def test_results_are_identical_on_a_process_pool_and_a_dask_cluster():
    """Bayesian fits included on the process pool: JAX on CPU is deterministic given the seed."""
    from distributed import Client, LocalCluster

    bayes = {
        "conditions": ["nonlinear"],
        "sizes": [800],
        "replicates": 2,
        "num_warmup": 50,
        "num_samples": 50,
    }
    pd.testing.assert_frame_equal(
        toy_study(**bayes).results, toy_study(executor="process", **bayes).results
    )
    frequentist = {
        "conditions": ["calibrated", "shifted"],
        "sizes": [600],
        "replicates": 3,
        "methods": FREQUENTIST,
    }
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        on_dask = toy_study(executor=client, **frequentist).results
    pd.testing.assert_frame_equal(toy_study(**frequentist).results, on_dask)


def test_bad_arguments():
    with pytest.raises(
        ValueError,
        match=r"conditions must be one of 'calibrated', 'shifted', 'nonlinear'; saw 'odd'",
    ):
        toy_study(conditions=["odd"])
    with pytest.raises(TypeError, match="conditions must be a sequence of condition names"):
        toy_study(conditions="shifted")
    with pytest.raises(ValueError, match=r"methods must be one of 'true channels'.*saw 'EM'"):
        toy_study(methods=["EM"])
    with pytest.raises(ValueError, match="sizes must be >= 20; saw 5"):
        toy_study(sizes=[5])
    with pytest.raises(TypeError, match="executor must be None, 'local', 'process'"):
        toy_study(executor="threads")
    with (
        ThreadPoolExecutor(1) as pool,
        pytest.raises(TypeError, match="executor must not be a ThreadPoolExecutor"),
    ):
        toy_study(executor=pool)
