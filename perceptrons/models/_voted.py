"""Storage and prediction of voted hypotheses, shared by primal and dual models.

Each update is kept as (support vector, increment); the hypotheses' votes sit
beside them. Prediction asks the model for Gram blocks between test rows and
the support vectors (inner products in the primal, Mercer kernel values in the
dual) and runs the incremental loops of :mod:`perceptrons._loops.voted`.
"""

import numpy as np

from .._loops.voted import voted_binary_decision, voted_prototype_decision

# Rows of test data per Gram block: bounds the block's memory to
# _BLOCK_ROWS × n_support doubles.
_BLOCK_ROWS = 512


class VotedLog:
    """Per-problem sequences of updates and votes, grown call by call.

    Parameters
    ----------
    n_problems : int
        Independent binary problems (one-vs-rest), or 1 for the prototype
        rule, whose updates also record the decreased class.
    """

    def __init__(self, n_problems):
        self.support = [[] for _ in range(n_problems)]
        self.label = [[] for _ in range(n_problems)]
        self.other = []
        self.votes = [[] for _ in range(n_problems)]

    def extend(self, k, support_index, label, votes, other=None):
        """Append one problem's updates made in an epoch.

        ``label`` is ±1 per update for a binary problem; for the prototype
        rule it is the increased (true) class and ``other`` the decreased.
        """
        self.support[k].append(np.asarray(support_index, dtype=np.int64))
        self.label[k].append(np.asarray(label, dtype=np.int64))
        self.votes[k].append(np.asarray(votes, dtype=np.int64))
        if other is not None:
            self.other.append(np.asarray(other, dtype=np.int64))

    def binary_arrays(self, current_vote):
        """Flattened arrays for :func:`voted_binary_decision`."""
        support, sign, votes, ptr = [], [], [], [0]
        for k in range(len(self.support)):
            s = _cat(self.support[k], np.int64)
            support.append(s)
            sign.append(_cat(self.label[k], np.int64).astype(np.float64))
            votes.append(np.append(_cat(self.votes[k], np.int64),
                                   current_vote[k]))
            ptr.append(ptr[-1] + s.shape[0])
        return (np.concatenate(support), np.concatenate(sign),
                np.concatenate(votes), np.asarray(ptr, dtype=np.int64))

    def prototype_arrays(self, current_vote):
        """Arrays for :func:`voted_prototype_decision`."""
        return (_cat(self.support[0], np.int64),
                _cat(self.label[0], np.int64),
                _cat(self.other, np.int64),
                np.append(_cat(self.votes[0], np.int64), current_vote[0]))


def _cat(parts, dtype):
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def voted_binary_scores(gram, X, n_support, arrays, eta, threshold_step,
                        theta_start):
    """Vote totals of one-vs-rest (or binary) voted hypotheses.

    Parameters
    ----------
    gram : callable
        ``gram(X_block)`` returns the (n_block, n_support) Gram block.
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    n_support : int
    arrays : tuple
        From :meth:`VotedLog.binary_arrays`.
    eta, threshold_step : float
        η and C; an update on label y adds ``η y`` to the weight
        coefficient and ``-η y C`` to θ.
    theta_start : ndarray of shape (n_problems,)

    Returns
    -------
    ndarray of shape (n_samples, n_problems)
    """
    support, sign, votes, ptr = arrays
    coef = eta * sign
    theta_step = -eta * threshold_step * sign
    out = np.zeros((X.shape[0], theta_start.shape[0]))
    for lo in range(0, X.shape[0], _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, X.shape[0])
        G = _gram_block(gram, X[lo:hi], n_support)
        voted_binary_decision(G, support, coef, theta_step, votes,
                              theta_start, ptr, out[lo:hi])
    return out


def voted_prototype_scores(gram, X, n_support, arrays, eta, threshold_step,
                           theta_start):
    """Vote totals per class of the voted prototype perceptron."""
    support, label, other, votes = arrays
    n_classes = theta_start.shape[0]
    out = np.zeros((X.shape[0], n_classes))
    work = np.empty(n_classes)
    work_theta = np.empty(n_classes)
    for lo in range(0, X.shape[0], _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, X.shape[0])
        G = _gram_block(gram, X[lo:hi], n_support)
        voted_prototype_decision(G, support, label, other, eta,
                                 threshold_step, votes, theta_start,
                                 out[lo:hi], work, work_theta)
    return out


def _gram_block(gram, X_block, n_support):
    if n_support == 0:
        return np.zeros((X_block.shape[0], 0))
    return np.ascontiguousarray(gram(X_block), dtype=np.float64)
