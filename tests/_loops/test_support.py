"""The support set, kernel-row cache and BLAS blocks of ``perceptrons._loops.support``.

The ``reference`` tests (rows against scikit-learn's Gram matrices) also run
with the JIT off; the bit-for-bit invariance tests on wide rows would take
minutes there and run compiled only.

The rows the engine hands a dual loop must be the kernel (or its normalised
form) against the support held, whatever path gives them (cache, block,
row by row, CSR); dense input gives a pair the same bits on every path and
from every block; a short block makes no product.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from perceptrons._loops.mercer import (
    KERNEL_LINEAR,
    KERNEL_POLY,
    kernel_diag,
    row_sq_norms_of,
)
from perceptrons._loops.support import (
    BLOCK_ROWS,
    IN_CACHE,
    ROW_BY_ROW,
    SHORT_BLOCK,
    ComputedKernel,
    Kernel,
    KernelCache,
    Rows,
    SupportSet,
    append_support,
    fill_kernel_block,
    new_kernel_block,
    remove_support,
    replace_support,
    support_scores,
)
from perceptrons.utils.validation import as_flat_loop_arrays
from tests._loops.kernel_cases import KERNELS, sklearn_gram



def engine_state(X, code, degree, gamma, coef0, normalized=False,
                 capacity=0, support=(), filled=None):
    """The named tuples ``rows, kernel, support, cache`` for the rows of X
    (:mod:`perceptrons._loops.support`)."""
    n = X.shape[0]
    sq = row_sq_norms_of(X)
    diag = kernel_diag(sq, code, degree, gamma, coef0)
    norms = np.sqrt(diag) if normalized else np.zeros(0)
    if normalized:
        diag = (diag > 0).astype(np.float64)
    slots = np.zeros(n, dtype=np.int64)
    position = np.full(n, -1, dtype=np.int64)
    for p, j in enumerate(support):
        slots[p] = j
        position[j] = p
    count = np.array([len(support), 0, 0], dtype=np.int64)
    cache_filled = (np.zeros(n, dtype=np.int64) if filled is None
                    else np.asarray(filled, dtype=np.int64))
    dense_work = np.zeros(X.shape[1] if sp.issparse(X) else 0)
    return (Rows(*as_flat_loop_arrays(X), sq, diag),
            Kernel(code, degree, gamma, coef0, norms),
            SupportSet(slots, position, count, np.zeros(n, dtype=np.int64),
                       np.zeros(n, dtype=np.int64)),
            KernelCache(np.zeros((n, capacity)), cache_filled,
                        np.zeros(n, dtype=np.int64), np.empty(n), dense_work,
                        np.ones(1, dtype=np.int64)))


def provider(state):
    """The :data:`ComputedKernel` of an :func:`engine_state`."""
    data, kernel, _, cache = state
    return ComputedKernel(data, kernel, cache)


def test_append_support_slots_in_order_of_first_update():
    state = engine_state(np.eye(6), KERNEL_LINEAR, 1, 1.0, 0.0)
    support = state[2]
    assert [append_support(support, i) for i in (4, 1, 4, 0, 1)] == [
        0, 1, 0, 2, 1]
    assert support.count[0] == 3
    assert_array_equal(support.rows[:3], [4, 1, 0])
    assert_array_equal(support.slot_of, [2, 1, -1, -1, 0, -1])


# ------------------------------------------------------------- kernel rows
def engine_rows(state, order, n_passes):
    """Rows the engine gives for ``order``, pass after pass, as a dict.

    The scores against identity coefficients are the kernel values
    themselves, bit for bit (every other term is an exact 0).
    """
    data, kernel, support, cache = state
    m = int(support.count[0])
    coef = np.eye(m, data.sq_norms.shape[0])
    scores = np.empty(m)
    rows = []
    for _ in range(n_passes):
        block = new_kernel_block(data)
        got = {}
        for step in range(order.shape[0]):
            block = support_scores(provider(state), support, order, step,
                                   coef, scores, block)
            got[int(order[step])] = scores.copy()
        rows.append(got)
    return rows


@pytest.fixture(scope="module")
def rows_with_zeros():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 7))
    X[rng.random(X.shape) < 0.4] = 0.0
    X[5] = 0.0  # an all-zero row, and a support vector below
    X[9] = X[2]
    return X


@pytest.mark.reference
@pytest.mark.parametrize("name, code, degree, gamma, coef0", KERNELS)
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("capacity", [0, 4, 60])
def test_rows_are_the_kernel_or_its_normalised_form(
        rows_with_zeros, name, code, degree, gamma, coef0, normalized,
        storage, capacity):
    """Every path (BLAS block, short block, cache, row by row, CSR) gives
    ``k(x_i, x_s)`` or ``k(x_i, x_s) / sqrt(k(x_i, x_i) k(x_s, x_s))``."""
    X = rows_with_zeros
    K = sklearn_gram(name, X, X, degree, gamma, coef0)
    if normalized:
        d = np.sqrt(np.diag(K))
        outer = np.outer(d, d)
        K = np.divide(K, outer, out=np.zeros_like(K), where=outer > 0)
    support = [5, 17, 2, 40, 9, 33, 0, 11, 58, 21]
    A = sp.csr_matrix(X) if storage == "csr" else X
    state = engine_state(A, code, degree, gamma, coef0, normalized,
                         capacity, support)
    # 50 rows: a full block of 50 presented rows, then a short block
    # (10 < SHORT_BLOCK rows) in the second pass's tail.
    order = np.random.default_rng(4).permutation(60)[:50]
    for got in engine_rows(state, order, 2):
        for i, values in got.items():
            assert_allclose(values, K[i, support], rtol=1e-12, atol=1e-14)
    short = engine_rows(state, order[:SHORT_BLOCK - 6], 1)[0]
    for i, values in short.items():
        assert_allclose(values, K[i, support], rtol=1e-12, atol=1e-14)


def pair_values(state, order, grow, out, steps=None):
    """Record ``k(x_i, x_j)`` by example pair as the engine gives them.

    One pass over ``order`` (or its ``steps``, in the order given); a
    presented row in ``grow`` then joins the support, so later rows of its
    block get its values from the block's new columns. A pair seen before
    (in ``out``) must get the same bits.
    """
    data, kernel, support, cache = state
    n = data.sq_norms.shape[0]
    coef = np.eye(n)
    scores = np.empty(n)
    block = new_kernel_block(data)
    for step in range(order.shape[0]) if steps is None else steps:
        block = support_scores(provider(state), support, order, step, coef,
                               scores, block)
        i = int(order[step])
        for p in range(int(support.count[0])):
            key = (i, int(support.rows[p]))
            assert out.setdefault(key, scores[p]) == scores[p], key
        if i in grow:
            append_support(support, i)


@pytest.mark.parametrize("name, code, degree, gamma, coef0", KERNELS)
@pytest.mark.parametrize("normalized", [False, True])
def test_every_dense_path_gives_a_pair_the_same_bits(name, code, degree,
                                                     gamma, coef0,
                                                     normalized):
    """Blocks of any rows and columns, the row-by-row path (support added
    inside a block, short blocks) and the cache give a pair the same bits,
    for any cache size and order; wide rows, so that another summation
    order would show."""
    rng = np.random.default_rng(8)
    n = 300
    X = rng.standard_normal((n, 301)) / 17.0
    X[rng.random(X.shape) < 0.2] = 0.0
    first = [int(j) for j in rng.permutation(n)[:40]]
    grow = set(int(j) for j in rng.permutation(n)[:90])
    values = {}
    for capacity, chunk in [(0, n), (30, n), (n, n), (n, 10), (7, 150)]:
        state = engine_state(X, code, degree, gamma, coef0, normalized,
                             capacity, first)
        for _ in range(2):
            order = rng.permutation(n)
            for lo in range(0, n, chunk):  # chunks of 10: short blocks
                pair_values(state, order[lo:lo + chunk], grow, values)
    assert len(values) > 10000
    K = sklearn_gram(name, X, X, degree, gamma, coef0)
    if normalized:
        d = np.sqrt(np.diag(K))
        K = K / np.outer(d, d)
    keys = np.array(list(values))
    assert_allclose(np.array(list(values.values())), K[keys[:, 0], keys[:, 1]],
                    rtol=1e-11, atol=1e-13)


@pytest.mark.reference
def test_normalised_rows_of_a_zero_row_are_zero(rows_with_zeros):
    state = engine_state(rows_with_zeros, KERNEL_LINEAR, 1, 1.0, 0.0,
                         normalized=True, support=[5, 3])
    assert_array_equal(state[0].diag[[5, 3]], [0.0, 1.0])
    got = engine_rows(state, np.arange(20), 1)[0]
    assert_array_equal(got[5], 0.0)
    assert got[3][0] == 0.0 and got[3][1] == pytest.approx(1.0, abs=1e-15)


# ------------------------------------------------------------- BLAS blocks
def _block_values(X, code, degree, gamma, coef0, support, n_support, filled,
                  candidates, lo, hi):
    """Values the block of ``candidates[lo:hi]`` holds, as a dict."""
    data, kernel, slots, cache = engine_state(
        X, code, degree, gamma, coef0, support=support[:n_support],
        filled=filled)
    block = new_kernel_block(data)
    block = fill_kernel_block(block, data, kernel, slots, cache, candidates,
                              lo, hi)
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


@pytest.mark.reference
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
    guarantee behind "the cache never changes a result"), whatever BLAS
    would do with these shapes."""
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
    rng = np.random.default_rng(7)
    X = rng.standard_normal((100, 30))
    data, kernel, support, cache = engine_state(
        X, KERNEL_POLY, 3, 0.2, 1.0, support=np.arange(50))
    block = new_kernel_block(data)
    block = fill_kernel_block(block, data, kernel, support, cache,
                              np.arange(100), 100 - SHORT_BLOCK + 1, 100)
    row_to_block, state = block[3], block[5]
    assert state[3] == SHORT_BLOCK - 1
    assert np.all(row_to_block[100 - SHORT_BLOCK + 1:] == ROW_BY_ROW)
    assert np.all(row_to_block[:100 - SHORT_BLOCK + 1] == -1)
    assert block[0].shape[0] == 0  # nothing gathered, no product


def test_new_slot_columns_and_rows_asked_out_of_order_agree():
    """A row asked again after later rows of its block filled the columns
    of slots added since (its position is before theirs) gets those
    values row by row: the same bits as the column gives its later rows,
    and as a short block (all row by row) gives it."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((200, 257)) / 16.0
    name, code, degree, gamma, coef0 = KERNELS[1]
    order = rng.permutation(200)
    state = engine_state(X, code, degree, gamma, coef0, False, 0,
                         [int(j) for j in order[150:170]])
    support = state[2]
    seen = {}
    # 14 slots added inside the block (every third of its first 40 rows),
    # then rows 3, 17, 39 and 0 asked again.
    pair_values(state, order, {int(j) for j in order[:40:3]}, seen,
                steps=list(range(40)) + [3, 17, 39, 0])
    assert support.count[0] == 20 + 14
    # The same pairs from a short block: every value row by row.
    short = engine_state(X, code, degree, gamma, coef0, False, 0,
                         list(support.rows[:support.count[0]]))
    for step in (0, 3, 17, 39):
        got = engine_rows(short, order[step:step + 1], 1)[0]
        i = int(order[step])
        for p, v in enumerate(got[i]):
            assert seen[(i, int(support.rows[p]))] == v


# --------------------------------------------------- a support that shrinks
def test_slots_under_random_add_remove_replace_match_a_reference():
    """Slots taken, freed and replaced at random: the set's rows and slots
    are those of a plain reference (a dict of live slots and a stack of
    free ones), a freed slot is the next one taken, and a replaced slot
    gets a new generation."""
    rng = np.random.default_rng(12)
    n = 80
    state = engine_state(np.eye(n), KERNEL_LINEAR, 1, 1.0, 0.0)
    support = state[2]
    live, free, m = {}, [], 0  # slot -> row; the free stack; slots taken
    generation = np.zeros(n, dtype=np.int64)
    changes = 0
    for _ in range(2000):
        outside = [i for i in range(n) if i not in live.values()]
        action = rng.integers(3)
        if action == 0 and outside:
            i = int(rng.choice(outside))
            if free:
                p = free.pop()
                changes += 1
                generation[p] = changes
            else:
                p, m = m, m + 1
            live[p] = i
            assert append_support(support, i) == p
        elif action == 1 and live:
            p = int(rng.choice(list(live)))
            del live[p]
            free.append(p)
            remove_support(support, p)
        elif action == 2 and live and outside:
            p = int(rng.choice(list(live)))
            i = int(rng.choice(outside))
            live[p] = i
            changes += 1
            generation[p] = changes
            replace_support(support, p, i)
        assert support.count[0] == m and support.count[1] == len(free)
        assert support.count[2] == changes
        assert_array_equal(support.free[:len(free)], free)
        for p, i in live.items():
            assert support.rows[p] == i and support.slot_of[i] == p
        outside_rows = np.setdiff1d(np.arange(n), list(live.values()))
        assert np.all(support.slot_of[outside_rows] == -1)
        assert_array_equal(support.generation[:m], generation[:m])


@pytest.mark.parametrize("storage", ["dense", "csr"])
@pytest.mark.parametrize("capacity", [0, 9, 70])
@pytest.mark.parametrize("n", [70, 300])
def test_a_replaced_slot_never_gives_a_cached_value_of_its_old_row(
        storage, capacity, n):
    """Rows asked pass after pass while slots are removed and replaced
    between (and inside) blocks: every value is the kernel against the
    slot's row at that moment, from the cache, a block, a new slot's
    column or the row path alike. With 300 rows a pass crosses blocks, so
    a later block packs the support again: a slot it packed before and
    replaced since must not keep its old row's panel column."""
    name, code, degree, gamma, coef0 = KERNELS[1]
    rng = np.random.default_rng(13)
    X = rng.standard_normal((n, 9))
    X[rng.random(X.shape) < 0.3] = 0.0
    K = sklearn_gram(name, X, X, degree, gamma, coef0)
    A = sp.csr_matrix(X) if storage == "csr" else X
    state = engine_state(A, code, degree, gamma, coef0, False, capacity,
                         [int(j) for j in rng.permutation(n)[:20]])
    data, kernel, support, cache = state
    coef = np.eye(n)
    scores = np.empty(n)
    for _ in range(4):
        order = rng.permutation(n)
        block = new_kernel_block(data)
        for step in range(n):
            block = support_scores(provider(state), support, order, step,
                                   coef, scores, block)
            i = int(order[step])
            m = int(support.count[0])
            live = support.slot_of[support.rows[:m]] == np.arange(m)
            rows = support.rows[:m]
            assert_allclose(scores[:m][live], K[i, rows[live]], rtol=1e-12,
                            atol=1e-14)
            action = rng.integers(4)
            outside = np.flatnonzero(support.slot_of < 0)
            if action == 0 and live.any() and outside.size:
                replace_support(support, int(rng.choice(np.flatnonzero(live))),
                                int(rng.choice(outside)))
            elif action == 1 and live.any():
                remove_support(support, int(rng.choice(np.flatnonzero(live))))
            elif action == 2 and outside.size:
                append_support(support, int(rng.choice(outside)))
    assert support.count[2] > 20
