"""Small compiled helpers shared by every loop: row dot products and updates.

A row ``i`` of a data matrix is read through ``(data, indices, indptr,
n_features, is_dense)`` so that one compiled loop serves dense and CSR input
without densifying: dense rows are the slices ``data[i*d:(i+1)*d]``, CSR rows
the usual ``indptr[i]:indptr[i+1]`` ranges.
"""

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def row_dot(w, data, indices, indptr, n_features, is_dense, i):
    """Inner product ``<w, x_i>``.

    Parameters
    ----------
    w : ndarray of shape (n_features,), float64
        Weight row (a contiguous view).
    data, indices, indptr : ndarray
        Row storage of X (see module docstring); ``indices``/``indptr`` are
        empty for dense X.
    n_features : int
        Number of columns of X.
    is_dense : bool
        Whether ``data`` holds a raveled dense matrix.
    i : int
        Row index.

    Returns
    -------
    float
        The inner product.
    """
    if is_dense:
        base = i * n_features
        # Four independent partial sums break the add-latency chain (the
        # order is fixed, so results stay deterministic).
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        n4 = n_features - n_features % 4
        for j in range(0, n4, 4):
            s0 += w[j] * data[base + j]
            s1 += w[j + 1] * data[base + j + 1]
            s2 += w[j + 2] * data[base + j + 2]
            s3 += w[j + 3] * data[base + j + 3]
        for j in range(n4, n_features):
            s0 += w[j] * data[base + j]
        return (s0 + s1) + (s2 + s3)
    s = 0.0
    for p in range(indptr[i], indptr[i + 1]):
        s += w[indices[p]] * data[p]
    return s


@njit(cache=True, inline="always")
def row_axpy(w, a, data, indices, indptr, n_features, is_dense, i):
    """In place ``w += a * x_i``, in O(nnz(x_i)) for CSR rows."""
    if is_dense:
        base = i * n_features
        for j in range(n_features):
            w[j] += a * data[base + j]
    else:
        for p in range(indptr[i], indptr[i + 1]):
            w[indices[p]] += a * data[p]


@njit(cache=True)
def row_sq_norms(data, indices, indptr, n_features, is_dense, n_rows):
    """Squared Euclidean norm ``<x_i, x_i>`` of every row.

    Returns
    -------
    ndarray of shape (n_rows,), float64
    """
    out = np.empty(n_rows, dtype=np.float64)
    for i in range(n_rows):
        s = 0.0
        if is_dense:
            base = i * n_features
            for j in range(n_features):
                v = data[base + j]
                s += v * v
        else:
            for p in range(indptr[i], indptr[i + 1]):
                v = data[p]
                s += v * v
        out[i] = s
    return out


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
