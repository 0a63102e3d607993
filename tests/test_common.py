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


def _fitted_instances():
    for cls in _public_estimators():
        for params in getattr(cls, "_test_params", lambda: [{}])():
            yield pytest.param(cls, params, id=f"{cls.__name__}-{params}")


def _state_arrays(state, where="state_"):
    """``(where, array)`` of every array in a state, nested states too."""
    import dataclasses

    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        at = f"{where}.{field.name}"
        if dataclasses.is_dataclass(value):
            yield from _state_arrays(value, at)
        elif hasattr(value, "shape"):
            yield at, value


@pytest.mark.parametrize("cls, params", list(_fitted_instances()))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fitted_estimator_is_its_state(cls, params, n_classes):
    """After fit and partial_fit an estimator holds its parameters, its
    state and public attributes that are views of the state, nothing else."""
    import warnings

    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=90, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    est = cls(**params)
    params = set(est.get_params(deep=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fit in (lambda: est.fit(X, y),
                    lambda: est.partial_fit(X[:40], y[:40]),
                    lambda: est.partial_fit(X[40:], y[40:])):
            fit()
            held = set(vars(est)) - params
            assert "state_" in held
            assert all(n.endswith("_") and not n.startswith("_")
                       for n in held), sorted(held)
            # Every public attribute is a view of the state: an estimator
            # given only the state has them all, equal.
            view = cls(**est.get_params())
            view._set_state(est.state_)
            assert set(vars(view)) == set(vars(est))
            for name in held - {"state_"}:
                a, b = getattr(est, name), getattr(view, name)
                if hasattr(a, "toarray"):
                    a, b = a.toarray(), b.toarray()
                np.testing.assert_array_equal(a, b, err_msg=name)
    # Nothing in the state is sized by the training set except what the
    # model is made of (support vectors, their coefficients, vote logs).
    model_parts = ("pool", "vote_rows", "voted", ".support", "dual_coef",
                   ".coef", "v_coef", "current", "summed", "snapshot",
                   "slots", ".D", ".M", ".h", "signs")
    for where, value in _state_arrays(est.state_):
        if not any(part in where for part in model_parts):
            assert X.shape[0] not in value.shape, where
