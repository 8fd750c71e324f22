"""The version of bayescal (also in pyproject.toml; a test checks that the two agree)."""

__version__ = "0.2.0.dev0"
