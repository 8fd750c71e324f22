"""Size and power of ``calibration_test`` with known and estimated channels, beside naive tests
(issue 18).

Each replicate draws a design anew and tests at the 5% level:

- ``known channels``: ``bayescal.calibration_test`` with the simulation's true channels;
- ``EM channels``: with ``dawid_skene_em`` fitted on the same items (reuse: the refitting
  parametric bootstrap, ``BOOTSTRAP`` = 99 refits, which keeps the 5% level exact: p <= 0.05
  when at most 4 of the 99 replicate statistics reach the observed one);
- ``EM taken as known``: the EM estimate passed as known ``Channels`` (the chi-square reference
  at the estimate: the trap the bootstrap avoids);
- ``BayesFit``: with ``fit_bayes`` (Dawid–Skene, 2 chains x (500 + 500): the test uses one
  draw, as the start of its Gibbs run) on the same items (reuse: the sampled-posterior
  p-value at a draw of the channels' posterior under H0);
- ``soft vote`` and ``majority vote``: the same chi-square over the same 10 bins with the vote
  taken as the clean label, ``sum_l (sum_{i in B_l} (V_i - Z_i))^2 / sum_{i in B_l} Z_i (1 - Z_i)``
  (what a clean-label test does on noisy votes; ties of the majority vote count 1/2).

Calibrated designs (H0 true): the paper's toy design (``calibrated``, N = 2 000); the same with
40% of the labels missing at random; five annotators of mixed quality (gaps 0.4-0.8) with 30%
missing on uniform scores; three weak annotators (gaps 0.25-0.35) on uniform scores, whose EM
refits take 0.1 s each (several starts), so its estimated-channel columns use
``--weak-replicates``; the same five annotators (all labels) with a0 and a1 sharing errors on
20% of the items (``simulate_dependent``, issue 19), where ``EM channels`` is the dependent EM
fit (``dependent=("a0", "a1")``, its bootstrap refits the pair), ``BayesFit`` the dependent
NUTS fit (its H0 draw draws the pair's tables, issue 38), and ``known channels`` and ``EM
taken as known`` ignore the pair's covariance; the same five annotators sharing an item
difficulty (``simulate_difficulty``, loadings 1 and 1.5), where ``BayesFit`` is the
``shared_difficulty`` NUTS fit (its H0 draw runs Metropolis steps of the channels and loadings,
and the variance has the covariances the difficulty gives every pair, issue 38), while the
other tests read the judges as independent; the same five annotators where on 30% of the
items a1 copies a0 and then, on its own 30%, a2 copies a1 (issue 38: a tree of two pairs that
share a1), where ``EM channels`` is the EM fit of the tree (its bootstrap draws each replicate
along the tree and refits it) and ``BayesFit`` the tree's NUTS fit (its H0 draw draws the
tree's joint given Y); a crowd of 20 workers (uniform workloads, good workers, two labels an
item, ``simulate_crowd``'s ``calibrated`` condition) beside two judges who label every item,
j1 copying j0 on 40% of them (issue 38), where ``EM channels`` is ``crowd_em`` with the pair
(its bootstrap draws the pair's answers jointly and refits the pair), ``BayesFit`` the
hierarchical crowd model with the pair; the same five annotators where a0, a1 and a2 answer
from the pairwise log-linear model given Y (``simulate_log_linear``, conditional log odds
ratios 1-2: a cycle of three pairs), where ``EM channels`` is the EM fit of the cycle (its
bootstrap draws each replicate's three answers from the cycle's joint and refits it) and
``BayesFit`` the ``dawid_skene`` fit with the cycle (its H0 draw steps the cycle's joint).
Miscalibrated designs (power): the toy ``shifted`` and ``nonlinear`` conditions at N = 8 000
and N = 500, where the tests differ.  The estimated-channel columns of the power rows use
``--power-replicates`` (their rejection rate is 100% or near it at N = 8 000).

    XLA_FLAGS=--xla_force_host_platform_device_count=2 \
        .venv/bin/python benchmarks/calibration_test_size.py --replicates 1000 --workers 2
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import sys
import time
import warnings

import numpy as np
from scipy import stats

import bayescal as bc

WEAK = bc.Channels([0.30, 0.35, 0.25], [0.60, 0.70, 0.55])
FIVE = bc.Channels([0.10, 0.20, 0.15, 0.30, 0.25], [0.90, 0.80, 0.85, 0.70, 0.75])
N_BINS, LEVEL, BOOTSTRAP = 10, 0.05, 99
DEPENDENT = "five annotators, a0 ~ a1 sharing errors"
DIFFICULTY = "five annotators sharing a difficulty"
TREE = "five annotators, a1 copies a0 and a2 copies a1"
CROWD_PAIR = "a crowd and two judges, j1 copies j0"
CYCLE = "five annotators, a0 ~ a1 ~ a2 ~ a0 (log-linear)"
#: The right model's dependent pairs of each dependent design.
PAIRS = {
    DEPENDENT: ("a0", "a1"),
    TREE: [("a0", "a1"), ("a1", "a2")],
    CROWD_PAIR: ("j0", "j1"),
    CYCLE: [("a0", "a1"), ("a1", "a2"), ("a0", "a2")],
}
#: CYCLE's conditional log odds ratios of its three pairs given Y = 0 and Y = 1.
CYCLE_INTERACTION = np.array([[1.5, 1.0], [1.0, 2.0], [1.0, 1.5]])
#: The judges of CROWD_PAIR.
JUDGES = bc.Channels([0.15, 0.20], [0.85, 0.80])


def design(name: str, seed: int):
    """(data, true channels) of one replicate."""
    if name == "weak annotators":
        sim = bc.simulate_annotated(2000, WEAK, seed=seed)
        return sim.data, sim.channels
    if name == "five annotators, 30% missing":
        sim = bc.simulate_annotated(2000, FIVE, seed=seed)
        return _with_missing(sim, 0.3, seed), sim.channels
    if name == DEPENDENT:
        sim = bc.simulate.simulate_dependent(2000, FIVE, pair=(0, 1), shared_error=0.2, seed=seed)
        return sim.data, sim.channels
    if name == DIFFICULTY:
        sim = bc.simulate.simulate_difficulty(2000, FIVE, loading=(1.0, 1.5), seed=seed)
        return sim.data, sim.channels
    if name == TREE:
        sim = bc.simulate.simulate_dependent(
            2000, FIVE, pair=[(0, 1), (1, 2)], copying=0.3, seed=seed
        )
        return sim.data, sim.channels
    if name == CROWD_PAIR:
        return _crowd_and_judges(seed)
    if name == CYCLE:
        pairs = [(0, 1), (1, 2), (0, 2)]
        sim = bc.simulate.simulate_log_linear(2000, FIVE, pairs, CYCLE_INTERACTION, seed=seed)
        return sim.data, sim.channels
    condition, n = {
        "toy calibrated": ("calibrated", 2000),
        "toy calibrated, 40% missing": ("calibrated", 2000),
        "toy shifted": ("shifted", 8000),
        "toy nonlinear": ("nonlinear", 8000),
        "toy shifted, N = 500": ("shifted", 500),
        "toy nonlinear, N = 500": ("nonlinear", 500),
    }[name]
    sim = bc.toy_data(n, condition=condition, seed=seed)
    if "missing" not in name:
        return sim.data, sim.channels
    return _with_missing(sim, 0.4, seed), sim.channels


def _crowd_and_judges(seed: int):
    """CROWD_PAIR's data and true channels (module docstring)."""
    crowd = bc.simulate_crowd(
        2000, 20, labels_per_item=2, workload="uniform", worker_mix={"good": 1.0},
        condition="calibrated", seed=seed,
    )  # fmt: skip
    rng = np.random.default_rng([seed, 1])
    y = crowd.labels[:, None] == 1
    judges = (rng.random((2000, 2)) < np.where(y, JUDGES.b, JUDGES.a)).astype(int)
    copied = rng.random(2000) < 0.4
    judges[copied, 1] = judges[copied, 0]
    # a copy on 40% of the items: j1's channel is that mixture of its own and j0's
    a1, b1 = (0.4 * rates[0] + 0.6 * rates[1] for rates in (JUDGES.a, JUDGES.b))
    data = bc.AnnotatedScores(
        crowd.data.scores,
        np.column_stack([judges, crowd.data.annotations]),
        annotator_names=["j0", "j1", *crowd.data.annotator_names],
    )
    channels = bc.Channels(
        np.concatenate([[JUDGES.a[0], a1], crowd.channels.a]),
        np.concatenate([[JUDGES.b[0], b1], crowd.channels.b]),
        names=data.annotator_names,
    )
    return data, channels


def _with_missing(sim, share: float, seed: int):
    """The simulation's data with ``share`` of the labels missing at random; every item keeps
    one label."""
    annotations = sim.data.annotations.copy()
    annotations[np.random.default_rng(seed).random(annotations.shape) < share] = -1
    empty = (annotations < 0).all(axis=1)
    annotations[empty, 0] = sim.data.annotations[empty, 0]
    return bc.AnnotatedScores(sim.data.scores, annotations)


def naive_p_value(scores, votes) -> float:
    """The clean-label chi-square of the module docstring with ``votes`` as the labels."""
    index = np.minimum((scores * N_BINS).astype(int), N_BINS - 1)
    residual = np.bincount(index, votes - scores, minlength=N_BINS)
    variance = np.bincount(index, scores * (1 - scores), minlength=N_BINS)
    used = variance > 0
    statistic = (residual[used] ** 2 / variance[used]).sum()
    return float(stats.chi2.sf(statistic, used.sum()))


def replicate(name: str, seed: int, estimated: bool, bayes: bool = True, em: bool = True) -> dict:
    """p-values of one replicate; the estimated-channel tests only when ``estimated``, the
    EM columns only with ``em`` and the BayesFit column only with ``bayes``."""
    data, channels = design(name, seed)
    p_values = {}
    dependent = PAIRS.get(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # saturated EM, NUTS diagnostics, left-out items
        p_values["known channels"] = p_value_or_nan(data, channels)
        if estimated and em:
            estimator = bc.crowd_em if name == CROWD_PAIR else bc.channels.dawid_skene_em
            try:
                fit = estimator(data, dependent=dependent)
            except (bc.exceptions.IdentificationError, bc.exceptions.ChannelFitError):
                # no admissible, checkable estimate on this replicate (e.g. a cycle's EM
                # estimate on the edge of its joints): the EM columns count it as refused
                fit = None
            if fit is not None:
                p_values["EM channels"] = p_value_or_nan(data, fit, n_replicates=BOOTSTRAP)
                p_values["EM taken as known"] = p_value_or_nan(data, fit.channels)
            else:
                p_values["EM channels"] = p_values["EM taken as known"] = float("nan")
        if estimated and bayes:
            model = {DIFFICULTY: "shared_difficulty", CROWD_PAIR: "hierarchical_dawid_skene"}
            model = model.get(name, "dawid_skene")
            try:
                posterior = bc.fit_bayes(
                    data, model=model, dependent=dependent, num_chains=2, num_warmup=500,
                    num_samples=500, seed=seed,
                )  # fmt: skip
            except (bc.exceptions.IdentificationError, bc.exceptions.ChannelFitError):
                # refused before sampling: its identification check reads the EM estimate,
                # which a cycle's replicate may put on the edge of its joints (as above)
                posterior = None
            p_values["BayesFit"] = (
                float("nan") if posterior is None else p_value_or_nan(data, posterior)
            )
    p_values["soft vote"] = naive_p_value(
        data.scores, bc.correction.soft_vote_labels(data.annotations)
    )
    p_values["majority vote"] = naive_p_value(
        data.scores, bc.correction.majority_vote_labels(data.annotations)
    )
    return p_values


def p_value_or_nan(data, channels, **options) -> float:
    """The test's p-value, NaN when it refuses the replicate (no item informative enough)."""
    try:
        return bc.calibration_test(data, channels, n_bins=N_BINS, **options).p_value
    except ValueError:
        return float("nan")


def _tested(rows: list[dict], test: str) -> tuple[np.ndarray, int]:
    """The p-values of ``test`` in the replicates it ran and was not refused in, and how many
    it ran in."""
    p_values = np.array([row[test] for row in rows if test in row])
    return p_values[np.isfinite(p_values)], p_values.size


def _tally(rows: list[dict]) -> str:
    """How many replicates each estimated-channel test rejected at the 5% level so far."""
    parts = []
    for test in ("EM channels", "BayesFit"):
        run, ran = _tested(rows, test)
        if ran:
            parts.append(f"{test} {np.sum(run <= LEVEL)} of {run.size} rejected")
    return ", ".join(parts)


TESTS = [
    "known channels",
    "EM channels",
    "EM taken as known",
    "BayesFit",
    "soft vote",
    "majority vote",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--power-replicates", type=int, default=100)
    parser.add_argument("--weak-replicates", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed, ...")
    parser.add_argument("--designs", help="design names separated by semicolons (default: all)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--em-only", action="store_true", help="skip the BayesFit column")
    only.add_argument("--bayes-only", action="store_true", help="skip the EM columns")
    args = parser.parse_args()
    names = [
        "toy calibrated",
        "toy calibrated, 40% missing",
        "five annotators, 30% missing",
        DEPENDENT,
        DIFFICULTY,
        TREE,
        CROWD_PAIR,
        CYCLE,
        "weak annotators",
        "toy shifted",
        "toy nonlinear",
        "toy shifted, N = 500",
        "toy nonlinear, N = 500",
    ]
    if args.designs:
        names = [name for name in names if name in args.designs.split(";")]
    print("| design | H0 | replicates | " + " | ".join(TESTS) + " | seconds |")
    print("|---|---|---:|" + "---:|" * (len(TESTS) + 1))
    context = multiprocessing.get_context("spawn")  # JAX does not survive a fork
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        for name in names:
            start = time.perf_counter()
            calibrated = "calibrated" in name or "annotators" in name or name == CROWD_PAIR
            estimated = (
                args.weak_replicates
                if name == "weak annotators"
                else args.replicates
                if calibrated
                else args.power_replicates
            )
            seeds = range(args.first_seed, args.first_seed + args.replicates)
            jobs = [
                pool.submit(
                    replicate,
                    name,
                    seed,
                    seed - args.first_seed < estimated,
                    not args.em_only,
                    not args.bayes_only,
                )
                for seed in seeds
            ]
            rows = []
            for job in concurrent.futures.as_completed(jobs):
                rows.append(job.result())
                if len(rows) % 10 == 0:  # a long design says how far it is, and how it stands
                    print(
                        f"{name}: {len(rows)} of {len(jobs)} replicates; " + _tally(rows),
                        file=sys.stderr,
                    )
            cells = []
            for test in TESTS:
                run, ran = _tested(rows, test)
                refused = f", {ran - run.size} refused" if run.size < ran else ""
                # p <= level: a Monte Carlo p-value (1 + #) / (B + 1) sits on its grid, and with
                # "<" the bootstrap's level would be 4 / 100, not 5 / 100
                rate = f"{np.mean(run <= LEVEL):.1%}" if run.size else "—"
                cells.append(f"{rate} ({run.size}{refused})")
            print(
                f"| {name} | {'true' if calibrated else 'false'} | {args.replicates} | "
                + " | ".join(cells)
                + f" | {time.perf_counter() - start:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
