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

Grids
-----
A grid is a list of :class:`Column`: a name and one or more *stages*, each a
dict ``parameter -> values``. One stage is a joint search over its product
(K&W's τ, λ, α, τ×λ, τ×α columns); two stages are K&W's sequential τ→α and
τ→λ: the first stage picks a cell, the second searches its own parameters
with the first's winner fixed. :func:`paper_columns` builds the paper's
columns; ``kind="search"`` excludes each parameter's inactive value (Sec.
3.3: "any accuracy obtained in the τ column is necessarily obtained with a
value τ ≠ 0"), ``kind="optimization"`` includes it (Sec. 3.4: "the algorithm
can choose between different active values and the inactive value"). Any
estimator and any parameters work: a plain ``dict`` or list of dicts (as
:class:`~sklearn.model_selection.ParameterGrid` takes) is one column.

Hypotheses of one run
---------------------
K&W's last, longest-survivor and voted hypotheses are three predictions of
*one* training run (their Figure 2). For the Figure 2 family
(:class:`~perceptrons.Perceptron`, linear and one-vs-rest) a task fits once
with ``hypothesis="voted"``, whose log keeps every update and every
hypothesis' vote, and :func:`hypothesis_predictions` derives the others:

* ``"last"``: the fitted ``coef_``/``intercept_`` (the last hypothesis);
* ``"longest"``: the first hypothesis with the largest vote (a vote is the
  run of correct predictions a hypothesis made, K&W's tally), replayed from
  the log by sequential sums, the same additions the loop makes;
* ``"voted"``: the model's own prediction;
* ``"averaged"`` (ours, not in K&W's tables): Freund & Schapire's
  (1999) [2]_ vote-weighted average :math:`\sum_k c_k (w_k, \theta_k)`,
  from the same log. It is *not* :class:`~perceptrons.Perceptron`'s
  ``hypothesis="averaged"``, which weights each hypothesis by the steps it
  was current, mistakes included; the log does not record those steps
  under an α-bound.

Other estimators, and hypotheses that cannot be derived, are fitted once
per hypothesis (same seed, so the same run).

Execution
---------
:func:`run_studies` runs the tasks of one or more :class:`Study` through a
:class:`~.store.Store`: serially, on local processes (joblib) or on a Dask
cluster (:func:`make_executor`). Each task's seed is derived from the
study's ``random_state``, the data set and the split (never from the
backend, the worker or the order), so records, and every table made from
them, are identical whatever the backend and the worker count. The data go
to each worker once (``Client.scatter`` with ``broadcast=True``; joblib
memory-maps large arrays); tasks travel in batches. A finished task's
record is kept, so ``resume=True`` re-runs nothing that is done; a store
written by another package version or another protocol is refused, not
reused (:func:`check_store`).

References
----------
.. [1] R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
   algorithm. JMLR 8:227-248, 2007. Sec. 3.2-3.4, footnote 5.
.. [2] Y. Freund and R. E. Schapire. Large margin classification using the
   perceptron algorithm. Machine Learning 37(3):277-296, 1999.
"""

import functools
import hashlib
import itertools
import json
import math
import time
from dataclasses import dataclass, field
import numpy as np
import scipy.sparse as sp

from ..utils.cluster import connect
from .evaluation import _estimator_name, t_confidence_interval
from .store import (Store, Task, canonical_json, json_ready, make_record,
                    progress_bar, run_tasks)

__all__ = ["ALPHA_GRID", "HYPOTHESES", "INACTIVE", "LAMBDA_GRID",
           "TAU_GRID", "Column", "DoubleCVResult", "Executor",
           "SearchResult", "Study", "check_grid", "check_store",
           "double_cross_validation", "hypothesis_predictions",
           "make_executor", "paper_columns", "parameter_search",
           "run_cell", "run_studies"]

#: τ in units of θ_Init (K&W Sec. 3.2), from no effect to a strong one.
TAU_GRID = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
#: α-bound; None is ∞ (no bound).
ALPHA_GRID = (None, 80, 60, 40, 20, 10, 5)
#: λ of the λ-trick.
LAMBDA_GRID = (0.0, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
#: The inactive value of each parameter (K&W's "Nothing").
INACTIVE = {"tau": 0.0, "lam": 0.0, "alpha_bound": None}
#: K&W's three final hypotheses, then ours (Freund & Schapire's average).
HYPOTHESES = ("last", "longest", "voted", "averaged")

_PAPER_VALUES = {"tau": TAU_GRID, "lam": LAMBDA_GRID,
                 "alpha_bound": ALPHA_GRID}
_SYMBOL = {"tau": "τ", "lam": "λ", "alpha_bound": "α"}


# ------------------------------------------------------------------ grids
@dataclass(frozen=True)
class Column:
    """One column of a table: the cells a search or a selection ranges over.

    Parameters
    ----------
    name : str
    stages : tuple of dict
        Each a dict ``parameter -> tuple of values``. One stage: its product
        is searched jointly. Two or more: sequential selection; stage s
        searches its product with the winner of stage s-1 fixed (its own
        parameters override the winner's).
    """

    name: str
    stages: tuple

    def cells(self):
        """Every cell any selection of this column may evaluate, in order."""
        cells = _product(self.stages[0])
        for stage in self.stages[1:]:
            cells = [{**c, **s} for c in cells for s in _product(stage)]
        out, seen = [], set()
        for c in itertools.chain(_product(self.stages[0]), cells):
            key = canonical_json(c)
            if key not in seen:
                seen.add(key)
                out.append(c)
        return out


def _product(grid):
    names = list(grid)
    return [dict(zip(names, values))
            for values in itertools.product(*(tuple(grid[n]) for n in names))]


def _as_columns(columns):
    """A list of :class:`Column` from columns, a dict or a list of dicts."""
    if isinstance(columns, Column):
        return [columns]
    if isinstance(columns, dict):
        return [Column("grid", ({k: tuple(v) for k, v in columns.items()},))]
    columns = list(columns)
    if columns and all(isinstance(c, Column) for c in columns):
        return columns
    if all(isinstance(c, dict) for c in columns):
        return [Column(f"grid {i}", ({k: tuple(v) for k, v in c.items()},))
                for i, c in enumerate(columns)]
    raise TypeError("columns must be Column objects, a dict of parameter "
                    "lists, or a list of such dicts")


def paper_columns(kind="optimization", parameters=("tau", "lam",
                                                   "alpha_bound")):
    """K&W's columns: Nothing, τ, λ, α, τ×λ, τ×α and (optimisation) τ→α, τ→λ.

    Parameters
    ----------
    kind : {"optimization", "search"}, default="optimization"
        "search" excludes each parameter's inactive value from its columns
        (Tables 3 and 4); "optimization" includes it (Tables 6 and 7) and
        adds the sequential columns.
    parameters : tuple of str, default=("tau", "lam", "alpha_bound")
        The parameters to use; drop "alpha_bound" for Adult and MNIST (K&W:
        "too few iterations to justify any reasonable α-bound").

    Returns
    -------
    list of Column
        Names "Nothing", "τ", "λ", "α", "τ×λ", "τ×α", "τ→α", "τ→λ".

    Examples
    --------
    >>> cols = paper_columns("search")
    >>> [c.name for c in cols]
    ['Nothing', 'τ', 'λ', 'α', 'τ×λ', 'τ×α']
    >>> len(cols[4].cells())  # 6 active τ × 6 active λ
    36
    """
    if kind not in ("optimization", "search"):
        raise ValueError(f"kind must be 'optimization' or 'search', got "
                         f"{kind!r}")
    unknown = set(parameters) - set(_PAPER_VALUES)
    if unknown:
        raise ValueError(f"unknown paper parameter(s) {sorted(unknown)}; "
                         f"known: {sorted(_PAPER_VALUES)}")
    off = {p: (INACTIVE[p],) for p in parameters}
    values = {p: (_PAPER_VALUES[p] if kind == "optimization"
                  else _PAPER_VALUES[p][1:]) for p in parameters}
    cols = [Column("Nothing", (dict(off),))]
    for p in ("tau", "lam", "alpha_bound"):
        if p in parameters:
            cols.append(Column(_SYMBOL[p], ({**off, p: values[p]},)))
    for p in ("lam", "alpha_bound"):
        if "tau" in parameters and p in parameters:
            cols.append(Column(f"τ×{_SYMBOL[p]}", (
                {**off, "tau": values["tau"], p: values[p]},)))
    if kind == "optimization" and "tau" in parameters:
        for p in ("alpha_bound", "lam"):
            if p in parameters:
                cols.append(Column(f"τ→{_SYMBOL[p]}", (
                    {**off, "tau": values["tau"]}, {p: values[p]})))
    return cols


def check_grid(estimator, columns):
    """Refuse a grid naming an unknown parameter or holding an invalid value.

    Parameters
    ----------
    estimator : estimator
    columns : list of Column, dict or list of dict

    Returns
    -------
    list of Column

    Raises
    ------
    ValueError
        Naming the parameter (and the estimator's parameters), or the
        parameter and the value the estimator refuses.
    """
    from sklearn.base import clone

    columns = _as_columns(columns)
    known = estimator.get_params(deep=False)
    name = type(estimator).__name__
    seen = set()
    for column in columns:
        if not column.stages:
            raise ValueError(f"column {column.name!r} has no stage")
        for stage in column.stages:
            for param, values in stage.items():
                if param not in known:
                    raise ValueError(
                        f"column {column.name!r}: {name} has no parameter "
                        f"{param!r}; its parameters: {', '.join(sorted(known))}")
                if isinstance(values, (str, bytes)) or not len(values):
                    raise ValueError(
                        f"column {column.name!r}: {param!r} needs a non-empty "
                        f"list of values, got {values!r}")
                for value in values:
                    key = (param, canonical_json(value))
                    if key in seen:
                        continue
                    seen.add(key)
                    est = clone(estimator).set_params(**{param: value})
                    validate = getattr(est, "_validate_params", None)
                    try:
                        if validate is not None:
                            validate()
                    except ValueError as exc:
                        raise ValueError(
                            f"column {column.name!r}: invalid value {value!r} "
                            f"for {param!r} of {name}: {exc}") from None
    return columns


# ------------------------------------------------------------------ hypotheses
def _voted_log_available(est):
    """Whether ``est`` is a linear one-vs-rest Figure 2 run with a vote log,
    whose updates are ``w += η y x``, ``θ -= η y C`` (what
    :func:`_vote_weighted_average` assumes: other estimators with a voted
    log update differently)."""
    from ..models import Perceptron

    return (isinstance(est, Perceptron) and est.hypothesis == "voted"
            and getattr(est, "kernel", None) is None
            and not getattr(est, "_prototype", True)
            and getattr(est, "_voted", None) is not None)


def _vote_weighted_average(est):
    """Freund & Schapire's Σ c_h (w_h, θ_h) / Σ c_h per problem, from a
    voted fit's log (our fourth column: the estimator's own "averaged" is
    the average over trials, which an α-bound makes unrecoverable here).

    Returns
    -------
    weights : ndarray of shape (n_problems, n_features)
    intercept : ndarray of shape (n_problems,)
    """
    support, sign, votes, ptr = est._voted.binary_arrays(est._current_vote)
    S = est._support_X
    eta, C = float(est.eta), float(est.threshold_step_)
    n_problems = ptr.shape[0] - 1
    W = np.zeros((n_problems, est.n_features_in_))
    theta = np.full(n_problems, float(est.theta_init_))
    for k in range(n_problems):
        lo, hi = ptr[k], ptr[k + 1]
        v = votes[lo + k: hi + k + 1]
        total = float(v.sum())
        if total == 0 or hi == lo:
            continue
        a = eta * sign[lo:hi]
        # update j is in every hypothesis after it: weight Σ_{h>j} c_h
        after = np.cumsum(v[::-1])[::-1][1:] / total
        rows = S[support[lo:hi]]
        rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
        W[k] = (a * after) @ rows
        theta[k] -= float(np.dot(a * after, np.full(hi - lo, C)))
    return W, -theta


def _linear_predict(est, W, intercept, X):
    from sklearn.utils.extmath import safe_sparse_dot

    scores = safe_sparse_dot(X, W.T, dense_output=True) + intercept
    if scores.shape[1] == 1:
        return est.classes_[(scores[:, 0] > 0).astype(np.intp)]
    return est.classes_[np.argmax(scores, axis=1)]


def hypothesis_predictions(est, X, hypotheses=HYPOTHESES):
    """Predictions of several final hypotheses of one fitted run.

    Parameters
    ----------
    est : fitted estimator
        A :class:`~perceptrons.Perceptron` fitted with
        ``hypothesis="voted"`` (linear, one-vs-rest) gives all of
        :data:`HYPOTHESES`; any estimator gives its own ``hypothesis``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    hypotheses : tuple of str, default=HYPOTHESES

    Returns
    -------
    dict
        Hypothesis name to predicted labels; the names this run cannot
        give are missing.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from perceptrons import Perceptron
    >>> X, y = make_classification(200, random_state=0)
    >>> est = Perceptron(hypothesis="voted", random_state=0).fit(X, y)
    >>> sorted(hypothesis_predictions(est, X))
    ['averaged', 'last', 'longest', 'voted']
    """
    own = getattr(est, "hypothesis", None)
    out = {}
    log = _voted_log_available(est)
    for h in hypotheses:
        if h == own:
            out[h] = est.predict(X)
        elif log and h == "averaged":
            out[h] = _linear_predict(est, *_vote_weighted_average(est), X)
        elif own == "voted" and h in ("last", "longest"):
            try:  # the estimator's own derivation from the same run
                out[h] = est.predict(X, hypothesis=h)
            except ValueError:  # e.g. "longest" of a kernel run: refit
                pass
    return out


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
        out, seen = [], set()
        for column in self.columns:
            for c in column.cells():
                key = canonical_json(c)
                if key not in seen:
                    seen.add(key)
                    out.append(c)
        return out

    def protocol(self):
        """What, besides a cell and a split, determines a task's result."""
        return {"estimator": _estimator_name(self.estimator),
                "estimator_params": self.estimator.get_params(deep=False),
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


# ------------------------------------------------------------------ backends
def _run_batch(worker, tasks, data):
    return [worker(t, data) for t in tasks]


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
        # ~8 batches per worker balance the load; a batch of tiny fits pays
        # the scheduling overhead once.
        size = max(1, min(64, math.ceil(len(tasks) / (8 * self.n_workers))))
        return [tasks[i:i + size] for i in range(0, len(tasks), size)]

    def mapper(self, data):
        """A ``mapper(worker, tasks)`` for :func:`~.store.run_tasks` that
        calls ``worker(task, data)`` and yields records as they finish."""
        if self.kind == "serial":
            return lambda worker, tasks: (worker(t, data) for t in tasks)
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
            # Sent once to every worker, then passed by reference.
            [shared] = self.client.scatter([data], broadcast=True)
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
        A scheduler address (``"tcp://host:8786"``) or a connected client;
        implies "dask".
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
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")


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
    names = [s.name for s in studies]
    if len(set(names)) != len(names):
        raise ValueError(f"data set names must differ, got {names}")
    if store is not None and not isinstance(store, Store):
        store = Store.open(store, resume=resume)
    if store is not None:
        check_store(store, studies, resume)
    executor = executor or Executor("serial")
    tasks = [t for s in studies for t in s.tasks()]
    data = {s.name: s.data() for s in studies}
    bar = progress_bar(len(tasks), progress, desc=desc)
    try:
        records = run_tasks(run_cell, tasks, store, resume=resume,
                            mapper=executor.mapper(data),
                            on_record=lambda _: bar.update())
    finally:
        bar.close()
    out = {n: [] for n in names}
    for r in records:
        out[r["task"]["dataset"]].append(r)
    return out


# ------------------------------------------------------------------ results
def _accuracy_table(records):
    """{(split, cell json): {hypothesis: accuracy}} of the ok records."""
    table = {}
    for r in records:
        if r["status"] == "ok":
            table[(r["task"]["fold"], canonical_json(
                r["task"]["params"]["cell"]))] = r["result"]["accuracy"]
    return table


def _outer_ids(splits):
    return [s for s in splits if "/" not in s]


@dataclass
class SearchResult:
    """Parameter search: every cell's test accuracy on the outer splits.

    Attributes
    ----------
    cv_results_ : dict
        As :class:`~sklearn.model_selection.GridSearchCV`'s: ``params``,
        ``param_<name>``, and per hypothesis h ``split<i>_test_<h>``,
        ``mean_test_<h>``, ``std_test_<h>``, ``rank_test_<h>``; plus
        ``mean_fit_time``.
    columns : list of Column
    hypotheses : tuple of str
    """

    cv_results_: dict
    columns: list
    hypotheses: tuple

    def best(self, column, hypothesis):
        """The best mean accuracy over a column's cells, and its cell.

        Returns
        -------
        score : float
        params : dict
        """
        col = next(c for c in self.columns if c.name == column)
        wanted = {canonical_json(c) for c in col.cells()}
        res = self.cv_results_
        idx = [i for i, p in enumerate(res["params"])
               if canonical_json(p) in wanted]
        means = res[f"mean_test_{hypothesis}"][idx]
        if np.all(np.isnan(means)):
            return math.nan, None
        j = idx[int(np.nanargmax(means))]
        return float(res[f"mean_test_{hypothesis}"][j]), res["params"][j]


def search_result(study, records):
    """The :class:`SearchResult` of a study's records (outer splits)."""
    table = _accuracy_table(records)
    outer = _outer_ids(study.splits())
    cells = study.cells()
    hyps = tuple(study.hypotheses or ("own",))
    res = {"params": cells}
    for name in sorted({k for c in cells for k in c}):
        res[f"param_{name}"] = np.array([c.get(name) for c in cells],
                                        dtype=object)
    seconds = {}
    for r in records:
        if r["task"]["fold"] in outer:
            seconds.setdefault(canonical_json(r["task"]["params"]["cell"]),
                               []).append(r["seconds"])
    res["mean_fit_time"] = np.array([np.mean(seconds.get(
        canonical_json(c), [math.nan])) for c in cells])
    for h in hyps:
        scores = np.array([[table.get((s, canonical_json(c)), {}).get(
            h, math.nan) for s in outer] for c in cells])
        for i in range(len(outer)):
            res[f"split{i}_test_{h}"] = scores[:, i]
        mean = scores.mean(axis=1)
        res[f"mean_test_{h}"] = mean
        res[f"std_test_{h}"] = scores.std(axis=1)
        order = np.argsort(-np.nan_to_num(mean, nan=-np.inf), kind="stable")
        rank = np.empty(len(cells), dtype=np.int64)
        rank[order] = np.arange(1, len(cells) + 1)
        res[f"rank_test_{h}"] = rank
    return SearchResult(res, study.columns, hyps)


@dataclass
class DoubleCVResult:
    """Parameter optimisation by double cross-validation.

    Attributes
    ----------
    selections : dict
        ``(column, hypothesis)`` to a dict with ``scores`` (outer test
        accuracy per outer split), ``chosen`` (the cell picked on each),
        ``mean``, ``ci_half_width`` (95 % T-interval, K&W footnote 5; NaN
        for one split), ``ci_low``, ``ci_high``.
    search : SearchResult
        The parameter search over the same outer splits.
    """

    selections: dict
    search: SearchResult

    @property
    def cv_results_(self):
        """Flat records, one per (column, hypothesis)."""
        return [{"column": c, "hypothesis": h, **v}
                for (c, h), v in self.selections.items()]


def _select(column, table, oid, inner_ids, h):
    """The cell an inner cross-validation picks for one column."""
    best = None
    for stage in column.stages:
        base = best or {}
        candidates = [{**base, **c} for c in _product(stage)]
        scored = []
        for c in candidates:
            key = canonical_json(c)
            vals = [table.get((i, key), {}).get(h, math.nan)
                    for i in inner_ids]
            scored.append(math.nan if any(map(math.isnan, vals))
                          else float(np.mean(vals)))
        if all(math.isnan(s) for s in scored):
            return None
        # ties: the first, i.e. the weaker value in K&W's order
        best = candidates[int(np.nanargmax(scored))]
    return best


def double_cv_result(study, records, confidence=0.95):
    """The :class:`DoubleCVResult` of a study's records."""
    table = _accuracy_table(records)
    splits = study.splits()
    outer = _outer_ids(splits)
    hyps = tuple(study.hypotheses or ("own",))
    selections = {}
    for column in study.columns:
        for h in hyps:
            scores, chosen = [], []
            for oid in outer:
                inner_ids = [s for s in splits if s.startswith(oid + "/")]
                cell = _select(column, table, oid, inner_ids, h)
                chosen.append(cell)
                scores.append(math.nan if cell is None else table.get(
                    (oid, canonical_json(cell)), {}).get(h, math.nan))
            if any(math.isnan(s) for s in scores):
                mean, half = math.nan, math.nan
            else:
                mean, half = t_confidence_interval(scores, confidence)
            selections[(column.name, h)] = {
                "scores": scores, "chosen": chosen, "mean": mean,
                "ci_half_width": half, "ci_low": mean - half,
                "ci_high": mean + half}
    return DoubleCVResult(selections, search_result(study, records))


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
