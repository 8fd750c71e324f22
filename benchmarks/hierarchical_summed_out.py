"""Workers of one label summed out of the hierarchical model, against sampling them.

A simulated crowd (``bayescal.simulate_crowd``: ITEMS items, 20 workers, two labels per item,
seed 3) and one more worker per item who labels that item only, their channels drawn uniformly
(a in (0.05, 0.3), b in (0.65, 0.95)).  The same model is sampled twice, 2 chains x (500 warm-up
+ 500 draws), in one process: with the one-label workers summed out (the default design) and
with every worker sampled (``ResponseDesign.from_responses(..., sum_out_single=False)``).
Summing out is exact (``bayescal.models.hierarchical_dawid_skene``'s docstring), so the two
posteriors should agree within Monte Carlo error; the seconds include compiling.

    .venv/bin/python benchmarks/hierarchical_summed_out.py [ITEMS]   # default 800
"""

from __future__ import annotations

import sys
import time

import numpy as np
from bayescal.models import ResponseDesign

import bayescal as bc
from bayescal.bayes.diagnostics import ess_bulk
from bayescal.bayes.sampler import Sampler
from bayescal.data.responses import Responses


def crowd_with_one_label_workers(n_items: int) -> tuple[Responses, np.ndarray]:
    """The crowd's responses with one more worker per item, and the items' classes."""
    sim = bc.simulate_crowd(n_items, 20, labels_per_item=2, seed=3)
    responses = sim.data.responses()
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.05, 0.3, n_items), rng.uniform(0.65, 0.95, n_items)
    label = (rng.random(n_items) < np.where(sim.labels == 1, b, a)).astype(np.int8)
    k = responses.n_annotators
    names = (*responses.annotator_names, *(f"once{j}" for j in range(n_items)))
    return Responses(
        np.r_[responses.item, np.arange(n_items)],
        np.r_[responses.annotator, k + np.arange(n_items)],
        np.r_[responses.label, label],
        n_items,
        names,
    ), sim.labels


def main(n_items: int) -> None:
    responses, labels = crowd_with_one_label_workers(n_items)
    many = responses.labels_per_annotator() > 1
    print(f"{n_items} items, {many.sum()} workers of many labels, {(~many).sum()} of one label")
    print(f"true prevalence {labels.mean():.4f}\n")
    print(
        "| design | sampled dimensions | seconds | prevalence | mean channel of the one-label "
        "workers (a, b) | population mean logits | min bulk ESS (prevalence, means) | "
        "divergences |"
    )
    print("|---|---:|---:|---|---|---|---:|---:|")
    for summed in (True, False):
        design = ResponseDesign.from_responses(responses, sum_out_single=summed)
        start = time.perf_counter()
        sampler = Sampler(design, "hierarchical_dawid_skene", 2, 500, 500)
        samples, extra = sampler.run(design, bc.Priors(), 0)
        seconds = time.perf_counter() - start
        prevalence = samples["prevalence"]
        once_a, once_b = (samples[x][..., ~many].mean(axis=-1) for x in ("a", "b"))
        mean = samples["population_mean"]
        ess = min(
            ess_bulk(prevalence),
            *(ess_bulk(mean[..., k]) for k in range(2)),
        )
        # two logits per sampled worker; the population's six sites and the prevalence
        dimensions = 2 * (design.n_annotators - design.n_summed_out) + 7
        print(
            f"| {'summed out' if summed else 'all sampled'} | {dimensions} | {seconds:.1f} | "
            f"{prevalence.mean():.4f} ± {prevalence.std():.4f} | "
            f"{once_a.mean():.4f} ± {once_a.std():.4f}, {once_b.mean():.4f} ± {once_b.std():.4f} | "
            f"{mean[..., 0].mean():.3f}, {mean[..., 1].mean():.3f} | {ess:.0f} | "
            f"{int(extra['diverging'].sum())} |"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 800)
