"""Dask clusters: connect to a scheduler, or start a local one.

Shared by the model-selection executors and iterative parameter mixing, so
that a missing scheduler gives the same clear error everywhere.
"""

__all__ = ["connect"]


def connect(scheduler=None, n_workers=1, timeout=3.0):
    """A ``distributed.Client`` and what to close when done.

    Parameters
    ----------
    scheduler : str, distributed.Client or None
        A scheduler address (``"tcp://host:8786"``), ``"local:N"`` (a
        ``LocalCluster`` of N single-threaded worker processes), a connected
        client (used as is, never closed here), or None: a ``LocalCluster``
        of ``n_workers`` workers.
    n_workers : int, default=1
    timeout : float, default=3.0
        Seconds to wait for the scheduler.

    Returns
    -------
    client : distributed.Client
    owned : list
        The client and cluster started here, to ``close()`` in reverse
        order.

    Raises
    ------
    ConnectionError
        If the scheduler does not answer within ``timeout`` seconds.
    ImportError
        If ``distributed`` is missing.
    ValueError
        On a malformed ``"local:N"``.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - a test dependency
        raise ImportError("Dask needs 'distributed' (pip install "
                          "perceptrons[dask])") from exc
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, []
    if isinstance(scheduler, str) and scheduler.startswith("local:"):
        count = scheduler[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"scheduler {scheduler!r}: expected local:N with "
                             "N >= 1 workers")
        scheduler, n_workers = None, int(count)
    if scheduler is None:
        cluster = LocalCluster(n_workers=int(n_workers), threads_per_worker=1,
                               processes=True, dashboard_address=":0")
        client = Client(cluster)
        return client, [cluster, client]
    try:
        client = Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(
            f"no Dask scheduler answered at {scheduler!r} within {timeout:g} "
            f"s ({type(exc).__name__}); start one with `dask scheduler` "
            "and `dask worker ADDRESS`, or drop --scheduler") from None
    return client, [client]
