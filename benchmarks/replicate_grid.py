"""The replicate grid the simulation benchmarks share: every design times every seed, one
``replicate(design, n, seed, *extra) -> dict`` (or a list of them, one row each) each, on a
pool of processes, as one table.

A benchmark run as a script imports this from its own folder (``benchmarks/``)."""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing

import pandas as pd


def grid_arguments(parser: argparse.ArgumentParser, designs, *, replicates: int) -> None:
    """The grid's options: replicates, first seed, n, workers, designs (``;``-separated) and
    the CSV of every replicate's row."""
    parser.add_argument("--replicates", type=int, default=replicates)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--designs", default=";".join(designs))
    parser.add_argument("--csv", help="also write every replicate's row here")


def run_grid(replicate, args: argparse.Namespace, *extra) -> tuple[pd.DataFrame, range]:
    """Every replicate of the grid ``args`` (:func:`grid_arguments`) as one table (also
    written to ``args.csv``), and the seeds."""
    seeds = range(args.first_seed, args.first_seed + args.replicates)
    context = multiprocessing.get_context("spawn")  # JAX does not survive a fork
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        futures = [
            pool.submit(replicate, design, args.n, seed, *extra)
            for design in args.designs.split(";")
            for seed in seeds
        ]
        results = [future.result() for future in futures]
    # a replicate's row, or its rows (one per model it fits)
    frame = pd.DataFrame(
        [row for result in results for row in ([result] if isinstance(result, dict) else result)]
    )
    if args.csv:
        frame.to_csv(args.csv, index=False)
    return frame, seeds
