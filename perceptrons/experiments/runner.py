"""The one runner of every reproduction, and where its tasks execute.

A paper's reproduction is a :class:`Reproduction`: the tasks it submits
(through a :class:`Session`), the module-level workers that run them, the
summary of its records and the renderers of its report. :func:`run_reproduction`
runs any of them the same way:

1. it picks the :class:`Executor` from the options (:func:`executor_for`):
   ``--scheduler ADDR`` a Dask cluster, else ``--jobs N`` > 1 joblib's
   processes, else the calling process; connecting comes first, so an
   unreachable scheduler leaves nothing written;
2. it opens the append-only :class:`~.store.Store` ``<stem>_records.jsonl``
   (emptied unless ``--resume``, which keeps the finished records and runs
   only the missing tasks) and lets the reproduction submit its tasks;
3. it reads the records back *as stored*, in the order the tasks were
   submitted, so the summary and the report are the same functions of the
   same records whatever the executor, the worker count, the order tasks
   finished in, or whether a record is new or kept by ``--resume``; every
   task's seed is in the task itself, never taken from the executor;
4. it writes ``<stem>_run.json`` (wall time, executor, workers, start) and
   calls the summary and the renderers.

``render_only`` runs nothing: the report is rendered again from the store
(``perceptrons reproduce NAME --render-only --output-dir DIR``), and a task
with no record is an error.
"""

import itertools
import json
import math
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

from ..utils.cluster import connect
from .report import write_text
from .store import Store, progress_bar, run_tasks

__all__ = ["ConfigReproduction", "Executor", "Reproduction", "Session",
           "executor_for", "run_configured",
           "make_executor", "run_reproduction"]


# ------------------------------------------------------------------ executors
def _call(worker, task, data):
    """``worker(task)``, or ``worker(task, data)`` when data was bound."""
    return worker(task) if data is None else worker(task, data)


def _run_batch(worker, tasks, data):
    return [_call(worker, t, data) for t in tasks]


class Executor:
    """Where tasks run: ``serial``, ``joblib`` or ``dask``.

    Made by :func:`make_executor`; :meth:`mapper` binds the data and gives
    :func:`~.store.run_tasks` its ``mapper``. Use as a context manager (a
    Dask cluster started here is closed on exit).
    """

    def __init__(self, kind, n_jobs=1, client=None, own=()):
        self.kind, self.n_jobs, self.client = kind, int(n_jobs), client
        self._own = list(own)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Close what this executor started (a client, a local cluster)."""
        for thing in reversed(self._own):
            thing.close()
        self._own = []

    @property
    def n_workers(self):
        if self.kind == "dask":
            return max(1, len(self.client.scheduler_info(n_workers=-1)
                              ["workers"]))
        return self.n_jobs

    def _batches(self, tasks):
        """The tasks in batches, each data set's cut on its own.

        A batch of tiny fits pays the scheduling overhead once, and about
        8 batches per worker balance the load; but a batch's records arrive
        (and an interrupted run loses them) together, and data sets differ
        in cost by orders of magnitude. Cut over the whole list, the 77
        MNIST kernel fits of the K&W run (39 to 130 s each) sat in batches
        of 64 beside cheap ones: 23 minutes without a record. Tasks of one
        data set cost alike, so each run of them is cut into about 8
        batches per worker (at most 64 tasks each).
        """
        batches = []
        for _, run in itertools.groupby(
                tasks, key=lambda task: getattr(task, "dataset", None)):
            run = list(run)
            size = max(1, min(64, math.ceil(len(run) / (8 * self.n_workers))))
            batches.extend(run[i:i + size] for i in range(0, len(run), size))
        return batches

    def mapper(self, data=None):
        """A ``mapper(worker, tasks)`` for :func:`~.store.run_tasks` that
        yields records as they finish.

        It calls ``worker(task, data)``, or ``worker(task)`` when ``data``
        is None. ``data`` goes to each worker process once (joblib
        memory-maps large arrays; Dask scatters it to every worker).
        """
        if self.kind == "serial":
            return lambda worker, tasks: (_call(worker, t, data)
                                          for t in tasks)
        if self.kind == "joblib":
            def joblib_map(worker, tasks):
                from joblib import Parallel, delayed

                if not tasks:
                    return
                parallel = Parallel(n_jobs=self.n_jobs,
                                    return_as="generator_unordered")
                for batch in parallel(delayed(_run_batch)(worker, b, data)
                                      for b in self._batches(tasks)):
                    yield from batch
            return joblib_map

        def dask_map(worker, tasks):
            from distributed import as_completed

            if not tasks:
                return
            shared = data
            if data is not None:  # sent once to every worker, then by name
                # hash=False: a new key per call, so a second run on the
                # same data never races the release of the first's key.
                [shared] = self.client.scatter([data], broadcast=True,
                                               hash=False)
            futures = [self.client.submit(_run_batch, worker, b, shared,
                                          pure=False)
                       for b in self._batches(tasks)]
            for future in as_completed(futures):
                yield from future.result()
        return dask_map


def make_executor(backend="serial", n_jobs=1, scheduler=None, timeout=3.0):
    """An :class:`Executor` for ``backend``.

    Parameters
    ----------
    backend : {"serial", "joblib", "dask"}, default="serial"
        "dask" with no ``scheduler`` starts a ``LocalCluster`` of ``n_jobs``
        single-threaded worker processes.
    n_jobs : int, default=1
    scheduler : str or distributed.Client, default=None
        A scheduler address (``"tcp://host:8786"``, or ``"local:N"`` for a
        new ``LocalCluster`` of N workers) or a connected client; implies
        "dask".
    timeout : float, default=3.0
        Seconds to wait for the scheduler.

    Raises
    ------
    ConnectionError
        If the scheduler does not answer within ``timeout`` seconds.
    ImportError
        If "dask" is asked for and ``distributed`` is missing.
    """
    if scheduler is not None:
        backend = "dask"
    if backend not in ("serial", "joblib", "dask"):
        raise ValueError(f"backend must be 'serial', 'joblib' or 'dask', got "
                         f"{backend!r}")
    if isinstance(n_jobs, bool) or int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs!r}")
    if backend != "dask":
        return Executor("serial" if n_jobs == 1 and backend == "serial"
                        else backend, n_jobs)
    client, owned = connect(scheduler, n_jobs, timeout)
    return Executor("dask", n_jobs, client, own=owned)


def executor_for(options):
    """The executor ``options`` ask for: ``scheduler`` (Dask), else
    ``jobs`` > 1 (joblib), else serial."""
    if options.scheduler:
        return make_executor("dask", options.jobs, options.scheduler)
    return make_executor("joblib" if options.jobs > 1 else "serial",
                         options.jobs)


# ------------------------------------------------------------------ protocol
class Reproduction(Protocol):
    """What :func:`run_reproduction` needs of a paper's reproduction.

    Attributes
    ----------
    stem : str
        Names the store ``<stem>_records.jsonl`` and the report's files.
    """

    stem: str

    def total(self):
        """How many tasks :meth:`tasks` submits, for the progress bar."""

    def tasks(self, session):
        """Submit every task through ``session.run`` (and a data set's load
        record, made in this process, through ``session.add``); a task may
        depend on the records of those before it."""

    def summary(self, records, run):
        """Everything the report shows, from the records (as stored, in
        submission order) and ``run`` (the ``<stem>_run.json`` facts)."""

    def render(self, summary, out):
        """Write the report's files into ``out``; return ``(markdown,
        files)``."""


class ConfigReproduction:
    """A :class:`Reproduction` of one configuration and a paper's functions.

    Parameters
    ----------
    config : object
        What to run (a paper's ``Config``).
    stem : str
    submit : callable
        ``submit(config, session)`` submits the tasks.
    count : callable
        ``count(config)``: how many tasks, for the progress bar.
    render : callable
        ``render(config, summary, out) -> (markdown, files)``.
    summarize : callable or None, default=None
        ``summarize(config, records)``; None: the summary is the records.
    """

    def __init__(self, config, stem, submit, count, render, summarize=None):
        self.config, self.stem = config, stem
        self._submit, self._count = submit, count
        self._render, self._summarize = render, summarize

    def total(self):
        return self._count(self.config)

    def tasks(self, session):
        self._submit(self.config, session)

    def summary(self, records, run):
        if self._summarize is None:
            return records
        return self._summarize(self.config, records)

    def render(self, summary, out):
        return self._render(self.config, summary, out)


def run_configured(make, options, config, quick, full):
    """``run(options, config)`` of a paper's package.

    Parameters
    ----------
    make : callable
        ``make(config)``: the package's :class:`Reproduction`.
    options : RunOptions
    config : object or None
        None: ``quick`` if ``options.quick``, else ``full``.
    quick, full : object
        The package's two configurations.

    Returns
    -------
    dict
        As :func:`run_reproduction`.
    """
    return run_reproduction(make(config or (quick if options.quick
                                            else full)), options)


class Session:
    """What a reproduction's :meth:`~Reproduction.tasks` submits through.

    Parameters
    ----------
    store : Store
    executor : Executor
    resume : bool
        Keep the store's finished records; run the other tasks.
    render_only : bool
        Run nothing: every submitted task must have a record.
    bar : tqdm bar or None
    """

    def __init__(self, store, executor, *, resume=False, render_only=False,
                 bar=None):
        self.store, self.executor, self.bar = store, executor, bar
        self.resume, self.render_only = resume or render_only, render_only
        self.keys = []
        self._done = None

    def done(self, tasks):
        """Whether every task has a record that ``resume`` keeps (then a
        reproduction need not even load its data)."""
        if not self.resume:
            return False
        if self._done is None:
            self._done = self.store.done()
        return all(t.key in self._done for t in tasks)

    def kept(self, tasks):
        """The records :meth:`done` found, in the order of ``tasks``."""
        records = [self._done[t.key] for t in tasks]
        self.keys += [t.key for t in tasks]
        return records

    def run_with_data(self, load, tasks, loader, worker):
        """A data set's load task, then its ``tasks`` on the data: nothing
        is loaded when every one has a record :meth:`done` keeps;
        ``loader(load)`` gives the load record and the data (None when it
        failed: the record says why, and the tasks are not run)."""
        if self.done([load, *tasks]):
            self.kept([load, *tasks])
            return
        record, data = loader(load)
        self.add(record)
        if data is not None:
            self.run(worker, tasks, data)

    def add(self, record):
        """Keep a record made in this process (a data set's load record);
        rendering only, the stored one of the same key wins."""
        stored = self.store.read() if self.render_only else {}
        if record["key"] in stored:
            self.keys.append(record["key"])
            return stored[record["key"]]
        self.store.append(record)
        self.keys.append(record["key"])
        return record

    def run(self, worker, tasks, data=None):
        """Run the tasks that have no record; return every task's record.

        Parameters
        ----------
        worker : callable
            Module-level ``worker(task)``, or ``worker(task, data)``.
        tasks : list of Task
        data : object, default=None
            Given to every call; sent to each worker process once.

        Returns
        -------
        list of dict
            The records, in the order of ``tasks``.
        """
        if self.render_only and not self.done(tasks):
            missing = sum(t.key not in self._done for t in tasks)
            raise ValueError(f"{self.store.path}: {missing} of {len(tasks)} "
                             "tasks have no record; run without "
                             "--render-only (with --resume) first")
        records = run_tasks(worker, tasks, self.store, resume=self.resume,
                            mapper=self.executor.mapper(data),
                            on_record=self._tick)
        self.keys += [r["key"] for r in records]
        return records

    def _tick(self, _):
        if self.bar is not None:
            self.bar.update()


def _run_facts(path, executor, wall, started):
    """``<stem>_run.json``: how the records of this run were made."""
    facts = {"wall_seconds": wall, "backend": executor.kind,
             "workers": executor.n_workers, "started_utc": started}
    write_text(path, json.dumps(facts, indent=1, sort_keys=True) + "\n")
    return facts


def run_reproduction(reproduction, options):
    """Run a reproduction's tasks and write its report.

    Parameters
    ----------
    reproduction : Reproduction
    options : RunOptions
        ``output_dir``, ``jobs``, ``scheduler``, ``resume``,
        ``render_only``, ``progress``.

    Returns
    -------
    dict
        ``markdown`` (the report), ``files`` (every path written: the
        store, ``<stem>_run.json``, then the renderers'), ``records`` (as
        stored, in submission order) and ``summary``.
    """
    out = Path(os.fspath(options.output_dir))
    path = out / f"{reproduction.stem}_records.jsonl"
    facts_path = out / f"{reproduction.stem}_run.json"
    render_only = getattr(options, "render_only", False)
    if render_only and not path.exists():
        raise FileNotFoundError(f"{path}: no records to render")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    start = time.perf_counter()
    with (make_executor() if render_only else executor_for(options)) \
            as executor:
        store = Store.open(path, resume=options.resume or render_only)
        bar = progress_bar(reproduction.total(), options.progress,
                           desc=reproduction.stem)
        session = Session(store, executor, resume=options.resume,
                          render_only=render_only, bar=bar)
        try:
            reproduction.tasks(session)
        finally:
            bar.close()
        out.mkdir(parents=True, exist_ok=True)
        if render_only and facts_path.exists():
            facts = json.loads(facts_path.read_text(encoding="utf-8"))
        elif render_only:
            facts = {}
        else:
            facts = _run_facts(facts_path, executor,
                               time.perf_counter() - start, started)
    stored = store.read()
    records = [stored[k] for k in dict.fromkeys(session.keys)]
    summary = reproduction.summary(records, facts)
    markdown, files = reproduction.render(summary, out)
    run_file = [facts_path] if facts_path.exists() else []
    return {"markdown": markdown, "files": [store.path, *run_file, *files],
            "records": records, "summary": summary}
