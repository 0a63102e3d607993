"""``kernel="precomputed"``: every kernel estimator trained on a Gram matrix.

Given the Gram matrix of a named kernel (the training rows' in ``fit``, the
test rows' values against the training rows in prediction, as scikit-learn's
``SVC``), a kernel estimator makes the same mistakes as with that kernel and
scores within 1e-9 (relative) of it: the kernel values come from the matrix
(the loops' Gram provider) instead of being computed, and agree with the
loops' own to rounding. What a Gram matrix of the training rows cannot
express (a continuation, rows left out) is refused with the reason.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils._param_validation import InvalidParameterError

from perceptrons.models._kernel import KERNEL_NAMES, KernelSpec
from perceptrons.registry import estimator_classes
from tests import _registry as reg

#: The named kernels compared with their Gram matrices.
NAMED = {"rbf": {"gamma": 0.3},
         "poly": {"degree": 3, "gamma": 0.2, "coef0": 1.0}}


def _takes_precomputed(cls):
    for constraint in cls._parameter_constraints.get("kernel", ()):
        options = getattr(constraint, "options", ())
        if "precomputed" in options:
            return True
    return False


def _kernel_estimators():
    """Every estimator of the registry that takes a precomputed kernel,
    with its test parameter sets (kernel, gamma, cache size, ... dropped:
    the comparison sets its own)."""
    for name, cls in estimator_classes().items():
        if not _takes_precomputed(cls):
            continue
        seen = set()
        for params in cls._test_params():
            kept = {k: v for k, v in params.items()
                    if k not in ("kernel", "gamma", "degree", "coef0",
                                 "cache_size", "p", "form")}
            key = repr(sorted(kept.items()))
            if key not in seen:
                seen.add(key)
                yield pytest.param(cls, kept, id=f"{name}-{kept}")


def test_every_kernel_estimator_takes_a_precomputed_kernel():
    names = {name for name, cls in estimator_classes().items()
             if "kernel" in cls().get_params()}
    takes = {name for name, cls in estimator_classes().items()
             if _takes_precomputed(cls)}
    assert names == takes


def _gram(kernel, A, B):
    spec = KernelSpec(code=KERNEL_NAMES[kernel], degree=NAMED[kernel].get(
        "degree", 3), gamma=NAMED[kernel]["gamma"],
        coef0=NAMED[kernel].get("coef0", 1.0))
    return spec.gram(A, B)


@reg.mark(rule=reg.has_param("kernel"))
@pytest.mark.parametrize("cls, params", list(_kernel_estimators()))
@pytest.mark.parametrize("kernel", sorted(NAMED))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_gram_matrix_gives_the_named_kernels_model(cls, params, kernel,
                                                     n_classes):
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=1)
    X_test = np.vstack([X[:30] * 1.1, X[30:40] - 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named = cls(**params, kernel=kernel, **NAMED[kernel],
                    random_state=0).fit(X, y)
        pre = cls(**params, kernel="precomputed", random_state=0).fit(
            _gram(kernel, X, X), y)
    assert pre.n_mistakes_ == named.n_mistakes_
    np.testing.assert_array_equal(pre.mistakes_per_epoch_,
                                  named.mistakes_per_epoch_)
    np.testing.assert_array_equal(pre.support_, named.support_)
    K_test = _gram(kernel, X_test, X)
    expected = named.decision_function(X_test)
    got = pre.decision_function(K_test)
    scale = np.max(np.abs(expected))
    assert np.max(np.abs(got - expected)) <= 1e-9 * scale
    np.testing.assert_array_equal(pre.predict(K_test),
                                  named.predict(X_test))


@reg.mark(rule=reg.has_param("kernel"))
@pytest.mark.parametrize("cls", [c for c in estimator_classes().values()
                                 if _takes_precomputed(c)],
                         ids=lambda c: c.__name__)
def test_what_a_gram_matrix_cannot_express_is_refused(cls):
    X, y = make_classification(n_samples=60, n_features=5, random_state=2)
    K = _gram("rbf", X, X)
    est = cls(kernel="precomputed", max_iter=2, random_state=0)
    refused = "square Gram matrix .* continuation .* rows left out"
    with pytest.raises(ValueError, match=refused):
        est.fit(K[:, :40], y)
    est.fit(K, y)
    with pytest.raises(ValueError, match=refused):
        est.partial_fit(K[:10], y[:10])
    with pytest.raises(ValueError, match=refused):
        est.set_params(warm_start=True).fit(K, y)
    weights = np.ones(60)
    weights[3] = 0.0
    with pytest.raises(ValueError, match=refused):
        cls(kernel="precomputed", max_iter=2).fit(K, y,
                                                  sample_weight=weights)
    with pytest.raises(ValueError, match="features"):
        est.predict(K[:5, :30])


def test_a_kernel_name_that_is_not_one_is_refused():
    cls = next(c for c in estimator_classes().values()
               if _takes_precomputed(c))
    with pytest.raises(InvalidParameterError, match="precomputed"):
        cls(kernel="gram").fit(np.eye(4), [0, 1, 0, 1])
