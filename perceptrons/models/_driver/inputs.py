"""Training and prediction input as the loops read it, validated once.

scikit-learn's ``validate_data`` for the loops (float64 or float32, C order,
CSR), a shortcut for input that is already in that form, the encoding of
labels as class indices, and the one pass over X that checks finiteness and
column indices and gives ``Σ <x_i, x_i>`` (:func:`checked_column_sq_sums`).
:func:`validate_input` starts a call's
:class:`~perceptrons.models._driver.call.TrainingCall` from them.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_feature_names, validate_data

from ..._loops._common import (
    column_sq_sums,
    few_distinct_values,
    label_codes,
)
from ...utils.validation import (as_loop_arrays, check_sparse_structure,
                                 outside_columns)
from .call import TrainingCall

__all__ = ["as_read", "call_targets", "checked_column_sq_sums", "encode",
           "few_label_encoding", "is_indicator", "label_signs",
           "plain_class_labels", "target_shape", "validate_input",
           "validated"]


def checked_column_sq_sums(loop_arrays, n_features):
    """``sum_i x_ij²`` for every column of X, rejecting non-finite input
    and CSR column indices outside ``[0, n_features)``.

    Parameters
    ----------
    loop_arrays : tuple
        X as the primal loops read it
        (:func:`~perceptrons.utils.validation.as_loop_arrays`).
    n_features : int

    Returns
    -------
    ndarray of shape (n_features,)

    Raises
    ------
    ValueError
        If X holds NaN or infinity, the squares overflow float64, or a
        column index is out of range.
    """
    col_sq = np.zeros(n_features)
    bad = column_sq_sums(*loop_arrays, n_features, col_sq)
    if bad >= 0:
        raise outside_columns(loop_arrays[1], bad, n_features)
    if not np.isfinite(col_sq).all():
        data = loop_arrays[0]
        if np.isnan(data).any():
            raise ValueError("Input X contains NaN.")
        if not np.isfinite(data).all():
            raise ValueError("Input X contains infinity.")
        column = int(np.flatnonzero(~np.isfinite(col_sq))[0])
        raise ValueError(
            f"the squares of column {column} overflow float64; scale the "
            "input (e.g. StandardScaler)")
    return col_sq


def plain_class_labels(y):
    """True for integer or boolean labels, or finite integral floats.

    Such labels are classification targets by construction, so the cost of
    scikit-learn's ``type_of_target`` (about 0.15 ms on a9a) is spared;
    anything else goes through ``check_classification_targets``.
    """
    if y.ndim != 1:
        return False
    if y.dtype.kind in "iub":
        return True
    if y.dtype.kind == "f":
        return bool(np.isfinite(y).all() and np.array_equal(y, np.rint(y)))
    return False


def validated(estimator, X, y="no_validation", reset=True,
               columns_checked_later=False, **kwargs):
    """scikit-learn's ``validate_data`` for the loops: float64, C order, CSR.

    A sparse X has its index arrays checked first (scipy checks none of
    them, and its conversion of a CSC or COO matrix to CSR writes through
    them); complex X is refused in one line, where scikit-learn's message
    prints the whole array. Input that is already what the loops read
    takes :func:`plain_input` instead. ``columns_checked_later``: a CSR
    matrix's column indices are left to the caller's next pass
    (:func:`checked_column_sq_sums`), which nothing before it follows.
    """
    if sp.issparse(X):
        check_sparse_structure(X, "X", columns=not columns_checked_later)
    plain = plain_input(estimator, X, y, reset,
                         kwargs.get("ensure_all_finite", True))
    if plain is not None:
        return plain
    try:
        return validate_data(estimator, X, y, accept_sparse="csr",
                             dtype=(np.float64, np.float32), order="C",
                             reset=reset, **kwargs)
    except ValueError as exc:
        if str(exc).startswith("Complex data not supported"):
            raise ValueError(
                "Complex data not supported in X: pass real features (e.g. "
                "X.real, or the real and imaginary parts as separate "
                "columns)") from None
        raise


_PLAIN_SPARSE = (sp.csr_matrix, sp.csr_array)


def plain_input(estimator, X, y, reset, check_finite):
    """What ``validate_data`` makes of input it would pass through as it is.

    A non-empty 2-D C-ordered float64/float32 ndarray or CSR matrix (exact
    types: no data frame, hence no feature names) with, if given, a 1-D
    ndarray of finite numeric labels of the same length: scikit-learn's
    ``validate_data`` returns these unchanged and sets ``n_features_in_``,
    after checks (data frame detection, tags, feature names) that cost
    about 0.5 ms a call, a fifth of a one-pass ``fit`` on a9a. Here the
    same bookkeeping is done directly (a mismatch in the number of
    features still raises scikit-learn's own message); anything else,
    non-finite X included when ``check_finite``, returns None and goes
    through ``validate_data``, which raises its own messages.

    Returns
    -------
    X or (X, y) or None
    """
    if type(X) is np.ndarray:
        if X.ndim != 2 or not X.flags.c_contiguous:
            return None
    elif type(X) not in _PLAIN_SPARSE:
        return None
    if (X.dtype not in (np.float64, np.float32) or X.shape[0] == 0
            or X.shape[1] == 0):
        return None
    # scikit-learn's own shortcut: a finite sum means finite entries.
    if check_finite and not np.isfinite(np.sum(X.data if sp.issparse(X)
                                               else X)):
        return None
    no_y = isinstance(y, str) and y == "no_validation"
    if not no_y and (type(y) is not np.ndarray or y.ndim != 1
                     or y.shape[0] != X.shape[0]
                     or y.dtype.kind not in "iubf"
                     or (y.dtype.kind == "f" and not np.isfinite(y).all())):
        return None
    if reset:
        estimator.n_features_in_ = X.shape[1]
        estimator.__dict__.pop("feature_names_in_", None)
    else:
        if getattr(estimator, "feature_names_in_", None) is not None:
            # scikit-learn's warning: fitted with names, given none.
            _check_feature_names(estimator, X, reset=False)
        expected = getattr(estimator, "n_features_in_", X.shape[1])
        if X.shape[1] != expected:
            raise ValueError(
                f"X has {X.shape[1]} features, but "
                f"{type(estimator).__name__} is expecting {expected} "
                "features as input.")
    return X if no_y else (X, y)


#: Most distinct labels the one-pass encoding handles; more go through
#: ``np.unique`` (a sort) and one comparison pass per class.
_FEW_CLASSES = 16


def few_label_encoding(y):
    """Sorted classes and class indices of numeric labels, in two passes.

    ``np.unique`` sorts the labels (50 ms for 4.9 million of them) and
    :func:`encode` makes one pass per class; for
    integer labels, or finite integral floats (the labels
    :func:`plain_class_labels` accepts), with at most ``_FEW_CLASSES``
    distinct values, one pass finds them and one pass encodes.

    Returns
    -------
    (classes, targets) or None
        ``classes`` equals ``np.unique(y)``; ``targets`` (int64) indexes
        it. None when y is of another kind or has more distinct values.
    """
    if (y.ndim != 1 or y.shape[0] == 0 or not y.dtype.isnative
            or not (y.dtype.kind in "iu"
                    or y.dtype in (np.float32, np.float64))):
        return None
    values = np.empty(_FEW_CLASSES, dtype=y.dtype)
    n = few_distinct_values(y, values)
    if n < 0:
        return None
    classes = np.sort(values[:n])
    if y.dtype.kind == "f" and not (np.isfinite(classes).all()
                                    and np.array_equal(classes,
                                                       np.rint(classes))):
        return None
    targets = np.empty(y.shape[0], dtype=np.int64)
    label_codes(y, classes, targets)
    return classes, targets



def target_shape(y):
    """The shape of ``y`` as given (a sparse matrix's, or its array's)."""
    if sp.issparse(y):
        return y.shape
    shape = getattr(y, "shape", None)
    return tuple(shape) if shape is not None else np.asarray(y).shape


def is_indicator(y):
    """Whether ``y`` is given as a multi-label target: a 2-D array (or a
    scipy.sparse matrix) of two or more columns, one per label. A column
    vector ``(n, 1)`` stays a 1-D y of labels, as scikit-learn's
    classifiers take it (with its ``DataConversionWarning``)."""
    shape = target_shape(y)
    return len(shape) == 2 and shape[1] != 1


def label_signs(y, n_samples=None):
    """The labels ±1 of a multi-label target, one problem per column.

    Parameters
    ----------
    y : array-like or sparse matrix of shape (n_samples, n_labels)
        A 0/1 indicator (integers, booleans or integral floats).
    n_samples : int, optional
        The rows of X, checked against y's.

    Returns
    -------
    ndarray of shape (n_samples, n_labels), int8, C order
        +1 where a label is on, -1 where it is off.

    Raises
    ------
    ValueError
        If y holds other values than 0 and 1 (NaN included), has no
        column, or its row count differs from X's.
    """
    if sp.issparse(y):
        y = y.toarray()
    y = np.asarray(y)
    if y.ndim != 2:
        raise ValueError(f"a multi-label y is 2-D; got shape {y.shape}")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValueError(
            f"y has {y.shape[0]} rows but X has {n_samples}: a multi-label "
            "y has one row per sample")
    if y.shape[1] == 0:
        raise ValueError("a multi-label y needs at least one label column; "
                         "got shape " + str(y.shape))
    if y.dtype.kind not in "biuf":
        raise ValueError(
            f"a multi-label y is a 0/1 indicator; got dtype {y.dtype} "
            "(encode a list of label sets with scikit-learn's "
            "MultiLabelBinarizer)")
    on, off = y == 1, y == 0
    bad = ~(on | off)
    if bad.any():
        row, col = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"a multi-label y is a 0/1 indicator; y[{row}, {col}] is "
            f"{y[row, col].item()!r} (values: 0 for off, 1 for on, no NaN)")
    return np.ascontiguousarray(np.where(on, 1, -1).astype(np.int8))


def as_read(algorithm, X):
    """X in the precision the algorithm reads (a float64 copy of float32
    input for an algorithm that does not keep float32)."""
    if X.dtype == np.float32 and not algorithm.keeps_float32():
        return X.astype(np.float64)
    return X


def validate_input(estimator, algorithm, X, y, reset, row_checked=False):
    """Validate (X, y) and start the call's
    :class:`~perceptrons.models._driver.call.TrainingCall`.

    Parameters
    ----------
    estimator : OnlineClassifier
        Whose ``n_features_in_``/``feature_names_in_`` are set (``reset``)
        or checked.
    algorithm : Algorithm
        Says whether it keeps float32 and reads the row norms.
    X, y : array-like
    reset : bool
        A first call: the input's width and names become the model's.
    row_checked : bool, default=False
        One row from ``learn_one``, whose shape and dtype were checked
        there.

    Returns
    -------
    X, y
        The validated data; a multi-label y as its labels ±1
        (:func:`label_signs`).
    call : TrainingCall
        With ``X``, ``loop_arrays``, ``labels``, ``sq_norms``,
        ``sq_norm_sum`` and ``mean_sq_norm``.
    """
    # Finiteness is checked by the squared-norm pass below instead of
    # scikit-learn's own scan: one read of X serves both.
    if row_checked and not reset:
        # One row from learn_one, shape and dtype checked there (a
        # tenth of scikit-learn's validate_data per call).
        y = np.asarray(y)
    elif is_indicator(y):
        # A multi-label y: X validated alone, y as ±1 per label.
        X = validated(estimator, X, reset=reset, ensure_all_finite=False,
                      columns_checked_later=True)
        y = label_signs(y, X.shape[0])
    else:
        # The squared-norm pass checks the CSR column indices too
        # (read once, not twice); until then only scipy's duplicate
        # and order checks read them, within each row's span.
        X, y = validated(estimator, X, y, reset=reset, y_numeric=False,
                         ensure_all_finite=False,
                         columns_checked_later=True)
    X = as_read(algorithm, X)
    # Numeric labels with few classes are found and encoded in two
    # passes; they are plain class labels by construction.
    labels = None if y.ndim == 2 else few_label_encoding(y)
    if labels is None and y.ndim == 1 and not plain_class_labels(y):
        check_classification_targets(y)
    if sp.issparse(X) and not X.has_canonical_format:
        # The loops and the row norms want sorted, unique indices; never
        # reorder the caller's matrix in place.
        X = X.copy()
        X.sum_duplicates()
    # One pass checks finiteness and gives the average <x, x>; the
    # per-row norms cost a second pass, made only for algorithms that read
    # them (0.4 ms of a 1.5 ms fit on a9a).
    loop_arrays = as_loop_arrays(X)
    col_sq = checked_column_sq_sums(loop_arrays, X.shape[1])
    sq_norm_sum = float(np.sum(col_sq))
    call = TrainingCall(
        X=X, loop_arrays=loop_arrays, labels=labels,
        sq_norm_sum=sq_norm_sum,
        mean_sq_norm=sq_norm_sum / X.shape[0] if X.shape[0] else 0.0,
        sq_norms=algorithm.row_sq_norms(X, loop_arrays),
        n_labels=y.shape[1] if y.ndim == 2 else 0)
    return X, y, call


def call_targets(call, y):
    """The call's labels as indices into ``call.classes``: from the
    labels' one-pass encoding when there is one
    (:func:`few_label_encoding`), else :func:`encode`. A multi-label
    call's labels are already the loops' (its ±1 per label)."""
    if call.n_labels:
        return y
    classes = call.classes
    if call.labels is None:
        return encode(y, classes)
    values, codes = call.labels
    if values.shape[0] == classes.shape[0] and np.array_equal(
            values, classes):
        return codes
    if classes.dtype.kind not in "iuf":
        return encode(y, classes)
    # partial_fit with a subset of classes_: map the call's few values.
    position = np.searchsorted(classes, values)
    position = np.clip(position, 0, len(classes) - 1)
    if np.any(classes[position] != values):
        return encode(y, classes)  # raises on the unseen labels
    return position.astype(np.int64)[codes]


def encode(y, classes):
    """Map labels to indices into ``classes``; reject unseen labels."""
    if classes.shape[0] <= 16:
        # A pass per class beats searchsorted's binary search for few
        # classes (0.05 vs 0.2 ms on a9a).
        targets = np.full(y.shape[0], -1, dtype=np.int64)
        for k, label in enumerate(classes):
            targets[y == label] = k
        unseen = targets < 0
    else:
        targets = np.searchsorted(classes, y)
        targets = np.clip(targets, 0, len(classes) - 1)
        unseen = classes[targets] != y
    if np.any(unseen):
        raise ValueError(
            f"labels {np.unique(y[unseen]).tolist()!r} are not in "
            f"classes_ {classes.tolist()!r}; pass every class to "
            "the first partial_fit call with classes="
        )
    return targets.astype(np.int64, copy=False)
