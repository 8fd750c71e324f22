"""Memory and time of the posterior NC-ECE push-through on a crowd (issue 17).

4 000 channel draws (the truth plus N(0, 0.02) noise, clipped to [0.005, 0.995]) of
``simulate_crowd(10000, 200, labels_per_item=5, workload="uniform", seed=3)`` pushed through
the bin moments from the sparse responses (``bayescal._response_moments.response_moment_draws``, what
``nc_ece_posterior`` runs on a crowd), IV weights, total uncertainty, 10 bins.  Peak memory by
``tracemalloc``; the dense corrections the pattern path builds would be draws x items x workers
float64.

    .venv/bin/python benchmarks/crowd_push_through.py
"""

import time
import tracemalloc
import warnings

import numpy as np

import bayescal as bc
from bayescal._response_moments import response_moment_draws

N_DRAWS, N_ITEMS, N_WORKERS, LABELS = 4000, 10_000, 200, 5


def main() -> None:
    crowd = bc.simulate_crowd(
        N_ITEMS, N_WORKERS, labels_per_item=LABELS, workload="uniform", seed=3
    )
    rng = np.random.default_rng(0)
    shape = (N_DRAWS, N_WORKERS)
    a = np.clip(crowd.channels.a + rng.normal(0, 0.02, shape), 0.005, 0.995)
    b = np.clip(crowd.channels.b + rng.normal(0, 0.02, shape), 0.005, 0.995)
    edges = np.linspace(0, 1, 11)
    tracemalloc.start()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        moments = response_moment_draws(crowd.data, edges, "uniform", a, b, "iv", "total", 0)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    dense = N_DRAWS * N_ITEMS * N_WORKERS * 8 / 2**30
    print(
        f"| {N_DRAWS} draws x {N_ITEMS} items x {N_WORKERS} workers "
        f"({crowd.data.responses().n_responses} responses) | {seconds:.1f} s | {peak:.0f} MiB "
        f"| {dense:.0f} GiB | {moments.shape} |"
    )
    for warning in caught:
        print(f"warning: {warning.message}")


if __name__ == "__main__":
    main()
