"""Storage and prediction of voted hypotheses, shared by primal and dual models.

Each update is kept as (support vector, increment); the hypotheses' votes sit
beside them. Prediction asks the model for transposed Gram blocks between test
rows and the support vectors (inner products in the primal, Mercer kernel
values in the dual), a block of rows small enough to stay in cache, and runs
the incremental loops of :mod:`perceptrons._loops.voted`, which give every
hypothesis' score from the previous one's in O(1) per row: O(n_updates) per
test row in all, plus the Gram block.
"""

import numpy as np

from .._loops.voted import voted_binary_decision, voted_prototype_decision

# Rows of test data per Gram block, at most: bounds a block's memory to
# _BLOCK_ROWS × n_support doubles (the kernel models' scores use it too).
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


def longest_survivor(arrays, support_X, eta, threshold_step, theta_init,
                     n_features):
    """Weights and intercepts of each problem's longest survivor, replayed
    from a voted run's log (K&W Figure 2's ``w_ls``, ``θ_ls``).

    The hypothesis with the most votes (the first of equals, as the loop's
    ``tally > best``) is the initial one plus the updates before it, added
    in the loop's order (``np.cumsum`` adds row after row, as
    ``w += η y x``), so the weights are the bits a fit with
    ``hypothesis="longest"`` keeps.

    Parameters
    ----------
    arrays : tuple
        :meth:`VotedLog.binary_arrays` of the run.
    support_X : ndarray or CSR matrix
        The rows the log's support indices point to.
    eta, threshold_step, theta_init : float
    n_features : int

    Returns
    -------
    weights : ndarray of shape (n_problems, n_features)
    intercept : ndarray of shape (n_problems,)
        ``-θ``.
    """
    support, sign, votes, ptr = arrays
    n_problems = ptr.shape[0] - 1
    W = np.zeros((n_problems, n_features))
    theta = np.full(n_problems, float(theta_init))
    for k in range(n_problems):
        lo, hi = ptr[k], ptr[k + 1]
        h = int(np.argmax(votes[lo + k: hi + k + 1]))
        a = eta * sign[lo:lo + h]
        W[k] = _sequential_sum(support_X, support[lo:lo + h], a, n_features)
        theta[k] = np.cumsum(np.concatenate([[theta[k]],
                                             -(a * threshold_step)]))[-1]
    return W, -theta


def _sequential_sum(S, idx, a, n_features, chunk=4096):
    """``Σ_j a_j S[idx_j]`` added in order, as the training loop adds."""
    w = np.zeros(n_features)
    for lo in range(0, idx.shape[0], chunk):
        rows = S[idx[lo:lo + chunk]]
        rows = rows.toarray() if hasattr(rows, "toarray") else np.asarray(rows)
        steps = a[lo:lo + chunk, None] * rows
        steps[0] += w  # w + step, then the next step: the loop's order
        w = np.cumsum(steps, axis=0)[-1]
    return w


def gram_t_from(gram, block_rows=None):
    """A ``fill(X, lo, hi, GT)`` for :func:`voted_binary_scores` from a
    row-major Gram function.

    Parameters
    ----------
    gram : callable
        ``gram(X_block)`` returns the (n_block, n_support) Gram block.
    block_rows : int or None, default=None
        Rows per block the Gram function must be given, when its rounding
        may depend on the block's shape (BLAS products, kernel blocks):
        the prediction then takes blocks of exactly that many rows, the
        same values on every call. None lets the prediction choose.

    Returns
    -------
    callable
        Writes ``gram(X[lo:hi]).T`` into ``GT[:, :hi - lo]``; its
        ``block_rows`` attribute is ``block_rows``.
    """
    def fill(X, lo, hi, GT):
        GT[:, :hi - lo] = gram(X[lo:hi]).T

    fill.block_rows = block_rows
    return fill


def _block_rows(fill, n_support):
    """Test rows per block: the fill's own, if it has one; else the
    transposed Gram block stays near 8 MiB (in the last-level cache while
    the updates stream past; smaller blocks spend more on the per-update
    loop overhead: on a9a's 18,082 support vectors 56 rows beat 16 by 15 %
    and 256 by 30 %), a multiple of 8 (whole 64-byte lines per support
    vector)."""
    rows = getattr(fill, "block_rows", None)
    if rows is not None:
        return rows
    rows = (8 << 20) // (8 * max(n_support, 1))
    return int(min(_BLOCK_ROWS, max(8, rows - rows % 8)))


def voted_binary_scores(fill, X, n_support, arrays, eta, threshold_step,
                        theta_start):
    """Vote totals of one-vs-rest (or binary) voted hypotheses.

    Parameters
    ----------
    fill : callable
        ``fill(X, lo, hi, GT)`` writes the transposed Gram block of rows
        ``lo:hi``, ``GT[s, t - lo] = <x_t, sv_s>`` (or the kernel value),
        into ``GT[:, :hi - lo]`` (:func:`gram_t_from` makes one from a
        row-major Gram function); its ``block_rows`` attribute, if not
        None, fixes the rows per block.
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
    rows = _block_rows(fill, n_support)
    GT = np.zeros((n_support, rows))
    for lo in range(0, X.shape[0], rows):
        hi = min(lo + rows, X.shape[0])
        _fill_block(fill, X, lo, hi, GT)
        voted_binary_decision(GT, support, coef, theta_step, votes,
                              theta_start, ptr, out[lo:hi])
    return out


def voted_prototype_scores(fill, X, n_support, arrays, eta, threshold_step,
                           theta_start):
    """Vote totals per class of the voted prototype perceptron (arguments
    as :func:`voted_binary_scores`, ``arrays`` from
    :meth:`VotedLog.prototype_arrays`)."""
    support, label, other, votes = arrays
    n_classes = theta_start.shape[0]
    out = np.zeros((X.shape[0], n_classes))
    rows = _block_rows(fill, n_support)
    GT = np.zeros((n_support, rows))
    work = np.empty((n_classes, rows))
    work_theta = np.empty(n_classes)
    for lo in range(0, X.shape[0], rows):
        hi = min(lo + rows, X.shape[0])
        _fill_block(fill, X, lo, hi, GT)
        voted_prototype_decision(GT, support, label, other, eta,
                                 threshold_step, votes, theta_start,
                                 out[lo:hi], work, work_theta)
    return out


def _fill_block(fill, X, lo, hi, GT):
    if GT.shape[0] == 0:
        return
    if hi - lo < GT.shape[1]:
        # The last, short block: columns past it must not hold stale values
        # (they are ignored, but stay finite).
        GT[:, hi - lo:] = 0.0
    fill(X, lo, hi, GT)
