"""The support set of the dual loops and the kernel rows computed against it.

Every dual (kernel) loop keeps its weight vectors as combinations
``Σ_p coef[k, p] φ(x_support[p])`` over a support set, and every step of it
needs one kernel row: ``k(x_i, x_support[p])`` for the support held then.
What lives here is that shared machinery, read through the dual store of
:mod:`perceptrons._loops.storage` (and the dual forms of
:mod:`perceptrons._loops.matrix_perceptron`), so that a loop holds only its
algorithm:

* the support set (:data:`SupportSet`): slots ``0 .. m - 1`` (``m`` the
  slots ever taken), each holding a row, ``slot_of[i]`` the slot of row i
  or -1; a slot removed (:func:`remove_support`) goes on a free list and is
  the next one taken, a slot replaced (:func:`replace_support`) takes its
  new row at once; both are O(1). A loop keeps every coefficient of a
  removed slot at 0, so that scores over slots ``0 .. m - 1`` are those of
  the live support;
* the kernel-row cache: ``values[i, :filled[i]]`` keeps the computed
  part of example i's row across the passes of a call; a row is completed
  by computing the new slots only. Slots past ``values.shape[1]`` (the
  capacity the estimator derives from ``cache_size``) are recomputed at
  each use. A slot that takes a new row gets a new *generation* (the set's
  change counter, ``count[2]``); a cached row is stamped with the counter
  it was last checked at (``checked[i]``), and its values of slots of a
  later generation are recomputed before they are read
  (:func:`_refresh_changed`): a cached value of a replaced slot is never
  read. A support set that only grows never changes a generation, and the
  check costs one comparison per row;
* the block engine for dense input (below);
* the scores ``Σ_{p < m} coef[k, p] k(x_i, x_support[p])``, one kernel row
  serving every row of ``coef`` (:func:`support_scores`). A loop adds its
  own terms (thresholds, fixed contributions of earlier calls) itself.

Where kernel values come from
-----------------------------
A dual store holds a *provider* of kernel values and the support set; the
helpers below ask the provider, whatever it is, for "the kernel values of
this row against the support" (:func:`trial_kernel_row`), "``k(x_i, x_i)``"
(:func:`provider_diag`) and a pass's context (:func:`begin_kernel_pass`),
each specialised on the provider's type when a loop is compiled:

* :data:`ComputedKernel` ``(rows, kernel, cache)``: kernel values computed
  from the rows by a Mercer kernel, through the cache and the blocks
  (everything below);
* :data:`GramKernel` ``(gram, diag, norms, work)``: a precomputed Gram
  matrix of the rows the loop indexes (``kernel="precomputed"``), read by
  gathering ``gram[i, rows[p]]``;

and an accelerator's provider would be a third type behind the same
helpers.

Named tuples
------------
The loops pass their state as a few named tuples (numba accepts them, and
the inlined helpers read their fields at no cost), not as thirty positional
arguments:

:data:`Rows` ``(X_data, X_indices, X_indptr, n_features, is_dense, sq_norms, diag)``
    The rows the loop indexes, in the flat form of
    :func:`perceptrons.utils.validation.as_flat_loop_arrays`, with
    ``sq_norms[i] = <x_i, x_i>`` and ``diag[i] = k(x_i, x_i)`` of the kernel
    in use (normalised: 1, or 0 where ``φ(x_i) = 0``), float64 arrays of
    shape (n_samples,). Only the loops read ``diag``.
:data:`Kernel` ``(code, degree, gamma, coef0, norms)``
    The Mercer kernel (:func:`perceptrons._loops.mercer.kernel_from_dot`)
    and the norms that normalise it: an empty array for the kernel itself;
    else ``norms[i] = ‖φ(x_i)‖ = sqrt(k(x_i, x_i))``, float64
    (n_samples,), and the kernel in use is
    ``k(x, z) / (‖φ(x)‖ ‖φ(z)‖)``, the kernel of ``φ(x) / ‖φ(x)‖`` (0 where
    a norm is 0), which the Higher-order Perceptron needs.
:data:`SupportSet` ``(rows, slot_of, count, free, generation)``
    int64 arrays: the row of each slot (n_slots,), the slot of each row
    (n_samples,), ``count = [m, n_free, changes]`` (3,), the free slots
    ``free[:n_free]`` (n_slots,) and each slot's generation (n_slots,).
:data:`KernelCache` ``(values, filled, checked, work, dense_work, threads)``
    The cache, float64 (n_samples, capacity), its filled lengths and
    stamps, int64 (n_samples,); a work row, float64 (n_samples,), used
    when the support outgrows the cache; a zeroed work vector, float64
    (n_features,) for CSR input, else (0,); ``threads[0]``, int64, the
    threads a block's tiles may use (1: serial; more:
    :func:`~perceptrons._loops.mercer.panel_kernel_values_threaded` with
    numba's thread count, which the estimator sets to ``n_jobs``).
``block = (S, a_rows, G, row_to_block, rows, state, E, E_from, column)``
    The block state of one pass (:func:`new_kernel_block`), returned by
    the helpers that may grow it: the block engine's own, never read
    outside this module.

Why ``diag`` holds the kernel in use rather than a flag choosing between
``diag[i]`` and 1: the loops read ``diag[i]`` inside their update
arithmetic (the Ballseptron's ``c² ‖w‖² + k(x, x)``), compiled with the
``contract`` flag. A helper branching on a normalisation flag there kept
LLVM from fusing that multiply-add, and the binary kernel Ballseptron's
coefficients changed in their last bits. The caller resolves the
normalisation once instead, and the only branch on it sits after the
(not inlined) computation of the kernel values. Unpacking the tuples in
the inlined helpers adds a few reference-count operations to the compiled
loops; the USPS passes of ``benchmarks/bench_kernel_pass.py`` stay within
the timing noise (±4%) of the flat-argument loops they replaced.

Blocks
------
CSR rows get their values one row at a time in numba
(:func:`perceptrons._loops.mercer.fill_kernel_values`). Dense input is
processed in blocks of ``BLOCK_ROWS`` presented rows: when a pass reaches a
row outside the current block, the inner products of the next
``BLOCK_ROWS`` rows with the support held then (beyond each row's cache)
are computed a tile at a time, the support vectors packed in panels of
``PANEL_WIDTH`` slots (:func:`perceptrons._loops.mercer.panel_kernel_values`,
a register-blocked kernel as fast as OpenBLAS's dgemm), each tile
transformed into kernel values while it is still in cache
(:func:`fill_kernel_block`). The values against a support vector
added inside the block are computed as a column, against the block's
remaining rows at once, when the first row needs them
(:func:`_new_slot_values`, eight rows side by side in
:func:`perceptrons._loops.mercer.dense_dots`); all values of a block
shorter than ``SHORT_BLOCK`` rows (the end of a pass, a ``partial_fit``
call of a few rows, whose first block would pack the whole support for a
few rows) row by row. A pass thus costs about (support size × rows)
kernel values at BLAS speed (blocks were 6.5x faster than row by row on
MNIST, see BENCHMARKS.md), plus one copy of the support vectors' rows
(``n_support × n_features`` floats) and ``BLOCK_ROWS × n_support`` block
values.

Bit for bit: every dense inner product, from a block or row by row, is the
same sum, the chain of fused multiply-adds over the features in order (see
:mod:`perceptrons._loops.mercer`), and every path turns it into a kernel
value with the same functions
(:func:`perceptrons._loops.mercer.kernel_from_dots`,
:func:`perceptrons._loops.mercer.normalize_values`). A pair thus gets the
same bits from every block (whatever its rows, its columns, its length or
the row's position in it), from the row-by-row path and from the cache, at
any position in the pass; no BLAS is called, so neither the BLAS library
nor its kernel nor its thread count matters. Which path computes a pair still depends on the order
of presentation alone (only block values enter the cache), but the paths
agree anyway; the results are bit for bit the same for every cache size,
and dense and CSR input agree to rounding (CSR sums run over the
non-zeros). The blocks were BLAS products before (``np.dot`` in numba,
scipy's dgemm), padded to 128 rows and two columns, which fixed the
rounding of OpenBLAS's Haswell kernel on one thread only: its SkylakeX
(AVX-512) kernel rounds products of 2 to 9 columns differently, and two
threads change the rounding of some shapes (2 to 9 columns of 300
features on Haswell and Sandybridge, 200 or 1000 columns on SkylakeX), so
the cache size changed results there.

The functions that compute here (:func:`fill_kernel_block`,
:func:`_new_slot_values`) are compiled with ``fastmath=FASTMATH``, the flags
of the dual loops (see :mod:`perceptrons._loops._common`); the inlined
helpers take their caller's flags. The inner products come from
:mod:`perceptrons._loops.mercer`, explicit fused multiply-adds that no flag
reorders, and so do the transforms into kernel values
(:func:`~perceptrons._loops.mercer.kernel_from_dots`,
:func:`~perceptrons._loops.mercer.normalize_values`), compiled with the same
flags.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types

from ._common import FASTMATH, specialised
from .mercer import (
    PANEL_WIDTH,
    TILE_ROWS,
    clear_row,
    dense_dots,
    dot_n,
    fill_kernel_values,
    kernel_from_dots,
    normalize_values,
    pack_panels,
    panel_kernel_values,
    panel_kernel_values_threaded,
    scatter_row,
)

__all__ = ["BLOCK_ROWS", "IN_CACHE", "ROW_BY_ROW", "SHORT_BLOCK",
           "ComputedKernel", "GramKernel", "Kernel", "KernelCache", "Rows",
           "SupportSet", "append_support", "begin_kernel_pass",
           "clear_kernel_block", "fill_kernel_block", "kernel_values",
           "new_kernel_block", "provider_diag", "remove_support",
           "replace_support", "support_scores", "trial_kernel_row"]

Rows = namedtuple("Rows", ["X_data", "X_indices", "X_indptr", "n_features",
                           "is_dense", "sq_norms", "diag"])
Kernel = namedtuple("Kernel", ["code", "degree", "gamma", "coef0", "norms"])
SupportSet = namedtuple("SupportSet", ["rows", "slot_of", "count", "free",
                                       "generation"])
KernelCache = namedtuple("KernelCache", ["values", "filled", "checked",
                                         "work", "dense_work", "threads"])
ComputedKernel = namedtuple("ComputedKernel", ["rows", "kernel", "cache"])
GramKernel = namedtuple("GramKernel", ["gram", "diag", "norms", "work"])
# The providers' helpers compile under the dual loops' fast-math flags
# (:func:`~perceptrons._loops._common.fast_call`).
ComputedKernel.fastmath_helpers = True
GramKernel.fastmath_helpers = True

# Presented rows per block (see the module notes).
BLOCK_ROWS = 128
# A block of fewer rows (the end of a pass, a partial_fit call of a few
# rows) would pack the support vectors into panels for a few rows: its rows
# get every value row by row instead (the same bits), never from or into
# the cache, so that the cache holds block values only.
SHORT_BLOCK = 16
# Multiply-adds of a block's tiles below which they stay on one thread
# (about 0.3 ms of work: a thread pool's wake-up would cost more than it
# saves).
THREADED_TILE_WORK = 1 << 20
# row_to_block codes besides a row of G.
IN_CACHE = BLOCK_ROWS
ROW_BY_ROW = BLOCK_ROWS + 1


# ---------------------------------------------------------------- support
@njit(cache=True, inline="always")
def append_support(support, i):
    """Slot of example i, giving it one if it has none.

    Parameters
    ----------
    support : SupportSet
        Updated in place.
    i : int
        The example.

    Returns
    -------
    int
        Its slot p: ``support.rows[p] == i``.
    """
    # No variable reassigned in a branch: inlined twice over (through
    # the storage helpers) such a variable trips numba's SSA checks.
    if support.slot_of[i] < 0:
        _take_slot(support, i)
    return support.slot_of[i]


# A call, not inlined: taken once per new support vector.
@njit(cache=True)
def _take_slot(support, i):
    """Give row i a slot: the last one freed, else slot m (m grows)."""
    count = support.count
    if count[1] > 0:
        count[1] -= 1
        p = support.free[count[1]]
        count[2] += 1
        support.generation[p] = count[2]
    else:
        p = count[0]
        count[0] = p + 1
    support.rows[p] = i
    support.slot_of[i] = p


@njit(cache=True)
def remove_support(support, p):
    """Free slot p (its row leaves the support); O(1).

    The caller zeroes the slot's coefficients. The slot keeps its old row
    until it is taken again (so that no kernel value of the pass reads an
    index outside the rows: a freed slot's values are multiplied by a zero
    coefficient).
    """
    support.slot_of[support.rows[p]] = -1
    support.free[support.count[1]] = p
    support.count[1] += 1


@njit(cache=True)
def replace_support(support, p, i):
    """Slot p holds row i instead of its row (which leaves the support);
    O(1), with a new generation for the slot so that no cached value of
    the old row is read. Row i must have no slot."""
    support.slot_of[support.rows[p]] = -1
    support.rows[p] = i
    support.slot_of[i] = p
    support.count[2] += 1
    support.generation[p] = support.count[2]


# ------------------------------------------------------------ kernel values
@njit(cache=True, inline="always")
def _fill_values(data, kernel, i, rows, lo, hi, dense_work, out):
    """``out[p] = k(x_i, x_rows[p])`` for ``lo <= p < hi``, row by row.

    For CSR input the caller scatters row i into ``dense_work`` first.
    """
    X_data, X_indices, X_indptr, n_features, is_dense, sq_norms, _ = data
    code, degree, gamma, coef0, norms = kernel
    fill_kernel_values(X_data, X_indices, X_indptr, n_features, is_dense,
                       sq_norms, code, degree, gamma, coef0,
                       i, rows, lo, hi, dense_work, out)
    if norms.shape[0] > 0:
        normalize_values(norms, i, rows, lo, hi, out)


@njit(cache=True, inline="always")
def kernel_values(data, kernel, support, cache, i, step, block):
    """Row i's kernel values against the support's slots ``p < m``,
    ``m = support.count[0]``.

    Parameters
    ----------
    data, kernel, support, cache, block : tuple
        See the module notes; the cache is filled as far as it may be. With
        dense input row i must be part of the block first
        (:func:`support_scores` sees to that).
    i : int
        The example.
    step : int
        Its step in the order the block was cut from.

    Returns
    -------
    values : ndarray of shape (>= m,), float64
        ``values[p] = k(x_i, x_support[p])`` for ``p < m``: the cached row
        or the work row (valid until the next call).
    """
    if support.count[2] != cache.checked[i]:
        _refresh_changed(data, kernel, support, cache, i)
    if data.is_dense:
        return _dense_kernel_values(data, kernel, support, cache, i, step,
                                    block)
    slots, m = support.rows, support.count[0]
    X_indices, X_indptr = data.X_indices, data.X_indptr
    rows, cache_filled = cache.values, cache.filled
    kernel_work, dense_work = cache.work, cache.dense_work
    capacity = rows.shape[1]
    filled = cache_filled[i]
    lim = m if m < capacity else capacity
    need = filled < lim or m > lim
    if need:
        scatter_row(data.X_data, X_indices, X_indptr, i, dense_work)
    if filled < lim:
        _fill_values(data, kernel, i, slots, filled, lim, dense_work,
                     rows[i])
        cache_filled[i] = lim
    if m > lim:
        for p in range(lim):
            kernel_work[p] = rows[i, p]
        _fill_values(data, kernel, i, slots, lim, m, dense_work, kernel_work)
        values = kernel_work
    else:
        values = rows[i]
    if need:
        clear_row(X_indices, X_indptr, i, dense_work)
    return values


@njit(cache=True, inline="always")
def _dense_kernel_values(data, kernel, support, cache, i, step, block):
    """:func:`kernel_values` for dense input: the block's values
    (:func:`_dense_block_values`), with those of slots that took a new row
    since the block began recomputed."""
    values = _dense_block_values(data, kernel, support, cache, i, step,
                                 block)
    since = block[5][8]
    if since != support.count[2]:
        _patch_changed(data, kernel, support, cache, i, since, values)
    return values


# A call, not inlined: made only after a slot changed its row.
@njit(cache=True, fastmath=FASTMATH)
def _patch_changed(data, kernel, support, cache, i, since, values):
    """Recompute ``values[p]`` (and the cache's, below its filled length)
    for every slot p of a later generation than ``since``, by the row path
    (dense rows)."""
    generation, slots = support.generation, support.rows
    filled = cache.filled[i]
    for p in range(support.count[0]):
        if generation[p] > since:
            _fill_values(data, kernel, i, slots, p, p + 1, cache.dense_work,
                         values)
            if p < filled:
                cache.values[i, p] = values[p]


@njit(cache=True, inline="always")
def _dense_block_values(data, kernel, support, cache, i, step, block):
    """The block's part of :func:`kernel_values` for dense input.

    Slots below ``cache_filled[i]`` come from the cache, the next ones up
    to the block's support size from the block (and join the cache),
    the rest, added inside the block, from the block's columns of new
    slots (:func:`_new_slot_values`). Only block values are cached, so that
    a value never depends on the cache. A row of a short block gets every
    value from the per-row path.
    """
    slots, m = support.rows, support.count[0]
    rows, cache_filled = cache.values, cache.filled
    kernel_work, dense_work = cache.work, cache.dense_work
    capacity = rows.shape[1]
    filled = cache_filled[i]
    m_block = filled  # the block's values end here (>= filled)
    row_to_block, state = block[3], block[5]
    g = row_to_block[i]
    if g == ROW_BY_ROW:
        _fill_values(data, kernel, i, slots, 0, m, dense_work, kernel_work)
        return kernel_work
    if g >= 0 and g < BLOCK_ROWS:
        m_block = state[2]
        top = m_block if m_block < capacity else capacity
        if top > filled:
            kernel_block_values(block, i, filled, top, rows[i])
            cache_filled[i] = top
            filled = top
    if m <= filled:
        return rows[i]
    for p in range(filled):
        kernel_work[p] = rows[i, p]
    if m_block > filled:
        kernel_block_values(block, i, filled, m_block, kernel_work)
    else:
        # A no-op (m_block == filled here), but without it this function
        # compiles to a pass 15% slower (USPS, r = 0.1: 0.086 s -> 0.106 s).
        m_block = filled
    if m > m_block:
        _new_slot_values(block, data, kernel, slots, i, step, m_block, m,
                         dense_work, kernel_work)
    return kernel_work


# A call, not inlined: inlined into every dual loop (through kernel_values)
# it made their compilation about 40 % longer (a cold KernelPerceptron fit
# 20 s -> 27 s); called once per row, its call costs nothing measurable.
@njit(cache=True, fastmath=FASTMATH)
def _new_slot_values(block, data, kernel, slots, i, step, lo, hi, dense_work,
                     out):
    """``out[p] = k(x_i, x_slots[p])`` for ``lo <= p < hi``, slots added
    inside the block, ``i = rows[b]`` the row at step ``step``.

    Row by row, each of these values is a chain of fused multiply-adds on
    its own, which waits on the latency of each step. Instead, the first
    row that needs a new slot gets that slot's column: its values against
    the block's rows from this one to the block's end, eight rows side by
    side (:func:`~perceptrons._loops.mercer.dense_dots` with the slot as
    the row: ``fma(a, b, s) == fma(b, a, s)``, the same chain), each
    turned into a kernel value as the row path turns it (the same
    functions, with ``x_i`` as the row). The column is kept for the
    block's later rows (MNIST, 1,390 slots: about 88,000 values a pass).
    A row out of the block's order, or slots that do not start at the
    block's support size, get the row path: the same bits.
    """
    E, E_from, rows, state = block[6], block[7], block[4], block[5]
    base, n_block = state[7], state[3]
    b = step - state[5]
    if (E.shape[0] == 0 or lo != base or hi - base > BLOCK_ROWS or b < 0
            or b >= n_block or rows[b] != i):
        _fill_values(data, kernel, i, slots, lo, hi, dense_work, out)
        return
    X_data, n_features, sq_norms = data.X_data, data.n_features, data.sq_norms
    code, degree, gamma, coef0, norms = kernel
    column = block[8]
    for c in range(state[6], hi - base):
        q = base + c
        dense_dots(X_data, n_features, slots[q], rows, b, n_block, column)
        for r in range(b, n_block):
            # The row path's transform of the pair (x_rows[r], x_slots[q]),
            # through out[q] (rewritten below).
            out[q] = column[r]
            kernel_from_dots(sq_norms, code, degree, gamma, coef0, rows[r],
                             slots, q, q + 1, out)
            if norms.shape[0] > 0:
                normalize_values(norms, rows[r], slots, q, q + 1, out)
            E[r * BLOCK_ROWS + c] = out[q]
        E_from[c] = b
    if hi - base > state[6]:
        state[6] = hi - base
    for p in range(lo, hi):
        c = p - base
        if E_from[c] <= b:
            out[p] = E[b * BLOCK_ROWS + c]
        else:
            _fill_values(data, kernel, i, slots, p, p + 1, dense_work, out)


@njit(cache=True, inline="always")
def support_scores(provider, support, order, step, coef, scores, block):
    """``scores[k] = Σ_{p < m} coef[k, p] k(x_i, x_support[p])``, ``i = order[step]``.

    The kernel row of :func:`trial_kernel_row` (whose arguments and block
    these are) against the coefficients by support slot ``coef``
    (n_problems, >= m), into ``scores`` (n_problems,); returns the block.
    """
    block, values, m = trial_kernel_row(provider, support, order, step,
                                        block)
    for k in range(coef.shape[0]):
        scores[k] = dot_n(coef[k], values, m)
    return block


def _computed_row(provider, support, order, step, block):
    i = order[step]
    rows, kernel, cache = provider
    if not in_kernel_block(block, i):
        block = fill_kernel_block(block, rows, kernel, support, cache, order,
                                  step, order.shape[0])
    m = support.count[0]
    values = kernel_values(rows, kernel, support, cache, i, step, block)
    return block, values, m


def _gram_row(provider, support, order, step, block):
    i = order[step]
    m = support.count[0]
    gram, slots, values = provider.gram, support.rows, provider.work
    for p in range(m):
        values[p] = gram[i, slots[p]]
    if provider.norms.shape[0] > 0:
        normalize_values(provider.norms, i, slots, 0, m, values)
    return block, values, m


@specialised(lambda provider, *args: (
    _gram_row if _provides_gram(provider) else _computed_row))
def trial_kernel_row(provider, support, order, step, block):
    """The kernel row of trial ``step``: ``i = order[step]`` against the support.

    With a :data:`ComputedKernel` of dense rows, a block of rows
    ``order[step:step + BLOCK_ROWS]`` starts here if row i is not in the
    current one.

    Parameters
    ----------
    provider : ComputedKernel or GramKernel
    support : SupportSet
    order : ndarray of shape (n_steps,), int64
    step : int
    block : tuple
        See the module notes.

    Returns
    -------
    block : tuple
        The block state (see :func:`fill_kernel_block`).
    values : ndarray of shape (>= m,), float64
        ``values[p] = k(x_i, x_support[p])`` for ``p < m``; valid until the
        next kernel row is asked for.
    m : int
        The slots, ``support.count[0]``, when the row was computed.
    """


def _provides_gram(provider):
    """Whether ``provider`` (or its numba type) is a :data:`GramKernel`."""
    cls = (provider.instance_class
           if isinstance(provider, types.BaseNamedTuple) else type(provider))
    return cls is GramKernel


def _computed_diag(provider):
    return provider.rows.diag


def _gram_diag(provider):
    return provider.diag


@specialised(lambda provider: (
    _gram_diag if _provides_gram(provider) else _computed_diag))
def provider_diag(provider):
    """``k(x_i, x_i)`` of the kernel in use for every row the loop indexes
    (normalised: 1, or 0 where ``φ(x_i) = 0``)."""


def _computed_pass(provider):
    return new_kernel_block(provider.rows)


def _gram_pass(provider):
    return _NO_BLOCK()


@specialised(lambda provider: (
    _gram_pass if _provides_gram(provider) else _computed_pass))
def begin_kernel_pass(provider):
    """The kernel values' context of a pass: the block state of
    :func:`new_kernel_block` (empty without blocks)."""


@njit(cache=True)
def _NO_BLOCK():
    """A block state of zero-size arrays: rows read without blocks."""
    empty = np.zeros(0, dtype=np.int64)
    return (np.zeros(0), empty, np.zeros(0), empty,
            np.zeros(BLOCK_ROWS, dtype=np.int64), np.zeros(9, dtype=np.int64),
            np.zeros(0), empty, np.zeros(0))


# ------------------------------------------------------------ changed slots
# A call, not inlined: made only after a slot changed its row.
@njit(cache=True, fastmath=FASTMATH)
def _refresh_changed(data, kernel, support, cache, i):
    """Recompute row i's cached values of the slots that took a new row
    since the row was last checked, then stamp it.

    Only slots of a later generation than the row's stamp are recomputed,
    by the row path (the bits of every path). A block's values are fresh
    for the slots the block computed; the slots replaced since the block
    began are recomputed from the block's values on by :func:`kernel_values`
    (they are of a later generation than the row's stamp too, as the block
    stamps its rows when it starts: see :func:`fill_kernel_block`).
    """
    stamp = cache.checked[i]
    filled = cache.filled[i]
    generation, slots = support.generation, support.rows
    values, dense_work = cache.values, cache.dense_work
    stale = False
    for p in range(filled):
        if generation[p] > stamp:
            stale = True
            break
    if stale:
        if not data.is_dense:
            scatter_row(data.X_data, data.X_indices, data.X_indptr, i,
                        dense_work)
        for p in range(filled):
            if generation[p] > stamp:
                _fill_values(data, kernel, i, slots, p, p + 1, dense_work,
                             values[i])
        if not data.is_dense:
            clear_row(data.X_indices, data.X_indptr, i, dense_work)
    cache.checked[i] = support.count[2]


# ------------------------------------------------------------------ blocks
@njit(cache=True)
def new_kernel_block(data):
    """Empty block state ``(S, a_rows, G, row_to_block, rows, state, E,
    E_from, column)``.

    ``S`` holds the support vectors' rows packed in panels of
    ``PANEL_WIDTH`` slots (:func:`perceptrons._loops.mercer.pack_panels`),
    ``a_rows`` the rows of the block that need values (then -1 up to a
    whole tile), ``G`` (flat) their kernel values against slots
    ``[state[1], state[2])`` (``state[1]`` a panel's first slot);
    ``row_to_block[i]`` is row i's row of G, ``IN_CACHE`` for a row of the
    block whose cache already holds those values, ``ROW_BY_ROW`` for a row
    of a short block (fewer than ``SHORT_BLOCK`` rows), -1 outside the block;
    ``rows[:state[3]]`` are the block's rows; ``state[0]`` counts the slots
    packed into S; G has ``state[4]`` columns. The block began at step
    ``state[5]`` of its order, with ``state[7]`` slots; ``E`` (flat,
    ``BLOCK_ROWS`` × ``BLOCK_ROWS``) holds the kernel values of its rows
    against the slots added since, ``E[b * BLOCK_ROWS + c]`` for the row
    at position b and slot ``state[7] + c``, for the first ``state[6]``
    such slots and the positions from ``E_from[c]`` on
    (:func:`_new_slot_values`; ``column`` is its work row). CSR input gets
    zero-size arrays: no blocks.

    Parameters
    ----------
    data : tuple
        See the module notes.

    Returns
    -------
    tuple
    """
    is_dense = data.is_dense
    n_rows = data.sq_norms.shape[0] if is_dense else 0
    n_new = BLOCK_ROWS if is_dense else 0
    return (np.zeros(0), np.full(n_new, -1, dtype=np.int64),
            np.zeros(0), np.full(n_rows, -1, dtype=np.int64),
            np.zeros(BLOCK_ROWS, dtype=np.int64), np.zeros(9, dtype=np.int64),
            np.zeros(n_new * n_new), np.zeros(n_new, dtype=np.int64),
            np.zeros(n_new))


@njit(cache=True, inline="always")
def in_kernel_block(block, i):
    """Whether row i's values are in the block (always True without blocks)."""
    row_to_block = block[3]
    return row_to_block.shape[0] == 0 or row_to_block[i] >= 0


@njit(cache=True, inline="always")
def clear_kernel_block(block):
    """Forget the block's rows (their values are recomputed when needed)."""
    row_to_block, rows, state = block[3], block[4], block[5]
    for b in range(state[3]):
        row_to_block[rows[b]] = -1
    state[3] = 0
    state[6] = 0


# Not cached on its own: it calls parallel code (see the note at
# mercer.panel_kernel_values_threaded).
@njit(cache=False, fastmath=FASTMATH)
def fill_kernel_block(block, data, kernel, support, cache, candidates, lo,
                      hi):
    """Make ``candidates[lo:lo + BLOCK_ROWS]`` (within ``hi``) the block.

    Their kernel values against the support held now, beyond what each
    row's cache already holds, are computed a tile at a time
    (:func:`perceptrons._loops.mercer.panel_kernel_values`).

    Parameters
    ----------
    block, data, kernel, support, cache : tuple
        See the module notes; only ``cache_filled`` of the cache is read.
    candidates : ndarray of shape (n_candidates,), int64
        Rows in presentation order.
    lo, hi : int
        The block starts at ``candidates[lo]`` and ends by ``hi``.

    Returns
    -------
    block : tuple
        The block state, with S and G reallocated if they had to grow.
    """
    S, a_rows, G, row_to_block, rows, state = block[:6]
    X_data, n_features, sq_norms = data.X_data, data.n_features, data.sq_norms
    slots, m0 = support.rows, support.count[0]
    cache_filled, threads = cache.filled, cache.threads[0]
    clear_kernel_block(block)
    state[5] = lo
    state[7] = m0
    state[8] = support.count[2]
    n_block = min(BLOCK_ROWS, hi - lo)
    short = n_block < SHORT_BLOCK
    n_need = 0
    c_lo = m0
    for b in range(n_block):
        i = candidates[lo + b]
        rows[b] = i
        if short:
            row_to_block[i] = ROW_BY_ROW
        elif cache_filled[i] < m0:
            # Row i needs the values of slots [cache_filled[i], m0).
            c_lo = min(c_lo, cache_filled[i])
            a_rows[n_need] = i
            row_to_block[i] = n_need
            n_need += 1
        else:
            row_to_block[i] = IN_CACHE
    state[3] = n_block
    if n_need == 0:
        return block
    # Whole tiles: rows up to a multiple of TILE_ROWS (padding), the panels
    # that hold slots [c_lo, m0); their values past m0 are never read.
    n_rows = -(-n_need // TILE_ROWS) * TILE_ROWS
    for b in range(n_need, n_rows):
        a_rows[b] = -1
    t_lo = c_lo // PANEL_WIDTH
    t_hi = -(-m0 // PANEL_WIDTH)
    size = n_features * PANEL_WIDTH
    if S.shape[0] < t_hi * size:
        grown = np.zeros(max(2 * S.shape[0], t_hi * size, 4 * size))
        grown[:S.shape[0]] = S
        S = grown
    pack_panels(X_data, n_features, slots, state[0], m0, S)
    state[0] = m0
    n_cols = (t_hi - t_lo) * PANEL_WIDTH
    if G.shape[0] < BLOCK_ROWS * n_cols:
        G = np.empty(max(2 * G.shape[0], BLOCK_ROWS * n_cols))
    threaded = (threads > 1
                and n_rows * n_cols * n_features >= THREADED_TILE_WORK)
    origin = t_lo * PANEL_WIDTH
    # Each row becomes kernel values for its slots up to m0 (those below
    # its cache's end too: never read).
    if threaded:
        panel_kernel_values_threaded(X_data, n_features, a_rows, n_rows, S,
                                     t_lo, t_hi, G, n_cols, sq_norms, kernel,
                                     slots[origin:], m0 - origin)
    else:
        panel_kernel_values(X_data, n_features, a_rows, n_rows, S, t_lo,
                            t_hi, G, n_cols, sq_norms, kernel,
                            slots[origin:], m0 - origin)
    state[1] = origin
    state[2] = m0
    state[4] = n_cols
    return (S, a_rows, G, row_to_block, rows, state, block[6], block[7],
            block[8])


@njit(cache=True, inline="always")
def kernel_block_values(block, i, lo, hi, out):
    """``out[p] = k(x_i, x_support[p])`` for ``lo <= p < hi`` from the block.

    The caller checks ``lo >= cache_filled[i]`` and ``hi <= state[2]``.
    """
    G, row_to_block, state = block[2], block[3], block[5]
    c_lo = state[1]
    base = row_to_block[i] * state[4] - c_lo
    for p in range(lo, hi):
        out[p] = G[base + p]
