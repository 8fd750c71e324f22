"""Guards of the architecture in DESIGN.md §1 and §8."""

import ast
import pathlib
import re
import subprocess
import sys

import pytest

import bayescal

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEAVY = ("numpyro", "arviz", "matplotlib", "dask", "numba")


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
        "from bayescal.app.cli import main\n"
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
    assert out == "bayescal.bayes.fit"


def test_unknown_top_level_names_raise_attribute_error():
    import bayescal

    with pytest.raises(
        AttributeError, match=r"module 'bayescal' has no attribute 'fit_frequentist'"
    ):
        bayescal.fit_frequentist  # noqa: B018


def test_plotting_imports_matplotlib_only_when_drawing():
    # (checks and sensitivity import ArviZ, which imports matplotlib itself; plotting must not.)
    code = "import sys, bayescal.report.plotting; print('matplotlib' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "False"
    )


# --- The folders are the layers (DESIGN.md §1): imports point down only, with no cycle ------------

#: The private base every folder uses (top-level files of the package), bottom first.
BASE = ["_version", "exceptions", "_api", "_validation", "_html"]
#: The folders, bottom first: a module may import its own folder, the base, and the folders
#: listed before its own (function-level imports included).  ``models`` is the top-level
#: directory of NumPyro programs, shipped as ``bayescal.models``.
FOLDERS = [
    "metrics",
    "data",
    "channels",
    "correction",
    "simulate",
    "recalibration",
    "models",
    "bayes",
    "studies",
    "report",
    "app",
]
#: Numerical cores: no plotting, no files, no printing, no argv.
CORE_FOLDERS = ("metrics", "data", "channels", "correction", "simulate", "recalibration")
#: ... except the module that reads the tables users bring.
READERS = ("bayescal.data.tables",)
#: Only these folders import the Bayesian stack (JAX, NumPyro, ArviZ) ...
BAYESIAN_STACK = {"jax", "jaxlib", "numpyro", "arviz"}
BAYESIAN_FOLDERS = ("models", "bayes", "studies")
#: ... matplotlib ...
PLOTTING_FOLDERS = ("report",)
#: ... a cluster (studies that outgrow one machine) ...
CLUSTER_FOLDERS = ("studies",)
#: ... and Numba (the compiled metric kernels).
NUMBA_MODULES = ("bayescal.metrics._compiled_kernels",)


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


def _folder(module: str) -> str:
    """The folder (layer) of a module: its first part below ``bayescal``; a base file is its own
    folder, and the package's ``__init__`` is the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "bayescal"


RANK = {name: i for i, name in enumerate([*BASE, *FOLDERS, "bayescal"])}


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


def _third_party(module: str) -> set[str]:
    """The top-level packages a module imports, function level included."""
    tree = ast.parse(FILES[module].read_text())
    return {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }


def test_the_package_holds_the_base_and_the_folders_only():
    entries = {path.name for path in (ROOT / "bayescal").iterdir() if path.name != "__pycache__"}
    expected = {f"{name}.py" for name in BASE} | set(FOLDERS) - {"models"} | {"__init__.py"}
    assert entries == expected
    assert len(entries) <= 16
    assert {_folder(module) for module in FILES} == set(RANK)
    # the package's own list (bayescal.<folder> is an attribute) is this order
    assert list(bayescal._FOLDERS) == [folder for folder in FOLDERS if folder != "models"]


def test_imports_point_down_the_folder_order():
    upward = [
        f"{importer} -> {imported}"
        for importer in FILES
        for imported, _ in _edges(importer)
        if RANK[_folder(imported)] > RANK[_folder(importer)]
    ]
    assert upward == []


def test_the_imports_have_no_cycle():
    """Between modules, function-level imports included; a module inside a package may import
    its package while that initialises, and a package its own modules."""
    graph = {
        importer: {
            imported
            for imported, _ in _edges(importer)
            if imported != importer
            and not importer.startswith(imported + ".")
            and imported in FILES
        }
        for importer in FILES
    }
    done, path = set(), []

    def visit(module):
        if module in path:
            raise AssertionError(" -> ".join([*path[path.index(module) :], module]))
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph[module]):
            visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_no_private_name_is_imported_across_folders():
    """An underscore means private to its folder: what another folder needs is public there.
    The base files at the top of the package are everyone's."""
    private = [
        f"{importer}: from {imported} import {', '.join(names) or '*'}"
        for importer in FILES
        for imported, names in _edges(importer)
        if _folder(imported) != _folder(importer)
        and _folder(imported) not in BASE
        and (
            any(part.startswith("_") for part in imported.split("."))
            or any(name.startswith("_") and name != "__version__" for name in names)
        )
    ]
    assert private == []


@pytest.mark.parametrize("module", sorted(FILES))
def test_the_heavy_stack_stays_in_its_folders(module):
    imported = _third_party(module)
    folder = _folder(module)
    if folder not in BAYESIAN_FOLDERS:
        assert imported & BAYESIAN_STACK == set()
    if folder not in PLOTTING_FOLDERS:
        assert "matplotlib" not in imported
    if folder not in CLUSTER_FOLDERS:
        assert imported & {"dask", "distributed"} == set()
    if module not in NUMBA_MODULES:
        assert "numba" not in imported


@pytest.mark.parametrize(
    "module",
    sorted(m for m in FILES if _folder(m) in CORE_FOLDERS and m not in READERS),
)
def test_numerical_cores_do_no_io_or_plotting(module):
    path = FILES[module]
    assert not _third_party(module) & {"matplotlib", "sys", "argparse", "os", "pathlib"}
    calls = {
        node.func.id
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not calls & {"print", "open", "input"}


FIRST_NUMPYRO_IMPORT = """
import importlib, importlib.abc, sys, traceback

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "numpyro":
            stack = [frame.filename for frame in traceback.extract_stack()]
            print("through the stack" if any(f.endswith("models/stack.py") for f in stack) else stack)
            sys.meta_path.remove(self)

sys.meta_path.insert(0, Watch())
importlib.import_module(sys.argv[1])
"""


@pytest.mark.parametrize(
    "module",
    ["bayescal.models", "bayescal.bayes.fit", "bayescal.bayes.sampler", "bayescal.studies.sbc"],
)
def test_numpyro_is_first_imported_through_the_stack_module(module):
    """NumPyro's import warns in Jupyter without ipywidgets (tqdm.auto); bayescal.models.stack
    imports it with that notice filtered, so its first import must pass there, whichever
    module is imported first (the fit's model checks once imported the models before it)."""
    run = subprocess.run(
        [sys.executable, "-c", FIRST_NUMPYRO_IMPORT, module],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "through the stack"


def test_only_the_stack_module_imports_numpyro_or_arviz_at_module_level():
    """The package takes NumPyro and ArviZ from bayescal.models.stack, which models/ imports
    before its programs import NumPyro."""
    for path in sorted((ROOT / "bayescal").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            assert not any(n.split(".")[0] in {"numpyro", "arviz"} for n in names), (
                f"{path.relative_to(ROOT)}:{node.lineno} imports {names} (use bayescal.models.stack)"
            )
    first = ast.parse((ROOT / "models" / "__init__.py").read_text()).body
    relative = [node for node in first if isinstance(node, ast.ImportFrom) and node.level > 0]
    assert relative[0].module is None and [a.name for a in relative[0].names] == ["stack"]


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
        "import sys\nfrom bayescal.app.cli import main\n"
        "try:\n    code = main(sys.argv[1:])\nexcept SystemExit as stop:\n    code = stop.code\n"
        "heavy = sorted(m for m in ('jax', 'numpyro', 'arviz', 'matplotlib.pyplot') if m in sys.modules)\n"
        "print(code, heavy, file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, *arguments], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.stderr.strip().splitlines()[-1] == f"{exit_code} []", run.stderr


def test_user_facing_text_cites_papers_not_files_users_do_not_have():
    """The library's text (docstrings, comments, messages) cites papers, its own modules and
    benchmarks/RESULTS.md, never what a user does not have: the team's design notes and seeds,
    its issue tracker, its sessions (a report once said "seeds/003 fields"; docstrings cited
    "issue 17" 24 times and "DESIGN §4" 9 times)."""
    private = re.compile(r"seeds/|DESIGN|BAD_INPUTS|shared/|\b[Ii]ssue \d+|\b[Ss]ession\b")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _python_files("bayescal", "models")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert found == []


def test_no_blanket_warning_filter_in_the_library():
    """A filter names the category it silences (``_api.silenced``, or ``simplefilter`` and
    ``filterwarnings`` with a category or a message): ``simplefilter("ignore")`` alone hid
    numerical warnings too."""
    blanket = []
    for path in sorted((ROOT / "bayescal").rglob("*.py")) + sorted((ROOT / "models").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("simplefilter", "filterwarnings")
                and getattr(node.func.value, "id", None) == "warnings"
            ):
                continue
            keywords = {keyword.arg for keyword in node.keywords}
            named = len(node.args) >= 2 or keywords & {"category", "message"}
            if not named:
                blanket.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert blanket == []


def test_silenced_silences_the_named_categories_only():
    import warnings

    from bayescal._api import silenced
    from bayescal.exceptions import ChannelWarning, ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with silenced(ChannelWarning):
            warnings.warn("odd worker", ChannelWarning, stacklevel=1)
            warnings.warn("slow", ConvergenceWarning, stacklevel=1)
            warnings.warn("divide by zero", RuntimeWarning, stacklevel=1)
    assert [w.category for w in caught] == [ConvergenceWarning, RuntimeWarning]
    for categories in ((), (Warning,)):
        with pytest.raises(ValueError, match="never Warning itself"), silenced(*categories):
            pass
