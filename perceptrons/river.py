"""Every estimator as a river classifier.

:func:`as_river` wraps an estimator of this package in a
``river.base.Classifier``: river's ``learn_one``/``predict_one`` go to the
estimator's own (``learn_one`` of
:class:`~perceptrons.models._driver.OnlineClassifier`),
so river's pipelines and ``evaluate.progressive_val_score`` run the paper's
update one example at a time. river is an optional dependency
(``pip install perceptrons[river]``).
"""

import numpy as np

__all__ = ["as_river"]


def as_river(estimator, classes):
    """The estimator as a river classifier.

    Parameters
    ----------
    estimator : OnlineClassifier
        Trained in place by the wrapper's ``learn_one``.
    classes : array-like
        Every class: a linear model's shape depends on them, where river's
        models discover labels as they come.

    Returns
    -------
    river.base.Classifier

    Raises
    ------
    ImportError
        If river is not installed.
    """
    try:
        from river import base
    except ImportError:
        raise ImportError("as_river needs river: pip install "
                          "'perceptrons[river]'") from None

    class RiverClassifier(base.Classifier):
        """A perceptrons estimator behind river's interface."""

        def __init__(self, estimator, classes):
            self.estimator = estimator
            self.classes = classes

        @property
        def _multiclass(self):
            return True

        def learn_one(self, x, y):
            fitted = hasattr(self.estimator, "state_")
            self.estimator.learn_one(
                x, y, classes=None if fitted else np.asarray(self.classes))

        def predict_one(self, x):
            # river's convention: a model that has learned nothing answers
            # None, and the metrics skip it.
            if not hasattr(self.estimator, "state_"):
                return None
            return self.estimator.predict_one(x)

        def predict_proba_one(self, x):
            # Perceptrons give no probabilities: all the mass on the
            # predicted class (river's default for such classifiers).
            label = self.predict_one(x)
            return {} if label is None else {label: 1.0}

    return RiverClassifier(estimator, list(classes))
