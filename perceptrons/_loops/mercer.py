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


# Every top-level function here (and the loops of
# :mod:`perceptrons._loops.dual`) is compiled with ``fastmath=FASTMATH``, the
# flags of the primal loops (see :mod:`perceptrons._loops._common`); the
# inlined helpers take their caller's flags.


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


# ------------------------------------------------------------- BLAS blocks
# Dense input: the kernel values of a block of BLOCK_ROWS presented rows
# against the support held when the block starts are computed by one BLAS
# product (numba's np.dot calls scipy's dgemm), ``G = X_block @ S.T``, then
# transformed in place. Only the values against support vectors added
# inside the block are left to the per-row path (fill_kernel_values).
#
# OpenBLAS gives an element of a product a value that depends on the
# product's shape: its row count (a short block sums in another order) and a
# single column (a matrix-vector product instead). Every block product
# therefore has exactly BLOCK_ROWS rows (zero rows pad the last block) and at
# least two columns, so each pair gets the same value from every block, from
# any cache and any position in the pass (checked by the cache tests).
BLOCK_ROWS = 128
# A block of fewer rows (the end of a pass, a partial_fit call of a few
# rows) would pay for BLOCK_ROWS rows: its rows get every value row by row
# instead, never from or into the cache, so that the choice depends on the
# order alone and the cache still changes no result.
SHORT_BLOCK = 16
# row_to_block codes besides a row of G.
IN_CACHE = BLOCK_ROWS
ROW_BY_ROW = BLOCK_ROWS + 1


@njit(cache=True)
def new_kernel_block(n_samples, n_features, is_dense):
    """Empty block state ``(S, X_block, G, row_to_block, rows, state)``.

    ``S`` holds the support vectors' rows gathered in slot order,
    ``X_block`` the rows of the block that need values, ``G`` (flat) their
    kernel values against slots ``[state[1], state[2])``;
    ``row_to_block[i]`` is row i's row of G, ``IN_CACHE`` for a row of the
    block whose cache already holds those values, ``ROW_BY_ROW`` for a row
    of a short block (fewer than ``SHORT_BLOCK`` rows), -1 outside the block;
    ``rows[:state[3]]`` are the block's rows; ``state[0]`` counts the slots
    gathered into S; G has ``state[4]`` columns. CSR input gets zero-size
    arrays: no blocks.
    """
    n_rows = n_samples if is_dense else 0
    d = n_features if is_dense else 0
    return (np.zeros((0, d)), np.zeros((BLOCK_ROWS if is_dense else 0, d)),
            np.zeros(0), np.full(n_rows, -1, dtype=np.int64),
            np.zeros(BLOCK_ROWS, dtype=np.int64), np.zeros(5, dtype=np.int64))


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


@njit(cache=True, fastmath=FASTMATH)
def fill_kernel_block(block, data, n_features, kernel, degree, gamma, coef0,
                      sq_norms, support, n_support, cache_filled, candidates,
                      lo, hi):
    """Make ``candidates[lo:lo + BLOCK_ROWS]`` (within ``hi``) the block.

    Their kernel values against the support held now, beyond what each
    row's cache already holds, are computed as one BLAS product.

    Returns
    -------
    block : tuple
        The block state, with S and G reallocated if they had to grow.
    """
    S, X_block, G, row_to_block, rows, state = block
    clear_kernel_block(block)
    m0 = n_support[0]
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
            X_block[n_need] = data[i * n_features:(i + 1) * n_features]
            row_to_block[i] = n_need
            n_need += 1
        else:
            row_to_block[i] = IN_CACHE
    state[3] = n_block
    if n_need == 0:
        return block
    for b in range(n_need, BLOCK_ROWS):
        X_block[b] = 0.0
    # At least two columns (see above); S's rows past m0 are zeros.
    c_hi = max(m0, c_lo + 2)
    if S.shape[0] < c_hi:
        grown = np.zeros((max(2 * S.shape[0], c_hi, 64), n_features))
        grown[:state[0]] = S[:state[0]]
        S = grown
    for p in range(state[0], m0):
        j = support[p]
        S[p] = data[j * n_features:(j + 1) * n_features]
    state[0] = m0
    n_cols = c_hi - c_lo
    if G.shape[0] < BLOCK_ROWS * n_cols:
        G = np.empty(max(2 * G.shape[0], BLOCK_ROWS * n_cols))
    values = G[:BLOCK_ROWS * n_cols].reshape((BLOCK_ROWS, n_cols))
    np.dot(X_block, S[c_lo:c_hi].T, values)
    state[1] = c_lo
    state[2] = m0
    state[4] = n_cols
    if kernel != KERNEL_LINEAR:
        for b in range(n_block):
            i = rows[b]
            g = row_to_block[i]
            if g >= BLOCK_ROWS:
                continue
            sq_i = sq_norms[i]
            for q in range(cache_filled[i] - c_lo, m0 - c_lo):
                values[g, q] = kernel_from_dot(
                    values[g, q], sq_i, sq_norms[support[c_lo + q]], kernel,
                    degree, gamma, coef0)
    return (S, X_block, G, row_to_block, rows, state)


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
