"""The replicate grid the simulation benchmarks share: every design times every seed, one
``replicate(design, n, seed, *extra) -> dict`` (or a list of them, one row each) each, on a
pool of processes, as one table.

A benchmark run as a script imports this from its own folder (``benchmarks/``)."""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import sys

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
    """Every replicate of the grid ``args`` (:func:`grid_arguments`) as one table, and the
    seeds.  Rows are appended to ``args.csv`` as their replicates finish, so an interrupted
    run keeps what it measured; a replicate that raises is named on stderr with its error
    and left out, instead of ending the run (the table's replicate counts show it)."""
    seeds = range(args.first_seed, args.first_seed + args.replicates)
    context = multiprocessing.get_context("spawn")  # JAX does not survive a fork
    rows, written = [], False
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        futures = {
            pool.submit(replicate, design, args.n, seed, *extra): (design, seed)
            for design in args.designs.split(";")
            for seed in seeds
        }
        for future in concurrent.futures.as_completed(futures):
            try:
                result = future.result()
            except Exception as error:  # one bad replicate must not lose the others
                design, seed = futures[future]
                print(f"replicate {design!r} seed {seed} failed: {error!r}", file=sys.stderr)
                continue
            # a replicate's row, or its rows (one per model it fits)
            new = [result] if isinstance(result, dict) else result
            rows.extend(new)
            if args.csv:
                pd.DataFrame(new).to_csv(
                    args.csv, mode="a" if written else "w", header=not written, index=False
                )
                written = True
    if not rows:
        raise SystemExit("every replicate failed (each is named above): no table to show")
    # replicates finish in any order: by seed, in the order of the designs asked for
    order = {design: i for i, design in enumerate(args.designs.split(";"))}
    frame = (
        pd.DataFrame(rows)
        .sort_values("seed", kind="stable")
        .sort_values("design", key=lambda column: column.map(order), kind="stable")
        .reset_index(drop=True)
    )
    return frame, seeds
