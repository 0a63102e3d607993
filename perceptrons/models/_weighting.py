"""Row weights: ``sample_weight`` times ``class_weight``, as scikit-learn
combines them.

A row's weight ``s_i = sample_weight_i · class_weight[y_i]`` multiplies its
step in every update it causes (each model's docstring says what that means
for its rule). Rows of weight 0 are left out of the call before anything is
computed from it, so a zero weight is the same as an absent row, bit for bit.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight

from .._loops._common import column_sq_sums
from ..utils.validation import as_loop_arrays, plain_repr

__all__ = ["UNIT_WEIGHTS", "row_weights", "subset_call"]

#: The loops' "every weight is 1": no array to read, the unweighted steps.
UNIT_WEIGHTS = np.zeros(0)


def row_weights(sample_weight, class_weight, X, y, classes, targets, *,
                fitting):
    """Each row's weight ``sample_weight_i · class_weight[y_i]``.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
    class_weight : dict, "balanced" or None
        As scikit-learn's: a dict maps labels to weights (1 for a label it
        omits); "balanced" gives class c the weight
        ``Σ_i s_i / (n_classes Σ_{y_i = c} s_i)`` with ``s`` the sample
        weights (``compute_class_weight``).
    X : {ndarray, sparse matrix}
        The validated input (for the length check).
    y : ndarray
        The labels.
    classes : ndarray
        Every class of the model.
    targets : ndarray of int64
        Each row's index into ``classes``.
    fitting : bool
        False for ``partial_fit``, which refuses "balanced" (its weights
        depend on the whole training set), as scikit-learn does.

    Returns
    -------
    ndarray of shape (n_samples,), float64
        Finite and non-negative, not all zero.

    Raises
    ------
    ValueError
        On a negative, NaN or infinite weight, a wrong length, every weight
        zero, "balanced" in ``partial_fit``, or a class whose rows all weigh
        zero under "balanced".
    """
    weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                   ensure_non_negative=True, copy=True)
    if class_weight is None:
        pass
    elif isinstance(class_weight, str) and not fitting:
        raise ValueError(
            "class_weight='balanced' is not supported by partial_fit: its "
            "weights depend on the whole training set. Compute them once, "
            "e.g. sklearn.utils.class_weight.compute_class_weight('balanced', "
            "classes=classes, y=y), and pass them as a dict")
    else:
        if isinstance(class_weight, str):
            totals = np.bincount(targets, weights=weights,
                                 minlength=classes.shape[0])
            empty = np.flatnonzero(totals == 0.0)
            if empty.size:
                raise ValueError(
                    "class_weight='balanced': class "
                    f"{plain_repr(classes[empty[0]])} has no row of non-zero "
                    "weight")
        per_class = compute_class_weight(class_weight, classes=classes, y=y,
                                         sample_weight=weights)
        with np.errstate(over="ignore"):  # reported below
            weights *= per_class[targets]
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight times class_weight overflows float64 "
                         "for some rows; use smaller weights")
    if not np.any(weights > 0.0):
        raise ValueError("every row has weight zero (sample_weight times "
                         "class_weight): nothing to learn from")
    return weights


def subset_call(call, keep):
    """Leave out of ``call`` the rows where ``keep`` is False.

    Everything the call derived from X is derived again from the kept rows
    alone (the same computations, so the same bits as a call given only
    those rows); the labels' one-pass encoding is dropped (the caller holds
    the kept rows' class indices).
    """
    X = call.X[keep]
    if sp.issparse(X) and not X.has_canonical_format:
        X.sum_duplicates()
    call.X = X
    call.loop_arrays = as_loop_arrays(X)
    col_sq = np.zeros(X.shape[1])
    # Kept rows of X, whose columns the call's first pass checked.
    column_sq_sums(*call.loop_arrays, X.shape[1], col_sq)
    call.sq_norm_sum = float(np.sum(col_sq))
    call.mean_sq_norm = call.sq_norm_sum / X.shape[0]
    if call.sq_norms.shape[0]:
        call.sq_norms = call.sq_norms[keep]
    call.labels = None
