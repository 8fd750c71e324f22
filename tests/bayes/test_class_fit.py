"""The multi-class Bayesian model (issue 39): fit_bayes on multi-class data, each draw
relabelled, and the posterior of top-label and classwise NC-ECE (its SBC is in
tests/studies/test_sbc.py)."""

from dataclasses import replace

import numpy as np
import pytest
from bayescal.models import ClassPatternDesign, relabelled

import bayescal as bc
from bayescal.bayes.class_fit import ClassBayesFit
from bayescal.exceptions import IdentificationError
from bayescal.metrics import expected_calibration_error
from bayescal.recalibration import ClassTemperatureScaling
from bayescal.simulate import graded_confusion, simulate_classes

CLASSES = ("fail", "partial", "pass")


#: Three judges of a 3-point scale, errors on the nearer grade likelier, the weakest barely
#: above chance on the middle grade.
TRUE_CONFUSION = np.stack([graded_confusion(3, accuracy) for accuracy in (0.85, 0.75, 0.65)])
TRUE_PROPORTION = np.array([0.3, 0.45, 0.25])


def simulate(n_items: int, seed: int):
    """Graded items, the three judges' answers, and an overconfident classifier's
    probabilities (``bayescal.simulate.simulate_classes``): ``(data, true classes)``."""
    simulation = simulate_classes(
        n_items, TRUE_CONFUSION, proportion=TRUE_PROPORTION, classes=CLASSES, seed=seed
    )
    return simulation.data, simulation.labels


@pytest.fixture(scope="module")
def panel():
    data, classes = simulate(3000, seed=5)
    return data, classes, bc.fit_bayes(data, progress=False)


def test_fit_recovers_the_confusion_matrices_and_agrees_with_em(panel):
    data, _, fit = panel
    assert isinstance(fit, ClassBayesFit) and fit.classes == CLASSES
    draws = fit.draws()
    assert draws.confusion.shape == (4000, 3, 3, 3) and draws.proportion.shape == (4000, 3)
    mean = draws.confusion.mean(axis=0)
    # every cell and proportion within 3.5 posterior sd of the truth (30 values; this seed's
    # largest is 1.7 sd; the sd are 0.010-0.030)
    z_confusion = (mean - TRUE_CONFUSION) / draws.confusion.std(axis=0)
    z_proportion = (draws.proportion.mean(axis=0) - TRUE_PROPORTION) / draws.proportion.std(axis=0)
    assert np.abs(z_confusion).max() < 3.5 and np.abs(z_proportion).max() < 3.5
    em = bc.dawid_skene_em(data)
    assert np.abs(em.channels.confusion - mean).max() < 0.02
    assert fit.diagnostics["r_hat"].max() <= 1.01
    assert fit.posterior_mean().names == data.annotator_names


def test_gold_of_every_class_identifies_two_judges_without_relabelling():
    data, classes = simulate(3000, seed=9)
    gold = np.full(data.n_items, -1)
    gold[:300] = classes[:300]  # a random tenth, every class among them
    two = bc.AnnotatedScores(
        data.probabilities, data.annotations[:, :2], classes=list(CLASSES), gold=gold
    )
    fit = bc.fit_bayes(two, progress=False)
    draws = fit.draws()
    z = (draws.confusion.mean(axis=0) - TRUE_CONFUSION[:2]) / draws.confusion.std(axis=0)
    assert np.abs(z).max() < 3.5
    em = bc.dawid_skene_em(two)
    assert np.abs(em.channels.confusion - draws.confusion.mean(axis=0)).max() < 0.02
    assert fit.fitted_counts[(0, 0, 0)] > 0  # gold rows keep their class after the pattern


def test_relabelling_undoes_any_permutation_of_the_classes():
    rng = np.random.default_rng(0)
    confusion = np.stack([TRUE_CONFUSION] * 6)[None] + rng.uniform(0, 0.01, (1, 6, 3, 3, 3))
    confusion /= confusion.sum(axis=-1, keepdims=True)
    proportion = np.tile(TRUE_PROPORTION, (1, 6, 1))
    permuted_confusion, permuted_proportion = confusion.copy(), proportion.copy()
    for draw in range(6):  # each draw's latent classes renamed by another permutation
        order = rng.permutation(3)
        permuted_confusion[0, draw] = confusion[0, draw][:, order]
        permuted_proportion[0, draw] = proportion[0, draw][order]
    back = relabelled({"confusion": permuted_confusion, "proportion": permuted_proportion})
    np.testing.assert_allclose(back["confusion"], confusion)
    np.testing.assert_allclose(back["proportion"], proportion)


def test_relabelling_keeps_the_classes_the_gold_names():
    # class 0 named by gold: a draw whose latent classes 1 and 2 swapped is swapped back, and
    # class 0 stays even where swapping it would raise the diagonal
    swapped = TRUE_CONFUSION[:, [0, 2, 1]]
    draws = {"confusion": swapped[None, None], "proportion": TRUE_PROPORTION[None, None]}
    fixed = np.array([True, False, False])
    np.testing.assert_allclose(relabelled(draws, fixed=fixed)["confusion"][0, 0], TRUE_CONFUSION)
    crossed = TRUE_CONFUSION[:, [1, 0, 2]]  # latent 0 answered as class 1: held by the gold
    held = {"confusion": crossed[None, None], "proportion": TRUE_PROPORTION[None, None]}
    np.testing.assert_allclose(relabelled(held, fixed=fixed)["confusion"][0, 0], crossed)


def test_the_design_reads_gold_without_a_label_as_none_and_zero_cells_without_nan():
    data, _ = simulate(200, seed=1)
    no_gold = bc.AnnotatedScores(
        data.probabilities, data.annotations, classes=list(CLASSES), gold=np.full(200, -1)
    )
    assert not ClassPatternDesign.from_data(no_gold).has_gold
    design = ClassPatternDesign.from_data(data)
    confusion = TRUE_CONFUSION.copy()
    confusion[0, 0] = [1.0, 0.0, 0.0]  # a judge who never errs on class 0
    log_p = design.log_prob(confusion, TRUE_PROPORTION, np)
    assert np.isfinite(log_p).all()
    many = ClassPatternDesign.from_codes([[129, 0, 5]], 130)
    assert many.codes().dtype == np.int16 and many.codes().tolist() == [[129, 0, 5]]


def test_relabelling_keeps_an_adversarial_judge_adversarial():
    # the third judge names every class by the next one's name: only the population is made
    # diagonally dominant, so it stays adversarial
    adversarial = TRUE_CONFUSION.copy()
    adversarial[2] = graded_confusion(3, 0.9)[:, [1, 2, 0]]
    draws = {"confusion": adversarial[None, None], "proportion": TRUE_PROPORTION[None, None]}
    np.testing.assert_allclose(relabelled(draws)["confusion"][0, 0], adversarial)


def test_posterior_nc_ece_centres_on_the_estimate_and_covers_the_clean_error(panel):
    data, classes, fit = panel
    for kind in ("top_label", "classwise"):
        posterior = bc.nc_ece_posterior(data, fit, kind=kind)
        estimate = bc.nc_ece_estimate(data, kind=kind, estimator=fit.posterior_mean()).estimate
        clean = expected_calibration_error(classes, data.probabilities, kind=kind)
        assert posterior.kind == kind and posterior.n_evaluated == data.n_items
        # the median within 0.01 of the point estimate at the posterior mean; the 90%
        # interval (total uncertainty) holds the error against the true classes
        assert abs(posterior.median - estimate) < 0.01, (kind, posterior, estimate)
        assert posterior.interval[0] <= clean <= posterior.interval[1], (kind, posterior, clean)
    assert posterior.class_draws.shape == (4000, 3)
    band = posterior.reliability_band(class_name="pass")
    assert band.counts.sum() == data.n_items


def test_rectified_gold_keeps_the_posterior_right_when_a_judge_copies_another():
    """The third judge copies the first, so the fitted matrices are wrong: with 10% random
    gold the rectified posterior's interval holds the clean ECE, the model-based one's misses
    it (0.106 against [0.178, 0.199] at every draw, this seed), top-label and classwise."""
    data, classes = simulate(5000, seed=11)
    copied = data.annotations.copy()
    copied[:, 2] = copied[:, 0]
    gold = np.where(np.random.default_rng(12).random(data.n_items) < 0.1, classes, -1)
    judged = bc.AnnotatedScores(data.probabilities, copied, classes=list(CLASSES), gold=gold)
    fit = bc.fit_bayes(judged, progress=False)
    for kind in ("top_label", "classwise"):
        clean = expected_calibration_error(classes, data.probabilities, kind=kind)
        rectified = bc.nc_ece_posterior(judged, fit, kind=kind, max_draws=400)
        model = bc.nc_ece_posterior(judged, fit, kind=kind, max_draws=400, gold_estimator="model")
        assert rectified.interval[0] <= clean <= rectified.interval[1], (kind, rectified, clean)
        assert model.interval[0] > clean + 0.03, (kind, model, clean)
    # the posterior recalibration, fitted on one half and scored on the other: with the gold
    # each draw's temperature fits the rectified cross-entropy, as recalibrate does (median
    # 2.192 against its 2.194, the clean fit's 2.005, 252 gold items); without it the copied
    # judge's errors read as the classifier's (3.41)
    halves = np.arange(data.n_items) < data.n_items // 2
    fit_half = judged.subset(np.flatnonzero(halves))
    eval_half = judged.subset(np.flatnonzero(~halves))
    clean = ClassTemperatureScaling().fit(fit_half.probabilities, np.eye(3)[classes[halves]])
    with_gold = bc.bayes.posterior_recalibration(
        fit_half, eval_half, fit, method="temperature", max_draws=200
    )
    without = bc.bayes.posterior_recalibration(
        replace(fit_half, gold=None),
        replace(eval_half, gold=None),
        fit,
        method="temperature",
        max_draws=200,
    )
    rectified = np.median(with_gold.maps.parameters["temperature"])
    model = np.median(without.maps.parameters["temperature"])
    frequentist = bc.recalibrate(fit_half, method="temperature", channels="dawid_skene_em")
    assert rectified == pytest.approx(frequentist.temperature_, abs=0.02)
    assert abs(rectified - clean.temperature_) < 0.25 * abs(model - clean.temperature_)
    # the base row with gold is nc_ece_posterior's rectified one, to the last digit
    base = bc.nc_ece_posterior(eval_half, fit, max_draws=200)
    np.testing.assert_array_equal(with_gold.base.draws, base.draws)


def test_a_prior_holding_much_of_the_evidence_is_said_to_pull(panel):
    # 150 items of 3 classes: 50 labels a row against the flat prior's 3 pseudo-counts (5.7%)
    data, _, fit = panel
    assert fit.prior_share() == pytest.approx(3 / (3 + 1000))  # the whole panel: silent
    few = data.subset(np.arange(150))
    small = bc.fit_bayes(few, progress=False)
    np.testing.assert_array_equal(small.labels_per_annotator(), [150, 150, 150])
    assert small.prior_share() == pytest.approx(3 / (3 + 50))
    with pytest.warns(
        bc.ChannelWarning, match=r"the Dirichlet prior holds 5\.7% .* remove the pull"
    ):
        bc.nc_ece_posterior(few, small, max_draws=100)


def test_channels_uncertainty_is_narrower_than_total(panel):
    data, _, fit = panel
    total = bc.nc_ece_posterior(data, fit, max_draws=400)
    channels = bc.nc_ece_posterior(data, fit, max_draws=400, uncertainty="channels")
    assert total.draws.size == channels.draws.size == 400
    assert np.ptp(channels.interval) < np.ptp(total.interval)


def test_posterior_recalibration_recovers_the_clean_temperature(panel):
    data, classes, fit = panel
    halves = np.arange(data.n_items) < data.n_items // 2
    fit_data, eval_data = data.subset(np.flatnonzero(halves)), data.subset(np.flatnonzero(~halves))
    result = bc.bayes.posterior_recalibration(
        fit_data, eval_data, fit, method="temperature", max_draws=200
    )
    temperatures = result.maps.parameters["temperature"]
    clean = ClassTemperatureScaling().fit(fit_data.probabilities, np.eye(3)[classes[halves]])
    # the clean fit to these 1 500 items within 3 posterior sd (this seed: 0.6 sd)
    z = (temperatures.mean() - clean.temperature_) / temperatures.std()
    assert abs(z) < 3, z
    base = bc.nc_ece_posterior(eval_data, fit, max_draws=200)
    np.testing.assert_array_equal(result.base.draws, base.draws)  # the same items and draws
    table = result.table()
    assert table.loc["corrected", "median"] < 0.5 * table.loc["base", "median"]
    assert table.loc["naive", "median"] > 2 * table.loc["corrected", "median"]
    assert result.recalibrated.counts.shape == (200, 10)  # bins of each draw's own map
    with pytest.raises(ValueError, match="differ by draw"):
        result.recalibrated.reliability_band()


def test_posterior_vector_scaling_scores_every_class(panel):
    data, _, fit = panel
    result = bc.bayes.posterior_recalibration(
        data, data, fit, method="vector", kind="classwise", max_draws=100
    )
    assert result.maps.parameters["scales"].shape == (100, 3)
    assert result.maps.parameters["biases"].shape == (100, 2)
    assert result.recalibrated.class_draws.shape == (100, 3)
    assert result.recalibrated.median < result.base.median


def test_a_saved_fit_loads_with_its_draws_and_diagnostics(panel, tmp_path):
    _, _, fit = panel
    fit.save(tmp_path / "posterior.nc")
    loaded = ClassBayesFit.load(tmp_path / "posterior.nc")
    np.testing.assert_array_equal(loaded.draws().confusion, fit.draws().confusion)
    assert loaded.classes == fit.classes and loaded.annotator_names == fit.annotator_names
    assert loaded.priors == fit.priors and loaded.fitted_counts == fit.fitted_counts
    assert loaded.diagnostics.equals(fit.diagnostics)
    with pytest.raises(ValueError, match=r"a multi-class posterior; read it with .*ClassBayesFit"):
        bc.BayesFit.load(tmp_path / "posterior.nc")


def test_bad_inputs_are_refused_by_name(panel, tmp_path):
    data, _, fit = panel
    with pytest.raises(
        ValueError,
        match="model must be one of 'dawid_skene', 'hierarchical_dawid_skene' for multi-class",
    ):
        bc.fit_bayes(data, model="hui_walter")
    with pytest.raises(
        TypeError, match="priors: multi-class data take a bayescal\\.bayes\\.ClassPriors"
    ):
        bc.fit_bayes(data, priors=bc.Priors())
    with pytest.raises(ValueError, match="dependent: the multi-class model"):
        bc.fit_bayes(data, dependent=("a0", "a1"))
    crowd = bc.AnnotatedScores(
        data.probabilities, np.tile(data.annotations, (1, 5)), classes=list(CLASSES)
    )
    with pytest.raises(
        ValueError, match=r"15 annotators are a crowd .*model='hierarchical_dawid_skene'"
    ):
        bc.fit_bayes(crowd)
    two = bc.AnnotatedScores(data.probabilities, data.annotations[:, :2], classes=list(CLASSES))
    with pytest.raises(IdentificationError, match="2 annotator"):
        bc.fit_bayes(two)
    with pytest.raises(ValueError, match="kind sets the multi-class ECE"):
        bc.nc_ece_posterior(
            bc.AnnotatedScores([0.2, 0.7], [[0, 1, 1], [1, 1, 0]]), fit, kind="top_label"
        )
    renamed = bc.AnnotatedScores(data.probabilities, data.annotations, classes=["a", "b", "c"])
    with pytest.raises(ValueError, match="its classes"):
        bc.nc_ece_posterior(renamed, fit)
    gold = np.full(data.n_items, -1)
    gold[:10] = 0
    with_gold = bc.AnnotatedScores(
        data.probabilities, data.annotations, classes=list(CLASSES), gold=gold
    )
    with pytest.raises(ValueError, match="gold_estimator must be one of"):
        bc.nc_ece_posterior(with_gold, fit, gold_estimator="ppi")
    with pytest.raises(TypeError, match="fit must be a multi-class fit"):
        bc.nc_ece_posterior(data, object())
    with pytest.raises(ValueError, match="kind must be one of"):
        bc.nc_ece_posterior(data, fit, kind="macro")
    with pytest.raises(ValueError, match="class_name picks a classwise problem"):
        bc.nc_ece_posterior(data, fit, max_draws=100).reliability_band(class_name="pass")
    with pytest.raises(ValueError, match="class_name must be one of the classes"):
        bc.nc_ece_posterior(data, fit, kind="classwise", max_draws=100).reliability_band(
            class_name="top"
        )
    with pytest.raises(
        ValueError, match=r"method must be 'temperature' or 'vector' .*binary default"
    ):
        bc.bayes.posterior_recalibration(data, data, fit)
    with pytest.raises(ValueError, match="eval_data: its classes"):
        bc.bayes.posterior_recalibration(data, renamed, fit, method="temperature")
    binary = bc.AnnotatedScores([0.2, 0.7], [[0, 1, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match="kind sets the multi-class ECE"):
        bc.bayes.posterior_recalibration(binary, binary, fit, kind="classwise")
    with pytest.raises(ValueError, match="weights must be one of"):
        bc.nc_ece_posterior(data, fit, weights="inverse")
    others = bc.AnnotatedScores(
        data.probabilities, data.annotations, classes=list(CLASSES), annotator_names=["x", "y", "z"]
    )
    with pytest.raises(ValueError, match="eval_data"):
        bc.bayes.posterior_recalibration(data, others, fit, method="temperature")
    (tmp_path / "binary.nc").write_bytes(b"")
    with pytest.raises(ValueError, match="not a netCDF file"):
        ClassBayesFit.load(tmp_path / "binary.nc")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"confusion": (0, 1)}, "confusion must be a positive, finite number"),
        ({"confusion": (2,)}, "confusion must be a pair"),
        ({"confusion": "21"}, "confusion must be a pair"),
        ({"proportion": float("nan")}, "proportion must be a positive, finite"),
        ({"proportion": True}, "proportion must be a positive, finite"),
    ],
)
def test_class_priors_refuse_bad_concentrations(arguments, message):
    with pytest.raises(ValueError, match=message):
        bc.bayes.ClassPriors(**arguments)
