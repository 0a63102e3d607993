"""Input coercion shared by every estimator."""

import numpy as np
import scipy.sparse as sp

_EMPTY_INDEX = np.empty(0, dtype=np.int32)


def as_loop_arrays(X):
    """The arrays a compiled primal loop reads for X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse CSR matrix
        Float64 data, already validated (C-contiguous if dense).

    Returns
    -------
    X_data : ndarray, float64
        X itself (2-D) for dense input, ``X.data`` (1-D) for CSR; the loops
        are specialised on this dimension when compiled.
    X_indices, X_indptr : ndarray
        The CSR index arrays (``indptr`` cast to ``indices``' dtype if they
        differ), or empty int32 arrays for dense input.
    """
    if sp.issparse(X):
        if X.format != "csr":
            raise ValueError(f"expected a CSR matrix, got format {X.format!r}")
        if X.data.dtype != np.float64:
            raise ValueError("expected float64 data")
        indices = X.indices
        indptr = X.indptr
        if indptr.dtype != indices.dtype:
            indptr = indptr.astype(indices.dtype)
        return X.data, indices, indptr
    if X.dtype != np.float64 or not X.flags.c_contiguous or X.ndim != 2:
        raise ValueError("expected a 2-D C-contiguous float64 array")
    return X, _EMPTY_INDEX, _EMPTY_INDEX


def as_flat_loop_arrays(X):
    """The ``(data, indices, indptr, n_features, is_dense)`` form of X.

    The dual (kernel) loops read dense rows as slices of the raveled matrix
    and branch on ``is_dense`` at run time.
    """
    data, indices, indptr = as_loop_arrays(X)
    if data.ndim == 2:
        return data.reshape(-1), indices, indptr, X.shape[1], True
    return data, indices, indptr, X.shape[1], False


def mean_sq_norm(X):
    """Average ``<x_i, x_i>`` over the rows of X (K&W's θ_Init and C)."""
    if X.shape[0] == 0:
        raise ValueError("cannot average norms over zero samples")
    if sp.issparse(X):
        return float(X.multiply(X).sum() / X.shape[0])
    return float(np.einsum("ij,ij->", X, X) / X.shape[0])
