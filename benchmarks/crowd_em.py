"""Crowd EM: bayescal's crowd_em against crowd-kit 1.4 on one simulated crowd (issue 17).

Run in the benchmark environment (``make bench`` builds it):

    .venv-bench/bin/python benchmarks/crowd_em.py [--items 100000 --workers 1000 --labels 5]

The crowd is ``bayescal.simulate_crowd(items, workers, labels_per_item=labels)`` with the default
worker mix (80% good, 10% spammers, 5% constant, 5% adversarial; ``--spammers F``: good workers
and a share F of spammers) and heavy-tailed workloads;
the timed input is its long table (item, annotator, label with text ids), as a labelling
project stores it.  Timed, median of ``--repeats`` interleaved rounds:

- bayescal: ``Responses.from_long(labels)`` and ``crowd_em`` with its defaults (one start from
  the majority vote; tol 1e-7 on the change in mean log posterior; at most 500 iterations;
  Beta(2, 2) smoothing when a worker has fewer than 30 labels, else the MLE; the workers with
  fewer than 30 labels sharing one pooled channel);
- crowd-kit: ``DawidSkene().fit(labels)`` with its defaults (one start from the majority vote,
  tol 1e-5, at most 100 iterations), on the same frame with crowd-kit's column names;
- with ``--mace``, crowd-kit's ``MACE().fit(labels)`` once.

Reported: seconds, the ratio to bayescal, the accuracy of each one's aggregate label against
the simulated truth, and, for workers with >= 50 labels, the largest difference between
bayescal's and crowd-kit's (a_j, b_j) when both run unsmoothed and unpooled to a tight
tolerance.  The
peak memory of bayescal's part (tracemalloc, NumPy arrays included) is printed too.
"""

from __future__ import annotations

import argparse
import platform
import tracemalloc
import warnings

import numpy as np
from bench_dawid_skene import median_time  # this folder is on the path of a script

import bayescal as bc
from bayescal.data.responses import Responses


def bayescal_fit(labels, **options):
    responses = Responses.from_long(labels)
    return responses, bc.crowd_em(responses, **options)


def bayescal_accuracy(responses, fit, truth_by_item) -> float:
    """Accuracy of the label posterior rounded at 0.5 (the Dawid–Skene aggregate)."""
    a = np.clip(fit.channels.a, 1e-12, 1 - 1e-12)
    b = np.clip(fit.channels.b, 1e-12, 1 - 1e-12)
    worker, label = responses.annotator, responses.label
    log_ratio = np.where(label == 1, np.log(b / a)[worker], np.log((1 - b) / (1 - a))[worker])
    mu = fit.prevalence
    odds = np.log(mu / (1 - mu)) + np.bincount(responses.item, log_ratio, responses.n_items)
    return float(np.mean((odds > 0) == truth_by_item))


def crowdkit_channels(model, names):
    """(a, b) of crowd-kit's DawidSkene, from its errors_ P(observed | true)."""
    # rows (worker, observed label); a worker who never said 1 has no row for it: P = 0
    said_one = model.errors_.xs(1, level="label").reindex(list(names)).fillna(0.0)
    return said_one[0].to_numpy(), said_one[1].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=1_000)
    parser.add_argument("--labels", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--mace", action="store_true", help="also time crowd-kit's MACE (slow)")
    parser.add_argument(
        "--spammers",
        type=float,
        default=None,
        help="a crowd of good workers and this share of spammers, instead of the default mix",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from crowdkit.aggregation import MACE, DawidSkene

    mix = None if args.spammers is None else {"good": 1 - args.spammers, "spammer": args.spammers}
    crowd = bc.simulate_crowd(
        args.items, args.workers, labels_per_item=args.labels, worker_mix=mix, seed=0
    )
    labels, scores = crowd.long_tables()
    truth = dict(zip(scores["item"], scores["truth"]))
    frame = labels.rename(columns={"item": "task", "annotator": "worker"})
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; crowd: "
        f"{args.items} items, {args.workers} workers, {args.labels} labels per item "
        f"({len(labels)} labels), workers by type "
        f"{ {str(t): int(n) for t, n in zip(*np.unique(crowd.worker_types, return_counts=True))} }\n"
    )

    ours, theirs = [], []
    for _ in range(args.repeats):  # interleaved rounds: both see the same machine state
        ours.append(median_time(lambda: bayescal_fit(labels), 1))
        theirs.append(median_time(lambda: DawidSkene().fit(frame), 1))
    ours_s = float(np.median([t for t, _ in ours]))
    theirs_s = float(np.median([t for t, _ in theirs]))
    responses, fit = ours[-1][1]
    order = labels["item"].drop_duplicates()  # Responses.from_long numbers items so
    truth_by_item = np.array([truth[i] for i in order])
    model = theirs[-1][1]
    their_labels = model.labels_.reindex(order).to_numpy()

    rows = [
        ("bayescal crowd_em", ours_s, bayescal_accuracy(responses, fit, truth_by_item), fit.n_iter),
        ("crowd-kit DawidSkene", theirs_s, float(np.mean(their_labels == truth_by_item)), "-"),
    ]
    if args.mace:
        mace_s, mace = median_time(lambda: MACE().fit(frame), 1)
        mace_labels = mace.labels_.reindex(order).to_numpy()
        rows.append(("crowd-kit MACE", mace_s, float(np.mean(mace_labels == truth_by_item)), "-"))
    print("| method | seconds | / bayescal | label accuracy | iterations |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds, accuracy, iterations in rows:
        print(
            f"| {name} | {seconds:.3f} | {seconds / ours_s:.1f}x | {accuracy:.4f} | {iterations} |"
        )

    tracemalloc.start()
    bayescal_fit(labels)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nbayescal peak memory (long table to channels): {peak / 2**20:.0f} MiB")

    # the same estimator both ways, unsmoothed.  crowd-kit stops when its evidence lower bound
    # stops rising by tol, which even at tol 1e-12 ends short of the maximum; from the same
    # majority-vote start, k of its iterations are k + 1 M-steps, bayescal's max_iter=k + 1.
    tight = DawidSkene(n_iter=5000, tol=1e-12).fit(frame)
    steps = len(tight.loss_history_) + 1
    a, b = crowdkit_channels(tight, responses.annotator_names)
    _, same = bayescal_fit(labels, smoothing=None, pool=None, tol=1e-300, max_iter=steps)
    _, plain = bayescal_fit(labels, smoothing=None, pool=None, tol=1e-12, max_iter=5000)
    busy = responses.labels_per_annotator() >= 50

    def largest_difference(fit, mask):
        return max(np.abs(fit.channels.a - a)[mask].max(), np.abs(fit.channels.b - b)[mask].max())

    loglik = {
        "crowd-kit": _log_likelihood(responses, a, b, float(tight.priors_[1])),
        "bayescal": _log_likelihood(
            responses, plain.channels.a, plain.channels.b, plain.prevalence
        ),
    }
    every = np.ones(busy.size, dtype=bool)
    print(
        f"\nunsmoothed, crowd-kit tol 1e-12: it stops after {steps} M-steps; bayescal with "
        f"max_iter={steps}: max |difference| of (a_j, b_j) over all workers "
        f"{largest_difference(same, every):.1e}.\nbayescal to tol 1e-12 ({plain.n_iter} "
        f"iterations): max |difference| for the {int(busy.sum())} workers with >= 50 labels "
        f"{largest_difference(plain, busy):.1e}; log-likelihood {loglik['bayescal']:.4f} against "
        f"crowd-kit's {loglik['crowd-kit']:.4f} at its stop"
    )


def _log_likelihood(responses, a, b, mu) -> float:
    """The Dawid–Skene log-likelihood of the responses at (a, b, mu), computed here, apart
    from bayescal's EM: sum_i log(mu prod b^A (1-b)^(1-A) + (1-mu) prod a^A (1-a)^(1-A))."""
    a, b = np.clip(a, 1e-12, 1 - 1e-12), np.clip(b, 1e-12, 1 - 1e-12)
    worker, label = responses.annotator, responses.label == 1
    given1 = np.where(label, np.log(b)[worker], np.log1p(-b)[worker])
    given0 = np.where(label, np.log(a)[worker], np.log1p(-a)[worker])
    sums = [np.bincount(responses.item, x, responses.n_items) for x in (given1, given0)]
    return float(np.logaddexp(np.log(mu) + sums[0], np.log1p(-mu) + sums[1]).sum())


if __name__ == "__main__":
    main()
