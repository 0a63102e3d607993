"""K&W (2007) Figure 2 in dual form with Mercer kernels, one pass per call.

The weight vector of problem k is kept as ``w_k = Σ_j c_kj φ(x_j)`` with
``c_kj = η y_kj α_kj`` (K&W Sec. 2.1), so the score of example i is
``Σ_{j ∈ S} c_kj k(x_j, x_i) - θ_k`` over the support S (the examples that
caused an update). These loops mirror the primal ones of
:mod:`perceptrons._loops.perceptron` (one-vs-rest) and
:mod:`perceptrons._loops.multiclass` (prototypes) step for step: same margin,
λ-trick, α-bound, tie rules, counters and final-hypothesis bookkeeping.

The support set, the kernel-row cache, the BLAS blocks of dense input and
the kernel part of the scores are those of :mod:`perceptrons._loops.support`,
passed as its tuples ``data, kernel, support, cache``. The dual coefficients
are stored by support slot, ``coef[k, p]``, so a score is one contiguous dot
product and one kernel row serves every problem; this module adds what is
K&W's own: the thresholds θ, the fixed score contributions of earlier calls'
support vectors (``base_scores``), the update rule and the final-hypothesis
bookkeeping. The results are bit for bit the same for every cache size, and
dense and CSR input agree to rounding (see :mod:`perceptrons._loops.support`).
"""

from numba import njit

from ._common import FASTMATH, best_other
from .hypotheses import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_VOTED,
    count_update,
    is_online_mistake,
    log_retired_vote,
    may_update,
    problem_sign,
    survive,
)
from .support import (
    append_support,
    new_kernel_block,
    support_scores,
)

__all__ = ["dual_prototype_perceptron_epoch",
           "dual_threshold_perceptron_epoch"]


@njit(cache=True, inline="always")
def _threshold_scores(data, kernel, support, cache, order, step, coef, theta,
                      base_scores, scores, block):
    """``scores[k] = Σ_p coef[k, p] k(x_i, x_support[p]) + base - θ_k``.

    ``i = order[step]``; ``base = base_scores[i, k]`` when ``base_scores``
    has rows (the fixed contributions of support vectors of earlier calls).
    The other arguments and the return value are those of
    :func:`perceptrons._loops.support.support_scores`.
    """
    block = support_scores(data, kernel, support, cache, order, step, coef,
                           scores, block)
    i = order[step]
    has_base = base_scores.shape[0] > 0
    for k in range(coef.shape[0]):
        s = scores[k]
        if has_base:
            s += base_scores[i, k]
        scores[k] = s - theta[k]
    return block


@njit(cache=True, fastmath=FASTMATH)
def dual_threshold_perceptron_epoch(
    data, kernel, support, cache,
    targets, order, base_scores, coef, theta,
    rule, final, logs,
):
    """One dual pass of K&W Figure 2 over ``order``, for one or more binary problems.

    Parameters
    ----------
    data, kernel, support, cache : tuple
        The rows with their norms (``diag[i] = k(x_i, x_i) = ‖φ(x_i)‖²``
        is read only when ``lam != 0``), the kernel, the support set and
        the kernel-row cache, as in :mod:`perceptrons._loops.support`; the
        support set and the cache are updated in place.
    targets, order
        As in :func:`perceptrons._loops.perceptron.threshold_perceptron_epoch`.
    base_scores : ndarray of shape (n_samples, n_problems) or (0, n_problems)
        Fixed score contributions of support vectors of earlier calls.
    coef : ndarray of shape (n_problems, n_samples), float64
        Dual coefficients by support slot, updated in place.
    theta : ndarray of shape (n_problems,), float64
        Thresholds θ, updated in place.
    rule, final, logs : tuple
        As in the primal loop (:mod:`perceptrons._loops.hypotheses`), with
        ``coef_avg_acc`` and ``coef_ls`` of ``final`` of shape
        (n_problems, n_samples) by support slot, or (n_problems, 0) when
        their hypothesis is not kept.

    Returns
    -------
    n_mistakes : int
        Online prediction mistakes, with the primal loop's tie rule.
    """
    eta, threshold_step, margin, lam, alpha_bound = rule
    (hypothesis, t_start, coef_avg_acc, theta_avg_acc, coef_ls, theta_ls,
     tally, best_tally, ls_current, current_vote) = final
    alpha_counts, vote_log, update_log, _, n_logged, n_updates, scores = logs
    n_problems = coef.shape[0]
    n_mistakes = 0
    diag = data[6]  # k(x_i, x_i) of the kernel in use
    block = new_kernel_block(data)
    for step in range(order.shape[0]):
        i = order[step]
        t_global = t_start + step + 1
        target = targets[i]
        block = _threshold_scores(data, kernel, support, cache, order, step,
                                  coef, theta, base_scores, scores, block)
        if is_online_mistake(scores, target, n_problems):
            n_mistakes += 1
        for k in range(n_problems):
            y = problem_sign(target, k, n_problems)
            # SUM - θ of Figure 2, with the λ-trick term of Eq. (1) in
            # feature space: ‖φ(x_i)‖² = k(x_i, x_i).
            s = scores[k]
            if lam != 0.0 and alpha_counts[k, i] != 0:
                s += y * lam * diag[i]
            if y * s <= margin:
                if may_update(alpha_counts, k, i, alpha_bound):
                    if hypothesis == HYPOTHESIS_VOTED:
                        log_retired_vote(k, i, current_vote, vote_log,
                                         update_log, n_logged)
                    a = eta * y
                    pos = append_support(support, i)
                    coef[k, pos] += a
                    # θ moves against w (Cristianini & Shawe-Taylor).
                    theta[k] -= a * threshold_step
                    if hypothesis == HYPOTHESIS_AVERAGED:
                        c = float(t_global - 1)
                        coef_avg_acc[k, pos] += c * a
                        theta_avg_acc[k] -= c * a * threshold_step
                    count_update(k, i, alpha_counts, n_updates, tally,
                                 ls_current)
            else:
                snapshot = survive(k, final)
                if snapshot == 2:
                    # Slots past n_support hold 0 in both arrays.
                    for p in range(support[2][0]):
                        coef_ls[k, p] = coef[k, p]
                if snapshot:
                    theta_ls[k] = theta[k]
    return n_mistakes


@njit(cache=True, fastmath=FASTMATH)
def dual_prototype_perceptron_epoch(
    data, kernel, support, cache,
    targets, order, base_scores, coef, theta,
    rule, final, logs,
):
    """One dual pass of the prototype rule over ``order``.

    Arguments are those of :func:`dual_threshold_perceptron_epoch`, with one
    problem as in :func:`perceptrons._loops.multiclass.prototype_perceptron_epoch`:
    ``coef`` holds one row of dual coefficients per class (an update adds
    ``η`` to the true class's coefficient of x_i and ``-η`` to the best other
    class's), and ``other_log`` records the decreased class of each update.

    Returns
    -------
    n_mistakes : int
        Steps whose true class did not score strictly above all others.
    """
    eta, threshold_step, margin, lam, alpha_bound = rule
    (hypothesis, t_start, coef_avg_acc, theta_avg_acc, coef_ls, theta_ls,
     tally, best_tally, ls_current, current_vote) = final
    (alpha_counts, vote_log, update_log, other_log, n_logged, n_updates,
     scores) = logs
    n_classes = coef.shape[0]
    n_mistakes = 0
    diag = data[6]  # k(x_i, x_i) of the kernel in use
    block = new_kernel_block(data)
    for step in range(order.shape[0]):
        i = order[step]
        t_global = t_start + step + 1
        y = targets[i]
        block = _threshold_scores(data, kernel, support, cache, order, step,
                                  coef, theta, base_scores, scores, block)
        other = best_other(scores, y)
        gap = scores[y] - scores[other]
        if gap <= 0.0:
            n_mistakes += 1
        if lam != 0.0 and alpha_counts[0, i] != 0:
            gap += lam * diag[i]
        if gap <= margin:
            if may_update(alpha_counts, 0, i, alpha_bound):
                if hypothesis == HYPOTHESIS_VOTED:
                    n = log_retired_vote(0, i, current_vote, vote_log,
                                         update_log, n_logged)
                    other_log[n] = other
                pos = append_support(support, i)
                coef[y, pos] += eta
                coef[other, pos] -= eta
                theta[y] -= eta * threshold_step
                theta[other] += eta * threshold_step
                if hypothesis == HYPOTHESIS_AVERAGED:
                    c = float(t_global - 1)
                    coef_avg_acc[y, pos] += c * eta
                    coef_avg_acc[other, pos] -= c * eta
                    theta_avg_acc[y] -= c * eta * threshold_step
                    theta_avg_acc[other] += c * eta * threshold_step
                count_update(0, i, alpha_counts, n_updates, tally, ls_current)
        else:
            snapshot = survive(0, final)
            if snapshot == 2:
                m = support[2][0]
                for r in range(n_classes):
                    for p in range(m):
                        coef_ls[r, p] = coef[r, p]
            if snapshot:
                theta_ls[:] = theta
    return n_mistakes
