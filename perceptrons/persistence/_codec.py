"""The header's node tree: a value (parameters, a fitted state) turned into
JSON nodes and array members, and back (the node types are listed in
:mod:`perceptrons.persistence`).
"""

import math

import numpy as np

from ..models._state import Declared, State
from ._archive import _read_npy


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



class _Decoder:
    def __init__(self, zf, manifest, state_types=None):
        self._zf = zf
        self._manifest = manifest  # key -> (dtype, shape), members checked
        self._cache = {}
        self._state_types = state_types or {}

    def array(self, key):
        if key in self._cache:
            return self._cache[key]
        arr = _read_npy(self._zf, f"{key}.npy", *self._entry(key))
        self._cache[key] = arr
        return arr

    def _entry(self, key):
        """``(dtype, shape)`` of the member ``key``."""
        if not isinstance(key, str) or key not in self._manifest:
            raise ValueError(f"array {key!r:.40} is not in the header's "
                             "manifest")
        return self._manifest[key]

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
        # A file of an earlier version lacks the fields added since
        # (State.UPGRADES), which take their stated values.
        added = ({} if version == cls.VERSION else
                 cls.UPGRADES.get(version) if type(version) is int else None)
        if added is None:
            raise ValueError(
                f"{where}: {name} version {version!r:.20} (this perceptrons "
                f"reads version {cls.VERSION}); refit the model and save it "
                "again")
        fields = node.get("fields")
        names = [n for n, _ in cls.specs() if n not in added]
        if not isinstance(fields, dict) or set(fields) != set(names):
            got = sorted(fields) if isinstance(fields, dict) else fields
            raise ValueError(f"{where}: {name} must have the fields "
                             f"{names}, got {got!r:.200}")
        return cls(**{k: self.decode(fields[k], f"{where}.{k}")
                      for k in names}, **added)

    def _decode_sparse(self, node, where):
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
        names = _SPARSE_PARTS.get(fmt)
        if names is None:
            raise ValueError(f"{where}: unsupported sparse format {fmt!r:.20}")
        mat = self._sparse(fmt, container, shape,
                           {name: self.array(node[name]) for name in names})
        self._cache[ck] = mat
        return mat

    @staticmethod
    def _sparse(fmt, container, shape, parts):
        """The matrix of a sparse node's checked format, container, shape
        and arrays (``parts``)."""
        import scipy.sparse as sp

        cls = getattr(sp, fmt + ("_array" if container == "array"
                                 else "_matrix"))
        if fmt == "coo":
            return cls((parts["data"], (parts["row"], parts["col"])),
                       shape=shape)
        mat = cls((parts["data"], parts["indices"], parts["indptr"]),
                  shape=shape, copy=False)
        mat.check_format(full_check=True)
        return mat


# The arrays of a sparse node, by format.
_SPARSE_PARTS = {"csr": ("data", "indices", "indptr"),
                 "csc": ("data", "indices", "indptr"),
                 "coo": ("data", "row", "col")}


class _HeaderDecoder(_Decoder):
    """The decoder of a header alone: each array a
    :class:`~perceptrons.models._state.Declared` of its manifest entry,
    nothing read, so that the state's declared shapes can be checked
    (:meth:`~perceptrons.models._state.State.check_declared`) before any
    member is decompressed.

    Numpy scalars (0-d members of at most :data:`SMALL_MEMBER` bytes) are
    read: their value is what a scalar's check needs, and it is a few
    bytes.
    """

    def array(self, key):
        dtype, shape = self._entry(key)
        if not shape and dtype.itemsize <= SMALL_MEMBER:
            return super().array(key)
        return Declared(dtype, shape)

    @staticmethod
    def _sparse(fmt, container, shape, parts):
        return Declared(parts["data"].dtype, shape, fmt, parts)


#: Largest member read with the header (a numpy scalar), and largest
#: member a parameter may hold (a RandomState's key: 624 words, 2,496
#: bytes).
SMALL_MEMBER = 4096
