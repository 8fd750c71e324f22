"""First fits of the dependence models beside the independent model's, in one run (issue 19:
"first fits stay within 2x the independent model's time").

Data: five annotators, 3 000 items, either the first two sharing errors on 20% of the items
(``simulate_dependent``, seed 0), or all five sharing an item difficulty of loading 1 in both
classes (``simulate_difficulty``, seed 0): the shared-difficulty model timed on data of its
own kind as well.  Each row is a fresh Python process with an empty compile cache
(``BAYESCAL_CACHE_DIR`` a new folder), timing ``fit_bayes`` (4 chains x (1000 + 1000), compile
and sample) from its call to its return; rows interleave over ``ROUNDS`` rounds and the medians
are reported, with the ratio to the independent model on the same data.  A second column times
a repeat fit in the same process (the sampler compiled).

    .venv/bin/python benchmarks/first_fit_dependence.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

ROUNDS = 5
INDEPENDENT = "dawid_skene (independent)"
DATA = {
    "shared-error pair": "bc.simulate.simulate_dependent(3000, five, pair=(0, 1), shared_error=0.2, seed=0)",
    "shared difficulty": "bc.simulate.simulate_difficulty(3000, five, loading=(1.0, 1.0), seed=0)",
}
MODELS = {
    "shared-error pair": {
        INDEPENDENT: "{}",
        "dawid_skene + a0 ~ a1": '{"dependent": [("a0", "a1")]}',
        "shared_difficulty": '{"model": "shared_difficulty"}',
    },
    "shared difficulty": {
        INDEPENDENT: "{}",
        "shared_difficulty": '{"model": "shared_difficulty"}',
    },
}
SCRIPT = """
import time, warnings
import bayescal as bc
five = bc.Channels([0.10, 0.15, 0.20, 0.10, 0.15], [0.85, 0.80, 0.75, 0.90, 0.80])
data = {simulation}.data
options = {options}
warnings.simplefilter("ignore")
start = time.perf_counter()
bc.fit_bayes(data, progress=False, **options)
first = time.perf_counter() - start
start = time.perf_counter()
bc.fit_bayes(data, progress=False, seed=1, **options)
print(first, time.perf_counter() - start)
"""


def main() -> None:
    rows = [(data, name) for data, models in MODELS.items() for name in models]
    times = {row: [] for row in rows}
    for _ in range(ROUNDS):
        for data, name in rows:
            script = SCRIPT.format(simulation=DATA[data], options=MODELS[data][name])
            with tempfile.TemporaryDirectory() as cache:
                environment = {**os.environ, "BAYESCAL_CACHE_DIR": cache}
                done = subprocess.run(
                    [sys.executable, "-c", script],
                    env=environment,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times[data, name].append(tuple(float(x) for x in done.stdout.split()))
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    print(f"{ROUNDS} rounds, medians; 2 cores, JAX's default single CPU device\n")
    print("| data | model | first fit (s) | ratio | repeat fit (s) | ratio |")
    print("|---|---|---:|---:|---:|---:|")
    for data, name in rows:
        first, repeat = (median([t[i] for t in times[data, name]]) for i in (0, 1))
        base_first, base_repeat = (median([t[i] for t in times[data, INDEPENDENT]]) for i in (0, 1))
        print(
            f"| {data} | {name} | {first:.1f} | {first / base_first:.2f} | {repeat:.1f} | "
            f"{repeat / base_repeat:.2f} |"
        )


if __name__ == "__main__":
    main()
