"""Save and load fitted estimators without pickle.

A model file is a zip archive (numpy's ``.npz`` layout) that holds

``header.json``
    UTF-8 JSON: the format name ``"perceptrons-model"``, the format
    version (:data:`FORMAT_VERSION`), the package version that wrote it,
    the estimator's public name (``"perceptrons.Perceptron"``), its
    ``get_params()``, its fitted state (``state_``, the typed, versioned
    state of :mod:`perceptrons.models._state`, absent for an unfitted
    estimator), the scalers of a :class:`~sklearn.pipeline.Pipeline` ending
    in the estimator (``StandardScaler``, ``MaxAbsScaler``, ``Normalizer``:
    their parameters and fitted statistics), ``input``, plain JSON data
    describing the input files (the command line keeps the CSV encoding and
    the svmlight indexing there), and the name, dtype and shape of every
    array member.
``a<N>.npy``
    One member per array, in numpy's ``.npy`` format. Object arrays are
    never written, so the file loads with ``allow_pickle=False``.

A model file holds the model and nothing else: the estimator's state, a
tree of state nodes (``{"type": "state", "class": "PerceptronState",
"version": 1, "fields": {...}}``, one per nested state too) whose leaves are

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
                      (``"items"``: ``[key_node, value_node]`` pairs), for
                      parameters
scipy.sparse          ``"sparse"``: ``format`` (csr, csc or coo), ``shape``,
                      ``container`` (``"matrix"`` or ``"array"``) and the
                      members of its index and data arrays
RandomState           ``"random_state"``: its ``get_state()`` tuple (a
                      ``random_state`` parameter)
====================  ====================================================

Anything else raises :class:`TypeError` when saving, naming the attribute.
An array or sparse matrix referenced twice (``a is b``) is stored once and
shared again after loading. Floats round-trip exactly (JSON numbers are
written with ``repr``), so predictions after loading are identical bit for
bit and ``partial_fit`` continues exactly where it stopped.

Loading never unpickles and never imports anything a file names: the
estimator's class must be one of :mod:`perceptrons.registry`'s, a state
node's class one of the state types those estimators declare (looked up by
name, never imported), a scaler one of the three above.

The zip layer is checked from the archive's directory before anything is
decompressed or allocated: every member is ``header.json`` or an
``a<N>.npy`` (no path, no ``..``), named once, not encrypted, stored or
deflated, within the file and overlapping no other member; a member
declares at most :data:`MAX_COMPRESSION_RATIO` times its compressed size
(a zip bomb is refused, not inflated) and all members together at most
:data:`MAX_MODEL_BYTES` (raise it for a larger model you trust: see the
constant). The header is at most :data:`MAX_HEADER_BYTES`, its array
manifest names exactly the archive's array members, each of the size its
entry declares, and each member's ``.npy`` header is checked against its
entry before its data is allocated. Then the parameters satisfy the
estimator's
constraints, each state node's version is its type's, and the state passes
its type's validation (dtypes, shapes, index ranges, finiteness, the
relations between arrays: :meth:`~perceptrons.models._state.State.validate`)
before any compiled loop can read it. Anything else is refused with one
:class:`ValueError` naming the file and the field.

Version policy: format 4 holds the typed state. A newer file is refused
with a message asking for an upgrade; an older one (which saved the
estimator's private attributes) with a message saying to refit and save
again. A state type that changes what it holds changes its ``VERSION``
(a test keeps the types and their versions in step), and a file of
another state version is refused the same way.
"""

import io
import json
import math
import os
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .models._state import State
from .utils.output import atomic_write

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "MAX_COMPRESSION_RATIO",
           "MAX_HEADER_BYTES", "MAX_MODEL_BYTES", "load_model", "read_header",
           "save_model"]

#: ``"format"`` field of the header.
FORMAT_NAME = "perceptrons-model"
#: Format version this module writes and reads (the typed state).
FORMAT_VERSION = 4
#: Oldest format version it reads.
_OLDEST_READ = 4
#: Largest ``header.json`` read: parameters and state nodes, never arrays.
MAX_HEADER_BYTES = 8 * 2**20


def _bytes_from_env(name, default):
    """A byte count from the environment variable ``name`` (``default`` if
    unset); a value that is not a positive integer is refused, not
    ignored."""
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name}={text!r:.40} must be a positive number of "
                         "bytes")
    return value


#: Largest total size the members of a model file may declare (their
#: uncompressed bytes, header included), checked from the zip directory
#: before anything is decompressed: a file over it is refused, never
#: allocated. At the widest input the command line trains
#: (``--max-features``, 2**24 features: 128 MiB per weight vector), the
#: linear models' files declare 128 to 256 MiB for two classes and 384 to
#: 768 MiB for three (measured: Perceptron, PDM, ROMMA, Ballseptron), so
#: those fit; more classes at that width, or a kernel model holding
#: millions of support vectors, need more. To load a larger model you
#: trust, raise it: set the environment variable
#: ``PERCEPTRONS_MAX_MODEL_BYTES`` (read at import; the command line reads
#: it too) or assign ``perceptrons.persistence.MAX_MODEL_BYTES``.
MAX_MODEL_BYTES = _bytes_from_env("PERCEPTRONS_MAX_MODEL_BYTES", 2**30)
#: Largest ratio of a member's declared size to its compressed size.
#: Deflate cannot exceed about 1032:1 (64 MiB of zeros: 1029:1), and the
#: most compressible real model files, the weights of hashed features
#: (2**22 columns, almost all 0), reach 1023:1
#: (``benchmarks/bench_model_file_ratio.py``): no honest member comes near
#: this bound, and one that declares more lies about its size. Honest
#: bombs (about 1030:1) meet :data:`MAX_MODEL_BYTES` instead.
MAX_COMPRESSION_RATIO = 1100
# An array member may exceed its declared data by its .npy header only.
_NPY_HEADER_SLACK = 1 << 16
# The members a model file holds: its header and a<N>.npy arrays.
_ARRAY_MEMBER = re.compile(r"a[0-9]{1,9}\.npy")
# General-purpose flag bits of an encrypted member (traditional PKWARE,
# strong encryption).
_ENCRYPTED_FLAGS = 0x1 | 0x40
# Smallest local file header: 30 bytes before the name.
_LOCAL_HEADER = 30

_HEADER = "header.json"
# Scalers a saved Pipeline may hold before its estimator, with their fitted
# statistics (what transform needs).
_PREPROCESSORS = {
    "sklearn.preprocessing.StandardScaler": (
        "n_features_in_", "n_samples_seen_", "mean_", "var_", "scale_"),
    "sklearn.preprocessing.MaxAbsScaler": (
        "n_features_in_", "n_samples_seen_", "max_abs_", "scale_"),
    "sklearn.preprocessing.Normalizer": ("n_features_in_",),
}


def _preprocessor_classes():
    import sklearn.preprocessing

    return {name: getattr(sklearn.preprocessing, name.rpartition(".")[2])
            for name in _PREPROCESSORS}


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


def state_types():
    """Every state type a model file may hold, by name.

    The state types of :data:`perceptrons.registry.ESTIMATORS` and the
    types nested in them (their ``sub`` fields).

    Returns
    -------
    dict of str to type
    """
    out = {}
    todo = [cls._state_type for cls in estimator_registry().values()]
    while todo:
        cls = todo.pop()
        if cls.__name__ in out:
            continue
        out[cls.__name__] = cls
        for _, spec in cls.specs():
            if spec.what == "sub":
                todo.extend(spec.kind)
    return out


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
        if isinstance(value, State):
            cls = type(value)
            return {"type": "state", "class": cls.__name__,
                    "version": cls.VERSION,
                    "fields": {name: self.encode(getattr(value, name),
                                                 f"{where}.{name}")
                               for name, _ in cls.specs()}}
        raise TypeError(
            f"cannot save {where}: values of type "
            f"{type(value).__module__}.{type(value).__qualname__} are not "
            "supported by the perceptrons model format (supported: ndarray, "
            "numpy scalars, None/bool/int/float/str, lists, tuples, dicts, "
            "scipy.sparse matrices, RandomState and the package's state "
            "types)")

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
def _split_pipeline(model):
    """``(scalers, estimator)`` of a model; TypeError if it cannot be saved."""
    registry = estimator_registry()
    steps = [("model", model)]
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        steps = list(model.steps)
    *before, (_, estimator) = steps
    names = [n for n, c in registry.items() if type(estimator) is c]
    if not names:
        raise TypeError(
            f"cannot save an estimator of type {type(estimator).__name__}: "
            f"only {', '.join(sorted(registry))} can be saved, alone or at "
            "the end of a Pipeline of scalers")
    classes = {cls: name for name, cls in _preprocessor_classes().items()}
    for step, scaler in before:
        if type(scaler) not in classes:
            raise TypeError(
                f"cannot save pipeline step {step!r} of type "
                f"{type(scaler).__name__}: only {', '.join(sorted(classes.values()))}"
                " can precede the estimator")
    return [(step, classes[type(scaler)], scaler)
            for step, scaler in before], names[0], estimator


def save_model(estimator, path, *, input_schema=None):
    """Write a fitted (or unfitted) estimator to ``path``.

    Parameters
    ----------
    estimator : estimator or Pipeline
        An instance of a public ``perceptrons`` estimator class, or a
        :class:`~sklearn.pipeline.Pipeline` of ``StandardScaler``,
        ``MaxAbsScaler`` or ``Normalizer`` steps ending in one.
    path : str or path-like
        Destination file; ``.npz`` is the conventional suffix. The file is
        written to a temporary name and renamed, so an existing file is
        never left half-written.
    input_schema : dict, default=None
        JSON data saved with the model and returned by
        ``load_model(path, return_input_schema=True)``: how input files are
        read (the command line saves the CSV encoding or the svmlight
        indexing here).

    Raises
    ------
    TypeError
        If the estimator's class is not a public perceptrons estimator (or a
        Pipeline step not a supported scaler), or one of its parameters or
        attributes has a type the format cannot store (the message names
        it), or ``input_schema`` is not JSON data.
    OSError
        If the file cannot be written; the message names ``path``.

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

    scalers, name, estimator = _split_pipeline(estimator)
    enc = _Encoder()

    def encode_step(obj, names, what):
        params = {k: enc.encode(v, f"{what}parameter {k!r}")
                  for k, v in obj.get_params(deep=False).items()}
        attrs = {k: enc.encode(vars(obj)[k], f"{what}attribute {k!r}")
                 for k in names if k in vars(obj)}
        return params, attrs

    params_node, _ = encode_step(estimator, (), "")
    state = getattr(estimator, "state_", None)
    preprocessing = []
    for step, cls_name, scaler in scalers:
        params, attrs = encode_step(scaler, _PREPROCESSORS[cls_name],
                                    f"step {step!r} ")
        preprocessing.append({"name": step, "class": cls_name,
                              "params": params, "attributes": attrs})
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "perceptrons_version": perceptrons.__version__,
        "numpy_version": np.__version__,
        "estimator": name,
        "params": params_node,
        "arrays": {},
    }
    if state is not None:
        header["state"] = enc.encode(state, "state_")
    header["arrays"] = {k: {"dtype": a.dtype.str, "shape": list(a.shape)}
                        for k, a in enc.arrays.items()}
    if preprocessing:
        header["preprocessing"] = preprocessing
    if input_schema is not None:
        header["input"] = input_schema
    try:
        payload = json.dumps(header, indent=1, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot save input_schema: not JSON data ({exc})") \
            from exc
    _write_zip(Path(os.fspath(path)), payload.encode("utf-8"), enc.arrays)


def _write_zip(path, header, arrays):
    """The model archive, written to a temporary name and renamed; an
    OSError names ``path``, never the temporary name."""
    with atomic_write(path, "wb", what="model file") as fh, zipfile.ZipFile(
            fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(_HEADER, header)
        for key, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arr, allow_pickle=False)
            zf.writestr(f"{key}.npy", buf.getvalue())


# ---------------------------------------------------------------- loading
class _Decoder:
    def __init__(self, zf, manifest, state_types=None):
        self._zf = zf
        self._manifest = manifest  # key -> (dtype, shape), members checked
        self._cache = {}
        self._state_types = state_types or {}

    def array(self, key):
        if key in self._cache:
            return self._cache[key]
        if not isinstance(key, str) or key not in self._manifest:
            raise ValueError(f"array {key!r:.40} is not in the header's "
                             "manifest")
        arr = _read_npy(self._zf, f"{key}.npy", *self._manifest[key])
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
        if kind == "state":
            return self._decode_state(node, where)
        raise ValueError(f"{where}: unknown node type {kind!r:.40}")

    def _decode_state(self, node, where):
        name = node.get("class")
        cls = self._state_types.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ValueError(f"{where}: state type {name!r:.60} is not one "
                             "of this perceptrons' state types")
        version = node.get("version")
        if version != cls.VERSION:
            raise ValueError(
                f"{where}: {name} version {version!r:.20} (this perceptrons "
                f"reads version {cls.VERSION}); refit the model and save it "
                "again")
        fields = node.get("fields")
        names = [n for n, _ in cls.specs()]
        if not isinstance(fields, dict) or set(fields) != set(names):
            got = sorted(fields) if isinstance(fields, dict) else fields
            raise ValueError(f"{where}: {name} must have the fields "
                             f"{names}, got {got!r:.200}")
        return cls(**{k: self.decode(fields[k], f"{where}.{k}")
                      for k in names})

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


def _manifest_entry(spec, key):
    """``(dtype, shape, nbytes)`` of a manifest entry; ValueError if
    malformed (an object, void or zero-size dtype is never saved)."""
    shape = spec.get("shape") if isinstance(spec, dict) else None
    if not (isinstance(shape, list)
            and all(type(n) is int and n >= 0 for n in shape)):
        raise ValueError(f"array {key}: bad manifest shape {shape!r:.80}")
    text = spec.get("dtype")
    try:
        dtype = np.dtype(text) if type(text) is str else None
    except (TypeError, ValueError, SyntaxError):
        dtype = None
    if dtype is None or dtype.hasobject:
        raise ValueError(f"array {key}: manifest dtype {text!r:.40} is not "
                         "one a model file holds (object arrays are never "
                         "loaded)")
    if dtype.kind not in "biufcSU" or dtype.shape or not dtype.itemsize:
        raise ValueError(f"array {key}: manifest dtype {text!r:.40} is not "
                         "one a model file holds")
    return dtype, tuple(shape), dtype.itemsize * math.prod(shape)


def _fail(path, why):
    return ValueError(f"{os.fspath(path)!s} is not a valid perceptrons model "
                      f"file: {why}")


# What reading a hostile archive may raise besides our own ValueErrors.
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
               RuntimeError, NotImplementedError, zlib.error,
               UnicodeDecodeError, ValueError, OverflowError)


def _zip_error(exc):
    """Why a zip archive could not be read, in a phrase."""
    if isinstance(exc, zlib.error):
        return f"corrupt compressed data ({exc})"
    if isinstance(exc, UnicodeDecodeError):
        # zipfile decodes member names; flipped bytes there land here.
        return f"corrupt zip directory ({exc})"
    return f"not a readable zip archive ({exc})"


class _Archive:
    """An open model file: the zip directory checked, the header parsed.

    Attributes
    ----------
    zf : zipfile.ZipFile
    header : dict
    size : int
        Bytes of the file.
    """

    def __init__(self, path):
        self.path = path
        self._fh = open(path, "rb")
        try:
            self.size = os.fstat(self._fh.fileno()).st_size
            try:
                self.zf = zipfile.ZipFile(self._fh)
            except _ZIP_ERRORS as exc:
                raise _fail(path, _zip_error(exc)) from exc
            _check_directory(self.zf, path, self.size)
            self.header = _parse_header(self.zf, path)
        except BaseException:
            self._fh.close()
            raise

    def close(self):
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _check_directory(zf, path, size):
    """Refuse, from the zip directory alone, an archive that is not laid out
    as :func:`save_model` writes one, before anything is decompressed.

    Every member must be ``header.json`` or ``a<N>.npy`` (so no path
    separator, no ``..``), named once, neither encrypted nor compressed
    otherwise than stored or deflated, within the file and overlapping no
    other; its declared size at most :data:`MAX_COMPRESSION_RATIO` times its
    compressed size; all of them together at most :data:`MAX_MODEL_BYTES`.
    """
    infos = zf.infolist()
    if _HEADER not in {info.filename for info in infos}:
        raise _fail(path, "no header.json member (a plain .npz or another "
                          "zip archive, not written by "
                          "perceptrons.persistence.save_model)")
    seen, spans, total = set(), [], 0
    for info in infos:
        name = info.orig_filename
        if name != _HEADER and not _ARRAY_MEMBER.fullmatch(name):
            raise _fail(path, f"member {name!r:.80} is not one a model file "
                              "holds (header.json and a<N>.npy only: no "
                              "directories, no path separators, no '..')")
        if name in seen:
            raise _fail(path, f"two members are named {name!r}; a model "
                              "file names each member once")
        seen.add(name)
        if info.flag_bits & _ENCRYPTED_FLAGS:
            raise _fail(path, f"member {name} is encrypted; model files "
                              "never are")
        if info.compress_type not in (zipfile.ZIP_STORED,
                                      zipfile.ZIP_DEFLATED):
            raise _fail(path, f"member {name} uses zip compression method "
                              f"{info.compress_type}; model files are "
                              "stored or deflated")
        if (info.compress_type == zipfile.ZIP_STORED
                and info.compress_size != info.file_size):
            raise _fail(path, f"member {name} is stored uncompressed but "
                              f"declares {info.file_size} bytes in "
                              f"{info.compress_size}")
        if info.file_size > MAX_COMPRESSION_RATIO * max(info.compress_size,
                                                        1):
            raise _fail(path, f"member {name} declares {info.file_size} "
                              f"bytes compressed into {info.compress_size}, "
                              f"more than {MAX_COMPRESSION_RATIO}:1 (a zip "
                              "bomb, or a damaged directory)")
        start = info.header_offset
        end = start + _LOCAL_HEADER + len(name) + info.compress_size
        if start < 0 or end > size:
            raise _fail(path, f"member {name} lies past the end of the file "
                              "(truncated or damaged)")
        spans.append((start, end, name))
        total += info.file_size
    spans.sort()
    for (_, end, name), (start, _, other) in zip(spans, spans[1:]):
        if end > start:
            raise _fail(path, f"members {name} and {other} overlap; model "
                              "files never share bytes between members")
    if total > MAX_MODEL_BYTES:
        raise _fail(path, f"its members declare {total} bytes, over the "
                          f"limit of {MAX_MODEL_BYTES} "
                          "(perceptrons.persistence.MAX_MODEL_BYTES); if you "
                          "trust the file, raise the limit with the "
                          "environment variable PERCEPTRONS_MAX_MODEL_BYTES")


def _parse_header(zf, path):
    """The checked JSON header of an archive whose directory is checked."""
    size = zf.getinfo(_HEADER).file_size
    if size > MAX_HEADER_BYTES:
        raise _fail(path, f"header.json is {size} bytes, over the limit of "
                          f"{MAX_HEADER_BYTES}")
    try:
        with zf.open(_HEADER) as fh:
            raw = fh.read(MAX_HEADER_BYTES + 1)
    except _ZIP_ERRORS as exc:
        raise _fail(path, _zip_error(exc)) from exc
    if len(raw) > MAX_HEADER_BYTES:
        raise _fail(path, "header.json is over the size limit")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail(path, f"header.json is not valid JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise _fail(path, f"header.json does not declare format "
                          f"{FORMAT_NAME!r}")
    version = header.get("format_version")
    if type(version) is not int or version < 1:
        raise _fail(path, f"bad format_version {version!r:.40}")
    if version < _OLDEST_READ:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version} "
            f"(written by perceptrons "
            f"{str(header.get('perceptrons_version', '?')):.40}), which "
            "saved the estimator's private attributes rather than its "
            "declared, validated state; this perceptrons reads version "
            f"{FORMAT_VERSION}: refit the model on its training data and "
            "save it again (perceptrons train ... -o MODEL)")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)} uses perceptrons model format version {version}, "
            f"newer than the version this perceptrons can read "
            f"({FORMAT_VERSION}; written by perceptrons "
            f"{str(header.get('perceptrons_version', '?')):.40}): upgrade "
            "perceptrons")
    return header


def _check_manifest(zf, manifest):
    """The header's array manifest, checked against the archive's members:
    one ``<key>.npy`` member per entry and no other, each of the size its
    entry declares (plus a .npy header). Nothing is decompressed.

    Returns
    -------
    dict of str to (dtype, shape)
    """
    if not isinstance(manifest, dict):
        raise ValueError("header lacks params/attributes/arrays")
    members = {info.filename: info for info in zf.infolist()}
    out = {}
    for key, spec in manifest.items():
        dtype, shape, nbytes = _manifest_entry(spec, key)
        info = members.get(f"{key}.npy")
        if info is None:
            raise ValueError(f"array member {key!s:.40}.npy is missing")
        if info.file_size > nbytes + _NPY_HEADER_SLACK:
            raise ValueError(f"array member {key}.npy holds "
                             f"{info.file_size} bytes, more than its "
                             "manifest entry declares")
        if info.file_size <= nbytes:
            raise ValueError(f"array member {key}.npy holds "
                             f"{info.file_size} bytes, fewer than its "
                             f"manifest entry declares ({nbytes} of data)")
        out[key] = dtype, shape
    extra = sorted(set(members) - {_HEADER} - {f"{k}.npy" for k in out})
    if extra:
        raise ValueError(f"member {extra[0]} is not in the header's "
                         "manifest")
    return out


def _read_npy(zf, name, dtype, shape):
    """The array of a member, its .npy header checked against the manifest
    before its data is allocated (exactly its declared bytes, read in
    place)."""
    with zf.open(name) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            got = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            got = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"member {name} is in .npy format version "
                             f"{version}, not one numpy writes for it")
        got_shape, fortran, got_dtype = got
        if got_dtype != dtype or tuple(got_shape) != shape:
            raise ValueError(
                f"array {name[:-4]} has dtype {got_dtype.str} and shape "
                f"{list(got_shape)}, the manifest says {dtype.str} and "
                f"{list(shape)}")
        buf = np.empty(dtype.itemsize * math.prod(shape), dtype=np.uint8)
        view, got_bytes = memoryview(buf), 0
        while got_bytes < len(view):
            n = fh.readinto(view[got_bytes:])
            if not n:
                raise ValueError(f"member {name} is truncated")
            got_bytes += n
        if fh.read(1):  # also reaches the end: the CRC is checked
            raise ValueError(f"member {name} holds more than its array")
    return buf.view(dtype).reshape(shape, order="F" if fortran else "C")


def read_header(path):
    """Return the parsed JSON header of a model file (no arrays loaded).

    The zip directory is checked first (see :func:`load_model`).

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
        If the file is not a zip archive laid out as a model file, with a
        valid ``header.json``.
    """
    with _open_archive(path) as archive:
        return archive.header


def _open_archive(path):
    """The :class:`_Archive` of ``path``; FileNotFoundError if there is no
    such file, one ValueError naming it for anything else."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"No such model file: {str(path)!r}")
    try:
        return _Archive(path)
    except OSError as exc:
        raise _fail(path, f"cannot be read ({exc.strerror or exc})") \
            from exc


def load_model(path, *, return_input_schema=False):
    """Load an estimator written by :func:`save_model`.

    Nothing in the file can execute code: arrays are read as raw ``.npy``
    data, never unpickled. The zip layer is checked before anything is
    decompressed, and the parameters and the fitted state before the
    estimator is returned (see the module docstring).

    Parameters
    ----------
    path : str or path-like
    return_input_schema : bool, default=False
        Also return the ``input_schema`` saved with the model (None if
        none was).

    Returns
    -------
    estimator or Pipeline
        A new instance of the saved class with the saved parameters and
        fitted state; a :class:`~sklearn.pipeline.Pipeline` if scalers were
        saved before it.
    input_schema : dict or None, only if ``return_input_schema``

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a perceptrons model (a foreign ``.npz``, a text
        file), is truncated or corrupt (bad JSON, missing, extra, duplicate,
        mistyped, encrypted or oversized members, a zip bomb, a member over
        :data:`MAX_MODEL_BYTES`), names a class outside the whitelist, holds
        parameters outside the estimator's constraints or a fitted state of
        the wrong types or shapes, or was written in a newer format version.
    """
    with _open_archive(path) as archive:
        header = archive.header
        registry = estimator_registry()
        name = header.get("estimator")
        if not isinstance(name, str) or name not in registry:
            raise _fail(path, f"estimator class {name!r:.80} is not one of "
                              f"{', '.join(sorted(registry))}")
        steps = header.get("preprocessing", [])
        if not isinstance(steps, list) or not all(
                isinstance(step, dict) and type(step.get("name")) is str
                for step in steps):
            raise _fail(path, "preprocessing must be a list of named steps")
        try:
            manifest = _check_manifest(archive.zf, header.get("arrays"))
            dec = _Decoder(archive.zf, manifest, state_types())
            classes = _preprocessor_classes()
            pipeline = []
            for step in steps:
                if step.get("class") not in classes:
                    raise ValueError(f"preprocessing class "
                                     f"{step.get('class')!r:.80} is not one "
                                     f"of {', '.join(sorted(classes))}")
                cls = classes[step["class"]]
                pipeline.append((step["name"], _build(
                    dec, cls, step, _PREPROCESSORS[step["class"]],
                    f"step {step['name']!r:.80} ")))
            estimator = _build_estimator(dec, registry[name], header)
        except ValueError as exc:
            raise _fail(path, str(exc)) from exc
        except (KeyError, TypeError, IndexError, AttributeError, OSError,
                EOFError, RecursionError, NotImplementedError, MemoryError,
                RuntimeError, OverflowError, zipfile.BadZipFile,
                zlib.error) as exc:
            raise _fail(path, f"corrupt content ({type(exc).__name__}: "
                              f"{exc})") from exc
    model = estimator
    if pipeline:
        from sklearn.pipeline import Pipeline

        try:
            model = Pipeline([*pipeline, ("model", estimator)])
        except (TypeError, ValueError) as exc:
            raise _fail(path, f"bad preprocessing steps ({exc})") from exc
    try:
        _check_fitted(model, estimator, [s for _, s in pipeline])
    except ValueError as exc:
        raise _fail(path, str(exc)) from exc
    if return_input_schema:
        return model, header.get("input")
    return model


def _build_estimator(dec, cls, header):
    """An instance of ``cls`` with the header's parameters and its state,
    validated."""
    estimator = _build(dec, cls, {"params": header.get("params"),
                                  "attributes": {}}, (), "")
    node = header.get("state")
    if node is not None:
        state = dec.decode(node, "state_")
        estimator._set_state(state, where="state_")
    elif "attributes" in header:
        raise ValueError("header holds attributes, not a state")
    return estimator


def _build(dec, cls, node, declared, what):
    """An instance of ``cls`` with the node's parameters and state."""
    params, attrs = node.get("params"), node.get("attributes")
    if not all(isinstance(d, dict) for d in (params, attrs)):
        raise ValueError(f"{what}header lacks params/attributes/arrays")
    values = {k: dec.decode(v, f"{what}parameter {k!r}")
              for k, v in params.items()}
    state = {k: dec.decode(v, f"{what}attribute {k!r}")
             for k, v in attrs.items()}
    obj = cls()
    known = obj.get_params(deep=False)
    unknown = set(values) - set(known)
    if unknown:
        raise ValueError(f"{what}parameters {sorted(unknown)} are not "
                         f"parameters of {cls.__name__} in this version")
    obj.set_params(**values)
    try:
        obj._validate_params()  # the class's declared constraints
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}invalid parameter: {exc}") from exc
    for key, value in state.items():
        if key not in declared:
            raise ValueError(f"{what}attribute {key!r:.40} is not part of "
                             f"the fitted state of {cls.__name__}")
        setattr(obj, key, value)
    return obj


def _check_fitted(model, estimator, scalers):
    """ValueError unless the fitted model can predict: the scalers against
    the estimator's input, then one all-zero row through ``model`` (the
    state is validated already; this checks the whole as it will be used)."""
    state = getattr(estimator, "state_", None)
    if state is None:
        return  # an unfitted estimator
    n = state.n_features_in
    for scaler in scalers:
        _check_scaler(scaler, n)
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = model.predict(np.zeros((1, n)))
    except Exception as exc:  # noqa: BLE001 - any failure means bad state
        raise ValueError(f"the saved state cannot predict ("
                         f"{type(exc).__name__}: {exc})") from exc
    if np.shape(pred) != (1,) or not np.isin(pred, state.classes).all():
        raise ValueError("the saved state predicts labels outside classes_")


def _check_scaler(scaler, n):
    state = vars(scaler)
    if state.get("n_features_in_") != n or type(
            state.get("n_features_in_")) is bool:
        raise ValueError(f"scaler {type(scaler).__name__} was fitted on "
                         f"{state.get('n_features_in_')!r:.40} features, "
                         f"the estimator on {n}")
    for key in ("mean_", "var_", "scale_", "max_abs_"):
        value = state.get(key)
        if value is not None and not (
                isinstance(value, np.ndarray) and value.shape == (n,)
                and value.dtype.kind == "f"):
            raise ValueError(f"{type(scaler).__name__}.{key} must be a "
                             f"float array of {n} values")
