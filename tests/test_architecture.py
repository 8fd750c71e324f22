"""Guards of the architecture in DESIGN.md §1 and §8."""

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEAVY = ("numpyro", "arviz", "matplotlib", "dask", "numba")
# Modules that must stay numerical: no plotting, no files, no printing, no argv.
CORES = (
    "_validation",
    "data",
    "metrics",
    "correction",
    "simulate",
    "recalibration",
    "agreement",
    "cells",
    "_kernels",
    "_compiled_kernels",
)
# io.py reads and writes files by design; it is kept out of CORES and holds no numerical code.


def test_import_bayescal_is_light():
    code = f"import sys, bayescal; print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == []


def test_import_bayescal_does_not_load_pandas_plotting():
    code = "import sys, bayescal; print('pandas.plotting' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "False"
    )


def test_models_are_imported_as_bayescal_models():
    import bayescal.models

    assert pathlib.Path(bayescal.models.__file__).resolve().parent == ROOT / "models"


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module


def _python_files(*folders):
    for folder in folders:
        yield from (ROOT / folder).rglob("*.py")


def test_nothing_imports_the_top_level_name_models():
    offenders = [
        str(p)
        for p in _python_files("bayescal", "models", "tests")
        if any(m == "models" or m.startswith("models.") for m in _imports(p))
    ]
    assert offenders == []


@pytest.mark.parametrize("module", CORES)
def test_numerical_cores_do_no_io_or_plotting(module):
    path = ROOT / "bayescal" / f"{module}.py"
    imported = set(_imports(path))
    assert not imported & {"matplotlib", "matplotlib.pyplot", "sys", "argparse", "os", "pathlib"}
    calls = {
        node.func.id
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not calls & {"print", "open", "input"}


def test_no_global_random_state_or_jax_config_at_import():
    code = (
        "import numpy as np; before = np.random.get_state()[1].copy(); import bayescal;"
        "after = np.random.get_state()[1]; print(bool((before == after).all()))"
    )
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "True"
    )
    sources = "".join(p.read_text() for p in _python_files("bayescal", "models"))
    assert "np.random.seed(" not in sources and "jax.config.update" not in sources


def test_bayesian_entry_points_are_reached_lazily():
    code = (
        "import sys, bayescal; assert 'numpyro' not in sys.modules; f = bayescal.fit_bayes; "
        "assert 'numpyro' in sys.modules and callable(bayescal.posterior_ece); print(f.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "bayescal.inference"


def test_unknown_top_level_names_raise_attribute_error():
    import bayescal

    with pytest.raises(
        AttributeError, match=r"module 'bayescal' has no attribute 'fit_frequentist'"
    ):
        bayescal.fit_frequentist  # noqa: B018


def test_plotting_imports_matplotlib_only_when_drawing():
    # (checks and sensitivity import ArviZ, which imports matplotlib itself; plotting must not.)
    code = "import sys, bayescal.plotting; print('matplotlib' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "False"
    )
