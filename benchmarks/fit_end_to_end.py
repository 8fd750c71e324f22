"""`bayescal fit` end to end on a 10^6-row, 5-annotator CSV (issue 9), with the time of each step.

Writes the table (not timed), runs the installed console script in a subprocess as a user would,
and reads the per-step seconds that `bayescal fit` records in summary.json ("timings"). The
residual of the wall time is process start-up and imports (Python, JAX, NumPyro, ArviZ).
A 10^4-row table is run the same way to show which steps grow with n.

    .venv/bin/python benchmarks/fit_end_to_end.py
"""

import json
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

import bayescal as bc

CHANNELS = bc.Channels(
    a=np.array([0.05, 0.10, 0.15, 0.20, 0.10]), b=np.array([0.80, 0.85, 0.90, 0.75, 0.95])
)


def write_table(path: pathlib.Path, n: int) -> None:
    simulation = bc.simulate_annotated(n, CHANNELS, calibration=lambda z: 0.15 + 0.7 * z, seed=1)
    labels = simulation.data.annotations.astype(np.float64)
    missing = np.random.default_rng(2).random(labels.shape) < 0.1  # 10% of the labels missing,
    missing[missing.all(axis=1), 0] = False  # but every item keeps at least one
    labels[missing] = np.nan
    frame = pd.DataFrame({"score": simulation.data.scores})
    for j in range(labels.shape[1]):
        frame[f"a{j}"] = pd.array(labels[:, j], dtype="Int8")
    frame.to_csv(path, index=False)


def run(table: pathlib.Path, out: pathlib.Path) -> tuple[float, dict]:
    script = pathlib.Path(sys.executable).with_name("bayescal")
    start = time.perf_counter()
    subprocess.run(
        [
            str(script),
            "fit",
            str(table),
            "--score",
            "score",
            "--annotators",
            "a0,a1,a2,a3,a4",
            "--out",
            str(out),
            "--quiet",
        ],
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - start
    return wall, json.loads((out / "summary.json").read_text())


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        for n in (10_000, 1_000_000):
            table = folder / f"table-{n}.csv"
            write_table(table, n)
            wall, summary = run(table, folder / f"out-{n}")
            # every step the command records, in its order (a list kept here went stale: the
            # calibration test and the recalibration preview were counted as start-up)
            timings = summary["timings"]
            row = {"rows": n, "csv MB": table.stat().st_size / 1e6, "wall": wall}
            row.update(timings)
            row["start-up + imports"] = wall - sum(timings.values())
            row["NC-ECE median"] = summary["ece"]["nc_ece"]["posterior"]["median"]
            rows.append(row)
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---:|" * len(columns))
    for row in rows:
        print(
            "| "
            + " | ".join(
                f"{row[c]:,}"
                if c == "rows"
                else f"{row[c]:.4f}"
                if c == "NC-ECE median"
                else f"{row[c]:.2f}"
                for c in columns
            )
            + " |"
        )
    big = rows[-1]
    print(
        f"\n10^6 rows: {big['wall']:.1f} s end to end (target < 120 s); NUTS {big['nuts']:.1f} s = {big['nuts'] / big['wall']:.0%} of it"
    )


if __name__ == "__main__":
    main()
