"""One example at a time: ``learn_one`` and ``predict_one``.

The online learner's interface (river's): ``learn_one(x, y)`` is the
paper's update on one example, the same as ``partial_fit`` on that row
alone; ``x`` is a 1-D array or a dict from feature names to values (a
missing feature is 0, as in river).
"""

import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .training import partial_fit

__all__ = ["learn_one", "one_row", "predict_one"]


def learn_one(est, x, y, classes=None, sample_weight=1.0):
    """:meth:`OnlineClassifier.learn_one`."""
    if not hasattr(est, "state_"):
        refusal = est._algorithm_of_params().one_at_a_time_refusal()
        if refusal:
            raise ValueError(refusal)
    row, names = one_row(est, x)
    weights = None if sample_weight == 1.0 else [sample_weight]
    with warnings.catch_warnings():
        # The row is an array; its names, if any, were checked above.
        warnings.filterwarnings("ignore", "X does not have valid feature")
        partial_fit(est, row, [y], classes, weights, row_checked=True)
    if names is not None and est.state_.feature_names_in is None:
        est._adopt_state(est.state_.replace(feature_names_in=names))


def predict_one(est, x):
    """:meth:`OnlineClassifier.predict_one`."""
    check_is_fitted(est)
    row, _ = one_row(est, x)
    if not np.isfinite(row).all():
        raise ValueError("x contains NaN or infinity")
    return est._labels(est._scores(est._as_read(row)))[0]


def one_row(est, x):
    """``(row, names)``: x as a (1, n_features) array, and the feature
    names a first dict fixes (None otherwise).

    Raises
    ------
    ValueError
        On a dict with a feature the model does not have, or an array
        that is not one row.
    """
    if not isinstance(x, dict):
        row = np.asarray(x)
        if row.ndim != 1:
            raise ValueError(
                f"one example is a dict or a 1-D array; got an array of "
                f"shape {row.shape} (use partial_fit for several rows)")
        if row.dtype not in (np.float64, np.float32):
            if row.dtype.kind not in "iub":
                raise ValueError(f"x must hold real numbers, not "
                                 f"{row.dtype}")
            row = row.astype(np.float64)
        n_features = getattr(est, "n_features_in_", None)
        if n_features is not None and row.shape[0] != n_features:
            raise ValueError(
                f"x has {row.shape[0]} features, but "
                f"{type(est).__name__} is expecting {n_features} "
                "features as input")
        return np.ascontiguousarray(row[None, :]), None
    names = getattr(est, "feature_names_in_", None)
    if names is None and hasattr(est, "state_"):
        raise ValueError(
            "this model was trained on arrays, without feature names: "
            "pass x as a 1-D array in its column order")
    if names is None:
        names = np.asarray([str(k) for k in x], dtype=object)
        row = np.asarray([list(x.values())], dtype=np.float64)
        return row, names
    column = {name: j for j, name in enumerate(names)}
    row = np.zeros((1, len(names)))
    unknown = [k for k in x if str(k) not in column]
    if unknown:
        raise ValueError(
            f"features {unknown[:5]!r} are not among the model's "
            f"{len(names)} features (fixed by the first example or "
            "feature_names_in_); a linear model cannot grow")
    for key, value in x.items():
        row[0, column[str(key)]] = value
    return row, None
