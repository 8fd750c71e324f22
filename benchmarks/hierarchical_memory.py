"""Peak memory of the hierarchical fit of a large crowd (issue 17's memory target).

``simulate_crowd(ITEMS, WORKERS, labels_per_item=LABELS, workload="uniform", seed=3)`` fitted by
``fit_bayes(model="hierarchical_dawid_skene")`` with short chains (the memory of the model and
its sampler does not grow with the draws; the posterior's per-row log-likelihood does, and is
reported apart).  Peak resident memory of the process (``ru_maxrss``) after simulating the
crowd, after the fit, and after building its InferenceData; the dense items x workers float64 array the sparse likelihood never
builds, for scale.

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \
        benchmarks/hierarchical_memory.py [ITEMS WORKERS LABELS]   # default 100000 1000 5
"""

import resource
import sys
import time
import warnings

import bayescal as bc


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    items, workers, labels = (
        (int(x) for x in sys.argv[1:4]) if len(sys.argv) > 1 else (100_000, 1000, 5)
    )
    crowd = bc.simulate_crowd(items, workers, labels_per_item=labels, workload="uniform", seed=3)
    before = peak_mib()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # short chains: NUTS warns
        warnings.simplefilter("always")
        fit = bc.fit_bayes(
            crowd.data, model="hierarchical_dawid_skene", num_chains=2, num_warmup=100,
            num_samples=100, progress=False,
        )  # fmt: skip
    seconds = time.perf_counter() - start
    after = peak_mib()  # before the InferenceData (and its per-row log-likelihood) is built
    rows = fit.idata.constant_data["counts"].size
    print(
        f"| {items} items x {workers} workers x {labels} labels ({items * labels} responses, "
        f"{rows} rows) | {before:.0f} MiB | {after:.0f} MiB | {peak_mib():.0f} MiB | "
        f"{2 * 100 * rows * 8 / 2**20:.0f} MiB | {items * workers * 8 / 2**20:.0f} MiB | "
        f"{seconds:.0f} s |"
    )
    for warning in caught:
        print(f"warning: {str(warning.message)[:160]}")


if __name__ == "__main__":
    main()
