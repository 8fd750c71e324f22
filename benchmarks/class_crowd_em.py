"""Multi-class crowd EM: bayescal's crowd_em against crowd-kit 1.4's DawidSkene (issue 39).

Run in the benchmark environment (``make bench`` builds it):

    .venv-bench/bin/python benchmarks/class_crowd_em.py [--items 100000 --workers 1000 --labels 5 --classes 5]

The crowd: ``--items`` items of ``--classes`` classes (proportions from a Dirichlet(5)), each
labelled by ``--labels`` distinct workers drawn with Zipf-like weights (``1 / rank``: a few
workers label thousands of items, most a few dozen).  Workers: 80% good (each row's diagonal
uniform in 0.55-0.9, the rest spread by a flat Dirichlet), 10% spammers (every row the same
random distribution), 5% who always answer one class, 5% adversarial (a good matrix with its
columns shifted by one class).  The timed input is the long table (item, annotator, label,
with text ids), as a labelling project stores it.  Timed, median of ``--repeats`` interleaved
rounds:

- bayescal: ``Responses.from_long(labels, classes=...)`` and ``crowd_em`` with its defaults
  (one start from the majority vote, tol 1e-7 on the change in mean log posterior, at most
  500 iterations, a Dirichlet(2) on every row when a worker has fewer than 30 labels, the
  workers with fewer than 30 labels sharing one pooled matrix);
- crowd-kit: ``DawidSkene().fit(labels)`` with its defaults (one start from the majority
  vote, tol 1e-5, at most 100 iterations), on the same frame with its column names.

Reported: seconds, the ratio to bayescal, and the accuracy of each one's aggregate label (the
class of largest posterior) against the simulated truth.
"""

from __future__ import annotations

import argparse
import platform
import warnings

import numpy as np
import pandas as pd
from bench_dawid_skene import median_time  # this folder is on the path of a script
from scipy import special

import bayescal as bc
from bayescal.data.responses import Responses


def simulate(n_items: int, n_workers: int, labels: int, n_classes: int, seed: int):
    """(long table, truth by item, worker types) of the crowd in the module docstring."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(n_classes, n_items, p=rng.dirichlet(np.full(n_classes, 5.0)))
    types = rng.choice(
        ["good", "spammer", "constant", "adversarial"], n_workers, p=[0.8, 0.1, 0.05, 0.05]
    )
    confusion = np.empty((n_workers, n_classes, n_classes))
    for j, kind in enumerate(types):
        diagonal = rng.uniform(0.55, 0.9, n_classes)
        rest = rng.dirichlet(np.ones(n_classes - 1), n_classes) * (1 - diagonal)[:, None]
        good = np.array(
            [np.insert(rest[y], y, diagonal[y]) for y in range(n_classes)]
        )  # row y: the diagonal at y, the rest around it
        if kind == "good":
            confusion[j] = good
        elif kind == "adversarial":
            confusion[j] = np.roll(good, 1, axis=1)
        elif kind == "spammer":
            confusion[j] = rng.dirichlet(np.ones(n_classes))
        else:
            confusion[j] = np.eye(n_classes)[rng.integers(n_classes)]
    weights = 1.0 / np.arange(1, n_workers + 1)
    weights = weights[rng.permutation(n_workers)] / weights.sum()
    # each item's workers: distinct, drawn by weight (Gumbel top-k)
    keys = np.log(weights) + rng.gumbel(size=(n_items, n_workers))
    workers = np.argpartition(-keys, labels, axis=1)[:, :labels]
    items = np.repeat(np.arange(n_items), labels)
    workers = workers.ravel()
    rows = confusion[workers, truth[items]]
    answers = (rng.random((items.size, 1)) > rows.cumsum(axis=1)).sum(axis=1)
    answers = np.minimum(answers, n_classes - 1)
    table = pd.DataFrame(
        {
            "item": [f"i{i}" for i in items],
            "annotator": [f"w{j}" for j in workers],
            "label": [f"c{k}" for k in answers],
        }
    )
    return table, truth, types


def posterior_labels(responses, fit) -> np.ndarray:
    """Each item's class of largest posterior under the fitted matrices."""
    log_t = np.log(np.clip(fit.channels.confusion, 1e-12, 1.0))  # (K, y, k)
    terms = log_t[responses.annotator, :, responses.label]  # (R, y)
    joint = np.log(np.clip(fit.prevalence, 1e-12, 1.0)) + np.stack(
        [
            np.bincount(responses.item, terms[:, y], responses.n_items)
            for y in range(terms.shape[1])
        ],
        axis=1,
    )
    return np.argmax(joint - special.logsumexp(joint, axis=1, keepdims=True), axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=1_000)
    parser.add_argument("--labels", type=int, default=5)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from crowdkit.aggregation import DawidSkene

    labels, truth, types = simulate(args.items, args.workers, args.labels, args.classes, seed=0)
    classes = [f"c{k}" for k in range(args.classes)]
    frame = labels.rename(columns={"item": "task", "annotator": "worker"})
    kinds = dict(zip(*np.unique(types, return_counts=True)))
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; crowd: "
        f"{args.items} items, {args.workers} workers, {args.labels} labels per item, "
        f"{args.classes} classes ({len(labels)} labels), workers by type "
        f"{ {str(k): int(n) for k, n in kinds.items()} }\n"
    )

    def ours_fit():
        responses = Responses.from_long(labels, classes=classes)
        return responses, bc.crowd_em(responses)

    ours, theirs = [], []
    for _ in range(args.repeats):  # interleaved rounds: both see the same machine state
        ours.append(median_time(ours_fit, 1))
        theirs.append(median_time(lambda: DawidSkene().fit(frame), 1))
    ours_s = float(np.median([t for t, _ in ours]))
    theirs_s = float(np.median([t for t, _ in theirs]))
    responses, fit = ours[-1][1]
    # Responses.from_long numbers the items in order of first appearance: i0, i1, ...
    our_accuracy = float(np.mean(posterior_labels(responses, fit) == truth))
    order = [f"i{i}" for i in range(args.items)]
    their_labels = theirs[-1][1].labels_.reindex(order).to_numpy()
    their_accuracy = float(np.mean(their_labels == np.array(classes)[truth]))
    print("| method | seconds | / bayescal | label accuracy | iterations |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds, accuracy, iterations in (
        ("bayescal crowd_em", ours_s, our_accuracy, fit.n_iter),
        ("crowd-kit DawidSkene", theirs_s, their_accuracy, "-"),
    ):
        print(
            f"| {name} | {seconds:.3f} | {seconds / ours_s:.1f}x | {accuracy:.4f} | {iterations} |"
        )
    print(f"\nbayescal: smoothing alpha = {fit.smoothing:g}, {len(fit.pooled)} workers pooled")


if __name__ == "__main__":
    main()
