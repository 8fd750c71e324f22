"""Prior sensitivity: refits under a prior grid with one compiled sampler, and power-scaling."""

import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.bayes.sampler import Sampler
from bayescal.bayes.sensitivity import (
    PriorSensitivity,
    _diagnosis,
    power_scaling,
    prior_grid,
    prior_sensitivity,
)
from tests.helpers import fake_fit

SETTINGS = {"num_chains": 4, "num_warmup": 1000, "num_samples": 1000, "seed": 3}


@pytest.fixture(scope="module")
def study():
    """The toy data at n = 300 under a flat, a conflicting and a strong prior."""
    sim = bc.toy_data(300, seed=0)
    priors = {
        "flat": bc.Priors(),
        "conflict": bc.Priors(false_positive=(40, 60), sensitivity=(60, 40)),
        "mild": bc.Priors(false_positive=(2, 8), sensitivity=(8, 2)),
    }
    compiled = []
    original = Sampler._compiled_programs

    def counting(self, *args):
        compiled.append(self)
        return original(self, *args)

    Sampler._compiled_programs = counting  # once per Sampler that obtains compiled code
    try:
        result = prior_sensitivity(sim.data, priors=priors, n_bins=10, **SETTINGS)
    finally:
        Sampler._compiled_programs = original
    return sim, result, compiled


def test_one_compilation_serves_every_prior(study):
    _, result, compiled = study
    assert len(compiled) == 1 and list(result.fits) == ["flat", "conflict", "mild"]


def test_each_refit_is_the_fit_bayes_posterior_under_that_prior(study):
    sim, result, _ = study
    direct = bc.fit_bayes(
        sim.data,
        priors=bc.Priors(false_positive=(2, 8), sensitivity=(8, 2)),
        progress=False,
        **SETTINGS,
    )
    for got, want in zip(result.fits["mild"].draws(), direct.draws()):
        np.testing.assert_array_equal(got, want)


def test_table_measures_the_shift_from_the_reference(study):
    _, result, _ = study
    table = result.table
    # ArviZ's order, as in fit.diagnostics and fit.summary(): every a, every b, prevalence
    names = ["a[a0]", "a[a1]", "a[a2]", "b[a0]", "b[a1]", "b[a2]", "prevalence", "nc_ece"]
    assert list(table.loc["flat"].index) == names
    assert (table.loc["flat", "shift"] == 0).all() and (
        table.loc["flat", "interval_overlap"] == 1
    ).all()
    reference = result.fits["flat"].draws()[1][:, 0]
    row = table.loc[("conflict", "b[a0]")]
    b0 = result.fits["conflict"].draws()[1][:, 0]
    assert row["mean"] == pytest.approx(b0.mean()) and row["shift"] == pytest.approx(
        (b0.mean() - reference.mean()) / reference.std(ddof=1)
    )
    assert table.loc[("conflict", "nc_ece"), "mean"] == pytest.approx(
        result.ece["conflict"].draws.mean()
    )
    # A prior centred on wrong channels drags them (measured: 2.4-4.8 reference sds); a mild one barely.
    channel_rows = [n for n in names if n[0] in "ab"]
    assert table.loc["conflict"].loc[channel_rows, "shift"].abs().min() > 1.5
    assert (
        table.loc["mild"].loc[channel_rows, "shift"].abs().max()
        < table.loc["conflict"].loc[channel_rows, "shift"].abs().min()
    )
    assert set(result.largest_shifts(count=3).index.get_level_values("prior")) == {"conflict"}


def test_power_scaling_diagnoses(study):
    _, result, _ = study
    flat = power_scaling(result.fits["flat"])
    assert (
        flat["prior"] < 1e-5
    ).all()  # a Beta(1, 1) prior has log density 0: power-scaling changes nothing
    assert (flat["likelihood"] > 0.05).all()
    conflict = power_scaling(result.fits["conflict"])
    channels = [p for p in conflict.index if p[0] in "ab"]
    assert (conflict.loc[channels, "diagnosis"] == "prior-data conflict").all()
    assert _diagnosis(0.1, 0.01) == "strong prior / weak likelihood"
    assert _diagnosis(0.0, 0.01) == "weak likelihood" and _diagnosis(0.0, 0.2) == "-"


def test_prior_grid_and_bad_priors():
    grid = prior_grid(false_positive=[(1, 1), (2, 8)], sensitivity=[(8, 2)])
    assert list(grid) == ["fp=(1,1) sens=(8,2) prev=(1,1)", "fp=(2,8) sens=(8,2) prev=(1,1)"]
    assert grid["fp=(2,8) sens=(8,2) prev=(1,1)"] == bc.Priors(
        false_positive=(2, 8), sensitivity=(8, 2)
    )
    with pytest.raises(
        ValueError,
        match=r"prior grid entry false_positive=\(0, 2\), sensitivity=\(8, 2\), prevalence=\(1.0, 1.0\): false_positive must hold two positive",
    ):
        prior_grid(false_positive=[(1, 1), (0, 2)], sensitivity=[(8, 2)])
    with pytest.raises(TypeError, match="sensitivity must be a sequence of"):
        prior_grid(sensitivity="flat")
    data = bc.toy_data(100, seed=0).data
    with pytest.raises(TypeError, match=r"priors\['prior 1'\] must be a bayescal.Priors; saw dict"):
        prior_sensitivity(data, priors=[bc.Priors(), {"sensitivity": (8, 2)}])
    with pytest.raises(ValueError, match="priors must hold at least one"):
        prior_sensitivity(data, priors=[])
    with pytest.raises(TypeError, match=r"priors must be a list of bayescal\.Priors or a dict"):
        prior_sensitivity(data, priors=None)
    with pytest.raises(
        ValueError, match=r"reference must be one of the prior names \['prior 0'\]; saw 'flat'"
    ):
        prior_sensitivity(data, priors=[bc.Priors()], reference="flat")
    with pytest.raises(bc.IdentificationError):
        prior_sensitivity(
            bc.AnnotatedScores(data.scores, data.annotations[:, :2]), priors=[bc.Priors()]
        )
    with pytest.raises(TypeError, match="progress must be True or False; saw 'yes'"):
        prior_sensitivity(data, priors=[bc.Priors()], progress="yes")
    with pytest.raises(TypeError, match=r"fit must be a bayescal\.BayesFit"):
        power_scaling(data)


def test_power_scaling_needs_a_log_prior_group():
    sim = bc.toy_data(200, seed=1)
    fit = fake_fit(
        sim.data,
        np.tile(sim.channels.a, (50, 1)),
        np.tile(sim.channels.b, (50, 1)),
        np.full(50, 0.5),
    )
    del fit.idata.log_prior
    with pytest.raises(ValueError, match="fit has no log_prior group"):
        power_scaling(fit)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_two_annotators_in_groups_that_do_not_differ_are_warned_of_as_in_fit_bayes():
    # Labels independent of the score: the score groups' class proportions are equal, and
    # the two-annotator Hui-Walter model is then only weakly identified.
    rng = np.random.default_rng(5)
    scores = rng.random(2000)
    truth = rng.random(2000) < 0.4
    annotations = np.column_stack(
        [np.where(truth, rng.random(2000) < 0.9, rng.random(2000) < 0.1) for _ in range(2)]
    ).astype(np.int8)
    data = bc.AnnotatedScores(scores, annotations, groups=(scores > 0.5).astype(np.int64))
    settings = {"num_chains": 1, "num_warmup": 50, "num_samples": 50}
    with pytest.warns(
        bc.WeakIdentificationWarning, match=r"prior_sensitivity\(model='hui_walter'\)"
    ) as record:
        prior_sensitivity(data, model="hui_walter", priors=[bc.Priors()], **settings)
    assert record[0].filename == __file__
    # the short chain's diagnostics are warned of, each parameter named with its prior
    sampling = [str(w.message) for w in record if issubclass(w.category, bc.SamplingWarning)]
    assert sampling
    assert "b[a0] under prior 'prior 0'" in sampling[0]


def test_every_prior_is_fitted_with_the_dependent_pair():
    """``prior_sensitivity(..., dependent=...)``: each refit is ``fit_bayes`` with the pair under
    that prior, covariances included."""
    channels = bc.Channels([0.1, 0.15, 0.2, 0.1, 0.15], [0.85, 0.8, 0.75, 0.9, 0.8])
    data = bc.simulate.simulate_dependent(
        1500, channels, pair=(0, 1), shared_error=0.2, seed=2
    ).data
    quick = {"num_chains": 4, "num_warmup": 1000, "num_samples": 500, "seed": 1}
    priors = {"flat": bc.Priors(), "mild": bc.Priors(sensitivity=(8, 2))}
    result = prior_sensitivity(data, priors=priors, dependent=[("a0", "a1")], **quick)
    direct = bc.fit_bayes(
        data, priors=priors["mild"], dependent=[("a0", "a1")], progress=False, **quick
    )
    assert result.fits["mild"].dependent == (("a0", "a1"),)
    np.testing.assert_array_equal(result.fits["mild"].covariance_draws(), direct.covariance_draws())
    with pytest.raises(ValueError, match="dependent: 'a9' is not an annotator"):
        prior_sensitivity(data, priors=priors, dependent=[("a0", "a9")], **quick)


@pytest.mark.parametrize(
    ("shift", "verdict"),
    [
        (0.3, "The conclusions do not depend on these priors."),
        (0.8, "report this table beside the result."),
        (2.5, "The priors matter: the labels alone do not pin down b[ann]"),
    ],
)
def test_the_conclusion_says_in_words_how_much_the_priors_matter(shift, verdict):
    rows = [
        ("flat", "b[ann]", 0.0),
        ("flat", "nc_ece", 0.0),
        ("expert", "b[ann]", -shift),
        ("expert", "nc_ece", 0.1),
    ]
    table = pd.DataFrame(
        {"shift": [row[2] for row in rows]},
        index=pd.MultiIndex.from_tuples([row[:2] for row in rows], names=["prior", "quantity"]),
    )
    conclusion = PriorSensitivity(table, {}, {}, "flat", 0.9).conclusion()
    assert conclusion.startswith(
        "Against the reference prior 'flat', NC-ECE moved by at most 0.10 reference sd; the "
        f"largest move is b[ann] under 'expert' ({shift:.2f} sd)."
    )
    assert verdict in conclusion
