"""Storage and prediction of voted hypotheses, shared by primal and dual models.

Each update is kept as (support vector, increment); the hypotheses' votes sit
beside them. Prediction asks the model for transposed Gram blocks between test
rows and the support vectors (inner products in the primal, Mercer kernel
values in the dual), a block of rows small enough to stay in cache, and runs
the incremental loops of :mod:`perceptrons._loops.voted`, which give every
hypothesis' score from the previous one's in O(1) per row: O(n_updates) per
test row in all, plus the Gram block.
"""

import dataclasses

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from .._loops.voted import (csr_gram_t, voted_binary_decision,
                            voted_prototype_decision)
from ._kernel import BLOCK_ROWS as _BLOCK_ROWS
from ._state import State, array

__all__ = ["VotedLog", "gram_t_from", "longest_survivor", "voted_decision",
           "voted_binary_scores", "voted_prototype_scores"]


@dataclasses.dataclass(frozen=True)
class VotedLog(State):
    """Every update of a voted run, with the votes of the hypotheses it
    retired, per counter (one-vs-rest problem, or the one prototype rule).

    Counter k's updates, in training order, are ``ptr[k]:ptr[k + 1]``: each
    made from support vector ``support[j]`` (a row of the model's pool),
    with label ``label[j]`` (±1 for a binary problem, the increased class
    for prototypes, whose ``other[j]`` is the decreased class; ``other`` is
    empty otherwise) and the row's weight ``weight[j]`` (its step is
    ``η · weight[j]``; ``weight`` is empty when every update's weight is 1),
    retiring a hypothesis of ``votes[j]`` votes. The current hypothesis's
    votes are the model's ``current_vote``.

    Binds ``n_log``; its ``support`` indexes ``n_pool``.
    """

    VERSION = 2

    support: np.ndarray = array("int", ("n_log",), low=0, high="n_pool")
    label: np.ndarray = array("int", ("n_log",))
    other: np.ndarray = array("int", (None,), low=0)
    votes: np.ndarray = array("int", ("n_log",), low=0)
    ptr: np.ndarray = array("int", (None,), low=0, high=1 << 62)
    weight: np.ndarray = array("float", (None,), low=0.0)

    @classmethod
    def empty(cls, n_counters):
        """No update yet."""
        zeros = np.zeros(0, dtype=np.int64)
        return cls(zeros, zeros, zeros, zeros,
                   np.zeros(n_counters + 1, dtype=np.int64), np.zeros(0))

    def check(self, sizes, where):
        ptr, n = self.ptr, self.support.shape[0]
        if ptr.shape[0] < 2 or ptr[0] != 0 or ptr[-1] != n or np.any(
                np.diff(ptr) < 0):
            raise ValueError(f"{where}.ptr must rise from 0 to {n}")
        if self.other.shape[0] not in (0, n):
            raise ValueError(f"{where}.other must be empty or hold one "
                             "class per update")
        if self.weight.shape[0] not in (0, n) or np.any(self.weight <= 0.0):
            raise ValueError(f"{where}.weight must be empty or hold one "
                             "positive weight per update")

    @property
    def n_counters(self):
        """Counters (problems) the log holds."""
        return self.ptr.shape[0] - 1

    def extended(self, epochs):
        """The log with a call's updates appended.

        Parameters
        ----------
        epochs : list of list of tuple
            Per epoch of the call, per counter k: ``(support, label, votes,
            other)`` arrays of its updates (``other`` None but for
            prototypes).

        Returns
        -------
        VotedLog
        """
        parts = {name: [] for name in ("support", "label", "votes", "other")}
        # Every update's weight, once one of them is not 1.
        weighted = self.weight.shape[0] > 0 or any(
            part[4] is not None for epoch in epochs for part in epoch)
        weights = []
        ptr = [0]
        for k in range(self.n_counters):
            lo, hi = self.ptr[k], self.ptr[k + 1]
            for name in ("support", "label", "votes"):
                parts[name].append(getattr(self, name)[lo:hi])
            if self.other.shape[0]:
                parts["other"].append(self.other[lo:hi])
            if weighted:
                weights.append(self.weight[lo:hi] if self.weight.shape[0]
                               else np.ones(hi - lo))
            for epoch in epochs:
                support, label, votes, other, weight = epoch[k]
                parts["support"].append(support)
                parts["label"].append(label)
                parts["votes"].append(votes)
                if other is not None:
                    parts["other"].append(other)
                if weighted:
                    weights.append(np.ones(support.shape[0]) if weight is None
                                   else weight)
            ptr.append(sum(p.shape[0] for p in parts["support"]))
        return VotedLog(*(_cat(parts[name]) for name in
                          ("support", "label", "other", "votes")),
                        np.asarray(ptr, dtype=np.int64),
                        np.concatenate(weights) if weighted and weights
                        else np.zeros(0))

    def binary_arrays(self, current_vote):
        """``(support, sign, votes, ptr)`` for :func:`voted_binary_decision`:
        each update's label times its weight (±s, exact), and each
        problem's retired votes followed by its current one."""
        sign = self.label.astype(np.float64)
        if self.weight.shape[0]:
            sign *= self.weight
        return (self.support, sign,
                np.insert(self.votes, self.ptr[1:], current_vote),
                self.ptr)

    def prototype_arrays(self, current_vote):
        """``(support, label, other, votes, weight)`` for
        :func:`voted_prototype_decision` (``weight`` as the field)."""
        return (self.support, self.label, self.other,
                np.append(self.votes, current_vote[0]), self.weight)


def _cat(parts):
    return (np.concatenate(parts).astype(np.int64, copy=False) if parts
            else np.zeros(0, dtype=np.int64))


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
    # -(η s y) C, the product the training loop subtracts from θ.
    theta_step = -(coef * threshold_step)
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
    support, label, other, votes, weight = arrays
    # Each update's step η s (η where every weight is 1), as the loop's.
    steps = eta * weight if weight.shape[0] else np.full(support.shape[0],
                                                         float(eta))
    n_classes = theta_start.shape[0]
    out = np.zeros((X.shape[0], n_classes))
    rows = _block_rows(fill, n_support)
    GT = np.zeros((n_support, rows))
    work = np.empty((n_classes, rows))
    work_theta = np.empty(n_classes)
    for lo in range(0, X.shape[0], rows):
        hi = min(lo + rows, X.shape[0])
        _fill_block(fill, X, lo, hi, GT)
        voted_prototype_decision(GT, support, label, other, steps,
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


def voted_decision(state, eta, X, pool_gram=None):
    """Vote totals of a voted run's hypotheses (Freund & Schapire) on X.

    Parameters
    ----------
    state : PerceptronState
        A voted run (its ``voted`` log, thresholds and rule).
    eta : float
        η, the step of every logged update.
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
    pool_gram : callable or None
        Dual form: ``pool_gram(block)``, the kernel values of test rows
        against every pool row (the vote replays updates against them);
        None: the primal form, the logged rows ``state.vote_rows``.

    Returns
    -------
    ndarray of shape (n_samples, n_rows)
    """
    n_support, fill = _voted_support(state, X, pool_gram)
    # Every voter starts from the initial hypothesis (w = 0, θ_Init).
    theta_start = np.full(state.theta.shape[0], state.theta_init)
    if state.prototype:
        arrays = state.voted.prototype_arrays(state.current_vote)
        scores = voted_prototype_scores
    else:
        arrays = state.voted.binary_arrays(state.current_vote)
        scores = voted_binary_scores
    return scores(fill, X, n_support, arrays, float(eta),
                  state.threshold_step, theta_start)


def _voted_support(state, X, pool_gram):
    """The support rows of the vote and a ``fill`` of the transposed
    Gram blocks between them and test rows (:func:`voted_binary_scores`)."""
    if pool_gram is not None:
        return pool_gram.n_support, gram_t_from(pool_gram, _BLOCK_ROWS)
    S = state.vote_rows.X
    if S.shape[0] == 0:
        return 0, None
    if not (sp.issparse(X) and sp.issparse(S)):
        # BLAS may round a product differently for another block
        # shape: blocks of BLOCK_ROWS rows, the same on every call.
        return S.shape[0], gram_t_from(
            lambda block: safe_sparse_dot(block, S.T, dense_output=True),
            _BLOCK_ROWS)
    # scikit-learn's sparse product wants S.T as CSR: convert it once,
    # not once per block.
    ST = S.T.tocsr()
    if X.has_canonical_format and _dense_block_is_cheaper(X, S, ST):
        return S.shape[0], _csr_gram_t_fill(S)
    return S.shape[0], gram_t_from(
        lambda block: safe_sparse_dot(block, ST, dense_output=True))


def _dense_block_is_cheaper(X, S, ST):
    """Whether :func:`~perceptrons._loops.voted.csr_gram_t` beats the
    sparse product for the Gram blocks of CSR test rows X and support
    vectors S.

    The sparse product costs one scattered multiply-add per pair of
    nonzeros in the same column (``Σ_j nnz_j(X) nnz_j(S)``); the dense block
    one in-register multiply-add per nonzero of S and test row
    (``n_samples · nnz(S)``), about ``_DENSE_BLOCK_SPEEDUP`` times cheaper
    each. On a9a's 16,281 test rows and 18,082 support vectors the dense
    block makes 2.2 times as many multiply-adds (4.1e9 against 1.9e9) and
    the whole prediction is 2.2 times faster; on real-sim-shaped rows
    (20,958 columns) the sparse product makes far fewer and wins.
    """
    per_column = np.bincount(X.indices, minlength=X.shape[1]).astype(
        np.float64)
    sparse_cost = float(per_column @ np.diff(ST.indptr).astype(np.float64))
    dense_cost = float(X.shape[0]) * S.nnz
    return dense_cost <= _DENSE_BLOCK_SPEEDUP * sparse_cost


#: Cost of a scattered multiply-add of the sparse product over one of the
#: dense block's (measured on a9a; see :func:`_dense_block_is_cheaper`).
_DENSE_BLOCK_SPEEDUP = 4.0


def _csr_gram_t_fill(S):
    """A ``fill`` for CSR test rows (canonical) and CSR support vectors S,
    with :func:`~perceptrons._loops.voted.csr_gram_t`."""
    work = {}

    def fill(X, lo, hi, GT):
        XT = work.get("XT")
        if XT is None or XT.shape[1] != GT.shape[1]:
            XT = work["XT"] = np.zeros((X.shape[1], GT.shape[1]))
        csr_gram_t(X.data, X.indices, X.indptr, lo, hi, S.data, S.indices,
                   S.indptr, XT, GT)

    return fill
