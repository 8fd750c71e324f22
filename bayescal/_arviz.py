"""ArviZ, imported without its import-time notice (for every module that uses it).

ArviZ 0.23 announces its 1.0 refactor with a ``FutureWarning`` on the first import of each day:
noise for bayescal's users, and an error where warnings are errors.  The message starts with a
newline, and a warning filter matches from the first character, hence the leading ``\\s*``.
"""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore", message=r"\s*ArviZ is undergoing a major refactor", category=FutureWarning
    )
    import arviz as az

__all__ = ["az"]
