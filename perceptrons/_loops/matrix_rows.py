"""Dense work rows and growable per-problem storage of the matrix perceptrons.

The higher- and second-order perceptrons (:mod:`perceptrons._loops.higher_order`,
:mod:`perceptrons._loops.second_order`) update n × n or k × k matrices with
a row x; they read x scattered into a dense work row with the list of its
non-zeros, and keep per-problem storage whose size grows with the mistakes.
"""

import numpy as np
from numba import njit

__all__ = ["add_and_reweigh", "gather_slots", "grow_cols", "grow_square",
           "scatter_row_nz", "sparse_dot", "square_times",
           "symmetric_times_row", "unscatter_row_nz", "work_for"]


@njit(cache=True)
def scatter_row_nz(X_data, X_indices, X_indptr, i, x, nz):
    """Row i into the dense ``x`` (zero elsewhere) and its support in ``nz``.

    Returns the number of entries written to ``nz``. Dense rows (2-D
    ``X_data``) list every column.
    """
    if X_data.ndim == 2:
        n = X_data.shape[1]
        for j in range(n):
            x[j] = X_data[i, j]
            nz[j] = j
        return n
    lo, hi = X_indptr[i], X_indptr[i + 1]
    for e in range(lo, hi):
        x[X_indices[e]] = X_data[e]
        nz[e - lo] = X_indices[e]
    return hi - lo


@njit(cache=True)
def unscatter_row_nz(x, nz, nnz):
    """Zero the entries of ``x`` that :func:`scatter_row_nz` wrote."""
    for e in range(nnz):
        x[nz[e]] = 0.0


@njit(cache=True)
def sparse_dot(w, x, nz, nnz):
    """``Σ_e w[nz[e]] x[nz[e]]`` over the first nnz listed columns."""
    s = 0.0
    for e in range(nnz):
        j = nz[e]
        s += w[j] * x[j]
    return s


@njit(cache=True)
def grow_cols(a, need):
    """``a`` (2-D) with at least ``need`` columns, contents kept."""
    if a.shape[1] >= need:
        return a
    out = np.zeros((a.shape[0], max(need, 2 * a.shape[1])), dtype=a.dtype)
    out[:, :a.shape[1]] = a
    return out


@njit(cache=True)
def grow_square(D, need):
    """``D`` (n_problems, q, q) with q >= need, contents kept."""
    q = D.shape[1]
    if q >= need:
        return D
    size = max(need, 2 * q)
    out = np.zeros((D.shape[0], size, size))
    out[:, :q, :q] = D
    return out


@njit(cache=True, inline="always")
def symmetric_times_row(A, x, nz, nnz, out):
    """``out = A x`` for a symmetric A and a scattered row x.

    Reads the rows ``A[j]`` of x's non-zero columns j (contiguous), which by
    symmetry are its columns.
    """
    n = out.shape[0]
    for r in range(n):
        out[r] = 0.0
    for e in range(nnz):
        j = nz[e]
        xj = x[j]
        for r in range(n):
            out[r] += A[j, r] * xj


@njit(cache=True, inline="always")
def square_times(A, v, q, out):
    """``out[r] = Σ_{s < q} A[r, s] v[s]`` for ``r < q``."""
    for r in range(q):
        total = 0.0
        for s in range(q):
            total += A[r, s] * v[s]
        out[r] = total


@njit(cache=True, inline="always")
def gather_slots(values, slots, q, out):
    """``out[r] = values[slots[r]]`` for ``r < q``."""
    for r in range(q):
        out[r] = values[slots[r]]


@njit(cache=True, inline="always")
def work_for(work, size):
    """``work``, or a larger one if it holds fewer than ``size`` values."""
    if work.shape[0] < size:
        return np.empty(2 * size)
    return work


@njit(cache=True, inline="always")
def add_and_reweigh(A, v, w, step, x, nz, nnz):
    """After a mistake: ``v += step x``, then ``w = A v`` (A symmetric,
    n × n); ``step`` is ``s_i y``, the label times the row's weight.

    The end of every primal matrix update (the Higher-order Perceptron's
    ``w = A v``, the Second-order's ``w = A⁻¹ v``).
    """
    for e in range(nnz):
        j = nz[e]
        v[j] += step * x[j]
    square_times(A, v, v.shape[0], w)
