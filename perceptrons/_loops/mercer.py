"""Mercer kernels of the dual perceptrons: compiled rows and Python Gram blocks.

Three kernels, named by the public ``kernel=`` parameters:

* linear: ``k(x, z) = <x, z>``;
* poly: ``k(x, z) = (γ <x, z> + c0)^degree``;
* rbf: ``k(x, z) = exp(-γ ‖x - z‖²)``, with
  ``‖x - z‖² = ‖x‖² + ‖z‖² - 2<x, z>`` clipped at 0 (as scikit-learn's
  ``euclidean_distances``).

Every kernel value is a function of ``<x, z>``, ``‖x‖²`` and ``‖z‖²``
(:func:`kernel_from_dot`), so one inner product per pair serves all three.
The compiled functions read a data matrix as ``(data, indices, indptr,
n_features, is_dense)`` (see :mod:`perceptrons._loops`) and never densify CSR
input: a CSR row is scattered into a dense work vector once, and each partner
row is then a gather over its own non-zeros. :func:`gram_block` is the
Python-level counterpart for prediction: one BLAS product ``A @ B.T`` per
block, transformed in place.
"""

import numpy as np
from numba import njit

from ._common import FASTMATH, row_sq_norms

KERNEL_LINEAR = 0
KERNEL_POLY = 1
KERNEL_RBF = 2

KERNELS = {"linear": KERNEL_LINEAR, "poly": KERNEL_POLY, "rbf": KERNEL_RBF}


# Every top-level function here (and the dual loops, which inline the
# helpers) is compiled with ``fastmath=FASTMATH`` (see
# :mod:`perceptrons._loops._common`); the inlined helpers take their caller's
# flags. The support set, the kernel-row cache and the BLAS blocks that
# compute the dual loops' kernel rows live in :mod:`perceptrons._loops.support`.


@njit(cache=True, inline="always")
def dot_n(a, b, n):
    """``sum_j a[j] * b[j]`` for ``j < n``.

    Pass row *views* (``data[base:base + n]``), not a base offset: with an
    index ``base + j`` where ``base`` was loaded from memory, numba's
    negative-index wraparound check stays in the loop and blocks
    vectorisation (4x slower on 64-feature rows).

    Parameters
    ----------
    a, b : ndarray of shape (>= n,), float64
    n : int

    Returns
    -------
    float
    """
    s = 0.0
    for j in range(n):
        s += a[j] * b[j]
    return s


@njit(cache=True, inline="always")
def kernel_from_dot(dot, sq_a, sq_b, kernel, degree, gamma, coef0):
    """Kernel value from ``<x, z>`` and the squared norms of x and z.

    Parameters
    ----------
    dot, sq_a, sq_b : float
        ``<x, z>``, ``‖x‖²``, ``‖z‖²`` (the norms are read by "rbf" only).
    kernel : int
        One of ``KERNEL_LINEAR``, ``KERNEL_POLY``, ``KERNEL_RBF``.
    degree : int
    gamma, coef0 : float

    Returns
    -------
    float
    """
    if kernel == KERNEL_LINEAR:
        return dot
    if kernel == KERNEL_POLY:
        base = gamma * dot + coef0
        out = 1.0
        for _ in range(degree):
            out *= base
        return out
    d2 = sq_a + sq_b - 2.0 * dot
    if d2 < 0.0:
        d2 = 0.0
    return np.exp(-gamma * d2)


# scatter_row and clear_row are deliberately *not* inlined: when their stores
# into a float64 array were inlined beside the dense kernel loop, LLVM stopped
# vectorising that loop (53 ns instead of 5 ns per 64-feature pair).
@njit(cache=True)
def scatter_row(data, indices, indptr, i, dense_work):
    """``dense_work[indices] = x_i`` for a CSR row (undo with :func:`clear_row`)."""
    for p in range(indptr[i], indptr[i + 1]):
        dense_work[indices[p]] = data[p]


@njit(cache=True)
def clear_row(indices, indptr, i, dense_work):
    """Zero the entries :func:`scatter_row` wrote."""
    for p in range(indptr[i], indptr[i + 1]):
        dense_work[indices[p]] = 0.0


# Not inlined either: inlined at two call sites of the dual loop, beside its
# other stores, this loop lost its vectorisation the same way; as a call
# (once per row and step) it keeps it.
@njit(cache=True, fastmath=FASTMATH)
def fill_kernel_values(data, indices, indptr, n_features, is_dense,
                       sq_norms, kernel, degree, gamma, coef0,
                       i, rows, lo, hi, dense_work, out):
    """``out[p] = k(x_i, x_rows[p])`` for ``lo <= p < hi``.

    For CSR input the caller scatters row i into ``dense_work`` first.
    """
    # Two passes: the inner products first, in a loop free of the kernel's
    # branches (so that it vectorises: 6x on 64 features), then the
    # transform of each value.
    if is_dense:
        a = data[i * n_features:(i + 1) * n_features]
        for p in range(lo, hi):
            j = rows[p]
            out[p] = dot_n(a, data[j * n_features:(j + 1) * n_features],
                           n_features)
    else:
        for p in range(lo, hi):
            j = rows[p]
            s = 0.0
            for q in range(indptr[j], indptr[j + 1]):
                s += dense_work[indices[q]] * data[q]
            out[p] = s
    if kernel == KERNEL_LINEAR:
        return
    sq_i = sq_norms[i]
    for p in range(lo, hi):
        out[p] = kernel_from_dot(out[p], sq_i, sq_norms[rows[p]], kernel,
                                 degree, gamma, coef0)


@njit(cache=True, fastmath=FASTMATH)
def kernel_diag(sq_norms, kernel, degree, gamma, coef0):
    """``k(x_i, x_i)`` from the squared norms ``<x_i, x_i>``.

    Returns
    -------
    ndarray of shape (n_rows,), float64
    """
    out = np.empty(sq_norms.shape[0], dtype=np.float64)
    for i in range(sq_norms.shape[0]):
        out[i] = kernel_from_dot(sq_norms[i], sq_norms[i], sq_norms[i],
                                 kernel, degree, gamma, coef0)
    return out


@njit(cache=True, fastmath=FASTMATH)
def kernel_row(data, indices, indptr, n_features, is_dense, sq_norms,
               kernel, degree, gamma, coef0, i, rows, out):
    """One row of the Gram matrix: ``out[p] = k(x_i, x_rows[p])``.

    Parameters
    ----------
    data, indices, indptr, n_features, is_dense
        The data matrix (dense or CSR, never densified).
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_i, x_i>`` (read by "rbf" only), e.g. from
        :func:`perceptrons._loops._common.row_sq_norms`.
    kernel, degree, gamma, coef0
        See :func:`kernel_from_dot`.
    i : int
        The row.
    rows : ndarray of shape (n_values,), int64
        Partner rows.
    out : ndarray of shape (n_values,), float64
        Filled in place.
    """
    dense_work = np.zeros(0 if is_dense else n_features, dtype=np.float64)
    if not is_dense:
        scatter_row(data, indices, indptr, i, dense_work)
    fill_kernel_values(data, indices, indptr, n_features, is_dense,
                       sq_norms, kernel, degree, gamma, coef0,
                       i, rows, 0, rows.shape[0], dense_work, out)


# ---------------------------------------------------------------- Python level
def row_sq_norms_of(A):
    """``<a_i, a_i>`` for a dense ndarray or a CSR matrix (duck-typed).

    Parameters
    ----------
    A : ndarray of shape (n, d) or CSR matrix, float64

    Returns
    -------
    ndarray of shape (n,), float64
    """
    if hasattr(A, "indptr"):
        return row_sq_norms(A.data, A.indices, A.indptr, A.shape[0])
    A = np.ascontiguousarray(A, dtype=np.float64)
    empty = np.empty(0, dtype=np.int32)
    return row_sq_norms(A, empty, empty, A.shape[0])


def gram_block(A, B, kernel, degree, gamma, coef0, sq_a=None, sq_b=None):
    """Dense Gram block ``G[s, t] = k(a_s, b_t)`` through one BLAS product.

    Parameters
    ----------
    A : ndarray of shape (n_a, d) or CSR matrix
    B : ndarray of shape (n_b, d) or CSR matrix
    kernel : int
        One of ``KERNEL_LINEAR``, ``KERNEL_POLY``, ``KERNEL_RBF``.
    degree : int
    gamma, coef0 : float
    sq_a, sq_b : ndarray of shape (n_a,) and (n_b,), optional
        Squared row norms, computed if needed and not given ("rbf" only).

    Returns
    -------
    ndarray of shape (n_a, n_b), float64, C-contiguous
    """
    G = A @ B.T
    if hasattr(G, "toarray"):
        G = G.toarray()
    G = np.ascontiguousarray(G, dtype=np.float64)
    if kernel == KERNEL_LINEAR:
        return G
    if kernel == KERNEL_POLY:
        G *= gamma
        G += coef0
        return _int_power(G, int(degree))
    if sq_a is None:
        sq_a = row_sq_norms_of(A)
    if sq_b is None:
        sq_b = row_sq_norms_of(B)
    G *= -2.0
    G += sq_a[:, None]
    G += sq_b[None, :]
    np.maximum(G, 0.0, out=G)
    G *= -gamma
    np.exp(G, out=G)
    return G


def _int_power(G, degree):
    """``G ** degree`` by repeated multiplication, as :func:`kernel_from_dot`."""
    if degree == 1:
        return G
    out = G.copy()
    for _ in range(degree - 1):
        out *= G
    return out
