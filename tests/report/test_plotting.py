"""Plots take result objects, draw what they say, and return Axes."""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.bayes.checks import check_model
from bayescal.bayes.sensitivity import prior_sensitivity
from bayescal.report.plotting import (
    plot_channels,
    plot_ece_posterior,
    plot_pairwise_agreement,
    plot_ppc_residuals,
    plot_prior_sensitivity,
    plot_reliability,
)
from bayescal.studies.checks import FIVE_ANNOTATORS
from tests.helpers import fake_fit


@pytest.fixture(scope="module")
def table():
    data = bc.simulate_annotated(1500, FIVE_ANNOTATORS, seed=2).data
    draws = 100
    fit = fake_fit(
        data,
        np.tile(FIVE_ANNOTATORS.a, (draws, 1)),
        np.tile(FIVE_ANNOTATORS.b, (draws, 1)),
        np.full(draws, 0.5),
    )
    return check_model(data, fit).table


def test_ppc_residual_plot_shows_every_pattern(table):
    ax = plot_ppc_residuals(table)
    patterns = table[table["check"] == "pattern"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(patterns["subject"])
    points = ax.collections[-1].get_offsets()
    np.testing.assert_allclose(points[:, 1], patterns["observed"] - patterns["expected"])
    plt.close(ax.figure)


def test_pairwise_plot_marks_flagged_pairs_red(table):
    fig, ax = plt.subplots()
    assert plot_pairwise_agreement(table, ax=ax) is ax
    pairs = table[table["check"] == "pairwise_agreement"]
    observed = ax.collections[-1]
    np.testing.assert_allclose(observed.get_offsets()[:, 1], pairs["observed"])
    red = matplotlib.colors.to_rgba("tab:red")
    flagged = [tuple(c) == red for c in observed.get_facecolors()]
    assert flagged == list(pairs["flag"])
    plt.close(fig)


@pytest.mark.filterwarnings(
    "ignore::bayescal.exceptions.SamplingWarning"
)  # short chains: a plot test
def test_prior_sensitivity_plot_has_a_panel_per_quantity():
    result = prior_sensitivity(
        bc.toy_data(200, seed=0).data,
        priors=[bc.Priors(), bc.Priors(sensitivity=(8, 2))],
        num_chains=2,
        num_warmup=500,
        num_samples=1000,
    )
    axes = plot_prior_sensitivity(result, quantities=["nc_ece", "b[a0]"])
    assert [ax.get_title() for ax in axes] == ["nc_ece", "b[a0]"]
    np.testing.assert_allclose(
        axes[1].collections[-1].get_offsets()[:, 0],
        result.table.xs("b[a0]", level="quantity")["mean"],
    )
    with pytest.raises(ValueError, match=r"quantities must be among .*; saw \['c\[a0\]'\]"):
        plot_prior_sensitivity(result, quantities=["c[a0]"])
    with pytest.raises(TypeError, match=r"result must be a bayescal\.bayes\.PriorSensitivity"):
        plot_prior_sensitivity(result.table)
    plt.close("all")


def test_plots_reject_other_objects(table):
    with pytest.raises(
        TypeError, match=r"checks must be the ModelChecks returned by bayescal\.check_model"
    ):
        plot_ppc_residuals(table["subject"])
    with pytest.raises(ValueError, match="checks has no 'pairwise_agreement' rows to plot"):
        plot_pairwise_agreement(table[table["check"] != "pairwise_agreement"])


@pytest.fixture(scope="module")
def toy_posterior():
    sim = bc.toy_data(3000, seed=6)
    rng = np.random.default_rng(6)
    a = np.clip(sim.channels.a + rng.normal(0, 0.01, (200, 3)), 0.01, 0.4)
    b = np.clip(sim.channels.b + rng.normal(0, 0.01, (200, 3)), 0.6, 0.99)
    fit = fake_fit(sim.data, a, b, np.full(200, 0.5))
    return sim, fit, bc.nc_ece_posterior(sim.data, fit, n_bins=10)


def test_reliability_diagram_draws_the_posterior_median_and_overlaid_curves(toy_posterior):
    sim, _, posterior = toy_posterior
    oracle = bc.metrics.reliability_curve(sim.labels, sim.data.scores, n_bins=10)
    ax = plot_reliability(posterior, curves={"oracle": oracle})
    corrected, overlaid = ax.get_lines()[1], ax.get_lines()[2]
    np.testing.assert_allclose(corrected.get_ydata(), np.median(posterior.bin_accuracy(), axis=0))
    np.testing.assert_allclose(overlaid.get_ydata(), oracle.mean_target)
    assert overlaid.get_label() == "oracle"
    with pytest.raises(
        TypeError, match=r"curves must be a dict of name to bayescal\.metrics\.ReliabilityCurve"
    ):
        plot_reliability(posterior, curves={"oracle": oracle.mean_target})
    plt.close("all")


def test_ece_posterior_and_channel_forest(toy_posterior):
    sim, fit, posterior = toy_posterior
    ax = plot_ece_posterior(posterior, references={"oracle": 0.09})
    assert ax.get_lines()[0].get_xdata()[0] == posterior.median
    ax = plot_channels(fit, references={"true": sim.channels})
    # one row per annotator, its a just above its b
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a0", "a1", "a2"]
    a_marks, b_marks = [line for line in ax.get_lines() if line.get_marker() == "x"]
    np.testing.assert_allclose(a_marks.get_xdata(), sim.channels.a)
    np.testing.assert_allclose(b_marks.get_xdata(), sim.channels.b)
    assert (a_marks.get_ydata() < np.arange(3)).all() and (b_marks.get_ydata() > np.arange(3)).all()
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "a, false-positive rate",
        "b, sensitivity",
        "true",
    ]
    with pytest.raises(
        TypeError, match=r"posterior must be a bayescal\.PosteriorECE; saw BayesFit"
    ):
        plot_ece_posterior(fit)
    with pytest.raises(TypeError, match=r"references must be a dict of name to bayescal\.Channels"):
        plot_channels(fit, references={"true": (0.1, 0.9)})
    two = bc.Channels([0.1, 0.2], [0.8, 0.9])  # e.g. K channels beside a fit of L x K
    with pytest.raises(
        ValueError,
        match=r"references\['two'\] must have one channel per annotator of the fit \(3\); saw 2",
    ):
        plot_channels(fit, references={"two": two})
    plt.close("all")


def test_toy_study_figure_plots_the_mae_of_every_method():
    from bayescal.report.plotting import plot_toy_study
    from bayescal.studies import toy_study

    study = toy_study(
        conditions=["calibrated"],
        sizes=[500, 1000],
        replicates=3,
        methods=("true channels", "EM split"),
    )
    ax = plot_toy_study(study)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["true channels", "EM split"]
    with pytest.raises(
        ValueError,
        match=r"condition must be one of the study's conditions \['calibrated'\]; saw 'shifted'",
    ):
        plot_toy_study(study, condition="shifted")
    plt.close("all")


def test_fallback_fonts_are_the_installed_ones_after_dejavu(monkeypatch):
    import matplotlib

    from bayescal.report import plotting
    from bayescal.report import plotting as _fonts

    monkeypatch.setattr(_fonts, "FALLBACK_FONTS", ("No Such Font", "STIXGeneral"))
    assert _fonts.font_families() == ["DejaVu Sans", "STIXGeneral"]  # STIX ships with matplotlib
    before = list(matplotlib.rcParams["font.family"])
    with plotting.detached_figures(), _fonts.fallback_fonts():
        ax = plotting._axes(None)
        ax.set_title("判定者 Zoë")  # glyphs no installed font may have: boxes, and no warning
        ax.figure.savefig(io.BytesIO(), format="png")
        assert matplotlib.rcParams["font.family"] == ["DejaVu Sans", "STIXGeneral"]
    assert matplotlib.rcParams["font.family"] == before


def test_a_crowds_thousand_patterns_show_the_most_telling_forty(table):
    """A crowd's check table has a row per pattern (thousands): the figure shows the flagged
    ones and then those farthest from the model, at most MAX_SUBJECTS, in their order, and
    says so in its title (the report's figure was 236 060 pixels wide for 30 workers)."""
    from bayescal.report.plotting import MAX_SUBJECTS

    rng = np.random.default_rng(0)
    template = table[table["check"] == "pattern"].iloc[[0]]
    many = template.loc[template.index.repeat(500)].reset_index(drop=True)
    many["subject"] = [f"p{i}" for i in range(500)]
    many["expected"] = 10.0
    many["lower"], many["upper"] = 5.0, 15.0
    many["observed"] = 10.0 + rng.uniform(-4, 4, 500)
    many["flag"] = False
    many.loc[[7, 300], "flag"] = True
    many.loc[[7, 300], "observed"] = 20.0
    farthest = set(np.argsort(-np.abs(many["observed"] - 10.0).to_numpy())[:MAX_SUBJECTS])
    others = table[table["check"] != "pattern"]
    ax = plot_ppc_residuals(pd.concat([others, many], ignore_index=True))
    shown = [t.get_text() for t in ax.get_xticklabels()]
    assert len(shown) == MAX_SUBJECTS and {"p7", "p300"} <= set(shown)
    assert {int(s[1:]) for s in shown} == farthest  # the flagged are also the farthest here
    assert shown == sorted(shown, key=lambda s: int(s[1:]))
    assert f"(the {MAX_SUBJECTS} of 500 patterns farthest from the model" in ax.get_title()
    plt.close(ax.figure)


def test_a_crowds_pattern_names_name_only_the_workers_who_answered():
    from bayescal.bayes.checks import _pattern_name

    names = [f"w{j}" for j in range(8)]
    assert _pattern_name(np.array([-1, 1, -1, -1, 0, -1, -1, -1]), names) == "w1=1 w4=0"
    assert _pattern_name(np.array([1, -1, 0]), ["ann", "bob", "cy"]) == "ann=1 bob=- cy=0"


def test_long_subject_names_are_cut_in_the_figure_not_in_the_table(table):
    """An old summary's pattern names spell out 30 workers (about 200 characters): drawn
    whole they squeezed the axes to nothing (matplotlib's "axes sizes collapsed" warning)."""
    import warnings

    from bayescal.report.plotting import LABEL_CHARS

    long = table.copy()
    patterns = long["check"] == "pattern"
    long.loc[patterns, "subject"] = [
        f"{s} " + "w000=- " * 30 for s in long.loc[patterns, "subject"]
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_ppc_residuals(long)
        ax.figure.savefig(io.BytesIO(), format="png")
    shown = [t.get_text() for t in ax.get_xticklabels()]
    assert all(len(label) == LABEL_CHARS and label.endswith("…") for label in shown)
    plt.close(ax.figure)


def test_confusion_heat_maps_check_their_matrices():
    from bayescal.report.class_plots import plot_confusion_matrices
    from bayescal.report.plotting import detached_figures

    with detached_figures():
        axes = plot_confusion_matrices({"ann": np.eye(3), "bob": np.full((3, 3), 1 / 3)}, "abc")
        assert [ax.get_title() for ax in axes] == ["ann (posterior mean)", "bob (posterior mean)"]
        assert len(axes[0].texts) == 9  # every cell written
        with pytest.raises(
            ValueError, match=r"matrices\['bob'\] must be \(3, 3\).*saw shape \(2, 2\)"
        ):
            plot_confusion_matrices({"ann": np.eye(3), "bob": np.eye(2)}, "abc")
        with pytest.raises(ValueError, match=r"matrices must hold at least one"):
            plot_confusion_matrices({}, "abc")
