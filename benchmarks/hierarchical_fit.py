"""The hierarchical fit of a crowd: bayescal against a straightforward NumPyro script (issue 17).

A simulated crowd (``bayescal.simulate_crowd``, uniform workload, seed 3) of ITEMS items, WORKERS
workers and LABELS labels per item, the same model in both.  Every row is a fresh process:

1. the straightforward script (``hierarchical_reference.py``: every worker non-centred, the
   likelihood on flat responses with ``jax.ops.segment_sum``, ``MCMC(NUTS)``, 2 chains on the
   two host devices) — 2 chains, as the issue measured it;
2. ``bayescal.fit_bayes(data, model="hierarchical_dawid_skene")``, 4 chains, empty cache;
3. the same with the cache row 2 left (the sampler is loaded, not compiled);
4. bayescal's sampler with every worker non-centred (the parametrisation's share of the gain).

All chains run (1000 warm-up + 1000 draws) at NUTS's target acceptance 0.8, the reference's (the
model's own default is 0.99 with 2000 draws since issue 38).  "per chain" is the wall time over
the chains (the two devices run them side by side in every row).  Diagnostics: the largest
rank-normalised R-hat and the smallest bulk ESS over a, b and prevalence, and the divergences;
bayescal's rows also give the mean leapfrog steps per iteration and the peak resident memory.

    .venv/bin/python benchmarks/hierarchical_fit.py [ITEMS WORKERS LABELS]   # default 10000 200 5
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
PYTHON = sys.executable

#: The bayescal rows' script: the fit, timed from its first line, then one line of results.
BAYESCAL = """
import time
START = time.perf_counter()
import os, resource, sys, warnings
import numpy as np
import bayescal as bc
n, w, l, shipped = (int(x) for x in sys.argv[1:5])
data = bc.simulate_crowd(n, w, labels_per_item=l, workload="uniform", seed=3).data
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if shipped:  # the model's partially non-centred workers
        fit = bc.fit_bayes(data, model="hierarchical_dawid_skene", progress=False,
                           target_accept=0.8, num_samples=1000)
        source = fit.run["compiled_from"]
    else:  # every worker non-centred: weight 0 of the centred form (its cache is off)
        from bayescal.inference import Sampler
        from bayescal.models import ResponseDesign
        sys.modules["bayescal.models.hierarchical_dawid_skene"].CENTRING_LABELS = np.inf
        design = ResponseDesign.from_responses(data.responses())
        sampler = Sampler(design, "hierarchical_dawid_skene", 4, 1000, 1000, target_accept=0.8)
        samples, stats = sampler.run(design, bc.Priors(), 0)
        fit = bc.BayesFit.from_run(samples, stats, design, bc.Priors(),
                                   "hierarchical_dawid_skene", data.annotator_names)
        source = sampler.compiled_from
elapsed = time.perf_counter() - START
d = fit.diagnostics.loc[[i for i in fit.diagnostics.index if not i.startswith("population")]]
steps = float(np.mean(fit.idata.sample_stats["n_steps"]))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"bayescal {elapsed:.3f} {d.r_hat.max():.4f} {d.ess_bulk.min():.1f} "
      f"{int(d.divergences.iloc[0])} {steps:.1f} {peak:.0f} {source}")
"""


def run(command: list[str], environment: dict) -> list[str]:
    done = subprocess.run(
        command, cwd=HERE, env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1].split()


def main() -> None:
    size = sys.argv[1:4] or ["10000", "200", "5"]
    base = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "BAYESCAL_CACHE_DIR")}
    # two host devices in every row (the reference sets them with numpyro.set_host_device_count)
    devices = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    start = time.perf_counter()
    print(
        f"{size[0]} items x {size[1]} workers x {size[2]} labels per item; (1000 + 1000) per chain\n"
    )
    print("| run | chains | wall s | per chain s | speed-up per chain | max R-hat | min bulk ESS | "
          "divergences | ESS/s | steps/iteration | peak MiB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    reference = run([PYTHON, "hierarchical_reference.py", *size, "2"], base)
    per_chain_reference = float(reference[1]) / 2

    def row(label: str, chains: int, words: list[str], steps: str = "", peak: str = "") -> None:
        wall, r_hat, ess, divergences = float(words[1]), words[2], float(words[3]), words[4]
        print(
            f"| {label} | {chains} | {wall:.1f} | {wall / chains:.1f} | "
            f"{per_chain_reference / (wall / chains):.1f}x | {r_hat} | {ess:.0f} | {divergences} | "
            f"{ess / wall:.1f} | {steps} | {peak} |",
            flush=True,
        )

    row("straightforward NumPyro script", 2, reference)
    with tempfile.TemporaryDirectory() as cache:
        environment = {**base, **devices, "BAYESCAL_CACHE_DIR": cache}
        for label in ("`fit_bayes`, empty cache", "`fit_bayes`, warm cache"):
            words = run([PYTHON, "-c", BAYESCAL, *size, "1"], environment)
            row(f"{label} (sampler {words[7]})", 4, words, words[5], words[6])
    words = run(
        [PYTHON, "-c", BAYESCAL, *size, "0"], {**base, **devices, "BAYESCAL_CACHE_DIR": "off"}
    )
    row("bayescal's sampler, every worker non-centred", 4, words, words[5], words[6])
    print(f"\n(whole benchmark {time.perf_counter() - start:.0f} s; the reference's ESS is "
          "NumPyro's split-chain n_eff, bayescal's the rank-normalised bulk ESS)")  # fmt: skip


if __name__ == "__main__":
    main()
