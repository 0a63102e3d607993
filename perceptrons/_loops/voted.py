"""Prediction of the voted perceptron (Freund & Schapire 1999), incrementally.

The k-th hypothesis differs from the (k-1)-th by one update, so its output on
x follows from the previous one's in O(1) given ``<x_e, x>`` for the example
x_e of that update (K&W 2007, Sec. 2.5):
``<w_k, x> = <w_0, x> + Σ_{j≤k} η y_j <x_j, x>``. The caller supplies those
inner products (or Mercer kernel values) as a transposed Gram block ``GT`` of
shape (n_support, n_cols): one row per support vector, one column per test
row. The loops then cost O(n_rows · n_updates), and they run across the test
rows: the outer loop walks the updates, the inner one the block's rows, whose
running scores and vote totals sit in two short arrays, so that each update
reads one contiguous row of ``GT`` (kept small enough to stay in cache) and
does a few instructions per test row, vectorised.

Every score is the same chain of additions as a per-row replay of the
updates (``s += c · g`` in update order, ``th += Δθ`` likewise, then
``acc += v · sign(s - th)``), so the vote totals are those of that replay bit
for bit, whatever block of rows they are computed with.

:func:`csr_gram_t` computes ``GT`` for CSR test rows and CSR support vectors
of the primal form, bit for bit as scikit-learn's sparse product
``safe_sparse_dot(X, S.T, dense_output=True)`` sums it (see its docstring).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def voted_binary_decision(GT, support_index, coef, theta_step, votes,
                          theta_start, update_ptr, out):
    """Σ_h vote_h · sign(<w_h, x> - θ_h) for each test row and problem.

    Parameters
    ----------
    GT : ndarray of shape (n_support, n_cols), float64
        ``GT[s, t] = <x_t, sv_s>`` (or ``k(x_t, sv_s)``); ``n_cols`` is at
        least ``out.shape[0]`` (the columns past it are ignored, finite).
    support_index : ndarray of shape (n_updates_total,), int64
        Support vector of each update; problem k's updates are
        ``update_ptr[k]:update_ptr[k+1]``, in training order.
    coef : ndarray of shape (n_updates_total,), float64
        Weight increment ``η y`` of each update.
    theta_step : ndarray of shape (n_updates_total,), float64
        Threshold increment ``-η y C`` of each update.
    votes : ndarray of shape (n_updates_total + n_problems,), int64
        Votes of the hypotheses; problem k's ``n_k + 1`` hypotheses (the
        initial one first) are ``votes[update_ptr[k] + k : update_ptr[k+1] + k + 1]``.
    theta_start : ndarray of shape (n_problems,), float64
        θ of each problem's initial hypothesis (whose w is 0).
    update_ptr : ndarray of shape (n_problems + 1,), int64
    out : ndarray of shape (n_rows, n_problems), float64
        Filled with the vote totals.
    """
    n_problems = theta_start.shape[0]
    n_rows = out.shape[0]
    n_cols = GT.shape[1]
    s = np.empty(n_cols)
    acc = np.empty(n_cols)
    for k in range(n_problems):
        lo = update_ptr[k]
        hi = update_ptr[k + 1]
        vbase = lo + k
        th = theta_start[k]
        a = float(votes[vbase]) * np.sign(0.0 - th)
        for t in range(n_cols):
            s[t] = 0.0
            acc[t] = a
        for e in range(lo, hi):
            ce = coef[e]
            g = GT[support_index[e]]
            th += theta_step[e]
            v = votes[vbase + e - lo + 1]
            if v != 0:
                fv = float(v)
                for t in range(n_cols):
                    st = s[t] + ce * g[t]
                    s[t] = st
                    acc[t] += fv * np.sign(st - th)
            else:
                for t in range(n_cols):
                    s[t] += ce * g[t]
        for t in range(n_rows):
            out[t, k] = acc[t]


@njit(cache=True)
def voted_prototype_decision(GT, support_index, positive, negative, steps,
                             threshold_step, votes, theta_start, out, work,
                             work_theta):
    """Vote totals per class for the voted prototype perceptron.

    Each hypothesis votes ``vote_h`` for its ``argmax_r <w^r_h, x> - θ^r_h``
    (lowest index among equals).

    Parameters
    ----------
    GT : ndarray of shape (n_support, n_cols), float64
        As in :func:`voted_binary_decision`.
    support_index, positive, negative : ndarray of shape (n_updates,), int64
        Support vector, increased class and decreased class of each update.
    steps : ndarray of shape (n_updates,), float64
        Each update's step η s_i (η times its row's weight).
    threshold_step : float
        C.
    votes : ndarray of shape (n_updates + 1,), int64
    theta_start : ndarray of shape (n_classes,), float64
    out : ndarray of shape (n_rows, n_classes), float64
        Filled with the vote totals.
    work : ndarray of shape (n_classes, n_cols), float64
        Work space: the class scores of every test row.
    work_theta : ndarray of shape (n_classes,), float64
        Work space.
    """
    n_classes = theta_start.shape[0]
    n_updates = support_index.shape[0]
    n_rows = out.shape[0]
    n_cols = GT.shape[1]
    best = np.empty(n_cols, dtype=np.int64)
    best_score = np.empty(n_cols)
    for r in range(n_classes):
        work_theta[r] = theta_start[r]
        for t in range(n_cols):
            work[r, t] = 0.0
        for t in range(n_rows):
            out[t, r] = 0.0
    for h in range(n_updates + 1):
        if h > 0:
            e = h - 1
            g = GT[support_index[e]]
            wp = work[positive[e]]
            wn = work[negative[e]]
            eta = steps[e]
            for t in range(n_cols):
                ge = eta * g[t]
                wp[t] += ge
                wn[t] -= ge
            work_theta[positive[e]] -= eta * threshold_step
            work_theta[negative[e]] += eta * threshold_step
        v = votes[h]
        if v != 0:
            # argmax_r, lowest index among equals, for every row at once.
            th0 = work_theta[0]
            for t in range(n_cols):
                best[t] = 0
                best_score[t] = work[0, t] - th0
            for r in range(1, n_classes):
                thr = work_theta[r]
                wr = work[r]
                for t in range(n_cols):
                    sc = wr[t] - thr
                    if sc > best_score[t]:
                        best[t] = r
                        best_score[t] = sc
            for t in range(n_rows):
                out[t, best[t]] += v


@njit(cache=True)
def csr_gram_t(X_data, X_indices, X_indptr, lo, hi, S_data, S_indices,
               S_indptr, XT, GT):
    """``GT[s, t - lo] = <sv_s, x_t>`` for CSR rows ``lo:hi`` of X.

    The rows ``lo:hi`` are scattered into the zeroed dense block ``XT``
    (cleared again on return); each support vector's row of ``GT`` is then
    ``Σ_q S_data[q] · XT[S_indices[q]]`` over its nonzeros in index order,
    vectorised across the test rows.

    Bit for bit what scikit-learn's ``safe_sparse_dot(X, S.T,
    dense_output=True)`` gives when the rows of X have sorted indices
    without duplicates (canonical CSR): it sums ``x_tq · s_q`` over the
    nonzeros of ``x_t`` in index order, starting from 0; here the same
    nonzero terms come in the same order, and the extra terms, where
    ``x_tq`` is 0, are ±0, which leave a finite sum unchanged (only the
    sign of a zero sum may differ, and ``s + (±0) = s`` for every later
    addition).

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarray
        Test rows, CSR with sorted, unique indices within rows.
    lo, hi : int
        The rows to take, ``hi - lo <= n_cols``.
    S_data, S_indices, S_indptr : ndarray
        Support vectors, CSR.
    XT : ndarray of shape (n_features, n_cols), float64
        Work space, all zeros on entry and on return.
    GT : ndarray of shape (n_support, n_cols), float64
        Filled; columns past ``hi - lo`` hold zeros.
    """
    for t in range(lo, hi):
        for p in range(X_indptr[t], X_indptr[t + 1]):
            XT[X_indices[p], t - lo] = X_data[p]
    n_cols = GT.shape[1]
    for s in range(S_indptr.shape[0] - 1):
        row = GT[s]
        for c in range(n_cols):
            row[c] = 0.0
        for q in range(S_indptr[s], S_indptr[s + 1]):
            a = S_data[q]
            x = XT[S_indices[q]]
            for c in range(n_cols):
                row[c] += a * x[c]
    for t in range(lo, hi):
        for p in range(X_indptr[t], X_indptr[t + 1]):
            XT[X_indices[p], t - lo] = 0.0
