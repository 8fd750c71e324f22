"""Plots take result objects, draw what they say, and return Axes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import bayescal as bc  # noqa: E402
from bayescal.checks import check_model  # noqa: E402
from bayescal.plotting import plot_pairwise_agreement, plot_ppc_residuals, plot_prior_sensitivity  # noqa: E402
from bayescal.sensitivity import prior_sensitivity  # noqa: E402
from bayescal.studies.checks import FIVE_ANNOTATORS  # noqa: E402

from .helpers import fake_fit  # noqa: E402


@pytest.fixture(scope="module")
def table():
    data = bc.simulate_annotated(1500, FIVE_ANNOTATORS, seed=2).data
    draws = 100
    fit = fake_fit(data, np.tile(FIVE_ANNOTATORS.a, (draws, 1)), np.tile(FIVE_ANNOTATORS.b, (draws, 1)), np.full(draws, 0.5))
    return check_model(fit, data)


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


def test_prior_sensitivity_plot_has_a_panel_per_quantity():
    result = prior_sensitivity(bc.toy_data(200, seed=0).data, priors=[bc.Priors(), bc.Priors(sensitivity=(8, 2))], num_chains=2, num_warmup=500, num_samples=1000)
    axes = plot_prior_sensitivity(result, quantities=["nc_ece", "b[a0]"])
    assert [ax.get_title() for ax in axes] == ["nc_ece", "b[a0]"]
    np.testing.assert_allclose(axes[1].collections[-1].get_offsets()[:, 0], result.table.xs("b[a0]", level="quantity")["mean"])
    with pytest.raises(ValueError, match=r"quantities must be among .*; saw \['c\[a0\]'\]"):
        plot_prior_sensitivity(result, quantities=["c[a0]"])
    with pytest.raises(TypeError, match="result must be a bayescal.sensitivity.PriorSensitivity"):
        plot_prior_sensitivity(result.table)
    plt.close("all")


def test_plots_reject_other_objects(table):
    with pytest.raises(TypeError, match="checks must be the DataFrame returned by bayescal.checks.check_model"):
        plot_ppc_residuals(table["subject"])
    with pytest.raises(ValueError, match="checks has no 'pairwise_agreement' rows to plot"):
        plot_pairwise_agreement(table[table["check"] != "pairwise_agreement"])
