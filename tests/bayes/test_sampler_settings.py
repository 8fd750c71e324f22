"""One typed object for the sampler's settings, shared by every caller, each with its own
defaults; the keyword forms keep working."""

import dataclasses
import warnings

import pytest

import bayescal as bc
from bayescal.bayes.sampler_settings import sampler_settings

FOUR = bc.simulate_annotated(400, bc.Channels([0.1, 0.2, 0.15, 0.1], [0.8, 0.9, 0.85, 0.9]), seed=1)


class Sampled(Exception):
    """Raised by a stand-in fit: the settings it was given, before any sampling."""


def test_the_settings_check_each_field_by_name():
    assert bc.SamplerSettings() == bc.SamplerSettings(
        num_chains=4,
        num_warmup=1000,
        num_samples=None,
        target_accept=None,
        seed=0,
        progress=True,
        extensions=None,
    )
    with pytest.raises(TypeError):
        bc.SamplerSettings(4)
    for field, value, error, message in [
        ("num_chains", 0, ValueError, r"^num_chains must be >= 1; saw 0$"),
        ("num_warmup", 2.5, TypeError, r"^num_warmup must be an integer"),
        ("num_samples", -1, ValueError, r"^num_samples must be >= 1"),
        ("num_samples", 3, ValueError, r"^num_samples must be >= 4: R-hat and ESS"),
        ("target_accept", 1.0, ValueError, r"^target_accept must lie strictly between 0 and 1; "),
        ("target_accept", "0.9", TypeError, r"^target_accept must be a number strictly between"),
        ("seed", 2**63, ValueError, r"^seed must be below 2\*\*63"),
        ("progress", "yes", TypeError, r"^progress must be True or False; saw 'yes'$"),
        ("extensions", -1, ValueError, r"^extensions must be >= 0; saw -1$"),
        ("extensions", 1.5, TypeError, r"^extensions must be an integer"),
    ]:
        with pytest.raises(error, match=message):
            bc.SamplerSettings(**{field: value})
    with pytest.raises(dataclasses.FrozenInstanceError):
        bc.SamplerSettings().seed = 3  # type: ignore[misc]


def test_the_draws_and_the_acceptance_not_named_are_the_models():
    from bayescal.bayes.fit import sampler_for
    from bayescal.bayes.registry import MODELS

    def sampler(model, settings):
        if model != "shared_difficulty":
            return sampler_for(FOUR.data, model, settings, caller="test").sampler
        with pytest.warns(bc.WeakIdentificationWarning):  # 400 items are few for its loadings
            return sampler_for(FOUR.data, model, settings, caller="test").sampler

    for model in ("dawid_skene", "shared_difficulty"):  # target acceptance 0.8 and 0.95
        nuts = sampler(model, bc.SamplerSettings())
        assert (nuts.num_samples, nuts.target_accept) == (
            MODELS[model].num_samples,
            MODELS[model].target_accept,
        )
        nuts = sampler(model, bc.SamplerSettings(num_samples=300, target_accept=0.97))
        assert (nuts.num_samples, nuts.target_accept) == (300, 0.97)
    # NUTS adapts its step to the acceptance named: the run's mean acceptance follows it (one
    # short chain each, whose R-hat and ESS are not the subject)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bc.SamplingWarning)
        fits = {
            accept: bc.fit_bayes(
                FOUR.data, num_chains=1, num_warmup=300, num_samples=300, target_accept=accept,
                progress=False,
            )
            for accept in (0.6, 0.95)
        }  # fmt: skip
    mean_accept = {
        a: float(f.idata.sample_stats["acceptance_rate"].mean()) for a, f in fits.items()
    }
    assert mean_accept[0.6] < 0.8 < 0.9 < mean_accept[0.95], mean_accept


def test_a_keyword_given_takes_the_place_of_its_field_and_the_defaults_are_the_callers():
    defaults = bc.SamplerSettings(num_chains=2, progress=False)
    assert sampler_settings(None, defaults) == defaults
    given = bc.SamplerSettings(num_warmup=50)
    assert sampler_settings(given, defaults, num_chains=None, seed=7) == bc.SamplerSettings(
        num_warmup=50, seed=7
    )
    with pytest.raises(TypeError, match=r"^sampler must be a bayescal.SamplerSettings; saw dict$"):
        sampler_settings({"num_chains": 2}, defaults)


@pytest.fixture
def captured(monkeypatch):
    """The settings analyse passes to fit_bayes, captured before any sampling."""
    from bayescal.bayes import fit

    def stand_in(data, *, sampler, **options):
        raise Sampled(sampler)

    monkeypatch.setattr(fit, "fit_bayes", stand_in)


@pytest.mark.parametrize(
    "call, expected",
    [
        ({}, bc.SamplerSettings()),  # progress on: a notebook cell never sits silent
        ({"seed": 4, "progress": False}, bc.SamplerSettings(seed=4, progress=False)),
        (
            {"sampler": bc.SamplerSettings(num_chains=2, seed=9), "seed": 5},
            bc.SamplerSettings(num_chains=2, seed=5),
        ),
    ],
)
def test_analyse_passes_its_settings_to_the_fit(call, expected, captured):
    data = FOUR.data
    with pytest.raises(Sampled) as sampled:
        bc.analyse(data, **call)
    assert sampled.value.args[0] == expected


def test_bayes_options_still_work_with_a_deprecation_warning_and_bad_keys_are_named(captured):
    data = FOUR.data
    with (
        pytest.warns(DeprecationWarning, match=r"sampler=SamplerSettings\(num_chains=2\)") as said,
        pytest.raises(Sampled) as sampled,
    ):
        bc.analyse(data, bayes_options={"num_chains": 2})
    assert said[0].filename == __file__
    assert sampled.value.args[0] == bc.SamplerSettings(num_chains=2)
    # this raised Python's "got multiple values for keyword argument 'progress'"
    with pytest.raises(
        TypeError,
        match=r"^bayes_options must be a dict with keys among \['num_chains', 'num_samples', "
        r"'num_warmup'\]; saw \['progress'\] \(pass sampler=SamplerSettings\(...\)\)$",
    ):
        bc.analyse(data, bayes_options={"progress": False})


def test_the_studies_and_the_sensitivity_refuse_settings_they_cannot_run():
    from bayescal.studies import simulation_based_calibration

    with pytest.raises(ValueError, match=r"one chain per simulation; saw num_chains=2$"):
        simulation_based_calibration(sampler=bc.SamplerSettings(num_chains=2))
    with pytest.raises(TypeError, match=r"^sampler must be a bayescal.SamplerSettings; saw int$"):
        bc.prior_sensitivity(FOUR.data, priors=bc.Priors(), sampler=4)


def test_a_fit_extends_at_the_models_length_only():
    """The model's draws may be continued (up to DEFAULT_EXTENSIONS times); a length asked for is
    the length run, unless extensions are asked for too."""
    from bayescal.bayes.sampler_settings import DEFAULT_EXTENSIONS

    assert DEFAULT_EXTENSIONS == 2
    assert bc.SamplerSettings().extension_limit == DEFAULT_EXTENSIONS
    assert bc.SamplerSettings(num_samples=1000).extension_limit == 0
    assert bc.SamplerSettings(num_samples=1000, extensions=1).extension_limit == 1
    assert bc.SamplerSettings(extensions=0).extension_limit == 0
    # the keyword form sets the length after the defaults: the limit follows it
    given = sampler_settings(None, bc.SamplerSettings(), num_samples=200)
    assert given.extension_limit == 0
