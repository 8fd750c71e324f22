"""The documentation runs as written: every Python block of the README and of the guides is
executed here, what they say they print is what the code prints, and the site builds in strict
mode (a broken cross-reference fails it)."""

import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import bayescal as bc
from tests.helpers import CROWD_FIT_GROUP, DASK_CLUSTER_GROUP
from tests.shown_outputs import drift, shown_command_output, stack_change

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _blocks(text: str, fence: str = "python") -> list[str]:
    return re.findall(rf"```{fence}\n(.*?)```", text, flags=re.S)


def _page(name: str) -> str:
    return (DOCS / name).read_text()


def _run_page(name: str, tmp_path, monkeypatch) -> dict:
    """Run every Python block of a page in one namespace, in a scratch folder that sees
    ``examples/``, with matplotlib off screen."""
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    names = {}
    for block in _blocks(_page(name)):
        exec(block, names)
    return names


def test_every_python_block_of_the_guides_is_run_by_a_test():
    """A guide page with Python blocks has its test here (a new page needs one)."""
    tested = {
        "getting-started.md",
        "guides/judges.md",
        "guides/gold.md",
        "guides/crowds.md",
        "guides/correlated-judges.md",
        "guides/studies.md",
        "guides/multiclass.md",
    }
    with_code = {
        str(page.relative_to(DOCS))
        for page in DOCS.rglob("*.md")
        if "_build" not in page.parts and _blocks(page.read_text())
    }
    assert with_code == tested


def test_the_readme_is_short_and_its_example_and_output_are_the_guides():
    """The README's Python example is the start of the getting-started page's, and the output
    it shows is the one that page shows (checked against the code by the next test)."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    (example,) = _blocks(readme)
    assert _blocks(_page("getting-started.md"))[0].startswith(example)
    assert shown_command_output(ROOT / "README.md") == shown_command_output(
        DOCS / "getting-started.md"
    )


@pytest.mark.slow
def test_getting_started_runs_and_prints_what_it_shows(tmp_path, monkeypatch):
    names = _run_page("getting-started.md", tmp_path, monkeypatch)
    analysis = names["analysis"]
    assert repr(analysis).startswith("Analysis(3000 items, 4 annotators, dawid_skene: NC-ECE ")
    html = analysis._repr_html_()
    assert "<table>" in html and "NC-ECE, posterior median" in html
    assert (tmp_path / "results" / "report.html").is_file()
    assert (tmp_path / "results" / "summary.json").read_text().startswith("{")
    # What `bayescal fit` prints is the summary's text (bayescal.app.commands.run_fit): the
    # page shows it for the same table, model, seed and sampler settings.
    # Compared as tests/shown_outputs.py states: exactly on the stack that stored it.
    first, *rest = analysis.summary.text()
    *shown, wrote = shown_command_output(DOCS / "getting-started.md").splitlines()
    change = stack_change()
    why = drift("\n".join([f"bayescal fit: {first}", *rest]), "\n".join(shown), exact=not change)
    assert not why, f"getting-started.md: the command {why}; run `make outputs` ({change})"
    assert wrote.startswith("Wrote results/summary.json, results/posterior.nc")
    # The page's point: the naive ECEs are far from the oracle, NC-ECE is not.
    ece = analysis.summary.ece
    assert abs(ece.nc_ece.posterior.median - ece.oracle.value) < 0.02
    assert abs(ece.naive["soft_vote"] - ece.oracle.value) > 0.04
    with pytest.raises(FileExistsError, match="results already exists"):
        analysis.report("results")
    assert names["fit"].ok and names["u"].shape == (8000,)


@pytest.mark.slow
def test_the_judges_guide_runs_and_says_what_it_claims(tmp_path, monkeypatch):
    with warnings.catch_warnings():
        # the toy data's three annotators saturate Dawid–Skene: said once, as the guide says
        warnings.simplefilter("ignore", bc.SaturatedModelWarning)
        names = _run_page("guides/judges.md", tmp_path, monkeypatch)
    low, high = names["post"].interval
    assert low < names["post"].median < high
    assert names["test"].p_value < 0.05  # "the shifted predictor is miscalibrated"
    assert names["rec"].table().shape[0] == 3  # Base / Naive / Corrected
    quantities = names["sens"].table.index.get_level_values(-1)
    assert "nc_ece" in set(quantities) and len(names["sens"].fits) == 3


@pytest.mark.xdist_group(CROWD_FIT_GROUP)
def test_the_crowds_guide_runs_and_says_what_it_claims(crowd_of_30, crowd_of_30_fit, monkeypatch):
    block, hierarchical = _blocks(_page("guides/crowds.md"))
    names = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(block, names)
    said = " ".join(str(w.message) for w in caught)
    for named in (
        "annotator w019 is",
        "annotators w017, w023 and w026 are",
        "annotators w007 and w029 are",
    ):
        assert named in said
    assert "7 of 20000 items have labels only from workers too uninformative" in said
    assert round(names["nc"], 3) == 0.086
    assert round(names["crowd"].population_binned_ece(10), 3) == 0.090
    assert list(names["labels"].columns) == ["item", "annotator", "label"]

    # the guide's fit is the session's (the same crowd and model, checked here; 2 chains where
    # the guide's defaults run 4, which notebook 06 runs on this crowd), so the fit runs once
    # for this test and tests/bayes/test_crowd_bayes.py
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
def test_the_gold_guide_runs_and_says_what_it_claims(tmp_path, monkeypatch):
    names = _run_page("guides/gold.md", tmp_path, monkeypatch)
    simulation = names["simulation"]
    population = simulation.population_binned_ece(10)
    for low, high in (names["estimate"].interval, names["posterior"].interval):
        assert low < population < high
    # about 100 gold items of class 0 give a's standard error of 0.035: within three
    assert names["fit"].channels.a[0] == pytest.approx(0.15, abs=0.1)
    low, high = names["rates"].intervals["positive_rate"]
    assert low < simulation.labels.mean() < high


@pytest.mark.slow
def test_the_correlated_judges_guide_runs_and_says_what_it_claims():
    (block,) = _blocks(_page("guides/correlated-judges.md"))
    names = {"bc": bc}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(block, names)
    named = [str(w.message) for w in caught if issubclass(w.category, bc.ChannelWarning)]
    # the shared-difficulty model, wrong for a shared-error pair, misreads the good judges;
    # nothing else warns
    assert len(named) == len(caught), [str(w.message) for w in caught]
    assert any("annotator a2 is estimated adversarial" in line for line in named), named
    assert names["pair"].covariance_draws().shape == (4000, 1, 2)
    assert names["table"].index[0] == "pair"


@pytest.mark.slow
@pytest.mark.xdist_group(DASK_CLUSTER_GROUP)
def test_the_studies_guide_runs_and_says_what_it_claims(tmp_path, monkeypatch):
    names = _run_page("guides/studies.md", tmp_path, monkeypatch)
    assert names["on_dask"].results.equals(names["study"].results)
    direct = bc.grouped_em(
        bc.AnnotatedScores(
            names["sim"].data.scores,
            names["sim"].data.annotations,
            groups=bc.channels.score_groups(names["sim"].data.scores, n_groups=5),
        )
    )
    np.testing.assert_allclose(names["fit"].channels.a, direct.channels.a, atol=1e-8)


def test_the_multiclass_guide_runs_and_says_what_it_claims(tmp_path, monkeypatch):
    names = _run_page("guides/multiclass.md", tmp_path, monkeypatch)
    clean, corrected, one_judge = names["clean"], names["corrected"], names["one_judge"]
    assert abs(corrected - clean) < 0.01
    assert abs(one_judge - clean) > 0.1
    np.testing.assert_allclose(names["fit"].channels.confusion, names["confusion"], atol=0.03)
    classwise = names["classwise"]
    clean_classwise = bc.expected_calibration_error(
        names["labels"], names["probabilities"], kind="classwise"
    )
    assert abs(classwise.estimate - clean_classwise) < 0.01
    assert classwise.estimate == pytest.approx(classwise.class_errors.mean(), abs=1e-15)
    clean_temperature = names["clean_map"].temperature_
    assert names["temperature"].temperature_ == pytest.approx(clean_temperature, rel=0.05)
    assert names["naive"].temperature_ > 1.3 * clean_temperature
    assert names["low"] <= clean <= names["high"]
    assert abs(names["top_label"].median - corrected) < 0.01
    table = names["table"]
    assert table.loc["corrected", "median"] < 0.5 * table.loc["base", "median"]
    assert table.loc["naive", "median"] > table.loc["base", "median"]


@pytest.mark.slow
def test_the_documentation_builds_in_strict_mode(tmp_path):
    """``make docs``: Sphinx with ``-W -n`` (every warning an error, every reference checked)."""
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "-n", "-q", str(DOCS), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    home = (tmp_path / "index.html").read_text()
    assert "noise-corrected ECE" in home
    assert (tmp_path / "api" / "correction.html").is_file()
    assert (tmp_path / "notebooks" / "06_crowd.html").is_file()


def test_the_resolver_finds_an_object_by_any_of_its_paths_and_nothing_else():
    """The strict build's resolver (docs/conf.py) links a bayescal name wherever the object it
    names is documented, and leaves a name that is no object broken, for the build to fail."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    assert conf._lookup("bayescal.correction.known_channels.corrected_labels") is (
        bc.correction.corrected_labels
    )
    assert conf._lookup("bayescal.Analysis.report") is bc.Analysis.report
    assert conf._lookup("bayescal.no_such_name") is None
    assert conf._lookup("bayescal.Analysis.no_such_method") is None
