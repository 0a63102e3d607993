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
