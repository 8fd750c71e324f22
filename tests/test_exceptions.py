"""One module holds every error and warning class, and the top level re-exports them all."""

import pytest

import bayescal as bc
from bayescal import exceptions


@pytest.mark.parametrize("name", exceptions.__all__)
def test_every_error_and_warning_is_reexported_at_top_level(name):
    assert getattr(bc, name) is getattr(exceptions, name)
    assert name in bc.__all__
    assert issubclass(getattr(exceptions, name), ValueError | UserWarning)


def test_no_other_module_defines_an_exception_class():
    import ast
    import pathlib

    package = pathlib.Path(bc.__file__).parent
    defined = {}
    for path in [*package.rglob("*.py"), *(package.parent / "models").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id.endswith(("Error", "Warning", "Exception"))
                for base in node.bases
            ):
                defined[node.name] = path.name
    assert set(defined.values()) == {"exceptions.py"}


def test_a_map_used_before_fit_raises_not_fitted_error():
    with pytest.raises(bc.NotFittedError, match="this PlattScaling is not fitted yet") as raised:
        bc.recalibration.PlattScaling().predict([0.5])
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, AttributeError)


def test_names_that_moved_to_exceptions_still_resolve_with_a_deprecation_warning():
    import bayescal.channels

    with pytest.warns(
        DeprecationWarning,
        match=r"bayescal\.channels\.IdentificationError is bayescal\.exceptions\.IdentificationError",
    ):
        moved = bayescal.channels.IdentificationError
    assert moved is bc.IdentificationError
    with pytest.raises(
        AttributeError, match=r"module 'bayescal\.channels' has no attribute 'nothing'"
    ):
        bayescal.channels.nothing  # noqa: B018


def test_recorded_warnings_keeps_each_shown_warning_once_and_still_shows_it():
    import warnings

    from bayescal._api import recorded_warnings
    from bayescal.exceptions import BinningWarning, ChannelWarning

    shown = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *rest: shown.append(str(message))
        with recorded_warnings() as lines:
            for _ in range(2):
                warnings.warn("too many bins", BinningWarning, stacklevel=1)
            warnings.warn("an odd annotator", ChannelWarning, stacklevel=1)
        warnings.warn("after the block", ChannelWarning, stacklevel=1)
    assert lines == ["too many bins (BinningWarning)", "an odd annotator (ChannelWarning)"]
    assert shown == ["too many bins", "too many bins", "an odd annotator", "after the block"]
