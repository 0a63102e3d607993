r"""Parameter search and double cross-validation (Khardon & Wachman, Sec. 3).

Khardon & Wachman (2007) [1]_ compare the variants of the perceptron in two
ways:

* **parameter search** (Sec. 3.3, Tables 3 and 4): every cell of a grid is
  run in 10-fold cross-validation and a table cell reports the best mean
  test accuracy over the grid; this is hindsight, not a method;
* **parameter optimisation** (Sec. 3.4, Tables 6 and 7) by *double*
  cross-validation: on each outer training fold an inner cross-validation
  picks the cell, which is then trained on the whole outer training fold and
  tested on the outer test fold; mean ± the T-interval of footnote 5
  (:func:`~.evaluation.t_confidence_interval`) over the outer folds. For
  large sets the outer loop is one train/test split.

Both are the same tasks: one fit per (data set, split, grid cell), where a
split is an outer fold (``"o3"``), an inner fold of one (``"o3/i7"``), or
the fixed test split and its inner folds (``"test"``, ``"test/i2"``). So
:func:`double_cross_validation` also returns the parameter search over its
outer folds, and a reproduction runs both tables from one pool of tasks.

Any estimator and any grid work: a grid is a list of :class:`Column`
(:mod:`._grid`), or a ``ParameterGrid``-style dict. K&W's own columns are
:func:`perceptrons.experiments.khardon_wachman.paper_columns` (kept
importable from here). The last, longest-survivor, voted and averaged
hypotheses of one run come from :mod:`.hypotheses`; the results from
:mod:`._cv_results`.

Execution
---------
:func:`run_studies` runs the tasks of one or more :class:`Study` through a
:class:`~.store.Store`: serially, on local processes (joblib) or on a Dask
cluster (:func:`~.runner.make_executor`, the executor of every
reproduction). Each task's seed is derived from the study's
``random_state``, the data set and the split (never from the backend, the
worker or the order), so records, and every table made from them, are
identical whatever the backend and the worker count. The data go to each
worker once (``Client.scatter`` with ``broadcast=True``; joblib
memory-maps large arrays); tasks travel in batches. A finished task's
record is kept, so ``resume=True`` re-runs nothing that is done; a store
written by another package version or another protocol is refused, not
reused (:func:`check_store`).

References
----------
.. [1] R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
   algorithm. JMLR 8:227-248, 2007. Sec. 3.2-3.4, footnote 5.
"""

import functools
import hashlib
import json
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._cv_results import (DoubleCVResult, SearchResult, double_cv_result,
                          search_result)
from ._grid import Column, check_grid, unique_cells
from .evaluation import _estimator_name
from .hypotheses import HYPOTHESES, hypothesis_predictions
from .report import write_text
from .runner import Executor, make_executor
from .store import (Store, Task, canonical_json, json_ready, key_params,
                    make_record, progress_bar, run_tasks)

__all__ = ["HYPOTHESES", "Column", "DoubleCVResult", "Executor", "by_study",
           "SearchResult", "Study", "check_grid", "check_store",
           "double_cross_validation", "double_cv_result",
           "hypothesis_predictions", "make_executor", "parameter_search",
           "run_cell", "run_studies", "search_result", "study_tasks"]

#: K&W's grids, moved to :mod:`.khardon_wachman.paper`; still importable
#: from here (loaded on first use: that package imports this module).
_KW_NAMES = ("ALPHA_GRID", "INACTIVE", "LAMBDA_GRID", "TAU_GRID",
             "paper_columns")


def __getattr__(name):
    if name in _KW_NAMES:
        from .khardon_wachman import paper

        return getattr(paper, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------ tasks
def _fingerprint(X, y):
    """SHA-256 of the data, so that other data never match a stored task."""
    h = hashlib.sha256()
    if sp.issparse(X):
        X = X.tocsr()
        for part in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(part).tobytes())
    else:
        h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    h.update(str(X.shape).encode())
    h.update(json.dumps(json_ready(np.asarray(y).tolist())).encode())
    return h.hexdigest()[:16]


def _seed(random_state, dataset, split):
    """The split's seed: the same for every cell, backend and worker."""
    text = canonical_json([random_state, dataset, split])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") \
        & 0x7FFFFFFF


@dataclass
class Study:
    """One estimator, one data set, one protocol: the tasks of a table row.

    Parameters
    ----------
    name : str
        The data set's name (part of every key).
    estimator : estimator
        Unfitted; cloned and given each cell's parameters in every task.
    columns : list of Column, dict or list of dict
    X, y : the data
        The whole data set (outer cross-validation), or the training part
        when ``X_test`` is given.
    X_test, y_test : optional
        A fixed test split (K&W for USPS, MNIST, Adult): the outer loop is
        this one split; the inner cross-validation runs on X.
    outer, inner : int, default=10
        Folds of the outer and inner stratified, shuffled k-fold splits;
        ``inner=0`` runs no inner folds (parameter search only).
    hypotheses : tuple of str or None, default=HYPOTHESES
        None: the estimator's own prediction only ("own").
    random_state : int, default=0
        Seeds the fold assignments and each split's estimator seed.
    experiment : str, default="model_selection"
    folds_of : str or None, default=None
        Draw the folds of the study of that name instead of this one's
        (the same data and ``random_state``): e.g. a baseline scored on the
        very folds of the perceptrons it is compared with.
    train_size : int or None, default=None
        With ``X_test``: instead of training on all of X, ``outer`` random
        training sets of this many rows (stratified, without replacement)
        are drawn from X, each scored on X_test (K&W's Table 5, Adult by
        training-set size).
    """

    name: str
    estimator: object
    columns: object
    X: object
    y: object
    X_test: object = None
    y_test: object = None
    outer: int = 10
    inner: int = 10
    hypotheses: tuple = HYPOTHESES
    random_state: int = 0
    experiment: str = "model_selection"
    folds_of: str = None
    train_size: int = None
    _splits: dict = field(default=None, init=False, repr=False)

    def __post_init__(self):
        self.columns = check_grid(self.estimator, self.columns)
        self.X = self.X.tocsr() if sp.issparse(self.X) else np.asarray(self.X)
        self.y = np.asarray(self.y)
        if self.X.shape[0] != self.y.shape[0]:
            raise ValueError(f"{self.name}: X has {self.X.shape[0]} rows but "
                             f"y has {self.y.shape[0]} labels")
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError("pass both X_test and y_test, or neither")
        if self.train_size is not None:
            n = self.X.shape[0]
            if self.X_test is None:
                raise ValueError("train_size draws training sets to score on "
                                 "X_test: pass X_test and y_test")
            if isinstance(self.train_size, bool) or \
                    int(self.train_size) != self.train_size or \
                    not 2 <= self.train_size < n:
                raise ValueError(f"train_size must be an integer from 2 to "
                                 f"{n - 1} (X has {n} rows), got "
                                 f"{self.train_size!r}")
        for what, k, low in (("outer", self.outer, 2), ("inner", self.inner, 0)):
            if isinstance(k, bool) or int(k) != k or k < low or k == 1:
                raise ValueError(f"{what} must be an integer >= {max(low, 2)}"
                                 f"{' or 0' if low == 0 else ''}, got {k!r}")
        unknown = set(self.hypotheses or ()) - set(HYPOTHESES)
        if unknown:
            raise ValueError(f"unknown hypotheses {sorted(unknown)}; known: "
                             f"{', '.join(HYPOTHESES)}")
        if self.hypotheses and "hypothesis" not in \
                self.estimator.get_params(deep=False):
            raise ValueError(f"{type(self.estimator).__name__} has no "
                             "'hypothesis' parameter; pass hypotheses=None")
        # Refused here, not recorded as failed fits (scored NaN) later.
        if self.hypotheses:
            check_grid(self.estimator,
                       [{"hypothesis": list(self.hypotheses)}])

    # ------------------------------------------------------------ splits
    def data(self):
        """(X, y) with the test split appended, as the tasks index it."""
        if self.X_test is None:
            return self.X, self.y
        X_test = (self.X_test.tocsr() if sp.issparse(self.X_test)
                  else np.asarray(self.X_test))
        stack = sp.vstack if sp.issparse(self.X) else np.vstack
        X = stack([self.X, X_test])
        return (X.tocsr() if sp.issparse(X) else X,
                np.concatenate([self.y, np.asarray(self.y_test)]))

    def splits(self):
        """Split id to (train rows, test rows), outer splits first."""
        if self._splits is not None:
            return self._splits
        from sklearn.model_selection import StratifiedKFold

        fold_name = self.folds_of or self.name

        def kfold(idx, k, salt):
            folds = StratifiedKFold(n_splits=k, shuffle=True,
                                    random_state=_seed(self.random_state,
                                                       fold_name, salt))
            return [(idx[a], idx[b]) for a, b in
                    folds.split(np.zeros((idx.shape[0], 1)), self.y[idx])]

        n = self.X.shape[0]
        if self.X_test is None:
            outer = {f"o{i}": tt for i, tt in enumerate(
                kfold(np.arange(n), self.outer, "outer"))}
        elif self.train_size is not None:
            from sklearn.model_selection import StratifiedShuffleSplit

            test = n + np.arange(np.asarray(self.y_test).shape[0])
            draws = StratifiedShuffleSplit(
                n_splits=self.outer, train_size=int(self.train_size),
                random_state=_seed(self.random_state, fold_name, "draws"))
            outer = {f"d{i}": (np.sort(train), test) for i, (train, _) in
                     enumerate(draws.split(np.zeros((n, 1)), self.y))}
        else:
            outer = {"test": (np.arange(n), n + np.arange(
                np.asarray(self.y_test).shape[0]))}
        splits = dict(outer)
        if self.inner:
            for oid, (train, _) in outer.items():
                for i, tt in enumerate(kfold(train, self.inner, oid)):
                    splits[f"{oid}/i{i}"] = tt
        self._splits = splits
        return splits

    def cells(self):
        """Every distinct cell of every column, in column order."""
        return unique_cells(c for column in self.columns
                            for c in column.cells())

    def protocol(self):
        """What, besides a cell and a split, determines a task's result."""
        return {"estimator": _estimator_name(self.estimator),
                "estimator_params": key_params(self.estimator),
                "hypotheses": list(self.hypotheses or ()),
                "outer": int(self.outer), "inner": int(self.inner),
                "test_split": self.X_test is not None,
                "random_state": self.random_state,
                "data": _fingerprint(*self.data()),
                # Only when set, so that existing stores keep their keys.
                **({"folds_of": self.folds_of} if self.folds_of else {}),
                **({"train_size": int(self.train_size)}
                   if self.train_size is not None else {})}

    def tasks(self):
        """One :class:`~.store.Task` per (split, cell)."""
        protocol = self.protocol()
        return [Task(self.experiment, self.name, sid,
                     {"cell": cell, "protocol": protocol},
                     (self.estimator, train, test,
                      _seed(self.random_state, self.name, sid),
                      tuple(self.hypotheses or ())))
                for sid, (train, test) in self.splits().items()
                for cell in self.cells()]


def _fit_predict(est, X_train, y_train, X_test, hypotheses):
    """Predictions of each hypothesis, from as few fits as possible."""
    if not hypotheses:
        return {"own": est.fit(X_train, y_train).predict(X_test)}, 1
    from sklearn.base import clone

    first = "voted" if "voted" in hypotheses else hypotheses[0]
    fitted = clone(est).set_params(hypothesis=first).fit(X_train, y_train)
    out = hypothesis_predictions(fitted, X_test, hypotheses)
    n_fits = 1
    for h in hypotheses:
        if h not in out:  # not derivable from this run: the same run again
            n_fits += 1
            again = clone(est).set_params(hypothesis=h).fit(X_train, y_train)
            out[h] = again.predict(X_test)
    return out, n_fits


@functools.cache
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread():
    """One BLAS thread for a task's products.

    Tasks already run one per core; a threaded BLAS on the small products
    of a task (test rows × support vectors) spins its threads against the
    other workers' and was 30 times slower (7 ms a product on 2 busy
    cores). One thread also makes the rounding independent of the machine's
    thread count.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


def run_cell(task, data):
    """Fit one cell on one split and score every hypothesis (the worker).

    Parameters
    ----------
    task : Task
        From :meth:`Study.tasks`.
    data : dict
        Data set name to ``(X, y)`` as :meth:`Study.data` gives it.

    Returns
    -------
    dict
        The record; ``result`` holds ``accuracy`` (hypothesis to test
        accuracy), ``n_updates``, ``n_fits`` and ``fit_seconds``.
    """
    from sklearn.base import clone

    estimator, train, test, seed, hypotheses = task.inputs
    X, y = data[task.dataset]
    est = clone(estimator).set_params(**task.params["cell"])
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=seed)
    start = time.perf_counter()
    try:
        with _one_blas_thread():
            predictions, n_fits = _fit_predict(est, X[train], y[train],
                                               X[test], hypotheses)
    except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
        return make_record(task, {"error": f"{type(exc).__name__}: {exc}"},
                           seconds=time.perf_counter() - start,
                           status="error")
    seconds = time.perf_counter() - start
    y_test = y[test]
    result = {"accuracy": {h: float(np.mean(p == y_test))
                           for h, p in predictions.items()},
              "n_fits": n_fits}
    return make_record(task, result, seconds=seconds)



# ------------------------------------------------------------------ running
def _manifest(studies):
    import perceptrons

    return {"schema": "perceptrons-model-selection", "version":
            perceptrons.__version__,
            "studies": {s.name: hashlib.sha256(canonical_json(
                {"protocol": s.protocol(), "cells": s.cells(),
                 "experiment": s.experiment}).encode()).hexdigest()
                for s in studies}}


def check_store(store, studies, resume):
    """Refuse to resume from a store written for another version or grid.

    The store's manifest (``<store>.manifest.json``) names the package
    version and a hash of each study's protocol and cells. Without
    ``resume`` the store is started afresh and the manifest rewritten.

    Raises
    ------
    ValueError
        On ``resume`` when the manifest names another version, or another
        protocol or grid for a data set of ``studies``.
    """
    path = store.path.with_name(store.path.name + ".manifest.json")
    now = _manifest(studies)
    if resume and path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old.get("version") != now["version"]:
            raise ValueError(
                f"{store.path} was written by perceptrons "
                f"{old.get('version')}, this is {now['version']}: its records "
                "would not be reused; run without resume (or in another "
                "output folder) to start afresh")
        changed = [n for n, h in now["studies"].items()
                   if n in old.get("studies", {}) and old["studies"][n] != h]
        if changed:
            raise ValueError(
                f"{store.path} holds another grid or protocol for "
                f"{', '.join(changed)}; run without resume (or in another "
                "output folder) to start afresh")
        now["studies"] = {**old.get("studies", {}), **now["studies"]}
    write_text(path, json.dumps(now, indent=1, sort_keys=True) + "\n")


def run_studies(studies, *, executor=None, store=None, resume=False,
                progress=None, desc="model selection"):
    """Run the tasks of several studies in one pool; return their records.

    Parameters
    ----------
    studies : list of Study
        Data set names must differ.
    executor : Executor, default=None
        None runs serially.
    store : Store or path-like, default=None
        Records are appended as they finish; None keeps them in memory.
    resume : bool, default=False
        Keep the store's finished records (see :func:`check_store`).
    progress : bool or None, default=None
        A progress bar over tasks; None: only on a terminal.

    Returns
    -------
    dict
        Data set name to its records, in task order.
    """
    if store is not None and not isinstance(store, Store):
        store = Store.open(store, resume=resume)
    tasks, data = study_tasks(studies, store, resume)
    executor = executor or Executor("serial")
    bar = progress_bar(len(tasks), progress, desc=desc)
    try:
        records = run_tasks(run_cell, tasks, store, resume=resume,
                            mapper=executor.mapper(data),
                            on_record=lambda _: bar.update())
    finally:
        bar.close()
    return by_study(studies, records)


def study_tasks(studies, store=None, resume=False):
    """The tasks of several studies for :func:`run_cell`, and their data.

    Checks that the names differ and, given a store, that it may be resumed
    (:func:`check_store`).

    Returns
    -------
    tasks : list of Task
    data : dict
        Data set name to ``(X, y)``, the second argument of
        :func:`run_cell`.
    """
    names = [s.name for s in studies]
    if len(set(names)) != len(names):
        raise ValueError(f"data set names must differ, got {names}")
    if store is not None:
        check_store(store, studies, resume)
    return ([t for s in studies for t in s.tasks()],
            {s.name: s.data() for s in studies})


def by_study(studies, records):
    """Data set name to its records, in task order."""
    out = {s.name: [] for s in studies}
    for r in records:
        out[r["task"]["dataset"]].append(r)
    return out



def _run_one(study, executor, backend, n_jobs, scheduler, store, resume,
             progress):
    own = executor is None
    executor = executor or make_executor(backend, n_jobs, scheduler)
    try:
        return run_studies([study], executor=executor, store=store,
                           resume=resume, progress=progress)[study.name]
    finally:
        if own:
            executor.close()


def parameter_search(estimator, columns, X, y, *, cv=10,
                     hypotheses=HYPOTHESES, random_state=0, X_test=None,
                     y_test=None, backend="serial", n_jobs=1, scheduler=None,
                     executor=None, store=None, resume=False, progress=None,
                     name="data"):
    """Mean test accuracy of every cell over k folds (K&W Sec. 3.3).

    Parameters
    ----------
    estimator : estimator
        Any classifier of the package (or scikit-learn's); its
        ``hypothesis`` is set per task when ``hypotheses`` is not None.
    columns : list of Column, dict or list of dict
        The grid (:func:`paper_columns`, or a ``ParameterGrid``-style dict).
    X, y : the data
    cv : int, default=10
        Folds (stratified, shuffled); ignored with ``X_test``.
    hypotheses : tuple of str or None, default=HYPOTHESES
    random_state : int, default=0
    X_test, y_test : optional
        One fixed train/test split instead of folds.
    backend, n_jobs, scheduler : see :func:`make_executor`
    executor : Executor, default=None
        Overrides ``backend``; left open.
    store, resume, progress : see :func:`run_studies`
    name : str, default="data"

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from perceptrons import Perceptron
    >>> X, y = make_classification(120, random_state=0)
    >>> res = parameter_search(Perceptron(max_iter=5), {"tau": [0.0, 0.5]},
    ...                        X, y, cv=3)
    >>> score, cell = res.best("grid", "voted")
    >>> 0.5 < score <= 1.0 and cell["tau"] in (0.0, 0.5)
    True
    """
    study = Study(name, estimator, columns, X, y, X_test, y_test, outer=cv,
                  inner=0, hypotheses=hypotheses, random_state=random_state)
    records = _run_one(study, executor, backend, n_jobs, scheduler, store,
                       resume, progress)
    return search_result(study, records)


def double_cross_validation(estimator, columns, X, y, *, outer_cv=10,
                            inner_cv=10, hypotheses=HYPOTHESES,
                            random_state=0, X_test=None, y_test=None,
                            backend="serial", n_jobs=1, scheduler=None,
                            executor=None, store=None, resume=False,
                            progress=None, name="data", confidence=0.95):
    """Parameter optimisation by double cross-validation (K&W Sec. 3.4).

    On each outer training fold an ``inner_cv``-fold cross-validation
    picks, per column and hypothesis, the cell of best mean inner accuracy
    (sequential columns stage by stage; ties go to the earlier cell, the
    weaker value in K&W's order); that cell's fit on the outer training
    fold is scored on the outer test fold. Mean and T-interval over the
    outer folds (footnote 5). With ``X_test`` the outer loop is that one
    split, as K&W do for USPS, MNIST and Adult.

    Parameters are those of :func:`parameter_search`, with ``outer_cv`` and
    ``inner_cv`` folds and ``confidence`` of the interval.

    Returns
    -------
    DoubleCVResult

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from perceptrons import Perceptron
    >>> X, y = make_classification(150, random_state=1)
    >>> res = double_cross_validation(
    ...     Perceptron(max_iter=5), {"tau": [0.0, 0.5, 1.0]}, X, y,
    ...     outer_cv=3, inner_cv=3, hypotheses=("last", "voted"))
    >>> sel = res.selections[("grid", "voted")]
    >>> len(sel["scores"]), len(sel["chosen"])
    (3, 3)
    """
    study = Study(name, estimator, columns, X, y, X_test, y_test,
                  outer=outer_cv, inner=inner_cv, hypotheses=hypotheses,
                  random_state=random_state)
    records = _run_one(study, executor, backend, n_jobs, scheduler, store,
                       resume, progress)
    return double_cv_result(study, records, confidence)
