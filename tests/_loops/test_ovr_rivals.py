"""The threaded one-vs-rest pass counts online mistakes from its groups'
reductions (ovr_rivals): the count of the single pass, whatever the split."""

import numpy as np
import pytest

from perceptrons._loops.perceptron import ovr_rivals
from perceptrons.utils.parallel import contiguous_parts


def single_pass_mistakes(scores, truth):
    # hypotheses.is_mistake over all problems at once: another class
    # scores at least the true one.
    rows = np.arange(scores.shape[0])
    at_least = scores >= scores[rows, truth][:, None]
    at_least[rows, truth] = False
    return int(np.count_nonzero(at_least.any(axis=1)))


def grouped_mistakes(scores, targets, steps, n_groups):
    groups = contiguous_parts(scores.shape[1], n_groups)
    best = np.full((len(groups), steps.shape[0]), np.nan)
    true = np.full((len(groups), steps.shape[0]), np.nan)
    for g, (lo, hi) in enumerate(groups):
        ovr_rivals(np.ascontiguousarray(scores[:, lo:hi]), targets, steps,
                   lo, best[g], true[g])
    return int(np.count_nonzero(np.fmax.reduce(best) >= np.fmax.reduce(true)))


@pytest.mark.parametrize("seed", range(20))
def test_grouped_count_is_the_single_pass_count(seed):
    rng = np.random.default_rng(seed)
    n_samples, n_classes = 300, int(rng.integers(2, 12))
    targets = rng.integers(0, n_classes, n_samples).astype(np.int8)
    steps = rng.permutation(n_samples)[:200].astype(np.int64)
    # Few distinct values (ties), and NaN and infinities of either sign
    # on some steps, the true class's included.
    scores = rng.integers(-2, 3, (steps.shape[0], n_classes)).astype(float)
    odd = rng.random(scores.shape)
    scores[odd < 0.05] = np.nan
    scores[(odd >= 0.05) & (odd < 0.08)] = np.inf
    scores[(odd >= 0.08) & (odd < 0.11)] = -np.inf
    expected = single_pass_mistakes(scores, targets[steps].astype(np.intp))
    for n_groups in range(1, n_classes + 1):
        assert grouped_mistakes(scores, targets, steps, n_groups) == expected
