"""Probabilities through scikit-learn's ``CalibratedClassifierCV`` (issue #39,
point 3), on every estimator of the registry.

No estimator here has ``predict_proba`` (neither has scikit-learn's
Perceptron): a margin is not a probability, and none is invented. A user
who needs probabilities wraps the estimator in ``CalibratedClassifierCV``,
which maps ``decision_function`` to probabilities by a sigmoid (Platt) or an
isotonic fit, either on a model already fitted (``FrozenEstimator`` from
scikit-learn 1.6, ``cv="prefit"`` before) or on k folds. Each estimator's
defaults are run through both methods, both ways, on dense and CSR input,
with two and three classes.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification

from tests import _registry as reg


def _frozen(est):
    """``est`` (fitted) as CalibratedClassifierCV takes a fitted model:
    ``FrozenEstimator`` (scikit-learn >= 1.6), else ``cv="prefit"``."""
    try:
        from sklearn.frozen import FrozenEstimator
    except ImportError:
        return dict(estimator=est, cv="prefit")
    return dict(estimator=FrozenEstimator(est))


def _data(n_classes, storage):
    X, y = make_classification(n_samples=240, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, class_sep=1.5,
                               random_state=n_classes)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    if storage == "csr":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    return X[:120], y[:120], X[120:180], y[120:180], X[180:], y[180:]


@reg.mark()
@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("cls", reg.estimator_classes(), ids=reg.class_id)
def test_calibrated_probabilities(cls, storage):
    """Sigmoid and isotonic, on the fitted model and on 3 folds: the
    probabilities are rows that sum to 1, over the estimator's classes, and
    their Brier score on held-out rows is below the uniform guess's (the
    log loss would be infinite at isotonic's 0 on one row)."""
    assert not hasattr(cls(), "predict_proba")
    for n_classes in (2, 3):
        X, y, X_cal, y_cal, X_test, y_test = _data(n_classes, storage)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = cls().fit(X, y)
            for method in ("sigmoid", "isotonic"):
                for calibrated in (
                        CalibratedClassifierCV(method=method,
                                               **_frozen(fitted)).fit(
                            X_cal, y_cal),
                        CalibratedClassifierCV(cls(), method=method,
                                               cv=3).fit(X, y)):
                    proba = calibrated.predict_proba(X_test)
                    where = f"{method}, {n_classes} classes"
                    assert proba.shape == (X_test.shape[0], n_classes), where
                    assert np.all((proba >= 0) & (proba <= 1)), where
                    np.testing.assert_allclose(proba.sum(axis=1), 1.0,
                                               rtol=1e-12, err_msg=where)
                    np.testing.assert_array_equal(calibrated.classes_,
                                                  fitted.classes_)
                    onehot = y_test[:, None] == fitted.classes_
                    brier = np.mean(np.sum((proba - onehot) ** 2, axis=1))
                    assert brier < 1.0 - 1.0 / n_classes, where


def test_the_frozen_model_is_not_refitted():
    """On a fitted model the calibrator reads its decision_function and
    leaves its state as it was (``FrozenEstimator``'s promise)."""
    from perceptrons import Perceptron

    X, y, X_cal, y_cal, _, _ = _data(3, "dense")
    est = Perceptron(random_state=0).fit(X, y)
    coef = est.coef_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CalibratedClassifierCV(method="sigmoid", **_frozen(est)).fit(
            X_cal, y_cal)
    np.testing.assert_array_equal(est.coef_, coef)
