"""The experiment store: tasks, their records, and the loop that runs them.

An experiment is a list of :class:`Task`: one unit of work (a cross-validation
fold, a noise level, a radius, one algorithm on one data set), named by its
experiment, data set, fold and parameters. A *worker*, a top-level function
``worker(task) -> record``, runs one task; :func:`run_tasks` maps it over the
tasks that have no record yet and appends each record to a :class:`Store` as
soon as it comes back. Reports (:mod:`.report`) read the records and never
refit.

``map(worker, tasks)`` is the serial path. :func:`run_tasks` takes any
``mapper`` with the signature of :func:`map` (a process pool's, joblib's), so
tasks hold plain values and arrays and workers are module-level functions:
everything pickles.

The key
-------
:func:`task_key` is the SHA-256 of the canonical JSON of the task's
``experiment``, ``dataset``, ``fold``, ``params`` and package ``version``
(sorted keys, no spaces, NaN as null, tuples as lists). The same task has the
same key in every process and every run, whatever the order of its
parameters; a new package version gives new keys. What a worker needs besides
(the arrays, an unfitted estimator) travels in ``Task.inputs``, outside the
key.

Records
-------
One JSON object per line of ``<stem>_records.jsonl``:

``schema``, ``schema_version``
    ``"perceptrons-record"``, 1.
``key``
    :func:`task_key` of the task.
``task``
    ``experiment``, ``dataset``, ``fold``, ``params``, ``version``.
``status``
    ``"ok"``; ``"error"`` (the worker caught a failure, its message in
    ``result["error"]``); ``"skipped"`` (not run, the reason in
    ``result["note"]``, e.g. an optional dependency is missing).
``result``
    The worker's numbers, JSON-ready (NaN and infinities written as null).
``seconds``
    Wall time of the task.
``meta``
    :func:`environment_metadata`: package, numba, numpy, scipy, scikit-learn,
    LIBLINEAR and Python versions, platform, CPUs, git SHA and dirty flag,
    command line, load average and the time the record was made.

The file is append-only. A record is one line, written by one ``write`` call
and flushed to disk before the next task's record, so an interrupted serial
run loses at most the task that was running (with ``jobs`` or Dask, tasks
travel in batches, a data set's tasks cut into about 8 per worker, whose
records arrive together: an interrupted run loses the batches in flight);
a damaged line is reported with its file and line number, never skipped
silently. When a key occurs twice the later record wins. ``resume=True``
keeps the records whose status is ``"ok"`` and runs every other task again.
"""

import functools
import hashlib
import importlib
import json
import math
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

__all__ = ["Store", "Task", "canonical_json", "environment_metadata",
           "json_ready", "make_record", "progress_bar", "run_tasks",
           "task_key"]

SCHEMA = "perceptrons-record"
SCHEMA_VERSION = 1


def _package_version():
    import perceptrons

    return perceptrons.__version__


def json_ready(obj):
    """``obj`` as plain JSON values: NaN and ±inf to None, tuples to lists.

    numpy scalars and arrays become Python numbers and lists, paths become
    strings; any other object becomes its ``repr``.
    """
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, Path):
        return str(obj)
    return repr(obj)


def canonical_json(obj):
    """The one JSON text of ``obj``: :func:`json_ready`, sorted, compact."""
    return json.dumps(json_ready(obj), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)


#: Parameters the estimators gained after stores were first written, with
#: their defaults (#23): at its default such a parameter stays out of a
#: task's key, so that the records of a store written before it existed are
#: still the records of the same tasks; any other value makes a new key.
LATER_PARAMETERS = {"class_weight": None, "warm_start": False, "tol": None,
                    "n_iter_no_change": 5, "early_stopping": False,
                    "validation_fraction": 0.1, "budget": None,
                    "budget_policy": "random"}


#: Parameters some classes gained later, at the value that gives what their
#: older stores ran (the matrix perceptrons predicted with the last
#: hypothesis before ``hypothesis`` existed).
LATER_PARAMETERS_OF = {
    "HigherOrderPerceptron": {"hypothesis": "last"},
    "SecondOrderPerceptron": {"hypothesis": "last"},
    "PassiveAggressive": {"intercept_update": "constant"},
}


#: Parameters that change no result (``n_jobs``: every value gives the same
#: bits, #24): never part of a task's identity, so that the same task run
#: with more threads finds its record.
NOT_IN_KEYS = frozenset({"n_jobs"})


def key_params(estimator):
    """An estimator's ``get_params(deep=False)`` as a task's key holds
    them (:data:`LATER_PARAMETERS` and :data:`LATER_PARAMETERS_OF` left out
    at those values, :data:`NOT_IN_KEYS` always)."""
    later = {**LATER_PARAMETERS,
             **LATER_PARAMETERS_OF.get(type(estimator).__name__, {})}

    def at_default(name, value):
        default = later.get(name, object())
        return type(value) is type(default) and value == default

    return {name: value
            for name, value in estimator.get_params(deep=False).items()
            if name not in NOT_IN_KEYS and not at_default(name, value)}


def task_key(experiment, dataset, fold, params, version):
    """SHA-256 (hex) of the canonical JSON of a task's identity."""
    ident = {"experiment": experiment, "dataset": dataset, "fold": fold,
             "params": params, "version": version}
    return hashlib.sha256(canonical_json(ident).encode("utf-8")).hexdigest()


@dataclass(frozen=True, eq=False)
class Task:
    """One unit of work of an experiment.

    Parameters
    ----------
    experiment : str
        The experiment's name (a reproduction's stem, ``"demo"``, ...).
    dataset : str
        The data set's name.
    fold : int or None
        The fold, or None for a task that is not one fold of several.
    params : dict
        Everything else that determines the result (JSON-able values).
    inputs : object, default=None
        What the worker needs and the key does not name: arrays, an
        unfitted estimator. Must pickle for a parallel ``mapper``.
    version : str, default=perceptrons.__version__
    """

    experiment: str
    dataset: str
    fold: object = None
    params: dict = field(default_factory=dict)
    inputs: object = field(default=None, repr=False)
    version: str = field(default_factory=_package_version)

    @property
    def key(self):
        """:func:`task_key` of this task."""
        return task_key(self.experiment, self.dataset, self.fold,
                        self.params, self.version)

    def identity(self):
        """The fields the key is made of, as a dict."""
        return {"experiment": self.experiment, "dataset": self.dataset,
                "fold": self.fold, "params": self.params,
                "version": self.version}


def _git_info():
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
            text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain",
             "--untracked-files=no"], capture_output=True, text=True,
            timeout=5, check=True).stdout.strip() != ""
        return sha or None, dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def _version(module):
    try:
        return importlib.import_module(module).__version__
    except Exception:  # noqa: BLE001 - optional metadata only
        return None


def _distribution_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # noqa: BLE001 - optional metadata only
        return None


@functools.cache
def _static_metadata():
    sha, dirty = _git_info()
    return {
        "perceptrons_version": _package_version(),
        "numba_version": _version("numba"),
        "numpy_version": np.__version__,
        "scipy_version": _version("scipy"),
        "sklearn_version": _version("sklearn"),
        "liblinear_version": _distribution_version("liblinear-official"),
        "libsvm_version": _distribution_version("libsvm-official"),
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "n_cpus": os.cpu_count(),
        "git_sha": sha,
        "git_dirty": dirty,
        "command": " ".join(sys.argv),
    }


def environment_metadata():
    """Versions, git SHA and machine facts, recorded with every record.

    The versions and the git state are looked up once per process; the load
    average and ``created_utc`` are read at each call.
    """
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):  # pragma: no cover - not on POSIX
        load = None
    return {**_static_metadata(), "load_average": load,
            "created_utc": datetime.now(timezone.utc).isoformat(
                timespec="seconds")}


def make_record(task, result, *, seconds=0.0, status="ok"):
    """The record of ``task``: its key, identity, result and environment.

    Parameters
    ----------
    task : Task
    result : dict
        The worker's numbers.
    seconds : float, default=0.0
        Wall time of the task.
    status : {"ok", "error", "skipped"}, default="ok"

    Returns
    -------
    dict
        JSON-ready; see the module docstring for the schema.
    """
    return json_ready({
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "key": task.key,
        "task": task.identity(), "status": status, "result": result,
        "seconds": float(seconds), "meta": environment_metadata()})


class Store:
    """An append-only JSON-lines file of records.

    Parameters
    ----------
    path : path-like
        The file; created, with its folder, on the first append.
    """

    def __init__(self, path):
        self.path = Path(os.fspath(path))

    @classmethod
    def open(cls, path, *, resume=False):
        """The store at ``path``, emptied first unless ``resume``."""
        store = cls(path)
        if not resume and store.path.exists():
            store.path.unlink()
        return store

    def append(self, record):
        """Write one record as one line, in one ``write``, synced to disk."""
        line = json.dumps(record, ensure_ascii=False, allow_nan=False,
                          sort_keys=True) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self):
        """Every record by key, the later of two with the same key winning.

        Raises
        ------
        ValueError
            If a line is not a record; the message names the file and line.
        """
        if not self.path.exists():
            return {}
        records = {}
        with open(self.path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if line.strip():
                    record = self._parse(line, number)
                    records.pop(record["key"], None)
                    records[record["key"]] = record
        return records

    def done(self):
        """The records with status ``"ok"``, by key (what resume keeps)."""
        return {k: r for k, r in self.read().items() if r["status"] == "ok"}

    def _parse(self, line, number):
        where = f"{self.path}, line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{where}: corrupt record ({exc.msg}); remove that line, or "
                "the file, and run again") from None
        if not isinstance(record, dict) or record.get("schema") != SCHEMA \
                or "key" not in record:
            raise ValueError(f"{where}: not a {SCHEMA} record")
        if record.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"{where}: record schema version "
                             f"{record.get('schema_version')!r}, expected "
                             f"{SCHEMA_VERSION}")
        return record


#: What a progress bar says until its first task finishes.
STARTING = "starting: numba compiles on a first run"


def progress_bar(total, progress=None, desc=None):
    """A tqdm bar on stderr; ``progress`` None shows it only on a terminal.

    Until the first task finishes the bar says :data:`STARTING`: on a first
    run numba compiles the loops inside that task (seconds, nothing cached
    yet), and a bare ``0/N`` would look stuck. The first task also restarts
    the bar's clock, so its rate and ETA are those of the tasks, not of the
    compilation (which otherwise made the ETA minutes for a run of
    seconds).
    """
    from tqdm.auto import tqdm

    bar = tqdm(total=total, disable=None if progress is None
               else not progress, file=sys.stderr, unit="task", leave=False,
               desc=desc, postfix=STARTING)
    update = bar.update

    def first_update(n=1):
        bar.update = update  # the later ones count as tqdm does
        bar.set_postfix_str("", refresh=False)
        bar.reset(total)
        return update(n)

    bar.update = first_update
    return bar


def run_tasks(worker, tasks, store=None, *, resume=False, mapper=map,
              on_record=None):
    """Run the tasks that have no record yet; return every task's record.

    Parameters
    ----------
    worker : callable
        A module-level ``worker(task) -> record`` (see :func:`make_record`).
    tasks : list of Task
    store : Store or None, default=None
        Each new record is appended as soon as it comes back; None keeps
        them in memory only.
    resume : bool, default=False
        Skip the tasks whose key has an ``"ok"`` record in ``store``.
    mapper : callable, default=map
        ``mapper(worker, tasks)`` yields the records; ``map`` is the serial
        path, a process pool's ``map`` a parallel one.
    on_record : callable, default=None
        Called with each record of the tasks of this call, done or new (e.g.
        to advance a progress bar).

    Returns
    -------
    list of dict
        The records, in the order of ``tasks``.
    """
    keys = [t.key for t in tasks]
    stored = store.done() if (store is not None and resume) else {}
    records = {k: stored[k] for k in keys if k in stored}
    todo = [t for t, k in zip(tasks, keys) if k not in records]
    for record in records.values():
        if on_record is not None:
            on_record(record)
    for record in mapper(worker, todo):
        if store is not None:
            store.append(record)
        records[record["key"]] = record
        if on_record is not None:
            on_record(record)
    return [records[k] for k in keys]
