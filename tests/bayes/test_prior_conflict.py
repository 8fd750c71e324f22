"""Prior-data conflict (bayescal.bayes.prior_conflict): a chosen prior that overrules the data
is named in one warning; a flat prior, or one the data overrule, is not."""

import dataclasses

import numpy as np
import pytest

import bayescal as bc
from bayescal.bayes.prior_conflict import prior_conflicts, warn_prior_conflicts
from tests.helpers import fake_fit

pytestmark = pytest.mark.filterwarnings("ignore::bayescal.SaturatedModelWarning")  # K = 3


@pytest.fixture(scope="module")
def setting():
    sim = bc.toy_data(2000, condition="calibrated", seed=12)
    return sim.data, bc.dawid_skene_em(sim.data)


def _posterior_about(data, em, shift_b=0.0, spread=0.01, priors=None):
    """A fake fit whose 400 draws sit near the EM estimate, b moved by ``shift_b``."""
    rng = np.random.default_rng(0)
    a = em.channels.a + rng.normal(0, spread, (400, 3))
    b = np.clip(em.channels.b + shift_b + rng.normal(0, spread, (400, 3)), 0, 1)
    prevalence = float(np.atleast_1d(em.prevalence)[0]) + rng.normal(0, spread, 400)
    fit = fake_fit(data, a, b, prevalence)
    return dataclasses.replace(fit, priors=priors or bc.Priors(sensitivity=(1e9, 1.0)))


def test_a_prior_that_moves_a_parameter_off_the_data_is_named(setting):
    data, em = setting
    moved = _posterior_about(data, em, shift_b=0.1)
    conflicts = prior_conflicts(moved, em)
    assert [c.split(" ")[0] for c in conflicts] == ["b[a0]", "b[a1]", "b[a2]"]
    assert conflicts[0].startswith(
        f"b[a0] (the data alone: {em.channels.b[0]:.3f}; the posterior: "
    )
    with pytest.warns(bc.PriorConflictWarning, match=r"^the prior, not the data, decides b\[a0\]"):
        warn_prior_conflicts(moved, em)


def test_agreement_a_small_gap_and_the_flat_prior_are_not_conflicts(setting):
    data, em = setting
    assert prior_conflicts(_posterior_about(data, em), em) == []  # the data decide
    # outside a narrow posterior, but by less than MATERIAL_GAP: not worth a line
    assert prior_conflicts(_posterior_about(data, em, shift_b=0.015, spread=0.001), em) == []
    # the flat default prior cannot overrule the data: a gap there is the sampler's or the
    # identification's, which other checks name
    flat = _posterior_about(data, em, shift_b=0.1, priors=bc.Priors())
    assert prior_conflicts(flat, em) == []


def test_the_hierarchical_models_channels_are_not_compared(setting):
    """Its channels' prior is its population, not the Priors: a gap to crowd_em's pooled
    estimate is shrinkage, not a chosen prior overruling the data."""
    data, em = setting
    moved = _posterior_about(data, em, shift_b=0.1)
    assert prior_conflicts(dataclasses.replace(moved, model="hierarchical_dawid_skene"), em) == []
