"""Mercer kernel values of ``perceptrons._loops.mercer`` on dense and CSR rows.

The compiled kernel rows and the Python Gram blocks must agree with each
other, between dense and CSR storage (CSR is never densified), and with
scikit-learn's ``linear_kernel``, ``polynomial_kernel`` and ``rbf_kernel``;
every compiled dense inner product (one pair, one row against many, a tile
of a block) must be the same chain of fused multiply-adds, bit for bit.
"""

import numba
import numpy as np
import pytest
from numba import njit
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics.pairwise import polynomial_kernel

from perceptrons._loops.mercer import (
    KERNEL_LINEAR,
    KERNEL_POLY,
    KERNEL_RBF,
    PANEL_WIDTH,
    PANELS_PER_TASK,
    TILE_ROWS,
    chain_dot,
    dense_dots,
    fill_kernel_values,
    gram_block,
    kernel_diag,
    kernel_from_dots,
    normalize_values,
    pack_panels,
    panel_kernel_values,
    panel_kernel_values_threaded,
    row_sq_norms_of,
    scatter_row,
)
from perceptrons._loops._common import row_sq_norms
from perceptrons.utils.validation import as_flat_loop_arrays, as_loop_arrays
from tests._loops.kernel_cases import KERNELS, sklearn_gram

pytestmark = pytest.mark.reference



@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((23, 9))
    X[rng.random(X.shape) < 0.5] = 0.0
    X[4] = 0.0  # an all-zero row
    X[7] = X[2]  # a duplicate: rbf distance exactly 0
    return X


def kernel_row(data, indices, indptr, n_features, is_dense, sq_norms,
               kernel, degree, gamma, coef0, i, rows, out):
    """``out[p] = k(x_i, x_rows[p])`` through the loops' own row path."""
    dense_work = np.zeros(0 if is_dense else n_features)
    if not is_dense:
        scatter_row(data, indices, indptr, i, dense_work)
    fill_kernel_values(data, indices, indptr, n_features, is_dense,
                       sq_norms, kernel, degree, gamma, coef0,
                       i, rows, 0, rows.shape[0], dense_work, out)


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


# ------------------------------------------------------- dense inner products
@njit
def _chains(X):
    """``<x_i, x_j>`` for all pairs, one :func:`chain_dot` each."""
    n, d = X.shape
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = chain_dot(X[i], X[j], d)
    return out


@pytest.mark.parametrize("d", [1, 5, 8, 9, 64, 301])
def test_dense_inner_products_are_one_chain(d):
    """One pair, one row against many (any slice of them) and the tiles of
    a block (any panels, any row position) give the same bits."""
    rng = np.random.default_rng(d)
    n = 3 * PANEL_WIDTH + 5
    X = rng.standard_normal((n, d)) * rng.choice([1e-3, 1.0, 1e3], size=d)
    X[rng.random(X.shape) < 0.3] = 0.0
    X[4] = 0.0
    reference = _chains(X)
    # Within the error bound of a sum of d products (BLAS's too).
    bound = 2 * d * np.finfo(float).eps * (np.abs(X) @ np.abs(X).T)
    assert np.all(np.abs(reference - X @ X.T) <= bound)
    assert_array_equal(reference, reference.T)  # fma(a, b, s) = fma(b, a, s)
    data = X.reshape(-1)
    rows = rng.permutation(n).astype(np.int64)
    out = np.full(n, np.nan)
    for i in (0, 4, n - 1):
        for lo, hi in [(0, n), (3, 12), (n - 7, n), (5, 5)]:
            out[:] = np.nan
            dense_dots(data, d, i, rows, lo, hi, out)
            assert_array_equal(out[lo:hi], reference[i, rows[lo:hi]])
    n_panels = -(-n // PANEL_WIDTH)
    panels = np.zeros(n_panels * d * PANEL_WIDTH)
    pack_panels(data, d, rows, 0, 10, panels)  # in two goes
    pack_panels(data, d, rows, 10, n, panels)
    slots = rows[:n]
    for t_lo, t_hi in [(0, n_panels), (1, n_panels), (n_panels - 1, n_panels)]:
        picked = rng.permutation(n)[:2 * TILE_ROWS]
        n_cols = (t_hi - t_lo) * PANEL_WIDTH + 3
        G = np.full(picked.shape[0] * n_cols, np.nan)
        _panel_dots(panel_kernel_values, data, d, picked, panels, t_lo, t_hi,
                    G, n_cols)
        # The threaded tiles: the same values, whatever the thread count.
        before = numba.get_num_threads()
        try:
            for threads in range(1, numba.config.NUMBA_NUM_THREADS + 1):
                numba.set_num_threads(threads)
                G_threaded = np.full_like(G, np.nan)
                _panel_dots(panel_kernel_values_threaded, data, d, picked,
                            panels, t_lo, t_hi, G_threaded, n_cols)
                assert_array_equal(G_threaded, G)
        finally:
            numba.set_num_threads(before)
        G = G.reshape(picked.shape[0], n_cols)
        lo, hi = t_lo * PANEL_WIDTH, n
        for r, i in enumerate(picked):
            assert_array_equal(G[r, :hi - lo], reference[i, slots[lo:hi]])


def _panel_dots(fn, data, d, rows, panels, t_lo, t_hi, G, n_cols):
    """The tiles' inner products alone: the linear kernel."""
    rows = np.asarray(rows, dtype=np.int64)
    fn(data, d, rows, rows.shape[0], panels, t_lo, t_hi, G, n_cols,
       np.zeros(0), (KERNEL_LINEAR, 1, 1.0, 0.0, np.zeros(0)),
       np.zeros(0, np.int64), 0)


@pytest.mark.parametrize("n_panels", [4, 2 * PANELS_PER_TASK + 3])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("code", [KERNEL_POLY, KERNEL_RBF])
def test_tiles_become_the_kernel_values_of_every_path(code, normalized,
                                                      n_panels):
    """The kernel values of a tile are its inner products transformed by
    kernel_from_dots and normalize_values, the functions of every other
    path, bit for bit, serial and threaded, in one group of panels or
    several; padding rows (a_rows -1) and the columns from n_b on keep
    their inner products."""
    rng = np.random.default_rng(code)
    n, d = (n_panels - 1) * PANEL_WIDTH + 5, 37
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    X[3] = 0.0  # a zero norm: normalised values 0
    sq = (X * X).sum(axis=1)
    slots = rng.permutation(n).astype(np.int64)
    panels = np.zeros(-(-n // PANEL_WIDTH) * d * PANEL_WIDTH)
    pack_panels(X.reshape(-1), d, slots, 0, n, panels)
    t_lo, t_hi = 1, -(-n // PANEL_WIDTH)
    origin = t_lo * PANEL_WIDTH
    n_rows = 3 * TILE_ROWS
    picked = np.r_[rng.choice(n, n_rows - 4, replace=False), 3, 3, 3, 3]
    a_rows = picked.astype(np.int64)
    a_rows[-3:] = -1  # padding: the tile's first row again
    n_cols = (t_hi - t_lo) * PANEL_WIDTH
    n_b = n - origin - 4  # the last slots are left as inner products
    degree, gamma, coef0 = 3, 0.7, 0.4
    norms = np.sqrt(kernel_diag(sq, code, degree, gamma, coef0))
    norms[3] = 0.0
    kernel = (code, degree, gamma, coef0, norms if normalized else np.zeros(0))
    data = X.reshape(-1)
    dots = np.full(n_rows * n_cols, np.nan)
    _panel_dots(panel_kernel_values, data, d, picked, panels, t_lo, t_hi,
                dots, n_cols)
    dots = dots.reshape(n_rows, n_cols)
    expected = dots.copy()
    b_rows = slots[origin:]
    for r in range(n_rows):
        if a_rows[r] >= 0:
            kernel_from_dots(sq, code, degree, gamma, coef0, a_rows[r], b_rows,
                             0, n_b, expected[r])
            if normalized:
                normalize_values(norms, a_rows[r], b_rows, 0, n_b,
                                 expected[r])
    assert not np.array_equal(expected, dots)
    for fn in (panel_kernel_values, panel_kernel_values_threaded):
        G = np.full(n_rows * n_cols, np.nan)
        fn(data, d, a_rows, n_rows, panels, t_lo, t_hi, G, n_cols, sq, kernel,
           b_rows, n_b)
        assert_array_equal(G.reshape(n_rows, n_cols), expected)


def test_panel_kernel_values_checks_its_bounds():
    """Too small arrays and rows outside X (or a tile without a first
    row) are refused before any tile is read or written."""
    d = 3
    X = np.zeros(2 * d)
    panels = np.zeros(d * PANEL_WIDTH)
    G = np.zeros(TILE_ROWS * PANEL_WIDTH)
    rows = np.array([1, 0, -1, -1], dtype=np.int64)
    b_rows = np.zeros(PANEL_WIDTH, dtype=np.int64)
    kernel = (KERNEL_POLY, 2, 1.0, 1.0, np.zeros(0))

    def call(X=X, rows=rows, n_rows=TILE_ROWS, t_hi=1, G=G,
             n_cols=PANEL_WIDTH, b_rows=b_rows, n_b=PANEL_WIDTH):
        panel_kernel_values(X, d, rows, n_rows, panels, 0, t_hi, G, n_cols,
                            np.zeros(2), kernel, b_rows, n_b)

    call()
    for bad in [dict(n_rows=TILE_ROWS - 1), dict(n_rows=2 * TILE_ROWS),
                dict(t_hi=2, n_cols=2 * PANEL_WIDTH), dict(G=G[:-1]),
                dict(rows=rows[:-1]), dict(n_b=PANEL_WIDTH + 1),
                dict(b_rows=b_rows[:-1]),
                dict(rows=np.array([2, 0, -1, -1])),  # outside X
                dict(rows=np.array([-1, 0, 1, 1])),  # no first row
                dict(rows=np.array([0, -2, 1, 1]))]:
        with pytest.raises(ValueError):
            call(**bad)


def test_parallel_functions_are_not_cached_on_their_own():
    """numba 0.68 writes a cache entry that crashes another process for a
    function compiled while a function it calls holding parallel=True code
    was loaded from the cache; the threaded tiles, and the
    compiled functions between them and the loops, are therefore never
    cached themselves (see mercer.panel_kernel_values_threaded)."""
    if numba.config.DISABLE_JIT:
        pytest.skip("no compiled functions, hence no caches, without the JIT")
    from numba.core.caching import NullCache

    from perceptrons._loops.ballseptron import support_gram
    from perceptrons._loops.support import fill_kernel_block

    for fn in (panel_kernel_values_threaded, fill_kernel_block,
               support_gram):
        assert isinstance(fn._cache, NullCache), fn

