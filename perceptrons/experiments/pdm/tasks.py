"""Panagiotakopoulos & Tsampouka (ALT 2011): the tasks and their worker.

Loading each data set makes its load record (in the runner's process);
each (data set, algorithm) fit is a task of :func:`fit_worker`, which gets
the data set as its second argument. PFM's tasks follow once PDM's records
give their β (:func:`submit`).
"""

import functools
import time
import warnings

import numpy as np
import scipy.sparse as sp

from .. import _liblinear, _libsvm
from ..store import Task, make_record
from .paper import EPSILON, ETA, MPU_GAP, RHO, SVM_EPSILON

__all__ = ["count", "fit_worker", "submit"]


# ------------------------------------------------------------------ workers
@functools.cache
def _warm_up():
    """Compile every loop used below on tiny dense and CSR problems, once
    per process, so that no numba compilation is timed."""
    from ... import MPU, PDM, PFM, ROMMA

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in (X, sp.csr_matrix(X)):
            for est in (PDM(epsilon=EPSILON, extension=1.0, random_state=0),
                        PDM(epsilon=EPSILON, extension=1.0, successive=ETA,
                            random_state=0),
                        PFM(beta=0.05, extension=1.0, random_state=0),
                        ROMMA(epsilon=EPSILON, extension=1.0,
                              random_state=0),
                        MPU(epsilon=EPSILON, gap=MPU_GAP, extension=1.0,
                            random_state=0)):
                est.fit(data, y)
    if _liblinear.available():
        _liblinear.fit_dcd_l2(X, y, 1.0)


def _timed_fit(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c0, t0 = time.process_time(), time.perf_counter()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall, cpu, [str(w.message) for w in caught]


def _ours(task, X, y):
    import perceptrons

    p = task.params
    cls = getattr(perceptrons, p["estimator"])
    fits = []
    for _ in range(p["repeats"]):
        est = cls(**p["params"])
        fits.append(_timed_fit(est, X, y))
    times = [f[0] for f in fits]
    return {"margin": float(est.directional_margin_[0]),
            "geometric_margin": float(est.geometric_margin_[0]),
            "updates": int(est.n_updates_), "seconds": min(times),
            "seconds_all": times, "cpu_seconds": min(f[1] for f in fits),
            "converged": bool(est.converged_[0]), "n_iter": int(est.n_iter_),
            "accuracy_estimate": float(est.accuracy_estimate_[0]),
            "warnings": fits[-1][2], "note": ""}


def _dcd(task, X, y):
    p = task.params["params"]
    fit = {"l1": _liblinear.fit_dcd_l1, "l2": _liblinear.fit_dcd_l2}[
        p["solver"]]
    fits = [fit(X, y, p["delta"], rho=p["rho"], eps=p["eps"])
            for _ in range(task.params["repeats"])]
    res = fits[-1]
    margin, geometric = _liblinear.directional_margin(
        X, y, res.w, res.b, rho=p["rho"], delta=p["delta"], alpha=res.alpha)
    limit = res.info.get("max_iter_reached", False)
    return {"options": res.options, "C": res.C, "margin": float(margin),
            "geometric_margin": float(geometric), "updates": None,
            "seconds": min(f.seconds for f in fits),
            "seconds_all": [f.seconds for f in fits], "cpu_seconds": None,
            "converged": not limit, "n_iter": res.info.get("n_iter"),
            "accuracy_estimate": None, "warnings": [],
            "note": f"extension from {res.alpha_source}; LIBLINEAR "
                    f"`{res.options}`, {res.info.get('n_iter')} outer "
                    "iterations" + ("; **stopped at LIBLINEAR's iteration "
                                    "limit**" if limit else "")}


def _svm(task, X, y):
    p = task.params["params"]
    res = _libsvm.fit_hard_margin(X, y, p["delta"], eps=p["eps"])
    return {"options": res.options, "C": res.C,
            "margin": res.geometric_margin, "directional_margin": res.margin,
            "geometric_margin": res.geometric_margin, "updates": None,
            "seconds": res.seconds, "seconds_all": [res.seconds],
            "cpu_seconds": None, "converged": True, "n_iter": None,
            "accuracy_estimate": None, "warnings": [],
            "note": f"LIBSVM in place of SVMlight (a decomposition SVM of the "
                    f"same class), `{res.options}` on [x, Δe_k], free bias; "
                    f"{res.n_support} support vectors; the margin is γ' (no "
                    f"bias in the norm), as the paper's SVMlight cell; γ'_d "
                    f"= {1e4 * res.margin:.4g}e-4; one fit"}


def fit_worker(task, data):
    """Fit one algorithm of the paper on one data set, timed; its record.

    ``data`` is ``(X, y)``, y in ±1; ``task.params`` names the
    ``estimator`` (``"PDM"``, ``"PFM"``, ``"ROMMA"``, ``"MPU"``,
    ``"liblinear"`` or ``"libsvm"``), its ``params`` and the ``repeats``.
    Without LIBLINEAR's (LIBSVM's) binding a DCD (the LIBSVM) task is
    recorded as "skipped".
    """
    X, y = data
    _warm_up()
    start = time.perf_counter()
    estimator = task.params["estimator"]
    binding = {"liblinear": _liblinear, "libsvm": _libsvm}.get(estimator)
    if binding is None:
        result = _ours(task, X, y)
    elif not binding.available():
        return make_record(task, {"note": binding.MISSING_MESSAGE},
                           status="skipped")
    else:
        result = (_dcd if estimator == "liblinear" else _svm)(task, X, y)
    return make_record(task, result, seconds=time.perf_counter() - start)


# ------------------------------------------------------------------ tasks
def _load(ds, config):
    """Load, subsample and sign a data set: its record, and (X, y)."""
    task = Task(config.stem, ds.name, None, {
        "kind": "data", "data": ds.data, "delta": float(ds.delta),
        "n_rows": config.n_rows, "random_state": config.random_state})
    base = {"data": ds.data, "description": ds.description,
            "delta": float(ds.delta), "rho": RHO}
    try:
        X, y = ds.get()
    except (FileNotFoundError, OSError) as exc:
        return make_record(task, {**base, "error": f"data not found: {exc}"},
                           status="error"), None
    m_full, n_rows = X.shape[0], config.n_rows
    subsample = None
    if n_rows is not None and n_rows < m_full:
        rng = np.random.default_rng(config.random_state)
        rows = np.sort(rng.choice(m_full, size=n_rows, replace=False))
        X, y = X[rows], np.asarray(y)[rows]
        subsample = int(n_rows)
    X = (sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X)
         else np.ascontiguousarray(X, dtype=np.float64))
    y = _liblinear.signed_labels(y)
    info = {**base, "n_samples": int(X.shape[0]),
            "n_samples_full": int(m_full), "n_features": int(X.shape[1]),
            "subsample": subsample, "n_positive": int((y > 0).sum())}
    return make_record(task, info), (X, y)


def _fit_task(config, ds, algorithm, estimator, params, repeats=None):
    return Task(config.stem, ds.name, None, {
        "kind": "fit", "algorithm": algorithm, "estimator": estimator,
        "params": params, "repeats": repeats or config.repeats,
        "n_rows": config.n_rows})


def _first_tasks(config, ds):
    """The fits that depend on nothing else (all but PFM)."""
    common = {"augmentation": RHO, "extension": float(ds.delta),
              "random_state": config.random_state}
    dcd = {"delta": float(ds.delta), "rho": RHO, "eps": EPSILON}
    tasks = [
        _fit_task(config, ds, "PDM", "PDM", {"epsilon": EPSILON, **common}),
        _fit_task(config, ds, "PDM-succ", "PDM",
                  {"epsilon": EPSILON, "successive": ETA, **common}),
        _fit_task(config, ds, "ROMMA", "ROMMA", {"epsilon": EPSILON,
                                                 **common}),
        _fit_task(config, ds, "MPU", "MPU", {
            "epsilon": EPSILON, "gap": MPU_GAP, "intercept_scaling": RHO,
            "extension": float(ds.delta), "certified_stop": True,
            "random_state": config.random_state}),
        # SVMlight's column, by LIBSVM: minutes per fit on the full sets,
        # so one.
        _fit_task(config, ds, "SVMlight", "libsvm",
                  {"delta": float(ds.delta), "eps": SVM_EPSILON}, repeats=1),
        _fit_task(config, ds, "DCD-L1", "liblinear", {"solver": "l1", **dcd}),
        _fit_task(config, ds, "DCD-L2", "liblinear", {"solver": "l2", **dcd})]
    return [t for t in tasks if t.params["algorithm"] not in config.skip]


def _pfm_tasks(config, ds, first):
    """PFM with β = γ'_d of PDM and of PDM-succ (Table 1)."""
    common = {"augmentation": RHO, "extension": float(ds.delta),
              "random_state": config.random_state}
    return [_fit_task(config, ds, f"PFM (β = γ'_d of {source})", "PFM",
                      {"beta": r["result"]["margin"], **common})
            for source, r in zip(("PDM", "PDM-succ"), first)]


def count(config):
    """The fits of ``config``: 9 per data set (fewer with ``skip``)."""
    return (9 - len(config.skip)) * len(config.datasets)


def submit(config, session):
    """Per data set: its load record, then its fits (PFM's last, with β
    from PDM's records)."""
    for ds in config.datasets:
        record, data = _load(ds, config)
        session.add(record)
        if data is not None:
            first = session.run(fit_worker, _first_tasks(config, ds), data)
            session.run(fit_worker, _pfm_tasks(config, ds, first), data)
