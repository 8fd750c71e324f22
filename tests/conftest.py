"""Shared test settings.

Hypothesis runs derandomised, so a property test gives the same examples on every run and CI
cannot flake; widen the search locally with ``--hypothesis-profile=explore``.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", deadline=None, max_examples=2000)
settings.load_profile("ci")
