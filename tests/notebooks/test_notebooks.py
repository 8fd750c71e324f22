"""Every notebook in notebooks/ runs top to bottom without error (DESIGN.md §1)."""

import importlib
import pathlib

import nbformat
import pytest
from nbclient import NotebookClient

import bayescal

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    errors = [
        o
        for cell in notebook.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if o.output_type == "error"
    ]
    assert errors == []


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
