"""Progressive validation: predict each example, then learn from it.

The prequential protocol of online learning (river's
``evaluate.progressive_val_score``): every example is first a test example
for the model trained on the examples before it, then a training example.
"""

import numpy as np

__all__ = ["progressive_val_score"]


class _Accuracy:
    """Running accuracy, with river's ``update``/``get`` interface."""

    def __init__(self):
        self.n = 0
        self.right = 0

    def update(self, y_true, y_pred):
        self.n += 1
        self.right += int(y_true == y_pred)

    def get(self):
        return self.right / self.n if self.n else 0.0

    def __repr__(self):
        return f"Accuracy: {self.get():.2%}"


def progressive_val_score(estimator, stream, metric=None, *, classes=None):
    """Predict, then learn, one example at a time over ``stream``.

    As river's ``evaluate.progressive_val_score``: an example met before the
    model has learned anything is learned without being predicted (river's
    models answer None there and river skips the update of the metric).

    Parameters
    ----------
    estimator : OnlineClassifier
        Any estimator of this package; trained in place (fresh, or
        continuing a fitted model).
    stream : iterable of (x, y)
        Examples: ``x`` a dict or 1-D array (:meth:`learn_one`), ``y`` a
        label.
    metric : object, default=None
        With river's interface (``update(y_true, y_pred)``, ``get()``);
        None counts accuracy.
    classes : array-like, default=None
        Every class, required unless the estimator is fitted.

    Returns
    -------
    metric : object
        The metric, updated; its ``get()`` is the score.
    """
    metric = _Accuracy() if metric is None else metric
    if classes is not None:
        classes = np.asarray(classes)
    for x, y in stream:
        if hasattr(estimator, "state_"):
            metric.update(y, estimator.predict_one(x))
            estimator.learn_one(x, y)
        else:
            estimator.learn_one(x, y, classes=classes)
    return metric
