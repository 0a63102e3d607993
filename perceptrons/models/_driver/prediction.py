"""Scores and labels of a fitted model, its rows split across threads
where that keeps every bit."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ...utils.parallel import contiguous_parts, effective_n_jobs
from .._kernel import BLOCK_ROWS as PREDICTION_BLOCK_ROWS
from .inputs import as_read, validated

__all__ = ["labels", "scores", "validate_for_prediction"]


def validate_for_prediction(est, algo, X):
    """X as the model reads it, checked against the fitted input."""
    check_is_fitted(est)
    return as_read(algo, validated(est, X, reset=False))


def scores(est, algo, X):
    """``decision_function`` of validated X: one column for one problem."""
    out = _decision_by_threads(est, algo, X)
    if out.shape[1] == 1 and not est.state_.n_labels:
        return out[:, 0]
    return out


def labels(state, scores):
    """The labels ``predict`` gives for ``decision_function``'s scores: for
    two classes ``classes_[1]`` where the score is strictly positive, else
    the class of largest score (lowest index among equals); a multi-label
    model's indicator, 1 where a label's score is strictly positive."""
    if state.n_labels:
        return (scores > 0).astype(np.int64)
    classes = state.classes
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


def _decision_by_threads(est, algo, X):
    """The algorithm's decision on X, its rows split across ``n_jobs``
    threads where the decision is computed in row blocks
    (``decides_in_blocks``): chunks of whole blocks from X's first row keep
    every block's rows, hence every bit. Other decisions (a linear model's
    ``X @ coef_.T``, left to BLAS: a product of another shape may round
    differently) run whole.
    """
    state, view = est.state_, vars(est)
    n_threads = effective_n_jobs(algo.n_jobs)
    n_blocks = -(-X.shape[0] // PREDICTION_BLOCK_ROWS)
    if (n_threads < 2 or n_blocks < 2
            or not algo.decides_in_blocks(state, view)):
        return algo.decision(state, view, X)
    chunks = [X[lo * PREDICTION_BLOCK_ROWS:hi * PREDICTION_BLOCK_ROWS]
              for lo, hi in contiguous_parts(n_blocks,
                                             min(n_threads, n_blocks))]
    with ThreadPoolExecutor(len(chunks)) as pool:
        parts = list(pool.map(lambda chunk: algo.decision(state, view, chunk),
                              chunks))
    return np.concatenate(parts, axis=0)
