"""Threads for the compiled loops: ``n_jobs`` as scikit-learn means it.

Work is split only where the split changes no bit: disjoint outputs, each
computed by the same code whatever thread runs it. The tiles of a kernel
block are numba ``prange`` loops, whose thread count is numba's per-thread
setting: :func:`compiled_threads` sets it for an estimator's passes and
restores it after, so that two estimators called from two threads (joblib,
Dask) do not see each other's. The one-vs-rest problems of a pass and the
row chunks of a prediction run on a thread pool, each a compiled call that
releases the GIL, in parts from :func:`contiguous_parts`.
"""

import os
from contextlib import contextmanager

import numba

__all__ = ["compiled_threads", "contiguous_parts", "effective_n_jobs"]


def effective_n_jobs(n_jobs):
    """Threads for ``n_jobs``: None → 1, -1 → every core, -2 → all but one
    (joblib's rule), at most numba's pool (``NUMBA_NUM_THREADS``)."""
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        n = 1
    elif n_jobs < 0:
        n = (os.cpu_count() or 1) + 1 + n_jobs
    else:
        n = n_jobs
    return max(1, min(n, available))


def contiguous_parts(n_items, n_parts):
    """``n_parts`` contiguous ``(lo, hi)`` ranges covering ``range(n_items)``,
    as even as whole items allow (the first and last may be a little
    shorter)."""
    bounds = [round(n_items * k / n_parts) for k in range(n_parts + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


@contextmanager
def compiled_threads(n_jobs):
    """Run the enclosed compiled calls with :func:`effective_n_jobs` threads.

    With one thread nothing is set: the loops then take their serial code,
    which never starts numba's thread pool (a process that forks after
    starting GNU OpenMP threads may not use them in the child).
    """
    n_threads = effective_n_jobs(n_jobs)
    if n_threads == 1:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)
