"""Brotto, Gentile & Vitale (NIPS 2007): the tasks and their workers.

Figure 2's runs need no data (:func:`artificial_worker` generates its set,
and so does :func:`alma_worker`, ALMA_p on the same sets, not in the paper);
Table 3's fits (:func:`ocr_worker`) and Table 1's blocks of splits
(:func:`lymphoma_worker`) get their data set, loaded once in the runner's
process, as their second argument. :func:`submit` hands them to the
runner's session.
"""

import time
import warnings

import numpy as np

from ..store import Task, make_record
from .estimators import (_error, _labels, _matrix_updates, _smoothed,
                         _spec_label, corrections, make_estimator,
                         unit_margin_error)
from .paper import (ALMA_SETTINGS, LYMPHOMA_FILE, LYMPHOMA_POSITIVE,
                    LYMPHOMA_TRAIN, OTHER_READINGS)

__all__ = ["alma_worker", "artificial_worker", "count", "lymphoma_worker",
           "ocr_worker", "submit"]


def _failed(task, exc, **info):
    return make_record(task, {**info, "error": f"{type(exc).__name__}: "
                                              f"{exc}"}, status="error")


# ------------------------------------------------------------ Figure 2
def _artificial_seed(seed, noise):
    return int(seed) + int(round(1000 * noise))


def _artificial_data(p):
    from ...datasets.synthetic import make_sparse_target

    n = p["n_train"] + p["n_test"]
    X, y, _ = make_sparse_target(n, noise=p["noise"], random_state=
                                 _artificial_seed(p["seed"], p["noise"]))
    return X[:p["n_train"]], y[:p["n_train"]], X[p["n_train"]:], \
        y[p["n_train"]:]


def _epochs(task, spec, measures):
    """``spec`` on the task's artificial set, one ``partial_fit`` per
    epoch (the examples in generated order): after each epoch every
    ``measures[name](est)`` and the test error; the training error at the
    end."""
    p = task.params
    start = time.perf_counter()
    Xtr, ytr, Xte, yte = _artificial_data(p)
    out = {name: [] for name in [*measures, "test_error"]}
    try:
        est = make_estimator(spec)
        for _ in range(p["epochs"]):
            est.partial_fit(Xtr, ytr, classes=np.array([-1, 1]))
            for name, measure in measures.items():
                out[name].append(measure(est))
            out["test_error"].append(_error(est, Xte, yte))
    except Exception as exc:  # noqa: BLE001 - recorded
        return _failed(task, exc, updates=out["updates"],
                       test_error=out["test_error"])
    return make_record(task, {**out, "train_error": _error(est, Xtr, ytr)},
                       seconds=time.perf_counter() - start)


def artificial_worker(task):
    """HO_p(c) on one artificial set, epoch by epoch (``partial_fit``).

    The record holds, after each epoch, the cumulative training updates
    (mistakes), matrix updates and the test error.
    """
    p = task.params
    spec = {"algorithm": "HO", "p": p["p"], "c": p["c"], "form": "implicit"}
    return _epochs(task, spec, {
        "updates": corrections,
        "matrix_updates": lambda est: _matrix_updates(est, spec)})


def _artificial_tasks(config):
    return [Task(config.stem, f"Artificial η={noise:g}", None, {
        "kind": "artificial", "noise": float(noise), "seed": int(seed),
        "p": int(p), "c": float(c), "epochs": int(config.art_epochs),
        "n_train": int(config.art_n_train), "n_test": int(config.art_n_test)})
        for noise in config.art_noise for seed in config.art_seeds
        for p in config.ps for c in config.cs]


# ------------------------------------------- beyond the paper: ALMA_p
def alma_worker(task):
    """ALMA_p on one of Figure 2's artificial sets, epoch by epoch.

    The same set, order and protocol as :func:`artificial_worker` (one
    ``partial_fit`` per epoch, the examples in generated order). The record
    holds, after each epoch, the cumulative corrections (ALMA's updates:
    margin violations, mistakes included), the cumulative mistakes
    (y w·x ≤ 0) and the test error.
    """
    spec = {"algorithm": "ALMA", **{k: task.params[k] for k in (
        "p", "alpha", "B", "C", "hypothesis", "fit_intercept")}}
    return _epochs(task, spec, {
        "updates": lambda est: int(est.n_updates_),
        "mistakes": lambda est: int(est.n_mistakes_)})


def _alma_tasks(config):
    """ALMA_p on every set of Figure 2 (new tasks: Figure 2's keep their
    keys)."""
    if not config.art_noise:
        return []
    return [Task(config.stem, f"Artificial η={noise:g}", None, {
        "kind": "alma", "noise": float(noise), "seed": int(seed),
        "p": float(p), **ALMA_SETTINGS, "epochs": int(config.art_epochs),
        "n_train": int(config.art_n_train), "n_test": int(config.art_n_test)})
        for noise in config.art_noise for seed in config.art_seeds
        for p in config.alma_ps]


# ------------------------------------------------------------ Table 3
def _load_ocr(spec, seed):
    """(X_train, y_train, X_test, y_test) of an OCR set, subsets taken."""
    if spec.load is not None:
        Xtr, ytr, Xte, yte = spec.load()
    else:
        from ...datasets import load_named

        b = load_named(spec.data)
        Xtr, ytr, Xte, yte = b.X_train, b.y_train, b.X_test, b.y_test
    rng = np.random.RandomState(seed)
    out = []
    for X, y, n in ((Xtr, ytr, spec.n_train), (Xte, yte, spec.n_test)):
        if n is not None and n < X.shape[0]:
            rows = np.sort(rng.choice(X.shape[0], size=n, replace=False))
            X, y = X[rows], y[rows]
        out += [np.ascontiguousarray(X, dtype=np.float64) / spec.scale,
                np.asarray(y)]
    return tuple(out), (Xtr.shape[0], Xte.shape[0])


def _fold_rows(y, n_folds, fold, seed):
    from sklearn.model_selection import StratifiedKFold

    split = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
    train, held = list(split.split(np.zeros(y.shape[0]), y))[fold]
    return np.sort(train), np.sort(held)


def ocr_worker(task, data):
    """One one-epoch OvR fit of one setting: on a fold, or train → test.

    ``data`` is ``(X_train, y_train, X_test, y_test)``; ``fold`` None fits
    the whole training set and scores the test set.
    """
    Xtr, ytr, Xte, yte = data
    p = task.params
    if task.fold is not None:
        tr, held = _fold_rows(ytr, p["n_folds"], task.fold, p["seed"])
        Xtr, ytr, Xte, yte = Xtr[tr], ytr[tr], Xtr[held], ytr[held]
    reading = p.get("reading")
    start = time.perf_counter()
    try:
        if reading == "smoothed":
            Xtr, Xte = _smoothed(Xtr), _smoothed(Xte)
        est = make_estimator(p["spec"], p["kernel"],
                             shuffle_seed=p.get("shuffle_seed"),
                             normalize=reading != "unnormalised")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr, ytr)
        fit_seconds = time.perf_counter() - start
        scores = est.decision_function(Xte)
        err = float(np.mean(_labels(est, scores) != yte))  # = predict's
        # The OvR-combination reading adds only the support's Gram matrix.
        unit = (unit_margin_error(est, scores, yte)
                if task.fold is None and reading is None else None)
    except Exception as exc:  # noqa: BLE001 - recorded
        return _failed(task, exc)
    return make_record(task, {
        "corrections": corrections(est),
        "matrix_updates": _matrix_updates(est, p["spec"]),
        "error": err, "unit_margin_error": unit,
        "n_fit": int(ytr.shape[0]), "n_eval": int(yte.shape[0]),
        "fit_seconds": fit_seconds},
        seconds=time.perf_counter() - start)


def _ocr_specs(config, spec):
    out = [{"algorithm": "FO"}]
    out += [{"algorithm": "HO", "p": 2, "c": float(c)} for c in config.ho_c]
    out += [{"algorithm": "sparse HO", "p": 2, "c": float(c)}
            for c in config.ho_c]
    return out + [{"algorithm": "SO", "a": float(a)} for a in spec.so_a]


def _ocr_tasks(config, spec):
    tasks = []
    for kname, kernel in spec.kernels():
        for algo in _ocr_specs(config, spec):
            for fold in [*range(config.n_folds), None]:
                tasks.append(Task(config.stem, spec.name, fold, {
                    "kind": "ocr", "kernel_name": kname, "kernel": kernel,
                    "spec": algo, "n_folds": int(config.n_folds),
                    "seed": int(config.seed), "n_train": spec.n_train,
                    "n_test": spec.n_test, "scale": spec.scale}))
    return tasks + _reading_tasks(config, spec)


def _reading_variants(config):
    """(reading, extra task parameters) of every other-reading run."""
    out = []
    for name in config.readings:
        if name not in OTHER_READINGS:
            raise ValueError(f"unknown reading {name!r}; known: "
                             f"{', '.join(OTHER_READINGS)}")
        if name == "shuffled":
            out += [(name, {"shuffle_seed": int(s)})
                    for s in config.reading_seeds]
        else:
            out.append((name, {}))
    return out


def _reading_tasks(config, spec):
    """The other readings' test fits: USPS only (MNIST costs hours)."""
    if spec.name != "USPS":
        return []
    tasks = []
    for name, extra in _reading_variants(config):
        family = OTHER_READINGS[name][0]
        for kname, kernel in spec.kernels():
            if kname != family:
                continue
            for algo in _ocr_specs(config, spec):
                if name == "unnormalised" and algo["algorithm"] not in (
                        "FO", "SO"):
                    continue
                tasks.append(Task(config.stem, spec.name, None, {
                    "kind": "reading", "reading": name, **extra,
                    "kernel_name": kname, "kernel": kernel, "spec": algo,
                    "seed": int(config.seed), "n_train": spec.n_train,
                    "n_test": spec.n_test, "scale": spec.scale}))
    return tasks


def _ocr_load_task(config, spec):
    return Task(config.stem, spec.name, None, {
        "kind": "data", "data": spec.data, "n_train": spec.n_train,
        "n_test": spec.n_test, "seed": int(config.seed)})


def _submit_ocr(config, spec, session):
    """An OCR set's load record, then its fits (the data set is loaded
    only if a fit has no record)."""
    def loader(load):
        try:
            data, full = _load_ocr(spec, config.seed)
        except (OSError, ValueError) as exc:
            return _failed(load, exc), None
        return make_record(load, {
            "n_train": int(data[0].shape[0]),
            "n_test": int(data[2].shape[0]),
            "n_train_full": int(full[0]), "n_test_full": int(full[1]),
            "n_features": int(data[0].shape[1]),
            "n_classes": int(np.unique(data[1]).shape[0])}), data

    session.run_with_data(_ocr_load_task(config, spec),
                          _ocr_tasks(config, spec), loader, ocr_worker)


def _load_lymphoma():
    """Lymphoma X (96 × 4026, float64) and y (+1 for class 1, else −1)."""
    from scipy.io import loadmat

    from ...datasets import get_data_home

    path = get_data_home() / LYMPHOMA_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found")
    mat = loadmat(path)
    X = np.ascontiguousarray(mat["X"], dtype=np.float64)
    labels = np.asarray(mat["Y"]).ravel().astype(np.int64)
    return X, np.where(labels == LYMPHOMA_POSITIVE, 1, -1), labels


def _lymphoma_specs(config):
    return ([{"algorithm": "HO", "p": int(p), "c": float(c),
              "form": "implicit"} for p in config.ps for c in config.cs]
            + [{"algorithm": "SO", "a": float(a)} for a in config.lymphoma_a])


def lymphoma_worker(task, data):
    """A block of random 60/36 Lymphoma splits, every setting on each.

    ``data`` is ``(X, y)``; the record holds, per setting label, the
    updates over the epochs and the test error of each split.
    """
    X, y = data
    p = task.params
    start = time.perf_counter()
    out = {}
    try:
        for split in range(p["first"], p["stop"]):
            order = np.random.RandomState(p["seed"] + split).permutation(
                X.shape[0])
            tr, te = order[:p["n_train"]], order[p["n_train"]:]
            for spec in p["specs"]:
                # SO in the dual form with a linear kernel: the same model,
                # O(k²) per mistake instead of O(n²) for n = 4026.
                kernel = ({"kernel": "linear"} if spec["algorithm"] == "SO"
                          else None)
                est = make_estimator(spec, kernel, max_iter=p["epochs"])
                est.fit(X[tr], y[tr])
                cell = out.setdefault(_spec_label(spec),
                                      {"updates": [], "test_error": []})
                cell["updates"].append(corrections(est))
                cell["test_error"].append(_error(est, X[te], y[te]))
    except Exception as exc:  # noqa: BLE001 - recorded
        return _failed(task, exc)
    return make_record(task, {"settings": out},
                       seconds=time.perf_counter() - start)




def _lymphoma_tasks(config):
    blocks = [(s, min(s + config.lymphoma_block, config.lymphoma_splits))
              for s in range(0, config.lymphoma_splits,
                             config.lymphoma_block)]
    return [Task(config.stem, "Lymphoma", i, {
        "kind": "lymphoma", "first": a, "stop": b,
        "seed": int(config.seed), "n_train": LYMPHOMA_TRAIN,
        "epochs": int(config.lymphoma_epochs),
        "specs": _lymphoma_specs(config)}) for i, (a, b) in enumerate(blocks)]


def _submit_lymphoma(config, session):
    """Lymphoma's load record, then its blocks of splits."""
    load = Task(config.stem, "Lymphoma", None, {
        "kind": "data", "data": LYMPHOMA_FILE,
        "positive": LYMPHOMA_POSITIVE})
    try:
        X, y, labels = _load_lymphoma()
    except (OSError, ValueError, KeyError) as exc:
        session.add(_failed(load, exc))
        return
    _, counts = np.unique(labels, return_counts=True)
    session.add(make_record(load, {
        "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
        "class_counts": counts.tolist(), "n_positive": int((y > 0).sum()),
        "values": np.unique(X).tolist()}))
    session.run(lymphoma_worker, _lymphoma_tasks(config), (X, y))


def count(config):
    """The tasks of :func:`submit`, for the progress bar."""
    n_blocks = -(-config.lymphoma_splits // config.lymphoma_block)
    return (len(_artificial_tasks(config)) + len(_alma_tasks(config))
            + n_blocks
            + sum(len(_ocr_tasks(config, s)) for s in config.ocr))


def submit(config, session):
    """Figure 2's runs, ALMA_p on its sets, then Table 1's Lymphoma, then
    Table 3 per OCR set."""
    session.run(artificial_worker, _artificial_tasks(config))
    session.run(alma_worker, _alma_tasks(config))
    if config.lymphoma_splits:
        _submit_lymphoma(config, session)
    for spec in config.ocr:
        _submit_ocr(config, spec, session)
