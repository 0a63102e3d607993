"""Prediction of the voted perceptron (Freund & Schapire 1999), incrementally.

The k-th hypothesis differs from the (k-1)-th by one update, so its output on
x follows from the previous one's in O(1) given ``<x_e, x>`` for the example
x_e of that update (K&W 2007, Sec. 2.5). The caller supplies those inner
products (or Mercer kernel values) as a Gram block ``G`` of shape
(n_rows, n_support); the loops then cost O(n_rows · n_updates).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def voted_binary_decision(G, support_index, coef, theta_step, votes,
                          theta_start, update_ptr, out):
    """Σ_h vote_h · sign(<w_h, x> - θ_h) for each row and problem.

    Parameters
    ----------
    G : ndarray of shape (n_rows, n_support), float64
        ``G[t, s] = <x_t, sv_s>`` (or ``k(x_t, sv_s)``).
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
    for t in range(G.shape[0]):
        for k in range(n_problems):
            lo = update_ptr[k]
            hi = update_ptr[k + 1]
            vbase = lo + k
            s = 0.0
            th = theta_start[k]
            acc = float(votes[vbase]) * np.sign(s - th)
            for e in range(lo, hi):
                s += coef[e] * G[t, support_index[e]]
                th += theta_step[e]
                v = votes[vbase + e - lo + 1]
                if v != 0:
                    acc += v * np.sign(s - th)
            out[t, k] = acc


@njit(cache=True)
def voted_prototype_decision(G, support_index, positive, negative, eta,
                             threshold_step, votes, theta_start, out, work,
                             work_theta):
    """Vote totals per class for the voted prototype perceptron.

    Each hypothesis votes ``vote_h`` for its ``argmax_r <w^r_h, x> - θ^r_h``
    (lowest index among equals).

    Parameters
    ----------
    G : ndarray of shape (n_rows, n_support), float64
    support_index, positive, negative : ndarray of shape (n_updates,), int64
        Support vector, increased class and decreased class of each update.
    eta, threshold_step : float
        η and C.
    votes : ndarray of shape (n_updates + 1,), int64
    theta_start : ndarray of shape (n_classes,), float64
    out : ndarray of shape (n_rows, n_classes), float64
        Filled with the vote totals.
    work, work_theta : ndarray of shape (n_classes,), float64
        Work space.
    """
    n_classes = theta_start.shape[0]
    n_updates = support_index.shape[0]
    for t in range(G.shape[0]):
        for r in range(n_classes):
            work[r] = 0.0
            work_theta[r] = theta_start[r]
            out[t, r] = 0.0
        for h in range(n_updates + 1):
            if h > 0:
                e = h - 1
                g = eta * G[t, support_index[e]]
                work[positive[e]] += g
                work[negative[e]] -= g
                work_theta[positive[e]] -= eta * threshold_step
                work_theta[negative[e]] += eta * threshold_step
            v = votes[h]
            if v != 0:
                best = 0
                best_score = work[0] - work_theta[0]
                for r in range(1, n_classes):
                    sc = work[r] - work_theta[r]
                    if sc > best_score:
                        best = r
                        best_score = sc
                out[t, best] += v
