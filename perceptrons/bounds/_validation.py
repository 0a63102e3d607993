"""Input checks shared by the mistake-bound functions.

Pure numpy/scipy. Every check raises a :class:`ValueError` whose message names
the offending argument and the problem, so that a failing theory test says
*what* was wrong with the sequence or the comparator.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp

from ..utils.validation import check_sparse_structure

__all__ = [
    "check_sequence",
    "check_instances",
    "check_comparator",
    "check_positive",
    "check_nonnegative",
    "check_n_passes",
    "check_count",
]


def check_instances(X):
    """Return ``X`` as a finite float64 2-d ndarray or CSR matrix.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances x_1, ..., x_T, one per row.

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix/csr_array, float64
        Dense input is converted with :func:`numpy.asarray`; sparse input is
        converted to CSR (never densified).

    Raises
    ------
    ValueError
        If ``X`` is not 2-d, has no rows, is not real-valued, contains NaN
        or infinity, or is a sparse matrix with index arrays out of range.
    """
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d, got a sparse input with ndim={X.ndim}.")
        # Before any conversion or product follows the index arrays.
        check_sparse_structure(X, "X")
        X = X.tocsr()
        if X.dtype.kind not in "biuf":
            raise ValueError(f"X must be real-valued, got dtype {X.dtype}.")
        X = X.astype(np.float64)
        values = X.data
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            try:
                X = X.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"X must be real-valued, got dtype {X.dtype}."
                ) from exc
        if X.ndim != 2:
            raise ValueError(
                f"X must be 2-d (n_samples, n_features), got shape {X.shape}."
            )
        X = X.astype(np.float64, copy=False)
        values = X
    if X.shape[0] == 0:
        raise ValueError("X has no rows: a mistake bound needs a non-empty sequence.")
    if not np.all(np.isfinite(values)):
        raise ValueError("X contains NaN or infinity; every instance must be finite.")
    return X


def check_sequence(X, y):
    """Validate an example sequence ``(x_t, y_t)``, t = 1..T.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        Instances, one per row.
    y : array-like of shape (n_samples,)
        Labels, each exactly -1 or +1.

    Returns
    -------
    X : ndarray or CSR matrix, float64
        As returned by :func:`check_instances`.
    y : ndarray of shape (n_samples,), float64
        The labels as ±1.0.

    Raises
    ------
    ValueError
        On any problem with ``X`` (see :func:`check_instances`), if ``y`` is
        not 1-d, if its length differs from the number of rows of ``X``, or if
        it holds a value other than -1 and +1.
    """
    X = check_instances(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d, got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and y have mismatched lengths: X has {X.shape[0]} rows, "
            f"y has {y.shape[0]} labels."
        )
    if y.dtype.kind not in "biuf":
        raise ValueError(f"y must hold the labels -1 and +1, got dtype {y.dtype}.")
    y = y.astype(np.float64)
    bad = ~((y == 1.0) | (y == -1.0))
    if np.any(bad):
        values = np.unique(y[bad])[:5]
        raise ValueError(
            f"y must hold only the labels -1 and +1, found {values.tolist()}; "
            "map the two classes to -1/+1 first."
        )
    return X, y


def check_comparator(u, n_features):
    """Return the comparator vector ``u`` normalised to unit norm.

    Parameters
    ----------
    u : array-like of shape (n_features,)
        Any non-zero finite vector; only its direction matters.
    n_features : int
        Number of columns of ``X``.

    Returns
    -------
    u : ndarray of shape (n_features,), float64
        ``u / ||u||``.

    Raises
    ------
    ValueError
        If ``u`` is not 1-d of length ``n_features``, is not finite, or is
        the zero vector.
    """
    u = np.asarray(u)
    if u.dtype.kind not in "biuf":
        raise ValueError(f"u must be a real-valued vector, got dtype {u.dtype}.")
    u = u.astype(np.float64)
    if u.ndim != 1 or u.shape[0] != n_features:
        raise ValueError(
            f"u must have shape ({n_features},) to match X, got shape {u.shape}."
        )
    if not np.all(np.isfinite(u)):
        raise ValueError("u contains NaN or infinity.")
    norm = np.linalg.norm(u)
    if not norm > 0.0:
        raise ValueError(
            "u is the zero vector: the comparator must be non-zero "
            "(it is normalised to unit norm)."
        )
    if not np.isfinite(norm):
        # Entries are finite but their squares overflow: rescale first.
        scale = np.max(np.abs(u))
        u = u / scale
        norm = np.linalg.norm(u)
    return u / norm


def _check_real(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}.")
    return value


def check_positive(value, name):
    """``value`` as a float, requiring a finite number > 0 (ValueError
    naming ``name`` otherwise)."""
    return _check_at_least(value, name, strict=True)


def check_nonnegative(value, name):
    """``value`` as a float, requiring a finite number >= 0 (ValueError
    naming ``name`` otherwise)."""
    return _check_at_least(value, name, strict=False)


def _check_at_least(value, name, strict):
    value = _check_real(value, name)
    if value < 0.0 or (strict and value == 0.0):
        raise ValueError(f"{name} must be {'>' if strict else '>='} 0, got "
                         f"{value}.")
    return value


def check_n_passes(n_passes):
    """Return ``n_passes`` as an int >= 1.

    Parameters
    ----------
    n_passes : int
        Number of times the sequence is presented.

    Returns
    -------
    n_passes : int

    Raises
    ------
    ValueError
        If ``n_passes`` is not an integer or is smaller than 1.
    """
    return check_count(n_passes, "n_passes", 1)


def check_count(value, name, minimum):
    """Return ``value`` as an int >= ``minimum`` (bools are refused).

    Shared by :func:`check_n_passes` and the Ballseptron's margin-error count;
    the error message names ``name``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, np.integer)
    ):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}.")
    return int(value)
