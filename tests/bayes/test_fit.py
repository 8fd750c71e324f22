"""fit_bayes: identification before sampling, recovery, agreement with EM, diagnostics, I/O."""

import os
import pathlib
import pickle
import subprocess
import sys

import jax
import numpy as np
import pandas as pd
import pytest

import bayescal as bc
from bayescal.bayes.sampler import chain_devices, chain_method, chunk_length, padded_rows
from bayescal.exceptions import IdentificationError, SamplingWarning

FAST = {"progress": False}  # default 4 chains x (1000 warmup + 1000 draws): fast once compiled


def _grouped(sim, n_groups):
    data = sim.data
    return bc.AnnotatedScores(
        data.scores,
        data.annotations,
        groups=bc.channels.score_groups(data.scores, n_groups=n_groups),
    )


@pytest.fixture(scope="module")
def toy_fit():
    sim = bc.toy_data(6000, seed=11)
    return sim, bc.fit_bayes(sim.data, **FAST)


def test_fit_holds_one_inference_data_with_every_group(toy_fit):
    _sim, fit = toy_fit
    idata = fit.idata
    for group in (
        "posterior",
        "sample_stats",
        "log_likelihood",
        "log_prior",
        "observed_data",
        "constant_data",
    ):
        assert group in idata.groups()
    assert idata.posterior["a"].dims == ("chain", "draw", "annotator")
    assert list(idata.posterior["annotator"].values) == ["a0", "a1", "a2"]
    assert idata.posterior["a"].dtype == np.float64
    assert (idata.posterior["b"] > idata.posterior["a"]).all()
    assert idata.attrs["bayescal_model"] == "dawid_skene"
    assert fit.n_draws == 4000 and fit.model == "dawid_skene"
    # log_likelihood: one value per pattern (= per item of that pattern), counts kept beside it.
    loglik = idata.log_likelihood["counts"].values
    counts = idata.constant_data["counts"].values
    assert loglik.shape == (4, 1000, counts.size) and counts.sum() == 6000
    # all 8 patterns of 3 annotators are observed: their probabilities sum to one in every draw
    assert np.allclose(np.exp(loglik).sum(axis=-1), 1.0)


def test_log_prior_group_holds_the_beta_log_densities_of_each_draw():
    sim = bc.toy_data(500, seed=2)
    priors = bc.Priors(false_positive=(2, 8), sensitivity=(8, 2), prevalence=(3, 3))
    fit = bc.fit_bayes(
        sim.data, priors=priors, num_chains=2, num_warmup=300, num_samples=1000, **FAST
    )
    a, b, prevalence = fit.draws()
    log_prior = fit.idata.log_prior
    # Beta(2, 8) log density by hand: log(x (1 - x)^7 / B(2, 8)) with B(2, 8) = 1/72.
    np.testing.assert_allclose(
        log_prior["a"].values.reshape(a.shape), np.log(72 * a * (1 - a) ** 7), rtol=1e-10
    )
    np.testing.assert_allclose(
        log_prior["b"].values.reshape(b.shape), np.log(72 * b**7 * (1 - b)), rtol=1e-10
    )
    np.testing.assert_allclose(
        log_prior["prevalence"].values.reshape(prevalence.shape),
        np.log(30 * prevalence**2 * (1 - prevalence) ** 2),
        rtol=1e-10,
    )


def test_fit_leaves_the_global_jax_configuration_alone(toy_fit):
    assert not jax.config.jax_enable_x64


def test_diagnostics_table(toy_fit):
    _, fit = toy_fit
    table = fit.diagnostics
    assert list(table.columns) == ["r_hat", "ess_bulk", "ess_tail", "divergences"]
    assert len(table) == 7  # a, b for 3 annotators + prevalence
    assert (table["r_hat"] < 1.01).all() and (table["ess_bulk"] > 400).all()
    assert "mean" in fit.summary().columns


def test_save_and_load_round_trip_exactly(toy_fit, tmp_path):
    _, fit = toy_fit
    fit.save(tmp_path / "fit.nc")
    loaded = bc.BayesFit.load(tmp_path / "fit.nc")
    for mine, theirs in zip(fit.draws(), loaded.draws()):
        assert np.array_equal(mine, theirs)
    assert loaded.priors == fit.priors and loaded.model == fit.model
    assert loaded.diagnostics.equals(fit.diagnostics)
    assert np.array_equal(
        loaded.idata.log_likelihood["counts"].values, fit.idata.log_likelihood["counts"].values
    )
    with pytest.raises(ValueError, match=r"not a multi-class posterior .*BayesFit\.load"):
        bc.bayes.ClassBayesFit.load(tmp_path / "fit.nc")


def test_divergences_are_warned_with_the_setting_that_cures_them():
    from bayescal.bayes.bayes_fit import check_diagnostics

    table = pd.DataFrame(
        {"r_hat": [1.0], "ess_bulk": [900.0], "ess_tail": [900.0], "divergences": [3]},
        index=["prevalence"],
    )
    with pytest.warns(
        SamplingWarning,
        match=r"^NUTS diagnostics failed: 3 divergent transition\(s\)\. Run more warmup/samples "
        r"or chains, with target_accept nearer 1 for the divergences, or check identification",
    ):
        check_diagnostics(table)
    with pytest.warns(SamplingWarning) as said:
        check_diagnostics(table.assign(divergences=0, ess_bulk=100.0))
    assert "target_accept" not in str(said[0].message)


def test_too_short_runs_warn():
    sim = bc.toy_data(2000, seed=3)
    with pytest.warns(SamplingWarning, match=r"NUTS diagnostics failed: .*ESS < 400") as record:
        bc.fit_bayes(sim.data, num_chains=2, num_warmup=50, num_samples=50, progress=False)
    assert record[0].filename == __file__  # the user's line, past every bayescal frame


def test_an_adversarial_annotator_is_estimated_and_named_as_em_names_it():
    """Issue 38 item 1's target: K = 5, n = 5 000, one annotator with a = 0.6, b = 0.3.  The
    flat model holds no annotator to a < b (each draw folded by the population's gap): NUTS
    recovers its channels within 0.03, the chains agree (no chain in another mode), and one
    warning line says what EM's says, at the user's line."""
    channels = bc.Channels([0.1, 0.6, 0.2, 0.1, 0.15], [0.85, 0.3, 0.75, 0.9, 0.8])
    sim = bc.simulate_annotated(5000, channels, seed=0)
    with pytest.warns(bc.ChannelWarning) as said_by_em:
        bc.dawid_skene_em(sim.data)
    with pytest.warns(bc.ChannelWarning) as said_by_nuts:
        fit = bc.fit_bayes(sim.data, num_chains=2, num_warmup=500, num_samples=500, progress=False)
    em_line, nuts_line = (str(record[0].message) for record in (said_by_em, said_by_nuts))
    assert em_line.startswith("dawid_skene_em: annotator a1 is estimated adversarial (b < a")
    assert nuts_line == em_line.replace("dawid_skene_em:", "dawid_skene:", 1)
    assert len(said_by_nuts) == 1 and said_by_nuts[0].filename == __file__
    a, b, _ = fit.draws()
    assert abs(a[:, 1].mean() - 0.6) < 0.03 and abs(b[:, 1].mean() - 0.3) < 0.03
    # the fold makes every draw's population gap positive by construction; what shows no
    # chain settled elsewhere is their agreement
    assert fit.diagnostics["r_hat"].max() < 1.01


def test_check_fit_refuses_what_is_not_a_fit_or_a_prior_name(toy_fit):
    from bayescal.bayes.fit import check_fit

    with pytest.raises(TypeError, match=r"fit must be a bayescal\.BayesFit; saw dict"):
        check_fit({})
    with pytest.raises(TypeError, match="under must be a prior's name"):
        check_fit(toy_fit[1], under=3)


def test_a_posterior_names_odd_annotators_by_the_em_rule_on_its_gap_draws():
    from bayescal.channels.odd_annotators import posterior_odd_annotators

    rng = np.random.default_rng(0)
    gap_means = np.array([0.5, -0.3, -0.02, 0.01])  # informative, adversarial, random x 2
    a = np.full((400, 4), 0.4)
    b = a + gap_means + 0.05 * rng.standard_normal((400, 4))
    constant = np.array([False, False, False, True])  # read from the labels
    odd = posterior_odd_annotators(a, b, constant, crowd=False)  # only gaps below 0 on average
    assert odd.adversarial.tolist() == [False, True, False, False]
    assert odd.random.tolist() == [False, False, True, False]  # b < a on average, within 2 sd
    assert not odd.constant.any()  # a panel's EM names none
    crowd = posterior_odd_annotators(a, b, constant, crowd=True)  # every random one
    assert crowd.constant.tolist() == constant.tolist()
    assert crowd.random.tolist() == [False, False, True, False]  # the constant one is not
    assert crowd.adversarial.tolist() == [False, True, False, False]
    nothing_constant = posterior_odd_annotators(a, b, np.zeros(4, bool), crowd=True)
    assert nothing_constant.random.tolist() == [False, False, True, True]
    flipped = posterior_odd_annotators(b, a, constant, crowd=False)  # a constant one with b < a
    assert not flipped.random[3] and not flipped.adversarial[3]


def test_one_compiled_sampler_serves_new_counts_and_priors():
    from bayescal.models import PatternDesign

    from bayescal.bayes.sampler import Sampler

    sim = bc.toy_data(3000, seed=4)
    design = PatternDesign.from_counts(sim.data.compress(), grouped=False, complete=True)
    sampler = Sampler(design, "dawid_skene", 2, 50, 50)
    first, _ = sampler.run(design, bc.Priors(), seed=1)
    compiled = sampler._compiled
    again, _ = sampler.run(design, bc.Priors(), seed=1)
    other = sampler.observed(bc.toy_data(3000, seed=5).data.compress())
    moved, _ = sampler.run(other, bc.Priors(prevalence=(5, 5)), seed=1)
    assert sampler._compiled is compiled
    assert np.array_equal(first["a"], again["a"])  # deterministic given the seed
    assert not np.array_equal(first["a"], moved["a"])
    assert first["a"].shape == (2, 50, 3)


def test_chains_are_spread_over_the_devices_that_divide_them(monkeypatch):
    devices = [object() for _ in range(4)]
    for count, chains, used in ((4, 4, 4), (2, 4, 2), (3, 4, 2), (1, 4, 1), (4, 1, 1), (4, 3, 3)):
        monkeypatch.setattr(jax, "local_devices", lambda backend=None, n=count: devices[:n])
        assert len(chain_devices(chains)) == used, (count, chains)
        assert chain_method(chain_devices(chains)) == ("parallel" if used > 1 else "sequential")


def test_layouts_pad_to_size_classes_and_the_warm_up_sets_the_chunk():
    assert [padded_rows(n) for n in (1, 8, 9, 32, 33, 243)] == [8, 8, 16, 32, 64, 256]
    # a twentieth of the warm-up, rounded up: never 0, never more than 20 chunks of warm-up
    assert [chunk_length(w) for w in (1, 19, 20, 21, 300, 1000)] == [1, 1, 1, 2, 15, 50]


def test_non_identified_configurations_fail_before_sampling():
    two = bc.simulate_annotated(500, bc.Channels([0.1, 0.2], [0.8, 0.9]), seed=1)
    with pytest.raises(
        IdentificationError, match=r"fit_bayes\(model='dawid_skene'\): two annotators"
    ):
        bc.fit_bayes(two.data)
    with pytest.raises(
        IdentificationError,
        match=r"fit_bayes\(model='hui_walter'\): two annotators in one score group",
    ):
        bc.fit_bayes(two.data, model="hui_walter")
    one = bc.simulate_annotated(500, bc.Channels(0.1, 0.9), seed=1)
    with pytest.raises(IdentificationError, match=r"one annotator"):
        bc.fit_bayes(_grouped(one, 3), model="hui_walter")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"model": "rasch"},
            ValueError,
            r"model must be one of 'dawid_skene', 'hui_walter', 'hierarchical_dawid_skene', 'shared_difficulty', 'hui_walter_by_group' \(hyphens for underscores accepted\); saw 'rasch'",
        ),
        (
            {"priors": {"prevalence": (1, 1)}},
            TypeError,
            r"priors must be a bayescal.Priors; saw dict",
        ),
        ({"num_chains": 0}, ValueError, r"num_chains must be >= 1; saw 0"),
        ({"num_samples": 2.5}, TypeError, r"num_samples must be an integer"),
        ({"seed": -1}, ValueError, r"seed must be >= 0"),
        ({"seed": 2**63}, ValueError, r"seed must be below 2\*\*63; saw 9223372036854775808"),
        ({"progress": "yes"}, TypeError, r"progress must be True or False"),
    ],
)
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        bc.fit_bayes(bc.toy_data(200, seed=1).data, **kwargs)


def test_data_must_be_annotated_scores():
    with pytest.raises(TypeError, match=r"data must be a bayescal.AnnotatedScores"):
        bc.fit_bayes(np.zeros((10, 3)))


# --- recovery and agreement with the frequentist estimators ------------------------------------


def _within_three_sd(fit, truth_a, truth_b, truth_prevalence):
    a, b, prevalence = fit.draws()
    for draws, truth in ((a, truth_a), (b, truth_b), (prevalence, truth_prevalence)):
        z = np.abs(draws.mean(axis=0) - truth) / draws.std(axis=0)
        assert np.all(z < 3), z


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 4, 5])
def test_dawid_skene_recovers_simulated_channels(k):
    channels = bc.Channels(np.linspace(0.08, 0.25, k), np.linspace(0.8, 0.95, k))
    sim = bc.simulate_annotated(
        5000, channels, calibration=lambda z: 0.2 + 0.5 * np.asarray(z), seed=20 + k
    )
    fit = bc.fit_bayes(sim.data, **FAST)
    _within_three_sd(fit, channels.a, channels.b, sim.labels.mean())


@pytest.mark.slow
@pytest.mark.parametrize("n_groups", [2, 3, 4, 5])
def test_hui_walter_recovers_two_annotators_with_score_groups(n_groups):
    channels = bc.Channels([0.1, 0.2], [0.85, 0.9])
    sim = bc.simulate_annotated(8000, channels, seed=30 + n_groups)
    data = _grouped(sim, n_groups)
    fit = bc.fit_bayes(data, model="hui_walter", **FAST)
    truth = [sim.labels[data.groups == g].mean() for g in np.unique(data.groups)]
    _within_three_sd(fit, channels.a, channels.b, np.array(truth))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SaturatedModelWarning")
def test_flat_prior_posterior_means_agree_with_em():
    channels = bc.Channels([0.1, 0.15, 0.2, 0.25], [0.8, 0.85, 0.9, 0.95])
    sim = bc.simulate_annotated(
        50_000, channels, calibration=lambda z: 0.2 + 0.5 * np.asarray(z), seed=40
    )
    bayes, em = bc.fit_bayes(sim.data, **FAST), bc.dawid_skene_em(sim.data)
    mean = bayes.posterior_mean()
    assert mean.a == pytest.approx(em.channels.a, abs=0.01) and mean.b == pytest.approx(
        em.channels.b, abs=0.01
    )
    two = _grouped(bc.simulate_annotated(50_000, bc.Channels([0.1, 0.2], [0.85, 0.9]), seed=41), 3)
    bayes2, em2 = bc.fit_bayes(two, model="hui_walter", **FAST), bc.grouped_em(two)
    mean2 = bayes2.posterior_mean()
    assert mean2.a == pytest.approx(em2.channels.a, abs=0.01) and mean2.b == pytest.approx(
        em2.channels.b, abs=0.01
    )
    assert bayes2.draws()[2].mean(axis=0) == pytest.approx(em2.prevalence, abs=0.01)


def test_the_progress_bar_moves_between_compiled_chunks_on_a_terminal_only(capsys, monkeypatch):
    """Redrawn in place, the bar needs a terminal; elsewhere (a notebook, a log) the step's
    line stands for it (issue 37, item 1)."""
    from bayescal.models import PatternDesign

    from bayescal.bayes.sampler import Sampler

    design = PatternDesign.from_counts(
        bc.toy_data(500, seed=1).data.compress(), grouped=False, complete=True
    )
    sampler = Sampler(design, "dawid_skene", 2, 50, 50, progress=True)
    samples, _ = sampler.run(design, bc.Priors(), seed=0)
    assert samples["a"].shape == (2, 50, 3)
    assert "NUTS (2 chains)" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    sampler.run(design, bc.Priors(), seed=0)
    assert "NUTS (2 chains)" in capsys.readouterr().err


def test_one_compiled_sampler_serves_any_number_of_draws_and_a_longer_run_extends_a_shorter():
    """The chunk follows the warm-up alone: 50 + 23 iterations end inside the 25th chunk of 3,
    whose extra iterations are dropped; 50 + 40 is 30 chunks exactly.  Same seed, same
    compiled code: the first 23 draws are the same draws."""
    from bayescal.models import PatternDesign

    from bayescal.bayes.sampler import Sampler

    design = PatternDesign.from_counts(
        bc.toy_data(500, seed=1).data.compress(), grouped=False, complete=True
    )
    short, longer = (Sampler(design, "dawid_skene", 2, 50, n) for n in (23, 40))
    assert short._layout_key() == longer._layout_key()
    (first, first_stats), (second, second_stats) = (
        sampler.run(design, bc.Priors(), seed=4) for sampler in (short, longer)
    )
    assert first["a"].shape == (2, 23, 3) and second["a"].shape == (2, 40, 3)
    assert first_stats["energy"].shape == (2, 23)
    np.testing.assert_array_equal(first["a"], second["a"][:, :23])
    np.testing.assert_array_equal(first_stats["energy"], second_stats["energy"][:, :23])


def test_a_fit_short_of_its_diagnostics_continues_its_chains_and_says_so(capsys):
    """20 draws a chain cannot reach an ESS of 400: the fit continues each chain by 20 draws,
    once (its limit), says so in one line, records it, and still warns.  Continued chains are
    the longer chains: with a warm-up of 40 (chunks of 2 iterations, none dropped) the draws
    are those of a run of 40 draws, bit for bit."""
    from bayescal.models import PatternDesign

    from bayescal.bayes.bayes_fit import check_diagnostics, falls_short
    from bayescal.bayes.sampler import Sampler

    sim = bc.toy_data(500, seed=1)
    design = PatternDesign.from_counts(sim.data.compress(), grouped=False, complete=True)
    extended = Sampler(design, "dawid_skene", 2, 40, 20, progress=True, extensions=1)
    fit = extended.fit(sim.data.compress(), bc.Priors(), seed=3)
    said = capsys.readouterr().err
    assert said.count("every chain continues by 20 draws (extension 1 of at most 1)") == 1
    assert "R-hat > 1.01 or bulk or tail ESS < 400 for " in said
    assert fit.chains["a"].shape == (2, 40, 3) and fit.run["extensions"] == "1"
    assert falls_short(fit.diagnostics)  # 40 draws are short too: the warning stays
    with pytest.warns(bc.SamplingWarning, match="NUTS diagnostics failed"):
        check_diagnostics(fit.diagnostics)
    longer, _ = Sampler(design, "dawid_skene", 2, 40, 40).run(design, bc.Priors(), seed=3)
    np.testing.assert_array_equal(fit.chains["a"], longer["a"])
    # at its limit of 0 the same sampler runs its 20 draws and says nothing
    kept = Sampler(design, "dawid_skene", 2, 40, 20, progress=True).fit(
        sim.data.compress(), bc.Priors(), seed=3
    )
    assert kept.chains["a"].shape == (2, 20, 3) and kept.run["extensions"] == "0"
    assert "continues" not in capsys.readouterr().err


def test_a_fit_stops_extending_once_its_diagnostics_pass_and_studies_never_extend(monkeypatch):
    from bayescal.models import PatternDesign

    from bayescal.bayes import sampler as sampler_module
    from bayescal.bayes.sampler import Sampler

    sim = bc.toy_data(500, seed=1)
    design = PatternDesign.from_counts(sim.data.compress(), grouped=False, complete=True)
    verdicts = iter([["a[a0]"], []])  # short once, then passing
    monkeypatch.setattr(sampler_module, "falls_short", lambda diagnostics: next(verdicts))
    fit = Sampler(design, "dawid_skene", 2, 40, 20, extensions=2).fit(
        sim.data.compress(), bc.Priors(), seed=3
    )
    assert fit.chains["a"].shape == (2, 40, 3) and fit.run["extensions"] == "1"
    # settings pass their limit on; a study's sampler runs the draws the study names
    settings = bc.SamplerSettings(num_chains=2, num_warmup=40)
    assert Sampler.run_as(design, "dawid_skene", settings).extensions == 2
    assert Sampler.for_complete_layout(3, settings).extensions == 0


def test_falls_short_names_what_length_can_mend():
    from bayescal.bayes.bayes_fit import falls_short

    diagnostics = pd.DataFrame(
        {
            "r_hat": [1.0, 1.02, 1.0, np.nan, 1.02],
            "ess_bulk": [900.0, 900.0, 350.0, np.nan, 100.0],
            "ess_tail": [900.0, 900.0, 900.0, np.nan, 900.0],
            "divergences": 3,
        },
        index=["fine", "r_hat", "ess", "constant", "both"],
    )
    assert sorted(falls_short(diagnostics)) == ["both", "ess", "r_hat"]
    assert falls_short(diagnostics.loc[["fine", "constant"]]) == []


def test_the_compiled_code_is_keyed_by_the_target_acceptance():
    """A fit at another target acceptance (named in its settings, or a registry entry patched
    for a study) must compile its own code, not load the default's from the sampler cache."""
    from dataclasses import replace

    from bayescal.models import PatternDesign

    from bayescal.bayes.registry import channel_model
    from bayescal.bayes.sampler import Sampler

    design = PatternDesign.from_counts(
        bc.toy_data(500, seed=1).data.compress(), grouped=False, complete=True
    )
    spec = channel_model("dawid_skene")
    default = Sampler(design, spec, 2, 50, 50)
    patched = Sampler(design, replace(spec, target_accept=0.99), 2, 50, 50)
    settings = bc.SamplerSettings(num_chains=2, num_warmup=50, num_samples=50, target_accept=0.99)
    named = Sampler.run_as(design, spec, settings)
    assert default._layout_key() != patched._layout_key() == named._layout_key()


@pytest.mark.filterwarnings(
    "ignore::bayescal.exceptions.SamplingWarning"
)  # short chains: only the draws are compared
def test_fits_on_the_same_pattern_layout_share_compiled_code(monkeypatch):
    from bayescal.bayes import sampler

    compiled = []
    original = sampler.Sampler._compile
    monkeypatch.setattr(
        sampler.Sampler,
        "_compile",
        lambda self, *args: compiled.append(self) or original(self, *args),
    )
    settings = {
        "num_chains": 2,
        "num_warmup": 123,
        "num_samples": 77,
        "progress": False,
    }  # settings no other test uses
    first, second = bc.toy_data(600, seed=1).data, bc.toy_data(900, seed=2).data
    bc.fit_bayes(first, **settings)
    shared = bc.fit_bayes(second, priors=bc.Priors(sensitivity=(8, 2)), **settings)
    assert (
        len(compiled) == 1
    )  # a new sample and a new prior, same 8 patterns: no second compilation
    assert shared.run["compiled_from"] == "memory"
    sampler._COMPILED.clear()  # as in a new process: the sampler comes from disk
    stored = bc.fit_bayes(second, priors=bc.Priors(sensitivity=(8, 2)), **settings)
    assert len(compiled) == 1 and stored.run["compiled_from"] == "disk"
    for got, from_disk in zip(shared.draws(), stored.draws()):
        np.testing.assert_array_equal(from_disk, got)  # the same draws, bit for bit
    # BAYESCAL_CACHE_DIR=off: neither memory (cleared) nor disk is asked, the sampler is
    # compiled (stopped there: that a fresh compilation draws the same as the stored one is
    # test_a_second_process_loads_the_stored_sampler_and_draws_the_same)
    sampler._COMPILED.clear()
    monkeypatch.setenv("BAYESCAL_CACHE_DIR", "off")

    class CompiledAnew(Exception):
        pass

    def stop(self, *args):
        raise CompiledAnew

    monkeypatch.setattr(sampler.Sampler, "_compile", stop)
    with pytest.raises(CompiledAnew):
        bc.fit_bayes(second, priors=bc.Priors(sensitivity=(8, 2)), **settings)


def test_arviz_daily_notice_does_not_reach_users(tmp_path):
    # ArviZ 0.23 warns once a day, on its first import (a stamp in the user cache folder): a
    # fresh cache folder makes it warn, and with warnings as errors the import must still work.
    # A fit imports ArviZ only when its InferenceData is first used.
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    code = (
        "import sys, bayescal.bayes.fit; assert 'arviz' not in sys.modules; "
        "from bayescal.models.stack import arviz; arviz(); print('imported')"
    )
    run = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, env=environment
    )
    assert run.stdout.strip() == "imported", run.stderr
    assert (tmp_path / "arviz" / "daily_warning").is_file()  # the notice was due, and was filtered


FIT_IN_A_NEW_PROCESS = """
import bayescal as bc
fit = bc.fit_bayes(bc.toy_data(400, seed=3).data, num_chains=2, num_warmup=60, num_samples=40,
                   progress=False)
import sys
assert "arviz" not in sys.modules  # a fit and its diagnostics need no ArviZ
print(fit.run["compiled_from"], fit.chains["a"].tobytes().hex())
"""


@pytest.mark.slow
def test_a_second_process_loads_the_stored_sampler_and_draws_the_same(tmp_path):
    """Issue 15: the compiled sampler outlives the process; a broken file is ignored."""

    def start(folder):
        environment = {**os.environ, "BAYESCAL_CACHE_DIR": str(folder)}
        environment.pop("XLA_FLAGS", None)
        return subprocess.Popen(
            [sys.executable, "-W", "ignore", "-c", FIT_IN_A_NEW_PROCESS],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def finished(process):
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        source, draws = out.split()
        return source, draws

    def fit(folder):
        return finished(start(folder))

    # two processes at once on the empty cache (second bad-input catalogue, rows 165 and 166):
    # both compile and store the same programs, and draw the same
    (first, draws), (other, other_draws) = map(finished, [start(tmp_path), start(tmp_path)])
    assert first == other == "compiled" and other_draws == draws
    stored = list((tmp_path / "samplers").glob("*.sampler"))
    assert len(stored) == 2  # the start and the advance programs
    assert fit(tmp_path) == ("disk", draws)  # a cache hit, the same draws bit for bit
    whole = stored[1].read_bytes()
    stored[1].write_bytes(whole[:1000])  # truncated, e.g. by a full disk
    assert fit(tmp_path) == ("compiled", draws)  # ignored and rewritten, never an error
    # rewritten whole, under the same key: what the second process above loaded
    assert pickle.loads(stored[1].read_bytes())[0] == pickle.loads(whole)[0]
    # BAYESCAL_CACHE_DIR=off (no cache at all): test_fits_on_the_same_pattern_layout_share_compiled_code


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # short chains
def test_data_sets_of_similar_size_share_one_compiled_sampler():
    """Issue 15: layouts are padded with rows of count 0 (never parameters), so 10 and 14
    response patterns of four annotators both fit on one 16-row sampler."""
    from bayescal.bayes import sampler

    settings = {"num_chains": 2, "num_warmup": 300, "num_samples": 300, "progress": False}
    channels = bc.Channels([0.1, 0.2, 0.15, 0.1], [0.8, 0.9, 0.85, 0.95])
    small = bc.simulate_annotated(60, channels, seed=1).data
    large = bc.simulate_annotated(3000, channels, seed=2).data
    sizes = [data.compress().counts.size for data in (small, large)]
    assert sizes[0] != sizes[1] and all(8 < size <= 16 for size in sizes), sizes
    sampler._COMPILED.clear()
    first = bc.fit_bayes(small, **settings)
    second = bc.fit_bayes(large, **settings)
    assert first.run["compiled_from"] in ("compiled", "disk")
    assert second.run["compiled_from"] == "memory"
    # the padded rows add nothing: the fit's own data are what it holds
    assert sum(second.fitted_counts.values()) == 3000 and len(second.fitted_counts) == sizes[1]


def test_an_edited_model_never_loads_the_executable_of_its_previous_version(tmp_path, monkeypatch):
    """The cache key holds a digest of the files the compiled program is written in, so a
    changed model compiles anew even when the version number stays."""
    from bayescal import models
    from bayescal.bayes import compile_cache

    copies = tmp_path / "models"
    copies.mkdir()
    for source in pathlib.Path(models.__file__).parent.glob("*.py"):
        (copies / source.name).write_bytes(source.read_bytes())
    before = compile_cache.full_key(("layout",))
    monkeypatch.setattr(models, "__file__", str(copies / "__init__.py"))
    digest = compile_cache.program_digest
    try:
        digest.cache_clear()  # a new process, reading the copies
        assert compile_cache.full_key(("layout",)) == before  # the same files, the same key
        edited = copies / "latent_class.py"
        edited.write_text(edited.read_text() + "\n# an edit\n")
        # the running process keeps the key of the program it loaded: it never stores that
        # program under the edited files' key
        assert compile_cache.full_key(("layout",)) == before
        digest.cache_clear()  # the next process reads the edit
        assert compile_cache.full_key(("layout",)) != before
    finally:
        digest.cache_clear()  # the other tests' key: the real files


def test_the_digest_reads_every_bayescal_module_the_models_trace():
    """The programs trace the pattern likelihood of bayescal.channels.pattern_likelihood (its
    dependent pairs' bounds too, and a cycle's joint, bayescal.channels.cyclic_joint), the
    shared difficulty's (bayescal.channels.difficulty, which the models also import for its
    quadrature's size) and build their designs with
    bayescal.channels.dependence: an edit there must change the cache key too.
    bayescal.data.cells is imported by the models for its data container only."""
    import ast

    from bayescal import models
    from bayescal.bayes import compile_cache

    digested = {path.resolve() for path in compile_cache.digest_files()}
    package = pathlib.Path(compile_cache.__file__).parents[1]
    traced = set()
    for source in pathlib.Path(models.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bayescal."):
                traced.add(node.module)
    traced -= {"bayescal.data.cells"}
    assert traced == {
        "bayescal.channels.cyclic_joint",
        "bayescal.channels.dependence",
        "bayescal.channels.difficulty",
        "bayescal.channels.pattern_likelihood",
    }
    for module in (*traced, "bayescal.bayes.sampler", "bayescal.bayes.registry"):
        path = package.joinpath(*module.split(".")[1:]).with_suffix(".py")
        assert path.resolve() in digested, module


def test_summary_gives_the_highest_density_interval_it_names_and_refuses_levels_0_and_1(toy_fit):
    """Issue 16 item 16: the summary said equal-tailed and gave ArviZ's HDI; level 0 or 1."""
    _, fit = toy_fit
    table = fit.summary(level=0.8)
    assert {"hdi_10%", "hdi_90%"} <= set(table.columns)
    assert "highest-density interval" in type(fit).summary.__doc__
    for level in (0, 1, 1.5):
        with pytest.raises(
            ValueError, match=rf"^level must lie strictly between 0 and 1; saw {level}$"
        ):
            fit.summary(level=level)


@pytest.mark.filterwarnings("ignore::bayescal.exceptions.SamplingWarning")  # one short chain
def test_a_one_chain_fit_logs_nothing(caplog):
    """Issue 16 item 23: a one-chain fit logged "arviz - WARNING - Shape validation failed"."""
    import logging

    from bayescal.models.stack import arviz

    arviz()  # imported first: its import logs at DEBUG whether ArviZ's optional parts exist
    with caplog.at_level(logging.DEBUG, logger="arviz"):
        fit = bc.fit_bayes(
            bc.toy_data(300, seed=5).data,
            num_chains=1,
            num_warmup=50,
            num_samples=50,
            progress=False,
        )
        fit.idata.posterior.sizes  # noqa: B018  (builds the InferenceData)
        fit.summary()
    assert [record.getMessage() for record in caplog.records] == []


def test_the_fit_reads_as_arviz_does(toy_fit):
    """Issue 37, item 9: draws counted per chain, as ArviZ counts them; R-hat to three
    decimals and ESS in whole draws; no EM column of dashes in the notebook view."""
    _, fit = toy_fit
    chains, per_chain = fit.chains["a"].shape[:2]
    assert repr(fit) == (
        f"BayesFit(model='dawid_skene', annotators=[a0, a1, a2], chains={chains}, "
        f"draws_per_chain={per_chain})"
    )
    diagnostics = fit.diagnostics
    np.testing.assert_array_equal(diagnostics["r_hat"], diagnostics["r_hat"].round(3))
    for column in ("ess_bulk", "ess_tail"):
        np.testing.assert_array_equal(diagnostics[column], diagnostics[column].round())
    summary = fit.summary()
    np.testing.assert_array_equal(summary["ess_bulk"], summary["ess_bulk"].round())
    page = fit._repr_html_()
    assert "<th>EM</th>" not in page and "—" not in page and "<th>posterior mean</th>" in page
