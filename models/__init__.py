"""NumPyro programs of bayescal, shipped as ``bayescal.models`` (DESIGN.md §1, §7).

This directory is mapped into the package by ``[tool.setuptools.package-dir]`` in
``pyproject.toml``; import it as ``bayescal.models``, never as ``models``.  It is the only
place where numpyro is imported at module level, and ``import bayescal`` does not import it.
The Dawid–Skene and Hui–Walter programs (``dawid_skene.py``, ``hui_walter.py``) are the
subject of the Bayesian-models issue and are not here yet.
"""
