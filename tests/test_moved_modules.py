"""The modules of earlier releases still import, for one release, with a DeprecationWarning
that names where their names live now (CHANGELOG.md lists every move)."""

import importlib
import sys
import types
import warnings

import pytest

import bayescal

#: Old module -> (its new module, a name it held).
MOVED = {
    "bayescal.agreement": ("bayescal.metrics.agreement", "cohens_kappa"),
    "bayescal.record": ("bayescal.metrics.record", "calibration_record"),
    "bayescal.triage": ("bayescal.metrics.triage", "logit_kde_threshold"),
    "bayescal.responses": ("bayescal.data.responses", "Responses"),
    "bayescal.cells": ("bayescal.data.cells", "cell_statistics_from_frame"),
    "bayescal.estimation": ("bayescal.correction.estimation", "nc_ece_estimate"),
    "bayescal.significance": ("bayescal.correction.calibration_test", "calibration_test"),
    "bayescal.crowds": ("bayescal.simulate.crowds", "simulate_crowd"),
    "bayescal.priors": ("bayescal.bayes.priors", "Priors"),
    "bayescal.convergence": ("bayescal.bayes.diagnostics", "ess_bulk"),
    "bayescal.bayes_fit": ("bayescal.bayes.bayes_fit", "BayesFit"),
    "bayescal.inference": ("bayescal.bayes.fit", "fit_bayes"),
    "bayescal.posterior": ("bayescal.bayes.posterior", "nc_ece_posterior"),
    "bayescal.posterior_maps": ("bayescal.bayes.posterior", "posterior_recalibration"),
    "bayescal.checks": ("bayescal.bayes.checks", "check_model"),
    "bayescal.sensitivity": ("bayescal.bayes.sensitivity", "prior_sensitivity"),
    "bayescal.model_comparison": ("bayescal.bayes.comparison", "compare_models"),
    "bayescal.summary": ("bayescal.report.summary", "Summary"),
    "bayescal.plotting": ("bayescal.report.plotting", "plot_channels"),
    "bayescal.folders": ("bayescal.report.folders", "staged_output"),
    "bayescal.results": ("bayescal.report.folders", "write_analysis"),
    "bayescal.analysis": ("bayescal.app.analysis", "analyse"),
    "bayescal.commands": ("bayescal.app.commands", "run_fit"),
    "bayescal.demo": ("bayescal.app.demo", "run_demo"),
    "bayescal.cli": ("bayescal.app.cli", "main"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_imports_its_new_module_and_warns_at_the_importing_line(
    old, monkeypatch
):
    new, name = MOVED[old]
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"^{old} is {new} since bayescal ") as caught:
        module = importlib.import_module(old)
    assert caught[0].filename == __file__
    assert module is importlib.import_module(new)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)
    # The module keeps its own spec: the relative imports inside its functions would otherwise
    # raise ImportWarning (__package__ != __spec__.parent) once the old path was imported.
    assert module.__spec__.name == new
    assert module.__spec__.parent == module.__package__


def test_the_split_io_module_finds_each_name_where_it_went(monkeypatch):
    monkeypatch.delitem(sys.modules, "bayescal.io", raising=False)
    with pytest.warns(DeprecationWarning, match="bayescal.io is bayescal.data.tables and"):
        from bayescal.io import read_priors, read_wide_table, write_json
    from bayescal.bayes import read_priors as now_read_priors
    from bayescal.data import read_wide_table as now_read_wide_table
    from bayescal.report.folders import write_json as now_write_json

    assert (read_priors, read_wide_table, write_json) == (
        now_read_priors,
        now_read_wide_table,
        now_write_json,
    )
    with pytest.raises(AttributeError, match=r"module 'bayescal\.io' has no attribute 'nothing'"):
        sys.modules["bayescal.io"].nothing  # noqa: B018


def test_what_was_never_a_module_still_fails_and_new_paths_do_not_warn():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("bayescal.no_such_module")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("bayescal.bayes.fit")
        importlib.import_module("bayescal.report")


@pytest.mark.parametrize(
    "package, name, where",
    [
        ("bayescal.report", "report_html", "bayescal.report.html_report"),
        ("bayescal.correction", "WEIGHT_RULES", "bayescal.correction.weights"),
        ("bayescal.simulate", "toy_calibration", "bayescal.simulate.panels"),
        (
            "bayescal.channels.dependence",
            "pattern_log_prob",
            "bayescal.channels.pattern_likelihood",
        ),
    ],
)
def test_names_of_a_module_that_became_a_folder_still_resolve(package, name, where):
    with pytest.warns(DeprecationWarning, match=rf"{package}.{name} is {where}.{name}"):
        found = getattr(importlib.import_module(package), name)
    assert found is getattr(importlib.import_module(where), name)
    assert bayescal.__version__


def test_the_top_level_holds_at_most_47_public_names_all_in_all():
    """The workflow, its inputs and results, the defaults and the exceptions.  The folders are
    reached as attributes, lazily.  The cap was 45; issue 36 put the two gold-buying steps
    (plan_gold, select_for_gold) at the top, as the commonest set-up's own."""
    public = {
        name
        for name, value in vars(bayescal).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert len(bayescal.__all__) <= 47
    assert public <= set(bayescal.__all__)
    assert sorted(set(dir(bayescal)) & set(bayescal.__all__)) == sorted(bayescal.__all__)


@pytest.mark.parametrize("old", sorted(bayescal._MOVED))
def test_a_name_that_left_the_top_level_resolves_and_warns_at_the_callers_line(old):
    target, new = bayescal._MOVED[old].split(":")
    with pytest.warns(
        DeprecationWarning, match=rf"^bayescal\.{old} is {target}\.{new} since"
    ) as got:
        found = getattr(bayescal, old)
    assert [warning.filename for warning in got] == [__file__]
    assert found is getattr(importlib.import_module(target), new)
    assert new in importlib.import_module(target).__all__  # public in its folder
