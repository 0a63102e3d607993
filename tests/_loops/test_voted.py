"""The voted prediction loops of ``perceptrons._loops.voted``.

Each must give, bit for bit, what a replay of the updates row by row gives
(the order of the additions is the contract, not just the value), and the
sparse Gram block must be scikit-learn's sparse product bit for bit.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.utils.extmath import safe_sparse_dot

from perceptrons._loops.voted import (
    csr_gram_t,
    voted_binary_decision,
    voted_prototype_decision,
)

pytestmark = pytest.mark.reference


def _random_csr(rng, n, d, density, int32=True):
    X = sp.random(n, d, density=density, random_state=rng,
                  data_rvs=rng.standard_normal).toarray()
    X[rng.integers(0, n)] = 0.0  # a zero row
    X = sp.csr_matrix(X)
    if not int32:
        X.indices = X.indices.astype(np.int64)
        X.indptr = X.indptr.astype(np.int64)
    return X


@pytest.mark.parametrize("int32", [True, False])
@pytest.mark.parametrize("density", [0.05, 0.3, 1.0])
def test_csr_gram_t_is_sklearns_sparse_product_bit_for_bit(density, int32):
    rng = np.random.default_rng(0)
    X = _random_csr(rng, 37, 23, density, int32)
    S = _random_csr(rng, 19, 23, density, int32)
    want = safe_sparse_dot(X, S.T, dense_output=True)
    n_cols = 16
    XT = np.zeros((X.shape[1], n_cols))
    GT = np.full((S.shape[0], n_cols), np.nan)
    for lo in range(0, X.shape[0], n_cols):
        hi = min(lo + n_cols, X.shape[0])
        csr_gram_t(X.data, X.indices, X.indptr, lo, hi, S.data, S.indices,
                   S.indptr, XT, GT)
        assert_array_equal(GT[:, :hi - lo], want[lo:hi].T)
        assert not GT[:, hi - lo:].any()
        assert not XT.any()  # cleared on return


def _binary_replay(G, support, coef, theta_step, votes, theta_start, ptr):
    """Row by row, hypothesis by hypothesis: the loop's arithmetic in plain
    Python."""
    out = np.zeros((G.shape[0], theta_start.shape[0]))
    for t in range(G.shape[0]):
        for k in range(theta_start.shape[0]):
            s, th = 0.0, theta_start[k]
            acc = float(votes[ptr[k] + k]) * np.sign(s - th)
            for e in range(ptr[k], ptr[k + 1]):
                s += coef[e] * G[t, support[e]]
                th += theta_step[e]
                v = votes[k + e + 1]
                if v != 0:
                    acc += v * np.sign(s - th)
            out[t, k] = acc
    return out


def test_voted_binary_decision_is_the_row_by_row_replay():
    rng = np.random.default_rng(1)
    n_rows, n_support, counts = 13, 7, [9, 0, 5]
    G = rng.standard_normal((n_rows, n_support))
    G[:, 2] = 0.0  # exact ties of s and θ happen with zero columns
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    n = ptr[-1]
    support = rng.integers(0, n_support, n).astype(np.int64)
    sign = rng.choice([-1.0, 1.0], n)
    coef, theta_step = 0.1 * sign, -0.1 * 0.5 * sign
    votes = rng.integers(0, 3, n + len(counts)).astype(np.int64)
    theta_start = np.array([0.0, 0.3, -0.2])
    want = _binary_replay(G, support, coef, theta_step, votes, theta_start,
                          ptr)
    for n_cols in (n_rows, 19):
        GT = np.zeros((n_support, n_cols))
        GT[:, :n_rows] = G.T
        out = np.zeros((n_rows, 3))
        voted_binary_decision(GT, support, coef, theta_step, votes,
                              theta_start, ptr, out)
        assert_array_equal(out, want)


def test_voted_prototype_decision_is_the_row_by_row_replay():
    rng = np.random.default_rng(2)
    n_rows, n_support, n_classes, n = 11, 6, 4, 25
    G = rng.integers(-2, 3, (n_rows, n_support)).astype(np.float64)
    support = rng.integers(0, n_support, n).astype(np.int64)
    positive = rng.integers(0, n_classes, n).astype(np.int64)
    negative = (positive + rng.integers(1, n_classes, n)) % n_classes
    votes = rng.integers(0, 3, n + 1).astype(np.int64)
    theta_start = np.zeros(n_classes)
    eta, C = 1.0, 1.0
    want = np.zeros((n_rows, n_classes))
    for t in range(n_rows):
        w, th = np.zeros(n_classes), theta_start.copy()
        for h in range(n + 1):
            if h:
                g = eta * G[t, support[h - 1]]
                w[positive[h - 1]] += g
                w[negative[h - 1]] -= g
                th[positive[h - 1]] -= eta * C
                th[negative[h - 1]] += eta * C
            sc = w - th
            want[t, int(np.argmax(sc))] += votes[h]  # lowest index on ties
    GT = np.zeros((n_support, 16))
    GT[:, :n_rows] = G.T
    out = np.empty((n_rows, n_classes))
    voted_prototype_decision(GT, support, positive, negative,
                             np.full(n, eta), C, votes,
                             theta_start, out, np.empty((n_classes, 16)),
                             np.empty(n_classes))
    assert_array_equal(out, want)
