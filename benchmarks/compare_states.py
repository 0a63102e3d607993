"""Did a change of the package change any fitted result, bit for bit?

Question
--------
After a rewrite of the compiled loops or of the model internals, does every
public estimator still give the same fitted attributes, scores, predictions,
errors and warnings, to the last bit? The script takes a fingerprint of the
package through its PUBLIC API only (private attributes are free to change),
and compares two fingerprints.

Command
-------
::

    # the reference, from the frozen checkout:
    PYTHONPATH=/work/baseline python benchmarks/compare_states.py \\
        record /work/fp/baseline.npz
    # the working tree (the editable install), then the comparison:
    python benchmarks/compare_states.py record /work/fp/new.npz
    python benchmarks/compare_states.py compare /work/fp/baseline.npz \\
        /work/fp/new.npz

``record`` fingerprints whatever ``perceptrons`` is importable (10 s with
numba's cache warm, ~2.5 min compiling from cold). ``compare`` exits with
status 1 when a value differs or a key of A is missing from B (a public
attribute or a case that vanished; ``--allow-missing`` relaxes the latter,
for a recording of some estimators only: ``record --only
Perceptron,KernelPerceptron``);
keys only in B (new attributes) are listed, not counted against B.

What is recorded
----------------
For every class of ``perceptrons.registry.ESTIMATORS`` and every parameter
set of its ``_test_params()`` (with ``random_state=0``), on dense and CSR
input holding the same values (standardised ``make_classification`` data,
~40% of the entries zeroed, no all-zero row; 90 training rows, 6 features,
30 extra rows, 40 probe rows), for 2 classes (labels -1/+1) and 3 (labels
1/2/5), the scenarios

* ``fit``: ``fit(X, y)``; for a fit with ``hypothesis="voted"`` whose
  ``decision_function`` takes ``hypothesis``, also its scores under
  "last", "longest" and "averaged" (an error is recorded as such);
* ``fit+pf``: ``fit(X, y)`` then ``partial_fit(X_extra, y_extra)``;
* ``pf+pf``: ``partial_fit(X[:45], y[:45], classes=...)`` then
  ``partial_fit(X[45:], y[45:])``;
* ``zero-rows``: ``fit`` on the training rows with 3 rows set to zero;
* ``fit-600rows``: ``fit`` on 600 rows of the same kind (other draws),
  past the row blocks of the compiled loops (128 rows of kernel values,
  512 rows of voted scores, 256-row shuffle blocks), scored like ``fit``;

and, for ``perceptrons.distributed.ParameterMixing`` (in this process, 3
shards of 30 rows, ``max_iter=3``), Perceptron ("last", "averaged", "last"
with ``lam=0.5``) and the primal Ballseptron ("last", "averaged"), mixing
"uniform" and "mistakes". After each scenario: every public fitted
attribute (``dir(est)`` names ending in ``_``, not starting with ``_``, not
``state_``, not callable; an estimator-valued one, like ``estimator_``, is
recorded recursively), ``decision_function(probe)``, ``predict(probe)``,
and the warnings raised. A scenario that raises records the exception's
type and message instead.

Keys read like ``Perceptron[3]/csr/3cls/fit/coef_`` (``[3]``: the index of
the parameter set, whose repr is recorded under ``Perceptron[3]/params``).
The .npz holds the arrays as ``a00000``, ``a00001``, ... and a JSON index
``__index__`` from key to ``{"kind", "type", "array", ...}``; ``__meta__``
holds versions and the BLAS threads.

Record both fingerprints with the same BLAS threads: at 4089659 the scores
(``decision_function``) of the kernel ``SecondOrderPerceptron`` on 600 rows
differ in the last bits between ``OPENBLAS_NUM_THREADS=1`` and 2 (a BLAS
product in its dual decision function); the fitted attributes do not.
``compare`` warns when the two recordings' BLAS threads differ.
"""

import argparse
import inspect
import json
import os
import sys
import warnings

import numpy as np
import scipy.sparse as sp

N_TRAIN, N_EXTRA, N_PROBE, N_FEATURES = 90, 30, 40, 6
N_LARGE = 600  # past the row blocks of the loops (128, 256, 512 rows)
LABELS = {2: np.array([-1, 1]), 3: np.array([1, 2, 5])}
OTHER_HYPOTHESES = ("last", "longest", "averaged")


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


def make_data(n_classes, n_train=N_TRAIN):
    """Train, extra and probe rows for ``n_classes``, dense and CSR.

    Returns
    -------
    dict
        ``{"dense": {...}, "csr": {...}}``, each with ``X``, ``X_extra``,
        ``X_probe``, ``X_zero_rows`` (same values in both forms) and the
        labels ``y``, ``y_extra``, ``classes``.
    """
    from sklearn.datasets import make_classification

    n = n_train + N_EXTRA + N_PROBE
    X, codes = make_classification(
        n_samples=n, n_features=N_FEATURES, n_informative=4, n_redundant=1,
        n_classes=n_classes, n_clusters_per_class=1, random_state=n_classes)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.default_rng(100 + n_classes)
    zero = rng.random(X.shape) < 0.4
    for i in np.flatnonzero(zero.all(axis=1)):   # keep one entry per row
        zero[i, rng.integers(N_FEATURES)] = False
    X[zero] = 0.0
    X = np.ascontiguousarray(X)
    y = LABELS[n_classes][codes]
    X_zero_rows = X[:n_train].copy()
    X_zero_rows[[5, 40, 77]] = 0.0
    parts = {"X": X[:n_train], "X_extra": X[n_train:n_train + N_EXTRA],
             "X_probe": X[n_train + N_EXTRA:], "X_zero_rows": X_zero_rows}
    labels = {"y": y[:n_train], "y_extra": y[n_train:n_train + N_EXTRA],
              "classes": LABELS[n_classes]}
    dense = {k: np.ascontiguousarray(v) for k, v in parts.items()}
    csr = {k: sp.csr_matrix(v) for k, v in parts.items()}
    return {"dense": {**dense, **labels}, "csr": {**csr, **labels}}


# --------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------


class Raised:
    """An exception, recorded as its type name and message."""

    def __init__(self, exc):
        self.type, self.message = type(exc).__name__, str(exc)


class Recorder:
    """Flattens values into ``index`` (key -> JSON meta) and ``arrays``."""

    def __init__(self):
        self.index, self.arrays = {}, {}

    def _array(self, key, value, **meta):
        name = f"a{len(self.arrays):05d}"
        self.arrays[name] = value
        self.index[key] = {"array": name, **meta}

    def put(self, key, value):
        """Record ``value`` under ``key`` (recursively for containers)."""
        from sklearn.base import BaseEstimator

        if isinstance(value, Raised):
            self.index[key] = {"kind": "error", "type": value.type,
                               "message": value.message}
        elif value is None or isinstance(value, str):
            self.index[key] = {"kind": type(value).__name__, "value": value}
        elif isinstance(value, (bool, int, float, complex, np.generic)):
            self._array(key, np.asarray(value), kind="scalar",
                        type=type(value).__name__)
        elif isinstance(value, np.ndarray) and value.dtype != object:
            self._array(key, np.ascontiguousarray(value), kind="ndarray",
                        type="ndarray")
        elif sp.issparse(value):
            self.index[key] = {"kind": "sparse", "type": type(value).__name__,
                               "shape": list(value.shape)}
            m = value if value.format in ("csr", "csc") else value.tocsr()
            for part in ("data", "indices", "indptr"):
                self.put(f"{key}/{part}", getattr(m, part))
        elif isinstance(value, (list, tuple, np.ndarray)):  # object arrays too
            self.index[key] = {"kind": "sequence", "len": len(value),
                               "type": type(value).__name__}
            for i, item in enumerate(value):
                self.put(f"{key}[{i}]", item)
        elif isinstance(value, dict):
            self.index[key] = {"kind": "dict", "keys": sorted(map(str, value))}
            for k, item in value.items():
                self.put(f"{key}{{{k}}}", item)
        elif isinstance(value, BaseEstimator):
            self.index[key] = {"kind": "estimator",
                               "type": type(value).__name__,
                               "params": repr(value.get_params(deep=False))}
            self.put_fitted(key, value)
        else:
            self.index[key] = {"kind": "other", "type": type(value).__name__,
                               "repr": repr(value)[:300]}

    def put_fitted(self, prefix, est):
        """Every public fitted attribute of ``est`` under ``prefix/name``."""
        for name in dir(est):
            if name.startswith("_") or not name.endswith("_") or \
                    name == "state_":
                continue
            try:
                value = getattr(est, name)
            except Exception as exc:  # a property that refuses: behaviour
                value = Raised(exc)
            if callable(value):
                continue
            self.put(f"{prefix}/{name}", value)

    def scenario(self, prefix, run, probe, hypotheses=()):
        """Run ``run()`` (which returns the fitted estimator) and record it.

        Records the fitted attributes, ``decision_function(probe)`` (also
        under each of ``hypotheses`` when given), ``predict(probe)`` and the
        warnings; or the exception ``run()`` raised.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est = run()
            except Exception as exc:
                self.put(f"{prefix}/error", Raised(exc))
                est = None
            if est is not None:
                self.put_fitted(prefix, est)
                calls = [("decision_function", {}), ("predict", {})]
                calls += [(f"decision_function[{h}]", {"hypothesis": h})
                          for h in hypotheses]
                for name, kwargs in calls:
                    method = getattr(est, name.split("[")[0])
                    try:
                        value = method(probe, **kwargs)
                    except Exception as exc:
                        value = Raised(exc)
                    self.put(f"{prefix}/{name}", value)
        self.put(f"{prefix}/warnings",
                 [f"{w.category.__name__}: {w.message}" for w in caught])

    def save(self, path, meta):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        np.savez_compressed(path, __index__=np.array(json.dumps(self.index)),
                            __meta__=np.array(json.dumps(meta)),
                            **self.arrays)


def estimator_cases(rec, log, only=None):
    """The scenarios of every registered estimator (of those named in
    ``only``, when given)."""
    from perceptrons.registry import ESTIMATORS

    data = {k: make_data(k) for k in LABELS}
    large = {k: make_data(k, N_LARGE) for k in LABELS}
    for entry in ESTIMATORS:
        if only is not None and entry.class_name not in only:
            continue
        cls = entry.load()
        takes_hypothesis = "hypothesis" in inspect.signature(
            cls.decision_function).parameters
        for i, params in enumerate(cls._test_params()):
            case = f"{entry.class_name}[{i}]"
            rec.put(f"{case}/params", repr(params))
            params = dict(params)
            if "random_state" in cls().get_params():
                params["random_state"] = 0
            hyps = (OTHER_HYPOTHESES if takes_hypothesis and
                    params.get("hypothesis") == "voted" else ())
            log(f"{case} {params}")
            for n_classes, by_input in data.items():
                for kind, d in by_input.items():
                    p = f"{case}/{kind}/{n_classes}cls"
                    X, y, probe = d["X"], d["y"], d["X_probe"]
                    rec.scenario(f"{p}/fit", lambda: cls(**params).fit(X, y),
                                 probe, hyps)
                    rec.scenario(
                        f"{p}/fit+pf",
                        lambda: cls(**params).fit(X, y).partial_fit(
                            d["X_extra"], d["y_extra"]), probe)
                    rec.scenario(
                        f"{p}/pf+pf",
                        lambda: cls(**params).partial_fit(
                            X[:45], y[:45], classes=d["classes"]
                        ).partial_fit(X[45:], y[45:]), probe)
                    rec.scenario(
                        f"{p}/zero-rows",
                        lambda: cls(**params).fit(d["X_zero_rows"], y), probe)
                    big = large[n_classes][kind]
                    rec.scenario(
                        f"{p}/fit-{N_LARGE}rows",
                        lambda: cls(**params).fit(big["X"], big["y"]),
                        big["X_probe"], hyps)


def mixing_cases(rec, log, only=None):
    """Parameter mixing in this process, 3 shards, 3 epochs (of the
    estimators named in ``only``, when given)."""
    from perceptrons import Ballseptron, Perceptron
    from perceptrons.distributed import ParameterMixing

    estimators = {  # name -> (class, parameters)
        "Perceptron-last": (Perceptron, {"hypothesis": "last"}),
        "Perceptron-averaged": (Perceptron, {"hypothesis": "averaged"}),
        "Perceptron-last-lam0.5": (Perceptron, {"hypothesis": "last",
                                                "lam": 0.5}),
        "Ballseptron-last": (Ballseptron, {"hypothesis": "last"}),
        "Ballseptron-averaged": (Ballseptron, {"hypothesis": "averaged"}),
    }
    for n_classes in LABELS:
        by_input = make_data(n_classes)
        for name, (cls, params) in estimators.items():
            if only is not None and cls.__name__ not in only:
                continue
            log(f"ParameterMixing {name} {n_classes} classes")
            for kind, d in by_input.items():
                X, y = d["X"], d["y"]
                Xs = [X[k * 30:(k + 1) * 30] for k in range(3)]
                ys = [y[k * 30:(k + 1) * 30] for k in range(3)]
                for mixing in ("uniform", "mistakes"):
                    rec.scenario(
                        f"ParameterMixing[{name}]/{kind}/{n_classes}cls/"
                        f"{mixing}",
                        lambda: ParameterMixing(
                            cls(**params, random_state=0), mixing=mixing,
                            max_iter=3).fit(Xs, ys, classes=d["classes"]),
                        d["X_probe"])


def run_meta():
    """Versions and environment, printed beside a comparison."""
    import numba
    import sklearn
    from threadpoolctl import threadpool_info

    import perceptrons

    blas = [f"{i.get('internal_api')} {i.get('num_threads')} thread(s)"
            for i in threadpool_info() if i.get("user_api") == "blas"]
    return {"perceptrons": os.path.dirname(perceptrons.__file__),
            "blas": blas,
            "python": sys.version.split()[0], "numpy": np.__version__,
            "numba": numba.__version__, "sklearn": sklearn.__version__,
            "env": {k: os.environ[k] for k in (
                "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS",
                "OPENBLAS_CORETYPE") if k in os.environ}}


def record(path, only=None):
    import time

    t0 = time.time()

    def log(msg):
        print(f"[{time.time() - t0:6.1f} s] {msg}", file=sys.stderr)

    meta = run_meta()
    log(f"recording perceptrons from {meta['perceptrons']}")
    rec = Recorder()
    estimator_cases(rec, log, only)
    mixing_cases(rec, log, only)
    rec.save(path, meta)
    n_err = sum(m.get("kind") == "error" for m in rec.index.values())
    print(f"wrote {path}: {len(rec.index)} keys, {len(rec.arrays)} arrays, "
          f"{n_err} recorded errors, {time.time() - t0:.0f} s")


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------


def load(path):
    with np.load(path, allow_pickle=False) as f:
        index = json.loads(str(f["__index__"]))
        meta = json.loads(str(f["__meta__"]))
        arrays = {k: f[k] for k in f.files if not k.startswith("__")}
    return index, meta, arrays


def _diff(a, b):
    """Why two arrays differ (None if bitwise equal), with max |diff| and
    max relative diff when they are numeric and of one shape."""
    if a.dtype != b.dtype:
        reason = f"dtype {a.dtype} -> {b.dtype}"
    elif a.shape != b.shape:
        return f"shape {a.shape} -> {b.shape}", None, None
    elif a.tobytes() == b.tobytes():  # bits: signed zeros and NaNs included
        return None, None, None
    elif np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
        reason = "same values, different bits (signed zero or NaN payload)"
    else:
        reason = "values"
    if a.shape != b.shape or a.dtype.kind not in "biufc" or \
            b.dtype.kind not in "biufc":
        return reason, None, None
    with np.errstate(all="ignore"):
        d = np.abs(a.astype(np.complex128) - b.astype(np.complex128))
        scale = np.maximum(np.abs(a), np.abs(b)).astype(np.float64)
        rel = np.where(scale > 0, d / np.where(scale > 0, scale, 1), 0)
    return (reason, float(np.nanmax(d)) if d.size else 0.0,
            float(np.nanmax(rel)) if d.size else 0.0)


def compare(path_a, path_b, allow_missing=False, show=60):
    ia, ma, aa = load(path_a)
    ib, mb, ab = load(path_b)
    print(f"A: {path_a}\n   {json.dumps(ma)}")
    print(f"B: {path_b}\n   {json.dumps(mb)}")
    if ma.get("blas") != mb.get("blas"):
        print(f"WARNING: different BLAS threads ({ma.get('blas')} vs "
              f"{mb.get('blas')}): some scores depend on them (see the "
              "module docstring)")
    common = [k for k in ia if k in ib]
    only_a = [k for k in ia if k not in ib]
    only_b = [k for k in ib if k not in ia]
    differing, n_arrays = [], 0
    for key in common:
        a, b = dict(ia[key]), dict(ib[key])
        name_a, name_b = a.pop("array", None), b.pop("array", None)
        reason = dmax = rmax = None
        if name_a is not None and name_b is not None:
            n_arrays += 1
            reason, dmax, rmax = _diff(aa[name_a], ab[name_b])
        if a != b:  # kind, Python type, error message, string, length...
            reason = f"{a} -> {b}" + (f"; {reason}" if reason else "")
        if reason:
            differing.append((key, reason, dmax, rmax))
    print(f"\n{len(common)} values compared ({n_arrays} arrays, "
          f"{len(common) - n_arrays} JSON values: errors, strings, None, "
          f"containers): {len(common) - len(differing)} identical, "
          f"{len(differing)} differing; {len(only_a)} keys only in A, "
          f"{len(only_b)} only in B")
    sections = [("DIFFERING", differing), ("ONLY IN A (missing from B)",
                [(k, "", None, None) for k in only_a]),
                ("only in B (new)", [(k, "", None, None) for k in only_b])]
    for title, rows in sections:
        if not rows:
            continue
        print(f"\n{title}: {len(rows)}")
        for key, reason, dmax, rmax in rows[:show]:
            nums = ("" if dmax is None else
                    f"  max|diff| {dmax:.3g}  max rel {rmax:.3g}")
            print(f"  {key}  {reason}{nums}")
        if len(rows) > show:
            print(f"  ... and {len(rows) - show} more (--show N)")
        by_attr = {}
        for key, *_ in rows:
            attr = key.rsplit("/", 1)[-1]
            by_attr[attr] = by_attr.get(attr, 0) + 1
        print("  by last key part: " + ", ".join(
            f"{k} {v}" for k, v in sorted(by_attr.items(),
                                          key=lambda kv: -kv[1])[:20]))
    failed = bool(differing) or (bool(only_a) and not allow_missing)
    print("\nRESULT: " + ("DIFFERENT" if failed else "IDENTICAL"
                          + (" (on the common keys)" if only_a else "")))
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("record", help="fingerprint the importable package")
    p.add_argument("out", help="the .npz to write")
    p.add_argument("--only", default=None,
                   help="record only these estimator classes (comma-"
                   "separated class names); compare with --allow-missing")
    p = sub.add_parser("compare", help="compare two fingerprints bit for bit")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--allow-missing", action="store_true",
                   help="do not fail on keys of A missing from B")
    p.add_argument("--show", type=int, default=60,
                   help="list at most this many keys per section")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.out, None if args.only is None
               else set(args.only.split(",")))
        return 0
    return compare(args.a, args.b, args.allow_missing, args.show)


if __name__ == "__main__":
    sys.exit(main())
