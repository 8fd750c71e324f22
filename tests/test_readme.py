"""The README's quick tour runs as written (its first three code blocks: the analysis of the
example table, the metrics, the frequentist estimators)."""

import pathlib
import re

import numpy as np
import pytest

import bayescal as bc
from tests.helpers import CROWD_FIT_GROUP

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _tour_blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    tour = readme[readme.index("## Quick tour") : readme.index("| estimator | annotators |")]
    return re.findall(r"```python\n(.*?)```", tour, flags=re.S)


@pytest.mark.slow
def test_the_quick_tour_runs_and_says_what_it_claims(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    analysis_block, parts_block, estimators_block = _tour_blocks()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    names = {}
    exec(analysis_block, names)
    analysis = names["analysis"]
    assert repr(analysis).startswith("Analysis(3000 items, 4 annotators, dawid_skene: NC-ECE ")
    assert (
        "<table>" in analysis._repr_html_() and "NC-ECE, posterior median" in analysis._repr_html_()
    )
    assert (tmp_path / "results" / "report.html").is_file()
    assert (tmp_path / "results" / "summary.json").read_text().startswith("{")
    assert analysis.to_json().startswith('{\n  "bayescal_version"')
    assert analysis.plot().get_xlabel() != ""
    # The table's point (README "Quickstart"): the naive ECEs are far from the oracle, NC-ECE is not.
    ece = analysis.summary.ece
    assert abs(ece.nc_ece.posterior.median - ece.oracle.value) < 0.02
    assert abs(ece.naive["soft_vote"] - ece.oracle.value) > 0.04
    with pytest.raises(FileExistsError, match="results already exists"):
        analysis.report("results")

    exec(parts_block, names)
    exec(estimators_block, names)
    assert names["fit"].ok and names["u"].shape == (8000,)


@pytest.mark.xdist_group(CROWD_FIT_GROUP)
def test_the_crowd_example_runs_and_says_what_it_claims(crowd_of_30, crowd_of_30_fit, monkeypatch):
    import warnings

    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Crowds") : readme.index("## Studies, large tables")]
    block, hierarchical = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    names = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(block, names)
    said = " ".join(str(w.message) for w in caught)
    for named in ("['w019']", "['w017', 'w023', 'w026']", "['w007', 'w029']"):
        assert named in said
    assert "7 of 20000 items have labels only from workers too uninformative" in said
    assert round(names["nc"], 3) == 0.086
    assert round(names["crowd"].population_binned_ece(10), 3) == 0.090
    assert list(names["labels"].columns) == ["item", "annotator", "label"]

    # the README's fit is the session's (the same crowd, model and defaults, checked here), so
    # the 4 x (1000 + 1000) fit runs once for this test and tests/bayes/test_crowd_bayes.py
    def the_sessions_fit(data, *, model):
        assert model == "hierarchical_dawid_skene"
        assert np.array_equal(data.annotations, crowd_of_30.data.annotations)
        assert np.array_equal(data.scores, crowd_of_30.data.scores)
        return crowd_of_30_fit

    monkeypatch.setattr(bc, "fit_bayes", the_sessions_fit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(hierarchical, names)
    assert [str(w.message) for w in caught if w.category is not bc.ChannelWarning] == []
    mean = names["fit"].chains["population_mean"].mean(axis=(0, 1))
    assert mean[1] > mean[0]  # the population's orientation
    with pytest.warns(bc.ChannelWarning, match="count as unlabelled"):
        low, high = bc.nc_ece_posterior(names["crowd"].data, names["fit"], n_bins=10).interval
    assert low < names["crowd"].population_binned_ece(10) < high


@pytest.mark.slow
def test_the_correlated_judges_example_runs_and_says_what_it_claims():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Judges that err together") : readme.index("## Crowds")]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    names = {"bc": bc}
    exec(block, names)
    assert names["pair"].covariance_draws().shape == (4000, 1, 2)
    assert names["table"].index[0] == "pair"
