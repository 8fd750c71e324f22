"""The first fit of a new process: bayescal against a plain NumPyro script, in one run (issue 15).

Bayesian Dawid–Skene on the caries data (5 dentists, 3 869 radiographs; ``caries.py``), 2 chains
x (1000 warm-up + 1000 draws), flat priors.  Every row is a fresh Python process, run in this
order (the cache rows share one new, empty cache folder):

1. the plain NumPyro script (``first_fit_plain.py``: count likelihood, ``MCMC(NUTS)``, two host
   devices set before JAX starts, ``chain_method="parallel"``);
2. ``bayescal.fit_bayes`` with an empty cache (it compiles and stores the sampler);
3. ``bayescal.fit_bayes`` again, a new process with that cache (it loads the sampler);
4. a repeat fit inside one process (the second ``fit_bayes`` call is timed);
5. ``bayescal fit examples/judged.csv`` with an empty cache, then with the cache it left;
6. ``bayescal --help`` and a command line with an error (a missing file), whole process.

"first fit" is the time from the script's first line to the end of the fit; "whole process"
includes the interpreter's start.  The command's split comes from its ``summary.json``
(``imports`` is what remains of the whole process: interpreter, imports, argument checks).
Each process row also reports where the sampler came from and, for the fit_bayes rows, the
first bytes of the draws of ``a`` (the same with and without the cache) and the diagnostics.

    .venv/bin/python benchmarks/first_fit.py      # prints the markdown for RESULTS.md
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = sys.executable


#: Each fit_bayes row is the median of this many rounds (the command rows run once per round
#: and are also medians); the rounds interleave the rows, so drift hits every row alike.
ROUNDS = 5


def timed(command: list[str], environment: dict, check: bool = True) -> tuple[float, str]:
    """Whole-process wall time and the last line of standard output of one fresh process."""
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=HERE, env=environment, capture_output=True, text=True, check=check
    )
    return time.perf_counter() - start, (done.stdout.strip().splitlines() or [""])[-1]


def median_row(runs: list[tuple[float, str]]) -> tuple[float, float, str]:
    """(median first fit, median whole process, notes of the median run)."""
    ordered = sorted(runs, key=lambda run: float(run[1].split()[2]))
    whole = sorted(run[0] for run in runs)[len(runs) // 2]
    _, line = ordered[len(runs) // 2]
    words = line.split()
    return float(words[2]), whole, " ".join(words[3:])


def main() -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "BAYESCAL_CACHE_DIR")}
    labels = (
        "plain NumPyro script",
        "`fit_bayes`, empty cache",
        "`fit_bayes`, warm cache",
        "`fit_bayes`, repeat fit in one process",
    )
    runs = {label: [] for label in labels}
    commands = {label: [] for label in ("empty cache", "warm cache")}
    bayescal = str(pathlib.Path(PYTHON).parent / "bayescal")
    answers = {
        "`bayescal --help`": [bayescal, "--help"],
        "`bayescal fit absent.csv --score s` (an error)": [
            bayescal,
            "fit",
            "absent.csv",
            "--score",
            "s",
        ],
    }
    answer_times = {label: [] for label in answers}
    with tempfile.TemporaryDirectory() as folder:
        script = [PYTHON, "-W", "ignore", str(HERE / "first_fit_bayescal.py")]
        for round_ in range(ROUNDS):
            cache = pathlib.Path(folder) / f"cache-{round_}"  # empty at the start of each round
            cached = {**base, "BAYESCAL_CACHE_DIR": str(cache)}
            for label, command, environment in zip(
                labels,
                (
                    [PYTHON, str(HERE / "first_fit_plain.py")],
                    script,
                    script,
                    [*script, "--repeat"],
                ),
                (base, cached, cached, cached),
            ):
                runs[label].append(timed(command, environment))
            for label in commands:
                out = pathlib.Path(folder) / f"fit-{round_}-{label.split()[0]}"
                commands[label].append(run_command(out, cached))
            for label, command in answers.items():
                answer_times[label].append(timed(command, base, check=False)[0])
        rows = [(label, *median_row(runs[label])) for label in labels]
        plain = rows[0][2]
        print(
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; median of {ROUNDS} rounds\n"
        )
        print("| run | first fit (s) | whole process (s) | whole / plain | notes |")
        print("|---|---:|---:|---:|---|")
        for label, first, whole, notes in rows:
            print(f"| {label} | {first:.2f} | {whole:.2f} | {whole / plain:.2f} | {notes} |")

        print("\n`bayescal fit examples/judged.csv` (3 000 rows, 4 annotators, 4 chains x 2000):\n")
        print(
            "| run | whole (s) | imports etc. | read | NUTS | push-through | checks | report | from |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for label, results in commands.items():
            result = sorted(results, key=lambda r: r["whole"])[len(results) // 2]
            print(
                f"| {label} | {result['whole']:.2f} | {result['imports']:.2f} | "
                f"{result['read']:.2f} | {result['nuts']:.2f} | {result['push_through']:.2f} | "
                f"{result['checks']:.2f} | {result['report']:.2f} | {result['from']} |"
            )

        print("\nAnswers without a fit (whole process; target under 1 s):\n")
        print("| command | whole (s) |")
        print("|---|---:|")
        for label, seconds in answer_times.items():
            print(f"| {label} | {sorted(seconds)[len(seconds) // 2]:.2f} |")


def run_command(out: pathlib.Path, environment: dict) -> dict:
    """One ``bayescal fit`` of the judged example: its whole time and its steps."""
    command = [
        str(pathlib.Path(PYTHON).parent / "bayescal"), "fit",
        str(ROOT / "examples" / "judged.csv"),
        "--score", "score", "--annotators", "ann,bob,cy,dee", "--truth", "truth",
        "--out", str(out), "--quiet", "--json",
    ]  # fmt: skip
    whole, _ = timed(command, environment)
    steps = json.loads((out / "summary.json").read_text())["timings"]
    return {
        "whole": whole,
        "imports": whole - sum(steps.values()),
        "read": steps.get("read", 0.0),
        "nuts": steps["nuts"],
        "push_through": steps["push_through"],
        "checks": steps["checks"],
        "report": steps.get("report", 0.0) + steps.get("write_posterior", 0.0),
        "from": _compiled_from(out),
    }


def _compiled_from(out: pathlib.Path) -> str:
    """Where the command's sampler came from, as written in its posterior's attributes."""
    code = (
        "import sys; from bayescal.bayes.bayes_fit import BayesFit; "
        "print(BayesFit.load(sys.argv[1]).idata.attrs.get('bayescal_compiled_from'))"
    )
    done = subprocess.run(
        [PYTHON, "-W", "ignore", "-c", code, str(out / "posterior.nc")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


if __name__ == "__main__":
    main()
