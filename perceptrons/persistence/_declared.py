"""Every array member a model file's nodes use, sized from the header alone.

The zip layer bounds what a file declares in all (:data:`MAX_MODEL_BYTES`)
and how far a member may inflate (:data:`MAX_COMPRESSION_RATIO`), but not
whether a member's size suits its place: a 0.5 MB file whose one integer
member declares 512 MiB (its ``.npy`` header agreeing, deflate's 1029:1
under the ratio's cap, under the total's) made ``load_model`` allocate
about 1 GiB before the state's validation refused it. So before any member
is decompressed, :func:`check_declared` sizes every member the header's
nodes use:

* **The state.** Its node tree is decoded with every array a
  :class:`~perceptrons.models._state.Declared` (its manifest entry), and
  :meth:`~perceptrons.models._state.State.check_declared` checks each
  array's dtype against its field's kind and each shape against its
  field's declaration: the symbols the shapes share (``n_features``,
  ``n_classes``, ``n_pool``, ``n_epochs``, ...) are bound at their first
  use, by an array or by a scalar (``n_features_in`` binds ``n_features``,
  ``n_rows_seen`` binds ``n_seen``), and every other use must agree. A
  member enlarged alone contradicts the others that share its symbol.
* **Each symbol, bounded by what the header states in a scalar.** A symbol
  that only large arrays bind (every use enlarged together) is bounded by
  a count the state states, which a real state never exceeds
  (:data:`_SYMBOL_BOUNDS` gives each bound and its reason): epochs by
  ``t`` (each presents at least one row; ``n_iter`` is no bound: PDM's
  counts the last call's epochs, its history every call's), rows seen by
  ``t``, a pool's rows by its rows seen, a vote log by the updates,
  support rows by ``t``, matrix rows and factors by the matrix updates;
  ``n_classes`` and the per-problem counts bound each other (a class past
  the second has its own weight row). An axis that no symbol names is
  bounded by the symbol it must equal or stay within
  (:data:`_FREE_BOUNDS`): the width of a kept sum or snapshot, a log's
  optional columns, a capacity.
* **Everything else.** A scaler's statistics hold a number, or one per
  feature; a parameter's members are small (:data:`~._codec.SMALL_MEMBER` bytes:
  numpy scalars, a RandomState's key).

So every member's size follows from the header's scalars and symbols,
which all agree. What this cannot refuse is a file that is consistent and
large (a state with that many features, epochs or support rows): such a
model is real, and :data:`MAX_MODEL_BYTES` is the memory it may take. Two
things are sized by nothing but that cap: the width of a string (a label,
a feature name: no scalar states the longest), and a count whose every
use is enlarged with the scalar that bounds it.
"""

import math

from ..models._state import State
from ._codec import SMALL_MEMBER

#: Symbols that count problems (one-vs-rest), weight rows or counters: 1
#: (two classes), 2 (two prototypes) or one per class.
_PER_PROBLEM = ("n_rows", "n_problems", "n_counters")


def _per_class(n, s):
    return max(2, n["n_classes"])


def _capacity(n, s):
    # A factor buffer grows to max(need, 2 * size) (matrix_rows.grow_cols):
    # at most twice one factor per matrix update, and one pointer more.
    return 2 * (s.n_matrix_updates + 1)


#: The bound of each symbol, from the bound symbols ``n`` and the declared
#: state ``s`` (its scalars), with what it is; None: a scalar states it.
_SYMBOL_BOUNDS = {
    "n_features": None,
    "n_seen": (lambda n, s: s.t, "t, the rows presented"),
    "n_classes": (lambda n, s: max(2, *(n.get(k, 0) for k in _PER_PROBLEM)),
                  "2 or the weight rows: a class past the second has its "
                  "own"),
    "n_rows": (_per_class, "n_classes"),
    "n_problems": (_per_class, "n_classes"),
    "n_counters": (_per_class, "n_classes"),
    "n_epochs": (lambda n, s: s.t, "t: an epoch presents at least one row"),
    "n_pool": (lambda n, s: n["n_seen"], "the pool's rows seen"),
    "n_log": (lambda n, s: s.n_updates, "n_updates: one entry per update"),
    "n_support": (lambda n, s: s.t, "t: rows of the last call"),
    "q": (lambda n, s: s.n_matrix_updates,
          "n_matrix_updates: a matrix row per update"),
    "n_ptr": (_capacity, "twice the matrix updates"),
    "n_entries": (lambda n, s: n["n_features"] * _capacity(n, s),
                  "n_features times twice the matrix updates"),
    "n_cov": (lambda n, s: n["n_features"] + 1,
              "n_features + 1: a covariance over the features and the "
              "constant one"),
}

#: The bound of each axis no symbol names, by the state type that declares
#: the field (or a base of it) and the field, with what it is.
_FREE_BOUNDS = {
    ("WeightRows", "summed"): (lambda n: n["n_features"], "n_features"),
    ("WeightRows", "snapshot"): (lambda n: n["n_features"], "n_features"),
    ("DualWeights", "summed"): (lambda n: n["n_pool"], "n_pool"),
    ("DualWeights", "snapshot"): (lambda n: n["n_pool"], "n_pool"),
    ("VotedLog", "other"): (lambda n: n["n_log"], "n_log"),
    ("VotedLog", "weight"): (lambda n: n["n_log"], "n_log"),
    ("VotedLog", "ptr"): (lambda n: n["n_counters"] + 1, "n_counters + 1"),
    # ROMMA keeps 4 scalars a problem, MPU 6; the estimator checks its own
    # number once the state is read.
    ("MarginState", "scalars"): (lambda n: 8, "8"),
    ("MatrixState", "summed"): (
        lambda n: max(n["n_features"], n.get("n_pool", 0)),
        "the hypothesis's width (n_features or n_pool)"),
    ("HOImplicitModel", "frho"): (lambda n: n["n_ptr"], "n_ptr"),
}


def check_declared(header, dec, estimator_class):
    """Refuse a member whose declared size does not suit its place.

    Parameters
    ----------
    header : dict
        The parsed header, its manifest checked against the archive.
    dec : _HeaderDecoder
        Over that manifest: reads nothing but numpy scalars.
    estimator_class : type
        The estimator the header names.

    Raises
    ------
    ValueError
        Naming the field (or parameter, or scaler statistic), and saying
        that nothing was read.
    """
    try:
        _check_declared(header, dec, estimator_class)
    except ValueError as exc:
        raise ValueError(f"{exc} (from the header's manifest, before any "
                         "array is read)") from exc


def _check_declared(header, dec, estimator_class):
    n_features = None
    node = header.get("state")
    if node is not None:
        state = dec.decode(node, "state_")
        want = estimator_class._state_type
        if type(state) is not want:
            raise ValueError(f"{estimator_class.__name__} holds a "
                             f"{want.__name__}, not a "
                             f"{type(state).__name__}")
        sizes = state.check_declared(where="state_")
        _check_symbols(state, sizes)
        _check_free_axes(state, sizes, "state_")
        n_features = sizes["n_features"]
    params = header.get("params")
    for name, child in (params.items() if isinstance(params, dict) else ()):
        for key in _member_keys(child):
            dtype, shape = dec._entry(key)
            if dtype.itemsize * math.prod(shape) > SMALL_MEMBER:
                raise ValueError(f"parameter {name!r:.40} holds an array of "
                                 f"{list(shape)} {dtype} values, more than a "
                                 f"parameter holds ({SMALL_MEMBER} bytes)")
    for step in header.get("preprocessing", []):
        _check_scaler_sizes(step, dec, n_features)


def _check_symbols(state, sizes):
    for symbol, value in sizes.items():
        if symbol not in _SYMBOL_BOUNDS:
            raise ValueError(f"{sizes.bound_at[symbol]}: {symbol} has no "
                             "known bound")
        if _SYMBOL_BOUNDS[symbol] is None:
            continue
        bound, what = _SYMBOL_BOUNDS[symbol]
        top = bound(sizes, state)
        if value > top:
            raise ValueError(f"{sizes.bound_at[symbol]}: {symbol} is "
                             f"{value}, more than {top} ({what})")


def _check_free_axes(state, sizes, where):
    """Bound every axis of ``state``'s arrays that no symbol names
    (:data:`_FREE_BOUNDS`), nested states included."""
    for name, spec in state.specs():
        value = getattr(state, name)
        at = f"{where}.{name}"
        if isinstance(value, State):
            _check_free_axes(value, sizes, at)
        elif spec.what == "array" and value is not None:
            for axis in [i for i, s in enumerate(spec.shape) if s is None]:
                bound, what = _free_bound(type(state), name, at)
                top = bound(sizes)
                if value.shape[axis] > top:
                    raise ValueError(f"{at} has {value.shape[axis]} "
                                     f"entries along axis {axis}, more "
                                     f"than {top} ({what})")


def _free_bound(cls, name, at):
    for base in cls.__mro__:
        found = _FREE_BOUNDS.get((base.__name__, name))
        if found is not None:
            return found
    raise ValueError(f"{at}: an axis with no known bound")


def _check_scaler_sizes(step, dec, n_features):
    """A scaler's statistics: a number, or one per feature (of the state,
    or of the scaler's own ``n_features_in_`` when no state is saved)."""
    attrs = step.get("attributes")
    if not isinstance(attrs, dict):
        return  # refused when the step is built, before anything is read
    if n_features is None:
        node = attrs.get("n_features_in_")
        n_features = node.get("value") if isinstance(node, dict) else None
        n_features = n_features if type(n_features) is int else 0
    for name, child in attrs.items():
        for key in _member_keys(child):
            dtype, shape = dec._entry(key)
            if shape not in ((), (n_features,)) or dtype.kind not in "biuf":
                raise ValueError(f"step {step.get('name')!r:.80} attribute "
                                 f"{name!r:.40} holds {list(shape)} {dtype} "
                                 f"values, not a number per feature "
                                 f"({n_features})")


def _member_keys(node):
    """The keys of every array member a node tree uses."""
    if isinstance(node, list):
        for child in node:
            yield from _member_keys(child)
    elif isinstance(node, dict):
        kind = node.get("type")
        if kind in ("ndarray", "npscalar"):
            yield node.get("key")
        elif kind == "sparse":
            yield from (node[p] for p in _SPARSE_KEYS if p in node)
        for child in node.values():
            if isinstance(child, (dict, list)):
                yield from _member_keys(child)


_SPARSE_KEYS = ("data", "indices", "indptr", "row", "col")
