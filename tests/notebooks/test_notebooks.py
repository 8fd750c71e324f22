"""Every notebook in notebooks/ runs top to bottom without error (DESIGN.md §1) and shows what
the code prints today: its stored text outputs are those of a fresh run.

Run as a script (``make notebooks``), this module executes every notebook and stores its
outputs, the same way the test executes them.
"""

import importlib
import pathlib
import re
import sys
import tempfile

import nbformat
import pytest
from nbclient import NotebookClient

import bayescal

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
#: The kernel's file of a cell, which its warnings name: a new one in every run.
CELL_FILE = re.compile(r"\S*ipykernel_\d+[/\\]\d+\.py")
#: The line announcing a compilation, shown only when no earlier run stored the sampler: it
#: depends on the compile cache, not on the code.
COMPILING = re.compile(r"^bayescal: compiling the sampler .*\n", re.MULTILINE)


def executed(path: pathlib.Path, folder) -> nbformat.NotebookNode:
    """The notebook at ``path`` run top to bottom in a fresh kernel working in ``folder``."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    ).execute()
    return notebook


def shown(notebook) -> list[list[tuple[str, str]]]:
    """The text each code cell shows a reader: its streams (the pieces of one stream in a row
    joined, however the kernel sent them), its errors, and the plain text of its results and
    displays (figures compare by their size and axes, not their pixels)."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        texts = []
        for output in cell.outputs:
            if output.output_type == "stream":
                text = COMPILING.sub("", CELL_FILE.sub("<cell>", output.text))
                if not text:
                    continue
                if texts and texts[-1][0] == output.name:
                    texts[-1] = (output.name, texts[-1][1] + text)
                else:
                    texts.append((output.name, text))
            elif output.output_type == "error":
                texts.append(("error", f"{output.ename}: {output.evalue}"))
            elif "text/plain" in output.get("data", {}):
                texts.append(("text", output.data["text/plain"]))
        cells.append(texts)
    return cells


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
    for number, (printed, kept) in enumerate(zip(now, stored)):
        assert printed == kept, (
            f"{path.name}, code cell {number}: the stored output is not what the code prints "
            "today; run `make notebooks` to store a fresh run"
        )


def store_fresh_runs() -> None:
    """Execute every notebook and store its outputs (``make notebooks``)."""
    for path in NOTEBOOKS:
        print(f"running {path.name}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as folder:
            nbformat.write(executed(path, folder), path)


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


if __name__ == "__main__":
    store_fresh_runs()
