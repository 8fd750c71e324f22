"""Memory and time of the posterior push-through on a crowd (issue 17).

4 000 channel draws (the truth plus N(0, 0.02) noise, clipped to [0.005, 0.995]) of
``simulate_crowd(10000, 200, labels_per_item=5, workload="uniform", seed=3)`` pushed through
the bin moments from the sparse responses (``bayescal.correction.crowd.response_moment_draws``, what
``nc_ece_posterior`` runs on a crowd), IV weights, total uncertainty, 10 bins; then through
``posterior_recalibration`` (Platt), fitted on the first 5 000 items and scored on the other
5 000 (the draws wrapped in a one-chain ``BayesFit``).  Peak memory by ``tracemalloc``; the
dense corrections the pattern path builds would be draws x items x workers float64.

    .venv/bin/python benchmarks/crowd_push_through.py
"""

import time
import tracemalloc
import warnings

import numpy as np
from bayescal.models import ResponseDesign

import bayescal as bc
from bayescal.bayes.bayes_fit import BayesFit
from bayescal.correction.crowd import response_moment_draws

N_DRAWS, N_ITEMS, N_WORKERS, LABELS = 4000, 10_000, 200, 5


def _measured(run):
    """``run()``'s result, seconds, peak MiB and the warnings it gave."""
    tracemalloc.start()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak, [str(w.message) for w in caught]


def _fit_of(data, a, b) -> BayesFit:
    """Given draws as a one-chain BayesFit of ``data``."""
    extra = {
        "diverging": np.zeros((1, N_DRAWS), bool),
        "energy": np.zeros((1, N_DRAWS)),
        "num_steps": np.ones((1, N_DRAWS), int),
        "accept_prob": np.ones((1, N_DRAWS)),
    }
    samples = {"a": a[None], "b": b[None], "prevalence": np.full((1, N_DRAWS), 0.4)}
    design = ResponseDesign.from_responses(data.responses())
    return BayesFit.from_run(
        samples, extra, design, bc.Priors(), "hierarchical_dawid_skene", data.annotator_names
    )


def main() -> None:
    crowd = bc.simulate_crowd(
        N_ITEMS, N_WORKERS, labels_per_item=LABELS, workload="uniform", seed=3
    )
    rng = np.random.default_rng(0)
    shape = (N_DRAWS, N_WORKERS)
    a = np.clip(crowd.channels.a + rng.normal(0, 0.02, shape), 0.005, 0.995)
    b = np.clip(crowd.channels.b + rng.normal(0, 0.02, shape), 0.005, 0.995)
    edges = np.linspace(0, 1, 11)
    dense = N_DRAWS * N_ITEMS * N_WORKERS * 8 / 2**30
    responses = crowd.data.responses().n_responses
    moments, seconds, peak, said = _measured(
        lambda: response_moment_draws(crowd.data, edges, "uniform", a, b, "iv", "total", 0)
    )
    print(
        f"| NC-ECE | {N_DRAWS} draws x {N_ITEMS} items x {N_WORKERS} workers "
        f"({responses} responses) | {seconds:.1f} s | {peak:.0f} MiB | {dense:.0f} GiB "
        f"| moments {moments.shape} |"
    )
    half = N_ITEMS // 2
    fit_data, eval_data = (
        crowd.data.subset(np.arange(half)),
        crowd.data.subset(np.arange(half, N_ITEMS)),
    )
    fit = _fit_of(fit_data, a, b)
    result, seconds, peak, more = _measured(
        lambda: bc.bayes.posterior_recalibration(fit_data, eval_data, fit, method="platt")
    )
    print(
        f"| posterior_recalibration (Platt) | {N_DRAWS} draws x {half} + {half} items x "
        f"{N_WORKERS} workers | {seconds:.1f} s | {peak:.0f} MiB | {dense:.0f} GiB "
        f"| NC-ECE {result.base.median:.4f} -> {result.recalibrated.median:.4f} |"
    )
    for message in (*said, *more):
        print(f"warning: {message}")


if __name__ == "__main__":
    main()
