"""Multiclass perceptron with one prototype per class, one pass per call.

Prediction is ``argmax_r <w^r, x> - θ_r``; on an update the true class's
prototype gains ``η x`` and the best other class's loses it (Crammer & Singer's
multiclass perceptron, Shalev-Shwartz & Singer 2005, Eq. 18), with the
thresholds, margin τ, λ-trick and α-bound of Khardon & Wachman (2007) Figure 2
carried over: the binary rule is the two-class case with ``w^1 = -w^0``.
"""

from numba import njit

from ._common import best_other, prefetch_rows, row_axpy, row_dot
from .hypotheses import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_VOTED,
    count_update,
    log_retired_vote,
    may_update,
    survive,
)
from .perceptron import INDEX_AHEAD, ROW_AHEAD


@njit(cache=True)
def prototype_perceptron_epoch(
    X_data, X_indices, X_indptr,
    targets, order, prefetch, sq_norms,
    W, theta,
    rule, final, logs,
):
    """One pass of the prototype rule over ``order``.

    Arguments are those of
    :func:`perceptrons._loops.perceptron.threshold_perceptron_epoch`, with
    one problem: ``W`` has one row per class, the counters of ``final`` and
    ``logs`` (:mod:`perceptrons._loops.hypotheses`) have shape (1, ...) or
    (1,), and ``other_log`` records the class whose prototype each update
    decreased.

    The update condition is
    ``<w^y, x> - θ_y + I_i λ‖x‖² - max_{r≠y} (<w^r, x> - θ_r) <= τ``
    with the maximiser ỹ of lowest index; then ``w^y += η x``,
    ``w^ỹ -= η x``, ``θ_y -= η C``, ``θ_ỹ += η C``.

    Returns
    -------
    n_mistakes : int
        Steps whose true class did not score strictly above all others.
    """
    eta, threshold_step, margin, lam, alpha_bound = rule
    (hypothesis, t_start, W_avg_acc, theta_avg_acc, W_ls, theta_ls,
     tally, best_tally, ls_current, current_vote) = final
    (alpha_counts, vote_log, update_log, other_log, n_logged, n_updates,
     scores) = logs
    n_classes = W.shape[0]
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
        y = targets[i]
        for r in range(n_classes):
            scores[r] = row_dot(W[r], X_data, X_indices, X_indptr, i) - theta[r]
        other = best_other(scores, y)
        gap = scores[y] - scores[other]
        if gap <= 0.0:
            n_mistakes += 1
        if lam != 0.0 and alpha_counts[0, i] != 0:
            gap += lam * sq_norms[i]
        if gap <= margin:
            if may_update(alpha_counts, 0, i, alpha_bound):
                if hypothesis == HYPOTHESIS_VOTED:
                    n = log_retired_vote(0, i, current_vote, vote_log,
                                         update_log, n_logged)
                    other_log[n] = other
                row_axpy(W[y], eta, X_data, X_indices, X_indptr, i)
                row_axpy(W[other], -eta, X_data, X_indices, X_indptr, i)
                theta[y] -= eta * threshold_step
                theta[other] += eta * threshold_step
                if hypothesis == HYPOTHESIS_AVERAGED:
                    c = float(t_global - 1)
                    row_axpy(W_avg_acc[y], c * eta, X_data, X_indices,
                             X_indptr, i)
                    row_axpy(W_avg_acc[other], -c * eta, X_data, X_indices,
                             X_indptr, i)
                    theta_avg_acc[y] -= c * eta * threshold_step
                    theta_avg_acc[other] += c * eta * threshold_step
                count_update(0, i, alpha_counts, n_updates, tally, ls_current)
        else:
            snapshot = survive(0, final)
            if snapshot == 2:
                W_ls[:, :] = W
            if snapshot:
                theta_ls[:] = theta
    return n_mistakes
