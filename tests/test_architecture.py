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
    "_api",
    "_html",
    "data",
    "metrics",
    "correction",
    "estimation",
    "simulate",
    "recalibration/_solver",
    "recalibration/maps",
    "recalibration/workflow",
    "agreement",
    "record",
    "triage",
    "convergence",
    "cells",
    "summary",
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


def test_the_command_answers_help_and_argument_errors_without_the_heavy_stack():
    """Issue 15: ``bayescal --help`` and a bad argument answer at once; JAX is imported only
    when a command needs it (and the JAX flags set by the command still apply then)."""
    code = (
        "import sys\n"
        "from bayescal.cli import main\n"
        "for argv in (['--help'], ['fit', '--help'], ['fit', 'no-such.csv', '--chains', 'x']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print('loaded:', *sorted(m for m in sys.modules if m.split('.')[0] in {(*HEAVY, 'jax')!r}))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip().splitlines()[-1] == "loaded:"


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
        "assert 'numpyro' in sys.modules and callable(bayescal.nc_ece_posterior); print(f.__module__)"
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


# --- The layers of DESIGN.md §1: imports point down only, with no cycle ------------------------

#: Every module of the package, bottom first, layer by layer.  A module may import only modules
#: listed before it (its own layer's earlier entries and every layer below), so the graph is
#: acyclic by construction; a package (``__init__``) comes after its own modules.
LAYERS = {
    "1 foundations": [
        "_version",
        "exceptions",
        "_api",
        "_validation",
        "_html",
        "priors",
        "_compiled_kernels",
    ],
    "2 data and metrics": [
        "_kernels",
        "metrics",
        "convergence",
        "cells",
        "responses",
        "data",
        "_csv",
        "io",
        "agreement",
        "record",
        "triage",
    ],
    "3 channels": [
        "channels._base",
        "channels.difficulty",
        "channels.dependence",
        "channels.groups",
        "channels._odd",
        "channels.moments",
        "channels.gmm",
        "channels.em",
        "channels.crowd_em",
        "channels",
    ],
    "4 correction": [
        "_channel_screen",
        "_weight_rules",
        "_target_draws",
        "_response_moments",
        "correction",
        "_h0_posterior",
        "_calibration_layout",
        "_estimated_nulls",
        "significance",
        "estimation",
        "_model_choice",
        "_dependence_proposal",
        "simulate",
        "crowds",
        "recalibration._solver",
        "recalibration._base",
        "recalibration.maps",
        "recalibration.workflow",
        "recalibration",
    ],
    "5 Bayesian": [
        "_stack",
        "models._common",
        "models.dawid_skene",
        "models.hui_walter",
        "models.response_design",
        "models.hierarchical_dawid_skene",
        "models.shared_difficulty",
        "models",
        "_netcdf",
        "_prior_density",
        "bayes_fit",
        "_pattern_model",
        "model_comparison",
        "_compile_cache",
        "_sampler",
        "inference",
        "posterior",
        "posterior_maps",
        "_crowd_checks",
        "checks",
        "sensitivity",
    ],
    "6 studies, reports and the command": [
        "studies._executor",
        "studies.toy",
        "studies.coverage",
        "studies.sbc",
        "studies.checks",
        "studies.recalibration",
        "studies",
        "_fonts",
        "plotting",
        "_verdict",
        "summary",
        "report",
        "folders",
        "results",
        "analysis",
        "commands",
        "demo",
        "cli",
    ],
}
ORDER = ["bayescal." + name for layer in LAYERS.values() for name in layer] + ["bayescal"]


def _module_files() -> dict[str, pathlib.Path]:
    """Module name -> file, for the package and the NumPyro programs shipped as bayescal.models."""
    files = {}
    for base, prefix in ((ROOT / "bayescal", "bayescal"), (ROOT / "models", "bayescal.models")):
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join([prefix, *parts])] = path
    return files


FILES = _module_files()


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module name of ``from <module> import ...`` in module ``importer``."""
    if node.level == 0:
        return node.module
    package = importer if FILES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _edges(importer: str):
    """(imported module, imported names) of every import in a module, function level included;
    ``from package import submodule`` counts as an import of the submodule."""
    for node in ast.walk(ast.parse(FILES[importer].read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "bayescal":
                    yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(importer, node)
            if module.split(".")[0] != "bayescal":
                continue
            names = []
            for alias in node.names:
                if f"{module}.{alias.name}" in FILES:
                    yield f"{module}.{alias.name}", ()
                else:
                    names.append(alias.name)
            if names or not node.names:
                yield module, tuple(names)


def test_every_module_has_a_place_in_the_layers():
    assert sorted(set(FILES) - set(ORDER)) == []
    assert sorted(set(ORDER) - set(FILES)) == []


def test_imports_point_down_the_layers_only():
    rank = {name: i for i, name in enumerate(ORDER)}
    upward = [
        f"{importer} -> {imported}"
        for importer in FILES
        for imported, _ in _edges(importer)
        if imported != importer
        and rank[imported] > rank[importer]
        # a module inside a package may be imported while its package initialises
        and not importer.startswith(imported + ".")
    ]
    assert upward == []


def test_no_module_imports_another_module_s_private_names():
    private = [
        f"{importer}: from {imported} import {name}"
        for importer in FILES
        for imported, names in _edges(importer)
        for name in names
        if name.startswith("_") and name != "__version__" and imported != importer
    ]
    assert private == []


#: Layers 1 to 4 are numpy/scipy code: no Bayesian stack, plotting or cluster, even inside a
#: function (numba only in the compiled kernels).
BELOW_BAYES = [name for layer in list(LAYERS.values())[:4] for name in layer]


@pytest.mark.parametrize("module", BELOW_BAYES)
def test_lower_layers_never_import_the_heavy_stack(module):
    forbidden = {"numpyro", "jax", "arviz", "matplotlib", "dask", "distributed"}
    if module != "_compiled_kernels":
        forbidden.add("numba")
    tree = ast.parse(FILES["bayescal." + module].read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert imported & forbidden == set()


FIRST_NUMPYRO_IMPORT = """
import importlib, importlib.abc, sys, traceback

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "numpyro":
            stack = [frame.filename for frame in traceback.extract_stack()]
            print("through _stack" if any(f.endswith("_stack.py") for f in stack) else stack)
            sys.meta_path.remove(self)

sys.meta_path.insert(0, Watch())
importlib.import_module(sys.argv[1])
"""


@pytest.mark.parametrize(
    "module",
    ["bayescal.models", "bayescal._pattern_model", "bayescal.inference", "bayescal.studies.sbc"],
)
def test_numpyro_is_first_imported_through_the_stack_module(module):
    """NumPyro's import warns in Jupyter without ipywidgets (tqdm.auto); bayescal._stack
    imports it with that notice filtered, so its first import must pass there, whichever
    module is imported first (_pattern_model once imported the models before it)."""
    run = subprocess.run(
        [sys.executable, "-c", FIRST_NUMPYRO_IMPORT, module],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "through _stack"


def test_only_the_stack_module_imports_numpyro_or_arviz_at_module_level():
    """Elsewhere NumPyro and ArviZ come from bayescal._stack (models/ imports it first)."""
    allowed = {ROOT / "bayescal" / "_stack.py"}
    for path in sorted((ROOT / "bayescal").rglob("*.py")):
        if path in allowed:
            continue
        for node in ast.parse(path.read_text()).body:
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            assert not any(n.split(".")[0] in {"numpyro", "arviz"} for n in names), (
                f"{path.relative_to(ROOT)}:{node.lineno} imports {names} (use bayescal._stack)"
            )
    first = ast.parse((ROOT / "models" / "__init__.py").read_text()).body
    imports = [node for node in first if isinstance(node, (ast.Import, ast.ImportFrom))]
    relative = next(i for i, node in enumerate(imports) if getattr(node, "level", 0) > 0)
    assert any(
        isinstance(node, ast.Import) and node.names[0].name == "bayescal._stack"
        for node in imports[:relative]
    )


def test_warnings_find_the_callers_line_by_one_rule():
    """Every warning goes through _api.warn_caller, which walks past bayescal's frames; a
    hand-counted stacklevel breaks silently when a wrapper adds a frame."""
    for path in sorted((ROOT / "bayescal").rglob("*.py")) + sorted((ROOT / "models").rglob("*.py")):
        if path.name == "_api.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert not (
                    node.func.attr == "warn"
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "warnings"
                ), f"{path.relative_to(ROOT)}:{node.lineno} calls warnings.warn"


@pytest.mark.parametrize(
    "arguments, exit_code",
    [(["--help"], 0), (["fit", "--help"], 0), (["fit", "absent.csv", "--score", "s"], 2)],
)
def test_help_and_argument_errors_never_start_jax(arguments, exit_code, tmp_path):
    """Issue 15: ``bayescal --help`` and a bad command line answer at once (JAX, NumPyro and
    the plotting stack take seconds to import and are not needed to say what is wrong)."""
    code = (
        "import sys\nfrom bayescal.cli import main\n"
        "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as stop:\n    code = stop.code\n"
        "heavy = sorted(m for m in ('jax', 'numpyro', 'arviz', 'matplotlib.pyplot') if m in sys.modules)\n"
        "print(code, heavy, file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, *arguments], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.stderr.strip().splitlines()[-1] == f"{exit_code} []", run.stderr


def test_user_facing_text_cites_papers_not_files_users_do_not_have():
    """Issue 16 item 19: the report said "seeds/003 fields"; docstrings named DESIGN.md."""
    for path in _python_files("bayescal", "models"):
        text = path.read_text()
        for name in ("seeds/", "DESIGN.md", "BAD_INPUTS", "shared/"):
            assert name not in text, f"{path} names {name}"
