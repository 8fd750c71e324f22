"""Shared test settings.

Hypothesis runs derandomised, so a property test gives the same examples on every run and CI
cannot flake; widen the search locally with ``--hypothesis-profile=explore``.
"""

import os
import warnings

import pytest
from hypothesis import HealthCheck, settings

from bayescal.bayes.compile_cache import CACHE_ENV

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, max_examples=2000)
settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _compiled_samplers_in_a_folder_of_this_run(tmp_path_factory):
    """Compiled samplers go to a folder of this test run, never the user's cache: every test
    process (the xdist workers and the command's subprocesses too) shares it, and a fresh
    clone starts empty.  The workers share it so that a layout is compiled once per run, not
    once per worker (the cache writes a file under a temporary name and renames it into
    place, so two workers storing the same sampler cannot corrupt it)."""
    run_folder = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker's base is a folder of the run's
        run_folder = run_folder.parent
    folder = run_folder / "compiled-samplers"
    folder.mkdir(exist_ok=True)
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if previous is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = previous


# The crowd of the crowds guide (docs/guides/crowds.md), fitted by the hierarchical model once
# for the tests that need it (tests/bayes/test_crowd_bayes.py, tests/test_docs.py): they share
# the xdist group tests.helpers.CROWD_FIT_GROUP (``--dist loadgroup`` in the Makefile), so one
# process fits it.
@pytest.fixture(scope="session")
def crowd_of_30():
    import bayescal as bc

    return bc.simulate_crowd(1500, 30, labels_per_item=3, seed=11)


@pytest.fixture(scope="session")
def crowd_of_30_fit(crowd_of_30):
    import bayescal as bc

    # The defaults but for the chains: 2 x (1000 + 2000) at target acceptance 0.99, with no
    # sampler warning, at half the cost of the defaults' 4 (notebook 06 fits this crowd at the
    # defaults, and its stored output, which the notebook test compares, warns of nothing).
    # Its odd workers are named as crowd_em names them: the adversarial one, the constant ones,
    # the random ones (w005, w023 and w024; under the spread's HalfNormal(1.5) prior of before
    # issue 38, the posterior named w017 too).
    two_chains = bc.SamplerSettings(num_chains=2, progress=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = bc.fit_bayes(crowd_of_30.data, model="hierarchical_dawid_skene", sampler=two_chains)
    lines = [str(w.message) for w in caught]
    assert [w.category for w in caught] == [bc.ChannelWarning] * 3, lines
    assert "annotator w012 is estimated adversarial" in lines[0]
    assert "annotators w005, w023 and w024 are indistinguishable from random" in lines[1]
    assert "annotators w016 and w027 are constant" in lines[2]
    return fit


@pytest.hookimpl(tryfirst=True)  # before xdist names each item's group from its markers
def pytest_collection_modifyitems(config, items):
    """The tests that share a module-scoped fixture run in one process: ``--dist loadgroup``
    would otherwise send them to both workers, and each would build the fixture (a fit of up to
    45 s) once.  A test already in a group keeps it (xdist joins several groups' names into a
    new one)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        fixtures = getattr(item, "_fixtureinfo", None)
        if fixtures is None:  # doctests
            continue
        if any(
            definition.scope == "module"
            for definitions in fixtures.name2fixturedefs.values()
            for definition in definitions
        ):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
