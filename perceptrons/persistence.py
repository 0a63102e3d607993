"""Save and load fitted estimators without pickle.

A model file is a zip archive (numpy's ``.npz`` layout) that holds

``header.json``
    UTF-8 JSON: the format name ``"perceptrons-model"``, the format
    version (:data:`FORMAT_VERSION`), the package version that wrote it,
    the estimator's public name (``"perceptrons.Perceptron"``), its
    ``get_params()``, its declared fitted state (the attributes its class
    lists in ``_model_state``: see :func:`model_state`), and the name,
    dtype and shape of every array member.
``a<N>.npy``
    One member per array, in numpy's ``.npy`` format. Object arrays are
    never written, so the file loads with ``allow_pickle=False``.

Loading never unpickles and never imports a class named in the file unless
it is on a whitelist: the estimators of :mod:`perceptrons.registry` and a
few small state holders such as :class:`~perceptrons.models._voted.VotedLog`.

A model file holds the model and nothing else: the attributes the class
declares in ``_model_state`` (what prediction and ``partial_fit`` need),
never per-call scratch, which lives in a per-call object during training.
The declared state is encoded as a tree of JSON nodes whose leaves are

====================  ====================================================
Python value          node ``{"type": ...}``
====================  ====================================================
``None``              ``"none"``
``bool, int, str``    ``"bool"``, ``"int"``, ``"str"`` with ``"value"``
``float``             ``"float"``; ``"value"`` is the number, or the string
                      ``"nan"``, ``"inf"``, ``"-inf"``
numpy scalar          ``"npscalar"``: a 0-d array member
``ndarray``           ``"ndarray"``: an array member (object arrays only if
                      every element is a ``str``, or every one an ``int``;
                      ``"object": true`` restores the object dtype)
list, tuple, dict     ``"list"``, ``"tuple"`` (``"items"``), ``"dict"``
                      (``"items"``: ``[key_node, value_node]`` pairs)
scipy.sparse          ``"sparse"``: ``format`` (csr, csc or coo), ``shape``,
                      ``container`` (``"matrix"`` or ``"array"``) and the
                      members of its index and data arrays
RandomState           ``"random_state"``: its ``get_state()`` tuple
state holder          ``"object"``: whitelisted class name and its
                      ``__dict__`` encoded the same way
====================  ====================================================

Anything else raises :class:`TypeError` when saving, naming the attribute.
An array or sparse matrix referenced twice (``a is b``) is stored once and
shared again after loading. Floats round-trip exactly (JSON numbers are
written with ``repr``), so predictions after loading are identical bit for
bit and ``partial_fit`` continues exactly where it stopped.

Version policy: a reader reads its own :data:`FORMAT_VERSION`. A newer
file is refused with a message asking for an upgrade; a version-1 file
(which saved every attribute, training scratch included) is refused with a
message saying to refit and save again.
"""

import importlib
import io
import json
import math
import os
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "load_model", "save_model"]

#: ``"format"`` field of the header.
FORMAT_NAME = "perceptrons-model"
#: Newest format version this module writes and reads.
FORMAT_VERSION = 2

_HEADER = "header.json"
# Classes whose __dict__ may be saved, besides those declaring
# ``_persistence_state = True`` in a ``perceptrons.*`` module.
_STATE_CLASSES = ("perceptrons.models._voted.VotedLog",)


# ---------------------------------------------------------------- registry
def estimator_registry():
    """Public estimator classes by saved name (``"perceptrons.Perceptron"``).

    Returns
    -------
    dict of str to type
        The classes of :data:`perceptrons.registry.ESTIMATORS`.
    """
    from .registry import estimator_classes

    return {f"perceptrons.{name}": cls
            for name, cls in estimator_classes().items()}


def model_state(estimator):
    """The declared fitted state of an estimator: what a model file holds.

    Parameters
    ----------
    estimator : estimator
        A public perceptrons estimator; its class lists its fitted state in
        ``_model_state`` (names of attributes, in a fixed order).

    Returns
    -------
    dict of str to object
        The declared attributes the estimator has (none before ``fit``).
    """
    names = type(estimator)._model_state
    return {name: vars(estimator)[name] for name in names
            if name in vars(estimator)}


def _state_class_name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_state_class(cls):
    name = _state_class_name(cls)
    return name in _STATE_CLASSES or (
        cls.__module__.startswith("perceptrons.")
        and cls.__dict__.get("_persistence_state", False) is True)


def _resolve_state_class(name):
    """Import a whitelisted state-holder class; ValueError otherwise."""
    if not isinstance(name, str) or not name.startswith("perceptrons."):
        raise ValueError(f"state class {name!r} is not allowed")
    module_name, _, qualname = name.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"state class {name!r} is not available") from exc
    cls = getattr(module, qualname, None)
    if not isinstance(cls, type) or not _is_state_class(cls):
        raise ValueError(f"state class {name!r} is not allowed")
    return cls


# ---------------------------------------------------------------- encoding
class _Encoder:
    """Turn a value into JSON nodes plus a dict of array members."""

    def __init__(self):
        self.arrays = {}
        self._memo = {}  # id(obj) -> (obj, node): shared arrays stored once

    def _add_array(self, arr, where):
        if arr.dtype.hasobject:
            arr, obj = _object_array_to_plain(arr, where), True
        else:
            obj = False
        if arr.dtype.kind == "V":
            raise TypeError(f"cannot save {where}: structured/void dtype "
                            f"{arr.dtype} is not supported")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(arr) if arr.ndim else arr
        return key, obj

    def encode(self, value, where):
        if value is None:
            return {"type": "none"}
        if type(value) is bool:
            return {"type": "bool", "value": bool(value)}
        if type(value) is int:
            return {"type": "int", "value": value}
        if type(value) is float:
            return {"type": "float", "value": _float_to_json(value)}
        if type(value) is str:
            return {"type": "str", "value": value}
        if isinstance(value, np.generic):
            if value.dtype.hasobject:
                raise TypeError(f"cannot save {where}: numpy object scalar")
            key, _ = self._add_array(np.asarray(value), where)
            return {"type": "npscalar", "key": key}
        if isinstance(value, np.ndarray):
            return self._memoized(value, where, self._encode_ndarray)
        if _is_sparse(value):
            return self._memoized(value, where, self._encode_sparse)
        if type(value) in (list, tuple):
            return {"type": type(value).__name__,
                    "items": [self.encode(v, f"{where}[{i}]")
                              for i, v in enumerate(value)]}
        if type(value) is dict:
            return {"type": "dict",
                    "items": [[self.encode(k, f"{where} key {k!r}"),
                               self.encode(v, f"{where}[{k!r}]")]
                              for k, v in value.items()]}
        if type(value) is np.random.RandomState:
            state = value.get_state(legacy=True)
            return {"type": "random_state",
                    "state": self.encode(tuple(state), f"{where}.get_state()")}
        if isinstance(value, type):
            raise TypeError(f"cannot save {where}: it is a class "
                            f"({value.__name__})")
        if _is_state_class(type(value)) and hasattr(value, "__dict__"):
            return {"type": "object",
                    "class": _state_class_name(type(value)),
                    "state": self.encode(dict(vars(value)), where)}
        raise TypeError(
            f"cannot save {where}: values of type "
            f"{type(value).__module__}.{type(value).__qualname__} are not "
            "supported by the perceptrons model format (supported: ndarray, "
            "numpy scalars, None/bool/int/float/str, lists, tuples, dicts, "
            "scipy.sparse matrices, RandomState and registered state "
            "classes)")

    def _memoized(self, value, where, fn):
        hit = self._memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        node = fn(value, where)
        self._memo[id(value)] = (value, node)
        return node

    def _encode_ndarray(self, arr, where):
        key, obj = self._add_array(arr, where)
        node = {"type": "ndarray", "key": key}
        if obj:
            node["object"] = True
        return node

    def _encode_sparse(self, mat, where):
        import scipy.sparse as sp

        fmt = mat.format
        container = "array" if isinstance(mat, sp.sparray) else "matrix"
        node = {"type": "sparse", "format": fmt, "container": container,
                "shape": [int(n) for n in mat.shape]}
        if fmt in ("csr", "csc"):
            parts = {"data": mat.data, "indices": mat.indices,
                     "indptr": mat.indptr}
        elif fmt == "coo":
            parts = {"data": mat.data, "row": mat.coords[0],
                     "col": mat.coords[1]}
        else:
            raise TypeError(f"cannot save {where}: sparse format {fmt!r} is "
                            "not supported (convert to CSR)")
        if len(mat.shape) != 2:
            raise TypeError(f"cannot save {where}: sparse arrays must be 2-D")
        for name, arr in parts.items():
            node[name], _ = self._add_array(np.asarray(arr), f"{where}.{name}")
        return node


def _is_sparse(value):
    import sys

    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(value)


def _object_array_to_plain(arr, where):
    flat = arr.ravel().tolist()
    if all(type(v) is str for v in flat):
        return np.array(flat, dtype=str).reshape(arr.shape) if flat else \
            np.zeros(arr.shape, dtype="<U1")
    if flat and all(type(v) is int for v in flat):
        return np.array(flat, dtype=np.int64).reshape(arr.shape)
    raise TypeError(f"cannot save {where}: object arrays are supported only "
                    "when every element is a str or every element an int")


def _float_to_json(x):
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


# ---------------------------------------------------------------- saving
def save_model(estimator, path):
    """Write a fitted (or unfitted) estimator to ``path``.

    Parameters
    ----------
    estimator : estimator
        An instance of a public ``perceptrons`` estimator class.
    path : str or path-like
        Destination file; ``.npz`` is the conventional suffix. The file is
        written to a temporary name and renamed, so an existing file is
        never left half-written.

    Raises
    ------
    TypeError
        If the estimator's class is not a public perceptrons estimator, or
        one of its parameters or attributes has a type the format cannot
        store (the message names it).

    See Also
    --------
    load_model : the inverse.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from perceptrons import Perceptron
    >>> from perceptrons.persistence import save_model, load_model
    >>> X = np.array([[0., 1.], [1., 0.], [2., 1.], [0., 2.]])
    >>> clf = Perceptron(random_state=0).fit(X, [0, 1, 1, 0])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> save_model(clf, path)
    >>> bool((load_model(path).predict(X) == clf.predict(X)).all())
    True
    """
    import perceptrons

    registry = estimator_registry()
    names = [n for n, c in registry.items() if type(estimator) is c]
    if not names:
        raise TypeError(
            f"cannot save an estimator of type {type(estimator).__name__}: "
            f"only {', '.join(sorted(registry))} can be saved")
    enc = _Encoder()
    params = estimator.get_params(deep=False)
    params_node = {k: enc.encode(v, f"parameter {k!r}")
                   for k, v in params.items()}
    attrs = model_state(estimator)
    attrs_node = {k: enc.encode(v, f"attribute {k!r}")
                  for k, v in attrs.items()}
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "perceptrons_version": perceptrons.__version__,
        "numpy_version": np.__version__,
        "estimator": names[0],
        "params": params_node,
        "attributes": attrs_node,
        "arrays": {k: {"dtype": a.dtype.str, "shape": list(a.shape)}
                   for k, a in enc.arrays.items()},
    }
    payload = json.dumps(header, indent=1, allow_nan=False).encode("utf-8")

    path = Path(os.fspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                               dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(
                fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(_HEADER, payload)
            for key, arr in enc.arrays.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, arr, allow_pickle=False)
                zf.writestr(f"{key}.npy", buf.getvalue())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---------------------------------------------------------------- loading
class _Decoder:
    def __init__(self, npz, manifest):
        self._npz = npz
        self._manifest = manifest
        self._cache = {}

    def array(self, key):
        if key in self._cache:
            return self._cache[key]
        if not isinstance(key, str) or key not in self._manifest:
            raise ValueError(f"array {key!r} is not in the header's manifest")
        if key not in self._npz.files:
            raise ValueError(f"array member {key}.npy is missing")
        arr = self._npz[key]
        if not isinstance(arr, np.ndarray):
            raise ValueError(f"member {key} is not a .npy array")
        spec = self._manifest[key]
        if (arr.dtype.str != spec.get("dtype")
                or list(arr.shape) != spec.get("shape")):
            raise ValueError(
                f"array {key} has dtype {arr.dtype.str} and shape "
                f"{list(arr.shape)}, the manifest says {spec.get('dtype')} "
                f"and {spec.get('shape')}")
        self._cache[key] = arr
        return arr

    def decode(self, node, where):
        if not isinstance(node, dict) or "type" not in node:
            raise ValueError(f"{where}: malformed node {node!r:.80}")
        kind = node["type"]
        if kind == "none":
            return None
        if kind in ("bool", "int", "str"):
            value = node["value"]
            want = {"bool": bool, "int": int, "str": str}[kind]
            if type(value) is not want:
                raise ValueError(f"{where}: expected a {kind}, got {value!r:.80}")
            return value
        if kind == "float":
            value = node["value"]
            if isinstance(value, str) and value in ("nan", "inf", "-inf"):
                return float(value)
            if type(value) not in (int, float) or isinstance(value, bool):
                raise ValueError(f"{where}: expected a float, got {value!r:.80}")
            return float(value)
        if kind == "npscalar":
            arr = self.array(node["key"])
            if arr.ndim != 0:
                raise ValueError(f"{where}: scalar member is not 0-d")
            return arr[()]
        if kind == "ndarray":
            ck = ("nd", node["key"])
            if ck in self._cache:
                return self._cache[ck]
            arr = self.array(node["key"])
            if node.get("object", False):
                arr = arr.astype(object)  # elements become str / int
            self._cache[ck] = arr
            return arr
        if kind == "sparse":
            return self._decode_sparse(node, where)
        if kind in ("list", "tuple"):
            items = node["items"]
            if not isinstance(items, list):
                raise ValueError(f"{where}: items must be a list")
            out = [self.decode(v, f"{where}[{i}]") for i, v in enumerate(items)]
            return out if kind == "list" else tuple(out)
        if kind == "dict":
            out = {}
            for pair in node["items"]:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ValueError(f"{where}: malformed dict item")
                key = self.decode(pair[0], f"{where} key")
                out[key] = self.decode(pair[1], f"{where}[{key!r}]")
            return out
        if kind == "random_state":
            state = self.decode(node["state"], where)
            rs = np.random.RandomState()
            try:
                rs.set_state(state)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: bad RandomState state") from exc
            return rs
        if kind == "object":
            cls = _resolve_state_class(node["class"])
            state = self.decode(node["state"], where)
            if not isinstance(state, dict) or not all(
                    isinstance(k, str) for k in state):
                raise ValueError(f"{where}: object state must be a dict")
            obj = cls.__new__(cls)
            obj.__dict__.update(state)
            return obj
        raise ValueError(f"{where}: unknown node type {kind!r:.40}")

    def _decode_sparse(self, node, where):
        import scipy.sparse as sp

        ck = ("sp", node.get("data"))
        if ck in self._cache:
            return self._cache[ck]
        fmt, container = node["format"], node["container"]
        shape = tuple(node["shape"])
        if (len(shape) != 2 or not all(type(n) is int and n >= 0
                                       for n in shape)):
            raise ValueError(f"{where}: bad sparse shape {shape!r}")
        if container not in ("matrix", "array"):
            raise ValueError(f"{where}: bad sparse container {container!r}")
        suffix = "_array" if container == "array" else "_matrix"
        data = self.array(node["data"])
        if fmt in ("csr", "csc"):
            indices = self.array(node["indices"])
            indptr = self.array(node["indptr"])
            cls = getattr(sp, fmt + suffix)
            mat = cls((data, indices, indptr), shape=shape, copy=False)
        elif fmt == "coo":
            row = self.array(node["row"])
            col = self.array(node["col"])
            mat = getattr(sp, "coo" + suffix)((data, (row, col)), shape=shape)
        else:
            raise ValueError(f"{where}: unsupported sparse format {fmt!r:.20}")
        if fmt != "coo":
            mat.check_format(full_check=True)
        self._cache[ck] = mat
        return mat


def _fail(path, why):
    return ValueError(f"{os.fspath(path)!s} is not a valid perceptrons model "
                      f"file: {why}")


def read_header(path):
    """Return the parsed JSON header of a model file (no arrays loaded).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    dict

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a zip archive with a valid ``header.json``.
    """
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No such model file: {str(path)!r}")
    try:
        with zipfile.ZipFile(path) as zf:
            if _HEADER not in zf.namelist():
                raise _fail(path, "no header.json member (a plain .npz or "
                                  "another zip archive, not written by "
                                  "perceptrons.persistence.save_model)")
            raw = zf.read(_HEADER)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
            RuntimeError, NotImplementedError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise _fail(path, f"not a readable zip archive ({exc})") from exc
    except zlib.error as exc:
        raise _fail(path, f"corrupt compressed data ({exc})") from exc
    except UnicodeDecodeError as exc:
        # zipfile decodes member names; flipped bytes there land here.
        raise _fail(path, f"corrupt zip directory ({exc})") from exc
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail(path, f"header.json is not valid JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise _fail(path, f"header.json does not declare format "
                          f"{FORMAT_NAME!r}")
    version = header.get("format_version")
    if type(version) is not int or version < 1:
        raise _fail(path, f"bad format_version {version!r}")
    if version < FORMAT_VERSION:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version} "
            f"(written by perceptrons {header.get('perceptrons_version', '?')}"
            "), which saved training scratch with the model; this "
            f"perceptrons reads version {FORMAT_VERSION} only: refit the "
            "model on its training data and save it again (perceptrons "
            "train ... -o MODEL)")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version}, "
            f"newer than the version this perceptrons can read "
            f"({FORMAT_VERSION}; written by perceptrons "
            f"{header.get('perceptrons_version', '?')}): upgrade perceptrons")
    return header


def load_model(path):
    """Load an estimator written by :func:`save_model`.

    The file is read with ``numpy.load(..., allow_pickle=False)``; nothing
    in it can execute code.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        A new instance of the saved class with the saved parameters and
        fitted state.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a perceptrons model (a foreign ``.npz``, a text
        file), is truncated or corrupt (bad JSON, missing or mistyped
        arrays), names a class outside the whitelist, or was written in a
        newer format version.
    """
    header = read_header(path)
    registry = estimator_registry()
    name = header.get("estimator")
    if not isinstance(name, str) or name not in registry:
        raise _fail(path, f"estimator class {name!r:.80} is not one of "
                          f"{', '.join(sorted(registry))}")
    cls = registry[name]
    try:
        npz = np.load(os.fspath(path), allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise _fail(path, f"cannot open the arrays ({exc})") from exc
    try:
        with npz:
            manifest = header.get("arrays")
            params = header.get("params")
            attrs = header.get("attributes")
            if not all(isinstance(d, dict) for d in (manifest, params, attrs)):
                raise ValueError("header lacks params/attributes/arrays")
            dec = _Decoder(npz, manifest)
            values = {k: dec.decode(v, f"parameter {k!r}")
                      for k, v in params.items()}
            state = {k: dec.decode(v, f"attribute {k!r}")
                     for k, v in attrs.items()}
    except ValueError as exc:
        raise _fail(path, str(exc)) from exc
    except (KeyError, TypeError, IndexError, AttributeError, OSError,
            EOFError, RecursionError, zipfile.BadZipFile,
            zlib.error) as exc:
        raise _fail(path, f"corrupt content ({type(exc).__name__}: {exc})") \
            from exc
    estimator = cls()
    known = estimator.get_params(deep=False)
    unknown = set(values) - set(known)
    if unknown:
        raise _fail(path, f"parameters {sorted(unknown)} are not parameters "
                          f"of {cls.__name__} in this version")
    estimator.set_params(**values)
    declared = set(cls._model_state)
    for key, value in state.items():
        if key not in declared:
            raise _fail(path, f"attribute {key!r:.40} is not part of the "
                              f"fitted state of {cls.__name__}")
        setattr(estimator, key, value)
    return estimator
