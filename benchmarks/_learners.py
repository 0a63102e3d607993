"""Data sets and learners of ``bench_learners.py`` (see its docstring).

A data set is read once through the package's data-home loader
(:func:`perceptrons.datasets.load_named`), put in one seeded order and
preprocessed the same way for every learner. A learner is a name, a family
(ours, scikit-learn's, river's), a setting (default, paper, full) and a
``run(ds)`` that returns the cell's measurements.
"""

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from perceptrons.datasets import load_named
from perceptrons.registry import ESTIMATORS

#: Big sets first, then Khardon & Wachman's UCI sets (their Table 1).
DATASET_NAMES = ["a9a", "w8a", "mnist", "usps", "adult",
                 "breast-cancer-wisconsin", "bupa", "crx", "ionosphere",
                 "promoters", "sonar", "wdbc", "wpbc"]
QUICK_TRAIN, QUICK_TEST = 2000, 1000
FULL_COVARIANCE_MAX_D = 300
SEED = 0


def pct(x):
    return "–" if x is None else f"{100 * x:.2f}"


@dataclass
class DataSet:
    name: str
    X: object
    y: np.ndarray
    X_test: object
    y_test: np.ndarray
    split: str
    note: str = ""
    classes: np.ndarray = field(init=False)

    def __post_init__(self):
        self.classes = np.unique(self.y)

    def describe(self):
        kind = "CSR" if sp.issparse(self.X) else "dense"
        return (f"{self.name} {self.X.shape[0]:,} train / "
                f"{self.X_test.shape[0]:,} test x {self.X.shape[1]} ({kind}, "
                f"{len(self.classes)} classes; {self.split}"
                + (f"; {self.note}" if self.note else "") + ")")


def _encode(y, classes=None):
    classes = np.unique(y) if classes is None else classes
    return np.searchsorted(classes, y).astype(np.int64), classes


def load(name, quick=False):
    """One data set, ordered by seed 0, preprocessed, maybe subsampled."""
    note = ""
    if name == "a9a":
        tr, te = load_named("a9a"), load_named("a9a.t")
        X, y, Xt, yt = tr.X, tr.y, te.X, te.y
        split = "test file a9a.t"
    elif name in ("mnist", "usps", "adult"):
        b = load_named(name, handle_missing="zero")
        X, y, Xt, yt = b.X_train, b.y_train, b.X_test, b.y_test
        split = "its test file"
        if name == "mnist":
            X, Xt, note = X / 255.0, Xt / 255.0, "pixels / 255"
    else:
        b = load_named(name, handle_missing="zero")
        X, y = b.X, b.y
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, stratify=y,
                                        random_state=SEED)
        split = "70/30 stratified split, seed 0"
    y, classes = _encode(y)
    yt, _ = _encode(yt, classes)
    if name not in ("a9a", "w8a", "mnist", "usps"):
        scaler = StandardScaler().fit(X)
        X, Xt = scaler.transform(X), scaler.transform(Xt)
        note = "standardised on the training part"
    rng = np.random.default_rng(SEED)
    order = rng.permutation(X.shape[0])
    if quick:
        order = order[:QUICK_TRAIN]
        Xt, yt = Xt[:QUICK_TEST], yt[:QUICK_TEST]
    X, y = X[order], y[order]
    if sp.issparse(X):
        X, Xt = sp.csr_matrix(X), sp.csr_matrix(Xt)
    else:
        X, Xt = np.ascontiguousarray(X), np.ascontiguousarray(Xt)
    return DataSet(name, X, y, Xt, yt, split, note)


def _warmup_rows(ds, n=200):
    """A few rows holding every class (for compilation, untimed)."""
    first = [int(np.flatnonzero(ds.y == c)[0]) for c in ds.classes]
    idx = np.unique(np.r_[np.arange(min(n, ds.X.shape[0])), first])
    return ds.X[idx], ds.y[idx]


def _timed_fit(make, ds, budget=0.3, most=5):
    """The fitted estimator and the best of up to ``most`` timed fits
    (more than one only while they add up to less than ``budget`` s: the
    small sets' sub-millisecond fits)."""
    Xw, yw = _warmup_rows(ds)
    make().fit(Xw, yw)
    times = []
    while not times or (sum(times) < budget and len(times) < most):
        est = make()
        t0 = time.perf_counter()
        est.fit(ds.X, ds.y)
        times.append(time.perf_counter() - t0)
    return est, min(times)


@dataclass
class Learner:
    name: str
    family: str
    setting: str
    run: Callable
    applies: Callable = lambda ds: True


N_BLOCKS = 200


def block_progressive(make, ds):
    """Online mistake rate predicted block by block: each of ``N_BLOCKS``
    consecutive blocks of rows is predicted by the model that has learned
    the blocks before it (the first block by no model: all mistakes), then
    learned with ``partial_fit``."""
    est = make()
    bounds = np.linspace(0, ds.X.shape[0], N_BLOCKS + 1).astype(int)
    mistakes = bounds[1] - bounds[0]
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        if k:
            mistakes += int(np.sum(est.predict(ds.X[a:b]) != ds.y[a:b]))
        est.partial_fit(ds.X[a:b], ds.y[a:b], classes=ds.classes)
    return mistakes / ds.X.shape[0]


# ------------------------------------------------------------------ ours
REVISITING = {"PDM", "PFM", "ROMMA", "MPU"}
#: Their ``n_mistakes_`` sums the one-vs-rest problems' binary mistakes.
SUMMED_OVR = {"HigherOrderPerceptron", "SecondOrderPerceptron", "ALMA"}
CONFIDENCE_WEIGHTED = ("CW", "AROW", "SCW", "NAROW", "NHERD")


def _ours(cls, params):
    def make():
        est = cls(**params)
        one_pass = {"max_iter": 1, "shuffle": False}
        if "random_state" in est.get_params():
            one_pass["random_state"] = SEED
        return est.set_params(**one_pass)

    def run(ds):
        est, fit_time = _timed_fit(make, ds)
        summed = len(ds.classes) > 2 and cls.__name__ in SUMMED_OVR
        # 200 partial_fit calls of a d x d form cost minutes at d = 784.
        blocks = summed and ds.X.shape[1] <= FULL_COVARIANCE_MAX_D
        rate = (block_progressive(make, ds) if blocks else None if summed
                else est.n_mistakes_ / max(est.t_, 1))
        return {"fit_time": fit_time, "mistake_rate": rate, "blocks": blocks,
                "unmeasured": summed and not blocks,
                "test_accuracy": float(est.score(ds.X_test, ds.y_test)),
                "n_updates": int(est.n_updates_),
                "revisits": cls.__name__ in REVISITING,
                "params": {k: repr(v) for k, v in params.items()}}
    return run


def _paper_params(cls):
    """The papers' online algorithm where the defaults differ (or None)."""
    params = {}
    defaults = cls().get_params()
    if defaults.get("hypothesis", "last") != "last":
        params["hypothesis"] = "last"
    if cls.__name__ == "Perceptron":
        params.update(eta=1.0, theta_init=0.0, threshold_step=0.0)
    return params or None


def our_learners():
    out = []
    for entry in ESTIMATORS:
        if entry.class_name == "KernelPerceptron":
            continue  # the Perceptron's dual form (docstring)
        cls = entry.load()
        out.append(Learner(cls.__name__, "ours", "default", _ours(cls, {})))
        paper = _paper_params(cls)
        if paper:
            out.append(Learner(f"{cls.__name__} (paper)", "ours", "paper",
                               _ours(cls, paper)))
    for name in CONFIDENCE_WEIGHTED:
        cls = next(e.load() for e in ESTIMATORS if e.class_name == name)
        out.append(Learner(f"{name} (full)", "ours", "full",
                           _ours(cls, {"covariance": "full"}),
                           lambda ds: ds.X.shape[1] <= FULL_COVARIANCE_MAX_D))
    return out


# --------------------------------------------------------------- sklearn
def _progressive_sklearn(make, ds):
    """Predict each row, then partial_fit on it: the online mistake rate."""
    est = make()
    mistakes = 1  # the first row, met with no model, is a mistake
    est.partial_fit(ds.X[:1], ds.y[:1], classes=ds.classes)
    for t in range(1, ds.X.shape[0]):
        row = ds.X[t:t + 1]
        mistakes += int(est.predict(row)[0] != ds.y[t])
        est.partial_fit(row, ds.y[t:t + 1])
    return mistakes / ds.X.shape[0]


def _sklearn(make, online):
    def run(ds):
        est, fit_time = _timed_fit(make, ds)
        blocks = online and len(ds.classes) > 2
        rate = (None if not online else block_progressive(make, ds) if blocks
                else _progressive_sklearn(make, ds))
        return {"fit_time": fit_time, "mistake_rate": rate, "blocks": blocks,
                "test_accuracy": float(est.score(ds.X_test, ds.y_test))}
    return run


def sklearn_learners():
    from sklearn.linear_model import Perceptron, SGDClassifier
    from sklearn.svm import LinearSVC

    one = {"max_iter": 1, "tol": None, "shuffle": False, "random_state": SEED}
    return [
        Learner("sklearn Perceptron", "sklearn", "default",
                _sklearn(lambda: Perceptron(**one), True)),
        Learner("sklearn SGD (hinge)", "sklearn", "default",
                _sklearn(lambda: SGDClassifier(loss="hinge", **one), True)),
        Learner("sklearn LinearSVC", "sklearn", "default",
                _sklearn(lambda: LinearSVC(random_state=SEED), False)),
    ]


# ----------------------------------------------------------------- river
def river_available():
    try:
        import river  # noqa: F401
    except ImportError:
        return False
    return True


def river_note():
    if not river_available():
        return ("river is not installed in this environment: its rows are "
                "left out")
    import river
    return f"river {river.__version__}"


def _dicts(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return [dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist()))
                for a, b in zip(X.indptr[:-1], X.indptr[1:])]
    return [{j: v for j, v in enumerate(row.tolist()) if v != 0.0}
            for row in X]


def _river(make):
    from river.multiclass import OneVsRestClassifier

    def run(ds):
        binary = len(ds.classes) == 2
        model = make() if binary else OneVsRestClassifier(make())
        xs, xt = _dicts(ds.X), _dicts(ds.X_test)
        ys = [bool(v) for v in ds.y] if binary else ds.y.tolist()
        mistakes, spent = 0, 0.0
        for x, y in zip(xs, ys):
            mistakes += int(model.predict_one(x) != y)
            t0 = time.perf_counter()
            model.learn_one(x, y)
            spent += time.perf_counter() - t0
        pred = [model.predict_one(x) for x in xt]
        truth = [bool(v) for v in ds.y_test] if binary else ds.y_test.tolist()
        return {"fit_time": spent, "mistake_rate": mistakes / len(ys),
                "test_accuracy": float(np.mean([p == t for p, t in
                                                zip(pred, truth)]))}
    return run


def river_learners():
    if not river_available():
        return []
    from river import linear_model as lm

    return [
        Learner("river Perceptron", "river", "default", _river(lm.Perceptron)),
        Learner("river PAClassifier (PA-I)", "river", "default",
                _river(lambda: lm.PAClassifier(C=1.0, mode=1))),
        Learner("river ALMAClassifier", "river", "default",
                _river(lm.ALMAClassifier)),
    ]


def learners():
    return our_learners() + sklearn_learners() + river_learners()
