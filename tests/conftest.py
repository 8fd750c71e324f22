"""Shared test settings.

Hypothesis runs derandomised, so a property test gives the same examples on every run and CI
cannot flake; widen the search locally with ``--hypothesis-profile=explore``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

from bayescal._compile_cache import CACHE_ENV

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
    process (the command's subprocesses too) shares it, and a fresh clone starts empty."""
    folder = tmp_path_factory.mktemp("compiled-samplers")
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if previous is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = previous
