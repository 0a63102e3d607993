"""Crafted model files: what a hostile or corrupt file can do to the loader.

A model file holds an estimator's typed state (:mod:`perceptrons.persistence`).
This module saves one fitted model per estimator family and form, then makes
*crafted copies* of it: one array element or scalar of its state changed
(an index past the end, negative or huge; a NaN or an infinity; a flag
flipped), an array's dtype or shape changed, a node of the header retyped,
a field dropped or added. Each copy is loaded in a worker process and, when
it loads, used (``predict``, ``decision_function``, ``partial_fit``, saved
again); the outcome of each case is one of

``refused``
    ``load_model`` raised ValueError (what a bad file must get);
``loaded``
    the file loaded and every use worked (the change left a valid model);
``use-refused``
    the file loaded (a valid model) and a use of it raised a ValueError
    with its message (a finite but huge weight overflows when training
    goes on: the overflow error every estimator raises);
``error:<type>``
    any other exception, at load or after it (a defect: a bad file must be
    refused with a clear ValueError, a loaded one must work);
``crashed``
    the worker died (a segmentation fault, an abort) or hung past the
    case's time limit.

The worker reports each case as it ends, so a crash is pinned to its case
and the run goes on with a new worker from the next one.
"""

import json
import os
import subprocess
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: One model per family and form: (name, class name, params, n_classes,
#: sparse input).
MODELS = [
    ("perceptron-averaged", "Perceptron", {"hypothesis": "averaged"}, 3,
     False),
    ("perceptron-voted", "Perceptron", {"hypothesis": "voted"}, 3, True),
    ("perceptron-longest-prototype", "Perceptron",
     {"hypothesis": "longest", "multiclass": "prototype", "lam": 0.5,
      "alpha_bound": 3}, 3, False),
    ("perceptron-rbf-voted", "Perceptron",
     {"kernel": "rbf", "gamma": 0.5, "hypothesis": "voted"}, 3, False),
    ("perceptron-poly-averaged-prototype", "Perceptron",
     {"kernel": "poly", "degree": 2, "hypothesis": "averaged",
      "multiclass": "prototype"}, 3, True),
    ("ballseptron-averaged", "Ballseptron", {"radius": 0.3}, 3, False),
    ("ballseptron-rbf", "Ballseptron",
     {"kernel": "rbf", "gamma": 0.5, "radius": 0.2}, 2, True),
    ("ballseptron-rbf-multiclass", "Ballseptron",
     {"kernel": "rbf", "gamma": 0.5, "radius": 0.2, "hypothesis": "last"},
     3, False),
    ("pdm-dual", "PDM", {"store_dual": True}, 3, False),
    ("pfm", "PFM", {}, 2, True),
    ("romma", "ROMMA", {}, 2, False),
    ("ho-primal", "HigherOrderPerceptron", {"max_iter": 2}, 3, False),
    ("ho-implicit", "HigherOrderPerceptron",
     {"p": 4.0, "form": "implicit", "sparse": True, "max_iter": 2}, 3, True),
    ("ho-dual", "HigherOrderPerceptron",
     {"kernel": "rbf", "gamma": 0.5, "max_iter": 2}, 3, False),
    ("so-primal", "SecondOrderPerceptron", {"max_iter": 2}, 2, False),
    ("so-dual", "SecondOrderPerceptron",
     {"kernel": "rbf", "gamma": 0.5, "normalize": True, "max_iter": 2}, 3,
     True),
]


def data(n_classes, sparse, seed=0, n=80, d=6):
    """Training rows for the models (and for the use of a loaded one)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[rng.rand(n, d) < 0.3] = 0.0
    y = rng.randint(n_classes, size=n)
    X += np.eye(n_classes, d)[y] * 2.0
    return (sp.csr_matrix(X) if sparse else X), y


def save_models(folder):
    """Fit and save every model of :data:`MODELS` into ``folder``.

    Returns
    -------
    dict
        name -> path.
    """
    import perceptrons
    from perceptrons.persistence import save_model

    paths = {}
    for name, cls, params, n_classes, sparse in MODELS:
        X, y = data(n_classes, sparse)
        est = getattr(perceptrons, cls)(random_state=0, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        paths[name] = os.path.join(folder, f"{name}.npz")
        save_model(est, paths[name])
    return paths


# ---------------------------------------------------------------- mutations
def _leaves(node, path=()):
    """``(path, node)`` of every leaf of a state node."""
    if isinstance(node, dict) and node.get("type") == "state":
        for name, child in node["fields"].items():
            yield from _leaves(child, path + (name,))
    else:
        yield path, node


def _set_leaf(header, path, node):
    parent = header["state"]
    for name in path[:-1]:
        parent = parent["fields"][name]
    parent["fields"][path[-1]] = node


def _array_edits(arr):
    """``(label, new array)`` edits of an array member."""
    out = []
    if arr.size:
        flat = arr.reshape(-1).copy()
        if arr.dtype.kind in "iu":
            n = max(arr.shape) if arr.ndim else 1
            info = np.iinfo(arr.dtype)
            for value in (-1, n, n + 1, 10**9, -(10**9), 2**62):
                if not info.min <= value <= info.max:
                    continue
                bad = flat.copy()
                bad[-1] = value
                out.append((f"last={value}", bad.reshape(arr.shape)))
                bad = flat.copy()
                bad[0] = value
                out.append((f"first={value}", bad.reshape(arr.shape)))
        elif arr.dtype.kind == "f":
            for value in (np.nan, np.inf, -np.inf, 1e308):
                bad = flat.copy()
                bad[0] = value
                out.append((f"first={value}", bad.reshape(arr.shape)))
        elif arr.dtype.kind == "b":
            bad = flat.copy()
            bad[0] = not bad[0]
            out.append(("flip", bad.reshape(arr.shape)))
    if arr.dtype.kind in "iuf":
        other = np.float64 if arr.dtype.kind in "iu" else np.int64
        out.append(("dtype", arr.astype(other)))
        out.append(("dtype32", arr.astype(np.float32 if arr.dtype.kind == "f"
                                          else np.int32)))
    if arr.ndim >= 1 and arr.shape[0] > 0:
        out.append(("short", arr[:-1]))
        out.append(("long", np.concatenate([arr, arr[:1]])))
    if arr.ndim >= 2 and arr.shape[-1] > 0:
        out.append(("narrow", arr[..., :-1]))
    if arr.ndim >= 1:
        out.append(("ndim+1", arr[None]))
        out.append(("0-d", np.asarray(arr.reshape(-1)[0] if arr.size else 0,
                                      dtype=arr.dtype)))
    return out


def _scalar_edits(node):
    """``(label, new node)`` edits of a scalar leaf."""
    kind = node.get("type") if isinstance(node, dict) else None
    out = [("none", {"type": "none"}), ("str", {"type": "str", "value": "x"})]
    if kind == "int":
        v = node["value"]
        out += [(f"int={x}", {"type": "int", "value": x})
                for x in (-1, 0, v + 1, 10**9, 2**63, 2**70)]
        out.append(("float", {"type": "float", "value": float(v) + 0.5}))
    elif kind == "float":
        out += [(f"float={x}", {"type": "float", "value": x})
                for x in ("nan", "inf", "-inf", -1.0, 1e308)]
    elif kind == "bool":
        out.append(("flip", {"type": "bool", "value": not node["value"]}))
        out.append(("int", {"type": "int", "value": 2}))
    elif kind == "str":
        out.append(("other", {"type": "str", "value": "primal"}))
    elif kind == "none":
        out.append(("int", {"type": "int", "value": 1}))
    return out


def cases(path):
    """Every crafted copy of the model file ``path``.

    Yields
    ------
    label : str
    header : dict
        The edited header.
    arrays : dict
        Array members to replace (key -> ndarray).
    """
    with zipfile.ZipFile(path) as zf:
        header = json.loads(zf.read("header.json"))
    with np.load(path, allow_pickle=False) as npz:
        members = {k: npz[k] for k in npz.files if k != "header"}
    for leaf_path, node in _leaves(header["state"]):
        where = ".".join(leaf_path)
        kind = node.get("type") if isinstance(node, dict) else None
        keys = []
        if kind in ("ndarray", "npscalar"):
            keys = [(node["key"], None)]
        elif kind == "sparse":
            keys = [(node[part], part) for part in ("data", "indices",
                                                    "indptr")]
        for key, part in keys:
            for label, arr in _array_edits(members[key]):
                h = json.loads(json.dumps(header))
                h["arrays"][key] = {"dtype": arr.dtype.str,
                                    "shape": list(arr.shape)}
                yield (f"{where}{'.' + part if part else ''}:{label}", h,
                       {key: arr})
        if kind not in ("ndarray", "sparse", "npscalar", "state"):
            for label, new in _scalar_edits(node):
                h = json.loads(json.dumps(header))
                _set_leaf(h, leaf_path, new)
                yield f"{where}:{label}", h, {}
        if kind == "state" or kind == "sparse":
            continue
    # Node-level edits of every nested state: a field dropped or added, the
    # type renamed, retyped.
    def states(node, path=()):
        if isinstance(node, dict) and node.get("type") == "state":
            yield path, node
            for name, child in node["fields"].items():
                yield from states(child, path + (name,))
    for state_path, node in list(states(header["state"])):
        where = ".".join(state_path) or "state_"
        first = next(iter(node["fields"]))
        for label, edit in (
                ("drop", lambda n: n["fields"].pop(first)),
                ("extra", lambda n: n["fields"].update(extra={
                    "type": "int", "value": 1})),
                ("version", lambda n: n.update(version=n["version"] + 1)),
                ("class", lambda n: n.update(**{"class": "SupportPool"}))):
            h = json.loads(json.dumps(header))
            target = h["state"]
            for name in state_path:
                target = target["fields"][name]
            edit(target)
            yield f"{where}:{label}", h, {}


def write_case(src, dst, header, arrays):
    """Copy the model file ``src`` to ``dst`` with ``header`` and the
    replaced ``arrays``."""
    import io

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(
            dst, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            key = name[:-4] if name.endswith(".npy") else None
            if name == "header.json":
                data = json.dumps(header).encode()
            elif key in arrays:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, arrays[key],
                                          allow_pickle=False)
                data = buf.getvalue()
            else:
                data = zin.read(name)
            zout.writestr(name, data)


# ------------------------------------------------------------------ worker
def use(path, n_classes, sparse):
    """Load the file and use the model; the outcome (module docstring)."""
    from perceptrons.persistence import load_model, save_model

    try:
        model = load_model(path)
    except ValueError:
        return "refused"
    X, y = data(n_classes, sparse, seed=1, n=30)
    # Labels of the model's own classes (a file may rename them).
    y = model.classes_[y % len(model.classes_)]
    with warnings.catch_warnings():
        # A valid but extreme state (a weight of 1e308) may overflow in
        # numpy's products: warned, not silent, and not a defect.
        warnings.simplefilter("ignore")
        model.predict(X)
        model.decision_function(X)
        try:
            model.partial_fit(X, y)
        except ValueError:
            return "use-refused"
        model.predict(X)
        save_model(model, path + ".again.npz")
    return "loaded"


def worker():
    """Run the cases listed on stdin (JSON lines ``[path, n_classes,
    sparse]``), printing one outcome line per case, flushed."""
    for line in sys.stdin:
        path, n_classes, sparse = json.loads(line)
        print(json.dumps(["start", path]), flush=True)
        try:
            outcome = use(path, n_classes, sparse)
        except Exception as exc:  # noqa: BLE001 - a defect, reported
            outcome = f"error:{type(exc).__name__}:{str(exc)[:200]}"
        print(json.dumps(["done", path, outcome]), flush=True)


def run(jobs, timeout=60.0, env=None):
    """Run ``jobs`` (``(path, n_classes, sparse)``) in worker processes.

    A worker that dies or exceeds ``timeout`` seconds on a case marks it
    ``crashed``; a new worker takes the next case.

    Returns
    -------
    dict
        path -> outcome.
    """
    outcomes = {}
    todo = list(jobs)
    while todo:
        with tempfile.TemporaryFile("w+") as feed:
            for job in todo:
                feed.write(json.dumps(list(job)) + "\n")
            feed.seek(0)
            proc = subprocess.Popen(
                [sys.executable, "-c",
                 "from tests.fuzz._model_fuzz import worker; worker()"],
                stdin=feed, stdout=subprocess.PIPE, text=True,
                cwd=str(Path(__file__).resolve().parents[2]),
                env={**os.environ, **(env or {})})
            started = None
            try:
                out, _ = proc.communicate(timeout=timeout * len(todo) + 60)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            for line in out.splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event[0] == "start":
                    started = event[1]
                elif event[0] == "done":
                    outcomes[event[1]] = event[2]
                    started = None
            if started is not None:
                outcomes[started] = "crashed"
        todo = [job for job in todo if job[0] not in outcomes]
    return outcomes


def fuzz(folder, models=None, sample=None, seed=0, env=None):
    """Craft, run and count: the whole review.

    Parameters
    ----------
    folder : path-like
        Where the files go.
    models : list of str, optional
        Names of :data:`MODELS` (default: all).
    sample : int, optional
        Cases per model, drawn with ``seed`` (default: every case).
    env : dict, optional
        Environment of the worker processes (e.g. ``NUMBA_BOUNDSCHECK``).

    Returns
    -------
    counts : dict
        ``{"tried", "refused", "loaded", "crashed", "errors"}``.
    defects : list of (model, case, outcome)
        The cases that crashed or raised anything but a refusal.
    """
    folder = Path(folder)
    paths = save_models(folder)
    rng = np.random.RandomState(seed)
    jobs, labels = [], {}
    spec = {m[0]: m for m in MODELS}
    for name in (models or list(paths)):
        _, _, _, n_classes, sparse = spec[name]
        all_cases = list(cases(paths[name]))
        if sample is not None and sample < len(all_cases):
            chosen = rng.choice(len(all_cases), sample, replace=False)
            all_cases = [all_cases[i] for i in sorted(chosen)]
        for i, (label, header, arrays) in enumerate(all_cases):
            dst = str(folder / f"{name}-{i}.npz")
            write_case(paths[name], dst, header, arrays)
            jobs.append((dst, n_classes, sparse))
            labels[dst] = (name, label)
    outcomes = run(jobs, env=env)
    counts = {"tried": len(jobs), "refused": 0, "loaded": 0,
              "use-refused": 0, "crashed": 0, "errors": 0}
    defects = []
    for path, outcome in outcomes.items():
        if outcome in counts:
            counts[outcome] += 1
        else:
            counts["errors"] += 1
        if outcome not in ("refused", "loaded", "use-refused"):
            defects.append((*labels[path], outcome))
    return counts, defects


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--boundscheck", action="store_true",
                        help="compile the loops with NUMBA_BOUNDSCHECK=1 "
                             "(in a cache of their own)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = None
        if args.boundscheck:
            env = {"NUMBA_BOUNDSCHECK": "1",
                   "NUMBA_CACHE_DIR": os.path.join(tmp, "numba-cache")}
        counts, defects = fuzz(tmp, sample=args.sample, env=env)
    print(json.dumps(counts))
    for defect in defects:
        print(*defect, sep=" | ")
