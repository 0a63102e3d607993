"""Fitted state as declared, versioned, validated types.

A fitted estimator is its state and nothing else: one frozen dataclass (as
optax's ``NamedTuple`` states) that says what the model carries, with a
schema version and :meth:`State.validate`. Model files hold exactly that
object (:mod:`perceptrons.persistence`), parameter mixing averages exactly
that object (:mod:`perceptrons.distributed`), and ``coef_init`` writes into
it; whatever its source, a state is validated before any compiled loop reads
it, so no loop needs to distrust an index.

Each field declares what it holds with :func:`array`, :func:`scalar`,
:func:`rows` or :func:`sub`: a dtype kind, a shape whose entries may be
*symbols* (``"n_features"``, ``"n_rows"``, ``"n_pool"``, ...) shared by every
field of the state and its sub-states, bounds (an index array declares the
size it indexes, ``high="n_pool"``), finiteness. :meth:`State.validate`
checks every field against its declaration, binds each symbol at its first
use and checks every later use against it, then calls the state's own
:meth:`State.check` for relations the declarations cannot say (a count that
bounds a filled prefix, a flag that decides a width). Every refusal is one
:class:`ValueError` naming the field.

:meth:`State.check_declared` checks a state before its arrays exist: each
array a :class:`Declared`, the dtype and shape a model file's header states
for it. Dtypes, shapes and the symbols they bind are checked as
:meth:`State.validate` checks them, and every scalar; values and
:meth:`State.check` wait for the arrays. So a file whose arrays disagree
with their types or with each other is refused before any is read
(:mod:`perceptrons.persistence`).

:meth:`State.schema` describes the declarations; a test compares each
state type's schema with the one recorded for its ``VERSION``, so changing
what a model file holds without a new version fails the test suite.
"""

import dataclasses
import hashlib
import json
import threading
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ..utils.validation import check_csr_structure

__all__ = ["Declared", "FittedState", "HistoryTail", "State", "appended",
           "appended_one", "array", "check_problems", "n_problems_of", "rows",
           "scalar", "sub"]

_KINDS = {"float": "f", "int": "iu", "bool": "b", "label": "biuUfO",
          "names": "UO"}
_DTYPES = {"float": np.float64, "int": np.int64, "bool": np.bool_}
# Integer scalars (counts, sizes) stay within float64's exact integers: no
# count of a model comes near, and sums of them cannot overflow int64.
_INT_LIMIT = 2 ** 53


@dataclasses.dataclass(frozen=True)
class _Spec:
    what: str  # "array", "scalar", "rows", "sub"
    kind: object = None  # dtype kind, Python type name, or State class
    shape: tuple = ()
    low: object = None
    high: object = None
    finite: bool = True
    optional: bool = False
    choices: tuple = ()
    binds: str = None

    def describe(self):
        if self.what == "sub":
            return [self.what, [c.schema() for c in self.kind], self.optional]
        return [self.what, self.kind, list(self.shape), self.low, self.high,
                self.finite, self.optional, list(self.choices), self.binds]


def array(kind, shape, *, low=None, high=None, finite=True, optional=False):
    """A field holding an ndarray.

    Parameters
    ----------
    kind : {"float", "int", "bool", "label", "names"}
        float64, int64, bool, class labels (numeric or strings, distinct),
        or names (strings, as ``feature_names_in_``).
    shape : tuple of int, str or None
        Each entry a size, a symbol bound across the state, or None (any).
    low, high : number or str, optional
        Every value in ``[low, high)``; a string names a symbol.
    finite : bool, default=True
        Float values must be finite.
    optional : bool, default=False
        The field may be None.
    """
    return dataclasses.field(metadata={"spec": _Spec(
        "array", kind, tuple(shape), low, high, finite, optional)})


def scalar(kind, *, low=None, high=None, finite=True, optional=False,
           choices=(), binds=None):
    """A field holding a Python scalar.

    Parameters
    ----------
    kind : {"float", "int", "bool", "str"}
    low, high : number or str, optional
        ``low <= value < high`` for "int", ``low <= value <= high`` for
        "float"; a string names a symbol.
    finite : bool, default=True
    optional : bool, default=False
    choices : tuple, default=()
        The allowed values, when not empty.
    binds : str, optional
        An "int" field that gives a symbol its size (``n_features_in``
        binds ``n_features``).
    """
    return dataclasses.field(metadata={"spec": _Spec(
        "scalar", kind, (), low, high, finite, optional, tuple(choices),
        binds)})


def rows(shape, *, optional=False):
    """A field holding data rows: a C-contiguous float64 ndarray or a CSR
    float64 matrix with sorted, in-range indices."""
    return dataclasses.field(metadata={"spec": _Spec(
        "rows", "float", tuple(shape), optional=optional)})


def sub(*state_classes, optional=False):
    """A field holding a nested state, of one of ``state_classes``
    (validated with the same symbols)."""
    return dataclasses.field(metadata={"spec": _Spec(
        "sub", tuple(state_classes), optional=optional)})


class _Sizes(dict):
    """Symbol bindings of one validation; ``bound_at`` names the field (and
    axis) that bound each."""

    def __init__(self, *args):
        super().__init__(*args)
        self.bound_at = {}

    def bind(self, symbol, value, where):
        known = self.get(symbol)
        if known is None:
            self[symbol] = int(value)
            self.bound_at[symbol] = where
        elif known != value:
            raise ValueError(f"{where}: {symbol} is {value} here but "
                             f"{known} elsewhere in the state")


class Declared:
    """An array as a model file's header declares it: a dtype and a shape,
    no data; what :meth:`State.check_declared` checks in an array's place.

    A sparse matrix is declared by its ``format`` (``"csr"``, ...), its
    shape, its data's dtype and ``parts``: the :class:`Declared` arrays of
    its ``data``, ``indices`` and ``indptr`` (or ``row`` and ``col``).
    """

    __slots__ = ("dtype", "shape", "format", "parts")

    def __init__(self, dtype, shape, format=None, parts=None):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.format = format
        self.parts = parts or {}

    @property
    def ndim(self):
        return len(self.shape)

    def astype(self, dtype):
        """The declaration with another dtype (as ``ndarray.astype``)."""
        return Declared(dtype, self.shape)

    def __getitem__(self, index):
        """``declared[()]`` of a 0-d declaration is itself (a numpy scalar
        not read), as ``ndarray[()]`` is the scalar."""
        if index != () or self.shape:
            raise TypeError("only a 0-d declaration is indexed, by ()")
        return self

    def __repr__(self):
        what = f"{self.format} matrix" if self.format else "array"
        return f"{what} of dtype {self.dtype} and shape {self.shape}"


@dataclasses.dataclass(frozen=True)
class State:
    """Base of every fitted state (not public).

    Subclasses are frozen dataclasses whose fields are declared with
    :func:`array`, :func:`scalar`, :func:`rows` and :func:`sub`, and set
    ``VERSION``. Arrays inside a state are updated in place by the compiled
    loops; the fields themselves are replaced with :meth:`replace`.
    """

    #: Schema version: a model file records it, and a state type that
    #: changes what it holds must change it.
    VERSION = 1
    #: Earlier versions a model file may still hold: ``{version: {field:
    #: value}}``, the fields that version lacks and the value they take
    #: (every other field as it was).
    UPGRADES = {}

    # ----------------------------------------------------------- schema
    @classmethod
    def specs(cls):
        """``(name, spec)`` of every field, in declaration order."""
        return [(f.name, f.metadata["spec"])
                for f in dataclasses.fields(cls)]

    @classmethod
    def schema(cls):
        """A JSON-able description of the declarations (nested states
        included) and the version."""
        return {"type": cls.__name__, "version": cls.VERSION,
                "fields": {name: spec.describe()
                           for name, spec in cls.specs()}}

    @classmethod
    def schema_digest(cls):
        """A short hash of :meth:`schema`."""
        text = json.dumps(cls.schema(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def replace(self, **changes):
        """A copy with some fields replaced (arrays are not copied).

        ``dataclasses.replace`` without its ``__init__`` call, which sets
        every field of a frozen dataclass through ``object.__setattr__``
        (states have no ``__post_init__``, no init-only or non-init
        fields): a tenth of a ``learn_one`` call went there.
        """
        fields = self.__dict__
        unknown = [name for name in changes if name not in fields]
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field "
                            f"{unknown[0]!r}")
        new = object.__new__(type(self))
        new.__dict__.update(fields)
        new.__dict__.update(changes)
        return new

    # ----------------------------------------------------------- checks
    def validate(self, sizes=None, where=None):
        """Check every field against its declaration, then :meth:`check`.

        Parameters
        ----------
        sizes : dict, optional
            Symbols already bound (e.g. ``n_features``); filled in.
        where : str, optional
            How the state is named in messages (default: its type).

        Returns
        -------
        dict
            The symbols, bound.

        Raises
        ------
        ValueError
            Naming the first field that does not match.
        """
        where = where or type(self).__name__
        sizes = self._check_fields(_CHECKERS, sizes, where)
        self.check(sizes, where)
        return sizes

    def check_declared(self, sizes=None, where=None):
        """Check a state whose arrays are :class:`Declared`, before any
        exists: every array's dtype and shape, the symbols they bind (each
        checked against its other uses, as :meth:`validate` checks them)
        and every scalar. Values and :meth:`check` need the arrays.

        Parameters
        ----------
        sizes : dict, optional
            Symbols already bound; filled in.
        where : str, optional
            How the state is named in messages (default: its type).

        Returns
        -------
        dict
            The symbols, bound; its ``bound_at`` names the field that
            bound each.

        Raises
        ------
        ValueError
            Naming the first field that does not match.
        """
        return self._check_fields(_DECLARED_CHECKERS, sizes,
                                  where or type(self).__name__)

    def _check_fields(self, checkers, sizes, where):
        """Each field by ``checkers[spec.what]``; the bound symbols."""
        sizes = sizes if isinstance(sizes, _Sizes) else _Sizes(sizes or {})
        for name, spec in self.specs():
            value = getattr(self, name)
            at = f"{where}.{name}"
            if value is None:
                if not spec.optional:
                    raise ValueError(f"{at} is missing")
                continue
            checkers[spec.what](value, spec, sizes, at)
        return sizes

    def check(self, sizes, where):
        """Relations between fields that the declarations cannot state.

        Called by :meth:`validate` with the bound symbols; raises
        ValueError.
        """


# ---------------------------------------------------------------- checkers
def _bound(value, sizes, at):
    if isinstance(value, str):
        if value not in sizes:
            raise ValueError(f"{at}: its bound {value} is not known yet")
        return sizes[value]
    return value


def _check_shape(shape, spec_shape, sizes, at):
    if len(shape) != len(spec_shape):
        raise ValueError(f"{at} has {len(shape)} dimensions, expected "
                         f"{len(spec_shape)}")
    for axis, (n, want) in enumerate(zip(shape, spec_shape)):
        if want is None:
            continue
        if isinstance(want, str):
            sizes.bind(want, n, f"{at} (axis {axis})")
        elif n != want:
            raise ValueError(f"{at} has {n} entries along axis {axis}, "
                             f"expected {want}")


def _check_range(values, spec, sizes, at):
    if values.size == 0:
        return
    if spec.low is not None:
        low = _bound(spec.low, sizes, at)
        if values.min() < low:
            raise ValueError(f"{at} holds {values.min()!r:.30}, below "
                             f"{low}")
    if spec.high is not None:
        high = _bound(spec.high, sizes, at)
        top = values.max()
        if (top >= high if values.dtype.kind in "iu" else top > high):
            raise ValueError(f"{at} holds {top!r:.30}, not below {high}"
                             + (f" ({spec.high})" if isinstance(spec.high,
                                                                str) else ""))


def _check_dtype(dtype, spec, at):
    if dtype.kind not in _KINDS[spec.kind] or (
            spec.kind in _DTYPES and dtype != _DTYPES[spec.kind]):
        raise ValueError(f"{at} has dtype {dtype}, expected "
                         f"{_DTYPES.get(spec.kind, spec.kind)}")


def _check_array(value, spec, sizes, at):
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{at} must be an array, got "
                         f"{type(value).__name__}")
    _check_dtype(value.dtype, spec, at)
    _check_shape(value.shape, spec.shape, sizes, at)
    if spec.kind == "float" and spec.finite and not np.isfinite(value).all():
        raise ValueError(f"{at} holds NaN or infinity")
    if spec.kind == "names" and not all(isinstance(v, str)
                                        for v in value.ravel().tolist()):
        raise ValueError(f"{at} must hold strings")
    if spec.kind == "label":
        if value.dtype.kind == "O" and not (
                all(isinstance(v, str) for v in value.tolist())
                or all(isinstance(v, int) for v in value.tolist())):
            raise ValueError(f"{at} must hold strings or integers")
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            raise ValueError(f"{at} holds NaN or infinity")
        if np.unique(value).size != value.size:
            raise ValueError(f"{at} holds repeated labels")
    elif spec.kind in ("float", "int"):
        _check_range(value, spec, sizes, at)


def _check_scalar(value, spec, sizes, at):
    kind = spec.kind
    ok = {"float": isinstance(value, Real) and not isinstance(value, bool),
          "int": isinstance(value, Integral) and not isinstance(value, bool),
          "bool": isinstance(value, (bool, np.bool_)),
          "str": isinstance(value, str)}[kind]
    if not ok:
        raise ValueError(f"{at} must be a {kind}, got {value!r:.40}")
    if spec.choices and value not in spec.choices:
        raise ValueError(f"{at} must be one of {list(spec.choices)}, got "
                         f"{value!r:.40}")
    if kind == "float" and spec.finite and not np.isfinite(value):
        raise ValueError(f"{at} must be finite, got {value!r}")
    if kind == "int" and not -_INT_LIMIT <= value <= _INT_LIMIT:
        raise ValueError(f"{at} is {value!r:.30}, beyond ±2**53")
    if spec.binds:
        sizes.bind(spec.binds, value, at)
    if kind in ("int", "float"):
        if spec.low is not None and value < _bound(spec.low, sizes, at):
            raise ValueError(f"{at} is {value!r:.30}, below "
                             f"{_bound(spec.low, sizes, at)}")
        if spec.high is not None:
            high = _bound(spec.high, sizes, at)
            if value > high or (kind == "int" and value >= high):
                raise ValueError(f"{at} is {value!r:.30}, not below {high}")


def _check_rows(value, spec, sizes, at):
    if sp.issparse(value):
        if value.format != "csr" or value.dtype != np.float64:
            raise ValueError(f"{at} must be a float64 CSR matrix, got "
                             f"{value.format} {value.dtype}")
        _check_shape(value.shape, spec.shape, sizes, at)
        check_csr_structure(value, at)
        if not value.has_canonical_format:
            raise ValueError(f"{at}: CSR indices must be sorted and unique "
                             "within rows")
        data = value.data
    else:
        _check_array(value, _Spec("array", "float", spec.shape), sizes, at)
        if not value.flags.c_contiguous:
            raise ValueError(f"{at} must be C-contiguous")
        data = value
    if not np.isfinite(data).all():
        raise ValueError(f"{at} holds NaN or infinity")


def _check_sub_type(value, spec, at):
    if type(value) not in spec.kind:
        names = " or ".join(c.__name__ for c in spec.kind)
        raise ValueError(f"{at} must be a {names}, got "
                         f"{type(value).__name__}")


def _check_sub(value, spec, sizes, at):
    _check_sub_type(value, spec, at)
    value.validate(sizes, at)


_CHECKERS = {"array": _check_array, "scalar": _check_scalar,
             "rows": _check_rows, "sub": _check_sub}


# ------------------------------------------------------- declared checkers
def _declared_array(value, spec, sizes, at):
    # An array, or a declared one (a small one may have been read).
    if not (isinstance(value, np.ndarray)
            or isinstance(value, Declared) and not value.format):
        raise ValueError(f"{at} must be an array, got {value!r:.60}")
    _check_dtype(value.dtype, spec, at)
    _check_shape(value.shape, spec.shape, sizes, at)


def _declared_scalar(value, spec, sizes, at):
    if isinstance(value, Declared):
        raise ValueError(f"{at} must be a {spec.kind}, got {value!r:.60}")
    _check_scalar(value, spec, sizes, at)


def _declared_rows(value, spec, sizes, at):
    if not (isinstance(value, Declared) and value.format):
        _declared_array(value, _Spec("array", "float", spec.shape), sizes,
                        at)
        return
    if value.format != "csr" or value.dtype != np.float64:
        raise ValueError(f"{at} must be a float64 CSR matrix, got "
                         f"{value.format} {value.dtype}")
    _check_shape(value.shape, spec.shape, sizes, at)
    # validate requires sorted, unique indices within rows: a value a cell
    # at most.
    n_rows, n_cols = value.shape
    data, indices, indptr = (value.parts[k]
                             for k in ("data", "indices", "indptr"))
    nnz = data.shape[0] if data.ndim == 1 else -1
    if (indptr.shape != (n_rows + 1,) or indices.shape != (nnz,)
            or not 0 <= nnz <= n_rows * n_cols
            or indptr.dtype.kind not in "iu"
            or indices.dtype.kind not in "iu"):
        raise ValueError(f"{at}: its CSR arrays (data {data.shape}, "
                         f"indices {indices.shape}, indptr {indptr.shape}) "
                         f"are not those of a {n_rows} x {n_cols} matrix")


def _declared_sub(value, spec, sizes, at):
    _check_sub_type(value, spec, at)
    value.check_declared(sizes, at)


_DECLARED_CHECKERS = {"array": _declared_array, "scalar": _declared_scalar,
                      "rows": _declared_rows, "sub": _declared_sub}


@dataclasses.dataclass(frozen=True)
class FittedState(State):
    """What every fitted estimator carries: its classes, its input width and
    its online counters (the first fields of every state).

    ``n_labels`` is 0 for labels of one class per example; a multi-label
    model (a 2-D indicator y) has that many labels, its classes
    ``arange(n_labels)`` and one problem per label (:func:`n_problems_of`).

    Binds ``n_classes`` and ``n_features``.
    """

    classes: np.ndarray = array("label", ("n_classes",))
    n_features_in: int = scalar("int", low=1, binds="n_features")
    feature_names_in: np.ndarray = array("names", ("n_features",),
                                         optional=True)
    t: int = scalar("int", low=1)
    n_iter: int = scalar("int", low=1)
    n_mistakes: int = scalar("int", low=0)
    n_updates: int = scalar("int", low=0)
    mistakes_per_epoch: np.ndarray = array("int", ("n_epochs",), low=0)
    updates_per_epoch: np.ndarray = array("int", ("n_epochs",), low=0)
    n_labels: int = scalar("int", low=0)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # n_labels came with each state type's present VERSION: a file of
        # the version before holds a model of one class per example.
        cls.UPGRADES = {cls.VERSION - 1: {"n_labels": 0}}

    def check(self, sizes, where):
        if self.n_labels:
            if not np.array_equal(self.classes, np.arange(self.n_labels)):
                raise ValueError(
                    f"{where}.classes of a multi-label model of "
                    f"{self.n_labels} labels must be arange({self.n_labels})")
        elif self.classes.shape[0] < 2:
            raise ValueError(f"{where}.classes holds fewer than 2 classes")


def n_problems_of(classes, n_labels=0):
    """The binary problems of a model: one per label of a multi-label
    model (``n_labels`` > 0), else one for two classes and one per class
    (one-vs-rest) for more."""
    if n_labels:
        return n_labels
    n_classes = classes.shape[0]
    return 1 if n_classes == 2 else n_classes


#: Marks a buffer made by :func:`appended` (its first slot).
_HISTORY_MARK = 0x7065726365707472
_HEADER = 2
_history_lock = threading.Lock()


def appended(history, values):
    """``np.concatenate([history, values])`` as int64, in amortised time
    proportional to ``len(values)``.

    A per-epoch counter (``mistakes_per_epoch``, ...) gains an entry at
    every call, and ``learn_one`` is a call per example: copying the
    counter each time made a stream of n examples cost O(n²) (80,000
    ``learn_one`` calls took 167 µs a call at the start, 404 µs at the
    end). The result is instead a view into a buffer with room to spare,
    whose two leading slots hold a mark and the length in use. The next
    call writes in place when ``history`` is still that buffer's whole
    used prefix; any other array, or a history another call has already
    extended (two estimators continuing one state), is copied into a new
    buffer, so no array a state holds ever changes. The views hold exactly
    their entries: a model file, a pickle or a copy of one holds only them.

    Parameters
    ----------
    history : ndarray of shape (n,), int64
    values : array-like of shape (k,), integer

    Returns
    -------
    ndarray of shape (n + k,), int64
    """
    values = np.asarray(values, dtype=np.int64).reshape(-1)
    n, k = history.shape[0], values.shape[0]
    with _history_lock:
        buf = history.base
        # Views of a marked buffer lie in its used part, so a contiguous
        # one as long as that part is that part.
        if (isinstance(buf, np.ndarray) and buf.dtype == np.int64
                and buf.ndim == 1 and buf.shape[0] >= _HEADER + n + k
                and buf[0] == _HISTORY_MARK and buf[1] == n
                and history.dtype == np.int64
                and history.flags.c_contiguous):
            buf[_HEADER + n:_HEADER + n + k] = values
            buf[1] = n + k
            return buf[_HEADER:_HEADER + n + k]
        buf = np.empty(_HEADER + max(16, 2 * (n + k)), dtype=np.int64)
        buf[0], buf[1] = _HISTORY_MARK, n + k
        buf[_HEADER:_HEADER + n] = history
        buf[_HEADER + n:_HEADER + n + k] = values
        return buf[_HEADER:_HEADER + n + k]


def appended_one(history, value):
    """:func:`appended` of one count, for ``learn_one``'s every call: the
    same buffer rules, without the generality's cost (a tenth of a call)."""
    buf = history.base
    n = history.shape[0]
    if (type(buf) is np.ndarray and buf.dtype == np.int64 and buf.ndim == 1
            and buf.shape[0] > _HEADER + n and buf[0] == _HISTORY_MARK
            and buf[1] == n and history.dtype == np.int64
            and history.flags.c_contiguous):
        with _history_lock:
            if buf[1] == n:
                buf[_HEADER + n] = value
                buf[1] = n + 1
                return buf[_HEADER:_HEADER + n + 1]
    return appended(history, (value,))


class HistoryTail:
    """:func:`appended_one` for a caller that appends to the history it got
    from its own last append (``learn_one``, call after call): that view's
    buffer and length are remembered, so the buffer rules' checks are made
    once (a third of the append's cost, a tenth of a ``learn_one``)."""

    __slots__ = ("view", "buf", "n")

    def __init__(self):
        self.view = self.buf = None
        self.n = 0

    def append(self, history, value):
        """``appended_one(history, value)``."""
        if history is self.view:
            buf, n = self.buf, self.n
            if buf.shape[0] > _HEADER + n:
                with _history_lock:
                    if buf[1] == n:  # no other state extended it since
                        buf[_HEADER + n] = value
                        buf[1] = n + 1
                        view = buf[_HEADER:_HEADER + n + 1]
                        self.view, self.n = view, n + 1
                        return view
        view = appended_one(history, value)
        self.view, self.buf, self.n = view, view.base, view.shape[0]
        return view


def check_problems(sizes, where, symbol="n_problems", what="problems",
                   n_labels=0):
    """ValueError unless the state's binary problems (``sizes[symbol]``,
    called ``what`` in the message) suit its classes: one for two classes,
    one per class (one-vs-rest), one per label of a multi-label model
    (``n_labels``)."""
    n_classes = sizes["n_classes"]
    if n_labels:
        if sizes[symbol] != n_labels:
            raise ValueError(f"{where}: {sizes[symbol]} {what} for "
                             f"{n_labels} labels")
    elif sizes[symbol] != (1 if n_classes == 2 else n_classes):
        raise ValueError(f"{where}: {sizes[symbol]} {what} for "
                         f"{n_classes} classes")
