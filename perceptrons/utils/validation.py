"""Input coercion shared by every estimator."""

import numpy as np
import scipy.sparse as sp

_EMPTY_INDEX = np.empty(0, dtype=np.int32)


def as_loop_arrays(X):
    """Split a validated matrix into the arrays a compiled loop reads.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse CSR matrix
        Float64 data, already validated (finite, C-contiguous if dense).

    Returns
    -------
    data : ndarray, float64
        ``X.ravel()`` (a view) for dense input, ``X.data`` for CSR.
    indices, indptr : ndarray
        The CSR index arrays, or empty int32 arrays for dense input, so that
        dense and int32-indexed CSR input share one compiled specialisation.
    n_features : int
    is_dense : bool
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
        return X.data, indices, indptr, X.shape[1], False
    if X.dtype != np.float64 or not X.flags.c_contiguous:
        raise ValueError("expected a C-contiguous float64 array")
    return X.reshape(-1), _EMPTY_INDEX, _EMPTY_INDEX, X.shape[1], True


def mean_sq_norm(X):
    """Average ``<x_i, x_i>`` over the rows of X (K&W's θ_Init and C)."""
    if X.shape[0] == 0:
        raise ValueError("cannot average norms over zero samples")
    if sp.issparse(X):
        return float(X.multiply(X).sum() / X.shape[0])
    return float(np.einsum("ij,ij->", X, X) / X.shape[0])
