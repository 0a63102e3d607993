"""scikit-learn's own estimator checks on every public estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import perceptrons


def _public_estimators():
    out = []
    for name in perceptrons.__all__:
        obj = getattr(perceptrons, name)
        if isinstance(obj, type) and hasattr(obj, "fit"):
            out.append(obj)
    return out


def _instances():
    # Each class may declare the parameter sets it is checked with.
    for cls in _public_estimators():
        params_list = getattr(cls, "_test_params", lambda: [{}])()
        for params in params_list:
            yield cls(**params)


def _expected_failed_checks(estimator):
    return getattr(estimator, "_xfail_checks", lambda: {})()


@parametrize_with_checks(list(_instances()),
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_public_estimators_found():
    assert perceptrons.Perceptron in _public_estimators()


def _declared_state(cls):
    """The one access of this module to private state: the names a class
    declares as its fitted state (``_model_state``)."""
    return cls._model_state


def _fitted_instances():
    for cls in _public_estimators():
        for params in getattr(cls, "_test_params", lambda: [{}])():
            yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


@pytest.mark.parametrize("cls, params", list(_fitted_instances()))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fitted_estimator_is_its_declared_state(cls, params, n_classes):
    """After fit and partial_fit only parameters and ``_model_state`` remain."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=90, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    est = cls(**params)
    allowed = set(est.get_params(deep=False)) | set(_declared_state(cls))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
        assert set(vars(est)) <= allowed, sorted(set(vars(est)) - allowed)
        est.partial_fit(X[:40], y[:40])
        est.partial_fit(X[40:], y[40:])
    assert set(vars(est)) <= allowed, sorted(set(vars(est)) - allowed)
    # Nothing on the fitted estimator is sized by the training set except
    # what the model is made of (support vectors, their coefficients).
    support = {"support_", "support_vectors_", "dual_coef_", "_voted",
               "_support_X", "_pool_X", "_pool_sq", "_pool_index",
               "_pool_coef", "_pool_acc", "_pool_ls", "_support_sq"}
    for name, value in vars(est).items():
        if isinstance(value, np.ndarray) and name not in support:
            assert X.shape[0] not in value.shape, name
