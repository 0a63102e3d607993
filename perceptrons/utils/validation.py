"""Input coercion shared by every estimator."""

import re

import numpy as np
import scipy.sparse as sp
from numba import njit

_EMPTY_INDEX = np.empty(0, dtype=np.int32)

#: Smallest normal float64: squares below it lose precision, then vanish.
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


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
        if X.data.dtype not in (np.float64, np.float32):
            raise ValueError("expected float64 or float32 data")
        indices = X.indices
        indptr = X.indptr
        if indptr.dtype != indices.dtype:
            indptr = indptr.astype(indices.dtype)
        return X.data, indices, indptr
    if (X.dtype not in (np.float64, np.float32) or not X.flags.c_contiguous
            or X.ndim != 2):
        raise ValueError("expected a 2-D C-contiguous float64 or float32 "
                         "array")
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


def refuse_underflow(data, mean_sq_norm):
    """Refuse X whose squares underflow float64, as overflow is refused.

    Every model reads squared norms (‖x‖², ‖w‖², K&W's average ⟨x, x⟩,
    PDM's ‖y_k‖²). With values near 1e-170 those squares are 0, so the
    data would silently behave as all zeros (no norm, no margin, a zero
    threshold); below about 1e-154 they are subnormal and lose digits. The
    check costs nothing on ordinary data: X is scanned only when the
    average squared norm is itself below the smallest normal float64.

    Parameters
    ----------
    data : ndarray
        The stored values of X (dense X or ``X.data`` of a CSR matrix).
    mean_sq_norm : float
        The average ⟨x_i, x_i⟩ over the rows, as computed from X.

    Raises
    ------
    ValueError
        If X has a non-zero value and ``mean_sq_norm`` is below the smallest
        normal float64 (about 2.2e-308).
    """
    if mean_sq_norm >= _SMALLEST_NORMAL or data.size == 0:
        return
    largest = float(np.max(np.abs(data)))
    if largest == 0.0:
        return
    raise ValueError(
        f"the squares of X underflow float64 (its largest |value| is "
        f"{largest:.3g}, so the average squared row norm is "
        f"{mean_sq_norm:.3g}, below the smallest normal float64 "
        f"{_SMALLEST_NORMAL:.3g}); scale the input (e.g. StandardScaler)")


def check_csr_structure(matrix, where="X", columns=True):
    """Refuse a CSR matrix whose index arrays a compiled loop could follow
    out of bounds.

    ``indptr`` must start at 0, never decrease and end at ``len(indices)``
    (which ``len(data)`` equals); every column index must lie in
    ``[0, n_columns)`` (checked here unless ``columns=False``, see below).
    Cheap: one pass over the index arrays. scipy
    does not check this when a matrix is built from its arrays. A CSC
    matrix is checked the same way, its columns for rows.

    Parameters
    ----------
    matrix : CSR or CSC matrix
    where : str
        What the matrix is, for the messages.
    columns : bool, default=True
        Check the column indices. False leaves them to a caller whose next
        pass over the indices checks them before it follows one (the
        training pass of :func:`~perceptrons._loops._common.column_sq_sums`
        raises :func:`outside_columns`); CSC indices are always checked.

    Raises
    ------
    ValueError
        Naming ``where`` and the first problem.
    """
    n_rows, n_columns = matrix.shape
    fmt, major, minor = "CSR", "rows", "column"
    if getattr(matrix, "format", "csr") == "csc":
        n_columns, n_rows = n_rows, n_columns
        fmt, major, minor = "CSC", "columns", "row"
    indptr, indices = matrix.indptr, matrix.indices
    if indptr.ndim != 1 or indptr.shape[0] != n_rows + 1:
        raise ValueError(f"{where}: a {fmt} indptr of {indptr.shape[0]} "
                         f"entries for {n_rows} {major} (needs {n_rows + 1})")
    if indices.shape != matrix.data.shape:
        raise ValueError(f"{where}: {fmt} indices and data differ in length")
    if indptr.size and (indptr[0] != 0 or indptr[-1] != indices.shape[0]
                        or np.any(np.diff(indptr) < 0)):
        raise ValueError(f"{where}: {fmt} indptr must start at 0, never "
                         "decrease and end at the number of stored values")
    if indices.size and (columns or fmt == "CSC"):
        bad = _first_outside(indices, n_columns)
        if bad >= 0:
            raise outside_columns(indices, bad, n_columns, where, fmt, minor)


def outside_columns(indices, bad, n_columns, where="X", fmt="CSR",
                    minor="column"):
    """The error for index ``indices[bad]`` outside ``[0, n_columns)``."""
    return ValueError(f"{where}: a {fmt} {minor} index is "
                      f"{int(indices[bad])}, outside [0, {n_columns})")


@njit(cache=True)
def _first_outside(indices, n):
    """Position of the first index outside ``[0, n)``, or -1.

    One pass for the largest index read as unsigned (a negative index
    reads as a huge one), which vectorises; numpy's ``min`` and ``max``
    read the indices twice (1.1 ms against 0.5 ms on a real-sim-shaped
    matrix). The position is looked for only when there is one.
    """
    largest = np.uint64(0)
    for p in range(indices.shape[0]):
        largest = max(largest, np.uint64(np.int64(indices[p])))
    if largest < np.uint64(n):
        return -1
    for p in range(indices.shape[0]):
        if np.uint64(np.int64(indices[p])) >= np.uint64(n):
            return p
    return -1


def check_sparse_structure(matrix, where="X", columns=True):
    """Refuse a sparse matrix whose index arrays scipy's conversions or a
    compiled loop could follow out of bounds, before it is converted.

    Converting a CSC or COO matrix to CSR (as scikit-learn's ``check_array``
    does) writes through its row indices unchecked: an index out of range
    there corrupts memory before any check of the CSR result could run.
    CSR and CSC are checked by :func:`check_csr_structure`, COO by the
    range of its coordinates; other formats (LIL, DOK, DIA, BSR) are converted by code
    that checks what it reads, or are checked once converted to CSR.

    ``columns=False`` leaves a CSR matrix's column indices to the caller
    (:func:`check_csr_structure`).

    Raises
    ------
    ValueError
        Naming ``where``, the format and the first problem.
    """
    fmt = matrix.format
    if fmt in ("csr", "csc"):
        check_csr_structure(matrix, where, columns)
    elif fmt == "coo":
        for axis, (coords, size) in enumerate(zip(matrix.coords,
                                                  matrix.shape)):
            if coords.shape != matrix.data.shape:
                raise ValueError(f"{where}: COO coordinates and data differ "
                                 "in length")
            bad = _first_outside(coords, size) if coords.size else -1
            if bad >= 0:
                raise ValueError(
                    f"{where}: a COO {('row', 'column')[axis]} index is "
                    f"{int(coords[bad])}, outside [0, {size})")


def plain_repr(value):
    """``repr`` of a value as the user wrote it: a numpy scalar as its
    Python value (``1.0``, ``'label'``), not numpy 2's ``np.float64(1.0)``
    or ``np.str_('label')``."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


# numpy 2's scalar reprs: np.float64(1.5), np.str_('a'), np.True_.
_NUMPY_REPR = re.compile(r"\bnp\.(?:[a-z]+[0-9]*_?\((.*?)\)|(True|False)_)")


def plain_reprs(text):
    """``text`` with numpy scalar reprs written as Python values (for a
    message made by code that formats values with ``repr``)."""
    return _NUMPY_REPR.sub(lambda m: m.group(1) or m.group(2), text)


#: Bytes of a float64 block of rows when float32 X meets float64 weights
#: (:func:`linear_scores`).
_SCORE_BLOCK_BYTES = 1 << 20


def linear_scores(X, W):
    """``X Wᵀ`` as a dense float64 array, without a float64 copy of X.

    float64 X goes to scikit-learn's ``safe_sparse_dot`` as always. numpy
    and scipy multiply a float32 X by float64 weights by first converting
    the whole of X to float64; here float32 X is converted a block of rows
    at a time, so the extra memory is a block, and each product is the
    one float64 X would give (float32 values are exact in float64).

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
    W : ndarray of shape (n_rows, n_features), float64

    Returns
    -------
    ndarray of shape (n_samples, n_rows), float64
    """
    if type(X) is np.ndarray and X.dtype == np.float64:
        # safe_sparse_dot's own product for dense X, without its checks
        # (a third of predict_one's cost).
        return X @ W.T
    from sklearn.utils.extmath import safe_sparse_dot

    if X.dtype != np.float32:
        return safe_sparse_dot(X, W.T, dense_output=True)
    out = np.empty((X.shape[0], W.shape[0]))
    rows = max(1, _SCORE_BLOCK_BYTES // (8 * max(X.shape[1], 1)))
    for lo in range(0, X.shape[0], rows):
        block = X[lo:lo + rows].astype(np.float64)
        out[lo:lo + block.shape[0]] = safe_sparse_dot(block, W.T,
                                                      dense_output=True)
    return out
