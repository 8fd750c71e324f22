"""The example tables of the README quickstart are what examples/make_examples.py writes, and they read cleanly."""

import importlib.util
import pathlib

import bayescal as bc
from bayescal.bayes.priors import read_priors
from bayescal.data.tables import read_wide_table

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_the_shipped_examples_are_reproducible(tmp_path):
    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    for name in ("judged.csv", "priors.json"):
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes(), name


def test_the_quickstart_table_reads_and_its_naive_ece_is_biased():
    table = read_wide_table(
        EXAMPLES / "judged.csv",
        score="score",
        annotators=["ann", "bob", "cy", "dee"],
        truth="truth",
    )
    data = table.data
    assert data.n_items == 3000 and 0.15 < (data.annotations[:, 3] == -1).mean() < 0.25
    oracle = bc.expected_calibration_error(table.truth, data.scores, n_bins=10)
    naive = bc.correction.soft_vote_ece(data, n_bins=10)
    corrected = bc.nc_ece_estimate(data, estimator="dawid_skene_em", n_bins=10).estimate
    assert abs(corrected - oracle) < 0.02 < abs(naive - oracle)  # the quickstart's point
    assert list(read_priors(EXAMPLES / "priors.json", named=True)) == [
        "flat",
        "sensitive judges",
        "careful judges",
    ]
