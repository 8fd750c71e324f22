"""Run a study's independent tasks in-process, in a process pool, or on a Dask cluster.

Every task carries its own seed, so a study's results do not depend on which executor ran it
or in what order the tasks finished: results are returned in task order.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed

#: Executor names understood besides executor objects.
EXECUTORS = ("local", "process")


def _is_dask_client(executor: object) -> bool:
    return (
        type(executor).__module__.split(".")[0] == "distributed"
        and hasattr(executor, "submit")
        and hasattr(executor, "gather")
    )


def check_executor(executor: object) -> object:
    """Validate an ``executor`` argument (None, "local", "process", a concurrent.futures
    Executor or a dask.distributed Client) before a study starts."""
    if executor is None or (isinstance(executor, str) and executor in EXECUTORS):
        return executor
    if isinstance(executor, ThreadPoolExecutor):
        # The estimators silence expected warnings with warnings.catch_warnings, which changes
        # process-wide state and is not thread-safe: threads would leak or lose warnings.
        raise TypeError(
            "executor must not be a ThreadPoolExecutor (warning filters are not thread-safe); use 'process' or a Dask Client"
        )
    if isinstance(executor, Executor) or _is_dask_client(executor):
        return executor
    raise TypeError(
        f"executor must be None, 'local', 'process', a concurrent.futures.Executor or a dask.distributed.Client; "
        f"saw {executor!r}"
    )


def run_tasks(
    function, tasks: list[tuple], executor=None, progress: bool = False, description: str = "tasks"
) -> list:
    """``[function(*task) for task in tasks]``, computed by ``executor``, in task order.

    ``function`` must be importable by name (a module-level function) for the process pool and
    for Dask.  ``progress`` shows a tqdm bar that advances as tasks finish.
    """
    from tqdm import tqdm

    executor = check_executor(executor)
    results = [None] * len(tasks)
    with tqdm(total=len(tasks), desc=description, disable=not progress, leave=False) as bar:
        if executor is None or executor == "local":
            for i, task in enumerate(tasks):
                results[i] = function(*task)
                bar.update()
            return results
        if _is_dask_client(executor):
            from distributed import as_completed as dask_completed

            futures = [executor.submit(function, *task, pure=False) for task in tasks]
            position = {future.key: i for i, future in enumerate(futures)}
            for future in dask_completed(futures):
                results[position[future.key]] = future.result()
                bar.update()
            return results
        if executor == "process":
            # spawn, not fork: JAX is multithreaded and must not be forked.
            with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
                return _collect(pool, function, tasks, results, bar)
        return _collect(executor, function, tasks, results, bar)


def _collect(pool: Executor, function, tasks, results: list, bar) -> list:
    futures = {pool.submit(function, *task): i for i, task in enumerate(tasks)}
    for future in as_completed(futures):
        results[futures[future]] = future.result()
        bar.update()
    return results
