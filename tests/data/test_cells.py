"""Cell statistics: partition-wise sums on a Dask cluster equal the in-memory computation."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.correction.known_channels import cell_targets
from bayescal.data.cells import CellStatistics, cell_statistics_from_frame
from tests.helpers import DASK_CLUSTER_GROUP

ANNOTATORS = ["ann", "bob", "cy"]


@pytest.fixture(scope="module")
def table():
    """The toy data as a wide table with 10% missing responses (NaN)."""
    sim = bc.toy_data(12_000, seed=4)
    rng = np.random.default_rng(4)
    labels = sim.data.annotations.astype(float)
    labels[rng.random(labels.shape) < 0.1] = np.nan
    labels[np.isnan(labels).all(axis=1), 0] = 1.0
    frame = pd.DataFrame(
        {"p": sim.data.scores, **{name: labels[:, j] for j, name in enumerate(ANNOTATORS)}}
    )
    data = bc.AnnotatedScores.from_frame(frame, score="p", annotators=ANNOTATORS)
    grouped = bc.AnnotatedScores(
        data.scores,
        data.annotations,
        groups=bc.channels.score_groups(data.scores, n_groups=5),
        annotator_names=data.annotator_names,
    )
    return frame, grouped


def assert_same_cells(first: CellStatistics, second: CellStatistics):
    for field in ("groups", "bins", "patterns", "counts"):
        np.testing.assert_array_equal(getattr(first, field), getattr(second, field))
    np.testing.assert_allclose(first.score_sums, second.score_sums, rtol=1e-12)
    np.testing.assert_allclose(first.score_squares, second.score_squares, rtol=1e-12)
    np.testing.assert_allclose(first.bin_score_sums, second.bin_score_sums, rtol=1e-12)
    np.testing.assert_array_equal(first.edges, second.edges)
    assert first.annotator_names == second.annotator_names


def test_cells_hold_exactly_what_the_items_give(table):
    _, data = table
    cells = data.cells(n_bins=10)
    assert cells.n_items == data.n_items
    counts = cells.by_pattern()
    expected = data.compress()
    np.testing.assert_array_equal(counts.groups, expected.groups)
    np.testing.assert_array_equal(counts.patterns, expected.patterns)
    np.testing.assert_array_equal(counts.counts, expected.counts)
    bins = np.minimum((data.scores * 10).astype(int), 9)
    np.testing.assert_allclose(
        np.bincount(cells.bins, weights=cells.score_sums),
        np.bincount(bins, weights=data.scores),
        rtol=1e-12,
    )
    fit = bc.grouped_em(data)
    moments = cells.moments(cell_targets(cells, fit.channels))
    reference = bc.metrics.calibration_moments(
        bc.correction.corrected_labels(data.annotations, fit.channels), data.scores, n_bins=10
    )
    np.testing.assert_allclose(moments.moments, reference.moments, atol=1e-15)
    np.testing.assert_array_equal(moments.counts, reference.counts)
    assert moments.ece == pytest.approx(
        bc.noise_corrected_ece(data, fit.channels, n_bins=10), abs=1e-14
    )
    # Equal weights, against the item-level route (corrected label of every item, then bins).
    equal = bc.noise_corrected_ece(cells, fit.channels, weights="equal")
    item_level = bc.metrics.calibration_moments(
        bc.correction.corrected_labels(data.annotations, fit.channels, weights="equal"),
        data.scores,
        n_bins=10,
    )
    assert equal == pytest.approx(item_level.ece, abs=1e-14)
    assert equal != pytest.approx(moments.ece, abs=1e-6)  # not the IV-weighted figure


def test_parts_combine_to_the_whole(table):
    _, data = table
    halves = [data.subset(np.arange(k, data.n_items, 2)).cells(n_bins=10) for k in range(2)]
    assert_same_cells(CellStatistics.combine(halves), data.cells(n_bins=10))


@pytest.mark.xdist_group(DASK_CLUSTER_GROUP)
def test_dask_partitions_of_parquet_files_on_a_local_cluster_equal_the_in_memory_result(
    table, tmp_path
):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    frame, data = table
    for k, part in enumerate(np.array_split(np.arange(len(frame)), 6)):
        frame.iloc[part].to_parquet(tmp_path / f"part-{k}.parquet")
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        ddf = dd.read_parquet(str(tmp_path))
        assert ddf.npartitions == 6
        on_dask = cell_statistics_from_frame(
            ddf, score="p", annotators=ANNOTATORS, groups=5, n_bins=10
        )
    in_memory = data.cells(n_bins=10)
    assert_same_cells(on_dask, in_memory)
    assert_same_cells(
        cell_statistics_from_frame(frame, score="p", annotators=ANNOTATORS, groups=5, n_bins=10),
        in_memory,
    )
    # The fit on the partition-wise counts and its NC-ECE are those of the in-memory data.
    fit = bc.grouped_em(on_dask)
    direct = bc.grouped_em(data)
    np.testing.assert_array_equal(fit.channels.a, direct.channels.a)
    np.testing.assert_array_equal(fit.channels.b, direct.channels.b)
    assert bc.noise_corrected_ece(on_dask, fit.channels) == pytest.approx(
        bc.noise_corrected_ece(data, direct.channels, n_bins=10), abs=1e-14
    )


def test_bad_input_is_reported_with_the_column(table):
    frame, data = table
    with pytest.raises(ValueError, match="bob"):
        cell_statistics_from_frame(
            frame.assign(bob=frame["bob"].fillna(0) + 2), score="p", annotators=ANNOTATORS
        )
    with pytest.raises(TypeError, match="annotators must be a sequence of column names; saw 'ann'"):
        cell_statistics_from_frame(frame, score="p", annotators="ann")
    with pytest.raises(ValueError, match="n_bins must be >= 1; saw 0"):
        data.cells(n_bins=0)
    with pytest.raises(ValueError, match=r"frame has no column\(s\) \['dee'\]"):
        cell_statistics_from_frame(frame, score="p", annotators=[*ANNOTATORS, "dee"])
    with pytest.raises(
        TypeError,
        match=r"data must be a bayescal\.AnnotatedScores or bayescal\.data\.CellStatistics; saw list",
    ):
        bc.noise_corrected_ece([0.5], bc.Channels([0.1] * 3, [0.9] * 3))
    cells = data.cells(n_bins=10)
    with pytest.raises(ValueError, match="n_bins and strategy are fixed when cells are built"):
        bc.noise_corrected_ece(cells, bc.Channels([0.1] * 3, [0.9] * 3), n_bins=5)
    with pytest.raises(ValueError, match="parts must share annotators and bin edges"):
        CellStatistics.combine([cells, data.cells(n_bins=5)])


@pytest.mark.filterwarnings(
    "ignore::bayescal.exceptions.SamplingWarning"
)  # short chains: only the draws are compared
def test_fit_bayes_runs_on_pattern_counts_alone(table):
    _, data = table
    counts = data.cells(n_bins=10).by_pattern()
    settings = {
        "model": "hui_walter",
        "num_chains": 1,
        "num_warmup": 100,
        "num_samples": 100,
        "seed": 2,
        "progress": False,
    }
    from_counts, from_items = bc.fit_bayes(counts, **settings), bc.fit_bayes(data, **settings)
    for got, want in zip(from_counts.draws(), from_items.draws()):
        np.testing.assert_array_equal(got, want)
    assert from_counts.annotator_names == ("ann", "bob", "cy")


def test_empty_dask_partitions_add_nothing_and_an_empty_frame_is_refused(table):
    import dask.dataframe as dd

    frame, _ = table
    ordered = frame.sort_values("p", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(ordered, npartitions=4, sort=False)
    kept = ddf[ddf["p"] < 0.5]  # the partitions of the highest scores are left empty
    assert 0 in kept.map_partitions(len).compute().tolist()
    on_dask = cell_statistics_from_frame(kept, score="p", annotators=ANNOTATORS, n_bins=10)
    low = ordered[ordered["p"] < 0.5]
    in_memory = cell_statistics_from_frame(low, score="p", annotators=ANNOTATORS, n_bins=10)
    assert_same_cells(on_dask, in_memory)
    nothing = ddf[ddf["p"] > 2.0]
    with pytest.raises(ValueError, match="frame has no rows"):
        cell_statistics_from_frame(nothing, score="p", annotators=ANNOTATORS, n_bins=10)
