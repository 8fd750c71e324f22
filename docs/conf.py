"""Sphinx configuration of bayescal's documentation (``make docs``).

Sphinx with the PyData theme and numpydoc, as ArviZ, NumPyro and scikit-learn use: the
docstrings are numpydoc already, and the API pages are generated from them.  Guides are
Markdown (MyST); the notebooks are rendered from their stored outputs, never re-run here
(``make test`` executes them).  The build is strict: ``-W -n`` turns every warning, a broken
cross-reference included, into an error.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bayescal import __version__  # noqa: E402

project = "bayescal"
author = "the bayescal developers"
copyright = "2026, the bayescal developers"
release = __version__
version = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}

# The notebooks are shown as stored: ``make test`` runs them and checks their outputs.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# numpydoc renders the docstrings; the signatures carry no type annotations, whose names
# (numpy, pandas, jax types) would be references the offline build cannot resolve.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False
numpydoc_xref_param_type = False

# Strict: every bayescal name referred to must be documented.  Names of other projects are not
# linked (the build is offline: no intersphinx), so their references are ignored by pattern.
nitpicky = True
nitpick_ignore = [
    ("py:class", "bayescal._api.Result"),  # the private base of result classes
]
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|np|pandas|pd|scipy|jax|jnp|numpyro|arviz|az|xarray|matplotlib|dask|distributed|concurrent|pathlib|os|typing|collections|datetime|numbers|enum|dataclasses)(\..*)?",
    ),
    (
        r"py:.*",
        r"(int|float|str|bool|dict|list|tuple|callable|object|None|type|Exception|Warning|UserWarning|RuntimeWarning|DeprecationWarning|ValueError|TypeError|KeyError|FileExistsError|OSError)",
    ),
]

html_theme = "pydata_sphinx_theme"
html_title = f"bayescal {version}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = []
html_last_updated_fmt = None

#: The API pages: the top level, then one page per folder in the import order, each listing the
#: folder's public names (its ``__all__``) that the top level does not already hold.
API_FOLDERS = {
    "metrics": "Metrics against clean labels",
    "data": "Data: annotated scores, cells, responses, tables",
    "channels": "Channels and their frequentist estimators",
    "correction": "Noise correction and the calibration test",
    "simulate": "Simulation",
    "recalibration": "Recalibration",
    "bayes": "Bayesian fits",
    "studies": "Studies",
    "report": "Reports and figures",
    "app": "The analysis and the command line",
    "models": "The NumPyro programs",
}


def _api_page(folder: str, title: str) -> str:
    """The MyST source of one folder's API page."""
    import importlib

    import bayescal

    module = importlib.import_module(f"bayescal.{folder}")
    names = [name for name in getattr(module, "__all__", ()) if name not in bayescal.__all__]
    also = sorted(set(getattr(module, "__all__", ())) & set(bayescal.__all__))
    lines = [f"# `bayescal.{folder}`: {title}", ""]
    if also:
        listed = ", ".join(f"{{py:obj}}`~bayescal.{name}`" for name in also)
        lines += [f"Also here, and documented at the top level: {listed}.", ""]
    lines += [
        "```{eval-rst}",
        f".. automodule:: bayescal.{folder}",
        "   :no-members:",
        "",
    ]
    for name in names:
        kind = "autoclass" if isinstance(getattr(module, name), type) else "autofunction"
        if not callable(getattr(module, name)):
            kind = "autodata"
        lines.append(f".. {kind}:: bayescal.{folder}.{name}")
    lines += ["```", ""]
    modules = _modules(module)
    if modules:
        lines += ["## Its modules", "", "```{eval-rst}"]
        for name in modules:
            # a module named as its function (models.hierarchical_dawid_skene) is not indexed
            twin = name.rpartition(".")[2] in names
            lines += [f".. automodule:: {name}", "   :no-members:"]
            lines += ["   :no-index:", ""] if twin else [""]
        lines += ["```", ""]
    return "\n".join(lines)


def _modules(package) -> list[str]:
    """The modules of a folder, private ones included (their docstrings say what each holds)."""
    import pkgutil

    if not hasattr(package, "__path__"):
        return []
    return [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]


def _write_api_pages(app) -> None:
    """Write ``api/<folder>.md`` (generated: never edited by hand, not kept in git)."""
    folder_pages = pathlib.Path(app.srcdir) / "api"
    for folder, title in API_FOLDERS.items():
        page = folder_pages / f"{folder}.md"
        text = _api_page(folder, title)
        if not page.exists() or page.read_text() != text:
            page.write_text(text)


def _lookup(dotted: str):
    """The object a dotted name names (a module, then attributes), or ``None``."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except (ImportError, ValueError):
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute, None)
            if obj is None:
                return None
        return obj
    return None


def _documented(env) -> dict:
    """Each documented bayescal object (by ``id``) -> its documented full name."""
    found = {}
    for name, entry in env.get_domain("py").objects.items():
        obj = _lookup(name)
        if entry.objtype != "module" and obj is not None:
            found.setdefault(id(obj), name)
    return found


def _contexts(node) -> list[str]:
    """Where a short name in a reference may live: the page's module and class, and the
    object whose docstring holds the reference, with its enclosing class and module."""
    module, cls = node.get("py:module"), node.get("py:class")
    contexts = [c for c in (module and cls and f"{module}.{cls}", module) if c]
    source = str(node.source or "")
    if "docstring of " in source:
        owner = source.rpartition("docstring of ")[2].split(":")[0].split(".")
        contexts += [".".join(owner[:cut]) for cut in range(len(owner), 0, -1)]
    return [*contexts, "bayescal"]


#: The documented objects of this build (:func:`_documented`), made at the first reference.
_DOCUMENTED: dict = {}


def _resolve_bayescal(app, env, node, contnode):
    """Resolve a reference to a bayescal object by the object it names, wherever it is
    documented: ``bayescal.correction.known_channels.corrected_labels`` (its module path) and
    ``corrected_labels`` (a short name in a docstring) are ``bayescal.correction.corrected_labels``
    on its folder's page.  A real object no page shows (a module's helper) is named without a
    link; a name that is no object stays broken, and the strict build fails."""
    from sphinx.util.nodes import make_refnode

    if node.get("refdomain") != "py" or node["reftype"] == "mod":
        return None
    target = node["reftarget"].lstrip("~.")
    candidates = [target] if target.startswith("bayescal.") else []
    candidates += [f"{context}.{target}" for context in _contexts(node)]
    if _DOCUMENTED.get("env") is not env:
        # keyed by id(): valid in this process only, so never kept on the pickled environment
        _DOCUMENTED.update(env=env, names=_documented(env))
    for candidate in candidates:
        obj = _lookup(candidate)
        if obj is None:
            continue
        name = _DOCUMENTED["names"].get(id(obj))
        if name is None:  # a real object the API pages do not show (a module's helper)
            return contnode
        docname = env.get_domain("py").objects[name].docname
        return make_refnode(app.builder, node["refdoc"], docname, name, contnode, name)
    return None


def setup(app):
    app.connect("builder-inited", _write_api_pages)
    app.connect("missing-reference", _resolve_bayescal)
