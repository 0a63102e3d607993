"""Shalev-Shwartz & Singer (2005), Figure 3: the tasks and their workers.

Each (panel, noise level, seed) is a task of :func:`noise_worker`, each
(data set, radius) one of :func:`radius_worker`, which gets the data set
(loaded and prepared once, in the runner's process) as its second argument;
:func:`submit` hands them to the runner's session.
"""

import time

import numpy as np

from ..store import Task, make_record
from .paper import GAMMA, KERNEL_PARAMS, PAPER_SIZES, STEM

__all__ = ["count", "noise_worker", "radius_worker", "submit"]


def _load_kernel_dataset(name):
    """Training set of ``name`` as (X, y)."""
    from ...datasets import load_named

    b = load_named(name)
    return np.asarray(b.X_train, dtype=np.float64), np.asarray(b.y_train)


def noise_worker(task):
    """One online pass of the Perceptron on noisy unit-circle data, and the
    D1 and D2 bounds with the true u."""
    from ...bounds import d1_bound, freund_schapire_bound, mistake_bounds
    from ...datasets import make_unit_circle
    from ...models import Ballseptron

    p = task.params
    noise = {f"{p['panel']}_noise": p["level"]}
    start = time.perf_counter()
    X, y, u = make_unit_circle(n_samples=p["n_samples"], margin=p["gamma"],
                               random_state=p["seed"], **noise)
    clf = Ballseptron(radius=0.0, max_iter=1, shuffle=False).fit(X, y)
    b = mistake_bounds(X, y, u, p["gamma"])
    hinge = np.maximum(0.0, p["gamma"] - y * (X @ u))
    result = {"T": int(p["n_samples"]), "mistakes": int(clf.n_mistakes_),
              "R": b.R, "D1": b.D1, "D2": b.D2,
              "n_hinge_positive": int(np.count_nonzero(hinge > 0)),
              "d2_bound": freund_schapire_bound(b.R, p["gamma"], b.D2),
              "d1_bound": d1_bound(b.R, p["gamma"], b.D1), "u": u}
    return make_record(task, result, seconds=time.perf_counter() - start)


def _radius_fit(X, y, r):
    from ...models import Ballseptron

    clf = Ballseptron(radius=float(r), max_iter=1, shuffle=False,
                      **KERNEL_PARAMS)
    start = time.perf_counter()
    clf.fit(X, y)
    return clf, time.perf_counter() - start


#: The loops this process has compiled: r = 0 (the Perceptron's) and r > 0.
_WARM = set()


def radius_worker(task, data):
    """One online pass of the kernel Ballseptron at one radius on ``data``,
    ``(X, y)``; a failure is recorded (status "error"), not raised.

    The first pass of each kind in a process first runs on 300 rows, so
    that "seconds" is the pass alone, not numba's compilation."""
    X, y = data
    T = int(X.shape[0])
    r = task.params["radius"]
    try:
        if (r > 0) not in _WARM:
            _radius_fit(X[:300], y[:300], r)
            _WARM.add(r > 0)
        clf, seconds = _radius_fit(X, y, r)
    except Exception as exc:  # noqa: BLE001 - reported
        return make_record(task, {"T": T, "error": f"{type(exc).__name__}: "
                                                   f"{exc}"}, status="error")
    result = {"T": T, "mistakes": int(clf.n_mistakes_),
              "margin_errors": int(clf.n_margin_errors_),
              "mistake_rate": int(clf.n_mistakes_) / T, "seconds": seconds}
    return make_record(task, result, seconds=seconds)


# ------------------------------------------------------------------ tasks
def _noise_tasks(config):
    return [Task(STEM, "unit circle", None, {
        "kind": "noise", "panel": kind, "level": float(level),
        "seed": int(seed), "n_samples": int(config.n_samples),
        "gamma": GAMMA})
        for kind, levels in (("label", config.label_noise),
                             ("instance", config.instance_noise))
        for seed in config.seeds for level in levels]


def _top_tasks(config, name):
    n = config.kernel_datasets[name]
    load = Task(STEM, name, None, {"kind": "data", "n": n, "seed": 0})
    return load, [Task(STEM, name, None, {
        "kind": "radius", "radius": float(r), "n": n, "seed": 0,
        "kernel": KERNEL_PARAMS}) for r in config.radii]


def _prepare(X, y, n, seed):
    """Subsample (seeded) if asked, centre, scale to average norm 1."""
    total = X.shape[0]
    if n is not None and n < total:
        idx = np.random.RandomState(seed).permutation(total)[:n]
        X, y = X[idx], y[idx]
        order = "seeded random subsample, in that order"
    else:
        order = "file order"
    X = X - X.mean(axis=0)
    X = X / np.mean(np.linalg.norm(X, axis=1))
    return X, y, order


def _load_record(task):
    """Load and prepare a top-panel data set: its record, and (X, y)."""
    name, n = task.dataset, task.params["n"]
    try:
        X, y = _load_kernel_dataset(name)
    except (OSError, ValueError) as exc:
        return make_record(task, {"error": f"could not load: {exc}"},
                           status="error"), None
    n_total = int(X.shape[0])
    X, y, order = _prepare(X, y, n, seed=task.params["seed"])
    info = {"n_used": int(X.shape[0]), "n_available": n_total,
            "n_paper": PAPER_SIZES.get(name), "order": order,
            "n_classes": int(np.unique(y).shape[0])}
    return make_record(task, info), (X, y)


def count(config):
    """The noise and radius tasks of ``config``."""
    return (len(_noise_tasks(config))
            + len(config.kernel_datasets) * len(config.radii))


def submit(config, session):
    """The noise tasks, then per top-panel data set its load record and
    its radii (the data set is loaded only if a radius has no record)."""
    session.run(noise_worker, _noise_tasks(config))
    for name in config.kernel_datasets:
        load, tasks = _top_tasks(config, name)
        session.run_with_data(load, tasks, _load_record, radius_worker)
