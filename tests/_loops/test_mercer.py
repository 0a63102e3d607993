"""Mercer kernel values of ``perceptrons._loops.mercer`` on dense and CSR rows.

The compiled kernel rows and the Python Gram blocks must agree with each
other, between dense and CSR storage (CSR is never densified), and with
scikit-learn's ``linear_kernel``, ``polynomial_kernel`` and ``rbf_kernel``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from perceptrons._loops.mercer import (
    KERNEL_LINEAR,
    KERNEL_POLY,
    KERNEL_RBF,
    gram_block,
    kernel_diag,
    kernel_row,
    row_sq_norms_of,
)
from perceptrons._loops._common import row_sq_norms
from perceptrons.utils.validation import as_flat_loop_arrays, as_loop_arrays

KERNELS = [
    ("linear", KERNEL_LINEAR, 3, 0.2, 1.0),
    ("poly", KERNEL_POLY, 3, 0.2, 1.0),
    ("poly", KERNEL_POLY, 2, 0.5, 0.0),
    ("rbf", KERNEL_RBF, 3, 0.3, 1.0),
]


def sklearn_gram(name, A, B, degree, gamma, coef0):
    if name == "linear":
        return linear_kernel(A, B)
    if name == "poly":
        return polynomial_kernel(A, B, degree=degree, gamma=gamma,
                                 coef0=coef0)
    return rbf_kernel(A, B, gamma=gamma)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((23, 9))
    X[rng.random(X.shape) < 0.5] = 0.0
    X[4] = 0.0  # an all-zero row
    X[7] = X[2]  # a duplicate: rbf distance exactly 0
    return X


def storages(X):
    return [("dense", np.ascontiguousarray(X)), ("csr", sp.csr_matrix(X))]


@pytest.mark.parametrize("name,code,degree,gamma,coef0", KERNELS)
def test_kernel_row_dense_csr_and_sklearn(data, name, code, degree, gamma,
                                          coef0):
    expected = sklearn_gram(name, data, data, degree, gamma, coef0)
    rows = np.array([5, 0, 22, 4, 7, 2, 2], dtype=np.int64)
    got = {}
    for storage, X in storages(data):
        arrays = as_flat_loop_arrays(X)
        sq = row_sq_norms(*as_loop_arrays(X), X.shape[0])
        out = np.empty((X.shape[0], rows.shape[0]))
        for i in range(X.shape[0]):
            kernel_row(*arrays, sq, code, degree, gamma, coef0, i, rows,
                       out[i])
        assert_allclose(out, expected[:, rows], rtol=1e-12, atol=1e-12)
        got[storage] = out
    assert_allclose(got["dense"], got["csr"], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name,code,degree,gamma,coef0", KERNELS)
@pytest.mark.parametrize("a_storage", ["dense", "csr"])
@pytest.mark.parametrize("b_storage", ["dense", "csr"])
def test_gram_block_all_storages(data, name, code, degree, gamma, coef0,
                                 a_storage, b_storage):
    A, B = data[:11], data[6:]
    expected = sklearn_gram(name, A, B, degree, gamma, coef0)
    A_ = sp.csr_matrix(A) if a_storage == "csr" else A
    B_ = sp.csr_matrix(B) if b_storage == "csr" else B
    G = gram_block(A_, B_, code, degree, gamma, coef0)
    assert isinstance(G, np.ndarray) and G.flags.c_contiguous
    assert_allclose(G, expected, rtol=1e-12, atol=1e-12)
    if name == "rbf":
        # precomputed norms give the same block
        G2 = gram_block(A_, B_, code, degree, gamma, coef0,
                        sq_a=row_sq_norms_of(A_), sq_b=row_sq_norms_of(B_))
        assert_array_equal(G, G2)


@pytest.mark.parametrize("name,code,degree,gamma,coef0", KERNELS)
def test_diag_and_row_sq_norms(data, name, code, degree, gamma, coef0):
    for _, X in storages(data):
        sq = row_sq_norms(*as_loop_arrays(X), X.shape[0])
        assert_allclose(sq, np.einsum("ij,ij->i", data, data), rtol=1e-13)
        assert_array_equal(sq, row_sq_norms_of(X))
        diag = kernel_diag(sq, code, degree, gamma, coef0)
        expected = np.diag(sklearn_gram(name, data, data, degree, gamma,
                                        coef0))
        assert_allclose(diag, expected, rtol=1e-12, atol=1e-12)
    if name == "rbf":
        assert_array_equal(diag, 1.0)


def test_rbf_duplicate_rows_distance_zero(data):
    """A row and its duplicate are at distance 0 (clipped, never negative)."""
    X = sp.csr_matrix(data)
    arrays = as_flat_loop_arrays(X)
    sq = row_sq_norms(*as_loop_arrays(X), X.shape[0])
    out = np.empty(2)
    kernel_row(*arrays, sq, KERNEL_RBF, 3, 5.0, 1.0, 2,
               np.array([7, 2], dtype=np.int64), out)
    assert_allclose(out, 1.0, rtol=0, atol=1e-14)
    assert np.all(out <= 1.0)


def test_csr_int64_indices(data):
    X = sp.csr_matrix(data)
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    arrays = as_flat_loop_arrays(X)
    sq = row_sq_norms(*as_loop_arrays(X), X.shape[0])
    rows = np.arange(X.shape[0], dtype=np.int64)
    out = np.empty(X.shape[0])
    kernel_row(*arrays, sq, KERNEL_POLY, 3, 0.2, 1.0, 3, rows, out)
    assert_allclose(out, polynomial_kernel(data[3:4], data, degree=3,
                                           gamma=0.2, coef0=1.0)[0],
                    rtol=1e-12)


# ------------------------------------------------------------- BLAS blocks
def _block_values(X, code, degree, gamma, coef0, support, n_support, filled,
                  candidates, lo, hi):
    """Values the block of ``candidates[lo:hi]`` holds, as a dict."""
    from perceptrons._loops.mercer import (
        BLOCK_ROWS, IN_CACHE, fill_kernel_block, new_kernel_block)
    data, _, _, d, is_dense = as_flat_loop_arrays(X)
    sq = row_sq_norms_of(X)
    block = new_kernel_block(X.shape[0], d, is_dense)
    block = fill_kernel_block(block, data, d, code, degree, gamma, coef0, sq,
                              support, np.array([n_support]), filled,
                              candidates, lo, hi)
    G, row_to_block, state = block[2], block[3], block[5]
    out = {}
    for i in candidates[lo:min(hi, lo + BLOCK_ROWS)]:
        g = row_to_block[i]
        assert 0 <= g <= BLOCK_ROWS
        if g == IN_CACHE:
            assert filled[i] >= n_support
            continue
        for p in range(filled[i], n_support):
            out[i, p] = G[g * state[4] + p - state[1]]
    return out


@pytest.mark.parametrize("name, code, degree, gamma, coef0", KERNELS)
def test_kernel_block_values_are_the_kernel(name, code, degree, gamma, coef0):
    """A block holds k(x_i, x_support[p]) for the slots past each row's cache."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 40))
    support = rng.permutation(300)
    filled = rng.integers(0, 20, 300)
    candidates = rng.permutation(300)
    values = _block_values(X, code, degree, gamma, coef0, support, 25, filled,
                           candidates, 10, 300)
    assert len(values) > 0
    K = sklearn_gram(name, X, X, degree, gamma, coef0)
    for (i, p), v in values.items():
        assert_allclose(v, K[i, support[p]], rtol=1e-12, atol=1e-12)


def test_kernel_block_value_does_not_depend_on_the_block():
    """The same pair gets the same bits from blocks of other rows, other
    column ranges, a last block of 70 rows and a single needed slot (the
    guarantee behind "the cache never changes a result")."""
    rng = np.random.default_rng(6)
    X = rng.standard_normal((400, 784))  # wide rows: BLAS splits the sums
    support = rng.permutation(400)
    zeros = np.zeros(400, dtype=np.int64)
    full = {}
    for lo in range(0, 400, 128):
        full.update(_block_values(X, KERNEL_POLY, 5, 1.0, 0.5, support, 300,
                                  zeros, np.arange(400), lo, 400))
    others = [
        _block_values(X, KERNEL_POLY, 5, 1.0, 0.5, support, 300,
                      np.full(400, 200), rng.permutation(400), 0, 400),
        _block_values(X, KERNEL_POLY, 5, 1.0, 0.5, support, 300,
                      np.full(400, 299), np.arange(400)[::-1], 0, 400),
        _block_values(X, KERNEL_POLY, 5, 1.0, 0.5, support, 300, zeros,
                      np.arange(400), 330, 400),
    ]
    assert min(len(o) for o in others) > 0
    for other in others:
        for key, v in other.items():
            assert v == full[key]


def test_short_block_is_row_by_row():
    """Fewer than SHORT_BLOCK rows make no BLAS product: their rows are
    marked for the per-row path, whatever their caches hold."""
    from perceptrons._loops.mercer import (
        ROW_BY_ROW, SHORT_BLOCK, fill_kernel_block, new_kernel_block)
    rng = np.random.default_rng(7)
    X = rng.standard_normal((100, 30))
    data, _, _, d, is_dense = as_flat_loop_arrays(X)
    filled = np.zeros(100, dtype=np.int64)
    block = new_kernel_block(100, d, is_dense)
    block = fill_kernel_block(block, data, d, KERNEL_POLY, 3, 0.2, 1.0,
                              row_sq_norms_of(X), np.arange(100),
                              np.array([50]), filled, np.arange(100),
                              100 - SHORT_BLOCK + 1, 100)
    row_to_block, state = block[3], block[5]
    assert state[3] == SHORT_BLOCK - 1
    assert np.all(row_to_block[100 - SHORT_BLOCK + 1:] == ROW_BY_ROW)
    assert np.all(row_to_block[:100 - SHORT_BLOCK + 1] == -1)
    assert block[0].shape[0] == 0  # nothing gathered, no product
