"""The perceptron family of Khardon & Wachman (2007), Figure 2, one pass per call.

One loop for every member of the family: one or more binary threshold
perceptrons trained over a single read of X (one problem for binary data,
one per class for one-vs-rest, K&W Sec. 2.7) or one prototype per class
(Shalev-Shwartz & Singer 2005, Eq. 18), the rule chosen by the type of its
``rule`` argument (:mod:`perceptrons._loops.hypotheses`); weights kept as
vectors (primal) or as coefficients over support vectors with a Mercer kernel
(dual, K&W Sec. 2.1), chosen by the type of its store
(:mod:`perceptrons._loops.storage`). Margin τ (PAM), the λ-trick (Eq. 1) and
the α-bound act in any combination, and the bookkeeping of every final
hypothesis (last, longest survivor, voted, averaged) is kept alongside.

References
----------
R. Khardon and G. Wachman. Noise tolerant variants of the perceptron
algorithm. JMLR 8:227-248, 2007.
"""

import numpy as np
from numba import njit

from .hypotheses import (
    HYPOTHESIS_AVERAGED,
    HYPOTHESIS_VOTED,
    count_update,
    is_mistake,
    log_retired_vote,
    log_rival,
    may_update,
    rival,
    rows_of,
    rule_counts,
    signed_score,
    steps_inside,
    survive,
    update,
    update_sum,
)
from .storage import (
    admits,
    begin_pass,
    prefetch_step,
    raw_scores,
    self_sq_norm,
    settle,
    snapshot_rows,
    storage_loop,
)

__all__ = ["figure2_epoch", "ovr_rivals"]


@storage_loop
def figure2_epoch(store, targets, order, weights, theta, rule, final, logs):
    """One pass of K&W Figure 2 over ``order``.

    Parameters
    ----------
    store : PrimalStore, DualStore or BudgetStore
        The weights (:mod:`perceptrons._loops.storage`): one row per binary
        problem or prototype; ``summed`` holds the averaged hypothesis's
        accumulator and ``snapshot`` the longest survivor's weights, when
        kept. Updated in place (a dual store's support set grows; under a
        budget a step the Stoptron refuses is not made, and each step ends
        with the budget's room-making).
    targets : ndarray of shape (n_samples,) or (n_samples, K), integer
        Class index of each row (int64, or the smallest signed type that
        holds the class indices: a shuffled pass reads it at random rows).
        Threshold rule with one problem: 1 is the positive class and 0 the
        negative; with K problems, problem k's label is +1 where
        ``targets == k`` and -1 elsewhere (one-vs-rest). Or, multi-label
        (threshold rules only), each row's labels ±1 (int8), problem k's
        in column k.
    order : ndarray of shape (n_steps,), int64
        Rows to present, in order.
    weights : ndarray of shape (n_samples,) or (0,), float64
        Each row's weight s_i, multiplying its steps (empty: every weight
        is 1).
    theta : ndarray of shape (n_rows,), float64
        Thresholds θ, updated in place.
    rule : ThresholdRule, BinaryRule, PrototypeRule or ProjectronRule
        Figure 2's update rule (:mod:`perceptrons._loops.hypotheses`; the
        Projectron's: :mod:`perceptrons._loops.projectron`, with a
        BudgetStore of its policy).
    final, logs : tuple
        The final-hypothesis bookkeeping and this call's counters and logs
        (:mod:`perceptrons._loops.hypotheses`), updated in place.

    Returns
    -------
    n_mistakes : int
        Online prediction mistakes of the current hypothesis, before its
        update: ``y(<w,x> - θ) <= 0`` for one problem; otherwise the true
        class's score not strictly above every other class's; multi-label,
        one per problem with ``y_k(<w_k,x> - θ_k) <= 0``.
    """
    margin, lam, alpha_bound = rule.margin, rule.lam, rule.alpha_bound
    (hypothesis, t_start, theta_avg_acc, theta_ls, tally, best_tally,
     ls_current, current_vote) = final
    alpha_counts, vote_log, update_log, other_log, n_logged, n_updates, \
        scores, score_log = logs
    n_rows, n_counters = rule_counts(rule, theta, alpha_counts)
    alpha_first = alpha_counts[0]
    n_mistakes = 0
    ctx = begin_pass(store)
    for step in range(order.shape[0]):
        prefetch_step(store, order, step, targets, alpha_first)
        i = order[step]
        t_global = t_start + step + 1
        target = targets[i]
        ctx = raw_scores(store, ctx, order, step, scores, n_rows)
        for r in range(n_rows):
            scores[r] = scores[r] - theta[r]
        if score_log.shape[0] > 0:
            for r in range(n_rows):
                score_log[step, r] = scores[r]
        other = rival(rule, scores, target)
        # A bool (one class per example) or a count (a multi-label row).
        n_mistakes += is_mistake(rule, scores, target, other)
        for k in range(n_counters):
            # y(SUM - θ) of Figure 2, with the λ-trick term of Eq. (1):
            # y·y λ ‖φ(x_i)‖² = λ ‖φ(x_i)‖².
            m = signed_score(rule, scores, target, k, n_counters, other)
            if lam != 0.0 and alpha_counts[k, i] != 0:
                m += lam * self_sq_norm(store, i)
            if m <= margin:
                # ŷ ≠ y: Figure 2's ŷ is 0 inside the margin band.
                if (may_update(alpha_counts, k, i, alpha_bound)
                        and admits(store, k, i)
                        and steps_inside(rule, store, k, i, m)):
                    if hypothesis == HYPOTHESIS_VOTED:
                        n = log_retired_vote(k, i, current_vote, vote_log,
                                             update_log, n_logged)
                        log_rival(rule, other_log, n, other)
                    weight = 1.0 if weights.shape[0] == 0 else weights[i]
                    a = update(rule, store, target, k, n_counters, other, i,
                               theta, weight)
                    if hypothesis == HYPOTHESIS_AVERAGED:
                        update_sum(rule, store, target, k, n_counters, other,
                                   i, a, theta_avg_acc, t_global)
                    count_update(k, i, alpha_counts, n_updates, tally,
                                 ls_current)
            else:
                # ŷ = y: the current hypothesis survives one more example.
                snapshot = survive(k, final)
                if snapshot:
                    lo, hi = rows_of(rule, k, n_rows)
                    if snapshot == 2:
                        snapshot_rows(store, lo, hi)
                    for r in range(lo, hi):
                        theta_ls[r] = theta[r]
        # A budget makes room once the step's updates are made.
        settle(store)
    return n_mistakes


@njit(cache=True, nogil=True)
def ovr_rivals(score_log, targets, steps, lo, best_other, true_score):
    """One group's part of the online mistakes of a threaded one-vs-rest
    pass, from its score log.

    The pass's problems run in groups on threads; a step is an online
    mistake when another class scores at least the true one (the test of
    :func:`~perceptrons._loops.hypotheses.is_mistake`), which needs every
    group's scores. Each group keeps, per step, the largest of its scores
    other than the true class's and, if the true class is its own, that
    class's score; NaN stands for none, so the largest over groups
    (``np.fmax``) compared with ``>=`` gives the single pass's count, NaN
    scores included (a NaN is never at least anything).

    Parameters
    ----------
    score_log : ndarray of shape (n_steps, n_group), float64
        The group's scores (θ subtracted) at each step.
    targets : ndarray of shape (n_samples,), integer
        Class index of each row.
    steps : ndarray of shape (n_steps,), int64
        The rows presented.
    lo : int
        The group's first problem.
    best_other, true_score : ndarray of shape (n_steps,), float64
        Filled with NaN by the caller; written in place.
    """
    for s in range(steps.shape[0]):
        t = np.int64(targets[steps[s]]) - lo
        best = best_other[s]
        for r in range(score_log.shape[1]):
            v = score_log[s, r]
            if r == t:
                true_score[s] = v
            elif v > best or (best != best and v == v):
                best = v
        best_other[s] = best
