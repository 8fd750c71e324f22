"""fit_bayes(model="hierarchical_dawid_skene") on crowds: recovery, the posterior object, refusals."""

import re
import warnings

import numpy as np
import pytest

import bayescal as bc
from bayescal.exceptions import IdentificationError
from bayescal.studies import simulation_based_calibration
from tests.helpers import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    CROWD_FIT_GROUP,
    NEEDS_CHROMIUM,
    label_probability_by_rows,
)

MODEL = "hierarchical_dawid_skene"
pytestmark = pytest.mark.xdist_group(CROWD_FIT_GROUP)


def test_the_tests_of_the_shared_crowd_fit_run_in_one_process(request):
    # under `make test` (xdist, --dist loadgroup) the group's tests share one worker, so the
    # 4 x (1000 + 1000) fit of tests/conftest.py runs once; pytest 9.2 broke that silently
    if getattr(request.config.option, "dist", "no") == "loadgroup":
        assert request.node.nodeid.endswith(f"@{CROWD_FIT_GROUP}")


@pytest.fixture
def crowd(crowd_of_30):
    return crowd_of_30


@pytest.fixture
def fit(crowd_of_30_fit):
    return crowd_of_30_fit


def test_the_fit_recovers_the_crowds_channels_and_prevalence(crowd, fit):
    # 1500 items, 30 workers (heavy-tailed workloads) of every type, 3 labels per item
    a, b, prevalence = fit.draws()
    labels = crowd.data.responses().labels_per_annotator()
    busy = labels >= 100
    assert busy.sum() >= 10
    for draws, truth in ((a, crowd.channels.a), (b, crowd.channels.b)):
        error = draws.mean(axis=0) - truth
        # every busy worker's truth within 3.5 posterior SDs, and the errors small overall
        assert (np.abs(error) / draws.std(axis=0))[busy].max() < 3.5
        assert np.sqrt(np.mean(error[busy] ** 2)) < 0.08
    truth = crowd.labels.mean()
    assert abs(prevalence.mean() - truth) < 0.05
    assert fit.diagnostics["r_hat"].max() < 1.05
    assert fit.diagnostics["divergences"].iloc[0] == 0


def test_the_posterior_aggregated_labels_count_the_channels_uncertainty(crowd, fit):
    """On the crowd's sparse responses: the mean over draws of each item's label posterior
    (the same from the model's own row likelihood), right about as often as crowd_em's."""
    responses = crowd.data.responses()
    probability = fit.predict_proba(responses)
    np.testing.assert_allclose(probability, label_probability_by_rows(fit, crowd.data), rtol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.ChannelWarning)
        em = bc.crowd_em(responses)
    posterior_right = (fit.predict(responses) == crowd.labels).mean()
    assert posterior_right > 0.85
    assert posterior_right >= (em.predict(responses) == crowd.labels).mean() - 0.01


def test_spammers_and_adversaries_are_estimated_not_refused(crowd, fit):
    a, b, _ = fit.draws()
    gap = (b - a).mean(axis=0)
    types = np.array(crowd.worker_types)
    labels = crowd.data.responses().labels_per_annotator()
    adversarial = (types == "adversarial") & (labels >= 30)
    assert adversarial.any() and (gap[adversarial] < -0.2).all()
    assert (gap[types == "good"] > 0.2).all()


def test_the_posterior_object_holds_the_population_and_round_trips(fit, tmp_path):
    assert set(fit.chains) == {
        "a",
        "b",
        "prevalence",
        "population_mean",
        "population_spread",
        "population_correlation",
        "population_random_share",
    }
    assert "population_mean[b]" in fit.diagnostics.index
    mean = fit.chains["population_mean"]
    assert (mean[..., 1] > mean[..., 0]).all()  # the population's orientation
    fit.save(tmp_path / "crowd.nc")
    again = bc.BayesFit.load(tmp_path / "crowd.nc")
    assert again.model == MODEL
    assert again.fitted_counts == fit.fitted_counts
    for name, values in fit.chains.items():
        assert np.array_equal(again.chains[name], values)
    idata = again.idata
    assert idata.log_likelihood["counts"].shape[-1] == idata.constant_data["counts"].size
    assert set(idata.log_prior.data_vars) == {"channel", "population", "prevalence"}


def test_the_row_log_likelihood_sums_to_the_likelihood_of_every_item(crowd, fit):
    # per-row values times their counts against an item-by-item computation on one draw
    responses = crowd.data.responses()
    a, b, prevalence = (
        x[0, 0] for x in (fit.chains["a"], fit.chains["b"], fit.chains["prevalence"])
    )
    log0 = np.zeros(responses.n_items)
    log1 = np.zeros(responses.n_items)
    rate0 = np.where(responses.label == 1, a[responses.annotator], 1 - a[responses.annotator])
    rate1 = np.where(responses.label == 1, b[responses.annotator], 1 - b[responses.annotator])
    np.add.at(log0, responses.item, np.log(rate0))
    np.add.at(log1, responses.item, np.log(rate1))
    labelled = responses.labels_per_item() > 0
    expected = np.logaddexp(np.log1p(-prevalence) + log0, np.log(prevalence) + log1)[labelled].sum()
    idata = fit.idata
    rows = idata.log_likelihood["counts"].values[0, 0] @ idata.constant_data["counts"].values
    assert rows == pytest.approx(expected, rel=1e-10)


def test_posterior_ece_and_power_scaling_take_a_hierarchical_fit(crowd, fit):
    # items labelled only by spammers or constant workers count as unlabelled, said once
    with pytest.warns(bc.ChannelWarning, match="count as unlabelled"):
        result = bc.nc_ece_posterior(crowd.data, fit)
    assert 0 < result.interval[0] < result.interval[1] < 1
    table = bc.bayes.power_scaling(fit)
    assert np.isfinite(table[["prior", "likelihood"]].to_numpy()).all()
    assert "population_mean" not in " ".join(table.index.astype(str))


def test_the_crowd_checks_pass_a_well_specified_fit_and_say_how_they_flag(crowd, fit):
    checks = bc.check_model(crowd.data, fit)
    table = checks.table
    assert set(table["check"]) == {
        "model",
        "positive_count",
        "agreement_with_others",
        "votes_per_item",
        "pairwise_agreement",
    }
    assert (
        table.loc[table["check"] == "positive_count", "subject"] == list(fit.annotator_names)
    ).all()
    pairs = table[table["check"] == "pairwise_agreement"]
    assert pairs["note"].str.startswith("Benjamini–Hochberg across the").all()
    assert len(pairs) >= 5
    # the model generated these data: with the false discovery rate held at 10% per check,
    # a flag is rare (posterior predictive p-values are conservative besides)
    assert table.loc[table["check"] != "model", "flag"].sum() <= 2
    status = table[table["check"] == "model"].set_index("subject")
    assert "of 30 workers" in status.loc["identification", "note"]  # the spammers, named
    # 30 x 2 channels, the class proportion, and the population's 6 (2 means, 2 spreads, the
    # correlation and the random workers' share)
    assert "(4500 labels, 67 parameters)" in status.loc["saturation", "note"]
    assert status.loc["saturation", "observed"] == crowd.data.responses().n_responses - 67


# two workers who copy each other break the model's conditional independence on purpose; NUTS
# mixes worse on such data (bulk ESS below 400 for some channels), which is not what is tested
@pytest.mark.filterwarnings("ignore::bayescal.SamplingWarning")
def test_the_crowd_checks_flag_two_workers_who_copy_each_other():
    crowd = bc.simulate_crowd(
        1500, 15, labels_per_item=3, workload="uniform", worker_mix={"good": 1.0}, seed=5
    )
    annotations = crowd.data.annotations.copy()
    both = (annotations[:, 0] >= 0) & (annotations[:, 1] >= 0)
    assert both.sum() >= 30
    annotations[both, 1] = annotations[both, 0]  # w001 copies w000 where both labelled
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    # the data say it before the fit (a copy on every shared item), the checks after it
    with pytest.warns(bc.DependenceWarning, match=r"^data: w000 and w001 \(\d+ items\): each pair"):
        fit = bc.fit_bayes(
            data, model=MODEL, num_chains=2, num_warmup=300, num_samples=300, progress=False
        )
    checks = bc.check_model(data, fit)
    flagged = checks.flagged
    assert "w000-w001" in set(flagged.loc[flagged["check"] == "pairwise_agreement", "subject"])
    assert any(line.startswith("Pair w000-w001: agree on 1.000") for line in checks.verdicts)


def test_benjamini_hochberg_adjusts_as_the_step_up_procedure():
    from bayescal.bayes.checks import benjamini_hochberg

    # sorted 0.01, 0.03, 0.04, 0.5 scaled by 4/rank: 0.04, 0.06, 0.0533, 0.5; then the running
    # minimum from the largest
    assert np.allclose(
        benjamini_hochberg(np.array([0.01, 0.04, 0.03, 0.5])), [0.04, 0.16 / 3, 0.16 / 3, 0.5]
    )
    assert benjamini_hochberg(np.array([])).size == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"priors": bc.Priors(false_positive=(2, 8))},
            ValueError,
            r"priors: model 'hierarchical_dawid_skene' takes its channels' prior from the "
            r"population of workers .* uses only priors.prevalence; saw false_positive=\(2.0, 8.0\)",
        ),
        ({"num_chains": 0}, ValueError, "num_chains"),
    ],
)
def test_bad_settings_are_refused_before_sampling(crowd, kwargs, error, message):
    with pytest.raises(error, match=message):
        bc.fit_bayes(crowd.data, model=MODEL, **kwargs)


def test_pattern_cells_are_refused_with_what_it_takes():
    cells = bc.toy_data(200, seed=0).data.compress()
    with pytest.raises(
        TypeError,
        match=r"data must be a bayescal\.data\.Responses or bayescal\.AnnotatedScores; saw CellStatistics",
    ):
        bc.fit_bayes(cells, model=MODEL)


def test_unidentified_crowds_are_refused_before_sampling():
    two = bc.AnnotatedScores(np.full(4, 0.5), np.array([[1, 0], [0, 0], [1, 1], [0, 1]]))
    with pytest.raises(IdentificationError, match="fit_bayes"):
        bc.fit_bayes(two, model=MODEL)
    single = bc.AnnotatedScores(
        np.full(4, 0.5), np.array([[1, -1, -1], [-1, 0, -1], [-1, -1, 1], [0, -1, -1]])
    )
    with pytest.raises(IdentificationError, match="no item has labels from two annotators"):
        bc.fit_bayes(single, model=MODEL)


@pytest.mark.slow
def test_hierarchical_model_passes_sbc():
    # 60 crowds of 150 items, 8 workers, 3 labels per item drawn from the model's own prior;
    # ranks among 49 draws (245 thinned by 5: ranks 0 .. 49 fill the 5 bins evenly), chi-square
    # uniformity per parameter at family-wise level 0.01 (Bonferroni over the 23 parameters: 16
    # channels, prevalence, 6 of the population)
    # NUTS at target acceptance 0.8, not the model's 0.99: a third of the cost, on single short
    # chains that calibrate at 0.8 (benchmarks/dependent_pairs_sbc.py runs crowds at 0.99)
    result = simulation_based_calibration(
        model=MODEL,
        sampler=bc.SamplerSettings(num_chains=1, target_accept=0.8, progress=False),
        n_simulations=60,
        n_items=150,
        n_annotators=8,
        labels_per_item=3,
        num_warmup=300,
        num_samples=245,
        thin=5,
        n_rank_bins=5,
        seed=4,
    )
    assert result.ranks.shape == (60, 23)
    assert result.passed, result.p_values.sort_values().head()


def _draws(channels, n_draws=6, seed=0):
    rng = np.random.default_rng(seed)
    a = np.clip(channels.a + rng.normal(0, 0.02, (n_draws, channels.a.size)), 0.01, 0.99)
    b = np.clip(channels.b + rng.normal(0, 0.02, (n_draws, channels.b.size)), 0.01, 0.99)
    return a, b


def test_the_crowd_push_through_equals_the_cell_push_through(monkeypatch):
    from bayescal.bayes import posterior
    from bayescal.correction import crowd as _response_moments
    from bayescal.correction import target_draws as _target_draws
    from bayescal.correction.known_channels import evaluation_cells

    crowd = bc.simulate_crowd(800, 16, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    a, b = _draws(crowd.channels)
    cells = evaluation_cells(crowd.data, 10)
    for rule in ("iv", "equal", np.full(16, 1 / 16)):
        by_cells = posterior._moment_draws(cells, a, b, rule, "channels", 0)
        monkeypatch.setattr(_target_draws, "CHUNK_ELEMENTS", 3 * 2400)  # 3 draws a chunk
        by_responses = _response_moments.response_moment_draws(
            crowd.data, cells.edges, "uniform", a, b, rule, "channels", 0
        )
        assert np.allclose(by_responses, by_cells, atol=1e-12)


def test_an_item_labelled_only_by_uninformative_workers_counts_as_unlabelled():
    from bayescal.correction.crowd import response_moment_draws

    crowd = bc.simulate_crowd(400, 14, labels_per_item=2, worker_mix={"good": 1.0}, seed=3)
    annotations = crowd.data.annotations.copy()
    annotations[0] = -1
    annotations[0, :2] = 1  # item 0: two labels, from workers 0 and 1 ...
    a, b = _draws(crowd.channels, n_draws=4)
    a[:, :2], b[:, :2] = 0.5, 0.505  # ... who are spammers in every draw (gap 0.005)
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    edges = np.linspace(0, 1, 11)
    with pytest.warns(
        bc.ChannelWarning,
        match=r"^\d+ of 400 items \(median over draws; up to \d+\) have labels only from workers too uninformative",
    ):
        moments = response_moment_draws(data, edges, "uniform", a, b, "iv", "channels", 0)
    assert np.isfinite(moments).all() and np.abs(moments).sum(axis=1).max() < 1


def test_the_channel_plot_shows_the_ten_most_and_least_informative_workers(fit):
    import matplotlib

    matplotlib.use("Agg")
    from bayescal.report.plotting import plot_channels

    ax = plot_channels(fit)
    labels = [tick.get_text() for tick in ax.get_yticklabels()]
    a, b, _ = fit.draws()
    order = np.argsort(-np.median(b - a, axis=0), kind="stable")
    names = np.array(fit.annotator_names)
    shown = [*names[order[:10]], *names[order[-10:]]]
    assert labels == shown
    assert "the 10 most and 10 least informative of 30 annotators" in ax.get_title()
    # 20 rows fit a screen (one row per worker: was 19.2 inches tall with a and b apart)
    _, height = ax.figure.get_size_inches()
    assert height <= 7.5


def test_the_plug_in_nc_ece_of_a_crowd_runs_on_its_responses_under_the_crowd_rule():
    from bayescal.correction.known_channels import cell_targets, evaluation_cells

    crowd = bc.simulate_crowd(800, 16, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    cells = evaluation_cells(crowd.data, 10)
    by_cells = cells.moments(cell_targets(cells, crowd.channels, prevalence=0.4)).ece
    by_responses = bc.noise_corrected_ece(crowd.data, crowd.channels, prevalence=0.4)
    assert by_responses == pytest.approx(by_cells, abs=1e-12)
    # item 0 labelled only by two exact spammers (b = a): unlabelled (with the few others that
    # have no informative label), said once, never refused
    annotations = crowd.data.annotations.copy()
    annotations[0] = -1
    annotations[0, :2] = 1
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    a, b = crowd.channels.a.copy(), crowd.channels.b.copy()
    b[:2] = a[:2]
    with pytest.warns(bc.ChannelWarning) as caught:
        value = bc.noise_corrected_ece(data, bc.Channels(a, b, names=data.annotator_names))
    said = [str(w.message) for w in caught]
    assert any(re.match(r"\d of 800 items have labels only from workers", line) for line in said)
    assert any("annotators w000 and w001 have |b - a| < 0.0001" in line for line in said)
    assert np.isfinite(value)


def test_the_plug_in_nc_ece_of_a_crowd_refuses_channels_of_another_crowd_and_random_ones():
    crowd = bc.simulate_crowd(300, 16, labels_per_item=3, worker_mix={"good": 1.0}, seed=4)
    with pytest.raises(ValueError, match=r"channels must describe every annotator column \(16\)"):
        bc.noise_corrected_ece(crowd.data, bc.Channels([0.1] * 15, [0.9] * 15))
    with pytest.raises(ValueError, match="no annotator is informative"):
        bc.noise_corrected_ece(
            crowd.data, bc.Channels([0.4] * 16, [0.4] * 16, names=crowd.data.annotator_names)
        )


def test_recalibrate_corrects_a_crowd_under_the_crowd_rule_and_leaves_unlabelled_items_out():
    crowd = bc.simulate_crowd(800, 16, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    grid = np.linspace(0.01, 0.99, 50)
    # every item labelled by informative workers: the same map as the dense corrected labels
    dense = bc.recalibration.PlattScaling().fit(
        crowd.data.scores, bc.correction.corrected_labels(crowd.data.annotations, crowd.channels)
    )
    sparse = bc.recalibrate(crowd.data, channels=crowd.channels)
    assert np.allclose(sparse.predict(grid), dense.predict(grid), atol=1e-10)
    # item 0 labelled only by two exact spammers (b = a): the fit leaves it out (with the few
    # others without an informative label), said once, where the dense route refused the table
    annotations = crowd.data.annotations.copy()
    annotations[0] = -1
    annotations[0, :2] = 1
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    # the others strong (IV precision of one label at least 1 / Var(U) >= 2.56), so exactly
    # the items with a label from them are corrected
    channels = bc.Channels(
        [0.3, 0.3] + [0.1] * 14, [0.3, 0.3] + [0.9] * 14, names=data.annotator_names
    )
    labelled = (annotations[:, 2:] >= 0).any(axis=1)
    assert not labelled[0] and labelled.sum() < 800
    with pytest.warns(bc.ChannelWarning) as caught:
        fitted = bc.recalibrate(data, channels=channels)
    assert sum("count as unlabelled" in str(w.message) for w in caught) == 1
    with pytest.warns(bc.ChannelWarning, match="have |b - a| < 0.0001"):
        on_labelled = bc.recalibration.PlattScaling().fit(
            data.scores[labelled], bc.correction.corrected_labels(annotations[labelled], channels)
        )
    assert np.allclose(fitted.predict(grid), on_labelled.predict(grid), atol=1e-10)
    # the split study scores NC-ECE over the items with a corrected label, never a NaN
    with pytest.warns(bc.ChannelWarning):
        study = bc.recalibration.recalibration_study(
            data.subset(np.arange(400)), data.subset(np.arange(400, 600)),
            data.subset(np.arange(600, 800)), methods=["platt"], estimator=channels,
        )  # fmt: skip
    assert np.isfinite(study.table[["nc_ece", "soft_vote_ece"]].to_numpy(float)).all()


@pytest.mark.parametrize("mode", ["split", "crossfit"])
def test_split_and_crossfit_nc_ece_of_a_crowd_follow_the_crowd_rule(mode, monkeypatch):
    from bayescal.correction import known_channels as correction

    crowd = bc.simulate_crowd(800, 16, labels_per_item=3, worker_mix={"good": 1.0}, seed=2)
    with warnings.catch_warnings():  # a fold's fit may find a weak worker near random
        warnings.simplefilter("ignore", bc.ChannelWarning)
        by_responses = bc.nc_ece_estimate(crowd.data, estimator="crowd_em", mode=mode)
        with monkeypatch.context() as patched:
            patched.setattr(correction, "CROWD_ANNOTATORS", 100)  # the route of a few annotators
            by_matrix = bc.nc_ece_estimate(crowd.data, estimator="crowd_em", mode=mode)
    assert by_responses.estimate == pytest.approx(by_matrix.estimate, abs=1e-12)
    assert by_responses.n_evaluated == by_matrix.n_evaluated == (400 if mode == "split" else 800)
    # workers 0 and 1 answer at random, and alone label the first 40 items: those count as
    # unlabelled, said once, never refused
    annotations = crowd.data.annotations.copy()
    given = annotations[:, :2] >= 0
    annotations[:, :2] = np.where(given, np.random.default_rng(0).integers(0, 2, given.shape), -1)
    annotations[:40] = -1
    annotations[:40, :2] = np.random.default_rng(1).integers(0, 2, (40, 2))
    data = bc.AnnotatedScores(
        crowd.data.scores, annotations, annotator_names=crowd.data.annotator_names
    )
    with pytest.warns(Warning) as caught:
        result = bc.nc_ece_estimate(data, estimator="crowd_em", mode=mode)
    said = [str(w.message) for w in caught if "count as unlabelled" in str(w.message)]
    assert len(said) == 1
    unlabelled = int(re.match(r"(\d+) of", said[0]).group(1))
    evaluated = 400 if mode == "split" else 800
    # the 40 (those of them evaluated) and the few others whose one informative label is weak
    assert (40 if mode == "crossfit" else 1) <= unlabelled <= 60
    assert result.n_evaluated == evaluated - unlabelled
    assert np.isfinite(result.estimate)


def test_the_analysis_of_a_crowd_pushes_its_posterior_through_its_responses(
    crowd_of_30, crowd_of_30_fit, monkeypatch
):
    from bayescal.bayes import fit as inference

    def the_sessions_fit(data, *, model, **options):  # the same crowd and model
        assert model == "hierarchical_dawid_skene" and options.keys() == {
            "priors", "sampler", "dependent"
        }  # fmt: skip
        assert options["dependent"] is None
        assert options["sampler"] == bc.SamplerSettings(seed=3)
        assert np.array_equal(data.annotations, crowd_of_30.data.annotations)
        return crowd_of_30_fit

    monkeypatch.setattr(inference, "fit_bayes", the_sessions_fit)
    left_out = r"calibration_test: \d+ of 1500 items .* are left out of the test"
    with pytest.warns(bc.ChannelWarning) as caught:
        analysis = bc.analyse(crowd_of_30.data, seed=3)
    said = [str(w.message) for w in caught]
    assert sum(bool(re.search(left_out, line)) for line in said) == 1
    # the crowd rule in the EM and the posterior NC-ECE alike, each said once
    assert sum("count as unlabelled" in line for line in said) == 2
    # every warning of the call once, at the caller's line (the preview's refits, on half of
    # the items, repeat none of them)
    assert len(set(said)) == len(said)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(bc.ChannelWarning, match="count as unlabelled"):
        direct = bc.nc_ece_posterior(crowd_of_30.data, crowd_of_30_fit, n_bins=10, seed=3)
    assert analysis.posterior.median == direct.median
    assert analysis.posterior.interval == direct.interval
    # the summary records which workers crowd_em pooled (the report's channel figure says so)
    recorded = {name for name, entry in analysis.summary.channels.items() if entry.em_pooled}
    assert recorded == set(analysis.channel_fit.pooled)
    # ... and only those: a fit that pooled two workers marks those two
    from dataclasses import replace

    from bayescal.app.analysis import _channel_sections

    names = analysis.data.annotator_names
    pooled = replace(analysis.channel_fit, pooled=(names[3], names[7]))
    channels, _ = _channel_sections(analysis.bayes_fit, pooled, names, 0.9)
    assert [name for name, entry in channels.items() if entry.em_pooled] == [names[3], names[7]]


def test_items_unlabelled_in_a_few_draws_only_are_said_as_such():
    """The median over draws would say "0 of 50 items": the line says in how many draws."""
    from bayescal.correction.crowd import report_unlabelled

    with pytest.warns(bc.ChannelWarning, match=r"^up to 2 of 50 items \(in 2 of 5 draws\) have"):
        report_unlabelled(np.array([0, 1, 0, 2, 0]), 50)
    with pytest.warns(bc.ChannelWarning, match=r"^3 of 50 items \(median over draws; up to 4\)"):
        report_unlabelled(np.array([3, 4, 3]), 50)


def test_a_fit_names_the_workers_it_summed_out_and_keeps_them_when_saved(tmp_path):
    """Workers of one label in all are summed out of the hierarchical model
    (bayescal.models.hierarchical_dawid_skene); the fit names them, and a loaded fit too."""
    from bayescal.models import ResponseDesign

    sim = bc.simulate_crowd(60, 14, labels_per_item=3, seed=2)
    annotations = np.c_[sim.data.annotations, np.full((60, 2), -1)]
    annotations[[5, 9], [14, 15]] = [1, 0]  # two more workers, one label each
    names = [*sim.data.annotator_names, "once", "twice"]
    data = bc.AnnotatedScores(sim.data.scores, annotations, annotator_names=names)
    samples = {"a": np.full((1, 4, 16), 0.2), "b": np.full((1, 4, 16), 0.8)}
    samples["prevalence"] = np.full((1, 4), 0.5)
    extra = {name: np.zeros((1, 4)) for name in ("diverging", "energy", "num_steps")}
    extra["accept_prob"] = np.ones((1, 4))
    design = ResponseDesign.from_responses(data.responses())
    fit = bc.BayesFit.from_run(
        samples, extra, design, bc.Priors(), "hierarchical_dawid_skene", names
    )
    assert fit.summed_out == ("once", "twice")
    fit.save(tmp_path / "posterior.nc")
    assert bc.BayesFit.load(tmp_path / "posterior.nc").summed_out == ("once", "twice")


@NEEDS_CHROMIUM
@pytest.mark.filterwarnings("ignore::bayescal.exceptions.ChannelWarning")  # said by the test above
def test_a_crowds_report_and_its_notebook_view_read_well_in_chromium(
    crowd_of_30, crowd_of_30_fit, monkeypatch, tmp_path
):
    """Issue 37 items 9-11, in a browser (the screenshots were looked at when this was
    written): the report's first screen holds the verdict; every annotator row is one line
    (intervals and flags do not wrap) and says how many labels the worker gave; the channel
    figure fits a screen; the notebook view keeps every interval on one line."""
    from playwright.sync_api import sync_playwright

    from bayescal.bayes import fit as inference
    from bayescal.report.folders import write_analysis

    monkeypatch.setattr(inference, "fit_bayes", lambda data, **options: crowd_of_30_fit)
    analysis = bc.analyse(crowd_of_30.data, seed=3, progress=False)
    _, report = write_analysis(tmp_path / "out", analysis)
    view = tmp_path / "view.html"  # a notebook's output area is about 900 pixels wide
    view.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
        f'<body style="width: 900px">{analysis._repr_html_()}</body></html>'
    )
    row_heights = """selector => Array.from(document.querySelectorAll(selector)).map(
        cell => cell.parentElement.getBoundingClientRect().height)"""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(report.as_uri())
        page.screenshot(path=str(tmp_path / "first-screen.png"))
        verdict = page.locator("#verdict").bounding_box()
        assert verdict["y"] + verdict["height"] <= 800
        annotator_rows = page.evaluate(row_heights, "td[id^='gap-']")
        one_line = page.evaluate(row_heights, "#n-items")[0]
        assert len(annotator_rows) == 20 and max(annotator_rows) <= 1.2 * one_line
        labels = crowd_of_30.data.responses().labels_per_annotator()
        for name, count in zip(crowd_of_30.data.annotator_names, labels):
            cell = page.locator(f"#labels-{name}")
            if cell.count():
                assert cell.inner_text() == str(count)
        figure = page.locator("#figure-channels img").bounding_box()
        assert figure["height"] <= 800
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.goto(view.as_uri())
        page.screenshot(path=str(tmp_path / "notebook-view.png"), full_page=True)
        for details in page.locator("details").all():
            details.locator("summary").click()  # open every detail: its intervals too
        lines = page.evaluate(
            """() => Array.from(document.querySelectorAll("td[style*='nowrap']")).map(cell => {
                const range = document.createRange();
                range.selectNodeContents(cell);
                return new Set(Array.from(range.getClientRects()).map(box => box.top)).size;
            })"""
        )
        # every interval on one line (an empty flag cell has none)
        assert lines.count(1) > 20 and set(lines) <= {0, 1}
        browser.close()
