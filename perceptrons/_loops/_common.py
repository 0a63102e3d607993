"""Small compiled helpers shared by every loop: row dot products and updates.

A data matrix reaches a primal loop as ``(X_data, X_indices, X_indptr)``: for
dense input ``X_data`` is the C-contiguous 2-D matrix and the index arrays
are empty; for CSR input they are the matrix's own three arrays. The row
helpers below are specialised on ``X_data``'s dimension when the loop is
compiled (numba ``@overload``), so each loop is compiled twice — once per
layout — from one source, and no runtime ``is_dense`` branch stays in the
sample loop (it cost 2.5x on a9a: the dense branch's vectorised loop spoiled
the code LLVM made for the sparse one).

Floating point: loops compile without fast-math flags, except the dense dot
product :func:`dense_dot`, a separate (not inlined) function compiled with
``FASTMATH = {"reassoc", "contract"}``: reassociation lets LLVM vectorise its
reduction (about 5x on MNIST rows). Flags do not survive a numba-level
inline, so it must stay a call (LLVM may still inline it, keeping the flags
per instruction). It changes only the rounding order, fixed for a given
build, so results stay deterministic; no ``nnan``/``ninf`` flag is set, so
NaN and infinity behave as IEEE says (umap removed full ``fastmath=True`` for
that reason, a59c9ff). CSR rows are summed in index order: on short rows
reassociation only slows the gather.

Under ``NUMBA_DISABLE_JIT=1`` the helpers run as plain Python and dispatch
on ``X_data.ndim`` at run time.

Passes that present rows in a shuffled order (PDM's active sets, the
perceptron's shuffled epochs) call :func:`prefetch_rows` (or
:func:`prefetch_ahead`, PDM's distances) at each step: a cache hint for rows
a few steps on, which changes no result (see its docstring).
"""

import functools
import inspect
import types as pytypes

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

FASTMATH = {"reassoc", "contract"}


def specialised(choose):
    """Decorator: a helper whose implementation is picked by the types of its
    arguments, once, when the loop calling it is compiled.

    ``choose(*args)`` returns the implementation (a plain Python function
    with the helper's parameter names) for the helper's arguments. numba
    calls it with the arguments' types while it compiles a loop and
    compiles what it returns in the loop's place (``@overload``), so each
    loop is compiled once per layout or storage from one source, with no
    run-time branch; under ``NUMBA_DISABLE_JIT=1`` the helper calls it with the
    values themselves and runs what it returns. ``choose`` must therefore
    answer for both (``X_data.ndim`` is 2 for a dense matrix and for its
    numba type alike). The decorated function supplies the name, the
    parameters and the docstring.

    Inlining (:func:`inline_call`): numba inlines the helper into the loop's
    own code, unless an argument is a tuple holding arrays; then the helper
    is compiled as a function of its own, which LLVM inlines later. A
    helper of a fast-math store (:func:`fast_call`) is compiled on its own
    too, under :data:`FASTMATH`.
    """
    def decorate(generic):
        args = ", ".join(inspect.signature(generic).parameters)
        namespace = {"choose": choose, "inline_call": inline_call,
                     "fast_call": fast_call}
        # The overload's typing function must have the helper's own
        # parameter names, hence the generated source.
        exec(f"def helper({args}):\n    return choose({args})({args})\n"
             f"def inlined({args}):\n"
             f"    if inline_call(({args},)):\n"
             f"        return choose({args})\n"
             f"def called({args}):\n"
             f"    if not (inline_call(({args},))\n"
             f"            or fast_call(({args},))):\n"
             f"        return choose({args})\n"
             f"def called_fast({args}):\n"
             f"    if fast_call(({args},)):\n"
             f"        return choose({args})\n", namespace)
        helper = functools.update_wrapper(namespace["helper"], generic)
        # Two overloads, each answering for the calls on its side of the
        # rule, rather than one with inline_call as numba's cost model: with
        # a cost model numba types each helper again for inlining at every
        # call, inlined or not, and under the caller's flags compiles once
        # more each helper that one calls (a quarter of a first fit's
        # compile time). The machine code is the same.
        for typer, inline, options in (
                ("inlined", "always", {"forceinline": True}),
                ("called", "never", {"forceinline": True}),
                ("called_fast", "never",
                 {"forceinline": True, "fastmath": FASTMATH})):
            overload(helper, inline=inline,
                     jit_options=options)(namespace[typer])
        return helper

    return decorate


def loop_helper(fn):
    """Decorator: a small helper of the loops, compiled into each loop that
    calls it under the inlining rule of :func:`inline_call` (an
    ``@njit(inline="always")`` function would be inlined whatever its
    arguments)."""
    return specialised(lambda *args: fn)(fn)


def _holds_arrays(ty):
    return isinstance(ty, types.BaseTuple) and any(
        isinstance(member, types.Array) or _holds_arrays(member)
        for member in ty)


def inline_call(arg_types):
    """Whether numba inlines a call of a :func:`specialised` helper, given
    the types of its arguments.

    A numba-level inline binds the helper's parameters to new variables,
    and binding a tuple of arrays (a store, a rule with arrays) takes a
    reference to each of them; inside a pass LLVM's reference-count pruning
    does not remove those around a helper with loops and branches, and
    their atomic operations cost the perceptron 3x on a9a. A helper called
    with such a tuple is therefore compiled on its own (LLVM inlines it
    after the pruning): its arithmetic is the same, IEEE operations in the
    same order. So is every helper of a fast-math store (:func:`fast_call`).
    """
    if fast_call(arg_types):
        return False
    return not any(_holds_arrays(ty) for ty in arg_types)


def fast_call(arg_types):
    """Whether a :func:`specialised` helper compiles under the dual loops'
    fast-math flags: an argument's class says ``fastmath_helpers`` (the
    kernel stores and providers).

    Such a helper is compiled on its own with :data:`FASTMATH` (its own
    overload's flags) and LLVM inlines it, keeping the flags per
    instruction. It used to be inlined at numba's level, the one way a
    helper takes its caller's flags, and numba types an inlined helper again
    at every call site: a first kernel fit compiled 1.7-2.9x longer (CPU,
    empty cache: Perceptron(kernel="rbf") 52.7 -> 30.9 s, PassiveAggressive
    82.5 -> 28.7 s), for the same machine code (every fitted value of
    benchmarks/compare_states.py identical) and the same speed.
    """
    return any(getattr(getattr(ty, "instance_class", None),
                       "fastmath_helpers", False) for ty in arg_types)


def entry_point(loop, args):
    """``loop`` (a compiled loop) as a callable for arguments of the types
    of ``args``, without numba's dispatch.

    A call through the dispatcher types every argument (a couple of
    microseconds for a loop's thirty arrays); a caller that calls a loop
    again and again with arguments of the same types (``learn_one``) calls
    the compiled overload directly, compiled first if needed. Without the
    JIT, the loop itself.
    """
    if not hasattr(loop, "overloads"):
        return loop
    signature = tuple(loop.typeof_pyval(a) for a in args)
    if signature not in loop.overloads:
        loop.compile(signature)
    return loop.overloads[signature].entry_point


def renamed(fn, name):
    """A copy of ``fn`` under another name, so that numba caches its own
    compiled version of it (the cache is keyed by the function's name)."""
    copy = pytypes.FunctionType(fn.__code__, fn.__globals__, name,
                                fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__.rpartition(".")[0] + name if (
        "." in fn.__qualname__) else name
    copy.__doc__ = fn.__doc__
    copy.__module__ = fn.__module__
    return copy


@njit(cache=True, fastmath=FASTMATH)
def dense_dot(w, x):
    """``sum_j w[j] * x[j]`` over ``x``'s length, vectorised (module notes)."""
    s = 0.0
    for j in range(x.shape[0]):
        s += w[j] * x[j]
    return s


# ------------------------------------------------------------------ row dot
@njit(cache=True, inline="always")
def row_span(X_indptr, i):
    """The entries ``[lo, hi)`` of CSR row ``i``, as unsigned positions.

    With signed positions numba guards every ``X_indices[p]``, ``X_data[p]``
    and ``w[X_indices[p]]`` against a negative index (a compare and a
    select each); CSR structure is checked before any loop reads it
    (:func:`~perceptrons.utils.validation.check_csr_structure`: ``indptr``
    non-decreasing from 0, indices in ``[0, n_features)``; in training the
    indices by the first pass, :func:`column_sq_sums`), so unsigned
    positions and columns (:func:`column`) read and write the same entries
    without the guards: a9a's mat-vec 0.50 → 0.25 ms, as fast as scipy's.
    """
    return np.uint64(X_indptr[i]), np.uint64(X_indptr[i + 1])


@njit(cache=True, inline="always")
def column(X_indices, p):
    """The column of CSR entry ``p``, unsigned (see :func:`row_span`)."""
    return np.uint64(X_indices[p])


def _dense_row_dot(w, X_data, X_indices, X_indptr, i):
    return dense_dot(w, X_data[i])


def _csr_row_dot(w, X_data, X_indices, X_indptr, i):
    s = 0.0
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        s += w[column(X_indices, p)] * X_data[p]
    return s


@specialised(lambda w, X_data, X_indices, X_indptr, i:
             _dense_row_dot if X_data.ndim == 2 else _csr_row_dot)
def row_dot(w, X_data, X_indices, X_indptr, i):
    """Inner product ``<w, x_i>``.

    Parameters
    ----------
    w : ndarray of shape (n_features,), float64
        Weight row (a contiguous view).
    X_data, X_indices, X_indptr : ndarray
        The data matrix (module docstring).
    i : int
        Row index.

    Returns
    -------
    float
    """


# ------------------------------------------------------------------ row axpy
def _dense_row_axpy(w, a, X_data, X_indices, X_indptr, i):
    x = X_data[i]
    for j in range(x.shape[0]):
        w[j] += a * x[j]


def _csr_row_axpy(w, a, X_data, X_indices, X_indptr, i):
    lo, hi = row_span(X_indptr, i)
    for p in range(lo, hi):
        w[column(X_indices, p)] += a * X_data[p]


@specialised(lambda w, a, X_data, X_indices, X_indptr, i:
             _dense_row_axpy if X_data.ndim == 2 else _csr_row_axpy)
def row_axpy(w, a, X_data, X_indices, X_indptr, i):
    """In place ``w += a * x_i``, in O(nnz(x_i)) for CSR rows."""


# ------------------------------------------------------------------ row norms
_LANES = 8


def _dense_row_sq_norm(X_data, X_indices, X_indptr, i, lanes):
    x = X_data[i]
    for q in range(_LANES):
        lanes[q] = 0.0
    n = x.shape[0]
    n_full = n - n % _LANES
    # float32 rows square in float64, as their float64 twins.
    for j in range(0, n_full, _LANES):
        for q in range(_LANES):
            v = np.float64(x[j + q])
            lanes[q] += v * v
    for j in range(n_full, n):
        v = np.float64(x[j])
        lanes[j - n_full] += v * v
    return _sum_lanes(lanes)


def _csr_row_sq_norm(X_data, X_indices, X_indptr, i, lanes):
    for q in range(_LANES):
        lanes[q] = 0.0
    for p in range(X_indptr[i], X_indptr[i + 1]):
        v = np.float64(X_data[p])
        lanes[X_indices[p] & (_LANES - 1)] += v * v
    return _sum_lanes(lanes)


@njit(cache=True, inline="always")
def _sum_lanes(lanes):
    return (((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
            + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7])))


@specialised(lambda X_data, X_indices, X_indptr, i, lanes:
             _dense_row_sq_norm if X_data.ndim == 2 else _csr_row_sq_norm)
def row_sq_norm(X_data, X_indices, X_indptr, i, lanes):
    """``<x_i, x_i>``, the same bits for a dense row and its CSR twin.

    Column j's square goes to lane ``j % 8``; each lane sums in column
    order and the lanes combine in a fixed tree. A CSR row adds the same
    nonzero terms to the same lanes in the same order (zeros add nothing),
    so θ_Init="auto" and the λ-trick never depend on the input format, while
    the dense sum still runs eight lanes wide.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        The data matrix; CSR indices sorted within rows.
    i : int
    lanes : ndarray of shape (8,), float64
        Work space.

    Returns
    -------
    float
    """


@njit(cache=True)
def row_sq_norms(X_data, X_indices, X_indptr, n_rows):
    """Squared Euclidean norm ``<x_i, x_i>`` of every row.

    A NaN or infinite entry makes its row's norm non-finite, so this one
    pass also serves as the finiteness check of the training data.

    Returns
    -------
    ndarray of shape (n_rows,), float64
    """
    out = np.empty(n_rows, dtype=np.float64)
    lanes = np.zeros(_LANES, dtype=np.float64)
    for i in range(n_rows):
        out[i] = row_sq_norm(X_data, X_indices, X_indptr, i, lanes)
    return out


@njit(cache=True)
def column_sq_sums(X_data, X_indices, X_indptr, n_features, out):
    """``sum_i x_ij²`` for every column j, each summed in row order, and
    the check of the CSR column indices.

    A dense matrix and its CSR twin give the same bits (zeros add nothing),
    and a NaN or infinity anywhere leaves its column non-finite: one cheap
    pass gives K&W's average ⟨x, x⟩ and the finiteness check. A CSR
    entry's column is checked against ``[0, n_features)`` before its sum is
    written, so this pass also serves as the index check of
    :func:`~perceptrons.utils.validation.check_csr_structure` (``indptr``
    checked before): one read of the indices instead of two (real-sim's
    ``fit`` 1 ms shorter).

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        The data matrix (module docstring).
    n_features : int
    out : ndarray of shape (n_features,), float64
        Zeros; filled with the sums.

    Returns
    -------
    int
        -1, or the first CSR entry whose column is outside
        ``[0, n_features)`` (the sums are then incomplete).
    """
    if X_data.ndim == 2:
        for i in range(X_data.shape[0]):
            x = X_data[i]
            for j in range(n_features):
                v = np.float64(x[j])
                out[j] += v * v
        return -1
    width = np.uint64(n_features)
    for p in range(np.uint64(X_data.shape[0])):
        # A negative index reads as a huge one.
        j = np.uint64(np.int64(X_indices[p]))
        if j >= width:
            return np.int64(p)
        v = np.float64(X_data[p])
        out[j] += v * v
    return -1


@njit(cache=True, inline="always")
def best_other(scores, y):
    """Index of the largest score among classes other than ``y``.

    Ties go to the lowest index, the rule every multiclass loop shares.
    """
    best = -1
    best_score = -np.inf
    for r in range(scores.shape[0]):
        if r != y and (best < 0 or scores[r] > best_score):
            best = r
            best_score = scores[r]
    return best


# ------------------------------------------------------------------ prefetch
#: Steps ahead at which :func:`prefetch_ahead` touches a row's index entry
#: (``X_indptr``, per-row arrays) and its nonzeros: the index must be in
#: cache before the nonzeros' address can be read. Flat optimum from 6/3 to
#: 12/6 for PDM on a9a.
PREFETCH_INDEX_AHEAD, PREFETCH_ROW_AHEAD = 8, 4


def _prefetch_intrinsic(typingctx, a, i):
    """LLVM ``llvm.prefetch`` (read, high locality) of ``a[i]`` (``a[i, 0]``
    for a 2-D array); an address out of bounds is harmless (no fault)."""
    if not isinstance(a, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        arrty = sig.args[0]
        arr = context.make_array(arrty)(context, builder, args[0])
        idx = [args[1]] + [context.get_constant(types.intp, 0)] * (
            arrty.ndim - 1)
        ptr = cgutils.get_item_pointer(context, builder, arrty, arr, idx,
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(a, i), codegen


if config.DISABLE_JIT:
    def _prefetch(a, i):
        """A cache hint only: nothing to do in plain Python."""
else:
    _prefetch = intrinsic(_prefetch_intrinsic)


@njit(inline="always")
def _prefetch_index_ahead(rows, step, n_rows, X_indptr, r1, r2, r3,
                          index_ahead, row_ahead):
    # Straight-line code (indices clamped, no branch), so that numba's
    # reference-count pruning removes the increfs of the inlined arguments.
    # For dense data X_indptr is empty: a hint at an unmapped address is
    # ignored.
    j = rows[min(step + index_ahead, n_rows - 1)]
    _prefetch(X_indptr, j)
    _prefetch(r1, j)
    _prefetch(r2, j)
    _prefetch(r3, j)
    return rows[min(step + row_ahead, n_rows - 1)]


def _dense_prefetch_rows(rows, step, n_rows, X_data, X_indices, X_indptr,
                         r1, r2, r3, index_ahead, row_ahead):
    _prefetch(X_data, _prefetch_index_ahead(rows, step, n_rows, X_indptr,
                                            r1, r2, r3, index_ahead,
                                            row_ahead))


def _csr_prefetch_rows(rows, step, n_rows, X_data, X_indices, X_indptr,
                       r1, r2, r3, index_ahead, row_ahead):
    j = _prefetch_index_ahead(rows, step, n_rows, X_indptr, r1, r2, r3,
                              index_ahead, row_ahead)
    start = X_indptr[j]
    _prefetch(X_indices, start)
    _prefetch(X_data, start)
    _prefetch(X_data, X_indptr[j + 1] - 1)


def prefetch_rows(rows, step, n_rows, X_data, X_indices, X_indptr, r1, r2,
                  r3, index_ahead, row_ahead):
    """Cache hints for the rows a pass will present a few steps from now.

    A pass over ``rows[:n_rows]`` in shuffled order reads each row's
    nonzeros and per-row state from a cold cache line; called at ``step``
    (< ``n_rows``), this asks for ``rows[step + index_ahead]``'s
    ``X_indptr`` entry and ``r1[j]``, ``r2[j]``, ``r3[j]``, and for the
    start and end of ``rows[step + row_ahead]``'s nonzeros (a dense row's
    first line), so the loads are in flight while the current row is
    processed (near the end, the last row's). The index must be in cache
    before the nonzeros' address can be read, hence ``index_ahead >
    row_ahead``. A prefetch never faults and writes nothing: results are
    unchanged. Under ``NUMBA_DISABLE_JIT=1`` it does nothing.

    Parameters
    ----------
    rows : ndarray of shape (>= n_rows,), int64
    step, n_rows : int
    X_data, X_indices, X_indptr : ndarray
        The data matrix (module docstring).
    r1, r2, r3 : ndarray of shape (n_samples,)
        Per-row arrays the pass reads at each row (labels, norms, counts).
    index_ahead, row_ahead : int
        How many steps ahead to ask for the index entry and the row.
    """


@overload(prefetch_rows, inline="always")
def _prefetch_rows_overload(rows, step, n_rows, X_data, X_indices, X_indptr,
                            r1, r2, r3, index_ahead, row_ahead):
    return _dense_prefetch_rows if X_data.ndim == 2 else _csr_prefetch_rows


def prefetch_ahead(rows, step, n_rows, X_data, X_indices, X_indptr,
                   r1, r2, r3):
    """:func:`prefetch_rows` with the distances tuned for PDM's passes,
    :data:`PREFETCH_INDEX_AHEAD` and :data:`PREFETCH_ROW_AHEAD`, whose
    steps do more work per row than a perceptron's (PDM on a9a:
    1.36 s → 0.99 s per fit)."""


def _prefetch_ahead_impl(rows, step, n_rows, X_data, X_indices, X_indptr,
                         r1, r2, r3):
    prefetch_rows(rows, step, n_rows, X_data, X_indices, X_indptr, r1, r2,
                  r3, PREFETCH_INDEX_AHEAD, PREFETCH_ROW_AHEAD)


@overload(prefetch_ahead, inline="always")
def _prefetch_ahead_overload(rows, step, n_rows, X_data, X_indices, X_indptr,
                             r1, r2, r3):
    return _prefetch_ahead_impl


# ------------------------------------------------------------------ labels
@njit(cache=True)
def few_distinct_values(y, values):
    """The distinct values of ``y``, if there are at most ``len(values)``.

    One pass, without a data-dependent branch on the common path: each row
    is compared with every value found so far (a loop whose length changes
    at most ``len(values)`` times), and only a new value branches away.
    Labels in random order (a9a) made the earlier early-exit comparisons
    mispredict about every other row.

    Parameters
    ----------
    y : ndarray of shape (n_samples,), integer or float
    values : ndarray of shape (max_values,), y's dtype
        Filled with the distinct values in order of first appearance.

    Returns
    -------
    int
        How many distinct values, or -1 if there are more than
        ``len(values)`` (a NaN is distinct from everything, itself
        included, so NaN labels end up here too).
    """
    n = 0
    max_values = values.shape[0]
    for i in range(y.shape[0]):
        v = y[i]
        found = False
        for r in range(n):
            found |= v == values[r]
        if not found:
            if n == max_values:
                return -1
            values[n] = v
            n += 1
    return n


@njit(cache=True)
def label_codes(y, classes, codes):
    """``codes[i] = r`` where ``y[i] == classes[r]``, for labels known to be
    among the few ``classes`` (:func:`few_distinct_values`).

    One branch-free, vectorised pass per class after the first (labels in
    random order would mispredict a branch per row: 3x slower on a9a).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    classes : ndarray of shape (n_classes,), y's dtype
    codes : ndarray of shape (n_samples,), int64
        Filled.
    """
    for i in range(y.shape[0]):
        codes[i] = 0
    for r in range(1, classes.shape[0]):
        c = classes[r]
        for i in range(y.shape[0]):
            codes[i] += r * (y[i] == c)
