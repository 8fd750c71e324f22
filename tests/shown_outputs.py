"""The outputs the README, the getting-started page and the notebooks show: how a test compares
them with what the code prints today, and how ``make outputs`` stores a fresh run of them.

What is compared, and how closely
---------------------------------
Every draw is seeded, so one numerical stack (the versions of JAX, jaxlib, NumPyro, NumPy,
SciPy and Numba, on one kind of processor) prints the same text on every run.  ``make outputs``
records the stack that made the stored outputs in ``tests/shown_outputs.json``.

* **On that stack, everything is compared exactly**, character by character: a changed number,
  word or column is drift, and the test asks for ``make outputs``.
* **On another stack** (a new JAX release draws other numbers from the same seed), the words
  and the layout are still compared exactly, runs of spaces aside (a table's columns widen
  with its numbers); each number may move by the Monte Carlo tolerance ``NUMBER_TOLERANCE``:
  ``|printed - stored| <= 0.01 + 0.1 |stored|``, the spread of posterior medians, intervals,
  predictive p-values, R-hat and effective sample sizes between two samplers' runs.  One
  number is not compared at all: the **sampled-posterior p** of the pattern-count check,
  computed from a single posterior draw, which may take any value between 0 and 1.  A
  conclusion in words that flips with the draws (near a threshold) then fails the test, which
  names the stack change.
"""

import json
import math
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
from importlib import metadata

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The numerical stack that made the stored outputs (written by ``make outputs``).
STACK_FILE = ROOT / "tests" / "shown_outputs.json"
#: The packages whose versions decide the sampled numbers.
STACK_PACKAGES = ("jax", "jaxlib", "numpyro", "numpy", "scipy", "numba")
#: ``(absolute, relative)``: how far a number may move on another stack.
NUMBER_TOLERANCE = (0.01, 0.1)
#: A number standing alone (digits inside a word, as in ``w012``, are part of the word).
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
#: The p-value of one posterior draw, written ``p = 0.383`` or ``p < 0.001``: any value is
#: the same output.
SINGLE_DRAW_P = re.compile(r"(sampled-posterior p )(?:= |< )\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def numerical_stack() -> dict[str, str]:
    """The versions (and the processor) the seeded draws depend on."""
    stack = {"machine": platform.machine()}
    for package in STACK_PACKAGES:
        try:
            stack[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            stack[package] = "not installed"
    return stack


def stored_stack() -> dict[str, str]:
    """The stack that made the stored outputs (empty when none is recorded)."""
    return json.loads(STACK_FILE.read_text()) if STACK_FILE.is_file() else {}


def record_stack() -> None:
    STACK_FILE.write_text(json.dumps(numerical_stack(), indent=1, sort_keys=True) + "\n")


def stack_change() -> str:
    """``""`` on the stack that stored the outputs; else what differs, in one line."""
    now, then = numerical_stack(), stored_stack()
    changed = [
        f"{name} {then.get(name, '?')} -> {now[name]}"
        for name in now
        if then.get(name) != now[name]
    ]
    return ", ".join(changed)


def _close(printed: str, stored: str) -> bool:
    absolute, relative = NUMBER_TOLERANCE
    return math.fabs(float(printed) - float(stored)) <= absolute + relative * math.fabs(
        float(stored)
    )


def drift(printed: str, stored: str, *, exact: bool) -> str:
    """Why ``printed`` is not the stored output ``stored`` (``""`` when it is).

    ``exact`` compares character by character; otherwise words and layout exactly (runs of
    spaces aside), numbers within ``NUMBER_TOLERANCE`` and a single draw's p not at all (the
    module's docstring says why)."""
    if exact:
        if printed == stored:
            return ""
        for line_printed, line_stored in zip(printed.splitlines(), stored.splitlines()):
            if line_printed != line_stored:
                return f"prints {line_printed!r} where {line_stored!r} is stored"
        return "prints a different number of lines"

    def parts(text):
        text = re.sub(r"[ \t]+", " ", SINGLE_DRAW_P.sub(r"\1<one draw>", text))
        return NUMBER.split(text), NUMBER.findall(text)

    (words_printed, numbers_printed), (words_stored, numbers_stored) = parts(printed), parts(stored)
    if words_printed != words_stored:
        for said, kept in zip(words_printed, words_stored):
            if said != kept:
                return f"says {said!r} where {kept!r} is stored"
        return "says more or less than is stored"
    for said, kept in zip(numbers_printed, numbers_stored):
        if not _close(said, kept):
            return f"prints {said} where {kept} is stored (beyond the tolerance)"
    return ""


# -- the notebooks ---------------------------------------------------------------------

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
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


def store_fresh_notebooks() -> None:
    """Execute every notebook and store its outputs."""
    for path in NOTEBOOKS:
        print(f"running {path.name}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as folder:
            nbformat.write(executed(path, folder), path)


# -- the command of the README and the getting-started page ------------------------------

#: The pages that show what the getting-started command prints (the same block in both).
COMMAND_PAGES = (ROOT / "docs" / "getting-started.md", ROOT / "README.md")
COMMAND_OUTPUT = re.compile(r"(The command prints\n\n```(?:text)?\n)(.*?)(```)", flags=re.S)


def shown_command(page: pathlib.Path) -> str:
    """The ``bayescal fit ...`` line the page tells a reader to run."""
    (line,) = re.findall(r"^bayescal fit .*$", page.read_text(), flags=re.M)
    return line


def shown_command_output(page: pathlib.Path) -> str:
    """What the page says its command prints."""
    return COMMAND_OUTPUT.search(page.read_text()).group(2)


def command_output(command: str) -> str:
    """What ``command`` (a ``bayescal ...`` line) prints on standard output, run in a scratch
    folder that sees ``examples/``."""
    program = pathlib.Path(sys.executable).parent / "bayescal"
    with tempfile.TemporaryDirectory() as folder:
        (pathlib.Path(folder) / "examples").symlink_to(ROOT / "examples")
        run = subprocess.run(
            [str(program), *command.split()[1:]],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
    return run.stdout


def store_fresh_command_output() -> None:
    """Run the getting-started command and show its output on every page that shows it."""
    command = shown_command(COMMAND_PAGES[0])
    print(f"running {command}", file=sys.stderr, flush=True)
    printed = command_output(command)
    for page in COMMAND_PAGES:
        text, found = COMMAND_OUTPUT.subn(
            lambda match: match.group(1) + printed + match.group(3), page.read_text()
        )
        if found != 1:
            raise ValueError(f"{page}: expected one 'The command prints' block; saw {found}")
        page.write_text(text)


if __name__ == "__main__":  # make outputs
    store_fresh_command_output()
    store_fresh_notebooks()
    record_stack()
