"""The perceptron family of Khardon & Wachman (2007), Figure 2, one pass per call.

One loop trains ``n_problems`` binary threshold perceptrons in parallel over a
single read of X: one problem for binary data, one per class for one-vs-rest
(K&W Sec. 2.7). Margin τ (PAM), the λ-trick (Eq. 1) and the α-bound act in any
combination, and the bookkeeping of every final hypothesis (last, longest
survivor, voted, averaged) is kept alongside.

References
----------
R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
algorithm. JMLR 8:227-248, 2007.
"""

from numba import njit

from ._common import prefetch_rows, row_axpy, row_dot
from .hypotheses import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_LAST,
    HYPOTHESIS_LONGEST,
    HYPOTHESIS_VOTED,
    count_update,
    is_online_mistake,
    log_retired_vote,
    may_update,
    problem_sign,
    survive,
)

#: Steps ahead at which a shuffled pass asks for a row's index entry and
#: per-row state, and for its nonzeros
#: (:func:`~perceptrons._loops._common.prefetch_rows`; PDM's distances: no
#: other setting was measurably better on a9a stacked 150 times).
INDEX_AHEAD, ROW_AHEAD = 8, 4

__all__ = ["HYPOTHESIS_AVERAGED", "HYPOTHESIS_LAST", "HYPOTHESIS_LONGEST",
           "HYPOTHESIS_VOTED", "threshold_perceptron_epoch"]


@njit(cache=True)
def threshold_perceptron_epoch(
    X_data, X_indices, X_indptr,
    targets, order, prefetch, sq_norms,
    W, theta,
    rule, final, logs,
):
    """One pass of K&W Figure 2 over ``order``, for one or more binary problems.

    Parameters
    ----------
    X_data, X_indices, X_indptr
        The data matrix (see :mod:`perceptrons._loops._common`).
    targets : ndarray of shape (n_samples,), integer
        Class index of each row (int64, or the smallest signed type that
        holds the class indices: a shuffled pass reads it at random rows).
        With one problem, 1 is the positive class and 0 the negative; with
        K problems, problem k's label is +1 where ``targets == k`` and -1
        elsewhere (one-vs-rest).
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    prefetch : bool
        Ask for the rows a few steps ahead
        (:func:`~perceptrons._loops._common.prefetch_rows`): a shuffled
        pass over a matrix larger than the cache is bound by the latency of
        each random row (a9a stacked 150 times: 2.3 s without, 0.64 s with).
        An in-order pass leaves it to the hardware prefetcher (the hints
        would cost it 13 %). Results are the same either way.
    sq_norms : ndarray of shape (n_samples,), float64
        ``<x_i, x_i>``, read only when ``lam != 0``.
    W : ndarray of shape (n_problems, n_features), float64
        Weight vectors w, updated in place.
    theta : ndarray of shape (n_problems,), float64
        Thresholds θ, updated in place.
    rule, final, logs : tuple
        Figure 2's update rule, the final-hypothesis bookkeeping and this
        call's counters and logs, as described in
        :mod:`perceptrons._loops.hypotheses` (``final`` holds w-shaped
        ``W_avg_acc``, ``W_ls``; ``logs`` has an empty ``other_log``);
        their arrays are updated in place.

    Returns
    -------
    n_mistakes : int
        Online prediction mistakes of the current hypothesis, before its
        update: ``y(<w,x> - θ) <= 0`` for one problem; for one-vs-rest, the
        true class's score not strictly above every other class's.
    """
    eta, threshold_step, margin, lam, alpha_bound = rule
    (hypothesis, t_start, W_avg_acc, theta_avg_acc, W_ls, theta_ls,
     tally, best_tally, ls_current, current_vote) = final
    alpha_counts, vote_log, update_log, _, n_logged, n_updates, scores = logs
    n_problems = W.shape[0]
    n_steps = order.shape[0]
    alpha_first = alpha_counts[0]
    n_mistakes = 0
    for step in range(n_steps):
        if prefetch:
            prefetch_rows(order, step, n_steps, X_data, X_indices, X_indptr,
                          targets, alpha_first, sq_norms, INDEX_AHEAD,
                          ROW_AHEAD)
        i = order[step]
        t_global = t_start + step + 1
        target = targets[i]
        for k in range(n_problems):
            scores[k] = row_dot(W[k], X_data, X_indices, X_indptr, i) - theta[k]
        if is_online_mistake(scores, target, n_problems):
            n_mistakes += 1
        for k in range(n_problems):
            y = problem_sign(target, k, n_problems)
            # SUM - θ of Figure 2, with the λ-trick term of Eq. (1).
            s = scores[k]
            if lam != 0.0 and alpha_counts[k, i] != 0:
                s += y * lam * sq_norms[i]
            if y * s <= margin:
                # ŷ ≠ y: Figure 2's ŷ is 0 inside the margin band.
                if may_update(alpha_counts, k, i, alpha_bound):
                    if hypothesis == HYPOTHESIS_VOTED:
                        log_retired_vote(k, i, current_vote, vote_log,
                                         update_log, n_logged)
                    a = eta * y
                    row_axpy(W[k], a, X_data, X_indices, X_indptr, i)
                    # θ moves against w (Cristianini & Shawe-Taylor).
                    theta[k] -= a * threshold_step
                    if hypothesis == HYPOTHESIS_AVERAGED:
                        c = float(t_global - 1)
                        row_axpy(W_avg_acc[k], c * a, X_data, X_indices,
                                 X_indptr, i)
                        theta_avg_acc[k] -= c * a * threshold_step
                    count_update(k, i, alpha_counts, n_updates, tally,
                                 ls_current)
            else:
                # ŷ = y: the current hypothesis survives one more example.
                snapshot = survive(k, final)
                if snapshot == 2:
                    W_ls[k, :] = W[k]
                if snapshot:
                    theta_ls[k] = theta[k]
    return n_mistakes
