"""Every notebook in notebooks/ runs top to bottom without error (DESIGN.md §1) and shows what
the code prints today: its stored text outputs are those of a fresh run, compared as
tests/shown_outputs.py states (exactly on the stack that stored them; ``make outputs`` stores a
fresh run)."""

import importlib

import nbformat
import pytest

import bayescal
from tests.shown_outputs import NOTEBOOKS, drift, executed, shown, stack_change


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_and_shows_what_is_stored(path, tmp_path):
    notebook = executed(path, tmp_path)
    now, stored = shown(notebook), shown(nbformat.read(path, as_version=4))
    errors = [text for cell in now for kind, text in cell if kind == "error"]
    assert errors == []
    assert len(now) == len(stored)
    change = stack_change()
    for number, (printed, kept) in enumerate(zip(now, stored)):
        assert [kind for kind, _ in printed] == [kind for kind, _ in kept], (
            f"{path.name}, code cell {number}: other kinds of output than are stored"
        )
        for (_, said), (_, text) in zip(printed, kept):
            why = drift(said, text, exact=not change)
            assert not why, (
                f"{path.name}, code cell {number} {why}: run `make outputs` to store a fresh run"
                + (f" (the stored outputs were made on another stack: {change})" if change else "")
            )


PUBLIC_MODULES = {
    "bayescal",
    "bayescal.channels",
    "bayescal.data",
    "bayescal.metrics",
    "bayescal.report",
    "bayescal.studies",
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_call_only_the_public_api(path):
    """No private names (a leading underscore) and imports only from bayescal's public modules."""
    import ast

    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(cell.source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                dunder = node.attr.startswith("__") and node.attr.endswith("__")
                assert dunder or not node.attr.startswith("_"), (
                    f"{path.name}: private attribute {node.attr!r}"
                )
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("bayescal")
            ):
                assert node.module in PUBLIC_MODULES, f"{path.name}: imports from {node.module}"
                assert not any(alias.name.startswith("_") for alias in node.names)
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "bc"
            ):
                public = set(bayescal.__all__) | set(bayescal._FOLDERS)
                assert node.attr in public, f"{path.name}: bc.{node.attr} is not public"
            if (  # bc.<folder>.<name>: public in its folder
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "bc"
                and node.value.attr in bayescal._FOLDERS
            ):
                folder = importlib.import_module(f"bayescal.{node.value.attr}")
                assert node.attr in folder.__all__, (
                    f"{path.name}: bc.{node.value.attr}.{node.attr} is not public"
                )
