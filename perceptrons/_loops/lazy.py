"""A weight row kept as a scale times a vector, and its running sum kept
lazily: the thresholds and the moves the loops that rescale w share.

scikit-learn's ``WeightVector`` keeps ``w = scale · v`` so that a step that
multiplies the whole of w costs O(1), and an averaged sum as
``summed + β v`` so that a step adds to it in O(nnz(x)) rather than O(d).
The Ballseptron's binary loop (its margin-error shrink ``w ← c w``) and
ALMA's (the normalisation ``w ← w / max(1, ‖w‖)``) keep their rows so;
what they share is written here once:

* the range of the scale, :data:`SCALE_MIN` (and :data:`SCALE_MAX` for a
  scale that may grow), outside which it is multiplied into the row
  (:func:`scale_row`);
* :data:`FOLD`, the factor by which the scale may move between two folds
  of the lazy sum into ``summed`` (:func:`fold_row`): between folds the
  terms taken off ``summed`` grow like ``1/scale`` while the sum does not,
  so the fold bounds the sum's rounding to about ``FOLD · eps`` relative;
* :data:`CANCEL`, the fraction of its positive terms below which a norm
  kept up to date incrementally is recomputed exactly (its relative error
  then stays near ``eps / CANCEL``).

Each loop keeps its own scale and β (one row, or one per problem) and
decides when to fold, multiply out or recompute; the helpers take a store
(:mod:`perceptrons._loops.storage`), so that the same source serves the
weights by feature and the coefficients by support slot. Folds never touch
``current`` or the scale, so a run with the averaged sum makes the same
steps, bit for bit, as one without.
"""

from numba import njit

from .storage import n_columns

__all__ = ["CANCEL", "FOLD", "SCALE_MAX", "SCALE_MIN", "fold_row",
           "scale_row", "zero_row"]

#: A scale below this (in magnitude) is multiplied into its row.
SCALE_MIN = 1e-9
#: A scale above this (in magnitude) is multiplied into its row.
SCALE_MAX = 1e9
#: A norm kept up to date is recomputed when its update leaves less than
#: this fraction of its positive terms.
CANCEL = 1e-2
#: The lazy sum is folded into ``summed`` when the scale (or the per-step
#: factor) has moved by this factor since the last fold.
FOLD = 1e4


@njit(cache=True, inline="always")
def fold_row(store, r, beta):
    """``summed[r] += beta · current[r]`` over the columns in use (the lazy
    sum of row r made explicit)."""
    for p in range(n_columns(store)):
        store.summed[r, p] += beta * store.current[r, p]


@njit(cache=True, inline="always")
def scale_row(store, r, s):
    """``current[r] *= s`` over the columns in use (the scale made
    explicit)."""
    for p in range(n_columns(store)):
        store.current[r, p] *= s


@njit(cache=True, inline="always")
def zero_row(store, r):
    """``current[r] = 0`` over the columns in use (a scale of 0)."""
    for p in range(n_columns(store)):
        store.current[r, p] = 0.0
