"""Kernel models under a budget: the tasks and their workers.

Three kinds of task, each a worker of its own:

* ``table``: one method of BSGD's Table 3 at one budget on one data set
  (one online pass in file order; the test accuracy of the last and of
  the averaged hypothesis);
* ``dogma``: DOGMA's demo on one draw of its data, every method of the
  demo (their support sets, test errors);
* ``curve``: the kernel perceptron under one policy at one budget on one
  data set (online mistakes, test error, support vectors, seconds).

The data sets are loaded once, in the runner's process, and travel to the
workers with their tasks (``session.run(worker, tasks, data)``).
"""

import time

import numpy as np

from ..store import Task, make_record
from .paper import KERNELS, POLICIES, STEM

__all__ = ["count", "curve_worker", "dogma_worker", "submit",
           "table_worker"]

#: Passive-Aggressive's budgeted forms in Table 3 (BPA-P is "project").
PA_POLICIES = ("bpa-s", "bpa-nn", "project", "merge")


# ------------------------------------------------------------------ data
def load_dataset(name, n_train=None, n_test=None):
    """``(X_train, y_train, X_test, y_test)`` of a named data set, the first
    ``n_train``/``n_test`` rows (file order), pixels in [0, 1]."""
    from ...datasets import load_named

    if name == "a9a":
        train, test = load_named("a9a"), load_named("a9a.t")
        X, y, Xt, yt = train.X, train.y, test.X, test.y
    else:
        b = load_named(name)
        X, y, Xt, yt = b.X_train, b.y_train, b.X_test, b.y_test
        X = np.asarray(X, dtype=np.float64)
        Xt = np.asarray(Xt, dtype=np.float64)
        if name == "mnist":
            X, Xt = X / 255.0, Xt / 255.0
    if Xt.shape[1] < X.shape[1]:
        import scipy.sparse as sp
        Xt = sp.csr_matrix((Xt.data, Xt.indices, Xt.indptr),
                           shape=(Xt.shape[0], X.shape[1]))
    X, y = X[:n_train], np.asarray(y)[:n_train]
    Xt, yt = Xt[:n_test], np.asarray(yt)[:n_test]
    return X, y, Xt, yt


def _multiclass(y):
    return np.unique(y).shape[0] > 2


def _perceptron(y, budget, policy, hypothesis, kernel):
    from ...models import Perceptron

    return Perceptron(eta=1.0, theta_init=0.0, threshold_step=0.0,
                      hypothesis=hypothesis, max_iter=1, shuffle=False,
                      multiclass="prototype" if _multiclass(y) else "ovr",
                      budget=budget, budget_policy=policy or "random",
                      random_state=0, **kernel)


def _pa(y, budget, policy, hypothesis, kernel):
    from ...models import PassiveAggressive

    return PassiveAggressive(
        variant="PA-I", C=1.0, fit_intercept=False, hypothesis=hypothesis,
        max_iter=1, shuffle=False, budget=budget,
        budget_policy=policy or "random", random_state=0,
        multiclass="prototype" if _multiclass(y) else "ovr", **kernel)


def _projectron(y, eta, plus, hypothesis, kernel):
    from ...models import Projectron

    return Projectron(eta=eta, plus=plus, hypothesis=hypothesis, max_iter=1,
                      shuffle=False, **kernel)


def _fit_score(make, X, y, Xt, yt):
    """Fit the last and the averaged hypothesis; their test accuracies,
    the online mistakes, the support's size and the seconds of a fit."""
    out = {}
    for hypothesis in ("last", "averaged"):
        est = make(hypothesis)
        start = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - start
        out[hypothesis] = float(np.mean(est.predict(Xt) == yt))
        if hypothesis == "last":
            out["mistakes"] = int(est.n_mistakes_)
            out["support"] = int(est.support_.shape[0])
            out["seconds"] = seconds
    return out


# ------------------------------------------------------------------ workers
def table_worker(task, data):
    """One cell of BSGD's Table 3 (module notes); errors are recorded."""
    X, y, Xt, yt = data
    p = task.params
    kernel = KERNELS[task.dataset]
    method, budget = p["method"], p["budget"]
    try:
        if method == "perceptron":
            result = _fit_score(lambda h: _perceptron(
                y, budget, p["policy"], h, kernel), X, y, Xt, yt)
        elif method == "pa":
            result = _fit_score(lambda h: _pa(
                y, budget, p["policy"], h, kernel), X, y, Xt, yt)
        else:
            result = _fit_score(lambda h: _projectron(
                y, p["eta"], True, h, kernel), X, y, Xt, yt)
    except Exception as exc:  # noqa: BLE001 - reported
        return make_record(task, {"error": f"{type(exc).__name__}: {exc}"},
                           status="error")
    return make_record(task, result, seconds=result["seconds"])


def dogma_data(seed, n):
    """DOGMA's demo data: n points of N(0, I₂), labels of a random
    hyperplane through the origin, 10 % of them flipped; the first half
    trains, the second tests (demo.m, with numpy's generator)."""
    rng = np.random.RandomState(seed)
    x = rng.standard_normal((n, 2))
    w = rng.standard_normal(2)
    y = np.where(x @ w >= 0, 1, -1)
    flip = rng.permutation(n)[:n // 10]
    y[flip] = -y[flip]
    h = n // 2
    return x[:h], y[:h], x[h:], y[h:]


def dogma_worker(task):
    """Every method of DOGMA's demo on one draw of its data: support
    vectors and test error (%) of the last and averaged hypotheses."""
    from ...models import PassiveAggressive, Perceptron, Projectron

    X, y, Xt, yt = dogma_data(task.params["seed"], task.params["n"])
    rbf = {"kernel": "rbf", "gamma": 1.0}
    start = time.perf_counter()

    def run(make, averaged=True):
        cells = {}
        for h in ("last", "averaged") if averaged else ("last",):
            est = make(h).fit(X, y)
            cells[h] = 100.0 * float(np.mean(est.predict(Xt) != yt))
            cells["support"] = int(est.support_.shape[0])
        return cells

    def rosenblatt(h, **kw):
        return Perceptron(eta=1.0, theta_init=0.0, threshold_step=0.0,
                          hypothesis=h, max_iter=1, shuffle=False, **rbf,
                          **kw)

    result = {
        "pa": run(lambda h: PassiveAggressive(
            C=1.0, fit_intercept=False, hypothesis=h, max_iter=1,
            shuffle=False, **rbf)),
        "perceptron": run(rosenblatt),
        # DOGMA's eta = 0.01 bounds δ²: ours, on δ, is its square root.
        "projectron": run(lambda h: Projectron(
            eta=0.1, hypothesis=h, max_iter=1, shuffle=False, **rbf)),
        "projectron++": run(lambda h: Projectron(
            eta=0.1, plus=True, hypothesis=h, max_iter=1, shuffle=False,
            **rbf)),
    }
    budget = result["projectron"]["support"]
    result["budget"] = budget
    for policy in ("random", "forgetron"):
        result[policy] = run(lambda h: rosenblatt(
            h, budget=budget, budget_policy=policy,
            random_state=task.params["seed"]), averaged=False)
    return make_record(task, result, seconds=time.perf_counter() - start)


def curve_worker(task, data):
    """The kernel perceptron under one policy at one budget (module
    notes); errors are recorded."""
    X, y, Xt, yt = data
    p = task.params
    kernel = KERNELS[task.dataset]
    try:
        result = _fit_score(lambda h: _perceptron(
            y, p["budget"], p["policy"], h, kernel), X, y, Xt, yt)
    except Exception as exc:  # noqa: BLE001 - reported
        return make_record(task, {"error": f"{type(exc).__name__}: {exc}"},
                           status="error")
    result["error_last"] = 100.0 * (1.0 - result["last"])
    result["error_averaged"] = 100.0 * (1.0 - result["averaged"])
    return make_record(task, result, seconds=result["seconds"])


# ------------------------------------------------------------------ tasks
def _table_tasks(config, name):
    n = config.table_datasets[name]
    base = {"kind": "table", "n": n, "n_test": config.n_test}
    tasks = [Task(STEM, name, None, {**base, "method": "perceptron",
                                     "policy": None, "budget": None})]
    for B in config.budgets:
        tasks += [Task(STEM, name, None, {**base, "method": "perceptron",
                                          "policy": pol, "budget": B})
                  for pol in POLICIES]
        tasks += [Task(STEM, name, None, {**base, "method": "pa",
                                          "policy": pol, "budget": B})
                  for pol in PA_POLICIES]
    tasks += [Task(STEM, name, None, {**base, "method": "projectron++",
                                      "eta": float(eta), "budget": None})
              for eta in config.projectron_etas]
    return tasks


def _dogma_tasks(config):
    return [Task(STEM, "dogma-demo", None, {"kind": "dogma", "seed": s,
                                            "n": config.dogma_n})
            for s in config.dogma_seeds]


def _curve_tasks(config, name):
    n = config.curve_datasets[name]
    base = {"kind": "curve", "n": n, "n_test": config.n_test}
    tasks = []
    for B in config.curve_budgets:
        for pol in (POLICIES if B is not None else (None,)):
            tasks.append(Task(STEM, name, None, {**base, "policy": pol,
                                                 "budget": B}))
    return tasks


def _load_task(name, n, n_test, purpose):
    return Task(STEM, name, None, {"kind": "data", "for": purpose, "n": n,
                                   "n_test": n_test})


def _load(task):
    """A data set's load record and its arrays (None if missing)."""
    try:
        data = load_dataset(task.dataset, task.params["n"],
                            task.params["n_test"])
    except (OSError, ValueError) as exc:
        return make_record(task, {"error": f"could not load: {exc}"},
                           status="error"), None
    X, y, Xt, yt = data
    info = {"n_train": int(X.shape[0]), "n_test": int(Xt.shape[0]),
            "n_features": int(X.shape[1]),
            "n_classes": int(np.unique(y).shape[0])}
    return make_record(task, info), data


def count(config):
    """The tasks of ``config`` (load records included)."""
    n = len(_dogma_tasks(config))
    n += sum(len(_table_tasks(config, d)) + 1 for d in config.table_datasets)
    n += sum(len(_curve_tasks(config, d)) + 1 for d in config.curve_datasets)
    return n


def submit(config, session):
    """DOGMA's demo, then Table 3 and the curves, a data set at a time
    (each loaded only if one of its tasks has no record)."""
    session.run(dogma_worker, _dogma_tasks(config))
    for name in config.table_datasets:
        load = _load_task(name, config.table_datasets[name], config.n_test,
                          "table")
        session.run_with_data(load, _table_tasks(config, name), _load,
                              table_worker)
    for name in config.curve_datasets:
        n = config.curve_datasets[name]
        load = _load_task(name, n, config.n_test, "curve")
        session.run_with_data(load, _curve_tasks(config, name), _load,
                              curve_worker)
