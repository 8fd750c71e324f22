"""How long ``bayescal fit`` sits silent: the gaps between the lines it prints on a terminal.

Runs the command in a pseudo-terminal (so that its step lines and the sampler's bar show as a
user sees them), stamps every line and every redraw of the bar with the time since the start,
and reports the longest gap between two of them (the announced compilation, whose line says
how long it takes, reported apart), and the seconds from the end of sampling to the end.

Two inputs, both on a fresh compile cache (``--no-cache``) and on a warm one:

- ``example``: ``examples/judged.csv``, four annotators, 3 000 items (the README's command);
- ``crowd``: a simulated crowd in long format, 2 000 items, 150 workers, 3 labels each
  (``simulate_crowd(2000, 150, seed=4)``), with ``--long --scores``.

    .venv/bin/python benchmarks/progress_gaps.py
"""

from __future__ import annotations

import fcntl
import itertools
import os
import pathlib
import pty
import re
import shutil
import struct
import subprocess
import tempfile
import termios
import time

import pandas as pd

import bayescal as bc

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMPILE_LINE = "compiling the sampler"


def crowd_tables(folder: pathlib.Path) -> list[str]:
    """The crowd's long label table and score table; the command's arguments."""
    simulation = bc.simulate_crowd(2000, 150, labels_per_item=3, seed=4)
    responses = simulation.data.responses()
    pd.DataFrame(
        {
            "item": [f"i{i:04d}" for i in responses.item],
            "annotator": [f"w{j:03d}" for j in responses.annotator],
            "label": responses.label,
        }
    ).to_csv(folder / "labels.csv", index=False)
    pd.DataFrame(
        {"item": [f"i{i:04d}" for i in range(2000)], "score": simulation.data.scores}
    ).to_csv(folder / "scores.csv", index=False)
    return ["labels.csv", "--long", "--scores", "scores.csv", "--score", "score"]


def stamped_run(argv: list[str], folder: pathlib.Path) -> list[tuple[float, str]]:
    """``(seconds, text)`` of every line or bar redraw the command writes to its terminal."""
    leader, follower = pty.openpty()
    # a terminal of 30 rows x 120 columns: a new pseudo-terminal has 0 columns, where tqdm
    # draws its bar as nothing
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    start = time.perf_counter()
    child = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "bayescal"), *argv],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    pieces: list[tuple[float, str]] = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        now = time.perf_counter() - start
        for piece in re.split(r"[\r\n]+", data.decode(errors="replace")):
            if piece.strip():
                pieces.append((now, piece.strip()))
    child.wait()
    os.close(leader)
    pieces.append((time.perf_counter() - start, "(exit)"))
    return pieces


def gaps(pieces) -> tuple[float, str, float, float]:
    """The longest silence outside the compilation, what it followed, the compilation's
    seconds, and the seconds from the last redraw of the sampler's bar to the end."""
    longest, after, compiling = 0.0, "", 0.0
    for (t0, text), (t1, _) in itertools.pairwise(pieces):
        if COMPILE_LINE in text:
            compiling = t1 - t0
        elif t1 - t0 > longest:
            longest, after = t1 - t0, text
    sampled = max((t for t, text in pieces if text.startswith("NUTS")), default=float("nan"))
    return longest, after, compiling, pieces[-1][0] - sampled


def main() -> None:
    folder = pathlib.Path(tempfile.mkdtemp())
    shutil.copy(ROOT / "examples" / "judged.csv", folder)
    inputs = {
        "example": ["judged.csv", "--score", "score", "--annotators", "ann,bob,cy,dee"],
        "crowd": crowd_tables(folder),
    }
    print(
        "| input | cache | longest silence (s) | after the line | compile (s) | after sampling (s) | total (s) |"
    )
    print("|---|---|---:|---|---:|---:|---:|")
    for name, argv in inputs.items():
        # a run that stores its compilation comes between the fresh and the warm one
        for cache, extra in (("fresh", ["--no-cache"]), (None, []), ("warm", [])):
            pieces = stamped_run(["fit", *argv, "--out", f"out-{name}", "--force", *extra], folder)
            if cache is None:
                continue
            longest, after, compiling, post = gaps(pieces)
            print(
                f"| {name} | {cache} | {longest:.1f} | {after[:60]} | {compiling:.1f} | "
                f"{post:.1f} | {pieces[-1][0]:.1f} |"
            )
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
