"""The API conventions of DESIGN.md §1, checked over every public name (CHANGELOG.md, 0.2).

Public names are those in the ``__all__`` of the modules users import (and the names the top
level reaches lazily); public methods are their classes' attributes without a leading
underscore.
"""

import ast
import dataclasses
import importlib
import inspect
import pathlib
import re

import pytest

import bayescal as bc
import bayescal.channels
import bayescal.metrics.agreement
import bayescal.metrics.record
from bayescal._api import DEFAULT_FIT_BINS, DEFAULT_LEVEL, DEFAULT_N_BINS, abbreviated

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The package and its folders: each folder's ``__all__`` is its public face (its modules'
#: other names serve the folders above it).
PUBLIC_MODULES = [
    "bayescal",
    *sorted(f"bayescal.{path.parent.name}" for path in (ROOT / "bayescal").glob("*/__init__.py")),
]

#: Classes a user builds with options; the other public classes are results bayescal builds.
INPUTS = {
    "AnnotatedScores",
    "Channels",
    "Priors",
    "ClassPriors",
    "SamplerSettings",
    "TemperatureScaling",
    "PlattScaling",
    "HistogramBinning",
}


def _public_objects() -> dict:
    found = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        names = list(getattr(module, "__all__", ())) + (list(bc._LAZY) if module is bc else [])
        for name in names:
            obj = getattr(module, name)
            if callable(obj) and not (isinstance(obj, type) and issubclass(obj, BaseException)):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


PUBLIC = _public_objects()
FUNCTIONS = {name: obj for name, obj in PUBLIC.items() if inspect.isfunction(obj)}
CLASSES = {name: obj for name, obj in PUBLIC.items() if isinstance(obj, type)}
METHODS = {
    # classmethods bound (no cls in the signature); plain methods as functions (self dropped below)
    f"{name}.{attribute}": getattr(cls, attribute)
    if isinstance(method, classmethod | staticmethod)
    else method
    for name, cls in CLASSES.items()
    for attribute, method in vars(cls).items()
    if not attribute.startswith("_") and inspect.isfunction(inspect.unwrap(method))
}
CONSTRUCTORS = {name: cls for name, cls in CLASSES.items() if cls.__name__ in INPUTS}
CALLABLES = {**FUNCTIONS, **METHODS, **CONSTRUCTORS}


def _parameters(obj):
    parameters = list(inspect.signature(obj).parameters.values())
    return [p for p in parameters if p.name not in ("self", "cls")]


def test_the_public_surface_was_found():
    assert len(FUNCTIONS) > 60 and len(METHODS) > 30 and len(CONSTRUCTORS) == len(INPUTS)


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_options_are_keyword_only(name):
    positional_options = [
        p.name
        for p in _parameters(CALLABLES[name])
        if p.default is not p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    assert positional_options == []


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_one_name_and_one_default_for_levels_and_bins(name):
    parameters = {p.name: p for p in _parameters(CALLABLES[name])}
    assert "interval" not in parameters, "the probability of an interval is called level"
    if "level" in parameters:
        assert parameters["level"].default in (DEFAULT_LEVEL, parameters["level"].empty)
    if "n_bins" in parameters:
        # None: the bins of the data (cells keep theirs; otherwise DEFAULT_N_BINS)
        assert parameters["n_bins"].default in (DEFAULT_N_BINS, None, parameters["n_bins"].empty)
    if "fit_bins" in parameters:
        assert parameters["fit_bins"].default in (DEFAULT_FIT_BINS, parameters["fit_bins"].empty)


@pytest.mark.parametrize("name", sorted(FUNCTIONS) + sorted(METHODS))
def test_data_come_first(name):
    names = [p.name for p in _parameters(CALLABLES[name])]
    if "data" in names:
        assert names[0] == "data"
    if "fit" in names:
        for data in ("data", "fit_data", "eval_data"):
            if data in names:
                assert names.index(data) < names.index("fit")
    if "y_true" in names:
        assert names.index("y_true") == min(
            names.index(n) for n in ("y_true", "y_pred", "y_prob") if n in names
        )
    assert not {"scores", "annotations"} <= set(names), "annotated data come as one data argument"


@pytest.mark.parametrize("name", sorted(FUNCTIONS) + sorted(METHODS))
def test_names_say_what_comes_back(name):
    returned = inspect.signature(CALLABLES[name]).return_annotation
    if name.rsplit(".", 1)[-1].endswith(("_ece", "_error")):
        assert returned == "float"
    assert not str(returned).startswith("tuple"), "a NamedTuple, not a bare tuple"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_name_is_documented(name):
    assert (PUBLIC[name].__doc__ or "").strip()


RESULTS = {
    name: cls
    for name, cls in CLASSES.items()
    if dataclasses.is_dataclass(cls) and cls.__name__ not in INPUTS
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_have_their_own_one_line_repr(name):
    # The generated repr of a dataclass prints arrays, tables and nested results whole.
    assert not hasattr(RESULTS[name].__repr__, "__wrapped__")


@pytest.mark.parametrize(
    "name",
    [
        "Analysis",
        "BayesFit",
        "ChannelFit",
        "bayes.ModelChecks",
        "PosteriorECE",
        "bayes.PriorSensitivity",
    ],
)
def test_results_a_notebook_user_looks_at_render_their_tables(name):
    import bayescal

    found = bayescal
    for part in name.split("."):
        found = getattr(found, part)
    assert callable(getattr(found, "_repr_html_", None))


#: Callables whose signature changed in 0.2 (``old_spellings`` marks them).
CHANGED = {name: obj for name, obj in CALLABLES.items() if hasattr(obj, "old_spellings")}


def _call(name, *args, **kwargs):
    obj = CALLABLES[name]
    if name in CONSTRUCTORS:
        return obj.__init__(object(), *args, **kwargs)
    if name in METHODS:
        return obj(object(), *args, **kwargs)
    return obj(*args, **kwargs)


def test_the_changed_callables_were_found():
    assert len(CHANGED) > 40


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_an_old_positional_option_raises_a_type_error_naming_the_new_spelling(name):
    positional = [
        p
        for p in _parameters(CALLABLES[name])
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    with pytest.raises(TypeError, match=r"and its options by keyword since bayescal 0\.2"):
        _call(name, *[object()] * (len(positional) + 1))


RENAMED = [
    (name, old, new) for name, obj in CHANGED.items() for old, new in obj.old_spellings.items()
]


@pytest.mark.parametrize("name, old, new", RENAMED, ids=[f"{n}-{o}" for n, o, _ in RENAMED])
def test_a_renamed_keyword_raises_a_type_error_naming_the_new_one(name, old, new):
    with pytest.raises(
        TypeError, match=rf"the argument {old}= is called {new}= since bayescal 0\.2"
    ):
        _call(name, **{old: 0.5})


def test_names_moved_in_0_2_resolve_with_a_warning_naming_the_new_place():
    moves = [
        (bc, "nc_ece", bc.nc_ece_estimate),
        (bc, "posterior_ece", bc.nc_ece_posterior),
        (bc, "PatternCounts", bc.data.CellStatistics),
        (bayescal.metrics.agreement, "calibration_record", bayescal.metrics.calibration_record),
        (bayescal.channels, "grouped_em_counts", bc.grouped_em),
    ]
    for module, old, new in moves:
        with pytest.warns(DeprecationWarning, match=rf"{module.__name__}\.{old} is bayescal\."):
            assert getattr(module, old) is new


#: A numpydoc parameter line: "    name[, name] : type[, default value]".
PARAMETER_LINE = re.compile(r"^    (\*{0,2}\w+(?:, \*{0,2}\w+)*) : (.*)$")


def _documented_parameters(obj):
    """(names, literal default or None) of each line of the docstring's Parameters section."""
    lines = inspect.getdoc(obj).splitlines() if obj.__doc__ else []
    lines = [f"    {line}" for line in lines]  # getdoc removed the indent
    if "    Parameters" not in lines:
        return
    for line in lines[lines.index("    Parameters") + 2 :]:
        if line.strip() in ("Returns", "Raises", "Yields", "Attributes", "Notes", "Examples"):
            return
        match = PARAMETER_LINE.match(line)
        if match:
            names = [n.lstrip("*") for n in match.group(1).split(", ")]
            default = re.search(r"default (-?[\d.e+-]+|\"\w+\"|None|True|False)$", match.group(2))
            yield names, None if default is None else ast.literal_eval(default.group(1))


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_docstrings_name_the_parameters_and_defaults_the_signature_has(name):
    """A docstring that says ``interval`` or ``default 15`` after a rename is a wrong manual."""
    obj = CALLABLES[name]
    parameters = {p.name: p for p in _parameters(obj)}
    if isinstance(obj, type):
        obj = obj.__init__ if obj.__init__.__doc__ and "Parameters" in obj.__init__.__doc__ else obj
    for names, default in _documented_parameters(obj):
        for documented in names:
            assert documented in parameters, f"{documented} is documented but not a parameter"
            if default is not None and parameters[documented].default is not inspect._empty:
                assert parameters[documented].default == default, documented


def _package_dataclasses():
    import pkgutil

    found = {}
    for info in pkgutil.walk_packages(bc.__path__, "bayescal."):
        if info.name.startswith(("bayescal.app.cli", "bayescal.app.demo")):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


@pytest.mark.parametrize("name, cls", sorted(_package_dataclasses().items()))
def test_dataclasses_holding_arrays_compare_by_identity(name, cls):
    """``==`` of a generated ``__eq__`` on array fields raises ("truth value of an array is
    ambiguous") and ``hash`` raises: such dataclasses take ``eq=False`` (issue 16 item 14)."""
    holds_arrays = any(
        marker in str(field.type)
        for field in dataclasses.fields(cls)
        for marker in ("ndarray", "DataFrame")
    )
    if holds_arrays:
        assert not cls.__dataclass_params__.eq, f"{name} holds arrays: use eq=False"


def test_results_with_arrays_compare_and_hash_without_raising():
    curve = bc.metrics.reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.3], n_bins=2)
    moments = bc.metrics.calibration_moments([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.3], n_bins=2)
    again = bc.metrics.reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.3], n_bins=2)
    assert curve == curve and curve != again  # identity: equal arrays are compared by value
    assert moments == moments and len({curve, moments}) == 2


def test_no_public_name_is_also_a_submodule_name():
    """``bayescal.bayes.posterior_recalibration`` was a function the first time and its module the
    second: importing a submodule binds its name on the package, over the lazily loaded one."""
    import pkgutil

    submodules = {module.name for module in pkgutil.iter_modules(bc.__path__)}
    assert not submodules & set(bc.__all__)
    for name in bc.__all__:
        first = getattr(bc, name)
        importlib.import_module(getattr(first, "__module__", "bayescal") or "bayescal")
        assert getattr(bc, name) is first, name  # the same object when asked again


def test_a_crowds_names_are_abbreviated_to_the_first_few_and_a_count():
    assert abbreviated(["u", "v"], 2) == "u, v"
    assert abbreviated(["u", "v", "w"], 2) == "u, v and 1 more"
    assert abbreviated(("w0", "w1", "w2", "w3"), 1) == "w0 and 3 more"


def test_a_warning_names_its_annotators_in_words_with_the_verb_that_agrees():
    from bayescal._api import named_annotators

    assert named_annotators(["w012"]) == ("annotator w012", False)
    assert named_annotators(["w005", "w023", "w024"]) == ("annotators w005, w023 and w024", True)
    many = named_annotators([f"w{j}" for j in range(8)], count=3)
    assert many == ("8 annotators: w0, w1, w2 and 5 more", True)
    # a name holding a comma or " and " is quoted: the list stays readable
    assert named_annotators(["Smith, J.", "Lee and Co"]) == (
        "annotators 'Smith, J.' and 'Lee and Co'",
        True,
    )
