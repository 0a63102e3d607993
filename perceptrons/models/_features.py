"""Features that arrive after the first call: a state's per-feature arrays
grown to more features.

A dict example (``learn_one``, river) may carry a key the model has not
seen. The driver asks the algorithm for its state with the new features
appended (:meth:`~perceptrons.models._driver.protocol.Algorithm.grow_features`;
``feature_growth_refusal`` says why not): the grown state is the state the
run would have reached had the feature been there from the first example
with the value 0, which every rule of the package leaves at its start. So
a new feature's weight is 0 (and its summed weight, for an averaged
hypothesis), a support vector's value of it is 0 (a kernel model reads a
missing feature as zero), and a matrix of the second-order forms gets its
fresh diagonal entry, none of which any earlier step touched.

:func:`padded_state` grows every array that a state declares along
``"n_features"`` (:mod:`perceptrons.models._state`), nested states
included, by zeros: what an algorithm whose fresh per-feature values are
all zero needs; an algorithm with another start (a matrix's identity)
writes its own.
"""

import numpy as np
import scipy.sparse as sp

from ._state import State

__all__ = ["inserted_coordinates", "padded", "padded_state"]


def padded(array, axes, n_new, fill=0.0):
    """``array`` with ``n_new`` entries of ``fill`` appended along each of
    ``axes`` (a dense array or a CSR matrix's columns)."""
    if sp.issparse(array):
        data, indices, indptr = array.data, array.indices, array.indptr
        return sp.csr_matrix((data, indices, indptr),
                             shape=(array.shape[0], array.shape[1] + n_new))
    shape = list(array.shape)
    for axis in axes:
        shape[axis] += n_new
    out = np.full(shape, fill, dtype=array.dtype)
    out[tuple(slice(0, n) for n in array.shape)] = array
    return out


def inserted_coordinates(array, at, n_new, diagonal):
    """Per-problem vectors ``(n_rows, m)`` or matrices ``(n_rows, m, m)``
    with ``n_new`` coordinates inserted at index ``at``: a new coordinate
    of a vector is ``diagonal``; of a matrix, its diagonal entry is
    ``diagonal`` and its other entries 0 (a fresh coordinate that no step
    has coupled to another: Σ = aI's, B = I's)."""
    if array.ndim == 2:
        new = np.full((array.shape[0], n_new), diagonal, dtype=array.dtype)
        return np.concatenate([array[:, :at], new, array[:, at:]], axis=1)
    n_rows, m, _ = array.shape
    kept = np.r_[0:at, at + n_new:m + n_new]
    out = np.zeros((n_rows, m + n_new, m + n_new), dtype=array.dtype)
    out[:, kept[:, None], kept] = array
    fresh = np.arange(at, at + n_new)
    out[:, fresh, fresh] = diagonal
    return out


def padded_state(state, n_new, n_features, overrides=None):
    """``state`` with ``n_new`` features appended to its ``n_features``:
    every array declared along ``"n_features"`` padded with zeros, every
    nested state likewise (its own ``grown_features(n_new, n_features)``
    when it has one), ``n_features_in`` raised.

    Parameters
    ----------
    state : State
    n_new : int
    n_features : int
        The state's features before.
    overrides : dict, optional
        Field name -> the grown value, for fields whose fresh values are not
        zero (written by the algorithm).
    """
    changes = dict(overrides or {})
    for name, spec in state.specs():
        if name in changes:
            continue
        value = getattr(state, name)
        if value is None:
            continue
        if name == "n_features_in":
            changes[name] = value + n_new
        elif spec.what == "sub":
            changes[name] = grown_sub(value, n_new, n_features)
        elif spec.what in ("array", "rows") and spec.kind != "names":
            axes = [axis for axis, symbol in enumerate(spec.shape)
                    if symbol == "n_features"
                    and value.shape[axis] == n_features]
            if axes:
                changes[name] = padded(value, axes, n_new)
    return state.replace(**changes)


def grown_sub(value, n_new, n_features):
    """A nested state grown by :func:`padded_state`, or by its own
    ``grown_features`` where it has one."""
    own = getattr(value, "grown_features", None)
    if own is not None:
        return own(n_new, n_features)
    if isinstance(value, State):
        return padded_state(value, n_new, n_features)
    return value
