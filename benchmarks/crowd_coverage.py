"""Coverage of posterior NC-ECE intervals on sparse crowds: hierarchical against flat (issue 17).

Designs of ``bayescal.simulate_crowd`` (the toy predictor, ``shifted`` condition, population
binned ECE about 0.09 with 10 bins), each replicate fitted by both Bayesian models with the
same data and seed:

- ``spammers``: 1000 items, 30 workers, 3 labels per item, uniform workloads, 90% good workers
  and 10% spammers (b = a);
- ``adversaries``: 1000 items, 30 workers, 3 labels per item, heavy-tailed workloads (a few
  workers label most items, many label fewer than 30), 85% good, 5% spammers, 10% adversarial.
- ``sparse_odd`` (issue 17, item 2): 1000 items, 150 workers, 3 labels per item, heavy-tailed
  workloads, 80% good, 10% spammers, 10% adversarial: most odd workers have 5 labels or fewer
  (seed 0: 12 of 30); a second table gives the RMSE of the workers with 5 labels or fewer.
- ``messy`` (issue 38, item 2, a design nobody tuned the model to): 1500 items, 80 workers,
  5 labels per item, heavy-tailed workloads, 80% good, 15% spammers, 5% adversarial.

Per replicate and model: whether the 90% interval of ``posterior_ece`` (10 bins, total
uncertainty) covers the population binned ECE, the posterior median's error, and the posterior
mean channels' squared errors by worker type and for workers with fewer than 30 labels, and
the NC-ECE bias by worker type (``nc_ece_by_type``: the posterior median NC-ECE with one
type's channels drawn from the posterior, the others true, minus the same with every channel
true).
NUTS: ``--chains`` chains x (``--iterations`` warm-up + ``--iterations`` draws) per fit
(default 4 x (500 + 500)), on the two host devices; ``--samples model`` runs the model's draws
as ``fit_bayes``'s defaults do, continued while R-hat or ESS fall short
(``SamplerSettings.extensions``).  Each row records the fit's largest R-hat and smallest bulk
ESS over the channels and class proportion, and over every parameter the largest R-hat, the
smallest bulk or tail ESS and its parameter, the divergences and the extensions run.  The
flat model is fitted on the first ``--flat-replicates`` seeds only (the comparison of channel
errors; its coverage there is reported as well); ``--models dawid_skene`` fits it alone, on
every seed.  Rows are appended to ``--out`` (CSV) as they come, so an interrupted run keeps
what it measured.

``--population`` refits the hierarchical model with another population of workers (issue 17,
item 2: the shape chosen by measurement), set for this process by its hyperprior constants in
``models/hierarchical_dawid_skene.py`` (the compiled-sampler cache is turned off, since its
key knows the program's files, not their constants at run time):

- ``mixture``: the model as shipped, a correlated normal plus the random workers' component;
- ``correlated``: the correlated normal alone (the random share's prior Beta(1, 10^6), its
  start at 10^-6);
- ``independent``: one normal with independent logit a and logit b (the correlation's LKJ
  concentration 10^4: rho = 0 +- 0.007), the one-peaked population the issue warns about.

``--variant`` fits the hierarchical model with a sampler variant of
``hierarchical_sampler_variants.py`` (one or several, e.g. ``noncentred accept``, with
``--target-accept``), ``--samples`` keeps that many draws a chain (default
``--iterations``).

    XLA_FLAGS=--xla_force_host_platform_device_count=2 .venv/bin/python \
        benchmarks/crowd_coverage.py --replicates 200 --flat-replicates 50 --out /tmp/crowd_coverage.csv
"""

from __future__ import annotations

import argparse
import importlib
import os
import pathlib
import time
import warnings

import numpy as np
import pandas as pd

import bayescal as bc
from bayescal.bayes.posterior import posterior_summary
from bayescal.correction.crowd import response_moment_draws
from bayescal.correction.known_channels import evaluation_cells
from bayescal.simulate.crowds import WORKER_TYPES

#: The crowd of every design: ``simulate_crowd``'s arguments besides the seed (the items, the
#: workers and the labels of an item default to N_ITEMS, N_WORKERS and LABELS).
N_ITEMS, N_WORKERS, LABELS = 1000, 30, 3
DESIGNS = {
    "spammers": {"workload": "uniform", "worker_mix": {"good": 0.9, "spammer": 0.1}},
    "adversaries": {
        "workload": "heavy_tailed",
        "worker_mix": {"good": 0.85, "spammer": 0.05, "adversarial": 0.1},
    },
    # issue 17, item 2: most spammers and adversaries with 5 labels or fewer (150 workers)
    "sparse_odd": {
        "n_workers": 150,
        "workload": "heavy_tailed",
        "worker_mix": {"good": 0.8, "spammer": 0.1, "adversarial": 0.1},
    },
    # issue 38, item 2: the held-out crowd, tuned on by nobody
    "messy": {
        "n": 1500,
        "n_workers": 80,
        "labels_per_item": 5,
        "workload": "heavy_tailed",
        "worker_mix": {"good": 0.8, "spammer": 0.15, "adversarial": 0.05},
    },
    # the crowd of notebook 06 and the suite (simulate_crowd's own workload and worker mix:
    # heavy-tailed, 36 to 900 labels a worker), for the sampler's settings
    "notebook": {"n": 1500},
    # a panel of 12 workers of about 500 labels each, for the sampler's settings
    "heavy_panel": {
        "n": 2000,
        "n_workers": 12,
        "workload": "uniform",
        "worker_mix": {"good": 0.9, "spammer": 0.1},
    },
}
MODELS = ("hierarchical_dawid_skene", "dawid_skene")
N_BINS, SPARSE, FEW = 10, 30, 5


def simulate_design(design: str, seed: int, **overrides):
    """The crowd of ``design`` drawn with ``seed``; ``overrides`` replace its arguments of
    ``bayescal.simulate_crowd`` (``n``, ``condition``)."""
    options = {"n": N_ITEMS, "n_workers": N_WORKERS, "labels_per_item": LABELS}
    return bc.simulate_crowd(seed=seed, **(options | DESIGNS[design] | overrides))


#: The hyperprior constants of each population (module docstring); "mixture" changes nothing.
POPULATIONS = {
    "mixture": {},
    "correlated": {"RANDOM_SHARE_PRIOR": (1.0, 1e6)},
    "independent": {"RANDOM_SHARE_PRIOR": (1.0, 1e6), "CORRELATION_CONCENTRATION": 1e4},
}


def use_population(name: str) -> None:
    """Set the hierarchical model's population for this process (module docstring)."""
    if not POPULATIONS[name]:
        return
    # the module (bayescal.models.hierarchical_dawid_skene as an attribute is the program)
    program = importlib.import_module("bayescal.models.hierarchical_dawid_skene")

    os.environ["BAYESCAL_CACHE_DIR"] = "off"
    for constant, value in POPULATIONS[name].items():
        setattr(program, constant, value)
    program.ORIENTED_START["population_random_share"] = float(np.log(1e-6))


def labelled_workers(crowd) -> tuple:
    """The crowd's data without the workers the heavy tail gave no label, and which workers
    those are (K,): such a worker is no column of a real table (the flat model refuses an
    empty column)."""
    seen = (crowd.data.annotations >= 0).any(axis=0)
    data = bc.AnnotatedScores(
        crowd.data.scores,
        crowd.data.annotations[:, seen],
        annotator_names=np.array(crowd.data.annotator_names)[seen].tolist(),
    )
    return data, seen


def replicate(
    design: str, model: str, seed: int, chains: int, iterations: int, samples: int | None
) -> dict:
    crowd = simulate_design(design, seed)
    data, seen = labelled_workers(crowd)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = bc.fit_bayes(
            data, model=model, num_chains=chains, num_warmup=iterations,
            num_samples=samples, seed=seed, progress=False,
        )  # fmt: skip
        result = bc.nc_ece_posterior(data, fit, n_bins=N_BINS, seed=seed)
    seconds = time.perf_counter() - start
    target = crowd.population_binned_ece(N_BINS)
    a, b, _ = fit.draws()
    errors = (a.mean(axis=0) - crowd.channels.a[seen]) ** 2 + (
        b.mean(axis=0) - crowd.channels.b[seen]
    ) ** 2
    labels = data.responses().labels_per_annotator()
    types = np.array(crowd.worker_types)[seen]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the crowd rule's unlabelled-items line, every call
        by_type = nc_ece_by_type(data, (a, b), crowd, seen, types, seed)
    assert by_type["nc_estimated"] == result.median  # the same computation as the fit's
    channel_diagnostics = fit.diagnostics.loc[
        [name for name in fit.diagnostics.index if not name.startswith("population")]
    ]
    row = {
        "design": design,
        "model": model,
        "seed": seed,
        "target": target,
        "lower": result.interval[0],
        "upper": result.interval[1],
        "median": result.median,
        "covered": result.interval[0] <= target <= result.interval[1],
        "sparse_sq_error": errors[labels < SPARSE].sum(),
        "sparse_workers": int((labels < SPARSE).sum()),
        "few_sq_error": errors[labels <= FEW].sum(),
        "few_workers": int((labels <= FEW).sum()),
        "sampling_warning": any("NUTS diagnostics" in str(w.message) for w in caught),
        "max_r_hat": channel_diagnostics.r_hat.max(),
        "min_ess_bulk": channel_diagnostics.ess_bulk.min(),
        # every parameter's, the population's too: what a warning can be about
        "divergences": int(fit.diagnostics.divergences.iloc[0]),
        "max_r_hat_all": fit.diagnostics.r_hat.max(),
        "min_ess_all": fit.diagnostics[["ess_bulk", "ess_tail"]].min(axis=1).min(),
        "weakest": fit.diagnostics[["ess_bulk", "ess_tail"]].min(axis=1).idxmin(),
        "extensions": int(fit.run["extensions"]),
        "seconds": seconds,
        **by_type,
    }
    for kind in WORKER_TYPES:
        row[f"{kind}_sq_error"] = errors[types == kind].sum()
        row[f"{kind}_workers"] = int((types == kind).sum())
        few = (types == kind) & (labels <= FEW)
        row[f"{kind}_few_sq_error"] = errors[few].sum()
        row[f"{kind}_few_workers"] = int(few.sum())
    return row


def nc_ece_by_type(data, draws, crowd, seen, types, seed) -> dict:
    """NC-ECE bias by worker type: the posterior median of ``nc_ece_posterior`` (same bins,
    rule, bootstrap and seed) with the draws of one type's workers and the true channels of
    the others (``nc_<type>_only``), with every worker's draws (``nc_estimated``, the fit's own
    median), with the true channels of all (``nc_true``, the sample's own NC-ECE with total
    uncertainty) and with every draw replaced by the posterior mean channels (``nc_at_mean``):
    ``nc_<type>_only - nc_true`` is what estimating that type's channels adds, ``nc_true -
    target`` what the estimator adds with no channel error (the crowd rule, the debiased bins,
    the median), ``nc_at_mean - nc_true`` what the channels' point estimate adds and
    ``nc_estimated - nc_at_mean`` what pushing the posterior's spread through adds.  The
    median is computed as ``nc_ece_posterior`` computes it, from its parts (a fit holds its
    own draws; these mix draws and truth)."""
    a, b = draws
    true_a, true_b = crowd.channels.a[seen], crowd.channels.b[seen]
    cells = evaluation_cells(data, N_BINS)

    def median(a, b):
        moments = response_moment_draws(data, cells.edges, "uniform", a, b, "iv", "total", seed)
        return posterior_summary(
            moments, "total", 0.9, 0.01, cells.edges, cells.bin_counts, None
        ).median

    def mixed(estimated):
        return (
            np.where(estimated, a, np.broadcast_to(true_a, a.shape)),
            np.where(estimated, b, np.broadcast_to(true_b, b.shape)),
        )

    row = {"nc_true": median(*mixed(np.zeros(types.size, bool)))}
    row["nc_estimated"] = median(a, b)
    row["nc_at_mean"] = median(*(np.broadcast_to(x.mean(axis=0), x.shape) for x in (a, b)))
    for kind in WORKER_TYPES:
        row[f"nc_{kind}_only"] = median(*mixed(types == kind))
    return row


def by_type_table(rows: pd.DataFrame) -> str:
    """Mean +- SE over replicates of what estimating each type's channels adds to the posterior
    median NC-ECE (``nc_ece_by_type``)."""
    kinds = [k for k in WORKER_TYPES if rows[f"{k}_workers"].sum()]
    lines = [
        "| design | model | replicates | all estimated | "
        + " | ".join(f"{kind} only" for kind in kinds)
        + " |",
        "|---|---|---:|---:|" + "---:|" * len(kinds),
    ]
    for (design, model), group in rows.groupby(["design", "model"], sort=False):
        cells = [mean_and_error(group["nc_estimated"] - group["nc_true"])]
        cells += [mean_and_error(group[f"nc_{kind}_only"] - group["nc_true"]) for kind in kinds]
        lines.append(f"| {design} | {model} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def mean_and_error(values: pd.Series) -> str:
    """``mean +- its standard error`` over replicates."""
    return f"{values.mean():+.4f} +- {values.std() / np.sqrt(values.size):.4f}"


def bias_table(rows: pd.DataFrame) -> str:
    """Where the posterior median's error comes from (``nc_ece_by_type``), mean +- SE over
    replicates: the estimator at the true channels, the channels' point estimate, and the
    posterior's spread pushed through; the three sum to the median's error."""
    lines = [
        "| design | model | replicates | median - target | true channels - target | "
        "posterior mean channels - true | all draws - posterior mean channels |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (design, model), group in rows.groupby(["design", "model"], sort=False):
        cells = [
            mean_and_error(group["nc_estimated"] - group["target"]),
            mean_and_error(group["nc_true"] - group["target"]),
            mean_and_error(group["nc_at_mean"] - group["nc_true"]),
            mean_and_error(group["nc_estimated"] - group["nc_at_mean"]),
        ]
        lines.append(f"| {design} | {model} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(rows: pd.DataFrame) -> str:
    """The markdown table for RESULTS.md: one row per design and model."""
    lines = [
        "| design | model | replicates | 90% interval covers | mean target | NC-ECE bias (median - target) "
        "| NC-ECE RMSE | channel RMSE, workers < 30 labels | RMSE good | RMSE spammer | RMSE adversarial | fits warned "
        "| median of min bulk ESS | s per fit |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def rmse(group, kind):
        workers = group[f"{kind}_workers"].sum()
        return f"{np.sqrt(group[f'{kind}_sq_error'].sum() / (2 * workers)):.3f}" if workers else "-"

    for (design, model), group in rows.groupby(["design", "model"], sort=False):
        sparse = group["sparse_workers"].sum()
        sparse_rmse = (
            f"{np.sqrt(group['sparse_sq_error'].sum() / (2 * sparse)):.3f}" if sparse else "-"
        )
        lines.append(
            f"| {design} | {model} | {len(group)} | {group['covered'].mean():.1%} "
            f"| {group['target'].mean():.4f} | {(group['median'] - group['target']).mean():+.4f} "
            f"| {np.sqrt(((group['median'] - group['target']) ** 2).mean()):.4f} | {sparse_rmse} | {rmse(group, 'good')} | {rmse(group, 'spammer')} "
            f"| {rmse(group, 'adversarial')} | {group['sampling_warning'].mean():.0%} "
            f"| {group['min_ess_bulk'].median():.0f} | {group['seconds'].mean():.1f} |"
        )
    return "\n".join(lines)


def few_table(rows: pd.DataFrame) -> str:
    """RMSE of the posterior mean channels of the workers with at most FEW labels, by type."""
    lines = [
        f"| design | model | replicates | RMSE, <= {FEW} labels: all | good | spammer | adversarial |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (design, model), group in rows.groupby(["design", "model"], sort=False):
        few = group["few_workers"].sum()
        cells = [f"{np.sqrt(group['few_sq_error'].sum() / (2 * few)):.3f} ({few})" if few else "-"]
        for kind in ("good", "spammer", "adversarial"):
            workers = group[f"{kind}_few_workers"].sum()
            error = group[f"{kind}_few_sq_error"].sum()
            cells.append(f"{np.sqrt(error / (2 * workers)):.3f} ({workers})" if workers else "-")
        lines.append(f"| {design} | {model} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--flat-replicates", type=int, default=50)
    parser.add_argument(
        "--models",
        nargs="+",
        default=list(MODELS),
        choices=list(MODELS),
        help="the models fitted (default both); the flat one on the first --flat-replicates seeds",
    )
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument(
        "--samples",
        type=lambda text: None if text == "model" else int(text),
        default=0,
        help="draws a chain keeps (default: --iterations); 'model' for fit_bayes's defaults: "
        "the model's, continued while R-hat or ESS fall short",
    )
    parser.add_argument("--population", default="mixture", choices=list(POPULATIONS))
    parser.add_argument("--variant", nargs="+", default=[], help="hierarchical_sampler_variants")
    parser.add_argument("--target-accept", type=float, default=0.95)
    args = parser.parse_args()
    if args.models == [MODELS[1]] and args.flat_replicates < args.replicates:
        # the flat model alone on its first seeds would leave the others unfitted, silently
        parser.error(
            f"--models {MODELS[1]} fits every seed: --flat-replicates must be at least "
            f"--replicates ({args.replicates}); saw {args.flat_replicates}"
        )
    use_population(args.population)
    if args.variant:  # that script imports this one's designs: imported here, not above
        from hierarchical_sampler_variants import VARIANTS, use_variant

        for variant in args.variant:
            if variant not in VARIANTS:
                parser.error(f"--variant: {variant!r} is not one of {VARIANTS}")
            use_variant(variant, args.target_accept)
    samples = args.iterations if args.samples == 0 else args.samples
    label = args.population + "".join(f" + {v}" for v in args.variant)
    if {"accept", "dense", "block"} & set(args.variant):
        label += f", target acceptance {args.target_accept}"
    for seed in range(args.first_seed, args.first_seed + args.replicates):
        for design in args.designs:
            flat = seed < args.first_seed + args.flat_replicates
            for model in [m for m in args.models if flat or m != MODELS[1]]:
                row = replicate(design, model, seed, args.chains, args.iterations, samples)
                if model == MODELS[0]:
                    row["model"] = f"{model} ({label})"
                row = pd.DataFrame([row])
                row.to_csv(args.out, mode="a", header=not args.out.exists(), index=False)
    rows = pd.read_csv(args.out)
    print(table(rows))
    if "few_workers" in rows:
        print("\n" + few_table(rows.dropna(subset=["few_workers"])))
    if "nc_true" in rows:
        print("\n" + by_type_table(rows.dropna(subset=["nc_true"])))
    if "nc_at_mean" in rows:
        print("\n" + bias_table(rows.dropna(subset=["nc_at_mean"])))


if __name__ == "__main__":
    main()
