"""Epoch orders: full permutations and the windowed shuffle="blocks"."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from perceptrons import PDM, Ballseptron, HigherOrderPerceptron, Perceptron
from perceptrons.models._ovr import problem_seeds
from perceptrons.utils.random import (BLOCK_ROWS, WINDOW_BLOCKS, draw_order,
                                      epoch_orders)


@pytest.mark.parametrize("n", [1, 2, BLOCK_ROWS - 1, BLOCK_ROWS,
                               BLOCK_ROWS * WINDOW_BLOCKS + 1, 70001])
def test_blocks_is_a_permutation_made_of_windows_of_whole_blocks(n):
    order = draw_order(check_random_state(0), n, "blocks")
    assert order.dtype == np.int64
    np.testing.assert_array_equal(np.sort(order), np.arange(n))
    window = BLOCK_ROWS * WINDOW_BLOCKS
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    block = np.arange(n) // BLOCK_ROWS
    # a block's rows come within one window's span of positions
    first = np.full(block[-1] + 1, n)
    last = np.zeros(block[-1] + 1, dtype=np.int64)
    np.minimum.at(first, block, position)
    np.maximum.at(last, block, position)
    assert np.all(last - first < window)
    # and any window's span of positions holds at most two windows' blocks
    for start in range(0, n, window):
        assert len(np.unique(order[start:start + window] // BLOCK_ROWS)) \
            <= 2 * WINDOW_BLOCKS


def test_blocks_shuffles_within_and_across_windows():
    n = 20 * BLOCK_ROWS * WINDOW_BLOCKS
    order = draw_order(check_random_state(1), n, "blocks")
    window = BLOCK_ROWS * WINDOW_BLOCKS
    first = order[:window]
    # rows of one block are spread over the window, not kept in a run
    assert np.mean(np.diff(first) == 1) < 0.01
    # the windows' blocks come from all over the data
    assert first.max() - first.min() > n / 2
    # another seed, another order; the same seed, the same bits
    assert not np.array_equal(order,
                              draw_order(check_random_state(2), n, "blocks"))
    np.testing.assert_array_equal(
        order, draw_order(check_random_state(1), n, "blocks"))


def test_true_is_numpys_permutation_and_false_the_identity():
    np.testing.assert_array_equal(draw_order(check_random_state(3), 500,
                                             True),
                                  check_random_state(3).permutation(500))
    np.testing.assert_array_equal(draw_order(None, 5, False), np.arange(5))
    orders = list(epoch_orders(4, 300, 3, "blocks"))
    rng = check_random_state(4)
    for order in orders:  # one generator for all the epochs
        np.testing.assert_array_equal(order, draw_order(rng, 300, "blocks"))


@pytest.mark.filterwarnings("ignore:PDM did not converge")
@pytest.mark.parametrize("Estimator", [Perceptron, Ballseptron, PDM,
                                       HigherOrderPerceptron])
def test_an_estimator_with_blocks_trains_on_that_order(Estimator):
    """shuffle="blocks" only changes the order: one pass equals an unshuffled
    pass over the rows in the drawn order, bit for bit."""
    X, y = make_classification(1500, 8, n_informative=5, random_state=0)
    X = sp.csr_matrix(X)
    seed = 7
    kw = {"max_iter": 1}
    if Estimator is Perceptron:  # θ_Init="auto" sums ⟨x,x⟩ in row order
        kw.update(theta_init=1.0, threshold_step=1.0, hypothesis="last")
    if Estimator is PDM:  # its problems draw orders from their own seeds
        seed = problem_seeds(7, 1)[0]
        kw.update(active_sets=False)
    order = draw_order(check_random_state(seed), X.shape[0], "blocks")
    blocks = Estimator(shuffle="blocks", random_state=7, **kw).fit(X, y)
    plain = Estimator(shuffle=False, **kw).fit(X[order], y[order])
    np.testing.assert_array_equal(blocks.decision_function(X),
                                  plain.decision_function(X))
    with pytest.raises(ValueError, match="shuffle"):
        Estimator(shuffle="rows").fit(X, y)
