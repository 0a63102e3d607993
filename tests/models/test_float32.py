"""float32 input: read as it is by the primal models, float64 weights.

A float32 value is exact in float64 and every loop multiplies it by float64
weights in float64, so a primal fit on float32 X is the fit on the same
values as float64, bit for bit; support-vector models (a kernel, HO/SO's
dual form) keep float64 support vectors and read a float64 copy.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from perceptrons import Perceptron
from perceptrons.utils.validation import linear_scores
from tests import _registry as reg
from tests._states import assert_same_state


@reg.mark()
@pytest.mark.parametrize("cls, params", list(reg.cases()))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_float32_fit_is_the_float64_fit_of_its_values(cls, params, n_classes,
                                                      sparse):
    X, y = make_classification(n_samples=120, n_features=8, n_informative=4,
                               n_classes=n_classes, n_clusters_per_class=1,
                               random_state=n_classes)
    X32 = X.astype(np.float32)
    convert = sp.csr_matrix if sparse else np.asarray
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = cls(**params, random_state=0).fit(convert(X32), y)
        b = cls(**params, random_state=0).fit(
            convert(X32.astype(np.float64)), y)
    assert_same_state(a.state_, b.state_)
    assert_array_equal(a.predict(convert(X32)), b.predict(X32))
    got = a.decision_function(convert(X32))
    want = b.decision_function(X32.astype(np.float64))
    assert got.dtype == np.float64
    assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_scores_in_blocks(sparse):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((10_000, 7)).astype(np.float32)
    X[X < 0.5] = 0.0
    W = rng.standard_normal((3, 7))
    if sparse:
        X = sp.csr_matrix(X)
    got = linear_scores(X, W)
    want = (X.astype(np.float64) @ W.T)
    assert got.dtype == np.float64 and got.shape == (10_000, 3)
    assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_float32_is_not_copied():
    """fit on float32 X allocates a small fraction of X's bytes (the old
    float64 copy was twice them); measured at scale by
    benchmarks/bench_float32_memory.py."""
    rng = np.random.RandomState(0)
    X = rng.standard_normal((20_000, 200)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    est = Perceptron(max_iter=1)
    est.fit(X[:100], y[:100])  # compiled outside the measurement
    tracemalloc.start()
    est.fit(X, y)
    est.predict(X)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 0.25 * X.nbytes, peak / X.nbytes
