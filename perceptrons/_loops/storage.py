"""Weights whatever their storage: one loop source for the primal and dual forms.

A perceptron's weight vectors are kept either as rows of weights over the
features (the primal form) or as coefficients over a support set of training
rows, scored through a Mercer kernel (the dual form, K&W Sec. 2.1). The rule
of an algorithm is the same in both; only "score a row", "add a scaled row"
and "copy the weights" differ. A loop therefore receives its weights as a
*store*, one of two named tuples, and calls the small helpers below, which
numba specialises on the store's type when the loop is compiled
(:func:`~perceptrons._loops._common.specialised`, the way
:mod:`perceptrons._loops._common` serves dense and CSR rows from one source): one loop body, one compiled loop per
storage, no run-time branch on the form. lightning's solvers ask their
``KernelDataset`` for a row in the same way, never learning whether kernel
values stand behind it.

``PrimalStore(X_data, X_indices, X_indptr, sq_norms, prefetch, current,
summed, snapshot)``
    The rows (the data matrix of :mod:`perceptrons._loops._common`), their
    ``<x_i, x_i>`` (read only where a rule needs them), whether a pass
    prefetches rows ahead (shuffled passes, see
    :func:`~perceptrons._loops._common.prefetch_rows`), and three weight
    arrays of shape (n_rows, n_features): the current weights, a running sum
    kept for an averaged hypothesis and a snapshot kept for a longest
    survivor (each (n_rows, 0) when the algorithm does not keep it).
``DualStore(provider, support, current, summed, snapshot)``
    The provider of kernel values (a
    :data:`~perceptrons._loops.support.ComputedKernel` of the rows, their
    norms, ``k(x_i, x_i)``, the kernel and the kernel-row cache, or a
    :data:`~perceptrons._loops.support.GramKernel` of a precomputed Gram
    matrix), the support set (:data:`~perceptrons._loops.support.SupportSet`)
    and the same three arrays by support slot, of shape
    (n_rows, n_samples): ``current[r, p]`` is the coefficient of support
    vector p in weight vector r.

A loop body is written once and compiled twice by :func:`storage_loop`:
without fast-math flags for the primal store, and with
:data:`~perceptrons._loops._common.FASTMATH` for the dual one, the flags each
form has always had (the dual loops' O(m) coefficient updates vectorise and
their multiply-adds fuse), so the two forms keep the results they had as
separate loops, bit for bit. Both compiled loops come from one Python
function; they differ in name only, because numba's on-disk cache keys a
function by its name and signature, not by its flags.

Under ``NUMBA_DISABLE_JIT=1`` the helpers run as plain Python and dispatch on
the store's class.
"""

from collections import namedtuple

from numba import njit, types

from ._common import (FASTMATH, loop_helper, prefetch_rows, renamed, row_axpy,
                      row_dot, specialised)
from .support import (append_support, begin_kernel_pass, provider_diag,
                      support_scores)

__all__ = ["DualStore", "PrimalStore", "StorageLoop", "add_example",
           "add_example_sum", "add_pair", "add_pair_sum", "begin_pass", "by_storage", "is_primal",
           "kernel_store", "n_columns", "prefetch_step", "raw_scores",
           "self_sq_norm", "snapshot_rows", "storage_loop", "store_class"]



def kernel_store(cls):
    """Mark a store class as holding kernel rows over a support set: its
    loops compile with the dual form's flags (:class:`StorageLoop`) and its
    helpers take the dual branch. Other store classes are primal."""
    cls.kernel_rows = True
    # Its helpers compile under the dual loops' fast-math flags
    # (:func:`~perceptrons._loops._common.fast_call`).
    cls.fastmath_helpers = True
    return cls


PrimalStore = namedtuple("PrimalStore", [
    "X_data", "X_indices", "X_indptr", "sq_norms", "prefetch", "current",
    "summed", "snapshot"])
DualStore = kernel_store(namedtuple("DualStore", [
    "provider", "support", "current", "summed", "snapshot"]))

#: Steps ahead at which a shuffled primal pass asks for a row's index entry
#: and per-row state, and for its nonzeros
#: (:func:`~perceptrons._loops._common.prefetch_rows`; PDM's distances: no
#: other setting was measurably better on a9a stacked 150 times).
INDEX_AHEAD, ROW_AHEAD = 8, 4


def store_class(store):
    """The named-tuple class of a store (or of a rule: any named tuple), or
    of its numba type when compiling."""
    if isinstance(store, types.BaseNamedTuple):
        return store.instance_class
    return type(store)


def is_primal(store):
    """Whether ``store`` (or its numba type) keeps primal weights: a
    :data:`PrimalStore`, or another store class not marked by
    :func:`kernel_store`."""
    return not getattr(store_class(store), "kernel_rows", False)


# ------------------------------------------------------------------ a pass
def by_storage(primal, dual):
    """The ``choose`` of :func:`~perceptrons._loops._common.specialised` for
    a helper of the stores: ``primal`` for a primal store (the first
    argument), ``dual`` for a store of kernel rows."""
    return lambda store, *args: primal if is_primal(store) else dual


def _primal_begin(store):
    return 0


def _dual_begin(store):
    return begin_kernel_pass(store.provider)


@specialised(by_storage(_primal_begin, _dual_begin))
def begin_pass(store):
    """The per-pass context the scoring helpers thread through a pass.

    Primal: nothing (0). Dual: the provider's pass context
    (:func:`~perceptrons._loops.support.begin_kernel_pass`).
    """


def _primal_scores(store, ctx, order, step, scores, n_rows):
    W, X_data, X_indices, X_indptr = (store.current, store.X_data,
                                      store.X_indices, store.X_indptr)
    i = order[step]
    for r in range(n_rows):
        scores[r] = row_dot(W[r], X_data, X_indices, X_indptr, i)
    return ctx


def _dual_scores(store, ctx, order, step, scores, n_rows):
    return support_scores(store.provider, store.support, order, step,
                          store.current, scores, ctx)


@specialised(by_storage(_primal_scores, _dual_scores))
def raw_scores(store, ctx, order, step, scores, n_rows):
    """``scores[r] = <w_r, x_i>`` for every weight row, ``i = order[step]``.

    Parameters
    ----------
    store : PrimalStore or DualStore
    ctx : object
        From :func:`begin_pass` (or the previous call).
    order : ndarray of shape (n_steps,), int64
        Rows in presentation order (the dual form computes kernel values for
        the next rows in blocks).
    step : int
    scores : ndarray of shape (n_rows,), float64
        Output.
    n_rows : int
        The store's weight rows (all are scored): passed in so that a loop
        that knows them as a constant (the binary rule's one row,
        :func:`~perceptrons._loops.hypotheses.rule_counts`) scores without
        a loop (a9a's epoch 7 % shorter).

    Returns
    -------
    ctx : object
        The context for the next call.
    """


def _primal_prefetch(store, order, step, r1, r2):
    if store.prefetch:
        prefetch_rows(order, step, order.shape[0], store.X_data,
                      store.X_indices, store.X_indptr, r1, r2,
                      store.sq_norms, INDEX_AHEAD, ROW_AHEAD)


def _dual_prefetch(store, order, step, r1, r2):
    pass


@specialised(by_storage(_primal_prefetch, _dual_prefetch))
def prefetch_step(store, order, step, r1, r2):
    """Cache hints for the row a shuffled primal pass presents a few steps
    on (and its entries of the per-row arrays ``r1``, ``r2`` and the row
    norms); nothing in the dual form, whose cost is its kernel rows."""


# ------------------------------------------------------------------ rows
def _primal_self(store, i):
    return store.sq_norms[i]


def _dual_self(store, i):
    return provider_diag(store.provider)[i]


@specialised(by_storage(_primal_self, _dual_self))
def self_sq_norm(store, i):
    """``‖φ(x_i)‖²``: ``<x_i, x_i>`` in the primal form, ``k(x_i, x_i)`` of
    the kernel in use in the dual form."""


def _primal_add(store, r, a, i):
    row_axpy(store.current[r], a, store.X_data, store.X_indices,
             store.X_indptr, i)


def _dual_add(store, r, a, i):
    pos = append_support(store.support, i)
    store.current[r, pos] += a


@specialised(by_storage(_primal_add, _dual_add))
def add_example(store, r, a, i):
    """``w_r += a φ(x_i)``: a scaled row in the primal form; in the dual form
    ``a`` added to the coefficient of x_i, which joins the support set if
    new."""


def _primal_add_sum(store, r, a, i):
    row_axpy(store.summed[r], a, store.X_data, store.X_indices,
             store.X_indptr, i)


def _dual_add_sum(store, r, a, i):
    # x_i is in the support set already (its add_example came first): no
    # branch between the caller's product and this sum, which LLVM then
    # fuses as the dual loops always have.
    store.summed[r, store.support.slot_of[i]] += a


@specialised(by_storage(_primal_add_sum, _dual_add_sum))
def add_example_sum(store, r, a, i):
    """:func:`add_example` on the running sum ``summed``; in the dual form
    x_i must be in the support set already (:func:`add_example` first)."""


@loop_helper
def _rows_pair(W, r, o, a, store, i):
    """``W[r] += a x_i``, ``W[o] -= a x_i`` (primal rows)."""
    row_axpy(W[r], a, store.X_data, store.X_indices, store.X_indptr, i)
    row_axpy(W[o], -a, store.X_data, store.X_indices, store.X_indptr, i)


@njit(cache=True, inline="always")
def _slot_pair(V, r, o, a, pos):
    """``V[r, pos] += a``, ``V[o, pos] -= a`` (one support slot)."""
    V[r, pos] += a
    V[o, pos] -= a


def _primal_add_pair(store, r, o, a, i):
    _rows_pair(store.current, r, o, a, store, i)


def _dual_add_pair(store, r, o, a, i):
    _slot_pair(store.current, r, o, a, append_support(store.support, i))


@specialised(by_storage(_primal_add_pair, _dual_add_pair))
def add_pair(store, r, o, a, i):
    """``w_r += a φ(x_i)`` and ``w_o -= a φ(x_i)``: the move of a
    multiclass update (Eq. 18), one support slot in the dual form."""


def _primal_add_pair_sum(store, r, o, a, i):
    _rows_pair(store.summed, r, o, a, store, i)


def _dual_add_pair_sum(store, r, o, a, i):
    _slot_pair(store.summed, r, o, a, store.support.slot_of[i])


@specialised(by_storage(_primal_add_pair_sum, _dual_add_pair_sum))
def add_pair_sum(store, r, o, a, i):
    """:func:`add_pair` on the running sum (x_i in the support already)."""


def _primal_columns(store):
    return store.current.shape[1]


def _dual_columns(store):
    return store.support.count[0]


@specialised(by_storage(_primal_columns, _dual_columns))
def n_columns(store):
    """Columns of the weight arrays in use: the features (primal), the
    support vectors held now (dual)."""


@loop_helper
def snapshot_rows(store, lo, hi):
    """``snapshot[r] = current[r]`` for ``lo <= r < hi`` (the columns in
    use; dual slots past them hold 0 in both arrays)."""
    n = n_columns(store)
    for r in range(lo, hi):
        for p in range(n):
            store.snapshot[r, p] = store.current[r, p]


# ------------------------------------------------------------- compiling
class StorageLoop:
    """One loop body, compiled for each storage (see the module notes).

    Calling it runs the compiled loop of the store's type, the store being
    the first argument.

    Parameters
    ----------
    body : function
        The loop's Python source.

    Attributes
    ----------
    primal, dual : numba dispatcher
        The loop compiled without fast-math flags (primal stores) and with
        :data:`~perceptrons._loops._common.FASTMATH` (stores marked by
        :func:`kernel_store`).
    """

    def __init__(self, body):
        self.__doc__ = body.__doc__
        self.__name__ = body.__name__
        self.__wrapped__ = body
        # nogil: a one-vs-rest pass may run its problems in threads.
        self.primal = njit(cache=True, nogil=True)(body)
        self.dual = njit(cache=True, nogil=True, fastmath=FASTMATH)(
            renamed(body, body.__name__ + "_dual"))

    def __call__(self, store, *args):
        loop = self.primal if is_primal(store) else self.dual
        return loop(store, *args)


def storage_loop(body):
    """Decorator: compile a loop body for both storages (:class:`StorageLoop`)."""
    return StorageLoop(body)
